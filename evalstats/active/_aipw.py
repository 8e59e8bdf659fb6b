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

A measure ``G = A/B`` is estimated by ``Ĝ = Â / B̂``, with ``Â``, ``B̂`` from the totals
``Ŷ_g`` projected onto the values the labels allow (:func:`projected_totals`: never
farther from the truth, and no measure outside [0, 1]). Its standard error is the martingale
(Wald) one of the linearisation ``u_t = (A_t − Ĝ B_t) / B̂``,
``V̂ = Σ a_t² u_t² / (1 − Σ a_t²)`` (unbiased for equal weights and independent
terms). The default interval inverts the score statistic of ``H₀: G = g``: the linear
statistic ``D_t(g) = A_t − g B_t`` has conditional mean 0 under ``H₀``, so
``Σ a_t² D_t(g)²`` estimates its variance without bias there, and the interval is
``{g : (Σ a_t D_t(g))² ≤ z² Σ a_t² D_t(g)²}`` (a quadratic inequality: the Fieller /
Wilson construction, which never leaves ``[0, 1]`` by a delta-method tangent).

That is the *realised* quadratic variation. The martingale CLT holds as well with the
*predictable* one (Hall & Heyde 1980, ch. 3: the conditional-variance form), the sum of the
draws' conditional variances. That of draw ``t``'s residual for group ``G`` is, given the
labels, ``Σ_{R_t ∩ G} (y − ĝ)²/q_t − (Σ_{R_t ∩ G} (y − ĝ))²``; its expectation under the
batch model (``y ~ Bernoulli(ĝ)``), ``w_t = Σ_{R_t ∩ G} ĝ(1 − ĝ)(1/q_t − 1)`` (the
anticipated variance of Isaki & Fuller 1982), is known before the draw and recorded with
it. As the two groups' residuals of one draw are uncorrelated under the model, the
predictable variance of ``Σ a_t D_t(g)`` is ``Σ a_t² (c₁(g)² w₁ₜ + c₀(g)² w₀ₜ)`` with
``c_j(g) = a_j − g b_j``, and its score set is again a quadratic inequality. The realised
variance is consistent whatever the model but cannot see residuals of rare items no draw
has reached; the predictable one is exact under a calibrated model and does not depend on
reaching them. The default inverts the larger of the two (the union of the two sets,
each an interval around ``Ĝ``): no tuning constant, conservative under either
assumption. A wrong model *and* an unsampled tail defeat both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._result import ConfidenceInterval, critical_value
from ._estimate_record import RatioEstimate
from ._measures import MeasureSpec

__all__ = ["DrawRecords", "Totals", "VARIANCES", "DEFAULT_VARIANCE", "exclusive_cumsum",
           "projected_totals", "pseudo_outcomes", "ratio_coefficients", "ratio_estimate",
           "box_range", "within_labels",
           "score_interval", "total_support"]


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
    Constants: ``pool_size`` and ``n_pred_pos`` (``(m,)``). ``model_var`` (``(n, 2m)``,
    optional): per model ``j`` the conditional variance of the draw's residual term of
    ``Y₁`` and of ``Y₀`` expected under the batch model (0 for certain items; NaN where
    unknown).
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
    model_var: np.ndarray | None = None

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
    ``−r₀ ≤ b[:, 2]``, ``r₀ ≤ b[:, 3]``), the model-expected conditional variances of
    ``r₁`` and ``r₀`` (``w1``, ``w0``; NaN where unknown), the weights ``a`` and the
    ``support`` of the two totals given the labels (:func:`total_support`)."""

    x1: np.ndarray
    x0: np.ndarray
    r1: np.ndarray
    r0: np.ndarray
    bounds: np.ndarray
    a: np.ndarray
    w1: np.ndarray
    w0: np.ndarray
    #: ``(lo₁, hi₁, lo₀, hi₀)``: the values of ``Y₁`` and ``Y₀`` the labels allow
    support: tuple[float, float, float, float] = (-np.inf, np.inf, -np.inf, np.inf)


def exclusive_cumsum(x: np.ndarray) -> np.ndarray:
    """``[0, x₀, x₀ + x₁, …]``: the sum of the entries before each one."""
    out = np.zeros_like(x)
    np.cumsum(x[:-1], out=out[1:])
    return out


def pseudo_outcomes(rec: DrawRecords, model: int = 0) -> Totals:
    """``X¹_t``, ``X⁰_t`` for every random draw of ``rec`` (model column ``model``)."""
    f = rec.preds[:, model]
    y, g, draw = rec.labels, rec.ghat, ~rec.certain
    known1 = exclusive_cumsum(f * y)                   # Σ_{L_t} over every earlier row
    known0 = exclusive_cumsum((1.0 - f) * y)
    gd1, gd0 = f * g * draw, (1.0 - f) * g * draw      # drawn items leave R_t
    left1 = np.empty_like(g)
    left0 = np.empty_like(g)
    for k in np.unique(rec.batch):
        rows = rec.batch == k
        left1[rows] = rec.sum1[k, model] - exclusive_cumsum(gd1[rows])
        left0[rows] = rec.sum0[k, model] - exclusive_cumsum(gd0[rows])
    with np.errstate(divide="ignore", invalid="ignore"):
        resid = np.where(draw, (y - g) / rec.q, 0.0)
    r1, r0 = f * resid, (1.0 - f) * resid
    x1 = known1 + left1 + r1
    x0 = known0 + left0 + r0
    if rec.model_var is None or rec.model_var.shape[1] < 2 * model + 2:
        w = np.full((int(draw.sum()), 2), np.nan)
    else:
        w = rec.model_var[draw][:, 2 * model:2 * model + 2]
    return Totals(x1=x1[draw], x0=x0[draw], r1=r1[draw], r0=r0[draw],
                  bounds=rec.bounds[draw][:, 4 * model:4 * model + 4], a=rec.draw_weights(),
                  w1=w[:, 0], w0=w[:, 1], support=total_support(rec, model))


def total_support(rec: DrawRecords, model: int = 0) -> tuple[float, float, float, float]:
    """``(lo₁, hi₁, lo₀, hi₀)``: ``Y_g`` is at least the positives labeled in group ``g``
    and at most the group's size less the negatives labeled in it. A skipped item (its
    label stands in as the model's ``ĝ``, strictly between 0 and 1) is neither: its true
    label is unknown, so it constrains no total."""
    f = rec.preds[:, model]
    pos, neg = (rec.labels == 1.0).astype(float), (rec.labels == 0.0).astype(float)
    size1 = float(rec.n_pred_pos[model])
    size0 = float(rec.pool_size) - size1
    return (float(f @ pos), size1 - float(f @ neg),
            float((1.0 - f) @ pos), size0 - float((1.0 - f) @ neg))


def box_range(coef: tuple, y1_lo: float, y1_hi: float, y0_lo: float, y0_hi: float
              ) -> ConfidenceInterval:
    """The range of ``A/B`` over the box (the measure is monotone in each total)."""
    if not np.isfinite([y1_lo, y1_hi, y0_lo, y0_hi]).all() or y1_lo > y1_hi or y0_lo > y0_hi:
        return ConfidenceInterval(float("nan"), float("nan"))
    (a1, a0, ac), (b1, b0, bc) = coef
    vals = []
    for y1 in (y1_lo, y1_hi):
        for y0 in (y0_lo, y0_hi):
            den = b1 * y1 + b0 * y0 + bc
            vals.append((a1 * y1 + a0 * y0 + ac) / den if den > 0 else np.nan)
    vals = np.array(vals)
    if np.isnan(vals).any():     # the box reaches B = 0 (e.g. no positive at all for recall)
        return ConfidenceInterval(0.0, 1.0)
    return ConfidenceInterval(float(max(vals.min(), 0.0)), float(min(vals.max(), 1.0)))


def within_labels(ci: ConfidenceInterval, rec: DrawRecords, coef: tuple,
                  model: int = 0) -> ConfidenceInterval:
    """``ci`` intersected with the measure's range over the totals the labels allow
    (:func:`total_support`): the truth lies there with certainty, so the intersection
    keeps any coverage guarantee, fixed-``n`` or anytime; a census gives one point."""
    if not (np.isfinite(ci.low) and np.isfinite(ci.high)):
        return ci
    lo1, hi1, lo0, hi0 = total_support(rec, model)
    allowed = box_range(coef, lo1, hi1, lo0, hi0)
    if not (np.isfinite(allowed.low) and np.isfinite(allowed.high)):
        return ci
    low = min(max(ci.low, allowed.low), allowed.high)
    high = max(min(ci.high, allowed.high), allowed.low)
    return ConfidenceInterval(float(low), float(max(high, low)))


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


#: the variances a score interval may invert: the realised quadratic variation, the
#: model-expected (predictable) one, or the larger of the two (the union of their sets)
VARIANCES = ("realised", "model", "max")
#: the variance of the default interval and of ``std_error``
DEFAULT_VARIANCE = "max"


def ratio_estimate(tot: Totals, coef: tuple, variance: str = DEFAULT_VARIANCE
                   ) -> RatioEstimate:
    """``Ĝ = Â / B̂`` (projected totals), its martingale standard error and the ingredients
    of the intervals.

    ``std_error`` is the ``variance`` one (see :data:`VARIANCES`; NaN with a single draw;
    the realised one where the model-expected one is unknown); ``defined`` is ``B̂ > 0``.
    """
    A, B = linear_parts(tot, coef)
    a = tot.a
    a2 = a * a
    (a1, a0, ac), (b1, b0, bc) = coef
    y1, y0, projected = projected_totals(tot)
    a_hat, b_hat = a1 * y1 + a0 * y0 + ac, b1 * y1 + b0 * y0 + bc
    W = (float(a2 @ tot.w1), float(a2 @ tot.w0))
    parts = dict(A=A, B=B, a=a, n_draws=len(a), a_hat=a_hat, b_hat=b_hat, W=W, coef=coef,
                 variance=variance, projected=projected)
    if not b_hat > 0:
        nan = float("nan")
        return RatioEstimate(estimate=nan, std_error=nan, defined=False, **parts)
    est = a_hat / b_hat
    s2 = float(a @ a)
    u = (A - est * B) / b_hat
    var = float(a2 @ (u * u)) / (1.0 - s2) if s2 < 1.0 else float("nan")
    var_model = ((a1 - est * b1) ** 2 * W[0] + (a0 - est * b0) ** 2 * W[1]) / b_hat ** 2
    se_r, se_m = (float(np.sqrt(max(v, 0.0))) if np.isfinite(v) else float("nan")
                  for v in (var, var_model))
    return RatioEstimate(estimate=est, std_error=_pick(se_r, se_m, variance), defined=True,
                         std_error_realised=se_r, std_error_model=se_m, **parts)


def projected_totals(tot: Totals) -> tuple[float, float, bool]:
    """``Ŷ₁``, ``Ŷ₀`` projected onto the values the labels allow (``tot.support``), and
    whether the projection moved a total the labels do not fix.

    The true total lies in its support, so the projection never moves an estimate away
    from it: in every sample its error is at most the unprojected one's (a projection
    onto a convex set that contains the target). The unprojected totals are the unbiased
    ones; the projection removes impossible values — a measure outside [0, 1] — that
    the 1/q-weighted residuals of rare items produce in small samples. A group whose
    every item is labeled has a one-point support: its total is the labeled count, which
    is not flagged (nothing was estimated).
    """
    raw = (float(tot.a @ tot.x1), float(tot.a @ tot.x0))
    lo1, hi1, lo0, hi0 = tot.support
    moved = False
    out = []
    for r, lo, hi in zip(raw, (lo1, lo0), (hi1, hi0), strict=True):
        v = min(max(r, lo), hi)
        moved |= v != r and hi > lo
        out.append(v)
    return out[0], out[1], bool(moved)


def _pick(realised: float, model: float, variance: str) -> float:
    """The ``variance`` standard error (the realised one where the other is unknown)."""
    if variance == "realised" or not np.isfinite(model):
        return realised
    if variance == "model" or not np.isfinite(realised):
        return model
    return max(realised, model)


def score_interval(r: RatioEstimate, level: float, bounded: bool = True,
                   variance: str | None = None) -> ConfidenceInterval:
    """``{g : (Σ a D_t(g))² ≤ z² V(g)}`` with ``D_t(g) = A_t − g B_t`` (hull, in ``[0, 1]``
    for bounded measures). ``V(g)`` is the realised ``Σ a² D_t(g)²``, the model-expected
    ``Σ a² (c₁(g)² w₁ + c₀(g)² w₀)`` (``c_j(g) = a_j − g b_j``) or the larger of the two
    (the union of the two sets, each an interval around ``Ĝ``), as ``variance`` says
    (default: the one ``r`` was computed with); the realised one where the model-expected
    one is unknown."""
    if not r.defined:
        return ConfidenceInterval(float("nan"), float("nan"))
    variance = (r.variance or DEFAULT_VARIANCE) if variance is None else variance
    z2 = critical_value(level) ** 2
    lo, hi = (0.0, 1.0) if bounded else (-np.inf, np.inf)
    W1, W0 = r.W
    known = np.isfinite(W1) and np.isfinite(W0)
    sets = []
    if variance != "model" or not known:
        A, B, a2 = r.A, r.B, r.a * r.a
        sets.append(_quadratic_set(r.b_hat ** 2 - z2 * float(a2 @ (B * B)),
                                   r.a_hat * r.b_hat - z2 * float(a2 @ (A * B)),
                                   r.a_hat ** 2 - z2 * float(a2 @ (A * A)),
                                   r.estimate, lo, hi))
    if variance != "realised" and known:
        (a1, a0, _), (b1, b0, _) = r.coef
        sets.append(_quadratic_set(r.b_hat ** 2 - z2 * (b1 * b1 * W1 + b0 * b0 * W0),
                                   r.a_hat * r.b_hat - z2 * (a1 * b1 * W1 + a0 * b0 * W0),
                                   r.a_hat ** 2 - z2 * (a1 * a1 * W1 + a0 * a0 * W0),
                                   r.estimate, lo, hi))
    return ConfidenceInterval(min(c.low for c in sets), max(c.high for c in sets))


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
