r"""Confidence intervals for active estimates of measures in [0, 1] (and unbounded risks).

``INTERVAL_METHODS`` (first = default of the without-replacement design):

* ``"wilson"`` — the Wilson score interval at the *effective sample size*
  ``n* = Ĝ(1 − Ĝ) / SE²`` (Korn & Graubard, Survey Methodology 24, 1998, use the same
  ``n*`` for a Clopper–Pearson interval under complex designs). It is asymmetric near the
  boundary and, when ``Ĝ`` is 0 or 1 (precision = 1, zero errors), still has positive width:
  ``n*`` is then the design's effective size ``n_eff`` — the ``n*`` a Bernoulli(Ĝ) label
  process would have under this design (``∞`` when every relevant item was labeled with
  certainty: the measure is then known exactly);
* ``"logit"`` — the delta method on the logit scale with ``ESS − 1`` df (the previous
  default of the with-replacement design); on the boundary it falls back to Wilson;
* ``"linear"`` — the papers' ``Ĝ ± t·SE`` clipped to [0, 1]; on the boundary with
  ``SE = 0`` it falls back to Wilson.

On the boundary (``Ĝ`` is 0 or 1, e.g. a ratio clipped to [0, 1]) ``n* = Ĝ(1 − Ĝ)/SE²``
is ``0/SE²`` and says nothing; every method then reports the union of the Wilson interval
at ``n_eff`` and the Wald interval ``Ĝ ± z·SE`` clipped to [0, 1], so that a large
standard error is never ignored: recall estimated from a sample that holds no false
negative is clipped to 1 while the unsampled low-``π`` items give it a large SE (on
``sim_rare`` at 500 labels, 26 of 300 runs had ``Ĝ = 1``, SE 0.6–0.8 and a Wilson-only
interval [0.74–0.88, 1] that missed the true 0.53).

An estimate within the design's resolution ``r = 1/n_eff`` of 0 or 1
(``Ĝ(1 − Ĝ) < r(1 − r)``) whose ``n*`` is below :data:`NEAR_EDGE_N` is treated as on the
boundary: ``n*`` goes to 0 there while the standard error, mostly the variance floor, does
not, and the Wilson interval at such an ``n*`` is nearly [0, 1] (precision 0.99998 with
SE 0.012 got [0.04, 1], the same pool with ``Ĝ = 1`` exactly [0.96, 1]; a perfect
classifier's accuracy 0.99992 got an upper limit below 1).

An estimate *within one standard error* of 0 or 1 (``min(Ĝ, 1 − Ĝ) < SE``: fewer than one
effective event, ``n*·min(Ĝ, 1 − Ĝ) < 1``) whose ``n*`` is below the design's ``n_eff``
gets the same boundary rule. ``n* < n_eff`` says the standard error is larger than the
design's Bernoulli labels at ``Ĝ`` give — the excess is the variance floor, the
anticipated variance of events the sample has not seen, which does not scale with ``Ĝ``
as a binomial variance does — and there the Wilson limit ``≈ z²·SE²/Ĝ`` grows without
bound as ``Ĝ → 0``. On ``tweets_rare`` (4 true positives among 2,440 predicted
positives) F1 0.0024 with SE 0.011 from 500 labels (1 true positive among ~440 labeled
predicted positives) got ``[0.000, 0.175]``; the boundary rule gives ``[0, 0.025]``. Where
``n* ≥ n_eff`` (a binomial-like s.e., e.g. 1 event in 100 simple random labels) the
Wilson interval is kept. Measured (``benchmarks/active_edge_rule.py``: 200 runs per pool,
ten benchmark pools, four measures, 200/500/1000 labels, the same estimates under both
rules): 8.6 % of the intervals changed; mean width ÷ previous 0.14–1.04 over the 35 cells
with a change (tweets_rare F1 at 500 labels 0.086 → 0.027, kdd_rare accuracy 0.097 →
0.013, letter_rare accuracy at 200 0.078 → 0.032); coverage rose in four cells and fell in
one by one run (sim_rare precision at 200 labels, 0.995 → 0.990).

Unbounded measures (squared loss) always get the linear t interval.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import special

from .._result import ConfidenceInterval, critical_value

__all__ = ["INTERVAL_METHODS", "interval", "wilson"]

INTERVAL_METHODS = ("wilson", "logit", "linear")

#: an estimate next to 0 or 1 with fewer effective observations ``n*`` than this is treated
#: as on the boundary (the Wilson interval at ``n* < z²`` is nearly [0, 1])
NEAR_EDGE_N = 10.0

#: half-width of the interval of a measure the design has observed exactly (every relevant
#: item labeled with certainty): only floating-point rounding of the sums is left
EXACT_TOL = 1e-9


def wilson(p: float, n: float, z: float) -> ConfidenceInterval:
    """Wilson score interval for a proportion ``p`` at sample size ``n`` (may be non-integer)."""
    if not np.isfinite(n):            # known exactly, up to floating-point rounding
        return ConfidenceInterval(max(float(p) - EXACT_TOL, 0.0), min(float(p) + EXACT_TOL, 1.0))
    if n <= 0:
        return ConfidenceInterval(0.0, 1.0)
    z2n = z * z / n
    centre = (p + z2n / 2.0) / (1.0 + z2n)
    half = z / (1.0 + z2n) * np.sqrt(max(p * (1.0 - p), 0.0) / n + z2n / (4.0 * n))
    lo, hi = max(centre - half, 0.0), min(centre + half, 1.0)
    # exact boundary values (the closed form gives 1 − 1e-16 at p = 1)
    return ConfidenceInterval(0.0 if p <= 0 else float(lo), 1.0 if p >= 1 else float(hi))


def interval(est: float, se: float, *, bounded: bool, level: float, method: str,
             n_eff: float, ess: float = float("nan"), df: float | None = None,
             vacuous: bool = False, se_low: float | None = None,
             se_high: float | None = None,
             reach: Sequence[tuple[float, float]] = ()) -> ConfidenceInterval:
    """The interval for ``est`` with standard error ``se`` (see the module docstring).

    ``se_low`` / ``se_high`` (default ``se``): the standard errors of the lower and the
    upper side (the without-replacement design puts each prediction group's variance
    floor on the side where labels it has not seen would move the measure); each limit is
    the one-sided limit of the method at its own standard error.

    An undefined bounded estimate whose sample carries no information on it (``vacuous``:
    no labeled item entered its estimated denominator, e.g. recall with no positive seen)
    gets the whole range ``[0, 1]`` — what an exact interval from zero relevant trials
    says; any other undefined estimate gets ``(nan, nan)``.

    ``n_eff`` is the design's effective size used on the boundary (or when ``se = 0``);
    ``ess`` the Kish effective sample size for the logit interval's degrees of freedom;
    ``df`` the degrees of freedom of the critical value (``None``: normal).

    ``reach``: pairs ``(G̃, σ)`` — where a model of the never-labeled items puts the measure
    and the spread of their labels (:meth:`._ht.DesignSample.estimate` in the rare-event
    regime); the interval is widened to hold each ``G̃ ± z σ`` (normal ``z`` at ``level``).
    """
    ci = _interval(est, se, bounded=bounded, level=level, method=method, n_eff=n_eff,
                   ess=ess, df=df, vacuous=vacuous, se_low=se_low, se_high=se_high)
    if reach and np.isfinite(ci.low) and np.isfinite(ci.high):
        z = critical_value(level)
        lo = min([ci.low] + [g - z * s for g, s in reach])
        hi = max([ci.high] + [g + z * s for g, s in reach])
        if bounded:
            lo, hi = max(lo, 0.0), min(hi, 1.0)
        ci = ConfidenceInterval(float(lo), float(hi))
    return ci


def _interval(est: float, se: float, *, bounded: bool, level: float, method: str,
              n_eff: float, ess: float, df: float | None, vacuous: bool,
              se_low: float | None, se_high: float | None) -> ConfidenceInterval:
    """:func:`interval` before the model's reach."""
    if not np.isfinite(est):
        if vacuous and bounded:
            return ConfidenceInterval(0.0, 1.0)
        return ConfidenceInterval(float("nan"), float("nan"))
    z = critical_value(level, df)
    if not bounded:
        if not np.isfinite(se):
            return ConfidenceInterval(float("nan"), float("nan"))
        return ConfidenceInterval(float(est - z * se), float(est + z * se))
    s_lo = se if se_low is None or not np.isfinite(se_low) else se_low
    s_hi = se if se_high is None or not np.isfinite(se_high) else se_high
    # within the design's resolution r = 1/n_eff of 0 or 1, with fewer than NEAR_EDGE_N
    # effective observations, the estimate is treated as on the boundary: n* = Ĝ(1 − Ĝ)/SE²
    # goes to 0 there while the s.e. (a variance floor) does not (precision 0.99998 with
    # SE 0.012 got [0.04, 1], exactly 1 got [0.96, 1]; a perfect classifier's accuracy
    # 0.99992 got an upper limit below 1)
    r = 1.0 / n_eff if np.isfinite(n_eff) and n_eff > 1.0 else 0.0
    spread = est * (1.0 - est)
    # within one s.e. of 0 or 1 (fewer than one effective event) with an s.e. larger than
    # the design's Bernoulli labels give (n* < n_eff: a floor of unseen events), likewise:
    # there the Wilson limit ≈ z²·SE²/Ĝ grows without bound as Ĝ → 0 (tweets_rare F1 0.0024,
    # SE 0.011: [0.000, 0.175]; the boundary rule: [0, 0.025])
    s_max = max(s_lo, s_hi)
    near_edge = ((spread < r * (1.0 - r) and spread < NEAR_EDGE_N * s_max ** 2)
                 or (min(est, 1.0 - est) < s_max and spread < n_eff * s_max ** 2))
    interior = 0.0 < est < 1.0 and np.isfinite(se) and se > 0 and not near_edge
    if not interior:
        p = min(max(est, 0.0), 1.0)
        lo, hi = wilson(p, n_eff, critical_value(level))
        if np.isfinite(se) and se > 0:      # a standard error is never ignored
            lo, hi = min(lo, max(p - z * s_lo, 0.0)), max(hi, min(p + z * s_hi, 1.0))
        return ConfidenceInterval(float(lo), float(hi))
    if method == "wilson":
        def n_star(s: float) -> float:
            return est * (1.0 - est) / s ** 2 if s > 0 else float("inf")
        return ConfidenceInterval(wilson(est, n_star(s_lo), z).low,
                                  wilson(est, n_star(s_hi), z).high)
    if method == "logit":
        t = critical_value(level, max(ess - 1.0, 1.0) if np.isfinite(ess) else df)
        centre = np.log(est) - np.log1p(-est)
        return ConfidenceInterval(float(special.expit(centre - t * s_lo / (est * (1.0 - est)))),
                                  float(special.expit(centre + t * s_hi / (est * (1.0 - est)))))
    return ConfidenceInterval(float(max(est - z * s_lo, 0.0)), float(min(est + z * s_hi, 1.0)))
