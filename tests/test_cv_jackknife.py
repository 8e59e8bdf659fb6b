"""Delete-one jackknife of (Θ̂, V̂) from the draws, and the coupling-corrected skew interval.

Expected values are computed independently: the delete-one estimates by listing every
kernel value and product of the same draws and dropping those that involve o; the
corrected quantiles by the first-order Cornish–Fisher expansion E T + κ₃(T)(q² − 1)/6.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats
from test_cv_variance import MeanReg

from evalstats.cv_variance import compare_learners, cv_error_ci
from evalstats.cv_variance._draws import DrawTask
from evalstats.cv_variance._jackknife import coupling, delete_one
from evalstats.cv_variance._results import skew_limits


def _evaluations(perm, y, g, design):
    """Every Θ value and Ξ product of one draw, with the observations each involves."""
    def gam(L, i):
        return (y[i] - y[list(L)].mean()) ** 2

    n = len(y)
    blocks = ([perm[:g], perm[g:2 * g]] if design == "pairs"
              else [perm[k * g:(k + 1) * g] for k in range(n // g)])
    theta, xi = [], []
    for L in blocks:
        theta += [(gam(L, i), set(L) | {i}) for i in range(n) if i not in L]
    pairs = ([(0, 1)] if design == "pairs" else
             [(a, b) for a, b in itertools.permutations(range(len(blocks)), 2)])
    for a, b in pairs:
        La, Lb = blocks[a], blocks[b]
        rest = [k for k in range(n) if k not in La and k not in Lb]
        xi += [(gam(La, i) * gam(Lb, j), set(La) | set(Lb) | {i, j})
               for i in rest for j in rest if i != j]
    return theta, xi


@pytest.mark.parametrize("design", ["pairs", "partition"])
def test_delete_one_values_match_listing_every_kernel_value(design):
    rng = np.random.default_rng(3)
    n, g, draws = 9, 2, 14
    y = rng.normal(size=n)
    X = np.zeros((n, 1))
    _, acc = DrawTask([MeanReg()], X, y, g, "squared", draws, design)(0,
                                                                        np.random.default_rng(8))
    perm_rng = np.random.default_rng(8)  # the task draws one permutation per draw, in order
    evals = [_evaluations(perm_rng.permutation(n), y, g, design) for _ in range(draws)]
    for half in (0, 1):
        th_o, v_o = delete_one(acc[0, 6:], half, g)
        for o in range(n):
            t = [v for j, (th, _) in enumerate(evals) if j % 2 == half for v, s in th
                 if o not in s]
            x = [v for j, (_, xs) in enumerate(evals) if j % 2 == half for v, s in xs
                 if o not in s]
            assert th_o[o] == pytest.approx(np.mean(t), rel=1e-12)
            assert v_o[o] == pytest.approx(np.mean(t) ** 2 - np.mean(x), rel=1e-9, abs=1e-12)


def test_coupling_is_nan_without_jackknife_rows_or_variance():
    jk = np.zeros((8, 10))
    assert np.isnan(coupling(jk, 2, 0.1))  # empty halves
    assert np.isnan(coupling(jk, 0, 0.1))  # g = 0: fixed test set
    assert np.isnan(coupling(np.ones((8, 10)), 2, -1.0))  # V̂ <= 0


def test_coupling_of_the_gaussian_mean_design_is_near_its_skewness():
    """Mean predictor, squared loss, y ~ N(0, 1): Θ̂ = (1 + 1/g)s², V̂ ≈ Θ̂²·(ancillary), so
    ρ = Cov(Θ̂, V̂)/σ³ = 2σ/θ = √(8/(n − 1)) = 0.45 at n = 40 (the skewness of s²)."""
    rng = np.random.default_rng(11)
    rho = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(30):
            y = rng.normal(size=40)
            res = cv_error_ci(MeanReg(), np.zeros((40, 1)), y, train_size=5, loss="squared",
                              n_draws=400, mc_tol=None, rng=rng)
            rho.append(res.coupling)
    assert 0.25 < np.median(rho) < 0.65  # 30 data sets; the sign and size, not 2 digits


@pytest.mark.parametrize("gamma, rho, c", [(0.004, -0.006, 0.002), (-0.006, 0.002, 0.0),
                                           (0.002, 0.002, -0.004)])
def test_skew_limits_with_coupling_match_cornish_fisher_to_first_order(gamma, rho, c):
    q = 1.96
    mean_t = -(rho + c) / 2  # E T and κ₃(T) of the expansion in skew_limits' docstring
    k3 = gamma - 3 * rho - 3 * c
    upper = q + mean_t + k3 * (q * q - 1) / 6  # T's 97.5 % quantile -> lower limit
    lower = -q + mean_t + k3 * (q * q - 1) / 6
    k_lo, k_hi = skew_limits(q, gamma, c, coupling=rho)
    assert k_lo == pytest.approx(upper, abs=1e-4)  # first-order terms: ~5e-3
    assert k_hi == pytest.approx(-lower, abs=1e-4)


def test_skew_limits_with_coupling_equal_to_skewness_is_the_studentized_mean_rule():
    assert skew_limits(2.0, 0.3, -0.1, coupling=0.3) == pytest.approx(skew_limits(2.0, 0.3, -0.1))


def _compare_means(y, seed, interval="t_skew"):
    """The training mean vs half of it (strongly correlated learners), 200 draws, g = 8;
    the coupling-corrected test (the default before the score-type one)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compare_learners(MeanReg(), DummyShrunk(), np.zeros((len(y), 1)), y,
                                train_size=8, loss="squared", n_draws=200, mc_tol=None,
                                rng=seed, interval=interval)


def test_compare_learners_reports_coupling_and_a_skew_interval():
    from evalstats.cv_variance._results import SKEW_CUBIC_FLOOR, skew_shrink

    rng = np.random.default_rng(6)
    y = rng.normal(size=40) + 0.5
    seen = set()
    for seed in range(4):
        res = _compare_means(y, seed)
        assert np.isfinite(res.coupling) and res.interval_method == "t_skew"
        lo, hi = res.conf_int()
        q = float(stats.t.ppf(0.975, res.df))
        gamma, rho = res._skew_terms()
        lam = skew_shrink(q, gamma, coupling=rho)
        assert res.diagnostics["skew_shrink"] == pytest.approx(lam)
        seen.add(lam < 1)
        # shrunk cubic by hand: A·λ, B = γ/6, limits h⁻¹(±q)
        A = lam * (3 * np.clip(rho, -1, 1) - np.clip(gamma, -1, 1)) / 6
        B = np.clip(gamma, -1, 1) / 6
        k_lo = (np.cbrt(1 + 3 * A * (q - B)) - 1) / A
        k_hi = -(np.cbrt(1 + 3 * A * (-q - B)) - 1) / A
        assert min(1 + 3 * A * (q - B), 1 + 3 * A * (-q - B)) >= SKEW_CUBIC_FLOOR - 1e-12
        assert max(k_lo, k_hi) <= 1.72 * (q + abs(B))  # the documented cap
        assert lo == pytest.approx(res.estimate - k_lo * res.std_error)
        assert hi == pytest.approx(res.estimate + k_hi * res.std_error)
        T = res.estimate / res.std_error
        h = T + A * T * T + A * A * T ** 3 / 3 + B
        assert res.p_value == pytest.approx(2 * stats.t.sf(abs(h), res.df))
        assert res.p_value == pytest.approx(res.diagnostics["p_value_t_skew"])
        assert any("was shrunk" in n for n in res.notes) is (lam < 1)
    assert seen == {True, False}  # both branches are exercised


class DummyShrunk(MeanReg):
    """Half the learning-set mean."""

    def fit(self, X, y):
        self.m_ = 0.5 * float(np.mean(y))
        return self


@pytest.mark.parametrize("seed, floored", [(5, True), (0, False)])
def test_variance_below_its_leading_term_is_raised_to_it(seed, floored):
    """Var(U) ≥ m²ζ₁/n (Hoeffding 1948): a V̂ below the leading term V̂₁ from the same draws
    is replaced by V̂₁ in the standard error (with a note); V̂ itself is still reported."""
    from test_cv_variance import Centroid

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + rng.normal(size=40) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = cv_error_ci(Centroid(), X, y, train_size=5, n_draws=300, mc_tol=None, rng=seed,
                          progress=False)
    assert (res.leading_variance > res.variance_estimate > 0) is floored
    used = max(res.variance_estimate, res.leading_variance) if floored else res.variance_estimate
    assert res.std_error ** 2 == pytest.approx(used + res.mc_se ** 2, rel=1e-12)
    assert any("leading (first-order) term" in n for n in res.notes) is floored
    assert res.variance_fallback == ""


@pytest.mark.parametrize("gamma, rho", [(-0.8, -0.5), (0.3, 0.3), (0.1, -0.4)])
def test_skew_statistic_inverts_the_skew_limits(gamma, rho):
    """0 lies on the boundary of the skew interval at the level where |h(T)| = q."""
    from evalstats.cv_variance._results import skew_statistic

    for q in (1.5, 1.96, 2.4):
        for floor in (None, 0.125, 0.6):  # the shrunk cubic (compare_learners) too
            k_lo, k_hi = skew_limits(q, gamma, coupling=rho, floor=floor)
            kw = dict(coupling=rho, q=q, floor=floor)
            assert skew_statistic(k_lo, gamma, **kw) == pytest.approx(q, abs=1e-9)
            assert skew_statistic(-k_hi, gamma, **kw) == pytest.approx(-q, abs=1e-9)


def test_compare_p_value_t_skew_matches_inverting_the_skew_interval():
    """At the result's level, p < α iff 0 lies outside the interval; where the cubic is
    not shrunk at either level, 0 is on the boundary of the interval at level 1 − p."""
    from evalstats.cv_variance._results import skew_shrink

    rng = np.random.default_rng(9)
    y = rng.normal(size=40) + 0.4
    hits = 0
    for seed in range(6):
        res = _compare_means(y, seed)
        p = res.diagnostics["p_value_t_skew"]
        assert 0 < p < 1
        lo, hi = res.conf_int()
        assert (p < 0.05) is not (lo <= 0 <= hi)
        gamma, rho = res._skew_terms()
        qs = [float(stats.t.ppf(x, res.df)) for x in (0.975, 1 - p / 2)]
        if all(skew_shrink(q, gamma, coupling=rho) == 1.0 for q in qs):
            hits += 1
            lo, hi = res.conf_int(1 - p, method="t_skew")  # 0 on the boundary
            assert min(abs(lo), abs(hi)) == pytest.approx(0.0,
                                                          abs=1e-9 * (1 + abs(res.estimate)))
    assert hits >= 1


def test_skew_cap_closed_form():
    from evalstats.cv_variance._results import SKEW_CUBIC_FLOOR, skew_cap

    # floor 1/8: cube root 1/2, so the cap is 3 (1 − 1/2) / (7/8) = 12/7
    assert SKEW_CUBIC_FLOOR == 0.125 and skew_cap() == pytest.approx(12 / 7)
    q, gamma, rho = 2.1, -0.9, -1.0  # far past the flat point
    k_lo, k_hi = skew_limits(q, gamma, coupling=rho, floor=SKEW_CUBIC_FLOOR)
    assert max(k_lo, k_hi) == pytest.approx(skew_cap() * (q + abs(gamma) / 6), rel=1e-9)
