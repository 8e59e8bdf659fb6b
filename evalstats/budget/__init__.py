"""Labeling-budget planning and design-based evaluation of many rules
(Valizadegan, Amizadeh & Hauskrecht, SDM 2012).

This package only re-exports; the code lives in its private modules.
"""

from ._api import (
    MEASURES,
    BoundResult,
    LabelDesign,
    LabelPlan,
    RetrievalResult,
    RuleEvaluation,
    TradeoffResult,
    alpha_map,
    bernstein_bound,
    evaluate_rules,
    guided_sample,
    plan_labels,
    tradeoff,
)

__all__ = [
    "MEASURES",
    "bernstein_bound",
    "BoundResult",
    "tradeoff",
    "TradeoffResult",
    "alpha_map",
    "plan_labels",
    "LabelPlan",
    "LabelDesign",
    "evaluate_rules",
    "RuleEvaluation",
    "guided_sample",
    "RetrievalResult",
]
