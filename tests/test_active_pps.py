"""The without-replacement (πps) design: exact enumeration, boundaries, identifiability.

Sources of the expected values:
* Horvitz–Thompson / difference estimator of a total under Poisson sampling is unbiased with
  variance ``Σ (1 − π)/π · e²`` (e = residual), and ``Σ_S (1 − π)/π² e²`` is an unbiased
  estimator of it (Särndal, Swensson & Wretman 1992, §3.2 and §6.3) — checked here by
  enumerating all 2^N samples of a tiny pool, and through two adaptive batches (every sample
  path enumerated) for the martingale combination.
* Capped inclusion probabilities: compared with the textbook iterative capping (brute force).
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from _models import rare_pool_without_false_positives

import evalstats as es
from evalstats._warnings import UndefinedEstimateWarning
from evalstats.active import ActiveEvaluator, active_design, active_evaluate, estimate_from_labels
from evalstats.active._batches import BatchDesign, design_sample
from evalstats.active._design import (
    inclusion_probabilities,
    largest,
    pareto_sample,
    spec_coefficients,
)
from evalstats.active._intervals import interval
from evalstats.active._measures import measure_spec
from evalstats.active._proposals import pool_iv


def _capping_brute_force(shape, n, eps):
    size = len(shape)
    base = (1 - eps) * shape / shape.sum() + eps / size
    capped = np.zeros(size, bool)
    pi = np.empty(size)
    for _ in range(size + 1):
        free = ~capped
        c = (n - capped.sum()) / base[free].sum()
        pi[free] = c * base[free]
        pi[capped] = 1.0
        new = free & (pi >= 1)
        if not new.any():
            break
        capped |= new
    return np.minimum(pi, 1.0)


def test_inclusion_probabilities_match_iterative_capping():
    rng = np.random.default_rng(0)
    for _ in range(300):
        shape = rng.pareto(1.0, size=40)
        n = int(rng.integers(1, 40))
        eps = float(rng.choice([0.0, 0.1, 0.5]))
        pi = inclusion_probabilities(shape, n, eps)
        np.testing.assert_allclose(pi, _capping_brute_force(shape, n, eps), rtol=1e-12)
        assert pi.sum() == pytest.approx(n) and pi.max() <= 1.0
    assert np.all(inclusion_probabilities(np.ones(5), 7, 0.1) == 1.0)


def test_pareto_sample_has_fixed_size_and_near_target_inclusion():
    """Rosén's Pareto πps: exactly n items; inclusion frequencies ≈ π (20,000 runs,
    binomial SE ≤ 0.0035, tolerance 0.02)."""
    rng = np.random.default_rng(1)
    pi = inclusion_probabilities(np.array([5, 1, 1, 2, 0.5, 0.5, 3, 1, 0.2, 0.8]), 4, 0.1)
    counts = np.zeros(10)
    for _ in range(20_000):
        s = pareto_sample(pi, 4, rng)
        assert len(s) == 4 == len(set(s.tolist()))
        counts[s] += 1
    np.testing.assert_allclose(counts / 20_000, pi, atol=0.02)


@pytest.mark.parametrize("kind", ["beta", "ties", "heavy_top", "uniform"])
def test_largest_is_the_full_partition_on_large_pools(kind):
    """``largest`` (threshold from a subsample, then one pass) returns the same set as a
    full ``argpartition`` — on skewed, tied, top-heavy and flat values of 400,000 items,
    for k from 1 to 20,000 (the fallback path: 8k > N or too few values pass)."""
    rng = np.random.default_rng(5)
    size = 400_000
    v = {"beta": rng.beta(0.3, 8, size),
         "ties": np.round(rng.random(size), 2),
         "heavy_top": np.concatenate([np.full(3000, 1.0), rng.random(size - 3000) * 1e-3]),
         "uniform": np.full(size, 0.25)}[kind]
    for k in (1, 7, 1001, 3000, 20_000, 60_000):
        got = largest(v, k)
        assert got.shape == (k,) and np.unique(got).shape == (k,)
        ref = np.argpartition(v, size - k)[size - k:]
        kth = np.sort(v[ref])[0]                  # the k-th largest value
        assert np.all(v[got] >= kth)              # same set up to ties at the k-th value
        np.testing.assert_array_equal(np.sort(v[got]), np.sort(v[ref]))


def test_pareto_sample_on_a_large_pool_takes_the_smallest_keys():
    """Past ``LARGEST_SUBSAMPLE_FROM`` items the n smallest Pareto keys are found through
    ``largest``: the sample equals the brute-force sort of the keys (same random draws)."""
    size, n = 300_000, 500
    pi = inclusion_probabilities(np.random.default_rng(2).beta(0.3, 8, size), n, 0.1)
    s = pareto_sample(pi, n, np.random.default_rng(9))
    u = np.random.default_rng(9).random(size)
    with np.errstate(divide="ignore", invalid="ignore"):
        key = (u / (1 - u)) * ((1 - pi) / pi)
    key[pi >= 1] = -1.0
    np.testing.assert_array_equal(s, np.sort(np.argsort(key, kind="stable")[:n]))


def test_strata_model_in_blocks_equals_the_whole_pool_computation():
    """The stratified model fills its one-byte stratum index and its stratum means block by
    block (no full-size temporaries, for the 500 MB session target); on 2.5 million items
    (three blocks) they equal ``searchsorted`` and ``bincount`` over the whole pool, the
    in-range scores are used without a copy, and ``probabilities`` follows its formula."""
    from evalstats.active._design import StrataModel

    rng = np.random.default_rng(4)
    p = rng.beta(0.3, 8, 2_500_000)
    model = StrataModel(p, p)
    assert model.stratum.dtype == np.int8 and model.prior is p
    assert np.all(np.diff(model.stratum[np.argsort(p, kind="stable")]) >= 0)   # by rank
    s64 = model.stratum.astype(np.int64)
    mean = np.bincount(s64, weights=p) / np.bincount(s64)
    np.testing.assert_allclose(model.stratum_mean, np.maximum(mean, 1e-6), rtol=1e-9)
    idx = rng.choice(p.size, 500, replace=False)
    y = (rng.random(500) < 0.5).astype(float)
    n_s = np.bincount(s64[idx], minlength=model.n_strata)
    y_s = np.bincount(s64[idx], weights=y, minlength=model.n_strata)
    m_s = np.maximum(mean, 1e-6)
    expect = np.clip(p * ((10 * m_s + y_s) / (10 + n_s) / m_s)[s64], 0, 1)
    np.testing.assert_allclose(model.probabilities(idx, y), expect, rtol=1e-9)


def test_size_measure_power_takes_the_head_of_a_rare_pool_with_certainty():
    """``size_measure(power=p)`` is the ``p = ½`` size to the power ``2p`` (its definition),
    and on a rare pool (30 items at ``m = 0.4`` predicted negative, 100,000 at ``m = 10⁻⁴``,
    500 labels, ε = 0.1) the default ``p = 0.7`` labels the 30 informative items with
    certainty while ``p = ½`` gives them π ≈ 0.2 — worked by hand: with ``p = ½`` the tail
    holds ``Σ √v ≈ 10⁵ · 10⁻² = 1000`` of the size against ``30 · 0.49 ≈ 15`` for the
    head, so ``c ≈ 500 / 1015`` and ``π_head ≈ 0.9 · 0.49 · 500/1015 + …`` ≈ 0.22."""
    from evalstats.active._design import SIZE_POWER, size_measure

    m = np.concatenate([np.full(30, 0.4), np.full(100_000, 1e-4)])
    f = np.zeros_like(m)
    spec = measure_spec("f1")
    half = size_measure(m, f, spec, 0.5, power=0.5)
    np.testing.assert_allclose(size_measure(m, f, spec, 0.5, power=0.7), half ** 1.4,
                               rtol=1e-12)
    assert SIZE_POWER == 0.7
    pi_half = inclusion_probabilities(half, 500, 0.1)
    pi_def = inclusion_probabilities(size_measure(m, f, spec, 0.5), 500, 0.1)
    assert 0.15 < pi_half[:30].max() < 0.3
    assert np.all(pi_def[:30] == 1.0)
    assert pi_def[30:].min() > 0 and pi_def.sum() == pytest.approx(500)


# -- exact enumeration -------------------------------------------------------------------------

F6 = np.array([1, 1, 0, 0, 1, 0], float)
Y6 = np.array([1, 0, 1, 0, 1, 0], float)
M6 = np.array([0.8, 0.3, 0.2, 0.05, 0.6, 0.1])          # any model: unbiasedness holds


def _poisson_outcomes(pi):
    n = len(pi)
    for bits in itertools.product((0, 1), repeat=n):
        s = np.array(bits, bool)
        yield s, float(np.prod(np.where(s, pi, 1 - pi)))


@pytest.mark.parametrize("measure", ["f1", "precision", "recall", "accuracy"])
@pytest.mark.parametrize("use_model", [True, False])
def test_difference_estimator_of_totals_is_unbiased_with_exact_variance(measure, use_model):
    """All 2^6 Poisson samples: E[Â] = A, E[B̂] = B, Var(Â − G B̂) = Σ (1−π)/π e² and
    E[Σ_S (1−π)/π² e²] equals it (e = residual of the linearised ratio at the truth)."""
    spec = measure_spec(measure)
    c0, c1, d0, d1 = spec_coefficients(spec, F6)
    a, b = c0 + c1 * Y6, d0 + d1 * Y6
    m = M6 if use_model else np.zeros(6)
    pi = np.array([0.9, 0.4, 0.3, 0.2, 1.0, 0.5])
    g = a.sum() / b.sum()
    e = (c1 - g * d1) * (Y6 - m)
    mean_a = mean_b = mean_z2 = mean_v = 0.0
    for s, prob in _poisson_outcomes(pi):
        a_hat = np.sum(c0 + c1 * m) + np.sum(c1[s] * (Y6[s] - m[s]) / pi[s])
        b_hat = np.sum(d0 + d1 * m) + np.sum(d1[s] * (Y6[s] - m[s]) / pi[s])
        z = (a_hat - a.sum()) - g * (b_hat - b.sum())
        mean_a += prob * a_hat
        mean_b += prob * b_hat
        mean_z2 += prob * z ** 2
        mean_v += prob * np.sum((1 - pi[s]) * e[s] ** 2 / pi[s] ** 2)
    assert mean_a == pytest.approx(a.sum(), rel=1e-12)
    assert mean_b == pytest.approx(b.sum(), rel=1e-12)
    exact = float(np.sum((1 - pi) / pi * e ** 2))
    assert mean_z2 == pytest.approx(exact, rel=1e-10)
    assert mean_v == pytest.approx(exact, rel=1e-10)


def test_package_estimator_equals_formula_on_one_sample():
    """DesignSample.estimate() for one Poisson sample, recomputed by hand."""
    spec = measure_spec("f1")
    pi = np.array([0.9, 0.4, 0.3, 0.2, 1.0, 0.5])
    s = np.array([0, 1, 2, 4])
    stats = dict(n_target=pi.sum(), n_unlabeled=6.0, sum_m=M6.sum(), sum_f=[F6.sum()],
                 sum_fm=[(F6 * M6).sum()], zero_f1=[0], zero_f0=[0])
    ds = design_sample(s, Y6[s], F6[s], np.zeros(4, int), pi[s], M6[s], [stats], "poisson",
                       "difference")
    r = ds.estimate(spec)
    a_hat = np.sum(F6 * M6) + np.sum(F6[s] * (Y6[s] - M6[s]) / pi[s])
    b_hat = np.sum(0.5 * F6 + 0.5 * M6) + np.sum(0.5 * (Y6[s] - M6[s]) / pi[s])
    g = a_hat / b_hat
    e = (F6[s] - 0.5 * g) * (Y6[s] - M6[s])
    se = np.sqrt(np.sum((1 - pi[s]) * e ** 2 / pi[s] ** 2)) / b_hat
    assert r["estimate"] == pytest.approx(g, rel=1e-12)
    assert r["std_error"] == pytest.approx(se, rel=1e-12)


def test_calibrated_estimator_equals_greg_formula():
    """``estimator="calibrated"``: per prediction group g the residual ``y − m`` is regressed
    on ``(1, m)`` (weights 1/π) and the group total is ``Σ_{U_g}(δ_g + (1 + γ_g) m) +
    Σ_{S_g} e/π``; without the ridge the weighted normal equations make ``Σ_{S_g} e/π = 0``,
    so with every item uncertain the estimate is the assisting model's pool total
    (GREG with auxiliaries (1, m), Särndal et al. 1992, §6.5 and §7.6). ``(γ_g, δ_g)`` from
    ``numpy.polyfit`` (independent of the package). Three items per group, so
    MIN_CALIBRATION is lowered and the slope's shrinkage switched off for the check."""
    import evalstats.active._ht as ht
    spec = measure_spec("f1")
    f = np.array([1, 1, 1, 0, 0, 0, 0], float)
    y = np.array([1, 0, 1, 0, 1, 0, 0], float)
    m = np.array([0.9, 0.5, 0.6, 0.3, 0.2, 0.05, 0.4])
    pi = np.array([0.9, 0.4, 0.3, 0.2, 0.6, 0.5, 0.7])
    # an eighth pool item the sample missed (predicted negative, m = 0.1): with all seven
    # items of a seven-item pool drawn, the sample would be a census (measures known)
    m_pool, f_pool = np.r_[m, 0.1], np.r_[f, 0.0]
    stats = dict(n_target=pi.sum(), n_unlabeled=8.0, sum_m=m_pool.sum(),
                 sum_f=[f_pool.sum()], sum_fm=[(f_pool * m_pool).sum()], zero_f1=[0],
                 zero_f0=[0])
    s = np.arange(7)
    ds = design_sample(s, y, f, np.zeros(7, int), pi, m, [stats], "poisson", "calibrated")
    old = ht.MIN_CALIBRATION, ht.CALIBRATION_RIDGE, ht.SLOPE_SHRINKAGE
    ht.MIN_CALIBRATION, ht.CALIBRATION_RIDGE, ht.SLOPE_SHRINKAGE = 3, 0.0, False
    try:
        r = ds.estimate(spec)
    finally:
        ht.MIN_CALIBRATION, ht.CALIBRATION_RIDGE, ht.SLOPE_SHRINKAGE = old
    fit = {g: np.polyfit(m[f == g], (y - m)[f == g], 1, w=np.sqrt(1 / pi[f == g]))
           for g in (0, 1)}                                  # (γ_g, δ_g)
    total = {g: np.sum(fit[g][1] + (1 + fit[g][0]) * m_pool[f_pool == g]) for g in (0, 1)}
    tp, pos = total[1], total[1] + total[0]
    g = tp / (0.5 * f.sum() + 0.5 * pos)
    shift = np.where(f == 1, fit[1][1] + fit[1][0] * m, fit[0][1] + fit[0][0] * m)
    e = (f - 0.5 * g) * (y - m - shift)
    se = np.sqrt(np.sum((1 - pi) * e ** 2 / pi ** 2)) / (0.5 * f.sum() + 0.5 * pos)
    assert r["estimate"] == pytest.approx(g, rel=1e-10)
    assert r["std_error"] == pytest.approx(se, rel=1e-10)


def test_calibration_fit_is_the_penalised_weighted_least_squares():
    """``calibration_fit`` against a brute-force minimisation of
    ``Σ w (r − δ − γ m)² + (κ/n) S_mm γ²`` (S_mm the weighted spread of m), and its limits:
    no spread in ``m`` gives the Hájek mean residual with γ = 0."""
    from scipy import optimize

    from evalstats.active._ht import calibration_fit
    rng = np.random.default_rng(3)
    m = rng.random(12)
    r = (rng.random(12) < 0.3) - m
    w = 1 / rng.uniform(0.1, 0.9, 12)
    for kappa in (0.0, 2.0, 10.0):
        mbar = np.dot(w, m) / w.sum()
        smm = np.dot(w, (m - mbar) ** 2)

        def obj(p, kappa=kappa, smm=smm):
            return np.sum(w * (r - p[0] - p[1] * m) ** 2) + kappa / 12 * smm * p[1] ** 2

        best = optimize.minimize(obj, np.zeros(2), method="BFGS", options=dict(gtol=1e-12)).x
        np.testing.assert_allclose(calibration_fit(r, m, w, kappa, shrink=False), best,
                                   atol=1e-7)
    d, g = calibration_fit(r, np.full(12, 0.4), w)
    assert g == 0.0 and d == pytest.approx(np.dot(w, r) / w.sum())


def test_calibration_slope_shrinkage_against_statsmodels_hc3():
    """The slope is ``γ̂₀/(1 + κ/n) · (1 − V₃/γ̂₀²)₊`` with ``γ̂₀`` and ``V₃`` the weighted
    least-squares slope and its HC3 variance, here from statsmodels'
    ``WLS(...).fit(cov_type="HC3")`` (independent of the package), at ridge 0 and at the
    default ridge of 2; ``δ = r̄ − γ m̄`` (weighted means). An exact linear fit keeps its
    slope (``V₃ = 0``: only the ridge's factor); a slope set by the two errors of a
    near-separable sample, or hinging on one item (four equal scores and one other), is
    dropped; extreme weights give finite results."""
    import statsmodels.api as sm

    from evalstats.active._ht import calibration_fit
    rng = np.random.default_rng(5)
    for n, noise in ((15, 0.3), (40, 0.05), (8, 0.5), (6, 0.2)):
        m = rng.random(n)
        r = -0.5 * m + noise * rng.standard_normal(n)
        w = 1 / rng.uniform(0.1, 0.9, n)
        fit = sm.WLS(r, sm.add_constant(m), weights=w).fit(cov_type="HC3")
        g0, v3 = fit.params[1], fit.cov_params()[1, 1]
        for kappa in (0.0, 2.0):
            expect_g = g0 / (1 + kappa / n) * max(0.0, 1 - v3 / g0 ** 2)
            expect_d = np.dot(w, r) / w.sum() - expect_g * np.dot(w, m) / w.sum()
            np.testing.assert_allclose(calibration_fit(r, m, w, kappa), (expect_d, expect_g),
                                       rtol=1e-9, atol=1e-12)
    m = np.array([0.1, 0.2, 0.3, 0.5, 0.9])
    assert calibration_fit(-0.97 * m, m, np.ones(5))[1] == pytest.approx(-0.97 * 5 / 7)
    m = np.r_[np.full(10, 0.98), 0.7, 0.6]
    y = np.r_[np.ones(10), 0.0, 1.0]
    assert calibration_fit(y - m, m, np.ones(12))[1] == 0.0
    assert calibration_fit(y - m, m, np.ones(12), shrink=False)[1] != 0.0
    m = np.array([0.1, 0.1, 0.1, 0.1, 0.9])
    assert calibration_fit(-0.97 * m, m, np.ones(5)) == (pytest.approx(-0.97 * 0.26), 0.0)
    m, r = rng.random(20), rng.random(20) - 0.5
    for w in (np.full(20, 1e-300), np.full(20, 1e200), np.logspace(-8, 8, 20)):
        assert np.all(np.isfinite(calibration_fit(r, m, w)))


def test_calibrated_estimator_repairs_constant_scores():
    """Scores all 0.5 on the bundled sim_pool (3.4 % positives), F1, 100 labels, 60 runs: the
    plain difference estimator trusts 10,000 expected positives against 672 (coverage 0.78 in
    200 runs, see benchmarks/README.md); the calibrated one estimates each prediction group's
    mean residual and covers in ≥ 0.9 of the runs (binomial SE ≈ 0.03 at 0.95). It is the
    default, so this is the issue-15 case "constant scores of 0.5 at 100 labels"."""
    sim = es.datasets.load("sim_pool")
    y, pred = sim["label"].to_numpy(), sim["pred"].to_numpy()
    truth = 2 * np.sum((pred == 1) & (y == 1)) / (pred.sum() + y.sum())
    cover = 0
    for seed in range(60):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = active_evaluate(np.full(y.shape[0], 0.5), lambda i: y[i], n_labels=100,
                                  predictions=pred, rng=seed)
        lo, hi = res.conf_int()
        cover += lo <= truth <= hi
    assert cover / 60 >= 0.90


def test_two_adaptive_batches_are_unbiased_by_enumerating_every_path():
    """Batch 1 (Poisson, model m₀), then batch 2 over the rest with the model and π refitted
    on batch 1's labels: E[Σ λ_k Â_k] = A and E[Σ λ_k B̂_k] = B over all sample paths."""
    f = np.array([1, 0, 1, 0, 0], float)
    y = np.array([1, 1, 0, 0, 1], float)
    p = np.array([0.7, 0.3, 0.6, 0.1, 0.2])
    spec = measure_spec("f1")
    pool = pool_iv(p, spec, f)
    design = BatchDesign(pool, spec, ranking=p, epsilon=0.2, sampling="poisson",
                         estimator="difference", adaptive=True, passive=False)
    design.model.kappa = 1.0                          # a model that moves with few labels
    c0, c1, d0, d1 = spec_coefficients(spec, f)
    a_true, b_true = (c0 + c1 * y).sum(), (d0 + d1 * y).sum()
    mean_a = mean_b = total = 0.0
    rows1, pi1, m1, _ = design.inclusion(2, np.array([], int), np.array([]))
    unl1 = rows1.array
    for s1, p1 in _poisson_outcomes(pi1):
        idx1 = unl1[s1]
        rows2, pi2, m2, _ = design.inclusion(2, idx1, y[idx1])
        unl2 = rows2.array
        for s2, p2 in _poisson_outcomes(pi2):
            idx2 = unl2[s2]
            labels = np.r_[idx1, idx2]
            batches = []
            for unl, m in ((unl1, m1), (unl2, m2)):
                batches.append(dict(n_target=2.0, n_unlabeled=float(len(unl)),
                                    sum_m=float(m[unl].sum()), sum_f=[float(f[unl].sum())],
                                    sum_fm=[float((f[unl] * m[unl]).sum())],
                                    zero_f1=[0], zero_f0=[0]))
            item_m = np.r_[m1[idx1], m2[idx2]]
            ds = design_sample(labels, y[labels], f[labels],
                               np.r_[np.zeros(len(idx1), int), np.ones(len(idx2), int)],
                               np.r_[pi1[s1], pi2[s2]], item_m, batches, "poisson",
                               "difference")
            lam = ds.lambdas()
            # the package's totals: re-derive Â, B̂ from its ratio pieces by hand
            a_hat = b_hat = 0.0
            for k, (unl, m, idx, pis) in enumerate(((unl1, m1, idx1, pi1[s1]),
                                                    (unl2, m2, idx2, pi2[s2]))):
                known = idx1 if k == 1 else np.array([], int)
                a_k = (c0 + c1 * y)[known].sum() + (c0 + c1 * m)[unl].sum() + np.sum(
                    c1[idx] * (y[idx] - m[idx]) / pis)
                b_k = (d0 + d1 * y)[known].sum() + (d0 + d1 * m)[unl].sum() + np.sum(
                    d1[idx] * (y[idx] - m[idx]) / pis)
                a_hat += lam[k] * a_k
                b_hat += lam[k] * b_k
            r = ds.estimate(spec)
            if len(labels) == len(y):       # a census: the pool's measure itself
                assert r["census"] and r["estimate"] == pytest.approx(a_true / b_true)
            elif b_hat > 0 and r["defined"]:
                assert r["estimate"] == pytest.approx(np.clip(a_hat / b_hat, 0, 1), rel=1e-9)
            mean_a += p1 * p2 * a_hat
            mean_b += p1 * p2 * b_hat
            total += p1 * p2
    assert total == pytest.approx(1.0, rel=1e-12)
    assert mean_a == pytest.approx(a_true, rel=1e-10)
    assert mean_b == pytest.approx(b_true, rel=1e-10)


# -- boundaries, identifiability, workflows ---------------------------------------------------

@pytest.fixture(scope="module")
def pool():
    return es.datasets.load("sim_pool")


def test_precision_one_gets_an_interval_that_contains_it():
    """A classifier without false positives: precision = 1 on the boundary; the interval
    contains 1 and has positive width in every run (40 runs)."""
    rng = np.random.default_rng(3)
    p = rng.beta(0.5, 6, 3000)
    y = (rng.random(3000) < p).astype(int)
    pred = ((p > 0.4) & (y == 1)).astype(int)            # no false positive
    hits = 0
    for seed in range(40):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = active_evaluate(p, lambda i: y[i], 100, "precision", predictions=pred,
                                  rng=seed)
        lo, hi = res.conf_int()
        assert res.estimate <= hi == 1.0
        assert lo < 1.0 or res.n_eff == np.inf
        hits += lo <= 1.0 <= hi
    assert hits == 40


def test_measures_not_identified_are_nan_with_a_warning(pool):
    truth = pool["label"].to_numpy()
    for design in ("pps", "with_replacement"):
        with pytest.warns(UndefinedEstimateWarning, match="Not identified"):
            res = active_evaluate(pool["prob"], lambda i: truth[i], 200, "precision",
                                  predictions=pool["pred"], rng=0, epsilon=0.0, design=design)
        table = res.measures().set_index("term")
        assert np.isfinite(table.loc["precision", "estimate"])
        for term in ("recall", "f1", "accuracy"):
            assert np.isnan(table.loc[term, "estimate"]) and not table.loc[term, "defined"]
            assert np.isnan(table.loc[term, "conf_low"])


def test_no_positive_seen_gives_the_whole_range_not_nan():
    """Recall when no labeled item is positive (Horvitz–Thompson: B̂ = 0): undefined, NaN
    estimate, but the interval is [0, 1] — the exact interval from zero relevant trials
    (Clopper–Pearson with n = 0) — so it still contains the truth. Precision on a pool with
    no predicted positive has a known zero denominator: NaN interval."""
    spec_r, spec_p = measure_spec("recall"), measure_spec("precision")
    pi = np.full(4, 0.4)
    y0 = np.zeros(4)
    stats = dict(n_target=pi.sum(), n_unlabeled=10.0, sum_m=0.0, sum_f=[2.0], sum_fm=[0.0],
                 zero_f1=[0], zero_f0=[0])
    ds = design_sample(np.arange(4), y0, np.array([1, 0, 1, 0.]), np.zeros(4, int), pi,
                       np.zeros(4), [stats], "poisson", "horvitz_thompson")
    r = ds.estimate(spec_r)
    assert not r["defined"] and r["vacuous"] and np.isnan(r["estimate"])
    assert interval(r["estimate"], r["std_error"], bounded=True, level=0.95, method="wilson",
                    n_eff=r["n_eff"], vacuous=r["vacuous"]) == (0.0, 1.0)
    # with a model (m > 0) B̂ = Σ_U m − (its own estimate) is noise around 0: still vacuous
    stats_m = dict(stats, sum_m=1.5, sum_fm=[0.6])
    for est in ("difference", "calibrated"):
        dm = design_sample(np.arange(4), y0, np.array([1, 0, 1, 0.]), np.zeros(4, int), pi,
                           np.array([0.2, 0.1, 0.15, 0.05]), [stats_m], "poisson", est)
        rm = dm.estimate(spec_r)
        assert rm["vacuous"] and np.isnan(rm["estimate"])
    stats0 = dict(stats, sum_f=[0.0])
    ds0 = design_sample(np.arange(4), y0, np.zeros(4), np.zeros(4, int), pi, np.zeros(4),
                        [stats0], "poisson", "horvitz_thompson")
    r0 = ds0.estimate(spec_p)
    assert not r0["defined"] and not r0["vacuous"]
    lo, hi = interval(r0["estimate"], r0["std_error"], bounded=True, level=0.95,
                      method="wilson", n_eff=r0["n_eff"], vacuous=r0["vacuous"])
    assert np.isnan(lo) and np.isnan(hi)


def test_constant_scores_give_a_valid_interval():
    """Scores all 0.5 at 100 labels: accuracy's interval covers in ≥ 90 % of 60 runs
    (binomial SE ≈ 0.03 at 0.95)."""
    rng = np.random.default_rng(5)
    y = (rng.random(2000) < 0.3).astype(int)
    pred = (rng.random(2000) < 0.3).astype(int)
    truth = np.mean(pred == y)
    cover = 0
    for seed in range(60):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = active_evaluate(np.full(2000, 0.5), lambda i: y[i], 100, "accuracy",
                                  predictions=pred, rng=seed)
        lo, hi = res.conf_int()
        cover += lo <= truth <= hi
    assert cover / 60 >= 0.90


def test_update_checks_the_label_domain_and_batch_order(pool):
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], rng=1)
    ids = ev.query(20)
    with pytest.raises(ValueError, match="label set"):
        ev.update(ids, np.full(20, 2))
    with pytest.raises(ValueError, match="previous batch"):
        ev.query(10)
    ev.update(ids, pool["label"].to_numpy()[ids])
    assert ev.n_labels == 20 and len(ev.query(10)) == 10


def test_offline_design_round_trip_equals_the_evaluator(pool, tmp_path):
    import pandas as pd

    truth = pool["label"].to_numpy()
    design = active_design(pool["prob"], 150, "f1", rng=9, predictions=pool["pred"])
    assert design["design"].eq("pps").all() and design["batch"].eq(0).all()
    path = tmp_path / "d.csv"
    design.to_csv(path, index=False)
    back = pd.read_csv(path)
    res = estimate_from_labels(back, truth[back["id"]])
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], rng=9, adaptive=False)
    ids = ev.query(150)
    ev.update(ids, truth[ids])
    ref = ev.result()
    assert res.n_labels == ref.n_labels == 150
    assert res.estimate == pytest.approx(ref.estimate, rel=1e-9)


def test_session_file_resumes_a_pps_design(pool, tmp_path):
    truth = pool["label"].to_numpy()
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], rng=2,
                         path=tmp_path / "s.db")
    for _ in range(2):
        ids = ev.query(50)
        ev.update(ids, truth[ids])
    back = ActiveEvaluator.open(tmp_path / "s.db")
    assert back.result().estimate == pytest.approx(ev.result().estimate, rel=1e-12)
    ids = back.query(50)
    back.update(ids, truth[ids])
    assert back.n_labels == 150


def test_budget_is_a_deprecated_alias(pool):
    truth = pool["label"].to_numpy()
    with pytest.warns(FutureWarning, match="n_labels"):
        res = active_evaluate(pool["prob"], lambda i: truth[i], budget=50,
                              predictions=pool["pred"], rng=0)
    assert res.n_labels == 50
    with pytest.raises(ValueError, match="budget"):
        active_evaluate(pool["prob"], lambda i: truth[i], 50, budget=50)


def test_interval_methods_and_plot(pool):
    import matplotlib.pyplot as plt

    truth = pool["label"].to_numpy()
    res = active_evaluate(pool["prob"], lambda i: truth[i], 200, predictions=pool["pred"],
                          rng=0, batch_size=50)
    assert res.interval_method == "wilson" and res.design == "pps"
    for method in res.INTERVAL_METHODS:
        lo, hi = res.conf_int(method=method)
        assert lo <= res.estimate <= hi
    ax = res.plot()
    assert ax.get_xlabel() == "distinct labels"
    assert len(res.running()) == 4
    plt.close("all")


def test_wilson_matches_statsmodels_and_boundary_rules():
    from statsmodels.stats.proportion import proportion_confint

    from evalstats.active._intervals import interval, wilson

    for x, n in ((0, 20), (3, 20), (20, 20), (7, 50)):
        ref = proportion_confint(x, n, 0.05, "wilson")
        np.testing.assert_allclose(wilson(x / n, n, 1.959963984540054), ref, rtol=1e-9)
    # interior: Wilson at n* = p(1-p)/SE^2; boundary: Wilson at the design's n_eff
    lo, hi = interval(0.3, 0.05, bounded=True, level=0.95, method="wilson", n_eff=10)
    np.testing.assert_allclose((lo, hi), proportion_confint(0.3 * 84, 84, 0.05, "wilson"),
                               rtol=1e-9)
    lo, hi = interval(1.0, 0.0, bounded=True, level=0.95, method="linear", n_eff=30)
    assert hi == 1.0
    assert lo == pytest.approx(proportion_confint(30, 30, 0.05, "wilson")[0])
    lo, hi = interval(1.0, 0.0, bounded=True, level=0.95, method="wilson", n_eff=np.inf)
    assert hi == 1.0 and 1.0 - lo == pytest.approx(1e-9)   # every relevant item labeled


def test_several_models_from_one_pps_sample(pool):
    import pandas as pd

    truth = pool["label"].to_numpy()
    preds = pd.DataFrame({"thr05": pool["pred"], "thr02": (pool["prob"] > 0.2).astype(int)})
    res = active_evaluate(pool["prob"], lambda i: truth[i], 300, predictions=preds, rng=3)
    table = res.measures()
    assert set(table["model"]) == {"thr05", "thr02"}
    assert table["estimate"].notna().all() and table["defined"].all()
    row = table[(table.model == "thr02") & (table.measure == "recall")].iloc[0]
    f2 = preds["thr02"].to_numpy()
    true_recall = np.sum(f2 * truth) / np.sum(truth)
    assert abs(row["estimate"] - true_recall) < 5 * row["std_error"] + 0.02


@pytest.mark.parametrize("adaptive", [True, False])
def test_a_census_returns_the_pools_measures_exactly(adaptive):
    """Every item labeled (the last batch takes all that is left): the measures are known;
    before, the adaptive design averaged the earlier batches' estimates (F1 0.604 for a true
    0.596, interval [0.581, 0.626])."""
    rng = np.random.default_rng(0)
    n = 500
    y = (rng.uniform(size=n) < 0.2).astype(int)
    s = np.clip(np.where(y == 1, rng.beta(4, 2, n), rng.beta(2, 4, n)), 0, 1)
    f = (s > 0.5).astype(int)
    tp, fp, fn = np.sum(f * y), np.sum(f * (1 - y)), np.sum((1 - f) * y)
    truth = {"f1": 2 * tp / (2 * tp + fp + fn), "precision": tp / (tp + fp),
             "recall": tp / (tp + fn), "accuracy": np.mean(f == y)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = es.active_evaluate(s, lambda ids: y[ids], n_labels=n, predictions=f, rng=7,
                                 adaptive=adaptive)
    table = res.measures().set_index("measure")
    for name, value in truth.items():
        assert table.loc[name, "estimate"] == pytest.approx(value, abs=1e-12)
        # known exactly: only the rounding band EXACT_TOL = 1e-9 of the intervals
        assert table.loc[name, "conf_low"] == pytest.approx(value, abs=2e-9)
        assert table.loc[name, "conf_high"] == pytest.approx(value, abs=2e-9)
    assert any("census" in note for note in res.notes)


def test_a_measure_known_exactly_is_not_flagged_as_unreliable():
    """Every predicted positive labeled with certainty: precision is known, its interval
    has zero width, and neither the Wilson-fallback note nor the few-events warning
    applies (before: both, on a correct [1, 1])."""
    s, y, f = rare_pool_without_false_positives(50_000)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        res = active_evaluate(s, lambda i: y[i], n_labels=300, measure="precision",
                              predictions=f, rng=1)
    truth = (f * y).sum() / f.sum()
    assert res.estimate == pytest.approx(truth) and res.zero_width
    assert not [w for w in rec if issubclass(w.category, es.SmallSampleWarning)]
    assert any("known exactly" in note for note in res.notes)


def test_a_standard_error_beyond_the_range_is_flagged():
    """Recall with 15 positives in 50,000 and 300 labels: the linearised s.e. is above 0.5
    (the largest any [0, 1] measure can have); before, 12.4 was shown without a word."""
    s, y, f = rare_pool_without_false_positives(50_000)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        res = active_evaluate(s, lambda i: y[i], n_labels=300, measure="recall",
                              predictions=f, rng=1)
    assert res.std_error > 0.5
    assert any("exceeds 0.5" in str(w.message) for w in rec)
    lo, hi = res.conf_int()
    assert 0.0 <= lo <= res.estimate <= hi <= 1.0


def test_defensive_share_follows_each_groups_influence():
    """The defensive share ε of the πps design is spread by ``√|c₁ − G d₁|`` of each
    prediction group (F1 = ``y·f / (½f + ½y)``: ``1 − G/2`` on predicted positives, ``G/2``
    on predicted negatives), floored at 5 % of the larger; precision's predicted negatives
    (influence 0) keep the floor; accuracy's groups weigh alike. With a constant size
    measure and no item capped, ``π = n [(1 − ε)/N + ε w_g / (N₁ w₁ + N₀ w₀)]`` exactly."""
    from evalstats.active._design import defensive_weights, inclusion_probabilities
    from evalstats.active._measures import measure_spec

    f1 = measure_spec("f1")
    np.testing.assert_allclose(defensive_weights(f1, 0.5), (0.75 ** 0.5, 0.25 ** 0.5))
    np.testing.assert_allclose(defensive_weights(f1, 0.001),
                               (0.9995 ** 0.5, 0.05 * 0.9995 ** 0.5))   # √0.0005 < floor
    np.testing.assert_allclose(defensive_weights(measure_spec("precision"), 0.3),
                               (1.0, 0.05))
    np.testing.assert_allclose(defensive_weights(measure_spec("accuracy"), 0.9), (1.0, 1.0))
    assert defensive_weights(f1, float("nan")) == (1.0, 1.0)
    size, n, eps = 1000, 50, 0.1
    ones = np.arange(0, size, 10)                   # 100 predicted positives
    w1, w0 = defensive_weights(f1, 0.2)
    pi = inclusion_probabilities(np.ones(size), n, eps, (ones, w1, w0))
    norm = w1 * 100 + w0 * 900
    expect = np.full(size, n * ((1 - eps) / size + eps * w0 / norm))
    expect[ones] = n * ((1 - eps) / size + eps * w1 / norm)
    np.testing.assert_allclose(pi, expect, rtol=1e-12)
    np.testing.assert_allclose(pi.sum(), n)
    uniform = inclusion_probabilities(np.ones(size), n, eps, (ones, 1.0, 1.0))
    np.testing.assert_allclose(uniform, inclusion_probabilities(np.ones(size), n, eps))


def test_rare_f1_spends_fewer_defensive_labels_on_predicted_negatives():
    """With F1 near 0 (few true positives among the predicted positives) the default design
    gives the predicted negatives less inclusion probability than the uniform share did,
    and every item keeps ``π > 0``."""
    rng = np.random.default_rng(4)
    size = 20_000
    m = np.clip(rng.beta(0.2, 40, size), 1e-5, 1 - 1e-5)
    f = (rng.random(size) < 0.03).astype(float)    # predictions unrelated to the scores
    ev = ActiveEvaluator(m, "f1", predictions=f, rng=1, design="pps", adaptive=False)
    ev.query(200)
    pi = np.asarray(ev._last.q) * 200
    design = ev._pps
    unl, pi_u, mm, g = design.inclusion(200, np.array([], int), np.array([]))
    from evalstats.active._design import inclusion_probabilities, size_measure

    shape = size_measure(mm, f, design.spec, g)
    old = inclusion_probabilities(shape, 200, 0.1)
    np.testing.assert_allclose(pi, pi_u, rtol=1e-12)
    assert pi[f == 0].sum() < old[f == 0].sum()
    assert pi.min() > 0
