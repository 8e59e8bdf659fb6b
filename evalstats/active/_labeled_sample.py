"""The with-replacement sample: labeled items, their draws, and the self-normalised
importance-weighted ratio estimator with its delta-method variance (see
:mod:`evalstats.active._estimators` for the formulas and the correction of the NIPS
paper).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._result import ConfidenceInterval, critical_value, freeze_array
from ._estimate_record import RatioEstimate
from ._intervals import wr_interval
from ._measures import MeasureSpec

__all__ = ["LabeledSample", "hajek_estimate", "frozen_copy"]


def hajek_estimate(v: np.ndarray, w: np.ndarray, loss: np.ndarray) -> RatioEstimate:
    """The self-normalised (Hájek) ratio ``Ĝ = Σ v w ℓ / Σ v w`` of a with-replacement
    sample, its standard error ``S/√n``, Kish ESS and flags from per-draw ``v, w, ℓ``."""
    vw = np.asarray(v, float) * np.asarray(w, float)
    n = vw.shape[0]
    svw = float(vw.sum())
    if n == 0 or svw <= 0:
        return RatioEstimate(estimate=float("nan"), std_error=float("nan"), defined=False,
                             n_draws=n, zero_width=False, ess=0.0,
                             max_weight_share=float("nan"))
    pos = vw > 0
    # a weighted mean lies within its values (rounding gave 1 + 2e-16 for a proportion)
    g = float(np.clip(np.dot(vw, loss) / svw, loss[pos].min(), loss[pos].max()))
    se = float(np.sqrt(np.sum((vw * (loss - g)) ** 2)) / svw)
    zero = bool(np.all(loss[pos] == loss[pos][0]))
    return RatioEstimate(estimate=g, std_error=0.0 if zero else se, defined=True, n_draws=n,
                         zero_width=zero, ess=svw ** 2 / float(np.sum(vw ** 2)),
                         max_weight_share=float(vw.max() / svw))


@dataclass
class LabeledSample:
    """Labeled distinct items and the draw sequence that selected them."""

    item_ids: np.ndarray            # pool identifiers of the distinct labeled items
    item_labels: np.ndarray         # their labels
    item_preds: np.ndarray          # (n_items, m) predictions of every model
    draw_item: np.ndarray           # index into the items, one per draw, in draw order
    draw_weight: np.ndarray         # v = p/q = 1/(N q) of the proposal each draw came from
    zero_f1: tuple = ()             # per model: pool items with q = 0 predicted 1 ...
    zero_f0: tuple = ()             # ... and predicted 0 (labels never observable)
    pool_size: int = 0              # 0: unknown; every item labeled is a census

    def loss_weight(self, spec: MeasureSpec, model: int = 0) -> tuple[np.ndarray, np.ndarray]:
        f = self.item_preds[self.draw_item, model]
        y = self.item_labels[self.draw_item]
        return spec.loss_weight(f, y)

    @property
    def n_labels(self) -> int:
        return int(self.item_ids.shape[0])

    def estimate(self, spec: MeasureSpec, model: int = 0) -> RatioEstimate:
        """:func:`hajek_estimate` of one measure for one model, with ``reason``."""
        if self.zero_f1 and spec.kind != "squared" and _unidentified(
                spec, self.zero_f1[model], self.zero_f0[model]):
            return dataclasses.replace(
                hajek_estimate(np.zeros(0), np.zeros(0), np.zeros(0)),
                reason="some items can never be drawn (probability 0) and their "
                       f"labels enter {spec.name}")
        if self.pool_size and self.n_labels >= self.pool_size:
            # a census: every item of the pool is labeled, so the measure is the pool's own
            # (the draw-weighted ratio still averaged repeats: F1 0.650 for a true 0.727)
            loss, w = spec.loss_weight(self.item_preds[:, model], self.item_labels)
            r = hajek_estimate(np.ones(self.n_labels), w, loss)
            if r.defined:
                return dataclasses.replace(r, std_error=0.0, zero_width=True, census=True,
                                           ess=float("inf"), max_weight_share=0.0)
            return dataclasses.replace(r, reason="its denominator is zero on this pool")
        loss, w = self.loss_weight(spec, model)
        r = hajek_estimate(self.draw_weight, w, loss)
        return r if r.defined else dataclasses.replace(r, reason=(
            "no drawn item has positive weight (e.g. no predicted positive for precision, "
            "no positive label for recall)"))

    def interval(self, spec: MeasureSpec, model: int, level: float, method: str,
                 r: RatioEstimate | None = None) -> ConfidenceInterval:
        """The ``method`` interval (:func:`~._intervals.wr_interval`, ``n_draws − 1`` df)."""
        r = self.estimate(spec, model) if r is None else r
        if r.census:
            return ConfidenceInterval(float(r.estimate), float(r.estimate))
        return wr_interval(r.estimate, r.std_error, bounded=spec.kind != "squared",
                           level=level, method=method, ess=r.ess, df=max(r.n_draws - 1, 1))

    def running(self, spec: MeasureSpec, level: float, method: str,
                n_points: int = 60) -> pd.DataFrame:
        """The estimate and its linear t interval after each prefix of the draws."""
        loss, w = self.loss_weight(spec)
        vw = self.draw_weight * w
        s1, s2 = np.cumsum(vw), np.cumsum(vw * loss)
        a, b, c = np.cumsum(vw ** 2 * loss ** 2), np.cumsum(vw ** 2 * loss), np.cumsum(vw ** 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(s1 > 0, s2 / s1, np.nan)
            se = np.sqrt(np.maximum(a - 2 * g * b + g ** 2 * c, 0.0)) / s1
        n = np.arange(1, len(vw) + 1)
        _, first = np.unique(self.draw_item, return_index=True)
        labels = np.cumsum(np.isin(np.arange(len(vw)), first))
        idx = np.unique(np.linspace(1, len(vw) - 1, min(n_points, len(vw))).astype(int))
        q = np.array([critical_value(level, max(k - 1, 1)) for k in n[idx]])
        lo, hi = g[idx] - q * se[idx], g[idx] + q * se[idx]
        if spec.kind != "squared":
            lo, hi = np.clip(lo, 0, 1), np.clip(hi, 0, 1)
        return pd.DataFrame(dict(n_draws=n[idx], n_labels=labels[idx], estimate=g[idx],
                                 conf_low=lo, conf_high=hi))


def _unidentified(spec: MeasureSpec, zero_f1: int, zero_f0: int) -> bool:
    """Whether a label never observable (an item with ``q = 0``) changes the measure."""
    for f, count in ((1.0, zero_f1), (0.0, zero_f0)):
        if count:
            l0, w0 = spec.loss_weight(np.array([f]), np.array([0.0]))
            l1, w1 = spec.loss_weight(np.array([f]), np.array([1.0]))
            if w0[0] != w1[0] or (w0[0] * l0[0] != w1[0] * l1[0]) or (
                    spec.kind != "f" and (w0[0] or w1[0])):
                return True
    return False


def frozen_copy(sample: Any) -> Any:
    """The labeled sample with read-only copies of its arrays: the result must not change
    when the evaluator labels more, nor let ``r.sample.item_labels[:] = 0`` rewrite what
    ``measures()`` reports."""
    if sample is None or not dataclasses.is_dataclass(sample):
        return sample
    arrays = {f.name: freeze_array(getattr(sample, f.name)) for f in dataclasses.fields(sample)
              if isinstance(getattr(sample, f.name), np.ndarray)}
    return dataclasses.replace(sample, **arrays)
