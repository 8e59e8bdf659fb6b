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
