"""Active estimation of risk, accuracy, precision, recall and F-measures from few labels
(Sawade et al., ICML 2010 / NIPS 2010).

This package only re-exports; the code lives in its private modules.
"""

from ._api import (
    ActiveEstimate,
    ActiveEvaluator,
    BudgetForecast,
    Proposal,
    active_budget,
    active_design,
    active_evaluate,
    estimate_from_labels,
    optimal_proposal,
)

__all__ = [
    "optimal_proposal",
    "active_evaluate",
    "active_design",
    "estimate_from_labels",
    "ActiveEvaluator",
    "active_budget",
    "ActiveEstimate",
    "Proposal",
    "BudgetForecast",
]
