r"""Deterministic ranges of precision, recall and specificity for *any* rule.

A pool of ``n`` examples holds ``P`` positives, known only to lie in ``[p_lo, p_hi]``.
``k_pos`` positives and ``k_neg`` negatives are labeled; a rule flags ``r`` examples of
the pool, ``t`` of the labeled positives and ``f`` of the labeled negatives, hence
``a = r - t - f`` unlabeled ones. Its unlabeled true positives ``x`` can be any count
consistent with the margins of the unlabeled set,
:math:`\max(0, a - U_{O-}) \le x \le \min(a, U_{O+})` with :math:`U_{O+} = P - k_{pos}`
and :math:`U_{O-} = n - k_{neg} - P`. Each measure is then confined to the range of its
values over every such ``(P, x)``:

* precision :math:`(t + x)/r`;
* recall :math:`(t + x)/P`;
* specificity :math:`1 - (f + a - x)/(n - P)`.

For fixed ``P`` the extremes are at ``x_min(P)`` or ``x_max(P)``; as functions of ``P``
these are linear-fractional on the two pieces cut at :math:`P = n - k_{neg} - a`
(where ``x_min`` leaves 0) and :math:`P = a + k_{pos}` (where ``x_max`` leaves ``a``),
hence monotone on each piece, so the range over the interval is attained at ``p_lo``,
``p_hi`` or a breakpoint (derived here; checked against enumeration of every labeling of a
small pool in ``tests/test_budget_ranges.py``). No probability is involved: the truth lies
in the range with certainty whenever the positive count lies in ``[p_lo, p_hi]``.

The planner needs the worst case over rules of size ``r``: with ``k`` labeled positives
(and no labeled negatives: labeling more examples only removes labelings of the pool
consistent with what is known, so it never widens a range) the rule's hits ``t`` on them
range over :math:`[\max(0, r - (n - k)), \min(k, r)]`. In ``a = r - t`` the half-width of
each measure is, between the breakpoints :math:`a \in \{p_{lo} - k, p_{hi} - k,
n - p_{hi}, n - p_{lo}\}`, linear (precision, specificity) or a sum of convex terms
(recall: :math:`r/(a + k)` and :math:`-t/(n - r + t)`), so its maximum is at a breakpoint
or an end of the range of ``t``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["measure_range", "worst_halfwidth", "prior_range"]


def _f(x):
    return np.asarray(x, float)


def _x_bounds(n, p, a, k_pos, k_neg):
    """Smallest and largest unlabeled true-positive count of a rule at positive count p."""
    return np.maximum(0.0, a - (n - k_neg - p)), np.minimum(a, p - k_pos)


def measure_range(measure: str, n, p_lo, p_hi, r, k_pos=0, k_neg=0, t=0, f=0):
    """``(low, high)`` of ``measure`` over every pool labeling consistent with the counts.

    All arguments broadcast. ``p_lo``/``p_hi`` are clipped to the positive counts the
    labeled set allows, ``[k_pos, n - k_neg]``.
    """
    n, r, k_pos, k_neg, t, f = (_f(v) for v in (n, r, k_pos, k_neg, t, f))
    p_lo = np.clip(_f(p_lo), k_pos, n - k_neg)
    p_hi = np.clip(_f(p_hi), p_lo, n - k_neg)
    a = r - t - f
    if measure == "precision":
        lo = (t + _x_bounds(n, p_lo, a, k_pos, k_neg)[0]) / r
        hi = (t + _x_bounds(n, p_hi, a, k_pos, k_neg)[1]) / r
        return lo, hi
    cands = [p_lo, p_hi, np.clip(n - k_neg - a, p_lo, p_hi), np.clip(a + k_pos, p_lo, p_hi)]
    lows, highs = [], []
    for p in cands:
        x_lo, x_hi = _x_bounds(n, p, a, k_pos, k_neg)
        if measure == "sensitivity":
            pp = np.maximum(p, 1e-300)
            lows.append((t + x_lo) / pp)
            highs.append((t + x_hi) / pp)
        else:
            neg = np.maximum(n - p, 1e-300)
            lows.append(1.0 - (f + a - x_lo) / neg)
            highs.append(1.0 - (f + a - x_hi) / neg)
    return np.minimum.reduce(lows), np.maximum.reduce(highs)


def prior_range(measure: str, n, p_lo, p_hi, r):
    """Range of ``measure`` for any rule of size ``r`` before any label (the feasibility
    bounds: e.g. precision at most ``p_hi / r``)."""
    return measure_range(measure, n, p_lo, p_hi, r)


def worst_halfwidth(measure: str, n, p_lo, p_hi, r, k):
    """Largest half-width of the range of ``measure`` over rules of size ``r`` after ``k``
    labeled positives (vectorised over ``k``), the positive count in ``[p_lo, p_hi]``."""
    k = np.atleast_1d(_f(k))
    n, p_lo, p_hi, r = (float(v) for v in (n, p_lo, p_hi, r))
    t_lo = np.maximum(0.0, r - (n - k))
    t_hi = np.minimum(k, r)
    a_pts = np.stack([np.full_like(k, p_lo) - k, np.full_like(k, p_hi) - k,
                      np.full_like(k, n - p_hi), np.full_like(k, n - p_lo)], axis=1)
    t_pts = np.concatenate([t_lo[:, None], t_hi[:, None], r - a_pts, r - a_pts - 1,
                            r - a_pts + 1], axis=1)
    t_pts = np.clip(np.rint(t_pts), t_lo[:, None], t_hi[:, None])
    kk = np.broadcast_to(k[:, None], t_pts.shape)
    lo, hi = measure_range(measure, n, p_lo, p_hi, r, k_pos=kk, t=t_pts)
    return np.max(hi - lo, axis=1) / 2.0
