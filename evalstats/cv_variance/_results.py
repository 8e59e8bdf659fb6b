r"""Result classes of ``cv_variance``: :class:`CVErrorResult`, :class:`CompareLearnersResult`.

Interval methods (stored in the one field ``interval_method``; ``conf_int(method=...)``
recomputes any of them from the stored estimate, standard error and df):

* ``"t"`` — Θ̂ ± q·se;
* ``"log"`` — exp(log Θ̂ ± q·se/Θ̂) (delta method on the log scale; non-negative losses);
* ``"logit"`` — the same on the logit scale of the declared range [a, b] (bounded losses:
  zero-one, AUC): p = (Θ̂ − a)/(b − a), logit p ± q·se/((b − a)p(1 − p));
  where a transformed interval is undefined (Θ̂ on the edge of the range, logit of an
  unbounded loss) ``conf_int`` gives the t interval;
* ``"normal"`` — Θ̂ ± z·se (the source's asymptotic interval);
* ``"t_skew"``, ``"log_skew"``, ``"logit_skew"`` — the same three intervals with the
  skewness correction of the studentized statistic (:func:`skew_limits`): the interval
  on the transformed scale f is [f(Θ̂) − k_lo·se_f, f(Θ̂) + k_hi·se_f] with
  k_lo ≈ q − s, k_hi ≈ q + s (:func:`skew_shift`).

q is :func:`evalstats._result.critical_value` with the result's ``df``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from scipy import stats

from .._result import ConfidenceInterval, EvalResult, _get_ax, critical_value, wald_interval
from ._score import score_limits

__all__ = ["CVErrorResult", "CompareLearnersResult", "INTERVAL_METHODS", "TEST_NAMES",
           "transformed_ok",
           "skew_shift", "skew_limits", "skew_shrink", "skew_statistic", "skew_terms",
           "skew_test", "skew_cap", "SKEW_CUBIC_FLOOR"]

#: interval methods of a single learner's result (first: the class default)
INTERVAL_METHODS = ("t", "log", "logit", "normal", "t_skew", "log_skew", "logit_skew")
#: the summary's words for each ``method`` value
_METHOD_WORDS = {"ustat": "U-statistic variance (ustat)",
                 "naive_t": "naive CV t (naive_t)",
                 "corrected_t": "Nadeau-Bengio corrected t (corrected_t)",
                 "5x2cv": "Dietterich 5x2cv t (5x2cv)",
                 "bayle": "Bayle et al. CV interval (bayle)",
                 "nested_cv": "nested CV (nested_cv)"}
#: the test that goes with each interval of ``compare_learners`` (statistic and p-value)
TEST_NAMES = {
    "t": "Wald t test: T = (Θ̂_A − Θ̂_B)/se against t(df)",
    "t_score": "score-type test: Z = T/√max(1 − ρ̂T/2, ½) against t(df)",
    "t_skew": "skewness-corrected t test: h(T) (Hall's cubic) against t(df)",
    "normal": "Wald z test: T = (Θ̂_A − Θ̂_B)/se against N(0, 1)",
}


def _clip(lo, hi, bounds) -> ConfidenceInterval:
    return ConfidenceInterval(float(np.clip(lo, *bounds)), float(np.clip(hi, *bounds)))


def diff_range(bounds) -> tuple[float, float]:
    """Range of a difference of two losses with range ``bounds``."""
    return (bounds[0] - bounds[1], bounds[1] - bounds[0])


def transformed_ok(method: str, estimate: float, bounds) -> bool:
    """Whether the log/logit interval is defined at ``estimate`` for a loss in ``bounds``."""
    lo, hi = bounds
    if method == "log":
        return lo >= 0 and estimate > 0
    if method == "logit":
        return np.isfinite(lo) and np.isfinite(hi) and lo < estimate < hi
    return True


def curvature(method: str, est: float, se: float, bounds) -> float:
    r"""c = se·f''(Θ̂)/f'(Θ̂) of the interval's scale f (0 for t, −se/Θ̂ for log,
    se·(2p − 1)/((b − a)p(1 − p)) for logit with p = (Θ̂ − a)/(b − a))."""
    if method == "log":
        return -se / est
    if method == "logit":
        a, b = bounds
        p = (est - a) / (b - a)
        return se * (2 * p - 1) / ((b - a) * p * (1 - p))
    return 0.0


def skew_shift(q: float, skewness: float, c: float = 0.0) -> float:
    r"""First-order location shift s (in standard errors of the interval's scale) of the
    skewness-corrected studentized interval; see :func:`skew_limits`.

    Let Θ̂ have variance σ² and skewness γ (third cumulant γσ³), let f be the interval's
    scale with c = σ f''(θ)/f'(θ), and let the first-order fluctuation of V̂ be that of a
    studentized mean, Cov(Θ̂, V̂) = γσ³ (V̂ ≈ Σ_k a_k², the Hoeffding projection). With
    ε = (Θ̂ − θ)/σ and δ = (V̂ − σ²)/σ², the statistic T = (f(Θ̂) − f(θ))/(f'(Θ̂)√V̂)
    expands as T ≈ ε − cε²/2 − εδ/2, so E T ≈ −(γ + c)/2 and κ₃(T) ≈ −2γ − 3c. The
    Cornish–Fisher expansion q_p = z_p + E T + κ₃(T)(z_p² − 1)/6 then gives

    .. math:: q_p = z_p - s,\qquad s = \frac{\gamma(2 z_p^2 + 1) + 3 c z_p^2}{6},

    the same s at p and 1 − p: to this order the correction of a two-sided interval is a
    shift by s·se_f. With c = 0 this is the correction of Johnson (1978) and Hall (1992)
    for a studentized mean; on the log scale c = −σ/θ partly cancels γ (a gamma
    variable has γ = 2σ/θ: the log interval removes about 2/3 of its shift at z = 2), so
    the correction is not applied twice. ``q`` (a t quantile here) takes the place of z_p.
    A non-finite γ gives s = 0.
    """
    if not np.isfinite(skewness):
        return 0.0
    return float((skewness * (2 * q * q + 1) + 3 * c * q * q) / 6.0)


#: Floor on the cube-root argument 1 + 3A(±q − B) of Hall's cubic used by
#: ``compare_learners`` (see :func:`skew_shrink`): the long-side limit is then at most
#: 3(q + |B|)(1 − 0.125^{1/3})/0.875 ≈ 1.71 (q + |B|).
SKEW_CUBIC_FLOOR = 0.125


def _hall_coefficients(skewness: float, c: float, coupling: float | None,
                       q: float | None = None, floor: float | None = None):
    """(A, B) of Hall's cubic h(x) = x + A x² + A² x³/3 + B (see :func:`skew_limits`);
    with ``q`` and ``floor``, A is shrunk by :func:`skew_shrink`."""
    skewness = float(np.clip(skewness, -1.0, 1.0))
    if coupling is None or not np.isfinite(coupling):
        A = (2 * skewness + 3 * c) / 6.0
    else:
        A = (3 * float(np.clip(coupling, -1.0, 1.0)) + 3 * c - skewness) / 6.0
    B = skewness / 6.0
    if q is not None and floor is not None:
        A *= _shrink(A, B, q, floor)
    return A, B


def _shrink(A: float, B: float, q: float, floor: float) -> float:
    lam = 1.0
    for y in (q, -q):
        d = 3 * A * (y - B)
        if 1 + d < floor:
            lam = min(lam, (floor - 1) / d)
    return lam


def skew_shrink(q: float, skewness: float, c: float = 0.0, coupling: float | None = None,
                floor: float = SKEW_CUBIC_FLOOR) -> float:
    r"""Factor λ ∈ (0, 1] applied to A of Hall's cubic so that both limits of
    :func:`skew_limits` at quantile ``q`` keep 1 + 3λA(±q − B) ≥ ``floor``.

    Hall's cubic is flat at x = −1/A; as the cube-root argument 1 + 3A(y − B) of a limit
    approaches 0, that limit grows without bound (at 0 it is 1/|A| ≈ 3q), so a noisy γ̂ or
    ρ̂ near ±1 would make the interval (and the test) arbitrarily one-sided. λ < 1 keeps
    the direction of the correction but caps the long-side multiplier at
    3(q + |B|)(1 − floor^{1/3})/(1 − floor) (≈ 1.71 (q + |B|) at the default 0.125).
    1.0 when no shrink is needed or
    γ is not finite.
    """
    if not np.isfinite(skewness):
        return 1.0
    A, B = _hall_coefficients(skewness, c, coupling)
    return _shrink(A, B, q, floor)


def skew_terms(skewness: float, coupling: float) -> tuple[float, float | None]:
    r"""(γ, ρ) for :func:`skew_limits` from the projection skewness γ̂₁ and the coupling ρ̂.

    With ρ̂ available, γ = (3ρ̂ − γ̂₁)/2: for Θ̂ − θ ≈ Σ a_k + Σ_{k<l} b_kl (Hoeffding),
    κ₃(Θ̂) ≈ A₃ + 3B₃ and Cov(Θ̂, V̂) ≈ A₃ + 2B₃ with A₃ = Σ E a_k³ (what γ̂₁ estimates)
    and B₃ = Σ_{k≠l} E a_k a_l b_kl, so the second-order part that γ̂₁ misses is read off
    ρ̂. Without ρ̂: (γ̂₁, None), the studentized-mean rule ρ = γ.
    """
    if not np.isfinite(coupling):
        return skewness, None
    return (3 * coupling - skewness) / 2, coupling


def skew_statistic(t: float, skewness: float, c: float = 0.0,
                   coupling: float | None = None, q: float | None = None,
                   floor: float | None = None) -> float:
    """h(T): the studentized statistic through Hall's cubic of :func:`skew_limits`.

    The skew interval at level 1 − α excludes a value iff |h(T)| exceeds the t quantile
    q (its limits are h⁻¹(±q)), so 2·P(t_ν > |h(T)|) is the p-value of that test.
    A non-finite γ returns T. With ``q`` and ``floor`` the cubic is that of
    :func:`skew_shrink` (the test then matches the shrunk interval at that q).
    """
    if not np.isfinite(skewness):
        return float(t)
    A, B = _hall_coefficients(skewness, c, coupling, q, floor)
    return float(t + A * t * t + A * A * t ** 3 / 3 + B)


def skew_cap(floor: float = SKEW_CUBIC_FLOOR) -> float:
    """Largest long-side multiplier of the shrunk cubic in units of q + |B|:
    3(1 − floor^{1/3})/(1 − floor) (:func:`skew_shrink`; ≈ 1.71 at the default)."""
    return 3 * (1 - floor ** (1 / 3)) / (1 - floor)


def skew_test(stat: float, skewness: float, coupling: float,
              q: float) -> tuple[float, float, float]:
    """(h(T), γ, λ) of the coupling-corrected test at t quantile ``q``: γ and ρ from
    :func:`skew_terms`, the cubic shrunk to :data:`SKEW_CUBIC_FLOOR` (λ from
    :func:`skew_shrink`). Without a finite ρ̂: (T, γ̂₁, NaN), the uncorrected test.
    ``compare_learners`` computes its p-value 2·P(t_ν > |h|) so."""
    gamma, rho = skew_terms(skewness, coupling)
    if rho is None:
        return float(stat), float(gamma), float("nan")
    h = skew_statistic(stat, gamma, coupling=rho, q=q, floor=SKEW_CUBIC_FLOOR)
    return h, float(gamma), skew_shrink(q, gamma, coupling=rho)


def skew_limits(q: float, skewness: float, c: float = 0.0,
                coupling: float | None = None,
                floor: float | None = None) -> tuple[float, float]:
    r"""Multipliers (k_lo, k_hi) of the skewness-corrected interval
    [f(Θ̂) − k_lo·se_f, f(Θ̂) + k_hi·se_f] on the interval's scale f.

    The first-order Cornish–Fisher quantiles q ∓ s of :func:`skew_shift` are not monotone
    in q (intervals at 99 % and 95 % would not nest once q·γ is large). As Hall (1992b)
    does for the studentized mean, the statistic T is instead mapped by the monotone
    cubic h(x) = x + A x² + A² x³/3 + B, A = (2γ + 3c)/6, B = γ/6, which removes the
    first-order mean and skewness of T (E T ≈ −(γ + c)/2 and κ₃(T) ≈ −2γ − 3c, see
    :func:`skew_shift`; with c = 0 these are Hall's a = γ/3, b = γ/6), and h(T) is
    referred to ±q:

    .. math:: h^{-1}(y) = \frac{(1 + 3A(y - B))^{1/3} - 1}{A},\qquad
              k_{lo} = h^{-1}(q),\quad k_{hi} = -h^{-1}(-q).

    h is increasing (h' = (1 + Ax)² ≥ 0), so the limits nest in q, and to first order
    k_lo = q − s, k_hi = q + s. A non-finite γ gives (q, q).

    Caveat: h is flat at x = −1/A, and once −q lies
    below h(−1/A) = B − 1/(3A) the long-tail limit grows fast — on the t scale with
    q = 2.1, k_hi = 2.3, 2.9, 8.7 at γ = 0.1, 0.3, 0.5 — so the raw-scale interval
    ``"t_skew"`` is very wide for strongly skewed losses at small n. On the log scale
    c ≈ −σ/θ keeps A small. For |γ| > 1 the interval would even become *narrower* than
    the uncorrected one, outside any range where the expansion holds, so γ is clipped to
    [−1, 1].

    ``coupling`` ρ = Cov(Θ̂, V̂)/σ³ replaces the studentized-mean assumption ρ = γ:
    then E T ≈ −(ρ + c)/2 and κ₃(T) ≈ γ − 3ρ − 3c (same expansion), so
    A = (3ρ + 3c − γ)/6 and B = γ/6 (ρ = γ gives the formula above). ρ is clipped to
    [−1, 1] like γ.

    ``floor`` (``compare_learners`` uses :data:`SKEW_CUBIC_FLOOR`) shrinks A by
    :func:`skew_shrink` so that neither limit nears the flat point; ``cv_error_ci``'s
    ``*_skew`` options use the unshrunk cubic (as measured in the benchmark).
    """
    if not np.isfinite(skewness):
        return float(q), float(q)
    A, B = _hall_coefficients(skewness, c, coupling, q, floor)

    def inv(y):
        if abs(A) < 1e-12:
            return y - B
        return float((np.cbrt(1 + 3 * A * (y - B)) - 1) / A)

    return inv(q), -inv(-q)


def _transformed(method, est, se, lo_q, hi_q, bounds) -> tuple[float, float]:
    if method == "log":
        h = se / est
        with np.errstate(over="ignore"):
            return est * np.exp(-lo_q * h), est * np.exp(hi_q * h)
    a, b = bounds
    p = (est - a) / (b - a)
    h = se / ((b - a) * p * (1 - p))
    eta = np.log(p / (1 - p))
    return (a + (b - a) / (1 + np.exp(-(eta - lo_q * h))),
            a + (b - a) / (1 + np.exp(-(eta + hi_q * h))))


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class CVErrorResult(EvalResult):
    r"""Expected loss θ(g) of a learner trained on ``g`` observations, with an interval.

    Attributes
    ----------
    train_size : int
        Learning-set size g (the estimand is θ(g)).
    loss : str
        Loss name (``"auc"``: the estimate is an AUC, higher is better).
    interval_method : {"t", "log", "logit", "normal", "t_skew", "log_skew", "logit_skew"}
        Default interval of ``conf_int()`` (see the module docstring); baselines use
        ``"t"`` with their own df.
    std_error : float
        √(max(V̂, V̂₁) + se_MC(Θ̂)²): V̂ raised to its leading term when below it (a
        note says so), plus the Monte-Carlo noise of the draws.
    variance_estimate : float
        V̂ as computed (may be negative: see ``variance_fallback``).
    variance_mc_se, mc_se : float
        Monte-Carlo standard errors of V̂ and Θ̂ (randomness of the draws, data fixed).
    leading_variance : float
        The first-order (Hájek) term m²ζ₁/n of Var(Θ̂) estimated from the same draws.
    n_draws, n_fits : int
        Draws (pairs of disjoint learning sets) and model fits used.
    variance_fallback : str
        ``""`` when V̂ > 0 was used; ``"leading_term"`` or ``"bound"`` when V̂ stayed ≤ 0
        and the leading term (or, if that is not positive either, the conservative
        bound) replaced it.
    hoeffding_bound, hoeffding_draws : float
        The talk's bound 2·exp(−δ²N/2) on P(|V̂_N − V̂| ≥ δ) with δ = mc_tol·V̂, and the
        number of draws it would need to reach 5 % (losses in [0, 1] only, else NaN).
    split_scores : ndarray or None
        Per-split scores of a baseline method.
    loss_range : (float, float)
        Declared range of the loss; intervals are clipped to it.
    skewness : float
        Skewness γ̂ of Θ̂ estimated from the first-order projection terms of the draws
        (:func:`~evalstats.cv_variance._draws.projection_skewness`); used by the
        ``"*_skew"`` intervals (NaN for baselines: they are uncorrected).
    coupling : float
        ρ̂ = Ĉov_J(Θ̂, V̂)/V̂^{3/2}, the delete-one jackknife coupling of the estimate and
        its variance estimate (:func:`~evalstats.cv_variance._jackknife.coupling`); with
        it the ``"*_skew"`` intervals use the full skewness (3ρ̂ − γ̂₁)/2. NaN for the AUC,
        g = 0, V̂ ≤ 0 and baselines.
    """

    train_size: int = 0
    loss: str = "zero_one"
    variance_estimate: float = float("nan")
    variance_mc_se: float = float("nan")
    mc_se: float = float("nan")
    leading_variance: float = float("nan")
    n_draws: int = 0
    n_fits: int = 0
    variance_fallback: str = ""
    hoeffding_bound: float = float("nan")
    hoeffding_draws: float = float("nan")
    split_scores: np.ndarray | None = None
    loss_range: tuple = (-np.inf, np.inf)
    skewness: float = float("nan")
    coupling: float = float("nan")

    INTERVAL_METHODS: ClassVar[tuple[str, ...]] = INTERVAL_METHODS

    @property
    def interval(self) -> str:
        """Deprecated spelling of ``interval_method``."""
        import warnings

        warnings.warn("`interval` is deprecated; use `interval_method`", FutureWarning,
                      stacklevel=2)
        return self.interval_method

    def _interval(self, level: float, method: str) -> ConfidenceInterval:
        if self.std_error is None or not np.isfinite(self.std_error):
            return ConfidenceInterval(float("nan"), float("nan"))
        edge = self._boundary_interval(level)
        if edge is not None:
            return edge
        skew = method.endswith("_skew")
        scale = method[:-5] if skew else method
        if scale in ("log", "logit") and not transformed_ok(scale, self.estimate,
                                                            self.loss_range):
            scale = "t"  # undefined (boundary, or logit of an unbounded loss): t interval
        q = critical_value(level, None if scale == "normal" else self.df)
        if skew:
            gamma, rho = self._skew_terms()
            k_lo, k_hi = skew_limits(q, gamma, curvature(
                scale, self.estimate, self.std_error, self.loss_range), coupling=rho)
        else:
            k_lo, k_hi = q, q
        if scale in ("log", "logit"):
            lo, hi = _transformed(scale, self.estimate, self.std_error, k_lo, k_hi,
                                  self.loss_range)
        else:
            lo = self.estimate - k_lo * self.std_error
            hi = self.estimate + k_hi * self.std_error
        return _clip(lo, hi, self.loss_range)

    def _boundary_interval(self, level: float) -> ConfidenceInterval | None:
        """Every held-out loss at one end of a bounded range (s.e. 0): the zero-failure
        Clopper–Pearson limit of the ``n`` observations, ``1 − (α/2)^(1/n)`` of the range
        from that end. The variance estimates are all 0 there, and a tree that separated
        n = 30 points got [0, 0] at any level; an estimate of 0 from 30 cases has a 95 %
        upper limit near 3/n, not 0. (Dependence between the cases is ignored.)"""
        lo_r, hi_r = (self.loss_range if self.loss_range is not None
                      else (float("nan"), float("nan")))
        if self.std_error != 0 or not (np.isfinite(lo_r) and np.isfinite(hi_r)) or not self.n:
            return None
        reach = (hi_r - lo_r) * (1.0 - (0.5 * (1.0 - level)) ** (1.0 / self.n))
        if self.estimate <= lo_r:
            return ConfidenceInterval(float(lo_r), float(lo_r + reach))
        if self.estimate >= hi_r:
            return ConfidenceInterval(float(hi_r - reach), float(hi_r))
        return None

    def _skew_terms(self) -> tuple[float, float | None]:
        """(γ, ρ) for :func:`skew_limits` (:func:`skew_terms`)."""
        return skew_terms(self.skewness, self.coupling)

    def _glance_extra(self) -> dict[str, Any]:
        return dict(train_size=self.train_size, loss=self.loss,
                    interval_method=self.interval_method,
                    variance_estimate=self.variance_estimate,
                    variance_mc_se=self.variance_mc_se, mc_se=self.mc_se,
                    leading_variance=self.leading_variance, df=self.df,
                    n_draws=self.n_draws, n_fits=self.n_fits,
                    variance_fallback=self.variance_fallback, skewness=self.skewness,
                    coupling=self.coupling,
                    unreliable=bool(self.diagnostics.get("unreliable", False)))

    def _title(self) -> str:
        return f"Expected {'AUC' if self.loss == 'auc' else 'loss'} of a learner (θ(g))"

    def _header(self) -> dict[str, Any]:
        hdr = super()._header()
        hdr["Method"] = _METHOD_WORDS.get(self.method, self.method)
        hdr["Learning-set size g"] = self.train_size
        hdr["Loss"] = self.loss
        hdr["Interval"] = self.interval_method if self.df is None else (
            f"{self.interval_method} (t quantile, df = {self.df:.3g})")
        if self.method == "ustat":
            hdr["Variance estimate V"] = self.variance_estimate
            hdr["MC s.e. of estimate / of V"] = f"{self.mc_se:.3g} / {self.variance_mc_se:.3g}"
            hdr["Draws / fits"] = f"{self.n_draws} / {self.n_fits}"
            if self.variance_fallback:
                hdr["Variance fallback"] = self.variance_fallback
        else:
            hdr["Fits"] = self.n_fits
        return hdr

    def _axis_label(self) -> str:
        if self.loss == "auc":
            return "AUC of the learner trained on g observations"
        name = {"zero_one": "error rate (0-1 loss)", "squared": "mean squared error",
                "log": "log loss"}.get(self.loss, f"loss ({self.loss})")
        return f"expected {name}"

    def plot(self, ax=None, **kwargs):
        """The interval at 80/90/95/99 % (and the split scores of a baseline); an Axes."""
        ax = _get_ax(ax)
        if self.split_scores is not None:
            s = np.asarray(self.split_scores, float).ravel()
            ax.plot(s, np.zeros_like(s), "|", ms=20, color="grey", label="split scores")
        levels = (0.8, 0.9, 0.95, 0.99)
        color = kwargs.pop("color", "C0")
        for k, lev in enumerate(levels):
            lo, hi = self.conf_int(lev)
            ax.plot([lo, hi], [k + 1, k + 1], lw=3, color=color, alpha=0.45 + 0.15 * k,
                    solid_capstyle="butt", **kwargs)
        ax.axvline(self.estimate, color="k", ls="--", lw=1, label=f"estimate {self.estimate:.3g}")
        self._decorate(ax)
        ax.set_yticks(range(1, len(levels) + 1), [f"{100 * lev:g}%" for lev in levels])
        ax.set_ylim(0.3 if self.split_scores is None else -0.7, len(levels) + 1.2)
        ax.set_ylabel("confidence level of the interval")
        ax.set_xlabel(self._axis_label())
        ax.set_title(f"{self._title()}, g = {self.train_size}, {self.method}")
        ax.legend(frameon=False, loc="upper left", fontsize="small", ncols=2)
        return ax

    def _decorate(self, ax) -> None:
        """Hook for subclasses (the comparison adds the zero line)."""


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class CompareLearnersResult(CVErrorResult):
    r"""Difference θ_A(g) − θ_B(g) of two learners on the same draws, with a test.

    Attributes
    ----------
    estimate_a, estimate_b : float
        Θ̂ of each learner.
    std_error_a, std_error_b : float
        Their standard errors (√V̂ on the same draws; NaN if V̂ ≤ 0).
    covariance : float
        Ĉov(Θ̂_A, Θ̂_B) = (V̂_A + V̂_B − V̂_{A−B}) / 2.
    statistic, p_value : float
        The studentized difference T = (Θ̂_A − Θ̂_B)/se and the two-sided p-value of
        H0: θ_A = θ_B under ``interval_method`` (t with ``df``, corrected by default).
    names : tuple of str
        Names of the two learners.
    interval_method : {"t_skew", "t_score", "t", "normal"}
        The interval and test (``p_value``) of ``compare_learners(interval=...)``. A
        difference can be negative: no log/logit interval. ``"t_score"`` (default): the
        score-type interval of :func:`~._score.score_limits`. ``"t_skew"`` is corrected
        for the skewness of Θ̂_A − Θ̂_B and its coupling with V̂ (see
        :class:`CVErrorResult`'s ``coupling``): p = 2·P(t_ν > |h(T)|) with h Hall's cubic
        of :func:`skew_limits`. Without ρ̂ (AUC, V̂ ≤ 0) both are the t interval.
        ``diagnostics`` holds the p-values (``p_value_t``, ``p_value_t_skew``,
        ``p_value_t_score``).
    """

    estimate_a: float = float("nan")
    estimate_b: float = float("nan")
    std_error_a: float = float("nan")
    std_error_b: float = float("nan")
    covariance: float = float("nan")
    statistic: float = float("nan")
    p_value: float = float("nan")
    names: tuple = ("A", "B")

    INTERVAL_METHODS: ClassVar[tuple[str, ...]] = ("t", "normal", "t_skew", "t_score")

    def _tidy_rows(self, level: float, method: str) -> list[dict[str, Any]]:
        rows = super()._tidy_rows(level, method)
        rows[0].update(statistic=self._test_of(method)[0], p_value=self._test_of(method)[1])
        for name, est, se in ((self.names[0], self.estimate_a, self.std_error_a),
                              (self.names[1], self.estimate_b, self.std_error_b)):
            lo, hi = _clip(*wald_interval(est, se, level, self.df), self.loss_range)
            rows.append(dict(term=f"{self.loss} {name}", estimate=est, std_error=se,
                             conf_low=lo, conf_high=hi, confidence_level=level,
                             method=self.method, statistic=np.nan, p_value=np.nan))
        return rows

    def _test_of(self, method: str) -> tuple[float, float]:
        """(statistic, p-value) of the test that goes with interval ``method`` (the stored
        pair for ``interval_method``): a statistic and a p-value of different tests must
        never share a row (a Wald ratio beside a score p-value disagreed on significance)."""
        if not method or method == self.interval_method:
            return self.statistic, self.p_value
        d = self.diagnostics
        stat = d.get(f"statistic_{method}", self.statistic if method in ("t", "normal")
                     else float("nan"))
        if method == "normal":
            return stat, float(2 * stats.norm.sf(abs(stat)))
        return stat, float(d.get(f"p_value_{method}", float("nan")))

    def _interval(self, level: float, method: str) -> ConfidenceInterval:
        q = critical_value(level, self.df)
        gamma, rho = self._skew_terms()
        finite = self.std_error is not None and np.isfinite(self.std_error)
        if method == "t_score" and finite:   # ρ̂ = NaN: the t interval
            k_lo, k_hi = score_limits(q, self.coupling)
            lo = self.estimate - k_lo * self.std_error
            hi = self.estimate + k_hi * self.std_error
        elif method == "t_skew" and np.isfinite(self.coupling) and finite:
            # without ρ̂: the plain t interval; near the cubic's flat point: shrunk
            k_lo, k_hi = skew_limits(q, gamma, coupling=rho, floor=SKEW_CUBIC_FLOOR)
            lo = self.estimate - k_lo * self.std_error
            hi = self.estimate + k_hi * self.std_error
        else:
            lo, hi = wald_interval(self.estimate, self.std_error, level,
                                   None if method == "normal" else self.df)
        return _clip(lo, hi, diff_range(self.loss_range))

    def _glance_extra(self) -> dict[str, Any]:
        out = super()._glance_extra()
        # the statistic and p-value are the difference term's columns in tidy(); glance
        # names the test they belong to
        out.update(test=self.interval_method, covariance=self.covariance)
        return out

    def _title(self) -> str:
        return f"Comparing two learners: {self.names[0]} - {self.names[1]}"

    def _axis_label(self) -> str:
        what = "AUC" if self.loss == "auc" else super()._axis_label()
        return f"difference in {what} ({self.names[0]} − {self.names[1]})"

    def _decorate(self, ax) -> None:
        ax.axvline(0.0, color="firebrick", lw=1.2, label="no difference")

    def _header(self) -> dict[str, Any]:
        hdr = super()._header()
        hdr["Test of H0: equal expected loss"] = TEST_NAMES.get(self.interval_method,
                                                                 self.interval_method)
        hdr["Statistic / p-value"] = f"{self.statistic:.4g} / {self.p_value:.4g}"
        return hdr
