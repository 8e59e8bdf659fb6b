r"""Labels to buy to find ``k`` positives: the search cost of a plan that labels positives.

* **Random search** (no scores): labeling the pool in random order, the number of labels
  :math:`N_k` needed to meet the ``k``-th of ``P`` positives among ``n`` examples follows
  the negative hypergeometric law (without replacement; its with-replacement limit is
  ``k`` plus a negative binomial count of negatives, mean ``k / prevalence``), with
  :math:`P(N_k \le m) = P(X_m \ge k)`, :math:`X_m \sim \mathrm{Hypergeometric}(n, P, m)`
  and :math:`E N_k = k (n + 1)/(P + 1)`.
* **Score order** (``scores``: a pilot model's probabilities on the pool): labeling in
  decreasing score, and treating the scores as calibrated probabilities of independent
  labels, the positives among the first ``m`` follow a Poisson-binomial law; the same
  identity gives the law of :math:`N_k`. Its distribution is computed exactly by dynamic
  programming over the items (counts truncated at ``k``) while that takes at most
  :data:`MAX_DP_WORK` cell updates, else by the normal approximation with continuity
  correction. Scores that are overconfident (too close to 0 and 1) make the search look
  cheaper than it is; scores too low overall make it look dearer.

A plan buys the ``q`` quantile of :math:`N_k` (the planner passes its confidence level:
the budget then suffices with probability at least ``q``) and reports the mean beside it.
Both are capped at the pool size: labeling the whole pool finds every positive.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ._bounds import Discrete

__all__ = ["random_search", "score_search"]

#: pools above this size search with the negative binomial (with replacement): its
#: quantiles are slightly larger, hence conservative, and need no hypergeometric sums
BINOMIAL_POOL = 10 ** 7
#: largest number of cell updates (labels scanned x counts tracked) of the exact
#: Poisson-binomial recursion; beyond it the normal approximation is used (run time)
MAX_DP_WORK = 3 * 10 ** 7


def random_search(n_pool: int, n_pos: float, k, q: float):
    """``(quantile, mean)`` of the labels needed to find ``k`` positives in random order
    (vectorised over ``k``); ``n_pool`` when ``k`` exceeds the positives."""
    k = np.atleast_1d(np.asarray(k, float))
    quant = np.full(k.shape, float(n_pool))
    mean = np.full(k.shape, float(n_pool))
    for i, kk in enumerate(k):
        if kk <= 0:
            quant[i] = mean[i] = 0.0
        elif kk <= n_pos:
            if n_pool > BINOMIAL_POOL:
                quant[i] = min(kk + stats.nbinom.ppf(q, kk, n_pos / n_pool), n_pool)
            else:
                quant[i] = _smallest_draws(n_pool, n_pos, kk, q)
            mean[i] = min(kk * (n_pool + 1.0) / (n_pos + 1.0), n_pool)
    return quant, mean


def _smallest_draws(n_pool, n_pos, k, q):
    """Smallest m with P(Hypergeometric(n_pool, n_pos, m) >= k) >= q (bisection: the
    probability grows with m)."""
    lo, hi = int(k), int(n_pool)          # P(X_lo >= k) may be < q; P(X_hi >= k) = 1

    def ok(m):
        law = Discrete("hypergeom", np.array([n_pool], float), np.array([n_pos], float),
                       np.array([m], float))
        return 1.0 - law.cdf(np.array([k - 1.0]))[0] >= q - 1e-12

    if ok(lo):
        return float(lo)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return float(hi)


def score_search(scores: np.ndarray, k, q: float):
    """``(quantile, mean)`` of the labels needed to find ``k`` positives labeling in
    decreasing ``scores`` (calibrated probabilities); vectorised over ``k``."""
    p = np.sort(np.asarray(scores, float))[::-1]
    k = np.atleast_1d(np.asarray(k, float))
    k_int = np.rint(k).astype(np.int64)
    n = len(p)
    quant = np.full(k.shape, float(n))
    mean = np.full(k.shape, float(n))
    pos = k_int > 0
    quant[~pos] = mean[~pos] = 0.0
    if not pos.any():
        return quant, mean
    k_max = int(k_int.max())
    mu, var = np.cumsum(p), np.cumsum(p * (1.0 - p))
    reach = np.searchsorted(mu, k_max + 6.0 * np.sqrt(var[-1]) + 6.0)
    m_scan = min(n, int(reach) + 1)
    if m_scan * (k_max + 1) <= MAX_DP_WORK:
        below = _dp_below(p[:m_scan], k_int[pos])
    else:
        below = _normal_below(mu[:m_scan], var[:m_scan], k_int[pos])
    # below[j, m] = P(X_m < k_j), m = 0 .. m_scan; beyond m_scan taken as 0 unless the
    # pool ends first (then the census cap applies)
    for j, i in enumerate(np.flatnonzero(pos)):
        b = below[j]
        hit = np.flatnonzero(b <= 1.0 - q + 1e-12)
        quant[i] = float(hit[0]) if hit.size else float(n)
        mean[i] = min(float(b[:-1].sum()) + (n - m_scan) * float(b[-1]), float(n))
    return quant, mean


def _dp_below(p: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """P(X_m < k) for m = 0 .. len(p) and each k of ``ks`` (exact Poisson-binomial
    recursion; the last cell of the count vector absorbs every count >= max(ks))."""
    k_max = int(ks.max())
    f = np.zeros(k_max + 1)
    f[0] = 1.0
    out = np.empty((len(ks), len(p) + 1))
    out[:, 0] = 1.0
    for m, pm in enumerate(p, start=1):
        moved = f[:-1] * pm
        f[:-1] -= moved
        f[1:] += moved
        c = np.cumsum(f)
        out[:, m] = c[ks - 1]
    return np.clip(out, 0.0, 1.0)


def _normal_below(mu: np.ndarray, var: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """P(X_m < k) by the normal approximation with continuity correction."""
    mu = np.concatenate([[0.0], mu])
    sd = np.sqrt(np.concatenate([[0.0], var]))
    z = (ks[:, None] - 0.5 - mu[None, :]) / np.maximum(sd[None, :], 1e-12)
    out = stats.norm.cdf(z)
    out[:, 0] = 1.0
    return out
