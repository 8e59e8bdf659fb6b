"""How many labels to buy: :func:`plan_labels` (Valizadegan, Amizadeh & Hauskrecht 2012,
Sections 3-4, with a guarantee for any rule as the default target)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .._naming import named_result
from .._validation import check_int, check_option, check_scalar, fail
from .._warnings import Notes, SmallSampleWarning
from . import _bounds as _bb
from . import _scan as _bp
from ._bound import variance_for
from ._common import (
    costs_iv,
    delta_iv,
    deprecated_positional,
    measure_pairs,
    pool_iv,
    renamed,
)
from ._labelplan import LabelPlan

__all__ = ["plan_labels"]

RULES = ("any", "random")
ANY_BOUNDS = ("exact", "bernstein")


@deprecated_positional(3)
@named_result
def plan_labels(n_pool: int, prevalence: float, rule_rate: float, *,
                half_width: float = 0.05, confidence_level: float = 0.95,
                measures: Sequence[str] = ("precision", "recall", "specificity"),
                n_rules: int = 1, costs: Mapping[str, float] | None = None,
                rules: str = "any", bound: str = "exact", variance: str | None = None,
                strategy: str = "auto", prevalence_known: bool = True,
                prevalence_half_width: float | None = None, max_labels: int | None = None,
                bounds: Sequence[str] = ("exact", "bernstein", "bernstein_paper"),
                budget: int | None = None) -> LabelPlan:
    r"""Plan how many positives and negatives to label from a pool of ``n_pool`` examples.

    Find the fewest labels such that every requested measure of a rule that flags a
    fraction ``rule_rate`` of the pool is known to within ``half_width`` (a *half*-width)
    with probability ≥ ``confidence_level``, for each of ``n_rules`` rules at once (union
    bound, δ/K). By default the guarantee holds for **any** such rule, informative
    classifiers included; ``rules="random"`` gives the paper's analysis, which holds only
    for rules whose predictions are independent of the labels.

    Parameters
    ----------
    n_pool : int
        |S| (up to 1e12; large pools use continuous approximations of the quantiles).
    prevalence : float
        ε_O+(S) in (0, 1).
    rule_rate : float
        ε_R+(S) in (0, 1) of the rules to be evaluated.
    half_width : float, keyword-only
        Target half-width in (0, 1]. Arguments after ``rule_rate`` are keyword-only;
        passing them by position (the old signature) still works with a FutureWarning.
    confidence_level : float
    measures : sequence of str
        Subset of ``("precision", "recall", "specificity")`` (``"sensitivity"`` is an
        alias of ``"recall"``; the table uses the spelling given).
    n_rules : int
        Number of rules evaluated at once (union bound).
    costs : mapping, optional
        Cost weight per measure on the variance scale (Section 3.4): a measure with weight
        C gets the target ``half_width / sqrt(C)``.
    rules : {"any", "random"}
        ``"any"`` (default): a guarantee for every rule of this size. With
        ``strategy="positives"`` it is the deterministic range of each measure given the
        labeled positives (exact, no probability; needs the prevalence), with
        ``strategy="random"`` the subset estimate from random labels at the worst-case
        proportion. ``"random"``: the paper's random-rule analysis (plug-in means of eqs
        3.4-3.10 and their bounds); it can plan 0 labels where informative rules are off by
        much more than ``half_width`` (a note says so).
    bound : {"exact", "bernstein", "bernstein_paper"}
        Bound of the headline plan (random strategy, or ``rules="random"``); with
        ``rules="any"`` and ``strategy="positives"`` the bound is the deterministic range.
        ``"bernstein_paper"`` is exactly the paper's formula (Props 3.1-3.3 with its
        binomial variances) and exists only for ``rules="random"``.
    variance : {"hypergeometric", "paper", "oracle_binomial"}, optional
        Variance model of the random-rule rows (default ``"hypergeometric"``; the
        ``bernstein_paper`` rows always use ``"paper"``).
    strategy : {"auto", "positives", "random"}
        ``"positives"``: label retrieved minority-class examples only; ``"random"``:
        uniformly random labels (their class counts are random: the planner uses the lower
        δ/20 quantile of the labeled count, union bound; the exact random-rule rows also
        take the rule's random hits at their worst point of a central 1 - δ/20 range);
        ``"auto"`` (default): the one
        needing fewer labels for the chosen ``rules`` and ``bound``. The table lists both.
        For any rule, labeled positives win on small pools (the unlabeled positives bound
        every rule's error) and random labels on large ones (their need does not grow
        with the pool).
    prevalence_known : bool
        If False, add the random sample that estimates ε_O+(S) to
        ``prevalence_half_width`` (Prop 4.1) with probability 1 - δ/2, and add its error to
        each half-width (|U_R±| |S| h_p / (|U| D) for the plug-in means of random rules;
        wider ranges and denominators for any rule). The subset estimates of the random
        strategy need no prevalence.
    prevalence_half_width : float, optional
        Default: the share of ``half_width`` that keeps the prevalence error at half the
        target for every measure.
    max_labels : int, optional
        Maximum number of labels; plans above it are marked infeasible (old name
        ``budget``, deprecated).
    bounds : sequence of str
        Bounds listed in the table for random rules.

    Returns
    -------
    LabelPlan

    Notes
    -----
    Random rules (``rules="random"``): with k positives labeled, |U| = |S| - k,
    |U_O+| = |S_O+| - k, |U_R+| = ε_R+|U|, and the half-width of measure m is the count
    half-width of :func:`bernstein_bound` divided by |S_R+|, |S_O+| or |S_O-|. Any rule
    (``rules="any"``): see :mod:`evalstats.budget._anyrule`; with labeled positives the
    unknown count of every rule lies in a range of width
    :math:`W = \min(a, |U| - a, |U_{O+}|, |U_{O-}|)`, :math:`a = |U_{R+}|`, taken at its
    worst case over the rule's hits on L. Each plan is the smallest k meeting the target
    (a grid scan refined to single labels); it never decreases when ``half_width``
    decreases, nor when ``confidence_level`` increases — except for ``rules="any"`` with
    random labels and the exact bound at small counts, where the exact half-width of the
    subset estimate is not monotone in the labeled count and a higher level can ask for a
    few labels fewer (37 at 80 % against 34 at 85 % on a 327-item pool).

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
    >>> plan.n_positive, plan.n_negative
    (576, 0)
    """
    a = _plan_labels_iv(n_pool, prevalence, rule_rate, half_width, confidence_level,
                        measures, n_rules, costs, rules, bound, variance, strategy,
                        prevalence_known, prevalence_half_width, max_labels, bounds, budget)
    notes = Notes()
    n_prev, hp, delta = _prevalence_plan(a, notes)
    table = _plan_table(a, hp, delta)
    if a["max_labels"] is not None:
        table["feasible"] &= (table["n_total"] + n_prev) <= a["max_labels"]
    a["strategy"], head_bound, head = _headline(a, table, n_prev)
    n_p, n_n = int(head["n_positive"].max()), int(head["n_negative"].max())
    if a["rules"] == "any" and a["strategy"] == "random" and n_prev:
        notes.add("The headline plan (subset estimates from random labels) needs no "
                  f"prevalence estimate; the {n_prev} labels above are for the other plans.")
        n_prev = 0
    n_tot = int(head["n_total"].max()) + n_prev
    feasible = bool(head["feasible"].all())
    _plan_notes(a, table, head, n_tot, feasible, notes)
    curves = _plan_curves(a, delta)
    return LabelPlan(
        data=f"|S| = {a['n_pool']}, prevalence {a['prevalence']:g}, "
             f"rule rate {a['rule_rate']:g}",
        call=a["call"], notes=notes.as_tuple(), n_positive=n_p, n_negative=n_n,
        n_total=n_tot, rules=a["rules"], strategy=a["strategy"], bound=head_bound,
        half_width=a["h"], confidence_level=a["level"], feasible=feasible, table=table,
        curves=curves, n_prevalence=n_prev, blind=_blind_table(a, n_p),
        prevalence=a["prevalence"], rule_rate=a["rule_rate"], n_pool=a["n_pool"])


def _plan_labels_iv(n_pool, prevalence, rule_rate, half_width, confidence_level, measures,
                    n_rules, costs, rules, bound, variance, strategy, prevalence_known,
                    prevalence_half_width, max_labels, bounds, budget) -> dict:
    """Normalised arguments of :func:`plan_labels` (raises on bad input)."""
    max_labels = renamed("budget", "max_labels", budget, max_labels)
    n_pool, n_pos, n_rpos = pool_iv(n_pool, prevalence, None, rule_rate, None)
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
    if not isinstance(prevalence_known, bool | np.bool_):
        raise fail("prevalence_known", "True or False", value=prevalence_known, exc=TypeError)
    if prevalence_half_width is not None:
        prevalence_half_width = check_scalar(prevalence_half_width, "prevalence_half_width",
                                             0, 1, low_inclusive=False)
    if max_labels is not None:
        max_labels = check_int(max_labels, "max_labels", low=1)
    call = dict(function="plan_labels", n_pool=n_pool, prevalence=float(prevalence),
                rule_rate=float(rule_rate), half_width=h, confidence_level=level,
                measures=tuple(m for m, _ in pairs), n_rules=n_rules, costs=costs,
                rules=rules, bound=bound, variance=variance, strategy=strategy,
                prevalence_known=bool(prevalence_known),
                prevalence_half_width=prevalence_half_width, max_labels=max_labels,
                bounds=bounds)
    defaults = dict(confidence_level=0.95, measures=("precision", "recall", "specificity"),
                    n_rules=1, costs=None, rules="any", bound="exact", variance=None,
                    strategy="auto", prevalence_known=True, prevalence_half_width=None,
                    max_labels=None, bounds=("exact", "bernstein", "bernstein_paper"))
    call = {k: v for k, v in call.items() if k not in defaults or v != defaults[k]}
    return dict(n_pool=n_pool, n_pos=n_pos, n_rpos=n_rpos, prevalence=float(prevalence),
                rule_rate=float(rule_rate), level=level, n_rules=n_rules, h=h, pairs=pairs,
                cost=costs_iv(costs), rules=rules, bound=bound, variance=user_variance,
                bounds=bounds, strategy=strategy, prevalence_known=bool(prevalence_known),
                hp=prevalence_half_width, max_labels=max_labels, call=call)


def _headline(a, table, n_prev):
    """``(strategy, bound, rows)`` of the headline plan (``"auto"``: fewer labels)."""
    def rows(strategy):
        b = "deterministic" if (a["rules"], strategy) == ("any", "positives") else a["bound"]
        t = table[(table["rules"] == a["rules"]) & (table["strategy"] == strategy)
                  & (table["bound"] == b)]
        return strategy, b, t

    if a["strategy"] != "auto":
        return rows(a["strategy"])
    options = [rows(s) for s in _bp.STRATEGIES]
    # the positives plan is paid for with the prevalence sample when it is unknown
    need = [int(t["n_total"].max()) + (n_prev if s == "positives" or a["rules"] == "random"
                                       else 0) + (0 if t["feasible"].all() else 10**18)
            for s, _, t in options]
    return options[int(np.argmin(need))]


def _default_prevalence_half_width(a) -> float:
    """Prevalence half-width that costs at most half of the target for every measure."""
    n, p, r = a["n_pool"], a["n_pos"] / a["n_pool"], a["n_rpos"] / a["n_pool"]
    h = a["h"]
    if a["rules"] == "random":  # |U_R±| |S| h_p / (|U| D) (+ denominators) at k = 0
        ratio = {"precision": 1.0, "sensitivity": (r + 1) / p,
                 "specificity": (2 - r) / (1 - p)}
        return h / 2.0 / max(ratio[m] for _, m in a["pairs"])
    # any rule: |S| h_p more unlabeled positives; Se/Sp denominators uncertain by |S| h_p
    d = {"precision": a["n_rpos"] * h / n, "sensitivity": h / 2 * p / (1 + h / 2),
         "specificity": h / 2 * (1 - p) / (1 + h / 2)}
    return min(d[m] for _, m in a["pairs"])


def _prevalence_plan(a, notes):
    """``(n_prevalence, prevalence half-width, δ per rule for the counts)``."""
    delta = (1.0 - a["level"]) / a["n_rules"]
    if a["prevalence_known"]:
        return 0, 0.0, delta
    delta /= 2.0
    hp = a["hp"] if a["hp"] is not None else _default_prevalence_half_width(a)
    fam = a["bound"] if a["rules"] == "random" else "exact"
    n_prev = _bb.prevalence_sample_size(a["n_pos"] / a["n_pool"], hp, delta, fam,
                                        n_pool=a["n_pool"])
    notes.add(f"Prevalence unknown: {n_prev} random labels estimate it to +/-{hp:.3g} "
              "(Prop 4.1) with probability 1 - delta/2; its error is added to each "
              "half-width, and delta is split between the two events (union bound).")
    return n_prev, hp, delta


def _plan_table(a, hp, delta) -> pd.DataFrame:
    rows = []
    extra_pos = a["n_pool"] * hp
    for label, m in a["pairs"]:
        target = a["h"] / np.sqrt(a["cost"][m])
        common = (a["n_pool"], a["n_pos"], a["n_rpos"], target, delta)
        rows.append(_bp.plan_one_any(m, "deterministic", "positives", *common,
                                     extra_pos=extra_pos) | dict(measure=label))
        for b in ANY_BOUNDS:
            rows.append(_bp.plan_one_any(m, b, "random", *common) | dict(measure=label))
        for strat in _bp.STRATEGIES:
            for b in a["bounds"]:
                var = "paper" if b == "bernstein_paper" else (a["variance"] or "hypergeometric")
                rows.append(_bp.plan_one(m, b, var, strat, *common[:3], target, delta,
                                         prevalence_error=hp) | dict(measure=label))
    return pd.DataFrame(rows)


def _plan_notes(a, table, head, n_tot, feasible, notes) -> None:
    h = a["h"]
    if n_tot > a["n_pool"]:
        notes.warn(SmallSampleWarning,
                   f"The plan adds up to {n_tot:,} labels, more than the {a['n_pool']:,} "
                   "examples of the pool: label the whole pool instead (a census knows "
                   "every measure exactly, at a lower cost).")
    if not feasible:
        bad = ", ".join(head.loc[~head["feasible"], "measure"])
        notes.warn(SmallSampleWarning,
                   f"Infeasible: the target half-width {h:g} cannot be met for {bad} "
                   f"within the limit of {a['max_labels']} labels (or at all); the counts "
                   "shown are the labels the target needs.")
    if n_tot == 0:
        if a["rules"] == "random":
            any_head = table[(table["rules"] == "any") & (table["strategy"] == "positives")]
            notes.add(f"0 labels: this plan assumes RANDOM rules (predictions independent "
                      "of the labels, the paper's Section 3). Informative classifiers are not "
                      "covered: their plug-in estimates can be off by more than "
                      f"+/-{h:g}; a guarantee for any rule of this size needs "
                      f"{int(any_head['n_total'].max())} labeled positives (rules='any').")
        else:
            notes.add(f"0 labels: with the pool prevalence known exactly, every measure of "
                      f"any rule of this size is already confined to +/-{h:g} by the "
                      "deterministic range; this rests on the prevalence being exact "
                      "(prevalence_known=False budgets for estimating it).")
    elif a["rules"] == "random":
        notes.add("Random-rule plan (the paper's analysis): it holds for rules whose "
                  "predictions are independent of the labels; informative classifiers "
                  "need the rules='any' rows of the table.")
    if a["rules"] == "any" and a["strategy"] == "positives" and n_tot:
        notes.add("After labeling, each measure of any rule lies in the deterministic range "
                  "(bernstein_bound(...).deterministic_range with the rule's hits on the "
                  "labels); report its midpoint +/- half its width. Retrieving the positives "
                  "also costs the negatives inspected on the way.")
    if a["rules"] == "random":
        d_min = min(a["n_rpos"], a["n_pos"], a["n_pool"] - a["n_pos"])
        if h * d_min < 2:
            notes.add(f"The target +/-{h:g} is below 2 counts of the smallest denominator "
                      f"({d_min:g}): the random-rule plan takes the rule's hits on the "
                      "labels at their expectation, and at this resolution their random "
                      "variation alone can exceed the target (approximate plan).")
    paper_bad = table[(table["bound"] == "bernstein_paper") & ~table["paper_condition_holds"]]
    if len(paper_bad):
        notes.add("bernstein_paper rows marked paper_condition_holds=False are NOT implied "
                  "by Bernstein's inequality (V < (4/9) log(2/delta)).")


def _plan_curves(a, delta) -> pd.DataFrame:
    var = a["variance"] if a["variance"] not in (None, "paper") else "hypergeometric"
    k_max = a["n_pos"]
    out = []
    for label, m in a["pairs"]:
        for d in _bp.halfwidth_curve(m, a["n_pool"], a["n_pos"], a["n_rpos"], delta, var,
                                     k_max):
            out.append(pd.DataFrame(dict(measure=label, **d)))
    return pd.concat(out, ignore_index=True)


def _blind_table(a, n_p) -> pd.DataFrame:
    prevalence = a["prevalence"]
    l_pos = n_p if a["strategy"] == "positives" else 0
    n_blind = l_pos * (1 - prevalence) / prevalence
    eps_u = (a["n_pos"] - l_pos) / max(a["n_pool"] - l_pos, 1)
    return pd.DataFrame([dict(labeled_positives=l_pos, blind_negatives=int(np.ceil(n_blind)),
                              expected_mislabeled=n_blind * eps_u,
                              augmented_positive_rate=prevalence)])
