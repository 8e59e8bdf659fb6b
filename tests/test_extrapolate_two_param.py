"""The two-parameter normal model (method="two_param"): Phi^{-1}(U*) ~ N(mu, tau^2).
References: the curve by quadrature, exact recovery from a noise-free curve, hd as the
tau = 1 case, and a Monte-Carlo check of the Gaussian 1-NN model it describes."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, special, stats

from evalstats.extrapolate._methods import HighDim
from evalstats.extrapolate._normal import TwoParam


def _acc_quad(mu, tau, k):
    """E[Phi(Z)^(k-1)], Z ~ N(mu, tau^2), by quadrature."""
    def f(z):
        return stats.norm.pdf(z, mu, tau) * np.exp((k - 1) * special.log_ndtr(z))

    return integrate.quad(f, mu - 12 * tau, mu + 12 * tau, limit=400, epsabs=1e-13)[0]


class _CurveView:
    def __init__(self, acc, k1):
        self.acc, self.k1 = acc, k1

    def ata(self, ks):
        return self.acc(np.asarray(ks))


@pytest.mark.parametrize("mu, tau", [(1.5, 0.6), (2.8, 1.3), (0.3, 0.3)])
def test_curve_matches_quadrature(mu, tau):
    curve = TwoParam(50).curve(np.array([mu, tau]), None)
    for k in (2, 50, 1000):
        assert curve.accuracy(np.array([k]))[0] == pytest.approx(_acc_quad(mu, tau, k),
                                                                 abs=2e-5)


@pytest.mark.parametrize("mu, tau", [(1.5, 0.6), (2.8, 1.3), (-0.5, 0.8)])
def test_recovers_parameters_from_noise_free_curve(mu, tau):
    meth = TwoParam(80)
    truth = meth.curve(np.array([mu, tau]), None)
    p, status = meth.fit(_CurveView(truth.accuracy, 80), None)
    assert status == "optimal"
    np.testing.assert_allclose(p, [mu, tau], atol=1e-5)


def test_tau_one_is_the_hd_model():
    # hd matches ATA_k1 with tau = 1; on an exact tau = 1 curve both give the same mu
    curve = TwoParam(60).curve(np.array([2.0, 1.0]), None)
    view = _CurveView(curve.accuracy, 60)
    p, _ = TwoParam(60).fit(view, None)
    c, _ = HighDim(60).fit(view, None)
    assert p[0] == pytest.approx(c[0], abs=1e-5) and p[1] == pytest.approx(1.0, abs=1e-5)


def test_chance_is_mu_zero_tau_one():
    p, _ = TwoParam(40).fit(_CurveView(lambda ks: 1.0 / ks, 40), None)
    np.testing.assert_allclose(p, [0.0, 1.0], atol=1e-4)
