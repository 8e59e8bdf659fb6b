"""Active estimation of risk, accuracy, precision, recall and F-measures from few labels
(Sawade et al., ICML 2010 / NIPS 2010; without-replacement and model-assisted designs).

This package only re-exports; the code lives in its private modules:

* ``_measures`` — measures as generalized risks ``E[wℓ]/E[w]``;
* ``_proposals`` / ``_proposal`` — the pool, Theorem-1 radicands, the proposal (built in one
  place: ``build_proposal``);
* ``_design`` / ``_batches`` — the without-replacement πps design: capped inclusion
  probabilities, Pareto/Poisson sampling, the stratified Beta–Bernoulli model, batches;
* ``_ht`` — model-assisted (difference) and Horvitz–Thompson estimators for πps samples;
* ``_estimators`` — the papers' with-replacement importance-sampling estimator and the
  :class:`ActiveEstimate` result; ``_intervals`` — Wilson/logit/linear intervals;
* ``_evaluator`` / ``_evaluator_pps`` — the query/update loop (both designs);
* ``_offline`` — one-call and offline (design table) workflows; ``_forecast`` — the a-priori
  budget forecast; ``_calibration`` — Platt/isotonic recalibration; ``_state`` — sessions.
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
