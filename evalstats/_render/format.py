"""Numbers as a reader sees them: one value, one column, one table.

* :func:`format_value` formats a single value (a header entry).
* :func:`format_column` formats a column with *fixed* decimals, so the decimal points
  line up, and says whether it is numeric (right-aligned) or text (left-aligned).
* :func:`table_digits` gives the estimate, its interval and its standard error one
  number of decimals: the standard error to two significant digits and the estimate to
  the same decimal place, the rule of the *Guide to the Expression of Uncertainty in
  Measurement* (JCGM 100:2008, 7.2.6).

Whole numbers of 1,000 or more carry a thousands separator everywhere, in headers,
tables and sentences alike.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["format_value", "format_column", "format_frame", "table_digits", "pretty_column",
           "is_empty_value", "format_p", "DEFAULT_DIGITS"]

#: significant digits from which a column's decimals are chosen (``digits=``)
DEFAULT_DIGITS = 4
#: whole numbers from this magnitude on are written with a thousands separator
THOUSANDS = 1_000
#: columns on the scale of the estimate (they share its decimals)
ESTIMATE_COLUMNS = ("estimate", "conf_low", "conf_high", "std_error", "model_low",
                    "model_high")
_P_COLUMNS = {"p_value", "pvalue", "p-value", "p"}
_PRETTY = {"term": "Term", "estimate": "Estimate", "std_error": "Std. error",
           "conf_low": "CI low", "conf_high": "CI high", "confidence_level": "Confidence level",
           "method": "Method", "p_value": "p-value", "statistic": "Statistic", "n": "n"}


def pretty_column(name: Any) -> str:
    """Display name of a column (``std_error`` -> ``Std. error``; others: ``_`` -> space)."""
    name = str(name)
    return _PRETTY.get(name, name.replace("_", " "))


def is_empty_value(v: Any) -> bool:
    """``True`` for None, NaN, ``""`` and the strings ``'nan'``/``'NaN'`` (says nothing)."""
    if v is None:
        return True
    if isinstance(v, str):
        return v.strip() in ("", "nan", "NaN", "None")
    if isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_):
        return math.isnan(float(v))
    return False


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_)


def _whole(x: float) -> str:
    return f"{int(x):,}" if abs(x) >= THOUSANDS else str(int(x))


def format_value(v: Any, digits: int = DEFAULT_DIGITS) -> str:
    """One value: whole numbers as such (separated from 1,000), other numbers with
    ``digits`` significant digits, booleans as yes/no, NaN as ``'NaN'``."""
    if v is None:
        return ""
    if isinstance(v, bool | np.bool_):
        return "yes" if bool(v) else "no"
    if isinstance(v, numbers.Integral):
        return _whole(int(v))
    if isinstance(v, numbers.Real):
        x = float(v)
        if math.isnan(x):
            return "NaN"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        if x.is_integer() and abs(x) < 1e15:
            return _whole(x)
        text = f"{x:.{digits}g}"
        if "e" in text and 1e-4 <= abs(x) < 1e15:
            text = f"{x:,.{digits}f}".rstrip("0").rstrip(".")
        return text
    if isinstance(v, tuple | list) and v and all(_is_number(t) for t in v):
        return "[" + ", ".join(format_value(t, digits) for t in v) + "]"
    return str(v)


def format_p(p: Any, decimals: int = DEFAULT_DIGITS) -> str:
    """A p-value with fixed ``decimals``; below ``10**-decimals`` it reads ``<0.0001``."""
    if is_empty_value(p):
        return ""
    f = float(p)
    return f"<{10 ** -decimals:.{decimals}f}" if 0 <= f < 10 ** -decimals else f"{f:.{decimals}f}"


def _digits_for(name: str, digits: int | Mapping[str, int] | None) -> tuple[int, int | None]:
    """(significant digits, fixed decimals or None) for column ``name``."""
    if isinstance(digits, Mapping):
        if name in digits:
            return DEFAULT_DIGITS, int(digits[name])
        return int(digits.get("*", DEFAULT_DIGITS)), None
    return (DEFAULT_DIGITS if digits is None else int(digits)), None


def _decimals(name: str, fin: np.ndarray, sig: int) -> tuple[int, bool]:
    """(decimals, scientific) for the finite values ``fin`` of a numeric column."""
    if name in _P_COLUMNS:
        return sig, False
    whole = fin.size > 0 and bool(np.all(fin == np.round(fin)))
    if whole and (name not in ESTIMATE_COLUMNS or np.max(np.abs(fin)) > 1):
        return 0, False
    nz = np.abs(fin[fin != 0])
    if nz.size == 0:
        return 0, False
    ref = float(np.median(nz))
    dec = int(min(max(sig - 1 - math.floor(math.log10(ref)), 0), 8))
    return dec, bool(ref < 1e-4 or ref >= 1e12)


def format_column(name: str, values: Sequence[Any],
                  digits: int | Mapping[str, int] | None = None) -> tuple[list[str], str]:
    """Format one column with fixed decimals; returns ``(cells, align)``, align ``'l'|'r'``.

    Numbers get the same number of decimals down the column: ``digits`` significant
    digits of the column's median magnitude (none for whole numbers, scientific notation
    below 1e-4); ``digits`` may be a mapping ``{column: decimals}`` (key ``"*"``:
    significant digits of the other columns). p-values below ``10**-d`` print as
    ``<0.0…1``. Missing values are blank.
    """
    vals = list(values)
    name = str(name)
    sig, fixed = _digits_for(name, digits)
    present = [v for v in vals if not is_empty_value(v)]
    if present and all(isinstance(v, bool | np.bool_) for v in present):
        return ["" if is_empty_value(v) else ("yes" if v else "no") for v in vals], "l"
    if not present or not all(_is_number(v) for v in present):
        return ["" if is_empty_value(v) else format_value(v, sig) for v in vals], "l"
    x = np.array([float(v) for v in present])
    fin = x[np.isfinite(x)]
    dec, sci = (fixed, False) if fixed is not None else _decimals(name, fin, sig)
    sep = "," if fin.size and np.max(np.abs(fin)) >= THOUSANDS else ""
    out = []
    for v in vals:
        f = float("nan") if is_empty_value(v) else float(v)
        if math.isnan(f):
            out.append("")
        elif math.isinf(f):
            out.append("inf" if f > 0 else "-inf")
        elif sci:
            out.append(f"{f:.{max(sig - 1, 0)}e}")
        elif name in _P_COLUMNS:
            out.append(format_p(f, dec))
        else:
            out.append(f"{f:{sep}.{dec}f}")
    return out, "r"


def format_frame(df: pd.DataFrame, digits: int | Mapping[str, int] | None = None
                 ) -> pd.DataFrame:
    """A string copy of ``df`` formatted column by column (:func:`format_column`)."""
    digits = table_digits(df, digits)
    out = pd.DataFrame(index=range(len(df)))
    for c in df.columns:
        out[c] = format_column(str(c), df[c].tolist(), digits)[0]
    return out.astype(str)


def _se_decimals(se: Sequence[Any]) -> int | None:
    """Decimals that show the smallest positive standard error to two significant digits."""
    x = np.array([float(v) for v in se if _is_number(v)], dtype=float)
    x = x[np.isfinite(x) & (x > 0)]
    if x.size == 0:
        return None
    return int(min(max(1 - math.floor(math.log10(float(x.min()))), 0), 8))


def table_digits(df: pd.DataFrame, digits: int | Mapping[str, int] | None
                 ) -> int | Mapping[str, int] | None:
    """``digits`` with one number of decimals for the estimate, interval and std_error.

    With a ``std_error`` column, the decimals show its smallest positive value to two
    significant digits (JCGM 100:2008, 7.2.6); without one, or when ``digits`` is an int
    (significant digits asked for), they are those the ``estimate`` column would get
    alone. Columns named in a ``digits`` mapping keep their own decimals.
    """
    if "estimate" not in df.columns:
        return digits
    given = dict(digits) if isinstance(digits, Mapping) else {"*": digits or DEFAULT_DIGITS}
    dec = None
    if "std_error" in df.columns and not isinstance(digits, int):
        dec = _se_decimals(df["std_error"].tolist())
    if "estimate" in given:
        dec = int(given["estimate"])
    if dec is None:
        cells, align = format_column("estimate", df["estimate"].tolist(), given)
        if align != "r" or any("e" in c for c in cells):
            return digits
        dec = max((len(c.split(".")[1]) if "." in c else 0) for c in cells)
    out = {c: dec for c in ESTIMATE_COLUMNS}
    out.update({k: v for k, v in given.items() if k != "estimate"})
    return out
