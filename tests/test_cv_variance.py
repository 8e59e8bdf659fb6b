"""cv_variance: exact enumeration, the g = 0 identity, convergence, baselines, errors."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.dummy import DummyRegressor
from sklearn.linear_model import LinearRegression, LogisticRegression

from evalstats._warnings import NegativeVarianceWarning, SmallSampleWarning
from evalstats.cv_variance import (
    CompareLearnersResult,
    CVErrorResult,
    compare_learners,
    cv_error_ci,
)
from evalstats.cv_variance._baselines import baseline_interval
from evalstats.cv_variance._draws import DrawTask


class MeanReg(RegressorMixin, BaseEstimator):
    """Predicts the mean of the learning set's y (a learner with a non-trivial kernel)."""

    def fit(self, X, y):
        self.m_ = float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.m_)


class Centroid(ClassifierMixin, BaseEstimator):
    """Score x·(mean of positives − mean of negatives); no predict_proba."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.w_ = X[y == 1].mean(0) - X[y == 0].mean(0)
        return self

    def decision_function(self, X):
        return X @ self.w_

    def predict(self, X):
        return (self.decision_function(X) > 0).astype(int)


def _gamma_sq(S, i, X, y):
    """γ(S; i) for MeanReg and squared loss, written out directly."""
    return (y[i] - np.mean(y[list(S)])) ** 2


def _exact_loss(X, y, g):
    """Complete Θ̂ and Ξ̂ by enumeration (symmetric kernels over (g+1)- and (2g+2)-sets)."""
    n = len(y)

    def Gamma(B):  # symmetric kernel of degree g + 1
        return np.mean([_gamma_sq([b for b in B if b != j], j, X, y) for j in B])

    theta = np.mean([Gamma(B) for B in itertools.combinations(range(n), g + 1)])
    xi = []
    for A in itertools.combinations(range(n), 2 * g + 2):
        vals = [Gamma(B) * Gamma(tuple(a for a in A if a not in B))
                for B in itertools.combinations(A, g + 1)]
        xi.append(np.mean(vals))
    return theta, np.mean(xi)


def _all_draws(n, g):
    """Every ordered pair of disjoint learning sets as a permutation prefix."""
    for L1 in itertools.combinations(range(n), g):
        rest = [i for i in range(n) if i not in L1]
        for L2 in itertools.combinations(rest, g):
            others = [i for i in rest if i not in L2]
            yield np.array(list(L1) + list(L2) + others)


def test_draw_engine_averaged_over_all_draws_equals_complete_u_statistics():
    # Exact enumeration: averaging the per-draw sums over every (L1, L2) pair gives the
    # complete leave-p-out Θ̂ and the complete U-statistic Ξ̂ (Fuchs et al. 2013).
    rng = np.random.default_rng(1)
    n, g = 7, 2
    X, y = rng.normal(size=(n, 1)), rng.normal(size=n)
    theta, xi = _exact_loss(X, y, g)
    task = DrawTask([MeanReg()], X, y, g, "squared", 1)
    rows = np.array([task._one(p) for p in _all_draws(n, g)])
    assert rows.shape[0] == math.comb(7, 2) * math.comb(5, 2)
    assert rows[:, 2].sum() / rows[:, 0].sum() == pytest.approx(theta, rel=1e-12)
    assert rows[:, 4].sum() / rows[:, 1].sum() == pytest.approx(xi, rel=1e-12)


def _exact_auc(X, y, g):
    """Complete AUC Θ̂ and Ξ̂ over all (S, i+, j-) and disjoint pairs of such triples."""
    n = len(y)

    def h(S, i, j):
        S = list(S)
        if len(set(y[S])) < 2:
            return 0.5  # single-class learning set: constant score, a tie
        w = X[S][y[S] == 1].mean(0) - X[S][y[S] == 0].mean(0)
        si, sj = X[i] @ w, X[j] @ w
        return float(si > sj) + 0.5 * float(si == sj)

    triples = [(S, i, j) for S in itertools.combinations(range(n), g)
               for i in range(n) for j in range(n)
               if y[i] == 1 and y[j] == 0 and i not in S and j not in S]
    vals = {t: h(*t) for t in triples}
    theta = np.mean(list(vals.values()))
    num = cnt = 0.0
    for t1 in triples:
        u1 = set(t1[0]) | {t1[1], t1[2]}
        for t2 in triples:
            if u1.isdisjoint(set(t2[0]) | {t2[1], t2[2]}):
                num += vals[t1] * vals[t2]
                cnt += 1
    return theta, num / cnt


def test_auc_draw_engine_over_all_draws_equals_complete_enumeration():
    rng = np.random.default_rng(5)
    n, g = 9, 2
    X = rng.normal(size=(n, 2))
    y = np.array([0, 1, 0, 1, 1, 0, 1, 0, 1])
    theta, xi = _exact_auc(X, y, g)
    task = DrawTask([Centroid()], X, y, g, "auc", 1)
    rows = np.array([task._one(p) for p in _all_draws(n, g)])
    assert rows[:, 2].sum() / rows[:, 0].sum() == pytest.approx(theta, rel=1e-12)
    assert rows[:, 4].sum() / rows[:, 1].sum() == pytest.approx(xi, rel=1e-12)


def test_incomplete_estimates_converge_to_enumeration():
    rng = np.random.default_rng(2)
    n, g = 8, 2
    X, y = rng.normal(size=(n, 1)), rng.exponential(size=n)
    theta, xi = _exact_loss(X, y, g)
    res = cv_error_ci(MeanReg(), X, y, train_size=g, loss="squared", n_draws=3000,
                      mc_tol=None, rng=3)
    assert abs(res.estimate - theta) < 4 * res.mc_se
    assert abs(res.variance_estimate - (theta ** 2 - xi)) < 4 * res.variance_mc_se
    assert res.n_draws == 3000 and res.n_fits == 6000


def test_g0_constant_predictor_gives_s2_over_n_exactly(rng):
    X, y = rng.normal(size=(25, 2)), rng.normal(size=25)
    const = DummyRegressor(strategy="constant", constant=0.3).fit(X[:1], y[:1])
    res = cv_error_ci(const, X, y, train_size=0, loss="squared", rng=0)
    losses = (y - 0.3) ** 2
    assert res.estimate == pytest.approx(losses.mean(), rel=1e-13)
    assert res.variance_estimate == pytest.approx(losses.var(ddof=1) / 25, rel=1e-10)
    assert res.n_fits == 0 and res.mc_se == 0.0


def test_compare_g0_is_the_paired_t_test(rng):
    X, y = rng.normal(size=(30, 1)), rng.normal(size=30) + 0.2
    a = DummyRegressor(strategy="constant", constant=0.0).fit(X[:1], y[:1])
    b = DummyRegressor(strategy="constant", constant=0.5).fit(X[:1], y[:1])
    res = compare_learners(a, b, X, y, train_size=0, loss="squared", rng=0)
    la, lb = y ** 2, (y - 0.5) ** 2
    ref = stats.ttest_rel(la, lb)  # paired t test, df = n - 1
    assert res.estimate == pytest.approx((la - lb).mean(), rel=1e-12)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-9)
    assert res.p_value == pytest.approx(ref.pvalue, rel=1e-9)
    assert res.covariance == pytest.approx(np.cov(la, lb)[0, 1] / 30, rel=1e-9)


def test_compare_learners_ustat_consistency(rng):
    X = rng.normal(size=(40, 2))
    y = X[:, 0] + rng.normal(size=40)
    res = compare_learners(LinearRegression(), MeanReg(), X, y, train_size=10,
                           loss="squared", n_draws=300, mc_tol=None, rng=4)
    one = cv_error_ci(LinearRegression(), X, y, train_size=10, loss="squared", n_draws=300,
                      mc_tol=None, rng=4, design="partition")
    assert isinstance(res, CompareLearnersResult)
    assert res.estimate == pytest.approx(res.estimate_a - res.estimate_b, rel=1e-10)
    va, vb = res.diagnostics["variance_a"], res.diagnostics["variance_b"]
    assert res.variance_estimate == pytest.approx(va + vb - 2 * res.covariance, rel=1e-10)
    # learner A alone on the same seed uses the same draws
    assert res.estimate_a == pytest.approx(one.estimate, rel=1e-12)
    td = res.tidy()
    assert list(td["term"])[0].startswith("difference") and len(td) == 3
    assert res.glance().shape[0] == 1


def test_compare_identical_learners_warns(rng):
    X = rng.normal(size=(20, 1))
    y = rng.normal(size=20)
    with pytest.warns(SmallSampleWarning):
        res = compare_learners(MeanReg(), MeanReg(), X, y, train_size=3, loss="squared",
                               n_draws=20, mc_tol=None, rng=1)
    assert res.estimate == 0.0 and np.isnan(res.p_value)


def _first_seed(max_draws, wanted):
    """The first of 200 seeds whose tiny mean-predictor run satisfies ``wanted(res)``:
    ``(res, recorded warnings)``."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(10, 1)), rng.normal(size=10)
    for seed in range(200):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            res = cv_error_ci(MeanReg(), X, y, train_size=4, loss="squared", n_draws=2,
                              max_draws=max_draws, rng=seed)
        if wanted(res):
            return res, rec
    pytest.fail("no seed of 200 gives the case")  # pragma: no cover


def test_negative_variance_warns_and_falls_back():
    res, rec = _first_seed(4, lambda r: r.variance_fallback)
    assert res.variance_estimate <= 0
    assert any(issubclass(w.category, NegativeVarianceWarning) for w in rec)
    assert res.n_draws == 4  # draws were added before giving up
    kv = res.diagnostics["kernel_variance"]
    # fallback: the leading (Hajek) term from the same draws, else the bound m/n Var(kernel)
    assert res.variance_fallback in ("leading_term", "bound")
    fb = res.leading_variance if res.variance_fallback == "leading_term" else 5 / 10 * kv
    assert res.std_error == pytest.approx(np.sqrt(fb + res.mc_se ** 2), rel=1e-12)
    assert "NegativeVarianceWarning" in str(res.summary()) and repr(res).endswith("!>")


def test_negative_variance_that_more_draws_repair_is_a_note_not_a_warning():
    """V̂ <= 0 after the first draws only extends them; it warns when the result keeps it."""
    res, rec = _first_seed(64, lambda r: r.variance_estimate > 0 and any(
        "<= 0 (Monte-Carlo noise)" in n for n in r.notes))
    assert not res.variance_fallback
    assert not any(issubclass(w.category, NegativeVarianceWarning) for w in rec)


def test_stopping_rule_meets_tolerance(rng):
    X = rng.normal(size=(50, 2))
    y = rng.uniform(size=50)
    res = cv_error_ci(MeanReg(), X, y, train_size=8, loss="squared", n_draws=50,
                      mc_tol=0.2, max_draws=1600, rng=2)
    assert res.variance_estimate > 0
    assert res.variance_mc_se <= 0.2 * res.variance_estimate
    assert res.n_draws >= 50 and res.n_draws in {50 * 2 ** k for k in range(6)}


def test_intervals_and_result_api(rng):
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] + rng.normal(size=40) > 0).astype(int)
    kw = dict(train_size=10, n_draws=400, mc_tol=None, rng=0)
    res = cv_error_ci(Centroid(), X, y, interval="log", **kw)
    assert isinstance(res, CVErrorResult) and res.interval_method == "log"
    # default "auto": logit for a bounded loss (0-1), log for squared, chosen by benchmark
    assert cv_error_ci(Centroid(), X, y, **kw).interval_method == "logit"
    assert res.variance_estimate > 0 and not res.variance_fallback
    z = stats.norm.ppf(0.975)
    se, est = res.std_error, res.estimate
    # se includes the Monte-Carlo variance of the estimate
    assert se == pytest.approx(np.sqrt(res.variance_estimate + res.mc_se ** 2), rel=1e-12)
    # Satterthwaite df: data part = V̂'s own df estimated from the draws (first-order
    # projections, t scale, floored at 2), plus the Monte-Carlo noise of V
    nu_data = max(res.diagnostics["data_df_estimated"]["t"], 2.0)
    nu = nu_data / (1 + nu_data * res.variance_mc_se ** 2 / (2 * res.variance_estimate ** 2))
    assert res.df == pytest.approx(nu, rel=1e-12) and 1 <= nu < 39
    q = stats.t.ppf(0.975, nu)
    assert res.conf_int() == pytest.approx((est * np.exp(-q * se / est),
                                            est * np.exp(q * se / est)), rel=1e-12)
    assert res.conf_int(method="t") == pytest.approx((est - q * se, est + q * se), rel=1e-12)
    h = q * se / (est * (1 - est))
    eta = np.log(est / (1 - est))
    assert res.conf_int(method="logit") == pytest.approx(
        (1 / (1 + np.exp(-(eta - h))), 1 / (1 + np.exp(-(eta + h)))), rel=1e-12)
    assert res.conf_int(method="normal") == pytest.approx((est - z * se, est + z * se),
                                                          rel=1e-12)
    t = cv_error_ci(Centroid(), X, y, interval="t", **kw)
    assert t.conf_int() == pytest.approx((est - q * se, est + q * se), rel=1e-12)
    with pytest.warns(FutureWarning):
        assert t.interval == "t"
    # the talk's Hoeffding bound at delta = mc_tol * V (mc_tol defaults to 0.25 in the bound)
    res2 = cv_error_ci(Centroid(), X, y, train_size=10, n_draws=400, max_draws=400, rng=0)
    delta = 0.25 * res2.variance_estimate
    assert res2.hoeffding_bound == pytest.approx(min(1, 2 * np.exp(-delta ** 2 * 400 / 2)))
    assert res2.hoeffding_draws == np.ceil(2 * np.log(2 / 0.05) / delta ** 2)
    assert "Draws / fits" in res.summary().as_text()
    assert res.call["rng"] == 0 and res.n_draws == 400
    ax = res.plot()
    assert "error rate" in ax.get_xlabel()
    auc = cv_error_ci(Centroid(), X, y, train_size=10, loss="auc", n_draws=100,
                      mc_tol=None, rng=0)
    assert auc.term == "auc" and 0.5 < auc.estimate <= 1 and auc.interval_method == "logit"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logl = cv_error_ci(LogisticRegression(), X, y, train_size=10, loss="log",
                           n_draws=10, mc_tol=None, rng=0)
    assert logl.estimate > 0 and logl.interval_method == "log"
    sq = cv_error_ci(MeanReg(), X, X[:, 0], train_size=10, loss="squared", n_draws=50,
                     mc_tol=None, rng=0)
    assert sq.interval_method == "log"
    assert sq.conf_int(method="logit") == sq.conf_int(method="t")  # undefined: t


def test_baselines_formulas(rng):
    X = rng.normal(size=(40, 2))
    y = X[:, 0] + rng.normal(size=40)
    g = 12
    nt = cv_error_ci(LinearRegression(), X, y, train_size=g, loss="squared",
                     method="naive_t", n_splits=10, rng=1)
    ct = cv_error_ci(LinearRegression(), X, y, train_size=g, loss="squared",
                     method="corrected_t", n_splits=10, rng=1)
    mu = np.asarray(nt.split_scores).ravel()
    assert nt.estimate == pytest.approx(mu.mean()) and nt.df == 9
    assert nt.std_error == pytest.approx(mu.std(ddof=1) / np.sqrt(10), rel=1e-12)
    # Nadeau & Bengio (2003): sqrt((1/J + n_test/n_train) s^2)
    assert ct.std_error == pytest.approx(np.sqrt((1 / 10 + 28 / 12) * mu.var(ddof=1)),
                                         rel=1e-12)
    # Dietterich (1998) 5x2cv: t = p_1^(1) / sqrt(mean_i s_i^2) with 5 df
    p = np.array([[0.2, 0.3], [0.25, 0.15], [0.1, 0.3], [0.2, 0.2], [0.4, 0.1]])
    est, se, df = baseline_interval("5x2cv", p, 40, 20)
    s2 = [(a - (a + b) / 2) ** 2 + (b - (a + b) / 2) ** 2 for a, b in p]
    assert (est, df) == (0.2, 5.0) and se == pytest.approx(np.sqrt(np.mean(s2)))
    five = cv_error_ci(LinearRegression(), X, y, train_size=g, loss="squared",
                       method="5x2cv", rng=1)
    assert five.n_fits == 10 and "θ(n/2)" in " ".join(five.notes)
    cmp_ = compare_learners(LinearRegression(), MeanReg(), X, y, train_size=g,
                            loss="squared", method="5x2cv", rng=1)
    assert cmp_.df == 5 and 0 <= cmp_.p_value <= 1


def test_parallel_bit_identical(rng):
    import joblib

    X = rng.normal(size=(30, 2))
    y = X[:, 0] + rng.normal(size=30)
    kw = dict(train_size=6, loss="squared", n_draws=100, mc_tol=None, rng=11)
    a = cv_error_ci(LinearRegression(), X, y, **kw)
    with joblib.parallel_config(backend="threading"):
        b = cv_error_ci(LinearRegression(), X, y, n_jobs=2, **kw)
    assert (a.estimate, a.variance_estimate) == (b.estimate, b.variance_estimate)


def test_dask_cluster_bit_identical(rng):
    distributed = pytest.importorskip("distributed")
    import joblib

    X = rng.normal(size=(30, 2))
    y = X[:, 0] + rng.normal(size=30)
    kw = dict(train_size=6, loss="squared", n_draws=100, mc_tol=None, rng=11)
    a = cv_error_ci(LinearRegression(), X, y, **kw)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster), joblib.parallel_config(backend="dask"):
        b = cv_error_ci(LinearRegression(), X, y, n_jobs=2, **kw)
    assert (a.estimate, a.variance_estimate) == (b.estimate, b.variance_estimate)


def test_input_errors(rng):
    X, y = rng.normal(size=(20, 2)), rng.normal(size=20)
    with pytest.raises(ValueError, match=r"`train_size` must be at most n/2 - 1 = 9.*2g \+ 2"):
        cv_error_ci(LinearRegression(), X, y, train_size=10, loss="squared")
    Xbad = X.copy()
    Xbad[3, 1] = np.nan
    with pytest.raises(ValueError, match="`X` must be finite"):
        cv_error_ci(LinearRegression(), Xbad, y, train_size=3, loss="squared")
    with pytest.raises(ValueError, match="`y` must be finite"):
        cv_error_ci(LinearRegression(), X, np.r_[y[:-1], np.inf], train_size=3,
                    loss="squared")
    with pytest.raises(TypeError, match="`estimator` must be a scikit-learn-compatible"):
        cv_error_ci(object(), X, y, train_size=3, loss="squared")
    with pytest.raises(TypeError, match="`est_b` must be"):
        compare_learners(LinearRegression(), "tree", X, y, train_size=3, loss="squared")
    with pytest.raises(ValueError, match="`loss` must be one of"):
        cv_error_ci(LinearRegression(), X, y, train_size=3, loss="hinge")
    with pytest.raises(ValueError, match=r"`loss` must be within its declared range \[0, 1\]"):
        cv_error_ci(LinearRegression(), X, y, train_size=3, loss=lambda t, p: 2 + 0 * t,
                    loss_range=(0, 1), n_draws=5)
    with pytest.raises(ValueError, match="`method` must be one of"):
        cv_error_ci(LinearRegression(), X, y, train_size=3, loss="squared", method="boot")
    with pytest.raises(ValueError, match="`y` and `X`|`X` and `y`"):
        cv_error_ci(LinearRegression(), X, y[:-1], train_size=3, loss="squared")
    ycls = (y > 0).astype(int)
    with pytest.raises(ValueError, match="n >= 2g \\+ 4"):
        cv_error_ci(LogisticRegression(), X, ycls, train_size=9, loss="auc")
    with pytest.raises(TypeError, match="`n_draws` must be an integer"):
        cv_error_ci(LinearRegression(), X, y, train_size=3, loss="squared", n_draws="many")


def test_intervals_clipped_to_declared_loss_range():
    res = CVErrorResult(estimate=0.95, std_error=0.1, df=10.0, interval_method="t", loss="auc",
                        loss_range=(0.0, 1.0))
    lo, hi = res.conf_int()
    assert hi == 1.0 and lo == pytest.approx(0.95 - stats.t.ppf(0.975, 10) * 0.1)
    d = CompareLearnersResult(estimate=-0.9, std_error=0.5, df=10.0, interval_method="t",
                              loss_range=(0.0, 1.0))
    assert d.conf_int().low == -1.0


def test_zero_loss_log_interval_falls_back_to_t(rng):
    X, y = rng.normal(size=(30, 1)), np.full(30, 2.0)  # constant y: every loss is 0
    with pytest.warns(SmallSampleWarning, match="log-scale interval is undefined"):
        res = cv_error_ci(MeanReg(), X, y, train_size=4, loss="squared", n_draws=20,
                          mc_tol=None, rng=0, interval="log")
    assert res.estimate == 0.0 and res.interval_method == "t"
    assert res.conf_int() == (0.0, 0.0)


def test_compare_auc_against_constant_scorer(rng):
    from sklearn.dummy import DummyClassifier

    X = rng.normal(size=(30, 2))
    y = (X[:, 0] + rng.normal(size=30) > 0).astype(int)
    kw = dict(train_size=6, loss="auc", n_draws=60, mc_tol=None, rng=0, design="pairs")
    res = compare_learners(Centroid(), DummyClassifier(), X, y, **kw)
    one = cv_error_ci(Centroid(), X, y, **kw)
    # a constant scorer ties every pair: its AUC kernel is exactly 1/2 with zero variance,
    # so the difference is the first learner's AUC - 1/2; its variance agrees with the
    # first learner's only up to Monte-Carlo error (the Ξ average runs over a subset of
    # the configurations of the Θ average)
    assert res.estimate_b == 0.5 and res.diagnostics["variance_b"] == pytest.approx(0, abs=1e-15)
    assert res.estimate == pytest.approx(one.estimate - 0.5, rel=1e-12)
    assert abs(res.variance_estimate - one.variance_estimate) < 4 * (
        res.variance_mc_se + one.variance_mc_se)


def test_partition_design_over_all_permutations_equals_complete_u_statistics():
    # Averaging the partition design over every permutation of 0..n-1 gives the complete
    # leave-p-out estimate and the complete U-statistic for theta^2 (each block and each
    # ordered pair of blocks is a uniform draw); exact enumeration, n = 7, g = 2 (r = 3).
    rng = np.random.default_rng(1)
    n, g = 7, 2
    X, y = rng.normal(size=(n, 1)), rng.normal(size=n)
    theta, xi = _exact_loss(X, y, g)
    task = DrawTask([MeanReg()], X, y, g, "squared", 1, design="partition")
    rows = np.array([task._one_partition(np.array(p))
                     for p in itertools.permutations(range(n))])
    assert rows[:, 2].sum() / rows[:, 0].sum() == pytest.approx(theta, rel=1e-12)
    assert rows[:, 4].sum() / rows[:, 1].sum() == pytest.approx(xi, rel=1e-12)


def test_partition_design_agrees_with_pairs_and_counts_fits(rng):
    X, y = rng.normal(size=(40, 1)), rng.normal(size=40)
    kw = dict(train_size=5, loss="squared", mc_tol=None, rng=3)
    a = cv_error_ci(MeanReg(), X, y, n_draws=2000, **kw)
    b = cv_error_ci(MeanReg(), X, y, design="partition", n_draws=300, **kw)
    assert b.n_fits == 300 * 8 and b.call["design"] == "partition"
    assert abs(a.estimate - b.estimate) < 4 * np.hypot(a.mc_se, b.mc_se)
    assert abs(a.variance_estimate - b.variance_estimate) < 4 * np.hypot(
        a.variance_mc_se, b.variance_mc_se)
    c = compare_learners(MeanReg(), DummyRegressor(), X, y, n_draws=50, **kw)
    assert c.n_fits == 2 * 50 * 8
