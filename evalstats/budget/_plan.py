"""Private pieces of :func:`evalstats.budget.plan_labels`: scans of label counts and
the closed-form equal-bound points of Section 3.3 (eqs 3.22-3.29)."""

from __future__ import annotations

import numpy as np

from ._bounds import PoolCounts, count_variance, measure_halfwidth, paper_form_valid

STRATEGIES = ("positives", "random")
PAIRS = ("precision-specificity", "sensitivity-specificity", "rule-rate-equals-prevalence")


def counts_after_labeling(n_pool: int, n_pos: int, n_rule_pos: float, k, strategy: str
                          ) -> PoolCounts:
    """Expected counts after ``k`` labels for a random rule (predictions independent of labels).

    ``"positives"``: the k labels are all positives (retrieved minority class);
    ``"random"``: k uniformly random labels (ε_S k positives in expectation).
    """
    k = np.asarray(k, float)
    prev, rate = n_pos / n_pool, n_rule_pos / n_pool
    if strategy == "positives":
        l_pos, l_neg = k, np.zeros_like(k)
    else:
        l_pos, l_neg = prev * k, (1.0 - prev) * k
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
        ok = np.flatnonzero(hw <= target)
        if ok.size == 0:
            if first:
                return None, float(hw[-1])
            return hi, float(halfwidth_of(np.array([hi]))[0])  # pragma: no cover
        j = int(ok[0])
        if j == 0 or grid[j] - grid[j - 1] == 1:
            return int(grid[j]), float(hw[j])
        lo, hi, first = int(grid[j - 1]) + 1, int(grid[j]), False


def plan_one(measure, bound, variance, strategy, n_pool, n_pos, n_rule_pos, target, delta):
    """Labels needed for one (measure, bound, strategy); a dict row of the plan table."""
    k_max = n_pos if strategy == "positives" else n_pool

    def hw(k):
        c = counts_after_labeling(n_pool, n_pos, n_rule_pos, k, strategy)
        return measure_halfwidth(measure, c, variance, bound, delta)

    k, achieved = smallest_meeting(hw, k_max, target)
    feasible = k is not None
    k_used = k if feasible else k_max
    c = counts_after_labeling(n_pool, n_pos, n_rule_pos, np.array([k_used]), strategy)
    eps_u = float((c.u_pos / c.u)[0]) if float(c.u[0]) > 0 else 0.0
    valid = True
    if bound == "bernstein_paper":
        valid = bool(paper_form_valid(count_variance(measure, c, variance), delta)[0])
    n_p = k_used if strategy == "positives" else int(round(k_used * n_pos / n_pool))
    return dict(measure=measure, bound=bound, strategy=strategy, n_positive=int(n_p),
                n_negative=int(k_used - n_p), n_total=int(k_used), target_half_width=target,
                achieved_half_width=achieved, alpha=eps_u / (n_pos / n_pool),
                feasible=feasible, paper_condition_holds=valid)


def halfwidth_curve(measure, bound, variance, n_pool, n_pos, n_rule_pos, delta, n_points=120):
    """(k, half-width) when k positives are labeled, k on a grid over [0, |S_O+|]."""
    k = np.unique(np.rint(np.linspace(0, n_pos, n_points)).astype(np.int64))
    c = counts_after_labeling(n_pool, n_pos, n_rule_pos, k, "positives")
    return k, measure_halfwidth(measure, c, variance, bound, delta)


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
