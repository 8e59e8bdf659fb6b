"""Mean, spread and PAC half-width of Pr, Se (recall) or Sp over the unknown labels of U
(Valizadegan, Amizadeh & Hauskrecht 2012, eqs 3.4-3.15, Props 3.1-3.3)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from .._naming import named_result
from .._render.format import format_value
from .._render.words import capitalize
from .._result import ConfidenceInterval, EvalResult, _get_ax
from .._validation import (
    check_array,
    check_confidence_level,
    check_int,
    check_option,
    check_scalar,
    fail,
)
from .._warnings import ApproximationWarning, InputWarning, Notes
from . import _bounds as _bb
from ._common import check_measure, delta_iv, pool_iv, public_name

__all__ = ["BoundResult", "bernstein_bound"]

_BOUND_WORDS = {"bernstein": "Bernstein bound", "bernstein_paper": "the paper's Bernstein bound",
                "exact": "exact tail bound"}
_VARIANCE_WORDS = {"hypergeometric": "hypergeometric model",
                   "paper": "the paper's binomial variances",
                   "oracle_binomial": "binomial model (Remark II)"}


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class BoundResult(EvalResult):
    """Mean, spread and tail bound of Pr, Se or Sp over the unknown labels of U.

    ``estimate`` is E(measure) (eqs 3.4, 3.8, 3.10) and ``std_error`` its standard
    deviation under the chosen variance model; ``conf_int(level)`` is
    ``estimate ± half_width`` recomputed at ``level`` (with the union bound over
    ``n_rules``), clipped to the deterministic range.

    Attributes
    ----------
    measure, bound, variance : str
    half_width : float
        Half-width at ``confidence_level`` (probability ≥ 1 - δ/K of |measure - E| ≤ it).
    count_variance : float
        Variance of the unknown count TP_U or TN_U.
    denominator : float
        |S_R+|, |S_O+| or |S_O-|.
    n_rules : int
        Number of rules covered by the union bound.
    paper_condition_holds : bool
        Whether V ≥ (4/9) log(2/δ) so the constant-4 form is implied by Bernstein.
    deterministic_range : tuple of float
        Range of the measure over every possible labeling of U (rule-agnostic).
    counts : mapping
        The pool and labeled counts used.
    random_rule_p_value : float or None
        With given rule hits: the exact two-sided p-value of the random-rule model for
        them (Bonferroni over the labeled positives and negatives); None otherwise.
    random_rule : bool
        False when that p-value is below δ/K: the hits contradict the model at the
        bound's own level.
    deterministic : bool
        True when the result is the deterministic range (hits that contradict the
        random-rule model, or a positive count known only to an interval): estimate its
        midpoint, ``conf_int`` the range at every level, ``std_error`` None.
    """

    measure: str = "precision"
    bound: str = "bernstein"
    variance: str = "hypergeometric"
    half_width: float = 0.0
    count_variance: float = 0.0
    denominator: float = 1.0
    n_rules: int = 1
    paper_condition_holds: bool = True
    deterministic_range: tuple[float, float] = (0.0, 1.0)
    counts: Mapping[str, float] = field(default_factory=dict)
    random_rule_p_value: float | None = None
    random_rule: bool = True
    deterministic: bool = False

    def _pool_counts(self) -> _bb.PoolCounts:
        return _bb.PoolCounts(**{k: np.asarray([v], float) for k, v in self.counts.items()})

    def half_width_at(self, confidence_level: float) -> float:
        """Half-width at another level (union bound over ``n_rules`` included); for a
        rule whose hits contradict the random-rule model, half the deterministic range."""
        level = check_confidence_level(confidence_level)
        if self.deterministic:
            lo, hi = self.deterministic_range
            return (hi - lo) / 2.0
        delta = (1.0 - level) / self.n_rules
        return float(_bb.measure_halfwidth(self.measure, self._pool_counts(), self.variance,
                                           self.bound, delta)[0])

    def tail_probability(self, xi: float | np.ndarray) -> np.ndarray | float:
        """Bound on P(|measure - E measure| ≥ ξ) for one rule (eqs 3.6, 3.12, 3.13).

        ``bernstein``: 2 exp(-(s²/2)/(V + s/3)), s = ξ·D; ``bernstein_paper``:
        2 exp(-s²/(4V)); ``exact``: the exact two-sided tail of the count.
        """
        xi = check_array(np.atleast_1d(xi), "xi")
        p = _bb.tail_probability(self.measure, self._pool_counts(), self.variance, self.bound,
                                 xi)
        return float(p[0]) if p.size == 1 else p

    def _interval(self, level: float, method: str = "") -> ConfidenceInterval:
        lo, hi = self.deterministic_range
        if self.deterministic:
            return ConfidenceInterval(lo, hi)
        h = self.half_width_at(level)
        return ConfidenceInterval(max(lo, self.estimate - h), min(hi, self.estimate + h))

    def _tidy_rows(self, level, method: str = ""):
        row = super()._tidy_rows(level, method)[0]
        row.update(half_width=self.half_width_at(level), bound=self.bound,
                   variance=self.variance, n_rules=self.n_rules,
                   paper_condition_holds=self.paper_condition_holds)
        return [row]

    def _title(self) -> str:
        return f"Bound on {public_name(self.measure)} over the unlabeled pool"

    def _header(self):
        hdr = super()._header()
        hdr.update({"Variance of unknown count": self.count_variance,
                    "Deterministic range": "[{:.4f}, {:.4f}]".format(*self.deterministic_range)})
        return hdr

    def _finding(self) -> str:
        lo, hi = self.conf_int()
        labels = f"{self.n:,} labels" if self.n else "no labels"
        width = hi - lo
        dec = 3 if width <= 0 else int(min(max(1 - np.floor(np.log10(width)), 2), 6))
        name = public_name(self.measure)
        if self.deterministic:
            return capitalize(f"{name} of this rule lies in [{lo:.{dec}f}, {hi:.{dec}f}] "
                              "whatever the labels of the unlabeled items (its deterministic "
                              f"range, valid for any rule), from {labels}.")
        rules = f" (all {self.n_rules} rules at once)" if self.n_rules > 1 else ""
        return capitalize(f"{name} of a random rule lies in [{lo:.{dec}f}, {hi:.{dec}f}] "
                          f"(mean {self.estimate:.{dec}f}) with probability at least "
                          f"{100 * self.confidence_level:g}%{rules}, from {labels}.")

    def plot(self, ax=None, **kwargs):
        """Tail bound as a function of ξ (log scale)."""
        ax = _get_ax(ax)
        xi = np.linspace(1e-9, max(3 * self.half_width, 1e-6), 200)
        ax.semilogy(xi, np.atleast_1d(self.tail_probability(xi)), **kwargs)
        ax.axhline((1 - self.confidence_level) / self.n_rules, ls=":", color="grey")
        ax.axvline(self.half_width, ls="--", color="grey")
        ax.set_xlabel(f"deviation ξ of {public_name(self.measure)}")
        ax.set_ylabel("P(|measure - E| ≥ ξ) bound")
        ax.set_title(f"Tail bound ({_BOUND_WORDS[self.bound]}, "
                     f"{_VARIANCE_WORDS[self.variance]})")
        return ax


@named_result
def bernstein_bound(measure: str, *, n_pool: int, prevalence: float | None = None,
                    rule_rate: float | None = None, n_pool_positive: int | None = None,
                    n_rule_positive: int | None = None, n_labeled_positive: int = 0,
                    n_labeled_negative: int = 0, rule_hits_positive: float | None = None,
                    rule_hits_negative: float | None = None, delta: float | None = None,
                    confidence_level: float = 0.95, n_rules: int = 1,
                    variance: str | None = None, bound: str = "bernstein") -> BoundResult:
    r"""Mean, variance and PAC half-width of Pr, Se or Sp over the unknown labels of U.

    Parameters
    ----------
    measure : {"precision", "recall", "specificity"}
        ``"sensitivity"`` is accepted as an alias of ``"recall"``.
    n_pool : int
        |S|.
    prevalence, n_pool_positive : float or int, or an interval (low, high)
        ε_O+(S) in (0, 1), or |S_O+| (give exactly one). An interval means the count is
        only known to lie in it: the result is then the deterministic range over it.
    rule_rate, n_rule_positive : float or int
        ε_R+(S) in (0, 1), or |S_R+| (give exactly one).
    n_labeled_positive, n_labeled_negative : int
        |L_O+| and |L_O-|.
    rule_hits_positive, rule_hits_negative : float, optional
        Rule positives among the labeled positives (TP_L) and negatives (FP_L). Default:
        their expectation for a random rule, ε_R+ |L_O±| (the paper's "unknown rule").
    delta, confidence_level : float
        Failure probability δ, or ``confidence_level`` = 1 - δ (default 0.95).
    n_rules : int
        Union bound: each rule gets δ/K so that all K bounds hold together.
    variance : {"hypergeometric", "paper", "oracle_binomial"}, optional
        Default ``"hypergeometric"``; ``bound="bernstein_paper"`` always uses ``"paper"``.
        Exact model with both margins of U fixed (default), the paper's binomial
        variances (3.5, 3.9, 3.11 read as σ²(Sp)), or Remark II's reading.
    bound : {"bernstein", "bernstein_paper", "exact"}
        Exact inversion of Bernstein's inequality (always valid), the paper's constant-4
        form 2·sqrt(V log(2/δ))/D (valid only when V ≥ (4/9) log(2/δ); checked), or the
        central quantiles of the count's distribution (scipy ``hypergeom``/``binom``).

    Returns
    -------
    BoundResult

    Notes
    -----
    With |U|, |U_O±|, |U_R±| the unlabeled counts and ε = ε_O+(U):
    :math:`E(Pr) = (TP_L + |U_{R+}|ε)/|S_{R+}|` (3.4),
    :math:`E(Se) = (TP_L + |U_{R+}|ε)/|S_{O+}|` (3.8),
    :math:`E(Sp) = (TN_L + |U_{R-}|(1-ε))/|S_{O-}|` (3.10). Under the exact model
    TP_U is hypergeometric and TN_U = |U_O-| - |U_R+| + TP_U, so the three measures
    share :math:`V_U = |U_{R+}||U_{R-}||U_{O+}||U_{O-}|/(|U|^2(|U|-1))` divided by the
    squared denominator. Bernstein: :math:`P(|X - EX| ≥ s) ≤ 2\exp(-(s^2/2)/(V+s/3))`,
    inverted exactly as :math:`s = L/3 + \sqrt{L^2/9 + 2VL}`, :math:`L = \log(2K/δ)`.

    The Bernstein interval holds for *random* rules only. When the rule's hits on the
    labels are given, they are tested against the random-rule model
    (:func:`random_rule_p_value`); if the model is rejected at δ/K (an informative rule,
    e.g. 180 hits among 200 labeled positives for a rule flagging 5 % of the pool), the
    result warns and becomes the deterministic range, which holds for any rule
    (``random_rule=False``). Without given hits the random-rule expectation is used.

    References
    ----------
    .. [1] Valizadegan, Amizadeh & Hauskrecht (2012). Effective sampling strategies for
       the evaluation of classifiers. SDM, 1-12. Props 3.1-3.3.

    See Also
    --------
    plan_labels : invert the bound for a target half-width.
    tradeoff : equal-bound points of ε_O+(U).

    Examples
    --------
    >>> from evalstats.budget import bernstein_bound
    >>> res = bernstein_bound("precision", n_pool=10_000, prevalence=0.04, rule_rate=0.1,
    ...                       n_labeled_positive=200)
    >>> round(res.estimate, 4), round(res.half_width, 4)
    (0.04, 0.0127)
    """
    a = _bernstein_bound_iv(measure, n_pool, prevalence, rule_rate, n_pool_positive,
                            n_rule_positive, n_labeled_positive, n_labeled_negative,
                            rule_hits_positive, rule_hits_negative, delta, confidence_level,
                            n_rules, variance, bound)
    measure, variance, bound, level, n_rules = (a["measure"], a["variance"], a["bound"],
                                                a["level"], a["n_rules"])
    counts = a["counts"]
    c = _bb.PoolCounts(**{k: np.asarray([v], float) for k, v in counts.items()})
    delta_k = (1.0 - level) / n_rules
    v = float(_bb.count_variance(measure, c, variance)[0])
    den = float(c.denominator(measure)[0])
    mean = float(_bb.measure_mean(measure, c)[0])
    hw = float(_bb.measure_halfwidth(measure, c, variance, bound, delta_k)[0])
    holds = bool(_bb.paper_form_valid(v, delta_k))
    lo, hi = _range(measure, counts, a["p_range"])
    given = rule_hits_positive is not None or rule_hits_negative is not None
    p_random = random_rule_p_value(counts) if given else None
    random_rule = p_random is None or p_random >= delta_k
    notes = _bound_notes(bound, variance, holds, v, delta_k,
                         not given and counts["l_pos"] + counts["l_neg"] > 0)
    method = f"{_BOUND_WORDS[bound]}, {_VARIANCE_WORDS[variance]}"
    if not random_rule:
        notes.warn(InputWarning,
                   f"The rule's hits on the labels ({counts['tp_l']:g} of "
                   f"{counts['l_pos']:g} positives, {counts['fp_l']:g} of {counts['l_neg']:g} "
                   f"negatives) are not those of a random rule (p = {p_random:.2g} < "
                   f"{delta_k:.3g}): the Bernstein interval would not hold for it. The "
                   "result is the deterministic range, valid for any rule.")
    if a["p_range"] is not None:
        notes.add(f"The positive count is known only to lie in [{a['p_range'][0]}, "
                  f"{a['p_range'][1]}]: the result is the deterministic range over it, "
                  "valid for any rule.")
    deterministic = not random_rule or a["p_range"] is not None
    if deterministic:
        mean, hw, method = (lo + hi) / 2.0, (hi - lo) / 2.0, "deterministic range"
    n_pool, n_pos, n_rpos = counts["s"], counts["s_pos"], counts["s_rpos"]
    l_pos, l_neg = counts["l_pos"], counts["l_neg"]
    return BoundResult(
        estimate=mean, std_error=None if deterministic else float(np.sqrt(v) / den),
        confidence_level=level, method=method, term=public_name(measure),
        n=l_pos + l_neg, n_unit="labels",
        data=(f"pool of {format_value(n_pool)} items, {format_value(n_pos)} of them positive, "
              f"the rule flags {format_value(n_rpos)}"),
        call=dict(function="bernstein_bound", measure=public_name(measure), n_pool=n_pool,
                  bound=bound, variance=variance),
        diagnostics=dict(delta_per_rule=delta_k), notes=notes.as_tuple(), measure=measure,
        bound=bound, variance=variance, half_width=hw, count_variance=v, denominator=den,
        n_rules=n_rules, paper_condition_holds=holds, deterministic_range=(lo, hi),
        counts=counts, random_rule_p_value=p_random, random_rule=random_rule,
        deterministic=deterministic)


def _range(measure, counts, p_range) -> tuple[float, float]:
    """The deterministic range of any rule with these counts (over ``p_range``, an
    interval of the positive count, when given)."""
    from ._ranges import measure_range

    p_lo, p_hi = p_range if p_range is not None else (counts["s_pos"], counts["s_pos"])
    lo, hi = measure_range(measure, counts["s"], p_lo, p_hi, counts["s_rpos"],
                           counts["l_pos"], counts["l_neg"], counts["tp_l"], counts["fp_l"])
    return float(lo), float(hi)


def random_rule_p_value(counts) -> float:
    r"""Exact two-sided p-value of the random-rule model for a rule's hits on the labels.

    A random rule flags a uniformly random set of |S_R+| examples, so its hits on the
    labeled positives are Hypergeometric(|S|, |S_R+|, |L_O+|) and on the labeled negatives
    Hypergeometric(|S|, |S_R+|, |L_O-|). Each count gets the two-sided p-value
    min(1, 2 min(P(X ≤ x), P(X ≥ x))); the two are combined by Bonferroni (twice the
    smaller). Fractional hits (expectations) are rounded.
    """
    from scipy import stats

    n, size = int(counts["s"]), int(round(counts["s_rpos"]))
    ps = []
    for hits, labeled in ((counts["tp_l"], counts["l_pos"]), (counts["fp_l"], counts["l_neg"])):
        if labeled <= 0:
            continue
        x = round(hits)
        lower = stats.hypergeom.cdf(x, n, size, int(labeled))
        upper = stats.hypergeom.sf(x - 1, n, size, int(labeled))
        ps.append(min(1.0, 2.0 * min(lower, upper)))
    return float(min(1.0, len(ps) * min(ps))) if ps else 1.0


def _bernstein_bound_iv(measure, n_pool, prevalence, rule_rate, n_pool_positive,
                        n_rule_positive, n_labeled_positive, n_labeled_negative,
                        rule_hits_positive, rule_hits_negative, delta, confidence_level,
                        n_rules, variance, bound) -> dict:
    """Normalised arguments of :func:`bernstein_bound` (raises on bad input)."""
    measure = check_measure(measure)
    bound = check_option(bound, "bound", _bb.BOUNDS)
    variance = variance_for(bound, variance)
    p_range = None
    if isinstance(prevalence, tuple | list) or isinstance(n_pool_positive, tuple | list):
        n_pool, p_range = _count_interval(n_pool, prevalence, n_pool_positive)
        prevalence, n_pool_positive = None, int(round(sum(p_range) / 2))
    n_pool, n_pos, n_rpos = pool_iv(n_pool, prevalence, n_pool_positive, rule_rate,
                                    n_rule_positive)
    level, n_rules = delta_iv(delta, confidence_level, n_rules)
    p_lo, p_hi = p_range if p_range is not None else (n_pos, n_pos)
    l_pos = check_int(n_labeled_positive, "n_labeled_positive", low=0, high=p_hi)
    l_neg = check_int(n_labeled_negative, "n_labeled_negative", low=0, high=n_pool - p_lo)
    n_pos = int(np.clip(n_pos, l_pos, n_pool - l_neg))  # the point of the random-rule model
    rate = n_rpos / n_pool
    tp_l = rate * l_pos if rule_hits_positive is None else check_scalar(
        rule_hits_positive, "rule_hits_positive", 0, l_pos)
    fp_l = rate * l_neg if rule_hits_negative is None else check_scalar(
        rule_hits_negative, "rule_hits_negative", 0, l_neg)
    if tp_l + fp_l > n_rpos:
        raise fail("rule_hits_positive + rule_hits_negative",
                   f"at most the rule's positives in the pool ({n_rpos:g})", value=tp_l + fp_l)
    n_unlabeled = n_pool - l_pos - l_neg
    if n_rpos - tp_l - fp_l > n_unlabeled:
        # the rule's positives that are not labeled must fit among the unlabeled examples
        raise fail("rule_hits_positive + rule_hits_negative",
                   f"at least the rule's positives minus the unlabeled examples "
                   f"({n_rpos:g} − {n_unlabeled:g} = {n_rpos - n_unlabeled:g}): the rest of "
                   "the rule's positives must lie among the unlabeled examples",
                   value=tp_l + fp_l)
    counts = dict(s=n_pool, s_pos=n_pos, s_rpos=n_rpos, l_pos=l_pos, l_neg=l_neg, tp_l=tp_l,
                  fp_l=fp_l)
    return dict(measure=measure, variance=variance, bound=bound, level=level,
                n_rules=n_rules, counts=counts, p_range=p_range)


def _count_interval(n_pool, prevalence, n_pool_positive):
    """``(n_pool, (low, high))``: an interval of the positive count from
    ``prevalence=(low, high)`` or ``n_pool_positive=(low, high)``."""
    from ._prevalence import prevalence_iv

    if isinstance(n_pool, float) and n_pool.is_integer():
        n_pool = int(n_pool)
    n_pool = check_int(n_pool, "n_pool", low=2)
    if prevalence is not None and n_pool_positive is not None:
        raise fail("prevalence", "given, or `n_pool_positive` given instead (exactly one)",
                   got=f"prevalence={prevalence!r}, n_pool_positive={n_pool_positive!r}")
    if n_pool_positive is not None:
        if len(n_pool_positive) != 2:
            raise fail("n_pool_positive", "a count or an interval (low, high)",
                       value=n_pool_positive)
        lo = check_int(n_pool_positive[0], "n_pool_positive[0]", low=1, high=n_pool - 1)
        hi = check_int(n_pool_positive[1], "n_pool_positive[1]", low=lo, high=n_pool - 1)
        return n_pool, (lo, hi)
    prev = prevalence_iv(n_pool, tuple(prevalence), None, True)
    return n_pool, (prev.low, prev.high)


def variance_for(bound: str, variance: str | None) -> str:
    """The variance model a bound uses.

    ``bound="bernstein_paper"`` means exactly the paper's formula (Props 3.1-3.3:
    2 sqrt(n eps(1-eps) log(2/delta)) / D with the binomial n of eqs 3.5, 3.9, 3.11), so it
    always uses ``variance="paper"``; asking for another variance with it is refused.
    Otherwise the default is the exact ``"hypergeometric"`` model.
    """
    if variance is not None:
        variance = check_option(variance, "variance", _bb.VARIANCES)
    if bound == "bernstein_paper":
        if variance not in (None, "paper"):
            raise fail("variance", "'paper' (or omitted) with bound='bernstein_paper', which "
                       "is exactly the paper's formula", value=variance,
                       remedy="For Bernstein's inequality with another variance use "
                              "bound='bernstein'.")
        return "paper"
    return "hypergeometric" if variance is None else variance


def _bound_notes(bound, variance, holds, v, delta_k, rule_hits_default) -> Notes:
    notes = Notes()
    if bound == "bernstein_paper" and not holds:
        notes.warn(ApproximationWarning,
                   f"The paper's constant-4 form needs V ≥ (4/9) log(2/δ) = "
                   f"{4 / 9 * float(_bb.log_term(delta_k)):.3g}; here V = {v:.3g}, so the "
                   "half-width is not implied by Bernstein's inequality. Use "
                   "bound='bernstein' or 'exact'.")
    if variance != "hypergeometric":
        notes.add(f"variance='{variance}' ignores the fixed margins of the unlabeled items "
                  "and overstates the variance (conservative).")
    if rule_hits_default:
        notes.add("The rule's hits on the labeled examples are taken at their expectation "
                  "for a random rule (rule_hits_positive and rule_hits_negative not given).")
    return notes
