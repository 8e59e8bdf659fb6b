"""Design-based estimates of precision, recall (sensitivity) and specificity for many
rules from one labeled probability sample: :class:`LabelDesign` (how the labels were
drawn), :func:`evaluate_rules` and its result :class:`RuleEvaluation`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._naming import named_result
from .._render.words import capitalize, value_with_ci
from .._result import ConfidenceInterval, EvalResult, FrozenDict, freeze_array, wald_interval
from .._validation import (
    check_array,
    check_binary_labels,
    check_confidence_level,
    check_int,
    fail,
)
from .._warnings import Notes, SmallSampleWarning, UndefinedEstimateWarning
from ._common import measure_pairs
from ._estimates import poisson_ratio, stratified_ratio

__all__ = ["LabelDesign", "RuleEvaluation", "evaluate_rules"]


@dataclass(frozen=True)
class LabelDesign:
    """How the labeled examples were drawn, so that estimates can undo the enrichment.

    Build it with :meth:`stratified`, :meth:`poisson`, :meth:`simple` or :meth:`blind`;
    the arrays are kept as read-only copies.

    Attributes
    ----------
    kind : {"stratified", "poisson", "blind"}
        The sampling design (a simple random sample is one stratum).
    strata : ndarray or None
        Stratum of each labeled example (stratified and blind designs).
    stratum_sizes : mapping or None
        Pool size N_h of every stratum.
    inclusion_probabilities : ndarray or None
        Inclusion probability π_i of each labeled example (Poisson design).
    is_blind : ndarray of bool or None
        Rows added without querying (blind design).
    """

    kind: str
    strata: np.ndarray | None = None
    stratum_sizes: Mapping[Any, float] | None = None
    inclusion_probabilities: np.ndarray | None = None
    is_blind: np.ndarray | None = None

    def __post_init__(self) -> None:
        # read-only copies: a caller's later edit of its own array reached the design
        # (a stratum changed to one without a size ended in a bare KeyError)
        for name in ("strata", "inclusion_probabilities", "is_blind"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, freeze_array(value))
        if self.stratum_sizes is not None:
            object.__setattr__(self, "stratum_sizes", FrozenDict(self.stratum_sizes))

    @classmethod
    def stratified(cls, strata, stratum_sizes: Mapping[Any, float]) -> LabelDesign:
        """Simple random samples without replacement within strata.

        Parameters
        ----------
        strata : array-like, shape (n,)
            Stratum of each labeled example (e.g. a surrogate score above a threshold
            fixed before labeling, or not).
        stratum_sizes : mapping
            Pool size N_h of every stratum that appears in ``strata`` (whole numbers, at
            least the labeled examples of the stratum).

        Returns
        -------
        LabelDesign

        Raises
        ------
        TypeError
            If ``stratum_sizes`` is not a mapping.
        ValueError
            If a stratum has no size, or fewer pool items than labeled examples.
        """
        strata = np.asarray(strata)
        if not isinstance(stratum_sizes, Mapping):
            raise fail("stratum_sizes", "a mapping from stratum to its pool size",
                       got=f"an object of type {type(stratum_sizes).__name__}", exc=TypeError)
        missing = set(np.unique(strata).tolist()) - set(stratum_sizes)
        if missing:
            raise fail("stratum_sizes", "a size for every stratum in `strata`",
                       got=f"no size for {sorted(missing)!r}")
        sizes = {}
        for h, size in stratum_sizes.items():       # whole, finite pool counts
            sizes[h] = check_int(size, f"stratum_sizes[{h!r}]", low=0)
        stratum_sizes = sizes
        for h in np.unique(strata):
            if stratum_sizes[h] < np.sum(strata == h):
                key = h.item() if hasattr(h, "item") else h
                raise fail(f"stratum_sizes[{key!r}]", f"at least the {np.sum(strata == h)} "
                           "labeled examples of that stratum", value=stratum_sizes[h])
        return cls("stratified", strata=strata, stratum_sizes=dict(stratum_sizes))

    @classmethod
    def poisson(cls, inclusion_probabilities) -> LabelDesign:
        """Independent inclusion of each pool item with a known probability (Poisson
        sampling).

        Parameters
        ----------
        inclusion_probabilities : array-like of float, shape (n,)
            π_i in (0, 1] of each labeled example; the estimates weight it by 1/π_i
            (Horvitz & Thompson 1952).

        Returns
        -------
        LabelDesign
        """
        pi = check_array(inclusion_probabilities, "inclusion_probabilities")
        if pi.min() <= 0 or pi.max() > 1:
            raise fail("inclusion_probabilities", "in (0, 1]",
                       got=f"values in [{pi.min():.4g}, {pi.max():.4g}]")
        return cls("poisson", inclusion_probabilities=pi)

    @classmethod
    def simple(cls, n_pool: int, n_labeled: int) -> LabelDesign:
        """One simple random sample without replacement (one stratum, equal weights).

        Parameters
        ----------
        n_pool : int
            Items in the pool.
        n_labeled : int
            Labeled examples, drawn at random from the pool (at most ``n_pool``).

        Returns
        -------
        LabelDesign
        """
        n_pool = check_int(n_pool, "n_pool", low=1)
        n_labeled = check_int(n_labeled, "n_labeled", low=1, high=n_pool)
        return cls("stratified", strata=np.zeros(n_labeled, int), stratum_sizes={0: n_pool})

    @classmethod
    def blind(cls, is_blind, n_pool: int) -> LabelDesign:
        """Blind labeling (Valizadegan et al. 2012, Section 4.1): rows added at random
        and labeled negative without querying.

        Kept to describe such a sample; :func:`evaluate_rules` refuses it, because the
        augmented set is not a probability sample (retrieval adapts to the labels and the
        blind labels are wrong at the unlabeled positive rate), so no valid interval
        exists. Use :meth:`stratified` or :meth:`poisson` designs for estimates.

        Parameters
        ----------
        is_blind : array-like of bool, shape (n,)
            True for the rows added without querying.
        n_pool : int
            Items in the pool (at least ``len(is_blind)``).

        Returns
        -------
        LabelDesign
        """
        mask = np.asarray(is_blind, bool)
        n_pool = check_int(n_pool, "n_pool", low=len(mask))
        return cls("blind", strata=np.zeros(len(mask), int), stratum_sizes={0: n_pool},
                   is_blind=mask)


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class RuleEvaluation(EvalResult):
    """Estimates and intervals of precision, recall and specificity for many rules (one
    row per rule and measure), from one labeled probability sample.

    Each measure is a ratio of two pool totals, estimated with Horvitz–Thompson weights
    (the ratio estimator; see :func:`evaluate_rules`). Its standard error is the
    linearised (Taylor) one; the smoothed standard error takes the label rate of each
    (stratum, rule prediction) cell at its posterior mean under a Jeffreys prior
    Beta(1/2, 1/2) (Poisson designs: within bins of similar inclusion probability), so
    that rare, heavily weighted labels that the sample missed do not give a variance near
    0. The rule's predictions are known, so no prediction is invented where the rule does
    not fire, and a simple random sample (one stratum) is smoothed in the same way as each
    stratum of an enriched design.

    Interval methods (``conf_int(method=...)``): ``"korn_graubard_smoothed"`` (default):
    Clopper–Pearson at the design effective sample size p(1-p)/se² with the smoothed se
    (at most the labeled examples in the denominator; Korn & Graubard 1998);
    ``"korn_graubard"``: the same with the linearised se; ``"wald"``: estimate ± z se,
    clipped to [0, 1]. A census (every item of a stratified pool labeled) has zero-width
    intervals.

    Attributes
    ----------
    estimate, std_error : float
        Of the first row of :attr:`table` (``term``, ``rule:measure``).
    n : int
        Labeled examples (``n_unit`` "labels").
    table : DataFrame
        One row per rule and measure: ``rule, measure, estimate, std_error,
        std_error_smoothed, denominator_total`` (the estimated pool total of the measure's
        denominator) and ``n_denominator`` (labeled examples in the denominator: those the
        rule flags for precision, the labeled positives for recall, the labeled negatives
        for specificity).
    method : str
        The estimator in words (stratified or Poisson design).

    References
    ----------
    .. [1] Cochran, W. G. (1977). Sampling Techniques, 3rd ed. Wiley. Sections 5.9, 6.11.
    .. [2] Särndal, C.-E., Swensson, B. & Wretman, J. (1992). Model Assisted Survey
       Sampling. Springer. Section 5.6.
    .. [3] Korn, E. L. & Graubard, B. I. (1998). Confidence intervals for proportions
       with small expected number of positive counts estimated from survey data.
       Survey Methodology 24, 193-201.
    """

    table: pd.DataFrame = field(default_factory=pd.DataFrame)

    INTERVAL_METHODS = ("korn_graubard_smoothed", "korn_graubard", "wald")

    def _row_interval(self, rec, level, method):
        if self.diagnostics.get("census") and np.isfinite(rec["estimate"]):
            return ConfidenceInterval(float(rec["estimate"]), float(rec["estimate"]))
        if method == "wald":        # proportions: the normal interval clipped to [0, 1]
            lo, hi = wald_interval(rec["estimate"], rec["std_error"], level)
            return ConfidenceInterval(*(float(np.clip(v, 0.0, 1.0)) if np.isfinite(v) else v
                                        for v in (lo, hi)))
        se = rec["std_error_smoothed"] if method == "korn_graubard_smoothed" \
            else rec["std_error"]
        return _kg_interval(rec["estimate"], se, rec["n_denominator"], level)

    def _interval(self, level, method: str = ""):
        return self._row_interval(self.table.iloc[0], level, method)

    def _tidy_rows(self, level, method: str = ""):
        rows = []
        for rec in self.table.to_dict("records"):
            lo, hi = self._row_interval(rec, level, method)
            rows.append(dict(term=f"{rec['rule']}:{rec['measure']}", estimate=rec["estimate"],
                             std_error=rec["std_error"], conf_low=lo, conf_high=hi,
                             confidence_level=level, method=self.method, rule=rec["rule"],
                             measure=rec["measure"]))
        return rows

    def _title(self):
        return "Rule evaluation from a designed label sample"

    def _finding(self) -> str:
        """Per measure: the estimate of the only rule with its interval, or the range of
        the rules' estimates with the rules at its ends."""
        td = self.tidy()
        parts = [_measure_words(td[td["measure"] == m].reset_index(drop=True), m,
                                self.confidence_level)
                 for m in dict.fromkeys(td["measure"])]
        many = td["rule"].nunique() > 1
        tail = f" ({100 * self.confidence_level:g}% intervals in the table)" if many else ""
        return capitalize("; ".join(parts)) + f", from {self.n:,} labels{tail}."


@named_result
def evaluate_rules(labels, rules, design: LabelDesign, *,
                   measures: Sequence[str] = ("precision", "recall", "specificity"),
                   confidence_level: float = 0.95) -> RuleEvaluation:
    r"""Precision, sensitivity and specificity of many rules from one labeled sample.

    Parameters
    ----------
    labels : array-like of 0/1, shape (n,), or RetrievalResult
        Oracle labels of the labeled examples. A sample of :func:`guided_sample` with
        ``strategy="guided"`` (the result or its ``labels`` array) is refused whatever
        ``design`` says: it is not a probability sample.
    rules : array-like (n, K), DataFrame or mapping
        Predictions (0/1) of K rules on the labeled examples; DataFrame columns or mapping
        keys name the rules.
    design : LabelDesign
        The sampling design: stratified, simple or Poisson. A blind design
        (:meth:`LabelDesign.blind`, the paper's blind labeling after guided retrieval) is
        refused with a ``ValueError``: the labels are not a probability sample, so no
        valid design-based variance exists (see the error for the alternatives). Anything
        else is a ``TypeError`` (a :class:`RetrievalResult` gets one saying what to pass).
    measures : sequence of str
        Any of ``"precision"``, ``"recall"`` (alias ``"sensitivity"``) and
        ``"specificity"``; the table uses the spelling given.
    confidence_level : float
        Level of the default interval (``conf_int()`` recomputes at any other).

    Returns
    -------
    RuleEvaluation
        One row per rule and measure (its ``table``).

    Raises
    ------
    ValueError
        For a blind design or a guided sample (not probability samples), labels that are
        not 0/1, predictions that are not 0/1, or arrays whose lengths disagree.
    TypeError
        If ``design`` is not a :class:`LabelDesign`.

    Warns
    -----
    UndefinedEstimateWarning
        A measure with no labeled example in its denominator (reported as NaN).
    SmallSampleWarning
        A stratum with a single label (its variance contribution cannot be estimated).

    Notes
    -----
    Each measure is a ratio of pool totals, e.g. Pr = Σ y r / Σ r. Horvitz-Thompson weights
    w_i = 1/π_i (N_h/n_h under stratified sampling) estimate both totals without bias; the
    ratio is consistent, with the linearised (Taylor) variance of the residuals
    e_i = (z_i - R̂ x_i)/X̂ (Cochran 1977, Sec. 6.11; Särndal et al. 1992, Sec. 5.6). The
    interval is Clopper-Pearson at the effective sample size p(1-p)/se² (Korn & Graubard
    1998) with the smoothed variance of :class:`RuleEvaluation`: the only unknowns are the
    labels, so each (stratum, prediction) cell's label rate gets the Jeffreys posterior
    mean (n_1 + 1/2)/(n + 1), the reference prior of a binomial rate. The textbook
    variance is near 0 when a stratum's sample missed a cell's rare labels and then
    under-covers; the smoothing adds what one half-label of each class would carry, in
    every design alike, and leaves cells the sample never saw at probability 0.
    The smoothed variance is never below the textbook one. A
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
    y, r, names, design, level, measures = _evaluate_rules_iv(labels, rules, design,
                                                              measures, confidence_level)
    notes = Notes()
    rows = []
    for label, m in measures:
        est, se, xt, n_den, se_s = _ratio_by_design(y, r, design, m, notes)
        for j, name in enumerate(names):
            if not np.isfinite(est[j]):
                notes.warn(UndefinedEstimateWarning,
                           f"{label} of {name} is undefined: no labeled example in its "
                           "denominator (reported as NaN).")
            rows.append(dict(rule=name, measure=label, estimate=float(est[j]),
                             std_error=float(se[j]) if np.isfinite(est[j]) else float("nan"),
                             std_error_smoothed=float(se_s[j]) if np.isfinite(est[j])
                             else float("nan"),
                             denominator_total=float(xt[j]), n_denominator=int(n_den[j])))
    table = pd.DataFrame(rows)
    census = _is_census(design)
    if census:
        notes.add("Every example of the pool is labeled (a census): each measure is known "
                  "exactly, with a zero-width interval.")
    method = {"poisson": "ratio estimator (Horvitz–Thompson, Poisson sampling)",
              "stratified": "stratified ratio estimator (Horvitz–Thompson)"}[design.kind]
    first = table.iloc[0]
    return RuleEvaluation(estimate=float(first["estimate"]), std_error=float(first["std_error"]),
                          confidence_level=level, method=method,
                          term=f"{first['rule']}:{first['measure']}", n=len(y), n_unit="labels",
                          data=_design_words(design),
                          call=dict(function="evaluate_rules", n_rules=len(names),
                                    design=design.kind),
                          diagnostics=dict(census=census), notes=notes.as_tuple(), table=table)


def _design_words(design: LabelDesign) -> str:
    """How the labels were drawn, in words (the report's Data line)."""
    if design.kind == "poisson":
        return "labels drawn with known inclusion probabilities (Poisson sampling)"
    sizes = design.stratum_sizes
    pool = f"a pool of {int(sum(sizes.values())):,} items"
    if len(sizes) == 1:
        return f"a simple random sample of {pool}"
    return f"a stratified random sample ({len(sizes)} strata) of {pool}"


def _measure_words(d: pd.DataFrame, measure: str, level: float) -> str:
    """``"precision ranges from 0.12 (rule a) to 0.17 (rule b)"`` for one measure."""
    est = pd.to_numeric(d["estimate"], errors="coerce")
    if len(d) == 1:
        shown = value_with_ci(est[0], d["conf_low"][0], d["conf_high"][0], level)
        return f"{measure} of {d['rule'][0]} is {shown}"
    if est.notna().sum() == 0:
        return f"{measure} is undefined for every rule (see the notes)"
    lo, hi = int(est.idxmin()), int(est.idxmax())
    if est[lo] == est[hi]:
        return f"{measure} is {est[lo]:.2f} for every rule"
    dec = 2 if round(est[lo], 2) != round(est[hi], 2) else 4
    return (f"{measure} ranges from {est[lo]:.{dec}f} ({d['rule'][lo]}) to "
            f"{est[hi]:.{dec}f} ({d['rule'][hi]})")


def _is_census(design: LabelDesign) -> bool:
    """Every stratum of the pool fully labeled (a stratified design only: a Poisson design
    does not describe the unlabeled examples)."""
    if design.kind != "stratified":
        return False
    labeled = dict(zip(*np.unique(design.strata, return_counts=True), strict=True))
    return all(int(labeled.get(h, 0)) == int(size) for h, size in design.stratum_sizes.items())


def _ratio_by_design(y, r, design, measure, notes):
    """Estimates, standard errors, estimated denominator totals and labeled denominators."""
    n_den = (r if measure == "precision" else np.broadcast_to(
        (y if measure == "sensitivity" else 1 - y)[:, None], r.shape)).sum(axis=0)
    if design.kind == "poisson":
        est, se, xt, se_s = poisson_ratio(y, r, design.inclusion_probabilities, measure)
        return est, se, xt, n_den, se_s
    est, se, xt, n_single, se_s = stratified_ratio(y, r, design.strata, design.stratum_sizes,
                                                   measure)
    if n_single:
        notes.warn(SmallSampleWarning, f"{n_single} stratum/strata hold a single label; their "
                   "variance contribution cannot be estimated and is left out (standard "
                   "errors too small).")
    return est, se, xt, n_den, se_s


_BLIND_REFUSAL = (
    "Blind labeling (eq 4.30) is not a probability sample: the queried rows come from "
    "retrieval that adapts to the labels, and the blind negatives are wrong at the unlabeled "
    "positive rate, so no design-based variance (and no valid interval) exists. Draw the "
    "labels at random within strata of a surrogate score fixed before labeling "
    "(LabelDesign.stratified) or with known inclusion probabilities (LabelDesign.poisson); "
    "for the paper's subset estimate without an interval use "
    "evalstats.budget.simulation.subset_measures, and for a guarantee for any rule use "
    "bernstein_bound(...).deterministic_range.")


def _evaluate_rules_iv(labels, rules, design, measures, confidence_level):
    """Normalised arguments of :func:`evaluate_rules` (raises on bad input)."""
    labels = _labels_of(labels)
    if not isinstance(design, LabelDesign):
        raise _design_type_error(design)
    if design.kind == "blind":
        raise fail("design", "a probability-sampling design (stratified, simple or Poisson)",
                   got="LabelDesign.blind", remedy=_BLIND_REFUSAL)
    y = check_binary_labels(labels, "labels")
    if isinstance(rules, pd.DataFrame | Mapping):
        keys = list(rules.columns if isinstance(rules, pd.DataFrame) else rules)
        if not keys:
            raise fail("rules", "at least one rule", got="none")
        names, columns = [str(k) for k in keys], []
        for key, name in zip(keys, names, strict=True):
            # every rule through the checks of the array path (text, NaN, length)
            col = check_array(np.asarray(rules[key]), f"rules[{name!r}]", ndim=1)
            if col.shape[0] != len(y):
                raise fail(f"rules[{name!r}]", f"one prediction per labeled example "
                           f"({len(y)})", got=f"{col.shape[0]}")
            columns.append(col)
        r = np.column_stack(columns)
    else:
        r = check_array(rules, "rules", ndim=(1, 2))
        r = r[:, None] if r.ndim == 1 else r
        names = [f"rule_{j}" for j in range(r.shape[1])]
    r = np.asarray(r, float)
    if r.shape[0] != len(y):
        raise fail("rules", f"one row per labeled example ({len(y)})",
                   got=f"{r.shape[0]} rows")
    if not np.isin(r, (0.0, 1.0)).all():
        bad = r[~np.isin(r, (0.0, 1.0))][0]
        raise fail("rules", "predictions coded 0/1", got=f"other values, e.g. {bad:g}")
    level = check_confidence_level(confidence_level)
    measures = measure_pairs(measures)
    for arr_name in ("strata", "inclusion_probabilities"):
        arr = getattr(design, arr_name)
        if arr is not None and len(arr) != len(y):
            raise fail(f"design.{arr_name}", f"of length {len(y)} (one per labeled example)",
                       got=f"length {len(arr)}")
    return y, r, names, design, level, measures


_GUIDED_REFUSAL = (
    "Labels collected by guided_sample(strategy='guided') are not a probability sample "
    "(each round chooses examples from the labels seen so far), whatever design is "
    "declared for them, so no design-based interval exists. Use "
    "bernstein_bound(...).deterministic_range for a range valid for any rule, or draw new "
    "labels at random within strata of a fixed score (LabelDesign.stratified).")


def _labels_of(labels):
    """The labels array, refusing a guided sample (its result or its labels array)."""
    from ._retrieval import RetrievalResult, is_guided

    if isinstance(labels, RetrievalResult):
        if labels.strategy == "guided":
            raise fail("labels", "labels of a probability sample",
                       got="a guided RetrievalResult", remedy=_GUIDED_REFUSAL)
        return labels.labels
    if isinstance(labels, np.ndarray) and is_guided(labels):
        raise fail("labels", "labels of a probability sample",
                   got="the labels array of a guided sample", remedy=_GUIDED_REFUSAL)
    return labels


def _design_type_error(design) -> TypeError:
    """The TypeError for a ``design`` that is not a LabelDesign, saying what to pass."""
    from ._retrieval import RetrievalResult

    if isinstance(design, RetrievalResult):
        what = ("LabelDesign.simple(n_pool, n_labels) for a random sample "
                "(strategy='random'); a guided sample has no design (see guided_sample's "
                "Notes)")
        return fail("design", "a LabelDesign describing how the labels were drawn",
                    got="a RetrievalResult (the labels themselves, not their design)",
                    remedy=f"Pass {what}.", exc=TypeError)
    return fail("design", "a LabelDesign (LabelDesign.stratified/poisson/simple)",
                got=f"an object of type {type(design).__name__}", exc=TypeError)


def _kg_interval(est: float, se: float, n_den: float, level: float) -> ConfidenceInterval:
    """Korn-Graubard interval: Clopper-Pearson with x = p n_eff successes of n_eff trials.

    ``n_eff = p(1-p)/se²`` (at most ``n_den``, the labeled examples in the denominator). At
    an estimate of 0 or 1 it is taken at ``p̃`` half a pseudo-count from the boundary,
    ``0.5/n_den`` or ``1 − 0.5/n_den`` — the smoothing of the smoothed se; at ``p`` itself it
    is 0, and 100 correct of 100 got [0.025, 1] instead of Clopper–Pearson's [0.964, 1].
    """
    if not np.isfinite(est):
        return ConfidenceInterval(float("nan"), float("nan"))
    from scipy import stats

    half = 0.5 / max(n_den, 1.0)
    p_eff = min(max(est, half), 1.0 - half)
    n_eff = n_den if se <= 0 else min(n_den, p_eff * (1 - p_eff) / se ** 2)
    n_eff = max(n_eff, 1.0)
    x, a = est * n_eff, 1 - level
    lo = 0.0 if x <= 0 else float(stats.beta.ppf(a / 2, x, n_eff - x + 1))
    hi = 1.0 if x >= n_eff else float(stats.beta.ppf(1 - a / 2, x + 1, n_eff - x))
    return ConfidenceInterval(lo, hi)
