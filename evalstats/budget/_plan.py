"""How many labels to buy: :func:`plan_labels` (Valizadegan, Amizadeh & Hauskrecht 2012,
Sections 3-4, with a guarantee for any rule as the default target)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .._naming import named_result
from .._validation import check_int, check_option, check_probability, check_scalar, fail
from .._warnings import Notes
from . import _anyplan as _ap
from . import _bounds as _bb
from . import _scan as _bp
from ._bound import variance_for
from ._common import (
    check_measure,
    costs_iv,
    delta_iv,
    deprecated_positional,
    measure_pairs,
    pool_iv,
    renamed,
)
from ._labelplan import LabelPlan
from ._plannotes import plan_notes
from ._prevalence import prevalence_iv

__all__ = ["plan_labels"]

RULES = ("any", "random")
ANY_BOUNDS = ("exact", "bernstein")


@deprecated_positional(3)
@named_result
def plan_labels(n_pool: int, prevalence: float | tuple[float, float] | None,
                rule_rate: float, *, half_width: float = 0.05,
                confidence_level: float = 0.95,
                measures: Sequence[str] = ("precision", "recall", "specificity"),
                n_rules: int = 1, costs: Mapping[str, float] | None = None,
                rules: str = "any", bound: str = "exact", variance: str | None = None,
                strategy: str = "auto", prevalence_known: bool = True,
                prevalence_half_width: float | None = None, max_labels: int | None = None,
                bounds: Sequence[str] = ("exact", "bernstein", "bernstein_paper"),
                budget: int | None = None, scores: Sequence[float] | np.ndarray | None = None,
                pilot: tuple[int, int] | None = None, joint: bool = True,
                expected: Mapping[str, float] | None = None) -> LabelPlan:
    r"""Plan how many examples to label from a pool of ``n_pool``, search included.

    Find the fewest labels to buy such that every requested measure of a rule that flags
    a fraction ``rule_rate`` of the pool is known to within ``half_width`` (a *half*-width),
    all measures of all ``n_rules`` rules at once with probability ≥ ``confidence_level``.
    By default the guarantee holds for **any** such rule, informative classifiers
    included; ``rules="random"`` gives the paper's analysis, which holds only for rules
    whose predictions are independent of the labels.

    Parameters
    ----------
    n_pool : int
        Items in the pool, |S| in the paper (up to 1e12; large pools use continuous
        approximations of the quantiles).
    prevalence : float, (float, float) or None
        ε_O+(S) in (0, 1); or an interval ``(low, high)`` known to contain it (plans hold
        over all of it); or None with ``pilot``.
    rule_rate : float
        ε_R+(S) in (0, 1) of the rules to be evaluated.
    half_width : float, keyword-only
        Target half-width in (0, 1]. Arguments after ``rule_rate`` are keyword-only;
        passing them by position (the old signature) still works with a FutureWarning.
    confidence_level : float
        Probability that the guarantee holds; also the probability that the labels
        bought suffice to find the positives a plan needs (see Notes).
    measures : sequence of str
        Subset of ``("precision", "recall", "specificity")`` (``"sensitivity"`` is an
        alias of ``"recall"``; the table uses the spelling given).
    n_rules : int
        Number of rules evaluated at once (union bound).
    costs : mapping, optional
        Cost weight per measure on the variance scale (Section 3.4): a measure with weight
        C gets the target ``half_width / sqrt(C)``.
    rules : {"any", "random"}
        ``"any"`` (default): a guarantee for every rule of this size: with
        ``strategy="positives"`` the deterministic range of each measure given the labeled
        positives (no probability beyond that of a pilot's interval), with
        ``strategy="random"`` the subset estimate from random labels. ``"random"``: the
        paper's random-rule analysis (plug-in means of eqs 3.4-3.10 and their bounds); it
        can plan 0 labels where informative rules are off by much more than
        ``half_width`` (a note says so).
    bound : {"exact", "bernstein", "bernstein_paper"}
        Bound of the headline plan (random labels, or ``rules="random"``); with
        ``rules="any"`` and ``strategy="positives"`` the bound is the deterministic range.
        ``"bernstein_paper"`` is exactly the paper's formula (Props 3.1-3.3 with its
        binomial variances) and exists only for ``rules="random"``.
    variance : {"hypergeometric", "paper", "oracle_binomial"}, optional
        Variance model of the random-rule rows (default ``"hypergeometric"``; the
        ``bernstein_paper`` rows always use ``"paper"``).
    strategy : {"auto", "positives", "random"}
        ``"positives"``: label positives, found by labeling the pool in random order (or
        in decreasing ``scores``); ``"random"``: uniformly random labels; ``"auto"``
        (default): the one with fewer labels to buy. The table lists both.
    prevalence_known : bool
        With a number as ``prevalence``: whether it is exact (default) or only a planning
        value. When it is not known, the deterministic plan buys a random sample that
        estimates it (the first labels of a random search are that sample), with the
        half-width that minimises the labels to buy; the random-label plan needs no
        prevalence (it is used only to forecast the class counts of its labels) and the
        random-rule rows add the prevalence error to each half-width (Prop 4.1).
    prevalence_half_width : float, optional
        Fix the half-width of that prevalence sample instead.
    max_labels : int, optional
        Maximum number of labels; plans above it are marked infeasible (old name
        ``budget``, deprecated).
    bounds : sequence of str
        Bounds listed in the table for random rules (``rules="random"``; the table of an
        any-rule plan lists the any-rule plans only).
    scores : array-like of float, optional
        A pilot model's scores on the pool (one per example, in [0, 1]). Plans that label
        positives then find them by labeling in decreasing score, and their search cost is
        computed treating the scores as calibrated probabilities (up to a common shift of
        their logits, given the positive count). Overconfident scores make the forecast
        optimistic.
    pilot : (int, int), optional
        ``(k, n)``: ``k`` positives in a simple random sample of ``n`` examples of the
        pool, instead of ``prevalence``. Plans hold over its exact confidence interval of
        the positive count (see Notes for the share of δ it takes).
    joint : bool
        True (default): the guarantee holds for all requested measures of all rules at
        once (Bonferroni: each gets δ/(M K)); False: each measure separately (δ/K).
    expected : mapping, optional
        Planning values, e.g. ``{"precision": 0.8}``: the random-label plan is also given
        at these values (``planning`` table, ``n_total_planning``) beside the worst case,
        as statsmodels' ``samplesize_confint_proportion`` or R's ``presize::prec_prop``
        take an expected proportion. It holds if the measure is at least as far from 1/2
        as the planning value.

    Returns
    -------
    LabelPlan
        ``n_total`` is the number of labels to buy; ``n_positive`` the positives among
        them that the plan needs (a detail of how they are used).

    Notes
    -----
    **Labels to buy.** A plan that labels positives must find them. Labeling in random
    order, the labels needed to meet the ``k``-th positive follow the negative
    hypergeometric law (mean :math:`k(|S|+1)/(|S_{O+}|+1)`, about ``k / prevalence``);
    in score order, the law implied by independent labels with the scores as
    probabilities, conditioned on the pool's positive count (computed exactly by forward
    and backward recursions over the pool in score order). The plan buys the
    ``confidence_level`` quantile of that law (column ``n_total``; its mean is in
    ``n_total_mean``) and never more than the pool. If the scores are overconfident the
    search takes longer than planned, and a budget ``max_labels`` is then the safeguard.

    **Any rule.** Labeled positives (the deterministic range of
    ``bernstein_bound(...).deterministic_range``): after ``k`` labeled positives every
    measure of any rule lies in a known range; the plan is the fewest ``k`` whose worst
    case over the rule's hits is at most the target, over the whole interval of the
    positive count. Random labels (subset estimates): the
    worst-case exact (or Bernstein) half-width of a hypergeometric proportion, with the
    worst case restricted to the measure's feasibility range (e.g. precision ≤
    ``|S_O+|/|S_R+|``), and 0 labels for a measure that range already pins to the target.

    **Joint guarantee and δ.** Each probabilistic statement gets its share of
    δ = 1 - ``confidence_level`` (union bound): measures × rules for the subset intervals
    (or rules only with ``joint=False``); the deterministic range needs none, so with a
    pilot its interval of the positive count takes all of δ; the random-label plan with a
    pilot gives δ/2 to the pilot's interval and δ/2 to the subset intervals.

    **Monotonicity.** Plans never decrease when ``half_width`` decreases, and the
    deterministic plans and search costs never decrease when ``confidence_level``
    increases. The exact subset and random-rule plans are built on discrete quantiles and
    can, at small counts or large hit ranges, ask for a few labels fewer at a higher
    level (e.g. 37 at 80 % against 34 at 85 % on a 327-item pool; 1,476 at 91 % against
    1,466 at 92 % for the random-rule exact precision plan of a 5,000-item pool at
    prevalence 0.3 and ±0.01); the Bernstein rows are monotone.

    References
    ----------
    .. [1] Valizadegan, Amizadeh & Hauskrecht (2012). Effective sampling strategies for
       the evaluation of classifiers. SDM. Props 3.1-3.3, 4.1, eq 4.30.

    See Also
    --------
    bernstein_bound, tradeoff, guided_sample, evaluate_rules

    Examples
    --------
    >>> from evalstats.budget import plan_labels
    >>> plan = plan_labels(20_000, 0.03, 0.05, half_width=0.02)
    >>> plan.strategy, plan.n_total
    ('random', 17486)
    """
    a = _plan_labels_iv(n_pool, prevalence, rule_rate, half_width, confidence_level,
                        measures, n_rules, costs, rules, bound, variance, strategy,
                        prevalence_known, prevalence_half_width, max_labels, bounds, budget,
                        scores, pilot, joint, expected)
    notes = Notes()
    table, p_range = _plan_table(a)
    if a["max_labels"] is not None:
        table["feasible"] &= table["n_total"] <= a["max_labels"]
    a["strategy"], head_bound, head = _headline(a, table)
    n_tot = int(head["n_total"].max())
    n_p = int(head["n_positive"].max())
    feasible = bool(head["feasible"].all())
    plan_notes(a, table, head, n_tot, feasible, notes)
    planning = _planning_table(a)
    return LabelPlan(
        data=_data_words(a),
        call=a["call"], notes=notes.as_tuple(), n_positive=n_p, n_negative=n_tot - n_p,
        n_total=n_tot, rules=a["rules"], strategy=a["strategy"], bound=head_bound,
        half_width=a["h"], confidence_level=a["level"], feasible=feasible, table=table,
        curves=_plan_curves(a, p_range), n_prevalence=int(head["n_prevalence"].max()),
        blind=_blind_table(a, n_p), prevalence=a["prev"].count / a["n_pool"],
        rule_rate=a["rule_rate"], n_pool=a["n_pool"],
        n_total_mean=float(head["n_total_mean"].max()), search=_search_name(a),
        joint=a["joint"], n_rules=a["n_rules"], prevalence_range=(p_range[0] / a["n_pool"],
                                            p_range[1] / a["n_pool"]),
        measures=tuple(label for label, _ in a["pairs"]), planning=planning,
        n_total_planning=None if planning.empty else int(planning["n_total"].max()))


def _data_words(a) -> str:
    """The planning inputs in words: ``"pool of 20,000 items, prevalence 0.03 (known),
    rules that flag 5% of the pool"``."""
    return (f"pool of {a['n_pool']:,} items, {a['prev'].describe()}, rules that flag "
            f"{100 * a['rule_rate']:.3g}% of the pool")


def _plan_labels_iv(n_pool, prevalence, rule_rate, half_width, confidence_level, measures,
                    n_rules, costs, rules, bound, variance, strategy, prevalence_known,
                    prevalence_half_width, max_labels, bounds, budget, scores, pilot, joint,
                    expected) -> dict:
    """Normalised arguments of :func:`plan_labels` (raises on bad input)."""
    max_labels = renamed("budget", "max_labels", budget, max_labels)
    if isinstance(n_pool, float) and n_pool.is_integer():
        n_pool = int(n_pool)
    n_pool = check_int(n_pool, "n_pool", low=2, high=10 ** 12)
    prev = prevalence_iv(n_pool, prevalence, pilot, prevalence_known)
    n_pool, _, n_rpos = pool_iv(n_pool, None, prev.count, rule_rate, None)
    level, n_rules = delta_iv(None, confidence_level, n_rules)
    h = check_scalar(half_width, "half_width", 0, 1, low_inclusive=False)
    pairs = measure_pairs(measures)
    rules = check_option(rules, "rules", RULES)
    bound = check_option(bound, "bound", _bb.BOUNDS)
    strategy = check_option(strategy, "strategy", ("auto",) + _bp.STRATEGIES)
    if rules == "any" and strategy != "positives" and bound not in ANY_BOUNDS:
        raise fail("bound", "'exact' or 'bernstein' for rules='any'", value=bound,
                   remedy="bound='bernstein_paper' is the paper's random-rule formula; use "
                          "it with rules='random'.")
    variance_for(bound, variance)  # refuses bernstein_paper with another variance
    user_variance = variance if variance is None else check_option(variance, "variance",
                                                                   _bb.VARIANCES)
    if isinstance(bounds, str):         # one name, not its letters ('e', 'x', ...)
        bounds = (bounds,)
    bounds = tuple(dict.fromkeys(([bound] if bound in _bb.BOUNDS else [])
                                 + [check_option(b, "bounds", _bb.BOUNDS) for b in bounds]))
    if prevalence_half_width is not None:
        prevalence_half_width = check_scalar(prevalence_half_width, "prevalence_half_width",
                                             0, 1, low_inclusive=False)
    if max_labels is not None:
        max_labels = check_int(max_labels, "max_labels", low=1)
    if not isinstance(joint, bool | np.bool_):
        raise fail("joint", "True or False", value=joint, exc=TypeError)
    cost = costs_iv(costs)
    a = dict(n_pool=n_pool, prev=prev, n_rpos=n_rpos, rule_rate=float(rule_rate),
             level=level, n_rules=n_rules, h=h, pairs=pairs, cost=cost, rules=rules,
             bound=bound, variance=user_variance, bounds=bounds, strategy=strategy,
             hp=prevalence_half_width, max_labels=max_labels, joint=bool(joint),
             scores=_scores_iv(scores, n_pool), expected=_expected_iv(expected),
             targets={m: h / np.sqrt(cost[m]) for _, m in pairs})
    a["call"] = _call(a, prevalence, pilot, prevalence_known, measures, costs, scores,
                      expected)
    return a


def _scores_iv(scores, n_pool):
    if scores is None:
        return None
    s = check_probability(scores, "scores")
    if len(s) != n_pool:
        raise fail("scores", f"one score per example of the pool (n_pool = {n_pool})",
                   got=f"{len(s)} scores")
    return s


def _expected_iv(expected) -> dict[str, float] | None:
    if expected is None:
        return None
    if not isinstance(expected, Mapping):
        raise fail("expected", "a mapping from measure name to a planning value in [0, 1]",
                   got=f"an object of type {type(expected).__name__}", exc=TypeError)
    return {check_measure(k, "expected key"): check_scalar(v, f"expected[{k!r}]", 0, 1)
            for k, v in expected.items()}


def _call(a, prevalence, pilot, prevalence_known, measures, costs, scores, expected):
    """The call echo, without arguments left at their defaults."""
    call = dict(function="plan_labels", n_pool=a["n_pool"],
                prevalence=tuple(prevalence) if isinstance(prevalence, list) else prevalence,
                rule_rate=a["rule_rate"], half_width=a["h"], confidence_level=a["level"],
                measures=tuple(m for m, _ in a["pairs"]), n_rules=a["n_rules"],
                costs=costs, rules=a["rules"], bound=a["bound"], variance=a["variance"],
                strategy=a["strategy"], prevalence_known=bool(prevalence_known),
                prevalence_half_width=a["hp"], max_labels=a["max_labels"],
                bounds=a["bounds"], scores=scores, pilot=pilot, joint=a["joint"],
                expected=expected)
    defaults = dict(confidence_level=0.95, measures=("precision", "recall", "specificity"),
                    n_rules=1, costs=None, rules="any", bound="exact", variance=None,
                    strategy="auto", prevalence_known=True, prevalence_half_width=None,
                    max_labels=None, bounds=("exact", "bernstein", "bernstein_paper"),
                    scores=None, pilot=None, joint=True, expected=None)
    return {k: v for k, v in call.items()
            if k not in defaults or v is not defaults[k] and not _same(v, defaults[k])}


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except (ValueError, TypeError):
        return False


def _search_name(a) -> str:
    return "scores" if a["scores"] is not None else "random"


def _headline(a, table):
    """``(strategy, bound, rows)`` of the headline plan (``"auto"``: fewer labels)."""
    def rows(strategy):
        b = "deterministic" if (a["rules"], strategy) == ("any", "positives") else a["bound"]
        t = table[(table["rules"] == a["rules"]) & (table["strategy"] == strategy)
                  & (table["bound"] == b)]
        return strategy, b, t

    if a["strategy"] != "auto":
        return rows(a["strategy"])
    options = [rows(s) for s in _bp.STRATEGIES]
    need = [int(t["n_total"].max()) + (0 if t["feasible"].all() else 10 ** 18)
            for _, _, t in options]
    return options[int(np.argmin(need))]


def _plan_table(a) -> tuple[pd.DataFrame, tuple[int, int]]:
    """Every plan's rows, and the interval of the positive count of the deterministic
    plan."""
    pos_rows, p_range, _ = _ap.positives_rows(a)
    rows = list(pos_rows)
    for b in ANY_BOUNDS:
        rows += _ap.random_rows(a, b)
    if a["rules"] == "random":
        rows += _random_rule_rows(a)
    cols = ["rules", "measure", "bound", "strategy", "n_positive", "n_negative", "n_total",
            "n_total_mean", "n_prevalence", "half_width", "achieved_half_width",
            "feasible", "paper_condition_holds", "census"]
    return pd.DataFrame(rows)[cols], p_range


def _planning_table(a) -> pd.DataFrame:
    """The random-label plan at the planning values (empty without ``expected``)."""
    if not a["expected"]:
        return pd.DataFrame()
    t = pd.DataFrame(_ap.random_rows(a, a["bound"] if a["bound"] in ANY_BOUNDS else "exact",
                                     expected=a["expected"]))
    return t[["measure", "expected", "n_positive", "n_negative", "n_total",
              "half_width", "achieved_half_width"]]


def _random_rule_setup(a):
    """``(positive count, prevalence half-width, δ of the plan, prevalence sample)`` of
    the random-rule rows (the paper's plug-in means need the prevalence)."""
    prev, delta = a["prev"], 1.0 - a["level"]
    n = a["n_pool"]
    if prev.kind == "known":
        return prev.count, 0.0, delta, 0
    if prev.kind == "interval":
        return (prev.low + prev.high) / 2.0, (prev.high - prev.low) / (2.0 * n), delta, 0
    if prev.kind == "pilot":
        lo, hi = prev.interval(delta / 2.0)
        return prev.count, max(prev.count - lo, hi - prev.count) / n, delta / 2.0, 0
    hp = a["hp"] if a["hp"] is not None else _default_prevalence_half_width(a)
    fam = a["bound"] if a["rules"] == "random" else "exact"
    n_prev = _bb.prevalence_sample_size(prev.count / n, hp, delta / 2.0, fam, n_pool=n)
    return prev.count, hp, delta / 2.0, int(n_prev)


def _random_rule_rows(a) -> list[dict]:
    n_pos, hp, delta, n_prev = _random_rule_setup(a)
    n_pos = int(round(n_pos))
    d_each = _ap.delta_per_measure(a, delta)
    rows = []
    for label, m in a["pairs"]:
        for strat in _bp.STRATEGIES:
            for b in a["bounds"]:
                var = "paper" if b == "bernstein_paper" else (a["variance"] or "hypergeometric")
                r = _bp.plan_one(m, b, var, strat, a["n_pool"], n_pos, a["n_rpos"],
                                 a["targets"][m], d_each, prevalence_error=hp)
                rows.append(_bought(a, r, n_pos - hp * a["n_pool"], n_prev)
                            | dict(measure=label))
    return rows


def _bought(a, row, n_pos_search, n_prev) -> dict:
    """A random-rule row in labels to buy (search and prevalence sample included)."""
    if row["strategy"] == "positives":
        q, mean = _ap.search_cost(a, [row["n_positive"]], max(n_pos_search, 1.0))
        n_tot = int(_ap.with_prevalence_sample(a, q, n_prev)[0])
        n_mean = float(_ap.with_prevalence_sample(a, mean, n_prev)[0])
    else:
        n_tot = n_mean = min(max(row["n_total"], n_prev), a["n_pool"])
    return row | dict(n_total=n_tot, n_negative=n_tot - row["n_positive"],
                      n_total_mean=float(n_mean), n_prevalence=n_prev, census=False)


def _default_prevalence_half_width(a) -> float:
    """Prevalence half-width that costs at most half of the target for every measure."""
    p, r = a["prev"].count / a["n_pool"], a["n_rpos"] / a["n_pool"]
    h = a["h"]
    ratio = {"precision": 1.0, "sensitivity": (r + 1) / p,
             "specificity": (2 - r) / (1 - p)}
    return min(h / 2 / ratio[m] for _, m in a["pairs"])


def _plan_curves(a, p_range) -> pd.DataFrame:
    var = a["variance"] if a["variance"] not in (None, "paper") else "hypergeometric"
    delta = _ap.delta_per_measure(a, 1.0 - a["level"])
    out = []
    for label, m in a["pairs"]:
        for d in _bp.halfwidth_curve(m, a["n_pool"], a["prev"].count, a["n_rpos"], delta,
                                     var, p_range[0], p_range=p_range):
            out.append(pd.DataFrame(dict(measure=label, **d)))
    return pd.concat(out, ignore_index=True)


def _blind_table(a, n_p) -> pd.DataFrame:
    prevalence = a["prev"].count / a["n_pool"]
    l_pos = n_p if a["strategy"] == "positives" else 0
    n_blind = l_pos * (1 - prevalence) / prevalence
    eps_u = (a["prev"].count - l_pos) / max(a["n_pool"] - l_pos, 1)
    return pd.DataFrame([dict(labeled_positives=l_pos, blind_negatives=int(np.ceil(n_blind)),
                              expected_mislabeled=n_blind * eps_u,
                              augmented_positive_rate=prevalence)])
