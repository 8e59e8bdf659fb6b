"""Building the sampling proposal, in one place: Theorem 1 radicands mixed with uniform.

:func:`build_proposal` is used by :func:`optimal_proposal`, the evaluator, the offline design
and the budget forecast alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._naming import named_result
from .._validation import check_array, check_option, check_scalar, fail
from .._warnings import Notes
from ._measures import MeasureSpec, measure_spec
from ._optimal_proposal import (
    Pool,
    Proposal,
    expected_variance,
    general_radicand,
    intrinsic_estimate,
    mix_uniform,
    plot_sample,
    pool_iv,
    radicand,
)

__all__ = ["build_proposal", "optimal_proposal", "PROPOSALS", "CRITERIA"]

PROPOSALS = ("optimal", "passive")
CRITERIA = ("theorem1", "absolute")


def build_proposal(pool: Pool, spec: MeasureSpec, kind: str, epsilon: float,
                    criterion: str = "theorem1", call: dict | None = None,
                    notes: Notes | None = None) -> Proposal:
    notes = notes if notes is not None else Notes()
    g, ew = intrinsic_estimate(pool, spec)
    n = pool.size
    if not np.isfinite(g):
        r = np.zeros(n)
        shape = r
    elif criterion == "absolute":
        if spec.kind == "squared":
            raise fail("criterion", "'theorem1' for measure='squared'", value=criterion)
        probs = pool.probs if pool.probs.ndim == 2 else np.column_stack(
            [1 - pool.probs, pool.probs])
        labels = np.arange(probs.shape[1], dtype=float)
        shape, r, g, ew = general_radicand(
            probs, pool.headline_pred, labels, lambda f, y: spec.loss_weight(f, y)[0],
            lambda f, y: spec.loss_weight(f, y)[1], criterion="absolute")
    else:
        r = radicand(pool, spec, g)
        shape = np.sqrt(np.maximum(r, 0.0))
    if kind == "passive":
        q = np.full(n, 1.0 / n)
    else:
        q = mix_uniform(shape, epsilon, notes)
    ok = np.isfinite(g) and ew > 0
    var_q = expected_variance(r, q, ew) if ok else float("nan")
    var_p = expected_variance(r, 1.0 / n, ew) if ok else float("nan")
    return Proposal(plug_in=g, method=f"Theorem 1 ({criterion})"
                    if kind != "passive" else "uniform", term=spec.name, n_pool=n,
                    call=call or {}, notes=notes.as_tuple(), q=q, kind=kind,
                    epsilon=epsilon if kind != "passive" else 1.0, criterion=criterion,
                    expected_variance=var_q, passive_variance=var_p, mean_weight=ew,
                    x_label="predictive mean" if spec.kind == "squared" else "model log-odds",
                    **plot_sample(pool, q))


@named_result
def optimal_proposal(scores: Any, measure: str = "f1", *, predictions: Any = None,
                     beta: float = 1.0, alpha: float | None = None, variance: Any = None,
                     loss: Callable | np.ndarray | None = None,
                     weight: Callable | np.ndarray | None = None, labels: Any = None,
                     epsilon: float = 0.1, criterion: str = "theorem1") -> Proposal:
    r"""The variance-optimal sampling distribution for a measure (Theorem 1), mixed with uniform.

    .. math::

        q^*(x) \propto \sqrt{\textstyle\sum_y p(y|x;\theta)\, w(x,y)^2\,
        (\ell(f(x), y) - \tilde G)^2},\qquad q = (1-\varepsilon) q^* + \varepsilon/N,

    where the model's ``p(y|x; θ)`` stands in for the unknown labels and its intrinsic
    estimate ``G̃`` for the measure (Sawade et al. 2010a, Derivations 1-2; 2010b, Cor. 2-4).

    Parameters
    ----------
    scores : array_like
        ``p(y=1|x)`` (binary), an ``(N, K)`` probability matrix, or the predictive means for
        ``measure="squared"``.
    measure : {"f1", "precision", "recall", "fbeta", "accuracy", "error", "squared"}
        The target. ``"accuracy"`` and ``"error"`` share the zero-one-risk proposal.
    predictions : array_like, optional
        Predicted labels (default: argmax of ``scores``; ``p > 0.5`` for binary).
    beta, alpha : float
        ``F_β`` (``measure="fbeta"``) or ``F_α`` directly (``α = 1/(1 + β²)``; α = 1 is
        precision, α = 0 recall).
    variance : array_like, optional
        Predictive variances ``σ²_x`` of a Gaussian ``p(y|x)`` (``measure="squared"``).
    loss, weight : callable or (K, K) array, optional
        A user-defined generalized risk over the label set ``labels`` (Theorem 1 in
        general): vectorised ``loss(f, y)``/``weight(f, y)`` or matrices
        ``[index of f, index of y]``. ``measure`` is then ignored.
    labels : array_like, optional
        The label set for ``loss``/``weight`` (default ``0..K-1``).
    epsilon : float
        Uniform share of the defensive mixture; default 0.1 (it costs at most a factor
        1/(1 − ε) in variance and caps it at 1/ε × passive whatever the calibration).
        Raise it (e.g. 0.25) when the scores may be overconfident: with few labels the
        false negatives the model calls near-certain negatives are then sampled often
        enough for the interval to see them.
    criterion : {"theorem1", "absolute"}
        ``"absolute"`` uses ``Σ_y p |w (ℓ − G̃)|`` (activeeval's deterministic variant).

    Returns
    -------
    Proposal
        ``q`` (``np.asarray(proposal)``), the plug-in ``estimate`` ``G̃``, the model-expected
        per-draw variances of active and passive sampling, ``plot()`` over the log-odds.

    See Also
    --------
    active_evaluate, active_design, active_budget

    References
    ----------
    .. [1] C. Sawade, N. Landwehr, S. Bickel, T. Scheffer. Active risk estimation. ICML 2010.
    .. [2] C. Sawade, N. Landwehr, T. Scheffer. Active estimation of F-measures. NIPS 2010.

    Examples
    --------
    >>> import evalstats as es
    >>> from evalstats.active import optimal_proposal
    >>> pool = es.datasets.load("sim_pool")
    >>> prop = optimal_proposal(pool["prob"], "f1", predictions=pool["pred"])
    >>> round(float(prop.q.sum()), 6), prop.expected_gain > 1
    (1.0, True)
    """
    epsilon = check_scalar(epsilon, "epsilon", 0.0, 1.0)
    check_option(criterion, "criterion", CRITERIA)
    call = dict(function="optimal_proposal", measure=measure, epsilon=epsilon,
                criterion=criterion)
    if loss is None:
        if weight is not None or labels is not None:
            raise fail("loss", "given when `weight` or `labels` is given", value=None)
        spec = measure_spec(measure, beta, alpha)
        pool = pool_iv(scores, spec, predictions, variance)
        return build_proposal(pool, spec, "optimal", epsilon, criterion, call)
    # general Theorem 1 over a finite label set
    arr = np.asarray(scores)
    spec = measure_spec("accuracy")
    pool = pool_iv(arr if arr.ndim == 2 else np.column_stack([1 - arr, arr]) if arr.ndim == 1
                   else arr, spec, None)
    probs = pool.probs if pool.probs.ndim == 2 else np.column_stack([1 - pool.probs, pool.probs])
    k = probs.shape[1]
    label_set = np.arange(k, dtype=float) if labels is None else check_array(labels, "labels")
    if label_set.shape[0] != k:
        raise fail("labels", f"{k} label values (one per column of `scores`)",
                   got=f"{label_set.shape[0]}")
    if predictions is None:
        preds = label_set[probs.argmax(axis=1)]
    else:
        preds = check_array(predictions, "predictions")
        if not np.isin(preds, label_set).all():
            raise fail("predictions", "values from `labels`", got="other values")
    shape, r, g, ew = general_radicand(probs, preds, label_set, loss, weight, criterion)
    notes = Notes()
    q = mix_uniform(shape, epsilon, notes)
    ok = np.isfinite(g) and ew > 0
    pool.preds = preds.reshape(-1, 1)
    return Proposal(plug_in=g, method=f"Theorem 1 ({criterion})",
                    term="generalized risk", n_pool=len(q), call=call,
                    notes=notes.as_tuple(), q=q, epsilon=epsilon, criterion=criterion,
                    expected_variance=expected_variance(r, q, ew) if ok else float("nan"),
                    passive_variance=expected_variance(r, 1.0 / len(q), ew) if ok else float(
                        "nan"),
                    mean_weight=ew, **plot_sample(pool, q))

