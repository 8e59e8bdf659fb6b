"""The anticipated-variance floor under the recalibrated model, and boundary intervals.

Sources of the expected values:
* ``fit_recalibration`` with ``ridge=0`` is the weighted logistic regression of the labels on
  ``(1, logit m)``: compared with statsmodels ``GLM(Binomial, var_weights=w)`` (an independent
  IRLS fit); with the default ridge, with an inline ``scipy.optimize`` minimisation of the
  penalised log-likelihood written here from the docstring's formula.
* The floor of a one-batch design (calibrated estimator) is, per prediction group ``g``,
  ``max over m* ∈ {m_f, m_r} of Σ_U (1 − π)/π · [m*(1 − m*) + (m* − m − δ*_g)²]`` with
  ``δ*_g`` the group mean of ``m* − m``: the expected squared residual ``y − m − δ_g``
  (Särndal, Swensson & Wretman 1992, §12.2), recomputed here by hand from the batch's ``π``.
* Boundary intervals: the union of the Wilson interval at ``n_eff`` (statsmodels
  ``proportion_confint``) and ``Ĝ ± 1.96·SE`` clipped to [0, 1].
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import optimize, special

from evalstats.active import ActiveEvaluator
from evalstats.active._calibration import apply_recalibration, fit_recalibration
from evalstats.active._evaluator_pps import design_from_table
from evalstats.active._intervals import interval
from evalstats.active._measures import measure_spec

Z95 = 1.959963984540054


def _logit(p):
    return np.log(p) - np.log1p(-p)


def test_recalibration_without_ridge_is_weighted_logistic_regression():
    import statsmodels.api as sm

    rng = np.random.default_rng(3)
    m = rng.uniform(0.02, 0.9, 60)
    y = (rng.random(60) < special.expit(-0.7 + 0.5 * _logit(m))).astype(float)
    w = rng.uniform(1, 5, 60)
    a, b = fit_recalibration(m, y, w, ridge=0.0)
    x = sm.add_constant(_logit(m))
    ref = sm.GLM(y, x, family=sm.families.Binomial(), var_weights=w / w.mean()).fit()
    np.testing.assert_allclose((a, b), ref.params, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(apply_recalibration(m, (a, b)), ref.predict(x), rtol=1e-4)


def test_recalibration_ridge_keeps_separable_labels_finite():
    m = np.array([0.1, 0.2, 0.3, 0.6, 0.7, 0.8])
    y = np.array([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])         # separable: no finite MLE
    w = np.ones(6)
    a, b = fit_recalibration(m, y, w)
    z = _logit(m)

    def nll(ab):                                          # the docstring's objective
        eta = ab[0] + ab[1] * z
        return np.sum(np.logaddexp(0, eta) - y * eta) + 0.01 * (ab[0] ** 2 + (ab[1] - 1) ** 2)

    ref = optimize.minimize(nll, np.array([0.0, 1.0]), method="Nelder-Mead",
                            options=dict(xatol=1e-9, fatol=1e-12, maxiter=20000)).x
    assert np.all(np.isfinite((a, b)))
    np.testing.assert_allclose((a, b), ref, rtol=1e-3, atol=1e-3)
    # a dominant prior returns the identity map (the model as it is)
    np.testing.assert_allclose(fit_recalibration(m, y, w, ridge=1e6), (0.0, 1.0), atol=1e-4)


def _one_batch(m, f, y, n, rng_seed):
    """One static πps batch of ``n`` labels: (evaluator, ids, design sample, π over the
    pool, π of the labeled items)."""
    ev = ActiveEvaluator(m, "f1", predictions=f, rng=rng_seed, design="pps", adaptive=False)
    ids = ev.query(n)
    ev.update(ids, y[ids])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sample, _ = ev._pps_sample()
    return ev, ids, sample, np.asarray(ev._last.q) * n, np.asarray(ev._draw_q)


def _estimator_slope_share(m, y, pi, sel):
    """``ρ`` of the calibrated estimator's slope in group ``sel`` from statsmodels' WLS with
    HC3 errors (independent of ``calibration_fit``): ``(1 − V₃/γ̂₀²)₊ / (1 + 2/n)`` over the
    items with ``π < 1``; NaN with fewer than five of them (not calibrated)."""
    import statsmodels.api as sm

    free = sel & (pi < 1)
    if free.sum() < 5:
        return float("nan")
    fit = sm.WLS(y[free] - m[free], sm.add_constant(m[free]), weights=1 / pi[free]).fit(
        cov_type="HC3")
    g0, v3 = fit.params[1], fit.cov_params()[1, 1]
    return max(0.0, 1 - v3 / g0 ** 2) / (1 + 2 / free.sum())


def test_floor_is_the_larger_anticipated_variance_by_hand():
    rng = np.random.default_rng(7)          # a draw where the recalibration sets a floor
    n_pool, n = 40, 15
    m = np.clip(rng.beta(0.6, 3, n_pool), 1e-4, 1 - 1e-4)
    f = (m > 0.4).astype(float)
    y = (rng.random(n_pool) < np.sqrt(m)).astype(float)        # scores overconfident
    ev, ids, sample, pi, pi_s = _one_batch(m, f, y, n, rng_seed=1)
    np.testing.assert_allclose(pi[ids], pi_s)
    z = _logit(m[ids])
    w = pi_s ** -0.5 / np.mean(pi_s ** -0.5)                 # RECALIBRATION_WEIGHT_POWER = ½

    def nll(ab):
        eta = ab[0] + ab[1] * z
        return np.sum(w * (np.logaddexp(0, eta) - y[ids] * eta)) + 0.01 * (
            ab[0] ** 2 + (ab[1] - 1) ** 2)

    ab = optimize.minimize(nll, np.array([0.0, 1.0]), method="Nelder-Mead",
                           options=dict(xatol=1e-10, fatol=1e-13, maxiter=20000)).x
    m_r = special.expit(ab[0] + ab[1] * _logit(m))
    m_f = ev._pps.model.probabilities(np.asarray(ids), y[ids])
    t = np.where(pi > 0, (1 - pi) / np.where(pi > 0, pi, 1), 0.0)
    bt = sample.batches[0]
    wins = []
    centred = []
    for g, total in ((1, bt["antic_f"][0]), (0, bt["antic_f0"][0])):
        s = f == g
        rho = _estimator_slope_share(m[ids], y[ids], pi_s, f[ids] == g)
        centred.append(rho == rho)

        # expected squared residual y - m - δ*_g - γ*_g m under m*: γ*_g = ρ β*_g, β*_g the
        # least-squares slope of m* - m on m over the group (numpy's polyfit, independently),
        # ρ the share the estimator keeps; δ*_g the mean of m* - m - γ*_g m; no line where
        # the estimator does not calibrate the group (ρ NaN)
        def resid2(ms, s=s, rho=rho):
            if rho != rho:
                return ms[s] * (1 - ms[s]) + (ms[s] - m[s]) ** 2
            gam = rho * np.polyfit(m[s], ms[s] - m[s], 1)[0]
            dlt = np.mean(ms[s] - m[s] - gam * m[s])
            return ms[s] * (1 - ms[s]) + (ms[s] - m[s] - dlt - gam * m[s]) ** 2
        e_f, e_r = resid2(m_f), resid2(m_r)
        expected = max(np.sum(t[s] * e_f), np.sum(t[s] * e_r))     # the larger model total
        np.testing.assert_allclose(total, expected, rtol=1e-5, atol=1e-9)
        wins.append(np.sum(t[s] * e_r) > np.sum(t[s] * e_f))
    assert any(wins)                  # the recalibration sets the floor of some group here
    assert any(centred) and not all(centred)      # one group calibrated, one too small
    np.testing.assert_allclose(bt["antic_0"], bt["antic_f"][0] + bt["antic_f0"][0])
    assert bt["antic_0"] > np.sum(t * m_f * (1 - m_f))


def test_boundary_interval_keeps_a_large_standard_error():
    from statsmodels.stats.proportion import proportion_confint

    # recall clipped to 1 with SE 0.3: the Wald side reaches 1 - 1.96*0.3
    lo, hi = interval(1.0, 0.3, bounded=True, level=0.95, method="wilson", n_eff=50)
    assert hi == 1.0 and lo == pytest.approx(1.0 - Z95 * 0.3)
    lo, hi = interval(0.0, 0.8, bounded=True, level=0.95, method="logit", n_eff=50)
    assert (lo, hi) == (0.0, 1.0)
    # a small SE leaves the Wilson interval at n_eff (the wider of the two)
    lo, hi = interval(1.0, 0.001, bounded=True, level=0.95, method="linear", n_eff=50)
    assert hi == 1.0
    assert lo == pytest.approx(proportion_confint(50, 50, 0.05, "wilson")[0])


def _exported_design(seed, beta, n_pool, n_labels, rng):
    """An exported one-batch F1 design table on a Beta(``beta``) pool and its labels."""
    from evalstats.active import active_design

    gen = np.random.default_rng(seed)
    p = gen.beta(*beta, n_pool)
    y = (gen.random(n_pool) < p).astype(float)
    design = active_design(p, n_labels, "f1", rng=rng)
    return design, y[design["id"]]


def test_design_table_without_the_group_zero_total_is_still_read():
    """Tables exported before ``batch_antic_f0_j`` existed (their seal does not list it):
    the group-0 total is then ``batch_antic_0 − batch_antic_f_j``, what the estimator used."""
    design, yd = _exported_design(2, (0.5, 6), 2000, 120, rng=4)
    spec = measure_spec("recall")
    new = design_from_table(design, yd)[0].estimate(spec)
    old = design.drop(columns=["batch_antic_f0_0"])
    legacy = design_from_table(old, yd)[0]
    assert "antic_f0" not in legacy.batches[0]
    same = old.assign(batch_antic_f0_0=old["batch_antic_0"] - old["batch_antic_f_0"])
    ref = design_from_table(same, yd)[0].estimate(spec)
    got = legacy.estimate(spec)
    assert got["std_error"] == pytest.approx(ref["std_error"], rel=1e-12)
    assert got["estimate"] == pytest.approx(new["estimate"], rel=1e-12)


def test_design_table_without_the_floor_sides_keeps_the_floor_on_both():
    """Tables exported before ``batch_antic_skew_f_j`` / ``batch_antic_skew_f0_j`` existed:
    both interval sides then carry the whole floor (``se_low = se_high = std_error``), while
    a current table's sides differ (the exported third cumulants are read back)."""
    design, yd = _exported_design(7, (0.4, 8), 20_000, 300, rng=6)
    spec = measure_spec("f1")
    cur = design_from_table(design, yd)[0].estimate(spec)
    assert cur["se_low"] != pytest.approx(cur["se_high"], rel=1e-6)
    old = design.drop(columns=["batch_antic_skew_f_0", "batch_antic_skew_f0_0"])
    legacy = design_from_table(old, yd)[0]
    assert "antic_skew_f" not in legacy.batches[0]
    got = legacy.estimate(spec)
    assert got["se_low"] == got["se_high"] == pytest.approx(cur["std_error"], rel=1e-12)
    assert got["estimate"] == pytest.approx(cur["estimate"], rel=1e-12)


def test_exactly_known_zero_is_on_the_boundary():
    """Every predicted positive labeled with certainty and none positive: TP = 0 is known,
    so F1 = 0 exactly (whatever the false negatives). ``Σ_U f·m`` (a pool total) and
    ``Σ_S m/π`` over the certainty items cancel only up to rounding — seen as estimates of
    4e-17 with a logit interval [1e-18, 1e-16] beside the truth (coverage 0.60 on a letter-A
    pool with 5 positives, adaptive batches). The residue is planted here (4e-16 added to
    the pool total): the estimate must be 0 and its interval start at 0."""
    import evalstats.active._ht as ht
    from evalstats.active._batches import design_sample

    spec = measure_spec("f1")
    mm = np.array([0.61, 0.55, 0.59, 0.73])
    k = len(mm)
    f = np.concatenate([np.ones(k), np.zeros(6)])
    m = np.concatenate([mm, np.full(6, 0.01)])
    y = np.zeros(k + 6)
    y[-1] = 1.0
    pi = np.concatenate([np.ones(k), np.full(6, 0.5)])
    stats = dict(n_target=pi.sum(), n_unlabeled=float(k + 12), sum_m=float(mm.sum() + 0.12),
                 sum_f=[float(k)], sum_fm=[float(mm.sum()) + 4e-16], zero_f1=[0],
                 zero_f0=[0])
    ds = design_sample(np.arange(k + 6), y, f, np.zeros(k + 6, int), pi, m, [stats],
                       "poisson", "calibrated")
    old = ht.BOUNDARY_TOL
    try:
        ht.BOUNDARY_TOL = 0.0
        raw = ds.estimate(spec)["estimate"]
    finally:
        ht.BOUNDARY_TOL = old
    assert 0.0 < raw < 1e-12                                 # the planted residue
    r = ds.estimate(spec)
    assert r["estimate"] == 0.0
    lo, hi = interval(r["estimate"], r["std_error"], bounded=True, level=0.95, method="logit",
                n_eff=r["n_eff"])
    assert lo == 0.0 and hi > 0.0


def test_anticipated_totals_over_several_pool_blocks_match_the_formula():
    """``anticipated_totals`` sums block by block (``POOL_BLOCK`` items at a time); on
    2.3 million items (three blocks), two models and two prediction columns each group's
    total equals the formula evaluated at once, with the centring line from numpy's
    ``polyfit`` (an independent least-squares fit)."""
    from evalstats.active._batches import anticipated_totals
    from evalstats.active._design import POOL_BLOCK

    rng = np.random.default_rng(12)
    size = 2 * POOL_BLOCK + 200_000
    pi = np.where(rng.random(size) < 0.01, 1.0, rng.beta(0.5, 30, size))
    pi[:5] = 0.0                                          # never drawn: no contribution
    mu = rng.beta(0.4, 6, size)
    cands = [np.clip(mu * 1.5, 0, 1), rng.beta(0.5, 5, size)]
    preds = np.column_stack([(mu > 0.3), (rng.random(size) < 0.2)]).astype(float)
    got = anticipated_totals(pi, cands, mu, preds, centre=True)
    t = np.where(pi > 0, (1 - pi) / np.where(pi > 0, pi, 1), 0.0)
    for j in range(2):
        for g, total in ((1, got["antic_f"][j]), (0, got["antic_f0"][j])):
            s = preds[:, j] == g
            best = 0.0
            for c in cands:
                gam, dlt = np.polyfit(mu[s], c[s] - mu[s], 1)
                e2 = c[s] * (1 - c[s]) + (c[s] - mu[s] - dlt - gam * mu[s]) ** 2
                best = max(best, float(np.sum(t[s] * e2)))
            np.testing.assert_allclose(total, best, rtol=1e-7)
    np.testing.assert_allclose(got["antic_0"], got["antic_f"][0] + got["antic_f0"][0])


def test_floor_sides_follow_the_third_cumulant_by_hand():
    """Each prediction group's floor goes to the side where its unseen rare labels move the
    measure (``sign(k_g κ₃_g)``), with the share ``1/(1 + γ_g²)`` on the other side; the
    third cumulant is ``Σ (1 − π)(1 − 2π)/π² · m*(1 − m*)(1 − 2m*)`` under one of the two
    models of ``y`` (the one that set the group's total). Rare positives in both groups
    here (κ₃ > 0); for F1, ``k₁ = 1 − Ĝ/2 > 0`` and ``k₀ = −Ĝ/2 < 0``: group 1's floor
    belongs to the upper side, group 0's to the lower."""
    rng = np.random.default_rng(3)
    n_pool, n = 4000, 300
    m = np.clip(rng.beta(0.3, 12, n_pool), 1e-4, 1 - 1e-4)
    f = (rng.random(n_pool) < 0.1).astype(float)
    y = (rng.random(n_pool) < m).astype(float)
    ev, ids, sample, pi, pi_s = _one_batch(m, f, y, n, rng_seed=2)
    bt = sample.batches[0]
    t3 = np.where(pi > 0, (1 - pi) * (1 - 2 * pi) / np.where(pi > 0, pi, 1) ** 2, 0.0)
    m_f = ev._pps.model.probabilities(np.asarray(ids), y[ids])
    m_r = apply_recalibration(m, fit_recalibration(m[ids], y[ids], pi_s ** -0.5))
    for g, key in ((1, "antic_skew_f"), (0, "antic_skew_f0")):
        s = f == g
        hand = [np.sum(t3[s] * c[s] * (1 - c[s]) * (1 - 2 * c[s])) for c in (m_f, m_r)]
        assert min(abs(bt[key][0] / h - 1) for h in hand) < 1e-6
        assert bt[key][0] > 0                         # rare positives: right-skewed error
    spec = ev._spec
    r = sample.estimate(spec)
    g_hat = r["design_estimate"]          # the floor's k_g are taken at the design's Ĝ
    v1 = (1 - g_hat / 2) ** 2 * bt["antic_f"][0]
    v0 = (g_hat / 2) ** 2 * bt["antic_f0"][0]
    gam1 = bt["antic_skew_f"][0] / bt["antic_f"][0] ** 1.5
    gam0 = bt["antic_skew_f0"][0] / bt["antic_f0"][0] ** 1.5
    no_floor = dict(bt, antic_0=0.0, antic_f=[0.0], antic_f0=[0.0])
    se_design = type(sample)(**{**sample.__dict__, "batches": [no_floor]}).estimate(
        spec)["std_error"]
    assert r["std_error"] > se_design                # the floor binds in this draw
    b2 = (v1 + v0) / r["std_error"] ** 2             # B̂², from the both-groups floor
    np.testing.assert_allclose(r["se_high"] ** 2 * b2,
                               max(se_design ** 2 * b2, v1 + v0 / (1 + gam0 ** 2)), rtol=1e-9)
    np.testing.assert_allclose(r["se_low"] ** 2 * b2,
                               max(se_design ** 2 * b2, v0 + v1 / (1 + gam1 ** 2)), rtol=1e-9)
    # a batch recorded before the third cumulant existed keeps the floor on both sides
    old = {k: v for k, v in bt.items() if not k.startswith("antic_skew")}
    r_old = type(sample)(**{**sample.__dict__, "batches": [old]}).estimate(spec)
    assert r_old["se_low"] == r_old["se_high"] == pytest.approx(r["std_error"], rel=1e-12)


def test_interval_sides_use_their_own_standard_errors():
    """``interval(se_low=, se_high=)``: each limit is the method's one-sided limit at its own
    standard error; equal sides give the symmetric interval."""
    from evalstats.active._intervals import interval, wilson

    kw = dict(bounded=True, level=0.95, n_eff=50.0, ess=80.0)
    for method in ("wilson", "logit", "linear"):
        sym = interval(0.3, 0.05, method=method, **kw)
        assert interval(0.3, 0.05, method=method, se_low=0.05, se_high=0.05, **kw) == sym
        lo_only = interval(0.3, 0.02, method=method, **kw)
        hi_only = interval(0.3, 0.08, method=method, **kw)
        got = interval(0.3, 0.08, method=method, se_low=0.02, se_high=0.08, **kw)
        assert got == (lo_only.low, hi_only.high)
    z = 1.959963984540054
    w = wilson(0.3, 0.3 * 0.7 / 0.02 ** 2, z)
    assert interval(0.3, 0.08, method="wilson", se_low=0.02, se_high=0.08, **kw).low == w.low


def test_result_reports_both_sides_and_its_interval_uses_them():
    """``glance()`` carries ``std_error_low``/``std_error_high`` (each ≤ ``std_error``) and
    ``std_error_labels`` (≤ each side), and ``conf_int()`` is the Wilson interval with each
    side at its own standard error (an estimate away from 0 and 1: no floor weight)."""
    import evalstats as es

    sim = es.datasets.load("sim_pool")
    y = sim["label"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = es.active_evaluate(sim["prob"], lambda i: y[i], n_labels=300, measure="f1",
                                 predictions=sim["pred"], rng=1)
    g = res.glance().iloc[0]
    assert g["std_error_low"] <= res.std_error + 1e-15
    assert g["std_error_high"] <= res.std_error + 1e-15
    s_l = g["std_error_labels"]
    assert 0 < s_l <= min(g["std_error_low"], g["std_error_high"]) + 1e-15
    expect = interval(res.design_estimate, res.std_error, bounded=True, level=0.95,
                      method="wilson", n_eff=res.n_eff, se_low=g["std_error_low"],
                      se_high=g["std_error_high"], se_labels=s_l)
    assert tuple(res.conf_int()) == pytest.approx(tuple(expect), rel=1e-12)
    est = res.design_estimate
    for lim, side, k in ((expect.low, g["std_error_low"], 0),
                         (expect.high, g["std_error_high"], 1)):
        n_star = est * (1 - est) / side ** 2            # Wilson at n*, by hand
        c = Z95 ** 2 / n_star
        half = Z95 * np.sqrt(est * (1 - est) / n_star + c / (4 * n_star))
        assert lim == pytest.approx((est + c / 2 + (2 * k - 1) * half) / (1 + c), rel=1e-12)
    assert tuple(res.conf_int()) != pytest.approx(tuple(interval(
        res.estimate, res.std_error, bounded=True, level=0.95, method="wilson",
        n_eff=res.n_eff)), rel=1e-6)          # this sample's sides differ


def test_anticipated_totals_centre_on_the_estimators_line_per_group():
    """With ``centre`` per model column and group, a group the estimator does not calibrate
    (NaN) is not centred, and a calibrated one is centred on ``ρ`` times the least-squares
    slope with the intercept refitted (numpy's polyfit for the slope, by hand otherwise);
    ``ρ = 1`` everywhere is ``centre=True``."""
    from evalstats.active._batches import anticipated_totals

    rng = np.random.default_rng(5)
    size = 3000
    pi = np.clip(rng.beta(0.7, 12, size), 1e-3, 1.0)
    mu = rng.beta(0.5, 4, size)
    cand = np.clip(0.02 + 1.7 * mu, 0, 1)                 # off by a shift and a factor
    preds = np.column_stack([mu > 0.25, rng.random(size) < 0.3]).astype(float)
    t = (1 - pi) / pi
    rho = np.array([[np.nan, 0.4], [1.0, 0.0]])           # [model column, group]
    got = anticipated_totals(pi, [cand], mu, preds, centre=rho)
    full = anticipated_totals(pi, [cand], mu, preds, centre=True)
    for j in range(2):
        for g, key in ((1, "antic_f"), (0, "antic_f0")):
            s = preds[:, j] == g
            d = cand[s] - mu[s]
            for r, res in ((rho[j, g], got), (1.0, full)):
                gam = 0.0 if r != r else r * np.polyfit(mu[s], d, 1)[0]
                dlt = 0.0 if r != r else np.mean(d - gam * mu[s])
                hand = np.sum(t[s] * (cand[s] * (1 - cand[s]) + (d - dlt - gam * mu[s]) ** 2))
                np.testing.assert_allclose(res[key][j], hand, rtol=1e-9)
    assert got["antic_f0"][0] > full["antic_f0"][0]      # no line: a larger floor
