r"""Intervals of the with-replacement (papers') design for measures in [0, 1] and risks.

``WR_METHODS`` (first = default):

* ``"logit"`` — the delta method on the logit scale with ``ESS − 1`` degrees of freedom
  (Kish ESS), which keeps the interval in ``(0, 1)`` and follows the skew of a ratio near
  the boundary;
* ``"linear"`` — the papers' ``Ĝ ± t_{n−1}·SE`` clipped to ``[0, 1]``;
* ``"wilson"`` — the Wilson score interval at the effective sample size
  ``n* = Ĝ(1 − Ĝ)/SE²`` (Korn & Graubard 1998).

On the boundary (``Ĝ`` is 0 or 1, every drawn loss equal) the standard error is 0 and
every method reports the Wilson interval at the Kish ESS, the interval of that many
Bernoulli trials with no event. Unbounded measures (squared loss) get the linear t
interval.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .._result import ConfidenceInterval, critical_value

__all__ = ["WR_METHODS", "wr_interval", "wilson"]

WR_METHODS = ("logit", "linear", "wilson")


def wilson(p: float, n: float, z: float) -> ConfidenceInterval:
    """Wilson score interval for a proportion ``p`` at sample size ``n`` (may be non-integer)."""
    if not n > 0:
        return ConfidenceInterval(0.0, 1.0)
    if not np.isfinite(n):            # known exactly
        return ConfidenceInterval(float(p), float(p))
    z2n = z * z / n
    centre = (p + z2n / 2.0) / (1.0 + z2n)
    half = z / (1.0 + z2n) * np.sqrt(max(p * (1.0 - p), 0.0) / n + z2n / (4.0 * n))
    lo, hi = max(centre - half, 0.0), min(centre + half, 1.0)
    return ConfidenceInterval(0.0 if p <= 0 else float(lo), 1.0 if p >= 1 else float(hi))


def wr_interval(est: float, se: float, *, bounded: bool, level: float, method: str,
                ess: float, df: float | None) -> ConfidenceInterval:
    """The interval of a with-replacement estimate (see the module docstring)."""
    if not np.isfinite(est) or not np.isfinite(se):
        return ConfidenceInterval(float("nan"), float("nan"))
    t = critical_value(level, df)
    if not bounded:
        return ConfidenceInterval(float(est - t * se), float(est + t * se))
    if se <= 0 or not 0.0 < est < 1.0:
        return wilson(min(max(est, 0.0), 1.0), ess, critical_value(level))
    if method == "wilson":
        return wilson(est, est * (1.0 - est) / (se * se), critical_value(level))
    if method == "logit":
        tl = critical_value(level, max(ess - 1.0, 1.0)) if np.isfinite(ess) else t
        centre = np.log(est) - np.log1p(-est)
        half = tl * se / (est * (1.0 - est))
        return ConfidenceInterval(min(float(special.expit(centre - half)), est),
                                  max(float(special.expit(centre + half)), est))
    return ConfidenceInterval(float(max(est - t * se, 0.0)), float(min(est + t * se, 1.0)))
