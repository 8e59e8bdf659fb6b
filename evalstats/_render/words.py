"""The words of a report: finding sentences, test conclusions, term labels, notes, calls.

* :func:`term_label` turns a term identifier into words (``mean_loss`` -> ``mean loss``,
  ``accuracy(k=200)`` -> ``accuracy at k = 200``).
* :func:`finding_sentence` states an estimate with its interval in one sentence; the
  decimals follow the interval's width (two significant digits of the width).
* :func:`test_sentence` states a test's p-value and its conclusion at level α.
* :func:`split_note` separates a note's warning category (``[ConvergenceWarning] …``) from
  its text, so that no renderer prints a bracketed name where a label belongs (LaTeX
  took it for the ``\\item`` label).
* :func:`call_text` writes the call that produced a result as a user would type it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .format import format_value

__all__ = ["term_label", "value_with_ci", "finding_sentence", "terms_sentence",
           "test_sentence", "split_note", "call_text", "short_value", "capitalize"]

_ACRONYMS = {"auc": "AUC", "f1": "F1", "roc": "ROC", "ap": "AP", "mse": "MSE", "rmse": "RMSE"}
_CALL = re.compile(r"^([A-Za-z_][\w ]*)\((\w+)=([^()]*)\)$")


def term_label(term: Any) -> str:
    """A term identifier in words: underscores become spaces and ``f(k=v)`` becomes
    ``f at k = v``; acronyms (``auc``, ``f1``) are capitalised."""
    text = str(term)
    m = _CALL.match(text)
    if m:
        text = f"{m.group(1)} at {m.group(2)} = {m.group(3)}"
    words = text.replace("_", " ").split(" ")
    return " ".join(_ACRONYMS.get(w.lower(), w) for w in words)


def capitalize(text: str) -> str:
    """Sentence case: the first letter upper-cased unless the first word is an acronym or
    an identifier (``F1``, ``p``, ``prob>0.2``)."""
    first, _, rest = text.partition(" ")
    if first.isalpha() and first.islower() and len(first) > 1:
        return first.capitalize() + (" " + rest if rest else "")
    return text


def _decimals(lo: float, hi: float, est: float) -> int:
    width = hi - lo
    dec = int(min(max(1 - math.floor(math.log10(width)), 0), 8))
    while 0.0 < est < 1.0 and round(est, dec) in (0.0, 1.0) and dec < 8:
        dec += 1        # 0.999 is not "1.00": a value on a bound reads as exact
    return dec


def value_with_ci(est: float, lo: float, hi: float, level: float | None,
                  interval_name: str = "CI") -> str:
    """``0.58 (95% CI 0.49–0.68)`` — or without the level when ``level`` is None
    (``interval_name`` replaces "CI", e.g. "confidence sequence")."""
    if not math.isfinite(est):
        return "undefined (see the notes)"
    finite = math.isfinite(lo) and math.isfinite(hi)
    if not finite:
        return f"{format_value(est, 3)} (no interval could be computed; see the notes)"
    if hi - lo <= 0:
        return format_value(est, 3)
    dec = _decimals(lo, hi, est)
    sep = " to " if lo < 0 or hi < 0 else "\u2013"
    lab = f"{100 * level:g}% {interval_name} " if level is not None else ""
    return f"{est:.{dec}f} ({lab}{lo:.{dec}f}{sep}{hi:.{dec}f})"


def _nums(*values: Any) -> tuple[float, ...]:
    return tuple(float("nan") if v is None else float(v) for v in values)


def finding_sentence(term: str, estimate: float, ci: tuple[float, float], level: float,
                     n: int | None = None, n_unit: str = "", *, n_terms: int = 1,
                     interval_name: str = "CI") -> str:
    """``"F1 is 0.58 (95% CI 0.49–0.68) from 500 labels."``"""
    est, lo, hi = _nums(estimate, *ci)
    text = f"{term_label(term)} is {value_with_ci(est, lo, hi, level, interval_name)}"
    if n is not None:
        unit = n_unit[:-1] if int(n) == 1 and n_unit.endswith("s") else n_unit
        text += f" from {format_value(int(n))} {unit}".rstrip()
    if n_terms > 1:
        more = n_terms - 1
        text += f"; {more} further term{'s' if more > 1 else ''} in the table"
    return capitalize(text) + "."


def terms_sentence(tidy: pd.DataFrame, level: float, n: int | None = None,
                   n_unit: str = "", interval_name: str = "CI") -> str:
    """A finding for a table of terms: each term with its interval when there are at most
    three; else, per measure (a ``measure`` column) or over all terms, the range of the
    estimates with the rules or terms that reach its ends."""
    td = tidy.reset_index(drop=True)
    if len(td) == 1:
        r = td.iloc[0]
        return finding_sentence(r["term"], r["estimate"], (r["conf_low"], r["conf_high"]),
                                level, n, n_unit, interval_name=interval_name)
    src = f" from {format_value(int(n))} {n_unit}".rstrip() if n is not None else ""
    if len(td) <= 3:
        parts = []
        for i, r in td.iterrows():
            nums = _nums(r["estimate"], r["conf_low"], r["conf_high"])
            shown = value_with_ci(*nums, level if i == 0 else None, interval_name)
            parts.append(f"{term_label(r['term'])} is {shown}")
        return capitalize("; ".join(parts)) + src + "."
    groups = _group_column(td)
    if groups is None:
        parts = [_range_sentence(td, f"the estimates of {len(td)} terms{src}", "range")]
        src = ""
    else:
        parts = [_range_sentence(td[td[groups] == g].reset_index(drop=True), str(g))
                 for g in dict.fromkeys(td[groups])]
    return (capitalize("; ".join(parts)) + src
            + f" ({100 * level:g}% intervals in the table).")


def _group_column(td: pd.DataFrame) -> str | None:
    """A column that splits the terms into measures (``measure``), if there is one."""
    for col in ("measure",):
        if col in td.columns and 1 < td[col].nunique() < len(td):
            return col
    return None


def _short_number(x: float) -> str:
    return f"{x:.3f}" if abs(x) < 100 else format_value(x, 3)


def _range_sentence(td: pd.DataFrame, what: str, verb: str = "ranges") -> str:
    """``"precision ranges from 0.48 (rule a) to 0.94 (rule c)"``."""
    label = "rule" if "rule" in td.columns else "term"
    est = pd.to_numeric(td["estimate"], errors="coerce")

    def who(i: int) -> str:
        return f"{'rule ' if label == 'rule' else ''}{term_label(td[label][i])}"
    if est.notna().sum() == 0:
        return f"{what}: undefined (see the notes)"
    if len(td) == 1:
        return f"{what} is {_short_number(est[0])} ({who(0)})"
    lo_i, hi_i = int(est.idxmin()), int(est.idxmax())
    return (f"{what} {verb} from {_short_number(est[lo_i])} ({who(lo_i)}) to "
            f"{_short_number(est[hi_i])} ({who(hi_i)})")


def test_sentence(p_value: float, level: float, what: str, null: Any, test: str) -> str:
    """``"A two-sided exact binomial test of error rate = 0.05 gives p = 0.0012: at the 5%
    level the error rate differs from 0.05."`` (α = 1 − ``level``)."""
    alpha = 1 - level
    p = float(p_value)
    shown = "p < 0.0001" if p < 1e-4 else f"p = {p:.2g}" if p < 0.01 else f"p = {p:.2f}"
    head = f"A {test} of {what} = {format_value(null)} gives {shown}"
    if not math.isfinite(p):
        return head + "."
    if p < alpha:
        return (f"{head}: at the {100 * alpha:g}% level the {what} differs from "
                f"{format_value(null)}.")
    article = "an" if what[:1].lower() in "aeiou" else "a"
    return (f"{head}: at the {100 * alpha:g}% level the data are consistent with {article} "
            f"{what} of {format_value(null)}.")


_NOTE = re.compile(r"^\[(\w+)\]\s*(.*)$", re.S)


def split_note(note: str) -> tuple[str, str]:
    """``("ConvergenceWarning", text)`` for ``"[ConvergenceWarning] text"``; ``("", note)``
    for a plain note. The category keeps its class name: it is what a reader passes to
    ``warnings.filterwarnings``."""
    m = _NOTE.match(note)
    return (m.group(1), m.group(2)) if m else ("", note)


def short_value(v: Any) -> str:
    """A call argument as a user would type it: plain numbers, short lists, array sizes."""
    if getattr(v, "is_summary", False):        # already a description (``<300 values>``)
        return repr(v)
    if isinstance(v, bool | np.bool_):
        return str(bool(v))
    if isinstance(v, np.integer):
        return str(int(v))
    if isinstance(v, np.floating | float):
        return f"{float(v):.6g}"
    if isinstance(v, list | tuple | np.ndarray | pd.Series) and np.ndim(v) == 1 \
            and len(v) <= 6 and all(isinstance(t, int | float | np.number | str) for t in v):
        inner = ", ".join(short_value(t) for t in v)
        return f"[{inner}]" if not isinstance(v, tuple) else f"({inner})"
    if isinstance(v, np.ndarray | pd.Series | pd.DataFrame | list | tuple):
        shape = np.shape(v) if not isinstance(v, list | tuple) else (len(v),)
        dims = "x".join(str(d) for d in shape)
        return f"<{dims} {'values' if len(shape) == 1 else type(v).__name__}>"
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def call_text(name: str, call: Mapping[str, Any]) -> str:
    """``function(arg=value, ...)``: the function name is ``call["function"]`` if present;
    a call recorded by :func:`evalstats._naming.named_result` shows only the function's
    own parameters (values the function kept for itself stay in ``call`` but not here)."""
    name = call.get("function", name)
    keep: Sequence[str] | None = getattr(call, "parameters", None)
    args = ", ".join(f"{k}={short_value(v)}" for k, v in call.items()
                     if k != "function" and (keep is None or k in keep))
    return f"{name}({args})"
