"""The labeled sample of the successive design: estimates, intervals and running values of
every measure from its :class:`~._aipw.DrawRecords` (formulas in :mod:`._aipw` and
:mod:`._confseq`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._result import ConfidenceInterval, critical_value, freeze_array
from ._aipw import (
    DrawRecords,
    pseudo_outcomes,
    ratio_coefficients,
    ratio_estimate,
    score_interval,
    within_labels,
)
from ._confseq import anytime_sequence, held_box, total_box
from ._estimate_record import RatioEstimate
from ._measures import MeasureSpec

__all__ = ["SuccessiveSample", "SUCCESSIVE_METHODS"]

#: interval methods of the successive design (first = default); ``score_<variance>`` is the
#: score interval with that variance (``"score"``: the default one, see ``_aipw.VARIANCES``)
SUCCESSIVE_METHODS = ("score", "anytime", "wald", "score_realised", "score_model", "score_max")


@dataclass(frozen=True)
class SuccessiveSample:
    """The records of a successive design, read as estimates of any binary measure (its
    arrays are read-only copies: a result never changes after it is made)."""

    records: DrawRecords

    def __post_init__(self) -> None:
        frozen = {f.name: freeze_array(getattr(self.records, f.name))
                  for f in dataclasses.fields(self.records)
                  if isinstance(getattr(self.records, f.name), np.ndarray)}
        object.__setattr__(self, "records", dataclasses.replace(self.records, **frozen))

    @property
    def n_labels(self) -> int:
        return self.records.n_labels

    @property
    def n_draws(self) -> int:
        return self.records.n_draws

    def _coef(self, spec: MeasureSpec, model: int) -> tuple:
        rec = self.records
        return ratio_coefficients(spec, rec.pool_size, float(rec.n_pred_pos[model]))

    def estimate(self, spec: MeasureSpec, model: int = 0) -> RatioEstimate:
        """:func:`~._aipw.ratio_estimate` of ``spec`` for model column ``model``, with
        ``census``, ``zero_width``, ``ess`` (``Ĝ(1 − Ĝ)/SE²``, the binomial-equivalent
        sample size), ``max_weight_share`` and ``reason`` (why it is undefined)."""
        rec = self.records
        r = ratio_estimate(pseudo_outcomes(rec, model), self._coef(spec, model))
        se = r.std_error
        census = rec.n_labels >= rec.pool_size
        est = r.estimate
        spread = est * (1.0 - est) if np.isfinite(est) else float("nan")
        ess = float("inf") if census else (spread / se ** 2 if se > 0 else float("nan"))
        return dataclasses.replace(
            r, census=census, zero_width=bool(r.defined and se == 0), ess=ess,
            max_weight_share=float(np.max(r.a)) if len(r.a) else 1.0,
            reason="" if r.defined else
            "its estimated denominator is not positive (no predicted or actual "
            "positive carries it)")

    def interval(self, spec: MeasureSpec, model: int, level: float, method: str,
                 r: RatioEstimate | None = None) -> ConfidenceInterval:
        """The ``method`` interval of ``spec`` (``r``: its :meth:`estimate`, if computed),
        within the values the labels allow (:func:`~._aipw.within_labels`)."""
        r = self.estimate(spec, model) if r is None else r
        if not r.defined:
            return ConfidenceInterval(float("nan"), float("nan"))
        return within_labels(self._raw_interval(spec, model, level, method, r),
                             self.records, self._coef(spec, model), model)

    def _box(self, level: float, model: int) -> dict:
        """The anytime box of the totals after the last draw (cached per level and model)."""
        key = (model, level)
        cache = self.__dict__.setdefault("_boxes", {})
        if key not in cache:
            cache[key] = total_box(self.records, level, model)
        return cache[key]

    def anytime_empty(self, spec: MeasureSpec, model: int, level: float) -> bool:
        """Whether the anytime sequence of a total behind ``spec`` is empty after the last
        draw (:func:`~._confseq.held_box`); never for a census, which is exact."""
        rec = self.records
        if rec.n_draws == 0 or rec.n_labels >= rec.pool_size:
            return False
        return bool(held_box(rec, spec, level, model, box=self._box(level, model))[1][0])

    def _raw_interval(self, spec: MeasureSpec, model: int, level: float, method: str,
                      r: RatioEstimate) -> ConfidenceInterval:
        if method == "anytime":
            return anytime_sequence(self.records, spec, level, model,
                                    box=self._box(level, model))[0]
        if method.startswith("score"):
            return score_interval(r, level, variance=method.partition("_")[2] or None)
        if not np.isfinite(r.std_error):
            return ConfidenceInterval(0.0, 1.0)
        z = critical_value(level)
        return ConfidenceInterval(float(max(r.estimate - z * r.std_error, 0.0)),
                                  float(min(r.estimate + z * r.std_error, 1.0)))

    def plot_points(self) -> dict[str, np.ndarray]:
        """The random draws as the plot's inset shows them: the batch model's log-odds of
        each drawn item, its draw probability and its prediction (certain items left out)."""
        rec = self.records
        draw = ~rec.certain
        g = np.clip(rec.ghat[draw], 1e-12, 1 - 1e-12)
        return dict(plot_x=np.log(g) - np.log1p(-g), plot_q=rec.q[draw],
                    plot_pred=rec.preds[draw, 0])

    def running(self, spec: MeasureSpec, level: float, method: str) -> pd.DataFrame:
        """Estimate and interval after each complete batch."""
        rec = self.records
        ends = [int(np.flatnonzero(rec.batch == b)[-1]) + 1 for b in np.unique(rec.batch)]
        draws_before = np.cumsum(~rec.certain)
        seq = None
        if method == "anytime":
            at = np.maximum(draws_before[np.array(ends) - 1] - 1, 0)
            seq = anytime_sequence(rec, spec, level, 0, at=at)
        rows = []
        for j, end in enumerate(ends):
            part = SuccessiveSample(_prefix(rec, end))
            r = part.estimate(spec)
            ci = (within_labels(seq[j], part.records, part._coef(spec, 0))
                  if seq is not None and r.defined
                  else part.interval(spec, 0, level, method, r))
            rows.append(dict(n_draws=int(draws_before[end - 1]), n_labels=end,
                             estimate=r.estimate, conf_low=ci.low, conf_high=ci.high))
        return pd.DataFrame(rows)


def _prefix(rec: DrawRecords, n: int) -> DrawRecords:
    """The records of the first ``n`` rows (whole batches)."""
    k = int(rec.batch[n - 1]) + 1
    return DrawRecords(batch=rec.batch[:n], certain=rec.certain[:n], q=rec.q[:n],
                       bounds=rec.bounds[:n], ghat=rec.ghat[:n], preds=rec.preds[:n],
                       labels=rec.labels[:n], sum1=rec.sum1[:k], sum0=rec.sum0[:k],
                       pool_size=rec.pool_size, n_pred_pos=rec.n_pred_pos,
                       model_var=None if rec.model_var is None else rec.model_var[:n])
