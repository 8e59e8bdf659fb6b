"""The result of :func:`evalstats.budget.plan_labels`: a plan, not an estimate."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._result import Reportable, _get_ax
from .._validation import check_confidence_level, check_option
from . import _scan as _bp

__all__ = ["LabelPlan", "plan_words"]

_GUARANTEE = {
    ("any", "positives"): "any rule of this size: deterministic range after labeling "
                          "positives",
    ("any", "random"): "any rule of this size: subset estimate from random labels",
    ("random", "positives"): "random rules only (predictions independent of labels; "
                             "the paper's analysis)",
    ("random", "random"): "random rules only (predictions independent of labels; "
                          "the paper's analysis)",
}
_STRATEGY_WORDS = {"positives": "labeled positives", "random": "random labels"}
_BOUND_WORDS = {"deterministic": "deterministic range", "exact": "exact bound",
                "bernstein": "Bernstein bound", "bernstein_paper": "the paper's Bernstein bound"}
_RULES_WORDS = {"any": "any rule", "random": "random rules"}
#: the main table's columns in words
_COLUMN_WORDS = {"n_total": "labels to buy", "n_positive": "positives",
                 "n_negative": "negatives", "n_total_mean": "mean labels to buy",
                 "achieved_half_width": "half-width achieved", "half_width": "target half-width"}


#: line style, width and legend label of each (rules, bound) curve of the plan plot
_CURVE_STYLES = {("any", "deterministic"): ("-", 2.0, "any rule: range"),
                 ("random", "exact"): ("--", 1.2, "random rules: exact"),
                 ("random", "bernstein"): (":", 1.2, "random rules: Bernstein")}


def _legend_below(ax, names: list[str], styles: dict[str, tuple[str, float]]) -> None:
    """One legend under the axes: the measures (colours) in the first row, the kinds of
    curve (line styles) in the second."""
    from matplotlib.lines import Line2D

    colours = [Line2D([], [], color=f"C{i}", lw=2.0, label=m) for i, m in enumerate(names)]
    kinds = [Line2D([], [], color="0.3", ls=ls, lw=lw, label=label)
             for label, (ls, lw) in styles.items()]
    ncol = max(len(colours), len(kinds))
    blank = Line2D([], [], alpha=0.0, label=" ")
    colours += [blank] * (ncol - len(colours))
    kinds += [blank] * (ncol - len(kinds))
    handles = [h for pair in zip(colours, kinds, strict=True) for h in pair]
    ax.legend(handles=handles, ncol=ncol, loc="upper center", bbox_to_anchor=(0.5, -0.16),
              fontsize="small", frameon=False, handlelength=2.5, columnspacing=1.2)


def plan_words(rules: str, strategy: str, bound: str) -> str:
    """A plan of the table in words: ``"random labels, exact bound (any rule)"``."""
    return (f"{_STRATEGY_WORDS[strategy]}, {_BOUND_WORDS.get(bound, bound)} "
            f"({_RULES_WORDS[rules]})")


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class LabelPlan(Reportable):
    """How many labels to buy so that each measure meets its half-width.

    A plan is computed for one ``confidence_level``; it has no interval. ``tidy()`` at
    another level recomputes the plan (:meth:`replan`), it never relabels the counts.

    ``tidy()`` is :attr:`table`: one row per plan (rules, strategy, bound) and measure.
    ``glance()`` is one row about the whole plan: ``method`` (the headline plan in words),
    ``n_pool``, ``prevalence``, ``rule_rate``, ``n_rules``, ``confidence_level``,
    ``joint``, ``search``, ``n_labels`` (the labels to buy, :attr:`n_total`: the number to
    pass as ``n_labels`` when the labels are collected), ``n_labels_mean``,
    ``n_labels_planning``, ``all_feasible`` and ``n_notes``.

    Attributes
    ----------
    n_total : int
        Labels to buy for the headline plan (the ``rules``/``strategy``/``bound`` asked
        for, maximum over the measures): the search for the positives it needs and the
        prevalence sample included; the ``confidence_level`` quantile of a random search
        cost, never more than the pool.
    n_positive, n_negative : int
        Positives the plan needs among those labels (a detail of how they are used; for
        random labels, the expected number), and the other labels.
    n_total_mean : float
        Mean labels to buy (the search cost's mean).
    rules : {"any", "random"}
        What the guarantee covers: every rule with the given positive rate (default), or
        random rules only (the paper's analysis).
    strategy, bound : str
        Of the headline plan (``bound="deterministic"`` for any rule and labeled positives).
    search : {"random", "scores"}
        How positives are found: labeling in random order or in decreasing ``scores``.
    half_width, confidence_level : float
        Target half-width and the level the plan is computed for.
    joint : bool
        Whether the level holds for all measures of all rules at once (union bound).
    n_rules : int
        Rules evaluated at once (union bound).
    measures : tuple of str
        The measures planned for.
    feasible : bool
        False when a target cannot be met within ``max_labels``.
    table : DataFrame
        One row per (rules, strategy, bound, measure): ``n_positive, n_negative, n_total,
        n_total_mean, n_prevalence, half_width`` (the measure's target: ``half_width``
        divided by the square root of its cost weight), ``achieved_half_width, feasible,
        paper_condition_holds, census``.
    curves : DataFrame
        Half-width against positives labeled, for any rule and for random rules.
    n_prevalence : int
        Random labels for estimating the prevalence (Prop 4.1 of the paper), included in
        ``n_total``; 0 when it is known.
    planning : DataFrame
        The random-label plan at the planning values ``expected`` (empty without them);
        ``n_total_planning`` its labels (None without them).
    blind : DataFrame
        The paper's blind labeling (its Section 4.1) for the headline plan: random pool
        items added as negatives without labeling them, so that the labeled set has the
        pool's prevalence, and the expected number of them that are positives.
    prevalence, rule_rate : float
        The planning inputs: the pool's positive rate and the rules' positive rate;
        ``n_pool`` the number of items in the pool; ``prevalence_range`` the interval of
        the prevalence the deterministic plan holds over.
    """

    n_positive: int = 0
    n_negative: int = 0
    n_total: int = 0
    rules: str = "any"
    strategy: str = "positives"
    bound: str = "deterministic"
    half_width: float = 0.0
    confidence_level: float = 0.95
    feasible: bool = True
    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    curves: pd.DataFrame = field(default_factory=pd.DataFrame)
    n_prevalence: int = 0
    blind: pd.DataFrame = field(default_factory=pd.DataFrame)
    prevalence: float = 0.0
    rule_rate: float = 0.0
    n_pool: int = 0
    n_total_mean: float = 0.0
    search: str = "random"
    joint: bool = True
    n_rules: int = 1
    prevalence_range: tuple[float, float] = (0.0, 0.0)
    measures: tuple[str, ...] = ()
    planning: pd.DataFrame = field(default_factory=pd.DataFrame)
    n_total_planning: int | None = None

    _default_title = "Labeling plan"

    @property
    def estimate(self) -> int:
        """Deprecated: the total labels of the headline plan (use ``n_total``)."""
        warnings.warn("LabelPlan.estimate is deprecated (a plan is not an estimate); use "
                      "n_total.", FutureWarning, stacklevel=2)
        return self.n_total

    def replan(self, **changes) -> LabelPlan:
        """The same plan with some arguments of :func:`plan_labels` changed."""
        from ._plan import plan_labels

        args = {k: v for k, v in self.call.items() if k != "function"}
        args.update(changes)
        return plan_labels(args.pop("n_pool"), args.pop("prevalence"), args.pop("rule_rate"),
                           **args)

    def headline(self) -> pd.DataFrame:
        """Rows of ``table`` for the headline rules, strategy and bound."""
        t = self.table
        return t[(t["rules"] == self.rules) & (t["strategy"] == self.strategy)
                 & (t["bound"] == self.bound)].reset_index(drop=True)

    def _tidy_rows(self):
        return self.table.to_dict("records")

    def tidy(self, confidence_level: float | None = None) -> pd.DataFrame:
        """One row per (rules, strategy, bound, measure) with the counts in their own
        columns. At another ``confidence_level`` the plan is recomputed."""
        if confidence_level is not None:
            level = check_confidence_level(confidence_level)
            if not np.isclose(level, self.confidence_level):
                return self.replan(confidence_level=level).tidy()
        return super().tidy()

    def _glance_extra(self):
        return dict(method=plan_words(self.rules, self.strategy, self.bound),
                    n_pool=self.n_pool, prevalence=self.prevalence, rule_rate=self.rule_rate,
                    n_rules=self.n_rules, confidence_level=self.confidence_level,
                    joint=self.joint, search=self.search, n_labels=self.n_total,
                    n_labels_mean=self.n_total_mean, n_labels_planning=self.n_total_planning,
                    all_feasible=self.feasible)

    def _searches(self) -> bool:
        """Whether the headline plan searches for positives (its cost is random)."""
        return self.strategy == "positives" and self.n_total > 0

    def _how(self) -> str:
        """How the labels are chosen, in words."""
        if self.n_total == 0:
            return "none needed"
        if self.strategy == "random":
            return "at random"
        where = "in decreasing score" if self.search == "scores" else "in random order"
        return f"{where} until {self.n_positive:,} positives are found"

    def _names(self) -> str:
        m = list(self.measures) or ["each measure"]
        return m[0] if len(m) == 1 else ", ".join(m[:-1]) + " and " + m[-1]

    def _level_text(self, pm: str = "±", unit: str = "% confidence") -> str:
        together = " jointly" if self.joint and len(self.measures) > 1 else ""
        return f"{pm}{self.half_width:g}{together} at {100 * self.confidence_level:g}{unit}"

    def _header(self):
        guarantee = _GUARANTEE[self.rules, self.strategy]
        if self.joint and len(self.measures) > 1:
            guarantee += "; all measures of all rules at once (union bound)"
        positives = ("Positives among them" if self._searches()
                     else "Positives expected among them")
        hdr = {"Labels to buy": self.n_total,
               "How": self._how(),
               "Target": f"{self._names()} to {self._level_text()}",
               "Guarantee": guarantee,
               positives: self.n_positive}
        if self._searches():
            hdr["Mean labels to buy"] = round(self.n_total_mean)
        hdr["Feasible"] = "yes" if self.feasible else "NO (infeasible)"
        if self.n_prevalence:
            hdr["Prevalence sample"] = f"{self.n_prevalence:,} labels (included)"
        if self.n_total_planning is not None:
            hdr["Labels at the planning values"] = self.n_total_planning
        hdr.update(super()._header())
        return hdr

    def _main_table(self):
        cols = ["measure", "n_total", "n_positive", "n_negative"]
        cols += ["n_total_mean"] if self._searches() else []
        cols += ["achieved_half_width", "feasible"]
        table = self.headline()[cols].rename(columns=_COLUMN_WORDS)
        plan = plan_words(self.rules, self.strategy, self.bound)
        return f"Labels to buy per measure: {plan}", table

    def _extra_tables(self):
        t = self.table.copy()
        t["plan"] = [plan_words(*k) for k in zip(t["rules"], t["strategy"], t["bound"],
                                                  strict=True)]
        wide = t.pivot_table(index="plan", columns="measure", values="n_total",
                             aggfunc="first", sort=False).reset_index()
        wide.columns.name = None
        out = [("Labels to buy under every plan", wide)]
        if not self.planning.empty:
            out.append(("Random labels at the planning values (expected)",
                        self.planning.rename(columns=_COLUMN_WORDS)))
        return out

    def _appendix_tables(self):
        if self.strategy != "positives":
            return []
        words = {"labeled_positives": "labeled positives",
                 "blind_negatives": "items added as negatives",
                 "expected_mislabeled": "expected positives among them",
                 "augmented_positive_rate": "positive rate of the labeled set"}
        return [("Blind labeling (the paper's Section 4.1): unlabeled items added as "
                 "negatives", self.blind.rename(columns=words))]

    def _repr_body(self) -> str:
        return (f"{self.n_total:,} labels to buy ({self._how()}) for {self._names()} to "
                f"{self._level_text('+/-', '%')}, {self.rules} "
                f"rule{'s' if self.rules == 'random' else ''}")

    def _finding(self) -> str:
        rules = "any rule" if self.rules == "any" else "random rules"
        verb = "are" if len(self.measures) > 1 else "is"
        known = f"{self._names()} of {rules} of this size {verb} known to {self._level_text()}"
        if not self.feasible:
            return (f"The target cannot be met within the limit on labels: {known} only "
                    f"after {self.n_total:,} labels ({self._how()}).")
        if self.n_total == 0:
            return (f"No label is needed: from the pool's counts alone, {known} (the "
                    "feasibility range of each measure is already that narrow).")
        prev = (f" (the first {self.n_prevalence:,} estimate the prevalence)"
                if self.n_prevalence else "")
        return f"Buy {self.n_total:,} labels {self._how()}{prev}: then {known}."

    def plot(self, ax=None, kind: str = "curves", **kwargs):
        """Half-width against positives labeled, or a prevalence-ratio map.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).
        kind : str
            ``"curves"`` (default): the half-width of each measure (one colour each)
            against the positives labeled, for any rule (deterministic range, solid) and
            for random rules (exact bound, dashed; Bernstein bound, dotted), with the
            target; the legend sits under the axes. ``"precision-specificity"``,
            ``"sensitivity-specificity"`` or ``"rule-rate-equals-prevalence"``: the
            prevalence-ratio map of that pair (Figures 1-3 of the paper) with this
            problem marked.
        **kwargs
            Passed to the curves' ``Axes.plot``.

        Returns
        -------
        matplotlib Axes
        """
        from ._tradeoff import ratio_map

        check_option(kind, "kind", ("curves",) + _bp.PAIRS)
        if kind != "curves":
            ax = ratio_map(kind, ax=ax)
            ax.plot([self.prevalence], [self.rule_rate], "r*", ms=12)
            return ax
        ax = _get_ax(ax)
        names = list(dict.fromkeys(self.curves["measure"]))
        used = {}
        for (m, r, b), d in self.curves.groupby(["measure", "rules", "bound"], sort=False):
            ls, lw, label = _CURVE_STYLES.get((r, b), ("-.", 1.0, plan_words(r, "positives", b)))
            used[label] = (ls, lw)
            y = np.maximum(d["half_width"].to_numpy(float), 1e-6)
            ax.plot(d["n_positive"], y, ls, lw=lw, color=f"C{names.index(m)}", **kwargs)
        ax.axhline(self.half_width, color="k", lw=0.8)
        ax.annotate(f"target ±{self.half_width:g}", (1.0, self.half_width),
                    xycoords=("axes fraction", "data"), xytext=(-2, 2),
                    textcoords="offset points", ha="right", va="bottom", fontsize="small",
                    bbox=dict(fc="white", ec="none", alpha=0.8, pad=1.0))
        ax.set_yscale("log")
        ax.set_ylim(bottom=self.half_width / 100)
        ax.set_xlabel("positives labeled")
        ax.set_ylabel(f"half-width ({100 * self.confidence_level:g}%)")
        ax.set_title("Half-width against positives labeled")
        _legend_below(ax, names, used)
        return ax
