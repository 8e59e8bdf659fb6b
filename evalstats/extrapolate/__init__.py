"""Extrapolating multi-class accuracy to more classes (Zheng, Achanta & Benjamini, 2016/2018).

This package only re-exports; the code lives in its private modules: ``_ranks`` (unbiased
ATA_k), ``_grid`` (probit-scale numerics), ``_curves`` (views and curves), ``_methods``
(regression, hd, kde, naive), ``_normal`` (two_param), ``_pseudolikelihood`` (the paper's
model as written), ``_bernstein`` (the probit-stretched polynomial, method "polynomial"),
``_npmle``, ``_gls``, ``_solvers``, ``_validate``, ``_fit`` (:func:`extrapolate_accuracy`)
and ``_result`` (:class:`AccuracyExtrapolation`).
"""

from ._fit import DEFAULT_METHOD, METHOD_NAMES, extrapolate_accuracy
from ._ranks import average_accuracy, average_risk, true_class_rank
from ._result import AccuracyExtrapolation

__all__ = [
    "DEFAULT_METHOD",
    "METHOD_NAMES",
    "average_accuracy",
    "average_risk",
    "true_class_rank",
    "extrapolate_accuracy",
    "AccuracyExtrapolation",
]
