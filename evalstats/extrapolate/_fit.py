r"""``extrapolate_accuracy``: validation, then named steps that return values.

Steps: (1) the unbiased curve ATA_k, ``k = 2..k1``; (2) class subsamples: on each random
half of the classes every candidate model is fitted and predicts ATA_{k1} of the full set
(the back-test, at ratio 2, whatever the targets); (3) soft weights from the back-test
RMSE; (4) the weighted candidates fitted to all classes; (5) the band: spread of the
half-class fits at the same extrapolation ratio (sampling of classes) combined with the
weighted spread of the candidates (the choice of model).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from .._naming import named_result
from .._parallel import map_replicates
from .._validation import rng_alias
from .._warnings import (
    ConvergenceError,
    ConvergenceWarning,
    ExtrapolationWarning,
    Notes,
    SmallSampleWarning,
)
from ._bernstein import Bernstein
from ._curves import AveragedCurve, Data, predict_curve
from ._methods import KDE, HighDim, Method, Naive, Radial, fit_all
from ._normal import TwoParam
from ._npmle import NPMLE
from ._pseudolikelihood import PaperPolynomial
from ._result import AccuracyExtrapolation
from ._validate import METHOD_NAMES, _Args, _extrapolate_accuracy_iv

DEFAULT_METHOD = "regression"
MARGINAL_NOTE = ("Assumes a marginal classifier (each class's score learned from that class "
                 "alone, e.g. 1-NN or nearest centroid on a fixed embedding) and classes drawn "
                 "at random; jointly trained classifiers (softmax nets, logistic regression, "
                 "SVMs) change when classes are added and violate this.")
SOFTNESS = 5.0


def _make_method(a: _Args) -> Method:
    k1, o = a.scores.shape[1], a.options
    if a.method == "regression":
        return Radial(k1, a.candidates, gls=o["gls"])
    if a.method == "kde":
        return KDE(k1, a.candidates)
    if a.method == "polynomial":
        return Bernstein(k1, a.candidates, match_k1=o["match_k1"], penalty=o["penalty"],
                         fit=o["likelihood"] or "ls", per_class=a.scores.shape[0] / k1)
    if a.method == "pseudolikelihood":
        ratios = None if a.candidates is None else [d / (k1 - 1) for d in a.candidates]
        return PaperPolynomial(k1, ratios, match_k1=o["match_k1"], likelihood=o["likelihood"])
    if a.method == "npmle":
        return NPMLE(k1, match_k1=o["match_k1"], monotone_density=o["monotone_density"],
                     penalty=o["penalty"])
    return {"hd": HighDim, "naive": Naive, "two_param": TwoParam}[a.method](k1)


#: share of test points whose true-class score ties a wrong-class score above which
#: ``method="kde"`` warns
KDE_TIE_WARN = 0.05


def _kde_tie_warning(data: Data, notes: Notes) -> None:
    """The KDE method assumes continuous scores: a wrong class tied with the true class
    counts as half a win each, so a k-way tie gives ``0.5^(k−1)`` instead of the ``1/k`` of
    random tie-breaking (all-tied scores: 1.8e-12 at k = 40 against 0.025)."""
    tied = float(np.mean(data.eq.sum(axis=1) > 1))
    if tied > KDE_TIE_WARN:
        notes.warn(ExtrapolationWarning,
                   f"{tied:.0%} of the test points have a wrong-class score equal to the "
                   "true-class score: method='kde' assumes continuous scores and counts each "
                   "tie as half a win, which is far off for tied or discrete scores (votes, "
                   "counts). Use method='regression' or 'hd', which break ties as `ties` says.")


def _data_warnings(ata: np.ndarray, n: int, k1: int, targets: tuple, notes: Notes) -> None:
    notes.add(MARGINAL_NOTE)
    r = n / k1
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


class SubsampleTask:
    """Picklable task: fit every candidate on a random half of the classes (without
    replacement). Returns the list of ``(params, status)`` per candidate."""

    def __init__(self, data: Data, method: Method, half: int):
        self.data, self.method, self.half = data, method, half

    def __call__(self, i: int, g: np.random.Generator):
        classes = g.choice(self.data.k1, size=self.half, replace=False)
        return fit_all(self.method, self.data.view(classes))


def _run_subsamples(data, meth, half: int, a: _Args, n_jobs, progress) -> list:
    if a.n_sub == 0:
        return []
    task = SubsampleTask(data, meth, half)
    return map_replicates(task, a.n_sub, rng=a.rng, n_jobs=n_jobs, progress=progress,
                          desc="class subsamples")


def _predict_k1(meth: Method, fits: list, k1: int) -> np.ndarray:
    """ATA_{k1} predicted by each candidate's fit (NaN where the fit failed)."""
    out = np.full(len(meth.candidates), np.nan)
    for j, ((p, _), cand) in enumerate(zip(fits, meth.candidates, strict=True)):
        if not isinstance(p, ConvergenceError):
            out[j] = meth.curve(p, cand).accuracy(np.array([k1]))[0]
    return out


def _soft_weights(rmse: np.ndarray) -> np.ndarray:
    r"""Soft selection: :math:`w_c \propto \exp(-5\,(\mathrm{RMSE}_c/\mathrm{RMSE}_{min}-1))`,
    weights below 1e-3 dropped. Unlike an arg-min, the average moves smoothly when another
    seed reorders nearly tied candidates (equal weights when there is no back-test)."""
    if not np.isfinite(rmse).any():
        return np.full(len(rmse), 1.0 / len(rmse))
    r = np.where(np.isfinite(rmse), rmse, np.inf)
    w = np.exp(-SOFTNESS * (r / max(r.min(), 1e-12) - 1.0))
    w = np.where(w / w.sum() < 1e-3, 0.0, w)
    return w / w.sum()


@dataclass(frozen=True)
class _Selection:
    preds: np.ndarray        # (n_subsamples, n_candidates) predicted ATA_{k1}
    rmse: np.ndarray
    bias: np.ndarray
    weights: np.ndarray
    n_failed: int
    ratio: float             # k1 / m of the back-test


def _select(meth: Method, subs: list, ata_k1: float, k1: int, half: int) -> _Selection:
    """Back-test every candidate: ATA_{k1} predicted from each half-class fit."""
    ncand = len(meth.candidates)
    preds = (np.array([_predict_k1(meth, fits, k1) for fits in subs]) if subs
             else np.full((0, ncand), np.nan))
    n_failed = int(np.isnan(preds).sum())
    if len(preds):
        err = np.where(np.isnan(preds), 1.0, preds - ata_k1)
        rmse = np.sqrt(np.mean(err**2, axis=0))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            bias = np.nanmean(preds - ata_k1, axis=0)
    else:
        rmse = bias = np.full(ncand, np.nan)
    return _Selection(preds, rmse, bias, _weights(meth, rmse), n_failed, k1 / half)


def _weights(meth: Method, rmse: np.ndarray) -> np.ndarray:
    """:func:`_soft_weights` over all candidates, or, for a method with
    ``equal_families``, within each tail assumption, the tails weighted equally (the
    back-test at ratios 2 and 4 cannot tell the tails apart at larger ratios)."""
    if not meth.equal_families:
        return _soft_weights(rmse)
    fams = [meth.family(c) for c in meth.candidates]
    out = np.zeros(len(rmse))
    for f in dict.fromkeys(fams):
        idx = [j for j, g in enumerate(fams) if g == f]
        out[idx] = _soft_weights(rmse[idx])
    return out / out.sum()


def _family_best(meth: Method, rmse: np.ndarray) -> list[int]:
    """Per tail assumption (:meth:`Method.family`), the candidate with the smallest
    back-test RMSE; empty when the method has a single family or there is no back-test."""
    fams: dict = {}
    for j, cand in enumerate(meth.candidates):
        if np.isfinite(rmse[j]):
            f = meth.family(cand)
            if f not in fams or rmse[j] < rmse[fams[f]]:
                fams[f] = j
    return sorted(fams.values()) if len(fams) > 1 else []


def _fit_full(meth: Method, data: Data, weights: np.ndarray, notes: Notes,
              also: list[int] = ()):
    """Every candidate with positive weight (and those in ``also``) fitted to all classes
    -> ({j: curve}, statuses)."""
    full = data.view()
    curves, statuses = {}, []
    for j in sorted(set(np.flatnonzero(weights > 0)) | set(also)):
        (p, st), = fit_all(_Only(meth, j), full)
        statuses.append(st)
        if isinstance(p, ConvergenceError):
            notes.warn(ConvergenceWarning, f"{meth.label(meth.candidates[j])} failed on all "
                       f"classes ({p}); dropped from the average.")
        else:
            curves[int(j)] = meth.curve(p, meth.candidates[j])
    if not any(weights[j] > 0 for j in curves):
        raise ConvergenceError(f"{meth.name}: every candidate model failed to fit on all "
                               "classes; try method='regression' or 'hd'.")
    return curves, statuses


class _Only:
    """``meth`` restricted to its candidate ``j`` (for :func:`fit_all`)."""

    def __init__(self, meth: Method, j: int):
        self.meth, self.candidates = meth, [meth.candidates[j]]

    def fit(self, view, cand):
        return self.meth.fit(view, cand)


def _half_curves(meth: Method, subs: list, use: list[int], weights: np.ndarray) -> list:
    """The weighted model on each half-class subsample (for the sampling spread)."""
    out = []
    for half in subs:
        ok = [j for j in use if not isinstance(half[j][0], ConvergenceError)]
        if ok:
            out.append(AveragedCurve([meth.curve(half[j][0], meth.candidates[j]) for j in ok],
                                     weights[ok]))
    return out


def _backtest(sel: _Selection, ata_k1: float) -> dict:
    """The weighted model's back-test: mean and RMSE of its predicted ATA_{k1} over the
    half-class fits whose weighted candidates all fitted."""
    if not len(sel.preds):
        return {}
    ok = ~np.isnan(sel.preds[:, sel.weights > 0]).any(axis=1)
    if not ok.any():
        return {}
    err = np.nan_to_num(sel.preds[ok]) @ sel.weights - ata_k1
    return dict(observed=float(ata_k1), predicted=float(ata_k1 + err.mean()),
                error=float(err.mean()), rmse=float(np.sqrt(np.mean(err**2))),
                ratios=(float(sel.ratio),))


def _status_notes(statuses: list[str], sel: _Selection, n_sub: int, ncand: int,
                  notes: Notes) -> None:
    if sel.n_failed:
        notes.warn(ConvergenceWarning, f"{sel.n_failed} of {sel.preds.size} subsample fits "
                   "failed (counted as errors of size 1 in the back-test).")
    bad = sorted({s for s in statuses if s not in ("optimal", "failed", "no_test_points")})
    if bad:
        notes.warn(ConvergenceWarning, f"{sum(s in bad for s in statuses)} of "
                   f"{len(statuses)} solver calls ended with status {bad}.")
    if n_sub == 0:
        notes.add("n_subsamples = 0: candidates weighted equally; no back-test, no "
                  "subsampling band (the band shows only the spread between candidates).")
    elif ncand > 1:
        notes.add("The back-test error is optimistic: the same subsamples weighted the "
                  "candidate models.")


@rng_alias


@named_result
def extrapolate_accuracy(scores: Any, y: Any, method: str = DEFAULT_METHOD, *,
                         classes: Any = None,
                         k_target: int | list[int] | None = None,
                         rng: None | int | np.random.Generator = None,
                         ties: str = "random", bandwidth: float | list[float] | None = None,
                         degree: Any = None, likelihood: str | None = None,
                         penalty: float | None = None, match_k1: bool = True,
                         monotone_density: bool = False, n_subsamples: int = 40,
                         n_models: int | None = None, confidence_level: float = 0.95,
                         n_jobs: int | None = None,
                         progress: bool | None = None,
                         curve_weights: str = "equal") -> AccuracyExtrapolation:
    r"""Predict the expected accuracy on ``k2 > k1`` classes from a ``k1``-class score matrix.

    The default, ``method="regression"``, is ClassExReg (Zheng, Achanta & Benjamini 2018,
    sec. 3.3-3.4). With :math:`U^*` the favourability of the true class (the chance that a
    random wrong class scores lower) the expected accuracy on ``k`` random classes is
    :math:`E[U^{*\,k-1}] = 1-(k-1)\int_0^1 D(u)u^{k-2}du`, :math:`D` the distribution
    function of :math:`U^*` (their Theorem 1). :math:`\Phi^{-1}(U^*)` is modelled as a
    non-negative mixture of :math:`N(t_\ell, h^2)`, knots spaced ``h`` apart on
    :math:`[-t_{max}, t_{max}]`, :math:`t_{max} = \Phi^{-1}(1 - 1/k_1^2)`, plus a point
    mass at :math:`U^* = 1` (test points recognised at every ``k``: the constant element of
    the authors' code), so that the accuracy is linear in the weights; the weights
    (non-negative, summing to at most 1) are fitted by non-negative least squares to the
    unbiased curve ATA_k, ``k = 2..k1`` (:func:`average_accuracy`). The bandwidth
    ``h`` in 0.1, 0.2, ..., 1.0 is chosen by the authors' subsampling principle: on
    ``n_subsamples`` random halves of the classes (without replacement) every bandwidth is
    fitted and predicts the observed ATA_{k1}; the bandwidths are weighted by
    :math:`\exp(-5(\mathrm{RMSE}/\mathrm{RMSE}_{min}-1))` of that back-test (an arg-min
    that moves smoothly when nearly tied bandwidths swap) and their fits on all classes
    averaged. The back-test is the same whatever ``k_target``: one fitted model predicts
    every ``k``.

    Assumptions: a *marginal* classifier (each class's score depends on that class's own
    training data only, e.g. 1-NN or nearest centroid on a fixed embedding) and classes
    drawn at random from a population. The band is
    :math:`\hat a \pm z\sqrt{\mathrm{se}^2 + \mathrm{sd}^2}`: ``se`` the spread of the
    weighted fits on the half-class subsamples evaluated at the same extrapolation ratio
    (a half of ``m`` classes at ``k m / k1``; balanced half-sampling, whose spread
    approximates the standard error of the full-data estimate for statistics that average
    over classes), ``sd`` the weighted spread of the bandwidths' predictions. It covers the
    sampling of the classes and test points and the choice among the candidate models; it
    does not cover a bias that every candidate shares (a classifier that is not marginal,
    a tail of :math:`U^*` unlike every candidate's).

    Parameters
    ----------
    scores : array_like or DataFrame, shape (n, k1)
        Score of each test point for each class, higher = more likely (log-probabilities
        with ``-inf`` allowed, except for ``"kde"``). Only ranks matter, except for ``"kde"``.
    y : array_like, shape (n,)
        True class of each test point: a column index of ``scores``, or any label together
        with ``classes`` (or with a DataFrame ``scores`` whose columns name the classes).
    method : str
        One of ``"regression"``, ``"two_param"``, ``"polynomial"``, ``"pseudolikelihood"``,
        ``"npmle"``, ``"hd"``, ``"kde"``, ``"naive"``.
        ``"regression"`` (default): ClassExReg, above. ``"two_param"``:
        :math:`\Phi^{-1}(U^*)\sim N(\mu, \tau^2)`, two parameters by least squares to the
        ATA curve (the two-parameter family of JMLR sec. 6; :mod:`._normal`).
        ``"pseudolikelihood"``: the paper's model as written -- :math:`D(u)` a monotone
        polynomial in ``u`` fitted by the rank pseudolikelihood of the Nov-2016 draft, its
        degree a multiple of ``k1 - 1`` chosen by the back-test (:mod:`._pseudolikelihood`).
        ``"polynomial"``: the package's extension, a monotone Bernstein polynomial in a
        probit-stretched ``u`` with a roughness penalty (:mod:`._bernstein`), by least
        squares to the curve or, with ``likelihood``, by the rank pseudolikelihood.
        ``"npmle"``: penalised discrete NPMLE of ``U*`` (Jun-2016 CONS). ``"hd"``:
        Zheng & Benjamini's one-parameter high-dimensional model matched to ATA_{k1}.
        ``"kde"``: Kay et al.'s kernel density of the wrong-class scores. ``"naive"``:
        ATA_{k1} carried forward.
    classes : sequence, optional
        The class of each score column, when ``y`` holds class labels.
    k_target : int or list of int, optional
        Targets reported by ``tidy()``/``summary()``; default ``2 * k1``. They do not
        change the fit: :meth:`AccuracyExtrapolation.predict` gives any ``k``.
    rng : None, int or Generator
        Seeds the class subsamples.
    ties : {"random", "pessimistic", "optimistic"}
        Tie handling in ATA (see :func:`average_accuracy`).
    bandwidth : float or list of float, optional
        ``"regression"``: fix (one value) or restrict (list) the radial bandwidths (default
        0.1..1.0); ``"kde"``: multipliers of Silverman's bandwidth. Positive and finite.
    degree : int, (int, float), (int, float, str) or list, optional
        ``"pseudolikelihood"``: polynomial degrees in ``u`` for the fit on all ``k1``
        classes (a fit on ``m`` classes uses the same multiple of ``m - 1``); default the
        multiples 1, 2, 4, 8 of ``k1 - 1``. ``"polynomial"``: ``(degree, stretch)`` or
        ``(degree, stretch, tail)`` candidates, tail ``"open"`` (default) or ``"cut"`` (an
        int means stretch 2, open tail). With ``"pseudolikelihood"`` such tuples (or a
        ``penalty``) mean ``"polynomial"`` with a ``likelihood`` (FutureWarning).
    likelihood : {"bernoulli", "binomial"}, optional
        Form of the rank pseudolikelihood: ``"bernoulli"`` the Nov-2016 draft's eq. 7
        (default of ``"pseudolikelihood"``), ``"binomial"`` the Jun-2016 form. With
        ``"polynomial"`` it replaces the least-squares fit.
    penalty : float, optional
        Roughness penalty of ``"polynomial"`` / ``"npmle"`` (>= 0; defaults in the modules).
    match_k1 : bool
        Polynomial, pseudolikelihood and NPMLE reproduce the observed ATA_{k1} exactly.
    monotone_density : bool
        NPMLE only: nondecreasing density of ``U*`` (Jun-2016 CONS).
    n_subsamples : int
        Number of half-class subsamples (0 disables the back-test and the sampling band; 1
        is refused).
    n_models : int, optional
        Ignored (FutureWarning); kept for compatibility.
    confidence_level : float
    curve_weights : {"equal", "gls"}
        ``"regression"`` only: ``"equal"`` fits the ATA curve by ordinary (non-negative)
        least squares; ``"gls"`` by generalised least squares with a Ledoit-Wolf-shrunken
        covariance of the correlated ATA_k (:mod:`._gls`).
    n_jobs, progress
        Passed to :func:`evalstats._parallel.map_replicates` (``progress=None`` shows a bar
        once the loop is long and tqdm is installed): the subsamples are fitted in
        parallel, bit-identically for any ``n_jobs`` with process backends (the default);
        under joblib's *threading* backend the cvxpy-based methods (``"pseudolikelihood"``,
        ``"polynomial"``, ``"npmle"``) may differ in the 5th-6th digit (cvxpy is not
        thread-safe).

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
        A solver fell back (nnls -> lsq_linear, CLARABEL -> SCS) or ended
        ``optimal_inaccurate``, or fits failed (counted as errors of size 1).

    Raises
    ------
    ConvergenceError
        Every candidate failed on the full data.

    See Also
    --------
    average_accuracy : the unbiased curve for ``k <= k1``.

    References
    ----------
    .. [1] Zheng, Achanta, Benjamini (2018). Extrapolating expected accuracies for large
       multi-class problems. JMLR 19(65).
    .. [2] Zheng, Achanta, Benjamini (2016). Extrapolating expected accuracies for
       multi-class classification (draft); arXiv:1606.05228.
    .. [3] Zheng, Benjamini (2016). Estimating mutual information in high dimensions via
       classification error; arXiv:1606.05229.

    Examples
    --------
    >>> import evalstats as es
    >>> b = es.datasets.load("sim_multiclass")
    >>> fit = extrapolate_accuracy(b.scores, b.labels, k_target=[200, 1000], rng=1)
    >>> fit.predict([200, 1000])[["k", "accuracy"]].round(2).shape
    (2, 2)
    """
    t0 = time.perf_counter()
    a = _extrapolate_accuracy_iv(scores, y, method, classes, k_target, n_subsamples, ties,
                                 confidence_level, rng, bandwidth, degree, likelihood,
                                 penalty, match_k1, monotone_density, n_models,
                                 curve_weights)
    n, k1 = a.scores.shape
    notes = Notes()
    meth = _make_method(a)
    data = Data(a.scores, a.labels, a.ties, keep_scores=meth.needs_scores)
    ata = data.view().ata(np.arange(2, k1 + 1))
    _data_warnings(ata, n, k1, a.targets, notes)
    if a.method == "kde":
        _kde_tie_warning(data, notes)
    half = k1 // 2
    meth.prepare([k1, half])
    subs = _run_subsamples(data, meth, half, a, n_jobs, progress)
    sel = _select(meth, subs, float(ata[-1]), k1, half)
    tails = _family_best(meth, sel.rmse)
    full_curves, full_status = _fit_full(meth, data, sel.weights, notes, tails)
    use = [j for j in sorted(full_curves) if sel.weights[j] > 0]
    w_use = sel.weights[use] / sel.weights[use].sum()
    curve = AveragedCurve([full_curves[j] for j in use], w_use)
    weights = np.zeros(len(sel.weights))
    weights[use] = w_use
    half_curves = _half_curves(meth, subs, use, weights)
    statuses = [st for fits in subs for _, st in fits] + full_status
    _status_notes(statuses, sel, a.n_sub, len(meth.candidates), notes)
    cv_table = pd.DataFrame({"model": [meth.label(c) for c in meth.candidates],
                             "backtest_rmse": sel.rmse, "backtest_bias": sel.bias,
                             "weight": weights})
    best = int(np.argmax(weights))
    chosen = meth.label(meth.candidates[best])
    if len(use) > 1:
        chosen += f" (weight {weights[best]:.2f}; {len(use)} models averaged)"
    res = AccuracyExtrapolation(
        estimate=float("nan"), std_error=None, confidence_level=a.level, method=meth.name,
        term=f"accuracy(k={a.targets[0]})", n=n, n_unit="test points",
        data=f"{n} test points x {k1} classes",
        call=dict(function="extrapolate_accuracy", method=method, k_target=list(a.targets),
                  n_subsamples=a.n_sub, ties=a.ties, rng=a.seed),
        diagnostics=dict(solver_status=tuple(sorted(set(statuses))), n_subsamples=a.n_sub,
                         subsample_size=half),
        notes=notes.as_tuple(), k1=k1, k_target=a.targets, ata=ata, chosen=chosen,
        cv_table=cv_table, backtest=_backtest(sel, float(ata[-1])),
        fit_seconds=time.perf_counter() - t0, _curve=curve,
        _half_curves=tuple(half_curves), _half_size=half,
        _model_curves=tuple(full_curves[j] for j in use), _model_weights=tuple(w_use),
        _tail_curves=tuple(full_curves[j] for j in tails if j in full_curves))
    row = res.predict(np.array([a.targets[0]])).iloc[0]
    se = float(row.std_error)
    return replace(res, estimate=float(row.accuracy),
                   std_error=se if np.isfinite(se) else None,
                   fit_seconds=time.perf_counter() - t0)


__all__ = ["extrapolate_accuracy", "METHOD_NAMES", "DEFAULT_METHOD", "predict_curve"]
