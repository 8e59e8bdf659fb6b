"""The successive πps design of :class:`~._evaluator.ActiveEvaluator` (the default).

A :class:`~._design_protocol.Design`: query a batch from
:class:`~._successive_design.SuccessiveDesign`, export the design table
(:mod:`._design_table`) and read every result back from that table, so the evaluator's
``result()`` and :func:`estimate_from_labels` are one computation.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from .._validation import fail
from ._design_table import PPS_SETTINGS, design_kind, records_from_table, successive_table
from ._optimal_proposal import Proposal
from ._pool_inputs import log_odds
from ._proposal_mix import build_proposal
from ._sealed_design import rounded, seal_design
from ._skipping import impute_skipped
from ._successive_design import SuccessiveDesign
from ._successive_sample import SuccessiveSample

__all__ = ["SuccessiveSession"]

#: batch size of ``run`` for the adaptive design: the model is refitted between batches
RUN_BATCH = 100


class SuccessiveSession:
    """The successive design of one evaluator ``ev`` (whose ids, labels, skips and draw
    log it reads): a :class:`~._design_protocol.Design`."""

    name = "pps"
    cut_unit = "items of an incompletely labeled batch"

    def __init__(self, ev: Any) -> None:
        self._ev = ev
        cfg = ev._config
        feature = partial(log_odds, ev._raw, ev._margins)   # computed at the first fit
        self.successive = SuccessiveDesign(ev._pool, ev._spec, feature, cfg["epsilon"],
                                           passive=cfg["proposal"] == "passive",
                                           adaptive=cfg["adaptive"])

    def query(self, batch_size: int) -> np.ndarray:
        ev = self._ev
        if ev._pending:
            raise fail("query", "called after the previous batch is labeled",
                       got=f"{len(ev._pending)} items of the last batch without a label",
                       verb="must be",
                       remedy="Label them with `update()` first: each batch's model and "
                              "sizes use every earlier label.")
        lab_idx, lab_y = self._outcomes()
        available = ev._pool.size - len(lab_idx)
        if batch_size > available:
            raise fail("batch_size", f"at most the {available} unlabeled items",
                       value=batch_size)
        new = self.successive.next_batch(batch_size, lab_idx, lab_y, ev._rng)
        for i, q in zip(new, self.successive.rows["q"][-len(new):], strict=True):
            ev._log_draw(int(i), float(q), new=True)
        return new

    def _outcomes(self) -> tuple[np.ndarray, np.ndarray]:
        """The items no later batch may draw and their outcomes for the next model: the
        labels, and for a skipped item its model prediction ``ĝ`` at its draw (an outcome
        equal to the model's own prediction leaves the fit where the labels put it)."""
        ev, rows = self._ev, self.successive.rows
        lab_idx = np.fromiter(ev._labels, dtype=int)
        lab_y = np.array([ev._labels[i] for i in lab_idx], dtype=float)
        if not ev._skipped:
            return lab_idx, lab_y
        ghat = dict(zip(rows["item"], rows["ghat"], strict=True))
        skip_idx = np.fromiter(ev._skipped, dtype=int)
        skip_y = np.array([ghat[int(i)] for i in skip_idx], dtype=float)
        return np.concatenate([lab_idx, skip_idx]), np.concatenate([lab_y, skip_y])

    def _table(self) -> pd.DataFrame:
        ev = self._ev
        cfg, spec, pool = ev._config, ev._spec, ev._pool
        settings = dict(measure=spec.name,
                        alpha=spec.alpha if spec.alpha is not None else np.nan,
                        design="pps", proposal=cfg["proposal"], epsilon=cfg["epsilon"],
                        pool_size=pool.size, adaptive=int(cfg["adaptive"]),
                        model=pool.model_names[0])
        scores = ev._raw if ev._raw is not None else pool.probs
        return successive_table(self.successive.rows, self.successive.batches, ev._ids,
                                scores, pool.preds, pool.model_names, settings)

    def table(self) -> pd.DataFrame:
        table = self._ev._mark_skipped(self._table(), self.successive.rows["item"])
        extra = tuple(c for c in table.columns if c.startswith("n_pred_pos"))
        return seal_design(table, PPS_SETTINGS + extra)

    def sample(self) -> tuple[SuccessiveSample, int, int, int]:
        """The complete batches (every item labeled or skipped), the count of items left
        out, of labeled ones among them, and of skipped items used."""
        ev = self._ev
        if not self.successive.batches:
            raise fail("result", "called after at least one labeled batch",
                       got="no batch queried yet", verb="must be")
        table = rounded(self._table())      # the values the design file holds
        item = np.asarray(self.successive.rows["item"], dtype=int)
        labeled = np.array([i in ev._labels or i in ev._skipped for i in item], dtype=bool)
        batch = table["batch"].to_numpy(int)
        complete = (int(batch[~labeled].min()) if not labeled.all()
                    else len(self.successive.batches))
        keep = batch < complete
        if not keep.any():
            raise fail("result", "called after at least one labeled batch",
                       got="no batch labeled yet", verb="must be")
        y = np.array([ev._labels.get(i, np.nan) for i in item[keep]], dtype=float)
        table = ev._mark_skipped(table.loc[keep], item[keep])
        y, n_skipped = impute_skipped(table, y)
        unused = sum(int(i) in ev._labels and int(i) not in item[keep] for i in item[~keep])
        return (SuccessiveSample(records_from_table(table, y)), int((~keep).sum()),
                unused, n_skipped)

    def proposal(self) -> Proposal:
        """The with-replacement optimal proposal of the scores, for orientation only: the
        next batch follows the current model's capped inclusion probabilities."""
        cfg = self._ev._config
        return build_proposal(self._ev._pool, self._ev._spec, cfg["proposal"],
                              cfg["epsilon"])

    def last_proposal(self) -> Proposal:
        return self.proposal()

    def kind(self) -> str:
        cfg = self._ev._config
        return design_kind(cfg["proposal"], cfg["adaptive"])

    def default_batch(self, n_labels: int) -> int:
        if self._ev._config["proposal"] == "passive":
            return n_labels
        return min(n_labels, RUN_BATCH)

    def meta(self) -> dict[str, Any]:
        return {"pps": self.successive.meta()}

    def restore(self, meta: dict[str, Any]) -> None:
        if "pps" in meta:
            self.successive.restore(meta["pps"])
