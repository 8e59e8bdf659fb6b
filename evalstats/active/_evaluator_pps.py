"""The without-replacement (πps) half of :class:`~._evaluator.ActiveEvaluator`.

Kept in its own module: query a batch, build the :class:`~._ht.DesignSample`, export the
design table and save/restore the batch state as plain data (lists and floats).

Design table columns (one row per selected item, in selection order):
``id``, ``batch`` (0, 1, ...), ``pi`` (inclusion probability in its batch), ``weight``
(``1/pi``), ``model_prob`` (the model's ``p(y=1|x)`` when the batch was drawn), ``n_draws``
(always 1), ``score``, ``pred`` (and ``pred_<model>``), ``measure``, ``alpha``, ``design``
(``"pps"``), ``sampling``, ``estimator``, ``epsilon``, ``pool_size`` and the batch's pool
totals ``batch_n_target``, ``batch_n_unlabeled``, ``batch_sum_m``, ``batch_antic_0``,
``batch_model`` (1: the batch's estimator used the model, 0: Horvitz–Thompson) and, per
model column ``j``, ``batch_sum_f_j``, ``batch_sum_fm_j``, ``batch_antic_f_j``,
``batch_zero_f1_j``, ``batch_zero_f0_j``, ``batch_antic_f0_j`` (tables without the last
are still read: their group-0 total is ``batch_antic_0 − batch_antic_f_j``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._validation import fail
from ._batches import BatchDesign, design_sample
from ._ht import DesignSample, antic_group0

__all__ = ["PPSMixin", "BATCH_SCALARS", "BATCH_LISTS", "design_from_table"]

BATCH_SCALARS = ("n_target", "n_unlabeled", "sum_m", "antic_0", "model")
BATCH_LISTS = ("sum_f", "sum_fm", "antic_f", "zero_f1", "zero_f0", "antic_f0", "antic_skew_f",
               "antic_skew_f0")
#: batch keys that tables and sessions written before them lack (read as absent)
_LATER_KEYS = ("antic_f0", "antic_skew_f", "antic_skew_f0")


class PPSMixin:
    """State and methods of the πps design (mixed into ActiveEvaluator)."""

    def _pps_init(self, ranking: np.ndarray) -> None:
        cfg = self._config
        self._pps = BatchDesign(self._pool, self._spec, ranking=ranking,
                                epsilon=cfg["epsilon"], sampling=cfg["sampling"],
                                estimator=cfg["estimator"], adaptive=cfg["adaptive"],
                                passive=cfg["proposal"] == "passive",
                                raw=bool(ranking.size and ranking.min() < 0),
                                defensive=cfg.get("defensive", "influence"))
        self._pps_batches: list[dict[str, Any]] = []
        self._pps_m: dict[int, float] = {}

    def _pps_query(self, batch_size: int) -> np.ndarray:
        if self._pending:
            raise fail("query", "called after the previous batch is labeled",
                       got=f"{len(self._pending)} items of the last batch without a label",
                       verb="must be",
                       remedy="Label them with `update()` first: each batch's model and "
                              "inclusion probabilities use every earlier label.")
        lab_idx = np.fromiter(self._labels, dtype=int)
        lab_y = np.array([self._labels[i] for i in lab_idx])
        available = self._pool.size - len(lab_idx)
        if batch_size > available:
            raise fail("batch_size", f"at most the {available} unlabeled items",
                       value=batch_size)
        idx, pi, m, stats, full, g = self._pps.next_batch(batch_size, lab_idx, lab_y, self._rng)
        self._last = self._pps.proposal(full, g, batch_size)
        self._last_kind = self._last.kind
        for i, p, mm in zip(idx, pi, m, strict=True):
            self._draw_idx.append(int(i))
            self._draw_q.append(float(p))
            self._draw_batch.append(self._batch)
            self._pending[int(i)] = None
            self._pps_m[int(i)] = float(mm)
        self._pps_batches.append(stats)
        self._batch += 1
        return idx

    def _pps_sample(self) -> tuple[DesignSample, int]:
        """Batches whose every item is labeled (a later incomplete batch is left out).

        Labels are only ever added, so the sample is kept until a label or a draw is added
        (``result()`` called again without an ``update`` reuses it)."""
        key = (len(self._labels), len(self._draw_idx))
        memo = getattr(self, "_pps_memo", None)
        if memo is not None and memo[0] == key:
            return memo[1]
        self._pps_memo = (key, self._pps_sample_now())
        return self._pps_memo[1]

    def _pps_sample_now(self) -> tuple[DesignSample, int]:
        di = np.asarray(self._draw_idx, dtype=int)
        bt = np.asarray(self._draw_batch, dtype=int)
        lab = np.array([i in self._labels for i in di], dtype=bool)
        complete = len(self._pps_batches)
        if not lab.all():
            complete = int(bt[~lab].min())
        keep = bt < complete
        di, bt = di[keep], bt[keep]
        y = np.array([self._labels[i] for i in di])
        batches = self._pps.anticipated(self._pps_batches[:complete], di, y, bt,
                                        np.asarray(self._draw_q)[keep])
        return design_sample(
            self._ids[di], y, self._pool.preds[di], bt, np.asarray(self._draw_q)[keep],
            [self._pps_m[i] for i in di], batches, self._config["sampling"],
            self._config["estimator"]), int((~keep).sum())

    def _pps_design(self) -> pd.DataFrame:
        di = np.asarray(self._draw_idx, dtype=int)
        pi = np.asarray(self._draw_q)
        bt = np.asarray(self._draw_batch, dtype=int)
        pool, cfg = self._pool, self._config
        df = pd.DataFrame({"id": self._ids[di], "batch": bt, "pi": pi, "weight": 1.0 / pi,
                           "model_prob": [self._pps_m[i] for i in di], "n_draws": 1})
        df["score"] = self._raw[di] if self._raw is not None else pool.probs[di]
        for j, name in enumerate(pool.model_names):
            df["pred" if j == 0 else f"pred_{name}"] = pool.preds[di, j]
        df["measure"] = self._spec.name
        df["alpha"] = self._spec.alpha if self._spec.alpha is not None else np.nan
        for key in ("design", "sampling", "estimator", "epsilon"):
            df[key] = cfg[key]
        df["proposal"] = cfg["proposal"]
        df["pool_size"] = pool.size
        for key in BATCH_SCALARS:
            df[f"batch_{key}"] = [self._pps_batches[b][key] for b in bt]
        for key in BATCH_LISTS:
            for j in range(pool.preds.shape[1]):
                df[f"batch_{key}_{j}"] = [_batch_list(self._pps_batches[b], key, j) for b in bt]
        return df

    def _pps_meta(self) -> dict[str, Any]:
        return dict(batches=self._pps_batches,
                    m=[[int(i), float(v)] for i, v in self._pps_m.items()])

    def _pps_restore(self, meta: dict[str, Any]) -> None:
        """Batch state from a session file; the last batch's π is replayed for plots."""
        self._pps_batches = list(meta.get("batches", []))
        self._pps_m = {int(i): float(v) for i, v in meta.get("m", [])}
        if not self._pps_batches:
            return
        last = len(self._pps_batches) - 1
        before = np.asarray(self._draw_batch, dtype=int) < last
        idx = np.asarray(self._draw_idx, dtype=int)[before]
        y = np.array([self._labels.get(int(i), np.nan) for i in idx])
        n = int(self._pps_batches[last]["n_target"])
        unl, pi, _, g = self._pps.inclusion(n, idx, y)
        self._last = self._pps.proposal(unl.scatter(pi), g, n)


def _batch_list(batch: dict[str, Any], key: str, j: int) -> float:
    """``batch[key][j]`` (``antic_f0`` through :func:`._ht.antic_group0`, for sessions saved
    before it existed)."""
    if key == "antic_f0":
        return antic_group0(batch, j)
    if key.startswith("antic_skew") and key not in batch:
        return 0.0                        # a session saved before the key existed
    return batch[key][j]


def design_from_table(design: pd.DataFrame, y: np.ndarray) -> tuple[DesignSample, list[str]]:
    """A :class:`DesignSample` from an exported πps design table and its labels."""
    pred_cols = [c for c in design.columns if c == "pred" or c.startswith("pred_")]
    n_models = len(pred_cols)
    batches = []
    for b in range(int(design["batch"].max()) + 1):
        row = design.loc[design["batch"] == b]
        if row.empty:
            raise fail("design", "every batch 0..max present", got=f"no row of batch {b}")
        row = row.iloc[0]
        stats = {k: float(row[f"batch_{k}"]) for k in BATCH_SCALARS}
        for key in BATCH_LISTS:
            if key in _LATER_KEYS and f"batch_{key}_0" not in design.columns:
                continue                  # a table exported before the key existed
            stats[key] = [float(row[f"batch_{key}_{j}"]) for j in range(n_models)]
        batches.append(stats)
    sample = design_sample(design["id"].to_numpy(), y, design[pred_cols].to_numpy(float),
                           design["batch"].to_numpy(int), design["pi"].to_numpy(float),
                           design["model_prob"].to_numpy(float), batches,
                           str(design["sampling"].iloc[0]), str(design["estimator"].iloc[0]))
    return sample, pred_cols
