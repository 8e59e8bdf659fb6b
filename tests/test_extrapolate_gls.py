"""GLS weights for the correlated ATA_k (evalstats.extrapolate._gls), checked against
independent computations: scikit-learn's Ledoit-Wolf estimator, the per-point terms by exact
binomial coefficients (math.comb), and a brute-force minimisation of the GLS objective."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from evalstats.extrapolate import extrapolate_accuracy
from evalstats.extrapolate._curves import Data
from evalstats.extrapolate._gls import ata_covariance, ledoit_wolf_shrinkage, whitener
from evalstats.extrapolate._methods import Radial


@pytest.fixture
def sim():
    rng = np.random.default_rng(5)
    k1, per = 30, 3
    mu = rng.standard_normal((k1, 5))
    tr = mu + 0.6 * rng.standard_normal((k1, 5))
    y = np.repeat(np.arange(k1), per)
    te = mu[y] + 0.6 * rng.standard_normal((k1 * per, 5))
    return -((te[:, None, :] - tr[None, :, :]) ** 2).sum(axis=2), y


@pytest.mark.parametrize("n, p", [(40, 5), (30, 60)])
def test_ledoit_wolf_matches_scikit_learn(n, p):
    covariance = pytest.importorskip("sklearn.covariance")
    x = np.random.default_rng(n + p).standard_normal((n, p)) @ np.diag(np.linspace(1, 3, p))
    ours, alpha = ledoit_wolf_shrinkage(x)
    ref, ref_alpha = covariance.ledoit_wolf(x)          # independent implementation
    np.testing.assert_allclose(alpha, ref_alpha, rtol=1e-10)
    np.testing.assert_allclose(ours, ref, rtol=1e-10, atol=1e-12)


def test_ata_covariance_diagonal_is_variance_of_point_terms(sim):
    scores, y = sim
    view = Data(scores, y, "random", keep_scores=False).view()
    ks = np.arange(2, view.k1 + 1)
    cov = ata_covariance(view.b, view.t, view.k1, ks)
    # the per-point term C(b, k-1)/C(k1-1, k-1) by exact integer binomials (no ties here)
    assert view.t.max() == 0
    terms = np.array([[math.comb(int(b), k - 1) / math.comb(view.k1 - 1, k - 1) for k in ks]
                      for b in view.b])
    var = terms.var(axis=0) / len(terms)
    ok = terms.std(axis=0) > 1e-3 * terms.std(axis=0).max()   # not floored
    np.testing.assert_allclose(np.diag(cov)[ok], var[ok], rtol=1e-9)
    # shrinkage keeps the diagonal and pulls the correlations towards 0
    raw = np.corrcoef(terms[:, ok].T)
    shr = cov[np.ix_(ok, ok)] / np.sqrt(np.outer(var[ok], var[ok]))
    off = ~np.eye(ok.sum(), dtype=bool)
    assert np.all(np.abs(shr[off]) <= np.abs(raw[off]) + 1e-9)
    assert np.linalg.eigvalsh(cov).min() > 0
    w = whitener(cov)
    np.testing.assert_allclose(w @ cov @ w.T, np.eye(len(cov)), atol=1e-8)


def test_gls_regression_fit_minimises_the_gls_objective(sim):
    scores, y = sim
    view = Data(scores, y, "random", keep_scores=False).view()
    ks = np.arange(2, view.k1 + 1)
    meth = Radial(view.k1, [0.5], gls=True)
    beta, status = meth.fit(view, 0.5)
    assert status == "optimal"
    H = meth._basis(0.5)[1][: view.k1 - 1]
    r = 1.0 - view.ata(ks)
    prec = np.linalg.inv(ata_covariance(view.b, view.t, view.k1, ks))

    def obj(b):
        e = H @ b - r
        return e @ prec @ e

    # brute force: SLSQP on b >= 0, sum(b) <= 1 from several starting points
    best = np.inf
    for seed in range(4):
        x0 = np.random.default_rng(seed).dirichlet(np.ones(H.shape[1])) * 0.9
        res = optimize.minimize(obj, x0, jac=lambda b: 2 * H.T @ prec @ (H @ b - r),
                                bounds=[(0, None)] * H.shape[1], method="SLSQP",
                                constraints=[dict(type="ineq", fun=lambda b: 1 - b.sum())],
                                options=dict(maxiter=2000, ftol=1e-14))
        best = min(best, res.fun)
    assert beta.min() >= 0 and beta.sum() <= 1 + 1e-9
    assert obj(beta) <= best * (1 + 1e-4) + 1e-8
    # and it differs from the equal-weight fit
    beta_ols, _ = Radial(view.k1, [0.5]).fit(view, 0.5)
    assert obj(beta) < obj(beta_ols)


def test_curve_weights_argument(sim):
    scores, y = sim
    fit = extrapolate_accuracy(scores, y, method="regression", curve_weights="gls",
                               n_subsamples=4, rng=1, k_target=[60, 300])
    assert np.all(np.isfinite(fit.predict([60, 300]).accuracy))
    with pytest.raises(ValueError, match="curve_weights"):
        extrapolate_accuracy(scores, y, method="regression", curve_weights="ols",
                             n_subsamples=4, rng=1)
    with pytest.raises(ValueError, match="curve_weights"):
        extrapolate_accuracy(scores, y, method="hd", curve_weights="gls", n_subsamples=4)


def test_constant_terms_fall_back_to_equal_weights():
    # every test point beats every wrong class: all per-point terms are 1, no variance
    k1, per = 12, 2
    y = np.repeat(np.arange(k1), per)
    scores = -np.ones((k1 * per, k1))
    scores[np.arange(k1 * per), y] = 0.0
    view = Data(scores, y, "random", keep_scores=False).view()
    ks = np.arange(2, k1 + 1)
    cov = ata_covariance(view.b, view.t, view.k1, ks)
    np.testing.assert_allclose(cov, cov[0, 0] * np.eye(k1 - 1))
    beta, status = Radial(k1, [0.5], gls=True).fit(view, 0.5)
    assert status == "optimal" and np.all(np.isfinite(beta))
