r"""Labeling-budget planning for evaluating classifiers that do not exist yet.

Valizadegan, Amizadeh & Hauskrecht (SDM 2012) ask how a finite pool S should be split
into a labeled set L and an unlabeled rest U so that precision (Pr), sensitivity (Se)
and specificity (Sp) of *any* rule R can be estimated well when one class is rare.

* :func:`bernstein_bound` — mean, variance and tail bound of a measure over the
  unknown labels of U (eqs 3.4-3.15), under the exact hypergeometric model (default)
  or the paper's binomial variances.
* :func:`tradeoff` — the equal-bound points of ε_O+(U) (eqs 3.22, 3.25, 3.29), α
  (3.24), positives to label (3.23), cost weights (Section 3.4).
* :func:`plan_labels` — how many positives and negatives to label for a target
  ``half_width`` (a *half*-width, not the full interval width), per measure and bound,
  with the prevalence-estimation budget (Prop 4.1) and blind labeling (eq 4.30).
* :func:`evaluate_rules` — design-weighted estimates and intervals for many rules at once
  from a class-enriched sample (:class:`LabelDesign`).
* :func:`guided_sample` — retrieval of minority-class examples with a surrogate
  classifier retrained in rounds (Section 4), or random sampling.

Where the paper's text is wrong or ambiguous the implementation follows the derivation
in the docstrings: σ²(Sp) of eq 3.11 is printed as σ²(Pr); the binomial variances ignore
the fixed margins of U and overstate the variance (10-25x for Sp); the constant-4 form of
Props 3.1-3.3 is a valid consequence of Bernstein's inequality only when
V ≥ (4/9) log(2/δ), which is checked and reported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._result import ConfidenceInterval, EvalResult, _get_ax
from .._validation import (
    check_array,
    check_binary_labels,
    check_confidence_level,
    check_int,
    check_option,
    check_rng,
    check_scalar,
    fail,
)
from .._warnings import ApproximationWarning, Notes, SmallSampleWarning, UndefinedEstimateWarning
from . import _bounds as _bb
from . import _plan as _bp
from ._estimates import poisson_ratio, stratified_ratio

__all__ = [
    "bernstein_bound", "BoundResult", "tradeoff", "TradeoffResult", "alpha_map", "plan_labels",
    "LabelPlan",
    "LabelDesign", "evaluate_rules", "RuleEvaluation", "guided_sample", "RetrievalResult",
]

MEASURES = _bb.MEASURES
_LONG = {"precision": "Pr", "sensitivity": "Se", "specificity": "Sp"}


# =========================================================================================
# shared validation
# =========================================================================================
def _pool_iv(n_pool, prevalence, n_pool_positive, rule_rate, n_rule_positive):
    n_pool = check_int(n_pool, "n_pool", low=2)
    if (prevalence is None) == (n_pool_positive is None):
        raise fail("prevalence", "given, or `n_pool_positive` given instead (exactly one)",
                   got=f"prevalence={prevalence!r}, n_pool_positive={n_pool_positive!r}")
    if prevalence is not None:
        prevalence = check_scalar(prevalence, "prevalence", 0, 1, low_inclusive=False,
                                  high_inclusive=False)
        n_pos = int(round(prevalence * n_pool))
        if not 0 < n_pos < n_pool:
            raise fail("prevalence", f"large enough that the pool of {n_pool} holds at least "
                       "one positive and one negative", value=prevalence)
    else:
        n_pos = check_int(n_pool_positive, "n_pool_positive", low=1, high=n_pool - 1)
    if (rule_rate is None) == (n_rule_positive is None):
        raise fail("rule_rate", "given, or `n_rule_positive` given instead (exactly one)",
                   got=f"rule_rate={rule_rate!r}, n_rule_positive={n_rule_positive!r}")
    if rule_rate is not None:
        rule_rate = check_scalar(rule_rate, "rule_rate", 0, 1, low_inclusive=False,
                                 high_inclusive=False)
        n_rpos = rule_rate * n_pool
    else:
        n_rpos = float(check_int(n_rule_positive, "n_rule_positive", low=1, high=n_pool - 1))
    return n_pool, n_pos, n_rpos


def _delta_iv(delta, confidence_level, n_rules):
    n_rules = check_int(n_rules, "n_rules", low=1)
    if delta is not None:
        level = 1.0 - check_scalar(delta, "delta", 0, 1, low_inclusive=False,
                                   high_inclusive=False)
    else:
        level = check_confidence_level(confidence_level)
    return level, n_rules


# =========================================================================================
# 1. bounds
# =========================================================================================
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

    def _pool_counts(self) -> _bb.PoolCounts:
        return _bb.PoolCounts(**{k: np.asarray([v], float) for k, v in self.counts.items()})

    def half_width_at(self, confidence_level: float) -> float:
        """Half-width at another level (union bound over ``n_rules`` included)."""
        level = check_confidence_level(confidence_level)
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
        h = self.half_width_at(level)
        lo, hi = self.deterministic_range
        return ConfidenceInterval(max(lo, self.estimate - h), min(hi, self.estimate + h))

    def _tidy_rows(self, level, method: str = ""):
        row = super()._tidy_rows(level, method)[0]
        row.update(half_width=self.half_width_at(level), bound=self.bound,
                   variance=self.variance, n_rules=self.n_rules,
                   paper_condition_holds=self.paper_condition_holds)
        return [row]

    def _title(self) -> str:
        return f"Bound on {self.measure} over the unlabeled pool"

    def _header(self):
        hdr = super()._header()
        hdr.update({"Variance of unknown count": self.count_variance,
                    "Deterministic range": "[{:.4f}, {:.4f}]".format(*self.deterministic_range)})
        return hdr

    def plot(self, ax=None, **kwargs):
        """Tail bound as a function of ξ (log scale)."""
        ax = _get_ax(ax)
        xi = np.linspace(1e-9, max(3 * self.half_width, 1e-6), 200)
        ax.semilogy(xi, np.atleast_1d(self.tail_probability(xi)), **kwargs)
        ax.axhline((1 - self.confidence_level) / self.n_rules, ls=":", color="grey")
        ax.axvline(self.half_width, ls="--", color="grey")
        ax.set_xlabel(f"deviation ξ of {self.measure}")
        ax.set_ylabel("P(|measure - E| ≥ ξ) bound")
        ax.set_title(f"{self.bound} tail, {self.variance} variance")
        return ax


def bernstein_bound(measure: str, *, n_pool: int, prevalence: float | None = None,
                    rule_rate: float | None = None, n_pool_positive: int | None = None,
                    n_rule_positive: int | None = None, n_labeled_positive: int = 0,
                    n_labeled_negative: int = 0, rule_hits_positive: float | None = None,
                    rule_hits_negative: float | None = None, delta: float | None = None,
                    confidence_level: float = 0.95, n_rules: int = 1,
                    variance: str = "hypergeometric", bound: str = "bernstein") -> BoundResult:
    r"""Mean, variance and PAC half-width of Pr, Se or Sp over the unknown labels of U.

    Parameters
    ----------
    measure : {"precision", "sensitivity", "specificity"}
    n_pool : int
        |S|.
    prevalence, n_pool_positive : float or int
        ε_O+(S) in (0, 1), or |S_O+| (give exactly one).
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
    variance : {"hypergeometric", "paper", "oracle_binomial"}
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
    measure = check_option(measure, "measure", MEASURES)
    variance = check_option(variance, "variance", _bb.VARIANCES)
    bound = check_option(bound, "bound", _bb.BOUNDS)
    n_pool, n_pos, n_rpos = _pool_iv(n_pool, prevalence, n_pool_positive, rule_rate,
                                     n_rule_positive)
    level, n_rules = _delta_iv(delta, confidence_level, n_rules)
    l_pos = check_int(n_labeled_positive, "n_labeled_positive", low=0, high=n_pos)
    l_neg = check_int(n_labeled_negative, "n_labeled_negative", low=0, high=n_pool - n_pos)
    rate = n_rpos / n_pool
    tp_l = rate * l_pos if rule_hits_positive is None else check_scalar(
        rule_hits_positive, "rule_hits_positive", 0, l_pos)
    fp_l = rate * l_neg if rule_hits_negative is None else check_scalar(
        rule_hits_negative, "rule_hits_negative", 0, l_neg)
    if tp_l + fp_l > n_rpos:
        raise fail("rule_hits_positive + rule_hits_negative",
                   f"at most the rule's positives in the pool ({n_rpos:g})", value=tp_l + fp_l)
    counts = dict(s=n_pool, s_pos=n_pos, s_rpos=n_rpos, l_pos=l_pos, l_neg=l_neg, tp_l=tp_l,
                  fp_l=fp_l)
    c = _bb.PoolCounts(**{k: np.asarray([v], float) for k, v in counts.items()})
    delta_k = (1.0 - level) / n_rules
    v = float(_bb.count_variance(measure, c, variance)[0])
    den = float(c.denominator(measure)[0])
    mean = float(_bb.measure_mean(measure, c)[0])
    hw = float(_bb.measure_halfwidth(measure, c, variance, bound, delta_k)[0])
    holds = bool(_bb.paper_form_valid(v, delta_k))
    lo, hi = (float(a[0]) for a in _bb.deterministic_range(measure, c))
    notes = Notes()
    if bound == "bernstein_paper" and not holds:
        notes.warn(ApproximationWarning,
                   f"The constant-4 form needs V >= (4/9) log(2/delta) = "
                   f"{4 / 9 * float(_bb.log_term(delta_k)):.3g}; here V = {v:.3g}, so the "
                   "half-width is NOT implied by Bernstein's inequality. Use "
                   "bound='bernstein' or 'exact'.")
    if variance != "hypergeometric":
        notes.add(f"variance='{variance}' ignores the fixed margins of U and overstates the "
                  "variance (conservative).")
    if rule_hits_positive is None and (l_pos or l_neg):
        notes.add("Rule hits on L set to their expectation for a random rule.")
    return BoundResult(
        estimate=mean, std_error=float(np.sqrt(v) / den), confidence_level=level,
        method=f"{bound} / {variance}", term=measure, n=l_pos + l_neg, n_unit="labels",
        data=f"|S| = {n_pool}, |S_O+| = {n_pos}, |S_R+| = {n_rpos:g}",
        call=dict(function="bernstein_bound", measure=measure, n_pool=n_pool, bound=bound,
                  variance=variance),
        diagnostics=dict(delta_per_rule=delta_k), notes=notes.as_tuple(), measure=measure,
        bound=bound, variance=variance, half_width=hw, count_variance=v, denominator=den,
        n_rules=n_rules, paper_condition_holds=holds, deterministic_range=(lo, hi),
        counts=counts)


# =========================================================================================
# 2. trade-off analysis
# =========================================================================================
@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class TradeoffResult(EvalResult):
    """Equal-bound points ε*_O+(U) and α = ε*/ε_O+(S) for the three pairs of Section 3.3.

    ``estimate`` is α for precision vs specificity. ``table`` has one row per pair with
    ``eps_unlabeled``, ``alpha`` and (when ``n_pool`` and ``n_labels`` are given) the
    positives to label by eq 3.23.
    """

    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    prevalence: float = 0.0
    rule_rate: float = 0.0

    def _interval(self, level, method: str = ""):
        return ConfidenceInterval(self.estimate, self.estimate)

    def _tidy_rows(self, level, method: str = ""):
        rows = []
        for rec in self.table.to_dict("records"):
            rows.append(dict(term=rec["pair"], estimate=rec["alpha"], std_error=None,
                             conf_low=rec["alpha"], conf_high=rec["alpha"],
                             confidence_level=level, method=self.method,
                             **{k: v for k, v in rec.items() if k not in ("pair", "alpha")}))
        return rows

    def _title(self):
        return "Equal-bound points of eps_O+(U) (Valizadegan et al. 2012, Sec. 3.3)"

    def plot(self, ax=None, pair: str = "precision-specificity", **kwargs):
        """α map of the paper's Figures 1-3 with this problem marked."""
        ax = alpha_map(pair, ax=ax, **kwargs)
        ax.plot([self.prevalence], [self.rule_rate], "r*", ms=12)
        return ax


def alpha_map(pair: str = "precision-specificity", ax=None, cost_ratio: float = 1.0,
              n_grid: int = 99, **kwargs):
    """Contour map of α = ε*_O+(U)/ε_O+(S) over ε_O+(S) (x) and ε_R+(S) (y).

    Figures 1 (precision-specificity), 2 (sensitivity-specificity) and 3
    (rule-rate-equals-prevalence, a function of ε_O+(S) only) of the paper.

    See Also
    --------
    tradeoff : the same α at one (ε_O+(S), ε_R+(S)).
    LabelPlan.plot : ``kind=pair`` draws this map with the plan's problem marked.
    """
    pair = check_option(pair, "pair", _bp.PAIRS)
    ax = _get_ax(ax)
    g = np.linspace(0.01, 0.99, n_grid)
    es, er = np.meshgrid(g, g)
    if pair == "rule-rate-equals-prevalence":
        er = es
    alpha = _bp.balance_eps(es, er, pair, cost_ratio) / es
    cs = ax.contourf(es, np.meshgrid(g, g)[1], alpha, levels=np.linspace(0, 1, 11),
                     extend="max", **kwargs)
    ax.figure.colorbar(cs, ax=ax, label="alpha = eps_O+(U) / eps_O+(S)")
    ax.set_xlabel("eps_O+(S) (prevalence)")
    ax.set_ylabel("eps_R+(S) (rule positive rate)")
    ax.set_title(f"alpha, {pair}")
    return ax


def tradeoff(prevalence: float, rule_rate: float, *, n_pool: int | None = None,
             n_labels: int | None = None, costs: Mapping[str, float] | None = None
             ) -> TradeoffResult:
    r"""Equal-bound points of ε_O+(U), α (eq 3.24) and the positives to label (eq 3.23).

    Parameters
    ----------
    prevalence : float
        ε_O+(S) in (0, 1).
    rule_rate : float
        ε_R+(S) in (0, 1).
    n_pool, n_labels : int, optional
        |S| and the budget |L|; when given, eq 3.23 gives |L_O+| for each pair.
    costs : mapping, optional
        Cost weights per measure (Section 3.4), e.g. ``{"specificity": 2}``. They multiply
        the *squared* bounds (variance scale), as in the paper: the equality
        C_a B_a² = C_sp B_sp² is solved. For weights on the error scale pass their squares.

    Returns
    -------
    TradeoffResult

    Notes
    -----
    Setting the small-budget squared bounds (3.19)-(3.21) equal gives (3.22)
    :math:`ε^* = A/((1-ε_S)^3 + A)`, :math:`A = ε_{R+}ε_{R-}ε_S`, (3.25)
    :math:`ε^* = ε_S^3ε_{R-}/(ε_S^3ε_{R-} + (1-ε_S)^3ε_{R+})` and, for ε_R+ = ε_S,
    (3.29) :math:`ε^* = ε_S^2/(ε_S^2 + (1-ε_S)^2)`. These are *crossings*, not optima:
    under (3.19)-(3.21) both bounds fall as ε_O+(U) falls (for ε < 1/3), and under the
    exact model all three errors fall when more positives are labeled while
    ε_O+(U) < 1/2 (see ``plan_labels``).

    See Also
    --------
    plan_labels, alpha_map

    Examples
    --------
    >>> from evalstats.budget import tradeoff
    >>> eps = 23_257 / 581_012  # covtype, classes 4 and 7
    >>> t = tradeoff(eps, eps, n_pool=581_012, n_labels=23_257)
    >>> round(float(t.table["alpha"].iloc[2]), 4)
    0.0434
    """
    es = check_scalar(prevalence, "prevalence", 0, 1, low_inclusive=False, high_inclusive=False)
    er = check_scalar(rule_rate, "rule_rate", 0, 1, low_inclusive=False, high_inclusive=False)
    cost = _costs_iv(costs)
    if (n_pool is None) != (n_labels is None):
        raise fail("n_labels", "given together with `n_pool` (or both omitted)",
                   got=f"n_pool={n_pool!r}, n_labels={n_labels!r}")
    if n_pool is not None:
        n_pool = check_int(n_pool, "n_pool", low=2)
        n_labels = check_int(n_labels, "n_labels", low=0, high=n_pool)
    rows = []
    for pair in _bp.PAIRS:
        other = "sensitivity" if pair.startswith("sensitivity") else "precision"
        ratio = cost["specificity"] / cost[other]
        eps = float(_bp.balance_eps(es, er, pair, ratio))
        row = dict(pair=pair, eps_unlabeled=eps, alpha=eps / es, cost_ratio=ratio,
                   label_more="positives" if eps < es else "negatives")
        if n_pool is not None:
            row["n_positive"] = float(_bp.positives_for_eps(n_pool, es, n_labels, eps))
        rows.append(row)
    table = pd.DataFrame(rows)
    notes = Notes()
    notes.add("Equal-bound points are crossings of the paper's small-budget bounds "
              "(3.19)-(3.21), not optima; under the exact model labeling positives lowers "
              "all three errors while eps_O+(U) < 1/2.")
    return TradeoffResult(estimate=float(table["alpha"].iloc[0]), std_error=None,
                          method="equal bounds (3.22/3.25/3.29)", term="alpha",
                          call=dict(function="tradeoff", prevalence=es, rule_rate=er),
                          notes=notes.as_tuple(), table=table, prevalence=es, rule_rate=er)


def _costs_iv(costs) -> dict[str, float]:
    out = {m: 1.0 for m in MEASURES}
    if costs is None:
        return out
    if not isinstance(costs, Mapping):
        raise fail("costs", "a mapping from measure name to a positive weight",
                   got=f"an object of type {type(costs).__name__}", exc=TypeError)
    for k, v in costs.items():
        check_option(k, "costs key", MEASURES)
        out[k] = check_scalar(v, f"costs[{k!r}]", 0, None, low_inclusive=False)
    return out


# =========================================================================================
# 3. plans
# =========================================================================================
@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class LabelPlan(EvalResult):
    """How many positives and negatives to label so each measure meets its half-width.

    ``estimate`` is ``n_total``, the labels of the headline plan (chosen ``bound`` and
    ``strategy``, maximum over the requested measures, plus the prevalence-estimation
    sample when the prevalence is unknown). A plan is deterministic, so its interval
    is the single point ``[n_total, n_total]``.

    Attributes
    ----------
    n_positive, n_negative, n_total : int
        Headline plan.
    feasible : bool
        False when a target cannot be met within ``budget`` (or at all).
    table : DataFrame
        One row per (measure, bound, strategy): ``n_positive, n_negative, n_total,
        target_half_width, achieved_half_width, alpha, feasible, paper_condition_holds``.
    curves : DataFrame
        Half-width of each measure and bound against the positives labeled.
    n_prevalence : int
        Random labels for estimating ε_O+(S) (Prop 4.1); 0 when it is known.
    blind : DataFrame
        Blind labeling (eq 4.30) for the headline plan: negatives to add blindly and the
        expected number of mislabeled examples.
    """

    n_positive: int = 0
    n_negative: int = 0
    n_total: int = 0
    feasible: bool = True
    bound: str = "exact"
    strategy: str = "positives"
    half_width: float = 0.0
    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    curves: pd.DataFrame = field(default_factory=pd.DataFrame)
    n_prevalence: int = 0
    blind: pd.DataFrame = field(default_factory=pd.DataFrame)
    prevalence: float = 0.0
    rule_rate: float = 0.0

    def _interval(self, level, method: str = ""):
        return ConfidenceInterval(float(self.n_total), float(self.n_total))

    def _tidy_rows(self, level, method: str = ""):
        rows = []
        for rec in self.table.to_dict("records"):
            term = f"{rec['measure']}[{rec['bound']},{rec['strategy']}]"
            extra = {k: rec[k] for k in ("measure", "bound", "strategy", "n_positive",
                                         "n_negative", "n_total", "achieved_half_width",
                                         "alpha", "feasible")}
            rows.append(dict(term=term, estimate=float(rec["n_total"]), std_error=None,
                             conf_low=float(rec["n_total"]), conf_high=float(rec["n_total"]),
                             confidence_level=level, method=rec["bound"], **extra))
        return rows

    def _glance_extra(self):
        return dict(n_positive=self.n_positive, n_negative=self.n_negative,
                    n_total=self.n_total, n_prevalence=self.n_prevalence,
                    feasible=self.feasible)

    def _title(self):
        return "Labeling plan"

    def _header(self):
        hdr = super()._header()
        hdr.update({"Positives to label": self.n_positive, "Negatives to label":
                    self.n_negative, "Total labels": self.n_total,
                    "Feasible": "yes" if self.feasible else "NO (infeasible)",
                    "Target half-width": self.half_width})
        if self.n_prevalence:
            hdr["Prevalence sample"] = self.n_prevalence
        return hdr

    def _extra_tables(self):
        head = self.table[(self.table["bound"] == self.bound)
                          & (self.table["strategy"] == self.strategy)]
        cols = ["measure", "n_positive", "n_negative", "n_total", "achieved_half_width",
                "alpha", "feasible"]
        return [("Headline plan per measure", head[cols].reset_index(drop=True)),
                ("Blind labeling (eq 4.30)", self.blind)]

    def plot(self, ax=None, kind: str = "curves", **kwargs):
        """``kind="curves"``: half-width vs positives labeled, per measure and bound, with
        the target; or an α map (``"precision-specificity"``, ``"sensitivity-specificity"``,
        ``"rule-rate-equals-prevalence"``; Figures 1-3) with this problem marked."""
        check_option(kind, "kind", ("curves",) + _bp.PAIRS)
        if kind != "curves":
            ax = alpha_map(kind, ax=ax)
            ax.plot([self.prevalence], [self.rule_rate], "r*", ms=12)
            return ax
        ax = _get_ax(ax)
        styles = {"exact": "-", "bernstein": "--", "bernstein_paper": ":"}
        for (m, b), d in self.curves.groupby(["measure", "bound"], sort=False):
            ax.plot(d["n_positive"], d["half_width"], styles.get(b, "-"),
                    color=f"C{MEASURES.index(m)}", label=f"{m} ({b})", **kwargs)
        ax.axhline(self.half_width, color="k", lw=0.8)
        ax.set_yscale("log")
        ax.set_xlabel("positives labeled")
        ax.set_ylabel("half-width")
        ax.set_title("Half-width vs positives labeled (random rule)")
        ax.legend(fontsize="small")
        return ax


def plan_labels(n_pool: int, prevalence: float, rule_rate: float, half_width: float = 0.05,
                confidence_level: float = 0.95,
                measures: Sequence[str] = ("precision", "sensitivity", "specificity"),
                n_rules: int = 1, costs: Mapping[str, float] | None = None, *,
                bound: str = "exact", variance: str = "hypergeometric",
                strategy: str = "positives", prevalence_known: bool = True,
                prevalence_half_width: float | None = None, budget: int | None = None,
                bounds: Sequence[str] = ("exact", "bernstein", "bernstein_paper")
                ) -> LabelPlan:
    r"""Plan how many positives and negatives to label from a pool of ``n_pool`` examples.

    For a random rule with positive rate ``rule_rate`` (the "unknown rule" of the paper),
    find the fewest labels such that every requested measure's deviation from its plug-in
    mean is at most ``half_width`` (a *half*-width) with probability ≥ ``confidence_level``
    for each of ``n_rules`` rules simultaneously (union bound, δ/K).

    Parameters
    ----------
    n_pool : int
        |S|.
    prevalence : float
        ε_O+(S) in (0, 1).
    rule_rate : float
        ε_R+(S) in (0, 1) of the rules to be evaluated.
    half_width : float
        Target half-width in (0, 1].
    confidence_level : float
    measures : sequence of str
        Subset of ``("precision", "sensitivity", "specificity")``.
    n_rules : int
        Number of rules evaluated at once (union bound).
    costs : mapping, optional
        Cost weight per measure on the variance scale (Section 3.4): a measure with weight
        C gets the target ``half_width / sqrt(C)``.
    bound : {"exact", "bernstein", "bernstein_paper"}
        Bound of the headline plan; the table lists every bound in ``bounds``.
    variance : {"hypergeometric", "paper", "oracle_binomial"}
    strategy : {"positives", "random"}
        ``"positives"``: label retrieved minority-class examples only (under the exact
        model every error falls fastest this way); ``"random"``: uniformly random labels.
        The table lists both.
    prevalence_known : bool
        If False, add the random sample needed to estimate ε_O+(S) to
        ``prevalence_half_width`` (Prop 4.1, same bound family), and split δ between the
        two events (union bound).
    prevalence_half_width : float, optional
        Default ``half_width``.
    budget : int, optional
        Maximum number of labels; plans above it are marked infeasible.

    Returns
    -------
    LabelPlan

    Notes
    -----
    With k positives labeled and a random rule, the unlabeled counts are |U| = |S| - k,
    |U_O+| = |S_O+| - k, |U_R+| = ε_R+|U|, and the half-width of measure m is the count
    half-width of :func:`bernstein_bound` divided by |S_R+|, |S_O+| or |S_O-|. The plan is
    the smallest k meeting the target (a grid scan refined to single labels), so it
    never decreases when ``half_width`` decreases or ``confidence_level`` increases.

    See Also
    --------
    bernstein_bound, tradeoff, guided_sample

    Examples
    --------
    >>> from evalstats.budget import plan_labels
    >>> plan = plan_labels(20_000, 0.04, 0.05, half_width=0.005, measures=("precision",))
    >>> plan.n_positive > 0, plan.n_negative
    (True, 0)
    """
    n_pool, n_pos, n_rpos = _pool_iv(n_pool, prevalence, None, rule_rate, None)
    level, n_rules = _delta_iv(None, confidence_level, n_rules)
    h = check_scalar(half_width, "half_width", 0, 1, low_inclusive=False)
    if isinstance(measures, str):
        measures = (measures,)
    measures = tuple(check_option(m, "measures", MEASURES) for m in measures)
    if not measures:
        raise fail("measures", "a non-empty subset of " + ", ".join(MEASURES), value=measures)
    bound = check_option(bound, "bound", _bb.BOUNDS)
    bounds = tuple(dict.fromkeys([bound] + [check_option(b, "bounds", _bb.BOUNDS)
                                            for b in bounds]))
    variance = check_option(variance, "variance", _bb.VARIANCES)
    strategy = check_option(strategy, "strategy", _bp.STRATEGIES)
    cost = _costs_iv(costs)
    if budget is not None:
        budget = check_int(budget, "budget", low=1)
    delta = (1.0 - level) / n_rules
    notes = Notes()
    n_prev = 0
    if not prevalence_known:
        delta = delta / 2.0
        hp = h if prevalence_half_width is None else check_scalar(
            prevalence_half_width, "prevalence_half_width", 0, 1, low_inclusive=False)
        n_prev = _bb.prevalence_sample_size(n_pos / n_pool, hp, delta,
                                            bound, n_pool=n_pool)
        notes.add(f"Prevalence unknown: {n_prev} random labels estimate it to +/-{hp:g} "
                  "(Prop 4.1); delta is split between the two events (union bound). Its "
                  "error adds |U_R+| |eps_hat - eps| / D to each plug-in mean.")
    rows = []
    for strat in _bp.STRATEGIES:
        for b in bounds:
            for m in measures:
                rows.append(_bp.plan_one(m, b, variance, strat, n_pool, n_pos, n_rpos,
                                         h / np.sqrt(cost[m]), delta))
    table = pd.DataFrame(rows)
    if budget is not None:
        table["feasible"] &= (table["n_total"] + n_prev) <= budget
    head = table[(table["bound"] == bound) & (table["strategy"] == strategy)]
    n_p, n_n = int(head["n_positive"].max()), int(head["n_negative"].max())
    n_tot = int(head["n_total"].max()) + n_prev
    feasible = bool(head["feasible"].all())
    if not feasible:
        bad = ", ".join(head.loc[~head["feasible"], "measure"])
        notes.warn(SmallSampleWarning,
                   f"Infeasible: the target half-width {h:g} cannot be met for {bad} "
                   f"within the budget of {budget} labels; the counts shown are the labels "
                   "the target needs.")
    paper_bad = table[(table["bound"] == "bernstein_paper") & ~table["paper_condition_holds"]]
    if len(paper_bad):
        notes.add("bernstein_paper rows marked paper_condition_holds=False are NOT implied "
                  "by Bernstein's inequality (V < (4/9) log(2/delta)).")
    curves = []
    for b in bounds:
        for m in measures:
            k, hw = _bp.halfwidth_curve(m, b, variance, n_pool, n_pos, n_rpos, delta)
            curves.append(pd.DataFrame(dict(measure=m, bound=b, n_positive=k, half_width=hw)))
    l_pos = n_p if strategy == "positives" else 0
    n_blind = l_pos * (1 - prevalence) / prevalence
    eps_u = (n_pos - l_pos) / max(n_pool - l_pos, 1)
    blind = pd.DataFrame([dict(labeled_positives=l_pos, blind_negatives=int(np.ceil(n_blind)),
                               expected_mislabeled=n_blind * eps_u,
                               augmented_positive_rate=prevalence)])
    return LabelPlan(
        estimate=float(n_tot), std_error=None, confidence_level=level,
        method=f"{bound} / {variance}", term="n_total", n=n_pool, n_unit="pool examples",
        data=f"|S| = {n_pool}, prevalence {prevalence:g}, rule rate {rule_rate:g}",
        call=dict(function="plan_labels", n_pool=n_pool, prevalence=prevalence,
                  rule_rate=rule_rate, half_width=h, n_rules=n_rules, bound=bound),
        notes=notes.as_tuple(), n_positive=n_p, n_negative=n_n, n_total=n_tot,
        feasible=feasible, bound=bound, strategy=strategy, half_width=h, table=table,
        curves=pd.concat(curves, ignore_index=True), n_prevalence=n_prev, blind=blind,
        prevalence=prevalence, rule_rate=rule_rate)


# =========================================================================================
# 4. estimates after labeling
# =========================================================================================
@dataclass(frozen=True)
class LabelDesign:
    """How the labeled examples were drawn, so that estimates can undo the enrichment.

    Build it with :meth:`stratified`, :meth:`poisson`, :meth:`simple` or :meth:`blind`.
    """

    kind: str
    strata: np.ndarray | None = None
    stratum_sizes: Mapping[Any, float] | None = None
    inclusion_probabilities: np.ndarray | None = None
    is_blind: np.ndarray | None = None

    @classmethod
    def stratified(cls, strata, stratum_sizes: Mapping[Any, float]) -> LabelDesign:
        """Simple random samples without replacement within strata (e.g. predicted-minority
        vs the rest). ``strata``: stratum of each labeled example; ``stratum_sizes``:
        N_h for every stratum of the pool."""
        strata = np.asarray(strata)
        if not isinstance(stratum_sizes, Mapping):
            raise fail("stratum_sizes", "a mapping from stratum to its pool size",
                       got=f"an object of type {type(stratum_sizes).__name__}", exc=TypeError)
        missing = set(np.unique(strata).tolist()) - set(stratum_sizes)
        if missing:
            raise fail("stratum_sizes", "a size for every stratum in `strata`",
                       got=f"no size for {sorted(missing)!r}")
        for h in np.unique(strata):
            if stratum_sizes[h] < np.sum(strata == h):
                raise fail(f"stratum_sizes[{h!r}]", f"at least the {np.sum(strata == h)} "
                           "labeled examples of that stratum", value=stratum_sizes[h])
        return cls("stratified", strata=strata, stratum_sizes=dict(stratum_sizes))

    @classmethod
    def poisson(cls, inclusion_probabilities) -> LabelDesign:
        """Independent inclusion with known probabilities π_i (Horvitz-Thompson)."""
        pi = check_array(inclusion_probabilities, "inclusion_probabilities")
        if pi.min() <= 0 or pi.max() > 1:
            raise fail("inclusion_probabilities", "in (0, 1]",
                       got=f"values in [{pi.min():.4g}, {pi.max():.4g}]")
        return cls("poisson", inclusion_probabilities=pi)

    @classmethod
    def simple(cls, n_pool: int, n_labeled: int) -> LabelDesign:
        """One simple random sample of ``n_labeled`` from ``n_pool`` (unweighted)."""
        n_pool = check_int(n_pool, "n_pool", low=1)
        n_labeled = check_int(n_labeled, "n_labeled", low=1, high=n_pool)
        return cls("stratified", strata=np.zeros(n_labeled, int), stratum_sizes={0: n_pool})

    @classmethod
    def blind(cls, is_blind, n_pool: int) -> LabelDesign:
        """The paper's blind labeling (Section 4.1): rows with ``is_blind`` were added at
        random and labeled negative without querying; estimates are the unweighted subset
        estimates on the augmented set L̂ (treated as one simple random sample)."""
        mask = np.asarray(is_blind, bool)
        n_pool = check_int(n_pool, "n_pool", low=len(mask))
        return cls("blind", strata=np.zeros(len(mask), int), stratum_sizes={0: n_pool},
                   is_blind=mask)


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class RuleEvaluation(EvalResult):
    """Estimates and intervals of Pr/Se/Sp for many rules (one row per rule and measure).

    ``estimate`` is the first row's estimate; ``table`` holds ``rule, measure, estimate,
    std_error, denominator_total, n_denominator``. Intervals are Clopper-Pearson intervals
    at the design effective sample size n_eff = p(1-p)/se² (capped at the labeled examples
    in the denominator; Korn & Graubard 1998), recomputed at any level.
    """

    table: pd.DataFrame = field(default_factory=pd.DataFrame)

    def _row_interval(self, est, se, n_den, level):
        return _kg_interval(est, se, n_den, level)

    def _interval(self, level, method: str = ""):
        first = self.table.iloc[0]
        return self._row_interval(self.estimate, self.std_error, first["n_denominator"], level)

    def _tidy_rows(self, level, method: str = ""):
        rows = []
        for rec in self.table.to_dict("records"):
            lo, hi = self._row_interval(rec["estimate"], rec["std_error"],
                                        rec["n_denominator"], level)
            rows.append(dict(term=f"{rec['rule']}:{rec['measure']}", estimate=rec["estimate"],
                             std_error=rec["std_error"], conf_low=lo, conf_high=hi,
                             confidence_level=level, method=self.method, rule=rec["rule"],
                             measure=rec["measure"]))
        return rows

    def _title(self):
        return "Rule evaluation from a designed label sample"


def evaluate_rules(labels, rules, design: LabelDesign, *,
                   measures: Sequence[str] = ("precision", "sensitivity", "specificity"),
                   confidence_level: float = 0.95) -> RuleEvaluation:
    r"""Precision, sensitivity and specificity of many rules from one labeled sample.

    Parameters
    ----------
    labels : array-like of 0/1, shape (n,)
        Oracle labels of the labeled examples (for a blind design, blind rows are set to 0).
    rules : array-like (n, K), DataFrame or mapping
        Predictions (0/1) of K rules on the labeled examples; DataFrame columns or mapping
        keys name the rules.
    design : LabelDesign
        The sampling design (stratified, Poisson, simple or blind).
    measures : sequence of str
    confidence_level : float

    Returns
    -------
    RuleEvaluation

    Notes
    -----
    Each measure is a ratio of pool totals, e.g. Pr = Σ y r / Σ r. Horvitz-Thompson weights
    w_i = 1/π_i (N_h/n_h under stratified sampling) estimate both totals without bias; the
    ratio is consistent, with the linearised (Taylor) variance of the residuals
    e_i = (z_i - R̂ x_i)/X̂ (Cochran 1977, Sec. 6.11; Särndal et al. 1992, Sec. 5.6). The
    interval is Clopper-Pearson at the effective sample size p(1-p)/se² (Korn & Graubard
    1998), which keeps coverage near nominal when few labels fall in a stratum. A
    ratio whose denominator total is estimated as 0 is undefined: it is reported as NaN
    with an :class:`~evalstats.UndefinedEstimateWarning` and a note.

    See Also
    --------
    plan_labels, guided_sample

    Examples
    --------
    >>> import numpy as np
    >>> from evalstats.budget import LabelDesign, evaluate_rules
    >>> y = np.array([1, 1, 1, 0, 0, 0, 0, 0])
    >>> r = np.array([[1, 0], [1, 1], [0, 1], [1, 0], [0, 0], [0, 1], [0, 0], [0, 0]])
    >>> d = LabelDesign.stratified(y, {1: 40, 0: 960})  # 3 of 40 positives, 5 of 960
    >>> ev = evaluate_rules(y, r, d)
    >>> round(float(ev.table["estimate"].iloc[0]), 4)  # precision of rule 0
    0.122
    """
    y = check_binary_labels(labels, "labels")
    if isinstance(rules, pd.DataFrame):
        names, r = [str(c) for c in rules.columns], rules.to_numpy()
    elif isinstance(rules, Mapping):
        names = [str(k) for k in rules]
        r = np.column_stack([np.asarray(v) for v in rules.values()])
    else:
        r = check_array(rules, "rules", ndim=(1, 2))
        r = r[:, None] if r.ndim == 1 else r
        names = [f"rule_{j}" for j in range(r.shape[1])]
    r = np.asarray(r, float)
    if r.shape[0] != len(y):
        raise fail("rules", f"one row per labeled example ({len(y)})",
                   got=f"{r.shape[0]} rows")
    if not np.isin(r, (0.0, 1.0)).all():
        raise fail("rules", "predictions coded 0/1", got="other values")
    if not isinstance(design, LabelDesign):
        raise fail("design", "a LabelDesign (LabelDesign.stratified/poisson/simple/blind)",
                   got=f"an object of type {type(design).__name__}", exc=TypeError)
    level = check_confidence_level(confidence_level)
    if isinstance(measures, str):
        measures = (measures,)
    measures = tuple(check_option(m, "measures", MEASURES) for m in measures)
    notes = Notes()
    n_lab = len(y)
    for arr_name in ("strata", "inclusion_probabilities", "is_blind"):
        arr = getattr(design, arr_name)
        if arr is not None and len(arr) != n_lab:
            raise fail(f"design.{arr_name}", f"of length {n_lab} (one per labeled example)",
                       got=f"length {len(arr)}")
    if design.kind == "blind":
        n_b = int(design.is_blind.sum())
        if np.any(y[design.is_blind] != 0):
            raise fail("labels", "0 on every blind-labeled row", got="some 1s")
        n_real = n_lab - n_b
        rate = float(y.sum() / max(n_real, 1))
        notes.add(f"Blind labeling: {n_b} rows labeled negative without querying; if the "
                  f"unlabeled positive rate is eps_O+(U), about {n_b} * eps_O+(U) of them are "
                  f"wrong (queried rows have positive rate {rate:.3g}).")
    rows = []
    for m in measures:
        n_den = (r if m == "precision" else np.broadcast_to(
            (y if m == "sensitivity" else 1 - y)[:, None], r.shape)).sum(axis=0)
        if design.kind == "poisson":
            est, se, xt = poisson_ratio(y, r, design.inclusion_probabilities, m)
        else:
            est, se, xt, n_single = stratified_ratio(y, r, design.strata,
                                                     design.stratum_sizes, m)
            if n_single:
                notes.warn(SmallSampleWarning, f"{n_single} stratum/strata hold a single "
                           "label; their variance contribution cannot be estimated and is "
                           "left out (standard errors too small).")
        for j, name in enumerate(names):
            if not np.isfinite(est[j]):
                notes.warn(UndefinedEstimateWarning,
                           f"{m} of {name} is undefined: no labeled example in its "
                           "denominator (reported as NaN).")
            rows.append(dict(rule=name, measure=m, estimate=float(est[j]),
                             std_error=float(se[j]) if np.isfinite(est[j]) else float("nan"),
                             denominator_total=float(xt[j]), n_denominator=int(n_den[j])))
    table = pd.DataFrame(rows)
    method = {"poisson": "Horvitz-Thompson ratio (Poisson)", "stratified":
              "stratified HT ratio", "blind": "blind-labeled subset"}[design.kind]
    first = table.iloc[0]
    return RuleEvaluation(estimate=float(first["estimate"]), std_error=float(first["std_error"]),
                          confidence_level=level, method=method,
                          term=f"{first['rule']}:{first['measure']}", n=n_lab, n_unit="labels",
                          call=dict(function="evaluate_rules", n_rules=len(names),
                                    design=design.kind),
                          notes=notes.as_tuple(), table=table)


def _kg_interval(est: float, se: float, n_den: float, level: float) -> ConfidenceInterval:
    """Korn-Graubard interval: Clopper-Pearson with x = p n_eff successes of n_eff trials."""
    if not np.isfinite(est):
        return ConfidenceInterval(float("nan"), float("nan"))
    from scipy import stats

    n_eff = n_den if se <= 0 else min(n_den, est * (1 - est) / se ** 2)
    n_eff = max(n_eff, 1.0)
    x, a = est * n_eff, 1 - level
    lo = 0.0 if x <= 0 else float(stats.beta.ppf(a / 2, x, n_eff - x + 1))
    hi = 1.0 if x >= n_eff else float(stats.beta.ppf(1 - a / 2, x + 1, n_eff - x))
    return ConfidenceInterval(lo, hi)


# =========================================================================================
# 5. guided retrieval
# =========================================================================================
@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class RetrievalResult(EvalResult):
    """Labels collected by :func:`guided_sample`.

    ``estimate`` is the fraction of positives among the labels. ``indices`` are the pool
    indices in labeling order, ``labels`` their oracle labels, ``n_seed`` the size of the
    random seed set.
    """

    indices: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    labels: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    n_seed: int = 0
    strategy: str = "guided"
    pool_prevalence: float | None = None

    def _interval(self, level, method: str = ""):
        return ConfidenceInterval(self.estimate, self.estimate)

    def _glance_extra(self):
        return dict(n_positive=int(self.labels.sum()), strategy=self.strategy)

    def positives_curve(self) -> np.ndarray:
        """Cumulative positives found after each label."""
        return np.cumsum(self.labels)

    def plot(self, ax=None, **kwargs):
        """Cumulative positives found against labels spent (Figure 4 of the paper)."""
        ax = _get_ax(ax)
        n = np.arange(1, len(self.labels) + 1)
        ax.plot(n, self.positives_curve(), label=self.strategy, **kwargs)
        if self.pool_prevalence is not None:
            ax.plot(n, n * self.pool_prevalence, ":", color="grey", label="random (expected)")
        ax.set_xlabel("labels")
        ax.set_ylabel("positives found")
        ax.legend()
        return ax


def guided_sample(X, oracle, n_labels: int, *, strategy: str = "guided", n_seed: int = 100,
                  batch_size: int = 5, estimator=None,
                  rng: None | int | np.random.Generator = None) -> RetrievalResult:
    """Collect labels by guided retrieval of minority-class examples, or at random.

    Parameters
    ----------
    X : array-like (N, p)
        Features of the pool.
    oracle : array-like (N,) of 0/1, or callable
        The expert: an array of pool labels (simulation) or a function mapping an array of
        pool indices to their labels (called once per round).
    n_labels : int
        Total labels to collect.
    strategy : {"guided", "random"}
        ``"guided"``: ``n_seed`` random labels, then rounds that refit ``estimator`` on all
        labels and label ``batch_size`` examples it predicts positive (the paper's second
        scheme, Section 4; decision tree, 100 seeds and 5 per round in Section 5).
        ``"random"``: uniformly random labels.
    n_seed, batch_size : int
    estimator : scikit-learn classifier, optional
        Surrogate (cloned each round). Default ``DecisionTreeClassifier``. Needs the
        ``ml`` extra (scikit-learn), imported lazily.
    rng : None, int or Generator

    Returns
    -------
    RetrievalResult

    Notes
    -----
    The labels are *not* a probability sample: use them with :func:`bernstein_bound`
    (plug-in means, prevalence known), with blind labeling (:meth:`LabelDesign.blind`), or
    draw within strata of a fixed surrogate score for :func:`evaluate_rules`.

    See Also
    --------
    plan_labels, evaluate_rules

    Examples
    --------
    >>> import numpy as np
    >>> from evalstats.budget import guided_sample
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 2)); y = (X[:, 0] > 1.8).astype(int)
    >>> res = guided_sample(X, y, 200, n_seed=50, batch_size=10, rng=1)
    >>> bool(res.labels.sum() > 4 * 200 * y.mean())
    True
    """
    from ._sampling import default_estimator, guided_order, random_order

    x = check_array(X, "X", ndim=2)
    n_pool = x.shape[0]
    strategy = check_option(strategy, "strategy", ("guided", "random"))
    n_labels = check_int(n_labels, "n_labels", low=1, high=n_pool)
    prev = None
    if not callable(oracle):
        yy = check_binary_labels(oracle, "oracle")
        if len(yy) != n_pool:
            raise fail("oracle", f"one label per row of `X` ({n_pool})", got=f"{len(yy)}")
        oracle, prev = yy, float(yy.mean())
    gen = check_rng(rng)
    if strategy == "guided":
        n_seed = check_int(n_seed, "n_seed", low=1, high=n_labels)
        batch_size = check_int(batch_size, "batch_size", low=1)
        est = default_estimator(int(gen.integers(2**31))) if estimator is None else estimator
        order, lab, n_rounds = guided_order(x, oracle, n_pool, n_labels, n_seed, batch_size,
                                            est, gen)
    else:
        order, lab, n_rounds = random_order(oracle, n_pool, n_labels, gen)
        n_seed = 0
    return RetrievalResult(
        estimate=float(lab.mean()), std_error=None, method=f"{strategy} retrieval",
        term="positive_fraction", n=n_labels, n_unit="labels",
        call=dict(function="guided_sample", n_labels=n_labels, strategy=strategy,
                  n_seed=n_seed, batch_size=batch_size),
        diagnostics=dict(n_rounds=n_rounds), indices=order, labels=lab, n_seed=n_seed,
        strategy=strategy, pool_prevalence=prev)
