r"""The two-parameter normal model of the true class's favourability (``method="two_param"``).

Write the favourability of the true class as :math:`U^* = \Phi(Z)`. Zheng & Benjamini's
high-dimensional limit gives :math:`Z\sim N(\mu, 1)` (the ``"hd"`` method, one parameter
matched to ATA_{k1}); the two-parameter family announced in JMLR sec. 6 lets the spread
vary, :math:`Z\sim N(\mu, \tau^2)`, so that

.. math:: \mathrm{acc}_k = E[\Phi(Z)^{k-1}] = 1 - \int \Phi\Big(\frac{z-\mu}{\tau}\Big)
          f_k(z)\,dz,

:math:`f_k` the density of the maximum of ``k - 1`` standard normals (:mod:`._grid`). It is
one element of the radial basis of ClassExReg (JMLR sec. 3.3) with its centre and width
free. ``(mu, tau)`` minimise the squared distance to the unbiased curve ATA_k,
``k = 2..m`` (ordinary least squares, as ClassExReg), by ``scipy.optimize.least_squares``
with the analytic Jacobian, started from the best of a few widths (for each the centre
that reproduces ATA_m, as ``"hd"`` does). Assumption: :math:`\Phi^{-1}(U^*)` is close to
normal -- exact for Gaussian classes in high dimension, an approximation otherwise; the
model cannot represent a share of test points recognised with certainty at every ``k``
(an atom of :math:`U^*` at 1).
"""

from __future__ import annotations

import numpy as np
from scipy import optimize
from scipy.special import ndtr

from . import _grid as grid
from ._curves import BasisCurve, View
from ._methods import Method

#: starting widths of the least-squares search (each with the centre matching ATA_m)
START_WIDTHS = (0.35, 0.6, 1.0, 1.6)
TAU_BOUNDS = (0.05, 5.0)
MU_BOUNDS = (-8.0, 10.0)


def _centre_matching(target: float, tau: float, w_top: np.ndarray) -> float:
    """The ``mu`` whose curve at ``m`` classes equals ``target`` (bisection in ``mu``;
    ``w_top`` the quadrature weights of :math:`f_m`)."""
    def gap(mu):
        return 1.0 - w_top @ ndtr((grid.Z - mu) / tau) - target

    lo, hi = MU_BOUNDS
    if gap(lo) >= 0:
        return lo
    if gap(hi) <= 0:
        return hi
    return optimize.brentq(gap, lo, hi, xtol=1e-8)


class TwoParam(Method):
    r""":math:`\Phi^{-1}(U^*)\sim N(\mu, \tau^2)`, least squares to ATA_k (module doc)."""

    name = "two_param"

    def _weights(self, m: int) -> np.ndarray:
        key = ("W", m)
        if key not in self._cache:
            self._cache[key] = grid.max_normal_weights(np.arange(2, m + 1))
        return self._cache[key]

    def prepare(self, sizes):
        for m in sizes:
            self._weights(m)

    def fit(self, view: View, cand):
        W = self._weights(view.k1)
        ata = view.ata(np.arange(2, view.k1 + 1))

        def resid(p):
            return 1.0 - W @ ndtr((grid.Z - p[0]) / np.exp(p[1])) - ata

        def jac(p):
            tau = np.exp(p[1])
            x = (grid.Z - p[0]) / tau
            dens = _phi(x) / tau
            return np.column_stack([W @ dens, W @ (dens * x * tau)])

        starts = [(_centre_matching(ata[-1], t, W[-1]), np.log(t)) for t in START_WIDTHS]
        p0 = min(starts, key=lambda p: float(np.sum(resid(p) ** 2)))
        bounds = ([MU_BOUNDS[0], np.log(TAU_BOUNDS[0])], [MU_BOUNDS[1], np.log(TAU_BOUNDS[1])])
        res = optimize.least_squares(resid, p0, jac=jac, bounds=bounds, xtol=1e-10,
                                     ftol=1e-12, gtol=1e-12, max_nfev=200)
        status = "optimal" if res.status > 0 else "max_iterations"
        return np.array([res.x[0], np.exp(res.x[1])]), status

    def label(self, cand):
        return "two_param"

    def curve(self, p, cand):
        return BasisCurve(grid.radial_basis(np.array([p[0]]), float(p[1])), np.ones(1))


def _phi(x: np.ndarray) -> np.ndarray:
    """Standard normal density."""
    return np.exp(-0.5 * x**2) / np.sqrt(2 * np.pi)
