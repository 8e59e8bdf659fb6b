"""The two views of a result's summary: the reader's view and the diagnostics view.

A reader wants the result: the finding, what was estimated from what, the estimates with
their intervals, and the notes. The checks of the computation — whether each estimate
was defined, whether its interval has zero width, Monte-Carlo errors, solver states, the
result's ``diagnostics`` mapping — are for the analyst who asks for them with
``summary(diagnostics=True)``. Header entries and table columns named in the result
class's ``DIAGNOSTIC_KEYS`` belong to that second view. A problem never hides there: an
undefined or degenerate estimate is also a warning note, shown in both views.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .escape import slug
from .format import pretty_column
from .report import Report
from .words import short_value

__all__ = ["DIAGNOSTIC_KEYS", "build_report", "diagnostics_frame"]

#: checks of the computation shared by several result classes (see the module docstring)
DIAGNOSTIC_KEYS = frozenset({
    "defined", "zero_width", "zero width", "mc_se", "mc s.e.", "mc s.e. of estimate / of v",
    "mc s.e. of v", "solver", "solver_status", "n_notes",
})


def _is_diagnostic(key: Any, keys: frozenset[str]) -> bool:
    return str(key).lower() in keys or pretty_column(key).lower() in keys


def _reader_table(df: pd.DataFrame, keys: frozenset[str]) -> pd.DataFrame:
    cols = [c for j, c in enumerate(df.columns) if j == 0 or not _is_diagnostic(c, keys)]
    return df[cols]


def _flatten(mapping: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for key, value in mapping.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            rows += _flatten(value, f"{name}.")
        elif isinstance(value, str | bool | int | float | np.number | type(None)):
            rows.append((name, value))
        else:
            rows.append((name, short_value(value)))
    return rows


def diagnostics_frame(diagnostics: Mapping[str, Any]) -> pd.DataFrame:
    """The ``diagnostics`` mapping as a two-column table (nested mappings flattened as
    ``outer.inner``, arrays described by their size)."""
    rows = _flatten(diagnostics)
    return pd.DataFrame({"diagnostic": [k for k, _ in rows],
                         "value": pd.Series([v for _, v in rows], dtype=object)})


def build_report(result: Any, *, digits: Any = None, max_rows: int | None = None,
                 diagnostics: bool = False) -> Report:
    """The :class:`Report` of ``result`` in the reader's view or the diagnostics view."""
    keys = frozenset(k.lower() for k in getattr(result, "DIAGNOSTIC_KEYS", DIAGNOSTIC_KEYS))
    header = dict(result._header())
    tables = [result._main_table()] + list(result._extra_tables())
    appendix = list(result._appendix_tables())
    if diagnostics:
        diag = diagnostics_frame(result.diagnostics or {})
        if len(diag):
            appendix.append(("Diagnostics", diag))
    else:
        header = {k: v for k, v in header.items() if not _is_diagnostic(k, keys)}
        tables = [(cap, _reader_table(pd.DataFrame(df), keys)) for cap, df in tables]
    title = result.name or result._title()
    return Report(title=title, header=header, tables=tuple(tables), notes=tuple(result.notes),
                  digits=digits, finding=result._finding(), appendix=tuple(appendix),
                  label=slug(title), max_rows=max_rows)

