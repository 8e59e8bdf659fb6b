"""The with-replacement half of :class:`~._evaluator.ActiveEvaluator` (the papers' design).

Kept in its own module: the proposal of the next batch (static, passive, or rebuilt from a
recalibration of the scores on the labels so far), the labeled sample of draws and the
design table of the queried items.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from ._calibration import fit_calibration
from ._labeled_sample import LabeledSample
from ._optimal_proposal import Pool, Proposal
from ._proposal_mix import build_proposal

__all__ = ["WithReplacementMixin"]


class WithReplacementMixin:
    """Proposals, sample and design table of the with-replacement design (mixed into
    ActiveEvaluator)."""

    def _proposal_mix(self) -> Proposal:
        cfg = self._config
        if cfg["proposal"] == "passive" or (cfg["recalibrate"] is None and self._base):
            if self._base is None:
                self._base = build_proposal(self._pool, self._spec, cfg["proposal"],
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
                rec = build_proposal(pool, self._spec, "optimal", cfg["epsilon"])
                self._last = self._mix_with_initial(rec)
                self._last_kind = f"optimal+{cfg['recalibrate']}"
                return self._last
            if self._is_raw:
                self._last = build_proposal(self._pool, self._spec, "passive", 1.0)
                self._last_kind = "passive (before calibration)"
                return self._last
        self._base = build_proposal(self._pool, self._spec, "optimal", cfg["epsilon"])
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
                self._base = build_proposal(self._pool, self._spec, "optimal",
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

    def sample(self) -> tuple[LabeledSample, int]:
        """The labeled sample: draws up to the first one whose item still lacks a label
        (the draws of skipped items left out), and the count of draws cut."""
        sample, n_cut, _, _ = self._wr_sample()
        return sample, n_cut

    def _wr_sample(self) -> tuple[LabeledSample, int, int, int]:
        """:meth:`sample`, the labeled items among the draws cut, the skipped items used."""
        di = np.asarray(self._draw_idx, dtype=int)
        dq = np.asarray(self._draw_q)
        skipped = np.isin(di, np.fromiter(self._skipped, dtype=int))
        lab = np.array([i in self._labels for i in di], dtype=bool) | skipped
        stop = int(np.argmin(lab)) if not lab.all() else len(di)
        n_skipped = self._skipped_in(di[:stop][skipped[:stop]])
        keep = ~skipped
        di, dq, stop = di[keep], dq[keep], int(keep[:stop].sum())
        n_cut = len(di) - stop
        unused = len({int(i) for i in di[stop:] if int(i) in self._labels}
                     - set(di[:stop].tolist()))
        di, dq = di[:stop], dq[:stop]
        items, first, inv = np.unique(di, return_index=True, return_inverse=True)
        order = np.argsort(first)                  # items in order of first draw
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        items = items[order]
        return LabeledSample(
            item_ids=self._ids[items], item_labels=np.array([self._labels[i] for i in items]),
            item_preds=self._pool.preds[items], draw_item=rank[inv],
            draw_weight=1.0 / (self._pool.size * dq), pool_size=self._pool.size,
            **self._zero_counts()), n_cut, unused, n_skipped

    def _wr_design(self) -> pd.DataFrame:
        """The queried items, one row each, before the settings are sealed."""
        di = np.asarray(self._draw_idx, dtype=int)
        dq = np.asarray(self._draw_q)
        items, first, counts = np.unique(di, return_index=True, return_counts=True)
        order = np.argsort(first)
        items, first, counts = items[order], first[order], counts[order]
        seqs = pd.Series(np.arange(len(di))).groupby(di).agg(
            lambda s: ";".join(map(str, s))).reindex(items)
        # every draw's own weight (a recalibrated proposal changes between batches; the
        # first draw's weight alone moved the table's estimate 0.649 -> 0.637)
        v = 1.0 / (self._pool.size * dq)
        draw_w = pd.Series(v).groupby(di).agg(
            lambda s: ";".join(format(x, ".12g") for x in s)).reindex(items)
        pool = self._pool
        df = pd.DataFrame({"id": self._ids[items], "n_draws": counts, "first_draw": first,
                           "draw_seq": seqs.to_numpy(), "draw_weights": draw_w.to_numpy(),
                           "q": dq[first],
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
        df["design"] = "with_replacement"
        # pool items the proposal can never draw, by prediction and model: the table must
        # carry them, or measures their labels enter come back as numbers (recall 1.000
        # with epsilon=0 where the evaluator says undefined)
        for key, counts in self._zero_counts().items():
            for j, name in enumerate(pool.model_names):
                df[key if j == 0 else f"{key}_{name}"] = int(counts[j])
        return df
