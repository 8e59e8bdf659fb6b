"""Extrapolating multi-class accuracy to more classes (Zheng, Achanta & Benjamini, 2016/2018).

This package only re-exports; the code lives in its private modules.
"""

from ._api import (
    METHOD_NAMES,
    AccuracyExtrapolation,
    average_accuracy,
    average_risk,
    extrapolate_accuracy,
    true_class_rank,
)

__all__ = [
    "METHOD_NAMES",
    "average_accuracy",
    "average_risk",
    "true_class_rank",
    "extrapolate_accuracy",
    "AccuracyExtrapolation",
]
