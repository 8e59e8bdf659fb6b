"""cv_variance: the degrees of freedom of the interval estimated from the draws."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from _models import MeanReg
from sklearn.dummy import DummyRegressor

from evalstats.cv_variance import compare_learners, cv_error_ci, data_df
from evalstats.cv_variance._draws import DrawTask, projection_df, projection_terms
from evalstats.cv_variance._engine import interval_data_df, ustat_df


def _exact_acc(y, g):
    """Accumulators of every learning set of size g (no Monte-Carlo noise: the
    sums of squares are set so that the noise terms are exactly zero)."""
    n = len(y)
    acc = np.zeros((6, n))
    for L in itertools.combinations(range(n), g):
        out = np.setdiff1d(np.arange(n), L)
        loss = (y[out] - y[list(L)].mean()) ** 2
        acc[0, out] += loss
        acc[1, out] += 1
        acc[3, list(L)] += loss.mean()
        acc[4, list(L)] += 1
    acc[2] = acc[0] ** 2 / acc[1]
    acc[5] = acc[3] ** 2 / acc[4]
    return acc


def brute_terms(y, g):
    """First-order terms a_k of Θ̂ and θ̂, written out by direct enumeration."""
    n = len(y)
    sets = list(itertools.combinations(range(n), g))
    t = np.array([np.mean([(y[k] - y[list(L)].mean()) ** 2 for L in sets if k not in L])
                  for k in range(n)])
    held = {L: np.mean([(y[j] - y[list(L)].mean()) ** 2 for j in range(n) if j not in L])
            for L in sets}
    lk = np.array([np.mean([held[L] for L in sets if k in L]) for k in range(n)])
    theta = np.mean([(y[j] - y[list(L)].mean()) ** 2 for L in sets for j in range(n)
                     if j not in L])
    return ((t - t.mean()) + g * (lk - lk.mean())) / n, theta


def _brute_df(y, g, scale):
    """The same df written out from its definition, by direct enumeration."""
    n = len(y)
    a, theta = brute_terms(y, g)
    c = {"t": 0.0, "log": 2 / theta}[scale]
    b = a ** 2 / np.sum(a ** 2) - c * a
    return 2 / (n * np.var(b, ddof=1)), theta


@pytest.mark.parametrize("scale", ["t", "log"])
def test_projection_df_equals_brute_force_enumeration(scale):
    y = np.random.default_rng(3).normal(size=8)
    g = 2
    expected, theta = _brute_df(y, g, scale)
    got = projection_df(_exact_acc(y, g), theta, g, None, scale, (0.0, np.inf))
    assert got == pytest.approx(expected, rel=1e-10)


def test_projection_df_from_draws_approaches_the_exact_value():
    # Monte-Carlo draws (pairs design) instead of enumeration: the noise of the
    # per-observation means is subtracted, so the estimate is close to the exact one
    y = np.random.default_rng(4).normal(size=12)
    X = np.zeros((12, 1))
    exact, theta = _brute_df(y, 3, "log")
    _, acc = DrawTask([MeanReg()], X, y, 3, "squared", 6000)(0, np.random.default_rng(1))
    got = projection_df(acc[0], theta, 3, None, "log", (0.0, np.inf))
    assert got == pytest.approx(exact, rel=0.15)


def test_projection_df_closed_form_mean_design():
    # mean predictor, squared loss, y ~ N(0, 1): t_k - θ = y_k² - 1 and
    # l_k - θ = (y_k² - 1)/g² exactly (population projections), so
    # ψ_k = (1 + 1/g)(y_k² - 1), Θ = 1 + 1/g and the delta method gives
    # df_log = 2nσ⁴/Var(ψ² - 2σ²ψ/Θ) = n/3 and df_t = 2nσ⁴/Var(ψ²) = 2n/14 (χ²₁ moments
    # μ2 = 2, μ3 = 8, μ4 = 60).
    n, g = 400_000, 4
    u = np.random.default_rng(5).normal(size=n) ** 2 - 1
    theta = 1 + 1 / g
    acc = np.ones((6, n))
    acc[0] = theta + u
    acc[3] = theta + u / g ** 2
    acc[2] = acc[0] ** 2
    acc[5] = acc[3] ** 2
    assert projection_df(acc, theta, g, None, "log") / n == pytest.approx(1 / 3, rel=0.03)
    assert projection_df(acc, theta, g, None, "t") / n == pytest.approx(2 / 14, rel=0.1)


def test_projection_terms_auc_centres_within_class():
    rng = np.random.default_rng(6)
    acc = rng.uniform(1, 2, size=(6, 10))
    y = np.array([0, 1] * 5)
    a, noise, groups = projection_terms(acc, 0.5, 0, y)
    assert np.array_equal(groups, y) and np.all(noise >= 0)
    for c in (0, 1):
        assert a[y == c].sum() == pytest.approx(0, abs=1e-12)
    assert projection_terms(np.zeros((6, 4)), 0.5, 2, None) is None  # no draws: None
    assert np.isnan(projection_df(np.zeros((6, 4)), 0.5, 2, None))


def test_interval_data_df_rules():
    cal = data_df(60, 10)
    assert cal == pytest.approx(59 / 3)
    assert interval_data_df(60, 10, 50.0, "min") == cal
    assert interval_data_df(60, 10, 7.0, "min") == 7.0
    assert interval_data_df(60, 10, 50.0, "estimated") == 50.0
    assert interval_data_df(60, 10, 0.5, "estimated") == 2.0  # floored
    assert interval_data_df(60, 10, 7.0, "calibrated") == cal
    assert interval_data_df(60, 10, float("nan"), "min") == cal
    assert interval_data_df(60, 0, 7.0, "min") == 59.0  # g = 0: s²/n has n − 1 df


def test_results_use_the_rule_and_record_both_dfs():
    rng = np.random.default_rng(7)
    y = rng.normal(size=40)
    X = np.zeros((40, 1))
    res = cv_error_ci(MeanReg(), X, y, train_size=8, loss="squared", n_draws=300,
                      mc_tol=None, rng=0)
    d = res.diagnostics
    est = d["data_df_estimated"]["t"]  # V̂'s own df, whatever the interval's scale
    assert set(d["data_df_estimated"]) == {"t", "log", "logit"}
    assert d["data_df_calibrated"] == data_df(40, 8)
    nu = ustat_df(40, res.variance_estimate, res.variance_mc_se, interval_data_df(40, 8, est))
    assert res.df == pytest.approx(nu, rel=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cmp = compare_learners(MeanReg(), DummyRegressor(constant=1.0, strategy="constant"),
                               X, y, train_size=8, loss="squared", n_draws=30, mc_tol=None,
                               rng=0)
    est = cmp.diagnostics["data_df_estimated"]  # t scale for a difference
    nu = ustat_df(40, cmp.variance_estimate, cmp.variance_mc_se, interval_data_df(40, 8, est))
    assert np.isfinite(est) and cmp.df == pytest.approx(nu, rel=1e-12)


def test_variance_df_closed_form_for_the_one_point_learner():
    # g = 1, mean predictor (it predicts its one training point), squared loss. A fit on
    # {j} scored on case k loses (y_k - y_j)^2, so with d_k = (y_k - ȳ)^2 and m2 = mean d:
    #   t_k = l_k = Σ_{j≠k} (y_k - y_j)^2 / (n - 1) = n (d_k + m2) / (n - 1),
    #   a_k = ((t_k - t̄) + g (l_k - l̄)) / n = 2 (d_k - m2) / (n - 1)   (Θ̂ = 2 s²).
    # V̂'s first-order terms are a_k² (V̂₁ = Σ a_k²), so the Satterthwaite df of V̂ is
    #   ν = 2 (Σ a²)² / (n · var(a², ddof=1)) = 2 (Σ e²)² / (n · var(e², ddof=1)),
    # e_k = d_k - m2, and on the log scale b_k = a_k²/V̂₁ - (2/Θ̂) a_k, ν = 2/(n var(b)).
    y = np.random.default_rng(8).exponential(size=9)
    n = y.size
    d = (y - y.mean()) ** 2
    e = d - d.mean()
    nu_t = 2 * np.sum(e ** 2) ** 2 / (n * np.var(e ** 2, ddof=1))
    a = 2 * e / (n - 1)
    theta = 2 * y.var(ddof=1)
    nu_log = 2 / (n * np.var(a ** 2 / np.sum(a ** 2) - 2 * a / theta, ddof=1))
    acc = _exact_acc(y, 1)
    assert projection_df(acc, theta, 1, None, "t") == pytest.approx(nu_t, rel=1e-12)
    assert projection_df(acc, theta, 1, None, "log") == pytest.approx(nu_log, rel=1e-12)
    assert projection_terms(acc, theta, 1, None)[0] == pytest.approx(a, rel=1e-12)
