"""Score-type test and interval of ``compare_learners(interval="t_score")``.

Expected values are computed independently: the interval limits by numerical root finding
(``scipy.optimize.brentq``) of |u|/√max(1 − ρu/2, φ) = q on each side, the test by the
same formula written out, and the jackknife moments from the delete-one values (which
``test_cv_jackknife`` checks against a listing of every kernel value).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import optimize, stats
from test_cv_jackknife import DummyShrunk
from test_cv_variance import MeanReg

from evalstats.cv_variance import compare_learners
from evalstats.cv_variance._draws import DrawTask
from evalstats.cv_variance._jackknife import delete_one, jackknife_moments
from evalstats.cv_variance._score import SCORE_FLOOR, score_limits, score_statistic


@pytest.mark.parametrize("rho", [-1.0, -0.6, -0.2, 0.3, 0.8, 1.0, 2.5])
@pytest.mark.parametrize("q", [1.645, 2.2, 3.5])
def test_score_limits_solve_the_score_equation(rho, q):
    r = float(np.clip(rho, -1, 1))

    def excess(u):
        return abs(u) / np.sqrt(max(1 - 0.5 * r * u, SCORE_FLOOR)) - q

    k_lo, k_hi = score_limits(q, rho)
    assert k_lo == pytest.approx(optimize.brentq(excess, 0, 100), rel=1e-10)
    assert k_hi == pytest.approx(-optimize.brentq(excess, -100, 0), rel=1e-10)
    assert score_statistic(k_lo, rho) == pytest.approx(q)       # the limit is on the edge


def test_score_interval_without_coupling_is_the_t_interval():
    assert score_limits(2.1, 0.0) == (2.1, 2.1)
    assert score_limits(2.1, float("nan")) == (2.1, 2.1)
    assert score_statistic(1.3, float("nan")) == 1.3


def test_score_limits_are_nested_across_levels():
    for rho in (-1.0, -0.3, 0.4, 1.0):
        lims = np.array([score_limits(q, rho) for q in np.linspace(0.5, 4, 30)])
        assert np.all(np.diff(lims, axis=0) > 0)


def test_compare_learners_score_test_agrees_with_its_interval():
    rng = np.random.default_rng(21)
    y = rng.normal(size=40) + 0.6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = compare_learners(MeanReg(), DummyShrunk(), np.zeros((40, 1)), y, train_size=8,
                               loss="squared", n_draws=200, mc_tol=None, rng=3,
                               interval="t_score")
    assert res.interval_method == "t_score" and np.isfinite(res.coupling)
    T = res.estimate / res.std_error
    z = T / np.sqrt(max(1 - 0.5 * np.clip(res.coupling, -1, 1) * T, SCORE_FLOOR))
    assert res.p_value == pytest.approx(2 * stats.t.sf(abs(z), res.df), rel=1e-12)
    assert res.diagnostics["p_value_t_score"] == res.p_value
    for level in (0.5, 0.8, 0.9, 0.95, 0.99):
        lo, hi = res.conf_int(confidence_level=level)
        assert (res.p_value < 1 - level) == (not lo <= 0 <= hi)
        k_lo, k_hi = score_limits(float(stats.t.ppf((1 + level) / 2, res.df)), res.coupling)
        assert lo == pytest.approx(res.estimate - k_lo * res.std_error)
        assert hi == pytest.approx(res.estimate + k_hi * res.std_error)


def test_jackknife_moments_are_the_cross_half_products_of_the_delete_one_values():
    rng = np.random.default_rng(4)
    n, g = 12, 3
    y = rng.normal(size=n)
    _, acc = DrawTask([MeanReg()], np.zeros((n, 1)), y, g, "squared", 60, "pairs")(
        0, np.random.default_rng(9))
    (ta, va), (tb, vb) = delete_one(acc[0, 6:], 0, g), delete_one(acc[0, 6:], 1, g)
    ta, va, tb, vb = (x - x.mean() for x in (ta, va, tb, vb))
    c = (n - 1) / n
    var_t, cov, var_v = jackknife_moments(acc[0, 6:], g)
    assert var_t == pytest.approx(c * np.sum(ta * tb), rel=1e-12)
    assert cov == pytest.approx(c * 0.5 * np.sum(ta * vb + tb * va), rel=1e-12)
    assert var_v == pytest.approx(c * np.sum(va * vb), rel=1e-12)
    assert all(np.isnan(jackknife_moments(np.zeros((8, n)), g)))    # empty halves


def _nested_pair(seed, n=40):
    """Nearest class mean on x₁ vs on (x₁, x₂): learners that share most of their fit, whose
    difference is mostly second order (V̂ often far below Var(Θ̂), sometimes ≤ 0)."""
    from test_cv_variance import Centroid

    class OnFirst(Centroid):
        def fit(self, X, y):
            return super().fit(X[:, :1], y)

        def predict(self, X):
            return super().predict(X[:, :1])

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (rng.random(n) < 1 / (1 + np.exp(-(X[:, 0] + 0.5 * X[:, 1])))).astype(int)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        res = compare_learners(OnFirst(), Centroid(), X, y, train_size=10, n_draws=100,
                               mc_tol=None, rng=seed, progress=False)
    return res, rec


def test_jackknife_variance_floors_the_difference_variance():
    """se² = max(V̂, V̂₁, Var_J) + se_MC², where Var_J is the cross-half jackknife variance
    (Efron–Stein: biased up); V̂ ≤ 0 falls back to max(Var_J, V̂₁) with a warning."""
    from evalstats._warnings import NegativeVarianceWarning

    seen = set()
    for seed in range(12):
        res, rec = _nested_pair(seed)
        v, v1 = res.variance_estimate, res.leading_variance
        jk = res.diagnostics["jackknife"]["var_theta"]
        used = max(v, v1, jk) if v > 0 else max(jk, v1)
        assert res.std_error ** 2 == pytest.approx(used + res.mc_se ** 2, rel=1e-12)
        if v <= 0:
            seen.add("fallback")
            assert res.variance_fallback == ("jackknife" if jk >= v1 else "leading_term")
            assert any(issubclass(w.category, NegativeVarianceWarning) for w in rec)
        elif jk > max(v, v1):
            seen.add("jackknife")
            assert any("jackknife variance" in n for n in res.notes)
            assert res.variance_fallback == ""
        else:
            seen.add("unbiased")
    assert {"jackknife", "unbiased"} <= seen


def test_cv_error_ci_reports_the_jackknife_moments_of_its_draws():
    from evalstats.cv_variance import cv_error_ci

    rng = np.random.default_rng(2)
    y = rng.normal(size=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = cv_error_ci(MeanReg(), np.zeros((30, 1)), y, train_size=5, loss="squared",
                          n_draws=200, mc_tol=None, rng=1)
    jk = res.diagnostics["jackknife"]
    assert set(jk) == {"var_theta", "cov", "var_v"}
    # the coupling is the same cross-half covariance over V̂^{3/2}
    assert res.coupling == pytest.approx(jk["cov"] / res.variance_estimate ** 1.5, rel=1e-12)
    assert jk["var_theta"] > 0      # Efron–Stein: an upper-biased variance of Θ̂


def test_tidy_pairs_each_interval_with_its_own_test():
    """``tidy(method=m)`` shows the p-value of test ``m``: the t interval excluded 0 beside
    the score test's p = 0.10 (the t test's own p was 0.023). Each row's interval excludes 0
    exactly when its p-value is below 0.05."""
    from sklearn.dummy import DummyClassifier
    from sklearn.naive_bayes import GaussianNB

    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] + 0.8 * rng.normal(size=40) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = compare_learners(GaussianNB(), DummyClassifier(), X, y, train_size=10,
                             n_draws=100, mc_tol=None, rng=1, progress=False)
    assert r.tidy().iloc[0]["p_value"] == r.p_value
    assert r.tidy(method="t").iloc[0]["p_value"] == r.diagnostics["p_value_t"]
    for m in ("t", "t_score", "t_skew", "normal"):
        row = r.tidy(method=m).iloc[0]
        excludes = not (row["conf_low"] <= 0 <= row["conf_high"])
        assert excludes == (row["p_value"] < 0.05), m
