"""The immutable result bases shared by every evalstats result: numbers, not words.

* :class:`Reportable` — anything a user can print, tabulate, report and plot: plans,
  designs, forecasts, proposals. It has ``name``, ``data``, ``call``, ``diagnostics``,
  ``notes``, ``tidy()``, ``glance()``, ``summary()``, ``plot(ax=None)`` and a one-line
  repr, and never shows an interval.
* :class:`EvalResult` — an *estimate*: ``Reportable`` plus ``estimate``, ``std_error``,
  ``confidence_level`` and ``conf_int(confidence_level=None, method=None)``, recomputed
  from stored quantities without refitting (the interval method is an argument, as in
  scipy's ``BinomTestResult.proportion_ci``; the default is the field
  ``interval_method``). ``tidy()`` starts with the columns ``term, estimate, std_error,
  conf_low, conf_high, confidence_level, method``; ``glance()`` is one row of facts about
  the whole fit and never repeats a per-term column.

For results with several terms, ``conf_int()`` is the interval of the first row of
``tidy()`` and ``conf_int_frame()`` gives every term's interval, like statsmodels'
``conf_int()``. A result hands its title, header entries, tables, notes and finding to
the renderer (:mod:`evalstats._render`), which writes the report. Results pickle and
deep-copy (their mappings are read-only :class:`FrozenDict`). Every concrete subclass is
registered in :data:`RESULT_CLASSES`. :func:`critical_value` is the one place a normal or
t quantile for an interval is computed.
"""

from __future__ import annotations

import math
from collections import namedtuple
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy import stats

from ._render.format import format_value
from ._render.plots import get_ax as _get_ax
from ._render.report import MAX_ROWS, Report
from ._render.view import DIAGNOSTIC_KEYS, build_report
from ._render.words import call_text, terms_sentence
from ._validation import check_confidence_level, check_option

__all__ = [
    "ConfidenceInterval",
    "Reportable",
    "EvalResult",
    "FrozenDict",
    "CallRecord",
    "RESULT_CLASSES",
    "TIDY_COLUMNS",
    "GLANCE_TERM_COLUMNS",
    "critical_value",
    "freeze_array",
    "wald_interval",
]

ConfidenceInterval = namedtuple("ConfidenceInterval", ["low", "high"])
ConfidenceInterval.__doc__ = "A confidence interval ``(low, high)``."

TIDY_COLUMNS = ("term", "estimate", "std_error", "conf_low", "conf_high", "confidence_level",
                "method")

#: per-term columns of ``tidy()`` that ``glance()`` must not repeat (model-level facts only)
GLANCE_TERM_COLUMNS = ("term", "estimate", "std_error", "conf_low", "conf_high")

#: every result class defined in the package, by name (filled by ``__init_subclass__``)
RESULT_CLASSES: dict[str, type] = {}


class FrozenDict(dict):
    """A read-only ``dict`` (picklable and deep-copyable, unlike ``MappingProxyType``)."""

    def _readonly(self, *args, **kwargs):
        raise TypeError(f"{type(self).__name__} is read-only")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _readonly  # type: ignore[assignment]
    __ior__ = _readonly  # type: ignore[assignment]

    def __reduce__(self):
        return (FrozenDict, (dict(self),))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        import copy

        return FrozenDict(copy.deepcopy(dict(self), memo))


class CallRecord(FrozenDict):
    """The recorded call of a result (read-only): ``function`` and the arguments.

    ``parameters`` names the keys that are arguments of the function; the report's Call
    line shows only those, so that it can be typed again. Other keys are values the
    function kept for itself.
    """

    def __init__(self, mapping: Mapping[str, Any] = (), parameters: tuple[str, ...] = ()):
        super().__init__(mapping)
        self.parameters = tuple(parameters)

    def __reduce__(self):
        return (CallRecord, (dict(self), self.parameters))

    def __deepcopy__(self, memo):
        import copy

        return CallRecord(copy.deepcopy(dict(self), memo), self.parameters)


def freeze_array(a: Any) -> np.ndarray:
    """A read-only copy of ``a`` (used for array fields of frozen results)."""
    arr = np.array(a, copy=True)
    arr.setflags(write=False)
    return arr


def critical_value(level: float, df: Any = None) -> Any:
    r"""Two-sided critical value :math:`q_{(1+\text{level})/2}` of N(0, 1), or of t(df).

    ``df=None`` or infinite gives the normal quantile. ``df`` may be an array (one value
    per entry; infinite entries give the normal quantile); a scalar ``df`` gives a float.
    """
    p = 0.5 + level / 2.0
    if df is None:
        return float(stats.norm.ppf(p))
    d = np.asarray(df, dtype=float)
    q = np.where(np.isfinite(d), stats.t.ppf(p, np.where(np.isfinite(d), d, 1.0)),
                 stats.norm.ppf(p))
    return float(q) if q.ndim == 0 else q


def wald_interval(estimate: float, std_error: float | None, level: float,
                  df: float | None = None) -> ConfidenceInterval:
    """``estimate ± q · std_error`` with ``q = critical_value(level, df)``."""
    if std_error is None or not np.isfinite(std_error) or not np.isfinite(estimate):
        return ConfidenceInterval(float("nan"), float("nan"))
    q = critical_value(level, df)
    return ConfidenceInterval(float(estimate - q * std_error), float(estimate + q * std_error))


def _deep_frozen(v: Any) -> Any:
    """``v`` with every mapping inside it a :class:`FrozenDict` and every array read-only
    (nested ``diagnostics`` dicts could be edited, and the edits reached ``summary()``)."""
    if isinstance(v, CallRecord):
        return v
    if isinstance(v, Mapping):
        return FrozenDict({k: _deep_frozen(x) for k, x in v.items()})
    if isinstance(v, np.ndarray) and v.flags.writeable:
        return freeze_array(v)
    return v


def _freeze_fields(obj) -> None:
    for f in fields(obj):
        v = object.__getattribute__(obj, f.name)
        if isinstance(v, Mapping):
            object.__setattr__(obj, f.name, _deep_frozen(v))
        elif isinstance(v, pd.DataFrame):       # a private copy: see Reportable.__getattribute__
            object.__setattr__(obj, f.name, v.copy(deep=True))
        elif isinstance(v, np.ndarray) and v.flags.writeable:
            object.__setattr__(obj, f.name, freeze_array(v))
        elif isinstance(v, list) and f.name == "notes":
            object.__setattr__(obj, f.name, tuple(v))


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Reportable:
    """Base of every result a user can print, tabulate, report and plot (immutable).

    Plans, designs, forecasts and proposals derive from this class directly; estimates
    derive from :class:`EvalResult`. Subclasses implement ``_tidy_rows`` and
    ``_repr_body`` and, where useful, ``_glance_extra`` (model-level facts),
    ``_extra_tables``, ``_appendix_tables``, ``_header``, ``_finding`` (the one-sentence
    result, in words), ``DIAGNOSTIC_KEYS`` (what only the diagnostics view shows) and
    ``plot``.

    Attributes
    ----------
    name : str
        A label for reports (section title); empty for the class's default title.
    data : str
        Description of the data, for the report header.
    call : mapping
        The arguments of the call that produced the result (R's ``$call``).
    diagnostics : mapping
        Method-specific diagnostics (effective sample size, solver status, seed, ...).
    notes : tuple of str
        Notes and warnings gathered during the computation; a note starting with
        ``[`` is a warning and marks the repr with ``!``.
    """

    name: str = ""
    data: str = ""
    call: Mapping[str, Any] = field(default_factory=dict)
    diagnostics: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    #: title used when ``name`` is empty
    _default_title: ClassVar[str] = ""
    #: header entries and table columns shown only by ``summary(diagnostics=True)``
    #: (matched case-insensitively, by raw or display name); extend per class with
    #: ``DIAGNOSTIC_KEYS = Reportable.DIAGNOSTIC_KEYS | {...}``
    DIAGNOSTIC_KEYS: ClassVar[frozenset[str]] = DIAGNOSTIC_KEYS

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not cls.__name__.startswith("_"):
            RESULT_CLASSES[cls.__name__] = cls

    def __post_init__(self) -> None:
        _freeze_fields(self)

    def __getattribute__(self, name: str) -> Any:
        # a table field is handed out as a copy: pandas has no read-only DataFrame, and an
        # edit of ``result.table`` changed tidy(), conf_int() and summary() but not estimate
        value = object.__getattribute__(self, name)
        if type(value) is pd.DataFrame and not name.startswith("_"):
            return value.copy(deep=True)
        return value

    # -- tables ---------------------------------------------------------------------------
    def _tidy_rows(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def tidy(self) -> pd.DataFrame:
        """One row per reported quantity (columns are class-specific)."""
        return pd.DataFrame(self._tidy_rows()).reset_index(drop=True)

    def _glance_extra(self) -> dict[str, Any]:
        return {}

    def glance(self) -> pd.DataFrame:
        """Exactly one row of result-level facts (never a per-term column of ``tidy()``)."""
        row: dict[str, Any] = {"n_notes": len(self.notes)}
        row.update(self._glance_extra())
        return pd.DataFrame([row])

    # -- report ---------------------------------------------------------------------------
    def _title(self) -> str:
        return self.name or self._default_title or type(self).__name__

    def _header(self) -> dict[str, Any]:
        hdr: dict[str, Any] = {}
        if self.data:
            hdr["Data"] = self.data
        if self.call:
            hdr["Call"] = call_text(type(self).__name__, self.call)
        return hdr

    def _main_table(self) -> tuple[str, pd.DataFrame]:
        return ("Results", self.tidy())

    def _extra_tables(self) -> list[tuple[str, pd.DataFrame]]:
        return []

    def _appendix_tables(self) -> list[tuple[str, pd.DataFrame]]:
        """Detail tables for the report's appendix (default: none)."""
        return []

    def _finding(self) -> str:
        """One plain-language sentence stating the result (override per class).

        The default restates the one-line repr: ``"<title>: <repr body>."``.
        """
        body = self._repr_body()
        return f"{self._title()}: {body}." if body else ""

    def summary(self, digits: int | Mapping[str, int] | None = None,
                max_rows: int | None = MAX_ROWS, diagnostics: bool = False) -> Report:
        """The report: a finding, a header block, tables and notes (text, HTML, LaTeX,
        Markdown).

        Parameters
        ----------
        digits : int or mapping, optional
            Default: the estimate, its interval and its standard error share the decimals
            that show the standard error to two significant digits; other columns get four
            significant digits. An int sets the significant digits of every column; a
            mapping ``{column: decimals}`` fixes columns (key ``"*"``: the rest).
        max_rows : int or None
            Tables taller than this (default 40) show their first and last rows and
            "… N of M rows omitted; full table in tidy()"; ``None`` shows every row.
        diagnostics : bool
            ``False`` (default): the reader's view. ``True``: also the checks of the
            computation (``DIAGNOSTIC_KEYS``) and a table of ``diagnostics``.
        """
        return build_report(self, digits=digits, max_rows=max_rows, diagnostics=diagnostics)

    def _repr_html_(self) -> str:
        """Jupyter shows the report (HTML)."""
        return self.summary().as_html()

    def with_name(self, name: str) -> Reportable:
        """A copy named ``name`` (the section title in reports); the result is immutable."""
        import copy

        if not isinstance(name, str):
            from ._validation import fail

            raise fail("name", "a str", value=name, exc=TypeError)
        new = copy.copy(self)
        object.__setattr__(new, "name", name)
        return new

    def _with_call(self, call: Mapping[str, Any]) -> Reportable:
        """A copy whose recorded call is ``call`` (set by the public functions)."""
        import copy

        new = copy.copy(self)
        object.__setattr__(new, "call", call if isinstance(call, CallRecord)
                           else _deep_frozen(call))
        return new

    # -- plot -----------------------------------------------------------------------------
    def plot(self, ax=None, **kwargs):
        """Plot the result; returns the matplotlib Axes."""
        raise NotImplementedError

    # -- repr -----------------------------------------------------------------------------
    def _repr_body(self) -> str:
        return ""

    def _flag(self) -> str:
        return " !" if self.notes and any(n.startswith("[") for n in self.notes) else ""

    def __repr__(self) -> str:
        body = self._repr_body()
        return f"<{type(self).__name__}{' ' + body if body else ''}{self._flag()}>"


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class EvalResult(Reportable):
    """Base class of every evalstats *estimate* (immutable).

    Attributes
    ----------
    estimate : float
        The point estimate.
    std_error : float or None
        Its estimated standard error (``None`` when the interval is not Wald-type).
    confidence_level : float
        Level of the default interval (``conf_int()`` without argument).
    method : str
        Short name of the estimation method (shown in ``tidy()`` and ``summary()``).
    interval_method : str
        The default interval method of ``conf_int`` (one of the class's
        ``INTERVAL_METHODS``; ``"wald"`` for the base class).
    term : str
        Name of the estimated quantity (``"error"``, ``"f1"``, ...).
    n : int or None
        Sample size (labels, test cases, ...), described by ``n_unit``.
    n_unit : str
        What ``n`` counts (``"labels"``, ``"test cases"``, ...).
    df : float or None
        Degrees of freedom for a t interval; ``None`` gives a normal interval.
    name, data, call, diagnostics, notes
        As in :class:`Reportable`.
    """

    estimate: float
    std_error: float | None
    confidence_level: float = 0.95
    method: str = ""
    interval_method: str = ""
    term: str = "estimate"
    n: int | None = None
    n_unit: str = "observations"
    df: float | None = None

    #: interval methods ``conf_int(method=...)`` accepts; the first is the default
    INTERVAL_METHODS: ClassVar[tuple[str, ...]] = ("wald",)

    def __post_init__(self) -> None:
        check_confidence_level(self.confidence_level)
        if not self.interval_method:
            object.__setattr__(self, "interval_method", self.INTERVAL_METHODS[0])
        check_option(self.interval_method, "interval_method", self.INTERVAL_METHODS)
        super().__post_init__()

    # -- intervals ------------------------------------------------------------------------
    def _interval(self, level: float, method: str) -> ConfidenceInterval:
        """Interval at ``level`` by ``method``; the base class is Wald (normal or t(df))."""
        return wald_interval(self.estimate, self.std_error, level, self.df)

    def _level_method(self, confidence_level, method) -> tuple[float, str]:
        level = (self.confidence_level if confidence_level is None
                 else check_confidence_level(confidence_level))
        method = (self.interval_method if method is None
                  else check_option(method, "method", self.INTERVAL_METHODS))
        return level, method

    def conf_int(self, confidence_level: float | None = None,
                 method: str | None = None) -> ConfidenceInterval:
        """Confidence interval ``(low, high)``.

        Parameters
        ----------
        confidence_level : float, optional
            Default: the result's ``confidence_level``.
        method : str, optional
            One of ``INTERVAL_METHODS``; default: the result's ``interval_method``.

        Recomputed from stored quantities; nothing is refitted.
        """
        return self._interval(*self._level_method(confidence_level, method))

    def conf_int_frame(self, confidence_level: float | None = None,
                       method: str | None = None) -> pd.DataFrame:
        """Intervals of *every* term as a DataFrame (rows: terms; columns ``conf_low``,
        ``conf_high``), like statsmodels' ``conf_int()``.

        :meth:`conf_int` keeps returning the ``(low, high)`` tuple of the main term (the
        first row of :meth:`tidy`), so existing code is unaffected; for multi-term results
        (several rules, measures, learners or targets) use this method or ``tidy()``.
        """
        td = self.tidy(confidence_level, method)
        out = td.set_index("term")[["conf_low", "conf_high"]].astype(float)
        out.index.name = "term"
        return out

    @property
    def ci(self) -> ConfidenceInterval:
        """The interval at the result's own ``confidence_level``."""
        return self.conf_int()

    # -- tables ---------------------------------------------------------------------------
    def _tidy_rows(self, level: float, method: str) -> list[dict[str, Any]]:  # type: ignore[override]
        lo, hi = self._interval(level, method)
        return [dict(term=self.term, estimate=self.estimate, std_error=self.std_error,
                     conf_low=lo, conf_high=hi, confidence_level=level, method=self.method)]

    def tidy(self, confidence_level: float | None = None,
             method: str | None = None) -> pd.DataFrame:
        """One row per estimated term, with fixed columns.

        Columns: ``term, estimate, std_error, conf_low, conf_high, confidence_level,
        method`` (subclasses may append columns after these).
        """
        df = pd.DataFrame(self._tidy_rows(*self._level_method(confidence_level, method)))
        extra = [c for c in df.columns if c not in TIDY_COLUMNS]
        return df[list(TIDY_COLUMNS) + extra].reset_index(drop=True)

    def glance(self) -> pd.DataFrame:
        """Exactly one row of model-level facts, as broom's ``glance``: ``method``,
        ``confidence_level``, ``n``, ``n_notes`` and the class's own facts (never a
        per-term column of ``tidy()``; see ``GLANCE_TERM_COLUMNS``)."""
        row = dict(method=self.method, confidence_level=self.confidence_level, n=self.n,
                   n_notes=len(self.notes))
        row.update(self._glance_extra())
        return pd.DataFrame([row])

    # -- report ---------------------------------------------------------------------------
    def _header(self) -> dict[str, Any]:
        hdr: dict[str, Any] = {"Method": self.method}
        if self.data:
            hdr["Data"] = self.data
        if self.n is not None:
            hdr[f"n ({self.n_unit})"] = self.n
        hdr["Confidence level"] = f"{100 * self.confidence_level:g}%"
        if self.call:
            hdr["Call"] = call_text(type(self).__name__, self.call)
        return hdr

    def _main_table(self) -> tuple[str, pd.DataFrame]:
        return ("Estimates", self.tidy())

    def _finding(self) -> str:
        """``"F1 is 0.58 (95% CI 0.49–0.68) from 500 labels."``; decimals follow the
        interval's width (two significant digits of the width). Up to three terms are
        each stated; more are summarised by the range of their estimates."""
        return terms_sentence(self.tidy(), self.confidence_level, self.n, self.n_unit)

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
    def _repr_body(self) -> str:
        lo, hi = self.conf_int()
        unit = self.n_unit[:-1] if self.n == 1 and self.n_unit.endswith("s") else self.n_unit
        n_txt = f", {self.n} {unit}" if self.n is not None else ""
        return (f"{self.term}={format_value(self.estimate, 3)} "
                f"[{_r3(lo)}, {_r3(hi)}] {100 * self.confidence_level:g}%{n_txt}")


RESULT_CLASSES["EvalResult"] = EvalResult



def _r3(x: float) -> str:
    return "NaN" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"
