"""The paper's model (method="pseudolikelihood"): a monotone polynomial D(u) in u fitted by the
rank pseudolikelihood. References: closed forms checked by quadrature, a known polynomial
recovered from its exact expected counts, chance, and the public call."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import integrate, stats

from evalstats import datasets
from evalstats.extrapolate import extrapolate_accuracy
from evalstats.extrapolate._pseudolikelihood import (
    PaperPolynomial,
    PolynomialCurve,
    accuracy_design,
    degree_for,
    survival_design,
)


def _bernstein(u, coef):
    d = len(coef) - 1
    return sum(c * stats.binom.pmf(ell, d, u) for ell, c in enumerate(coef))


COEF = np.array([0.0, 0.02, 0.1, 0.25, 0.5, 0.7, 0.9, 0.97])     # degree 7, monotone


@pytest.mark.parametrize("k", [2, 5, 40, 1000])
def test_accuracy_design_matches_theorem_1_by_quadrature(k):
    # 1 - acc_k = (k-1) int_0^1 D(u) u^(k-2) du (JMLR Thm 1)
    ref = (k - 1) * integrate.quad(lambda u: _bernstein(u, COEF) * u ** (k - 2), 0, 1,
                                   epsabs=1e-14, limit=200)[0]
    assert (accuracy_design(7, [k]) @ COEF)[0] == pytest.approx(ref, rel=1e-9, abs=1e-13)


@pytest.mark.parametrize("n, h", [(5, 1), (5, 5), (30, 12)])
def test_survival_design_matches_beta_integral(n, h):
    # P(V < h) for V | U ~ Bin(n, U) = int D(u) beta_{h, n-h+1}(u) du
    ref = integrate.quad(lambda u: _bernstein(u, COEF) * stats.beta.pdf(u, h, n - h + 1),
                         0, 1, epsabs=1e-14, limit=200)[0]
    assert (survival_design(7, n) @ COEF)[h - 1] == pytest.approx(ref, rel=1e-9, abs=1e-13)
    # and by the binomial law directly, for a mixture of point masses approximating D
    assert survival_design(7, n).sum(axis=1) == pytest.approx(np.ones(n), abs=1e-12)


def test_chance_gives_one_over_k():
    # D(u) = u is the degree-1 Bernstein polynomial with coefficients (0, 1)
    ks = np.array([2, 3, 10, 10**4])
    # 1 - (k-1)/k in log-gamma arithmetic: absolute error ~1e-11 at k = 10^4
    np.testing.assert_allclose(PolynomialCurve(np.array([0.0, 1.0])).accuracy(ks), 1.0 / ks,
                               rtol=1e-6, atol=1e-10)
    u = np.linspace(0, 1, 7)
    np.testing.assert_allclose(PolynomialCurve(np.array([0.0, 1.0])).discriminability(u), u,
                               atol=1e-15)


class _ExactView:
    """Noise-free data of a known polynomial: expected survival counts and ATA."""

    def __init__(self, coef, k1, n=1000):
        self.coef, self.k1, self.n = coef, k1, n

    def survival_counts(self):
        return self.n * (1.0 - survival_design(len(self.coef) - 1, self.k1 - 1) @ self.coef)

    def ata(self, ks):
        return 1.0 - accuracy_design(len(self.coef) - 1, ks) @ self.coef


@pytest.mark.parametrize("form", ["bernoulli", "binomial"])
def test_known_polynomial_recovered_from_expected_counts(form):
    # the true degree-7 polynomial is inside every candidate (degree elevation); with the
    # exact expected counts the pseudolikelihood reproduces its curve
    view = _ExactView(COEF, 60)
    meth = PaperPolynomial(60, [1.0], likelihood=form)
    coef, status = meth.fit(view, 1.0)
    assert status == "optimal"
    assert len(coef) == degree_for(1.0, 60) + 1 == 60
    assert np.all(np.diff(coef) >= -1e-7) and coef[0] >= 0 and coef[-1] <= 1
    ks = np.array([2, 30, 60, 100, 1000])
    np.testing.assert_allclose(meth.curve(coef, 1.0).accuracy(ks), view.ata(ks), atol=2e-3)
    # the test-risk constraint holds exactly
    assert meth.curve(coef, 1.0).accuracy(np.array([60]))[0] == pytest.approx(
        view.ata([60])[0], abs=1e-6)


def test_degree_rule_and_user_degrees():
    assert [degree_for(r, 100) for r in (1, 2, 4, 8)] == [99, 198, 396, 792]
    assert degree_for(1.0, 2) == 1
    b = datasets.load("sim_multiclass")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = extrapolate_accuracy(b.scores, b.labels, method="pseudolikelihood", degree=[50],
                                   n_subsamples=2, rng=0)
    assert fit.method == "pseudolikelihood" and "d=50" in fit.chosen
    with pytest.raises(ValueError, match="`degree` must be an int >= 1"):
        extrapolate_accuracy(b.scores, b.labels, method="pseudolikelihood", degree=0.5)


def test_stretched_candidates_are_a_future_warning_alias_of_polynomial():
    b = datasets.load("sim_multiclass")
    with pytest.warns(FutureWarning, match="now method='polynomial'"):
        fit = extrapolate_accuracy(b.scores, b.labels, method="pseudolikelihood",
                                   degree=[(32, 4.0, "cut")], n_subsamples=2, rng=0)
    assert fit.method == "polynomial" and "bernoulli pseudolikelihood" in fit.chosen
