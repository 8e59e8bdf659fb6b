"""Private core of :mod:`evalstats.budget`: the finite-pool model and its tail bounds.

Model (Valizadegan, Amizadeh & Hauskrecht, SDM 2012, Section 3): a pool S = L ∪ U,
labels known on L, unknown on U; the prevalence of U and the rule's predictions on U
are known. The unknown counts are TP_U (precision, sensitivity) and TN_U
(specificity); with both margins of U fixed, TN_U = |U_O-| - |U_R+| + TP_U, so both
have the same (hypergeometric) distribution up to a shift.

All functions accept numpy arrays (broadcast) so that plans can scan many label
counts at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

MEASURES = ("precision", "sensitivity", "specificity")
VARIANCES = ("hypergeometric", "paper", "oracle_binomial")
BOUNDS = ("bernstein", "bernstein_paper", "exact")


class Discrete:
    """A hypergeometric or binomial law with array parameters, without scipy's frozen
    objects (freezing one costs about a millisecond of docstring formatting, which
    dominated the plans' run time). ``name`` is ``"hypergeom"`` (args M, n, N) or
    ``"binom"`` (args n, p)."""

    def __init__(self, name: str, *args):
        self.name = name
        self.args = args
        self._law = stats.hypergeom if name == "hypergeom" else stats.binom

    def cdf(self, x):
        if self.name == "hypergeom":
            return _hypergeom_cdf(np.asarray(x, float), *self.args)
        return self._law.cdf(x, *self.args)

    def sf(self, x):
        return self._law.sf(x, *self.args)

    def pmf(self, x):
        return self._law.pmf(x, *self.args)


def _log_comb(n, k):
    from scipy.special import gammaln

    return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)


def _hypergeom_cdf(x, m, n_succ, draws):
    """Hypergeometric cdf by summing log-gamma pmfs over a window of 12 sd + 20 around
    the tail nearer to x (terms beyond it are below 1e-30). scipy's Boost-based cdf and
    pmf take ~20 ms for 40 values at |S| = 1e5, which dominated the plans' run time;
    wide laws (sd > 200) still go to scipy."""
    x, m, n_succ, draws = np.broadcast_arrays(*(np.asarray(a, float)
                                                for a in (x, m, n_succ, draws)))
    out = np.empty(x.shape)
    var = _safe_div(draws * n_succ * (m - n_succ) * (m - draws), m * m * (m - 1))
    sd = np.sqrt(np.maximum(var, 0))
    wide = sd > 200
    if wide.any():
        out[wide] = stats.hypergeom.cdf(x[wide], m[wide], n_succ[wide], draws[wide])
    nar = ~wide
    if not nar.any():
        return out
    x, m, n_succ, draws, sd = (a[nar] for a in (x, m, n_succ, draws, sd))
    lo = np.maximum(0.0, draws - (m - n_succ))
    hi = np.minimum(n_succ, draws)
    mean = _safe_div(draws * n_succ, m)
    width = int(np.ceil(12 * sd.max() + 20))
    offs = np.arange(width + 1, dtype=float)
    lower = np.floor(x) <= mean
    first = np.where(lower, np.floor(x) - width, np.floor(x) + 1)[:, None] + offs
    ok = (first >= lo[:, None]) & (first <= hi[:, None])
    ok &= np.where(lower[:, None], first <= np.floor(x)[:, None], True)
    k = np.where(ok, first, lo[:, None])
    logp = (_log_comb(n_succ[:, None], k) + _log_comb((m - n_succ)[:, None], draws[:, None] - k)
            - _log_comb(m, draws)[:, None])
    tail = np.where(ok, np.exp(logp), 0.0).sum(axis=1)
    res = np.where(lower, tail, 1.0 - tail)
    res = np.where(np.floor(x) < lo, 0.0, np.where(np.floor(x) >= hi, 1.0, res))
    out[nar] = np.clip(res, 0.0, 1.0)
    return out


@dataclass(frozen=True)
class PoolCounts:
    """Counts of the pool and the labeled set (floats allowed for expected counts).

    ``s``: |S|; ``s_pos``: |S_O+|; ``s_rpos``: |S_R+|; ``l_pos``/``l_neg``: labeled
    positives/negatives; ``tp_l``/``fp_l``: rule positives among them.
    """

    s: np.ndarray
    s_pos: np.ndarray
    s_rpos: np.ndarray
    l_pos: np.ndarray
    l_neg: np.ndarray
    tp_l: np.ndarray
    fp_l: np.ndarray

    @property
    def u(self):
        return self.s - self.l_pos - self.l_neg

    @property
    def u_pos(self):
        return self.s_pos - self.l_pos

    @property
    def u_neg(self):
        return self.u - self.u_pos

    @property
    def u_rpos(self):
        return self.s_rpos - self.tp_l - self.fp_l

    @property
    def u_rneg(self):
        return self.u - self.u_rpos

    def denominator(self, measure: str):
        """|S_R+| (precision), |S_O+| (sensitivity) or |S_O-| (specificity)."""
        return {"precision": self.s_rpos, "sensitivity": self.s_pos,
                "specificity": self.s - self.s_pos}[measure]

    def known_count(self, measure: str):
        """TP_L (precision, sensitivity) or TN_L (specificity)."""
        return self.l_neg - self.fp_l if measure == "specificity" else self.tp_l


def _safe_div(a, b):
    a, b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
    out = np.zeros(a.shape)
    np.divide(a, b, out=out, where=b > 0)
    return out


def count_mean(measure: str, c: PoolCounts):
    """E(TP_U) = |U_R+| ε (Pr, Se, eqs 3.4, 3.8) or E(TN_U) = |U_R-| (1-ε) (Sp, 3.10)."""
    eps = _safe_div(c.u_pos, c.u)
    return c.u_rneg * (1 - eps) if measure == "specificity" else c.u_rpos * eps


def measure_mean(measure: str, c: PoolCounts):
    """E(measure) = (known count + E(unknown count)) / denominator (eqs 3.4, 3.8, 3.10)."""
    return _safe_div(c.known_count(measure) + count_mean(measure, c), c.denominator(measure))


def count_params(measure: str, c: PoolCounts, variance: str):
    """The (n, p) of the binomial reading, or None for the hypergeometric model."""
    u = np.asarray(c.u, float)
    if variance == "paper":
        # eqs 3.5, 3.9 (n = |U_R+|) and 3.11, read as sigma^2(Sp) (n = |U_R-|), p = eps_O+(U)
        n = c.u_rneg if measure == "specificity" else c.u_rpos
        return n, _safe_div(c.u_pos, u)
    if variance == "oracle_binomial":
        # Remark II reading: n = |U_O+| (Pr, Se) or |U_O-| (Sp), p = eps_R+(U) or eps_R-(U)
        if measure == "specificity":
            return c.u_neg, _safe_div(c.u_rneg, u)
        return c.u_pos, _safe_div(c.u_rpos, u)
    return None


def count_variance(measure: str, c: PoolCounts, variance: str = "hypergeometric"):
    r"""Variance of the unknown count TP_U or TN_U.

    ``"hypergeometric"`` (exact, both margins fixed):
    :math:`V_U = |U_{R+}||U_{R-}||U_{O+}||U_{O-}| / (|U|^2 (|U|-1))`, the same for the
    three measures. ``"paper"``: :math:`n\,ε(1-ε)` with :math:`n = |U_{R+}|` (Pr, Se)
    or :math:`|U_{R-}|` (Sp; printed as σ²(Pr) in eq 3.11). ``"oracle_binomial"``:
    Remark II's reading, :math:`n = |U_{O\pm}|`, :math:`p = ε_{R\pm}(U)`.
    """
    params = count_params(measure, c, variance)
    if params is None:
        u = np.asarray(c.u, float)
        num = c.u_rpos * c.u_rneg * c.u_pos * c.u_neg
        return _safe_div(num, u * u * (u - 1.0))
    n, p = params
    return np.asarray(n, float) * p * (1.0 - p)


def log_term(delta):
    """L_δ = log(2/δ)."""
    return np.log(2.0 / np.asarray(delta, float))


def bernstein_count_halfwidth(v, delta):
    r"""Exact inversion of :math:`2\exp(-\tfrac{s^2/2}{V + s/3}) = δ`.

    :math:`s = L_δ/3 + \sqrt{L_δ^2/9 + 2 V L_δ}`; zero when V = 0 (the count is then
    a constant). Valid for sums of independent terms with |X_i - EX_i| ≤ 1 and total
    variance V. This covers the hypergeometric count with its own (finite-population)
    variance V_U: the hypergeometric probability generating function has only real
    roots, so the count is a sum of independent Bernoulli variables with different
    success probabilities (Vatutin & Mikhailov 1982; Pitman 1997). Hoeffding's (1963)
    convex-order argument alone would only justify the larger binomial variance.
    """
    v = np.asarray(v, float)
    lt = log_term(delta)
    s = lt / 3.0 + np.sqrt(lt * lt / 9.0 + 2.0 * v * lt)
    return np.where(v > 0, s, 0.0)


def paper_count_halfwidth(v, delta):
    r"""The paper's constant-4 form :math:`s = 2\sqrt{V L_δ}` (Props 3.1-3.3).

    It follows from the Bernstein tail only when :math:`V ≥ (4/9) L_δ`; see
    :func:`paper_form_valid`.
    """
    return 2.0 * np.sqrt(np.asarray(v, float) * log_term(delta))


def paper_form_valid(v, delta):
    """True where the constant-4 simplification is implied by Bernstein: V ≥ (4/9) L_δ."""
    v = np.asarray(v, float)
    return (v >= 4.0 / 9.0 * log_term(delta)) | (v == 0)


def _dist(measure: str, c: PoolCounts, variance: str):
    """Frozen scipy distribution of the unknown count (shifted for Sp), rounded to integers,
    and its mean."""
    params = count_params(measure, c, variance)
    if params is None:
        m = np.maximum(np.rint(np.asarray(c.u, float)).astype(np.int64), 0)
        n_succ = np.clip(np.rint(np.asarray(c.u_pos, float)).astype(np.int64), 0, m)
        draws = np.clip(np.rint(np.asarray(c.u_rpos, float)).astype(np.int64), 0, m)
        return Discrete("hypergeom", m, n_succ, draws), _safe_div(draws * n_succ, m)
    n, p = params
    n = np.rint(np.asarray(n, float)).astype(np.int64)
    p = np.clip(p, 0, 1)
    return Discrete("binom", n, p), n * p


def _support(dist):
    """Integer support [lo, hi] of a frozen hypergeom or binom (array parameters)."""
    if dist.name == "hypergeom":
        m, n_succ, draws = dist.args
        return np.maximum(0, draws - (m - n_succ)), np.minimum(n_succ, draws)
    n, _ = dist.args
    return np.zeros_like(n), n


#: above this standard deviation a count's quantiles come from the one-term
#: Cornish-Fisher (skewness-corrected normal) approximation instead of a discrete search;
#: it matched scipy's exact quantile in 1,200 random checks with sd >= 50 (see tests)
CONTINUOUS_SD = 50.0


def _moments(dist):
    """Variance and skewness of a frozen hypergeom or binom with array parameters."""
    if dist.name == "hypergeom":
        m, n_succ, draws = (np.asarray(a, float) for a in dist.args)
        var = _safe_div(draws * n_succ * (m - n_succ) * (m - draws), m * m * (m - 1))
        num = (m - 2 * n_succ) * np.sqrt(np.maximum(m - 1, 0)) * (m - 2 * draws)
        den = np.sqrt(np.maximum(draws * n_succ * (m - n_succ) * (m - draws), 0)) * (m - 2)
        return var, _safe_div(num, den)
    n, p = (np.asarray(a, float) for a in dist.args)
    var = n * p * (1 - p)
    return var, _safe_div(1 - 2 * p, np.sqrt(var))


def discrete_ppf(dist, q, mean):
    """``dist.ppf(q)`` (smallest integer x with cdf(x) >= q) for array-valued frozen
    distributions.

    Where the standard deviation exceeds :data:`CONTINUOUS_SD` the quantile is the
    Cornish-Fisher approximation :math:`μ + σ(z + γ(z^2-1)/6)`, rounded up (pools of
    1e12 examples answer at once; a discrete search is pointless there). Elsewhere it
    starts from that approximation and steps with vectorised cdf calls (scipy's generic
    discrete ``ppf`` searches element by element).
    """
    lo, hi = _support(dist)
    var, skew = _moments(dist)
    sd = np.sqrt(np.maximum(var, 0))
    z = stats.norm.ppf(q)
    approx = np.clip(np.ceil(mean + sd * (z + skew * (z * z - 1) / 6.0) - 0.5), lo, hi)
    x, q, big = np.broadcast_arrays(approx.astype(float), np.asarray(q, float),
                                    sd > CONTINUOUS_SD)
    x = x.copy()
    small = ~big
    if not small.any():
        return x
    sub = _subset(dist, small, x.shape)
    lo_s, hi_s = (np.broadcast_to(a, x.shape)[small] for a in (lo, hi))
    x[small] = _step_search(sub, x[small], q[small], lo_s, hi_s)
    return x


def _step_search(dist, x, q, lo, hi):
    """Move each x up while cdf(x) < q, then down while cdf(x - 1) >= q (vectorised).

    Hypergeometric laws on pools above 1e7 (where log-gamma differences lose precision)
    use the binomial with the same draws: slightly wider, hence conservative.
    """
    if dist.name == "hypergeom":
        m, n_succ, draws = (np.asarray(a, float) for a in dist.args)
        big = m > 1e7
        if big.any() and not big.all():
            out = x.copy()
            for mask in (big, ~big):
                sub = Discrete(dist.name, *(np.asarray(a)[mask] for a in dist.args))
                out[mask] = _step_search(sub, x[mask], q[mask], lo[mask], hi[mask])
            return out
        if big.all():
            dist = Discrete("binom", draws.astype(np.int64), n_succ / m)
    for _ in range(10_000):
        up = (dist.cdf(x) < q) & (x < hi)
        down = ~up & (x > lo) & (dist.cdf(x - 1) >= q)
        if not (up.any() or down.any()):
            break
        x = x + up - down
    return x


def _subset(dist, mask, shape):
    """The frozen distribution restricted to the elements ``mask`` (after broadcasting)."""
    args = [np.broadcast_to(np.asarray(a), shape)[mask] for a in dist.args]
    return Discrete(dist.name, *args)


def exact_count_halfwidth(measure: str, c: PoolCounts, variance: str, delta):
    """Half-width of the central (δ/2, 1-δ/2) quantile interval of the count, about its mean.

    P(q_lo ≤ X ≤ q_hi) ≥ 1 - δ for integer quantiles ``ppf``; the half-width is the
    larger distance from the mean to the two quantiles.
    """
    dist, mean = _dist(measure, c, variance)
    delta = np.asarray(delta, float)
    lo = discrete_ppf(dist, delta / 2.0, mean)
    hi = discrete_ppf(dist, 1.0 - delta / 2.0, mean)
    return np.maximum(np.maximum(mean - lo, hi - mean), 0.0)


def count_halfwidth(measure: str, c: PoolCounts, variance: str, bound: str, delta):
    """Half-width of the unknown count under ``bound`` (see module docstring)."""
    if bound == "exact":
        return exact_count_halfwidth(measure, c, variance, delta)
    v = count_variance(measure, c, variance)
    if bound == "bernstein":
        return bernstein_count_halfwidth(v, delta)
    return paper_count_halfwidth(v, delta)


def measure_halfwidth(measure: str, c: PoolCounts, variance: str, bound: str, delta):
    """Half-width of the measure: count half-width divided by its denominator."""
    return _safe_div(count_halfwidth(measure, c, variance, bound, delta),
                     c.denominator(measure))


def tail_probability(measure: str, c: PoolCounts, variance: str, bound: str, xi):
    """Bound on P(|measure - E measure| ≥ ξ) (eqs 3.6, 3.12, 3.13 and their variants)."""
    s = np.asarray(xi, float) * c.denominator(measure)
    if bound == "exact":
        dist, mean = _dist(measure, c, variance)
        # P(X <= mean - s) + P(X >= mean + s), integer support
        p = dist.cdf(np.floor(mean - s + 1e-9)) + dist.sf(np.ceil(mean + s - 1e-9) - 1)
        return np.minimum(p, 1.0)
    v = count_variance(measure, c, variance)
    with np.errstate(divide="ignore", invalid="ignore"):
        if bound == "bernstein":
            expo = (s * s / 2.0) / (v + s / 3.0)
        else:
            expo = s * s / (4.0 * v)
    p = np.where(v > 0, 2.0 * np.exp(-expo), np.where(s > 0, 0.0, 1.0))
    return np.minimum(p, 1.0)


def deterministic_range(measure: str, c: PoolCounts):
    """Rule-agnostic range of the measure: the unknown count lies in its support.

    TP_U ∈ [max(0, |U_R+| - |U_O-|), min(|U_R+|, |U_O+|)]; TN_U likewise.
    """
    if measure == "specificity":
        lo = np.maximum(0.0, c.u_rneg - c.u_pos)
        hi = np.minimum(c.u_rneg, c.u_neg)
    else:
        lo = np.maximum(0.0, c.u_rpos - c.u_neg)
        hi = np.minimum(c.u_rpos, c.u_pos)
    d = c.denominator(measure)
    k = c.known_count(measure)
    return _safe_div(k + lo, d), _safe_div(k + hi, d)


# -- prevalence estimation (Prop 4.1) -----------------------------------------------------
#: prevalence samples up to this size are checked size by size (larger: bisection)
MAX_SIZE_SCAN = 20_000


def prevalence_sample_size(prevalence: float, half_width: float, delta: float,
                           bound: str, n_pool: int | None = None) -> int:
    """Random labels |M| so that |ε̂ - ε_S| ≤ ``half_width`` with probability ≥ 1 - δ.

    ``bernstein_paper``: eq 4.31, |M| = 4 ε(1-ε) L_δ / h². ``bernstein``: exact inversion
    of the Bernstein tail for the mean of |M| Bernoulli terms, i.e. the smallest |M| with
    h|M| ≥ L_δ/3 + sqrt(L_δ²/9 + 2|M|ε(1-ε)L_δ), which solves to
    |M| = (2 h L_δ/3 + 2 ε(1-ε) L_δ) / h². ``exact``: smallest |M| whose expected-count
    Clopper-Pearson interval (statsmodels ``proportion_confint(method="beta")``) has
    both sides ≤ h (hypergeometric quantiles are used instead when ``n_pool`` is given,
    sampling without replacement).
    """
    var = prevalence * (1.0 - prevalence)
    lt = float(log_term(delta))
    if bound == "bernstein_paper":
        m = int(np.ceil(4.0 * var * lt / half_width ** 2))
    elif bound == "bernstein":
        m = int(np.ceil((2.0 * half_width * lt / 3.0 + 2.0 * var * lt) / half_width ** 2))
    else:
        m = _exact_prevalence_size(prevalence, half_width, delta, n_pool)
    return m if n_pool is None else min(m, int(n_pool))


def _exact_prevalence_size(p: float, h: float, delta: float, n_pool: int | None) -> int:
    from statsmodels.stats.proportion import proportion_confint

    def ok_all(ms: np.ndarray) -> np.ndarray:
        """Whether the central 1 − δ interval of ε̂ from each size in ``ms`` is within h."""
        if n_pool is not None:
            # the δ/2 quantile is >= L iff cdf(L - 1) < δ/2, the 1 - δ/2 quantile is <= U
            # iff cdf(U) >= 1 - δ/2: two cdf calls instead of two quantile searches
            pos = int(round(p * n_pool))
            d = Discrete("hypergeom", np.full(ms.shape, n_pool), np.full(ms.shape, pos), ms)
            low = np.ceil(ms * (p - h) - 1e-9)
            high = np.floor(ms * (p + h) + 1e-9)
            return (d.cdf(low - 1) < delta / 2) & (d.cdf(high) >= 1 - delta / 2)
        else:
            lo, hi = proportion_confint(np.rint(p * ms), ms, alpha=delta, method="beta")
        return np.maximum(p - lo, hi - p) <= h

    def ok(m: int) -> bool:
        return bool(ok_all(np.array([m]))[0])

    hi_m = max(8, int(np.ceil(np.log(2 / delta) / (2 * h * h))) + 1)  # Hoeffding size
    if n_pool is not None:
        hi_m = min(hi_m, int(n_pool))
    if not ok(hi_m):
        return hi_m
    if hi_m <= MAX_SIZE_SCAN:
        # every size: the smallest m from which every larger size passes. The discrete
        # criterion is not monotone in m, but it is in δ for each m, so these sets are
        # nested and the size never falls when δ does (bisection gave 9 labels at 80 %
        # and 7 at 85 % on a 285-item pool)
        ms = np.arange(1, hi_m + 1)
        # in chunks: the cdf's summation window is set by the widest law of a call
        passed = np.concatenate([ok_all(c) for c in np.array_split(ms, max(1, hi_m // 2000))])
        fails = np.flatnonzero(~passed)
        return int(ms[fails[-1]] + 1) if fails.size else 1
    from ._common import first_true

    return first_true(ok, 1, hi_m)  # bisection on a (nearly) monotone criterion
