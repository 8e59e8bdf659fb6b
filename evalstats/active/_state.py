"""Session state of an :class:`~evalstats.active.ActiveEvaluator` in one SQLite file.

Tables
------
``meta``
    key, JSON value: format, configuration, generator state, batch counter, the
    ``version`` counter of writes, the pool's column layout and the package version.
``pool``
    the pool as binary column blocks: one row per (column, chunk) holding the raw bytes of
    a numpy array (numbers) or of the UTF-8 identifiers, with its length and CRC-32; a
    10-million-item pool is a handful of rows, written and read at disk speed.
``draws``
    seq, item index, q, batch — one row per draw.
``labels``
    item index, label.

Plain data only — never pickle — so opening somebody else's session file cannot execute
code. Guarantees:

* **Atomic creation.** The file is built under a temporary name in the same directory,
  synced, then linked to its final name; a crash during creation leaves no file at
  ``path`` (a stale temporary file of a dead process is removed by the next creation).
* **Nothing acknowledged is lost.** Draws are committed in ``query`` and labels in
  ``update`` before they return (SQLite rollback journal, ``synchronous=FULL``).
* **Concurrent writers.** Writes are serialized (``BEGIN IMMEDIATE`` with a busy
  timeout); every write checks the ``version`` counter, so an evaluator whose view of the
  file is out of date (another process or another evaluator wrote to it) is refused with
  :class:`SessionConflictError` and writes nothing.
* **Damaged or foreign files** raise :class:`SessionFileError` naming the path and what
  to do; every pool block is checked against its CRC-32 when the session is opened.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
import pandas as pd

FORMAT = "evalstats-active-session/2"
LEGACY_FORMATS = ("evalstats-active-session/1",)
#: bytes per pool block row (SQLite's default limit on one value is 1 GB)
CHUNK_BYTES = 1 << 29
#: seconds a writer waits for another writer before giving up
BUSY_TIMEOUT = 30.0
_TABLES = {"meta", "pool", "draws", "labels"}

__all__ = ["StateStore", "SessionFileError", "SessionConflictError", "SessionPathError",
           "pool_arrays", "validate_session", "FORMAT"]


class SessionFileError(ValueError):
    """A session file that cannot be used: missing, damaged, foreign or of another format."""


class SessionConflictError(ValueError):
    """The session file changed since this evaluator read it (another writer)."""


class SessionPathError(FileNotFoundError, ValueError):
    """A session path in a directory that does not exist (both an OSError and a ValueError)."""


class SessionExistsError(FileExistsError, ValueError):
    """A new session's path that already exists (both an OSError and a ValueError)."""


_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")


def pool_arrays(cols: Mapping[str, np.ndarray], meta: Mapping[str, Any],
                ) -> tuple[np.ndarray, pd.DataFrame | None, np.ndarray | None, np.ndarray]:
    """``(scores, predictions, variance, ids)`` from the pool columns of a session file
    (predictions ``None`` when they are the default ``scores > 0.5`` of one model)."""
    names = list(cols)
    scols = [c for c in names if c == "s" or c.startswith("s_")]
    scores = cols["s"] if scols == ["s"] else np.column_stack([cols[c] for c in scols])
    pcols = [c for c in names if c.startswith("pred_")]
    if (meta["model_names"] == ["model"] and scols == ["s"] and "var" not in cols
            and not meta.get("raw_scores") and _is_default_prediction(scores, cols[pcols[0]])):
        return scores, None, None, cols["id"]    # the default p > 0.5: no copy to validate
    preds = pd.DataFrame({m: cols[c] for m, c in zip(meta["model_names"], pcols, strict=True)},
                         copy=False)
    return scores, preds, cols.get("var"), cols["id"]


def validate_session(path: Any, meta: Mapping[str, Any], draws: pd.DataFrame,
                     labels: pd.DataFrame, n_pool: int, n_classes: int) -> None:
    """Refuse a session whose contents were edited into something no evaluator writes: a
    config that is not a mapping of the known keys, draws that are not contiguous or name
    items outside the pool, labels outside the measure's domain or of items never drawn."""
    where = f"The session file {str(path)!r}"
    cfg = meta.get("config")
    keys = ("measure", "beta", "alpha", "proposal", "epsilon", "recalibrate",
            "confidence_level", "design")
    if not isinstance(cfg, Mapping) or any(k not in cfg for k in keys):
        got = type(cfg).__name__ if not isinstance(cfg, Mapping) else \
            f"no {', '.join(k for k in keys if k not in cfg)}"
        raise SessionFileError(f"{where} has a malformed configuration ({got}); it was edited "
                               f"after it was written. Start a new session.")
    label_set = (None if cfg["measure"] == "squared"
                 else np.arange(n_classes, dtype=float))
    seq = draws["seq"].to_numpy()
    if len(seq) and not np.array_equal(np.sort(seq), np.arange(len(seq))):
        missing = sorted(set(range(int(seq.max()) + 1)) - set(seq.tolist()))
        raise SessionFileError(f"{where} lacks draw {missing[0] if missing else len(seq)} of "
                               f"its draw sequence (rows were deleted); its estimates would "
                               f"use a different sample. Start a new session.")
    for name, idx in (("draws", draws["idx"]), ("labels", labels["idx"])):
        x = pd.to_numeric(idx, errors="coerce").to_numpy(float)
        if ((x != np.round(x)) | (x < 0) | (x >= n_pool) | ~np.isfinite(x)).any():
            raise SessionFileError(f"{where} has {name} of items outside the pool (0..."
                                   f"{n_pool - 1}); it was edited after it was written.")
    y = pd.to_numeric(labels["label"], errors="coerce").to_numpy(float)
    bad = ~np.isfinite(y) if label_set is None else ~np.isin(y, label_set)
    if bad.any():
        raise SessionFileError(
            f"{where} holds a label {labels['label'].to_numpy()[bad][0]!r} for item "
            f"{int(labels['idx'].to_numpy()[bad][0])}, outside the measure's labels "
            f"{'(finite numbers)' if label_set is None else set(label_set.tolist())}; it was "
            f"edited after it was written. Correct or delete that row with the sqlite3 shell.")
    undrawn = ~np.isin(labels["idx"].to_numpy(), draws["idx"].to_numpy())
    if undrawn.any():
        raise SessionFileError(f"{where} holds a label of item "
                               f"{int(labels['idx'].to_numpy()[undrawn][0])}, which was never "
                               f"drawn; it was edited after it was written.")


def _is_default_prediction(scores: np.ndarray, pred: np.ndarray, block: int = 1 << 20) -> bool:
    """Whether ``pred`` is ``scores > 0.5`` (block by block, no full-size temporaries)."""
    for start in range(0, scores.shape[0], block):
        if not np.array_equal(scores[start:start + block] > 0.5, pred[start:start + block]):
            return False
    return True


def _package_version() -> str:
    from .. import __version__

    return str(__version__)


# -- pool columns as binary blocks -----------------------------------------------------------

def is_range(arr: np.ndarray, block: int = 1 << 20) -> bool:
    """Whether ``arr`` is ``0, 1, ..., n-1`` (checked block by block, no full-size copy)."""
    if arr.dtype.kind not in "iu":
        return False
    for start in range(0, arr.shape[0], block):
        if not np.array_equal(arr[start:start + block],
                              np.arange(start, min(start + block, arr.shape[0]))):
            return False
    return True


def _is_small_integers(arr: np.ndarray, block: int = 1 << 20) -> bool:
    """Whether every value of a float array is an integer in [-128, 127] (block by block)."""
    for start in range(0, arr.shape[0], block):
        b = arr[start:start + block]
        if not (np.all(b == np.round(b)) and np.all(np.abs(b) <= 127)):
            return False
    return True


def _encode_column(values: Any) -> tuple[str, Any]:
    """``(kind, buffer)`` of one pool column: a numpy dtype string (raw bytes, no copy),
    ``"range"`` (``0..n-1``, nothing stored), ``"utf8"`` (NUL-separated) or ``"json"``."""
    arr = np.asarray(values)
    if arr.dtype.kind in "biuf":
        if arr.ndim == 1 and is_range(arr):
            return "range", b""
        if arr.dtype.kind == "f" and arr.ndim == 1 and _is_small_integers(arr):
            arr = arr.astype(np.int8)        # class predictions: 1 byte per item
        arr = np.ascontiguousarray(arr)
        return arr.dtype.str, memoryview(arr).cast("B")
    items = arr.tolist()
    if all(isinstance(v, str) for v in items):
        text = "\x00".join(items)
        if text.count("\x00") == max(len(items) - 1, 0):
            return "utf8", text.encode("utf-8")
    try:
        return "json", json.dumps(items).encode("utf-8")
    except TypeError:
        raise TypeError("`ids` must be numbers or strings to be stored in a session file; "
                        f"got values of type {type(items[0]).__name__}.") from None


def _decode_column(kind: str, data: bytes, n: int) -> np.ndarray:
    """Inverse of :func:`_encode_column` (numbers: a read-only view of ``data``, no copy)."""
    if kind == "range":
        out = np.arange(n)
    elif kind == "utf8":
        out = np.array(data.decode("utf-8").split("\x00") if n else [], dtype=object)
    elif kind == "json":
        items = json.loads(data.decode("utf-8"))
        out = np.array(items, dtype=object if any(isinstance(v, str) for v in items) else None)
    else:
        try:
            dtype = np.dtype(kind)
        except TypeError:
            raise ValueError(f"unknown column kind {kind!r}") from None
        if dtype.kind not in "biuf":
            raise ValueError(f"unknown column kind {kind!r}")
        out = np.frombuffer(data, dtype=dtype)
    if out.shape[0] != n:
        raise ValueError(f"expected {n} values, found {out.shape[0]}")
    return out


class StateStore:
    """Writer/reader of one session file (see the module docstring for the guarantees)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._version: int | None = None
        self._stale: str | None = None

    # -- connections -------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        """A connection to the existing file (never creates one)."""
        uri = "file:" + quote(str(self.path.resolve())) + "?mode=rw"
        try:
            con = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT, isolation_level=None)
            con.execute("PRAGMA synchronous=FULL")
        except sqlite3.Error as err:
            raise self._file_error(err) from None
        return con

    def _file_error(self, err: BaseException) -> SessionFileError:
        p = str(self.path)
        if not self.path.exists():
            return SessionFileError(f"The session file {p!r} does not exist.")
        parent = self.path.parent if str(self.path.parent) else Path(".")
        if not (os.access(self.path, os.R_OK | os.W_OK) and os.access(parent, os.W_OK)):
            return SessionFileError(
                f"The session file {p!r} (or its directory) is not writable by this user; "
                f"a session needs both. Copy it to a writable directory and open the copy.")
        if isinstance(err, sqlite3.OperationalError) and "full" in str(err).lower():
            return SessionFileError(
                f"The disk holding the session file {p!r} is full: nothing of this call was "
                f"written, and the file with every label acknowledged before is intact. Free "
                f"some space and repeat the call (or reopen it with ActiveEvaluator.open).")
        if isinstance(err, sqlite3.OperationalError) and "readonly" in str(err).lower():
            return SessionFileError(
                f"The session file {p!r} cannot be written (permission denied or a read-only "
                f"file system); its labels are intact. Make it writable, or copy it to a "
                f"writable directory and open the copy.")
        if isinstance(err, sqlite3.OperationalError) and "locked" in str(err):
            return SessionFileError(
                f"The session file {p!r} stayed locked by another process for more than "
                f"{BUSY_TIMEOUT:g} s; try again when that process has finished writing.")
        return SessionFileError(
            f"The session file {p!r} is damaged or is not an evalstats session "
            f"({type(err).__name__}: {err}). Labels it held may be recoverable with the "
            f"sqlite3 shell (`sqlite3 {p} .recover`); otherwise start a new session "
            f"with ActiveEvaluator(..., path=<new file>).")

    # -- creation ------------------------------------------------------------------------------
    def create(self, pool: Mapping[str, Any] | pd.DataFrame, meta: dict[str, Any]) -> None:
        """Write a new session file atomically (temporary file, then link to ``path``)."""
        path = self.path
        parent = path.parent if str(path.parent) else Path(".")
        if not parent.is_dir():
            raise SessionPathError(
                f"`path` must be a file in an existing directory; got {str(path)!r}, whose "
                f"directory {str(parent)!r} does not exist. Create the directory first.")
        if path.exists():
            raise SessionExistsError(f"`path` must be a new file; got existing file "
                                     f"{str(path)!r}. Resume it with `ActiveEvaluator.open(path)`.")
        self._remove_stale_temporaries(parent)
        tmp = parent / f".{path.name}.creating-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            self._build(tmp, pool, meta)
            self._publish(tmp, path)
        except sqlite3.Error as err:
            tmp.unlink(missing_ok=True)
            raise SessionFileError(f"Cannot write the session file {str(path)!r} "
                                   f"({type(err).__name__}: {err}); nothing was created.") from None
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        self._version = 0

    def _build(self, tmp: Path, pool: Mapping[str, Any] | pd.DataFrame,
               meta: dict[str, Any]) -> None:
        con = sqlite3.connect(tmp, isolation_level=None)
        try:
            # the temporary file is discarded on any failure: no journal needed while building
            con.execute("PRAGMA journal_mode=OFF")
            con.execute("PRAGMA synchronous=OFF")
            con.execute("BEGIN")
            con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
            con.execute("CREATE TABLE pool (name TEXT, chunk INTEGER, kind TEXT, n INTEGER, "
                        "crc INTEGER, data BLOB, PRIMARY KEY (name, chunk))")
            con.execute("CREATE TABLE draws (seq INTEGER PRIMARY KEY, idx INTEGER, q REAL, "
                        "batch INTEGER)")
            con.execute("CREATE TABLE labels (idx INTEGER PRIMARY KEY, label REAL)")
            columns, n_pool = [], None
            for name in pool:
                kind, data = _encode_column(pool[name])
                n = int(np.shape(pool[name])[0])
                n_pool = n if n_pool is None else n_pool
                columns.append([str(name), kind])
                view = memoryview(data)
                for c, start in enumerate(range(0, max(view.nbytes, 1), CHUNK_BYTES)):
                    block = view[start:start + CHUNK_BYTES]
                    cur = con.execute("INSERT INTO pool VALUES (?, ?, ?, ?, ?, zeroblob(?))",
                                      (str(name), c, kind, n, zlib.crc32(block), block.nbytes))
                    # write in place, in slices: SQLite never holds a second full copy
                    with con.blobopen("pool", "data", cur.lastrowid) as blob:
                        for k in range(0, block.nbytes, 1 << 23):
                            blob.write(block[k:k + (1 << 23)])
            full = dict(meta, format=FORMAT, version=0, pool_columns=columns,
                        pool_size=n_pool, created_with=_package_version())
            con.executemany("INSERT INTO meta (key, value) VALUES (?, ?)",
                            [(k, json.dumps(v)) for k, v in full.items()])
            con.execute("COMMIT")
        finally:
            con.close()
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    @staticmethod
    def _publish(tmp: Path, path: Path) -> None:
        """Give the finished file its name without ever replacing an existing file."""
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise SessionExistsError(f"`path` must be a new file; got {str(path)!r}, created by "
                                     "another process meanwhile.") from None
        except OSError:                      # no hard links on this file system
            if path.exists():
                raise SessionExistsError(f"`path` must be a new file; got existing file "
                                         f"{str(path)!r}.") from None
            os.replace(tmp, path)
        tmp.unlink(missing_ok=True)
        try:
            dfd = os.open(path.parent if str(path.parent) else ".", os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except OSError:                      # directories cannot be synced everywhere
            pass

    def _remove_stale_temporaries(self, parent: Path) -> None:
        """Delete temporary files of creations whose process no longer exists."""
        for tmp in parent.glob(f".{self.path.name}.creating-*"):
            try:
                pid = int(tmp.name.rsplit(".creating-", 1)[1].split("-")[0])
                if pid == os.getpid():
                    continue                     # this process's own creation
                os.kill(pid, 0)                  # raises if no such process
                continue
            except ProcessLookupError:
                pass
            except (ValueError, IndexError, OSError):
                continue
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass

    # -- writes --------------------------------------------------------------------------------
    def append(self, *, draws: list[tuple] = (), labels: list[tuple] = (),
               meta: dict[str, Any] | None = None) -> None:
        """Add draws ``(seq, idx, q, batch)``, labels ``(idx, label)`` and meta atomically.

        Refused with :class:`SessionConflictError` (nothing written) when the file was
        changed by another writer since this store last read or wrote it.
        """
        if self._stale:
            raise SessionConflictError(self._stale)
        con = self._connect()
        try:
            try:
                con.execute("BEGIN IMMEDIATE")
                row = con.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
                found = json.loads(row[0]) if row else 0
                if self._version is not None and found != self._version:
                    con.execute("ROLLBACK")
                    self._stale = (
                        f"The session file {str(self.path)!r} was changed by another evaluator "
                        f"or process since this one read it (write {found} on file, "
                        f"{self._version} here); nothing was written. Reopen it with "
                        f"ActiveEvaluator.open(path) and repeat the call: every label "
                        f"recorded in the file is kept.")
                    raise SessionConflictError(self._stale)
                if draws:
                    con.executemany("INSERT INTO draws VALUES (?, ?, ?, ?)", draws)
                if labels:
                    con.executemany("INSERT OR REPLACE INTO labels VALUES (?, ?)", labels)
                version = int(found) + 1
                con.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                                [(k, json.dumps(v)) for k, v in
                                 dict(meta or {}, version=version).items()])
                con.execute("COMMIT")
            except sqlite3.IntegrityError:
                con.execute("ROLLBACK")
                self._stale = (f"The session file {str(self.path)!r} already holds draws this "
                               f"evaluator was about to write (another writer); nothing was "
                               f"written. Reopen it with ActiveEvaluator.open(path).")
                raise SessionConflictError(self._stale) from None
            except sqlite3.Error as err:
                if con.in_transaction:
                    con.execute("ROLLBACK")
                raise self._file_error(err) from None
            self._version = version
        finally:
            con.close()

    # -- reads ---------------------------------------------------------------------------------
    def _check_header(self) -> None:
        p = self.path
        if not p.exists():
            raise FileNotFoundError(f"`path` must be an existing session file; got {str(p)!r}.")
        if not p.is_file():
            raise SessionFileError(f"`path` must be a session file; got {str(p)!r}, which is "
                                   "not a regular file.")
        with open(p, "rb") as fh:
            head = fh.read(16)
        if head != b"SQLite format 3\x00":
            what = "empty" if not head else "not an SQLite database"
            raise SessionFileError(
                f"The file {str(p)!r} is not an evalstats session file ({what}). A session "
                f"file is written by ActiveEvaluator(..., path=...) or active_evaluate(..., "
                f"path=...); if this one was truncated or overwritten, start a new session.")

    def load(self) -> tuple[dict[str, Any], dict[str, np.ndarray], pd.DataFrame, pd.DataFrame]:
        """``(meta, pool columns, draws, labels)``; refuses damaged or foreign files."""
        self._check_header()
        self._remove_stale_temporaries(self.path.parent if str(self.path.parent) else Path("."))
        con = self._connect()
        try:
            try:
                con.execute("BEGIN")              # one consistent snapshot
                tables = {r[0] for r in con.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'")}
                if not _TABLES <= tables:
                    raise SessionFileError(
                        f"The file {str(self.path)!r} is an SQLite database but not an "
                        f"evalstats session (it lacks the table(s) "
                        f"{', '.join(sorted(_TABLES - tables))}).")
                meta = {k: json.loads(v) for k, v in con.execute("SELECT key, value FROM meta")}
                fmt = meta.get("format")
                if fmt != FORMAT and fmt not in LEGACY_FORMATS:
                    raise SessionFileError(
                        f"The file {str(self.path)!r} is not an evalstats session of a format "
                        f"this version reads (format {fmt!r}; expected {FORMAT!r}). It was "
                        f"written by evalstats {meta.get('created_with', 'unknown')}.")
                pool = self._read_pool(con, meta) if fmt == FORMAT else {
                    c: d.to_numpy() for c, d in pd.read_sql("SELECT * FROM pool", con).items()}
                draws = pd.read_sql("SELECT * FROM draws ORDER BY seq", con)
                labels = pd.read_sql("SELECT * FROM labels", con)
                con.execute("COMMIT")
            except (sqlite3.Error, pd.errors.DatabaseError, json.JSONDecodeError,
                    KeyError, UnicodeDecodeError) as err:
                raise self._file_error(err) from None
        finally:
            con.close()
        missing = [k for k in ("config", "model_names", "rng_state", "rng_kind", "batch")
                   if k not in meta]
        if "rng_kind" in meta and meta["rng_kind"] not in _BIT_GENERATORS:
            missing.append("known random generator")
        if missing:
            raise SessionFileError(f"The session file {str(self.path)!r} is incomplete (no "
                                   f"{', '.join(missing)}); start a new session.")
        self._version = int(meta.get("version", 0))
        return meta, pool, draws, labels

    def _read_pool(self, con: sqlite3.Connection, meta: dict) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        n_pool = int(meta["pool_size"])
        for name, kind in meta["pool_columns"]:
            rows = con.execute("SELECT chunk, kind, n, crc, data FROM pool WHERE name = ? "
                               "ORDER BY chunk", (name,)).fetchall()
            if not rows or [r[0] for r in rows] != list(range(len(rows))):
                raise SessionFileError(f"The session file {str(self.path)!r} is damaged: the "
                                       f"pool column {name!r} is missing or incomplete.")
            bad = [r[0] for r in rows if zlib.crc32(r[4]) != r[3]]
            if bad:
                raise SessionFileError(f"The session file {str(self.path)!r} is damaged: block "
                                       f"{bad[0]} of pool column {name!r} fails its checksum.")
            data = rows[0][4] if len(rows) == 1 else b"".join(r[4] for r in rows)
            try:
                out[name] = _decode_column(kind, data, n_pool)
            except ValueError as err:
                raise SessionFileError(f"The session file {str(self.path)!r} is damaged: pool "
                                       f"column {name!r}: {err}.") from None
        return out
