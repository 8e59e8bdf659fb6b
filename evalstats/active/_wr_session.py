"""The with-replacement design of :class:`~._evaluator.ActiveEvaluator` (the papers').

A :class:`~._design_protocol.Design`: the proposal of the next batch (static, passive, or
rebuilt from a recalibration of the scores on the labels so far), draws from it, the
labeled sample of draws and the design table of the queried items.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from .._validation import fail, plain_value
from ._calibration import fit_calibration
from ._labeled_sample import LabeledSample
from ._optimal_proposal import Pool, Proposal
from ._proposal_mix import build_proposal
from ._sealed_design import DESIGN_SETTINGS, seal_design

__all__ = ["WithReplacementSession"]


class WithReplacementSession:
    """The with-replacement design of one evaluator ``ev`` (whose ids, labels, skips and
    draw log it reads): a :class:`~._design_protocol.Design`."""

    name = "with_replacement"
    cut_unit = "draws after the first unlabeled queried item"

    def __init__(self, ev: Any) -> None:
        self._ev = ev
        self._base: Proposal | None = None
        self._last: Proposal | None = None
        self._cdf: tuple | None = None

    def proposal(self) -> Proposal:
        """The proposal of the next batch."""
        ev = self._ev
        cfg = ev._config
        if cfg["proposal"] == "passive" or (cfg["recalibrate"] is None and self._base):
            if self._base is None:
                self._base = build_proposal(ev._pool, ev._spec, cfg["proposal"],
                                             cfg["epsilon"])
            self._last = self._base
            return self._base
        if cfg["recalibrate"] is not None:
            idx = np.fromiter(ev._labels, dtype=int)
            y = np.array([ev._labels[i] for i in idx])
            if len(idx) >= 10 and min((y == 1).sum(), (y == 0).sum()) >= 2:
                weights = self._item_weights(idx)
                cal = fit_calibration(ev._raw[idx], y, weights, cfg["recalibrate"],
                                      is_prob=not ev._is_raw)
                pool = Pool(np.clip(cal(ev._raw), 0.0, 1.0), ev._pool.preds,
                            ev._pool.model_names, binary=True)
                rec = build_proposal(pool, ev._spec, "optimal", cfg["epsilon"])
                self._last = self._mix_with_initial(rec)
                return self._last
            if ev._is_raw:
                self._last = build_proposal(ev._pool, ev._spec, "passive", 1.0)
                return self._last
        self._base = build_proposal(ev._pool, ev._spec, "optimal", cfg["epsilon"])
        self._last = self._base
        return self._base

    def _mix_with_initial(self, rec: Proposal) -> Proposal:
        """``½ q_recalibrated + ½ q_initial``: every weight is at most twice the weight of the
        initial (uncalibrated, or uniform for raw margins) design, so a poor calibration fit
        on few labels cannot starve regions the initial design covered."""
        ev = self._ev
        if ev._is_raw:
            q0: np.ndarray | float = 1.0 / ev._pool.size
        else:
            if self._base is None:
                self._base = build_proposal(ev._pool, ev._spec, "optimal",
                                             ev._config["epsilon"])
            q0 = self._base.q
        q = 0.5 * rec.q + 0.5 * q0
        plot_q = 0.5 * rec.plot_q + 0.5 * (q0 if np.ndim(q0) == 0 else self._base.plot_q)
        return replace(rec, q=q, plot_q=plot_q)

    def _item_weights(self, idx: np.ndarray) -> np.ndarray:
        """Mean importance weight ``1/(N q)`` over the draws of each labeled item."""
        ev = self._ev
        di = np.asarray(ev._draw_idx)
        v = 1.0 / (ev._pool.size * np.asarray(ev._draw_q))
        sums = pd.Series(v).groupby(di).mean()
        return sums.reindex(idx).to_numpy()

    def sample(self) -> tuple[LabeledSample, int, int, int]:
        """The labeled sample: draws up to the first one whose item still lacks a label
        (the draws of skipped items left out); the count of draws cut, of labeled items
        among them, and of skipped items used."""
        ev = self._ev
        di = np.asarray(ev._draw_idx, dtype=int)
        dq = np.asarray(ev._draw_q)
        skipped = np.isin(di, np.fromiter(ev._skipped, dtype=int))
        lab = np.array([i in ev._labels for i in di], dtype=bool) | skipped
        stop = int(np.argmin(lab)) if not lab.all() else len(di)
        n_skipped = ev._skipped_in(di[:stop][skipped[:stop]])
        keep = ~skipped
        di, dq, stop = di[keep], dq[keep], int(keep[:stop].sum())
        n_cut = len(di) - stop
        unused = len({int(i) for i in di[stop:] if int(i) in ev._labels}
                     - set(di[:stop].tolist()))
        di, dq = di[:stop], dq[:stop]
        items, first, inv = np.unique(di, return_index=True, return_inverse=True)
        order = np.argsort(first)                  # items in order of first draw
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        items = items[order]
        return LabeledSample(
            item_ids=ev._ids[items], item_labels=np.array([ev._labels[i] for i in items]),
            item_preds=ev._pool.preds[items], draw_item=rank[inv],
            draw_weight=1.0 / (ev._pool.size * dq), pool_size=ev._pool.size,
            **self._zero_counts()), n_cut, unused, n_skipped

    def _table(self) -> pd.DataFrame:
        """The queried items, one row each, before the settings are sealed."""
        ev = self._ev
        di = np.asarray(ev._draw_idx, dtype=int)
        dq = np.asarray(ev._draw_q)
        items, first, counts = np.unique(di, return_index=True, return_counts=True)
        order = np.argsort(first)
        items, first, counts = items[order], first[order], counts[order]
        seqs = pd.Series(np.arange(len(di))).groupby(di).agg(
            lambda s: ";".join(map(str, s))).reindex(items)
        # every draw's own weight (a recalibrated proposal changes between batches; the
        # first draw's weight alone moved the table's estimate 0.649 -> 0.637)
        v = 1.0 / (ev._pool.size * dq)
        draw_w = pd.Series(v).groupby(di).agg(            # repr: exact round trip
            lambda s: ";".join(repr(float(x)) for x in s)).reindex(items)
        pool = ev._pool
        df = pd.DataFrame({"id": ev._ids[items], "n_draws": counts, "first_draw": first,
                           "draw_seq": seqs.to_numpy(), "draw_weights": draw_w.to_numpy(),
                           "q": dq[first],
                           "weight": 1.0 / (pool.size * dq[first])})
        if ev._raw is not None:
            df["score"] = ev._raw[items]
        elif pool.probs.ndim == 2:
            for k in range(pool.probs.shape[1]):
                df[f"score_{k}"] = pool.probs[items, k]
        for j, name in enumerate(pool.model_names):
            df["pred" if j == 0 else f"pred_{name}"] = pool.preds[items, j]
        df["measure"] = ev._spec.name
        df["alpha"] = ev._spec.alpha if ev._spec.alpha is not None else np.nan
        df["proposal"] = ev._config["proposal"]
        df["epsilon"] = ev._config["epsilon"]
        df["pool_size"] = pool.size
        df["design"] = "with_replacement"
        # pool items the proposal can never draw, by prediction and model: the table must
        # carry them, or measures their labels enter come back as numbers (recall 1.000
        # with epsilon=0 where the evaluator says undefined)
        for key, counts in self._zero_counts().items():
            for j, name in enumerate(pool.model_names):
                df[key if j == 0 else f"{key}_{name}"] = int(counts[j])
        return df

    def _zero_counts(self) -> dict[str, tuple]:
        """Pool items the current proposal can never draw, by prediction, per model."""
        prop = self.last_proposal()
        zero = np.asarray(prop.q) <= 0
        if not zero.any():
            return {}
        p = self._ev._pool.preds[zero]
        return dict(zero_f1=tuple((p == 1).sum(axis=0)), zero_f0=tuple((p == 0).sum(axis=0)))

    def query(self, batch_size: int) -> np.ndarray:
        """Draw until ``batch_size`` new items need a label (a draw of an item labeled,
        requested or skipped before is logged and asks for nothing): each draw a binary
        search of a uniform number in the proposal's cumulative sum."""
        ev = self._ev
        if ev._pending:
            raise fail("query", "called after the items queried before are labeled",
                       got=f"{len(ev._pending)} queried items without a label (e.g. id "
                           f"{plain_value(ev.pending[0])!r})", verb="must be",
                       remedy="Label them with `update()` first: draws after an unlabeled one "
                              "could not be used.")
        prop = self.proposal()
        q = prop.q
        open_mask = q > 0
        taken = np.fromiter([*ev._labels, *ev._pending, *ev._skipped], dtype=int)
        available = int(open_mask.sum() - open_mask[taken].sum()) if len(taken) else int(
            open_mask.sum())
        if batch_size > available:
            raise fail("batch_size", f"at most the {available} unlabeled items the proposal "
                       "can still draw", value=batch_size)
        if self._cdf is None or self._cdf[0] is not prop:
            self._cdf = (prop, np.cumsum(q))
        cdf = self._cdf[1]
        new: list[int] = []
        while len(new) < batch_size:
            u = ev._rng.random(max(batch_size - len(new), 8)) * cdf[-1]
            for i in np.minimum(np.searchsorted(cdf, u, side="right"), len(q) - 1):
                i = int(i)
                fresh = i not in ev._labels and i not in ev._pending and i not in ev._skipped
                ev._log_draw(i, float(q[i]), new=fresh)
                if fresh:
                    new.append(i)
                    if len(new) == batch_size:
                        break
        return np.asarray(new, dtype=int)

    def table(self) -> pd.DataFrame:
        ev = self._ev
        table = self._table()
        table = ev._mark_skipped(table, ev._index.get_indexer(table["id"]))
        zero = tuple(c for c in table.columns if c.startswith(("zero_f1", "zero_f0")))
        return seal_design(table, DESIGN_SETTINGS + ("design",) + zero)

    def last_proposal(self) -> Proposal:
        return self._last if self._last is not None else self.proposal()

    def kind(self) -> str:
        cfg = self._ev._config
        return f"optimal+{cfg['recalibrate']}" if cfg["recalibrate"] else cfg["proposal"]

    def default_batch(self, n_labels: int) -> int:
        """A tenth of the budget (at least 10) with recalibration, else all at once."""
        if self._ev._config["recalibrate"] is not None:
            return max(n_labels // 10, 10)
        return n_labels

    def meta(self) -> dict[str, Any]:
        return {}

    def restore(self, meta: dict[str, Any]) -> None:
        """Nothing beyond the draw log: the proposal is rebuilt from the labels."""
