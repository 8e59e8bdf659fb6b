"""Self-normalised importance-weighted estimator, its delta-method variance and intervals.

For draws ``x_1..x_n`` from ``q`` (with replacement; repeats count) with weights
``v_i = p(x_i)/q(x_i)``:

    Ĝ = Σ v_i w_i ℓ_i / Σ v_i w_i                                  (NIPS eq. 4)
    S² = n Σ v_i² w_i² (ℓ_i − Ĝ)² / (Σ v_i w_i)²                     (delta method)
    Ĝ ± t_{n−1, 1−ρ/2} · S / √n                                     (the papers' interval).

**Default interval.** For measures in [0, 1] the default interval applies the same delta
method on the logit scale with ``ESS − 1`` degrees of freedom (Kish ESS); in the benchmark
this raised coverage at 500 labels on skewed pools (letter one-vs-rest 0.92 → 0.94, Abt-Buy
0.88 → 0.92 for F1, 300 repetitions) where the linear interval undercovers.
``result.conf_int(method="linear")`` gives the papers' interval.

**Correction of the NIPS paper.** Its printed ``S²_{n,q} = Σ v² w² (ℓ − Ĝ)² / Σ v`` drops the
factor ``1/E_p[w]²`` of the delta method for a ratio (the gradient of ``x/y`` at
``(G·E[w], E[w])``); for risks (``w = 1``) both agree, for precision, recall and F the printed
form is about ``E_p[w]`` times too narrow. We implement the delta-method form above; tests
check its exact coverage on a small pool by enumeration.

**Degenerate samples.** ``Σ v w = 0`` (no predicted positive drawn for precision, ...) makes
the estimate undefined: NaN, ``defined=False``, a warning and a note. When every
positive-weight draw has the same loss, ``S = 0``: for a 0/1 loss the interval is then the
Wilson interval at the Kish effective sample size ``ESS = (Σ v w)² / Σ (v w)²`` instead of a
zero-width one (flagged ``zero_width=True`` and noted).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .._result import ConfidenceInterval, EvalResult, _get_ax, critical_value
from .._validation import check_confidence_level
from .._warnings import Notes, SmallSampleWarning, UndefinedEstimateWarning
from ._intervals import INTERVAL_METHODS, interval
from ._labeled_sample import LabeledSample, frozen_copy, ratio_estimate
from ._measures import MeasureSpec

#: below this (Kish) effective sample size an interval is flagged as unreliable
SMALL_ESS = 20
#: an F-type estimate resting on fewer labeled items of nonzero weight (predicted or actual
#: positives) is flagged: a rule of thumb, not a calibrated threshold
MIN_EVENTS = 20

__all__ = ["LabeledSample", "ActiveEstimate", "ratio_estimate", "make_estimate"]


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class ActiveEstimate(EvalResult):
    """A measure estimated from an importance-weighted labeled sample.

    Attributes
    ----------
    n_labels : int
        Distinct labeled items (the budget spent); also ``n``.
    n_draws : int
        Draws with replacement (repeats included); the t interval has ``n_draws − 1`` df.
    ess : float
        Kish effective sample size ``(Σ v w)² / Σ (v w)²``.
    max_weight_share : float
        Largest single share ``v w / Σ v w``.
    defined, zero_width : bool
        Flags for an undefined estimate and for a sample with ``S = 0``.
    proposal_kind : str
        ``"optimal"``, ``"passive"`` or ``"optimal+platt"``/``"optimal+isotonic"``.
    epsilon : float
        Defensive share of the proposal (uniform in the with-replacement design; spread by
        each prediction group's influence in the πps design).
    plug_in : float
        The model's intrinsic estimate the proposal was built on.
    interval_method : {"wilson", "logit", "linear"}
        The default interval (see :mod:`evalstats.active._intervals`); any of them via
        ``conf_int(method=...)``. The with-replacement design reports ``"logit"``, the
        without-replacement design ``"wilson"``.
    design : str
        ``"with_replacement"`` (the papers') or ``"pps"`` (without replacement).
    n_eff : float
        Effective sample size used by the Wilson interval on the boundary.
    std_error_low, std_error_high : float
        Without-replacement design: the standard errors of the interval's lower and upper
        side. ``std_error`` carries the model-anticipated variance floor of both prediction
        groups; each side carries only the floors of the groups whose unseen rare labels
        would move the measure that way. Where those labels are rare events (a group's
        anticipated error has skewness above ``RARE_SKEW``) that group has no floor, and
        the interval instead holds ``model_reach`` (see :mod:`evalstats.active._ht`). NaN:
        both sides use ``std_error``.
    std_error_labels : float
        Without-replacement design: the standard error from the labeled items alone (no
        variance floor). An estimate within one s.e. of 0 or 1 whose s.e. is mostly the
        floor is treated as on the boundary (:func:`evalstats.active._intervals.boundary_weight`).
        NaN: unknown (with-replacement design, tables written before it existed).
    model_reach : tuple of (float, float)
        Without-replacement design in the rare-event regime: ``(G̃, σ)`` per pair of
        predictive models of the never-labeled items (one for the predicted positives, one
        for the negatives; the pairs of one model first) — the measure with their labels
        replaced by the models' expectation, and the s.d. of those labels;
        ``conf_int(level)`` holds every ``G̃ ± z σ``. Empty otherwise.
    bounds_held : tuple of (float, float)
        Without-replacement design: ``(1, 0)`` when no labeled item contradicts a value of
        1 (no error among the labels for accuracy, no false positive for precision, no false
        negative for recall), ``(0, 0)`` likewise for 0; ``conf_int`` holds those values
        (every sample under ``G = 1`` looks like this one; see
        :func:`evalstats.active._ht.consistent_bounds`). The intervals of ``measures()``
        follow the same rule for every model.
    design_estimate : float
        In that regime the design-based (calibrated difference) estimate, which the
        interval also holds; ``estimate`` is then the models' prediction ``Σ w G̃`` over
        the pairs of ``model_reach``, with weights ``∝ exp(ℓ₁ + ℓ₀)``, ``ℓ_g`` the
        prequential log-likelihood of the pair's model of prediction group ``g`` on that
        group's labels (``diagnostics["model_weights"]``; see :mod:`evalstats.active._rare`); the
        interval is centred on the design estimate and ``std_error`` is its s.e. Outside
        that regime it equals ``estimate``; NaN for the with-replacement design, a census
        and an undefined estimate.

    Methods
    -------
    measures(confidence_level=None)
        Every measure (and every model) from the same sample, as a tidy table.
    plot(ax=None)
        Proposal over the model's log-odds and the running estimate against labels spent.
    """

    n_labels: int = 0
    n_draws: int = 0
    ess: float = float("nan")
    max_weight_share: float = float("nan")
    defined: bool = True
    zero_width: bool = False
    bounded: bool = True
    proposal_kind: str = "optimal"
    epsilon: float = 0.1
    plug_in: float = float("nan")
    design: str = "with_replacement"
    n_eff: float = float("nan")
    vacuous: bool = False
    std_error_low: float = float("nan")
    std_error_high: float = float("nan")
    std_error_labels: float = float("nan")
    model_reach: tuple = ()
    design_estimate: float = float("nan")
    bounds_held: tuple = ()

    INTERVAL_METHODS: ClassVar[tuple[str, ...]] = INTERVAL_METHODS
    pool_size: int = 0
    sample: LabeledSample | None = None
    specs: tuple = ()
    model_names: tuple = ("model",)
    plot_x: np.ndarray | None = None
    plot_q: np.ndarray | None = None
    plot_pred: np.ndarray | None = None
    extra: dict = field(default_factory=dict)

    def _interval(self, level: float, method: str = "") -> ConfidenceInterval:
        centre = self.design_estimate if np.isfinite(self.design_estimate) else self.estimate
        return interval(centre, self.std_error, bounded=self.bounded, level=level,
                        method=method, n_eff=self.n_eff, ess=self.ess, df=self.df,
                        vacuous=self.vacuous, se_low=self.std_error_low,
                        se_high=self.std_error_high, se_labels=self.std_error_labels,
                        reach=self.model_reach + self.bounds_held)

    def _title(self) -> str:
        return f"Active estimate of {self.term}"

    def _header(self) -> dict[str, Any]:
        hdr = super()._header()
        hdr.update({"Distinct labels": self.n_labels, "Draws (with repeats)": self.n_draws,
                    "Effective sample size": self.ess, "Largest weight share":
                    self.max_weight_share, "Proposal": self.proposal_kind,
                    "Defensive share ε": self.epsilon, "Model's plug-in estimate": self.plug_in,
                    "Pool size": self.pool_size})
        return hdr

    def _tidy_rows(self, level: float, method: str = "") -> list[dict[str, Any]]:
        rows = super()._tidy_rows(level, method)
        rows[0].update(defined=self.defined, zero_width=self.zero_width)
        return rows

    def _glance_extra(self) -> dict[str, Any]:
        return dict(n_labels=self.n_labels, n_draws=self.n_draws, ess=self.ess,
                    max_weight_share=self.max_weight_share, proposal=self.proposal_kind,
                    epsilon=self.epsilon, defined=self.defined, zero_width=self.zero_width,
                    std_error_low=self.std_error_low, std_error_high=self.std_error_high,
                    std_error_labels=self.std_error_labels)

    def _extra_tables(self) -> list[tuple[str, pd.DataFrame]]:
        table = self.measures()
        if len(table) <= 1:
            return []
        return [("Every measure from the same sample", table)]

    def measures(self, confidence_level: float | None = None) -> pd.DataFrame:
        """Every measure, for every model, from this one labeled sample (tidy columns).

        Extra columns: ``model``, ``measure``, ``defined``, ``zero_width``, ``ess``.
        """
        level = (self.confidence_level if confidence_level is None
                 else check_confidence_level(confidence_level))
        rows = []
        for m, model in enumerate(self.model_names):
            for spec in self.specs:
                r = self.sample.estimate(spec, m)
                lo, hi = interval_of(r, bounded=spec.kind != "squared", level=level,
                                     method=self.interval_method, df=self.df)
                term = spec.name if m == 0 else f"{model}:{spec.name}"
                rows.append(dict(term=term, estimate=r["estimate"], std_error=r["std_error"],
                                 conf_low=lo, conf_high=hi, confidence_level=level,
                                 method=self.method, model=model, measure=spec.name,
                                 defined=r["defined"], zero_width=r["zero_width"],
                                 ess=r["ess"]))
        return pd.DataFrame(rows)

    def running(self, n_points: int = 60) -> pd.DataFrame:
        """The headline estimate and its interval as labels accrue.

        With-replacement design: after each prefix of the draw sequence (linear t interval);
        without-replacement design: after each batch (the result's interval method).
        """
        if not isinstance(self.sample, LabeledSample):
            rows = []
            for k in range(1, len(self.sample.batches) + 1):
                r = self.sample.estimate(self.specs[0], 0, n_batches=k)
                lo, hi = interval_of(r, bounded=self.bounded, level=self.confidence_level,
                                     method=self.interval_method)
                rows.append(dict(n_draws=int((self.sample.item_batch < k).sum()),
                                 n_labels=int((self.sample.item_batch < k).sum()),
                                 estimate=r["estimate"], conf_low=lo, conf_high=hi))
            return pd.DataFrame(rows)
        loss, w = self.sample.loss_weight(self.specs[0])
        vw = self.sample.draw_weight * w
        s1, s2 = np.cumsum(vw), np.cumsum(vw * loss)
        a, b, c = np.cumsum(vw ** 2 * loss ** 2), np.cumsum(vw ** 2 * loss), np.cumsum(vw ** 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(s1 > 0, s2 / s1, np.nan)
            se = np.sqrt(np.maximum(a - 2 * g * b + g ** 2 * c, 0.0)) / s1
        n = np.arange(1, len(vw) + 1)
        _, first = np.unique(self.sample.draw_item, return_index=True)
        labels = np.cumsum(np.isin(np.arange(len(vw)), first))
        idx = np.unique(np.linspace(1, len(vw) - 1, min(n_points, len(vw))).astype(int))
        q = np.array([critical_value(self.confidence_level, max(k - 1, 1)) for k in n[idx]])
        lo, hi = g[idx] - q * se[idx], g[idx] + q * se[idx]
        if self.bounded:
            lo, hi = np.clip(lo, 0, 1), np.clip(hi, 0, 1)
        return pd.DataFrame(dict(n_draws=n[idx], n_labels=labels[idx], estimate=g[idx],
                                 conf_low=lo, conf_high=hi))

    def plot(self, ax=None, **kwargs):
        """The running estimate with its interval against distinct labels spent, and the
        proposal ``N·q`` over the model's log-odds (NIPS Fig. 2) in an inset placed *outside*
        the data area (right of the axes), so it never covers the band.

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
        label = f"{100 * self.confidence_level:g}% interval"
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

    def _plot_measures(self, ax, **kwargs):
        """Each measure's estimate with its interval (a forest plot), undefined ones marked."""
        tab = self.measures()
        ypos = np.arange(len(tab))[::-1]
        est = tab["estimate"].to_numpy(float)
        lo, hi = tab["conf_low"].to_numpy(float), tab["conf_high"].to_numpy(float)
        ok = np.isfinite(est)
        ax.errorbar(est[ok], ypos[ok], xerr=[est[ok] - lo[ok], hi[ok] - est[ok]], fmt="o",
                    capsize=4, label=f"estimate, {100 * self.confidence_level:g}% interval",
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
            ax.tick_params(labelsize=6)
            ax.set_title("N·q over log-odds", fontsize=7)
        else:
            ax.set_xlabel("model log-odds (red: predicted positive)")
            ax.set_ylabel("N · q(x)  (1 = passive)")
            ax.set_title(f"Proposal ({self.proposal_kind})")
        return ax


#: sides whose standard errors differ by more than this factor are noted in the result
SIDED_NOTE_RATIO = 1.25


def interval_of(r: dict[str, Any], *, bounded: bool, level: float, method: str,
                df: float | None = None, held: bool = True) -> ConfidenceInterval:
    """The interval of an estimate dict ``r`` (:meth:`DesignSample.estimate` or
    :meth:`LabeledSample.estimate`): centred on the design estimate, holding the models'
    reach (rare-event regime) and, with ``held``, the boundaries no labeled item
    contradicts."""
    reach = tuple(r.get("reach", ())) + (tuple(r.get("held", ())) if held else ())
    return interval(r.get("design_estimate", r["estimate"]), r["std_error"],
                    bounded=bounded, level=level, method=method, n_eff=r["n_eff"],
                    ess=r.get("ess", float("nan")), df=df, vacuous=r.get("vacuous", False),
                    se_low=r.get("se_low"), se_high=r.get("se_high"),
                    se_labels=r.get("se_labels"), reach=reach)


def make_estimate(sample: Any, specs: list[MeasureSpec], *, model_names: list[str],
                  level: float, proposal_kind: str, epsilon: float, plug_in: float,
                  pool_size: int, call: dict, plot: dict | None = None,
                  notes: Notes | None = None, data: str = "") -> ActiveEstimate:
    """Compute the headline measure ``specs[0]`` and wrap everything in an ActiveEstimate.

    ``sample`` is a :class:`LabeledSample` (with replacement) or a
    :class:`~evalstats.active._ht.DesignSample` (without replacement).
    """
    notes = notes if notes is not None else Notes()
    spec = specs[0]
    r = sample.estimate(spec)
    n_labels = sample.n_labels
    bounded = spec.kind != "squared"
    pps = not isinstance(sample, LabeledSample)
    # known exactly: every item that moves the measure labeled with certainty
    exact = r["zero_width"] and pps and not np.isfinite(r.get("n_eff", 0.0))
    if not r["defined"]:
        notes.warn(UndefinedEstimateWarning,
                   f"{spec.name} is undefined on this sample: {r['reason']}. Estimate set "
                   f"to NaN (flagged defined=False).")
    elif r.get("census"):
        notes.add(f"Every item of the pool is labeled (a census): {spec.name} is computed "
                  f"exactly, so its interval has zero width.")
    elif exact:
        notes.add(f"Every item that moves {spec.name} was labeled with certainty "
                  f"(inclusion probability 1): it is known exactly, so its interval has zero "
                  f"width.")
    elif r["zero_width"]:
        what = ("the Wilson interval at the effective sample size is reported instead"
                if bounded else "the interval has zero width")
        notes.warn(SmallSampleWarning,
                   f"The plug-in variance of {spec.name} is zero (every residual or loss "
                   f"equal); {what}.")
    if r["defined"] and r["ess"] < SMALL_ESS and not (pps and r["std_error"] == 0):
        notes.warn(SmallSampleWarning,
                   f"Effective sample size {r['ess']:.1f} < {SMALL_ESS}: the interval is "
                   f"unreliable (few labeled items carry the measure; its coverage can fall "
                   f"well below nominal).")
    if r["defined"] and bounded and np.isfinite(r["std_error"]) and r["std_error"] > 0.5:
        notes.warn(SmallSampleWarning,
                   f"The linearised std. error of {spec.name} ({r['std_error']:.3g}) exceeds "
                   f"0.5, the largest any measure in [0, 1] can have: the delta method fails "
                   f"here (its denominator is barely estimated). Read the interval, not the "
                   f"std. error.")
    if r["defined"] and spec.kind == "f" and not exact:
        _, w = spec.loss_weight(sample.item_preds[:, 0], sample.item_labels)
        k = int(np.count_nonzero(np.nan_to_num(w) > 0))
        if k < MIN_EVENTS:
            notes.warn(SmallSampleWarning,
                       f"Only {k} labeled item(s) carry {spec.name} (predicted or actual "
                       f"positives, as the measure weighs them); with fewer than {MIN_EVENTS} "
                       f"its interval can cover far below nominal. Label more items.")
    companions = {s.name: sample.estimate(s) for s in specs[1:]}
    if not pps and bounded:
        # every measure on the boundary, the companions too (recall 1.000 [0.982, 1] for a
        # truth of 0.589 was not named)
        edge = [f"{name} = {v['estimate']:g}" for name, v in
                [(spec.name, r)] + list(companions.items())
                if v["defined"] and min(v["estimate"], 1.0 - v["estimate"]) < 1e-12]
        if edge:
            notes.warn(SmallSampleWarning,
                       f"{', '.join(edge)} on the boundary: no draw showed an error that "
                       f"would move {'it' if len(edge) == 1 else 'them'}. The "
                       f"with-replacement design has no floor for rare errors it has not "
                       f"drawn (e.g. false negatives among low scores), so its interval can "
                       f"exclude the truth; design='pps' (the default) accounts for them.")
    undefined = [k for k, v in companions.items() if "never be drawn" in v["reason"]]
    for k, v in companions.items():
        if not v["defined"] and k not in undefined:
            notes.add(f"{k} is undefined on this sample ({v['reason']}): NaN, defined=False.")
    if undefined:
        notes.warn(UndefinedEstimateWarning,
                   f"Not identified by this design (reported as NaN, defined=False): "
                   f"{', '.join(undefined)}: some items can never be selected and their "
                   f"labels enter these measures.")
    lo_se, hi_se = r.get("se_low", float("nan")), r.get("se_high", float("nan"))
    if r["defined"] and r.get("held"):
        inner = interval_of(r, bounded=bounded, level=level, method="wilson", held=False)
        moved = [f"{spec.name} = {v:g}" for v, _ in r["held"] if not inner.low <= v <= inner.high]
        if moved:
            notes.add(f"No labeled item contradicts {' or '.join(moved)} (e.g. no error among "
                      f"the labels), so the interval holds it: every sample under that value "
                      f"looks like this one. The other measures' and models' intervals in "
                      f"the table follow the same rule.")
    if r["defined"] and r.get("reach"):
        where = ", ".join(f"{n1} / {n0}: {g:.3g} ± {s:.2g} (weight {w:.2f})"
                          for (g, s), w, (n1, n0) in zip(r["reach"], r["model_weights"],
                                                         r["reach_names"], strict=True))
        notes.add(f"Labels the sample has not seen are rare events here (fewer than one of them "
                  f"is expected among the labels), so the estimate is where predictive models "
                  f"of the never-labeled items put {spec.name}, a model of the predicted "
                  f"positives / one of the negatives (around the scores or around their "
                  f"recalibration): {where} (± one s.d. of their labels; weighted by how well "
                  f"each model predicted its group's labels of each next batch). The interval "
                  f"holds these and the design-based estimate {r['design_estimate']:.3g}; the "
                  f"std. error is the design's. Its 95 % is over the process that produced the "
                  f"labels: the positives among items the design rarely draws are one fixed "
                  f"number on this pool that the labels barely reveal, so on it the interval "
                  f"covers in nearly every sample unless that number is unusual, and then "
                  f"misses in most.")
    elif (r["defined"] and np.isfinite(lo_se) and np.isfinite(hi_se)
            and max(lo_se, hi_se) > SIDED_NOTE_RATIO * min(lo_se, hi_se)):
        notes.add(f"The interval is asymmetric by design: its lower side uses s.e. "
                  f"{lo_se:.3g} and its upper side {hi_se:.3g} (the reported std. error "
                  f"{r['std_error']:.3g} carries the variance floor of both prediction groups; "
                  f"each side carries the floor of the groups whose unseen rare labels would "
                  f"move {spec.name} that way).")
    if pps:
        n_draws, df = n_labels, None
        label = {"calibrated": "calibrated (GREG) difference",
                 "horvitz_thompson": "Horvitz–Thompson"}.get(sample.estimator, sample.estimator)
        method = f"{label} estimator, πps without replacement ({proposal_kind})"
    else:
        n_draws, df = r["n"], max(r["n"] - 1, 1)
        method = f"importance sampling ({proposal_kind})"
        if n_draws - n_labels > 0:
            notes.add(f"{n_draws - n_labels} repeated draws reused cached labels (they count "
                      f"as draws, not as labels).")
    return ActiveEstimate(
        estimate=r["estimate"], std_error=r["std_error"], confidence_level=level,
        method=method, interval_method="wilson" if pps else "logit", term=spec.name,
        n=n_labels, n_unit="labels", df=df, data=data, call=call,
        diagnostics=dict(sum_vw=r.get("sum_vw", float("nan")),
                         model_weights=tuple(r.get("model_weights", ()))),
        notes=notes.as_tuple(),
        n_labels=n_labels, n_draws=n_draws, ess=r["ess"],
        max_weight_share=r["max_weight_share"], defined=r["defined"],
        zero_width=r["zero_width"], bounded=bounded, proposal_kind=proposal_kind,
        epsilon=epsilon, plug_in=plug_in, pool_size=pool_size, sample=frozen_copy(sample),
        specs=tuple(specs), model_names=tuple(model_names),
        design="pps" if pps else "with_replacement", n_eff=r["n_eff"],
        vacuous=bool(r.get("vacuous", False)),
        std_error_low=float(r.get("se_low", float("nan"))),
        std_error_high=float(r.get("se_high", float("nan"))),
        std_error_labels=float(r.get("se_labels", float("nan"))),
        model_reach=tuple(tuple(float(v) for v in pair) for pair in r.get("reach", ())),
        bounds_held=tuple(tuple(float(v) for v in pair) for pair in r.get("held", ())),
        design_estimate=float(r.get("design_estimate", float("nan"))),
        **(plot or {}))
