r"""Extrapolating multi-class accuracy to more classes (Zheng, Achanta & Benjamini).

From the scores of a *marginal* classifier on ``k1`` randomly drawn classes, estimate the
expected accuracy on a random set of ``k2 >> k1`` classes of the same population.

The core identity (JMLR 2018, Thm 1): with :math:`U^*` the favourability of the true class
(the chance that a random wrong class scores lower) and :math:`D(u) = \Pr[U^*\le u]`,

.. math:: \mathrm{AGA}_k = E[U^{*\,k-1}] = 1 - (k-1)\int_0^1 D(u)\,u^{k-2}\,du,

so chance (``D(u) = u``) gives ``1/k``. (The Nov-2016 draft's ``k u^{k-1}`` counts
*incorrect* classes and is off by one; we use the JMLR form.) For ``k <= k1`` the average
accuracy has an unbiased estimator (:func:`average_accuracy`); beyond ``k1`` a model of
:math:`D` is needed, fitted to that unbiased curve.

Public functions: :func:`average_accuracy`, :func:`average_risk`, :func:`true_class_rank`,
:func:`extrapolate_accuracy` (returns :class:`AccuracyExtrapolation`).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._parallel import map_replicates
from .._result import ConfidenceInterval, EvalResult, _get_ax
from .._validation import check_confidence_level, check_int, check_option, check_rng, fail
from .._warnings import (
    ConvergenceError,
    ConvergenceWarning,
    ExtrapolationWarning,
    Notes,
    SmallSampleWarning,
)
from ._methods import METHODS, AveragedCurve, Data, Method, SubsampleTask, warn_status
from ._ranks import average_accuracy, average_risk, true_class_rank, validate_scores

__all__ = ["average_accuracy", "average_risk", "true_class_rank", "extrapolate_accuracy",
           "AccuracyExtrapolation", "METHOD_NAMES"]

METHOD_NAMES = tuple(METHODS)
MARGINAL_NOTE = ("Assumes a marginal classifier (each class's score learned from that class "
                 "alone, e.g. 1-NN or nearest centroid on a fixed embedding) and classes drawn "
                 "at random; jointly trained classifiers (softmax nets, logistic regression, "
                 "SVMs) change when classes are added and violate this.")


def _predict_curve(curve, ks: np.ndarray) -> np.ndarray:
    ks = np.asarray(ks, float)
    out = np.ones(len(ks))
    big = ks >= 2
    if big.any():
        out[big] = curve.accuracy(ks[big])
    return out


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class AccuracyExtrapolation(EvalResult):
    """Predicted expected accuracy on ``k`` random classes, fitted on ``k1`` classes.

    ``estimate`` is the prediction at the first target ``k_target[0]``; ``std_error`` its
    class-subsampling standard error. Use :meth:`predict` for any ``k``.

    Attributes
    ----------
    k1 : int
        Number of observed classes.
    k_target : tuple of int
        Target numbers of classes (rows of ``tidy()``).
    ata : ndarray
        Unbiased average accuracy ATA_k for ``k = 2..k1``.
    chosen : str
        The selected candidate (bandwidth, degree).
    cv_table : DataFrame
        Subsampling cross-validation: RMSE of the predicted ATA_{k1} from half the classes,
        per candidate.
    backtest : dict
        ``observed`` ATA_{k1}, ``predicted`` (mean over half-class fits), ``error``.
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
    _model_curves: tuple = ()

    # -- prediction -------------------------------------------------------------------------
    def predict(self, k: Any, confidence_level: float | None = None) -> pd.DataFrame:
        """Predicted accuracy at ``k`` classes (vectorised; stable up to ``k = 10**6``).

        Returns a DataFrame with columns ``k, accuracy, conf_low, conf_high`` (class
        subsampling band, clipped to [0, 1]) and ``std_error, model_low, model_high`` (the
        range over the best candidate models). Warns (ExtrapolationWarning) when
        ``k / k1 > 10``.
        """
        level = self.confidence_level if confidence_level is None else check_confidence_level(
            confidence_level)
        ks = np.atleast_1d(np.asarray(k))
        if ks.dtype.kind not in "iuf" or ks.ndim != 1 or not np.all(np.isfinite(ks)) \
                or ks.min() < 2:
            raise fail("k", "numbers of classes >= 2 (an int or a 1-d array)", value=k)
        if ks.max() > 10 * self.k1:
            warnings.warn(f"Predicting k = {int(ks.max())} from k1 = {self.k1} classes "
                          f"(ratio {ks.max() / self.k1:.3g} > 10): beyond the range the "
                          "method was validated for.", ExtrapolationWarning, stacklevel=2)
        acc = _predict_curve(self._curve, ks)
        se = self._half_sd(ks)
        q = stats.norm.ppf(0.5 + level / 2)
        if self._model_curves:
            mods = np.array([_predict_curve(c, ks) for c in self._model_curves] + [acc])
        else:
            mods = acc[None, :]
        return pd.DataFrame({"k": ks, "accuracy": acc,
                             "conf_low": np.clip(acc - q * se, 0, 1),
                             "conf_high": np.clip(acc + q * se, 0, 1),
                             "std_error": se, "model_low": mods.min(0),
                             "model_high": mods.max(0)})

    def _half_sd(self, ks) -> np.ndarray:
        if len(self._half_curves) < 2:
            return np.full(len(ks), np.nan)
        preds = np.array([_predict_curve(c, ks) for c in self._half_curves])
        return preds.std(axis=0, ddof=1)

    def _interval(self, level: float, method: str = "") -> ConfidenceInterval:
        row = self.predict(self.k_target[0], level).iloc[0]
        return ConfidenceInterval(float(row.conf_low), float(row.conf_high))

    def _tidy_rows(self, level: float, method: str = "") -> list[dict[str, Any]]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExtrapolationWarning)
            pr = self.predict(list(self.k_target), level)
        return [dict(term=f"accuracy(k={int(r.k)})", estimate=r.accuracy,
                     std_error=r.std_error, conf_low=r.conf_low, conf_high=r.conf_high,
                     confidence_level=level, method=self.method, model_low=r.model_low,
                     model_high=r.model_high) for r in pr.itertuples()]

    # -- report -----------------------------------------------------------------------------
    def _title(self) -> str:
        return "Extrapolated multi-class accuracy"

    def _header(self) -> dict[str, Any]:
        hdr = super()._header()
        hdr["Observed classes k1"] = self.k1
        hdr[f"Observed accuracy (k={self.k1})"] = f"{self.ata[-1]:.4f}"
        hdr["Selected model"] = self.chosen
        bt = self.backtest
        if bt:
            hdr["Back-test (k1/2 -> k1)"] = (f"predicted {bt['predicted']:.4f} vs observed "
                                             f"{bt['observed']:.4f} (error {bt['error']:+.4f})")
        return hdr

    def _glance_extra(self) -> dict[str, Any]:
        return dict(k1=self.k1, chosen=self.chosen,
                    backtest_error=self.backtest.get("error", np.nan),
                    fit_seconds=self.fit_seconds)

    def _extra_tables(self):
        out = []
        if self.cv_table is not None and len(self.cv_table) > 1:
            out.append(("Subsampling cross-validation (fit on k1/2 classes, predict k1)",
                        self.cv_table))
        ks = np.unique(np.r_[np.geomspace(2, self.k1, 5).round(), self.k_target]).astype(int)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExtrapolationWarning)
            pr = self.predict(ks)
        obs = np.full(len(ks), np.nan)
        inside = ks <= self.k1
        obs[inside] = self.ata[ks[inside] - 2]
        pr.insert(1, "observed", obs)
        out.append(("Accuracy curve (observed = unbiased ATA_k)", pr))
        return out

    def plot(self, ax=None, **kwargs):
        """Observed ATA_k and the extrapolated curve with its band, on a log-k axis."""
        ax = _get_ax(ax)
        kmax = max(max(self.k_target), self.k1) * 1.5
        ks = np.unique(np.geomspace(2, kmax, 120).round().astype(int))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExtrapolationWarning)
            pr = self.predict(ks)
        ax.fill_between(ks, pr.model_low, pr.model_high, color="C1", alpha=0.15,
                        label="model spread")
        ax.fill_between(ks, pr.conf_low, pr.conf_high, color="C0", alpha=0.25,
                        label=f"{100 * self.confidence_level:g}% subsampling band")
        ax.plot(ks, pr.accuracy, color="C0", label=f"{self.method} fit", **kwargs)
        ax.plot(np.arange(2, self.k1 + 1), self.ata, "k.", ms=3, label="unbiased ATA_k")
        ax.axvline(self.k1, color="grey", ls=":", lw=1)
        ax.set_xscale("log")
        ax.set_xlabel("number of classes k")
        ax.set_ylabel("expected accuracy")
        ax.set_ylim(0, 1)
        ax.set_title(self._title())
        ax.legend(fontsize="small")
        return ax


SOFTNESS = 5.0


def _soft_weights(rmse: np.ndarray) -> np.ndarray:
    r"""Soft selection: :math:`w_c \propto \exp(-5\,(\mathrm{RMSE}_c/\mathrm{RMSE}_{min}-1))`,
    weights below 1e-3 dropped. Unlike an arg-min, the average moves smoothly when another
    seed reorders nearly tied candidates (equal weights when there is no CV)."""
    if not np.isfinite(rmse).any():
        return np.full(len(rmse), 1.0 / len(rmse))
    r = np.where(np.isfinite(rmse), rmse, np.inf)
    w = np.exp(-SOFTNESS * (r / max(r.min(), 1e-12) - 1.0))
    w = np.where(w / w.sum() < 1e-3, 0.0, w)
    return w / w.sum()


def _extrapolate_iv(scores, y, method, k_target, n_subsamples, ties, confidence_level):
    check_option(method, "method", METHOD_NAMES)
    check_option(ties, "ties", ("random", "pessimistic", "optimistic"))
    s, labels = validate_scores(scores, y, allow_neg_inf=method != "kde")
    k1 = s.shape[1]
    if k1 < 4:
        raise fail("scores", "a matrix with at least 4 class columns (half of them are used "
                   "in the back-test)", got=f"shape {s.shape}")
    if k_target is None:
        targets = (2 * k1,)
    else:
        arr = np.atleast_1d(np.asarray(k_target))
        if arr.dtype.kind not in "iu" or arr.ndim != 1 or arr.min() < 2:
            raise fail("k_target", "an integer >= 2 or a list of them", value=k_target)
        targets = tuple(int(v) for v in arr)
    n_sub = check_int(n_subsamples, "n_subsamples", low=0)
    check_confidence_level(confidence_level)
    return s, labels, targets, n_sub


def _make_method(method, k1, bandwidth, degree, match_k1, monotone_density) -> Method:
    cls = METHODS[method]
    if method == "regression":
        cands = None if bandwidth is None else [float(h) for h in np.atleast_1d(bandwidth)]
        if cands is not None and min(cands) <= 0:
            raise fail("bandwidth", "positive", value=bandwidth)
        return cls(k1, cands)
    if method == "polynomial":
        cands = None
        if degree is not None:
            cands = [tuple(d) if np.ndim(d) else (int(d), 2.0)
                     for d in (degree if isinstance(degree, list) else [degree])]
            if any(int(c[0]) < 1 or float(c[1]) <= 0 for c in cands):
                raise fail("degree", "an int >= 1, a (degree, scale) pair or a list of them",
                           value=degree)
        return cls(k1, cands, match_k1=match_k1)
    if method == "pseudolikelihood":
        return cls(k1, match_k1=match_k1, monotone_density=monotone_density)
    return cls(k1)


def extrapolate_accuracy(scores: Any, y: Any, method: str = "regression", *,
                         k_target: int | list[int] | None = None,
                         rng: None | int | np.random.Generator = None,
                         ties: str = "random", bandwidth: float | list[float] | None = None,
                         degree: Any = None, match_k1: bool = True,
                         monotone_density: bool = False, n_subsamples: int = 40,
                         n_models: int = 3, confidence_level: float = 0.95,
                         n_jobs: int | None = None,
                         progress: bool | None = False) -> AccuracyExtrapolation:
    r"""Predict the expected accuracy on ``k2 > k1`` classes from a ``k1``-class score matrix.

    Steps: (1) the unbiased curve ATA_k, ``k = 2..k1`` (:func:`average_accuracy`);
    (2) ``n_subsamples`` random halves of the classes (without replacement): on each, every
    candidate model is fitted to the half's ATA curve and predicts ATA_{k1} of the full set
    -- the candidate with the smallest RMSE is chosen (the "subsampling principle" of JMLR
    sec. 3.4), and its mean error is the back-test; (3) the chosen model is fitted to all
    classes; (4) the spread of its half-class fits gives the standard error (balanced
    half-sampling: for class-level averages the variance of a half-sample estimate about the
    full one equals the variance of the full estimate; for extrapolation it is conservative
    because a half extrapolates twice as far); the range over the ``n_models`` best
    candidates is reported as model uncertainty.

    Parameters
    ----------
    scores : array_like, shape (n, k1)
        Score of each test point for each class, higher = more likely (log-probabilities
        with ``-inf`` allowed, except for ``"kde"``). Only ranks matter, except for ``"kde"``.
    y : array_like of int, shape (n,)
        Column index of each test point's true class.
    method : {"regression", "polynomial", "pseudolikelihood", "hd", "kde", "naive"}
        ``"regression"`` (default: the smallest *maximum* RMSE over the settings of
        ``benchmarks/extrapolation_accuracy.py``, JMLR's criterion; ``"hd"`` has a slightly
        smaller mean RMSE there but is worse at high accuracy and 10x k1): radial basis
        in :math:`\Phi^{-1}(u)` by NNLS (ClassExReg, JMLR sec. 3.3) with bandwidths
        weighted by subsampling. ``"polynomial"``: monotone Bernstein polynomial of degree
        ``d`` in :math:`\Phi(\Phi^{-1}(u)/s)` (``s = 1``: a polynomial in ``u`` as in the
        2016 drafts), least squares in cvxpy; ``(d, s)`` by subsampling.
        ``"pseudolikelihood"``: discrete ``U*`` on a probit grid, binomial pseudolikelihood
        of the ranks maximised in cvxpy. ``"hd"``: one-parameter high-dimensional model.
        ``"kde"``: Kay et al. kernel density of wrong-class scores. ``"naive"``: ATA_{k1}.
    k_target : int or list of int, optional
        Targets reported by ``tidy()``/``summary()``; default ``2 * k1``.
    rng : None, int or Generator
        Seeds the class subsamples.
    ties : {"random", "pessimistic", "optimistic"}
        Tie handling in ATA (see :func:`average_accuracy`).
    bandwidth : float or list of float, optional
        Fix (one value) or restrict (list) the radial bandwidths; default 0.1..1.0.
    degree : int, (int, float) or list, optional
        Fix/restrict the polynomial ``(degree, scale)``; an int means scale 2.
    match_k1 : bool
        Polynomial and pseudolikelihood reproduce the observed ATA_{k1} exactly.
    monotone_density : bool
        Pseudolikelihood: nondecreasing density of ``U*`` (Jun-2016 CONS).
    n_subsamples : int
        Number of half-class subsamples (0 disables CV, back-test and band).
    n_models : int
        Number of best candidates whose range is reported as model spread.
    confidence_level : float
    n_jobs, progress
        Passed to :func:`evalstats._parallel.map_replicates` (results identical for any
        ``n_jobs``).

    Returns
    -------
    AccuracyExtrapolation
        ``predict(k)``, ``conf_int()``, ``tidy()``, ``summary()``, ``plot()``.

    Warns
    -----
    ExtrapolationWarning
        ``max(k_target) / k1 > 10`` or observed accuracy beyond the resolution limit.
    SmallSampleWarning
        Fewer than 10 classes.
    ConvergenceWarning
        A cvxpy solve ended ``optimal_inaccurate``; failed candidates are recorded.

    See Also
    --------
    average_accuracy : the unbiased curve for ``k <= k1``.

    References
    ----------
    .. [1] Zheng, Achanta, Benjamini (2018). Extrapolating expected accuracies for large
       multi-class problems. JMLR 19(65).
    .. [2] Zheng, Achanta, Benjamini (2016). Extrapolating expected accuracies for
       multi-class classification (draft); arXiv:1606.05228.

    Examples
    --------
    >>> import evalstats as es
    >>> b = es.datasets.load("sim_multiclass")
    >>> fit = extrapolate_accuracy(b.scores, b.labels, k_target=[200, 1000], rng=1)
    >>> fit.predict([200, 1000])[["k", "accuracy"]].round(2).shape
    (2, 2)
    """
    t0 = time.perf_counter()
    s, labels, targets, n_sub = _extrapolate_iv(scores, y, method, k_target, n_subsamples,
                                                ties, confidence_level)
    n_models = check_int(n_models, "n_models", low=1)
    g = check_rng(rng)
    k1 = s.shape[1]
    notes = Notes()
    notes.add(MARGINAL_NOTE)
    meth = _make_method(method, k1, bandwidth, degree, match_k1, monotone_density)
    data = Data(s, labels, ties, keep_scores=meth.needs_scores)
    full = data.view()
    ata = full.ata(np.arange(2, k1 + 1))
    r = len(labels) / k1
    if k1 < 10:
        notes.warn(SmallSampleWarning, f"Only k1 = {k1} classes: extrapolation is unreliable.")
    if max(targets) / k1 > 10:
        notes.warn(ExtrapolationWarning,
                   f"k_target / k1 = {max(targets) / k1:.3g} > 10: the papers validate "
                   "extrapolation only up to about ten times the observed classes.")
    if ata[-1] > min(0.99, 1 - 1 / (r * k1)):
        notes.warn(ExtrapolationWarning,
                   f"Observed accuracy {ata[-1]:.4f} is near 1 (resolution limit "
                   f"1 - 1/(r k1) = {1 - 1 / (r * k1):.4f}): the data cannot distinguish "
                   "near-perfect discriminability, predictions for larger k are unreliable.")

    # (2) subsampling over classes: CV, back-test and band
    m = k1 // 2
    half = []
    if n_sub > 0:
        task = SubsampleTask(data, meth, m)
        half = map_replicates(task, n_sub, rng=g, n_jobs=n_jobs, progress=progress,
                              desc="class subsamples")
    statuses = [st for _, sts in half for st in sts]
    meth.status = []
    cands = meth.candidates
    preds = np.full((len(half), len(cands)), np.nan)
    for i, (params, _) in enumerate(half):
        for j, (cand, p) in enumerate(zip(cands, params, strict=True)):
            if not isinstance(p, ConvergenceError):
                preds[i, j] = meth.curve(p, cand).accuracy(np.array([k1]))[0]
    n_fail = int(np.isnan(preds).sum())
    if n_fail:
        notes.warn(ConvergenceWarning, f"{n_fail} subsample fits failed (counted as errors "
                   "of size 1 in the cross-validation).")
    err = np.where(np.isnan(preds), 1.0, preds - ata[-1])
    rmse = np.sqrt(np.mean(err**2, axis=0)) if len(half) else np.full(len(cands), np.nan)
    weights = _soft_weights(rmse)
    use = np.flatnonzero(weights > 0)
    order = np.argsort(-weights)

    # (3) full fits of the weighted candidates
    fits = {}
    for j in use:
        try:
            fits[j] = meth.curve(meth.fit(full, cands[j]), cands[j])
        except ConvergenceError as e:
            notes.warn(ConvergenceWarning, f"{meth.label(cands[j])} failed on all classes: {e}")
    if not fits:
        raise ConvergenceError(f"{method}: every candidate model failed to fit.")
    curve = AveragedCurve([fits[j] for j in fits], weights[list(fits)])
    model_curves = tuple(fits[j] for j in order[:n_models] if j in fits)
    half_curves = []
    for params, _ in half:
        ok = [j for j in fits if not isinstance(params[j], ConvergenceError)]
        if ok:
            half_curves.append(AveragedCurve([meth.curve(params[j], cands[j]) for j in ok],
                                             weights[ok]))
    statuses += meth.status
    meth.status = statuses
    warn_status(meth, notes)

    cv_table = pd.DataFrame({"model": [meth.label(c) for c in cands], "cv_rmse": rmse,
                             "cv_bias": np.nanmean(np.where(np.isnan(preds), np.nan,
                                                            preds - ata[-1]), axis=0)
                             if len(half) else np.nan, "weight": weights})
    backtest = {}
    if len(half):
        pred_bt = float(np.mean([c.accuracy(np.array([k1]))[0] for c in half_curves]))
        bt_err = np.array([c.accuracy(np.array([k1]))[0] for c in half_curves]) - ata[-1]
        backtest = dict(observed=float(ata[-1]), predicted=pred_bt,
                        error=pred_bt - float(ata[-1]),
                        rmse=float(np.sqrt(np.mean(bt_err**2))))
        if len(cands) > 1:
            notes.add("The back-test error is optimistic: the same subsamples weighted the "
                      "candidate models.")
    else:
        notes.add("n_subsamples = 0: candidates weighted equally; no back-test, no "
                  "subsampling band.")
    best = int(order[0])
    chosen = meth.label(cands[best])
    if len(use) > 1:
        chosen += f" (weight {weights[best]:.2f}; {len(use)} models averaged)"

    est = float(_predict_curve(curve, np.array([targets[0]]))[0])
    sd = (float(np.std([_predict_curve(c, np.array([targets[0]]))[0] for c in half_curves],
                       ddof=1)) if len(half_curves) > 1 else None)
    return AccuracyExtrapolation(
        estimate=est, std_error=sd, confidence_level=confidence_level, method=meth.name,
        term=f"accuracy(k={targets[0]})", n=len(labels), n_unit="test points",
        data=f"{len(labels)} test points x {k1} classes",
        call=dict(function="extrapolate_accuracy", method=method, k_target=list(targets),
                  n_subsamples=n_sub, ties=ties),
        diagnostics=dict(solver_status=tuple(sorted(set(statuses))),
                         n_subsamples=n_sub, subsample_size=m),
        notes=notes.as_tuple(), k1=k1, k_target=targets, ata=ata, chosen=chosen,
        cv_table=cv_table, backtest=backtest, fit_seconds=time.perf_counter() - t0,
        _curve=curve, _half_curves=tuple(half_curves), _model_curves=model_curves)
