"""Reading user tables (CSV) with explicit schemas and clear refusals.

Every refusal names the file, and where it applies the row and the column, and says what
was expected: ``labels.csv, row 12, column 'label': expected 0 or 1; got 2.``
Rows are numbered as a spreadsheet shows them (the header is row 1).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ._validation import plain_value

__all__ = ["TableError", "read_table", "check_columns", "bad_cell", "require_extra"]


class TableError(ValueError):
    """A user table that cannot be read as the schema requires."""


def cell_error(source: str, df: pd.DataFrame, mask, column: str, expected: str,
               exc: type[TableError] = TableError) -> TableError:
    """``exc`` naming the first row of ``mask`` (a spreadsheet's numbering: the header is
    row 1), the column and the value found there."""
    mask = np.asarray(mask, dtype=bool)
    i = int(np.flatnonzero(mask)[0])
    value = plain_value(df[column].iloc[i])
    n_bad = int(mask.sum())
    more = f" ({n_bad - 1} more row(s) like it)" if n_bad > 1 else ""
    return exc(f"{source}, row {i + 2}, column {column!r}: expected {expected}; got "
               f"{value!r}{more}.")


def read_table(path: str | os.PathLike, *, required: Sequence[str] = (),
               header: bool = True, names: Sequence[str] | None = None,
               what: str = "table") -> pd.DataFrame:
    """Read a CSV with a header row (or, with ``header=False``, with the given ``names``).

    Parameters
    ----------
    path : path-like
        The CSV file.
    required : sequence of str
        Columns that must be present (by exact name).
    header : bool
        ``True``: the first row names the columns (never guessed from the data).
        ``False``: there is no header; ``names`` gives the columns in order.
    names : sequence of str, optional
        Column names for ``header=False``.
    what : str
        What the file is, for messages ("labels file", "design").

    Raises
    ------
    FileNotFoundError, TableError
        A missing file; an empty file, a file with no rows, or missing columns.
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{what} {str(p)!r} does not exist (or is not a file).")
    if p.stat().st_size == 0:
        raise TableError(f"{p.name}: the {what} is empty (expected a CSV with a header row "
                         f"naming the columns {', '.join(map(repr, required)) or ''}).")
    try:
        if header:
            df = pd.read_csv(p)
        else:
            if names is None:
                raise TypeError("`names` must be given when header=False.")
            df = pd.read_csv(p, header=None, names=list(names))
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise TableError(f"{p.name}: cannot be read as CSV ({err}).") from err
    except pd.errors.EmptyDataError as err:
        raise TableError(f"{p.name}: the {what} has no columns.") from err
    df.columns = [str(c).strip() for c in df.columns]
    check_columns(df, required, p.name, what)
    if len(df) == 0:
        raise TableError(f"{p.name}: the {what} has a header but no rows.")
    return df


def check_columns(df: pd.DataFrame, required: Sequence[str], fname: str,
                  what: str = "table") -> None:
    """Raise :class:`TableError` naming the columns of ``required`` missing from ``df``."""
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise TableError(
            f"{fname}: the {what} lacks column(s) {', '.join(map(repr, missing))}; it has "
            f"{', '.join(map(repr, df.columns))}. The first row must name the columns.")


def bad_cell(fname: str, df: pd.DataFrame, mask: np.ndarray, column: str,
             expected: str) -> TableError:
    """A :class:`TableError` naming the first row where ``mask`` is true."""
    i = int(np.flatnonzero(np.asarray(mask))[0])
    n_bad = int(np.count_nonzero(mask))
    more = f" ({n_bad - 1} more row(s) like it)" if n_bad > 1 else ""
    return TableError(f"{fname}, row {i + 2}, column {column!r}: expected {expected}; got "
                      f"{plain_value(df[column].iloc[i])!r}{more}.")


def require_extra(module: str, extra: str, purpose: str):
    """Import an optional dependency, or raise ImportError naming the extra to install."""
    import importlib

    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        raise ModuleNotFoundError(
            f"{purpose} needs the optional dependency {module!r}: "
            f'pip install "evalstats[{extra}]"') from err
