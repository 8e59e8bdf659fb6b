"""Shared plotting helpers (matplotlib is imported only when a plot is drawn)."""

from __future__ import annotations

from typing import Any

__all__ = ["get_ax"]


def get_ax(ax: Any = None) -> Any:
    """The given Axes, or a new one on a new figure."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    return ax
