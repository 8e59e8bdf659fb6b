"""Session state of an :class:`~evalstats.active.ActiveEvaluator` in one SQLite file.

Tables: ``meta`` (key, JSON value: configuration, generator state, batch counter),
``pool`` (identifiers, scores, predictions), ``draws`` (seq, item index, q, batch) and
``labels`` (item index, label). Plain data only — never pickle — so opening somebody
else's session file cannot execute code. Draws are written after every ``query`` and
labels after every ``update``, so a crash loses nothing that was acknowledged.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pandas as pd

FORMAT = "evalstats-active-session/1"


class StateStore:
    """Append-only writer/reader of the session file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path)

    def create(self, pool: pd.DataFrame, meta: dict[str, Any]) -> None:
        con = self._connect()
        try:
            with con:
                con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
                con.execute("CREATE TABLE draws (seq INTEGER PRIMARY KEY, idx INTEGER, q REAL, "
                            "batch INTEGER)")
                con.execute("CREATE TABLE labels (idx INTEGER PRIMARY KEY, label REAL)")
            pool.to_sql("pool", con, index=False)
            self._set_meta(con, dict(meta, format=FORMAT))
        finally:
            con.close()

    @staticmethod
    def _set_meta(con: sqlite3.Connection, meta: dict[str, Any]) -> None:
        with con:
            con.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                            [(k, json.dumps(v)) for k, v in meta.items()])

    def append(self, *, draws: list[tuple] = (), labels: list[tuple] = (),
               meta: dict[str, Any] | None = None) -> None:
        """Add draws ``(seq, idx, q, batch)``, labels ``(idx, label)`` and meta atomically."""
        con = self._connect()
        try:
            with con:
                if draws:
                    con.executemany("INSERT INTO draws VALUES (?, ?, ?, ?)", draws)
                if labels:
                    con.executemany("INSERT OR REPLACE INTO labels VALUES (?, ?)", labels)
                if meta:
                    con.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                                    [(k, json.dumps(v)) for k, v in meta.items()])
        finally:
            con.close()

    def load(self) -> tuple[dict[str, Any], pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        con = self._connect()
        try:
            meta = {k: json.loads(v) for k, v in con.execute("SELECT key, value FROM meta")}
            pool = pd.read_sql("SELECT * FROM pool", con)
            draws = pd.read_sql("SELECT * FROM draws ORDER BY seq", con)
            labels = pd.read_sql("SELECT * FROM labels", con)
        finally:
            con.close()
        return meta, pool, draws, labels
