"""The sequential evaluator: ``query``/``update``/``result`` with an optional session file."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._validation import (
    check_confidence_level,
    check_int,
    check_option,
    check_rng,
    check_scalar,
    fail,
    plain_value,
    rng_alias,
)
from .._warnings import InputWarning, Notes
from ._calibration import CALIBRATIONS
from ._design_protocol import Design
from ._estimators import ActiveEstimate, make_estimate
from ._labels_io import UnusedLabelsWarning
from ._loop import LoopMixin
from ._measures import MeasureSpec, companion_specs, measure_spec
from ._optimal_proposal import Pool, Proposal, pool_iv
from ._pool_inputs import PoolScores, pool_scores
from ._pps_session import SuccessiveSession
from ._proposal_mix import PROPOSALS
from ._sealed_design import id_text
from ._skipping import SkipMixin
from ._state import (
    SessionFileError,
    StateStore,
    is_range,
    pool_arrays,
    validate_session,
)
from ._successive_sample import SUCCESSIVE_METHODS
from ._wr_session import WithReplacementSession

__all__ = ["ActiveEvaluator"]

#: interval methods an evaluator may report by default, per design
INTERVALS = {"pps": SUCCESSIVE_METHODS, "with_replacement": ("logit",)}
#: the :class:`~._design_protocol.Design` of each design name
SESSIONS = {"pps": SuccessiveSession, "with_replacement": WithReplacementSession}


def ids_iv(ids: np.ndarray) -> None:
    """Ids a design file can carry: none missing or empty, none equal to another as text
    (``1`` and ``"1"``, ``7`` and ``7.0``, ``"00009"`` and ``9``), so the design written is
    always one that reads back. Text that pandas would read as missing (``"NA"``) is an id
    like any other: design files read their id column as text."""
    if ids.dtype.kind in "iub":
        return
    missing = np.flatnonzero(pd.isna(pd.Series(ids, dtype=object)).to_numpy())
    if len(missing):
        raise fail("ids", "identifiers without missing values",
                   got=f"{ids[missing[0]]!r} at position {int(missing[0])}")
    empty = np.flatnonzero([str(v).strip() == "" for v in ids])
    if len(empty):
        raise fail("ids", "non-empty identifiers",
                   got=f"{ids[empty[0]]!r} at position {int(empty[0])}",
                   remedy="A design file stores ids as text; rename that id.")
    texts = pd.Series([id_text(v) for v in ids])
    dup = np.flatnonzero(texts.duplicated(keep=False).to_numpy())
    if len(dup):
        other = dup[texts.to_numpy()[dup] == texts.iloc[dup[0]]][1]
        raise fail("ids", "distinct as text (a design file stores them as text)",
                   got=f"{ids[dup[0]]!r} and {ids[other]!r}, which read back alike")


def deprecated_options(estimator: Any, sampling: Any) -> None:
    """``estimator`` and ``sampling`` lost their meaning with the successive design."""
    for name, value, now in (("estimator", estimator, "the AIPW (difference) estimator"),
                             ("sampling", sampling, "successive sampling")):
        if value is not None:
            warnings.warn(f"`{name}` is deprecated and ignored: the default design always "
                          f"uses {now}.", FutureWarning, stacklevel=4)


def _epsilon_iv(epsilon: Any, design: str, proposal: Any) -> float:
    """The defensive share: ``(0, 1]`` for πps sizes, ``[0, 1]`` otherwise."""
    value = check_scalar(epsilon, "epsilon", 0.0, 1.0)
    if design == "pps" and proposal != "passive" and value == 0.0:
        raise fail("epsilon", "a number in (0, 1] with design='pps'", value=value,
                   remedy="Items the sizes give zero could never be drawn, so no "
                          "design-based estimate could carry them; keep a defensive "
                          "share (the default is 0.1) or use design='with_replacement'.")
    return value


class ActiveEvaluator(LoopMixin, SkipMixin):
    """Sequential active estimation: ``query(batch_size)``, ``update(ids, labels)``, ``result()``.

    **Default design** (``design="pps"``, binary pools): each ``query(k)`` selects a
    batch of ``k`` unlabeled items by successive πps sampling with a certainty stratum,
    from a model of ``P(y=1|x)`` refitted on the labels of earlier batches (see
    :mod:`evalstats.active` for the method); label a batch before querying the next. The
    estimate is the design-based AIPW estimator, exactly unbiased for every pool total
    whatever the model; the default interval inverts the score statistic of the measure
    (``interval="score"``), and ``interval="anytime"`` gives a confidence sequence valid at
    any stopping time (so :meth:`run` may stop when it is narrow enough).

    **With replacement** (``design="with_replacement"``, the papers' design; multi-class
    and squared-loss pools): items are drawn with replacement from the proposal; a draw of
    an already labeled (or requested) item is recorded but asks for no new label, so
    ``query(k)`` returns exactly ``k`` new items. ``recalibrate="platt"``/``"isotonic"``
    rebuilds its proposal from recalibrated scores between batches.

    An item the annotator cannot label is recorded with :meth:`skip` (and a reason): it
    stops blocking the next query and is counted, with what it does to the estimate, in
    every later result (:meth:`skip` states what a skip does to the estimate per design).

    The anytime-valid sequence (``interval="anytime"``) assumes nothing of the model, so
    after ``n`` labels it cannot exclude about ``N log(4/α)/(ε n)`` positives hidden among
    the items the model is sure of (drawn only through the defensive share ``ε``); see
    :meth:`run` for what that means for stopping when it is narrow.

    With ``path`` the whole state (pool, draws, labels, generator state) is written to a
    SQLite file after every ``query`` and ``update``; :meth:`open` resumes it.

    Parameters
    ----------
    scores, measure, predictions, beta, alpha, variance
        As in :func:`optimal_proposal`; raw margins (some negative) are read as log-odds
        by the default design (``design="pps"``); the with-replacement design takes
        them only with ``recalibrate``.
    epsilon : float, default 0.1
        The defensive (uniform) share: in ``(0, 1]`` for ``"pps"``, where every item must
        keep a positive draw probability (a design-based estimate cannot carry an item
        that can never be drawn); ``0`` is allowed with replacement, which then reports
        the measures that need such items as undefined.
    ids : array_like, optional
        Identifiers of the pool items (default ``0..N-1``); ``query`` returns them and
        ``update`` takes them.
    proposal : {"optimal", "passive"}
        ``"passive"`` samples uniformly through the same code.
    design : {None, "pps", "with_replacement"}
        ``None``: ``"pps"`` for binary pools, ``"with_replacement"`` otherwise.
    interval : {"score", "anytime", "wald", "score_realised", "score_model", "score_max"}
        Default interval of ``result()`` for ``"pps"``: the score interval (fixed
        number of labels; its variance the larger of the realised and the model-expected
        one, ``score_<variance>`` picks one), the anytime-valid confidence sequence, or the
        Wald interval.
    adaptive : bool
        ``"pps"`` only: refit the model on the labels between batches (default True);
        False keeps the scores as the model.
    estimator, sampling
        Deprecated and ignored (FutureWarning).
    recalibrate : {None, "platt", "isotonic"}
        With replacement only: recalibrate the scores between batches.
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

    @rng_alias
    def __init__(self, scores: Any, measure: str = "f1", *, predictions: Any = None,
                 ids: Any = None, beta: float = 1.0, alpha: float | None = None,
                 variance: Any = None, proposal: str = "optimal", epsilon: float = 0.1,
                 recalibrate: str | None = None, confidence_level: float = 0.95,
                 rng: None | int | np.random.Generator = None,
                 path: str | Path | None = None, design: str | None = None,
                 estimator: str | None = None, sampling: str | None = None,
                 adaptive: bool = True, interval: str = "score") -> None:
        check_option(proposal, "proposal", PROPOSALS)
        if recalibrate is not None:
            check_option(recalibrate, "recalibrate", CALIBRATIONS)
        deprecated_options(estimator, sampling)
        spec = measure_spec(measure, beta, alpha)
        inputs = pool_scores(scores, spec, design, recalibrate)
        design = inputs.design
        if design == "pps":
            check_option(interval, "interval", INTERVALS["pps"])
        elif interval != "score":
            raise fail("interval", "'score' (the default) with design='with_replacement'",
                       value=interval, remedy="The other intervals need design='pps'.")
        pool = pool_iv(inputs.probs, spec, predictions, variance)
        self._setup(pool, spec, inputs, ids, dict(
            measure=measure, beta=float(beta), alpha=alpha, proposal=proposal,
            epsilon=_epsilon_iv(epsilon, design, proposal), recalibrate=recalibrate,
            confidence_level=check_confidence_level(confidence_level), design=design,
            adaptive=bool(adaptive), interval=interval if design == "pps" else "logit"))
        if inputs.doubt:
            self._notes.warn(InputWarning, inputs.doubt)
        self._design: Design = SESSIONS[design](self)
        self._rng = check_rng(rng)
        self._store = None
        if path is not None:
            path = Path(path)
            if path.exists():
                raise fail("path", "a new file", got=f"existing file {str(path)!r}",
                           remedy="Resume it with `ActiveEvaluator.open(path)`.")
            self._store = StateStore(path)
            self._store.create(self._pool_frame(), self._meta())

    def _setup(self, pool: Pool, spec: MeasureSpec, inputs: PoolScores, ids: Any,
               config: dict) -> None:
        self._pool, self._spec, self._config = pool, spec, config
        self._is_raw, self._margins = inputs.placeholder, inputs.margins
        self._raw = inputs.raw if inputs.raw is not None else (
            pool.probs if pool.probs.ndim == 1 else None)
        n = pool.size
        if ids is None:
            self._ids = np.arange(n)
        else:
            self._ids = np.asarray(ids)
            if self._ids.shape != (n,):
                raise fail("ids", f"a 1-dimensional array of length {n}",
                           got=f"shape {self._ids.shape}")
        # positions as ids: a RangeIndex (O(1), no hash table for a 10-million pool)
        self._index = pd.RangeIndex(n) if ids is None else pd.Index(self._ids)
        if not self._index.is_unique:
            raise fail("ids", "unique", got=f"{int(self._index.duplicated().sum())} duplicates")
        if ids is not None:
            ids_iv(self._ids)
        self._draw_idx: list[int] = []
        self._draw_q: list[float] = []
        self._draw_batch: list[int] = []
        self._labels: dict[int, float] = {}
        self._pending: dict[int, None] = {}
        self._skipped: dict[int, str] = {}
        self._batch = 0
        self._notes = Notes()

    # -- persistence -------------------------------------------------------------------------
    def _pool_frame(self) -> pd.DataFrame:
        pool = self._pool
        df = {"id": self._ids}
        if self._raw is not None:
            # the scores as given: πps maps margins through a logistic itself, and a file
            # holding expit(margins) reopened as probabilities (another ranking and model)
            df["s"] = self._raw
        else:
            for k in range(pool.probs.shape[1]):
                df[f"s_{k}"] = pool.probs[:, k]
        if pool.variance is not None:
            df["var"] = pool.variance
        for j in range(pool.preds.shape[1]):
            df[f"pred_{j}"] = pool.preds[:, j]
        return df

    def _meta(self) -> dict[str, Any]:
        meta = dict(config=self._config, model_names=self._pool.model_names,
                    raw_scores=self._is_raw, rng_state=self._rng.bit_generator.state,
                    rng_kind=type(self._rng.bit_generator).__name__, batch=self._batch)
        meta.update(self._design.meta())
        return meta

    @classmethod
    def open(cls, path: str | Path) -> ActiveEvaluator:
        """Reopen a session file written by an evaluator created with ``path=``."""
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"`path` must be an existing session file; got {str(path)!r}.")
        store = StateStore(path)
        meta, pool_cols, draws, labels = store.load()
        scores, preds, variance, ids = pool_arrays(pool_cols, meta)
        del pool_cols
        validate_session(path, meta, draws, labels, len(scores),
                         2 if np.ndim(scores) == 1 else np.shape(scores)[1])
        cfg = meta["config"]
        if ids.ndim == 1 and is_range(ids):   # default ids: a RangeIndex, no 80 MB copy
            ids = None
        if cfg.get("design") == "pps" and "rows" not in meta.get("pps", {"rows": 0}):
            raise SessionFileError(
                f"The session file {str(path)!r} was drawn by an earlier version's πps "
                f"design (Pareto/Poisson batches), which this version no longer has; its "
                f"labels are intact: estimate them with the version that wrote the file.")
        if (cfg.get("design") == "pps" and cfg.get("proposal") != "passive"
                and float(cfg["epsilon"]) == 0.0):
            raise SessionFileError(
                f"The session file {str(path)!r} was drawn with epsilon=0, which this "
                f"version refuses for the πps design: items of size zero were never drawn, "
                f"so the measures they carry have no design-based estimate. Its labels are "
                f"intact (table 'labels' of the SQLite file).")
        beta = cfg["beta"] if cfg["measure"] == "fbeta" else 1.0   # ignored elsewhere
        self = cls(scores, cfg["measure"], predictions=preds, ids=ids,
                   beta=beta, alpha=cfg["alpha"], variance=variance,
                   proposal=cfg["proposal"], epsilon=cfg["epsilon"],
                   recalibrate=cfg["recalibrate"], confidence_level=cfg["confidence_level"],
                   **{k: cfg[k] for k in ("design", "adaptive", "interval") if k in cfg
                      and not (k == "interval" and cfg.get("design") != "pps")})
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
        self._restore_skips(meta.get("skipped"), path)
        self._design.restore(meta)
        self._store = store
        return self

    @property
    def proposal(self) -> Proposal:
        """The proposal the next batch will be drawn from (with replacement).

        For the πps design (the default) the next batch is drawn with capped inclusion
        probabilities that follow the current model, not with this proposal: it is then the
        with-replacement optimal proposal of the scores, for orientation only, and reading
        it changes nothing (before, it replaced the state that ``result()`` and the plot
        use)."""
        return self._design.proposal()

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
        seq0 = len(self._draw_idx)
        new = self._design.query(batch_size)
        self._batch += 1
        self._save_draws(seq0)
        return self._ids[new]

    def _log_draw(self, item: int, q: float, new: bool) -> None:
        """Log a draw of the current batch (``new``: its item now awaits a label)."""
        self._draw_idx.append(item)
        self._draw_q.append(q)
        self._draw_batch.append(self._batch)
        if new:
            self._pending[item] = None

    def _save_draws(self, seq0: int) -> None:
        if self._store is None:
            return
        rows = [(seq0 + k, self._draw_idx[k + seq0], self._draw_q[k + seq0],
                 self._draw_batch[k + seq0]) for k in range(len(self._draw_idx) - seq0)]
        meta = dict(rng_state=self._rng.bit_generator.state, batch=self._batch)
        meta.update(self._design.meta())
        self._store.append(draws=rows, meta=meta)

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
                       f"unknown, e.g. {plain_value(ids[pos < 0][0])!r}")
        skipped = [int(p) for p in pos if p in self._skipped]
        if skipped:
            raise fail("ids", "items that are not skipped",
                       got=f"id {plain_value(self._ids[skipped[0]])!r}, skipped "
                           f"({self._skipped[skipped[0]]!r})",
                       remedy="Call `unskip(ids)` first to label a skipped item.")
        drawn = np.array([p in self._pending or p in self._labels for p in pos])
        if not drawn.all():
            raise fail("ids", "items returned by `query()`", got=f"{int((~drawn).sum())} "
                       f"items never drawn, e.g. {plain_value(ids[~drawn][0])!r}")
        y = self._labels_iv(labels)
        first: dict[int, float] = {}
        for i, v in zip(pos, y, strict=True):   # one id twice in this call: the same label
            if first.setdefault(int(i), float(v)) != float(v):
                raise fail("labels", "one label per id",
                           got=f"labels {first[int(i)]:g} and {float(v):g} for id "
                               f"{plain_value(self._ids[i])!r} in this call")
        clash = [(i, v) for i, v in zip(pos, y, strict=True)
                 if i in self._labels and self._labels[i] != v]
        if clash:
            raise fail("labels", "consistent with labels given before",
                       got=f"a new label {clash[0][1]:g} for id "
                           f"{plain_value(self._ids[clash[0][0]])!r}")
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

    def result(self, _call: dict | None = None) -> ActiveEstimate:
        """The estimate from every labeled batch (πps) or labeled draw prefix (usable at
        any moment)."""
        sample, n_cut, unused, n_skipped = self._design.sample()
        prop = self._design.last_proposal()
        notes = Notes()
        notes.extend(self._notes)
        notes.extend(prop.notes)
        if n_cut:
            msg = f"{n_cut} {self._design.cut_unit} are not used yet" + (
                f", {unused} of them labeled: label the rest (ids `pending`) to use them."
                if unused else ".")
            if unused:
                notes.warn(UnusedLabelsWarning, msg)
            else:
                notes.add(msg)
        cfg = self._config
        call = _call or dict(function="ActiveEvaluator.result", measure=cfg["measure"],
                             proposal=cfg["proposal"], epsilon=cfg["epsilon"])
        kinds = self._design.kind()
        return make_estimate(
            sample, companion_specs(self._spec, self._pool.binary),
            model_names=self._pool.model_names, level=cfg["confidence_level"],
            proposal_kind=kinds, epsilon=cfg["epsilon"] if cfg["proposal"] == "optimal"
            else 1.0, plug_in=prop.plug_in, pool_size=self._pool.size, call=call,
            notes=notes, interval_method=cfg["interval"], n_skipped=n_skipped,
            plot=sample.plot_points() if cfg["design"] == "pps" else
            dict(plot_x=prop.plot_x, plot_q=prop.plot_q, plot_pred=prop.plot_pred))

    def sample(self) -> tuple[Any, int]:
        """The labeled sample the result reads (complete batches for πps; with replacement
        the draws up to the first one whose item still lacks a label, those of skipped
        items left out) and the count of draws (or items) it leaves out."""
        sample, n_cut, _, _ = self._design.sample()
        return sample, n_cut

    def design(self) -> pd.DataFrame:
        """The queried items as a table to export (see :func:`active_design`)."""
        return self._design.table()
