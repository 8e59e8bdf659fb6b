"""Private pieces of :func:`evalstats.budget.plan_labels`: scans of label counts and
the closed-form equal-bound points of Section 3.3 (eqs 3.22-3.29)."""

from __future__ import annotations

import numpy as np

from ._bounds import PoolCounts, count_variance, measure_halfwidth, paper_form_valid

STRATEGIES = ("positives", "random")
#: widest central range of the rule's unlabeled hits scanned count by count (wider ranges
#: are in the continuous regime, where the half-width follows the variance peak)
MAX_HITS_SCAN = 40
PAIRS = ("precision-specificity", "sensitivity-specificity", "rule-rate-equals-prevalence")


def counts_after_labeling(n_pool: int, n_pos: int, n_rule_pos: float, k, strategy: str,
                          l_pos=None) -> PoolCounts:
    """Counts after ``k`` labels for a random rule (predictions independent of labels).

    ``"positives"``: the k labels are all positives (retrieved minority class);
    ``"random"``: k uniformly random labels, of which ``l_pos`` are positive (default
    their expectation ε_S k; the planner passes a lower quantile, see :func:`plan_one`).
    """
    k = np.asarray(k, float)
    prev, rate = n_pos / n_pool, n_rule_pos / n_pool
    if strategy == "positives":
        l_pos, l_neg = k, np.zeros_like(k)
    else:
        l_pos = prev * k if l_pos is None else np.asarray(l_pos, float)
        l_neg = k - l_pos
    s = np.full_like(k, float(n_pool))
    return PoolCounts(s=s, s_pos=np.full_like(k, float(n_pos)),
                      s_rpos=np.full_like(k, float(n_rule_pos)), l_pos=l_pos, l_neg=l_neg,
                      tp_l=rate * l_pos, fp_l=rate * l_neg)


def smallest_meeting(halfwidth_of, k_max: int, target: float, n_grid: int = 48):
    """Smallest integer k in [0, k_max] with ``halfwidth_of(k) <= target``.

    Scans a grid of ``n_grid`` points, then refines the bracket before the first grid hit
    the same way down to single integers (the exact hypergeometric half-width is not
    monotone in k, only nearly so). Because the first hit of every scan moves left when
    ``target`` grows, the result never decreases when ``target`` decreases. Returns
    ``(k, half_width)`` or ``(None, half_width at k_max)`` when even ``k_max`` fails.
    """
    lo, hi = 0, int(k_max)
    first = True
    while True:
        grid = np.unique(np.rint(np.linspace(lo, hi, min(n_grid, hi - lo + 1))).astype(np.int64))
        hw = halfwidth_of(grid)
        ok = np.flatnonzero(hw <= target * (1 + 1e-12))  # exact ties despite rounding
        if ok.size == 0:
            if first:
                return None, float(hw[-1])
            return hi, float(halfwidth_of(np.array([hi]))[0])  # pragma: no cover
        j = int(ok[0])
        if j == 0 or grid[j] - grid[j - 1] == 1:
            return int(grid[j]), float(hw[j])
        lo, hi, first = int(grid[j - 1]) + 1, int(grid[j]), False


def random_rule_halfwidth(measure, bound, variance, strategy, n_pool, n_pos, n_rule_pos,
                          k, delta, prevalence_error=0.0):
    """Half-width of the plug-in mean of a random rule after ``k`` labels.

    Strategy ``"random"``: the number of labeled positives is itself random
    (hypergeometric); it is set to the worst point of the range above its lower δ_c
    quantile (δ_c = ``COUNT_DELTA_SHARE`` δ, union bound): that quantile while
    ε_O+(U) < 1/2 there (fewer labeled positives, larger error), else the count with
    ε_O+(U) = 1/2, where the variance of the unknown count peaks (near full labeling).
    Bound ``"exact"``: the rule's positives among the unlabeled, |U_R+| ~
    Hypergeometric(|S|, |S_R+|, |U|) for a random rule, are taken at the value of their
    central 1 - δ_c range that gives the largest half-width instead of their expectation:
    every value of a range of at most :data:`MAX_HITS_SCAN` counts (the exact discrete
    half-width is not monotone in |U_R+|; with the worst point of nested ranges the
    half-width never shrinks when δ does), else the seven counts around the variance peak
    |U|/2; the Bernstein rows keep the paper's expectation.
    ``prevalence_error`` (a half-width of the estimated pool prevalence) adds
    |U_R±| |S| h_p / (|U| D) to the count half-width / D, because the plug-in mean uses the
    estimated ε_O+(U) = (|S| ε̂ - |L_O+|)/|U|, and for recall and specificity, whose
    denominators |S| ε̂ and |S|(1 - ε̂) are estimated too, h_p/(ε - h_p) or
    h_p/(1 - ε - h_p) (the measure is at most 1).
    """
    from ._anyrule import COUNT_DELTA_SHARE, labeled_count_low

    k = np.asarray(k, float)
    l_pos = None
    if strategy == "random":
        d_c = COUNT_DELTA_SHARE * delta
        # with probability >= 1 - δ_c the labeled positives lie in [low quantile, min(k,
        # |S_O+|)]; the count variance peaks where ε_O+(U) = 1/2, so the worst point of
        # that range is the peak clipped into it (a wider range at a smaller δ contains
        # the narrower one: the half-width never shrinks when the confidence grows; for
        # the exact rows up to the discreteness of their quantiles: no inversion left in
        # a 216-case scan, tests/test_budget_plan.py)
        top = np.minimum(k, float(n_pos))
        peak = n_pos - (n_pool - k) / 2.0
        l_pos = np.clip(np.rint(peak), labeled_count_low(n_pool, n_pos, k, d_c), top)
        delta = delta - d_c
    c = counts_after_labeling(n_pool, n_pos, n_rule_pos, k, strategy, l_pos)
    if bound != "exact":
        return _with_prevalence_error(measure, measure_halfwidth(measure, c, variance, bound,
                                                                 delta),
                                      c, n_pool, n_pos, prevalence_error), c
    d_r = COUNT_DELTA_SHARE * delta
    lo, hi = _rule_hits_range(c, d_r)
    peak = np.clip(np.asarray(c.u, float) / 2.0, lo, hi)
    span = int(np.max(hi - lo)) if lo.size else 0
    if span <= MAX_HITS_SCAN:        # every count of the range: exactly the worst point
        cand = np.minimum(lo[:, None] + np.arange(span + 1), hi[:, None])
    else:                            # continuous regime: around the variance peak
        cand = np.clip(np.rint(peak)[:, None] + np.arange(-3, 4), lo[:, None], hi[:, None])
    shape = cand.shape
    wide = PoolCounts(**{f: np.repeat(np.asarray(getattr(c, f), float), shape[1])
                         for f in PoolCounts.__dataclass_fields__})
    wide = _with_rule_hits(wide, cand.ravel())
    hw = _with_prevalence_error(measure, measure_halfwidth(measure, wide, variance, bound,
                                                           delta - d_r),
                                wide, n_pool, n_pos, prevalence_error)
    return hw.reshape(shape).max(axis=1), _with_rule_hits(c, peak)


def _with_prevalence_error(measure, hw, c: PoolCounts, n_pool, n_pos, prevalence_error):
    """Add the error of an estimated pool prevalence (see :func:`random_rule_halfwidth`)."""
    if not prevalence_error:
        return hw
    u_r = c.u_rneg if measure == "specificity" else c.u_rpos
    hw = hw + u_r * n_pool * prevalence_error / np.maximum(c.u * c.denominator(measure),
                                                          1e-300)
    if measure != "precision":  # the denominator |S_O+| or |S_O-| is estimated too
        share = n_pos / n_pool if measure == "sensitivity" else 1.0 - n_pos / n_pool
        hw = hw + prevalence_error / max(share - prevalence_error, 1e-12)
    return hw


def _rule_hits_range(c: PoolCounts, delta_r):
    """Central 1 - δ_r range of |U_R+| for a random rule: Hypergeometric(|S|, |S_R+|, |U|)."""
    from ._bounds import Discrete, discrete_ppf

    u = np.rint(np.asarray(c.u, float)).astype(np.int64)
    s = np.rint(np.asarray(c.s, float)).astype(np.int64)
    rpos = np.rint(np.asarray(c.s_rpos, float)).astype(np.int64)
    law = Discrete("hypergeom", s, rpos, u)
    mean = u * (rpos / np.maximum(s, 1))
    return (discrete_ppf(law, np.full(u.shape, delta_r / 2.0), mean),
            discrete_ppf(law, np.full(u.shape, 1.0 - delta_r / 2.0), mean))


def _with_rule_hits(c: PoolCounts, a) -> PoolCounts:
    """Counts with |U_R+| = ``a``; the rule's hits on L split between labeled positives
    and negatives in proportion."""
    hits = np.asarray(c.s_rpos, float) - a
    lab = np.asarray(c.l_pos + c.l_neg, float)
    share = np.divide(c.l_pos, lab, out=np.zeros_like(lab), where=lab > 0)
    return PoolCounts(s=c.s, s_pos=c.s_pos, s_rpos=c.s_rpos, l_pos=c.l_pos, l_neg=c.l_neg,
                      tp_l=np.minimum(hits * share, c.l_pos),
                      fp_l=np.minimum(hits * (1 - share), c.l_neg))


def plan_one(measure, bound, variance, strategy, n_pool, n_pos, n_rule_pos, target, delta,
             prevalence_error=0.0):
    """Labels needed for one (measure, bound, strategy) and a random rule; a table row."""
    k_max = n_pos if strategy == "positives" else n_pool

    def hw(k):
        return random_rule_halfwidth(measure, bound, variance, strategy, n_pool, n_pos,
                                     n_rule_pos, k, delta, prevalence_error)[0]

    k, achieved = smallest_meeting(hw, k_max, target)
    feasible = k is not None
    k_used = k if feasible else k_max
    _, c = random_rule_halfwidth(measure, bound, variance, strategy, n_pool, n_pos,
                                 n_rule_pos, np.array([k_used]), delta, prevalence_error)
    valid = True
    if bound == "bernstein_paper":
        valid = bool(paper_form_valid(count_variance(measure, c, variance), delta)[0])
    n_p = k_used if strategy == "positives" else int(round(k_used * n_pos / n_pool))
    return dict(rules="random", measure=measure, bound=bound, strategy=strategy,
                n_positive=int(n_p), n_negative=int(k_used - n_p), n_total=int(k_used),
                half_width=target, achieved_half_width=achieved, feasible=feasible,
                paper_condition_holds=valid)


def halfwidth_curve(measure, n_pool, n_pos, n_rule_pos, delta, variance, k_max,
                    p_range=None, n_points=120):
    """Half-width against positives labeled: any rule (deterministic range, the positive
    count in ``p_range``, default exactly ``n_pos``) and random rule (each bound of the
    random-rule analysis), k on a grid over [0, k_max]."""
    from ._ranges import worst_halfwidth

    p_lo, p_hi = (n_pos, n_pos) if p_range is None else p_range
    k = np.unique(np.rint(np.linspace(0, k_max, n_points)).astype(np.int64))
    out = [dict(rules="any", bound="deterministic", n_positive=k,
                half_width=worst_halfwidth(measure, n_pool, p_lo, p_hi, n_rule_pos, k))]
    for b in ("exact", "bernstein"):
        c = counts_after_labeling(n_pool, n_pos, n_rule_pos, k, "positives")
        out.append(dict(rules="random", bound=b, n_positive=k,
                        half_width=measure_halfwidth(measure, c, variance, b, delta)))
    return out


# -- equal-bound points (Section 3.3) -----------------------------------------------------
def balance_eps(prevalence, rule_rate, pair: str, cost_ratio=1.0):
    r"""ε_O+(U) at which two small-budget bounds (3.19)-(3.21) are equal.

    With variance-scale costs (Section 3.4) :math:`C_a B_a^2 = C_{sp} B_{sp}^2` and
    ``cost_ratio`` :math:`c = C_{sp}/C_a`:

    * precision-specificity (3.22): :math:`ε^* = cA/((1-ε_S)^3 + cA)`,
      :math:`A = ε_{R+}ε_{R-}ε_S`;
    * sensitivity-specificity (3.25): :math:`ε^* = cB/(cB + ε_{R+}(1-ε_S)^3)`,
      :math:`B = ε_S^3 ε_{R-}`;
    * rule-rate-equals-prevalence (3.29), ε_R+ = ε_S, both reduce to
      :math:`ε^* = cε_S^2/(cε_S^2 + (1-ε_S)^2)` (``rule_rate`` is ignored).
    """
    es, er, c = (np.asarray(x, float) for x in (prevalence, rule_rate, cost_ratio))
    if pair == "precision-specificity":
        a = c * er * (1 - er) * es
        return a / ((1 - es) ** 3 + a)
    if pair == "sensitivity-specificity":
        b = c * es ** 3 * (1 - er)
        return b / (b + er * (1 - es) ** 3)
    return c * es ** 2 / (c * es ** 2 + (1 - es) ** 2)


def positives_for_eps(n_pool: int, prevalence: float, n_labels: int, eps_u):
    """Eq 3.23: |L_O+| = min(|L|, [|S| ε_S - |U| ε_O+(U)]_+), |U| = |S| - |L|."""
    u = n_pool - n_labels
    return np.minimum(n_labels, np.maximum(n_pool * prevalence - u * np.asarray(eps_u), 0.0))
