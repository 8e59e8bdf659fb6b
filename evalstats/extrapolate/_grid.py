r"""Numerics on the probit scale for accuracy curves, stable up to k = 10^6 and beyond.

Write the true-class favourability as :math:`U^* = \Phi(Z)`. The best of :math:`k-1` wrong
classes has favourability :math:`\max(V_1..V_{k-1})`, :math:`V_j` i.i.d. uniform, i.e.
:math:`\Phi(M_k)` with :math:`M_k` the maximum of :math:`k-1` standard normals, density
:math:`f_k(z) = (k-1)\phi(z)\Phi(z)^{k-2}`. For a discriminability function
:math:`D(u) = \Pr[U^*\le u]`,

.. math:: 1 - \mathrm{AGA}_k = (k-1)\int_0^1 D(u)u^{k-2}\,du = \int D(\Phi(z)) f_k(z)\,dz,

the JMLR Theorem 1 with the substitution :math:`u = \Phi(z)`. Every basis function of
:math:`D` is tabulated on one fine grid in :math:`z`, and :math:`f_k` is evaluated in log
space (``log_ndtr``), so the integrals are accurate for any :math:`k` (the peak of
:math:`f_k` moves only like :math:`\sqrt{2\log k}`).
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_ndtr, ndtr

Z = np.linspace(-10.0, 10.0, 4001)           # step 0.005
_DZ = Z[1] - Z[0]
_LOG_PHI = -0.5 * Z**2 - 0.5 * np.log(2 * np.pi)
_LOG_CDF = log_ndtr(Z)


def max_normal_weights(ks: np.ndarray) -> np.ndarray:
    """(len(ks), len(Z)) quadrature weights of :math:`f_k` on ``Z`` (rows sum to 1)."""
    ks = np.asarray(ks, float)[:, None]
    logf = np.log(np.maximum(ks - 1, 1e-300)) + _LOG_PHI[None, :] + (ks - 2) * _LOG_CDF[None, :]
    logf -= logf.max(axis=1, keepdims=True)
    w = np.exp(logf)
    return w / w.sum(axis=1, keepdims=True)


def design(basis_z: np.ndarray, ks: np.ndarray) -> np.ndarray:
    r"""``H[k, l] = \int b_l(z) f_k(z) dz`` for basis CDFs ``b_l`` tabulated on ``Z``."""
    return max_normal_weights(ks) @ basis_z.T


def radial_basis(knots: np.ndarray, h: float) -> np.ndarray:
    r"""Rows :math:`\Phi((z - t_\ell)/h)`: the CDF of :math:`\Phi^{-1}(U^*)\sim N(t_\ell, h^2)`."""
    return ndtr((Z[None, :] - np.asarray(knots, float)[:, None]) / h)


def radial_knots(k1: int, h: float) -> np.ndarray:
    r"""Knots spaced about ``h`` on :math:`[-t_{max}, t_{max}]`,
    :math:`t_{max} = \Phi^{-1}(1 - 1/k_1^2)` (the resolution limit; JMLR sec. 3.4)."""
    from scipy.stats import norm

    t_max = float(norm.ppf(1.0 - 1.0 / k1**2))
    half = np.linspace(0.0, t_max, max(2, int(np.ceil(t_max / h)) + 1))
    return np.concatenate([-half[:0:-1], half])


def bernstein_cdf_basis(degree: int, scale: float) -> np.ndarray:
    r"""Rows :math:`S_\ell(x) = \Pr[\mathrm{Bin}(d, x)\ge \ell]`, ``l = 1..d``, with
    :math:`x = \Phi(z / s)`.

    A Bernstein polynomial :math:`\sum_\ell \beta_\ell B_{\ell,d}(x)` with nondecreasing
    coefficients equals :math:`\beta_0 + \sum_{\ell\ge1}(\beta_\ell-\beta_{\ell-1})S_\ell(x)`,
    so a monotone polynomial in ``x`` is a non-negative combination of these rows. ``s = 1``
    gives a polynomial in ``u`` itself (the 2016 drafts); ``s > 1`` a polynomial in a
    stretched probit scale, which can bend near ``u = 1``.
    """
    from scipy.stats import binom

    x = ndtr(Z / scale)
    ell = np.arange(1, degree + 1)[:, None]
    return binom.sf(ell - 1, degree, x[None, :])


def normal_mean_accuracy(c: np.ndarray, ks: np.ndarray, h: float = 1.0) -> np.ndarray:
    r""":math:`E[\Phi(W)^{k-1}]`, :math:`W\sim N(c, h^2)` -- Zheng & Benjamini's
    :math:`\bar\pi_k(c)` for ``h = 1``. Shape (len(c), len(ks))."""
    c = np.atleast_1d(np.asarray(c, float))
    return 1.0 - design(radial_basis(c, h), np.atleast_1d(ks)).T


def bernstein_basis(degree: int, stretch: float, z_max: float | None = None) -> np.ndarray:
    r"""Rows :math:`B_{\ell,d}(x) = \binom{d}{\ell}x^\ell(1-x)^{d-\ell}`, ``l = 0..d``, on
    ``Z`` with :math:`x = \Phi(z/s)`, ``s`` = ``stretch`` (log space: stable for any ``d``).

    With ``z_max``, :math:`x = \min(1, \Phi(z/s)/\Phi(z_{max}/s))`: the polynomial lives on
    :math:`u\le\Phi(z_{max})` and is constant (its end value) beyond."""
    from scipy.special import gammaln

    ell = np.arange(degree + 1)[:, None]
    logc = gammaln(degree + 1) - gammaln(ell + 1) - gammaln(degree - ell + 1)
    lx = log_ndtr(Z / stretch)
    if z_max is None:
        l1x = log_ndtr(-Z / stretch)
    else:
        lx = np.minimum(lx - log_ndtr(z_max / stretch), 0.0)
        with np.errstate(divide="ignore"):
            l1x = np.log(-np.expm1(lx))
    rest = degree - ell
    with np.errstate(invalid="ignore"):
        tail = np.where(rest > 0, rest * l1x[None, :], 0.0)
    return np.exp(logc + ell * lx[None, :] + tail)


def resolution_z(k1: int, per_class: float = 1.0) -> float:
    r""":math:`\Phi^{-1}(1 - 1/(r k_1^2))`, the resolution limit of JMLR sec. 3.4 with ``r``
    = ``per_class`` test points per class."""
    from scipy.special import ndtri

    return float(-ndtri(1.0 / (max(per_class, 1e-12) * k1**2)))


def order_stat_weights(n: int) -> np.ndarray:
    r"""(n, len(Z)) quadrature weights of :math:`\mathrm{Beta}(h, n-h+1)`, ``h = 1..n``, in
    :math:`z = \Phi^{-1}(u)` (rows sum to 1).

    With :math:`V\sim\mathrm{Bin}(n, U^*)` wrong classes beaten,
    :math:`\Pr[V\ge h\mid U^*=u] = I_u(h, n-h+1)`, so integrating by parts
    :math:`\gamma_h = \Pr[V\ge h] = 1 - \int_0^1 D(u)\,\mathrm{beta}_{h,n-h+1}(u)\,du`
    (the Nov-2016 draft's :math:`\gamma_m`, sec. 4, with its index shifted to count wrong
    classes). Row ``h = n`` is :func:`max_normal_weights` at ``k = n + 1``.
    """
    h = np.arange(1, n + 1, dtype=float)[:, None]
    logw = (h - 1) * _LOG_CDF[None, :] + (n - h) * log_ndtr(-Z)[None, :] + _LOG_PHI[None, :]
    logw -= logw.max(axis=1, keepdims=True)
    w = np.exp(logw)
    return w / w.sum(axis=1, keepdims=True)
