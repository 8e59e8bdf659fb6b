r"""The design-based estimator of the default (successive πps) design: AIPW on the remaining pool.

Every binary measure of a model is a ratio of linear functions of two pool totals, the
positives among the items it predicts positive and among those it predicts negative,
``Y₁ = Σ_{f=1} y`` and ``Y₀ = Σ_{f=0} y``:

=============  ==============================  ==============================
measure        numerator ``A``                 denominator ``B``
=============  ==============================  ==============================
F_α            ``Y₁``                          ``α P + (1 − α)(Y₁ + Y₀)``
accuracy       ``Y₁ − Y₀ + N − P``             ``N``
error          ``Y₀ − Y₁ + P``                 ``N``
=============  ==============================  ==============================

(``P`` predicted positives, ``N`` items; both known.) Draw ``t`` (item ``x_t`` drawn with
probability ``q_t`` among the items ``R_t`` not labeled before it; ``L_t`` the items
labeled before it; ``ĝ`` the model of ``P(y = 1 | x)`` fitted on earlier batches only)
gives for each group total

.. math::

    X^{g}_t = \sum_{L_t \cap G_g} y_i + \sum_{R_t \cap G_g} \hat g_i
              + 1[x_t \in G_g]\,\frac{y_{x_t} - \hat g_{x_t}}{q_t},

whose conditional mean given the past is exactly ``Y_g`` for any model (the PURE
estimator of Farquhar, Gal & Rainforth 2021 with the model as control variate; the AIPW
form of Zrnic & Candès 2024). With predictable weights ``a_t`` summing to one,
``Ŷ_g = Σ a_t X^g_t`` is exactly unbiased. The weights are equal per label: a batch of
``n_k`` labels of which ``n'_k`` are random draws gives each of its draws
``a_t = (n_k / n) / n'_k`` (the predictable rule that minimises the forecast variance when
the future per-label variance is forecast to equal the current one).

A measure ``G = A/B`` is estimated by ``Ĝ = Â / B̂``. Its standard error is the martingale
(Wald) one of the linearisation ``u_t = (A_t − Ĝ B_t) / B̂``,
``V̂ = Σ a_t² u_t² / (1 − Σ a_t²)`` (unbiased for equal weights and independent
terms). The default interval inverts the score statistic of ``H₀: G = g``: the linear
statistic ``D_t(g) = A_t − g B_t`` has conditional mean 0 under ``H₀``, so
``Σ a_t² D_t(g)²`` estimates its variance without bias there, and the interval is
``{g : (Σ a_t D_t(g))² ≤ z² Σ a_t² D_t(g)²}`` (a quadratic inequality: the Fieller /
Wilson construction, which never leaves ``[0, 1]`` by a delta-method tangent).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._result import ConfidenceInterval, critical_value
from ._measures import MeasureSpec

__all__ = ["DrawRecords", "Totals", "pseudo_outcomes", "ratio_coefficients", "ratio_estimate",
           "score_interval"]


@dataclass(frozen=True)
class DrawRecords:
    """Every labeled item of a successive design, in labeling order.

    Row arrays (one entry per labeled item): ``batch``, ``certain`` (labeled with
    certainty), ``q`` (its draw probability; 1 for certain items), ``bounds`` (``(n, 4m)``:
    per model ``j`` the largest ``ĝ/q`` and ``(1 − ĝ)/q`` among the items left at that draw
    that it predicts positive, then negative; 0 for certain items), ``ghat`` (the batch
    model's prediction),
    ``preds`` (``(n, m)`` predictions of every model) and ``labels``. Batch arrays:
    ``sum1``/``sum0`` (``(K, m)``: ``Σ ĝ`` over the items left to draw from in batch ``k``
    after its certain items, among those model ``j`` predicts positive / negative).
    Constants: ``pool_size`` and ``n_pred_pos`` (``(m,)``).
    """

    batch: np.ndarray
    certain: np.ndarray
    q: np.ndarray
    bounds: np.ndarray
    ghat: np.ndarray
    preds: np.ndarray
    labels: np.ndarray
    sum1: np.ndarray
    sum0: np.ndarray
    pool_size: int
    n_pred_pos: np.ndarray

    @property
    def n_labels(self) -> int:
        return int(self.labels.shape[0])

    @property
    def n_draws(self) -> int:
        return int((~self.certain).sum())

    def draw_weights(self) -> np.ndarray:
        """``a_t = (n_k / n) / n'_k`` for every random draw (in row order)."""
        n_k = np.bincount(self.batch)
        draws_k = np.bincount(self.batch[~self.certain], minlength=len(n_k))
        b = self.batch[~self.certain]
        return n_k[b] / n_k.sum() / draws_k[b]


@dataclass(frozen=True)
class Totals:
    """Per-draw pseudo-outcomes of ``Y₁`` and ``Y₀`` for one model, their residual parts
    ``r₁``, ``r₀`` (the ``(y − ĝ)/q`` term, the only part not known before the draw), the
    bounds of those residuals (``(n, 4)``: ``−r₁ ≤ b[:, 0]``, ``r₁ ≤ b[:, 1]``,
    ``−r₀ ≤ b[:, 2]``, ``r₀ ≤ b[:, 3]``) and the weights ``a``."""

    x1: np.ndarray
    x0: np.ndarray
    r1: np.ndarray
    r0: np.ndarray
    bounds: np.ndarray
    a: np.ndarray


def _exclusive_cumsum(x: np.ndarray) -> np.ndarray:
    out = np.zeros_like(x)
    np.cumsum(x[:-1], out=out[1:])
    return out


def pseudo_outcomes(rec: DrawRecords, model: int = 0) -> Totals:
    """``X¹_t``, ``X⁰_t`` for every random draw of ``rec`` (model column ``model``)."""
    f = rec.preds[:, model]
    y, g, draw = rec.labels, rec.ghat, ~rec.certain
    known1 = _exclusive_cumsum(f * y)                   # Σ_{L_t} over every earlier row
    known0 = _exclusive_cumsum((1.0 - f) * y)
    gd1, gd0 = f * g * draw, (1.0 - f) * g * draw      # drawn items leave R_t
    left1 = np.empty_like(g)
    left0 = np.empty_like(g)
    for k in np.unique(rec.batch):
        rows = rec.batch == k
        left1[rows] = rec.sum1[k, model] - _exclusive_cumsum(gd1[rows])
        left0[rows] = rec.sum0[k, model] - _exclusive_cumsum(gd0[rows])
    with np.errstate(divide="ignore", invalid="ignore"):
        resid = np.where(draw, (y - g) / rec.q, 0.0)
    r1, r0 = f * resid, (1.0 - f) * resid
    x1 = known1 + left1 + r1
    x0 = known0 + left0 + r0
    return Totals(x1=x1[draw], x0=x0[draw], r1=r1[draw], r0=r0[draw],
                  bounds=rec.bounds[draw][:, 4 * model:4 * model + 4], a=rec.draw_weights())


def ratio_coefficients(spec: MeasureSpec, n_pool: int, n_pos: float
                       ) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """``(a₁, a₀, a_c), (b₁, b₀, b_c)`` with ``A = a₁Y₁ + a₀Y₀ + a_c`` and ``B`` likewise."""
    if spec.kind == "f":
        al = spec.alpha
        return (1.0, 0.0, 0.0), (1.0 - al, 1.0 - al, al * n_pos)
    if spec.kind == "accuracy":
        return (1.0, -1.0, n_pool - n_pos), (0.0, 0.0, float(n_pool))
    if spec.kind == "error":
        return (-1.0, 1.0, n_pos), (0.0, 0.0, float(n_pool))
    raise ValueError(f"measure {spec.name!r} is not a binary measure")


def linear_parts(tot: Totals, coef: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Per-draw ``A_t`` and ``B_t``."""
    (a1, a0, ac), (b1, b0, bc) = coef
    return a1 * tot.x1 + a0 * tot.x0 + ac, b1 * tot.x1 + b0 * tot.x0 + bc


def ratio_estimate(tot: Totals, coef: tuple) -> dict:
    """``Ĝ = Â / B̂``, its martingale standard error and the ingredients of the intervals.

    Returns ``estimate``, ``std_error`` (NaN with a single draw), ``defined`` (``B̂ > 0``),
    ``A``, ``B`` (per draw), ``a`` (weights), ``n_draws``.
    """
    A, B = linear_parts(tot, coef)
    a = tot.a
    a_hat, b_hat = float(a @ A), float(a @ B)
    out = dict(A=A, B=B, a=a, n_draws=len(a), defined=b_hat > 0, a_hat=a_hat, b_hat=b_hat)
    if not b_hat > 0:
        return dict(out, estimate=float("nan"), std_error=float("nan"))
    est = a_hat / b_hat
    s2 = float(a @ a)
    u = (A - est * B) / b_hat
    var = float((a * a) @ (u * u)) / (1.0 - s2) if s2 < 1.0 else float("nan")
    return dict(out, estimate=est, std_error=float(np.sqrt(max(var, 0.0))))


def score_interval(r: dict, level: float, bounded: bool = True) -> ConfidenceInterval:
    """``{g : (Σ a D_t(g))² ≤ z² Σ a² D_t(g)²}`` with ``D_t(g) = A_t − g B_t`` (hull, in
    ``[0, 1]`` for bounded measures)."""
    if not r["defined"]:
        return ConfidenceInterval(float("nan"), float("nan"))
    z2 = critical_value(level) ** 2
    A, B, a = r["A"], r["B"], r["a"]
    a2 = a * a
    qa = r["b_hat"] ** 2 - z2 * float(a2 @ (B * B))
    qb = r["a_hat"] * r["b_hat"] - z2 * float(a2 @ (A * B))
    qc = r["a_hat"] ** 2 - z2 * float(a2 @ (A * A))
    lo, hi = (0.0, 1.0) if bounded else (-np.inf, np.inf)
    return _quadratic_set(qa, qb, qc, r["estimate"], lo, hi)


def _quadratic_set(qa: float, qb: float, qc: float, centre: float, lo: float,
                   hi: float) -> ConfidenceInterval:
    """Hull of ``{g ∈ [lo, hi] : qa g² − 2 qb g + qc ≤ 0}`` (it contains ``centre``)."""
    def value(g: float) -> float:
        return qa * g * g - 2.0 * qb * g + qc

    scale = max(abs(qa), abs(qb), abs(qc), 1e-300)
    qa, qb, qc = qa / scale, qb / scale, qc / scale
    roots: list[float] = []
    if abs(qa) > 1e-14:
        disc = qb * qb - qa * qc
        if disc >= 0:
            s = np.sqrt(disc)
            roots = [(qb - s) / qa, (qb + s) / qa]
    elif abs(qb) > 1e-14:
        roots = [qc / (2.0 * qb)]
    points = sorted({p for p in [lo, hi, *roots] if lo <= p <= hi} | {min(max(centre, lo), hi)})
    inside = [p for p in points if value(p) <= 1e-12 * max(1.0, abs(p)) ** 2]
    if not inside:
        return ConfidenceInterval(float(centre), float(centre))
    return ConfidenceInterval(float(min(inside)), float(max(inside)))
