"""Confidence intervals for cross-validated error via the U-statistic variance estimator
(Fuchs, Hornung, De Bin & Boulesteix, 2013).

This package only re-exports; the code lives in its private modules.
"""

from ._api import (
    INTERVALS,
    METHODS,
    CompareLearnersResult,
    CVErrorResult,
    compare_learners,
    cv_error_ci,
    ustat_df,
)

__all__ = [
    "METHODS",
    "INTERVALS",
    "ustat_df",
    "cv_error_ci",
    "compare_learners",
    "CVErrorResult",
    "CompareLearnersResult",
]
