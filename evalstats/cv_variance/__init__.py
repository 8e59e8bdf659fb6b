"""Confidence intervals for cross-validated error via the U-statistic variance estimator
(Fuchs, Hornung, De Bin & Boulesteix, 2013).

This package only re-exports; the code lives in its private modules:
``_cv_error_ci`` and ``_compare`` (public functions), ``_engine`` (draws, stopping rule,
variance, df), ``_draws`` (one draw), ``_baselines`` (peer methods), ``_results``
(result classes) and ``_checks`` (input validation).
"""

from ._checks import INTERVALS, MAX_FEATURE, METHODS
from ._compare import compare_learners
from ._cv_error_ci import cv_error_ci
from ._draws import projection_df
from ._engine import data_df, interval_data_df, ustat_df
from ._results import INTERVAL_METHODS, CompareLearnersResult, CVErrorResult
from ._seeding import ReproducibilityWarning

__all__ = [
    "METHODS",
    "INTERVALS",
    "MAX_FEATURE",
    "INTERVAL_METHODS",
    "ustat_df",
    "data_df",
    "interval_data_df",
    "projection_df",
    "cv_error_ci",
    "compare_learners",
    "CVErrorResult",
    "CompareLearnersResult",
    "ReproducibilityWarning",
]
