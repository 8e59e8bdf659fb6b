"""Rows of :func:`evalstats.budget.plan_labels` for plans that hold for *any* rule, in
labels to buy (search and prevalence sample included).

``a`` is the dict of normalised arguments built by ``_plan._plan_labels_iv``.
"""

from __future__ import annotations

import numpy as np

from ._anyrule import positives_halfwidth, random_halfwidth
from ._bounds import prevalence_sample_size
from ._ranges import prior_range
from ._scan import smallest_meeting
from ._search import random_search, score_search

#: candidate half-widths (in positives) of the prevalence sample of a deterministic plan
#: when the prevalence is only guessed: a geometric grid, the cheapest total is kept
N_PREVALENCE_CANDIDATES = 16


def delta_per_measure(a, delta: float, n_uncertain: int | None = None) -> float:
    """δ of one measure of one rule: the plan's δ shared by a union bound over the rules
    and, for a joint guarantee, over the requested measures (``n_uncertain`` of them when
    the others are known with certainty)."""
    n_measures = (len(a["pairs"]) if n_uncertain is None else max(n_uncertain, 1)) \
        if a["joint"] else 1
    return delta / (n_measures * a["n_rules"])


def search_cost(a, k, n_pos_search: float):
    """``(quantile, mean)`` labels to buy to find ``k`` positives (vectorised over k) in a
    pool of ``n_pos_search`` positives: score order with ``scores`` (labels conditioned on
    that total), random order otherwise."""
    if a["scores"] is not None:
        return score_search(a["scores"], k, a["level"], n_pos=int(round(n_pos_search)))
    return random_search(a["n_pool"], n_pos_search, k, a["level"])


def with_prevalence_sample(a, n_search, n_prev):
    """Labels to buy when a prevalence sample of ``n_prev`` is needed too: in random order
    its first ``n_prev`` labels are that sample; in score order it comes on top."""
    n_search = np.asarray(n_search, float)
    total = n_search + n_prev if a["scores"] is not None else np.maximum(n_search, n_prev)
    return np.minimum(total, a["n_pool"])


def _positives_needed(a, measure, target, p_lo, p_hi):
    """Fewest labeled positives meeting ``target`` (None: not even all ``p_lo``)."""
    def hw(k):
        return positives_halfwidth(measure, a["n_pool"], p_lo, p_hi, a["n_rpos"], k)

    k, achieved = smallest_meeting(hw, int(p_lo), target)
    return k, achieved


def _deterministic(a, p_lo, p_hi):
    """``[(label, measure, k, achieved)]`` of the deterministic plan over [p_lo, p_hi]."""
    out = []
    for label, m in a["pairs"]:
        k, achieved = _positives_needed(a, m, a["targets"][m], p_lo, p_hi)
        out.append((label, m, k, achieved))
    return out


def positives_rows(a) -> tuple[list[dict], tuple[int, int], int]:
    """Rows of the deterministic plan (labeled positives, any rule), its interval of the
    positive count and the size of its prevalence sample."""
    prev = a["prev"]
    delta = 1.0 - a["level"]
    if prev.kind == "guess":
        (p_lo, p_hi), n_prev = _guess_interval(a, delta)
    else:
        (p_lo, p_hi), n_prev = prev.interval(delta), 0
    rows = []
    for label, m, k, achieved in _deterministic(a, p_lo, p_hi):
        census = k is None
        kk = int(p_lo) if census else int(k)
        q, mean = search_cost(a, [kk], p_lo)
        n_tot = a["n_pool"] if census else int(with_prevalence_sample(a, q, n_prev)[0])
        n_mean = a["n_pool"] if census else float(with_prevalence_sample(a, mean, n_prev)[0])
        rows.append(dict(rules="any", measure=label, bound="deterministic",
                         strategy="positives", n_positive=kk, n_negative=n_tot - kk,
                         n_total=n_tot, n_total_mean=n_mean, n_prevalence=n_prev,
                         half_width=a["targets"][m],
                         achieved_half_width=0.0 if census else achieved, feasible=True,
                         paper_condition_holds=True, census=census))
    return rows, (int(p_lo), int(p_hi)), n_prev


def _guess_interval(a, delta):
    """Prevalence sample and interval for a deterministic plan when the prevalence is only
    a guess: the half-width (in positives) that minimises the labels to buy (chosen with
    the normal-approximation sample size, then sized exactly), or the user's
    ``prevalence_half_width``."""
    n, count = a["n_pool"], a["prev"].count
    if a["hp"] is not None:
        widths = [max(1.0, a["hp"] * n)]
    else:
        widths = np.unique(np.rint(np.geomspace(1.0, max(count, 1.0),
                                                N_PREVALENCE_CANDIDATES)))
    best = None
    for e in widths:
        p_lo, p_hi = max(1, int(count - e)), min(n - 1, int(count + e))
        ks = [k for _, _, k, _ in _deterministic(a, p_lo, p_hi)]
        n_prev = _normal_sample_size(count / n, e / n, delta, n)
        if any(k is None for k in ks):
            cost = float(n)
        else:
            q, _ = search_cost(a, [max(ks)], p_lo)
            cost = float(with_prevalence_sample(a, q, n_prev)[0])
        if best is None or cost < best[0]:
            best = (cost, (p_lo, p_hi), e)
    n_prev = prevalence_sample_size(count / n, best[2] / n, delta, "exact", n_pool=n)
    return best[1], int(n_prev)


def _normal_sample_size(p: float, h: float, delta: float, n_pool: int) -> int:
    """Cochran's normal sample size for a proportion with the finite-population
    correction, n0 / (1 + (n0 - 1)/N), n0 = z^2 p(1-p)/h^2."""
    from scipy import stats

    n0 = stats.norm.ppf(1 - delta / 2) ** 2 * p * (1 - p) / h ** 2
    return int(np.ceil(n0 / (1 + (n0 - 1) / n_pool)))


def random_setup(a):
    """``(p_lo, p_hi, feasibility, δ of the subset intervals)`` of the random-label plan:
    a pilot's interval takes half of δ; a guessed prevalence is a planning value only (no
    feasibility bounds)."""
    prev = a["prev"]
    delta = 1.0 - a["level"]
    if prev.kind == "guess":
        return prev.count, prev.count, False, delta
    if prev.kind == "pilot":
        lo, hi = prev.interval(delta / 2.0)
        return lo, hi, True, delta / 2.0
    lo, hi = prev.interval(delta)
    return lo, hi, True, delta


def _pinned(a, measure, p_lo, p_hi) -> bool:
    """Whether the feasibility range alone meets the measure's target (no label, no δ)."""
    lo, hi = prior_range(measure, a["n_pool"], p_lo, p_hi, a["n_rpos"])
    return bool((float(hi) - float(lo)) / 2.0 <= a["targets"][measure])


def random_rows(a, bound: str, expected=None) -> list[dict]:
    """Rows of the random-label plan (subset estimates, any rule) for ``bound``; with
    ``expected`` (measure -> planning value) at those values instead of the worst case."""
    p_lo, p_hi, feas, delta = random_setup(a)
    n, rate = a["n_pool"], a["prev"].count / a["n_pool"]
    pinned = [feas and _pinned(a, m, p_lo, p_hi) for _, m in a["pairs"]]
    d_each = delta_per_measure(a, delta, len(pinned) - sum(pinned))
    rows = []
    for label, m in a["pairs"]:
        e = None if expected is None else expected.get(m)

        def hw(k, m=m, e=e):
            return random_halfwidth(m, n, p_lo, p_hi, a["n_rpos"], k, bound, d_each,
                                    feasibility=feas, expected=e)

        k, achieved = smallest_meeting(hw, n, a["targets"][m])
        k = n if k is None else k
        n_p = int(round(k * rate))
        rows.append(dict(rules="any", measure=label, bound=bound, strategy="random",
                         n_positive=n_p, n_negative=int(k - n_p), n_total=int(k),
                         n_total_mean=float(k), n_prevalence=0,
                         half_width=a["targets"][m], achieved_half_width=achieved,
                         feasible=True, paper_condition_holds=True, census=k == n,
                         expected=np.nan if e is None else float(e)))
    return rows
