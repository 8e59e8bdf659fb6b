"""Active estimation of risk, accuracy, precision, recall and F-measures from few labels
(Sawade et al., ICML 2010 / NIPS 2010; without-replacement and model-assisted designs).

This package only re-exports; the code lives in its private modules:
``_measures`` (measures as generalized risks), ``_proposals``/``_proposal`` (pool, radicands,
the proposal), ``_estimators`` (with-replacement importance sampling), ``_evaluator``
(query/update loop), ``_offline`` (one-call and offline workflows), ``_forecast``
(budget forecast).
"""

from ._estimators import ActiveEstimate
from ._evaluator import ActiveEvaluator
from ._forecast import BudgetForecast, active_budget
from ._offline import active_design, active_evaluate, estimate_from_labels
from ._proposal import optimal_proposal
from ._proposals import Proposal

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
