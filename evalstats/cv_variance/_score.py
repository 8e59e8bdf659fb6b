r"""Score-type test and interval for a CV difference: the variance at the hypothesised value.

A Wald statistic divides by √V̂ taken at the estimate. Where V̂ moves with Θ̂ — the
coupling ρ = Cov(Θ̂, V̂)/σ³ that the jackknife over observations estimates (``coupling``)
— the variance the null distribution needs is the one *at the hypothesised difference δ*,
as in a score test (Rao 1948; for a paired 0-1 difference this is McNemar's test against
the Wald test). Along the jackknife's slope ``dV/dθ ≈ ρ̂σ`` the variance at δ is
``V̂(1 − ρ̂u)`` with ``u = (Θ̂ − δ)/σ``. The slope is the one at Θ̂; at the null value of a
symmetric difference it is 0 (for two classifiers exchangeable under the null, ρ̂ moves
linearly with T, the slope ``−2b`` of a mean–variance relation ``V(θ) ≈ a − bθ²``), so the
trapezoid between the two slopes is used:

.. math:: V(\delta) = \hat V\,\max\!\big(1 - \tfrac12\hat\rho\,u,\ \varphi\big), \qquad
          Z(\delta) = u \big/ \sqrt{\max(1 - \tfrac12\hat\rho u,\ \varphi)},

referred to t_ν. ``u²/max(1 − ρ̂u/2, φ)`` increases in |u| on either side, so the accepted
set ``{δ: |Z(δ)| ≤ q}`` is an interval, closed form (a quadratic in u, or ``u = ±q√φ``
where the floor binds), nested across levels, and it excludes 0 exactly when the test
rejects. The floor φ = ½ (``SCORE_FLOOR``) keeps the variance at δ from falling below half
of V̂. With ρ̂ = 0 it is the t interval.

For a studentized mean (ρ = γ) the first-order Cornish–Fisher correction of T has the
coefficient ρ/2 − γ/6; for the U-statistic difference the projection skewness γ̂₁ is
biased and noisy (``_results.skew_terms``), and with γ ≈ 3ρ/2 (γ̂₁ ≈ 0) the coefficient is
ρ/4, the small-|u| expansion ``Z ≈ u + ρ̂u²/4`` of the form above.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SCORE_FLOOR", "score_limits", "score_statistic"]

#: smallest factor of V̂ the variance at a hypothesised value may take
SCORE_FLOOR = 0.5


def _rho(coupling: float) -> float:
    return float(np.clip(coupling, -1.0, 1.0)) if np.isfinite(coupling) else 0.0


def score_statistic(t: float, coupling: float, floor: float = SCORE_FLOOR) -> float:
    """Z(0) = T/√max(1 − ρ̂T/2, φ) for the studentized difference ``t`` = Θ̂/se."""
    if not np.isfinite(t):
        return float("nan")
    return float(t / np.sqrt(max(1.0 - 0.5 * _rho(coupling) * t, floor)))


def score_limits(q: float, coupling: float, floor: float = SCORE_FLOOR
                 ) -> tuple[float, float]:
    """Multiples ``(k_lo, k_hi)`` of se: the interval is ``[Θ̂ − k_lo·se, Θ̂ + k_hi·se]``.

    Solves ``u² = q² max(1 − a u, φ)`` (``a = ρ̂/2``) on each side of 0; ``k_lo`` is the
    positive root, ``k_hi`` minus the negative one.
    """
    a = 0.5 * _rho(coupling)
    q2 = q * q
    disc = np.sqrt(q2 * q2 * a * a + 4.0 * q2)
    roots = ((-q2 * a + disc) / 2.0, (-q2 * a - disc) / 2.0)
    limits = []
    for u in roots:              # the floor binds where a·u > 1 − φ: there u = ±q√φ
        limits.append(abs(u) if a * u <= 1.0 - floor else q * np.sqrt(floor))
    return float(limits[0]), float(limits[1])
