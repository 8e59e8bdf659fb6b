"""The successive (πps) design as a table, and the estimator's records read back from it.

One row per labeled item, in labeling order (each batch: its certain items, then its
draws). Row columns: ``id``, ``batch``, ``certain`` (1: labeled with certainty),
``q`` (the draw probability; 1 for certain items), ``model_prob`` (the batch model's
``ĝ``), ``score``, ``pred`` (and ``pred_<model>``), per model column ``j``:
``batch_sum1_j``/``batch_sum0_j`` (``Σ ĝ`` over the batch's items left to draw, predicted
positive / negative) and ``bound_g1_j``, ``bound_h1_j``, ``bound_g0_j``, ``bound_h0_j``
(the largest ``ĝ/q`` and ``(1 − ĝ)/q`` among the items left at the draw, per prediction
group) and ``model_var_1_j``, ``model_var_0_j`` (the conditional variance of the draw's
residual term of each group total expected under the batch model; tables without them
are read with the realised variance alone). Settings (the same on every row):
``measure``, ``alpha``, ``design`` (``"pps"``),
``proposal``, ``epsilon``, ``pool_size``, ``adaptive`` (1: the model was refitted between
batches), ``model`` (the name of the first model) and per model ``n_pred_pos``
(``_<model>``).

:func:`records_from_table` is the one reader: the evaluator's own ``result()`` goes
through the same table, so the callback, the session, the offline design and the command
line give bit-identical estimates and intervals from the same items and labels.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import fail
from ._aipw import DrawRecords

__all__ = ["successive_table", "records_from_table", "design_kind", "PPS_COLUMNS",
           "PPS_SETTINGS"]

PPS_COLUMNS = ("id", "batch", "certain", "q", "model_prob", "pred", "measure", "pool_size",
               "batch_sum1_0", "batch_sum0_0", "bound_g1_0", "n_pred_pos")
PPS_SETTINGS = ("measure", "alpha", "design", "proposal", "epsilon", "pool_size", "adaptive",
                "model")
_BOUNDS = ("g1", "h1", "g0", "h0")


def successive_table(rows: dict, batches: list[dict], ids: np.ndarray, scores: np.ndarray,
                     preds: np.ndarray, model_names: list[str], settings: dict) -> pd.DataFrame:
    """The design table of ``rows``/``batches`` (see the module docstring)."""
    item = np.asarray(rows["item"], dtype=int)
    batch = np.asarray(rows["batch"], dtype=int)
    df = pd.DataFrame({"id": ids[item], "batch": batch,
                       "certain": np.asarray(rows["certain"], dtype=int),
                       "q": np.asarray(rows["q"], dtype=float),
                       "model_prob": np.asarray(rows["ghat"], dtype=float),
                       "score": scores[item]})
    for j, name in enumerate(model_names):
        df["pred" if j == 0 else f"pred_{name}"] = preds[item, j]
    for key, value in settings.items():
        df[key] = value
    bounds = np.asarray(rows["bounds"], dtype=float).reshape(len(item), -1)
    model_var = np.asarray(rows["model_var"], dtype=float).reshape(len(item), -1)
    for j, name in enumerate(model_names):
        for key in ("sum1", "sum0"):
            df[f"batch_{key}_{j}"] = [float(batches[b][key][j]) for b in batch]
        for c, kind in enumerate(_BOUNDS):
            df[f"bound_{kind}_{j}"] = bounds[:, 4 * j + c]
        for c, grp in enumerate((1, 0)):
            df[f"model_var_{grp}_{j}"] = model_var[:, 2 * j + c]
        df["n_pred_pos" if j == 0 else f"n_pred_pos_{name}"] = float(preds[:, j].sum())
    return df


def design_kind(proposal: str, adaptive: bool) -> str:
    """The design's short description: ``"pps, adaptive"``, ``"pps"`` or ``"passive"``."""
    if proposal != "optimal":
        return proposal
    return "pps, adaptive" if adaptive else "pps"


def records_from_table(design: pd.DataFrame, y: np.ndarray) -> DrawRecords:
    """The estimator's :class:`DrawRecords` from a design table and its labels (every
    row labeled, batches complete)."""
    missing = [c for c in PPS_COLUMNS if c not in design.columns]
    if missing:
        raise fail("design", "a table with the columns of `active_design(design='pps')`",
                   got=f"no column(s) {', '.join(missing)}")
    pred_cols = [c for c in design.columns if c == "pred" or c.startswith("pred_")]
    names = ["model"] + [c[5:] for c in pred_cols[1:]]
    batch = design["batch"].to_numpy(int)
    k = int(batch.max()) + 1
    if set(np.unique(batch)) != set(range(k)):
        raise fail("design", "every batch 0..max present",
                   got=f"batches {sorted(set(batch.tolist()))}")
    first = np.array([np.flatnonzero(batch == b)[0] for b in range(k)])
    m = len(pred_cols)
    sums = {key: np.column_stack([design[f"batch_{key}_{j}"].to_numpy(float)[first]
                                  for j in range(m)]) for key in ("sum1", "sum0")}
    bounds = np.column_stack([design[f"bound_{kind}_{j}"].to_numpy(float)
                              for j in range(m) for kind in _BOUNDS])
    model_var = np.column_stack([
        design[c].to_numpy(float) if c in design.columns else np.full(len(design), np.nan)
        for j in range(m) for c in (f"model_var_1_{j}", f"model_var_0_{j}")])
    n_pos = np.array([float(design["n_pred_pos" if j == 0 else f"n_pred_pos_{nm}"].iloc[0])
                      for j, nm in enumerate(names)])
    return DrawRecords(batch=batch, certain=design["certain"].to_numpy(int) == 1,
                       q=design["q"].to_numpy(float), bounds=bounds,
                       ghat=design["model_prob"].to_numpy(float),
                       preds=design[pred_cols].to_numpy(float), labels=np.asarray(y, float),
                       sum1=sums["sum1"], sum0=sums["sum0"],
                       pool_size=int(design["pool_size"].iloc[0]), n_pred_pos=n_pos,
                       model_var=model_var)
