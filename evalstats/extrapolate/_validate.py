"""Validation of :func:`~evalstats.extrapolate.extrapolate_accuracy`'s arguments, in one
place (``_extrapolate_accuracy_iv``), so the fit reads as the algorithm."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import check_confidence_level, check_int, check_option, fail, seeded_rng
from ._ranks import validate_scores

METHOD_NAMES = ("regression", "two_param", "polynomial", "pseudolikelihood", "npmle", "hd",
                "kde", "naive")
LIKELIHOODS = ("bernoulli", "binomial")
#: form of the rank pseudolikelihood when ``likelihood`` is not given: the Nov-2016
#: draft's eq. 7
DEFAULT_LIKELIHOOD = "bernoulli"
CURVE_WEIGHTS = ("equal", "gls")
TAILS = ("open", "cut")


@dataclass(frozen=True)
class _Args:
    scores: np.ndarray
    labels: np.ndarray
    method: str
    targets: tuple
    n_sub: int
    ties: str
    level: float
    rng: np.random.Generator
    seed: Any                   # recorded in the Call (drawn fresh for rng=None)
    candidates: list | None
    options: dict


#: the smallest knot spacing of the radial regression (the probit grid's step is 0.005)
MIN_RADIAL_BANDWIDTH = 0.01


def _positive_finite(values: Any, name: str) -> list[float]:
    arr = np.atleast_1d(np.asarray(values, dtype=object)).ravel()
    out = []
    for v in arr:
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise fail(name, "a positive finite number or a list of them", value=values,
                       exc=TypeError) from None
        if not np.isfinite(f) or f <= 0:
            raise fail(name, "a positive finite number or a list of them", value=values)
        out.append(f)
    if not out:
        raise fail(name, "a positive finite number or a list of them", value=values)
    return out


def _degree_candidates(degree: Any) -> list[tuple]:
    items = degree if isinstance(degree, list) else [degree]
    if not items:
        raise fail("degree", "an int >= 1, a (degree, stretch) pair or a non-empty list of "
                   "them", value=degree)
    out = []
    for d in items:
        cand = tuple(d) if np.ndim(d) or isinstance(d, tuple) else (d, 2.0)
        ok = len(cand) in (2, 3) and (len(cand) == 2 or cand[2] in TAILS)
        if ok:
            try:
                deg, s = cand[:2]
                ok = (float(deg) == int(deg) and int(deg) >= 1 and np.isfinite(float(s))
                      and float(s) > 0)
            except (TypeError, ValueError):
                ok = False
        if not ok:
            raise fail("degree", "an int >= 1, a (degree, stretch) pair with a positive "
                       f"finite stretch, a (degree, stretch, tail) triple with tail in {TAILS}, "
                       "or a list of them", value=degree)
        out.append((int(cand[0]), float(cand[1])) + ((str(cand[2]),) if len(cand) == 3
                                                     else ("open",)))
    return out


def _paper_degrees(degree: Any) -> list[int]:
    """Degrees of ``method="pseudolikelihood"``: an int >= 1 or a non-empty list of them."""
    items = degree if isinstance(degree, list) else [degree]
    ok = bool(items) and all(isinstance(d, int | np.integer) and not isinstance(d, bool)
                             and d >= 1 for d in items)
    if not ok:
        raise fail("degree", "an int >= 1 or a non-empty list of them with "
                   "method='pseudolikelihood' (the degree of the polynomial in u)",
                   value=degree)
    return [int(d) for d in items]


def _stretched_alias(method: str, degree: Any, penalty: Any, likelihood: Any) -> str:
    """``method="pseudolikelihood"`` with ``(degree, stretch[, tail])`` candidates or a
    ``penalty`` asked for the probit-stretched Bernstein basis, which is now
    ``method="polynomial"`` with a ``likelihood``: FutureWarning, and that method."""
    items = degree if isinstance(degree, list) else [degree]
    tuples = degree is not None and any(np.ndim(d) or isinstance(d, tuple) for d in items)
    if method != "pseudolikelihood" or not (tuples or penalty is not None):
        return method
    warnings.warn("method='pseudolikelihood' with (degree, stretch) candidates or a penalty "
                  "is the probit-stretched Bernstein basis, now method='polynomial', "
                  f"likelihood={likelihood or DEFAULT_LIKELIHOOD!r}; method="
                  "'pseudolikelihood' fits the paper's polynomial in u.", FutureWarning,
                  stacklevel=6)     # the caller of extrapolate_accuracy (two decorators)
    return "polynomial"


def _extrapolate_accuracy_iv(scores, y, method, classes, k_target, n_subsamples, ties,
                             confidence_level, rng, bandwidth, degree, likelihood, penalty,
                             match_k1, monotone_density, n_models,
                             curve_weights="equal") -> _Args:
    """Validate and normalise every argument of :func:`extrapolate_accuracy`."""
    check_option(method, "method", METHOD_NAMES)
    stretched = _stretched_alias(method, degree, penalty, likelihood)
    if stretched != method:
        method, likelihood = stretched, likelihood or DEFAULT_LIKELIHOOD
    check_option(ties, "ties", ("random", "pessimistic", "optimistic"))
    check_option(curve_weights, "curve_weights", CURVE_WEIGHTS)
    s, labels = validate_scores(scores, y, classes=classes, allow_neg_inf=method != "kde")
    n, k1 = s.shape
    if k1 < 4:
        raise fail("scores", "a matrix with at least 4 class columns (subsets of the classes "
                   "are used in the back-test)", got=f"shape {s.shape}")
    if len(np.unique(labels)) < 2:
        raise fail("y", "test points from at least 2 different classes",
                   got=f"{n} test point(s), all of class column {int(labels[0])}")
    if k_target is None:
        targets = (2 * k1,)
    else:
        arr = np.atleast_1d(np.asarray(k_target))
        if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        if arr.dtype.kind not in "iu" or arr.ndim != 1 or arr.size == 0 or arr.min() < 2:
            raise fail("k_target", "an integer >= 2 or a list of them", value=k_target)
        targets = tuple(int(v) for v in arr)
        if min(targets) < k1:
            # below k1 a smoothed curve replaced the unbiased ATA_k, with a band excluding it
            small = ", ".join(str(v) for v in targets if v < k1)
            raise fail("k_target", f"at least the k1 = {k1} observed classes (the method "
                       "extrapolates)", got=small,
                       remedy="For k < k1 the unbiased estimate is "
                              "average_accuracy(scores, y, k=...).")
    n_sub = check_int(n_subsamples, "n_subsamples", low=0)
    if n_sub == 1:
        raise fail("n_subsamples", "0 (no back-test, no band) or at least 2 (a standard "
                   "deviation needs two subsamples)", value=n_subsamples)
    level = check_confidence_level(confidence_level)
    for name, val in (("match_k1", match_k1), ("monotone_density", monotone_density)):
        if not isinstance(val, bool | np.bool_):
            raise fail(name, "True or False", value=val, exc=TypeError)
    if n_models is not None:
        warnings.warn("`n_models` is ignored: the band now combines the subsampling spread "
                      "with the weighted spread of all candidate models.", FutureWarning,
                      stacklevel=5)     # the caller of extrapolate_accuracy
    uses = {"bandwidth": ("regression", "kde"), "degree": ("polynomial", "pseudolikelihood"),
            "likelihood": ("pseudolikelihood", "polynomial"), "monotone_density": ("npmle",),
            "penalty": ("polynomial", "npmle"),
            "curve_weights": ("regression",)}
    given = dict(bandwidth=bandwidth, degree=degree, likelihood=likelihood, penalty=penalty,
                 monotone_density=monotone_density or None,
                 curve_weights=None if curve_weights == "equal" else curve_weights)
    for name, val in given.items():
        if val is not None and method not in uses[name]:
            raise fail(name, f"given only with method in {uses[name]}",
                       got=f"{name}={val!r} with method={method!r}", verb="may be")
    candidates = None
    if bandwidth is not None:
        candidates = _positive_finite(bandwidth, "bandwidth")
        if method == "regression" and min(candidates) < MIN_RADIAL_BANDWIDTH:
            # knots spaced h apart on the probit scale: 1e-6 asked for 222 GiB
            raise fail("bandwidth", f"at least {MIN_RADIAL_BANDWIDTH} with method="
                       "'regression' (knot spacing on the probit scale, whose grid step "
                       "is 0.005)", value=bandwidth)
    if degree is not None:
        candidates = (_paper_degrees(degree) if method == "pseudolikelihood"
                      else _degree_candidates(degree))
    if likelihood is not None:
        check_option(likelihood, "likelihood", LIKELIHOODS)
    if penalty is not None:
        pen = np.asarray(penalty, dtype=float) if np.isscalar(penalty) else None
        if pen is None or not np.isfinite(pen) or pen < 0:
            raise fail("penalty", "a finite number >= 0", value=penalty)
    if likelihood is None and method == "pseudolikelihood":
        likelihood = DEFAULT_LIKELIHOOD
    options = dict(likelihood=likelihood, penalty=penalty, match_k1=match_k1,
                   monotone_density=bool(monotone_density), gls=curve_weights == "gls")
    return _Args(s, labels, method, targets, n_sub, ties, level, *seeded_rng(rng), candidates,
                 options)
