r"""Labeling designs that carry their own integrity, and labels matched to them exactly.

A *design* is a table with one row per item to label (identifiers, draw order, weights or
inclusion probabilities, model columns) plus *settings* (measure, proposal, package
version, ...) repeated on every row. :func:`seal_design` appends five columns:

``design_row``
    1, 2, ..., n: the row's position as written (rows may be re-sorted; deleted or copied
    rows are found from it).
``row_check``
    per cell of the row, 4 hex digits of ``SHA-256(design_row, column, value)``, so the
    edited cell is named exactly.
``design_check``
    ``evalstats-design/1 rows=<n> sha256=<digest of every value and setting>
    settings=<4 hex digits per setting>``.
``sealed_columns``
    the sealed row columns and settings (``"id n_draws ... | measure alpha ..."``).
``evalstats_version``
    the package version that wrote the design (part of the digest).

Values are compared in a canonical text form — integers as integers (``10559.0`` is
``10559``), other numbers to 12 significant digits, missing values as empty — so a design
survives a round trip through pandas or a spreadsheet (which keep 15 digits), and
columns the user adds (``label``, notes) are ignored. :func:`verify_design` refuses an
edited design with the file, row and column of the first inconsistency. Labels are matched
to a design in :mod:`evalstats.active._labels_io`.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._io import TableError
from .._io import cell_error as table_cell_error
from .._validation import fail, plain_value
from .._warnings import Notes
from ._measures import MEASURES

__all__ = ["DesignError", "DESIGN_SETTINGS", "CHECK_COLUMNS", "seal_design", "verify_design",
           "read_design", "design_columns", "canon", "cell_error", "rounded"]

DESIGN_FORMAT = "evalstats-design/1"
#: the settings columns of a with-replacement design (:meth:`ActiveEvaluator.design`)
DESIGN_SETTINGS = ("measure", "alpha", "proposal", "epsilon", "pool_size")
CHECK_COLUMNS = ("design_row", "row_check", "design_check", "sealed_columns",
                 "evalstats_version")
#: columns every unsealed (hand-made or older) with-replacement design must have
LEGACY_COLUMNS = ("id", "n_draws", "draw_seq", "weight", "pred", "measure")
_CHUNK = 4


class DesignError(TableError):
    """A design table that was edited, truncated or is not a design (a ValueError)."""


# -- canonical values ----------------------------------------------------------------------------

_INT_RE = re.compile(r"^[+-]?\d+$")
_MISSING = {"", "nan", "na", "n/a", "null", "none", "<na>"}


def id_text(v: Any) -> str:
    """The canonical text of an id: :func:`canon`, except that text pandas would read as
    missing (``"NA"``, ``"null"``) is an id and stays as written; only NaN, None and empty
    text are no id (``""``)."""
    t = canon(v)
    if t == "" and isinstance(v, str):
        return v.strip()
    return t


def canon(v: Any) -> str:
    """The canonical text of a cell: ``7``, ``7.0`` and ``"7"`` are ``"7"``; NaN is ``""``."""
    if v is None or v is pd.NA:
        return ""
    if isinstance(v, bool | np.bool_):
        return "1" if v else "0"
    if isinstance(v, int | np.integer):
        return str(int(v))
    if isinstance(v, float | np.floating):
        f = float(v)
        if math.isnan(f):
            return ""
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        if f.is_integer() and abs(f) < 1e15:
            return str(int(f))
        return format(f, ".12g")
    s = str(v)
    t = s.strip()
    if t.lower() in _MISSING:
        return ""
    if _INT_RE.match(t):
        return str(int(t))
    try:
        return canon(float(t))
    except ValueError:
        return s


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text != ""


def _h(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def _package_version() -> str:
    from .. import __version__

    return str(__version__)


def _digest(n: int, row_cols: Sequence[str], settings: Mapping[str, str],
            texts: Mapping[str, Sequence[str]], version: str) -> str:
    h = hashlib.sha256()
    h.update("\x1e".join([DESIGN_FORMAT, str(n), version, *row_cols, "|", *settings]).encode())
    for k, v in settings.items():
        h.update(f"\x1e{k}\x1f{v}".encode())
    for c in row_cols:
        h.update(("\x1d" + c + "\x1e" + "\x1e".join(texts[c])).encode("utf-8"))
    return h.hexdigest()[:32]


# -- writing -------------------------------------------------------------------------------------

def rounded(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with its floats rounded to the 12 significant digits the check hashes: the
    written text then reads back to the same canonical text under any parser within an
    ulp (pandas < 3's default `pd.read_csv` is not exact), not only a round-trip one, and
    an evaluator that estimates from these values agrees with the file bit for bit."""
    df = df.copy()
    for c in df.columns:
        if pd.api.types.is_float_dtype(df[c]):
            df[c] = [float(format(v, ".12g")) if np.isfinite(v) else v for v in df[c]]
    return df


def seal_design(df: pd.DataFrame, settings: Mapping[str, Any] | Sequence[str] = DESIGN_SETTINGS,
                ) -> pd.DataFrame:
    """The design with its integrity columns appended (see the module docstring).

    Parameters
    ----------
    df : DataFrame
        One row per item to label.
    settings : mapping or sequence of str
        The design's settings: a mapping (added as constant columns) or the names of
        columns of ``df`` that are constant (default: the with-replacement design's).
    """
    df = df.copy()
    if isinstance(settings, Mapping):
        for k, v in settings.items():
            df[k] = [v] * len(df) if isinstance(v, list | tuple) else v
        keys = list(settings)
    else:
        keys = [k for k in settings if k in df.columns]
    df = rounded(df.drop(columns=[c for c in CHECK_COLUMNS if c in df.columns]))
    row_cols = [c for c in df.columns if c not in keys]
    n = len(df)
    version = _package_version()
    texts = {c: [canon(v) for v in df[c]] for c in row_cols}
    sett = {k: canon(df[k].iloc[0]) if n else "" for k in keys}
    df["design_row"] = np.arange(1, n + 1)
    df["row_check"] = ["".join(_h(str(i + 1), c, texts[c][i])[:_CHUNK] for c in row_cols)
                       for i in range(n)]
    sett_check = "".join(_h("0", k, v)[:_CHUNK] for k, v in sett.items())
    df["design_check"] = (f"{DESIGN_FORMAT} rows={n} sha256="
                          f"{_digest(n, row_cols, sett, texts, version)} settings={sett_check}")
    df["sealed_columns"] = " ".join(row_cols) + " | " + " ".join(keys)
    df["evalstats_version"] = version
    return df


def sealed_names(design: pd.DataFrame) -> tuple[list[str], list[str]]:
    """``(row columns, setting columns)`` that :func:`seal_design` recorded in
    ``sealed_columns``."""
    row_part, _, set_part = str(design["sealed_columns"].iloc[0]).partition(" | ")
    return row_part.split(), set_part.split()


def design_columns(design: pd.DataFrame) -> set[str] | None:
    """The columns evalstats wrote into a sealed design, read from its seal.

    Parameters
    ----------
    design : DataFrame
        A design table (its first row is enough), e.g. from :func:`read_design`.

    Returns
    -------
    set of str or None
        The sealed row columns, the settings and the integrity columns (``design_row``,
        ``row_check``, ``design_check``, ``sealed_columns``, ``evalstats_version``);
        columns a user added (``label``, notes) are not among them. ``None`` for a table
        without a seal (no ``design_check`` or ``sealed_columns`` column, or no rows).

    See Also
    --------
    read_design, check_labels
    """
    if len(design) == 0 or not {"design_check", "sealed_columns"} <= set(design.columns):
        return None
    rows, keys = sealed_names(design)
    return {*rows, *keys, *CHECK_COLUMNS}


def read_design(path: Any) -> pd.DataFrame:
    """Read a design CSV written by :func:`active_design` or ``evalstats sample``.

    Identifiers are kept as written (``00009`` stays ``00009``) and floats are parsed
    exactly, so the design's integrity check and the estimate see the values written.

    Parameters
    ----------
    path : str or path-like
        The CSV file.

    Returns
    -------
    DataFrame
        The design, ready for :func:`estimate_from_labels`.

    Raises
    ------
    FileNotFoundError, DesignError
        A missing, empty or unreadable file.

    See Also
    --------
    active_design, estimate_from_labels
    """
    from pathlib import Path

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"design {str(p)!r} does not exist (or is not a file).")
    if p.stat().st_size == 0:
        raise DesignError(f"{p.name}: the design is empty (expected the CSV written by "
                          "`evalstats sample`).")
    try:
        # pandas < 3 parses floats to within an ulp only by default, which can flip the
        # 12-digit canonical text the row check hashes; the round-trip parser is exact
        exact = {} if int(pd.__version__.split(".")[0]) >= 3 else \
            {"float_precision": "round_trip"}
        df = pd.read_csv(p, dtype={"id": str}, keep_default_na=True, **exact)
        if "id" in df.columns:      # ids as written: "NA" is an id, not a missing value
            df["id"] = pd.read_csv(p, usecols=["id"], dtype=str, keep_default_na=False,
                                   na_values=[])["id"].to_numpy()
    except pd.errors.EmptyDataError:
        raise DesignError(f"{p.name}: the design has no columns (expected the CSV written "
                          "by `evalstats sample`).") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise DesignError(f"{p.name}: cannot be read as CSV ({err}).") from err
    df.columns = [str(c).strip() for c in df.columns]
    if len(df) == 0:
        raise DesignError(f"{p.name}: the design has a header but no rows (expected one row "
                          "per item to label, as written by `evalstats sample`).")
    return df


# -- verification --------------------------------------------------------------------------------


def cell_error(source: str, df: pd.DataFrame, mask: Any, column: str, expected: str,
               ) -> DesignError:
    """:class:`DesignError` naming the first row of ``mask``, the column and the value."""
    return table_cell_error(source, df, mask, column, expected, exc=DesignError)


def _cell(source: str, df: pd.DataFrame, i: int, column: str, expected: str) -> DesignError:
    mask = np.zeros(len(df), dtype=bool)
    mask[i] = True
    return cell_error(source, df, mask, column, expected)


def _first(mask: np.ndarray) -> int | None:
    idx = np.flatnonzero(mask)
    return int(idx[0]) if len(idx) else None


def _numbers(df: pd.DataFrame, column: str) -> np.ndarray:
    return pd.to_numeric(df[column], errors="coerce").to_numpy(float)


def _measure_ok(name: str) -> bool:
    return name in MEASURES or bool(re.fullmatch(r"f_(alpha|beta)=[0-9.eE+-]+", name))


def _check_values(df: pd.DataFrame, source: str, columns: Sequence[str] | None = None,
                  ) -> None:
    """Value rules of the known design columns, each refusal naming row and column.

    Only ``columns`` (default: every column) are checked: columns a user added to a sealed
    design (a label, notes) are never refused."""
    n = len(df)
    if columns is not None:
        df = df[[c for c in df.columns if c in set(columns)]]
    if "id" in df:
        ids = [id_text(v) for v in df["id"]]
        bad = _first(np.array([t == "" for t in ids]))
        if bad is not None:
            raise _cell(source, df, bad, "id", "an identifier")
        seen: dict[str, int] = {}
        for i, t in enumerate(ids):
            if t in seen:
                raise _cell(source, df, i, "id", f"a unique identifier (row {seen[t] + 2} "
                            "has the same id: was a row copied?)")
            seen[t] = i
    for col in df.columns:
        if col == "weight" or col.startswith("weight_"):
            x = _numbers(df, col)
            bad = _first(~(np.isfinite(x) & (x > 0)))
            if bad is not None:
                raise _cell(source, df, bad, col, "a positive finite weight")
        elif col in ("q", "pi", "inclusion_prob") or col.startswith("pi_"):
            x = _numbers(df, col)
            bad = _first(~(np.isfinite(x) & (x > 0) & (x <= 1)))
            if bad is not None:
                raise _cell(source, df, bad, col, "a probability in (0, 1]")
        elif col in ("pred", "score", "n_draws", "first_draw") or col.startswith(
                ("pred_", "score_")):
            x = _numbers(df, col)
            bad = _first(~np.isfinite(x))
            if col in ("n_draws", "first_draw") and bad is None:
                bad = _first((x != np.round(x)) | (x < (1 if col == "n_draws" else 0)))
            if bad is not None:
                raise _cell(source, df, bad, col, "a number" if col.startswith(
                    ("pred", "score")) else "a whole number")
    if "draw_seq" in df:
        _check_draw_seq(df, source)
    if "measure" in df:
        names = df["measure"].astype(str).str.strip()
        bad = _first(~names.map(_measure_ok).to_numpy(bool))
        if bad is not None:
            raise _cell(source, df, bad, "measure", f"one of {', '.join(MEASURES)}")
    for col, low, high in (("alpha", 0, 1), ("epsilon", 0, 1)):
        if col in df:
            x = _numbers(df, col)
            blank = np.array([canon(v) == "" for v in df[col]])
            bad = _first(~blank & ~((x >= low) & (x <= high)))
            if bad is not None:
                raise _cell(source, df, bad, col, f"a number in [{low}, {high}]")
    if "pool_size" in df:
        x = _numbers(df, "pool_size")
        bad = _first(~np.isfinite(x) | (x != np.round(x)) | (x < n))
        if bad is not None:
            raise _cell(source, df, bad, "pool_size",
                        f"a whole number at least the number of rows ({n})")


def _check_draw_seq(df: pd.DataFrame, source: str) -> None:
    owner: dict[int, int] = {}
    n_draws = _numbers(df, "n_draws") if "n_draws" in df else None
    for i, s in enumerate(df["draw_seq"]):
        parts = str(s).split(";")
        try:
            seq = [int(p) for p in parts]
        except ValueError:
            raise _cell(source, df, i, "draw_seq", "draw positions separated by ';'") from None
        if min(seq) < 0:
            raise _cell(source, df, i, "draw_seq", "non-negative draw positions")
        if n_draws is not None and len(seq) != n_draws[i]:
            raise _cell(source, df, i, "draw_seq", f"{n_draws[i]:g} positions (column "
                        f"'n_draws' of the same row)")
        for p in seq:
            if p in owner:
                raise _cell(source, df, i, "draw_seq", f"positions no other row has (draw "
                            f"{p} is also on row {owner[p] + 2}: was a row copied?)")
            owner[p] = i
    gaps = sorted(set(range(max(owner) + 1)) - set(owner))
    if gaps:
        raise DesignError(f"{source}: draw {gaps[0]} of the draw sequence is on no row "
                          f"({len(gaps)} draw(s) missing): rows were deleted from the design.")


def verify_design(design: Any, *, source: str = "design", require_seal: bool = False,
                  ) -> tuple[pd.DataFrame, Notes]:
    """Check a design table; return it in written row order, with notes.

    Raises :class:`DesignError` naming ``source``, the row (as a spreadsheet numbers it:
    the header is row 1) and the column of the first inconsistency: deleted, copied or
    edited rows, edited settings, non-positive or NaN weights, repeated draw positions,
    an unknown measure. A table without the integrity columns is refused when
    ``require_seal`` (the command line); otherwise it is checked value by value, with a note.
    """
    if not isinstance(design, pd.DataFrame):
        raise fail("design", "the DataFrame returned by `active_design`",
                   got=f"an object of type {type(design).__name__}", exc=TypeError)
    notes = Notes()
    if len(design) == 0:
        raise DesignError(f"{source}: the design has no rows (expected one row per item "
                          "to label, as `active_design` returns).")
    design = design.reset_index(drop=True)
    if "design_check" not in design.columns:
        if require_seal:
            raise DesignError(
                f"{source}: not a design written by `evalstats sample` (it has no "
                f"'design_check' column), so its integrity cannot be checked. Write the design "
                f"with `evalstats sample` (or `active_design`) and add only a label column.")
        missing = [c for c in LEGACY_COLUMNS if c not in design.columns]
        if missing:
            raise _lacks(source, ", ".join(missing))
        _check_values(design, source)
        notes.add("The design carries no integrity check (no 'design_check' column); its "
                  "values were checked one by one only.")
        return design, notes
    row_cols, keys, m = _seal_parts(design, source)
    n_written = int(m.group(1))
    for k in keys:                                     # settings: same on every row
        t = [canon(v) for v in design[k]]
        bad = _first(np.array([x != t[0] for x in t]))
        if bad is not None:
            raise _cell(source, design, bad, k, f"the same value on every row (the design's "
                        f"setting; row 2 has {plain_value(design[k].iloc[0])!r})")
    order = _check_rows(design, source, n_written)
    _check_values(design, source, row_cols + keys)
    texts = _check_cells(design, source, row_cols)
    sett = {k: canon(design[k].iloc[0]) for k in keys}
    for j, (k, v) in enumerate(sett.items()):
        if _h("0", k, v)[:_CHUNK] != m.group(3)[j * _CHUNK:(j + 1) * _CHUNK]:
            raise DesignError(f"{source}, column {k!r} (every row): expected the setting "
                              f"evalstats wrote; got {plain_value(design[k].iloc[0])!r}, edited "
                              "after the design was written.")
    ordered = {c: [texts[c][i] for i in order] for c in row_cols}
    version = str(design["evalstats_version"].iloc[0])
    if _digest(n_written, row_cols, sett, ordered, version) != m.group(2):
        raise DesignError(f"{source}: the design's checksum (column 'design_check') fails: the "
                          f"file was changed after it was written (e.g. column "
                          f"'evalstats_version'). Write it again with `evalstats sample`.")
    if not np.array_equal(order, np.arange(len(design))):
        notes.add("The design's rows were re-sorted; they were put back in written order.")
    return design.iloc[order].reset_index(drop=True), notes


def _seal_parts(design: pd.DataFrame, source: str) -> tuple[list[str], list[str], Any]:
    """The sealed row columns, the settings and the parsed ``design_check``."""
    for c in CHECK_COLUMNS:
        if c not in design.columns:
            raise _lacks(source, f"{c} (an integrity column)")
    for c in ("design_check", "sealed_columns", "evalstats_version"):
        vals = design[c].astype(str)
        bad = _first((vals != vals.iloc[0]).to_numpy())
        if bad is not None:
            raise _cell(source, design, bad, c, "the same value on every row (as on row 2)")
    row_cols, keys = sealed_names(design)
    missing = [c for c in row_cols + keys if c not in design.columns]
    if missing:
        raise _lacks(source, ", ".join(missing))
    m = re.fullmatch(rf"{re.escape(DESIGN_FORMAT)} rows=(\d+) sha256=([0-9a-f]{{32}}) "
                     rf"settings=([0-9a-f]*)", str(design["design_check"].iloc[0]).strip())
    if m is None or len(m.group(3)) != _CHUNK * len(keys):
        raise _cell(source, design, 0, "design_check", f"the check written by evalstats "
                    f"('{DESIGN_FORMAT} rows=... sha256=... settings=...')")
    return row_cols, keys, m


def _check_cells(design: pd.DataFrame, source: str, row_cols: list[str]
                 ) -> dict[str, list[str]]:
    """Every sealed cell against its row check; the cells' canonical texts."""
    texts = {c: [canon(v) for v in design[c]] for c in row_cols}
    rows = pd.to_numeric(design["design_row"]).to_numpy(int)
    for i in range(len(design)):
        got = str(design["row_check"].iloc[i]).strip()
        if not re.fullmatch(rf"[0-9a-f]{{{_CHUNK * len(row_cols)}}}", got):
            raise _cell(source, design, i, "row_check", "the check evalstats wrote "
                        f"({_CHUNK * len(row_cols)} hexadecimal digits)")
        for j, c in enumerate(row_cols):
            if _h(str(rows[i]), c, texts[c][i])[:_CHUNK] != got[j * _CHUNK:(j + 1) * _CHUNK]:
                err = _cell(source, design, i, c, "the value evalstats wrote (this cell was "
                            "edited after the design was written: its row check fails)")
                if _is_number(texts[c][i]) and c != "id":
                    err = DesignError(f"{err} A spreadsheet that saved rounded numbers does "
                                      f"this too: keep the design file as written and give "
                                      f"the labels in a separate id,label file.")
                raise err
    return texts


def _lacks(source: str, what: str) -> DesignError:
    err = fail("design", "a table with the columns of `active_design`",
               got=f"no column(s) {what}", remedy="Keep every column `evalstats sample` "
               "wrote; add only a label column.", exc=DesignError)
    return err if source == "design" else DesignError(f"{source}: {err}")


def _check_rows(design: pd.DataFrame, source: str, n_written: int) -> np.ndarray:
    """Deleted, copied or renumbered rows, from ``design_row``; the written row order."""
    x = _numbers(design, "design_row")
    bad = _first(~np.isfinite(x) | (x != np.round(x)) | (x < 1) | (x > n_written))
    if bad is not None:
        raise _cell(source, design, bad, "design_row", f"a row number 1..{n_written}")
    seen: dict[int, int] = {}
    for i, r in enumerate(x.astype(int)):
        if r in seen:
            raise _cell(source, design, i, "design_row",
                        f"a row number not used before (design row {r} is also on row "
                        f"{seen[r] + 2}: {len(design) - n_written} row(s) too many; a row "
                        "was copied)")
        seen[r] = i
    if len(design) < n_written:
        lost = sorted(set(range(1, n_written + 1)) - set(seen))
        where = (f"after row {seen[lost[0] - 1] + 2}" if lost[0] - 1 in seen
                 else "at the start")
        raise DesignError(f"{source}: design row {lost[0]} of {n_written} is missing "
                          f"({where}); {len(lost)} row(s) were deleted after the design "
                          f"was written. Use the file `evalstats sample` wrote.")
    return np.argsort(x, kind="stable")
