r"""Delete-one jackknife of (Θ̂, V̂) from the same draws (private engine of ``cv_variance``).

Every kernel value γ(L; i) of a draw *involves* the g + 1 observations of L ∪ {i}; every
product γ(L₁; i)γ(L₂; j) of the Ξ stream involves 2g + 2. Dropping the values that
involve observation o leaves values that are uniform over the configurations of the other
n − 1 observations, so

.. math:: \hat\Theta_{(-o)} = \frac{T - T_o}{C - C_o},\qquad
          \hat\Xi_{(-o)} = \frac{X - X_o}{XC - XC_o},\qquad
          \hat V_{(-o)} = \hat\Theta_{(-o)}^2 - \hat\Xi_{(-o)}

are Monte-Carlo estimates of the complete U-statistics on the sample without o (T, C: sum
and count of the Θ values; T_o, C_o: those involving o; X, XC the same for Ξ). Each draw
adds its values to T_o, C_o, X_o, XC_o of every observation it involves in O(n).

The draws are split into two independent halves (even and odd draws of a task), so the
jackknife covariance is estimated by the cross-product of the two halves' deviations,
free of the Monte-Carlo noise that would inflate a product within one half:

.. math:: \widehat{\mathrm{Cov}}_J(\hat\Theta, \hat V) = \frac{n-1}{n}\,\frac12\sum_o
          \big(d\Theta^A_o\, dV^B_o + d\Theta^B_o\, dV^A_o\big).

The half totals are recovered from the per-observation sums (each Θ value is counted by
g + 1 observations, each Ξ product by 2g + 2). Not available for the AUC kernel.
"""

from __future__ import annotations

import numpy as np

__all__ = ["JK_ROWS", "jk_pair", "jk_fit", "delete_one", "jackknife_moments", "coupling",
           "coupling_from"]

#: rows of the per-observation accumulator used here: (T_o, C_o, X_o, XC_o) per half
JK_ROWS = 8


def jk_fit(jk: np.ndarray, half: int, v: np.ndarray, out_idx: np.ndarray,
           learn: np.ndarray) -> None:
    """Θ values of one fit (values ``v`` on ``out_idx``, learning set ``learn``)."""
    b = 4 * half
    jk[b, learn] += v.sum()
    jk[b + 1, learn] += v.size
    jk[b, out_idx] += v
    jk[b + 1, out_idx] += 1


def jk_pair(jk: np.ndarray, half: int, a: np.ndarray, b_: np.ndarray, rest: np.ndarray,
            learn: np.ndarray, weight: float = 1.0) -> None:
    """Ξ products of two fits on disjoint learning sets (``learn`` = L₁ ∪ L₂): ``a`` and
    ``b_`` are their values on the common test points ``rest``; ``weight`` 2 counts the
    ordered pairs (a, b) and (b, a) of the partition design."""
    r = rest.size
    if r < 2:
        return
    sa, sb = a.sum(), b_.sum()
    total = sa * sb - a @ b_
    base = 4 * half + 2
    jk[base, learn] += weight * total
    jk[base + 1, learn] += weight * r * (r - 1)
    jk[base, rest] += weight * (a * (sb - b_) + b_ * (sa - a))
    jk[base + 1, rest] += weight * 2 * (r - 1)


def delete_one(jk: np.ndarray, half: int, g: int):
    """Delete-one values (Θ̂_(−o), V̂_(−o)) of one half (None if a half is empty)."""
    T_o, C_o, X_o, XC_o = jk[4 * half:4 * half + 4]
    T, C = T_o.sum() / (g + 1), C_o.sum() / (g + 1)
    X, XC = X_o.sum() / (2 * g + 2), XC_o.sum() / (2 * g + 2)
    if not (C > 0 and XC > 0) or np.any(C - C_o <= 0) or np.any(XC - XC_o <= 0):
        return None
    th_o = (T - T_o) / (C - C_o)
    return th_o, th_o * th_o - (X - X_o) / (XC - XC_o)


def jackknife_moments(jk: np.ndarray, g: int) -> tuple[float, float, float]:
    r"""Cross-half jackknife (Var_J(Θ̂), Cov_J(Θ̂, V̂), Var_J(V̂)); NaNs when unavailable.

    Each is (n − 1)/n · ½ Σ_o (dA_o dB_o' + dB_o dA_o') over the two independent halves,
    so the Monte-Carlo noise of either half does not enter (a variance can therefore
    come out negative when the data part is small against that noise).
    """
    nan = (float("nan"),) * 3
    n = jk.shape[-1]
    if g == 0 or jk.shape[0] < JK_ROWS:
        return nan
    A, B = delete_one(jk, 0, g), delete_one(jk, 1, g)
    if A is None or B is None:
        return nan
    A, B = [x - x.mean() for x in A], [x - x.mean() for x in B]
    c = (n - 1) / n * 0.5
    return (c * 2 * float(A[0] @ B[0]), c * float(A[0] @ B[1] + B[0] @ A[1]),
            c * 2 * float(A[1] @ B[1]))


def coupling(jk: np.ndarray, g: int, variance: float) -> float:
    r"""ρ̂ = Ĉov_J(Θ̂, V̂)/V̂^{3/2}: the coupling of the estimate and its variance estimate.

    For a studentized mean ρ equals the skewness γ of Θ̂; for a U-statistic with a
    second-order part it does not (``_results.skew_limits``). NaN when V̂ ≤ 0, g = 0 or a
    half has no draws.
    """
    return coupling_from(jackknife_moments(jk, g), variance)


def coupling_from(moments: tuple[float, float, float], variance: float) -> float:
    """ρ̂ from already computed :func:`jackknife_moments` (NaN when V̂ ≤ 0)."""
    return moments[1] / variance ** 1.5 if variance > 0 else float("nan")
