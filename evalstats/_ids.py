"""Identifiers compared up to type and surrounding spaces, fast enough for 10^7 rows.

Two identifiers are *the same* when they are equal once surrounding whitespace is removed,
or when both read as numbers of equal value (``9``, ``9.0``, ``"00009"``, ``" +9 "``,
``"9e0"``): a reader that parses numbers (pandas, a spreadsheet) cannot tell them apart, so
two such ids in one file are ambiguous. Whole numbers are compared exactly, never through
a float, so distinct 19-digit ids stay distinct; only ASCII digits make a number. Missing
values (``None``, NaN) and blank text are the empty id ``""``.

Plain digit strings of up to 19 digits and text that cannot be a number are keyed in
vectorised numpy code; everything else (spaces, signs, decimals, exponents, long numbers,
non-text objects) by :func:`id_key` one at a time.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["id_key", "first_repeat"]

_INT_RE = re.compile(r"[+-]?[0-9]+", re.ASCII)
_FLOAT_RE = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", re.ASCII)
#: every whole number of up to 19 digits fits in uint64 (10**19 < 2**64)
_MAX_DIGITS = 19
#: ids longer than this take the one-at-a-time path (bounds the memory of a chunk)
_MAX_FAST_LEN = 64
#: Python refuses to parse longer digit strings as int (``sys.set_int_max_str_digits``)
_MAX_INT_TEXT = 4000
_CHUNK = 1 << 18
_UINT64_END = 2 ** 64
_POW10 = 10 ** np.arange(_MAX_DIGITS, dtype=np.uint64)


def _number_key(f: float) -> int | str:
    return int(f) if math.isfinite(f) and f.is_integer() else repr(f)


def _key(value: Any) -> int | str:
    """The identity of one id: an int for a whole number, the repr of another number, the
    stripped text otherwise, ``""`` for a missing value."""
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, bool | np.bool_ | numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        f = float(value)
        return "" if math.isnan(f) else _number_key(f)
    text = str(value).strip()
    if len(text) <= _MAX_INT_TEXT and _INT_RE.fullmatch(text):
        return int(text)
    if len(text) <= _MAX_INT_TEXT and _FLOAT_RE.fullmatch(text):
        return _number_key(float(text))
    return text


def id_key(value: Any) -> str:
    """The identity of an identifier up to type and surrounding spaces, as text.

    ``9``, ``9.0``, ``"9"``, ``" 9 "``, ``"9.0"`` and ``"00009"`` are one key (``"9"``);
    other text is compared as written, without surrounding spaces (case matters).
    """
    return str(_key(value))


def _flat_codes(strs: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The code points of all strings end to end (one sentinel after), and each start."""
    flat = np.frombuffer(("".join(strs) + "\x00").encode("utf-32-le"), np.uint32)
    starts = np.zeros(len(strs), np.int64)
    np.cumsum(lens[:-1], out=starts[1:])
    return flat, starts


def _fast_chunk(part: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Masks of the digit-only ids of at most 19 digits and of the ids that cannot be
    numbers, and the uint64 value of every row (meaningful on the first mask)."""
    n = len(part)
    digits, plain, values = np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, np.uint64)
    is_str = (np.ones(n, bool) if pd.api.types.infer_dtype(part, skipna=False) == "string"
              else np.fromiter((type(v) is str for v in part), bool, n))
    strs = part[is_str]
    if len(strs) == 0:
        return digits, plain, values
    lens = np.fromiter(map(len, strs), np.int64, len(strs))
    flat, starts = _flat_codes(strs, lens)
    ok = lens > 0
    first, last = flat[starts], flat[np.maximum(starts + lens - 1, 0)]
    is_digit = (flat >= 48) & (flat <= 57)
    dig = ok & (np.add.reduceat(is_digit, starts, dtype=np.int64) == lens) & \
        (lens <= _MAX_DIGITS)
    spacey = (first <= 32) | (first >= 127) | (last <= 32) | (last >= 127)
    numeric = ((first >= 48) & (first <= 57)) | (first == 43) | (first == 45) | (first == 46)
    row = np.repeat(np.arange(len(strs)), lens)
    power = np.repeat(starts + lens - 1, lens) - np.arange(len(row))   # place of each digit
    use = dig[row]
    terms = np.zeros(len(flat), np.uint64)       # the sentinel's term stays 0
    terms[:-1][use] = (flat[:-1][use] - 48).astype(np.uint64) * _POW10[power[use]]
    vals = np.add.reduceat(terms, starts)
    digits[is_str], plain[is_str], values[is_str] = dig, ok & ~spacey & ~numeric, vals
    return digits, plain, values


def _long_digits_key(text: str) -> int | str:
    """The key of a digit-only id too long for the vectorised path."""
    return _key(text) if len(text.lstrip("0")) <= _MAX_DIGITS else text.lstrip("0")


def _keys(values: Sequence[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every row: whether its key is a whole number in [0, 2**64), that number, and
    the text key of the other rows (``""``: empty; negative and larger numbers as text)."""
    obj = np.asarray(values, dtype=object).ravel()
    n = len(obj)
    is_int, ints, texts = np.zeros(n, bool), np.zeros(n, np.uint64), np.empty(n, object)
    for start in range(0, n, _CHUNK):
        part = obj[start:start + _CHUNK]
        digits, plain, vals = _fast_chunk(part)
        sl = slice(start, start + len(part))
        is_int[sl], ints[sl] = digits, vals
        texts[sl] = np.where(plain, part, None)
        for i in np.flatnonzero(~digits & ~plain):
            v = part[i]
            k = (_long_digits_key(v) if type(v) is str and v.isascii() and v.isdigit()
                 else _key(v))
            if isinstance(k, int) and 0 <= k < _UINT64_END:
                is_int[start + i], ints[start + i] = True, k
            else:
                texts[start + i] = str(k)
    return is_int, ints, texts


def _first_dup(rows: np.ndarray, keys: np.ndarray) -> tuple[int, int, int] | None:
    """``(j, i, n)``: the first row ``i`` whose key an earlier row ``j`` has, and the
    number ``n`` of such rows; ``None`` when the keys are distinct."""
    if len(rows) < 2:
        return None
    series = pd.Series(keys)
    dup = series.duplicated(keep="first").to_numpy()
    if not dup.any():
        return None
    k = int(np.flatnonzero(dup)[0])
    first = int(np.flatnonzero((series == series.iloc[k]).to_numpy())[0])
    return int(rows[first]), int(rows[k]), int(dup.sum())


def first_repeat(values: Sequence[Any]) -> tuple[str, int, int, int]:
    """The first problem of a column of ids, as ``(kind, j, i, n_bad)``.

    ``kind`` is ``"empty"`` (row ``i`` is blank or missing; ``j = i``), ``"repeat"`` (row
    ``i`` has the id of the earlier row ``j``) or ``""`` (no problem); ``n_bad`` counts the
    rows with that problem."""
    is_int, ints, texts = _keys(values)
    empty = np.flatnonzero(~is_int & (texts == ""))
    if len(empty):
        return "empty", int(empty[0]), int(empty[0]), len(empty)
    rows_i, rows_t = np.flatnonzero(is_int), np.flatnonzero(~is_int)
    found = [d for d in (_first_dup(rows_i, ints[rows_i]), _first_dup(rows_t, texts[rows_t]))
             if d]
    if not found:
        return "", -1, -1, 0
    j, i, _ = min(found, key=lambda d: d[1])
    return "repeat", j, i, sum(d[2] for d in found)
