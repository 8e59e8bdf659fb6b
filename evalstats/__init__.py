"""evalstats: an R-style statistical workbench for evaluating classifiers.

Capabilities (one package each):

* :mod:`evalstats.holdout` — intervals on a fixed test set (binomial, t).
* :mod:`evalstats.budget` — labeling-budget planning (Valizadegan et al., SDM 2012).
* :mod:`evalstats.cv_variance` — CIs for cross-validated error via U-statistics
  (Fuchs, Hornung, De Bin & Boulesteix).
* :mod:`evalstats.active` — active estimation of risk, precision, recall, F
  (Sawade et al., ICML 2010 / NIPS 2010).
* :mod:`evalstats.extrapolate` — extrapolating multi-class accuracy to more classes
  (Zheng, Achanta & Benjamini).

Every function returns an immutable result with ``conf_int()``, ``tidy()``, ``glance()``,
``summary()`` and ``plot()``; :func:`report` puts several into one document.
"""

from __future__ import annotations

import importlib

from . import datasets
from ._parallel import map_replicates
from ._render import Document, Report, report
from ._result import ConfidenceInterval, EvalResult
from ._warnings import (
    ApproximationWarning,
    ConvergenceError,
    ConvergenceWarning,
    EvalstatsWarning,
    ExtrapolationWarning,
    InputWarning,
    NegativeVarianceWarning,
    SmallSampleWarning,
    UndefinedEstimateWarning,
)
from .generics import confint, glance, summary, tidy
from .holdout import error_ci, loss_ci

__version__ = "0.1.0"

# Public names of the capability modules, imported lazily on first access so that
# ``import evalstats`` stays fast (cvxpy, scikit-learn are only loaded when needed).
_CAPABILITIES: dict[str, tuple[str, ...]] = {
    "holdout": ("auc_ci", "ErrorRateResult", "MeanLossResult", "AUCResult"),
    "budget": ("bernstein_bound", "BoundResult", "tradeoff", "TradeoffResult", "alpha_map",
               "ratio_map",
               "plan_labels", "LabelPlan", "LabelDesign", "evaluate_rules", "RuleEvaluation",
               "guided_sample", "RetrievalResult"),
    "cv_variance": ("cv_error_ci", "compare_learners", "CVErrorResult",
                    "CompareLearnersResult"),
    "active": ("optimal_proposal", "active_evaluate", "active_design", "estimate_from_labels",
               "ActiveEvaluator", "active_budget", "ActiveEstimate", "Proposal",
               "BudgetForecast"),
    "extrapolate": ("average_accuracy", "average_risk", "true_class_rank",
                    "extrapolate_accuracy", "AccuracyExtrapolation"),
}
_LAZY: dict[str, str] = {name: mod for mod, names in _CAPABILITIES.items() for name in names}

__all__ = [
    "ConfidenceInterval", "EvalResult", "Report", "Document", "report", "datasets",
    "error_ci", "loss_ci", "summary", "confint", "tidy", "glance",
    "EvalstatsWarning", "UndefinedEstimateWarning", "NegativeVarianceWarning",
    "ConvergenceWarning", "SmallSampleWarning", "ApproximationWarning", "ExtrapolationWarning",
    "ConvergenceError", "InputWarning", "map_replicates",
    *_LAZY,
]


def __getattr__(name: str):
    if name in _CAPABILITIES:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'evalstats' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_CAPABILITIES))
