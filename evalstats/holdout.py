"""Intervals for a classifier evaluated on a fixed test set (Fuchs 2014 talk, slides 4-8).

* :func:`error_ci` — the error rate ``k/n`` with a binomial interval; ``method="exact"``
  is Clopper–Pearson, as R's ``binom.test``.
* :func:`loss_ci` — the mean of per-case losses with a t interval, as R's ``t.test``.
* :func:`auc_ci` — the AUC of scores with DeLong's U-statistic variance (O(n log n));
  ``pos_label`` for labels of any type; ``plot()`` draws the ROC curve with a
  simultaneous confidence band (Campbell 1994, see :meth:`AUCResult.roc_band`).

Inputs are checked before anything is counted: missing labels are refused (a NaN label
is not a mistake), numbers are never compared with strings, and scores or probabilities
passed where predicted labels are expected are refused.

Both treat the *fitted* model as fixed: they say nothing about the learning
algorithm (see :mod:`evalstats.cv_variance` for that).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from ._labels import binary_indicator, check_label_pair
from ._naming import named_result
from ._render.format import format_value
from ._render.words import test_sentence
from ._render.words import value_with_ci as _value_with_ci
from ._result import ConfidenceInterval, EvalResult, critical_value
from ._validation import (
    check_array,
    check_confidence_level,
    check_consistent_length,
    check_option,
    check_scalar,
    fail,
)
from ._warnings import InputWarning, Notes, SmallSampleWarning, UndefinedEstimateWarning

__all__ = ["error_ci", "loss_ci", "auc_ci", "ErrorRateResult", "MeanLossResult", "AUCResult"]

#: the interval methods in words (plot legends)
_INTERVAL_NAMES = {"exact": "Clopper–Pearson", "wilson": "Wilson",
                   "agresti_coull": "Agresti–Coull", "jeffreys": "Jeffreys",
                   "normal": "Wald"}

#: binomial interval methods: our name -> statsmodels ``proportion_confint`` name
BINOMIAL_METHODS = {
    "exact": "beta",           # Clopper-Pearson, R binom.test
    "wilson": "wilson",        # R prop.test(correct=FALSE)
    "agresti_coull": "agresti_coull",
    "jeffreys": "jeffreys",
    "normal": "normal",        # Wald
}


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class ErrorRateResult(EvalResult):
    """Error rate on a fixed test set with a binomial confidence interval.

    Attributes
    ----------
    n_errors : int
        Number of misclassified test cases ``k``.
    interval_method : str
        Default interval: one of ``exact`` (Clopper–Pearson, the default), ``wilson``,
        ``agresti_coull``, ``jeffreys``, ``normal``; ``conf_int(method=...)`` gives any.
    null : float or None
        Error rate under the null hypothesis, if a test was requested.
    p_value : float or None
        Exact two-sided binomial p-value (R ``binom.test``) against ``null``.
    """

    n_errors: int = 0
    null: float | None = None
    p_value: float | None = None

    INTERVAL_METHODS = tuple(BINOMIAL_METHODS)

    def _interval(self, level: float, method: str = "") -> ConfidenceInterval:
        method = method or self.interval_method
        lo, hi = proportion_confint(self.n_errors, self.n, alpha=1 - level,
                                    method=BINOMIAL_METHODS[method])
        if method == "jeffreys":
            # Brown, Cai & DasGupta (2001): the equal-tailed Jeffreys interval must reach the
            # boundary when k = 0 or k = n, else it excludes the estimate itself.
            lo = 0.0 if self.n_errors == 0 else lo
            hi = 1.0 if self.n_errors == self.n else hi
        return ConfidenceInterval(float(max(lo, 0.0)), float(min(hi, 1.0)))

    def _glance_extra(self) -> dict[str, Any]:
        return dict(n_errors=self.n_errors, null=self.null, p_value=self.p_value)

    def _title(self) -> str:
        return "Error rate on a fixed test set"

    def _header(self) -> dict[str, Any]:
        hdr = super()._header()
        hdr["Errors"] = f"{format_value(self.n_errors)} of {format_value(self.n)}"
        return _with_test_header(self, hdr, "error rate")

    def _finding(self) -> str:
        errors = f"{format_value(self.n_errors)} error{'' if self.n_errors == 1 else 's'}"
        cases = f"{format_value(self.n)} test case{'' if self.n == 1 else 's'}"
        return _finding_with_test(self, "error rate", f"{errors} from {cases}",
                                  "two-sided exact binomial test")

    def plot(self, ax=None, **kwargs):
        """The binomial likelihood of the error rate with the interval shaded."""
        from ._result import _get_ax

        ax = _get_ax(ax)
        lo, hi = self.conf_int()
        width = max(hi - lo, 1.0 / self.n)
        p = np.linspace(max(0.0, lo - 1.5 * width), min(1.0, hi + 1.5 * width), 801)
        lik = stats.binom.pmf(self.n_errors, self.n, p)
        ax.plot(p, lik / lik.max(), **kwargs)
        ax.axvspan(lo, hi, alpha=0.2, label=f"{100 * self.confidence_level:g}% "
                   f"{_INTERVAL_NAMES[self.interval_method]} interval")
        ax.axvline(self.estimate, ls="--", color="k", lw=1, label=f"k/n = {self.estimate:.3f}")
        ax.set_xlabel("error rate")
        ax.set_ylabel("relative likelihood")
        ax.set_title(self._title())
        ax.legend(frameon=False)
        return ax


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class MeanLossResult(EvalResult):
    """Mean loss on a fixed test set with a t interval (R ``t.test``).

    Attributes
    ----------
    losses : ndarray
        The per-case losses (read-only).
    null : float or None
        Mean under the null hypothesis, if a test was requested.
    p_value : float or None
        Two-sided one-sample t-test p-value against ``null``.
    """

    losses: np.ndarray = None  # type: ignore[assignment]
    null: float | None = None
    p_value: float | None = None

    def _glance_extra(self) -> dict[str, Any]:
        return dict(df=self.df, null=self.null, p_value=self.p_value)

    def _title(self) -> str:
        return "Mean loss on a fixed test set"

    def _header(self) -> dict[str, Any]:
        return _with_test_header(self, super()._header(), "mean loss")

    def _finding(self) -> str:
        return _finding_with_test(self, "mean loss", f"from {format_value(self.n)} test cases",
                                  "two-sided one-sample t-test")

    def plot(self, ax=None, **kwargs):
        """Histogram of the per-case losses with the mean and its interval."""
        from ._result import _get_ax

        ax = _get_ax(ax)
        lo, hi = self.conf_int()
        counts, _, _ = ax.hist(self.losses, bins=min(30, max(5, int(np.sqrt(self.n)))),
                               alpha=0.6, **kwargs)
        # the interval is drawn as a marker with caps above the bars: a shaded band as
        # narrow as the interval of a large sample would not be seen
        top = 1.08 * float(np.max(counts))
        ax.errorbar([self.estimate], [top], xerr=[[self.estimate - lo], [hi - self.estimate]],
                    fmt="o", color="k", capsize=5, ms=4,
                    label=f"mean {self.estimate:.3g}, {100 * self.confidence_level:g}% "
                          f"t interval [{lo:.3g}, {hi:.3g}]")
        ax.set_ylim(0, 1.2 * float(np.max(counts)))
        ax.set_xlabel("loss")
        ax.set_ylabel("test cases")
        ax.set_title(self._title())
        ax.legend(frameon=False)
        return ax


def _with_test_header(res: ErrorRateResult | MeanLossResult, hdr: dict[str, Any],
                      what: str) -> dict[str, Any]:
    """The header with the test's p-value, when a null value was given."""
    if res.p_value is not None:
        hdr[f"p-value ({what} = {res.null:g})"] = res.p_value
    return hdr


def _finding_with_test(res: ErrorRateResult | MeanLossResult, what: str, tail: str,
                       test: str) -> str:
    """``"The <what> is <est> (<CI>): <tail>."``, then the test and its conclusion."""
    ci = _value_with_ci(res.estimate, *res.conf_int(), res.confidence_level)
    sep = " " if tail.startswith("from") else ": "
    text = f"The {what} is {ci}{sep}{tail}."
    if res.p_value is None:
        return text
    return f"{text} {test_sentence(res.p_value, res.confidence_level, what, res.null, test)}"


@named_result
def error_ci(y_true: Any, y_pred: Any, *, method: str = "exact",
             confidence_level: float = 0.95, null: float | None = None) -> ErrorRateResult:
    r"""Error rate of a fitted classifier on a test set, with a binomial interval.

    The number of errors :math:`k = \sum_i 1[\hat y_i \ne y_i]` on :math:`n` test
    cases drawn independently of the training data is Binomial(n, θ); the
    interval inverts that model.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        True and predicted labels, coded alike (numbers against numbers, strings against
        strings). Missing values (NaN, None, infinity) are refused: a missing label is not
        a mistake. Non-integer predictions against integer labels (probabilities or scores
        passed by mistake) are refused.
    method : {"exact", "wilson", "agresti_coull", "jeffreys", "normal"}
        Interval; ``"exact"`` is Clopper–Pearson (R ``binom.test``), computed by
        statsmodels ``proportion_confint``.
    confidence_level : float
        Default level of the interval.
    null : float, optional
        If given, the exact two-sided binomial p-value of H0: θ = ``null``
        (scipy ``binomtest``, same as R).

    Returns
    -------
    ErrorRateResult

    Raises
    ------
    ValueError
        Missing labels, probabilities given as predictions, unequal lengths.
    TypeError
        Numbers against strings (``1`` never equals ``"1"``).

    Warns
    -----
    InputWarning
        The two label vectors share no value although one has two or more classes (e.g.
        ``{0, 1}`` against ``{"no", "yes"}``): every case counts as an error.
    SmallSampleWarning
        The Wald interval with fewer than 10 errors or successes.

    See Also
    --------
    loss_ci : t interval for a mean loss.
    evalstats.cv_variance.cv_error_ci : interval for the error of a *learner*.

    Examples
    --------
    >>> import evalstats as es
    >>> res = es.error_ci([0, 1, 1, 0, 1, 1, 0, 0, 1, 1], [0, 1, 0, 0, 1, 1, 1, 0, 1, 1])
    >>> round(res.estimate, 2), [round(v, 4) for v in res.conf_int()]
    (0.2, [0.0252, 0.5561])
    """
    y_true, y_pred, method, confidence_level, null, mismatch = _error_ci_iv(
        y_true, y_pred, method, confidence_level, null)
    n = y_true.size
    k = int(np.sum(y_true != y_pred))
    notes = Notes()
    if mismatch:
        notes.warn(InputWarning, mismatch)
    if method == "normal" and min(k, n - k) < 10:
        notes.warn(SmallSampleWarning, f"the normal (Wald) interval is unreliable with {k} "
                   f"errors in {n} cases; use method='exact' or 'wilson'.")
    p_value = None
    if null is not None:
        p_value = float(stats.binomtest(k, n, null).pvalue)
    est = k / n
    return ErrorRateResult(
        estimate=est, std_error=float(np.sqrt(est * (1 - est) / n)),
        confidence_level=confidence_level, method=f"binomial ({method})", term="error",
        n=n, n_unit="test cases", n_errors=k, interval_method=method, null=null,
        p_value=p_value,
        call=dict(function="error_ci", method=method, confidence_level=confidence_level),
        notes=notes.as_tuple())


def _error_ci_iv(y_true, y_pred, method, confidence_level, null):
    method = check_option(method, "method", BINOMIAL_METHODS)
    confidence_level = check_confidence_level(confidence_level)
    y_true, y_pred, mismatch = check_label_pair(y_true, y_pred)
    check_consistent_length(y_true=y_true, y_pred=y_pred)
    if null is not None:
        null = check_scalar(null, "null", 0.0, 1.0)
    return y_true, y_pred, method, confidence_level, null, mismatch


@named_result
def loss_ci(losses: Any, *, confidence_level: float = 0.95,
            null: float | None = None) -> MeanLossResult:
    r"""Mean per-case loss with a Student-t interval, as R's ``t.test``.

    .. math:: \bar L \pm t_{n-1, 1-\alpha/2}\, s / \sqrt{n}

    Parameters
    ----------
    losses : array-like of shape (n,)
        Finite per-case losses of a fixed model on independent test cases.
    confidence_level : float
        Default level of the interval.
    null : float, optional
        If given, the two-sided one-sample t-test p-value of H0: E[L] = ``null``.

    Returns
    -------
    MeanLossResult

    Raises
    ------
    ValueError
        Non-finite losses, fewer than two, or losses so large (near 1e308) that the
        mean or the interval at ``confidence_level`` overflows double precision (computed
        on rescaled values, so only a result that cannot be represented is refused; an
        interval asked for later at a higher level may then have an infinite limit).

    Warns
    -----
    SmallSampleWarning
        All losses equal: the interval has zero width (also a note on the result).
    InputWarning
        Every loss is 0 or 1 (use :func:`error_ci`), or the interval's lower limit is below
        0 for nonnegative losses (the t approximation ignores the loss's range). The interval
        is still R's ``t.test`` interval; the note says it should not be read as is.

    See Also
    --------
    error_ci : binomial interval for the zero-one loss.

    Examples
    --------
    >>> import evalstats as es
    >>> res = es.loss_ci([0.1, 0.4, 0.35, 0.8, 0.2])
    >>> [round(v, 4) for v in res.conf_int()]   # R: t.test(c(.1,.4,.35,.8,.2))$conf.int
    [0.0368, 0.7032]
    """
    x, confidence_level, null = _loss_ci_iv(losses, confidence_level, null)
    n = x.size
    notes = Notes()
    # Work on x / scale so that sums and squares cannot overflow (losses near 1e308).
    scale = float(np.max(np.abs(x))) or 1.0
    z = x / scale
    if np.ptp(z) == 0.0:  # exactly constant: se is 0, not 1e-17 of rounding
        mean, se = float(x[0]), 0.0
        notes.warn(SmallSampleWarning, f"all {n} losses equal {x[0]:.6g}: the standard error "
                   "is 0 and the t interval has zero width; it says nothing about the "
                   "variability of the loss.")
    else:
        mean = float(np.mean(z) * scale)
        se = float(np.std(z, ddof=1) * scale / np.sqrt(n))
    q = critical_value(confidence_level, n - 1)
    if np.isin(x, (0.0, 1.0)).all() and np.ptp(x) > 0:
        notes.warn(InputWarning, "every loss is 0 or 1: these are zero-one losses, for which "
                   "the t interval can leave [0, 1]; error_ci(y_true, y_pred) gives the exact "
                   "binomial interval.")
    elif x.min() >= 0 and mean - q * se < 0:
        notes.warn(InputWarning, f"the t interval's lower limit at {confidence_level:.0%} is "
                   "below 0 although no loss is negative: the sample is too small or too "
                   "skewed for the t approximation to respect the loss's range.")
    if not (np.isfinite(mean) and np.isfinite(se) and np.isfinite(abs(mean) + q * se)):
        raise fail("losses", "small enough in magnitude for the mean and its interval to be "
                   "finite in double precision",
                   got=f"values up to {scale:.3g} in absolute value",
                   remedy="Rescale the losses (e.g. divide by 1e300) and scale the result "
                          "back.")
    p_value = None
    if null is not None:
        if se > 0:
            t = (mean - null) / se
            p_value = float(2 * stats.t.sf(abs(t), n - 1))
        else:
            p_value = float(mean == null)
    return MeanLossResult(
        estimate=mean, std_error=se, df=n - 1, confidence_level=confidence_level,
        method="one-sample t", term="mean_loss", n=n, n_unit="test cases", losses=x,
        null=null, p_value=p_value,
        call=dict(function="loss_ci", confidence_level=confidence_level),
        notes=notes.as_tuple())


def _loss_ci_iv(losses, confidence_level, null):
    confidence_level = check_confidence_level(confidence_level)
    x = check_array(losses, "losses", min_len=2)
    if null is not None:
        null = check_scalar(null, "null")
    return x, confidence_level, null


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class AUCResult(EvalResult):
    """AUC of fixed scores on a test set with DeLong's variance.

    Attributes
    ----------
    n_pos, n_neg : int
        Numbers of positive and negative test cases.
    placements_pos, placements_neg : ndarray
        DeLong's placement values V10 (per positive) and V01 (per negative).
    scores_pos, scores_neg : ndarray
        The scores of the positive and of the negative cases (for the ROC curve).
    pos_label : object
        The label taken as positive (``None``: ``y_true`` was coded 0/1).

    Methods
    -------
    roc_band(confidence_level=None)
        The empirical ROC curve with a simultaneous confidence band (DataFrame).
    plot(ax=None)
        The ROC curve with that band.
    """

    n_pos: int = 0
    n_neg: int = 0
    placements_pos: np.ndarray = None  # type: ignore[assignment]
    placements_neg: np.ndarray = None  # type: ignore[assignment]
    scores_pos: np.ndarray = None  # type: ignore[assignment]
    scores_neg: np.ndarray = None  # type: ignore[assignment]
    pos_label: Any = None

    def _interval(self, level: float, method: str = "") -> ConfidenceInterval:
        lo, hi = super()._interval(level, method)
        return ConfidenceInterval(max(lo, 0.0), min(hi, 1.0)) if np.isfinite(lo) else (
            ConfidenceInterval(lo, hi))

    def _glance_extra(self) -> dict[str, Any]:
        return dict(n_pos=self.n_pos, n_neg=self.n_neg)

    def _title(self) -> str:
        return "AUC on a fixed test set (DeLong)"

    def _finding(self) -> str:
        ci = _value_with_ci(self.estimate, *self.conf_int(), self.confidence_level)
        return (f"The AUC is {ci} from {format_value(self.n_pos)} positive and "
                f"{format_value(self.n_neg)} negative test cases.")

    def roc_band(self, confidence_level: float | None = None):
        r"""Empirical ROC curve with a *simultaneous* confidence band (Campbell 1994).

        Kolmogorov–Smirnov bands for the score distributions of each class, each at level
        :math:`\sqrt{\gamma}` (exact ``kstwo`` quantiles), give a band that holds for
        all false positive rates at once with probability at least γ (see
        :mod:`evalstats._roc`). It is wider than a pointwise band; it does not use
        DeLong's variance, which concerns the area only.

        Parameters
        ----------
        confidence_level : float, optional
            Level of the band (default: the result's ``confidence_level``).

        Returns
        -------
        pandas.DataFrame
            Columns ``fpr``, ``tpr``, ``tpr_low``, ``tpr_high`` on a grid of FPRs.
        """
        from ._roc import roc_band

        level = (self.confidence_level if confidence_level is None
                 else check_confidence_level(confidence_level))
        return roc_band(self.scores_pos, self.scores_neg, level)

    def plot(self, ax=None, **kwargs):
        """ROC curve with its simultaneous confidence band (see :meth:`roc_band`)."""
        from ._result import _get_ax
        from ._roc import plot_roc

        return plot_roc(self, _get_ax(ax), **kwargs)


@named_result
def auc_ci(y_true: Any, y_score: Any, *, pos_label: Any = None,
           confidence_level: float = 0.95) -> AUCResult:
    r"""AUC of a fixed scorer with DeLong's (1988) U-statistic variance.

    The AUC is the two-sample U-statistic :math:`\hat A = (mn)^{-1}\sum_i\sum_j
    \psi(X_i, Y_j)` with ψ = 1 if a positive's score X beats a negative's score Y, ½ for
    a tie. With placement values :math:`V_{10}(X_i) = n^{-1}\sum_j\psi(X_i, Y_j)` and
    :math:`V_{01}(Y_j) = m^{-1}\sum_i\psi(X_i, Y_j)`,

    .. math:: \widehat{\mathrm{Var}}(\hat A) = S_{10}/m + S_{01}/n,

    S the sample variances (divisor m − 1, n − 1). Placements are computed from mid-ranks
    in O(n log n) (Sun & Xu 2014): V10_i = (R_i − R^+_i)/n with R the rank in the pooled
    sample and R^+ the rank among positives. The interval is Â ± z·se clipped to [0, 1],
    as pROC's ``ci.auc(method = "delong")``. The interval is asymptotic: with few cases per
    class it covers less often than its nominal level.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels coded 0/1 (or booleans); any two labels when ``pos_label`` is given.
    y_score : array-like of shape (n,)
        Finite scores, higher meaning "more likely positive".
    pos_label : optional
        The label of the positive class (as scikit-learn's ``roc_auc_score``); the other
        label is negative. Must be one of the two labels in ``y_true``, of the same type.
    confidence_level : float

    Returns
    -------
    AUCResult

    Warns
    -----
    UndefinedEstimateWarning
        A class with a single case: its variance component is undefined (se is NaN).

    See Also
    --------
    evalstats.cv_variance.cv_error_ci : ``loss="auc"`` for the AUC of a *learner*.

    References
    ----------
    E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson (1988). Biometrics 44, 837–845.
    X. Sun, W. Xu (2014). Fast implementation of DeLong's algorithm. IEEE SPL 21, 1389.

    Examples
    --------
    >>> from evalstats.holdout import auc_ci
    >>> res = auc_ci([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9])
    >>> round(res.estimate, 4)
    0.8889
    """
    y, s, confidence_level = _auc_ci_iv(y_true, y_score, pos_label, confidence_level)
    m, n = int(y.sum()), int((1 - y).sum())
    pos, neg = s[y == 1], s[y == 0]
    pooled = stats.rankdata(s)
    v10 = (pooled[y == 1] - stats.rankdata(pos)) / n
    v01 = 1.0 - (pooled[y == 0] - stats.rankdata(neg)) / m
    auc = float(v10.mean())
    notes = Notes()
    if min(m, n) < 2:
        notes.warn(UndefinedEstimateWarning, f"only {min(m, n)} case in one class: DeLong's "
                   "variance is undefined; no interval.")
        se = float("nan")
    else:
        se = float(np.sqrt(v10.var(ddof=1) / m + v01.var(ddof=1) / n))
        if se == 0.0:
            notes.warn(SmallSampleWarning, "the classes are perfectly separated (or all "
                       "scores tie): DeLong's standard error is 0 and the interval has zero "
                       "width.")
    return AUCResult(
        estimate=auc, std_error=se, confidence_level=confidence_level, method="DeLong",
        term="auc", n=m + n, n_unit="test cases", n_pos=m, n_neg=n, placements_pos=v10,
        placements_neg=v01, scores_pos=pos, scores_neg=neg, pos_label=pos_label,
        call=dict(function="auc_ci", pos_label=pos_label, confidence_level=confidence_level),
        notes=notes.as_tuple())


def _auc_ci_iv(y_true, y_score, pos_label, confidence_level):
    confidence_level = check_confidence_level(confidence_level)
    y = binary_indicator(y_true, "y_true", pos_label)
    s = check_array(y_score, "y_score")
    if s.ndim != 1:
        raise fail("y_score", "1-dimensional", got=f"shape {s.shape}")
    check_consistent_length(y_true=y, y_score=s)
    m, n = int(y.sum()), int((1 - y).sum())
    if m == 0 or n == 0:
        raise fail("y_true", "contain both classes", verb="must",
                   got=f"{m} positives and {n} negatives")
    return y, s, confidence_level
