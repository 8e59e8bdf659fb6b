r"""Labels to buy to find ``k`` positives: the search cost of a plan that labels positives.

* **Random search** (no scores): labeling the pool in random order, the number of labels
  :math:`N_k` needed to meet the ``k``-th of ``P`` positives among ``n`` examples follows
  the negative hypergeometric law (without replacement; its with-replacement limit is
  ``k`` plus a negative binomial count of negatives, mean ``k / prevalence``), with
  :math:`P(N_k \le m) = P(X_m \ge k)`, :math:`X_m \sim \mathrm{Hypergeometric}(n, P, m)`
  and :math:`E N_k = k (n + 1)/(P + 1)`.
* **Score order** (``scores``: a pilot model's probabilities on the pool): labeling in
  decreasing score, and treating the scores as the probabilities of independent labels
  conditioned on the pool's positive count ``P`` (a conditional Bernoulli law: only the
  scores' odds ratios matter, so scores that are off by a common shift of their logits
  give the same answer), the same identity gives the law of :math:`N_k` from the law of
  the positives among the first ``m``, :math:`P(X_m \ge k \mid X_n = P) =
  \sum_{j \ge k} f_m(j) g_m(P - j) / f_n(P)` with ``f_m`` and ``g_m`` the Poisson-binomial
  laws of the first ``m`` and of the other items. It is computed exactly by forward and
  backward recursions while they take at most :data:`MAX_DP_WORK` cell updates, else by
  the normal approximation with continuity correction. Scores whose shape is wrong (e.g.
  overconfident: too close to 0 and 1) misplace the positives and make the search look
  cheaper than it is.

A plan buys the ``q`` quantile of :math:`N_k` (the planner passes its confidence level:
the budget then suffices with probability at least ``q``) and reports the mean beside it.
Both are capped at the pool size: labeling the whole pool finds every positive.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ._bounds import Discrete
from ._common import first_true

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
    probability grows with m; P(X_n_pool >= k) = 1)."""
    def ok(m):
        law = Discrete("hypergeom", np.array([n_pool], float), np.array([n_pos], float),
                       np.array([m], float))
        return 1.0 - law.cdf(np.array([k - 1.0]))[0] >= q - 1e-12

    return float(first_true(ok, int(k), int(n_pool)))


def score_search(scores: np.ndarray, k, q: float, n_pos: int | None = None):
    """``(quantile, mean)`` of the labels needed to find ``k`` positives labeling in
    decreasing ``scores`` (calibrated probabilities); vectorised over ``k``. With
    ``n_pos``, the labels are conditioned on the pool holding exactly ``n_pos`` positives
    (then only the scores' odds ratios matter: a common shift of their logits changes
    nothing)."""
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
    below = _below(p, k_int[pos], n_pos)        # below[j, m] = P(X_m < k_j), m = 0..n
    for j, i in enumerate(np.flatnonzero(pos)):
        b = below[j]
        hit = np.flatnonzero(b <= 1.0 - q + 1e-12)
        quant[i] = float(hit[0]) if hit.size else float(n)
        mean[i] = min(float(b[:-1].sum()), float(n))
    return quant, mean


def _below(p: np.ndarray, ks: np.ndarray, n_pos: int | None) -> np.ndarray:
    """P(X_m < k) for m = 0 .. len(p) and each k (conditioned on X_n = n_pos if given):
    exact recursions while they take at most :data:`MAX_DP_WORK` cell updates, else the
    normal approximation."""
    n, k_max = len(p), int(ks.max())
    if n_pos is not None:
        if k_max > n_pos:
            return np.ones((len(ks), n + 1))
        if n * (n_pos + 1) <= MAX_DP_WORK:
            out = _conditional_below(p, ks, int(n_pos))
            if out is not None:
                return out
    if n * (k_max + 1) <= MAX_DP_WORK and n_pos is None:
        return _dp_below(p, ks)
    return _normal_below(p, ks, n_pos)


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


def _normal_below(p: np.ndarray, ks: np.ndarray, n_pos: int | None) -> np.ndarray:
    """P(X_m < k) by the normal approximation with continuity correction; given the total
    ``n_pos``, that of X_m given X_n (bivariate normal: the covariance of X_m and X_n is
    Var X_m)."""
    mu = np.concatenate([[0.0], np.cumsum(p)])
    var = np.concatenate([[0.0], np.cumsum(p * (1.0 - p))])
    if n_pos is not None and var[-1] > 0:
        share = var / var[-1]
        mu = mu + (n_pos - mu[-1]) * share
        var = var * (1.0 - share)
    sd = np.sqrt(np.maximum(var, 0.0))
    z = (ks[:, None] - 0.5 - mu[None, :]) / np.maximum(sd[None, :], 1e-12)
    out = stats.norm.cdf(z)
    out[:, 0] = 1.0
    return out


def _conditional_below(p: np.ndarray, ks: np.ndarray, n_pos: int):
    """P(X_m < k | X_n = n_pos) by a forward recursion over the first m items and a
    backward one over the rest: P(X_m >= k, X_n = P) = sum_{j >= k} f_m(j) g_m(P - j).
    The backward pmfs are kept at checkpoints every sqrt(n) items and rebuilt block by
    block (memory O(sqrt(n) P)). None when the scores cannot hold ``n_pos`` positives."""
    n = len(p)
    width = n_pos - int(ks.min()) + 1           # g_m is needed at counts 0 .. P - k_min
    block = int(np.ceil(np.sqrt(n)))
    checkpoints = {n: _unit(width)}
    g = _unit(width)
    for m in range(n - 1, -1, -1):
        _add_item(g, p[m])
        if m % block == 0:
            checkpoints[m] = g.copy()
    f = _unit(n_pos + 1)
    joint = np.zeros((len(ks), n + 1))
    for start in range(0, n, block):
        stop = min(start + block, n)
        g = checkpoints[stop].copy()            # every block end is a checkpoint
        gs = [g.copy()]
        for m in range(stop - 1, start - 1, -1):
            _add_item(g, p[m])
            gs.append(g.copy())
        gs = gs[::-1]                           # gs[i] = g_{start + i}
        for m in range(start, stop):
            joint[:, m] = _pair(f, gs[m - start], ks, n_pos)
            _add_item(f, p[m])
    joint[:, n] = _pair(f, _unit(width), ks, n_pos)
    total = f[n_pos]
    if not total > 0:
        return None
    return np.clip(1.0 - joint / total, 0.0, 1.0)


def _unit(length: int) -> np.ndarray:
    out = np.zeros(length)
    out[0] = 1.0
    return out


def _add_item(f: np.ndarray, pm: float) -> None:
    """In place: the pmf of a count after one more Bernoulli(pm) item, on the counts
    0 .. len(f) - 1 (the mass moving beyond them is dropped: it cannot meet the total)."""
    moved = f * pm
    f -= moved
    f[1:] += moved[:-1]


def _pair(f, g, ks, n_pos):
    """sum_{j >= k} f(j) g(P - j) for each k."""
    out = np.empty(len(ks))
    for i, k in enumerate(ks):
        out[i] = np.dot(f[k:n_pos + 1], g[:n_pos - k + 1][::-1])
    return out
