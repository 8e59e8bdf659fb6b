"""The result of active estimation, :class:`ActiveEstimate`, for both designs.

The numbers come from the design's sample object — :class:`~._successive_sample.
SuccessiveSample` (the default successive πps design: AIPW estimator, score, Wald and
anytime intervals) or :class:`~._labeled_sample.LabeledSample` (the papers'
with-replacement design: self-normalised importance sampling, logit/linear/Wilson
intervals). Both answer ``estimate(spec, model)``, ``interval(spec, model, level,
method)`` and ``running(spec, level, method)``; the result keeps the sample and
recomputes any measure and interval from it without refitting. The reader's notes are
written here, once, from the estimate's flags.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._render.words import terms_sentence
from .._result import ConfidenceInterval, EvalResult, _get_ax
from .._validation import check_confidence_level
from .._warnings import Notes, SmallSampleWarning, UndefinedEstimateWarning, warn
from ._estimate_record import RatioEstimate
from ._intervals import WR_METHODS
from ._labeled_sample import frozen_copy
from ._measures import MeasureSpec
from ._skipping import SkippedItemsWarning, skip_note
from ._successive_sample import SUCCESSIVE_METHODS, SuccessiveSample

#: below this effective sample size an interval is flagged as unreliable
SMALL_ESS = 20
#: an F-type estimate resting on fewer labeled items of nonzero weight (predicted or actual
#: positives) is flagged: a rule of thumb, not a calibrated threshold
MIN_EVENTS = 20

__all__ = ["ActiveEstimate", "make_estimate"]


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class ActiveEstimate(EvalResult):
    """A measure estimated from an actively selected labeled sample.

    Attributes
    ----------
    n_labels : int
        Distinct labeled items (the budget spent); also ``n``.
    n_draws : int
        Random draws: with replacement, repeats included; without replacement (``"pps"``),
        the labels not taken with certainty.
    n_certain : int
        Items labeled with certainty (inclusion probability 1; ``"pps"`` only).
    ess : float
        Effective sample size: ``Ĝ(1 − Ĝ)/SE²`` (``"pps"``) or Kish's
        ``(Σ v w)² / Σ (v w)²`` (with replacement).
    max_weight_share : float
        Largest single weight share.
    defined, zero_width : bool
        Flags for an undefined estimate and for a zero standard error.
    proposal_kind : str
        How the items were selected (``"pps, adaptive"``, ``"optimal"``, ``"passive"``, ...).
    epsilon : float
        Defensive (uniform) share of the design.
    plug_in : float
        The model's own value of the measure when the design was built.
    interval_method : str
        The default interval: ``"score"`` (or ``"anytime"``) for ``"pps"``, ``"logit"``
        with replacement; ``conf_int(method=...)`` gives the others of the design
        (``"score"``, ``"anytime"``, ``"wald"``, ``"score_realised"``, ``"score_model"``,
        ``"score_max"``; or ``"logit"``, ``"linear"``,
        ``"wilson"``).
    design : str
        ``"pps"`` (successive πps without replacement, the default) or
        ``"with_replacement"``.
    design_estimate : float
        The design-based estimate (the headline itself: every estimate here is
        design-based).
    n_skipped : int
        Queried items skipped as impossible to label (``ActiveEvaluator.skip``) among
        those the estimate uses; when nonzero, a :class:`SkippedItemsWarning` note says
        what they do to the estimate (the πps design counts them with the model's
        prediction; with replacement their draws are left out).

    Methods
    -------
    measures(confidence_level=None)
        Every measure (and every model) from the same sample, as a tidy table.
    model_based()
        Every measure estimated by the labels plus the model's predictions for the
        items never labeled (labelled "model-based"; assumes calibrated scores).
    running()
        The estimate and interval as labels accrue.
    plot(ax=None)
        The running estimate with its interval against labels spent.
    """

    n_labels: int = 0
    n_draws: int = 0
    n_certain: int = 0
    ess: float = float("nan")
    max_weight_share: float = float("nan")
    defined: bool = True
    zero_width: bool = False
    bounded: bool = True
    proposal_kind: str = "optimal"
    epsilon: float = 0.1
    plug_in: float = float("nan")
    design: str = "pps"
    n_skipped: int = 0

    pool_size: int = 0
    sample: Any = None
    specs: tuple = ()
    model_names: tuple = ("model",)
    plot_x: np.ndarray | None = None
    plot_q: np.ndarray | None = None
    plot_pred: np.ndarray | None = None
    extra: dict = field(default_factory=dict)

    @property
    def INTERVAL_METHODS(self) -> tuple[str, ...]:  # noqa: N802 (EvalResult's name)
        """The intervals of this result's design (the first is the design's default)."""
        return SUCCESSIVE_METHODS if self.design == "pps" else WR_METHODS

    @property
    def design_estimate(self) -> float:
        """The design-based estimate (equal to ``estimate``)."""
        return self.estimate

    def _interval(self, level: float, method: str = "") -> ConfidenceInterval:
        method = method or self.interval_method
        noted = method == self.interval_method and level == self.confidence_level
        if method == "anytime" and not noted:
            missed = _missed_sequences(self.sample, self.specs[:1], level, self.model_names[:1])
            if missed:
                warn(empty_sequence_note(missed, level), UndefinedEstimateWarning)
        return self.sample.interval(self.specs[0], 0, level, method)

    def _title(self) -> str:
        return f"Active estimate of {self.term}"

    def _finding(self) -> str:
        name = "confidence sequence" if self.interval_method == "anytime" else "CI"
        return terms_sentence(self.tidy(), self.confidence_level, self.n, self.n_unit,
                              interval_name=name)

    def _header(self) -> dict[str, Any]:
        hdr = super()._header()
        hdr.pop(f"n ({self.n_unit})", None)                 # "Distinct labels" says it
        hdr.update({"Distinct labels": self.n_labels, "Labeled with certainty": self.n_certain,
                    "Random draws": self.n_draws, "Design": self.proposal_kind,
                    "Interval": self.interval_method, "Pool size": self.pool_size})
        if self.n_skipped:
            hdr["Skipped items"] = self.n_skipped
        return hdr

    def _tidy_rows(self, level: float, method: str = "") -> list[dict[str, Any]]:
        rows = super()._tidy_rows(level, method)
        rows[0].update(defined=self.defined)
        return rows

    def _glance_extra(self) -> dict[str, Any]:
        return dict(measure=self.term, design=self.design, n_labels=self.n_labels,
                    n_pool=self.pool_size, n_skipped=self.n_skipped,
                    interval_method=self.interval_method, effective_sample_size=self.ess)

    def diagnostics_table(self) -> pd.DataFrame:
        """Design diagnostics, one row: draws, certain items, ESS, largest weight share,
        defensive share and the model's plug-in value."""
        return pd.DataFrame([dict(n_labels=self.n_labels, n_draws=self.n_draws,
                                  n_certain=self.n_certain, ess=self.ess,
                                  max_weight_share=self.max_weight_share,
                                  epsilon=self.epsilon, plug_in=self.plug_in,
                                  zero_width=self.zero_width)])

    def _extra_tables(self) -> list[tuple[str, pd.DataFrame]]:
        table = self.measures()
        if len(table) <= 1:
            return []
        return [("Every measure from the same sample",
                 table[["term", "estimate", "std_error", "conf_low", "conf_high"]])]

    def measures(self, confidence_level: float | None = None) -> pd.DataFrame:
        """Every measure, for every model, from this one labeled sample (tidy columns).

        Extra columns: ``model``, ``measure``, ``defined``, ``zero_width``, ``ess`` and
        ``projected`` (a group total was set to the nearest value the labels allow).
        """
        level = (self.confidence_level if confidence_level is None
                 else check_confidence_level(confidence_level))
        rows = []
        for m, model in enumerate(self.model_names):
            for spec in self.specs:
                r = self.sample.estimate(spec, m)
                lo, hi = self.sample.interval(spec, m, level, self.interval_method, r)
                term = spec.name if m == 0 else f"{model}:{spec.name}"
                rows.append(dict(term=term, estimate=r.estimate, std_error=r.std_error,
                                 conf_low=lo, conf_high=hi, confidence_level=level,
                                 method=self.method, model=model, measure=spec.name,
                                 defined=r.defined, zero_width=r.zero_width,
                                 ess=r.ess, projected=r.projected))
        return pd.DataFrame(rows)

    def model_based(self) -> pd.DataFrame:
        """A model-based estimate of every measure, labelled as such — never the headline.

        Each pool total is the labels of the labeled items plus, for every item never
        labeled, the expectation of its label under the last batch's model (the
        recalibration of the scores fitted on the labels before that batch). It assumes
        that model is calibrated on the items no one labeled and is biased by whatever it
        gets wrong there: positives hidden where the model is sure (a blind spot) are
        never counted, and more labels elsewhere do not fix it. The headline
        (``estimate``) is the design estimate, unbiased whatever the model. No interval
        is given: the model-based value's uncertainty is the model's own.

        Returns
        -------
        DataFrame
            One row per measure and model: ``term``, ``estimate`` (model-based),
            ``design_estimate`` (the headline's estimate of the same term), ``defined``,
            ``method`` (``"model-based (assumes calibrated scores)"``).

        Raises
        ------
        ValueError
            For a with-replacement result (its sample holds no model prediction for the
            items never labeled).
        """
        from ._model_based import model_based_table

        return model_based_table(self)

    def running(self) -> pd.DataFrame:
        """The headline estimate and its interval as labels accrue (after each batch for
        ``"pps"``, the anytime sequence with ``interval_method="anytime"``; after each
        prefix of the draws with replacement)."""
        return self.sample.running(self.specs[0], self.confidence_level, self.interval_method)

    def plot(self, ax=None, **kwargs):
        """The running estimate with its interval (or confidence sequence) against
        distinct labels spent — with one or two batches, each measure's estimate and
        interval instead (a forest plot) — and, in an inset placed *outside* the data area
        (right of the axes), how the items were drawn: ``N·q`` over the model's log-odds
        (NIPS Fig. 2; for ``"pps"`` each random draw at its batch model's log-odds).

        Returns the one Axes of the running estimate.
        """
        ax = _get_ax(ax)
        self._plot_running(ax, **kwargs)
        if self.plot_x is not None and self.proposal_kind != "passive":   # passive: N·q ≡ 1
            self._plot_proposal(ax.inset_axes([1.04, 0.25, 0.3, 0.5]), small=True)
        return ax

    def _plot_running(self, ax, **kwargs):
        ax = _get_ax(ax)
        run = self.running()
        label = self._band_label()
        if len(run) < 3:  # one or two batches: no path to draw; every measure instead
            return self._plot_measures(ax, **kwargs)
        ax.fill_between(run["n_labels"], run["conf_low"], run["conf_high"], alpha=0.25,
                        label=label)
        ax.plot(run["n_labels"], run["estimate"], label="estimate", **kwargs)
        ax.set_xlabel("distinct labels")
        ax.set_ylabel(self.term)
        ax.set_title(self._title())
        ax.legend(fontsize="small", loc="upper left")
        return ax

    def _band_label(self) -> str:
        kind = "confidence sequence" if self.interval_method == "anytime" else "interval"
        return f"{100 * self.confidence_level:g}% {kind}"

    def _plot_measures(self, ax, **kwargs):
        """Each measure's estimate with its interval (a forest plot), undefined ones marked."""
        tab = self.measures()
        ypos = np.arange(len(tab))[::-1]
        est = tab["estimate"].to_numpy(float)
        lo, hi = tab["conf_low"].to_numpy(float), tab["conf_high"].to_numpy(float)
        ok = np.isfinite(est)
        ax.errorbar(est[ok], ypos[ok], xerr=[est[ok] - lo[ok], hi[ok] - est[ok]], fmt="o",
                    capsize=4, label=f"estimate, {self._band_label()}",
                    **kwargs)
        for y_, e, h in zip(ypos[ok], est[ok], hi[ok], strict=True):
            ax.annotate(f"{e:.3f}", (h, y_), xytext=(4, 0), textcoords="offset points",
                        va="center", fontsize="small")
        for y_ in ypos[~ok]:
            ax.annotate("undefined", (0.5, y_), ha="center", va="center", color="firebrick")
        ax.set_yticks(ypos, tab["term"])
        if self.bounded:
            ax.set_xlim(-0.02, 1.1)
        ax.set_ylim(-0.7, len(tab) - 0.3)
        ax.set_xlabel("estimate")
        ax.set_title(f"{self._title()}: {self.n_labels} labels")
        ax.legend(fontsize="small", loc="lower right")
        return ax

    def _plot_proposal(self, ax, small: bool = False):
        if self.plot_x is None:
            return ax
        colours = np.where(self.plot_pred == 1, "tab:red", "tab:blue")
        ax.scatter(self.plot_x, self.plot_q * self.pool_size, s=3 if small else 6, c=colours)
        ax.axhline(1.0, color="k", lw=0.8, ls="--")
        ax.set_yscale("log")
        if small:
            ax.tick_params(which="both", labelsize=6)
            ax.yaxis.tick_right()            # its labels clear of the main axes on the left
            ax.yaxis.set_label_position("right")
            ax.set_title(("Draws" if self.design == "pps" else "Proposal")
                         + " (red: predicted positive)", fontsize=7)
            ax.set_xlabel("model log-odds", fontsize=6)
            ax.set_ylabel("N·q" if self.design == "pps" else "N·q (1 = passive)",
                          fontsize=6)
        else:
            ax.set_xlabel("model log-odds (red: predicted positive)")
            ax.set_ylabel("N · q(x)" + ("  (q among the items left)" if self.design == "pps"
                                         else "  (1 = passive)"))
            ax.set_title(f"{'Draws' if self.design == 'pps' else 'Proposal'} "
                         f"({self.proposal_kind})")
        return ax


def _missed_sequences(sample: Any, specs: Any, level: float, models: Any) -> list[str]:
    """The measures (with the model's name where there are several) of a πps sample whose
    anytime sequence is empty
    (:meth:`~._successive_sample.SuccessiveSample.anytime_empty`)."""
    if not isinstance(sample, SuccessiveSample):
        return []
    many = len(models) > 1
    return [s.name + (f" ({m})" if many else "") for j, m in enumerate(models) for s in specs
            if sample.estimate(s, j).defined and sample.anytime_empty(s, j, level)]


def empty_sequence_note(names: list[str], level: float) -> str:
    """What an empty anytime sequence means, for the reader."""
    what = (f"sequence of {names[0]} is" if len(names) == 1 else
            f"sequences of {', '.join(names[:-1])} and {names[-1]} are")
    return (f"The {100 * level:g}% anytime confidence {what} empty on this sample: a pool "
            f"total behind them has no value left that its sequence and the labels allow, "
            f"an event of probability at most {100 * (1 - level):.3g}% under the design, so "
            f"the sequence has missed. The interval shown takes that total anywhere the "
            f"labels allow (it can be wide).")


def _flag_notes(notes: Notes, spec: MeasureSpec, r: RatioEstimate, sample: Any,
                pps: bool) -> None:
    """Notes and warnings a reader needs, from the headline estimate's flags."""
    if not r.defined:
        notes.warn(UndefinedEstimateWarning,
                   f"{spec.name} is undefined on this sample: {r.reason}. Estimate set "
                   f"to NaN (flagged defined=False).")
        return
    if r.census:
        notes.add(f"Every item of the pool is labeled (a census): {spec.name} is computed "
                  f"exactly, so its interval has zero width.")
        return
    if r.zero_width:
        notes.warn(SmallSampleWarning,
                   f"The estimated variance of {spec.name} is zero (every draw agreed with "
                   f"the model's prediction of it); the interval cannot show how far "
                   f"labels the sample has not seen may move it.")
    elif r.ess < SMALL_ESS:
        notes.warn(SmallSampleWarning,
                   f"Effective sample size {r.ess:.1f} < {SMALL_ESS}: the interval is "
                   f"unreliable (few labeled items carry the measure; its coverage can fall "
                   f"well below nominal).")
    if r.projected:
        notes.warn(SmallSampleWarning,
                   f"A group total behind {spec.name} was estimated outside the values the "
                   f"labels allow (the 1/q-weighted residual of a rare item); it was set to "
                   f"the nearest allowed value, which keeps {spec.name} within [0, 1] and "
                   f"never moves it away from the truth. Few draws carry this estimate.")
    if spec.kind == "f":
        y = sample.records.labels if pps else sample.item_labels
        f = sample.records.preds[:, 0] if pps else sample.item_preds[:, 0]
        _, w = spec.loss_weight(f, y)
        k = int(np.count_nonzero(np.nan_to_num(w) > 0))
        if k < MIN_EVENTS:
            notes.warn(SmallSampleWarning,
                       f"Only {k} labeled item(s) carry {spec.name} (predicted or actual "
                       f"positives, as the measure weighs them); with fewer than {MIN_EVENTS} "
                       f"its interval can cover far below nominal. Label more items.")


def _boundary_note(notes: Notes, spec: MeasureSpec, r: RatioEstimate,
                   companions: dict[str, RatioEstimate]) -> None:
    """With replacement: name every measure estimated at 0 or 1 (no draw showed an error
    that would move it; rare errors never drawn leave the interval blind to them)."""
    edge = [f"{name} = {v.estimate:g}" for name, v in [(spec.name, r)] + list(
        companions.items()) if v.defined and min(v.estimate, 1.0 - v.estimate) < 1e-12]
    if edge:
        notes.warn(SmallSampleWarning,
                   f"{', '.join(edge)} on the boundary: no draw showed an error that would "
                   f"move {'it' if len(edge) == 1 else 'them'}, so the interval cannot see "
                   f"rare errors the draws missed (e.g. false negatives among low scores).")


def make_estimate(sample: Any, specs: list[MeasureSpec], *, model_names: list[str],
                  level: float, proposal_kind: str, epsilon: float, plug_in: float,
                  pool_size: int, call: dict, plot: dict | None = None,
                  notes: Notes | None = None, data: str = "",
                  interval_method: str | None = None, n_skipped: int = 0) -> ActiveEstimate:
    """The headline measure ``specs[0]`` of ``sample`` wrapped in an ActiveEstimate."""
    notes = notes if notes is not None else Notes()
    spec = specs[0]
    pps = isinstance(sample, SuccessiveSample)
    r = sample.estimate(spec)
    if n_skipped:
        notes.warn(SkippedItemsWarning, skip_note(n_skipped, "pps" if pps else "wr"))
    _flag_notes(notes, spec, r, sample, pps)
    missed = (_missed_sequences(sample, specs, level, model_names)
              if interval_method == "anytime" else [])
    if missed:
        notes.warn(UndefinedEstimateWarning, empty_sequence_note(missed, level))
    for s in specs[1:]:
        c = sample.estimate(s)
        if not c.defined:
            notes.add(f"{s.name} is undefined on this sample ({c.reason}): NaN, "
                      f"defined=False.")
    if not pps and spec.kind != "squared":
        _boundary_note(notes, spec, r, {s.name: sample.estimate(s) for s in specs[1:]})
    # skipped πps items are rows of the sample without a label; with replacement their
    # draws are left out of the sample
    n_labels = sample.n_labels - (n_skipped if pps else 0)
    if pps:
        method = f"AIPW estimator, successive πps without replacement ({proposal_kind})"
        n_draws, df, n_certain = sample.n_draws, None, sample.n_labels - sample.n_draws
    else:
        method = f"importance sampling ({proposal_kind})"
        n_draws, df, n_certain = r.n_draws, max(r.n_draws - 1, 1), 0
        if n_draws - n_labels > 0:
            notes.add(f"{n_draws - n_labels} repeated draws reused cached labels (they "
                      f"count as draws, not as labels).")
    return ActiveEstimate(
        estimate=r.estimate, std_error=r.std_error, confidence_level=level,
        method=method, interval_method=interval_method or ("score" if pps else "logit"),
        term=spec.name, n=n_labels, n_unit="labels", df=df, data=data, call=call,
        diagnostics=dict(n_draws=n_draws, n_certain=n_certain, ess=r.ess),
        notes=notes.as_tuple(), n_labels=n_labels, n_draws=n_draws,
        n_certain=n_certain, ess=r.ess, max_weight_share=r.max_weight_share,
        defined=r.defined, zero_width=r.zero_width, bounded=spec.kind != "squared",
        proposal_kind=proposal_kind, epsilon=epsilon, plug_in=plug_in, pool_size=pool_size,
        sample=sample if pps else frozen_copy(sample), specs=tuple(specs),
        model_names=tuple(model_names), design="pps" if pps else "with_replacement",
        n_skipped=int(n_skipped), **(plot or {}))
