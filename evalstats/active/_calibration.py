"""Recalibration of a model's scores from the labels acquired so far (Platt or isotonic).

Labeled items were drawn from a proposal ``q``, not uniformly, so each is weighted by its
importance weight ``v = 1/(N q)`` in the fit; the fitted map then estimates ``p(y=1|score)``
on the pool. Calibration only changes the *proposal* of later batches: the estimator stays
consistent because every draw keeps the weight of the proposal it was drawn from.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import optimize, special

CALIBRATIONS = ("platt", "isotonic")


def _platt_feature(scores: np.ndarray, is_prob: bool) -> np.ndarray:
    """Log-odds of probabilities in [0, 1]; raw scores (margins) are used as they are."""
    if is_prob:
        p = np.clip(scores, 1e-12, 1 - 1e-12)
        return np.log(p) - np.log1p(-p)
    return scores


def fit_calibration(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray,
                    method: str, is_prob: bool) -> Callable[[np.ndarray], np.ndarray]:
    """A map ``scores -> p(y=1 | score)`` fitted by weighted Platt scaling or isotonic regression.

    Platt scaling (Platt 1999) fits ``σ(a z + b)`` to Platt's smoothed targets
    ``(n₊ + 1)/(n₊ + 2)`` and ``1/(n₋ + 2)`` (weighted counts), which stays finite under
    perfect separation; ``is_prob`` says whether the pool's scores are probabilities (then
    ``z`` is their log-odds) or raw margins. Isotonic regression uses
    :func:`scipy.optimize.isotonic_regression`.
    """
    w = weights / weights.mean()
    if method == "platt":
        z_all = _platt_feature(scores, is_prob)
        lo, hi = float(z_all.min()), float(z_all.max())
        scale = max(hi - lo, 1e-12)
        z = (z_all - lo) / scale                                    # well-conditioned
        n_pos, n_neg = float(w[labels == 1].sum()), float(w[labels == 0].sum())
        t = np.where(labels == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))

        def nll(ab):
            eta = ab[0] * z + ab[1]
            return float(np.sum(w * (np.logaddexp(0, eta) - t * eta)))

        def grad(ab):
            r = w * (special.expit(ab[0] * z + ab[1]) - t)
            return np.array([np.dot(r, z), r.sum()])

        a, b = optimize.minimize(nll, np.zeros(2), jac=grad, method="BFGS").x

        def platt(s: np.ndarray) -> np.ndarray:
            return special.expit(a * (_platt_feature(s, is_prob) - lo) / scale + b)

        return platt
    order = np.argsort(scores, kind="stable")
    xs = scores[order]
    fitted = optimize.isotonic_regression(labels[order].astype(float), weights=w[order]).x

    def isotonic(s: np.ndarray) -> np.ndarray:
        return np.interp(s, xs, fitted)

    return isotonic


#: weight of the Gaussian prior at the identity map in :func:`fit_recalibration` (in units
#: of one labeled item's log-likelihood): enough to keep the fit finite under separation,
#: too little to pull a fit that the labels determine
RECALIBRATION_RIDGE = 0.01


def fit_recalibration(probs: np.ndarray, labels: np.ndarray, weights: np.ndarray,
                      ridge: float = RECALIBRATION_RIDGE) -> tuple[float, float]:
    r"""Weighted logistic recalibration ``m'(x) = σ(a + b·logit m(x))`` of a model's scores.

    Maximises the weighted Bernoulli log-likelihood of the labels (weights as given,
    rescaled to mean one: ``1/π`` makes the fit estimate the pool's calibration map, ones
    the model-based fit; the variance floor uses ``π^(−½)``)
    penalised by ``ridge·(a² + (b − 1)²)``: a Gaussian prior centred at the identity map
    (``a = 0, b = 1``, the model as it is), which keeps ``(a, b)`` finite when the labels
    are separable. Unlike :func:`fit_calibration`'s Platt scaling there are no smoothed
    targets, which would put a floor of about ``1/(n₋ + 2)`` under every probability.

    .. math::

        (\hat a, \hat b) = \arg\min_{a,b} \sum_i w_i \bigl[\log(1 + e^{\eta_i})
            - y_i \eta_i\bigr] + \lambda\,[a^2 + (b - 1)^2],
        \qquad \eta_i = a + b\,\mathrm{logit}(m_i).

    Returns ``(a, b)``; apply with :func:`apply_recalibration`.
    """
    z = _platt_feature(np.asarray(probs, dtype=float), True)
    y = np.asarray(labels, dtype=float)
    w = np.asarray(weights, dtype=float)
    w = w / w.mean()

    def nll(ab: np.ndarray) -> float:
        eta = ab[0] + ab[1] * z
        return float(np.sum(w * (np.logaddexp(0.0, eta) - y * eta))
                     + ridge * (ab[0] ** 2 + (ab[1] - 1.0) ** 2))

    def grad(ab: np.ndarray) -> np.ndarray:
        r = w * (special.expit(ab[0] + ab[1] * z) - y)
        return np.array([r.sum() + 2.0 * ridge * ab[0],
                         np.dot(r, z) + 2.0 * ridge * (ab[1] - 1.0)])

    res = optimize.minimize(nll, np.array([0.0, 1.0]), jac=grad, method="BFGS")
    return float(res.x[0]), float(res.x[1])


def apply_recalibration(probs: np.ndarray, ab: tuple[float, float]) -> np.ndarray:
    """``σ(a + b·logit m)`` for the ``(a, b)`` of :func:`fit_recalibration`."""
    return special.expit(ab[0] + ab[1] * _platt_feature(np.asarray(probs, dtype=float), True))
