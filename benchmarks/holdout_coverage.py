"""Coverage of the fixed-test-set intervals (evalstats.holdout), seeded Monte-Carlo.

Designs
-------
* ``error_ci``: errors ~ Binomial(n, θ) with θ = 0.1 and 0.3; Clopper–Pearson ("exact",
  guaranteed ≥ nominal) and Wilson intervals.
* ``auc_ci``: binormal scores, positives N(μ, 1), negatives N(0, 1), μ = 1 (AUC =
  Φ(1/√2) = 0.7602); DeLong's interval for the AUC.
* ``roc_band``: the same scores; the simultaneous band (Campbell 1994) must contain the
  whole true ROC curve R(x) = Φ(μ + Φ⁻¹(x)) on the band's FPR grid.

Each cell has R replications; coverage is reported with its binomial standard error
sqrt(c(1 − c)/R). Usage: ``python benchmarks/holdout_coverage.py [--quick] [--reps R]``.
Writes ``benchmarks/results/holdout_coverage.csv``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from evalstats import error_ci
from evalstats.holdout import auc_ci

OUT = Path(__file__).with_name("results") / "holdout_coverage.csv"
MU = 1.0
TRUE_AUC = float(stats.norm.cdf(MU / np.sqrt(2)))


def _error_cells(rng, reps, sizes, levels):
    rows = []
    for theta in (0.1, 0.3):
        for n in sizes:
            for level in levels:
                k = rng.binomial(n, theta, size=reps)
                for method in ("exact", "wilson"):
                    hits = 0
                    for ki in k:
                        ci = error_ci(np.zeros(n, int), np.r_[np.ones(ki, int),
                                                               np.zeros(n - ki, int)],
                                      method=method, confidence_level=level).conf_int()
                        hits += ci.low <= theta <= ci.high
                    rows.append(dict(interval=f"error_ci[{method}]", design=f"theta={theta}",
                                     n=n, level=level, reps=reps, covered=hits))
    return rows


def _auc_cells(rng, reps, sizes, levels):
    rows = []
    for n in sizes:
        m_pos, m_neg = n // 2, n - n // 2
        y = np.r_[np.ones(m_pos), np.zeros(m_neg)]
        for level in levels:
            hits_auc = hits_band = 0
            for _ in range(reps):
                s = np.r_[rng.normal(MU, 1, m_pos), rng.normal(0, 1, m_neg)]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = auc_ci(y, s, confidence_level=level)
                lo, hi = res.conf_int()
                hits_auc += lo <= TRUE_AUC <= hi
                band = res.roc_band()
                x = np.clip(band["fpr"].to_numpy(), 1e-12, 1 - 1e-12)
                truth = stats.norm.cdf(MU + stats.norm.ppf(x))
                hits_band += bool(np.all((band["tpr_low"].to_numpy() <= truth + 1e-12)
                                         & (truth <= band["tpr_high"].to_numpy() + 1e-12)))
            rows.append(dict(interval="auc_ci[DeLong]", design=f"binormal mu={MU}", n=n,
                             level=level, reps=reps, covered=hits_auc))
            rows.append(dict(interval="roc_band[Campbell KS, simultaneous]",
                             design=f"binormal mu={MU}", n=n, level=level, reps=reps,
                             covered=hits_band))
    return rows


def main(argv=None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="200 replications, two sizes")
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--seed", type=int, default=20261123)
    args = ap.parse_args(argv)
    reps = args.reps or (200 if args.quick else 1000)
    sizes = (30, 100) if args.quick else (30, 100, 400)
    levels = (0.9, 0.95)
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    rows = _error_cells(rng, reps, sizes, levels) + _auc_cells(rng, reps, sizes, levels)
    df = pd.DataFrame(rows)
    df["coverage"] = df["covered"] / df["reps"]
    df["se"] = np.sqrt(df["coverage"] * (1 - df["coverage"]) / df["reps"])
    df["seed"] = args.seed
    OUT.parent.mkdir(exist_ok=True)
    df.to_csv(OUT, index=False)
    with pd.option_context("display.width", 120, "display.max_rows", 200):
        print(df[["interval", "design", "n", "level", "reps", "coverage", "se"]]
              .to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"\n{time.perf_counter() - t0:.0f} s; written to {OUT}")
    return df


if __name__ == "__main__":
    main()
