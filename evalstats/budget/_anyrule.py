r"""Half-widths that hold for *any* rule of a given size (not only random rules).

The paper's analysis (Section 3) treats the rule as random: its predictions on U are
independent of the labels. A real classifier is informative, and the plug-in mean shrinks
its unlabeled part toward the prevalence. Two guarantees hold for every rule:

* **Labeled positives, deterministic range** (strategy ``"positives"``): with the labels
  of L known and the positive count of the pool in a known interval, every measure of
  every rule lies in the range of :mod:`evalstats.budget._ranges`; the planner takes its
  worst case over the rule's hits on the labeled positives. No probability is involved
  beyond that of the interval (a pilot's).
* **Random labels, subset estimate** (strategy ``"random"``): with ``k`` labels drawn at
  random, the subset estimate TP_L/|L_R+| of any rule is a hypergeometric proportion among
  the ``m`` labeled members of the measure's denominator (|L_R+| for precision, |L_O+| for
  recall, |L_O-| for specificity). Its half-width is taken at the worst proportion inside
  the measure's feasibility range (the range before any label, e.g. precision at most
  P/|S_R+|; exact quantiles at the candidates of :data:`WORST_P`, clipped into it, or
  Bernstein with the finite-population variance m p(1-p)(D-m)/(D-1) at the point nearest
  1/2), or at a planning value when one is given; and ``m`` at its lower δ_c quantile
  (the class counts of a random sample are random; δ_c = δ/20, union bound). The reported
  interval is the subset interval intersected with the feasibility range, so a measure
  whose range is already narrow enough needs no label.
"""

from __future__ import annotations

import numpy as np

from ._bounds import Discrete, bernstein_count_halfwidth, discrete_ppf
from ._ranges import prior_range, worst_halfwidth

#: share of δ spent on the random number of labeled examples in a denominator
COUNT_DELTA_SHARE = 0.05
#: proportions at which the exact half-width of a subset estimate is evaluated for its
#: worst case (the exact half-width peaks near 1/2, not always at it, by discreteness)
WORST_P = (0.5, 0.45, 0.55, 0.4, 0.6)


def denominator_size(measure: str, n_pool: float, n_pos: float, n_rpos: float) -> float:
    """|S_R+| (precision), |S_O+| (sensitivity) or |S_O-| (specificity)."""
    return {"precision": n_rpos, "sensitivity": n_pos, "specificity": n_pool - n_pos}[measure]


def positives_halfwidth(measure: str, n_pool, p_lo, p_hi, n_rpos, k):
    """Worst-case half-width of the deterministic range after ``k`` labeled positives, the
    pool's positive count in ``[p_lo, p_hi]``."""
    return worst_halfwidth(measure, n_pool, p_lo, p_hi, n_rpos, k)


def labeled_count_low(n_pool, d, k, delta_c):
    """Lower δ_c quantile of the labeled examples in a subpopulation of size ``d`` when
    ``k`` are drawn at random from ``n_pool`` (hypergeometric)."""
    k = np.asarray(k, float)
    ki = np.rint(k).astype(np.int64)
    m = np.full_like(ki, int(n_pool))
    dd = np.full_like(ki, int(round(d)))
    dist = Discrete("hypergeom", m, dd, ki)
    return discrete_ppf(dist, np.full(k.shape, delta_c), k * d / n_pool)


def subset_halfwidth(d, m, bound: str, delta, p_range=(0.0, 1.0), expected=None):
    """Half-width of a proportion estimated from ``m`` examples drawn at random without
    replacement from a subpopulation of ``d``: worst case over proportions in ``p_range``,
    or at the planning value ``expected``."""
    m = np.asarray(m, float)
    d = float(d)
    out = np.full(m.shape, np.inf)
    ok = m >= 1
    if not ok.any():
        return out
    mm = m[ok]
    lo, hi = (float(v) for v in p_range)
    if bound == "bernstein":
        p = float(np.clip(0.5, lo, hi)) if expected is None else float(expected)
        v = mm * p * (1 - p) * (d - mm) / max(d - 1.0, 1.0)
        out[ok] = bernstein_count_halfwidth(v, delta) / mm
        return out
    cands = np.unique(np.clip(WORST_P, lo, hi)) if expected is None else [float(expected)]
    mi = np.rint(mm).astype(np.int64)
    worst = np.zeros(mm.shape)
    for p in cands:
        tp = int(round(p * d))
        dist = Discrete("hypergeom", np.full_like(mi, int(round(d))), np.full_like(mi, tp), mi)
        mean = mm * (tp / d)
        q_lo = discrete_ppf(dist, np.full(mm.shape, delta / 2.0), mean)
        q_hi = discrete_ppf(dist, np.full(mm.shape, 1.0 - delta / 2.0), mean)
        worst = np.maximum(worst, np.maximum(tp / d - q_lo / mm, q_hi / mm - tp / d))
    out[ok] = worst
    return out


def smallest_denominator(measure: str, n_pool, p_lo, p_hi, n_rpos) -> float:
    """Size of the measure's denominator in the pool, at the end of the positive-count
    interval where it is smallest: random labels then hold the fewest of its members, and
    the half-width, about z sqrt(p(1-p)(1 - k/|S|)/(k D/|S|)), is largest."""
    if measure == "precision":
        return float(n_rpos)
    if measure == "sensitivity":
        return float(p_lo)
    return float(n_pool - p_hi)


def random_halfwidth(measure: str, n_pool, p_lo, p_hi, n_rpos, k, bound: str, delta,
                     feasibility: bool = True, expected=None):
    """Half-width of the subset estimate of any rule after ``k`` random labels, with the
    labeled count of the denominator at its lower quantile (δ split by a union bound),
    intersected with the feasibility range when ``feasibility``."""
    d = smallest_denominator(measure, n_pool, p_lo, p_hi, n_rpos)
    delta_c = COUNT_DELTA_SHARE * delta
    m = labeled_count_low(n_pool, d, k, delta_c)
    p_range = (0.0, 1.0)
    if feasibility:
        lo, hi = (float(v) for v in prior_range(measure, n_pool, p_lo, p_hi, n_rpos))
        p_range = (lo, hi)
    hw = np.minimum(subset_halfwidth(d, m, bound, delta - delta_c, p_range, expected), 1.0)
    if feasibility:
        hw = np.minimum(hw, (p_range[1] - p_range[0]) / 2.0)
    return hw
