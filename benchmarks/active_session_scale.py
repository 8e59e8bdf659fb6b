"""Time and memory to create and to reopen a persisted active-estimation session (issue 14, 6).

Target: a session of a 10-million-item pool created and reopened in <= 5 s and <= 500 MB.
The pool is stored as binary column blocks (one SQLite row per column, not per item).

Each phase runs in a fresh interpreter so that its memory is its own:

* ``create``: ``ActiveEvaluator(scores, "f1", rng=1, path=...)`` on uniform scores (the
  user's score array exists before the clock starts);
* ``reopen``: ``ActiveEvaluator.open(path)``;
* ``first batch``: after reopening, ``query(10)`` + ``update`` (builds the proposal; shown
  for context, not part of the target);
* ``result, 5 batches``: four more batches of 200 (labels drawn at random), then
  ``result()``, which replays every batch's design over the pool (its cost grows with the
  number of batches; not part of the target); ``result again``: a second call with no new
  label (the sample is kept).

``peak_mb`` is the peak resident memory of the whole process (``ru_maxrss``: interpreter,
numpy, pandas, evalstats and, for ``create``, the user's scores included), ``added_mb`` the
peak minus the resident memory just before the timed call. ``target_met``: <= 5 s and a
whole-process peak <= 500 MB.

Usage: ``python benchmarks/active_session_scale.py [--quick] [--sizes 1000000,10000000]``
Writes ``benchmarks/results/active_session_scale.csv``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "active_session_scale.csv"

CHILD = r"""
import json, resource, sys, time
import numpy as np
from evalstats.active import ActiveEvaluator

def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

phase, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
out = {}
if phase == "create":
    scores = np.random.default_rng(0).random(n)
    base = rss_mb()
    t = time.perf_counter()
    ev = ActiveEvaluator(scores, "f1", rng=1, path=path)
    out["create"] = (time.perf_counter() - t, rss_mb(), base)
else:
    base = rss_mb()
    t = time.perf_counter()
    ev = ActiveEvaluator.open(path)
    out["reopen"] = (time.perf_counter() - t, rss_mb(), base)
    base = rss_mb()
    t = time.perf_counter()
    ids = ev.query(10)
    ev.update(ids, np.zeros(len(ids)))
    out["first batch"] = (time.perf_counter() - t, rss_mb(), base)
    rng = np.random.default_rng(2)
    for _ in range(4):
        ids = ev.query(200)
        ev.update(ids, (rng.random(len(ids)) < 0.5).astype(float))
    base = rss_mb()
    t = time.perf_counter()
    ev.result()
    out["result, 5 batches"] = (time.perf_counter() - t, rss_mb(), base)
    t = time.perf_counter()
    ev.result()
    out["result again"] = (time.perf_counter() - t, rss_mb(), base)
print(json.dumps(out))
"""


def run_phase(phase: str, n: int, path: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TQDM_DISABLE="1")
    res = subprocess.run([sys.executable, "-c", CHILD, phase, str(n), str(path)],
                         capture_output=True, text=True, env=env, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="100k and 1M items only")
    ap.add_argument("--sizes", default=None, help="comma-separated pool sizes")
    args = ap.parse_args(argv)
    sizes = ([int(s) for s in args.sizes.split(",")] if args.sizes else
             [100_000, 1_000_000] if args.quick else [1_000_000, 10_000_000])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"session_{n}.db"
            got = run_phase("create", n, path)
            size_mb = path.stat().st_size / 2**20
            got.update(run_phase("reopen", n, path))
            for phase, (sec, peak, base) in got.items():
                rows.append(dict(n_pool=n, phase=phase, seconds=round(sec, 3),
                                 peak_mb=round(peak), added_mb=round(peak - base),
                                 file_mb=round(size_mb, 1),
                                 target_met=(sec <= 5 and peak <= 500)
                                 if phase in ("create", "reopen") else None))
            path.unlink()
    df = pd.DataFrame(rows)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(OUT, index=False)
    print(df.to_string(index=False))
    print(f"\nwritten to {OUT.relative_to(ROOT)}")
    return df


if __name__ == "__main__":
    main()
