"""cv_variance: the skewness-corrected studentized intervals (``*_skew``)."""

from __future__ import annotations

import numpy as np
import pytest
from _models import MeanReg
from scipy import stats
from sklearn.dummy import DummyRegressor
from test_cv_df import _exact_acc, brute_terms

from evalstats.cv_variance import CVErrorResult, compare_learners, cv_error_ci
from evalstats.cv_variance._draws import projection_skewness
from evalstats.cv_variance._results import skew_limits, skew_shift


def test_skewness_g0_is_the_adjusted_sample_skewness_over_sqrt_n():
    # g = 0: Θ̂ is the mean of n fixed losses; its skewness is G1/√n (scipy's bias=False)
    rng = np.random.default_rng(11)
    y = rng.exponential(size=25)
    X = np.zeros((25, 1))
    zero = DummyRegressor(strategy="constant", constant=0.0).fit(X, y)
    res = cv_error_ci(zero, X, np.sqrt(y), train_size=0, loss="squared", rng=1)
    assert res.estimate == pytest.approx(y.mean(), rel=1e-12)
    assert res.skewness == pytest.approx(stats.skew(y, bias=False) / 5, rel=1e-10)


def test_skewness_equals_brute_force_enumeration():
    y = np.random.default_rng(3).normal(size=8)
    a, theta = brute_terms(y, 2)  # a_k by enumerating every learning set
    got = projection_skewness(_exact_acc(y, 2), theta, 2, None)
    assert got == pytest.approx(stats.skew(a, bias=False) / np.sqrt(8), rel=1e-10)


def test_skewness_closed_form_mean_design():
    # mean predictor, squared loss, y ~ N(0, 1): ψ_k = (1 + 1/g)(y_k² − 1) (see
    # test_projection_df_closed_form_mean_design), so skew(Θ̂) = skew(χ²₁)/√n = √8/√n
    n, g = 400_000, 4
    u = np.random.default_rng(5).normal(size=n) ** 2 - 1
    acc = np.ones((6, n))
    acc[0], acc[3] = 1 + 1 / g + u, 1 + 1 / g + u / g ** 2
    acc[2], acc[5] = acc[0] ** 2, acc[3] ** 2
    got = projection_skewness(acc, 1 + 1 / g, g, None) * np.sqrt(n)
    assert got == pytest.approx(np.sqrt(8), rel=0.05)
    assert np.isnan(projection_skewness(np.zeros((6, 4)), 0.5, 2, None))


def _exact_quantiles(n, scale, reps=400_000, seed=12):
    """Quantiles 2.5 % / 97.5 % of the studentized mean of n exponentials (Monte Carlo)."""
    x = np.random.default_rng(seed).exponential(size=(reps, n))
    m, se = x.mean(1), x.std(1, ddof=1) / np.sqrt(n)
    T = (m - 1) / se if scale == "t" else np.log(m) / (se / m)
    return np.quantile(T, [0.025, 0.975])


@pytest.mark.parametrize("scale", ["t", "log"])
def test_corrected_quantiles_against_exact_exponential_mean(scale):
    # known answer: the studentized mean of n = 20 Exp(1) draws, γ = skew(mean) = 2/√n,
    # on the raw scale c = 0, on the log scale c = −σ/θ = −1/√n. Exact quantiles by
    # Monte Carlo (400 000 samples, MC error ≈ 0.01): raw ≈ (−3.16, 1.64), log ≈
    # (−2.46, 1.97). On the log scale the corrected limits (−2.37, 1.88) are much closer
    # to them than ±q = ±2.09; on the raw scale (−4.61, 1.60) over-correct the long tail.
    n = 20
    q = stats.t.ppf(0.975, n - 1)
    k_lo, k_hi = skew_limits(q, 2 / np.sqrt(n), 0.0 if scale == "t" else -1 / np.sqrt(n))
    exact = _exact_quantiles(n, scale)
    if scale == "log":
        plain = np.abs(exact - [-q, q]).sum()
        assert np.abs(exact - [-k_hi, k_lo]).sum() < 0.4 * plain
    # under the exact law of T the corrected interval balances the two tails (misses
    # below θ: T < −k_hi; above: T > k_lo). Measured (100 000 samples): raw scale 0.077
    # below / 0.006 above -> 0.006 / 0.027, two-sided coverage 0.917 -> 0.967; log scale
    # 0.046 / 0.018 -> 0.030 / 0.029, coverage 0.936 -> 0.941.
    x = np.random.default_rng(13).exponential(size=(100_000, n))
    m, se = x.mean(1), x.std(1, ddof=1) / np.sqrt(n)
    T = (m - 1) / se if scale == "t" else np.log(m) / (se / m)
    gap_plain = abs(np.mean(T < -q) - np.mean(T > q))
    gap_skew = abs(np.mean(T < -k_hi) - np.mean(T > k_lo))
    assert gap_skew < 0.5 * gap_plain
    assert np.mean((-k_hi <= T) & (T <= k_lo)) > np.mean(np.abs(T) <= q)


def test_skew_limits_first_order_and_monotone():
    q = stats.t.ppf(0.975, 12)
    for gam, c in ((0.01, 0.0), (0.01, -0.005), (-0.02, 0.01)):
        k_lo, k_hi = skew_limits(q, gam, c)
        s = skew_shift(q, gam, c)
        assert k_lo == pytest.approx(q - s, abs=3 * gam * gam * q ** 3)
        assert k_hi == pytest.approx(q + s, abs=3 * gam * gam * q ** 3)
    assert skew_limits(q, 0.0, 0.0) == pytest.approx((q, q))
    assert skew_limits(q, float("nan")) == (q, q)
    # the first-order quantile q − s turns down for large γ; the transformed one does not
    qs = np.linspace(0.5, 4, 50)
    lows = [skew_limits(v, 0.8, 0.0)[0] for v in qs]
    assert np.all(np.diff(lows) > 0)
    assert np.any(np.diff([v - skew_shift(v, 0.8) for v in qs]) < 0)


def test_skew_intervals_move_towards_the_long_tail():
    base = dict(estimate=1.0, std_error=0.2, df=12.0, loss="squared",
                loss_range=(0.0, np.inf), method="ustat")
    q = stats.t.ppf(0.975, 12)
    r = CVErrorResult(interval_method="t_skew", skewness=0.4, **base)
    k_lo, k_hi = skew_limits(q, 0.4)
    assert r.conf_int() == pytest.approx((1 - k_lo * 0.2, 1 + k_hi * 0.2))
    lo_t, hi_t = r.conf_int(method="t")
    assert r.conf_int()[0] > lo_t and r.conf_int()[1] > hi_t  # moved up
    # log scale: c = −se/Θ̂ = −0.2 takes part of the shift back
    kl_lo, kl_hi = skew_limits(q, 0.4, -0.2)
    assert k_lo < kl_lo < q < kl_hi < k_hi
    assert r.conf_int(method="log_skew") == pytest.approx((np.exp(-kl_lo * 0.2),
                                                           np.exp(kl_hi * 0.2)))
    # no skewness available: the uncorrected interval
    nan = CVErrorResult(interval_method="log_skew", skewness=float("nan"), **base)
    assert nan.conf_int() == nan.conf_int(method="log")


def test_cv_error_ci_accepts_skew_intervals():
    rng = np.random.default_rng(14)
    y, X = rng.normal(size=30), np.zeros((30, 1))
    kw = dict(train_size=5, loss="squared", n_draws=200, mc_tol=None, rng=0)
    res = cv_error_ci(MeanReg(), X, y, interval="log_skew", **kw)
    assert res.interval_method == "log_skew" and np.isfinite(res.skewness)
    assert res.conf_int() == res.conf_int(method="log_skew")
    with pytest.raises(ValueError, match="interval"):
        cv_error_ci(MeanReg(), X, y, interval="logit_skew", **kw)


def test_compare_learners_records_the_difference_skewness():
    rng = np.random.default_rng(15)
    y, X = rng.normal(size=30), np.zeros((30, 1))
    zero = DummyRegressor(strategy="constant", constant=0.0)
    res = compare_learners(MeanReg(), zero, X, y, train_size=5, loss="squared",
                           n_draws=40, mc_tol=None, rng=0)
    assert np.isfinite(res.skewness) and res.glance()["skewness"].iloc[0] == res.skewness
