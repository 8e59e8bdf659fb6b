"""Command-line pieces shared by the benchmark scripts that pool runs."""

from __future__ import annotations

import argparse
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def pooled_runs_parser(doc: str, reps: int, seed: int,
                       combine_help: str) -> argparse.ArgumentParser:
    """A parser with ``--reps``, ``--seed``, ``--out`` and ``--combine RAW ...``."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--reps", type=int, default=reps)
    ap.add_argument("--seed", type=int, default=seed)
    ap.add_argument("--out", default=None, help="results folder (default benchmarks/results)")
    ap.add_argument("--combine", nargs="+", default=None, metavar="RAW", help=combine_help)
    return ap


def output_dir(out: str | None) -> Path:
    """``out`` (created) or ``benchmarks/results``."""
    path = Path(out) if out else RESULTS
    path.mkdir(parents=True, exist_ok=True)
    return path
