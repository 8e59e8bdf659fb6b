"""Checks on label vectors shared by the fixed-test-set functions (:mod:`evalstats.holdout`).

Labels may be of any type, but the two vectors compared must be coded alike: numbers
against numbers, strings against strings; missing values (NaN, None, ±inf) are refused,
never counted as mistakes; scores or probabilities are refused where labels are expected.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd

from ._validation import fail, plain_value

__all__ = ["label_array", "label_kind", "check_label_pair", "binary_indicator"]


def label_array(y: Any, name: str) -> np.ndarray:
    """A non-empty 1-D array of labels without missing values (NaN, None, pd.NA, ±inf)."""
    if isinstance(y, str | bytes):
        raise fail(name, "an array-like of labels", got="a single string", exc=TypeError)
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise fail(name, "1-dimensional", got=f"shape {arr.shape}")
    if arr.size == 0:
        raise fail(name, "non-empty", got="0 cases")
    if arr.dtype.kind in "fc":
        bad = ~np.isfinite(arr)
    elif arr.dtype.kind == "O":
        bad = np.asarray(pd.isna(arr), bool) | np.array(
            [isinstance(v, numbers.Real) and not isinstance(v, bool)
             and not np.isfinite(float(v)) for v in arr], bool)
    else:
        bad = np.zeros(arr.shape, bool)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise fail(name, "labels without missing values (NaN, None or infinity)",
                   got=f"{int(bad.sum())} missing or infinite value(s), the first at "
                       f"position {i} ({plain_value(arr[i])!r})",
                   remedy="Drop those cases first (e.g. with `pd.isna`); a missing label "
                          "is not a mistake.")
    return arr


def label_kind(arr: np.ndarray) -> str:
    """``"number"``, ``"string"`` or ``"mixed"`` (other objects count as their type)."""
    if arr.dtype.kind in "biuf":
        return "number"
    if arr.dtype.kind in "USa":
        return "string"
    kinds = {"number" if isinstance(v, numbers.Number) else
             "string" if isinstance(v, str | bytes) else type(v).__name__ for v in arr}
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _is_integer_valued(arr: np.ndarray) -> bool:
    if arr.dtype.kind in "biu":
        return True
    if arr.dtype.kind == "f":
        return bool(np.all(arr == np.round(arr)))
    return False


def _show(values, k: int = 4) -> str:
    vals = list(values)[:k]
    more = ", ..." if len(values) > k else ""
    return "{" + ", ".join(repr(plain_value(v)) for v in vals) + more + "}"


def check_label_pair(y_true: Any, y_pred: Any, names: tuple[str, str] = ("y_true", "y_pred")
                     ) -> tuple[np.ndarray, np.ndarray, str | None]:
    """Validate true and predicted labels for an error count.

    Returns the two arrays and an optional warning message (labels that share no value
    although one of them has two or more distinct values: a coding mismatch such as
    ``{0, 1}`` against ``{"no", "yes"}`` or ``{1, 2}``).

    Raises
    ------
    ValueError
        Missing values; probabilities or scores passed as predictions (non-integer
        floats against integer-valued labels).
    TypeError
        Numbers against strings (``1`` is never equal to ``"1"``).
    """
    a_name, b_name = names
    a = label_array(y_true, a_name)
    b = label_array(y_pred, b_name)
    ka, kb = label_kind(a), label_kind(b)
    if "mixed" in (ka, kb):
        name, arr = (a_name, a) if ka == "mixed" else (b_name, b)
        raise fail(name, "labels of one type (all numbers or all strings)",
                   got=f"a mix of types, e.g. {_show(_first_of_each_type(arr))}", exc=TypeError)
    if ka != kb:
        raise fail(b_name, f"labels of the same type as `{a_name}`",
                   got=f"{kb}s {_show(np.unique(b.astype(str) if kb == 'string' else b))} "
                       f"against {ka}s {_show(np.unique(a))}", exc=TypeError,
                   remedy=f"A {ka} never equals a {kb} (1 != '1'); convert one of them, e.g. "
                          f"`np.asarray({a_name}).astype(str)` or `.astype(int)`.")
    for (n1, x1), (n2, x2) in (((b_name, b), (a_name, a)), ((a_name, a), (b_name, b))):
        if ka == "number" and x1.dtype.kind == "f" and not _is_integer_valued(x1) \
                and _is_integer_valued(x2):
            frac = x1[x1 != np.round(x1)]
            raise fail(n1, "class labels, not scores or probabilities",
                       got=f"{frac.size} non-integer value(s) such as {frac[0]:.4g} while "
                           f"`{n2}` holds integer labels {_show(np.unique(x2))}",
                       remedy="Threshold the scores first, e.g. `(y_prob >= 0.5).astype(int)`, "
                              "or use `auc_ci` for scores.")
    ua, ub = np.unique(a), np.unique(b)
    note = None
    if max(ua.size, ub.size) >= 2 and np.intersect1d(ua, ub).size == 0:
        note = (f"`{a_name}` {_show(ua)} and `{b_name}` {_show(ub)} share no label, so every "
                "case counts as an error; check that both are coded alike.")
    return a, b, note


def _first_of_each_type(arr: np.ndarray) -> list:
    seen: dict[type, Any] = {}
    for v in arr:
        seen.setdefault(type(v), v)
    return list(seen.values())


def binary_indicator(y: Any, name: str, pos_label: Any = None) -> np.ndarray:
    """0/1 int array: ``y == pos_label``, or ``y`` itself coded 0/1 (or bool) when ``None``."""
    arr = label_array(y, name)
    if pos_label is None:
        if arr.dtype == bool:
            return arr.astype(int)
        if label_kind(arr) == "number" and np.isin(np.unique(arr), (0, 1)).all():
            return arr.astype(float).astype(int)
        shown = np.unique(arr if label_kind(arr) == "number" else arr.astype(str))
        raise fail(name, "binary labels coded 0/1 (or give `pos_label`)",
                   got=f"values {_show(shown)}")
    values = np.unique(arr)
    if values.size > 2:
        raise fail(name, "two classes when `pos_label` is given", verb="must have",
                   got=f"{values.size} classes {_show(values)}",
                   remedy=f"For one class against the rest pass `{name} == label` (booleans).")
    kind = label_kind(arr)
    pos_kind = ("number" if isinstance(pos_label, numbers.Number) else
                "string" if isinstance(pos_label, str | bytes) else type(pos_label).__name__)
    if pos_kind != kind or not np.any(arr == pos_label):
        raise fail("pos_label", f"one of the labels in `{name}` {_show(values)}",
                   value=pos_label)
    return (arr == pos_label).astype(int)
