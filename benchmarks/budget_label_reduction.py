"""Benchmark for evalstats.budget (Valizadegan et al., SDM 2012, Section 5).

1. Label reduction of guided vs random sampling at equal error: labels needed until the
   mean |precision error| over 100 random rules falls to a target, for guided retrieval
   (decision tree, 100 seeds, 5 per round) with three estimators, vs random labels with
   the subset estimator (the paper's baseline; it reports ~95 % reduction on covtype).
   ``random/plugin`` (random labels, plug-in means with the prevalence known) separates
   the effect of knowing the prevalence from that of the sampling scheme. Guided samples
   start with 100 random seed labels, so they cannot need fewer than 100.
2. Bound tightness: positives actually needed (plug-in means, prevalence known) so that
   95 % of random rules are within ±h, vs what each bound's plan asks for (ratio, and
   excess labels; the ratio is NaN when no label is needed).

Run:  python benchmarks/budget_label_reduction.py [--quick]
Writes benchmarks/results/budget_label_reduction.csv and budget_bound_tightness.csv.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from evalstats import datasets
from evalstats._parallel import map_replicates
from evalstats.budget import guided_sample, plan_labels
from evalstats.budget.simulation import (
    empirical_positives_needed,
    error_curve,
    labels_to_reach,
    random_rules,
)

RESULTS = Path(__file__).resolve().parent / "results"


def load_pools(quick: bool):
    """Rare-positive pools from ../shared/datasets (connect-4 draw, letter 'A' vs rest)."""
    if datasets.find_shared_datasets() is None:
        raise SystemExit("../shared/datasets not found: this benchmark needs connect4/letter.")
    df = datasets.load("connect4")
    pools = {"connect4-draw": (pd.get_dummies(df.drop(columns="class")).to_numpy(np.float32),
                               (df["class"] == "draw").to_numpy().astype(int))}
    if not quick:
        lt = datasets.load("letter")
        pools["letter-A"] = (lt.drop(columns="letter").to_numpy(np.float32),
                             (lt["letter"] == "A").to_numpy().astype(int))
    return pools


class _Sampler:
    """Picklable task for map_replicates: one guided (or random) sample per seed."""

    def __init__(self, X, y, n_labels, strategy):
        self.X, self.y, self.n_labels, self.strategy = X, y, n_labels, strategy

    def __call__(self, i, gen):
        return guided_sample(self.X, self.y, self.n_labels, strategy=self.strategy,
                             n_seed=100, batch_size=5, rng=gen)


def reduction_rows(name, X, y, args, rng):
    n_pool = len(y)
    guided = map_replicates(_Sampler(X, y, args.n_labels, "guided"), args.seeds, rng=rng,
                            n_jobs=args.n_jobs, desc="guided")
    rnd = map_replicates(_Sampler(X, y, args.n_random, "random"), args.seeds, rng=rng,
                         n_jobs=args.n_jobs, desc="random")
    grid_g = np.unique(np.linspace(100, args.n_labels, 39).astype(int))
    grid_r = np.unique(np.geomspace(50, args.n_random, 40).astype(int))
    rows = []
    for rate in args.rates:
        rules = random_rules(n_pool, int(rate * n_pool), args.rules, rng)
        curves = {}
        for s in range(args.seeds):
            for est in ("subset", "blind", "plugin"):
                curves.setdefault(f"guided/{est}", []).append(
                    error_curve(y, rules, guided[s].indices, grid_g, est, rng))
            for est in ("subset", "plugin"):
                curves.setdefault(f"random/{est}", []).append(
                    error_curve(y, rules, rnd[s].indices, grid_r, est, rng))
        avg = {k: pd.concat(v).groupby(["measure", "n_labels"], as_index=False)["mean_error"]
               .mean() for k, v in curves.items()}
        for target in args.targets:
            n_r = labels_to_reach(avg["random/subset"], "precision", target)
            for scheme in ("guided/subset", "guided/blind", "guided/plugin", "random/plugin"):
                n_g = labels_to_reach(avg[scheme], "precision", target)
                rows.append(dict(dataset=name, prevalence=y.mean(), rule_rate=rate,
                                 target_error=target, scheme=scheme, labels_guided=n_g,
                                 labels_random=n_r, reduction=1 - n_g / n_r,
                                 positives_found=np.mean([g.labels.sum() for g in guided])))
    return rows


def tightness_rows(name, y, args, rng):
    rows = []
    n_pos = int(y.sum())
    grid = np.unique(np.linspace(0, n_pos, 400 if not args.quick else 100).astype(int))
    for rate in args.rates:
        for h in args.half_widths:
            t0 = time.perf_counter()
            need = empirical_positives_needed(y, rate, "precision", h, 0.95, 2 * args.rules,
                                              grid, rng)
            for variance in ("hypergeometric", "paper"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    plan = plan_labels(len(y), y.mean(), rate, half_width=h,
                                       measures=("precision",), variance=variance)
                tab = plan.table[plan.table["strategy"] == "positives"]
                for rec in tab.to_dict("records"):
                    rows.append(dict(dataset=name, rule_rate=rate, half_width=h,
                                     variance=variance, bound=rec["bound"],
                                     plan_positives=rec["n_positive"],
                                     needed_positives=need,
                                     excess_positives=rec["n_positive"] - need,
                                     tightness_ratio=rec["n_positive"] / need if need else
                                     float("nan"),
                                     seconds=time.perf_counter() - t0))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small run (one pool, one seed)")
    ap.add_argument("--n-jobs", type=int, default=None,
                    help="joblib workers for the sampling seeds (results do not depend on it)")
    args = ap.parse_args(argv)
    q = args.quick
    args.seeds = 1 if q else 3
    args.rules = 30 if q else 100
    args.n_labels = 600 if q else 2000
    args.n_random = 4000 if q else 12000
    args.rates = (0.05, 0.15) if q else (0.05, 0.10, 0.15, 0.20, 0.30)
    args.targets = (0.05, 0.025)
    args.half_widths = (0.005, 0.0025)
    rng = np.random.default_rng(2012)
    red, tight = [], []
    for name, (X, y) in load_pools(q).items():
        t0 = time.perf_counter()
        red += reduction_rows(name, X, y, args, rng)
        tight += tightness_rows(name, y, args, rng)
        print(f"{name}: {time.perf_counter() - t0:.0f} s")
    red, tight = pd.DataFrame(red), pd.DataFrame(tight)
    RESULTS.mkdir(exist_ok=True)
    red.to_csv(RESULTS / "budget_label_reduction.csv", index=False)
    tight.to_csv(RESULTS / "budget_bound_tightness.csv", index=False)
    pd.set_option("display.width", 160)
    print("\nLabel reduction at equal mean precision error (guided vs random/subset)")
    print(red.round(4).to_string(index=False))
    print("\nBound tightness: plan positives / positives actually needed (95% of rules)")
    print(tight.drop(columns="seconds").round(3).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
