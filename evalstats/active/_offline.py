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
from .._validation import (
    check_confidence_level,
    check_int,
    check_option,
    fail,
    plain_value,
    rng_alias,
)
from .._warnings import Notes
from ._design_table import design_kind, records_from_table
from ._estimators import ActiveEstimate, make_estimate
from ._evaluator import ActiveEvaluator
from ._labeled_sample import LabeledSample
from ._labels_io import (
    UnusedLabelsWarning,
    as_design,
    cut_at_first_unlabeled,
    design_and_labels,
)
from ._measures import MeasureSpec, companion_specs
from ._skipping import impute_skipped, skipped_rows, unlabeled_skips
from ._successive_sample import SUCCESSIVE_METHODS, SuccessiveSample

__all__ = ["active_evaluate", "active_design", "estimate_from_labels"]


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
                    estimator: str | None = None, sampling: str | None = None,
                    adaptive: bool = True, budget: int | None = None,
                    interval: str = "score", half_width: float | None = None,
                    progress: bool | None = None) -> ActiveEstimate:
    r"""Estimate a measure with up to ``n_labels`` distinct labels from a labeling callback.

    **Default for binary pools** (``design="pps"``): batches of 100 labels by successive
    πps sampling with a certainty stratum, sizes from a model refitted on earlier batches
    (Sawade's variance-optimal sizes for the model-assisted residual, with a uniform
    defensive share ``epsilon``); every measure by the design-based AIPW estimator, exactly
    unbiased for every pool total whatever the model; the interval inverts the score
    statistic of the measure, or (``interval="anytime"``) is a confidence sequence valid at
    any stopping time. The method is written out in :mod:`evalstats.active`.

    **The papers' design** (``design="with_replacement"``; multi-class and squared-loss
    pools): draws with replacement from the optimal proposal, asks ``oracle`` only for
    items not labeled before; the self-normalised importance-sampling estimate with its
    delta-method standard error and a logit interval.

    Parameters
    ----------
    scores : array_like
        The model's ``p(y=1|x)`` (raw margins, some negative, are read as log-odds by the
        default design; the with-replacement design takes them only with
        ``recalibrate``), an ``(N, K)`` probability matrix, or predictive means for
        ``measure="squared"``.
    oracle : callable
        ``oracle(ids) -> labels`` for an array of item identifiers; an answer indexed by
        id (a pandas Series) is aligned by its index.
    n_labels : int
        Number of distinct labels to buy (>= 1); with ``half_width`` the most to buy.
        ``budget=`` is the old spelling (deprecated).
    measure : {"f1", "precision", "recall", "fbeta", "accuracy", "error", "squared"}
        The measure the design is built for; ``measures()`` gives every other one.
    proposal : {"optimal", "passive"}
        ``"passive"`` samples uniformly through the same code.
    predictions : array_like or DataFrame, optional
        Predicted labels (default ``scores > 0.5``); several columns = several models,
        all estimated from the same sample (the first one drives the design).
    rng : None, int or Generator
    beta, alpha, variance
        See :func:`optimal_proposal`.
    epsilon : float, default 0.1
        The defensive (uniform) share, in ``(0, 1]`` (see :class:`ActiveEvaluator`).
    recalibrate : {None, "platt", "isotonic"}
        With replacement only: recalibrate the scores between batches.
    batch_size : int, optional
        Labels per oracle call (see :meth:`ActiveEvaluator.run`: 100 for ``"pps"`` with
        the optimal proposal).
    ids : array_like, optional
        Item identifiers passed to ``oracle`` (default positions ``0..N-1``).
    confidence_level : float
    path : str or Path, optional
        Session file (see :class:`ActiveEvaluator`): labels survive a crash.
    design, adaptive
        See :class:`ActiveEvaluator`.
    estimator, sampling
        Deprecated and ignored.
    interval : {"score", "anytime", "wald", "score_realised", "score_model", "score_max"}
        The default interval of the result (``"pps"``): the score interval (its variance
        the larger of the realised and the model-expected one; ``score_<variance>`` picks
        one), the anytime-valid confidence sequence or the Wald interval.
    half_width : float, optional
        Stop as soon as the interval's half-width is at most this (only with
        ``interval="anytime"``, the one interval that stays valid under such a rule).
    progress : bool or None
        Progress bar over the labels.

    Returns
    -------
    ActiveEstimate
        ``.estimate``, ``.std_error``, ``.conf_int()``, ``.n_labels``, ``.measures()``,
        ``.running()``, ``.summary()``, ``.plot()``.

    Raises
    ------
    ValueError
        Bad pool or budget; an oracle answer outside the label set. Whatever the oracle
        raises, the labels bought so far stay in the evaluator attached to the exception
        as ``err.evaluator`` (continue with ``err.evaluator.run(oracle, n_labels)``).

    Notes
    -----
    ``interval="anytime"`` is valid at every number of labels at once and whatever the
    model, and so is wide where positives could hide among the items the model is sure
    of: those are drawn only through the defensive share ``epsilon``, and after ``n``
    labels no valid interval can exclude about ``N log(4/α)/(ε n)`` positives hidden there
    (``N`` the pool size, ``1 − α`` the confidence level; the bound shrinks as ``1/n``).
    With ``half_width`` for recall or F1 with few positives, stopping may take many times
    ``N/D`` labels (``D`` predicted plus actual positives); ``n_labels`` is the budget it
    never passes.

    See Also
    --------
    optimal_proposal, active_design, ActiveEvaluator, active_budget

    Examples
    --------
    >>> import evalstats as es
    >>> from evalstats.active import active_evaluate
    >>> pool = es.datasets.load("sim_pool")
    >>> truth = pool["label"].to_numpy()
    >>> res = active_evaluate(pool["prob"], lambda ids: truth[ids], n_labels=200,
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
                         adaptive=adaptive, interval=interval)
    ev._label(oracle, budget, half_width, batch_size, progress)
    call = dict(function="active_evaluate", n_labels=budget, measure=measure,
                proposal=proposal, epsilon=epsilon, design=ev._config["design"],
                interval=ev._config["interval"])
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


@rng_alias
def active_design(scores: Any, n_labels: int | None = None, measure: str = "f1",
                  rng: None | int | np.random.Generator = None, *, predictions: Any = None,
                  ids: Any = None, beta: float = 1.0, alpha: float | None = None,
                  variance: Any = None, proposal: str = "optimal",
                  epsilon: float = 0.1, design: str | None = None,
                  estimator: str | None = None, sampling: str | None = None,
                  budget: int | None = None) -> pd.DataFrame:
    """The items to label, offline (one batch; for batches use :class:`ActiveEvaluator`).

    No label exists yet, so the whole budget is one batch sized by the scores as given:
    with the same seed it selects the items of ``active_evaluate(..., adaptive=False,
    batch_size=n_labels)`` and gives, with their labels, bit-identical estimates and
    intervals; the default :func:`active_evaluate` refits its model between batches of 100
    and so selects other items beyond its first batch. To label in batches offline, use
    :meth:`ActiveEvaluator.query` and :meth:`ActiveEvaluator.design` (its design file
    carries every batch).

    ``design="pps"`` (default for binary pools): one row per selected item in labeling
    order (the certain items, then the draws), with what the estimator needs: ``id``,
    ``batch``, ``certain``, ``q`` (draw probability), ``model_prob``, ``score``, ``pred``,
    the batch's model sums and residual bounds, and the settings (columns listed in
    :mod:`evalstats.active._design_table`). ``budget=`` is the old spelling of
    ``n_labels`` (deprecated).

    ``design="with_replacement"``: one row per distinct item of ``n_labels`` draws-until-new.
    Columns: ``id``, ``n_draws`` (times drawn), ``first_draw``, ``draw_seq`` (positions in
    the draw sequence), ``q`` (sampling probability), ``weight`` (``1/(N q)``), ``score``,
    ``pred`` (and ``pred_<model>`` for further models), ``measure``, ``alpha``, ``proposal``,
    ``epsilon``, ``pool_size``. Export it, add a ``label`` column (or a separate id/label
    file) and pass both to :func:`estimate_from_labels`.

    Parameters
    ----------
    scores, measure, rng, predictions, beta, alpha, variance, proposal, epsilon, design
        As in :func:`active_evaluate`.
    n_labels : int
        Number of distinct items to select (>= 1).
    ids : array_like, optional
        One unique identifier per pool item, written to the ``id`` column (default: the
        positions ``0 .. N − 1``).
    estimator, sampling, budget
        Deprecated spellings kept for old code (they warn and change nothing, or, for
        ``budget``, stand for ``n_labels``).

    Returns
    -------
    pandas.DataFrame
        The design table described above.

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
def estimate_from_labels(design: pd.DataFrame | str | Path, labels: Any, *,
                         confidence_level: float = 0.95,
                         interval: str = "score", require_seal: bool = False,
                         label_column: str = "label") -> ActiveEstimate:
    """Estimate every measure once the labels of an :func:`active_design` come back.

    Parameters
    ----------
    design : DataFrame or path
        The table returned by :func:`active_design` or ``ActiveEvaluator.design()``, or
        the path of its CSV (read with identifiers kept as written).
    labels : array_like, Series, dict or DataFrame
        The labels: aligned with ``design`` rows, a Series/dict keyed by ``id``, or a
        DataFrame with ``id`` and ``label`` columns. A πps design whose items are not all
        labeled is used up to the last batch labeled in full; a with-replacement design
        is cut at the first unlabeled draw (a valid stopping rule), with a note.
    confidence_level : float
    interval : {"score", "anytime", "wald", "score_realised", "score_model", "score_max"}
        The default interval of a πps design's result (as in :func:`active_evaluate`).
    require_seal : bool
        Refuse a table without its integrity columns (the command line does).
    label_column : str
        The name of the label column, for messages.

    Notes
    -----
    The same items and labels give the same estimate and intervals, bit for bit, as
    :func:`active_evaluate` and the :class:`ActiveEvaluator` that drew them: the evaluator
    computes its own results from this table.

    The label ``"skip"`` marks an item nobody can label: it is counted as
    ``ActiveEvaluator.skip`` counts it (``n_skipped``, a note saying what it does to the
    estimate) instead of holding back every later batch.

    See Also
    --------
    active_design, active_evaluate
    """
    level = check_confidence_level(confidence_level)
    design, y, notes = design_and_labels(as_design(design), labels, require_seal=require_seal,
                                         label_column=label_column)
    if "design" in design.columns and (design["design"] == "pps").any():
        check_option(interval, "interval", SUCCESSIVE_METHODS)
        return _estimate_pps(design, y, notes, level, interval)
    if interval != "score":
        raise fail("interval", "'score' (the default) for a with-replacement design",
                   value=interval, remedy="The other intervals need a pps design.")
    return _estimate_wr(design, y, notes, level)


def _draw_sequence(design: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """A with-replacement design's draws in sequence order: their rows and weights."""
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
    return (np.array([r for _, r, _ in seq_item], dtype=int),
            np.array([x for _, _, x in seq_item], dtype=float))


def _usable_draws(design: pd.DataFrame, y: np.ndarray, notes: Notes,
                  ) -> tuple[np.ndarray, np.ndarray, int]:
    """The draws the estimate uses (skipped items' draws left out, cut at the first
    unlabeled draw), their weights, and the skipped items among the draws before the cut."""
    skip_row = unlabeled_skips(design, y)
    draw_row, draw_w = _draw_sequence(design)
    skipped = skip_row[draw_row]
    kept = draw_row[~skipped]
    used = len(cut_at_first_unlabeled(design, np.where(skip_row, 0.0, y), kept, notes))
    stop = int(np.flatnonzero(~skipped)[used]) if used < len(kept) else len(draw_row)
    n_skipped = len(np.unique(draw_row[:stop][skipped[:stop]]))
    return kept[:used], draw_w[~skipped][:used], n_skipped


def _estimate_wr(design: pd.DataFrame, y: np.ndarray, notes: Notes,
                 level: float) -> ActiveEstimate:
    """:func:`estimate_from_labels` for a with-replacement design table."""
    name = str(design["measure"].iloc[0])
    alpha = design["alpha"].iloc[0] if "alpha" in design else np.nan
    spec = MeasureSpec(name, "f", float(alpha)) if np.isfinite(alpha) else MeasureSpec(name, name)
    pred_cols = [c for c in design.columns if c == "pred" or c.startswith("pred_")]
    preds = design[pred_cols].to_numpy(float)
    binary = spec.kind != "squared" and bool(np.isin(preds, (0, 1)).all()) and not any(
        c.startswith("score_") for c in design.columns) or spec.kind == "f"
    draw_row, draw_w, n_skipped = _usable_draws(design, y, notes)
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
                         pool_size=n_pool, notes=notes, n_skipped=n_skipped,
                         call=dict(function="estimate_from_labels", measure=name,
                                   n_design=len(design)))




def _estimate_pps(design: pd.DataFrame, y: np.ndarray, notes: Notes, level: float,
                  interval: str) -> ActiveEstimate:
    """:func:`estimate_from_labels` for a successive (πps) design table."""
    bad = np.isfinite(y) & ~np.isin(y, (0.0, 1.0))
    if bad.any():
        raise fail("labels", "binary labels 0 or 1", got=f"{int(bad.sum())} other values, "
                   f"e.g. {y[bad][0]:g}")
    y, _ = impute_skipped(design, y)
    known = np.isfinite(y)
    if not known.all():
        batch = design["batch"].to_numpy(int)
        first = int(batch[~known].min())
        unlabeled = design["id"].to_numpy()[~known]
        keep = batch < first
        if not keep.any():
            raise fail("labels", "every label of the first batch",
                       got=f"{int((~known).sum())} design items without a label, e.g. id "
                           f"{plain_value(unlabeled[0])!r}",
                       remedy="Label them (the label text 'skip' marks an item nobody "
                              "can label).")
        ignored = int((known & ~keep).sum())
        msg = (f"{int((~known).sum())} design items have no label (e.g. id "
               f"{plain_value(unlabeled[0])!r}); batches from {first} on are not used"
               + (f", so {ignored} labeled items are ignored: label the missing ones to use "
                  "every label." if ignored else "."))
        if ignored:
            notes.warn(UnusedLabelsWarning, msg)
        else:
            notes.add(msg)
        design, y = design.loc[keep], y[keep]
    sample = SuccessiveSample(records_from_table(design, y))
    n_skipped = int(skipped_rows(design).sum())
    name = str(design["measure"].iloc[0])
    alpha = design["alpha"].iloc[0] if "alpha" in design else np.nan
    spec = MeasureSpec(name, "f", float(alpha)) if np.isfinite(alpha) else MeasureSpec(name, name)
    pred_cols = [c for c in design.columns if c == "pred" or c.startswith("pred_")]
    first = str(design["model"].iloc[0]) if "model" in design else "model"
    return make_estimate(sample, companion_specs(spec, True),
                         model_names=[first] + [c[5:] for c in pred_cols[1:]], level=level,
                         proposal_kind=design_kind(
                             str(design["proposal"].iloc[0]),
                             bool(design["adaptive"].iloc[0]) if "adaptive" in design else False),
                         epsilon=1.0 if str(design["proposal"].iloc[0]) == "passive"
                         else float(design["epsilon"].iloc[0]), plug_in=float("nan"),
                         pool_size=int(design["pool_size"].iloc[0]), notes=notes,
                         interval_method=interval, n_skipped=n_skipped,
                         plot=sample.plot_points(),
                         call=dict(function="estimate_from_labels", measure=name,
                                   n_design=len(design)))
