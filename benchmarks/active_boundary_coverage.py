"""Coverage of the default active interval where the truth is on the boundary.

Three pools, the default design and estimator (πps, adaptive, calibrated), 200 seeds per
pool and budget (``--reps``), truth exactly 1:

* ``sim_pool precision=1`` — the bundled ``sim_pool`` with every predicted positive made a
  positive (no false positive; the scores still expect some);
* ``sim_pool perfect accuracy`` — labels equal to the predictions (zero errors);
* ``rare pool precision=1`` — 20,000 items, 15 positives, none predicted wrongly positive
  (``tests/_models.py``).

    python benchmarks/active_boundary_coverage.py            # writes
    benchmarks/results/active_boundary_coverage.csv
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import evalstats as es
from evalstats.active import active_evaluate

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))


def main(argv=None) -> int:
    from _models import rare_pool_without_false_positives

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    pool = es.datasets.load("sim_pool")
    pred, p = pool["pred"].to_numpy(), pool["prob"].to_numpy()
    s_r, y_r, f_r = rare_pool_without_false_positives(20_000)
    cases = {"sim_pool precision=1": (p, np.where(pred == 1, 1, pool["label"].to_numpy()),
                                      pred, "precision"),
             "sim_pool perfect accuracy": (p, pred, pred, "accuracy"),
             "rare pool precision=1": (s_r, y_r, f_r, "precision")}
    rows = []
    for name, (s, y, f, m) in cases.items():
        for n in (200, 500):
            hits, widths = 0, []
            for seed in range(args.reps):
                r = active_evaluate(s, lambda i, y=y: y[i], n, m, predictions=f, rng=seed)
                lo, hi = r.conf_int()
                hits += lo <= 1.0 <= hi
                widths.append(hi - lo)
            c = hits / args.reps
            rows.append(dict(pool=name, measure=m, n_labels=n, reps=args.reps, coverage=c,
                             coverage_se=float(np.sqrt(c * (1 - c) / args.reps)),
                             mean_width=float(np.mean(widths)), version=es.__version__))
            print(f"{name:28s} n={n}: coverage {c:.3f} (SE {rows[-1]['coverage_se']:.3f}), "
                  f"mean width {rows[-1]['mean_width']:.4f}", flush=True)
    out = HERE / "results" / "active_boundary_coverage.csv"
    pd.DataFrame(rows).to_csv(out, index=False)
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
