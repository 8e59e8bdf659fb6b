"""Variance-optimal instrumental distributions (Sawade et al., ICML 2010 and NIPS 2010).

Theorem 1 of both papers: the asymptotic variance of the self-normalised estimator
``Ĝ = Σ v w ℓ / Σ v w`` (``v = p/q``) is minimised by

    q*(x) ∝ p(x) · sqrt( Σ_y p(y|x) · w(x, y)² · (ℓ(f(x), y) − G)² ),

with the model's ``p(y|x; θ)`` standing in for the unknown labels and its intrinsic
estimate ``G̃`` for ``G``. The value under the square root is called the *radicand*
``r(x)`` below; the model-expected asymptotic variance of a proposal ``q`` is

    σ̃²_q = Σ_x p(x)² r(x) / q(x) / (E_p[w])²,

i.e. the delta-method form with the factor ``1/E_p[w]²`` that NIPS eq. (9) drops.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._result import Reportable, _get_ax
from .._validation import (
    check_array,
    check_consistent_length,
    check_probability,
    check_probability_matrix,
    fail,
)
from .._warnings import InputWarning, Notes
from ._measures import MeasureSpec

__all__ = ["Pool", "Proposal", "pool_iv", "radicand", "general_radicand", "mix_uniform"]

#: largest number of (log-odds, q) pairs kept in a Proposal for plotting
_PLOT_SAMPLE = 4000


@dataclass
class Pool:
    """Validated pool: probabilities, predictions of every model, optional variances."""

    probs: np.ndarray           # (N,) p(y=1|x) for binary, (N, K) matrix, or (N,) means
    preds: np.ndarray           # (N, m) predictions of m models (column 0 drives the proposal)
    model_names: list[str]
    binary: bool
    variance: np.ndarray | None = None

    @property
    def size(self) -> int:
        return int(self.preds.shape[0])

    @property
    def headline_pred(self) -> np.ndarray:
        return self.preds[:, 0]

    def prob_of_prediction(self, idx: np.ndarray | None = None) -> np.ndarray:
        """``p(f(x) | x)`` for the headline model (on the items ``idx``, default all)."""
        f = self.headline_pred if idx is None else self.headline_pred[idx]
        probs = self.probs if idx is None else self.probs[idx]
        if probs.ndim == 1:
            return np.where(f == 1, probs, 1.0 - probs)
        return probs[np.arange(len(f)), f.astype(int)]

    def log_odds(self, idx: np.ndarray) -> np.ndarray:
        """The model's log-odds of the positive class (binary) or of its prediction."""
        if self.variance is not None:
            return self.probs[idx]
        p = self.probs[idx] if self.probs.ndim == 1 else self.prob_of_prediction(idx)
        p = np.clip(p, 1e-12, 1 - 1e-12)
        return np.log(p) - np.log1p(-p)


#: what a with-replacement design or a plan says to margins given as scores
MARGINS_REMEDY = ("If they are probabilities, correct the values outside [0, 1]. Raw "
                  "margins (log-odds) are read as such only by the default πps design of "
                  "active_evaluate, ActiveEvaluator and active_design (and, with "
                  "design='with_replacement', with recalibrate='platt'); pass "
                  "probabilities here, e.g. scipy.special.expit(margins).")


def pool_iv(scores: Any, spec: MeasureSpec, predictions: Any = None,
            variance: Any = None) -> Pool:
    """Validate the pool arguments shared by every active-estimation function."""
    if spec.kind == "squared":
        mean = check_array(scores, "scores")
        if variance is None:
            raise fail("variance", "an array of predictive variances for measure='squared'",
                       value=None)
        var = check_array(variance, "variance")
        check_consistent_length(scores=mean, variance=var)
        if var.min() < 0:
            raise fail("variance", "non-negative", got=f"minimum {var.min():.4g}")
        preds, names = _predictions_iv(predictions, mean, None)
        return Pool(mean, preds, names, binary=False, variance=var)
    if variance is not None:
        raise fail("variance", "None unless measure='squared'", value=variance, exc=TypeError)
    arr = np.asarray(scores)
    if arr.ndim == 2:
        probs = check_probability_matrix(scores, "scores")
        if probs.shape[1] < 2:
            raise fail("scores", "a matrix with at least 2 columns",
                       got=f"shape {probs.shape}")
        binary = probs.shape[1] == 2
        if binary:
            probs = probs[:, 1].copy()
    else:
        probs = check_probability(scores, "scores", remedy=MARGINS_REMEDY)
        binary = True
    if spec.binary_only and not binary:
        raise fail("measure", "'accuracy' or 'error' for a multi-class probability matrix",
                   value=spec.name)
    default = (probs > 0.5).astype(float) if binary else probs.argmax(axis=1).astype(float)
    n_classes = 2 if binary else probs.shape[1]
    preds, names = _predictions_iv(predictions, default, n_classes)
    return Pool(probs, preds, names, binary=binary)


def _predictions_iv(predictions: Any, default: np.ndarray,
                    n_classes: int | None) -> tuple[np.ndarray, list[str]]:
    if predictions is None:
        return default.reshape(-1, 1).astype(float), ["model"]
    if isinstance(predictions, pd.DataFrame):
        names = [str(c) for c in predictions.columns]
        arr = predictions.to_numpy()
    elif isinstance(predictions, pd.Series):
        names = [str(predictions.name) if predictions.name is not None else "model"]
        arr = predictions.to_numpy()
    else:
        arr = np.asarray(predictions)
        names = None
    arr = check_array(arr, "predictions", ndim=(1, 2))
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if names is None:
        names = ["model"] + [f"model_{j + 1}" for j in range(1, arr.shape[1])]
    check_consistent_length(scores=default, predictions=arr)
    if n_classes is not None:
        bad = (arr != np.round(arr)) | (arr < 0) | (arr > n_classes - 1)
        if bad.any():
            vals = ", ".join(f"{v:g}" for v in np.unique(arr[bad])[:5])
            raise fail("predictions", f"class labels in 0..{n_classes - 1}",
                       got=f"values {{{vals}}}")
    return arr.astype(float), names


# -- radicands -----------------------------------------------------------------------------

def intrinsic_estimate(pool: Pool, spec: MeasureSpec) -> tuple[float, float]:
    """The model's own estimate ``G̃`` and ``E_p[w]`` under ``p(y|x; θ)``."""
    if spec.kind == "squared":
        return float(pool.variance.mean()), 1.0
    if spec.kind in ("accuracy", "error"):
        acc = float(pool.prob_of_prediction().mean())
        return (acc if spec.kind == "accuracy" else 1.0 - acc), 1.0
    f, p1 = pool.headline_pred, pool.probs
    ew = float(np.mean(spec.alpha * f + (1.0 - spec.alpha) * p1))
    tp = float(np.mean(f * p1))
    return (tp / ew if ew > 0 else float("nan")), ew


def radicand(pool: Pool, spec: MeasureSpec, g: float) -> np.ndarray:
    """``r(x) = Σ_y p(y|x) w² (ℓ − G)²`` in closed form (ICML Derivations 1-2, NIPS Cor. 2).

    * zero-one risk / accuracy: ``(1 − 2R)(1 − p_f) + R²`` with ``R`` the *risk*
      (``(ℓ − G)²`` is unchanged under ``ℓ → 1 − ℓ``, ``G → 1 − G``);
    * squared loss, ``y ~ N(f, σ²)``: ``3σ⁴ − 2Rσ² + R²``;
    * F_α: ``p₁(1 − G)² + α²(1 − p₁)G²`` where ``f = 1`` and ``(1 − α)² G² p₁`` where ``f = 0``.
    """
    if spec.kind == "squared":
        s2 = pool.variance
        return 3 * s2 ** 2 - 2 * g * s2 + g ** 2
    if spec.kind in ("accuracy", "error"):
        risk = g if spec.kind == "error" else 1.0 - g
        return (1.0 - 2 * risk) * (1.0 - pool.prob_of_prediction()) + risk ** 2
    f, p1, a = pool.headline_pred, pool.probs, spec.alpha
    pos = p1 * (1.0 - g) ** 2 + a ** 2 * (1.0 - p1) * g ** 2
    neg = (1.0 - a) ** 2 * g ** 2 * p1
    return np.where(f == 1, pos, neg)


def general_radicand(probs: np.ndarray, predictions: np.ndarray, labels: np.ndarray,
                     loss: Callable | np.ndarray, weight: Callable | np.ndarray | None,
                     criterion: str = "theorem1") -> tuple[np.ndarray, np.ndarray, float, float]:
    """Theorem 1 for a user loss and weight over a finite label set.

    ``loss(f, y)`` and ``weight(f, y)`` are vectorised callables (broadcast over an
    ``(N, 1)`` array of predictions and a ``(1, K)`` array of labels) or ``(K, K)``
    matrices indexed by ``[index of f, index of y]``.

    Returns ``(shape, r, G̃, E_p[w])``: the unnormalised proposal (``sqrt(r)`` for
    ``criterion="theorem1"``, ``Σ_y p |w (ℓ − G̃)|`` for ``"absolute"``), the radicand,
    the intrinsic estimate and the mean weight.
    """
    f = predictions.reshape(-1, 1)
    ys = labels.reshape(1, -1)
    lmat = _pairwise(loss, f, ys, labels, "loss")
    wmat = np.ones_like(lmat) if weight is None else _pairwise(weight, f, ys, labels, "weight")
    ew = float(np.mean(np.sum(probs * wmat, axis=1)))
    if ew <= 0:
        return np.zeros(len(f)), np.zeros(len(f)), float("nan"), ew
    g = float(np.mean(np.sum(probs * wmat * lmat, axis=1)) / ew)
    dev = wmat * (lmat - g)
    r = np.sum(probs * dev ** 2, axis=1)
    shape = np.sqrt(r) if criterion == "theorem1" else np.sum(probs * np.abs(dev), axis=1)
    return shape, r, g, ew


def _pairwise(fn, f, ys, labels, name) -> np.ndarray:
    if callable(fn):
        out = np.asarray(fn(f, ys), dtype=float)
        out = np.broadcast_to(out, (f.shape[0], ys.shape[1]))
    else:
        mat = check_array(fn, name, ndim=2)
        k = len(labels)
        if mat.shape != (k, k):
            raise fail(name, f"a callable or a ({k}, {k}) matrix", got=f"shape {mat.shape}")
        idx = np.searchsorted(labels, f[:, 0])
        out = mat[idx, :]
    if not np.all(np.isfinite(out)):
        raise fail(name, "finite for every (prediction, label) pair",
                   got="non-finite values")
    return out


def mix_uniform(shape: np.ndarray, epsilon: float, notes: Notes) -> np.ndarray:
    """``q = (1 − ε) shape / Σ shape + ε / N`` (uniform when ``shape`` is all zero)."""
    n = shape.shape[0]
    total = float(shape.sum())
    if not np.isfinite(total) or total <= 0:
        notes.warn(InputWarning,
                   "The optimal proposal is degenerate (zero everywhere under the model); "
                   "sampling uniformly instead.")
        return np.full(n, 1.0 / n)
    q = shape * ((1.0 - epsilon) / total)
    q += epsilon / n
    return q


def expected_variance(r: np.ndarray, q: np.ndarray | float, ew: float) -> float:
    """Model-expected asymptotic variance ``σ̃²_q = Σ p² r / q / E_p[w]²`` with ``p = 1/N``.

    ``q`` may be a scalar (uniform sampling: ``1/N``); terms with ``r = 0`` contribute 0.
    """
    n = r.shape[0]
    if np.ndim(q) == 0:
        total = float(r.sum()) / float(q)
    else:
        total = float(np.divide(r, q, out=np.zeros_like(r), where=r > 0).sum())
    return total / n ** 2 / ew ** 2


# -- result --------------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Proposal(Reportable):
    """An instrumental (sampling) distribution over the pool — a design, not an estimate.

    ``plug_in`` is the model's intrinsic value ``G̃`` of the measure (what the proposal
    assumes); ``q`` the probabilities (summing to one). ``np.asarray(proposal)`` gives ``q``.

    Attributes
    ----------
    q : ndarray
        Sampling probability of every pool item.
    term : str
        The measure the proposal is optimised for.
    plug_in : float
        The model's intrinsic estimate ``G̃`` (also ``.estimate``, kept for old code).
    n_pool : int
        Pool size (also ``.n``).
    method : str
        How ``q`` was built.
    kind : str
        ``"optimal"`` (Theorem 1, mixed with uniform) or ``"passive"``.
    epsilon : float
        Weight of the uniform component.
    criterion : str
        ``"theorem1"`` or ``"absolute"``.
    expected_variance, passive_variance : float
        Model-expected per-draw asymptotic variances ``σ̃²_q`` and ``σ̃²_uniform``.
    mean_weight : float
        ``E_p[w]`` under the model.
    """

    q: np.ndarray
    term: str = "measure"
    plug_in: float = float("nan")
    n_pool: int = 0
    method: str = ""
    kind: str = "optimal"
    epsilon: float = 0.1
    criterion: str = "theorem1"
    expected_variance: float = float("nan")
    passive_variance: float = float("nan")
    mean_weight: float = 1.0
    plot_x: np.ndarray | None = None
    plot_q: np.ndarray | None = None
    plot_pred: np.ndarray | None = None
    x_label: str = "model log-odds"

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.q, dtype=dtype)

    @property
    def estimate(self) -> float:
        """The model's plug-in ``G̃`` (alias of ``plug_in``)."""
        return self.plug_in

    @property
    def n(self) -> int:
        """Pool size (alias of ``n_pool``)."""
        return self.n_pool

    @property
    def expected_gain(self) -> float:
        """``σ̃²_uniform / σ̃²_q``: labels saved by a factor of about this much (per draw).

        NaN when the model anticipates zero variance (e.g. it predicts no positives, so F1
        is known under the model): there is nothing to forecast.
        """
        if not self.expected_variance > 0:
            return float("nan")
        return self.passive_variance / self.expected_variance

    def expected_std_error(self, n_draws: Any, passive: bool = False) -> np.ndarray:
        """Model-expected standard error after ``n_draws`` draws (``sqrt(σ̃²/n)``)."""
        var = self.passive_variance if passive else self.expected_variance
        return np.sqrt(var / np.asarray(n_draws, dtype=float))

    def _tidy_rows(self) -> list[dict[str, Any]]:
        return [dict(term=self.term, plug_in=self.plug_in,
                     expected_variance=self.expected_variance,
                     passive_variance=self.passive_variance,
                     expected_gain=self.expected_gain)]

    def _repr_body(self) -> str:
        return (f"{self.term} {self.kind} over {self.n_pool} items, plug-in "
                f"{self.plug_in:.3g}, expected gain {self.expected_gain:.3g}x")

    def _title(self) -> str:
        return f"Proposal for {self.term} ({self.kind})"

    def _header(self) -> dict[str, Any]:
        hdr = super()._header()
        hdr.update({"Method": self.method, "Pool size": self.n_pool,
                    "Defensive share ε": self.epsilon, "Criterion": self.criterion})
        return hdr

    def _glance_extra(self) -> dict[str, Any]:
        return dict(kind=self.kind, criterion=self.criterion, epsilon=self.epsilon,
                    n_pool=self.n_pool)

    def plot(self, ax=None, **kwargs):
        """The proposal relative to uniform (``N·q``) over the model's log-odds (NIPS Fig. 2)."""
        ax = _get_ax(ax)
        if self.plot_x is None:
            return ax
        pred = self.plot_pred
        for val, colour in ((0.0, "tab:blue"), (1.0, "tab:red")):
            sel = pred == val
            if sel.any():
                ax.scatter(self.plot_x[sel], self.plot_q[sel] * self.n, s=6, color=colour,
                           label=f"prediction {val:g}", **kwargs)
        other = ~np.isin(pred, (0.0, 1.0))
        if other.any():
            ax.scatter(self.plot_x[other], self.plot_q[other] * self.n, s=6, color="grey",
                       label="other predictions")
        ax.axhline(1.0, color="k", lw=0.8, ls="--", label="uniform (passive)")
        ax.set_yscale("log")
        ax.set_xlabel(self.x_label)
        ax.set_ylabel("N · q(x)")
        ax.set_title(self._title())
        ax.legend(fontsize="small")
        return ax


def plot_sample(pool: Pool, q: np.ndarray) -> dict[str, np.ndarray]:
    """A fixed subsample of (log-odds, q, prediction) for plotting a large pool."""
    n = pool.size
    idx = np.arange(n) if n <= _PLOT_SAMPLE else np.linspace(0, n - 1, _PLOT_SAMPLE).astype(int)
    return dict(plot_x=pool.log_odds(idx), plot_q=q[idx], plot_pred=pool.headline_pred[idx])
