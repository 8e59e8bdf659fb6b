"""Labeling-budget planning and design-based evaluation of many rules
(Valizadegan, Amizadeh & Hauskrecht, SDM 2012).

This package only re-exports; the code lives in its private modules:

* ``_bound``: :func:`bernstein_bound` (Props 3.1-3.3) on the model core ``_bounds``;
* ``_tradeoff``: :func:`tradeoff`, :func:`ratio_map` (Section 3.3);
* ``_plan`` / ``_labelplan`` / ``_plannotes``: :func:`plan_labels` and :class:`LabelPlan`,
  in labels to buy; ``_anyplan`` / ``_anyrule`` / ``_ranges``: guarantees for any rule
  (deterministic ranges over an interval of the positive count, subset estimates with
  feasibility bounds); ``_scan``: random rules; ``_search``: the cost of finding positives
  (random or score order); ``_prevalence``: known, interval, pilot or guessed prevalence;
* ``_rules`` / ``_estimates``: :class:`LabelDesign`, :func:`evaluate_rules`;
* ``_retrieval`` / ``_sampling``: :func:`guided_sample` (Section 4);
* ``simulation``: public helpers for experiments (vignettes, benchmarks).
"""

from ._bound import BoundResult, bernstein_bound
from ._common import MEASURES
from ._labelplan import LabelPlan
from ._plan import plan_labels
from ._retrieval import RetrievalResult, guided_sample
from ._rules import LabelDesign, RuleEvaluation, evaluate_rules
from ._tradeoff import TradeoffResult, alpha_map, ratio_map, tradeoff

__all__ = [
    "MEASURES",
    "bernstein_bound",
    "BoundResult",
    "tradeoff",
    "TradeoffResult",
    "ratio_map",
    "alpha_map",
    "plan_labels",
    "LabelPlan",
    "LabelDesign",
    "evaluate_rules",
    "RuleEvaluation",
    "guided_sample",
    "RetrievalResult",
]
