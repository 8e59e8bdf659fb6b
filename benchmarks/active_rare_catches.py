"""Where F1's error comes from on a pool with a handful of true positives: default vs OASIS.

On a pool whose true positives can be counted on one hand (``tweets_rare``: 4 among 2,440
predicted positives, 5 positives in 9,956 items), F1 ≈ 2·TP / (TP + #predicted positives +
#positives) and its error is set by how many of those few items the labels catch and by
the weight each catch gets. For the package default (``design="pps"``, adaptive, batches of
100) and adaptive OASIS (``OASISSampler``, as in ``active_benchmark.py``) each repetition
records, at 500 and 1,000 distinct labels, which true positives and false negatives were
labeled, how many labels went to predicted positives, and the F1 estimate. Printed and
written (``results/active_rare_catches.csv``, raw rows in ``_raw.csv``):

* per (method, labels): how often each true positive was caught, mean catches, labels on
  predicted positives, F1 RMSE;
* per (method, labels, catches): runs, mean and s.d. of the estimate, and that outcome's
  share of the mean squared error.

Same seeds for both methods are *not* paired draws (each method has its own random
stream); the run-to-run s.e. of a mean catch count of ~0.9 over 400 runs is ~0.04.

    python benchmarks/active_rare_catches.py --reps 400 --seed 50000      # ~4 min, 1 core
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from active_benchmark import RESULTS, ActiveEvaluator, import_oasis, load_pools, oasis_sampler
from active_benchmark import truth as pool_truth

BUDGETS = (500, 1000)


def one_run(pool: dict, method: str, seed: int) -> list[dict]:
    """The labeled set and F1 estimate of one run of ``method`` at each of :data:`BUDGETS`."""
    f, y = pool["pred"], pool["label"]
    tp = np.flatnonzero((f == 1) & (y == 1))
    fn = np.flatnonzero((f == 0) & (y == 1))
    if method == "oasis":
        smp = oasis_sampler(pool, "oasis", seed)
    else:
        ev = ActiveEvaluator(pool["scores"], "f1", predictions=f, rng=seed, design="pps",
                             adaptive=True)
    rows, done = [], 0
    for b in BUDGETS:
        if method == "oasis":
            smp.sample_distinct(b - done)
            done = b
            lab, est = np.flatnonzero(~np.isnan(smp.cached_labels_)), float(smp.estimate_[-1])
        else:
            while ev.n_labels < b:
                ids = ev.query(min(100, b - ev.n_labels))
                ev.update(ids, y[ids])
            lab, est = np.fromiter(ev._labels, dtype=int), float(ev.result().estimate)
        caught = np.isin(tp, lab)
        rows.append(dict(method=method, budget=b, estimate=est, n_labels=len(lab),
                         on_predicted_positive=int(f[lab].sum()),
                         catches=int(caught.sum()), fn_caught=int(np.isin(fn, lab).sum()),
                         **{f"tp{j}": int(c) for j, c in enumerate(caught)}))
    return rows


def tables(raw: pd.DataFrame, f1: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per method and labels, per method, labels and catch count)."""
    raw = raw.assign(err2=(raw["estimate"] - f1) ** 2)
    tp_cols = [c for c in raw.columns if c.startswith("tp")]
    by = raw.groupby(["method", "budget"])
    top = by[tp_cols + ["catches", "on_predicted_positive", "fn_caught"]].mean()
    top["f1_rmse"] = np.sqrt(by["err2"].mean())
    top["reps"] = by.size()
    n = raw.groupby(["method", "budget"])["rep"].transform("size")
    per = raw.assign(mse_share=raw["err2"] / n).groupby(["method", "budget", "catches"]).agg(
        runs=("rep", "size"), mean_estimate=("estimate", "mean"),
        sd_estimate=("estimate", "std"), mse_contribution=("mse_share", "sum"))
    return top.reset_index(), per.reset_index()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--seed", type=int, default=50000)
    ap.add_argument("--pool", default="tweets_rare")
    args = ap.parse_args(argv)
    pools = load_pools([args.pool])
    if args.pool not in pools:
        print(f"pool {args.pool} could not be built (its dataset is missing)")
        return 0
    if not import_oasis():
        return 0
    pool = pools[args.pool]
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in ("pps_adaptive", "oasis"):
            for r in range(args.reps):
                rows += [dict(row, rep=r) for row in one_run(pool, method, args.seed + r)]
    raw = pd.DataFrame(rows)
    f1 = pool_truth(pool)["f1"]
    top, per = tables(raw, f1)
    with pd.option_context("display.width", 200):
        print(f"{args.pool}: F1 = {f1:.5f}, {args.reps} runs per method, seed {args.seed}")
        print(top.round(4).to_string(index=False))
        print(per.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    out = RESULTS / f"active_rare_catches{'' if args.pool == 'tweets_rare' else '_' + args.pool}"
    pd.concat([top.assign(table="by_budget"), per.assign(table="by_catches")]).to_csv(
        f"{out}.csv", index=False)
    raw.to_csv(f"{out}_raw.csv", index=False)
    print(f"wrote {out}.csv and {out}_raw.csv")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
