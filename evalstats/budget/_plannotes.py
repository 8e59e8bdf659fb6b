"""Notes and warnings of :func:`evalstats.budget.plan_labels` (what a planner must read
next to the numbers)."""

from __future__ import annotations

import numpy as np

from .._warnings import InputWarning, SmallSampleWarning
from ._ranges import prior_range


def plan_notes(a, table, head, n_tot, feasible, notes) -> None:
    """Add the notes of a plan (headline ``head``, ``n_tot`` labels) to ``notes``."""
    _budget_notes(a, head, n_tot, feasible, notes)
    _zero_notes(a, table, n_tot, notes)
    _prevalence_notes(a, head, notes)
    _search_notes(a, head, n_tot, notes)
    _pinned_notes(a, head, notes)
    if a["rules"] == "random":
        d_min = min(a["n_rpos"], a["prev"].count, a["n_pool"] - a["prev"].count)
        if a["h"] * d_min < 2:
            notes.add(f"The target ±{a['h']:g} is below 2 counts of the smallest "
                      f"denominator ({d_min:g}): the random-rule plan takes the rule's hits "
                      "on the labels at their expectation, and at this resolution their "
                      "random variation alone can exceed the target (approximate plan).")
    paper_bad = table[(table["bound"] == "bernstein_paper") & ~table["paper_condition_holds"]]
    if len(paper_bad):
        notes.add("Rows of the paper's Bernstein bound (bernstein_paper) with "
                  "paper_condition_holds = no are not implied by Bernstein's inequality: the "
                  "variance V of the unknown count is below (4/9) log(2/δ).")


def _budget_notes(a, head, n_tot, feasible, notes) -> None:
    if bool(head["census"].any()) or n_tot >= a["n_pool"]:
        notes.warn(SmallSampleWarning,
                   f"The plan labels the whole pool ({a['n_pool']:,} items, a census): "
                   "the target cannot be met with fewer labels under this plan, and a "
                   "census knows every measure exactly.")
    if not feasible:
        bad = ", ".join(head.loc[~head["feasible"], "measure"])
        limit = ("under this plan, even labeling every positive" if a["max_labels"] is None
                 else f"within the limit of {a['max_labels']:,} labels")
        notes.warn(SmallSampleWarning,
                   f"Infeasible: the target half-width {a['h']:g} cannot be met for {bad} "
                   f"{limit}; the counts shown are the labels the target needs.")


def _zero_notes(a, table, n_tot, notes) -> None:
    h = a["h"]
    if n_tot:
        if a["rules"] == "random":
            notes.add("Random-rule plan (the paper's analysis): it holds for rules whose "
                      "predictions are independent of the labels; informative classifiers "
                      "need the rules='any' rows of the table.")
        return
    if a["rules"] == "random":
        any_rows = table[table["rules"] == "any"]
        best = int(any_rows.groupby(["strategy", "bound"])["n_total"].max().min())
        notes.add(f"No label needed only because this plan assumes random rules "
                  "(predictions independent of the labels, the paper's Section 3). "
                  "Informative classifiers are not covered: their plug-in estimates can be "
                  f"off by more than ±{h:g}; a "
                  f"guarantee for any rule of this size needs {best:,} labels (rules='any').")
    else:
        notes.add(f"No label needed: with the pool prevalence as given, every requested "
                  f"measure of any rule of this size is already confined to ±{h:g} by its "
                  "feasibility range; this rests on the prevalence (prevalence_known=False "
                  "or an interval plans for an uncertain one).")


def _prevalence_notes(a, head, notes) -> None:
    prev = a["prev"]
    strategy = a["strategy"]
    if prev.kind == "pilot":
        share = "all of δ" if (a["rules"], strategy) == ("any", "positives") \
            else "δ/2"
        notes.add(f"Prevalence from a pilot of {prev.pilot[0]} positives in {prev.pilot[1]} "
                  "labels: the plan holds over the exact (hypergeometric) confidence interval "
                  f"of the positive count, which takes {share} of the error budget.")
    if prev.kind != "guess":
        return
    n_prev = int(head["n_prevalence"].max())
    if n_prev:
        notes.add(f"Prevalence not known: {n_prev:,} random labels estimate it (for a "
                  "random search, its first labels are that sample); the plan holds over "
                  "the resulting interval of the positive count.")
    elif strategy == "random":
        notes.add(f"Prevalence not known: the subset estimates need none; the guess "
                  f"{prev.count / a['n_pool']:.4g} only forecasts how many labeled examples "
                  "fall in each denominator (a lower prevalence leaves recall with fewer "
                  "labeled positives than planned).")


def _search_notes(a, head, n_tot, notes) -> None:
    if a["strategy"] != "positives" or not n_tot:
        return
    k = int(head["n_positive"].max())
    how = ("labeling in decreasing score (the scores taken as calibrated probabilities: "
           "overconfident scores make the search longer)" if a["scores"] is not None
           else "labeling at random (negative hypergeometric search)")
    notes.add(f"The {n_tot:,} labels include the search for the {k:,} positives the plan "
              f"needs: {how}; they suffice with probability "
              f"{100 * a['level']:g}% (mean {head['n_total_mean'].max():,.0f}).")
    if a["rules"] == "any":
        notes.add("After labeling, each measure of any rule lies in its deterministic range "
                  "(bernstein_bound(...).deterministic_range with the rule's hits on the "
                  "labels); report its midpoint ± half its width.")
    if a["scores"] is not None:
        _calibration_note(a, notes)


def _calibration_note(a, notes) -> None:
    s = a["scores"]
    mu, sd = float(s.sum()), float(np.sqrt(np.sum(s * (1 - s))))
    prev = a["prev"]
    lo, hi = (prev.low, prev.high) if prev.kind in ("known", "interval") else \
        (prev.count, prev.count)
    if hi < mu - 3 * sd - 1 or lo > mu + 3 * sd + 1:
        notes.warn(InputWarning,
                   f"The scores sum to {mu:,.0f} expected positives (±{3 * sd:,.0f}, three "
                   f"standard deviations) but the prevalence says {lo:,}-{hi:,}: they are not "
                   "calibrated, and the search cost computed from them is not reliable.")


def _pinned_notes(a, head, notes) -> None:
    prev = a["prev"]
    if prev.kind == "guess":
        return
    lo_c, hi_c = (prev.low, prev.high) if prev.kind != "pilot" else (prev.count, prev.count)
    for label, m in a["pairs"]:
        lo, hi = (float(v) for v in prior_range(m, a["n_pool"], lo_c, hi_c, a["n_rpos"]))
        if (hi - lo) / 2 <= a["targets"][m]:
            notes.add(f"{label.capitalize()} needs no label: for any rule flagging "
                      f"{a['n_rpos']:,.0f} of {a['n_pool']:,} items it lies in "
                      f"[{lo:.4f}, {hi:.4f}] (feasibility bounds); report the midpoint.")
