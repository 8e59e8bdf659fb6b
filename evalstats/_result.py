"""The immutable result base shared by every evalstats estimator.

Every result carries ``estimate``, ``std_error`` and ``confidence_level`` and
offers ``conf_int(confidence_level=...)`` (recomputed without refitting),
``tidy()`` (fixed columns ``term, estimate, std_error, conf_low, conf_high,
confidence_level, method``), ``glance()`` (exactly one row), ``summary()`` (a
:class:`~evalstats._report.Report`), ``plot(ax=None)`` and a one-line repr such
as ``<ActiveEstimate f1=0.812 [0.771, 0.853] 95%, 300 labels>``.

Subclasses add fields and override :meth:`EvalResult._interval` (how an
interval is computed at a given level), :meth:`EvalResult._tidy_rows` (several
terms) and :meth:`EvalResult._glance_extra`.
"""

from __future__ import annotations

import math
from collections import namedtuple
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ._report import Report, format_value
from ._validation import check_confidence_level

__all__ = ["ConfidenceInterval", "EvalResult", "TIDY_COLUMNS", "freeze_array", "wald_interval"]

ConfidenceInterval = namedtuple("ConfidenceInterval", ["low", "high"])
ConfidenceInterval.__doc__ = "A confidence interval ``(low, high)``."

TIDY_COLUMNS = ("term", "estimate", "std_error", "conf_low", "conf_high", "confidence_level",
                "method")


def freeze_array(a: Any) -> np.ndarray:
    """A read-only copy of ``a`` (used for array fields of frozen results)."""
    arr = np.array(a, copy=True)
    arr.setflags(write=False)
    return arr


def wald_interval(estimate: float, std_error: float | None, level: float,
                  df: float | None = None) -> ConfidenceInterval:
    """``estimate ± q · std_error`` with ``q`` the normal (``df=None``) or t quantile."""
    if std_error is None or not np.isfinite(std_error) or not np.isfinite(estimate):
        return ConfidenceInterval(float("nan"), float("nan"))
    if df is None or not np.isfinite(df):
        q = stats.norm.ppf(0.5 + level / 2.0)
    else:
        q = stats.t.ppf(0.5 + level / 2.0, df)
    return ConfidenceInterval(float(estimate - q * std_error), float(estimate + q * std_error))


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class EvalResult:
    """Base class of every evalstats result (immutable).

    Attributes
    ----------
    estimate : float
        The point estimate.
    std_error : float or None
        Its estimated standard error (``None`` when the interval is not Wald-type).
    confidence_level : float
        Level of the default interval (``conf_int()`` without argument).
    method : str
        Short name of the method (shown in ``tidy()`` and ``summary()``).
    term : str
        Name of the estimated quantity (``"error"``, ``"f1"``, ...).
    n : int or None
        Sample size (labels, test cases, ...), described by ``n_unit``.
    n_unit : str
        What ``n`` counts (``"labels"``, ``"test cases"``, ...).
    df : float or None
        Degrees of freedom for a t interval; ``None`` gives a normal interval.
    data : str
        Description of the data, for the report header.
    call : mapping
        The arguments of the call that produced the result (R's ``$call``).
    diagnostics : mapping
        Method-specific diagnostics (effective sample size, solver status, seed, ...).
    notes : tuple of str
        Notes and warnings gathered during the computation.
    """

    estimate: float
    std_error: float | None
    confidence_level: float = 0.95
    method: str = ""
    term: str = "estimate"
    n: int | None = None
    n_unit: str = "observations"
    df: float | None = None
    data: str = ""
    call: Mapping[str, Any] = field(default_factory=dict)
    diagnostics: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_confidence_level(self.confidence_level)
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, dict):
                object.__setattr__(self, f.name, MappingProxyType(dict(v)))
            elif isinstance(v, np.ndarray) and v.flags.writeable:
                object.__setattr__(self, f.name, freeze_array(v))
            elif isinstance(v, list) and f.name == "notes":
                object.__setattr__(self, f.name, tuple(v))

    # -- intervals ------------------------------------------------------------------------
    def _interval(self, level: float) -> ConfidenceInterval:
        """Interval at ``level``; default is Wald (normal or t with ``df``)."""
        return wald_interval(self.estimate, self.std_error, level, self.df)

    def conf_int(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Confidence interval ``(low, high)`` at ``confidence_level`` (default: the result's).

        Recomputed from stored quantities; nothing is refitted.
        """
        level = self.confidence_level if confidence_level is None else check_confidence_level(
            confidence_level)
        return self._interval(level)

    @property
    def ci(self) -> ConfidenceInterval:
        """The interval at the result's own ``confidence_level``."""
        return self.conf_int()

    # -- tables ---------------------------------------------------------------------------
    def _tidy_rows(self, level: float) -> list[dict[str, Any]]:
        lo, hi = self._interval(level)
        return [dict(term=self.term, estimate=self.estimate, std_error=self.std_error,
                     conf_low=lo, conf_high=hi, confidence_level=level, method=self.method)]

    def tidy(self, confidence_level: float | None = None) -> pd.DataFrame:
        """One row per estimated term, with fixed columns.

        Columns: ``term, estimate, std_error, conf_low, conf_high, confidence_level,
        method`` (subclasses may append columns after these).
        """
        level = self.confidence_level if confidence_level is None else check_confidence_level(
            confidence_level)
        df = pd.DataFrame(self._tidy_rows(level))
        extra = [c for c in df.columns if c not in TIDY_COLUMNS]
        return df[list(TIDY_COLUMNS) + extra].reset_index(drop=True)

    def _glance_extra(self) -> dict[str, Any]:
        return {}

    def glance(self) -> pd.DataFrame:
        """Exactly one row of model-level statistics."""
        lo, hi = self.conf_int()
        row = dict(term=self.term, estimate=self.estimate, std_error=self.std_error,
                   conf_low=lo, conf_high=hi, confidence_level=self.confidence_level,
                   method=self.method, n=self.n, n_notes=len(self.notes))
        row.update(self._glance_extra())
        return pd.DataFrame([row])

    # -- report ---------------------------------------------------------------------------
    def _title(self) -> str:
        return type(self).__name__

    def _header(self) -> dict[str, Any]:
        hdr: dict[str, Any] = {"Method": self.method}
        if self.data:
            hdr["Data"] = self.data
        if self.n is not None:
            hdr[f"n ({self.n_unit})"] = self.n
        hdr["Confidence level"] = f"{100 * self.confidence_level:g}%"
        if self.call:
            hdr["Call"] = _call_text(type(self).__name__, self.call)
        return hdr

    def _extra_tables(self) -> list[tuple[str, pd.DataFrame]]:
        return []

    def summary(self) -> Report:
        """A :class:`~evalstats._report.Report` (text/HTML/LaTeX/Markdown)."""
        tables = [("Estimates", self.tidy())] + list(self._extra_tables())
        return Report(title=self._title(), header=self._header(), tables=tuple(tables),
                      notes=tuple(self.notes))

    # -- plot -----------------------------------------------------------------------------
    def plot(self, ax=None, **kwargs):
        """Forest plot of ``tidy()``: each term's estimate with its interval.

        Returns the matplotlib Axes.
        """
        ax = _get_ax(ax)
        td = self.tidy()
        y = np.arange(len(td))[::-1]
        est = td["estimate"].to_numpy(float)
        lo = td["conf_low"].to_numpy(float)
        hi = td["conf_high"].to_numpy(float)
        ok = np.isfinite(lo) & np.isfinite(hi)
        ax.errorbar(est[ok], y[ok], xerr=[est[ok] - lo[ok], hi[ok] - est[ok]], fmt="o",
                    capsize=4, **kwargs)
        if (~ok).any():
            ax.plot(est[~ok], y[~ok], "x", color="grey")
        ax.set_yticks(y, td["term"].astype(str))
        ax.set_xlabel(f"estimate with {100 * self.confidence_level:g}% interval")
        ax.set_title(self._title())
        ax.grid(axis="x", alpha=0.3)
        return ax

    # -- repr -----------------------------------------------------------------------------
    def __repr__(self) -> str:
        lo, hi = self.conf_int()
        n_txt = f", {self.n} {self.n_unit}" if self.n is not None else ""
        flag = " !" if self.notes and any(n.startswith("[") for n in self.notes) else ""
        return (f"<{type(self).__name__} {self.term}={format_value(self.estimate, 3)} "
                f"[{_r3(lo)}, {_r3(hi)}] {100 * self.confidence_level:g}%{n_txt}{flag}>")


def _r3(x: float) -> str:
    return "NaN" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


def _call_text(name: str, call: Mapping[str, Any]) -> str:
    """``function(arg=value, ...)``; the function name is ``call["function"]`` if present."""
    name = call.get("function", name)
    args = ", ".join(f"{k}={_short(v)}" for k, v in call.items() if k != "function")
    return f"{name}({args})"


def _short(v: Any) -> str:
    if isinstance(v, np.ndarray | pd.Series | pd.DataFrame | list):
        shape = np.shape(v)
        return f"<{type(v).__name__} {shape}>"
    text = repr(v)
    return text if len(text) <= 30 else text[:27] + "..."


def _get_ax(ax=None):
    """The given Axes, or a new one (matplotlib imported lazily)."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    return ax
