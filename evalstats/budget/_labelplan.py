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
    """How many positives and negatives to label so each measure meets its half-width.

    A plan is computed for one ``confidence_level``; it has no interval. ``tidy()`` at
    another level recomputes the plan (:meth:`replan`), it never relabels the counts.

    Attributes
    ----------
    n_positive, n_negative, n_total : int
        Headline plan (the ``rules``/``strategy``/``bound`` asked for, maximum over the
        measures, plus the prevalence sample when the prevalence is unknown).
    rules : {"any", "random"}
        What the guarantee covers: every rule with the given positive rate (default), or
        random rules only (the paper's analysis).
    strategy, bound : str
        Of the headline plan (``bound="deterministic"`` for any rule and labeled positives).
    half_width, confidence_level : float
        Target half-width and the level the plan is computed for.
    feasible : bool
        False when a target cannot be met within ``max_labels`` (or at all).
    table : DataFrame
        One row per (rules, strategy, bound, measure): ``n_positive, n_negative, n_total,
        target_half_width, achieved_half_width, feasible, paper_condition_holds``.
    curves : DataFrame
        Half-width against positives labeled, for any rule and for random rules.
    n_prevalence : int
        Random labels for estimating ε_O+(S) (Prop 4.1); 0 when it is known.
    blind : DataFrame
        Blind labeling (eq 4.30) for the headline plan: negatives to add blindly and the
        expected number of mislabeled examples.
    prevalence, rule_rate : float
        The planning inputs ε_O+(S) and ε_R+(S); ``n_pool`` is |S|.
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
        return dict(n_positive=self.n_positive, n_negative=self.n_negative,
                    n_total=self.n_total, n_prevalence=self.n_prevalence,
                    rules=self.rules, strategy=self.strategy, bound=self.bound,
                    half_width=self.half_width, confidence_level=self.confidence_level,
                    feasible=self.feasible)

    def _header(self):
        guarantee = _GUARANTEE[self.rules, self.strategy]
        if (self.rules, self.strategy) == ("any", "positives"):
            guarantee += (" (prevalence from a random sample)" if self.n_prevalence
                          else " (prevalence known)")
        hdr = {"Guarantee": guarantee,
               "Target half-width": f"+/-{self.half_width:g} "
                                    f"(confidence {100 * self.confidence_level:g}%)",
               "Positives to label": self.n_positive, "Negatives to label": self.n_negative,
               "Total labels": self.n_total,
               "Feasible": "yes" if self.feasible else "NO (infeasible)"}
        if self.n_prevalence:
            hdr["Prevalence sample"] = self.n_prevalence
        hdr.update(super()._header())
        return hdr

    def _main_table(self):
        cols = ["measure", "n_positive", "n_negative", "n_total", "achieved_half_width",
                "feasible"]
        return (f"Headline plan per measure ({self.rules} rules, {self.strategy}, "
                f"{self.bound})", self.headline()[cols])

    def _extra_tables(self):
        t = self.table.copy()
        t["plan"] = t["rules"] + " rules / " + t["strategy"] + " / " + t["bound"]
        wide = t.pivot_table(index="plan", columns="measure", values="n_total",
                             aggfunc="first", sort=False).reset_index()
        wide.columns.name = None
        return [("Appendix: labels needed (n_total) under every plan", wide),
                ("Blind labeling (eq 4.30)", self.blind)]

    def _repr_body(self) -> str:
        prev = f" + {self.n_prevalence} for the prevalence" if self.n_prevalence else ""
        return (f"{self.n_positive} positives + {self.n_negative} negatives{prev} = "
                f"{self.n_total} labels for +/-{self.half_width:g} at "
                f"{100 * self.confidence_level:g}% ({self.rules} rules, {self.strategy}, "
                f"{self.bound})")

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
