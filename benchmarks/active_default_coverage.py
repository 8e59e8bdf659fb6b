"""Coverage of the default active intervals on many fresh runs, with the misses on each side.

The main benchmark (``active_benchmark.py``) runs every method 200 times; a coverage of
0.91 there (binomial SE 0.02) can be a seed set's bad luck or a real shortfall. This script
runs only the package default (``ActiveEvaluator(design="pps", adaptive=True)``, batches
of 100, driven as in the main benchmark) on the pools named, ``--reps`` times from fresh
seeds, optionally at other values of the uniform share ``epsilon``, and reports per pool,
epsilon, labels (100/200/500/1000) and measure: coverage with its binomial SE, the share of
intervals wholly below and wholly above the truth, RMSE and mean width. Printed and
written (``results/active_default_coverage.csv``, raw rows in ``_raw.csv.gz``).

    python benchmarks/active_default_coverage.py --pools sim_calibrated,sim_overconfident \\
        --reps 1000 --seed 200000                                   # ~6 min, 1 core
    python benchmarks/active_default_coverage.py --pools tweets_rare,sim_overconfident \\
        --epsilon 0.1,0.03 --reps 200                              # the epsilon probe
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from active_benchmark import RESULTS, _prefix_run, load_pools, truth


def run(pool: dict, epsilon: float, reps: int, seed: int) -> pd.DataFrame:
    """Raw rows of ``reps`` runs of the default on ``pool`` with ``epsilon``."""
    seeds = np.random.SeedSequence(seed).spawn(reps)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(reps):
            rows += _prefix_run(pool, r, seeds[r], design="pps", adaptive=True,
                                epsilon=epsilon)
    return pd.DataFrame(rows)


def summarise(raw: pd.DataFrame, truths: dict) -> pd.DataFrame:
    """Coverage (binomial SE), misses below / above, RMSE and mean width per cell."""
    raw = raw.assign(truth=[truths[p][m] for p, m in zip(raw.pool, raw.measure, strict=True)])
    tol = 1e-12
    raw["below"] = raw.conf_high < raw.truth - tol       # the interval wholly below
    raw["above"] = raw.conf_low > raw.truth + tol
    raw["covered"] = ~(raw.below | raw.above) & raw.conf_low.notna() & raw.conf_high.notna()
    raw["err2"] = (raw.estimate - raw.truth) ** 2
    raw["width"] = raw.conf_high - raw.conf_low
    g = raw.groupby(["pool", "epsilon", "budget", "measure"])
    out = g.agg(reps=("rep", "nunique"), truth=("truth", "first"), coverage=("covered", "mean"),
                miss_below=("below", "mean"), miss_above=("above", "mean"),
                rmse=("err2", lambda x: float(np.sqrt(x.mean()))),
                mean_width=("width", "mean")).reset_index()
    out["coverage_se"] = np.sqrt(out.coverage * (1 - out.coverage) / out.reps)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pools", default="sim_calibrated,sim_overconfident")
    ap.add_argument("--epsilon", default="0.1", help="comma-separated values")
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=200000)
    ap.add_argument("--out", default="active_default_coverage.csv",
                    help="CSV name in benchmarks/results/")
    args = ap.parse_args()
    pools = load_pools(args.pools.split(","))
    if not pools:
        print(f"none of the pools {args.pools} could be built (datasets missing); nothing run")
        return 1
    raws, truths = [], {}
    for name, pool in pools.items():
        truths[name] = truth(pool)
        for eps in (float(e) for e in args.epsilon.split(",")):
            t0 = time.perf_counter()
            raws.append(run(pool, eps, args.reps, args.seed).assign(pool=name, epsilon=eps))
            print(f"{name} epsilon={eps}: {args.reps} runs in {time.perf_counter() - t0:.0f} s",
                  flush=True)
    raw = pd.concat(raws, ignore_index=True)
    table = summarise(raw, truths)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / args.out
    table.to_csv(out, index=False)
    raw.to_csv(out.with_name(out.stem + "_raw.csv.gz"), index=False)
    print(table.round(4).to_string(index=False))
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
