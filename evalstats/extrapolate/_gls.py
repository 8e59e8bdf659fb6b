r"""GLS weights for the correlated unbiased accuracies ATA_k, ``k = 2..k1``.

Private to :mod:`evalstats.extrapolate`. :math:`\mathrm{ATA}_k = n^{-1}\sum_x T_x(k)` with
:math:`T_x(k)` the probability that test point ``x`` beats ``k - 1`` random wrong classes
(:func:`._ranks.point_win_probability`); the same test points enter every ``k``, so the
ATA_k are strongly positively correlated (correlations above 0.9 between neighbouring
``k``). Their covariance is estimated by the sample covariance of :math:`T_x(\cdot)`
over the test points divided by ``n`` (test points treated as independent; the extra
dependence through the shared classes is ignored), shrunk towards its diagonal by the
Ledoit-Wolf (2004) rule applied to the standardised terms, so that it is well conditioned
although ``k1 - 1`` may exceed ``n``. A least-squares fit to the curve then minimises
:math:`(H\beta - y)^\top\hat\Sigma^{-1}(H\beta - y)`, i.e. ordinary least squares on
:math:`L^{-1}H` and :math:`L^{-1}y` with :math:`\hat\Sigma = LL^\top` (Cholesky).

References
----------
Ledoit, O. and Wolf, M. (2004). A well-conditioned estimator for large-dimensional
covariance matrices. J. Multivariate Analysis 88, 365-411.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cholesky, solve_triangular

from .._warnings import ConvergenceError
from ._ranks import point_win_probability

#: relative floor of the standard deviations (terms that never vary, e.g. T(2) = 1)
SD_FLOOR = 1e-3


def ledoit_wolf_shrinkage(x: np.ndarray) -> tuple[np.ndarray, float]:
    r"""Ledoit-Wolf covariance of the rows of ``x`` (n, p): :math:`(1-\alpha)S + \alpha\mu I`.

    :math:`S = n^{-1}X_c^\top X_c` (centred), :math:`\mu = \mathrm{tr}(S)/p`,
    :math:`\delta^2 = \|S-\mu I\|_F^2/p`,
    :math:`\bar\beta^2 = n^{-2}\sum_i\|x_ix_i^\top - S\|_F^2/p`,
    :math:`\alpha = \min(\bar\beta^2, \delta^2)/\delta^2` (Ledoit & Wolf 2004, Lemma 3.2
    and Theorem 3.2). Returns ``(covariance, alpha)``.
    """
    x = np.asarray(x, float)
    n, p = x.shape
    xc = x - x.mean(axis=0)
    s = xc.T @ xc / n
    mu = np.trace(s) / p
    delta2 = np.sum((s - mu * np.eye(p)) ** 2) / p
    # sum_i ||x_i x_i' - S||_F^2 = sum_i ||x_i||^4 - n ||S||_F^2
    beta2 = (np.sum(np.sum(xc**2, axis=1) ** 2) - n * np.sum(s**2)) / (n**2 * p)
    alpha = 1.0 if delta2 <= 0 else float(min(max(beta2, 0.0), delta2) / delta2)
    return (1.0 - alpha) * s + alpha * mu * np.eye(p), alpha


def ata_covariance(b: np.ndarray, t: np.ndarray, k1: int, ks: np.ndarray,
                   ties: str = "random") -> np.ndarray:
    r"""Shrunken covariance of :math:`(\mathrm{ATA}_k)_{k\in ks}` (module doc)."""
    terms = point_win_probability(b, t, k1, ks, ties)
    n = terms.shape[0]
    sd = terms.std(axis=0)
    sd = np.maximum(sd, SD_FLOOR * max(float(sd.max()), 1e-6))
    corr, _ = ledoit_wolf_shrinkage((terms - terms.mean(axis=0)) / sd)
    # unit diagonal (adding to it keeps the matrix positive definite); constant terms --
    # e.g. every test point beats every wrong class -- have zero correlations and unit
    # variance after flooring, so the fit falls back to equal weights for them
    np.fill_diagonal(corr, 1.0)
    return sd[:, None] * corr * sd[None, :] / max(n, 1)


def whitener(cov: np.ndarray) -> np.ndarray:
    r""":math:`L^{-1}` with :math:`\Sigma = LL^\top` (lower Cholesky)."""
    try:
        chol = cholesky(cov, lower=True)
    except (LinAlgError, ValueError) as err:
        raise ConvergenceError(f"GLS weights: covariance of the ATA_k not positive "
                               f"definite ({err}).") from None
    return solve_triangular(chol, np.eye(len(cov)), lower=True)
