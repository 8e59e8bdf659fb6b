r"""Empirical ROC curve and its simultaneous confidence band (Campbell 1994).

With :math:`S_0(c) = P(\text{score} > c \mid \text{negative})` and :math:`S_1(c)` the same
for positives, the ROC curve is :math:`\{(S_0(c), S_1(c))\}_c`. Kolmogorov–Smirnov bands
:math:`\sup_c |\hat S_j(c) - S_j(c)| \le d_j` hold jointly with probability
:math:`\ge \gamma` when each is taken at level :math:`\sqrt\gamma` (the two samples are
independent given the labels; :math:`d_j` is the exact :math:`\sqrt\gamma` quantile of the
one-sample two-sided KS statistic, scipy ``kstwo``). Every point of the true curve then
lies in a box of half-sides :math:`(d_0, d_1)` around an empirical vertex, so for every
false positive rate :math:`x`

.. math::
   \max_{\hat x_v \ge x - d_0} \hat y_v - d_1 \;\le\; R(x) \;\le\;
   \max_{\hat x_v \le x + d_0} \hat y_v + d_1

(the lower end takes the smallest vertex at or right of :math:`x-d_0`), clipped to [0, 1].
This is Campbell's fixed-width band: simultaneous over all FPRs, exact-level conservative
for continuous scores (more conservative with ties).

References
----------
G. Campbell (1994). Advances in statistical methodology for the evaluation of diagnostic
and laboratory tests. Statistics in Medicine 13, 499–508.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["roc_vertices", "ks_half_width", "roc_band", "plot_roc"]


def roc_vertices(scores_pos: np.ndarray, scores_neg: np.ndarray) -> tuple[np.ndarray,
                                                                          np.ndarray]:
    """Vertices ``(fpr, tpr)`` of the empirical ROC curve, from (0, 0) to (1, 1)."""
    thresholds = np.unique(np.r_[scores_pos, scores_neg])[::-1]
    pos, neg = np.sort(scores_pos), np.sort(scores_neg)
    # fraction with score >= threshold, thresholds in decreasing order
    tpr = (pos.size - np.searchsorted(pos, thresholds, side="left")) / pos.size
    fpr = (neg.size - np.searchsorted(neg, thresholds, side="left")) / neg.size
    return np.r_[0.0, fpr], np.r_[0.0, tpr]


def ks_half_width(n: int, level: float) -> float:
    """Exact ``level`` quantile of the two-sided one-sample KS statistic ``D_n``."""
    return float(stats.kstwo.ppf(level, n))


def roc_band(scores_pos: np.ndarray, scores_neg: np.ndarray, level: float,
             n_grid: int = 201) -> pd.DataFrame:
    """Empirical ROC and Campbell's simultaneous band on a grid of false positive rates.

    Returns a DataFrame with columns ``fpr``, ``tpr`` (empirical, the highest TPR reached
    at that FPR), ``tpr_low``, ``tpr_high``; the band's breakpoints are included so the
    step edges are exact.
    """
    fpr_v, tpr_v = roc_vertices(scores_pos, scores_neg)
    q = np.sqrt(level)
    d0, d1 = ks_half_width(scores_neg.size, q), ks_half_width(scores_pos.size, q)
    x = np.unique(np.clip(np.r_[np.linspace(0, 1, n_grid), fpr_v - d0, fpr_v + d0,
                                np.nextafter(fpr_v - d0, -1), np.nextafter(fpr_v + d0, 2)],
                          0, 1))
    # running maximum of tpr over vertices sorted by fpr (vertices are already sorted)
    run_max = np.maximum.accumulate(tpr_v)
    i_hi = np.searchsorted(fpr_v, x + d0, side="right") - 1          # last vertex <= x + d0
    high = run_max[np.clip(i_hi, 0, None)] + d1
    i_lo = np.searchsorted(fpr_v, x - d0, side="left")               # first vertex >= x - d0
    low = tpr_v[np.clip(i_lo, None, tpr_v.size - 1)] - d1
    i_emp = np.searchsorted(fpr_v, x, side="right") - 1
    return pd.DataFrame({"fpr": x, "tpr": run_max[i_emp], "tpr_low": np.clip(low, 0, 1),
                         "tpr_high": np.clip(high, 0, 1)})


def plot_roc(res, ax, **kwargs):
    """Draw ``res`` (an :class:`~evalstats.holdout.AUCResult`) as an ROC curve with its band."""
    band = res.roc_band()
    pct = f"{100 * res.confidence_level:g}%"
    ax.fill_between(band["fpr"], band["tpr_low"], band["tpr_high"], alpha=0.25, color="C0",
                    lw=0, label=f"{pct} simultaneous band (KS, Campbell)")
    ax.plot(band["fpr"], band["tpr"], color="C0", lw=1.5, drawstyle="steps-post",
            label="empirical ROC", **kwargs)
    ax.plot([0, 1], [0, 1], ls=":", color="0.5", lw=1, label="chance (AUC = 0.5)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.01)
    ax.set_aspect("equal")
    ax.set_xlabel("false positive rate (1 − specificity)")
    ax.set_ylabel("true positive rate (sensitivity)")
    lo, hi = res.conf_int()
    ax.set_title(f"AUC = {res.estimate:.3f}, {pct} CI [{lo:.3f}, {hi:.3f}] (DeLong)")
    # the legend sits on an opaque box: the lower right is where the chance line runs
    ax.legend(loc="lower right", fontsize="small", frameon=True, framealpha=0.92,
              edgecolor="none")
    return ax
