"""The result of :func:`evalstats.budget.plan_labels`: a plan, not an estimate."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._result import Reportable, _get_ax
from .._validation import check_confidence_level, check_option
from . import _scan as _bp

__all__ = ["LabelPlan"]

_GUARANTEE = {
    ("any", "positives"): "any rule of this size: deterministic range after labeling "
                          "positives",
    ("any", "random"): "any rule of this size: subset estimate from random labels",
    ("random", "positives"): "random rules only (predictions independent of labels; "
                             "the paper's analysis)",
    ("random", "random"): "random rules only (predictions independent of labels; "
                          "the paper's analysis)",
}


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class LabelPlan(Reportable):
    """How many labels to buy so that each measure meets its half-width.

    A plan is computed for one ``confidence_level``; it has no interval. ``tidy()`` at
    another level recomputes the plan (:meth:`replan`), it never relabels the counts.

    Attributes
    ----------
    n_total : int
        Labels to buy for the headline plan (the ``rules``/``strategy``/``bound`` asked
        for, maximum over the measures): the search for the positives it needs and the
        prevalence sample included; the ``confidence_level`` quantile of a random search
        cost, never more than the pool.
    n_positive, n_negative : int
        Positives the plan needs among those labels (a detail of how they are used), and
        the other labels.
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
    measures : tuple of str
        The measures planned for.
    feasible : bool
        False when a target cannot be met within ``max_labels``.
    table : DataFrame
        One row per (rules, strategy, bound, measure): ``n_positive, n_negative, n_total,
        n_total_mean, n_prevalence, target_half_width, achieved_half_width, feasible,
        paper_condition_holds, census``.
    curves : DataFrame
        Half-width against positives labeled, for any rule and for random rules.
    n_prevalence : int
        Random labels for estimating ε_O+(S) (Prop 4.1), included in ``n_total``; 0 when it
        is known.
    planning : DataFrame
        The random-label plan at the planning values ``expected`` (empty without them);
        ``n_total_planning`` its labels (None without them).
    blind : DataFrame
        Blind labeling (eq 4.30) for the headline plan: negatives to add blindly and the
        expected number of mislabeled examples.
    prevalence, rule_rate : float
        The planning inputs ε_O+(S) and ε_R+(S); ``n_pool`` is |S|;
        ``prevalence_range`` the interval of the prevalence the deterministic plan holds
        over.
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
        return dict(n_total=self.n_total, n_positive=self.n_positive,
                    n_negative=self.n_negative, n_total_mean=self.n_total_mean,
                    n_prevalence=self.n_prevalence, rules=self.rules,
                    strategy=self.strategy, bound=self.bound, search=self.search,
                    half_width=self.half_width, confidence_level=self.confidence_level,
                    joint=self.joint, feasible=self.feasible,
                    n_total_planning=self.n_total_planning)

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

    def _level_text(self) -> str:
        together = " jointly" if self.joint and len(self.measures) > 1 else ""
        return f"+/-{self.half_width:g}{together} at {100 * self.confidence_level:g}%"

    def _header(self):
        guarantee = _GUARANTEE[self.rules, self.strategy]
        if self.joint and len(self.measures) > 1:
            guarantee += "; all measures of all rules at once (union bound)"
        hdr = {"Labels to buy": self.n_total,
               "How": self._how(),
               "Target": f"{self._names()} to {self._level_text()}",
               "Guarantee": guarantee,
               "Positives among them": self.n_positive,
               "Mean labels to buy": round(self.n_total_mean),
               "Feasible": "yes" if self.feasible else "NO (infeasible)"}
        if self.n_prevalence:
            hdr["Prevalence sample"] = f"{self.n_prevalence} (included)"
        if self.n_total_planning is not None:
            hdr["Labels at the planning values"] = self.n_total_planning
        hdr.update(super()._header())
        return hdr

    def _main_table(self):
        cols = ["measure", "n_total", "n_positive", "n_negative", "n_total_mean",
                "achieved_half_width", "feasible"]
        return (f"Labels to buy per measure ({self.rules} rules, {self.strategy}, "
                f"{self.bound})", self.headline()[cols])

    def _extra_tables(self):
        t = self.table.copy()
        t["plan"] = t["rules"] + " rules / " + t["strategy"] + " / " + t["bound"]
        wide = t.pivot_table(index="plan", columns="measure", values="n_total",
                             aggfunc="first", sort=False).reset_index()
        wide.columns.name = None
        out = [("Appendix: labels to buy (n_total) under every plan", wide)]
        if not self.planning.empty:
            out.append(("Random labels at the planning values (expected)", self.planning))
        if self.strategy == "positives":
            out.append(("Blind labeling (eq 4.30)", self.blind))
        return out

    def _repr_body(self) -> str:
        return (f"{self.n_total:,} labels to buy ({self._how()}) for {self._names()} to "
                f"{self._level_text()}, {self.rules} rule{'s' if self.rules == 'random' else ''}")

    def _finding(self) -> str:
        prev = (f" (the first {self.n_prevalence:,} estimate the prevalence)"
                if self.n_prevalence else "")
        rules = "any rule" if self.rules == "any" else "random rules"
        verb = "are" if len(self.measures) > 1 else "is"
        return (f"Buy {self.n_total:,} labels {self._how()}{prev}: then {self._names()} of "
                f"{rules} of this size {verb} known to {self._level_text()}.")

    def plot(self, ax=None, kind: str = "curves", **kwargs):
        """``kind="curves"``: half-width against positives labeled, for any rule
        (deterministic range, solid) and random rules (exact, dashed; Bernstein, dotted),
        with the target; or a prevalence-ratio map (``"precision-specificity"``,
        ``"sensitivity-specificity"``, ``"rule-rate-equals-prevalence"``; Figures 1-3)."""
        from ._tradeoff import ratio_map

        check_option(kind, "kind", ("curves",) + _bp.PAIRS)
        if kind != "curves":
            ax = ratio_map(kind, ax=ax)
            ax.plot([self.prevalence], [self.rule_rate], "r*", ms=12)
            return ax
        ax = _get_ax(ax)
        styles = {("any", "deterministic"): ("-", 2.0), ("random", "exact"): ("--", 1.2),
                  ("random", "bernstein"): (":", 1.2)}
        names = list(dict.fromkeys(self.curves["measure"]))
        for (m, r, b), d in self.curves.groupby(["measure", "rules", "bound"], sort=False):
            ls, lw = styles.get((r, b), ("-.", 1.0))
            y = np.maximum(d["half_width"].to_numpy(float), 1e-6)
            ax.plot(d["n_positive"], y, ls, lw=lw, color=f"C{names.index(m)}",
                    label=f"{m}: {r} rules ({b})", **kwargs)
        ax.axhline(self.half_width, color="k", lw=0.8, label=f"target +/-{self.half_width:g}")
        ax.set_yscale("log")
        ax.set_ylim(bottom=self.half_width / 100)
        ax.set_xlabel("positives labeled")
        ax.set_ylabel(f"half-width ({100 * self.confidence_level:g}%)")
        ax.set_title("Half-width vs positives labeled: any rule vs random rules")
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0),
                  borderaxespad=0.0)
        return ax
