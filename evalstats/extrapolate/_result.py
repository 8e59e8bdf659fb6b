"""The result of :func:`~evalstats.extrapolate.extrapolate_accuracy`."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._result import ConfidenceInterval, EvalResult, _get_ax, critical_value
from .._validation import check_confidence_level, fail
from .._warnings import ExtrapolationWarning
from ._curves import predict_curve


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class AccuracyExtrapolation(EvalResult):
    r"""Predicted expected accuracy on ``k`` random classes, fitted on ``k1`` classes.

    ``estimate`` is the prediction at the first target ``k_target[0]``; ``std_error`` its
    total standard error :math:`\sqrt{\mathrm{se}_{sub}^2 + \mathrm{sd}_{model}^2}` (class
    subsampling plus the spread over the weighted candidate models). Use :meth:`predict`
    for any ``k``.

    Attributes
    ----------
    k1 : int
        Number of observed classes.
    k_target : tuple of int
        Target numbers of classes (rows of ``tidy()``); they do not change the fit.
    ata : ndarray
        Unbiased average accuracy ATA_k for ``k = 2..k1``.
    chosen : str
        The candidate (bandwidth, degree/stretch) with the largest weight.
    cv_table : DataFrame
        Back-test per candidate: RMSE and bias of ATA_{k1} predicted from random halves of
        the classes, and its weight.
    backtest : dict
        ``observed`` ATA_{k1}, ``predicted`` (mean over subset fits of the weighted model),
        ``error``, ``rmse``, ``ratios`` (k1 / subset sizes of the back-test).
    fit_seconds : float
        Wall time of the fit.
    selection_ratios : tuple of float
        The extrapolation ratio(s) of the back-test that weighted the candidates (2: halves
        of the classes predict all of them); also in ``glance()`` (``selection_ratio``),
        the repr and the summary.
    """

    k1: int = 0
    k_target: tuple = ()
    ata: np.ndarray = field(default_factory=lambda: np.empty(0))
    chosen: str = ""
    cv_table: Any = None
    backtest: Any = field(default_factory=dict)
    fit_seconds: float = float("nan")
    _curve: Any = None
    _half_curves: tuple = ()
    _half_size: int = 0
    _model_curves: tuple = ()
    _model_weights: tuple = ()
    _tail_curves: tuple = ()

    # -- prediction -------------------------------------------------------------------------
    def predict(self, k: Any, confidence_level: float | None = None) -> pd.DataFrame:
        r"""Predicted accuracy at ``k`` classes (vectorised; stable up to ``k = 10**6``).

        Returns a DataFrame with columns ``k, accuracy, conf_low, conf_high, std_error,
        subsample_se, model_sd``: the band is :math:`\hat a \pm z\sqrt{\mathrm{se}^2 +
        \mathrm{sd}^2}` clipped to [0, 1], with ``subsample_se`` the spread of the
        half-class fits at the same extrapolation ratio (sampling of classes) and
        ``model_sd`` the weighted spread of the candidate models' predictions, or, if
        larger, the spread between the best candidate of each tail assumption. Warns
        (ExtrapolationWarning) when ``k / k1 > 10``.
        """
        level = self.confidence_level if confidence_level is None else check_confidence_level(
            confidence_level)
        ks = np.atleast_1d(np.asarray(k))
        if ks.dtype.kind not in "iuf" or ks.ndim != 1 or ks.size == 0 \
                or not np.all(np.isfinite(ks)) or ks.min() < 2 or np.any(ks != np.round(ks)):
            raise fail("k", "whole numbers of classes >= 2 (an int or a non-empty 1-d array)",
                       value=k)
        if ks.max() > 10 * self.k1:
            warnings.warn(f"Predicting k = {int(ks.max())} from k1 = {self.k1} classes "
                          f"(ratio {ks.max() / self.k1:.3g} > 10): beyond the range the "
                          "method was validated for.", ExtrapolationWarning, stacklevel=2)
        acc = predict_curve(self._curve, ks)
        se = self._half_sd(ks)
        msd = self._model_sd(ks, acc)
        tot = np.sqrt(np.nan_to_num(se) ** 2 + msd**2)
        tot = np.where(np.isnan(se) & (msd == 0), np.nan, tot)
        q = critical_value(level)
        return pd.DataFrame({"k": ks, "accuracy": acc,
                             "conf_low": np.clip(acc - q * tot, 0, 1),
                             "conf_high": np.clip(acc + q * tot, 0, 1),
                             "std_error": tot, "subsample_se": se, "model_sd": msd})

    def _half_sd(self, ks) -> np.ndarray:
        """Spread of the half-class fits at the same extrapolation ratio: a fit on ``m``
        classes evaluated at ``k m / k1`` (balanced half-sampling: for a mean over classes
        the spread of half-sample means about the full one equals the full mean's standard
        error; a half evaluated at the same ``k`` would extrapolate twice as far)."""
        if len(self._half_curves) < 2:
            return np.full(len(ks), np.nan)
        at = np.asarray(ks, float)
        if self._half_size:
            at = np.maximum(at * self._half_size / self.k1, 2.0)
        preds = np.array([predict_curve(c, at) for c in self._half_curves])
        return preds.std(axis=0, ddof=1)

    def _model_sd(self, ks, acc) -> np.ndarray:
        """The larger of the back-test-weighted spread of the candidates and the unweighted
        spread of the best candidate of each tail assumption (the back-test, at ratios 2
        and 4, cannot tell the tails apart at larger ratios)."""
        out = np.zeros(len(ks))
        if len(self._model_curves) >= 2:
            preds = np.array([predict_curve(c, ks) for c in self._model_curves])
            w = np.asarray(self._model_weights)[:, None]
            out = np.sqrt((w * (preds - acc[None, :]) ** 2).sum(axis=0))
        if len(self._tail_curves) >= 2:
            tails = np.array([predict_curve(c, ks) for c in self._tail_curves])
            out = np.maximum(out, tails.std(axis=0))
        return out

    def _quiet_predict(self, ks: Any, level: float | None = None) -> pd.DataFrame:
        """:meth:`predict` without its far-extrapolation warning: the result already carries
        it in its notes and mark (repr, conf_int and glance re-emitted it on every call)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExtrapolationWarning)
            return self.predict(ks, level)

    def _interval(self, level: float, method: str = "") -> ConfidenceInterval:
        row = self._quiet_predict(self.k_target[0], level).iloc[0]
        return ConfidenceInterval(float(row.conf_low), float(row.conf_high))

    def _tidy_rows(self, level: float, method: str = "") -> list[dict[str, Any]]:
        pr = self._quiet_predict(list(self.k_target), level)
        return [dict(term=f"accuracy(k={int(r.k)})", estimate=r.accuracy,
                     std_error=r.std_error, conf_low=r.conf_low, conf_high=r.conf_high,
                     confidence_level=level, method=self.method,
                     subsample_se=r.subsample_se, model_sd=r.model_sd)
                for r in pr.itertuples()]

    # -- report -----------------------------------------------------------------------------
    def _title(self) -> str:
        return "Extrapolated multi-class accuracy"

    def _header(self) -> dict[str, Any]:
        hdr = super()._header()
        hdr["Observed classes k1"] = self.k1
        hdr[f"Observed accuracy (k={self.k1})"] = f"{self.ata[-1]:.4f}"
        hdr["Selected model"] = self.chosen
        hdr["Model selection"] = (f"{self._selection_text()}; one fitted model predicts "
                                  "every k, whatever k_target")
        bt = self.backtest
        if bt:
            sub = " and ".join(f"k1/{x:.3g}" for x in bt["ratios"])
            hdr[f"Back-test ({sub} -> k1)"] = (
                f"predicted {bt['predicted']:.4f} vs observed {bt['observed']:.4f} "
                f"(error {bt['error']:+.4f}, RMSE {bt['rmse']:.4f})")
        return hdr

    @property
    def selection_ratios(self) -> tuple:
        """Extrapolation ratios ``k1 / m`` of the back-test that weighted the candidate
        models (fits on ``m`` random classes predicting the observed ATA_{k1}); empty
        without a back-test. The same for every ``k_target``."""
        return tuple(self.backtest.get("ratios", ()))

    def _selection_text(self) -> str:
        r = self.selection_ratios
        return ("back-tested at ratio " + " and ".join(f"{x:g}" for x in r)) if r else \
            "no back-test"

    def _repr_body(self) -> str:
        return f"{super()._repr_body()}, k1={self.k1}, {self._selection_text()}"

    def _glance_extra(self) -> dict[str, Any]:
        r = self.selection_ratios
        return dict(k1=self.k1, chosen=self.chosen,
                    selection_ratio=max(r) if r else np.nan,
                    backtest_error=self.backtest.get("error", np.nan),
                    fit_seconds=self.fit_seconds)

    def _extra_tables(self):
        out = []
        if self.cv_table is not None and len(self.cv_table) > 1:
            out.append(("Back-test per candidate (fit on a subset of classes, predict k1)",
                        self.cv_table))
        ks = np.unique(np.r_[np.geomspace(2, self.k1, 5).round(), self.k_target]).astype(int)
        pr = self._quiet_predict(ks)
        obs = np.full(len(ks), np.nan)
        inside = ks <= self.k1
        obs[inside] = self.ata[ks[inside] - 2]
        pr.insert(1, "observed", obs)
        out.append(("Accuracy curve (observed: the unbiased k-class accuracy of the data)", pr))
        return out

    def plot(self, ax=None, **kwargs):
        """Observed ATA_k and the extrapolated curve with its band, on a log-k axis."""
        ax = _get_ax(ax)
        kmax = max(max(self.k_target), self.k1) * 1.5
        ks = np.unique(np.geomspace(2, kmax, 120).round().astype(int))
        pr = self._quiet_predict(ks)
        ax.fill_between(ks, pr.conf_low, pr.conf_high, color="C0", alpha=0.25,
                        label=f"{100 * self.confidence_level:g}% band (classes + model)")
        ax.plot(ks, pr.accuracy, color="C0", label=f"{self.method} fit", **kwargs)
        ax.plot(np.arange(2, self.k1 + 1), self.ata, "k.", ms=3,
                label="observed (unbiased k-class accuracy)")
        ax.axvline(self.k1, color="grey", ls=":", lw=1)
        ax.set_xscale("log")
        ax.set_xlabel("number of classes k")
        ax.set_ylabel("expected accuracy")
        ax.set_ylim(0, 1)
        ax.set_title(self._title())
        ax.legend(fontsize="small")
        return ax
