r"""Confidence intervals for the error of a *learning algorithm* (Fuchs et al. 2013).

The estimand is θ(g), the expected loss of the model that a learner produces from
``g`` random observations, evaluated on a new observation — the *unconditional* error
of the algorithm, not the error of the model fitted on all n points. Its leave-p-out
estimate Θ̂ (p = n − g) is a U-statistic of degree g + 1; Fuchs, Hornung, De Bin &
Boulesteix show that

.. math:: \hat V = \hat\Theta^2 - \hat\Xi,\qquad
          \hat\Xi = \text{U-statistic of } \gamma(L_1; i)\,\gamma(L_2; j)

over disjoint pairs of (learning set, test point) — degree 2g + 2 — is the unbiased
(UMVU) estimator of Var(Θ̂). It exists only when n ≥ 2g + 2, so it *cannot* target the
error of 5- or 10-fold CV (g = 0.8n, 0.9n); for those, use Nadeau–Bengio
(``method="corrected_t"``) or Bayle et al.'s CV central limit theorem.

Public functions: :func:`cv_error_ci` and :func:`compare_learners`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._parallel import _check_n_jobs, map_replicates
from .._result import ConfidenceInterval, EvalResult, wald_interval
from .._validation import (
    check_array,
    check_confidence_level,
    check_consistent_length,
    check_int,
    check_option,
    check_rng,
    check_scalar,
    fail,
)
from .._warnings import ConvergenceWarning, NegativeVarianceWarning, Notes, SmallSampleWarning
from ._baselines import BASELINES, baseline_interval, baseline_scores
from ._draws import BUILTIN_LOSSES, DrawTask, aggregate

__all__ = ["cv_error_ci", "compare_learners", "CVErrorResult", "CompareLearnersResult",
           "METHODS", "INTERVALS", "ustat_df"]

METHODS = ("ustat",) + BASELINES
#: interval shapes for ``method="ustat"``
INTERVALS = ("log", "t", "normal")
_DRAWS_PER_TASK = 25
_HOEFFDING_ETA = 0.05


# -- result classes ---------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class CVErrorResult(EvalResult):
    r"""Expected loss θ(g) of a learner trained on ``g`` observations, with an interval.

    Attributes
    ----------
    train_size : int
        Learning-set size g (the estimand is θ(g)).
    loss : str
        Loss name (``"auc"``: the estimate is an AUC, higher is better).
    interval : str
        ``"t"`` (default: Θ̂ ± q√V̂), ``"log"`` (exp(log Θ̂ ± q·√V̂/Θ̂)) or ``"normal"``
        (Θ̂ ± z√V̂, the source's interval); q is the t quantile with the estimated
        degrees of freedom ``df`` (see :func:`ustat_df`); baselines use their own t
        intervals.
    variance_estimate : float
        V̂ as computed (may be negative: see ``variance_fallback``).
    variance_mc_se, mc_se : float
        Monte-Carlo standard errors of V̂ and Θ̂ (randomness of the draws, data fixed).
    n_draws, n_fits : int
        Draws (pairs of disjoint learning sets) and model fits used.
    variance_fallback : bool
        True when V̂ stayed ≤ 0 and the conservative bound (g+1)/n·σ̂²_γ was used.
    hoeffding_bound, hoeffding_draws : float
        The talk's bound 2·exp(−δ²N/2) on P(|V̂_N − V̂| ≥ δ) with δ = mc_tol·V̂, and the
        number of draws it would need to reach 5 % (bounded losses only, else NaN).
    split_scores : ndarray or None
        Per-split scores of a baseline method.
    loss_range : (float, float)
        Declared range of the loss; intervals are clipped to it (an AUC interval never
        exceeds 1; for a comparison the difference is clipped to [lo − hi, hi − lo]).
    """

    train_size: int = 0
    loss: str = "zero_one"
    interval: str = "t"
    variance_estimate: float = float("nan")
    variance_mc_se: float = float("nan")
    mc_se: float = float("nan")
    n_draws: int = 0
    n_fits: int = 0
    variance_fallback: bool = False
    hoeffding_bound: float = float("nan")
    hoeffding_draws: float = float("nan")
    split_scores: np.ndarray | None = None
    loss_range: tuple = (-np.inf, np.inf)

    def _interval(self, level: float, method: str = "") -> ConfidenceInterval:
        if self.interval == "log":
            if not (self.estimate > 0 and self.std_error is not None):
                return ConfidenceInterval(float("nan"), float("nan"))
            q = _quantile(level, self.df) * self.std_error / self.estimate
            with np.errstate(over="ignore"):
                lo, hi = self.estimate * np.exp(-q), self.estimate * np.exp(q)
        else:
            lo, hi = wald_interval(self.estimate, self.std_error, level, self.df)
        return _clip(lo, hi, self.loss_range)

    def _glance_extra(self) -> dict[str, Any]:
        return dict(train_size=self.train_size, loss=self.loss, interval=self.interval,
                    variance_estimate=self.variance_estimate,
                    variance_mc_se=self.variance_mc_se, mc_se=self.mc_se,
                    n_draws=self.n_draws, n_fits=self.n_fits,
                    variance_fallback=self.variance_fallback)

    def _title(self) -> str:
        return f"Expected {'AUC' if self.loss == 'auc' else 'loss'} of a learner (θ(g))"

    def _header(self) -> dict[str, Any]:
        hdr = super()._header()
        hdr["Learning-set size g"] = self.train_size
        hdr["Loss"] = self.loss
        hdr["Interval"] = self.interval if self.df is None else (
            f"{self.interval} (t quantile, df = {self.df:.3g})")
        if self.method == "ustat":
            hdr["Variance estimate V"] = self.variance_estimate
            hdr["MC s.e. of estimate / of V"] = f"{self.mc_se:.3g} / {self.variance_mc_se:.3g}"
            hdr["Draws / fits"] = f"{self.n_draws} / {self.n_fits}"
            if np.isfinite(self.hoeffding_bound):
                hdr["Hoeffding bound (delta = mc_tol V)"] = (
                    f"{self.hoeffding_bound:.3g}; needs {self.hoeffding_draws:.3g} draws for 5%")
        else:
            hdr["Fits"] = self.n_fits
        return hdr

    def plot(self, ax=None, **kwargs):
        """The interval at 80/90/95/99 % (U-statistic) or the split scores (baselines)."""
        from .._result import _get_ax

        ax = _get_ax(ax)
        if self.split_scores is not None:
            s = np.asarray(self.split_scores, float).ravel()
            ax.plot(s, np.zeros_like(s), "|", ms=20, color="grey", label="split scores")
        for k, lev in enumerate((0.8, 0.9, 0.95, 0.99)):
            lo, hi = self.conf_int(lev)
            ax.plot([lo, hi], [k + 1, k + 1], lw=3, **kwargs)
            ax.text(hi, k + 1, f" {100 * lev:g}%", va="center")
        ax.axvline(self.estimate, color="k", ls="--", lw=1, label=f"estimate {self.estimate:.3g}")
        ax.set_yticks([])
        ax.set_xlabel(self.loss)
        ax.set_title(f"{self._title()}, g = {self.train_size}, {self.method}")
        ax.legend(frameon=False, loc="lower right")
        return ax


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class CompareLearnersResult(CVErrorResult):
    r"""Difference θ_A(g) − θ_B(g) of two learners on the same draws, with a test.

    Attributes
    ----------
    estimate_a, estimate_b : float
        Θ̂ of each learner.
    std_error_a, std_error_b : float
        Their standard errors (√V̂ on the same draws; NaN if V̂ ≤ 0).
    covariance : float
        Ĉov(Θ̂_A, Θ̂_B) = (V̂_A + V̂_B − V̂_{A−B}) / 2.
    statistic, p_value : float
        Test of H0: θ_A = θ_B (z, or t with ``df``), two-sided.
    names : tuple of str
        Names of the two learners.
    """

    estimate_a: float = float("nan")
    estimate_b: float = float("nan")
    std_error_a: float = float("nan")
    std_error_b: float = float("nan")
    covariance: float = float("nan")
    statistic: float = float("nan")
    p_value: float = float("nan")
    names: tuple = ("A", "B")

    def _tidy_rows(self, level: float, method: str = "") -> list[dict[str, Any]]:
        rows = super()._tidy_rows(level, method)
        rows[0].update(statistic=self.statistic, p_value=self.p_value)
        for name, est, se in ((self.names[0], self.estimate_a, self.std_error_a),
                              (self.names[1], self.estimate_b, self.std_error_b)):
            lo, hi = _clip(*wald_interval(est, se, level, self.df), self.loss_range)
            rows.append(dict(term=f"{self.loss} {name}", estimate=est, std_error=se,
                             conf_low=lo, conf_high=hi, confidence_level=level,
                             method=self.method, statistic=np.nan, p_value=np.nan))
        return rows

    def _interval(self, level: float, method: str = "") -> ConfidenceInterval:
        lo, hi = wald_interval(self.estimate, self.std_error, level, self.df)
        return _clip(lo, hi, _diff_range(self.loss_range))

    def _glance_extra(self) -> dict[str, Any]:
        out = super()._glance_extra()
        out.update(statistic=self.statistic, p_value=self.p_value, covariance=self.covariance)
        return out

    def _title(self) -> str:
        return f"Comparing two learners: {self.names[0]} - {self.names[1]}"

    def _header(self) -> dict[str, Any]:
        hdr = super()._header()
        hdr["p-value (H0: equal expected loss)"] = self.p_value
        return hdr


def _quantile(level: float, df: float | None) -> float:
    if df is None or not np.isfinite(df):
        return float(stats.norm.ppf(0.5 + level / 2))
    return float(stats.t.ppf(0.5 + level / 2, df))


def ustat_df(n: int, variance: float, variance_mc_se: float) -> float:
    r"""Satterthwaite degrees of freedom of √V̂, including its Monte-Carlo noise.

    Treating V̂ as a variance estimate with n − 1 degrees of freedom from the data
    (Var ≈ 2V²/(n − 1)) plus independent Monte-Carlo error of variance se_MC²,

    .. math:: \nu = \frac{2\hat V^2}{2\hat V^2/(n-1) + \mathrm{se}_{MC}(\hat V)^2}
              = \frac{n-1}{1 + (n-1)\,\mathrm{se}_{MC}^2 / (2\hat V^2)}.

    Equals n − 1 when the draws are plentiful; smaller when V̂ is still noisy; never
    below 1.
    """
    if not variance > 0:
        return float(n - 1)
    return float(max(1.0, (n - 1) / (1 + (n - 1) * variance_mc_se ** 2 / (2 * variance ** 2))))


def _clip(lo, hi, bounds) -> ConfidenceInterval:
    return ConfidenceInterval(float(np.clip(lo, *bounds)), float(np.clip(hi, *bounds)))


def _diff_range(bounds) -> tuple[float, float]:
    return (bounds[0] - bounds[1], bounds[1] - bounds[0])


# -- validation --------------------------------------------------------------------------
def _check_estimator(est: Any, name: str, loss: Any) -> None:
    needs = ["predict"]
    if loss == "log":
        needs = ["predict_proba"]
    elif loss == "auc":
        needs = ["predict_proba|decision_function"]
    missing = [m for m in ["fit"] + needs
               if not any(hasattr(est, part) for part in m.split("|"))]
    if missing:
        raise fail(name, "a scikit-learn-compatible estimator with "
                   + " and ".join(f"`{m.replace('|', '` or `')}`" for m in ["fit"] + needs),
                   got=f"an object of type {type(est).__name__} without "
                   + ", ".join(missing), exc=TypeError)


def _check_loss(loss: Any, loss_range: Any) -> tuple[str | Callable, tuple[float, float]]:
    if callable(loss):
        if loss_range is None:
            return loss, (-np.inf, np.inf)
        lo, hi = (check_scalar(v, "loss_range") if np.isfinite(v) else float(v)
                  for v in loss_range)
        return loss, (lo, hi)
    loss = check_option(loss, "loss", BUILTIN_LOSSES)
    return loss, BUILTIN_LOSSES[loss]


def _cv_iv(estimators, X, y, train_size, loss, loss_range, method, confidence_level):
    loss, bounds = _check_loss(loss, loss_range)
    method = check_option(method, "method", METHODS)
    for name, est in estimators.items():
        _check_estimator(est, name, loss)
    X = check_array(X, "X", ndim=(1, 2))
    if X.ndim == 1:
        X = X[:, None]
    y_raw = np.asarray(y)
    if y_raw.ndim != 1:
        raise fail("y", "1-dimensional", got=f"shape {y_raw.shape}")
    if y_raw.dtype.kind in "fcbiu" or loss in ("squared", "auc"):
        y = check_array(y_raw, "y", ndim=1, dtype=float if loss == "squared" else None)
        if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
            raise fail("y", "finite (no NaN or infinity)", got="non-finite values")
    else:
        y = y_raw
        if pd.isna(y).any():
            raise fail("y", "free of missing values", got=f"{int(pd.isna(y).sum())} missing")
    n = check_consistent_length(X=X, y=y)
    g = check_int(train_size, "train_size", low=0)
    if loss == "auc":
        from .._validation import check_binary_labels

        y = check_binary_labels(y, "y")
        need = 2 * g + 4
        if n < need or min(y.sum(), n - y.sum()) < 2:
            raise fail("train_size", f"at most (n - 4)/2 = {(n - 4) // 2} for the AUC with "
                       f"n = {n}: θ² needs two disjoint learning sets plus two positive and "
                       "two negative test cases (n >= 2g + 4)", value=g)
    elif n < 2 * g + 2:
        raise fail("train_size", f"at most n/2 - 1 = {n // 2 - 1} with n = {n}: the unbiased "
                   "variance estimator of the leave-p-out error θ(g) needs two disjoint "
                   "learning sets of size g plus one test case each (n >= 2g + 2). θ(g) is "
                   "the expected loss of the learner trained on g observations; it cannot "
                   "target K-fold CV error (use method='corrected_t' for that)", value=g)
    if method != "ustat" and g < 1:
        raise fail("train_size", f">= 1 for method={method!r}", value=g)
    confidence_level = check_confidence_level(confidence_level)
    return X, y, g, loss, bounds, method, confidence_level


def _check_loss_values(rows: np.ndarray, bounds, n_learners: int) -> None:
    """Held-out mean losses of every learner must lie in the declared range."""
    lo, hi = bounds
    t = rows[:, [2 + 3 * k for k in range(n_learners)]] / rows[:, [0]]
    if not np.all(np.isfinite(t)):
        raise fail("loss", "finite for every case", got="non-finite loss values")
    if np.any(t < lo - 1e-12) or np.any(t > hi + 1e-12):
        raise fail("loss", f"within its declared range [{lo:g}, {hi:g}]",
                   got=f"held-out mean losses in [{t.min():.4g}, {t.max():.4g}]")


# -- U-statistic engine -----------------------------------------------------------------
def _run_draws(estimators, X, y, g, loss, bounds, n_draws, mc_tol, max_draws, rng, n_jobs,
               progress, stream):
    """Draws with the sequential stopping rule; returns (rows, aggregate, notes)."""
    notes = Notes()
    rng = check_rng(rng)
    rows = np.empty((0, 2 + 3 * (3 if len(estimators) == 2 else 1)))
    target = 1 if g == 0 else n_draws
    while True:
        need = target - rows.shape[0]
        if need > 0:
            n_tasks = math.ceil(need / _DRAWS_PER_TASK)
            per = math.ceil(need / n_tasks)
            task = DrawTask(estimators, X, y, g, loss, per)
            new = map_replicates(task, n_tasks, rng=rng, n_jobs=n_jobs, progress=progress,
                                 desc="cv draws")
            rows = np.vstack([rows] + new)
            _check_loss_values(rows, bounds, len(estimators))
        agg = aggregate(rows, stream)
        v, se_v = agg["variance"], agg["variance_mc_se"]
        done = g == 0 or mc_tol is None or (v > 0 and se_v <= mc_tol * v)
        if done or rows.shape[0] >= max_draws:
            break
        if v <= 0:
            notes.warn(NegativeVarianceWarning,
                       f"V = {v:.3g} <= 0 after {rows.shape[0]} draws (Monte-Carlo noise); "
                       "adding draws.")
        target = min(2 * rows.shape[0], max_draws)
    if not done and v > 0:
        notes.warn(ConvergenceWarning,
                   f"Monte-Carlo s.e. of V ({se_v:.3g}) is above mc_tol x V "
                   f"({mc_tol * v:.3g}) after max_draws = {rows.shape[0]} draws.")
    return rows, agg, notes


def _hoeffding(bounds, variance, mc_tol, n_draws):
    """The talk's bound 2 exp(−δ²N/2) (kernel in [−1, 1]) and the N it needs for 5 %.

    Applies to losses in [0, 1] (then products and differences of kernels lie in [−1, 1]).
    """
    lo, hi = bounds
    if not (lo >= 0 and hi <= 1) or mc_tol is None or not variance > 0:
        return float("nan"), float("nan")
    delta = mc_tol * variance
    return (float(min(1.0, 2 * np.exp(-delta ** 2 * n_draws / 2))),
            float(np.ceil(2 * np.log(2 / _HOEFFDING_ETA) / delta ** 2)))


def _finish_variance(agg, g, n, notes):
    """√V̂, or the conservative fallback (g+1)/n·σ̂²_γ (Hoeffding 1948) when V̂ ≤ 0."""
    v = agg["variance"]
    if v > 0:
        return float(np.sqrt(v)), False
    degree = g + 1
    fallback = degree / n * agg["kernel_variance"]
    notes.warn(NegativeVarianceWarning,
               f"the unbiased variance estimate stayed <= 0 (V = {v:.3g}) after "
               f"{agg['n_draws']} draws; using the conservative bound m/n x Var(kernel) "
               f"= {fallback:.3g} (m = {degree}). Increase max_draws for the U-statistic "
               "interval.")
    return float(np.sqrt(fallback)), True


def _common_call(function, g, loss, method, n_draws, mc_tol, interval, confidence_level,
                 n_splits):
    call = dict(function=function, train_size=g, loss=getattr(loss, "__name__", loss),
                method=method)
    if method == "ustat":
        call.update(n_draws=n_draws, mc_tol=mc_tol, interval=interval)
    elif method != "5x2cv":
        call.update(n_splits=n_splits)
    call.update(confidence_level=confidence_level)
    return call


def _check_draw_args(n_draws, mc_tol, max_draws, n_jobs, interval):
    n_draws = 1000 if n_draws is None else check_int(n_draws, "n_draws", low=2)
    max_draws = max(n_draws, 32 * n_draws if max_draws is None
                    else check_int(max_draws, "max_draws", low=2))
    if mc_tol is not None:
        mc_tol = check_scalar(mc_tol, "mc_tol", 0.0, None, low_inclusive=False)
    _check_n_jobs(n_jobs)
    if interval is not None:
        interval = check_option(interval, "interval", INTERVALS)
    return n_draws, mc_tol, max_draws, interval


def cv_error_ci(estimator: Any, X: Any, y: Any, *, train_size: int,
                loss: str | Callable = "zero_one", method: str = "ustat",
                n_draws: int | None = None, mc_tol: float | None = 0.25,
                max_draws: int | None = None, interval: str | None = None,
                n_splits: int = 15, loss_range: tuple[float, float] | None = None,
                confidence_level: float = 0.95,
                rng: None | int | np.random.Generator = None, n_jobs: int | None = None,
                progress: bool | None = None) -> CVErrorResult:
    r"""Interval for θ(g), the expected loss of ``estimator`` trained on ``g`` observations.

    With ``method="ustat"`` (default) the leave-p-out estimate Θ̂ and the unbiased
    variance estimate V̂ = Θ̂² − Ξ̂ of Fuchs et al. [1]_ are computed as incomplete
    U-statistics: each draw fits the learner on two disjoint random learning sets L₁, L₂
    of size g and evaluates each fit on all n − g points outside its learning set
    (for Θ̂) and on every ordered pair of distinct remaining points (for Ξ̂, the
    U-statistic of γ(L₁; i)·γ(L₂; j)). Draws are added (doubling) until the Monte-Carlo
    standard error of V̂ is at most ``mc_tol``·V̂, up to ``max_draws``.

    Parameters
    ----------
    estimator : scikit-learn-compatible estimator
        Cloned and fitted on each learning set. With ``train_size=0`` it is used as
        given (already fitted): the fixed-test-set case, where V̂ = s²/n exactly.
    X : array-like of shape (n, p)
    y : array-like of shape (n,)
    train_size : int
        Learning-set size g; requires n ≥ 2g + 2 (n ≥ 2g + 4 for the AUC).
    loss : {"zero_one", "squared", "log", "auc"} or callable
        Per-case loss; a callable ``loss(y_true, y_pred) -> array`` works on
        ``predict`` output. ``"auc"`` uses the kernel with a learning set, one positive
        and one negative test case (scores from ``predict_proba`` or
        ``decision_function``); the estimate is then an AUC.
    method : {"ustat", "naive_t", "corrected_t", "5x2cv"}
        ``"ustat"`` is the U-statistic method; the others are baselines on
        ``n_splits`` random splits (naive t; Nadeau–Bengio corrected t) or Dietterich's
        5×2cv (learning sets of n/2 points, so its estimand is θ(n/2)).
    n_draws : int, optional
        Initial number of draws (default 1000; 2 fits each).
    mc_tol : float or None
        Stopping rule: se_MC(V̂) ≤ mc_tol·V̂ (default 0.25; the df of the t interval
        absorbs the remaining Monte-Carlo noise, see Notes). ``None`` uses exactly
        ``n_draws``.
    max_draws : int, optional
        Cap on draws (default 32·n_draws).
    interval : {"t", "log", "normal"}, optional
        Interval for ``"ustat"``: ``"t"`` (default; Θ̂ ± q√V̂), ``"log"``
        (exp(log Θ̂ ± q√V̂/Θ̂), the delta-method interval on the log scale, for
        non-negative losses) or ``"normal"`` (Θ̂ ± z√V̂, the source's asymptotic
        interval). q is the t quantile with the Satterthwaite degrees of freedom ν of
        :func:`ustat_df`, which accounts for the Monte-Carlo noise of V̂ (once the
        stopping rule is met ν ≥ (n − 1)/(1 + (n − 1)·mc_tol²/2), e.g. ≥ 21 for n = 60
        at the default mc_tol; → n − 1 with many draws). Chosen by
        ``benchmarks/cv_coverage.py`` (see Notes).
    n_splits : int
        Splits J of the ``naive_t`` and ``corrected_t`` baselines.
    loss_range : (float, float), optional
        Declared range of a callable loss; values outside raise ``ValueError``.
        Built-in losses have fixed ranges.
    confidence_level : float
    rng : None, int or Generator
    n_jobs : int, optional
        joblib workers for the fits (any joblib backend; results do not depend on it).
    progress : bool, optional
        Progress bar policy.

    Returns
    -------
    CVErrorResult

    Raises
    ------
    ValueError
        n < 2g + 2, non-finite data, a loss outside its range, unknown options.
    TypeError
        An estimator without ``fit``/``predict``.

    Warns
    -----
    NegativeVarianceWarning
        V̂ ≤ 0: more draws are added; if it stays ≤ 0 the result uses the conservative
        bound Var(Θ̂) ≤ (m/n)·Var(kernel) (Hoeffding 1948, m = g + 1) and is flagged
        (``variance_fallback``).
    ConvergenceWarning
        The Monte-Carlo tolerance was not reached within ``max_draws``.

    Notes
    -----
    Θ̂ and Ξ̂ are ratio estimates Σ kernel sums / Σ kernel counts over draws; Θ̂² is
    corrected by its Monte-Carlo variance so that V̂ is conditionally unbiased for the
    complete U-statistic. As n → ∞ with g fixed, (Θ̂ − θ)/√V̂ → N(0, 1) [1]_.

    Calibration (``benchmarks/cv_coverage.py``, 500 replications per cell; the source's
    OLS design g = 13, n = 30/45/60, and a classification design n = 40). With a fixed
    N = 1000 draws the plain normal interval covers 0.906–0.924 (binomial s.e. ≈ 0.012),
    with misses on both sides in equal proportion (so skewness is not the driver); the
    log-scale interval barely helps (0.916–0.926); the default t interval with
    Satterthwaite df covers 0.972–1.000 — it widens in proportion to the Monte-Carlo
    noise of V̂ and errs on the conservative side. With the stopping rule at n = 60
    (the same 500 data sets per design for both tolerances): the default mc_tol = 0.25
    needs 4 500 (OLS) / 5 200 (classification) draws on average, 0.2 % / 3.4 % of
    replications reach max_draws, and the default t interval covers 0.960 (s.e. 0.009)
    in the OLS design but only 0.922 (s.e. 0.012) in the classification design, where
    misses lie mostly above θ (5.6 % vs 2.2 %). The former default mc_tol = 0.1 needed
    25 200 / 20 000 draws (5.6× / 3.8× more; 59 % / 40 % reached max_draws) and
    covered 0.942 / 0.908 with intervals about 5 % narrower
    (mean width 0.143 / 0.188 vs 0.153 / 0.197): the smaller Satterthwaite df (median
    26 vs 48) absorbs the extra Monte-Carlo noise of V̂. At mc_tol = 0.25 the plain
    normal interval covers 0.954 / 0.912 and the log interval 0.962 / 0.922. Coverage
    below nominal at small n is therefore expected for classification. The naive CV t
    covers 0.44–0.53; Nadeau–Bengio's corrected t 0.98–1.00 with intervals 2–3.5 times
    wider.

    References
    ----------
    .. [1] M. Fuchs, R. Hornung, R. De Bin, A.-L. Boulesteix (2013). A U-statistic
       estimator for the variance of resampling-based error estimators. arXiv:1310.8203.
    .. [2] C. Nadeau, Y. Bengio (2003). Inference for the generalization error.
       Machine Learning 52, 239–281.
    .. [3] T. G. Dietterich (1998). Approximate statistical tests for comparing supervised
       classification learning algorithms. Neural Computation 10, 1895–1923.

    See Also
    --------
    compare_learners : difference of two learners on the same draws.
    evalstats.holdout.error_ci : a fitted model on a fixed test set.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from evalstats.cv_variance import cv_error_ci
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2)); y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    >>> res = cv_error_ci(LogisticRegression(), X, y, train_size=20, n_draws=200,
    ...                   mc_tol=None, rng=1)
    >>> res.train_size, res.method
    (20, 'ustat')
    """
    X, y, g, loss, bounds, method, confidence_level = _cv_iv(
        {"estimator": estimator}, X, y, train_size, loss, loss_range, method, confidence_level)
    n_draws, mc_tol, max_draws, interval = _check_draw_args(n_draws, mc_tol, max_draws,
                                                            n_jobs, interval)
    n = len(y)
    call = _common_call("cv_error_ci", g, loss, method, n_draws, mc_tol, interval,
                        confidence_level, n_splits)
    term = "auc" if loss == "auc" else "expected loss"
    if method != "ustat":
        return _baseline_result(method, [estimator], X, y, g, loss, bounds, n_splits, rng,
                                n_jobs, progress, confidence_level, call, term)
    if interval is None:
        interval = "t"
    call["interval"] = interval
    rows, agg, notes = _run_draws([estimator], X, y, g, loss, bounds, n_draws, mc_tol,
                                  max_draws, rng, n_jobs, progress, stream=0)
    se, fallback = _finish_variance(agg, g, n, notes)
    if n < 3 * (g + 1):
        notes.add(f"n = {n} is close to the minimum 2g + 2 = {2 * g + 2}: the normal "
                  "approximation is rough and coverage tends to be below nominal.")
    hb, hn = _hoeffding(bounds, agg["variance"], mc_tol, agg["n_draws"])
    if interval == "log" and not agg["theta"] > 0:
        notes.warn(SmallSampleWarning, f"the estimate is {agg['theta']:.3g}: the log-scale "
                   "interval is undefined; using the t interval instead.")
        interval = call["interval"] = "t"
    return CVErrorResult(
        estimate=agg["theta"], std_error=se, confidence_level=confidence_level,
        method="ustat", term=term, n=n, n_unit="observations",
        df=None if interval == "normal" else ustat_df(n, agg["variance"],
                                                      agg["variance_mc_se"]), call=call,
        diagnostics=dict(xi=agg["xi"], kernel_variance=agg["kernel_variance"]),
        notes=notes.as_tuple(), train_size=g, loss=call["loss"], interval=interval,
        variance_estimate=agg["variance"], variance_mc_se=agg["variance_mc_se"],
        mc_se=agg["mc_se"], n_draws=agg["n_draws"],
        n_fits=0 if g == 0 else 2 * agg["n_draws"], variance_fallback=fallback,
        hoeffding_bound=hb, hoeffding_draws=hn, loss_range=bounds)


def _baseline_result(method, estimators, X, y, g, loss, bounds, n_splits, rng, n_jobs,
                     progress, confidence_level, call, term, names=None):
    n = len(y)
    J = check_int(n_splits, "n_splits", low=2)
    scores = baseline_scores(method, estimators, X, y, g, loss, J, rng, n_jobs, progress)
    notes = Notes()
    if method == "naive_t":
        notes.add("naive t: the split scores are treated as independent although the "
                  "learning sets overlap; the interval is known to be far too narrow.")
    if method == "5x2cv":
        notes.add(f"5x2cv learns on n/2 = {n // 2} points: its estimand is θ(n/2), not "
                  f"θ({g}); the estimate is Dietterich's p1(1).")
    n_fits = scores.shape[0] * scores.shape[1] * len(estimators)
    if len(estimators) == 1:
        est, se, df = baseline_interval(method, scores[:, :, 0], n, g)
        return CVErrorResult(estimate=est, std_error=se, confidence_level=confidence_level,
                             method=method, term=term, n=n, df=df, call=call,
                             notes=notes.as_tuple(), train_size=g, loss=call["loss"],
                             interval="t", n_fits=n_fits, split_scores=scores[:, :, 0],
                             loss_range=bounds)
    diff = scores[:, :, 0] - scores[:, :, 1]
    est, se, df = baseline_interval(method, diff, n, g)
    ea, sa, _ = baseline_interval(method, scores[:, :, 0], n, g)
    eb, sb, _ = baseline_interval(method, scores[:, :, 1], n, g)
    stat = est / se if se > 0 else float("nan")
    p = float(2 * stats.t.sf(abs(stat), df)) if np.isfinite(stat) else float("nan")
    return CompareLearnersResult(
        estimate=est, std_error=se, confidence_level=confidence_level, method=method,
        term=f"difference in {term}", n=n, df=df, call=call, notes=notes.as_tuple(),
        train_size=g, loss=call["loss"], interval="t", n_fits=n_fits, split_scores=diff,
        estimate_a=ea, estimate_b=eb, std_error_a=sa, std_error_b=sb,
        covariance=float((sa ** 2 + sb ** 2 - se ** 2) / 2), statistic=stat, p_value=p,
        names=tuple(names), loss_range=bounds)


def compare_learners(est_a: Any, est_b: Any, X: Any, y: Any, *, train_size: int,
                     loss: str | Callable = "zero_one", method: str = "ustat",
                     n_draws: int | None = None, mc_tol: float | None = 0.25,
                     max_draws: int | None = None, n_splits: int = 15,
                     loss_range: tuple[float, float] | None = None,
                     names: tuple[str, str] | None = None, confidence_level: float = 0.95,
                     rng: None | int | np.random.Generator = None, n_jobs: int | None = None,
                     progress: bool | None = None) -> CompareLearnersResult:
    r"""Test and interval for θ_A(g) − θ_B(g), the difference of two learners' expected loss.

    Both learners are fitted on the *same* learning sets and evaluated on the same
    test points; the kernel Γ_A − Γ_B gives Θ̂_A − Θ̂_B and its unbiased variance
    V̂_{A−B} = V̂_A + V̂_B − 2Ĉov (Fuchs et al. 2013; talk slide 13). The interval is
    Θ̂_A − Θ̂_B ± t_ν√V̂ (ν from :func:`ustat_df`) and the p-value tests H0: θ_A = θ_B
    two-sided.

    Parameters
    ----------
    est_a, est_b : scikit-learn-compatible estimators
    X, y, train_size, loss, method, n_draws, mc_tol, max_draws, n_splits, loss_range,
    confidence_level, rng, n_jobs, progress
        As in :func:`cv_error_ci`; baselines (``"naive_t"``, ``"corrected_t"``,
        ``"5x2cv"`` — Dietterich's paired t test) use the paired split differences.
    names : (str, str), optional
        Labels of the learners (default: class names).

    Returns
    -------
    CompareLearnersResult
        ``estimate`` = Θ̂_A − Θ̂_B (for the AUC: AUC_A − AUC_B), ``p_value``,
        ``statistic``, each learner's estimate and the covariance.

    See Also
    --------
    cv_error_ci : one learner.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.dummy import DummyClassifier
    >>> from evalstats.cv_variance import compare_learners
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2)); y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    >>> res = compare_learners(LogisticRegression(), DummyClassifier(), X, y,
    ...                        train_size=20, n_draws=200, mc_tol=None, rng=1)
    >>> res.estimate < 0
    True
    """
    X, y, g, loss, bounds, method, confidence_level = _cv_iv(
        {"est_a": est_a, "est_b": est_b}, X, y, train_size, loss, loss_range, method,
        confidence_level)
    n_draws, mc_tol, max_draws, _ = _check_draw_args(n_draws, mc_tol, max_draws, n_jobs,
                                                     None)
    if names is None:
        names = (type(est_a).__name__, type(est_b).__name__)
        if names[0] == names[1]:
            names = (names[0] + " (A)", names[1] + " (B)")
    names = tuple(str(v) for v in names)
    if len(names) != 2:
        raise fail("names", "a pair of two strings", value=names)
    n = len(y)
    call = _common_call("compare_learners", g, loss, method, n_draws, mc_tol, "t",
                        confidence_level, n_splits)
    term = "auc" if loss == "auc" else "expected loss"
    if method != "ustat":
        return _baseline_result(method, [est_a, est_b], X, y, g, loss, bounds, n_splits,
                                rng, n_jobs, progress, confidence_level, call, term, names)
    rows, agg, notes = _run_draws([est_a, est_b], X, y, g, loss, bounds, n_draws, mc_tol,
                                  max_draws, rng, n_jobs, progress, stream=2)
    agg_a, agg_b = aggregate(rows, 0), aggregate(rows, 1)
    se, fallback = _finish_variance(agg, g, n, notes)
    df = ustat_df(n, agg["variance"], agg["variance_mc_se"])
    stat = agg["theta"] / se if se > 0 else float("nan")
    p = float(2 * stats.t.sf(abs(stat), df)) if np.isfinite(stat) else float("nan")
    if not np.isfinite(stat):
        notes.warn(SmallSampleWarning, "the two learners' losses are identical on every "
                   "draw: the difference has zero variance and no test is possible.")

    def _se(a):
        return float(np.sqrt(a["variance"])) if a["variance"] > 0 else float("nan")

    hb, hn = _hoeffding(bounds, agg["variance"], mc_tol, agg["n_draws"])
    return CompareLearnersResult(
        estimate=agg["theta"], std_error=se, confidence_level=confidence_level,
        method="ustat", term=f"difference in {term}", n=n, df=df, call=call,
        diagnostics=dict(xi=agg["xi"], variance_a=agg_a["variance"],
                         variance_b=agg_b["variance"]),
        notes=notes.as_tuple(), train_size=g, loss=call["loss"], interval="t",
        variance_estimate=agg["variance"], variance_mc_se=agg["variance_mc_se"],
        mc_se=agg["mc_se"], n_draws=agg["n_draws"], n_fits=4 * agg["n_draws"],
        variance_fallback=fallback, hoeffding_bound=hb, hoeffding_draws=hn,
        estimate_a=agg_a["theta"], estimate_b=agg_b["theta"], std_error_a=_se(agg_a),
        std_error_b=_se(agg_b),
        covariance=float((agg_a["variance"] + agg_b["variance"] - agg["variance"]) / 2),
        statistic=stat, p_value=p, names=names, loss_range=bounds)
