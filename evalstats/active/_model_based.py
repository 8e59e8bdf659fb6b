r"""A model-based estimate of every measure, offered beside the design estimate, never as it.

For each prediction group ``g`` of a model (predicted positive, predicted negative) the
model-based total is

.. math::

    \tilde Y_g = \sum_{L \cap G_g} y_i + \sum_{R \cap G_g} \hat g_K(x_i),

the labels of the labeled items ``L`` plus, for every item ``R`` never labeled, the
expectation of its label under ``ĝ_K``, the model of the last batch (the recalibration
of the scores fitted on every label before that batch; the scores themselves before any
label). The measure is ``Ã/B̃`` from these totals, as the design estimate is ``Â/B̂``.
It is the estimator that a "labeled plus predicted" evaluation uses; it is read off
the design table (the last batch's ``Σ ĝ`` over its items left to draw, less the
``ĝ`` of the items it drew), so the session, the design file and the command line
give the same value.

**What it assumes.** That ``ĝ_K`` is calibrated on the items never labeled: then each
``Ỹ_g`` has the right expectation, and its variance is smaller than the design
estimate's because it does not weight residuals by ``1/q``. **When it is biased.** By
``Σ_R (ĝ_K − y)`` — whatever the model gets wrong on the items no one labeled. Positives
hidden where the model is sure (a blind spot) are counted as ``ĝ ≈ 0``, so the
model-based recall and F₁ are too high by exactly what was never seen, and more labels
elsewhere do not reduce it; the design estimate stays unbiased there. No interval is
given: its uncertainty is the model's, which the labels cannot check where they are not.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .._validation import fail
from ._aipw import DrawRecords, ratio_coefficients

__all__ = ["MODEL_BASED_METHOD", "model_based_totals", "model_based_table"]

#: the method label of every model-based row
MODEL_BASED_METHOD = "model-based (assumes calibrated scores)"


def model_based_totals(rec: DrawRecords, model: int = 0) -> tuple[float, float]:
    """``(Ỹ₁, Ỹ₀)``: labeled positives plus the last batch model's expectation over the
    never-labeled items, among the items model ``model`` predicts positive / negative."""
    f = rec.preds[:, model]
    last = int(rec.batch.max())
    drawn_last = (rec.batch == last) & ~rec.certain
    totals = []
    for grp, sums in ((f, rec.sum1), (1.0 - f, rec.sum0)):
        labeled = float(grp @ rec.labels)
        left = float(sums[last, model]) - float(grp[drawn_last] @ rec.ghat[drawn_last])
        totals.append(labeled + left)
    return totals[0], totals[1]


def model_based_table(result: Any) -> pd.DataFrame:
    """Every measure of every model, model-based, beside the design estimate."""
    if result.design != "pps":
        raise fail("model_based", "called on a result of the πps design (design='pps', the "
                   "default)", got=f"a result of design={result.design!r}, whose sample "
                   "holds no model prediction for the items never labeled", verb="must be")
    rec = result.sample.records
    rows = []
    design = result.measures()
    for m, name in enumerate(result.model_names):
        y1, y0 = model_based_totals(rec, m)
        for spec in result.specs:
            (a1, a0, ac), (b1, b0, bc) = ratio_coefficients(spec, rec.pool_size,
                                                            float(rec.n_pred_pos[m]))
            den = b1 * y1 + b0 * y0 + bc
            value = (a1 * y1 + a0 * y0 + ac) / den if den > 0 else float("nan")
            term = spec.name if m == 0 else f"{name}:{spec.name}"
            rows.append(dict(term=term, estimate=value,
                             design_estimate=float(design.loc[design["term"] == term,
                                                              "estimate"].iloc[0]),
                             defined=bool(den > 0), method=MODEL_BASED_METHOD))
    return pd.DataFrame(rows)
