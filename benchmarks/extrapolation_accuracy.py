"""Benchmark: accuracy extrapolation to k2 = 2, 4, 10 x k1 -- RMSE, bias, band coverage, speed.

Settings
--------
* ``sim-d{d}-s{sigma}`` (six): the Gaussian 1-NN model of ``data/make_datasets.py`` (class
  centres N(0, I_d), one training point and 3 test points per class,
  x | y ~ N(mu_y, sigma^2 I)), k1 = 100 classes per repetition; the truth E[U^(k-1)] by that
  file's ``_nn_truth`` (200,000 Monte-Carlo draws, s.e. < 0.002), d = 4, 10 and 30.
* ``omniglot-k24``: pixel 1-NN on Omniglot (gallery drawers 1-5, queries 6-20); each
  repetition fits on 24 random classes of the 242 and predicts the full-data unbiased ATA
  at k2 = 48, 96, 240 (the truth for this population of 242 classes).
* ``letter-k6``: 1-NN on UCI letter (3 random gallery images per letter, 30 queries per
  letter, seeded); fit on 6 random letters, predict the 26-letter ATA at k2 = 12, 24, 26.

Every method of ``METHOD_NAMES`` (``pseudolikelihood`` = its default binomial-count form)
plus ``pseudolikelihood-bernoulli`` (the Nov-2016 draft's Bernoulli-gamma_h form); every
fit uses ``n_subsamples`` class subsamples (``--n-subsamples``, default 10 to fit a shared
2-core machine; the package default is 40). A fit that raises counts as the
worst possible error and is listed in the column ``errors``.

Run ``python benchmarks/extrapolation_accuracy.py --reps 10`` (``--quick`` = 3 reps).
Writes ``benchmarks/results/extrapolation_accuracy.csv`` (one row per setting, method, k2:
reps, truth, RMSE with its Monte-Carlo s.e., bias, coverage of the 95 % band with its
binomial s.e., mean band width, seconds per fit, errors) and prints the worst-case RMSE at
the largest ratio per method (the criterion for the default).
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import evalstats as es
from evalstats.extrapolate import METHOD_NAMES, average_accuracy, extrapolate_accuracy
from evalstats.extrapolate.scores import nearest_neighbour_scores, omniglot_scores

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extrapolation_families import letter_split  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "extrapolation_accuracy.csv"
RATIOS = (2, 4, 10)
VARIANTS = {"pseudolikelihood-binomial": dict(method="pseudolikelihood",
                                              likelihood="binomial"),
            "regression-gls": dict(method="regression", curve_weights="gls")}
ALL_METHODS = list(METHOD_NAMES) + list(VARIANTS)
SIMS = {"sim-d10-s0.4": (10, 0.4), "sim-d10-s0.6": (10, 0.6), "sim-d10-s0.9": (10, 0.9),
        "sim-d4-s0.25": (4, 0.25), "sim-d30-s1.1": (30, 1.1), "sim-d30-s1.5": (30, 1.5)}


def _make_datasets():
    spec = importlib.util.spec_from_file_location("make_datasets", ROOT / "data" /
                                                  "make_datasets.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def sim_setting(d: int, sigma: float, k1: int, reps: int, seed: int):
    md = _make_datasets()
    ks = np.array([r * k1 for r in RATIOS])
    truth = md._nn_truth(sigma, d, ks, np.random.default_rng(seed), n_mc=200_000)
    md._nn_truth = lambda s_, d_, ks_, rng_, n_mc=0: np.full(len(ks_), np.nan)  # computed once
    for rep in range(reps):
        df, _, _ = md.make_sim_multiclass(seed=seed + 1 + rep, k1=k1, sigma=sigma, d=d)
        yield df.drop(columns="label").to_numpy(float), df["label"].to_numpy(), ks, truth


def subset_setting(scores, y, k1: int, ks, reps: int, seed: int):
    truth = average_accuracy(scores, y, ks)
    g = np.random.default_rng(seed)
    for _ in range(reps):
        cls = np.sort(g.choice(scores.shape[1], k1, replace=False))
        rows = np.isin(y, cls)
        yield scores[np.ix_(rows, cls)], np.searchsorted(cls, y[rows]), ks, truth


def omniglot_setting(reps: int, seed: int):
    scores, y = omniglot_scores(es.datasets.load("omniglot"))
    ks = np.array([min(r * 24, scores.shape[1]) for r in RATIOS])
    return subset_setting(scores, y, 24, ks, reps, seed)


def letter_setting(reps: int, seed: int):
    X, y_all, gal, qry = letter_split(es.datasets.load("letter"), 3, 30, seed)
    scores = nearest_neighbour_scores(X[gal], y_all[gal], X[qry], 26)
    return subset_setting(scores, y_all[qry], 6, np.array([12, 24, 26]), reps, seed + 1)


def run_setting(name, gen, methods, n_sub, level=0.95):
    rec = {m: dict(err=[], cov=[], width=[], sec=[], errors=0) for m in methods}
    ks = truth = None
    for i, (s, y, ks, truth) in enumerate(gen):
        for m in methods:
            r = rec[m]
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    fit = extrapolate_accuracy(s, y, k_target=list(ks), rng=i,
                                               n_subsamples=n_sub, confidence_level=level,
                                               **VARIANTS.get(m, dict(method=m)))
                    pr = fit.predict(ks)
                    pred, lo, hi = (pr.accuracy.to_numpy(), pr.conf_low.to_numpy(),
                                    pr.conf_high.to_numpy())
                except Exception as err:  # counted as the worst possible error
                    print(f"  {name} rep {i} {m}: {type(err).__name__}: {err}",
                          file=sys.stderr)
                    r["errors"] += 1
                    pred = np.where(truth > 0.5, 0.0, 1.0)
                    lo = hi = pred
            r["sec"].append(time.perf_counter() - t0)
            r["err"].append(pred - truth)
            r["cov"].append((lo <= truth) & (truth <= hi))
            r["width"].append(hi - lo)
    rows = []
    for m in methods:
        r = rec[m]
        e, cov, wid = np.array(r["err"]), np.array(r["cov"]), np.array(r["width"])
        for j, k2 in enumerate(ks):
            sq = e[:, j] ** 2
            rmse = float(np.sqrt(sq.mean()))
            c = float(cov[:, j].mean())
            rows.append(dict(setting=name, method=m, n_subsamples=n_sub,
                             k1=int(round(ks[0] / RATIOS[0])), k2=int(k2), reps=len(e),
                             truth=float(truth[j]), rmse=rmse,
                             rmse_se=float(sq.std(ddof=1) / np.sqrt(len(sq)) / (2 * rmse))
                             if rmse > 0 else 0.0,
                             bias=float(e[:, j].mean()), coverage=c,
                             coverage_se=float(np.sqrt(c * (1 - c) / len(e))),
                             band_width=float(wid[:, j].mean()),
                             sec_per_fit=float(np.mean(r["sec"])), errors=r["errors"]))
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 repetitions")
    ap.add_argument("--reps", type=int, default=None, help="repetitions (default 10)")
    ap.add_argument("--n-subsamples", type=int, default=10)
    ap.add_argument("--methods", nargs="*", default=ALL_METHODS)
    ap.add_argument("--settings", nargs="*", default=None)
    ap.add_argument("--merge", action="store_true",
                    help="replace only the (setting, method) rows run now in the existing CSV")
    ap.add_argument("--table", action="store_true", help="only print the table of the CSV")
    ap.add_argument("--pool", nargs="+", type=Path, default=None, metavar="CSV",
                    help="pool runs on disjoint data sets (e.g. one with --first-rep) into one "
                    "row per cell, merged into --out (replacing those cells)")
    ap.add_argument("--out", type=Path, default=OUT, help=f"CSV to write (default {OUT})")
    ap.add_argument("--first-rep", type=int, default=0,
                    help="skip this many data sets per setting (fresh repetitions for a "
                    "check after tuning; the fits' seeds still count from 0)")
    args = ap.parse_args(argv)
    out = args.out
    if args.table:
        print_overall(pd.read_csv(out))
        return 0
    if args.pool:
        pooled = pool_runs([pd.read_csv(f) for f in args.pool])
        full = pd.read_csv(out) if out.exists() else pooled.iloc[:0]
        cell = ["setting", "method", "n_subsamples"]
        drop = full.set_index(cell).index.isin(pooled.set_index(cell).index)
        full = pd.concat([full[~drop], pooled]).sort_values(cell + ["k2"])
        full.to_csv(out, index=False, float_format="%.5g")
        print_overall(full)
        print(f"\nWritten {out}")
        return 0
    reps = (args.reps or (3 if args.quick else 10)) + args.first_rep
    settings = {name: (lambda d=d, s=s, i=i: sim_setting(d, s, 100, reps, 1000 * (i + 1)))
                for i, (name, (d, s)) in enumerate(SIMS.items())}
    if es.datasets.find_shared_datasets() is not None:
        settings["omniglot-k24"] = lambda: omniglot_setting(reps, 7000)
        settings["letter-k6"] = lambda: letter_setting(reps, 8000)
    else:
        print("Shared datasets not found: skipping omniglot and letter.")
    names = args.settings or list(settings)
    out.parent.mkdir(parents=True, exist_ok=True)
    tables = []
    if args.merge and out.exists():
        old = pd.read_csv(out)
        if "n_subsamples" not in old:
            old["n_subsamples"] = 10
        keep = ~(old.setting.isin(names) & old.method.isin(args.methods)
                 & (old.n_subsamples == args.n_subsamples))
        tables.append(old[keep])
    for name in names:
        t0 = time.time()
        gen = itertools.islice(settings[name](), args.first_rep, None)
        tab = run_setting(name, gen, args.methods, args.n_subsamples)
        tables.append(tab)
        pd.concat(tables).to_csv(out, index=False, float_format="%.5g")
        print(f"-- {name}: {time.time() - t0:.0f} s", flush=True)
        print(tab.pivot(index="method", columns="k2", values="rmse").round(4), flush=True)
    full = pd.concat(tables).sort_values(["setting", "method", "n_subsamples", "k2"])
    full.to_csv(out, index=False, float_format="%.5g")
    print("\nRMSE (Monte-Carlo s.e.) by setting, method and k2:")
    full["cell"] = [f"{r:.3f} ({s:.3f})" for r, s in zip(full.rmse, full.rmse_se, strict=True)]
    print(full.pivot_table(index=["setting", "method", "n_subsamples"], columns="k2",
                           values="cell", aggfunc="first").to_string())
    print_overall(full)
    print(f"\nWritten {out}")
    return 0


def pool_runs(runs: list[pd.DataFrame]) -> pd.DataFrame:
    """One row per (setting, method, n_subsamples, k2) from runs on disjoint data sets:
    MSE, bias, coverage, band width and seconds averaged with weights ``reps``; the s.e. of
    the pooled RMSE by the delta method from the runs' s.e. of their MSEs."""
    cell = ["setting", "method", "n_subsamples", "k2"]
    df = pd.concat([r.assign(n_subsamples=r.get("n_subsamples", 10)) for r in runs])
    df = df.assign(mse=df.rmse ** 2, se_mse=2 * df.rmse * df.rmse_se)
    rows = []
    for key, g in df.groupby(cell, sort=True):
        w = g.reps.to_numpy(float)
        n = w.sum()
        mse = float(np.dot(w, g.mse) / n)
        avg = {c: float(np.dot(w, g[c]) / n) for c in
               ("bias", "coverage", "band_width", "sec_per_fit")}
        rmse = np.sqrt(mse)
        se_mse = float(np.sqrt(np.sum((w * g.se_mse) ** 2)) / n)
        rows.append(dict(zip(cell, key, strict=True), k1=int(g.k1.iloc[0]), reps=int(n),
                         truth=float(g.truth.iloc[0]), rmse=rmse,
                         rmse_se=se_mse / (2 * rmse) if rmse > 0 else 0.0,
                         coverage_se=float(np.sqrt(avg["coverage"] * (1 - avg["coverage"]) / n)),
                         errors=int(g.errors.sum()), **avg))
    cols = ["setting", "method", "k1", "k2", "reps", "truth", "rmse", "rmse_se", "bias",
            "coverage", "coverage_se", "band_width", "sec_per_fit", "errors", "n_subsamples"]
    return pd.DataFrame(rows)[cols]


def print_overall(full: pd.DataFrame) -> None:
    """Worst-case RMSE at 10 x k1 (the default's criterion; simulations and Omniglot), the
    worst case over every setting and k2, and the band's coverage."""
    full = full.reset_index(drop=True)
    if "n_subsamples" not in full:
        full["n_subsamples"] = 10
    key = ["method", "n_subsamples"]
    ten = full[full.k2 == 10 * full.k1]
    g_all, g_ten = full.groupby(key), ten.groupby(key)
    agg = g_ten.agg(max_rmse_10x=("rmse", "max"), mean_rmse_10x=("rmse", "mean"),
                    min_reps=("reps", "min"))
    agg["worst_setting_10x"] = ten.loc[g_ten.rmse.idxmax(), "setting"].to_numpy()
    agg["max_rmse_all"] = g_all.rmse.max()
    agg["coverage_10x"] = g_ten.coverage.mean()
    agg["coverage_min"] = g_all.coverage.min()
    agg["width_10x"] = g_ten.band_width.mean()
    agg["width_over_rmse_10x"] = (ten.band_width / ten.rmse).groupby(
        [ten.method, ten.n_subsamples]).mean()
    agg["sec_per_fit"] = g_all.sec_per_fit.mean()
    first = full.k2 == full.groupby("setting").k2.transform("min")
    agg["errors"] = full[first].groupby(key).errors.sum()
    print("\nWorst-case RMSE at k2 = 10 x k1 (the criterion for the default), worst case over "
          "all settings and k2, 95 % band coverage, seconds per fit, fits that raised:")
    print(agg.sort_values("max_rmse_10x").round(4).to_string())


if __name__ == "__main__":
    raise SystemExit(main())
