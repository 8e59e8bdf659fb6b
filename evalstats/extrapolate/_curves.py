"""Data views (true-class ranks within a set of classes) and accuracy curves ``acc(k)``.

Private to :mod:`evalstats.extrapolate`. A *view* holds, per test point, the number of wrong
classes strictly beaten (``b``) and tied (``t``) among a subset of the classes; a *curve*
maps numbers of classes ``k`` to predicted expected accuracy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats
from scipy.special import logsumexp

from . import _grid as grid
from ._ranks import ata_curve


@dataclass
class View:
    """True-class ranks of the test points of ``classes`` among ``classes`` only."""

    b: np.ndarray
    t: np.ndarray
    k1: int
    ties: str
    scores: np.ndarray | None = None     # (n_sub, k1) scores, only for score-based methods
    labels: np.ndarray | None = None

    @property
    def n(self) -> int:
        return len(self.b)

    def ata(self, ks: np.ndarray) -> np.ndarray:
        return ata_curve(self.b, self.t, self.k1, ks, self.ties)

    def survival_counts(self) -> np.ndarray:
        r"""``N_h = sum_x P(V_x >= h)``, ``h = 1..k1-1``: expected number of test points whose
        true class beats at least ``h`` wrong classes (ties broken as ``ties`` says; for
        ``"random"`` ``V = b + J``, ``J`` uniform on ``0..t``)."""
        h = np.arange(1, self.k1)[None, :]
        b, t = self.b[:, None].astype(float), self.t[:, None].astype(float)
        if self.ties == "pessimistic":
            p = (b >= h).astype(float)
        elif self.ties == "optimistic":
            p = (b + t >= h).astype(float)
        else:
            p = np.clip((b + t - h + 1.0) / (t + 1.0), 0.0, 1.0)
        return p.sum(axis=0)


class Data:
    """The full score matrix with comparison tables, to cut views on class subsets."""

    def __init__(self, scores: np.ndarray, y: np.ndarray, ties: str, keep_scores: bool):
        self.scores, self.y, self.ties, self.keep_scores = scores, y, ties, keep_scores
        true = scores[np.arange(len(y)), y][:, None]
        self.less = scores < true
        self.eq = scores == true
        self.k1 = scores.shape[1]

    def view(self, classes: np.ndarray | None = None) -> View:
        if classes is None:
            rows, cols = np.arange(len(self.y)), np.arange(self.k1)
        else:
            cols = np.sort(classes)
            rows = np.flatnonzero(np.isin(self.y, cols))
        b = self.less[np.ix_(rows, cols)].sum(axis=1)
        t = self.eq[np.ix_(rows, cols)].sum(axis=1) - 1
        v = View(b=b, t=t, k1=len(cols), ties=self.ties)
        if self.keep_scores:
            v.scores = self.scores[np.ix_(rows, cols)]
            v.labels = np.searchsorted(cols, self.y[rows])
        return v


_DESIGN_CACHE: dict = {}


def cached_design(basis_z: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """``grid.design`` memoised on (basis, ks): half-sample curves share their bases."""
    ks = np.asarray(ks, float)
    key = (id(basis_z), ks.tobytes())
    hit = _DESIGN_CACHE.get(key)
    if hit is None or hit[0] is not basis_z:
        if len(_DESIGN_CACHE) > 256:
            _DESIGN_CACHE.clear()
        hit = (basis_z, grid.design(basis_z, ks))   # keeps basis_z alive: ids stay unique
        _DESIGN_CACHE[key] = hit
    return hit[1]


class BasisCurve:
    """``acc_k = 1 - sum_l beta_l H_{l,k}`` for basis CDFs of ``Phi^{-1}(U*)`` on the z grid."""

    def __init__(self, basis_z: np.ndarray, beta: np.ndarray):
        self.basis_z, self.beta = basis_z, np.asarray(beta, float)

    def accuracy(self, ks: np.ndarray) -> np.ndarray:
        return np.clip(1.0 - cached_design(self.basis_z, ks) @ self.beta, 0.0, 1.0)

    def discriminability(self, u: np.ndarray) -> np.ndarray:
        """D(u) = P(U* <= u), interpolated from the z grid."""
        z = stats.norm.ppf(np.clip(u, 1e-300, 1 - 1e-16))
        return np.interp(z, grid.Z, self.beta @ self.basis_z)


class MassCurve:
    """``acc_k = sum_m w_m u_m^(k-1)``: a discrete distribution of ``U*`` (log space)."""

    def __init__(self, log_u: np.ndarray, w: np.ndarray | None = None):
        self.log_u = np.asarray(log_u, float)
        self.w = np.full(len(self.log_u), 1.0 / len(self.log_u)) if w is None else np.asarray(w)

    def accuracy(self, ks: np.ndarray) -> np.ndarray:
        km1 = np.asarray(ks, float)[:, None] - 1.0
        pos = self.w > 0
        return np.exp(logsumexp(km1 * self.log_u[None, pos], axis=1, b=self.w[None, pos]))


class NaiveCurve:
    """The unbiased ATA_k for ``k <= k1`` and the constant ATA_{k1} beyond."""

    def __init__(self, ata: np.ndarray, k1: int):
        self.ata, self.k1 = np.asarray(ata, float), k1

    def accuracy(self, ks: np.ndarray) -> np.ndarray:
        ks = np.asarray(ks, float)
        return np.interp(np.minimum(ks, self.k1), np.arange(2, self.k1 + 1), self.ata)


class AveragedCurve:
    """A weighted average of curves (soft model selection)."""

    def __init__(self, curves: list, weights: np.ndarray):
        w = np.asarray(weights, float)
        self.curves, self.weights = curves, w / w.sum()

    def accuracy(self, ks: np.ndarray) -> np.ndarray:
        return sum(w * c.accuracy(ks) for w, c in zip(self.weights, self.curves, strict=True))


def predict_curve(curve, ks: np.ndarray) -> np.ndarray:
    """``curve.accuracy(ks)`` with accuracy 1 at ``k < 2``, clipped to [0, 1] (a curve at
    accuracy 1, e.g. a kernel estimate on perfectly separated scores, can round to
    1 + 1e-15)."""
    ks = np.asarray(ks, float)
    out = np.ones(len(ks))
    big = ks >= 2
    if big.any():
        out[big] = np.clip(curve.accuracy(ks[big]), 0.0, 1.0)
    return out
