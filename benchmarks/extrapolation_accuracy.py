"""Benchmark: RMSE of extrapolated accuracy at k2 = 2, 4, 10 x k1, every method.

Settings
--------
* ``sim-sigma*``: the Gaussian 1-NN model of ``data/make_datasets.py`` (class centres
  N(0, I_10), one training point and 3 test points per class, x | y ~ N(mu_y, sigma^2 I)),
  k1 = 100 classes per repetition; truth = E[U^(k-1)] by that file's ``_nn_truth``
  (400,000 Monte-Carlo draws, s.e. < 0.002).
* ``omniglot-k24``: pixel 1-NN on Omniglot (gallery drawers 1-5, queries 6-20); each
  repetition fits on 24 random classes of the 242 and predicts the full-data unbiased
  ATA at k2 = 48, 96, 240 (the truth for this population of 242 classes).

Run ``python benchmarks/extrapolation_accuracy.py`` (100 repetitions; ``--quick`` = 10).
Writes ``benchmarks/results/extrapolation_accuracy.csv`` (one row per setting, method, k2:
RMSE, its Monte-Carlo s.e., bias, mean seconds per fit) and prints the table. Rows are
appended as each setting finishes.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import evalstats as es
from evalstats.extrapolate import METHOD_NAMES, average_accuracy, extrapolate_accuracy
from evalstats.extrapolate.scores import omniglot_scores

ROOT = Path(__file__).resolve().parents[1]
POLY_DEGREES = (3, 6, 12, 24)   # the old grid, for the plain polynomial-in-u variant
OUT = ROOT / "benchmarks" / "results" / "extrapolation_accuracy.csv"
RATIOS = (2, 4, 10)
# extra variants (--methods polynomial-u): the plain polynomial in u of the 2016 drafts
VARIANTS = {"polynomial-u": dict(method="polynomial",
                                 degree=[(d, 1.0) for d in POLY_DEGREES])}


def _make_datasets():
    spec = importlib.util.spec_from_file_location("make_datasets", ROOT / "data" /
                                                  "make_datasets.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _no_truth(sigma, d, ks, rng, n_mc=0):
    """Stand-in for the per-dataset truth curve of make_sim_multiclass (computed once per
    setting instead); it runs after the scores are drawn, so the scores are unchanged."""
    return np.full(len(ks), np.nan)


def sim_setting(sigma: float, k1: int, reps: int, seed: int):
    md = _make_datasets()
    ks = np.array([r * k1 for r in RATIOS])
    truth = md._nn_truth(sigma, 10, ks, np.random.default_rng(seed), n_mc=400_000)
    md._nn_truth = _no_truth
    for rep in range(reps):
        df, _, _ = md.make_sim_multiclass(seed=seed + 1 + rep, k1=k1, sigma=sigma)
        yield df.drop(columns="label").to_numpy(float), df["label"].to_numpy(), ks, truth


def omniglot_setting(k1: int, reps: int, seed: int):
    data = es.datasets.load("omniglot")
    scores, y = omniglot_scores(data)
    ks = np.array([min(r * k1, scores.shape[1]) for r in RATIOS])
    truth = average_accuracy(scores, y, ks)
    g = np.random.default_rng(seed)
    for _ in range(reps):
        cls = np.sort(g.choice(scores.shape[1], k1, replace=False))
        rows = np.isin(y, cls)
        yield scores[np.ix_(rows, cls)], np.searchsorted(cls, y[rows]), ks, truth


def run_setting(name, gen, methods):
    errs = {m: [] for m in methods}
    secs = {m: [] for m in methods}
    for i, (s, y, ks, truth) in enumerate(gen):
        for m in methods:
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    fit = extrapolate_accuracy(s, y, k_target=list(ks), rng=i, **VARIANTS.get(
                        m, dict(method=m)))
                    pred = fit.predict(ks).accuracy.to_numpy()
                except Exception as err:  # a failed fit counts, as the worst possible error
                    print(f"  {name} rep {i} {m}: {err}", file=sys.stderr)
                    pred = np.where(truth > 0.5, 0.0, 1.0)
            secs[m].append(time.perf_counter() - t0)
            errs[m].append(pred - truth)
    rows = []
    for m in methods:
        e = np.array(errs[m])
        for j, k2 in enumerate(ks):
            sq = e[:, j] ** 2
            rmse = float(np.sqrt(sq.mean()))
            rows.append(dict(setting=name, method=m, k1=int(ks[0] // RATIOS[0]), k2=int(k2),
                             reps=len(e), truth=float(truth[j]), rmse=rmse,
                             rmse_se=float(sq.std(ddof=1) / np.sqrt(len(sq)) / (2 * rmse)),
                             bias=float(e[:, j].mean()), sec_per_fit=float(np.mean(secs[m]))))
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10 repetitions")
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--methods", nargs="*", default=list(METHOD_NAMES))
    ap.add_argument("--settings", nargs="*", default=None)
    ap.add_argument("--merge", action="store_true",
                    help="replace only the (setting, method) rows run now in the existing CSV")
    ap.add_argument("--table", action="store_true", help="only print the table of the CSV")
    args = ap.parse_args(argv)
    if args.table:
        print_overall(pd.read_csv(OUT))
        return 0
    reps = args.reps or (10 if args.quick else 100)
    settings = {
        "sim-sigma0.4": lambda: sim_setting(0.4, 100, reps, 1000),
        "sim-sigma0.6": lambda: sim_setting(0.6, 100, reps, 2000),
        "sim-sigma0.9": lambda: sim_setting(0.9, 100, reps, 3000),
    }
    if es.datasets.find_shared_datasets() is not None:
        settings["omniglot-k24"] = lambda: omniglot_setting(24, reps, 4000)
    else:
        print("Omniglot not found (../shared/datasets): skipping that setting.")
    names = args.settings or list(settings)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    tables = []
    if args.merge and OUT.exists():
        old = pd.read_csv(OUT)
        keep = ~(old.setting.isin(names) & old.method.isin(args.methods))
        tables.append(old[keep])
    for name in names:
        t0 = time.time()
        tab = run_setting(name, settings[name](), args.methods)
        tables.append(tab)
        pd.concat(tables).to_csv(OUT, index=False, float_format="%.5g")
        print(f"-- {name}: {time.time() - t0:.0f} s", flush=True)
        print(tab.pivot(index="method", columns="k2", values="rmse").round(4), flush=True)
    full = pd.concat(tables).sort_values(["setting", "method", "k2"])
    full.to_csv(OUT, index=False, float_format="%.5g")
    print("\nRMSE (Monte-Carlo s.e.) by setting, method and k2:")
    full["cell"] = [f"{r:.3f} ({s:.3f})" for r, s in zip(full.rmse, full.rmse_se, strict=True)]
    print(full.pivot(index=["setting", "method"], columns="k2", values="cell").to_string())
    print_overall(full)
    print(f"\nWritten {OUT}")
    return 0


def print_overall(full: pd.DataFrame) -> None:
    """Mean and maximum RMSE over settings and k2 (JMLR ranks by the maximum)."""
    print("\nRMSE over all settings and k2 (lower is better; the default method has the "
          "smallest maximum):")
    agg = full.groupby("method").agg(mean_rmse=("rmse", "mean"), max_rmse=("rmse", "max"),
                                     sec_per_fit=("sec_per_fit", "mean"))
    print(agg.sort_values("max_rmse").round(4).to_string())


if __name__ == "__main__":
    raise SystemExit(main())
