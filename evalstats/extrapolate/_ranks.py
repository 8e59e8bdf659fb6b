"""Ranks of the true class and the unbiased average accuracy for k <= k1 classes.

Private helpers of :mod:`evalstats.extrapolate` (Zheng, Achanta & Benjamini, JMLR 2018, eq. 4;
the general-cost form of the Nov-2016 draft).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import gammaln

from .._validation import (
    check_array,
    check_consistent_length,
    check_option,
    check_rng,
    fail,
    rng_alias,
)

TIES = ("random", "pessimistic", "optimistic")


def validate_scores(scores: Any, y: Any, *, classes: Any = None, allow_neg_inf: bool = True
                    ) -> tuple[np.ndarray, np.ndarray]:
    """A finite (n, k1) score matrix (``-inf`` allowed for log-probabilities) and labels as
    column indices.

    ``y`` may hold column indices, or class labels of any type together with ``classes``
    (the class of each score column, in order); when ``scores`` is a DataFrame its column
    names are the default ``classes`` for non-integer labels.
    """
    if classes is None and isinstance(scores, pd.DataFrame):
        lab = np.asarray(y)
        if lab.dtype.kind not in "iub" and not (lab.dtype.kind == "f"):
            classes = list(scores.columns)
    s = check_array(scores, "scores", ndim=2, finite=False)
    if np.isnan(s).any() or np.isposinf(s).any() or (not allow_neg_inf and np.isinf(s).any()):
        n_bad = int(np.isnan(s).sum() + np.isposinf(s).sum()
                    + (0 if allow_neg_inf else np.isneginf(s).sum()))
        raise fail("scores", "free of NaN and +inf" + ("" if allow_neg_inf else " and -inf"),
                   got=f"{n_bad} such values",
                   remedy="Drop or impute them first (e.g. with `pd.isna`).")
    if s.shape[1] < 2:
        raise fail("scores", "a matrix with at least 2 class columns",
                   got=f"shape {s.shape}")
    labels = np.asarray(y)
    if labels.ndim != 1:
        raise fail("y", "1-dimensional", got=f"shape {labels.shape}")
    check_consistent_length(scores=s, y=labels)
    if classes is not None:
        return s, _labels_to_columns(labels, classes, s.shape[1])
    if labels.dtype.kind == "f":
        if np.isnan(labels).any() or not np.all(labels == np.round(labels)):
            raise fail("y", "integer column indices of `scores`",
                       got="non-integer values",
                       remedy="For class labels, pass `classes` (the class of each column).")
    elif labels.dtype.kind not in "iub":
        raise fail("y", "integer column indices of `scores` (or class labels with "
                   "`classes=` giving the class of each score column)",
                   got=f"values of dtype {labels.dtype}", exc=TypeError)
    labels = labels.astype(np.int64)
    bad = (labels < 0) | (labels >= s.shape[1])
    if bad.any():
        raise fail("y", f"column indices in [0, {s.shape[1] - 1}] (one per score column)",
                   got=f"{int(bad.sum())} labels outside, e.g. {int(labels[bad][0])}")
    return s, labels


def _labels_to_columns(labels: np.ndarray, classes: Any, k1: int) -> np.ndarray:
    """Column index of each label, ``classes`` listing the class of each score column."""
    cls = list(np.asarray(classes, dtype=object).ravel()) if not isinstance(
        classes, list | tuple) else list(classes)
    if len(cls) != k1:
        raise fail("classes", f"one class per score column ({k1})",
                   got=f"{len(cls)} classes")
    index = {}
    for j, c in enumerate(cls):
        key = c.item() if isinstance(c, np.generic) else c
        if key in index:
            raise fail("classes", "distinct class labels", got=f"{key!r} twice")
        index[key] = j
    out = np.empty(len(labels), np.int64)
    for i, v in enumerate(labels.tolist()):
        j = index.get(v)
        if j is None:
            raise fail("y", "labels listed in `classes`",
                       got=f"{v!r} (row {i}), not among {len(cls)} classes")
        out[i] = j
    return out


def beaten_and_tied(scores: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per test point: wrong classes strictly beaten (``b``) and tied (``t``) by the truth."""
    true = scores[np.arange(len(y)), y][:, None]
    b = (scores < true).sum(axis=1)
    t = (scores == true).sum(axis=1) - 1
    return b, t


@rng_alias


def true_class_rank(scores: Any, y: Any, ties: str = "random",
                    rng: None | int | np.random.Generator = None, *,
                    classes: Any = None) -> np.ndarray:
    """Rank of the true class among the k1 score columns (k1 = top, 1 = bottom).

    Parameters
    ----------
    scores : array_like, shape (n, k1)
        Higher = more likely (scores, log-probabilities; ``-inf`` allowed).
    y : array_like of int, shape (n,)
        Column index of the true class.
    ties : {"random", "pessimistic", "optimistic", "average"}
        A tie with ``t`` wrong classes is broken uniformly at random (``"random"``, needs
        ``rng``), counted as lost (``"pessimistic"``), as won (``"optimistic"``) or given
        the mid-rank (``"average"``, may be a half-integer).
    rng : None, int or Generator
        For ``ties="random"``.
    classes : sequence, optional
        The class of each score column; then ``y`` holds class labels of any type.

    Returns
    -------
    ndarray
        ``1 + b + j`` where ``b`` wrong classes score strictly lower and ``j`` of the ``t``
        tied ones are placed below the truth.

    See Also
    --------
    average_accuracy : uses the exact expectation over random tie-breaking.

    Examples
    --------
    >>> true_class_rank([[0.1, 0.5, 0.4], [0.3, 0.3, 0.2]], [1, 0], ties="average")
    array([3. , 2.5])
    """
    check_option(ties, "ties", TIES + ("average",))
    s, labels = validate_scores(scores, y, classes=classes)
    b, t = beaten_and_tied(s, labels)
    if ties == "pessimistic":
        return (1 + b).astype(float)
    if ties == "optimistic":
        return (1 + b + t).astype(float)
    if ties == "average":
        return 1 + b + t / 2.0
    g = check_rng(rng)
    return (1 + b + g.integers(0, t + 1)).astype(float)


def log_comb(n: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``log C(n, m)``, ``-inf`` where ``m < 0`` or ``m > n`` (broadcasting)."""
    n = np.asarray(n, float)
    m = np.asarray(m, float)
    ok = (m >= 0) & (m <= n)
    with np.errstate(invalid="ignore"):
        val = gammaln(n + 1) - gammaln(np.where(ok, m, 0) + 1) - gammaln(
            np.where(ok, n - m, 0) + 1)
    return np.where(ok, val, -np.inf)


def point_win_probability(b: np.ndarray, t: np.ndarray, k1: int, ks: np.ndarray,
                          ties: str = "random") -> np.ndarray:
    """(n, len(ks)) probability that the truth wins on a random k-subset containing it.

    ``C(b, k-1) / C(k1-1, k-1)`` without ties; with ``t`` tied wrong classes broken at
    random, ``sum_j C(t, j) C(b, k-1-j) / ((j+1) C(k1-1, k-1))``, which by
    ``C(t, j)/(j+1) = C(t+1, j+1)/(t+1)`` and Vandermonde's identity is
    ``(C(b+t+1, k) - C(b, k)) / ((t+1) C(k1-1, k-1))``. Computed in log space.
    """
    b = np.asarray(b, float)[:, None]
    t = np.asarray(t, float)[:, None]
    km1 = np.asarray(ks, float)[None, :] - 1
    denom = log_comb(k1 - 1, km1)
    if ties == "optimistic":
        return np.exp(log_comb(b + t, km1) - denom)
    if ties == "pessimistic" or t.max() == 0:
        return np.exp(log_comb(b, km1) - denom)
    top = log_comb(b + t + 1, km1 + 1)
    with np.errstate(invalid="ignore"):      # -inf - -inf where both binomials are 0
        rest = -np.expm1(np.minimum(log_comb(b, km1 + 1) - top, 0.0))
    return np.where(np.isfinite(top), np.exp(top - denom) * rest / (t + 1), 0.0)


def ata_curve(b: np.ndarray, t: np.ndarray, k1: int, ks: np.ndarray,
              ties: str = "random") -> np.ndarray:
    """Unbiased average accuracy ATA_k for each k in ``ks`` (chunked over k)."""
    ks = np.asarray(ks)
    out = np.empty(len(ks))
    step = max(1, 2_000_000 // max(len(b), 1))
    for i in range(0, len(ks), step):
        out[i:i + step] = point_win_probability(b, t, k1, ks[i:i + step], ties).mean(axis=0)
    return out


def _check_ks(k: Any, k1: int, name: str = "k") -> np.ndarray:
    ks = np.atleast_1d(np.asarray(k))
    if ks.dtype.kind == "f" and np.all(np.isfinite(ks)) and np.all(ks == np.round(ks)):
        ks = ks.astype(np.int64)
    if ks.size == 0:
        raise fail(name, "an integer or a non-empty 1-d array of integers", value=k)
    if ks.dtype.kind not in "iu" or ks.ndim != 1:
        raise fail(name, "an integer or a 1-d array of integers", value=k, exc=TypeError)
    if ks.min() < 2 or ks.max() > k1:
        raise fail(name, f"integers in [2, k1] = [2, {k1}]",
                   got=f"values in [{ks.min()}, {ks.max()}]",
                   remedy="Use extrapolate_accuracy for k > k1." if ks.max() > k1 else None)
    return ks


def average_accuracy(scores: Any, y: Any, k: Any = None, *, ties: str = "random",
                     classes: Any = None):
    r"""Unbiased average accuracy on a random subset of ``k <= k1`` classes.

    For test point :math:`x` of class :math:`y` let :math:`b_x` be the number of wrong
    classes whose score is strictly lower than the true class's. On a uniformly random
    subset of :math:`k` classes containing :math:`y` the truth wins with probability
    :math:`\binom{b_x}{k-1}/\binom{k_1-1}{k-1}`; averaging over test points gives
    ATA\ :sub:`k`, the unbiased (UMVU) estimator of the expected accuracy
    :math:`\mathrm{AGA}_k = E[U^{*\,k-1}]` (Zheng, Achanta & Benjamini 2018, eq. 4).
    Evaluated in log space (``gammaln``), so any ``k1`` works.

    Parameters
    ----------
    scores : array_like, shape (n, k1)
        Higher = more likely; scores or log-probabilities (``-inf`` allowed).
    y : array_like of int, shape (n,)
        Column index of each test point's true class.
    k : int, array_like of int or None
        Subset size(s) in ``[2, k1]``; ``None`` gives every ``k = 2..k1``.
    ties : {"random", "pessimistic", "optimistic"}
        ``"random"`` (default): the exact expectation over random tie-breaking,
        :math:`\sum_j \binom{t}{j}\binom{b}{k-1-j}/((j+1)\binom{k_1-1}{k-1})` with ``t``
        tied wrong classes; ``"pessimistic"`` counts a tie as a loss (ClassEx, CleaneX),
        ``"optimistic"`` as a win (the ``>=`` of the JMLR definition).
    classes : sequence, optional
        The class of each score column; then ``y`` holds class labels of any type (a
        DataFrame's column names are used when ``y`` is not integer).

    Returns
    -------
    float, ndarray or DataFrame
        A float for scalar ``k``, an array for an array ``k``, a DataFrame with columns
        ``k, accuracy`` when ``k`` is None.

    See Also
    --------
    average_risk : the general-cost version.
    extrapolate_accuracy : predictions for ``k > k1``.

    Examples
    --------
    >>> import numpy as np
    >>> scores = np.array([[3., 1., 2.], [0., 2., 1.], [1., 0., 2.]])
    >>> float(average_accuracy(scores, [0, 1, 0], k=3))   # plain accuracy
    0.6666666666666666
    >>> float(average_accuracy(scores, [0, 1, 0], k=2))   # pairwise win rate
    0.8333333333333334
    """
    check_option(ties, "ties", TIES)
    s, labels = validate_scores(scores, y, classes=classes)
    k1 = s.shape[1]
    b, t = beaten_and_tied(s, labels)
    if k is None:
        ks = np.arange(2, k1 + 1)
        return pd.DataFrame({"k": ks, "accuracy": ata_curve(b, t, k1, ks, ties)})
    ks = _check_ks(k, k1)
    acc = ata_curve(b, t, k1, ks, ties)
    return float(acc[0]) if np.ndim(k) == 0 else acc


@rng_alias


def average_risk(scores: Any, y: Any, k: int, cost: Any = None, *,
                 rng: None | int | np.random.Generator = None, classes: Any = None) -> float:
    r"""Unbiased average risk on a random subset of ``k <= k1`` classes, general cost.

    With :math:`C_{i\ell}` the cost of predicting :math:`\ell` when the truth is :math:`i`,
    and :math:`r_\ell` the number of classes scoring below class :math:`\ell` for a test
    point, the draft's estimator (Zheng et al., Nov 2016, sec. 3) is

    .. math:: \frac{1}{n}\sum_x\Big[C_{yy}\binom{r_y}{k-1} + \sum_{\ell: r_\ell>r_y}
              C_{y\ell}\binom{r_\ell-1}{k-2}\Big]\Big/\binom{k_1-1}{k-1},

    the exact average over all k-subsets containing the true class (a wrong class
    :math:`\ell` is predicted iff it beats the truth and the other :math:`k-2` classes).
    Ties are broken uniformly at random (seeded with ``rng``). The 0-1 cost
    (``cost=None``) gives ``1 - average_accuracy(..., ties="random")`` in expectation.

    Parameters
    ----------
    scores, y : see :func:`average_accuracy`.
    k : int
        Subset size in ``[2, k1]``.
    cost : array_like, shape (k1, k1), optional
        Finite costs; ``cost[i, l]`` for predicting ``l`` when the truth is ``i``.
    rng : None, int or Generator
        Tie-breaking.
    classes : sequence, optional
        The class of each score column (``y`` then holds class labels).

    Returns
    -------
    float

    See Also
    --------
    average_accuracy

    Examples
    --------
    >>> import numpy as np
    >>> scores = np.array([[3., 1., 2.], [0., 2., 1.], [1., 0., 2.]])
    >>> cost = np.array([[0, 1, 5], [1, 0, 1], [1, 1, 0]])
    >>> round(average_risk(scores, [0, 1, 0], k=3, cost=cost), 4)   # errors: x3 -> class 2
    1.6667
    """
    s, labels = validate_scores(scores, y, classes=classes)
    n, k1 = s.shape
    if not isinstance(k, numbers.Integral) or isinstance(k, bool):
        raise fail("k", "an integer", value=k, exc=TypeError)
    k = int(_check_ks(k, k1)[0])
    c = 1.0 - np.eye(k1) if cost is None else check_array(cost, "cost", ndim=2)
    if c.shape != (k1, k1):
        raise fail("cost", f"a ({k1}, {k1}) matrix", got=f"shape {c.shape}")
    g = check_rng(rng)
    order = np.lexsort((g.random(s.shape), s), axis=1)          # ascending, ties random
    r = np.empty_like(order)
    np.put_along_axis(r, order, np.arange(k1)[None, :].repeat(n, 0), axis=1)
    r_true = r[np.arange(n), labels][:, None]
    denom = log_comb(k1 - 1, k - 1)
    w_wrong = np.where(r > r_true, np.exp(log_comb(r - 1, k - 2) - denom), 0.0)
    w_true = np.exp(log_comb(r_true[:, 0], k - 1) - denom)
    c_rows = c[labels]
    risk = (c_rows * w_wrong).sum(axis=1) + c_rows[np.arange(n), labels] * w_true
    return float(risk.mean())
