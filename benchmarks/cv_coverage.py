"""Coverage and width of CIs for θ(g), and power of ``compare_learners`` (issue 13).

Designs (coverage)
------------------
``mean``  closed form: Y ~ N(0, 1), the learner predicts the mean of its learning set,
          squared loss: θ(g) = E(Y − Ȳ_g)² = 1 + 1/g exactly.
``clf``   classification: X ~ N(0, I₅), P(y = 1 | x) = logistic(x₁ + 0.5 x₂), nearest class
          mean, zero-one loss; θ(g) by Monte Carlo (exact conditional error given x).
``reg``   the source's regression design (Fuchs et al. 2013, simu1.R): X ~ N(0, 3²I₃),
          Y ~ N(0, 1) independent, OLS without intercept, bounded loss atan(r²)·2/π;
          θ(g) by Monte Carlo.
Cells: n ∈ {30, 40, 60, 100} × g ∈ {5, 10, ⌊n/4⌋} (duplicates dropped; all satisfy
n ≥ 2g + 2). Each replication draws a data set and runs ``cv_error_ci`` with its
defaults (stopping rule mc_tol = 0.25, interval "auto"), re-reads the same result with
every interval method (``conf_int(method=...)``), and runs Nadeau–Bengio corrected t
(J = 15) and naive t on the same g; in the mean design also nested CV (Bates et al.,
K = 5, 10 repetitions) and Bayle et al.'s Wald CV interval (K = 10), whose coverage is
of *their own* estimand θ(n) resp. θ(0.9n) (closed form). A fallback or NaN interval is
counted as it comes out (never dropped).

``compare``  two strongly correlated learners on the mean design: A = training mean,
B = 0.5 × training mean; with E Y = μ, θ_A − θ_B = 0.75/g − 0.25μ². μ² = 3/g gives H0;
the alternative is a difference of 3 × the true sd of Θ̂_A − Θ̂_B *at the alternative*
(fixed-point steps with pilot replications; the realised multiple is reported). Type-I
error, power and size-adjusted power (equal type-I) of ``compare_learners`` (ustat) vs
corrected t and 5x2cv.

Usage: ``python benchmarks/cv_coverage.py [--design mean|clf|reg|compare|all] [--reps R]
[--quick]``. Writes ``benchmarks/results/cv_coverage_<design>.csv`` (summary),
``cv_coverage_<design>_raw.csv`` (per replication), ``cv_compare.csv`` and
``cv_compare_raw.csv``; with
``--draw-design partition`` the coverage files are ``cv_coverage_<design>_partition*.csv``.
``--design mean --combine a_raw.csv b_raw.csv`` pools runs made with different ``--seed``
(and ``--out``) into one summary (how the 400-replication mean-design table was made);
``--design compare --combine`` pools compare runs the same way.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from evalstats.cv_variance import compare_learners, cv_error_ci
from evalstats.cv_variance._engine import interval_data_df, ustat_df
from evalstats.cv_variance._results import skew_test
from evalstats.cv_variance._score import score_statistic

RESULTS = Path(__file__).resolve().parent / "results"
USTAT_INTERVALS = ("log", "logit", "t", "normal", "t_skew", "log_skew", "logit_skew")
DF_RULES = ("calibrated", "estimated", "min")


class MeanReg(RegressorMixin, BaseEstimator):
    """Predicts ``shrink`` × the mean of the learning set's y."""

    def __init__(self, shrink=1.0):
        self.shrink = shrink

    def fit(self, X, y):
        self.m_ = self.shrink * float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.m_)


class FastOLS(RegressorMixin, BaseEstimator):
    """OLS without intercept via numpy lstsq."""

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


BETA = np.array([1.0, 0.5, 0, 0, 0])


def sim_mean(n, rng):
    return np.zeros((n, 1)), rng.normal(size=n)


def sim_clf(n, rng):
    X = rng.normal(size=(n, 5))
    return X, (rng.random(n) < 1 / (1 + np.exp(-X @ BETA))).astype(int)


def sim_reg(n, rng):
    return rng.normal(0, 3, size=(n, 3)), rng.normal(size=n)


def truth_mean(g, rng):
    return 1 + 1 / g, 0.0


def truth_clf(g, rng, n_train=20000, n_test=200):
    vals = np.empty(n_train)
    for k in range(n_train):
        X, y = sim_clf(g, rng)
        Xt = rng.normal(size=(n_test, 5))
        p1 = 1 / (1 + np.exp(-Xt @ BETA))
        pred = NearestMean().fit(X, y).predict(Xt)
        vals[k] = np.where(pred == 1, 1 - p1, p1).mean()  # exact conditional error given x
    return vals.mean(), vals.std(ddof=1) / np.sqrt(n_train)


def truth_reg(g, rng, n_train=20000, n_test=200):
    vals = np.empty(n_train)
    for k in range(n_train):
        X, y = sim_reg(g, rng)
        b = np.linalg.lstsq(X, y, rcond=None)[0]
        Xt, yt = sim_reg(n_test, rng)
        vals[k] = atan_loss(yt, Xt @ b).mean()
    return vals.mean(), vals.std(ddof=1) / np.sqrt(n_train)


DESIGNS = {
    "mean": dict(sim=sim_mean, est=MeanReg, loss="squared", loss_range=None, truth=truth_mean),
    "clf": dict(sim=sim_clf, est=NearestMean, loss="zero_one", loss_range=None,
                truth=truth_clf),
    "reg": dict(sim=sim_reg, est=FastOLS, loss=atan_loss, loss_range=(0.0, 1.0),
                truth=truth_reg),
}


def cells(ns=(30, 40, 60, 100)):
    out = []
    for n in ns:
        for g in sorted({5, 10, n // 4}):
            if n >= 2 * g + 2:
                out.append((n, g))
            else:  # pragma: no cover - none with these n
                print(f"skip n={n}, g={g}: n < 2g + 2")
    return out


def one_replication(design, n, g, rng, draw_design="pairs"):
    d = DESIGNS[design]
    X, y = d["sim"](n, rng)
    kw = dict(train_size=g, loss=d["loss"], loss_range=d["loss_range"], progress=False)
    row = dict(design=design, n=n, g=g)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        u = cv_error_ci(d["est"](), X, y, rng=rng, design=draw_design, **kw)
        row.update(ustat_seconds=time.perf_counter() - t0, estimate=u.estimate,
                   std_error=u.std_error, variance=u.variance_estimate,
                   leading_variance=u.leading_variance, variance_mc_se=u.variance_mc_se,
                   df=u.df, n_draws=u.n_draws, n_fits=u.n_fits,
                   fallback=bool(u.variance_fallback), default=u.interval_method,
                   skewness=u.skewness)
        for m in USTAT_INTERVALS:
            row[f"ustat_{m}_low"], row[f"ustat_{m}_high"] = u.conf_int(method=m)
        row["ustat_default_low"], row["ustat_default_high"] = u.conf_int()
        # the default interval under each rule for its data df (see interval_data_df)
        scale = u.interval_method
        est = u.diagnostics.get("data_df_estimated", {}).get(scale, np.nan)
        row["data_df_estimated"] = est
        for rule in DF_RULES:
            df = ustat_df(n, u.variance_estimate, u.variance_mc_se,
                          interval_data_df(n, g, est, rule))
            row[f"df_{rule}"] = df
            lo, hi = dataclasses.replace(u, df=df).conf_int()
            row[f"ustat_df_{rule}_low"], row[f"ustat_df_{rule}_high"] = lo, hi
        base = ["corrected_t", "naive_t"] + (["nested_cv", "bayle"] if design == "mean" else [])
        for m in base:
            t0 = time.perf_counter()
            r = cv_error_ci(d["est"](), X, y, method=m, rng=rng, **kw)
            row[f"{m}_low"], row[f"{m}_high"] = r.conf_int()
            row[f"{m}_fits"], row[f"{m}_seconds"] = r.n_fits, time.perf_counter() - t0
    return row


def _target(method, theta, n):
    """Closed-form estimand of a baseline in the mean design (θ(g') = 1 + 1/g')."""
    if method == "nested_cv":
        return 1 + 1 / n
    if method == "bayle":
        return 1 + 1 / (n - n // 10 if n >= 10 else n - 1)
    return theta


def summarise(raw, truths):
    out = []
    for (design, n, g), grp in raw.groupby(["design", "n", "g"], sort=False):
        theta = truths[(design, g)][0]
        R = len(grp)
        methods = [f"ustat_{m}" for m in ("default",) + USTAT_INTERVALS] + [
            f"ustat_df_{r}" for r in DF_RULES if f"ustat_df_{r}_low" in grp] + [
            m for m in ("corrected_t", "naive_t", "nested_cv", "bayle") if f"{m}_low" in grp]
        # width of the oracle interval Θ̂ ± z·sd(Θ̂) (sd known: the spread of the estimate
        # over the data sets) relative to Nadeau–Bengio: no interval with estimated
        # variance and correct coverage can be much narrower than the oracle
        oracle = 2 * stats.norm.ppf(0.975) * grp["estimate"].std(ddof=1)
        widths = {}
        for m in methods:
            lo, hi = grp[f"{m}_low"].to_numpy(float), grp[f"{m}_high"].to_numpy(float)
            widths[m] = np.nanmean(hi - lo)
        for m in methods:
            lo, hi = grp[f"{m}_low"].to_numpy(float), grp[f"{m}_high"].to_numpy(float)
            tgt = _target(m, theta, n) if design == "mean" else theta
            cover = (lo <= tgt) & (tgt <= hi)  # NaN interval counts as a miss
            c = cover.mean()
            fits = grp["n_fits"].mean() if m.startswith("ustat") else grp[f"{m}_fits"].mean()
            secs = (grp["ustat_seconds"].mean() if m.startswith("ustat")
                    else grp[f"{m}_seconds"].mean())
            out.append(dict(
                design=design, n=n, g=g, method=m, reps=R, theta=theta, target=tgt,
                coverage=c, coverage_se=np.sqrt(c * (1 - c) / R),
                miss_below=np.mean(hi < tgt), miss_above=np.mean(lo > tgt),
                mean_width=widths[m], width_vs_nb=widths[m] / widths["corrected_t"],
                oracle_width_vs_nb=oracle / widths["corrected_t"],
                width_vs_nested=(widths[m] / widths["nested_cv"]
                                 if "nested_cv" in widths else np.nan),
                mean_fits=fits, fits_per_second=fits / secs if secs > 0 else np.nan,
                fallback_rate=grp["fallback"].mean(), mean_draws=grp["n_draws"].mean(),
                median_df=(grp[f"df_{m[9:]}"].median() if m.startswith("ustat_df_")
                           else grp["df"].median())))
    return pd.DataFrame(out)


def run_coverage(design, reps, seed, ns, only=None, draw_design="pairs"):
    rng = np.random.default_rng(seed)
    truths, rows = {}, []
    for n, g in (only or cells(ns)):
        if (design, g) not in truths:
            truths[(design, g)] = DESIGNS[design]["truth"](g, np.random.default_rng([seed, g]))
        t0 = time.perf_counter()
        for gen in rng.spawn(reps):
            rows.append(one_replication(design, n, g, gen, draw_design))
        print(f"{design} n={n} g={g}: {reps} reps in {time.perf_counter() - t0:.0f} s",
              flush=True)
    raw = pd.DataFrame(rows)
    raw["seed"] = seed
    tag = design if draw_design == "pairs" else f"{design}_{draw_design}"
    return write_summary(raw, truths, tag)


def combine_raw(paths, design, tag):
    """Pool per-replication files of *different* seeds (column ``seed``) and summarise."""
    raw = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    truths = {}
    for seed in raw["seed"].unique():  # θ(g) by Monte Carlo is seeded by the run's seed
        for g in raw.loc[raw.seed == seed, "g"].unique():
            truths.setdefault((design, g), DESIGNS[design]["truth"](
                int(g), np.random.default_rng([int(seed), int(g)])))
    return write_summary(raw, truths, tag)


def write_summary(raw, truths, tag):
    summ = summarise(raw, truths)
    raw.to_csv(RESULTS / f"cv_coverage_{tag}_raw.csv", index=False)
    summ.to_csv(RESULTS / f"cv_coverage_{tag}.csv", index=False)
    show = summ[summ.method.isin(["ustat_default", "ustat_t", "corrected_t", "nested_cv",
                                  "ustat_log", "ustat_logit"]
                                 + [f"ustat_{m}_skew" for m in ("t", "log", "logit")]
                                 + [f"ustat_df_{r}" for r in DF_RULES])]
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(show[["design", "n", "g", "method", "reps", "coverage", "coverage_se",
                    "miss_below", "miss_above", "mean_width", "width_vs_nb",
                    "oracle_width_vs_nb",
                    "width_vs_nested", "mean_fits", "fallback_rate",
                    "median_df"]].round(3).to_string())
    return summ


# -- compare_learners -----------------------------------------------------------------------
class NearestMeanOn(NearestMean):
    """Nearest class mean on one column of X."""

    def __init__(self, col=0):
        self.col = col

    def fit(self, X, y):
        return super().fit(X[:, [self.col]], y)

    def predict(self, X):
        return super().predict(X[:, [self.col]])


def _compare_setup(n, mu, rng, design):
    """(X, y, learner A, learner B, loss) of a compare replication.

    ``"mean"``: y ~ N(μ, 1), training mean vs 0.5 × training mean (squared loss).
    ``"clf"``: X ~ N(0, I₂), P(y = 1 | x) = logistic(x₁ + x₂), nearest class mean on x₁
    vs on x₂ — equal expected 0-1 loss by symmetry (H0 exactly), correlated through y.
    ``"clf_asym"``: P(y = 1 | x) = logistic(x₁ + b x₂), nearest class mean on x₁ vs on
    (x₁, x₂) — a null that is *not* symmetric (the two learners share x₁; the second pays
    for estimating a second mean coordinate and gains b's signal), b = ``ASYM_B[g]``."""
    if design == "clf":
        X = rng.normal(size=(n, 2))
        y = (rng.random(n) < 1 / (1 + np.exp(-X.sum(1)))).astype(int)
        return X, y, NearestMeanOn(0), NearestMeanOn(1), "zero_one"
    if design == "clf_asym":  # mu = b of ASYM_B
        X = rng.normal(size=(n, 2))
        y = (rng.random(n) < 1 / (1 + np.exp(-(X[:, 0] + mu * X[:, 1])))).astype(int)
        return X, y, NearestMeanOn(0), NearestMean(), "zero_one"
    return np.zeros((n, 1)), rng.normal(size=n) + mu, MeanReg(), MeanReg(0.5), "squared"


#: b with θ_A(g) = θ_B(g) in the "clf_asym" design: paired Monte Carlo (20,000 learning
#: sets, exact conditional error on 4,000 test points, seed 1): g = 10: D(0.48) = −0.0036,
#: D(0.53) = +0.0010 (s.e. 0.0005), linear root 0.519; g = 25: D(0.45) = −0.00002 (0.00026)
ASYM_B = {10: 0.519, 25: 0.45}


def _compare_rep(n, g, mu, rng, baselines=True, design="mean"):
    X, y, est_a, est_b, loss = _compare_setup(n, mu, rng, design)
    kw = dict(train_size=g, loss=loss, progress=False)
    row = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        r = compare_learners(est_a, est_b, X, y, rng=rng, **kw)
        row.update(estimate=r.estimate, p_ustat=r.p_value, draws=r.n_draws, df=r.df,
                   fallback=bool(r.variance_fallback), seconds=time.perf_counter() - t0,
                   std_error=r.std_error, data_df_estimated=r.diagnostics["data_df_estimated"],
                   skewness=r.skewness)
        row["p_ustat_t"] = r.diagnostics["p_value_t"]  # the uncorrected t test
        row["skew_used"] = r.p_value != row["p_ustat_t"]
        row["skew_shrink"] = r.diagnostics["skew_shrink"]  # < 1: the cubic was shrunk
        row["coupling"] = r.coupling
        row.update(variance_estimate=r.variance_estimate, leading_variance=r.leading_variance,
                   mc_se=r.mc_se, **{f"jk_{k}": v for k, v in
                                     r.diagnostics.get("jackknife", {}).items()})
        for rule in DF_RULES:  # the p-value under each rule for the data df
            df = ustat_df(n, r.variance_estimate, r.variance_mc_se,
                          interval_data_df(n, g, row["data_df_estimated"], rule))
            row[f"p_ustat_df_{rule}"] = float(2 * stats.t.sf(abs(r.statistic), df))
        for m in ("corrected_t", "5x2cv") if baselines else ():
            row[f"p_{m}"] = compare_learners(est_a, est_b, X, y, method=m,
                                             rng=rng, **kw).p_value
    return row


def _mu_at(g, shift):
    """μ ≥ 0 with θ_A − θ_B = 0.75/g − 0.25μ² = −shift (μ = 0 where that is out of reach)."""
    return np.sqrt(max(0.75 / g + shift, 0.0) / 0.25)


COMPARE_METHODS = ("ustat", "ustat_skew", "ustat_t", "ustat_score", "corrected_t",
                   "5x2cv") + tuple(
    f"ustat_df_{r}" for r in DF_RULES)


def run_compare(reps, seed, settings=((30, 5), (40, 10), (60, 10), (100, 25)), pilot=40,
                steps=2, null_only=False, above=False, design="mean", multiple=3.0,
                null_reps=None):
    """Type-I error at H0 and power at a difference of 3 *true* SEs of the estimator.

    The sd of Θ̂_A − Θ̂_B grows with μ, so the alternative solves diff(μ) = 3·sd(μ) by
    ``steps`` fixed-point steps, each with a ``pilot``-replication estimate of sd(μ) (U-stat
    only); the realised difference in SE units is then measured on the ``reps`` final
    replications and reported. ``above=True`` puts the alternative on the other side,
    θ_A − θ_B = +3 sd (μ < μ₀; where 3 sd exceeds the largest attainable 0.75/g, μ = 0).
    ``design="clf"`` (:func:`_compare_setup`) has only a null (``null_only`` implied).
    ``multiple`` replaces the 3 (the hypothesis is then labelled ``"<multiple> SE"``);
    ``null_reps`` (default ``reps``) null replications start the fixed point and count
    at H0.
    Writes the per-replication rows (``cv_compare_raw.csv``, one
    row per data set with ``hypothesis``, ``mu``, ``seed``) and their summary.
    """
    rng = np.random.default_rng(seed)
    raws = []
    for n, g in settings:
        mu0 = (np.sqrt(3 / g) if design == "mean" else ASYM_B[g] if design == "clf_asym"
               else np.nan)
        null = pd.DataFrame([_compare_rep(n, g, mu0, gen, design=design)
                             for gen in rng.spawn(null_reps or reps)])
        null = null.assign(n=n, g=g, hypothesis="H0", mu=mu0, true_difference=0.0)
        raws.append(null)
        if null_only or design != "mean":
            for _ in range(steps):  # keep the random streams of the full run
                rng.spawn(pilot)
            rng.spawn(reps)
            continue
        sign = -1.0 if above else 1.0
        mu1 = _mu_at(g, sign * multiple * null.estimate.std(ddof=1))
        for _ in range(steps):
            pil = pd.DataFrame([_compare_rep(n, g, mu1, gen, baselines=False)
                                for gen in rng.spawn(pilot)])
            mu1 = _mu_at(g, sign * multiple * pil.estimate.std(ddof=1))
        alt = pd.DataFrame([_compare_rep(n, g, mu1, gen) for gen in rng.spawn(reps)])
        label = "3 SE" if multiple == 3 else f"{multiple:g} SE"
        raws.append(alt.assign(n=n, g=g, hypothesis=label + (" above" if above else ""), mu=mu1,
                               true_difference=0.75 / g - 0.25 * mu1 ** 2))
        print(f"compare n={n} g={g} done", flush=True)
    raw = pd.concat(raws, ignore_index=True).assign(seed=seed)
    tag = "_".join(f"n{n}_g{g}" for n, g in settings)
    if design != "mean":
        return write_compare(raw, f"cv_compare_{design}_null_{tag}")
    name = "cv_compare" if not null_only else (
        "cv_compare_null_df_rules" if tag == "n30_g5_n40_g10_n60_g10_n100_g25"
        else f"cv_compare_null_{tag}")
    return write_compare(raw, name)


def summarise_compare(raw):
    """Rejection rates per (n, g, hypothesis, method) from per-replication rows.

    Runs with different seeds (column ``seed``) may have slightly different alternatives
    (each run solves for its own μ); the realised difference in SE units is measured per run
    and averaged. Size-adjusted power (``size_adjusted_power``): rejection at p below the
    empirical 5 % quantile of the method's own null p-values, pooled over runs, i.e. every
    method at the same type-I error 0.05. A NaN p-value counts as no rejection.
    """
    out = []
    methods = [m for m in COMPARE_METHODS if f"p_{m}" in raw]
    for (n, g), cell in raw.groupby(["n", "g"], sort=False):
        null = cell[cell.hypothesis == "H0"]
        for hyp, df in cell.groupby("hypothesis", sort=False):
            z = np.mean([abs(d.true_difference.iloc[0]) / d.estimate.std(ddof=1)
                         for _, d in df.groupby("seed")])
            for m in methods:
                p = df[f"p_{m}"].to_numpy(float)
                rej = np.mean(p < 0.05)
                crit = np.nanquantile(null[f"p_{m}"].to_numpy(float), 0.05)
                ust = m == "ustat"
                out.append(dict(
                    n=n, g=g, hypothesis=hyp, true_difference=df.true_difference.mean(),
                    difference_in_se=z, method=m, reps=len(df), runs=df.seed.nunique(),
                    rejection_rate=rej, rejection_se=np.sqrt(rej * (1 - rej) / len(df)),
                    null_p_quantile_05=crit,
                    size_adjusted_power=np.mean(p <= crit) if hyp != "H0" else np.nan,
                    fallback_rate=df.fallback.mean() if ust else np.nan,
                    skew_applied_rate=df.skew_used.mean() if ust else np.nan,
                    skew_shrunk_rate=((df.skew_shrink < 1).mean()
                                      if ust and "skew_shrink" in df else np.nan),
                    median_df=df.df.median() if ust else np.nan,
                    median_df_estimated=df.data_df_estimated.median() if ust else np.nan,
                    mean_draws=df.draws.mean() if ust else np.nan,
                    max_draws=df.draws.max() if ust else np.nan,
                    mean_seconds=df.seconds.mean() if ust else np.nan))
    return pd.DataFrame(out)


def recompute_default_p(raw):
    """Every test's p-value from the recorded statistics, under the current rules.

    Rows with the jackknife moments (``jk_var_theta``, recorded since 2026-11-26) get the
    current s.e. √(max(V̂, V̂₁, Var_J) + se_MC²) (V̂ ≤ 0: max(Var_J, V̂₁)), as
    ``compare_learners`` computes it, and ``p_ustat`` is the current default
    (``interval="t_score"``). Older rows (no jackknife columns; their default was
    ``"t_skew"``) keep their s.e. and get ``p_ustat`` = ``p_ustat_skew``. In both,
    ``p_ustat_t``, ``p_ustat_skew`` (the package's ``skew_test``) and ``p_ustat_score``
    are redone from Θ̂/se, γ̂₁ (``skewness``), ρ̂ (``coupling``) and df, which do not depend
    on the test; runs recorded under an earlier rule (no floor, an earlier cubic floor)
    are so summarised under the current one. Recorded values are kept as ``*_recorded``."""
    raw = raw.copy()
    for col in ("p_ustat", "p_ustat_t", "std_error"):
        if f"{col}_recorded" not in raw:
            raw[f"{col}_recorded"] = raw[col]
    jk = raw["jk_var_theta"] if "jk_var_theta" in raw else pd.Series(np.nan, index=raw.index)
    new_rule = jk.notna().to_numpy()
    if new_rule.any():
        v = raw["variance_estimate"].to_numpy(float)
        v1 = raw["leading_variance"].fillna(-np.inf).to_numpy(float)
        j = jk.fillna(-np.inf).to_numpy(float)
        var = np.where(v > 0, np.maximum.reduce([v, v1, j]), np.maximum(j, v1))
        se = np.sqrt(var + raw["mc_se"].to_numpy(float) ** 2)
        raw["std_error"] = np.where(new_rule, se, raw["std_error_recorded"])
    t = (raw["estimate"] / raw["std_error"]).to_numpy(float)
    raw["p_ustat_t"] = 2 * stats.t.sf(np.abs(t), raw["df"])
    p_skew, lam = [], []
    for ti, r in zip(t, raw.itertuples(), strict=True):
        h, _, shrink = skew_test(ti, r.skewness, r.coupling, float(stats.t.ppf(0.975, r.df)))
        p_skew.append(float(2 * stats.t.sf(abs(h), r.df)))
        lam.append(shrink)
    raw["p_ustat_skew"], raw["skew_shrink"] = p_skew, lam
    raw["p_ustat_score"] = [float(2 * stats.t.sf(abs(score_statistic(ti, r.coupling)), r.df))
                            for ti, r in zip(t, raw.itertuples(), strict=True)]
    raw["p_ustat"] = np.where(new_rule, raw["p_ustat_score"], raw["p_ustat_skew"])
    raw["default_rule"] = np.where(new_rule, "t_score + jackknife floor", "t_skew")
    raw["skew_used"] = raw["p_ustat_skew"] != raw["p_ustat_t"]
    return raw


def write_compare(raw, name):
    raw = recompute_default_p(raw)
    res = summarise_compare(raw)
    raw.to_csv(RESULTS / f"{name}_raw.csv", index=False)
    res.to_csv(RESULTS / f"{name}.csv", index=False)
    with pd.option_context("display.width", 200):
        print(res[["n", "g", "hypothesis", "difference_in_se", "method", "reps",
                   "rejection_rate", "rejection_se", "size_adjusted_power",
                   "fallback_rate", "skew_applied_rate", "skew_shrunk_rate"]].round(3)
              .to_string())
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--design", default="all", choices=["mean", "clf", "reg", "compare", "all"])
    ap.add_argument("--reps", type=int, default=None,
                    help="replications per cell (mean 300, clf/reg 100, compare 200)")
    ap.add_argument("--n", type=int, nargs="*", default=[30, 40, 60, 100], help="sample sizes")
    ap.add_argument("--cells", nargs="*", default=None, metavar="N,G",
                    help="only these cells, e.g. 100,10 60,15 (development runs)")
    ap.add_argument("--null-only", action="store_true",
                    help="compare: type-I error only, under each df rule "
                         "(cv_compare_null_df_rules.csv; with --cells cv_compare_null_<cells>.csv "
                         "and the per-replication *_raw.csv)")
    ap.add_argument("--pilot", type=int, default=40,
                    help="compare: pilot replications per fixed-point step for the alternative")
    ap.add_argument("--multiple", type=float, default=3.0,
                    help="compare: the alternative in true SEs (default 3)")
    ap.add_argument("--steps", type=int, default=2,
                    help="compare: fixed-point steps for the alternative")
    ap.add_argument("--null-reps", type=int, default=None,
                    help="compare: null replications (default --reps)")
    ap.add_argument("--above", action="store_true",
                    help="compare: alternative θ_A − θ_B = +3 SE instead of −3 SE")
    ap.add_argument("--compare-design", default="mean", choices=["mean", "clf", "clf_asym"],
                    help="compare: the two learners (clf: a null by symmetry; clf_asym: a "
                         "non-symmetric null, g in {10, 25}; type-I only)")
    ap.add_argument("--draw-design", default="pairs", choices=["pairs", "partition"],
                    help="design= of cv_error_ci in the coverage designs")
    ap.add_argument("--out", default=None, help="results folder (default benchmarks/results)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--quick", action="store_true", help="a few reps per cell (smoke test)")
    ap.add_argument("--combine", nargs="+", default=None, metavar="RAW_CSV",
                    help="pool these per-replication files (runs with different --seed) of "
                         "one --design and write the summary; no new replications")
    a = ap.parse_args(argv)
    global RESULTS
    if a.out:
        RESULTS = Path(a.out)
    RESULTS.mkdir(exist_ok=True)
    only = [tuple(int(v) for v in c.split(",")) for c in a.cells] if a.cells else None
    if a.combine:
        if a.design == "compare":
            write_compare(pd.concat([pd.read_csv(p) for p in a.combine], ignore_index=True),
                          "cv_compare")
        else:
            combine_raw(a.combine, a.design, a.design)
        return
    designs = ["mean", "clf", "reg", "compare"] if a.design == "all" else [a.design]
    default_reps = {"mean": 300, "clf": 100, "reg": 100, "compare": 200}
    for d in designs:
        reps = 3 if a.quick else (a.reps or default_reps[d])
        if d == "compare":
            settings = ([(n, g) for n, g in only] if only
                        else ((30, 5), (40, 10), (60, 10), (100, 25)))
            run_compare(reps, a.seed, settings, pilot=a.pilot, null_only=a.null_only,
                        above=a.above, design=a.compare_design, multiple=a.multiple,
                        steps=a.steps, null_reps=a.null_reps)
        else:
            run_coverage(d, reps, a.seed, a.n, only, a.draw_design)


if __name__ == "__main__":
    main()
