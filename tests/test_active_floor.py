"""The anticipated-variance floor under the recalibrated model, and boundary intervals.

Sources of the expected values:
* ``fit_recalibration`` with ``ridge=0`` is the weighted logistic regression of the labels on
  ``(1, logit m)``: compared with statsmodels ``GLM(Binomial, var_weights=w)`` (an independent
  IRLS fit); with the default ridge, with an inline ``scipy.optimize`` minimisation of the
  penalised log-likelihood written here from the docstring's formula.
* The floor of a one-batch design is ``Σ_U (1 − π)/π · max{m_f(1 − m_f), m_r(1 − m_r)}``
  (Särndal, Swensson & Wretman 1992, §12.2, with the larger of the two models' Bernoulli
  variances), recomputed here by hand from the batch's ``π``.
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
from evalstats.active._intervals import interval

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


def test_floor_is_the_larger_of_the_two_models_variances_by_hand():
    rng = np.random.default_rng(5)
    n_pool, n = 40, 15
    m = np.clip(rng.beta(0.6, 3, n_pool), 1e-4, 1 - 1e-4)
    f = (m > 0.4).astype(float)
    y = (rng.random(n_pool) < np.sqrt(m)).astype(float)        # scores overconfident
    ev = ActiveEvaluator(m, "f1", predictions=f, rng=1, design="pps", adaptive=False)
    ids = ev.query(n)
    ev.update(ids, y[ids])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sample, _ = ev._pps_sample()
    pi = np.asarray(ev._last.q) * n                          # the batch's π over the pool
    pi_s = np.asarray(ev._draw_q)
    np.testing.assert_allclose(pi[ids], pi_s)
    z = _logit(m[ids])
    w = (1 / pi_s) / np.mean(1 / pi_s)

    def nll(ab):
        eta = ab[0] + ab[1] * z
        return np.sum(w * (np.logaddexp(0, eta) - y[ids] * eta)) + 0.01 * (
            ab[0] ** 2 + (ab[1] - 1) ** 2)

    ab = optimize.minimize(nll, np.array([0.0, 1.0]), method="Nelder-Mead",
                           options=dict(xatol=1e-10, fatol=1e-13, maxiter=20000)).x
    m_r = special.expit(ab[0] + ab[1] * _logit(m))
    m_f = ev._pps.model.probabilities(np.asarray(ids), y[ids])
    v = np.maximum(m_f * (1 - m_f), m_r * (1 - m_r))
    terms = np.where(pi > 0, (1 - pi) / np.where(pi > 0, pi, 1), 0.0) * v
    bt = sample.batches[0]
    np.testing.assert_allclose(bt["antic_0"], terms.sum(), rtol=1e-5)
    np.testing.assert_allclose(bt["antic_f"][0], terms[f == 1].sum(), rtol=1e-5)
    assert bt["antic_0"] > np.sum(np.where(pi > 0, (1 - pi) / pi, 0) * m_f * (1 - m_f))


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
