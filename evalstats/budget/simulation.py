"""Private helpers for the budget vignette and benchmark: the experiment of Section 5 of
Valizadegan et al. (2012) — random rules, labels collected in some order, and the error
of three estimators of Pr/Se/Sp as labels accumulate."""

from __future__ import annotations

import numpy as np
import pandas as pd

ESTIMATORS = ("subset", "blind", "plugin")


def random_rules(n_pool: int, size: int, n_rules: int, rng: np.random.Generator) -> np.ndarray:
    """(n_pool, n_rules) boolean matrix; each column predicts ``size`` random examples."""
    keys = rng.random((n_pool, n_rules))
    kth = np.partition(keys, size - 1, axis=0)[size - 1]
    return keys <= kth


def _ratios(tp, fp, fn, tn):
    with np.errstate(divide="ignore", invalid="ignore"):
        return tp / (tp + fp), tp / (tp + fn), tn / (tn + fp)


def true_measures(y: np.ndarray, rules: np.ndarray):
    """(Pr, Se, Sp) of every rule on the whole pool."""
    yb = y.astype(bool)[:, None]
    return _ratios((rules & yb).sum(0), (rules & ~yb).sum(0), (~rules & yb).sum(0),
                   (~rules & ~yb).sum(0))


def subset_measures(y: np.ndarray, rules: np.ndarray, idx: np.ndarray, y_used=None):
    """(Pr, Se, Sp) computed on the labeled subset ``idx`` (labels ``y_used`` if given)."""
    yb = (y[idx] if y_used is None else y_used).astype(bool)[:, None]
    r = rules[idx]
    return _ratios((r & yb).sum(0), (r & ~yb).sum(0), (~r & yb).sum(0), (~r & ~yb).sum(0))


def plugin_measures(y: np.ndarray, rules: np.ndarray, idx: np.ndarray):
    """Plug-in means E(Pr), E(Se), E(Sp) of eqs 3.4, 3.8, 3.10 with the prevalence known."""
    n_pool, n_pos = len(y), int(y.sum())
    yl = y[idx].astype(bool)[:, None]
    r = rules[idx]
    tp_l, fp_l = (r & yl).sum(0), (r & ~yl).sum(0)
    tn_l = (~r & ~yl).sum(0)
    u = n_pool - len(idx)
    eps = (n_pos - yl.sum()) / u
    s_rpos = rules.sum(0)
    u_rpos = s_rpos - tp_l - fp_l
    tp = tp_l + u_rpos * eps
    return tp / s_rpos, tp / n_pos, (tn_l + (u - u_rpos) * (1 - eps)) / (n_pool - n_pos)


def blind_indices(y: np.ndarray, idx: np.ndarray, prevalence: float,
                  rng: np.random.Generator) -> np.ndarray:
    """Eq 4.30: add |L_O+|/ε_S - |L| random unlabeled examples, to be labeled negative."""
    n_add = int(round(y[idx].sum() / prevalence)) - len(idx)
    if n_add <= 0:
        return np.zeros(0, np.int64)
    free = np.setdiff1d(np.arange(len(y)), idx, assume_unique=False)
    return rng.choice(free, size=min(n_add, len(free)), replace=False)


def error_curve(y, rules, order, grid, estimator, rng, prevalence=None) -> pd.DataFrame:
    """Absolute error of each measure for each rule after the first n labels of ``order``.

    ``estimator``: ``"subset"`` (measures on the labeled set, as in the paper's
    experiments), ``"blind"`` (subset estimate on L plus blind negatives, eq 4.30) or
    ``"plugin"`` (E(measure) of eqs 3.4-3.10 with the prevalence known). Returns one row
    per (n, measure) with the mean, median and 90th percentile of |error| over the rules.
    """
    truth = true_measures(y, rules)
    prevalence = float(y.mean()) if prevalence is None else prevalence
    rows = []
    for n in grid:
        idx = order[:n]
        if estimator == "plugin":
            est = plugin_measures(y, rules, idx)
        elif estimator == "blind":
            b = blind_indices(y, idx, prevalence, rng)
            both = np.concatenate([idx, b])
            est = subset_measures(y, rules, both,
                                  np.concatenate([y[idx], np.zeros(len(b), int)]))
        else:
            est = subset_measures(y, rules, idx)
        for m, e, t in zip(("precision", "sensitivity", "specificity"), est, truth,
                           strict=True):
            err = np.abs(np.where(np.isfinite(e), e, 0.5) - t)  # undefined -> guess 0.5
            rows.append(dict(n_labels=int(n), measure=m, mean_error=err.mean(),
                             median_error=np.median(err), q90_error=np.quantile(err, 0.9),
                             undefined=int((~np.isfinite(e)).sum())))
    return pd.DataFrame(rows)


def labels_to_reach(curve: pd.DataFrame, measure: str, target: float,
                    column: str = "mean_error") -> float:
    """Fewest labels on the grid with error ≤ ``target`` (NaN if never reached)."""
    d = curve[(curve["measure"] == measure) & (curve[column] <= target)]
    return float(d["n_labels"].min()) if len(d) else float("nan")


def empirical_positives_needed(y, rate, measure, half_width, confidence_level, n_rules,
                               grid, rng) -> float:
    """Positives to label (random positives, plug-in means) until the ``confidence_level``
    quantile over ``n_rules`` random rules of |measure - E(measure)| is ≤ ``half_width``."""
    pos = rng.permutation(np.flatnonzero(y == 1))
    rules = random_rules(len(y), int(round(rate * len(y))), n_rules, rng)
    truth = true_measures(y, rules)[("precision", "sensitivity", "specificity").index(measure)]
    for k in grid:
        est = plugin_measures(y, rules, pos[:k])[
            ("precision", "sensitivity", "specificity").index(measure)]
        if np.quantile(np.abs(est - truth), confidence_level) <= half_width:
            return float(k)
    return float("nan")
