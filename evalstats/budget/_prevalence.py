"""What the planner knows about the pool's positive count, and the interval it plans over.

:func:`evalstats.budget.plan_labels` takes the prevalence in one of four forms:

* ``"known"``: a number, exact (``prevalence_known=True``);
* ``"interval"``: ``prevalence=(low, high)``, an interval known to contain it;
* ``"pilot"``: ``pilot=(k, n)``, ``k`` positives in a simple random sample of ``n``
  examples of the pool; the positive count then lies in the exact hypergeometric
  confidence interval (the inversion of the two one-sided tests at level δ/2 each) with
  probability at least 1 - δ;
* ``"guess"``: a number that is only a planning value (``prevalence_known=False``); plans
  that need the positive count buy a random sample to estimate it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._common import first_true

__all__ = ["Prevalence", "pilot_interval"]

#: pools above this size take the binomial (Clopper-Pearson) interval of the pilot: the
#: hypergeometric one is slightly narrower, so the binomial one is conservative
BINOMIAL_POOL = 10 ** 7


def pilot_interval(n_pool: int, k: int, n: int, delta: float) -> tuple[int, int]:
    """Exact 1 - δ interval for the positive count of the pool from ``k`` positives in a
    simple random sample of ``n`` (each side at δ/2)."""
    if n_pool > BINOMIAL_POOL:
        lo = 0.0 if k == 0 else stats.beta.ppf(delta / 2, k, n - k + 1)
        hi = 1.0 if k == n else stats.beta.ppf(1 - delta / 2, k + 1, n - k)
        return int(np.floor(lo * n_pool)), int(np.ceil(hi * n_pool))
    low, high = k, n_pool - (n - k)       # counts compatible with the pilot

    def sf(p):                            # P(X >= k | P = p), increasing in p
        return stats.hypergeom.sf(k - 1, n_pool, p, n)

    def cdf(p):                           # P(X <= k | P = p), decreasing in p
        return stats.hypergeom.cdf(k, n_pool, p, n)

    p_lo = low if k == 0 else first_true(lambda p: sf(p) > delta / 2, low, high)
    p_hi = high if k == n else first_true(lambda p: cdf(p) <= delta / 2, low, high + 1) - 1
    return int(p_lo), int(max(p_hi, p_lo))


@dataclass(frozen=True)
class Prevalence:
    """The planner's knowledge of the positive count ``P`` of a pool of ``n_pool``."""

    kind: str
    n_pool: int
    count: int                  # planning value of P (exact when ``kind == "known"``)
    low: int                    # interval of P (``known``/``interval``), else = count
    high: int
    pilot: tuple[int, int] | None = None

    def interval(self, delta: float) -> tuple[int, int] | None:
        """Counts known to contain P (with probability >= 1 - δ for a pilot); None for a
        guess."""
        if self.kind == "guess":
            return None
        if self.kind == "pilot":
            return pilot_interval(self.n_pool, *self.pilot, delta)
        return self.low, self.high

    @property
    def spends_delta(self) -> bool:
        """Whether the interval is a probability statement (a pilot)."""
        return self.kind == "pilot"

    def describe(self) -> str:
        n = self.n_pool
        if self.kind == "known":
            return f"prevalence {self.count / n:.4g} (known)"
        if self.kind == "interval":
            return f"prevalence in [{self.low / n:.4g}, {self.high / n:.4g}]"
        if self.kind == "pilot":
            return (f"prevalence from a pilot ({self.pilot[0]:,} positives in "
                    f"{self.pilot[1]:,} labels)")
        return f"prevalence about {self.count / n:.4g} (not known)"


def prevalence_iv(n_pool: int, prevalence, pilot, prevalence_known) -> Prevalence:
    """The :class:`Prevalence` of :func:`plan_labels`'s arguments (raises on bad input)."""
    from .._validation import check_int, check_scalar, fail

    if not isinstance(prevalence_known, bool | np.bool_):
        raise fail("prevalence_known", "True or False", value=prevalence_known, exc=TypeError)
    if pilot is not None:
        if prevalence is not None:
            raise fail("prevalence", "None when `pilot` is given (the pilot estimates it)",
                       value=prevalence)
        if not isinstance(pilot, tuple | list) or len(pilot) != 2:
            raise fail("pilot", "a pair (positives, labels) of a simple random pilot sample",
                       value=pilot, exc=TypeError)
        n = check_int(pilot[1], "pilot[1]", low=1, high=n_pool)
        k = check_int(pilot[0], "pilot[0]", low=0, high=n)
        count = int(np.clip(round(k / n * n_pool), 1, n_pool - 1))
        return Prevalence("pilot", n_pool, count, count, count, (k, n))
    if isinstance(prevalence, tuple | list):
        if len(prevalence) != 2:
            raise fail("prevalence", "a number or an interval (low, high)", value=prevalence)
        lo = check_scalar(prevalence[0], "prevalence[0]", 0, 1, low_inclusive=False,
                          high_inclusive=False)
        hi = check_scalar(prevalence[1], "prevalence[1]", lo, 1, high_inclusive=False)
        c_lo = int(np.clip(np.floor(lo * n_pool + 1e-9), 1, n_pool - 1))
        c_hi = int(np.clip(np.ceil(hi * n_pool - 1e-9), c_lo, n_pool - 1))
        return Prevalence("interval", n_pool, int(round((c_lo + c_hi) / 2)), c_lo, c_hi)
    if prevalence is None:
        raise fail("prevalence", "a number in (0, 1), an interval (low, high), or None with "
                   "`pilot` given", value=prevalence)
    p = check_scalar(prevalence, "prevalence", 0, 1, low_inclusive=False, high_inclusive=False)
    count = int(round(p * n_pool))
    if not 0 < count < n_pool:
        raise fail("prevalence", f"large enough that the pool of {n_pool} holds at least "
                   "one positive and one negative", value=prevalence)
    kind = "known" if prevalence_known else "guess"
    return Prevalence(kind, n_pool, count, count, count)
