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

**Estimates next to 0 or 1.** An interior estimate is moved toward the boundary rule by a
weight ``w`` (:func:`boundary_weight`); each limit is ``w·(boundary rule) + (1 − w)·(the
method's limit)``, so the interval holds its estimate. ``w`` is 1:

* within the design's resolution ``r = 1/n_eff`` of 0 or 1 (``Ĝ(1 − Ĝ) < r(1 − r)``)
  with ``n*`` below :data:`NEAR_EDGE_N` (a threshold, as before this weight): ``n*`` goes
  to 0 there while the standard error, mostly the variance floor, does not, and the
  Wilson interval at such an ``n*`` is nearly [0, 1] (precision 0.99998 with SE 0.012 got
  [0.04, 1], the same pool with ``Ĝ = 1`` exactly [0.96, 1]; a perfect classifier's
  accuracy 0.99992 got an upper limit below 1);
* within half an s.e. of 0 or 1 (ramping to 0 at one s.e.) where the variance floor is ≥ 95
  % of the far side's variance (``φ = 1 − SE_L²/SE_far²``, ``SE_L`` the s.e. from the
  labeled items alone; ramping to 0 at 85 %), if ``n* < n_eff``. The without-replacement
  design adds to each side's variance a floor for labels the sample has not seen
  (:mod:`._ht`); it does not scale with ``G(1 − G)`` as a binomial variance does, and the
  Wilson interval at ``n*`` stretches the far limit to ``≈ z²·SE²/Ĝ``, without bound as ``Ĝ
  → 0``: on ``tweets_rare`` (4 true positives among 2,440 predicted positives) F1 0.0024
  with SE 0.0114 from 500 labels (1 true positive among ~440 labeled predicted positives)
  got ``[0.000, 0.176]``; with ``SE_L`` 0.00245 (the binomial s.e. at ``n_eff`` 400: ``φ``
  0.954) it gets ``[0, 0.025]``.

The floor part is continuous in the estimate and the standard errors except at the gate ``n*
= n_eff`` (where ``φ`` is rarely above 0.85: a floor-dominated s.e. has ``n* ≪ n_eff``) and
at ``Ĝ = 0.5`` with an s.e. above 0.5 (the far side flips); the near-edge rule is a
threshold in ``Ĝ`` (e.g. SE 0.02 all from labels, ``n_eff`` 400: [0, 0.042] at ``Ĝ``
0.00249, [0, 0.38] at 0.0025). Ramping both was tried: it changed 12 % of the intervals of
the two beds below, wider on the small-sample bed (up to 2×), and was not adopted without a
rerun of the committed benchmark. The weight makes the limits non-monotone in the s.e. where
the floor's share crosses 85–95 %: with ``SE_L`` fixed a larger s.e. can give a narrower
interval (tweets_rare case: upper limit 0.059 at SE 0.006, 0.026 at 0.011), the price of
treating a floor-dominated s.e. as what it is. Measured (``benchmarks/active_edge_rule.py``,
200 runs × ten benchmark pools × four measures × 200/500/1000 labels, the same estimates
under both rules, and a small-sample bed: nine 2,000-item pools, passive and optimal πps,
calibrated and difference estimators, 30/60/100 labels, 300 runs): no coverage cell changed
on either against Wilson at ``n*`` of the whole s.e.; mean width down to 0.14× (kdd_rare
accuracy at 500 labels 0.097 → 0.014, tweets_rare F1 at 500 0.085 → 0.041). Two rules were
tried and dropped: the boundary rule for any estimate within one s.e. with ``n* < n_eff``
narrowed more but also caught ordinary model-assisted variance on small samples, where
Wilson's skew is right, and lost coverage there (a review: accuracy 0.980, SE 0.023 of which
65 % floor, truth 0.921: Wilson [0.872, 0.997], that rule [0.932, 1]; worst cell −0.017),
and jumped at est = SE; the score equation with the variance split into the labels' binomial
part and a constant floor, ``(G − Ĝ)² = z²(F + G(1 − G)/n_L)``, lost 0.05 in a cell of the
small-sample bed.

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

#: floor share of the far side's variance from which (to which) an estimate within one s.e.
#: of 0 or 1 starts (ends) being treated as on the boundary (:func:`boundary_weight`)
FLOOR_SHARE = (0.85, 0.95)

#: half-width of the interval of a measure the design has observed exactly (every relevant
#: item labeled with certainty): only floating-point rounding of the sums is left
EXACT_TOL = 1e-9


def wilson(p: float, n: float, z: float) -> ConfidenceInterval:
    """Wilson score interval for a proportion ``p`` at sample size ``n`` (may be non-integer)."""
    if n != n:                        # an unknown size says nothing: the whole range
        return ConfidenceInterval(0.0, 1.0)
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


def _ramp(x: float) -> float:
    return float(min(max(x, 0.0), 1.0)) if x == x else 0.0


def boundary_weight(est: float, s_lo: float, s_hi: float, se_labels: float | None,
                    n_eff: float) -> float:
    """How far (0–1) an interior estimate is treated as on the boundary:

    * 1 next to the edge: ``Ĝ(1 − Ĝ) < r(1 − r)`` (``r = 1/n_eff``) and ``n* < NEAR_EDGE_N``;
    * else, for a variance floor, ``ramp(2 − 2t)·ramp((φ − 0.85)/0.1)`` where
      ``n* < n_eff`` (0 elsewhere), ``t = min(Ĝ, 1 − Ĝ)/SE`` (1 within half an s.e. of 0
      or 1, 0 beyond one), ``φ = 1 − SE_L²/SE_far²`` the floor's share of the variance on
      the side away from the nearer boundary; 0 where ``SE_L`` is unknown;

    ``ramp(x) = clip(x, 0, 1)``, ``SE = max(SE_low, SE_high)``, ``n* = Ĝ(1 − Ĝ)/SE²``.
    Computed in float64 with overflow to ``inf`` (an s.e. of 1e-200 or 1e200 is valid)."""
    with np.errstate(all="ignore"):
        s_max = np.float64(max(s_lo, s_hi))
        spread = np.float64(est) * (1.0 - np.float64(est))
        n_star = spread / s_max / s_max if s_max > 0 else np.float64(np.inf)
        if np.isfinite(n_eff) and n_eff > 1.0:
            r = 1.0 / n_eff
            if spread < r * (1.0 - r) and n_star < NEAR_EDGE_N:
                return 1.0
        if (se_labels is None or not np.isfinite(se_labels) or not s_max > 0
                or not n_star < n_eff):
            return 0.0
        s_far = np.float64(s_hi if est < 0.5 else s_lo)
        s_l = min(max(float(se_labels), 0.0), float(s_far))
        phi = float(1.0 - (s_l / s_far) ** 2) if s_far > 0 else 0.0
        return (_ramp(float(2.0 - 2.0 * min(est, 1.0 - est) / s_max))
                * _ramp((phi - FLOOR_SHARE[0]) / (FLOOR_SHARE[1] - FLOOR_SHARE[0])))


def interval(est: float, se: float, *, bounded: bool, level: float, method: str,
             n_eff: float, ess: float = float("nan"), df: float | None = None,
             vacuous: bool = False, se_low: float | None = None,
             se_high: float | None = None, se_labels: float | None = None,
             reach: Sequence[tuple[float, float]] = ()) -> ConfidenceInterval:
    """The interval for ``est`` with standard error ``se`` (see the module docstring).

    ``se_low`` / ``se_high`` (default ``se``): the standard errors of the lower and the
    upper side (the without-replacement design puts each prediction group's variance
    floor on the side where labels it has not seen would move the measure); each limit is
    the one-sided limit of the method at its own standard error. ``se_labels``: the
    standard error from the labeled items alone, without the floors (``None``: unknown);
    with it an estimate within one s.e. of 0 or 1 whose s.e. is mostly a floor is treated
    as on the boundary, by the weight :func:`boundary_weight` (module docstring).

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
                   ess=ess, df=df, vacuous=vacuous, se_low=se_low, se_high=se_high,
                   se_labels=se_labels)
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
              se_low: float | None, se_high: float | None,
              se_labels: float | None) -> ConfidenceInterval:
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
    # treated as on the boundary, in part or whole (boundary_weight): within the design's
    # resolution 1/n_eff of 0 or 1 with fewer than NEAR_EDGE_N effective observations
    # n* = Ĝ(1 − Ĝ)/SE² (n* goes to 0 there while the s.e., a variance floor, does not:
    # precision 0.99998 with SE 0.012 got [0.04, 1], exactly 1 got [0.96, 1]), or within
    # one s.e. of 0 or 1 with an s.e. that is mostly a variance floor (module docstring)
    interior = 0.0 < est < 1.0 and np.isfinite(se) and se > 0
    w = boundary_weight(est, s_lo, s_hi, se_labels, n_eff) if interior else 1.0
    inner = (_interior(est, s_lo, s_hi, z=z, level=level, method=method, ess=ess, df=df)
             if w < 1.0 else None)
    if w <= 0.0:
        return inner
    p = min(max(est, 0.0), 1.0)
    lo, hi = wilson(p, n_eff, critical_value(level))
    if np.isfinite(se) and se > 0:          # a standard error is never ignored
        lo, hi = min(lo, max(p - z * s_lo, 0.0)), max(hi, min(p + z * s_hi, 1.0))
    if inner is None:
        return ConfidenceInterval(float(lo), float(hi))
    return ConfidenceInterval(float(w * lo + (1.0 - w) * inner.low),
                              float(w * hi + (1.0 - w) * inner.high))


def _interior(est: float, s_lo: float, s_hi: float, *, z: float, level: float, method: str,
              ess: float, df: float | None) -> ConfidenceInterval:
    """The method's interval of an interior estimate, each side at its own s.e."""
    if method == "wilson":
        def n_star(s: float) -> float:
            return est * (1.0 - est) / (s * s) if s * s > 0 else float("inf")
        return ConfidenceInterval(wilson(est, n_star(s_lo), z).low,
                                  wilson(est, n_star(s_hi), z).high)
    if method == "logit":
        t = critical_value(level, max(ess - 1.0, 1.0) if np.isfinite(ess) else df)
        centre = np.log(est) - np.log1p(-est)
        lo = float(special.expit(centre - t * s_lo / (est * (1.0 - est))))
        hi = float(special.expit(centre + t * s_hi / (est * (1.0 - est))))
        return ConfidenceInterval(min(lo, est), max(hi, est))   # logit-expit rounding
    return ConfidenceInterval(float(max(est - z * s_lo, 0.0)), float(min(est + z * s_hi, 1.0)))
