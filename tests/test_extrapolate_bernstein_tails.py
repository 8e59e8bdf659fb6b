"""The two tail assumptions of the paper's model (monotone Bernstein polynomial): "open"
(``D(1) <= 1``) and "cut" (the polynomial lives on ``u <= Phi(z_cut)``, ``D = 1`` beyond),
checked against independently computed bases and exact accuracy curves (scipy ``quad``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import integrate, special, stats

from evalstats import datasets
from evalstats.extrapolate import extrapolate_accuracy
from evalstats.extrapolate._bernstein import LS_CANDIDATES, PENALTY, STRETCHES, TAILS, Bernstein
from evalstats.extrapolate._fit import _soft_weights, _weights
from evalstats.extrapolate._grid import Z, bernstein_basis, resolution_z

D_TRUE, S_TRUE, ZCUT = 6, 3.0, 2.5
BETA = np.array([0.0, 0.05, 0.1, 0.3, 0.55, 0.8, 1.0])       # nondecreasing, ends at 1


def _x_cut(u):
    """The cut model's polynomial argument, written out from its definition."""
    return np.minimum(1.0, special.ndtr(special.ndtri(u) / S_TRUE)
                      / special.ndtr(ZCUT / S_TRUE))


def _d_true(u):
    return float(np.sum(BETA * stats.binom.pmf(np.arange(D_TRUE + 1), D_TRUE, _x_cut(u))))


def _exact_acc(ks):
    # AGA_k = 1 - (k-1) int_0^1 D(u) u^(k-2) du (JMLR Thm 1); D = 1 beyond u_cut, so that
    # part is 1 - u_cut^(k-1) in closed form
    u_cut = special.ndtr(ZCUT)
    out = []
    for k in np.atleast_1d(ks):
        inner, _ = integrate.quad(lambda u, k=k: _d_true(u) * (k - 1) * u ** (k - 2), 0.0, u_cut,
                                  limit=400, epsabs=1e-12, epsrel=1e-10)
        out.append(1.0 - inner - (1.0 - u_cut ** (k - 1)))
    return np.array(out)


def _exact_gamma(n):
    # gamma_h = P(V >= h), V ~ Bin(n, U*) = 1 - int D(u) beta_{h, n-h+1}(u) du
    u_cut = special.ndtr(ZCUT)
    out = []
    for h in range(1, n + 1):
        inner, _ = integrate.quad(lambda u, h=h: _d_true(u) * stats.beta.pdf(u, h, n - h + 1),
                                  0.0, u_cut, limit=400, epsabs=1e-12)
        out.append(1.0 - inner - stats.beta.sf(u_cut, h, n - h + 1))
    return np.array(out)


class _ExactView:
    """Noise-free data: the exact ATA curve and expected survival counts."""

    n = 1000

    def __init__(self, k1):
        self.k1 = k1

    def ata(self, ks):
        return _exact_acc(np.asarray(ks))

    def survival_counts(self):
        return self.n * _exact_gamma(self.k1 - 1)


def test_cut_basis_is_the_binomial_pmf_of_the_rescaled_argument():
    b = bernstein_basis(D_TRUE, S_TRUE, z_max=ZCUT)
    idx = np.searchsorted(Z, [-3.0, 0.0, 1.7, 2.5, 3.0, 6.0])
    for i in idx:
        x = _x_cut(special.ndtr(Z[i]))
        np.testing.assert_allclose(b[:, i], stats.binom.pmf(np.arange(D_TRUE + 1), D_TRUE, x),
                                   atol=1e-13)
    np.testing.assert_allclose(b.sum(axis=0), 1.0, atol=1e-12)
    assert np.all(b[-1, Z >= ZCUT] == 1.0)                 # D = c_d beyond the cut
    # no cut: the open basis of x = Phi(z/s)
    x = special.ndtr(Z[idx] / S_TRUE)
    np.testing.assert_allclose(bernstein_basis(D_TRUE, S_TRUE)[:, idx],
                               stats.binom.pmf(np.arange(D_TRUE + 1)[:, None], D_TRUE, x),
                               atol=1e-13)


def test_resolution_limit():
    # Phi^{-1}(1 - 1/(r k1^2)), the JMLR paper's resolution limit
    assert resolution_z(100, 3.0) == pytest.approx(stats.norm.isf(1 / 30_000), rel=1e-12)
    assert resolution_z(100) == pytest.approx(3.7190164854556804, rel=1e-12)   # 1 - 1e-4


@pytest.mark.parametrize("form, tol", [("ls", 3e-3), ("binomial", 4e-3)])
def test_cut_model_recovers_known_curve(form, tol):
    # the degree-6 cut polynomial is contained in the degree-64 one (degree elevation in the
    # same argument), so both fits recover it from noise-free data up to k = 10^4
    meth = Bernstein(60, candidates=[(64, S_TRUE, "cut")], fit=form, penalty=0.0)
    meth.z_cut = ZCUT
    coef, status = meth.fit(_ExactView(60), (64, S_TRUE, "cut"))
    assert status == "optimal"
    assert coef[-1] == pytest.approx(1.0, abs=1e-7)          # D reaches 1 at the cut
    ks = np.array([2, 30, 60, 200, 1000, 10**4])
    np.testing.assert_allclose(meth.curve(coef, (64, S_TRUE, "cut")).accuracy(ks),
                               _exact_acc(ks), atol=tol)


def test_default_candidates_and_equal_tail_weights():
    pl = Bernstein(100, fit="binomial", per_class=3.0)
    assert pl.candidates == [(64, s, t) for t in TAILS for s in STRETCHES]
    assert pl.z_cut == pytest.approx(stats.norm.isf(1 / 30_000))
    ls = Bernstein(100, fit="ls")
    assert ls.candidates == [(d, s, "open") for d, s in LS_CANDIDATES]
    assert ls.penalty == PENALTY["ls"] == 0.0
    rmse = np.array([0.05, 0.06, 0.2, 0.04, 0.041, 0.045])
    w = _weights(pl, rmse)
    np.testing.assert_allclose([w[:3].sum(), w[3:].sum()], [0.5, 0.5])
    np.testing.assert_allclose(w[:3], _soft_weights(rmse[:3]) / 2)
    np.testing.assert_allclose(w[3:], _soft_weights(rmse[3:]) / 2)


def test_tail_triples_accepted_and_validated():
    b = datasets.load("sim_multiclass")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = extrapolate_accuracy(b.scores, b.labels, method="pseudolikelihood",
                                   degree=[(16, 4.0, "open"), (16, 4.0, "cut")],
                                   n_subsamples=2, rng=0, k_target=[1000])
    assert any("D=1 beyond z=" in m for m in fit.cv_table.model)
    assert np.isfinite(fit.estimate)
    with pytest.raises(ValueError, match="`degree` must be"):
        extrapolate_accuracy(b.scores, b.labels, method="pseudolikelihood",
                             degree=(16, 4.0, "closed"))


@pytest.mark.slow
def test_pseudolikelihood_n_jobs_bit_identical():
    joblib = pytest.importorskip("joblib")
    b = datasets.load("sim_multiclass")
    kw = dict(method="pseudolikelihood", rng=5, n_subsamples=4, k_target=[200, 1000])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = extrapolate_accuracy(b.scores, b.labels, **kw)
        with joblib.parallel_config(backend="loky"):
            c = extrapolate_accuracy(b.scores, b.labels, n_jobs=2, **kw)
    assert a.predict([200, 1000]).equals(c.predict([200, 1000]))
