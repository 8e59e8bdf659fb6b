"""One-call (:func:`active_evaluate`) and offline (:func:`active_design`,
:func:`estimate_from_labels`) workflows."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._naming import named_result
from .._validation import check_confidence_level, check_int, fail, plain_value, rng_alias
from .._warnings import Notes
from ._estimators import ActiveEstimate, make_estimate
from ._evaluator import ActiveEvaluator
from ._evaluator_pps import design_from_table
from ._labeled_sample import LabeledSample
from ._labels_io import UnusedLabelsWarning, cut_at_first_unlabeled, design_and_labels
from ._measures import MeasureSpec, companion_specs

__all__ = ["active_evaluate", "active_design", "estimate_from_labels"]


#: default labels per batch of the adaptive πps design in :func:`active_evaluate`
ADAPTIVE_BATCH = 100


@rng_alias
@named_result
def active_evaluate(scores: Any, oracle: Callable[[np.ndarray], Any],
                    n_labels: int | None = None, measure: str = "f1",
                    proposal: str = "optimal", predictions: Any = None,
                    rng: None | int | np.random.Generator = None, *, beta: float = 1.0,
                    alpha: float | None = None, variance: Any = None, epsilon: float = 0.1,
                    recalibrate: str | None = None, batch_size: int | None = None,
                    ids: Any = None, confidence_level: float = 0.95,
                    path: str | Path | None = None, design: str | None = None,
                    estimator: str = "calibrated", sampling: str = "pareto",
                    adaptive: bool = True, budget: int | None = None) -> ActiveEstimate:
    r"""Estimate a measure with ``n_labels`` distinct labels from a labeling callback.

    **Default for binary pools (``design="pps"``):** the items are selected *without
    replacement* with capped inclusion probabilities ``π = min(1, c·size)`` (Pareto πps;
    items with ``π = 1`` are labeled with certainty), and every measure is estimated by the
    calibrated model-assisted estimator (the model's expected value summed over the pool plus
    the ``1/π``-weighted residuals of the labeled items, with a line ``δ + γ m`` of the
    model's residual in each prediction group estimated from the labels) with a
    delta-method variance for the ratio; the interval is Wilson's at the effective sample size (see
    :mod:`evalstats.active._ht`, :mod:`evalstats.active._intervals`). The labels are bought
    in batches (of 100 by default) and (``adaptive=True``, the default) the model and the
    inclusion probabilities are updated from the labels between batches.

    **The papers' design (``design="with_replacement"``, and for multi-class or squared-loss
    pools):** draws with replacement from the proposal (Algorithm 1 of both papers), asks
    ``oracle`` only for items not labeled before, and stops at the ``n_labels``-th distinct
    label. The estimate is ``Ĝ = Σ v w ℓ / Σ v w`` with the delta-method standard error
    ``sqrt(Σ v² w² (ℓ − Ĝ)²) / Σ v w`` (the form printed in the NIPS paper lacks ``1/E[w]²``
    and is not used); the interval is the delta method on the logit scale with ``ESS − 1``
    df (``res.conf_int(method="linear")`` gives the papers' linear t interval).

    Parameters
    ----------
    scores : array_like
        The model's ``p(y=1|x)`` (or an ``(N, K)`` probability matrix, or predictive means
        for ``measure="squared"``). Raw margins are accepted with ``recalibrate``.
    oracle : callable
        ``oracle(ids) -> labels`` for an array of item identifiers.
    n_labels : int
        Number of distinct labels to buy (>= 1). ``budget=`` is the old spelling (deprecated).
        With ``sampling="poisson"`` each batch has a random size with this expectation, so
        the total can differ by a few labels (``n_labels`` of the result is the count
        bought); the default Pareto sampling buys exactly this many.
    measure : {"f1", "precision", "recall", "fbeta", "accuracy", "error", "squared"}
        The measure the proposal is optimised for; ``measures()`` gives all others (those
        the design cannot identify — e.g. recall when ``measure="precision"`` and
        ``epsilon=0`` never samples predicted negatives — are NaN with ``defined=False``).
    proposal : {"optimal", "passive"}
        ``"passive"`` samples uniformly through the same code.
    predictions : array_like or DataFrame, optional
        Predicted labels (default argmax of ``scores``); several columns = several models,
        all estimated from the same sample (the first one drives the proposal).
    rng : None, int or Generator
    beta, alpha, variance, epsilon
        See :func:`optimal_proposal`. In the πps design the defensive share ``epsilon`` is
        spread by the square root of each prediction group's influence on ``measure``
        (every item keeps at least 5 % of the larger group's weight;
        ``evalstats.active._design.defensive_weights``), not uniformly.
    recalibrate : {None, "platt", "isotonic"}
        Recalibrate the scores on the labels so far and rebuild the proposal between batches.
    batch_size : int, optional
        Labels per oracle call. Default: batches of ``ADAPTIVE_BATCH = 100`` for the adaptive
        πps design (the model is refitted between them), the whole budget otherwise
        (``proposal="passive"`` included: one simple random sample), and
        budget/10 with recalibration. Batches of 100 against one batch
        (``benchmarks/active_benchmark.py``, ten pools, 100 runs each): worst F1 RMSE ratio
        to adaptive OASIS 1.21 / 1.27 / 1.37 against 1.36 / 1.47 / 1.42 at 200 / 500 / 1000
        labels, mean 1.07 / 1.05 / 0.95 against 1.07 / 1.09 / 0.99; lowest coverage 0.92
        against 0.90. One batch is better where the scores are already calibrated
        (sim_calibrated 0.80 against 0.88 at 500 labels). Batches of 20 were worse than 100 on
        the rare pools tried.
    ids : array_like, optional
        Item identifiers passed to ``oracle`` (default positions ``0..N-1``).
    confidence_level : float
    path : str or Path, optional
        Session file (see :class:`ActiveEvaluator`): labels survive a crash.
    design, estimator, sampling, adaptive
        See :class:`ActiveEvaluator`.

    Returns
    -------
    ActiveEstimate
        ``.estimate``, ``.std_error``, ``.conf_int()``, ``.n_labels``, ``.n_draws``,
        ``.ess``, ``.measures()``, ``.summary()``, ``.plot()``.

    Raises
    ------
    ValueError
        Bad pool or budget; an oracle answer outside the label set (the labels obtained so
        far stay in the evaluator attached to the exception as ``err.evaluator``).

    See Also
    --------
    optimal_proposal, active_design, ActiveEvaluator, active_budget

    Examples
    --------
    >>> import evalstats as es
    >>> from evalstats.active import active_evaluate
    >>> pool = es.datasets.load("sim_pool")
    >>> truth = pool["label"].to_numpy()
    >>> res = active_evaluate(pool["prob"], lambda ids: truth[ids], budget=200,
    ...                       measure="f1", predictions=pool["pred"], rng=0)
    >>> res.n_labels
    200
    """
    budget = _n_labels_iv(n_labels, budget)
    if not callable(oracle):
        raise fail("oracle", "a callable oracle(ids) -> labels",
                   got=f"an object of type {type(oracle).__name__}", exc=TypeError)
    ev = ActiveEvaluator(scores, measure, predictions=predictions, ids=ids, beta=beta,
                         alpha=alpha, variance=variance, proposal=proposal, epsilon=epsilon,
                         recalibrate=recalibrate, confidence_level=confidence_level, rng=rng,
                         path=path, design=design, estimator=estimator, sampling=sampling,
                         adaptive=adaptive)
    if budget > ev._pool.size:
        raise fail("n_labels", f"at most the pool size {ev._pool.size}", value=budget)
    if batch_size is None:
        if recalibrate is not None:
            batch_size = max(budget // 10, 10)
        elif (ev._config["design"] == "pps" and ev._config["adaptive"]
              and proposal != "passive"):
            batch_size = min(budget, ADAPTIVE_BATCH)
        else:
            batch_size = budget
    batch_size = check_int(batch_size, "batch_size", 1)
    while ev.n_labels < budget:
        ids_ = ev.query(min(batch_size, budget - ev.n_labels))
        try:
            ev.update(ids_, _oracle_answer(oracle(ids_), len(ids_)))
        except (ValueError, TypeError) as err:
            err.evaluator = ev
            raise
    call = dict(function="active_evaluate", n_labels=budget, measure=measure,
                proposal=proposal, epsilon=epsilon, recalibrate=recalibrate,
                design=ev._config["design"], batch_size=batch_size)
    return ev.result(_call=call)


def _n_labels_iv(n_labels: int | None, budget: int | None) -> int:
    """``n_labels`` (``budget`` is its deprecated spelling, with a FutureWarning)."""
    if budget is not None:
        if n_labels is not None:
            raise fail("budget", "omitted when `n_labels` is given (it is its old name)",
                       value=budget)
        warnings.warn("`budget` is deprecated; use `n_labels`.", FutureWarning, stacklevel=3)
        n_labels = budget
    if n_labels is None:
        raise fail("n_labels", "the number of labels to buy", got="None", exc=TypeError)
    return check_int(n_labels, "n_labels", 1)


def _oracle_answer(answer: Any, n: int) -> np.ndarray:
    arr = np.asarray(answer.to_numpy() if isinstance(answer, pd.Series) else answer)
    if arr.shape != (n,):
        raise fail("oracle", f"to return one label per id ({n})", got=f"shape {arr.shape}",
                   verb="must be a callable")
    return arr


@rng_alias


def active_design(scores: Any, n_labels: int | None = None, measure: str = "f1",
                  rng: None | int | np.random.Generator = None, *, predictions: Any = None,
                  ids: Any = None, beta: float = 1.0, alpha: float | None = None,
                  variance: Any = None, proposal: str = "optimal",
                  epsilon: float = 0.1, design: str | None = None,
                  estimator: str = "calibrated", sampling: str = "pareto",
                  budget: int | None = None) -> pd.DataFrame:
    """The items to label, offline (one batch; for batches use :class:`ActiveEvaluator`).

    ``design="pps"`` (default for binary pools): one row per selected item, columns as
    listed in :mod:`evalstats.active._evaluator_pps` (``id``, ``batch``, ``pi``, ``weight``,
    ``model_prob``, ..., and the batch's pool totals the estimator needs).
    ``budget=`` is the old spelling of ``n_labels`` (deprecated).

    ``design="with_replacement"``: one row per distinct item of ``n_labels`` draws-until-new.
    Columns: ``id``, ``n_draws`` (times drawn), ``first_draw``, ``draw_seq`` (positions in
    the draw sequence), ``q`` (sampling probability), ``weight`` (``1/(N q)``), ``score``,
    ``pred`` (and ``pred_<model>`` for further models), ``measure``, ``alpha``, ``proposal``,
    ``epsilon``, ``pool_size``. Export it, add a ``label`` column (or a separate id/label
    file) and pass both to :func:`estimate_from_labels`.

    See Also
    --------
    estimate_from_labels, active_evaluate

    Examples
    --------
    >>> import evalstats as es
    >>> from evalstats.active import active_design, estimate_from_labels
    >>> pool = es.datasets.load("sim_pool")
    >>> design = active_design(pool["prob"], 100, "f1", rng=3, predictions=pool["pred"])
    >>> len(design)
    100
    >>> res = estimate_from_labels(design, pool["label"].to_numpy()[design["id"]])
    >>> res.n_labels
    100
    """
    budget = _n_labels_iv(n_labels, budget)
    ev = ActiveEvaluator(scores, measure, predictions=predictions, ids=ids, beta=beta,
                         alpha=alpha, variance=variance, proposal=proposal, epsilon=epsilon,
                         rng=rng, design=design, estimator=estimator, sampling=sampling,
                         adaptive=False)
    if budget > ev._pool.size:
        raise fail("n_labels", f"at most the pool size {ev._pool.size}", value=budget)
    ev.query(budget)
    return ev.design()


@named_result
def estimate_from_labels(design: pd.DataFrame, labels: Any, *,
                         confidence_level: float = 0.95) -> ActiveEstimate:
    """Estimate every measure once the labels of an :func:`active_design` come back.

    Parameters
    ----------
    design : DataFrame
        The table returned by :func:`active_design` (or read back from its CSV).
    labels : array_like, Series, dict or DataFrame
        The labels: aligned with ``design`` rows, a Series/dict keyed by ``id``, or a
        DataFrame with ``id`` and ``label`` columns. Items left unlabeled cut the draw
        sequence at the first of them (a valid stopping rule), with a note.
    confidence_level : float

    Notes
    -----
    The table holds only the drawn items, not the pool, so the variance floor of a πps
    design (the model-anticipated variance, see :mod:`evalstats.active._ht`) is the one
    recorded when each batch was drawn, under that batch's model. The callback and session
    workflows, which keep the pool, also floor it under a logistic recalibration of the
    scores refitted on the labels; with overconfident scores that lifted the coverage of
    the one-batch interval at 200 labels from 0.865–0.938 to 0.920–0.948
    (``sim_overconfident``, 400 seeds, ``benchmarks/README.md``). Where unseen labels are
    rare events they also replace the floor by the reach of a predictive model of the
    never-labeled items, which needs the pool (``_ht.RARE_SKEW``). For such scores prefer
    :func:`active_evaluate` or a persisted :class:`ActiveEvaluator` session
    (``ActiveEvaluator.open``).

    See Also
    --------
    active_design, active_evaluate
    """
    level = check_confidence_level(confidence_level)
    design, y, notes = design_and_labels(design, labels)
    if "design" in design.columns and (design["design"] == "pps").any():
        return _estimate_pps(design, y, notes, level)
    name = str(design["measure"].iloc[0])
    alpha = design["alpha"].iloc[0] if "alpha" in design else np.nan
    spec = MeasureSpec(name, "f", float(alpha)) if np.isfinite(alpha) else MeasureSpec(name, name)
    pred_cols = [c for c in design.columns if c == "pred" or c.startswith("pred_")]
    preds = design[pred_cols].to_numpy(float)
    binary = spec.kind != "squared" and bool(np.isin(preds, (0, 1)).all()) and not any(
        c.startswith("score_") for c in design.columns) or spec.kind == "f"
    # rebuild the draw sequence
    seq_item = []
    per_draw = "draw_weights" in design.columns
    weights = design["draw_weights"].astype(str) if per_draw else design["weight"]
    for row, (s, w) in enumerate(zip(design["draw_seq"].astype(str), weights, strict=True)):
        seqs = s.split(";")
        ws = [float(x) for x in w.split(";")] if per_draw else [float(w)] * len(seqs)
        if len(ws) != len(seqs):
            raise fail("design", "one weight per draw in 'draw_weights'",
                       got=f"{len(ws)} weights for {len(seqs)} draws in row {row + 2}")
        seq_item += [(int(p), row, x) for p, x in zip(seqs, ws, strict=True)]
    seq_item.sort()
    draw_row = np.array([r for _, r, _ in seq_item], dtype=int)
    draw_w = np.array([x for _, _, x in seq_item], dtype=float)
    draw_row = cut_at_first_unlabeled(design, y, draw_row, notes)
    draw_w = draw_w[:len(draw_row)]
    rows, inv = np.unique(draw_row, return_inverse=True)
    order = np.argsort([np.flatnonzero(draw_row == r)[0] for r in rows])
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    rows = rows[order]
    names = ["model"] + [c[5:] for c in pred_cols[1:]]
    n_pool = int(design["pool_size"].iloc[0]) if "pool_size" in design else 0
    zero = {key: tuple(int(design[key if j == 0 else f"{key}_{nm}"].iloc[0])
                       for j, nm in enumerate(names))
            for key in ("zero_f1", "zero_f0") if key in design.columns}
    sample = LabeledSample(item_ids=design["id"].to_numpy()[rows], item_labels=y[rows],
                           item_preds=preds[rows], draw_item=rank[inv],
                           draw_weight=draw_w,
                           pool_size=n_pool, **zero)
    proposal = str(design["proposal"].iloc[0]) if "proposal" in design else "optimal"
    eps = float(design["epsilon"].iloc[0]) if "epsilon" in design else float("nan")
    return make_estimate(sample, companion_specs(spec, binary), model_names=names, level=level,
                         proposal_kind=proposal, epsilon=eps, plug_in=float("nan"),
                         pool_size=n_pool, notes=notes,
                         call=dict(function="estimate_from_labels", measure=name,
                                   n_design=len(design)))


PPS_COLUMNS = ("id", "batch", "pi", "model_prob", "pred", "measure", "sampling", "estimator",
               "pool_size")


def _estimate_pps(design: pd.DataFrame, y: np.ndarray, notes: Notes,
                  level: float) -> ActiveEstimate:
    """:func:`estimate_from_labels` for a without-replacement (πps) design table."""
    missing = [c for c in PPS_COLUMNS if c not in design.columns]
    if missing:
        raise fail("design", "a table with the columns of `active_design(design='pps')`",
                   got=f"no column(s) {', '.join(missing)}")
    known = np.isfinite(y)
    bad = known & ~np.isin(y, (0.0, 1.0))
    if bad.any():
        raise fail("labels", "binary labels 0 or 1", got=f"{int(bad.sum())} other values, "
                   f"e.g. {y[bad][0]:g}")
    if not known.all():
        first = int(design["batch"].to_numpy()[~known].min())
        unlabeled = design["id"].to_numpy()[~known]
        keep = design["batch"].to_numpy() < first
        ignored = int((known & ~keep).sum())
        msg = (f"{int((~known).sum())} design items have no label (e.g. id "
               f"{plain_value(unlabeled[0])!r}); batches from {first} on are not used"
               + (f", so {ignored} labeled items are ignored: label the missing ones to use "
                  "every label." if ignored else "."))
        if ignored:         # labels given and thrown away: warned, as the other design
            notes.warn(UnusedLabelsWarning, msg)
        else:
            notes.add(msg)
        design, y = design.loc[keep], y[keep]
        if not len(design):
            raise fail("labels", "every label of the first batch",
                       got=f"{int((~known).sum())} design items without a label, e.g. id "
                           f"{plain_value(unlabeled[0])!r}")
    sample, pred_cols = design_from_table(design, y)
    name = str(design["measure"].iloc[0])
    alpha = design["alpha"].iloc[0] if "alpha" in design else np.nan
    spec = MeasureSpec(name, "f", float(alpha)) if np.isfinite(alpha) else MeasureSpec(name, name)
    eps = float(design["epsilon"].iloc[0]) if "epsilon" in design else float("nan")
    return make_estimate(sample, companion_specs(spec, True),
                         model_names=["model"] + [c[5:] for c in pred_cols[1:]], level=level,
                         proposal_kind="pps", epsilon=eps, plug_in=float("nan"),
                         pool_size=int(design["pool_size"].iloc[0]), notes=notes,
                         call=dict(function="estimate_from_labels", measure=name,
                                   n_design=len(design)))
