"""Coverage and width of CIs for the expected loss θ(g) of a learner (issue 4).

Designs
-------
(a) ``ols``: the source's simulation (Fuchs et al. 2013, simu1.R): p = 3 predictors
    X ~ N(0, 3²), Y ~ N(0, 1) independent of X, OLS without intercept, bounded loss
    atan(r²)·2/π, g = 13, n = 30…60.
(b) ``clf``: classification, X ~ N(0, I₅), P(y = 1 | x) = logistic(x₁ + 0.5 x₂), a
    nearest-class-mean classifier, zero-one loss, g = 10.

The true θ(g) is computed by a large Monte Carlo (reported with its MC s.e.). Each
replication draws a data set and computes: the U-statistic estimate with the log and t
intervals (t quantile with the Satterthwaite df of ``ustat_df``), the log interval with
a normal quantile, the t interval with n − 1 df and the plain normal interval
(``n_draws`` draws, fixed N — the stopping rule is not used here so
that every replication has the same cost); the naive repeated-subsampling t and the
Nadeau–Bengio corrected t on J = 15 splits of the same learning-set size g. A
replication whose V̂ stayed ≤ 0 uses the library's conservative fallback and is
counted as it comes out (never dropped). Coverage is reported with its binomial s.e.

Also measures model fits per second of ``cv_error_ci`` and the speed-up with n_jobs=2.

Usage: ``python benchmarks/cv_coverage.py [--quick] [--reps R] [--draws N] [--jobs J]``
Writes ``benchmarks/results/cv_coverage.csv`` (summary), ``cv_coverage_raw.csv``
(per replication) and ``cv_speed.csv``. With ``--mc-tol 0.1 --n 60`` the U-statistic
uses the stopping rule with that tolerance (files ``cv_coverage_stop*.csv``; another
tolerance, e.g. ``--mc-tol 0.25``, writes ``cv_coverage*_stop_tol0.25.csv``).
"""

from __future__ import annotations

import argparse
import time
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from evalstats.cv_variance import cv_error_ci

RESULTS = Path(__file__).resolve().parent / "results"


class FastOLS(RegressorMixin, BaseEstimator):
    """OLS without intercept via numpy lstsq (cheap fits for the coverage study)."""

    def fit(self, X, y):
        self.coef_ = np.linalg.lstsq(X, y, rcond=None)[0]
        return self

    def predict(self, X):
        return X @ self.coef_


class NearestMean(ClassifierMixin, BaseEstimator):
    """Nearest class mean classifier (Euclidean)."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.means_ = np.array([X[y == c].mean(axis=0) for c in self.classes_])
        return self

    def predict(self, X):
        d = ((X[:, None, :] - self.means_[None]) ** 2).sum(-1)
        return self.classes_[d.argmin(1)]


def atan_loss(y, pred):
    """The source's bounded loss atan(r²)·2/π ∈ [0, 1)."""
    return np.arctan((y - pred) ** 2) * 2 / np.pi


def sim_ols(n, rng):
    return rng.normal(0, 3, size=(n, 3)), rng.normal(size=n)


BETA = np.array([1.0, 0.5, 0, 0, 0])


def sim_clf(n, rng):
    X = rng.normal(size=(n, 5))
    y = (rng.random(n) < 1 / (1 + np.exp(-X @ BETA))).astype(int)
    return X, y


def true_theta_ols(g, rng, n_train=20000, n_test=400):
    vals = np.empty(n_train)
    for k in range(n_train):
        X, y = sim_ols(g, rng)
        b = np.linalg.lstsq(X, y, rcond=None)[0]
        Xt, yt = sim_ols(n_test, rng)
        vals[k] = atan_loss(yt, Xt @ b).mean()
    return vals.mean(), vals.std(ddof=1) / np.sqrt(n_train)


def true_theta_clf(g, rng, n_train=20000, n_test=400):
    vals = np.empty(n_train)
    for k in range(n_train):
        X, y = sim_clf(g, rng)
        Xt = rng.normal(size=(n_test, 5))
        p1 = 1 / (1 + np.exp(-Xt @ BETA))
        if np.all(y == y[0]):
            pred = np.full(n_test, y[0])
        else:
            pred = NearestMean().fit(X, y).predict(Xt)
        vals[k] = np.where(pred == 1, 1 - p1, p1).mean()  # exact conditional error given x
    return vals.mean(), vals.std(ddof=1) / np.sqrt(n_train)


DESIGNS = {
    "ols": dict(sim=sim_ols, est=FastOLS, loss=atan_loss, loss_range=(0.0, 1.0), g=13,
                truth=true_theta_ols),
    "clf": dict(sim=sim_clf, est=NearestMean, loss="zero_one", loss_range=None, g=10,
                truth=true_theta_clf),
}


def one_replication(design, n, draws, rng, mc_tol=None):
    t0 = time.perf_counter()
    d = DESIGNS[design]
    X, y = d["sim"](n, rng)
    kw = dict(train_size=d["g"], loss=d["loss"], loss_range=d["loss_range"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        u = cv_error_ci(d["est"](), X, y, n_draws=draws, mc_tol=mc_tol, rng=rng,
                        progress=False, **kw)
        u_seconds = time.perf_counter() - t0
        nt = cv_error_ci(d["est"](), X, y, method="naive_t", rng=rng, **kw)
        ct = cv_error_ci(d["est"](), X, y, method="corrected_t", rng=rng, **kw)
    row = dict(design=design, n=n, estimate=u.estimate, variance=u.variance_estimate,
               variance_mc_se=u.variance_mc_se, df=u.df, n_draws=u.n_draws,
               fallback=u.variance_fallback, mc_tol=mc_tol,
               hit_max_draws=mc_tol is not None and u.n_draws >= 32 * draws,
               ustat_seconds=u_seconds, std_error=u.std_error)
    variants = {"ustat_log": ("log", u.df), "ustat_t": ("t", u.df),
                "ustat_log_z": ("log", None), "ustat_t_n1": ("t", n - 1.0),
                "ustat_normal": ("normal", None)}
    for name, res in [(k, replace(u, interval=iv, df=df)) for k, (iv, df) in variants.items()
                      ] + [("naive_t", nt), ("corrected_t", ct)]:
        lo, hi = res.conf_int(0.95)
        row[f"{name}_low"], row[f"{name}_high"] = lo, hi
    return row


METHODS = ("ustat_log", "ustat_t", "ustat_log_z", "ustat_t_n1", "ustat_normal", "naive_t",
           "corrected_t")


def summarise(raw, truths):
    out = []
    for (design, n), grp in raw.groupby(["design", "n"], sort=False):
        theta = truths[design][0]
        R = len(grp)
        for m in METHODS:
            lo, hi = grp[f"{m}_low"].to_numpy(), grp[f"{m}_high"].to_numpy()
            cover = (lo <= theta) & (theta <= hi)  # NaN interval counts as a miss
            c = cover.mean()
            out.append(dict(design=design, n=n, g=DESIGNS[design]["g"], method=m, reps=R,
                            theta=theta, coverage=c, coverage_se=np.sqrt(c * (1 - c) / R),
                            miss_below=np.mean(hi < theta), miss_above=np.mean(lo > theta),
                            mean_width=np.nanmean(hi - lo),
                            binom_p=stats.binomtest(int(cover.sum()), R, 0.95).pvalue,
                            fallback_rate=grp["fallback"].mean(),
                            mean_draws=grp["n_draws"].mean(),
                            hit_max_draws_rate=grp["hit_max_draws"].mean(),
                            mean_ustat_seconds=grp["ustat_seconds"].mean()))
    return pd.DataFrame(out)


def speed(n_draws, rng_seed=7):
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(rng_seed)
    X, y = sim_clf(200, rng)
    rows, ref = [], None
    # warm up the worker pool so that process start-up is not timed
    cv_error_ci(LogisticRegression(), X, y, train_size=50, n_draws=100, mc_tol=None, rng=3,
                n_jobs=2)
    for n_jobs in (1, 2):
        t0 = time.perf_counter()
        res = cv_error_ci(LogisticRegression(), X, y, train_size=50, n_draws=n_draws,
                          mc_tol=None, rng=3, n_jobs=n_jobs)
        dt = time.perf_counter() - t0
        ref = ref if ref is not None else dt
        rows.append(dict(n_jobs=n_jobs, fits=res.n_fits, seconds=dt,
                         fits_per_second=res.n_fits / dt, speedup=ref / dt,
                         estimate=res.estimate, variance=res.variance_estimate))
    return pd.DataFrame(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small run (about a minute)")
    ap.add_argument("--reps", type=int, default=None, help="replications per cell (500)")
    ap.add_argument("--draws", type=int, default=None, help="U-statistic draws (1000)")
    ap.add_argument("--designs", default="ols,clf")
    ap.add_argument("--mc-tol", type=float, default=None,
                    help="use the stopping rule (initial draws = --draws) instead of fixed N")
    ap.add_argument("--n", type=int, nargs="*", default=None, help="override sample sizes")
    ap.add_argument("--no-speed", action="store_true")
    ap.add_argument("--speed-only", action="store_true", help="only the n_jobs speed test")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--jobs", type=int, default=1,
                    help="replications run in parallel processes (same per-replication "
                         "generators, so the results equal a sequential run)")
    args = ap.parse_args(argv)
    if args.speed_only:
        return _speed(args.quick)
    reps = args.reps or (20 if args.quick else 500)
    draws = args.draws or (300 if args.quick else 1000)
    ns = {"ols": [30, 60] if args.quick else [30, 45, 60],
          "clf": [40] if args.quick else [40]}
    if args.n:
        ns = {k: args.n for k in ns}
    RESULTS.mkdir(exist_ok=True)
    # mc_tol 0.1 (the original stopping-rule run) keeps the file names *_stop.csv
    suffix = ("_quick" if args.quick else "") + (
        "" if not args.mc_tol else "_stop" if args.mc_tol == 0.1 else f"_stop_tol{args.mc_tol:g}")
    root = np.random.default_rng(args.seed)
    truths, raw = {}, []
    for design in args.designs.split(","):
        g = DESIGNS[design]["g"]
        truths[design] = DESIGNS[design]["truth"](
            g, np.random.default_rng(args.seed + 1), n_train=2000 if args.quick else 20000)
        print(f"{design}: true theta({g}) = {truths[design][0]:.4f} "
              f"(MC s.e. {truths[design][1]:.1e})", flush=True)
        for n in ns[design]:
            t0 = time.perf_counter()
            rows = Parallel(n_jobs=args.jobs, return_as="generator")(
                delayed(_one_rep_single_thread)(design, n, draws, gen, args.mc_tol)
                for gen in root.spawn(reps))
            for k, row in enumerate(rows, 1):
                raw.append(row)
                if k % 50 == 0 or k == reps:  # partial results survive an interrupted run
                    pd.DataFrame(raw).to_csv(RESULTS / f"cv_coverage_raw{suffix}.csv",
                                             index=False)
                    table = summarise(pd.DataFrame(raw), truths)
                    table.to_csv(RESULTS / f"cv_coverage{suffix}.csv", index=False)
                    print(f"  n = {n}: {k} reps, {time.perf_counter() - t0:.0f} s", flush=True)
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(table.round(4).to_string(index=False))
    if not args.no_speed:
        _speed(args.quick)


def _one_rep_single_thread(*args):
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        return one_replication(*args)


def _speed(quick):
    RESULTS.mkdir(exist_ok=True)
    sp = speed(200 if quick else 2000)
    sp.to_csv(RESULTS / f"cv_speed{'_quick' if quick else ''}.csv", index=False)
    print(sp.round(3).to_string(index=False))


if __name__ == "__main__":
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):  # thousands of tiny fits: threaded BLAS only adds overhead
        main()
