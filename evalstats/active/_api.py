r"""Active estimation of risk, accuracy, precision, recall and F from few labels.

Sawade, Landwehr, Bickel & Scheffer (ICML 2010) and Sawade, Landwehr & Scheffer (NIPS 2010):
draw pool items with replacement from a variance-optimal proposal ``q``, label the distinct
ones (labels are cached, the budget counts distinct labels), and estimate every measure
``G = E[w ℓ] / E[w]`` with the self-normalised importance-weighted estimator and an
interval from the delta-method variance (see :mod:`evalstats._active_estimators` for the
correction of the variance printed in the NIPS paper).

Three ways to work:

* :func:`active_evaluate` — with a labeling callback ``oracle(ids) -> labels``;
* :func:`active_design` then :func:`estimate_from_labels` — offline, through a file;
* :class:`ActiveEvaluator` — ``query``/``update``/``result`` with a session file.

:func:`optimal_proposal` gives the sampling distribution and :func:`active_budget` the
expected standard error of active and passive estimation before any label is bought.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._result import EvalResult, _get_ax
from .._validation import (
    check_array,
    check_confidence_level,
    check_int,
    check_option,
    check_rng,
    check_scalar,
    fail,
)
from .._warnings import Notes
from ._calibration import CALIBRATIONS, fit_calibration
from ._design_io import DESIGN_SETTINGS, seal_design
from ._estimators import ActiveEstimate, LabeledSample, make_estimate
from ._labels_io import cut_at_first_unlabeled, design_and_labels
from ._measures import MeasureSpec, companion_specs, measure_spec
from ._proposals import (
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
from ._state import StateStore, pool_arrays

__all__ = ["optimal_proposal", "active_evaluate", "active_design", "estimate_from_labels",
           "ActiveEvaluator", "active_budget", "ActiveEstimate", "Proposal", "BudgetForecast"]

PROPOSALS = ("optimal", "passive")
CRITERIA = ("theorem1", "absolute")


# -- proposals -----------------------------------------------------------------------------

def _build_proposal(pool: Pool, spec: MeasureSpec, kind: str, epsilon: float,
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
    return Proposal(estimate=g, std_error=None, method=f"Theorem 1 ({criterion})"
                    if kind != "passive" else "uniform", term=spec.name, n=n,
                    n_unit="pool items", call=call or {}, notes=notes.as_tuple(), q=q, kind=kind,
                    epsilon=epsilon if kind != "passive" else 1.0, criterion=criterion,
                    expected_variance=var_q, passive_variance=var_p, mean_weight=ew,
                    x_label="predictive mean" if spec.kind == "squared" else "model log-odds",
                    **plot_sample(pool, q))


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
        return _build_proposal(pool, spec, "optimal", epsilon, criterion, call)
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
    return Proposal(estimate=g, std_error=None, method=f"Theorem 1 ({criterion})",
                    term="generalized risk", n=len(q), n_unit="pool items", call=call,
                    notes=notes.as_tuple(), q=q, epsilon=epsilon, criterion=criterion,
                    expected_variance=expected_variance(r, q, ew) if ok else float("nan"),
                    passive_variance=expected_variance(r, 1.0 / len(q), ew) if ok else float(
                        "nan"),
                    mean_weight=ew, **plot_sample(pool, q))


# -- the sequential evaluator ----------------------------------------------------------------

class ActiveEvaluator:
    """Sequential active estimation: ``query(batch_size)``, ``update(ids, labels)``, ``result()``.

    Items are drawn with replacement from the proposal; a draw of an already labeled (or
    already requested) item is recorded as a draw but asks for no new label, so
    ``query(k)`` returns exactly ``k`` new items to label. With ``path`` the whole state
    (pool, draws, labels, generator state) is written to a SQLite file after every
    ``query`` and ``update``; :meth:`open` resumes it. The file holds plain data only.

    With ``recalibrate="platt"`` or ``"isotonic"`` the scores are recalibrated on the labels
    acquired so far (importance-weighted) before each batch and the proposal rebuilt from the
    calibrated probabilities, mixed half and half with the initial design (so no weight
    exceeds twice its initial value). Every draw keeps the weight ``1/(N q_b)`` of the proposal
    ``q_b`` it came from, so the estimator stays consistent (each term has mean zero given
    the past: a martingale-difference sum, for which the same ``S²`` applies). Raw scores
    (e.g. SVM margins) are allowed only with recalibration: the first batch is then uniform.

    Parameters
    ----------
    scores, measure, predictions, beta, alpha, variance, epsilon
        As in :func:`optimal_proposal`.
    ids : array_like, optional
        Identifiers of the pool items (default ``0..N-1``); ``query`` returns them and
        ``update`` takes them.
    proposal : {"optimal", "passive"}
        ``"passive"`` samples uniformly through the same code.
    recalibrate : {None, "platt", "isotonic"}
        Recalibrate the scores between batches.
    confidence_level : float
        Level of the interval of :meth:`result`.
    rng : None, int or Generator
        Random source of the draws.
    path : str or Path, optional
        A *new* session file (SQLite); use :meth:`open` to resume an existing one.

    See Also
    --------
    active_evaluate, active_design

    Examples
    --------
    >>> import evalstats as es
    >>> from evalstats.active import ActiveEvaluator
    >>> pool = es.datasets.load("sim_pool")
    >>> ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], rng=1)
    >>> ids = ev.query(50)
    >>> ev.update(ids, pool["label"].to_numpy()[ids])
    >>> ev.result().n_labels
    50
    """

    def __init__(self, scores: Any, measure: str = "f1", *, predictions: Any = None,
                 ids: Any = None, beta: float = 1.0, alpha: float | None = None,
                 variance: Any = None, proposal: str = "optimal", epsilon: float = 0.1,
                 recalibrate: str | None = None, confidence_level: float = 0.95,
                 rng: None | int | np.random.Generator = None,
                 path: str | Path | None = None) -> None:
        check_option(proposal, "proposal", PROPOSALS)
        if recalibrate is not None:
            check_option(recalibrate, "recalibrate", CALIBRATIONS)
        spec = measure_spec(measure, beta, alpha)
        raw = False
        if recalibrate is not None and np.ndim(scores) == 1 and spec.kind != "squared":
            arr = check_array(scores, "scores")
            raw = bool(arr.min() < 0 or arr.max() > 1)
            if raw:                       # margins: placeholder probabilities, uniform 1st batch
                scores = np.full(arr.shape, 0.5)
                self._raw = arr
        elif recalibrate is not None:
            raise fail("recalibrate", "None for multi-class or squared-loss pools",
                       value=recalibrate)
        pool = pool_iv(scores, spec, predictions, variance)
        self._setup(pool, spec, raw, ids, dict(
            measure=measure, beta=float(beta), alpha=alpha, proposal=proposal,
            epsilon=check_scalar(epsilon, "epsilon", 0.0, 1.0), recalibrate=recalibrate,
            confidence_level=check_confidence_level(confidence_level)))
        self._rng = check_rng(rng)
        self._store = None
        if path is not None:
            path = Path(path)
            if path.exists():
                raise fail("path", "a new file", got=f"existing file {str(path)!r}",
                           remedy="Resume it with `ActiveEvaluator.open(path)`.")
            self._store = StateStore(path)
            self._store.create(self._pool_frame(), self._meta())

    def _setup(self, pool: Pool, spec: MeasureSpec, raw: bool, ids: Any,
               config: dict) -> None:
        self._pool, self._spec, self._config = pool, spec, config
        self._is_raw = raw
        if not raw:
            self._raw = pool.probs if pool.probs.ndim == 1 else None
        n = pool.size
        if ids is None:
            self._ids = np.arange(n)
        else:
            self._ids = np.asarray(ids)
            if self._ids.shape != (n,):
                raise fail("ids", f"a 1-dimensional array of length {n}",
                           got=f"shape {self._ids.shape}")
        self._index = pd.RangeIndex(n) if ids is None else pd.Index(self._ids)
        if not self._index.is_unique:
            raise fail("ids", "unique", got=f"{int(self._index.duplicated().sum())} duplicates")
        self._draw_idx: list[int] = []
        self._draw_q: list[float] = []
        self._draw_batch: list[int] = []
        self._labels: dict[int, float] = {}
        self._pending: dict[int, None] = {}
        self._batch = 0
        self._base: Proposal | None = None
        self._last: Proposal | None = None
        self._last_kind = config["proposal"]
        self._notes = Notes()
        self._cdf: tuple | None = None

    # -- persistence -------------------------------------------------------------------------
    def _pool_frame(self) -> pd.DataFrame:
        pool = self._pool
        df = {"id": self._ids}
        if self._is_raw:
            df["s"] = self._raw
        elif pool.probs.ndim == 1:
            df["s"] = pool.probs
        else:
            for k in range(pool.probs.shape[1]):
                df[f"s_{k}"] = pool.probs[:, k]
        if pool.variance is not None:
            df["var"] = pool.variance
        for j in range(pool.preds.shape[1]):
            df[f"pred_{j}"] = pool.preds[:, j]
        return df

    def _meta(self) -> dict[str, Any]:
        return dict(config=self._config, model_names=self._pool.model_names,
                    raw_scores=self._is_raw, rng_state=self._rng.bit_generator.state,
                    rng_kind=type(self._rng.bit_generator).__name__, batch=self._batch)

    @classmethod
    def open(cls, path: str | Path) -> ActiveEvaluator:
        """Reopen a session file written by an evaluator created with ``path=``."""
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"`path` must be an existing session file; got {str(path)!r}.")
        store = StateStore(path)
        meta, pool_cols, draws, labels = store.load()
        cfg = meta["config"]
        scores, preds, variance, ids = pool_arrays(pool_cols, meta)
        self = cls(scores, cfg["measure"], predictions=preds, ids=ids,
                   beta=cfg["beta"], alpha=cfg["alpha"], variance=variance,
                   proposal=cfg["proposal"], epsilon=cfg["epsilon"],
                   recalibrate=cfg["recalibrate"], confidence_level=cfg["confidence_level"])
        bitgen = getattr(np.random, meta["rng_kind"])()
        bitgen.state = meta["rng_state"]
        self._rng = np.random.Generator(bitgen)
        self._batch = int(meta["batch"])
        self._draw_idx = [int(i) for i in draws["idx"]]
        self._draw_q = [float(q) for q in draws["q"]]
        self._draw_batch = [int(b) for b in draws["batch"]]
        self._labels = {int(i): float(y)
                        for i, y in zip(labels["idx"], labels["label"], strict=True)}
        self._pending = {i: None for i in self._draw_idx if i not in self._labels}
        self._store = store
        return self

    # -- proposals -------------------------------------------------------------------------
    def _proposal(self) -> Proposal:
        cfg = self._config
        if cfg["proposal"] == "passive" or (cfg["recalibrate"] is None and self._base):
            if self._base is None:
                self._base = _build_proposal(self._pool, self._spec, cfg["proposal"],
                                             cfg["epsilon"])
            self._last, self._last_kind = self._base, cfg["proposal"]
            return self._base
        if cfg["recalibrate"] is not None:
            idx = np.fromiter(self._labels, dtype=int)
            y = np.array([self._labels[i] for i in idx])
            if len(idx) >= 10 and min((y == 1).sum(), (y == 0).sum()) >= 2:
                weights = self._item_weights(idx)
                cal = fit_calibration(self._raw[idx], y, weights, cfg["recalibrate"],
                                      is_prob=not self._is_raw)
                pool = Pool(np.clip(cal(self._raw), 0.0, 1.0), self._pool.preds,
                            self._pool.model_names, binary=True)
                rec = _build_proposal(pool, self._spec, "optimal", cfg["epsilon"])
                self._last = self._mix_with_initial(rec)
                self._last_kind = f"optimal+{cfg['recalibrate']}"
                return self._last
            if self._is_raw:
                self._last = _build_proposal(self._pool, self._spec, "passive", 1.0)
                self._last_kind = "passive (before calibration)"
                return self._last
        self._base = _build_proposal(self._pool, self._spec, "optimal", cfg["epsilon"])
        self._last, self._last_kind = self._base, "optimal"
        return self._base

    def _mix_with_initial(self, rec: Proposal) -> Proposal:
        """``½ q_recalibrated + ½ q_initial``: every weight is at most twice the weight of the
        initial (uncalibrated, or uniform for raw margins) design, so a poor calibration fit
        on few labels cannot starve regions the initial design covered."""
        if self._is_raw:
            q0: np.ndarray | float = 1.0 / self._pool.size
        else:
            if self._base is None:
                self._base = _build_proposal(self._pool, self._spec, "optimal",
                                             self._config["epsilon"])
            q0 = self._base.q
        q = 0.5 * rec.q + 0.5 * q0
        plot_q = 0.5 * rec.plot_q + 0.5 * (q0 if np.ndim(q0) == 0 else self._base.plot_q)
        return replace(rec, q=q, plot_q=plot_q)

    def _item_weights(self, idx: np.ndarray) -> np.ndarray:
        """Mean importance weight ``1/(N q)`` over the draws of each labeled item."""
        di = np.asarray(self._draw_idx)
        v = 1.0 / (self._pool.size * np.asarray(self._draw_q))
        sums = pd.Series(v).groupby(di).mean()
        return sums.reindex(idx).to_numpy()

    @property
    def proposal(self) -> Proposal:
        """The proposal the next batch will be drawn from."""
        return self._proposal()

    # -- the loop ----------------------------------------------------------------------------
    @property
    def n_labels(self) -> int:
        """Distinct labeled items."""
        return len(self._labels)

    @property
    def n_draws(self) -> int:
        return len(self._draw_idx)

    @property
    def pending(self) -> np.ndarray:
        """Identifiers returned by ``query`` and not labeled yet."""
        return self._ids[np.fromiter(self._pending, dtype=int)]

    def query(self, batch_size: int) -> np.ndarray:
        """Draw until ``batch_size`` new items need a label; return their identifiers.

        Cost ``O(draws · log N)`` after the proposal's cumulative sum: each draw is a binary
        search of a uniform number in the cumulative distribution.
        """
        batch_size = check_int(batch_size, "batch_size", 1)
        prop = self._proposal()
        q = prop.q
        open_mask = q > 0
        taken = np.fromiter(list(self._labels) + list(self._pending), dtype=int)
        available = int(open_mask.sum() - open_mask[taken].sum()) if len(taken) else int(
            open_mask.sum())
        if batch_size > available:
            raise fail("batch_size", f"at most the {available} unlabeled items the proposal "
                       "can still draw", value=batch_size)
        if self._cdf is None or self._cdf[0] is not prop:
            self._cdf = (prop, np.cumsum(q))
        cdf = self._cdf[1]
        new: list[int] = []
        seq0 = len(self._draw_idx)
        while len(new) < batch_size:
            u = self._rng.random(max(batch_size - len(new), 8)) * cdf[-1]
            for i in np.minimum(np.searchsorted(cdf, u, side="right"), len(q) - 1):
                i = int(i)
                self._draw_idx.append(i)
                self._draw_q.append(float(q[i]))
                self._draw_batch.append(self._batch)
                if i not in self._labels and i not in self._pending:
                    self._pending[i] = None
                    new.append(i)
                    if len(new) == batch_size:
                        break
        self._batch += 1
        if self._store is not None:
            rows = [(seq0 + k, self._draw_idx[k + seq0], self._draw_q[k + seq0],
                     self._draw_batch[k + seq0]) for k in range(len(self._draw_idx) - seq0)]
            self._store.append(draws=rows, meta=dict(rng_state=self._rng.bit_generator.state,
                                                     batch=self._batch))
        return self._ids[np.asarray(new, dtype=int)]

    def update(self, ids: Any, labels: Any) -> None:
        """Record labels of queried items (validated first; earlier labels are always kept)."""
        ids = np.atleast_1d(np.asarray(ids))
        labels = np.atleast_1d(np.asarray(labels))
        if ids.shape != labels.shape or ids.ndim != 1:
            raise fail("labels", f"one label per id ({ids.shape[0]} ids)",
                       got=f"shape {labels.shape}")
        pos = self._index.get_indexer(ids)
        if (pos < 0).any():
            raise fail("ids", "identifiers of pool items", got=f"{int((pos < 0).sum())} "
                       f"unknown, e.g. {ids[pos < 0][0]!r}")
        drawn = np.array([p in self._pending or p in self._labels for p in pos])
        if not drawn.all():
            raise fail("ids", "items returned by `query()`", got=f"{int((~drawn).sum())} "
                       f"items never drawn, e.g. {ids[~drawn][0]!r}")
        y = self._labels_iv(labels)
        clash = [(i, v) for i, v in zip(pos, y, strict=True)
                 if i in self._labels and self._labels[i] != v]
        if clash:
            raise fail("labels", "consistent with labels given before",
                       got=f"a new label {clash[0][1]:g} for id {self._ids[clash[0][0]]!r}")
        for i, v in zip(pos, y, strict=True):
            self._labels[int(i)] = float(v)
            self._pending.pop(int(i), None)
        if self._store is not None:
            self._store.append(labels=[(int(i), float(v)) for i, v in zip(pos, y, strict=True)])

    def _labels_iv(self, labels: np.ndarray) -> np.ndarray:
        try:
            y = labels.astype(float)
        except (TypeError, ValueError):
            raise fail("labels", "numeric labels", got=f"dtype {labels.dtype}",
                       exc=TypeError) from None
        if self._spec.kind == "squared":
            if not np.isfinite(y).all():
                raise fail("labels", "finite numbers", got="NaN or infinite values")
            return y
        k = 2 if self._pool.binary else self._pool.probs.shape[1]
        bad = ~np.isin(y, np.arange(k))
        if bad.any():
            raise fail("labels", f"in the label set {{0..{k - 1}}}",
                       got=f"{int(bad.sum())} other values, e.g. {y[bad][0]:g}",
                       remedy="Labels already recorded are kept.")
        return y

    def sample(self) -> tuple[LabeledSample, int]:
        """The labeled sample: draws up to the first one whose item still lacks a label."""
        di = np.asarray(self._draw_idx, dtype=int)
        lab = np.array([i in self._labels for i in di], dtype=bool)
        stop = int(np.argmin(lab)) if not lab.all() else len(di)
        n_cut = len(di) - stop
        di, dq = di[:stop], np.asarray(self._draw_q[:stop])
        items, first, inv = np.unique(di, return_index=True, return_inverse=True)
        order = np.argsort(first)                  # items in order of first draw
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        items = items[order]
        return LabeledSample(
            item_ids=self._ids[items], item_labels=np.array([self._labels[i] for i in items]),
            item_preds=self._pool.preds[items], draw_item=rank[inv],
            draw_weight=1.0 / (self._pool.size * dq)), n_cut

    def result(self, _call: dict | None = None) -> ActiveEstimate:
        """The estimate from every draw whose label is known (usable at any moment)."""
        sample, n_cut = self.sample()
        prop = self._last if self._last is not None else self._proposal()
        notes = Notes()
        notes.extend(self._notes)
        notes.extend(prop.notes)
        if n_cut:
            notes.add(f"{n_cut} draws after the first unlabeled queried item are not used yet.")
        call = _call or dict(function="ActiveEvaluator.result",
                             measure=self._config["measure"],
                             proposal=self._config["proposal"], epsilon=self._config["epsilon"])
        kinds = self._config["proposal"]
        if self._config["recalibrate"]:
            kinds = f"optimal+{self._config['recalibrate']}"
        return make_estimate(
            sample, companion_specs(self._spec, self._pool.binary),
            model_names=self._pool.model_names, level=self._config["confidence_level"],
            proposal_kind=kinds, epsilon=self._config["epsilon"]
            if self._config["proposal"] == "optimal" else 1.0, plug_in=prop.estimate,
            pool_size=self._pool.size, call=call, notes=notes,
            plot=dict(plot_x=prop.plot_x, plot_q=prop.plot_q, plot_pred=prop.plot_pred))

    def design(self) -> pd.DataFrame:
        """The queried items as a table to export (see :func:`active_design`)."""
        di = np.asarray(self._draw_idx, dtype=int)
        dq = np.asarray(self._draw_q)
        items, first, counts = np.unique(di, return_index=True, return_counts=True)
        order = np.argsort(first)
        items, first, counts = items[order], first[order], counts[order]
        seqs = pd.Series(np.arange(len(di))).groupby(di).agg(
            lambda s: ";".join(map(str, s))).reindex(items)
        pool = self._pool
        df = pd.DataFrame({"id": self._ids[items], "n_draws": counts, "first_draw": first,
                           "draw_seq": seqs.to_numpy(), "q": dq[first],
                           "weight": 1.0 / (pool.size * dq[first])})
        if self._raw is not None:
            df["score"] = self._raw[items]
        elif pool.probs.ndim == 2:
            for k in range(pool.probs.shape[1]):
                df[f"score_{k}"] = pool.probs[items, k]
        for j, name in enumerate(pool.model_names):
            df["pred" if j == 0 else f"pred_{name}"] = pool.preds[items, j]
        df["measure"] = self._spec.name
        df["alpha"] = self._spec.alpha if self._spec.alpha is not None else np.nan
        df["proposal"] = self._config["proposal"]
        df["epsilon"] = self._config["epsilon"]
        df["pool_size"] = pool.size
        return seal_design(df, DESIGN_SETTINGS)


# -- one-call and offline interfaces -----------------------------------------------------------

def active_evaluate(scores: Any, oracle: Callable[[np.ndarray], Any], budget: int,
                    measure: str = "f1", proposal: str = "optimal", predictions: Any = None,
                    rng: None | int | np.random.Generator = None, *, beta: float = 1.0,
                    alpha: float | None = None, variance: Any = None, epsilon: float = 0.1,
                    recalibrate: str | None = None, batch_size: int | None = None,
                    ids: Any = None, confidence_level: float = 0.95,
                    path: str | Path | None = None) -> ActiveEstimate:
    r"""Estimate a measure with ``budget`` distinct labels from a labeling callback.

    Draws with replacement from the proposal (Algorithm 1 of both papers), asks ``oracle``
    only for items not labeled before, and stops at the ``budget``-th distinct label. The
    estimate is the self-normalised importance-weighted ``Ĝ = Σ v w ℓ / Σ v w`` with the
    delta-method standard error ``sqrt(Σ v² w² (ℓ − Ĝ)²) / Σ v w`` (the form printed in the
    NIPS paper lacks ``1/E[w]²`` and is not used). The interval is the delta method on the
    logit scale with ``ESS − 1`` df (``interval_scale="logit"``; the papers' linear t interval
    on ``n_draws − 1`` df is ``dataclasses.replace(res, interval_scale="linear")``), and the
    Wilson interval at the ESS when every sampled loss is equal.

    Parameters
    ----------
    scores : array_like
        The model's ``p(y=1|x)`` (or an ``(N, K)`` probability matrix, or predictive means
        for ``measure="squared"``). Raw margins are accepted with ``recalibrate``.
    oracle : callable
        ``oracle(ids) -> labels`` for an array of item identifiers.
    budget : int
        Number of distinct labels to buy (>= 1).
    measure : {"f1", "precision", "recall", "fbeta", "accuracy", "error", "squared"}
        The measure the proposal is optimised for; ``measures()`` gives all others.
    proposal : {"optimal", "passive"}
        ``"passive"`` samples uniformly through the same code.
    predictions : array_like or DataFrame, optional
        Predicted labels (default argmax of ``scores``); several columns = several models,
        all estimated from the same sample (the first one drives the proposal).
    rng : None, int or Generator
    beta, alpha, variance, epsilon
        See :func:`optimal_proposal`.
    recalibrate : {None, "platt", "isotonic"}
        Recalibrate the scores on the labels so far and rebuild the proposal between batches.
    batch_size : int, optional
        Labels per oracle call (default: the whole budget, or budget/10 with recalibration).
    ids : array_like, optional
        Item identifiers passed to ``oracle`` (default positions ``0..N-1``).
    confidence_level : float
    path : str or Path, optional
        Session file (see :class:`ActiveEvaluator`): labels survive a crash.

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
    budget = check_int(budget, "budget", 1)
    if not callable(oracle):
        raise fail("oracle", "a callable oracle(ids) -> labels",
                   got=f"an object of type {type(oracle).__name__}", exc=TypeError)
    ev = ActiveEvaluator(scores, measure, predictions=predictions, ids=ids, beta=beta,
                         alpha=alpha, variance=variance, proposal=proposal, epsilon=epsilon,
                         recalibrate=recalibrate, confidence_level=confidence_level, rng=rng,
                         path=path)
    if budget > ev._pool.size:
        raise fail("budget", f"at most the pool size {ev._pool.size}", value=budget)
    if batch_size is None:
        batch_size = budget if recalibrate is None else max(budget // 10, 10)
    batch_size = check_int(batch_size, "batch_size", 1)
    while ev.n_labels < budget:
        ids_ = ev.query(min(batch_size, budget - ev.n_labels))
        try:
            ev.update(ids_, _oracle_answer(oracle(ids_), len(ids_)))
        except (ValueError, TypeError) as err:
            err.evaluator = ev
            raise
    call = dict(function="active_evaluate", budget=budget, measure=measure,
                proposal=proposal, epsilon=epsilon, recalibrate=recalibrate)
    return ev.result(_call=call)


def _oracle_answer(answer: Any, n: int) -> np.ndarray:
    arr = np.asarray(answer.to_numpy() if isinstance(answer, pd.Series) else answer)
    if arr.shape != (n,):
        raise fail("oracle", f"to return one label per id ({n})", got=f"shape {arr.shape}",
                   verb="must be a callable")
    return arr


def active_design(scores: Any, budget: int, measure: str = "f1",
                  rng: None | int | np.random.Generator = None, *, predictions: Any = None,
                  ids: Any = None, beta: float = 1.0, alpha: float | None = None,
                  variance: Any = None, proposal: str = "optimal",
                  epsilon: float = 0.1) -> pd.DataFrame:
    """The items to label, offline: one row per distinct item of ``budget`` draws-until-new.

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
    budget = check_int(budget, "budget", 1)
    ev = ActiveEvaluator(scores, measure, predictions=predictions, ids=ids, beta=beta,
                         alpha=alpha, variance=variance, proposal=proposal, epsilon=epsilon,
                         rng=rng)
    if budget > ev._pool.size:
        raise fail("budget", f"at most the pool size {ev._pool.size}", value=budget)
    ev.query(budget)
    return ev.design()



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

    See Also
    --------
    active_design, active_evaluate
    """
    level = check_confidence_level(confidence_level)
    design, y, notes = design_and_labels(design, labels)
    name = str(design["measure"].iloc[0])
    alpha = design["alpha"].iloc[0] if "alpha" in design else np.nan
    spec = MeasureSpec(name, "f", float(alpha)) if np.isfinite(alpha) else MeasureSpec(name, name)
    pred_cols = [c for c in design.columns if c == "pred" or c.startswith("pred_")]
    preds = design[pred_cols].to_numpy(float)
    binary = spec.kind != "squared" and bool(np.isin(preds, (0, 1)).all()) and not any(
        c.startswith("score_") for c in design.columns) or spec.kind == "f"
    # rebuild the draw sequence
    seq_item = []
    for row, s in enumerate(design["draw_seq"].astype(str)):
        seq_item += [(int(p), row) for p in s.split(";")]
    seq_item.sort()
    draw_row = np.array([r for _, r in seq_item], dtype=int)
    draw_row = cut_at_first_unlabeled(design, y, draw_row, notes)
    rows, inv = np.unique(draw_row, return_inverse=True)
    order = np.argsort([np.flatnonzero(draw_row == r)[0] for r in rows])
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    rows = rows[order]
    sample = LabeledSample(item_ids=design["id"].to_numpy()[rows], item_labels=y[rows],
                           item_preds=preds[rows], draw_item=rank[inv],
                           draw_weight=design["weight"].to_numpy(float)[draw_row])
    names = ["model"] + [c[5:] for c in pred_cols[1:]]
    proposal = str(design["proposal"].iloc[0]) if "proposal" in design else "optimal"
    eps = float(design["epsilon"].iloc[0]) if "epsilon" in design else float("nan")
    n_pool = int(design["pool_size"].iloc[0]) if "pool_size" in design else 0
    return make_estimate(sample, companion_specs(spec, binary), model_names=names, level=level,
                         proposal_kind=proposal, epsilon=eps, plug_in=float("nan"),
                         pool_size=n_pool, notes=notes,
                         call=dict(function="estimate_from_labels", measure=name,
                                   n_design=len(design)))


# -- budget calculator -----------------------------------------------------------------------

def _expected_distinct(q: np.ndarray, draws: np.ndarray, max_items: int = 1_000_000,
                       ) -> np.ndarray:
    """``E[distinct items] = Σ_x 1 − (1 − q_x)^k`` (on a fixed subsample for huge pools)."""
    n = q.shape[0]
    qs = q if n <= max_items else q[np.linspace(0, n - 1, max_items).astype(int)]
    scale = n / qs.shape[0]
    lq = np.log1p(-np.minimum(qs, 1 - 1e-15))
    return np.array([scale * float(np.sum(-np.expm1(k * lq))) for k in draws])


def _draws_for_labels(q: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Expected number of draws to reach each number of distinct labels (interpolated)."""
    n = q.shape[0]
    kmax = float(max(labels.max(), 1))
    while _expected_distinct(q, np.array([kmax]))[0] < min(labels.max(), 0.999 * n):
        kmax *= 2
        if kmax > 1e12:
            break
    grid = np.unique(np.geomspace(1, kmax, 120))
    dist = _expected_distinct(q, grid)
    return np.interp(labels, dist, grid, right=np.inf)


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class BudgetForecast(EvalResult):
    """Expected standard errors of active and passive estimation before any label is bought.

    ``estimate`` is the number of distinct labels the active estimator is expected to need
    for ``half_width`` (when given; otherwise the model's plug-in value of the measure).
    ``table`` has, per number of labels: expected draws, standard error and half-width for
    the active and the passive estimator. The forecast trusts the model's probabilities.
    """

    table: pd.DataFrame | None = None
    half_width: float | None = None
    labels_needed_active: float = float("nan")
    labels_needed_passive: float = float("nan")
    expected_gain: float = float("nan")
    proposal: Proposal | None = None

    def _title(self) -> str:
        return f"Labeling budget forecast for {self.proposal.term}"

    def _header(self) -> dict[str, Any]:
        hdr = super()._header()
        hdr.update({"Model's plug-in estimate": self.proposal.estimate,
                    "Expected variance ratio (passive / active)": self.expected_gain})
        if self.half_width is not None:
            hdr[f"Labels for half-width {self.half_width:g} (active)"] = \
                self.labels_needed_active
            hdr[f"Labels for half-width {self.half_width:g} (passive)"] = \
                self.labels_needed_passive
        return hdr

    def _glance_extra(self) -> dict[str, Any]:
        return dict(half_width=self.half_width, labels_needed_active=self.labels_needed_active,
                    labels_needed_passive=self.labels_needed_passive,
                    expected_gain=self.expected_gain)

    def _extra_tables(self) -> list[tuple[str, pd.DataFrame]]:
        return [("Expected precision by number of labels", self.table)]

    def plot(self, ax=None, **kwargs):
        """Expected standard error against distinct labels, active and passive."""
        ax = _get_ax(ax)
        t = self.table
        ax.plot(t["n_labels"], t["se_active"], label="active (optimal proposal)", **kwargs)
        ax.plot(t["n_labels"], t["se_passive"], "--", label="passive (uniform)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("distinct labels")
        ax.set_ylabel("expected standard error")
        ax.set_title(self._title())
        ax.legend(fontsize="small")
        return ax


def _draws_for_half_width(var: float, half_width: float, level: float) -> float:
    """Smallest ``n`` with ``t_{n-1} sqrt(var / n) <= half_width`` (fixed-point iteration)."""
    z = stats.norm.ppf(0.5 + level / 2)
    n = max((z / half_width) ** 2 * var, 2.0)
    for _ in range(50):
        n_new = max((stats.t.ppf(0.5 + level / 2, n - 1) / half_width) ** 2 * var, 2.0)
        if abs(n_new - n) < 1e-6:
            break
        n = n_new
    return float(np.ceil(n))


def active_budget(scores: Any, measure: str = "f1", *, predictions: Any = None,
                  beta: float = 1.0, alpha: float | None = None, variance: Any = None,
                  epsilon: float = 0.1, half_width: float | None = None,
                  n_labels: Any = None, confidence_level: float = 0.95) -> BudgetForecast:
    r"""A-priori labeling budget: expected standard error of active vs passive estimation.

    From the model's own probabilities: the per-draw asymptotic variances
    ``σ̃²_q = Σ p² r / q / E[w]²`` of the optimal proposal and of uniform sampling, the expected
    standard error ``sqrt(σ̃²/n)`` after ``n`` draws, and the expected number of distinct
    labels after ``n`` draws, ``Σ_x 1 − (1 − q_x)^n`` (repeats are free). The labels needed
    for a target half-width solve ``t_{n−1} sqrt(σ̃²/n) = half_width``.

    The forecast is only as good as the calibration of ``scores``: with overconfident scores
    it is optimistic (see the benchmark); the defensive mixture bounds the loss at 1/ε.

    Parameters
    ----------
    scores, measure, predictions, beta, alpha, variance, epsilon
        As in :func:`optimal_proposal`.
    half_width : float, optional
        Target half-width of the interval.
    n_labels : array_like of int, optional
        Budgets for the table (default 50, 100, 200, 500, 1000, 2000, 5000 within the pool).
    confidence_level : float

    See Also
    --------
    optimal_proposal, active_evaluate

    Examples
    --------
    >>> import evalstats as es
    >>> from evalstats.active import active_budget
    >>> pool = es.datasets.load("sim_pool")
    >>> plan = active_budget(pool["prob"], "f1", predictions=pool["pred"], half_width=0.05)
    >>> plan.labels_needed_active < plan.labels_needed_passive
    True
    """
    level = check_confidence_level(confidence_level)
    spec = measure_spec(measure, beta, alpha)
    epsilon = check_scalar(epsilon, "epsilon", 0.0, 1.0)
    pool = pool_iv(scores, spec, predictions, variance)
    prop = _build_proposal(pool, spec, "optimal", epsilon)
    n_pool = pool.size
    if half_width is not None:
        half_width = check_scalar(half_width, "half_width", 0.0, low_inclusive=False)
    if n_labels is None:
        grid = np.array([b for b in (50, 100, 200, 500, 1000, 2000, 5000) if b <= n_pool])
        grid = grid if len(grid) else np.array([n_pool])
    else:
        grid = check_array(n_labels, "n_labels").astype(float)
        if grid.min() < 1 or grid.max() > n_pool:
            raise fail("n_labels", f"numbers of labels in [1, {n_pool}]",
                       got=f"values in [{grid.min():g}, {grid.max():g}]")
    uniform = np.full(n_pool, 1.0 / n_pool)
    d_act = _draws_for_labels(prop.q, grid)
    d_pas = _draws_for_labels(uniform, grid)
    se_a = np.sqrt(prop.expected_variance / d_act)
    se_p = np.sqrt(prop.passive_variance / d_pas)
    tq = stats.t.ppf(0.5 + level / 2, np.maximum(np.minimum(d_act, 1e9) - 1, 1))
    tp = stats.t.ppf(0.5 + level / 2, np.maximum(np.minimum(d_pas, 1e9) - 1, 1))
    table = pd.DataFrame(dict(n_labels=grid.astype(int), n_draws_active=d_act,
                              se_active=se_a, half_width_active=tq * se_a,
                              n_draws_passive=d_pas, se_passive=se_p,
                              half_width_passive=tp * se_p))
    need_a = need_p = float("nan")
    if half_width is not None and np.isfinite(prop.expected_variance):
        na = _draws_for_half_width(prop.expected_variance, half_width, level)
        npas = _draws_for_half_width(prop.passive_variance, half_width, level)
        need_a = float(np.ceil(_expected_distinct(prop.q, np.array([na]))[0]))
        need_p = float(np.ceil(_expected_distinct(uniform, np.array([npas]))[0]))
    est = need_a if half_width is not None else prop.estimate
    return BudgetForecast(
        estimate=est, std_error=None, confidence_level=level, method="model-expected variance",
        term="labels_needed" if half_width is not None else spec.name, n=n_pool,
        n_unit="pool items", call=dict(function="active_budget", measure=measure,
                                       half_width=half_width, epsilon=epsilon),
        notes=prop.notes, table=table, half_width=half_width, labels_needed_active=need_a,
        labels_needed_passive=need_p, expected_gain=prop.expected_gain, proposal=prop)
