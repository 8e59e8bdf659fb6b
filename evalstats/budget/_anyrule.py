r"""Half-widths that hold for *any* rule of a given size (not only random rules).

The paper's analysis (Section 3) treats the rule as random: its predictions on U are
independent of the labels. A real classifier is informative, and the plug-in mean shrinks
its unlabeled part toward the prevalence. Two guarantees hold for every rule:

* **Labeled positives, deterministic range** (strategy ``"positives"``). With the labels of
  L known and the pool prevalence known, the unknown count TP_U of any rule lies in the
  support of its possible values,
  :math:`[\max(0, a - |U_{O-}|), \min(a, |U_{O+}|)]` with :math:`a = |U_{R+}|`, a range of
  width :math:`W = \min(a, |U| - a, |U_{O+}|, |U_{O-}|)`; TN_U = |U_O-| - a + TP_U has the
  same width. So Pr, Se and Sp lie in known intervals of widths W/|S_R+|, W/|S_O+| and
  W/|S_O-| (notes §7.5; the paper's "Pr ∈ [TP_L, TP_L + min(|U_R+|, |U_O+|)]/|S_R+|"). The
  planner takes the worst case over the rule's unknown hits on L, TP_L ∈ [0, min(k, |S_R+|)],
  i.e. over a ∈ [|S_R+| - min(k, |S_R+|), |S_R+|]. No probability is involved; the
  midpoint is within W/(2D) of the truth with certainty.
* **Random labels, subset estimate** (strategy ``"random"``). With k labels drawn at random,
  the subset estimate TP_L/|L_R+| of any rule is a hypergeometric proportion among the
  m = |L_R+| labeled rule positives (|L_O+| for Se, |L_O-| for Sp); its half-width is taken
  at the worst case p = 1/2 (exact quantiles at p ∈ {0.4, ..., 0.6}, or Bernstein with
  the finite-population variance m p(1-p)(D-m)/(D-1)), and m at its lower δ_c quantile
  (the class counts of a random sample are random; δ_c = δ/20, union bound).
"""

from __future__ import annotations

import numpy as np

from ._bounds import Discrete, bernstein_count_halfwidth, discrete_ppf

#: share of δ spent on the random number of labeled examples in a denominator
COUNT_DELTA_SHARE = 0.05


def denominator_size(measure: str, n_pool: float, n_pos: float, n_rpos: float) -> float:
    """|S_R+| (precision), |S_O+| (sensitivity) or |S_O-| (specificity)."""
    return {"precision": n_rpos, "sensitivity": n_pos, "specificity": n_pool - n_pos}[measure]


def range_width(n_pool, n_pos, n_rpos, k, extra_pos=0.0):
    """Worst-case width W of the unknown count of any rule after ``k`` labeled positives.

    ``extra_pos`` widens the count of unlabeled positives (prevalence only known to within
    ``extra_pos`` examples).
    """
    k = np.asarray(k, float)
    u = n_pool - k
    u_pos = np.clip(n_pos + extra_pos, 0, n_pool) - k
    u_neg = n_pool - n_pos + extra_pos
    a_lo = np.maximum(n_rpos - np.minimum(k, n_rpos), 0.0)
    a = np.clip(u / 2.0, a_lo, n_rpos)
    return np.maximum(np.minimum.reduce([a, u - a, np.maximum(u_pos, 0.0),
                                         np.broadcast_to(u_neg, a.shape)]), 0.0)


def positives_halfwidth(measure: str, n_pool, n_pos, n_rpos, k, extra_pos=0.0):
    """Half-width of the deterministic range of ``measure`` after ``k`` labeled positives.

    With the prevalence known to ±``extra_pos`` examples, Se and Sp denominators are
    uncertain too; since the measures lie in [0, 1] this adds at most
    (D_hi - D_lo)/(2 D_lo) = extra_pos / D_lo.
    """
    w = range_width(n_pool, n_pos, n_rpos, k, extra_pos)
    d = denominator_size(measure, n_pool, n_pos, n_rpos)
    if measure == "precision":
        return w / (2.0 * d)
    d_lo = max(d - extra_pos, 1.0)
    return w / (2.0 * d_lo) + extra_pos / d_lo


def labeled_count_low(n_pool, d, k, delta_c):
    """Lower δ_c quantile of the labeled examples in a subpopulation of size ``d`` when
    ``k`` are drawn at random from ``n_pool`` (hypergeometric)."""
    k = np.asarray(k, float)
    ki = np.rint(k).astype(np.int64)
    m = np.full_like(ki, int(n_pool))
    dd = np.full_like(ki, int(round(d)))
    dist = Discrete("hypergeom", m, dd, ki)
    return discrete_ppf(dist, np.full(k.shape, delta_c), k * d / n_pool)


def subset_halfwidth(d, m, bound: str, delta):
    """Worst-case (over the unknown proportion) half-width of a proportion estimated from
    ``m`` examples drawn at random without replacement from a subpopulation of ``d``."""
    m = np.asarray(m, float)
    d = float(d)
    out = np.full(m.shape, np.inf)
    ok = m >= 1
    if not ok.any():
        return out
    mm = m[ok]
    if bound == "bernstein":
        v = mm * 0.25 * (d - mm) / max(d - 1.0, 1.0)
        out[ok] = bernstein_count_halfwidth(v, delta) / mm
        return out
    mi = np.rint(mm).astype(np.int64)
    worst = np.zeros(mm.shape)
    for p in (0.5, 0.45, 0.55, 0.4, 0.6):
        tp = int(round(p * d))
        dist = Discrete("hypergeom", np.full_like(mi, int(round(d))), np.full_like(mi, tp), mi)
        mean = mm * (tp / d)
        lo = discrete_ppf(dist, np.full(mm.shape, delta / 2.0), mean)
        hi = discrete_ppf(dist, np.full(mm.shape, 1.0 - delta / 2.0), mean)
        worst = np.maximum(worst, np.maximum(tp / d - lo / mm, hi / mm - tp / d))
    out[ok] = worst
    return out


def random_halfwidth(measure: str, n_pool, n_pos, n_rpos, k, bound: str, delta):
    """Half-width of the subset estimate of any rule after ``k`` random labels, with the
    labeled count of the denominator at its lower quantile (δ split by a union bound)."""
    d = denominator_size(measure, n_pool, n_pos, n_rpos)
    delta_c = COUNT_DELTA_SHARE * delta
    m = labeled_count_low(n_pool, d, k, delta_c)
    return np.minimum(subset_halfwidth(d, m, bound, delta - delta_c), 1.0)
