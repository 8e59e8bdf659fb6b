"""User files: tables read with explicit schemas, files written atomically, never clobbered.

Reading. Every refusal names the file, and where it applies the row and the column, and
says what was expected: ``labels.csv, row 12, column 'label': expected 0 or 1; got 2.``
Rows are numbered as a spreadsheet shows them (the header is row 1). Identifier columns
are read as text, exactly as written (``00009`` stays ``00009``, ``NA`` is the id ``NA``),
and :func:`check_ids` refuses empty, repeated or look-alike identifiers up front.

Writing. :func:`atomic_write` writes to a temporary file in the target's folder, syncs it
to disk and renames it over the target (``os.replace``, atomic on POSIX and Windows): a
reader sees the old file or the new one, never half of one, and a failed write (disk full,
permission denied, read-only file system, Ctrl-C) leaves the old file as it was and no
temporary file behind. :func:`check_overwrite` refuses, before any work, to replace a file
that holds something the writer did not put there: labels, a labeling session, the input
itself (compared by device and inode, so a hard link is caught as well as a symbolic link).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from ._ids import first_repeat, id_key
from ._validation import fail, plain_value

__all__ = ["TableError", "WriteError", "OverwriteError", "read_table", "check_columns",
           "bad_cell", "require_extra", "check_ids", "id_key", "atomic_write", "write_text",
           "write_csv", "check_overwrite", "same_file", "NA_TOKENS"]

#: the cells pandas reads as missing by default (``pandas.read_csv``, ``na_values``); an
#: identifier column is read without them, so that ``NA`` is an id and not a missing value
NA_TOKENS = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
             "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")


class TableError(ValueError):
    """A user table that cannot be read as the schema requires."""


def _check_path_arg(path: Any, name: str = "path") -> Path:
    if isinstance(path, bool) or not isinstance(path, str | os.PathLike):
        raise fail(name, "a path (str or os.PathLike)",
                   got=f"an object of type {type(path).__name__}", exc=TypeError)
    if str(path) == "":
        raise fail(name, "a path (str or os.PathLike)", got="an empty string")
    return Path(path)


def _check_names(value: Any, name: str) -> list[str]:
    """A sequence of column names (a lone string is refused: it is not a list of names)."""
    if isinstance(value, str) or not isinstance(value, Sequence | Collection):
        raise fail(name, "a sequence of column names (str)",
                   got=f"an object of type {type(value).__name__}", exc=TypeError)
    out = list(value)
    bad = [v for v in out if not isinstance(v, str)]
    if bad:
        raise fail(name, "a sequence of column names (str)", value=bad[0], exc=TypeError)
    return out


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
               what: str = "table", text_columns: Sequence[str] = (),
               exact_floats: bool = False) -> pd.DataFrame:
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
    text_columns : sequence of str
        Columns read as text exactly as written: no number parsing (``00009`` stays
        ``00009``) and no missing-value tokens (``NA`` stays ``NA``; an empty cell is
        ``""``). Use it for identifiers.
    exact_floats : bool
        Parse numbers with the round-trip parser (pandas < 3 is otherwise exact only to
        an ulp), so that a number written with 12 or more digits reads back identically.

    Raises
    ------
    FileNotFoundError, TableError
        A missing file; an empty file, a file with no rows, or missing columns.
    """
    p = _check_path_arg(path)
    required = _check_names(required, "required")
    text_columns = _check_names(text_columns, "text_columns")
    if not header:
        if names is None:
            raise TypeError("`names` must be given when header=False.")
        names = _check_names(names, "names")
    if not p.is_file():
        raise FileNotFoundError(f"{what} {str(p)!r} does not exist (or is not a file).")
    if p.stat().st_size == 0:
        cols = f" naming the columns {', '.join(map(repr, required))}" if required else ""
        raise TableError(f"{p.name}: the {what} is empty (expected a CSV with a header "
                         f"row{cols}).")
    df = _parse_csv(p, header, names, what, text_columns, exact_floats)
    df.columns = [str(c).strip() for c in df.columns]
    check_columns(df, required, p.name, what)
    if len(df) == 0:
        raise TableError(f"{p.name}: the {what} has a header but no rows.")
    return df


def _parse_csv(p: Path, header: bool, names: Sequence[str] | None, what: str,
               text_columns: Sequence[str], exact_floats: bool) -> pd.DataFrame:
    kw: dict[str, Any] = {} if header else {"header": None, "names": list(names or ())}
    if exact_floats and int(pd.__version__.split(".")[0]) < 3:
        kw["float_precision"] = "round_trip"
    try:
        if text_columns:
            cols = pd.read_csv(p, nrows=0, **kw).columns if header else kw["names"]
            raw = {str(c).strip(): c for c in cols}
            text = [raw[c] for c in text_columns if c in raw]
            kw.update(dtype={c: str for c in text}, keep_default_na=False,
                      na_values={c: list(NA_TOKENS) for c in cols if c not in text})
        return pd.read_csv(p, **kw)
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise TableError(f"{p.name}: cannot be read as CSV ({err}).") from err
    except pd.errors.EmptyDataError as err:
        raise TableError(f"{p.name}: the {what} has no columns.") from err


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
    hits = np.flatnonzero(np.asarray(mask, dtype=bool))
    if len(hits) == 0:
        raise fail("mask", "true on at least one row (the bad cell to report)",
                   got="no true value")
    i = int(hits[0])
    n_bad = int(np.count_nonzero(mask))
    more = f" ({n_bad - 1} more row(s) like it)" if n_bad > 1 else ""
    return TableError(f"{fname}, row {i + 2}, column {column!r}: expected {expected}; got "
                      f"{plain_value(df[column].iloc[i])!r}{more}.")


def require_extra(module: str, extra: str, purpose: str):
    """Import an optional dependency, or raise ImportError naming the extra to install."""
    import importlib

    for name, value in (("module", module), ("extra", extra), ("purpose", purpose)):
        if not isinstance(value, str) or not value:
            raise fail(name, "a non-empty str", value=value, exc=TypeError)
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        raise ModuleNotFoundError(
            f"{purpose} needs the optional dependency {module!r}: "
            f'pip install "evalstats[{extra}]"') from err


# -- identifiers -------------------------------------------------------------------------------

def check_ids(df: pd.DataFrame, column: str, fname: str, what: str = "identifier") -> None:
    """Refuse empty identifiers and identifiers that repeat, exactly or up to type and
    spaces (``9`` and ``00009``, ``"1"`` and ``" 1"``; see :func:`evalstats._ids.id_key`),
    naming both rows.

    Raises
    ------
    TableError
        ``pool.csv, rows 3 and 11, column 'id': expected a unique identifier; ...``
    """
    if not isinstance(df, pd.DataFrame) or column not in df.columns:
        raise fail("column", "a column of `df`", value=column)
    raw = df[column].reset_index(drop=True)
    kind, j, i, n_bad = first_repeat(raw.to_numpy(dtype=object))
    if kind == "empty":
        more = f" ({n_bad - 1} more row(s) like it)" if n_bad > 1 else ""
        raise TableError(f"{fname}, row {i + 2}, column {column!r}: expected a non-empty "
                         f"{what}; got {plain_value(raw.iloc[i])!r}{more}.")
    if kind != "repeat":
        return
    a, b = plain_value(raw.iloc[j]), plain_value(raw.iloc[i])
    how = (f"{b!r} twice" if str(a) == str(b) else
           f"{a!r} and {b!r}, the same {what} written differently (ids are compared without "
           f"surrounding spaces, and numbers by value)")
    extra = f" ({n_bad - 1} more repeated row(s))" if n_bad > 1 else ""
    raise TableError(f"{fname}, rows {j + 2} and {i + 2}, column {column!r}: expected a "
                     f"unique {what}; got {how}{extra}. Remove or rename the repeated rows.")


# -- writing -----------------------------------------------------------------------------------

_WRITE_REASONS = {errno.ENOSPC: "disk full (no space left on the device)",
                  errno.EDQUOT: "disk quota exceeded (disk full for this user)",
                  errno.EACCES: "permission denied",
                  errno.EPERM: "permission denied (operation not permitted)",
                  errno.EROFS: "read-only file system (permission denied)",
                  errno.EFBIG: "file too large for the file system",
                  errno.ENOENT: "the folder does not exist",
                  errno.EISDIR: "it is a folder"}


class WriteError(OSError):
    """A file that could not be written; the previous file, if any, is unchanged.

    ``errno`` and ``filename`` are those of the failure; ``str()`` is the message."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else super().__str__()


class OverwriteError(FileExistsError):
    """An output path that holds something the writer would destroy (see
    :func:`check_overwrite`)."""


def _write_error(err: OSError, shown: str, existed: bool) -> WriteError:
    reason = _WRITE_REASONS.get(err.errno or -1) or err.strerror or str(err)
    kept = "the previous file is unchanged" if existed else "nothing was written"
    out = WriteError(f"cannot write {shown!r}: {reason}; {kept}.")
    out.errno, out.filename = err.errno, shown
    return out


def _fsync_folder(folder: Path) -> None:
    """Make a rename durable (POSIX); a file system that cannot sync folders is fine."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", *, encoding: str = "utf-8",
                 newline: str | None = None) -> Iterator[IO[Any]]:
    """Open ``path`` for writing such that it is replaced only by a complete new file.

    The body writes to a temporary file in the same folder (``.<name>.<random>.tmp``);
    on success it is flushed, ``fsync``-ed and renamed over ``path`` with ``os.replace``,
    keeping an existing file's permission bits (a symbolic link is written through, to
    its target). On any failure, Ctrl-C included, the temporary file is removed and
    ``path`` is untouched; an ``OSError`` becomes :class:`WriteError` naming the file and
    the reason ("disk full", "permission denied", "read-only file system").

    Parameters
    ----------
    path : path-like
        The file to write.
    mode : {"w", "wb"}
        Text or binary.
    encoding, newline : str
        As for :func:`open`, in text mode.
    """
    shown = str(_check_path_arg(path))
    if mode not in ("w", "wb"):
        raise fail("mode", "'w' or 'wb'", value=mode)
    target = Path(os.path.realpath(path))
    existed = target.exists()
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                     0o666)
    except OSError as err:
        raise _write_error(err, shown, existed) from None
    try:
        text = {} if mode == "wb" else {"encoding": encoding, "newline": newline}
        with os.fdopen(fd, mode, **text) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        if existed:
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        os.replace(tmp, target)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise _write_error(err, shown, existed) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_folder(target.parent)


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (see :func:`atomic_write`)."""
    if not isinstance(text, str):
        raise fail("text", "a str", got=f"an object of type {type(text).__name__}",
                   exc=TypeError)
    with atomic_write(path, "w") as fh:
        fh.write(text)
    return Path(path)


def write_csv(df: pd.DataFrame, path: str | os.PathLike, **to_csv: Any) -> Path:
    """``df.to_csv(path, index=False, **to_csv)`` atomically (see :func:`atomic_write`);
    a name ending in ``.gz`` is gzip-compressed."""
    if not isinstance(df, pd.DataFrame):
        raise fail("df", "a pandas DataFrame", got=f"an object of type {type(df).__name__}",
                   exc=TypeError)
    to_csv.setdefault("index", False)
    if str(path).lower().endswith(".gz"):
        with atomic_write(path, "wb") as fh:
            df.to_csv(fh, compression="gzip", **to_csv)
    else:
        with atomic_write(path, "w", newline="") as fh:
            df.to_csv(fh, **to_csv)
    return Path(path)


# -- refusing to clobber -----------------------------------------------------------------------

_SQLITE_MAGIC = b"SQLite format 3\x00"
_GZIP_MAGIC = b"\x1f\x8b"


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether two paths name one file: same device and inode (a hard link, a symbolic link
    or another spelling of the path); ``False`` when either does not exist."""
    try:
        sa, sb = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def _session_labels(path: Path) -> int | None:
    """The number of labels in an SQLite labeling session (``None``: no labels table)."""
    import sqlite3

    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except (sqlite3.Error, ValueError):
        return None
    try:
        return int(con.execute("SELECT COUNT(*) FROM labels").fetchone()[0])
    except sqlite3.Error:
        return None
    finally:
        con.close()


def _filled(path: Path, columns: Sequence[str], compression: str | None) -> dict[str, int]:
    """Non-missing cells of ``columns`` (read as text; ``NA``-like tokens are missing)."""
    if not columns:
        return {}
    df = pd.read_csv(path, usecols=list(columns), dtype=str, keep_default_na=False,
                     compression=compression)
    missing = {t.lower() for t in NA_TOKENS}
    return {c: int((~df[c].str.strip().str.lower().isin(missing)).sum()) for c in columns}


def _csv_contents(path: Path, head: bytes, label_columns: Sequence[str],
                  own_columns: Callable[[pd.DataFrame], Collection[str] | None] | None,
                  ) -> str | None:
    """What a CSV at ``path`` holds that its writer did not put there (``None``: nothing)."""
    compression = "gzip" if head.startswith(_GZIP_MAGIC) else None
    try:
        first = pd.read_csv(path, nrows=1, dtype=str, keep_default_na=False,
                            compression=compression)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, OSError,
            EOFError):
        return "is not a CSV file"
    first.columns = [str(c) for c in first.columns]
    owned = own_columns(first) if own_columns is not None else None
    labels = [c for c in first.columns if c in label_columns]
    others = [] if owned is None else [c for c in first.columns
                                       if c not in owned and c not in labels]
    counts = _filled(path, labels + others, compression)
    held = [f"{counts[c]} label(s) in column {c!r}" for c in labels if counts[c]]
    added = [c for c in others if counts[c]]
    if added:
        held.append(f"values in column(s) {', '.join(map(repr, added))} added after it "
                    "was written")
    if held:
        return "holds " + " and ".join(held)
    if owned is None:
        shown = ", ".join(map(repr, first.columns[:6])) + (", ..." if first.shape[1] > 6
                                                             else "")
        return f"is a CSV file it did not write (columns {shown})"
    return None


def check_overwrite(path: str | os.PathLike, *, force: bool = False,
                    protect: Mapping[str, str | os.PathLike | None] | None = None,
                    label_columns: Sequence[str] = ("label",),
                    own_columns: Callable[[pd.DataFrame], Collection[str] | None]
                    | None = None, flag: str = "--out", force_flag: str = "--force",
                    writer: str = "evalstats") -> None:
    """Refuse to replace ``path`` when that would destroy something, unless ``force``.

    ``path`` may be replaced when it does not exist, is empty, or is a CSV written by
    ``writer`` whose added columns are empty. It is refused (:class:`OverwriteError`) when
    it is one of the ``protect`` files (same device and inode: a hard link, a symbolic
    link), an SQLite labeling session, not a CSV, a CSV with a non-empty column of
    ``label_columns``, a CSV ``writer`` did not write (``own_columns(first_row)`` returns
    ``None``; with ``own_columns=None`` every CSV counts as one ``writer`` wrote), or one
    with values in columns other than ``own_columns(first_row)``. The message says what
    the file holds and how to proceed. ``protect`` files are refused even with ``force``.
    """
    target = _check_path_arg(path, flag)
    for what, other in (protect or {}).items():
        if other is not None and same_file(target, other):
            raise OverwriteError(f"{flag} {str(target)!r} is the same file as {what} "
                                 f"{str(other)!r} (a link or another name of it); writing "
                                 f"there would destroy it. Choose another {flag} file.")
    if not target.exists() or (target.is_file() and target.stat().st_size == 0):
        return
    if not target.is_file():
        raise OverwriteError(f"{flag} {str(target)!r} is a folder, not a file.")
    if force:
        return
    with open(target, "rb") as fh:
        head = fh.read(8192)
    if head.startswith(_SQLITE_MAGIC):
        n = _session_labels(target)
        held = ("is an SQLite database" if n is None
                else f"is an evalstats labeling session holding {n} label(s)")
    elif b"\x00" in head and not head.startswith(_GZIP_MAGIC):
        held = "is a binary file, not a CSV"
    else:
        held = _csv_contents(target, head, label_columns, own_columns)
    if held is not None:
        raise OverwriteError(f"{flag} {str(target)!r} already exists and {held}; {writer} "
                             f"would overwrite it. Choose another {flag} file, or pass "
                             f"{force_flag} to replace it.")
