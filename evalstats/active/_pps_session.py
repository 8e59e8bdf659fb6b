"""The successive πps half of :class:`~._evaluator.ActiveEvaluator` (the default design).

Kept in its own module: query a batch from :class:`~._successive_design.SuccessiveDesign`,
export the design table (:mod:`._design_table`) and read every result back from that table,
so the evaluator's ``result()`` and :func:`estimate_from_labels` are one computation.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from .._validation import fail
from ._design_table import records_from_table, successive_table
from ._sealed_design import rounded
from ._skipping import impute_skipped
from ._successive_design import SuccessiveDesign
from ._successive_sample import SuccessiveSample

__all__ = ["PPSMixin"]


class PPSMixin:
    """State and methods of the successive design (mixed into ActiveEvaluator)."""

    def _pps_init(self, raw: np.ndarray) -> None:
        cfg = self._config
        margins = bool(raw.size and raw.min() < 0)

        def feature() -> np.ndarray:
            return raw if margins else special.logit(np.clip(raw, 1e-12, 1 - 1e-12))

        self._pps = SuccessiveDesign(self._pool, self._spec, feature, cfg["epsilon"],
                                     passive=cfg["proposal"] == "passive",
                                     adaptive=cfg["adaptive"])

    def _pps_query(self, batch_size: int) -> np.ndarray:
        if self._pending:
            raise fail("query", "called after the previous batch is labeled",
                       got=f"{len(self._pending)} items of the last batch without a label",
                       verb="must be",
                       remedy="Label them with `update()` first: each batch's model and "
                              "sizes use every earlier label.")
        lab_idx, lab_y = self._pps_outcomes()
        available = self._pool.size - len(lab_idx)
        if batch_size > available:
            raise fail("batch_size", f"at most the {available} unlabeled items",
                       value=batch_size)
        new = self._pps.next_batch(batch_size, lab_idx, lab_y, self._rng)
        for i, q in zip(new, self._pps.rows["q"][-len(new):], strict=True):
            self._draw_idx.append(int(i))
            self._draw_q.append(float(q))
            self._draw_batch.append(self._batch)
            self._pending[int(i)] = None
        self._batch += 1
        return new

    def _pps_outcomes(self) -> tuple[np.ndarray, np.ndarray]:
        """The items no later batch may draw and their outcomes for the next model: the
        labels, and for a skipped item its model prediction ``ĝ`` at its draw (an outcome
        equal to the model's own prediction leaves the fit where the labels put it)."""
        lab_idx = np.fromiter(self._labels, dtype=int)
        lab_y = np.array([self._labels[i] for i in lab_idx], dtype=float)
        if not self._skipped:
            return lab_idx, lab_y
        ghat = dict(zip(self._pps.rows["item"], self._pps.rows["ghat"], strict=True))
        skip_idx = np.fromiter(self._skipped, dtype=int)
        skip_y = np.array([ghat[int(i)] for i in skip_idx], dtype=float)
        return np.concatenate([lab_idx, skip_idx]), np.concatenate([lab_y, skip_y])

    def _pps_design(self) -> pd.DataFrame:
        cfg, spec = self._config, self._spec
        settings = dict(measure=spec.name,
                        alpha=spec.alpha if spec.alpha is not None else np.nan,
                        design="pps", proposal=cfg["proposal"], epsilon=cfg["epsilon"],
                        pool_size=self._pool.size, adaptive=int(cfg["adaptive"]),
                        model=self._pool.model_names[0])
        scores = self._raw if self._raw is not None else self._pool.probs
        return successive_table(self._pps.rows, self._pps.batches, self._ids, scores,
                                self._pool.preds, self._pool.model_names, settings)

    def _pps_sample(self) -> tuple[SuccessiveSample, int, int, int]:
        """The complete batches (every item labeled or skipped), the count of items left
        out, of labeled ones among them, and of skipped items used."""
        if not self._pps.batches:
            raise fail("result", "called after at least one labeled batch",
                       got="no batch queried yet", verb="must be")
        table = rounded(self._pps_design())      # the values the design file holds
        item = np.asarray(self._pps.rows["item"], dtype=int)
        labeled = np.array([i in self._labels or i in self._skipped for i in item],
                           dtype=bool)
        batch = table["batch"].to_numpy(int)
        complete = int(batch[~labeled].min()) if not labeled.all() else len(self._pps.batches)
        keep = batch < complete
        if not keep.any():
            raise fail("result", "called after at least one labeled batch",
                       got="no batch labeled yet", verb="must be")
        y = np.array([self._labels.get(i, np.nan) for i in item[keep]], dtype=float)
        table = self._mark_skipped(table.loc[keep], item[keep])
        y, n_skipped = impute_skipped(table, y)
        unused = sum(int(i) in self._labels and int(i) not in item[keep] for i in item[~keep])
        return (SuccessiveSample(records_from_table(table, y)), int((~keep).sum()),
                unused, n_skipped)

    def _pps_meta(self) -> dict[str, Any]:
        return self._pps.meta()

    def _pps_restore(self, meta: dict[str, Any]) -> None:
        self._pps.restore(meta)
