r"""Result classes of ``cv_variance``: :class:`CVErrorResult`, :class:`CompareLearnersResult`.

Interval methods (stored in the one field ``interval_method``; ``conf_int(method=...)``
recomputes any of them from the stored estimate, standard error and df):

* ``"t"`` — Θ̂ ± q·se;
* ``"log"`` — exp(log Θ̂ ± q·se/Θ̂) (delta method on the log scale; non-negative losses);
* ``"logit"`` — the same on the logit scale of the declared range [a, b] (bounded losses:
  zero-one, AUC): p = (Θ̂ − a)/(b − a), logit p ± q·se/((b − a)p(1 − p));
  where a transformed interval is undefined (Θ̂ on the edge of the range, logit of an
  unbounded loss) ``conf_int`` gives the t interval;
* ``"normal"`` — Θ̂ ± z·se (the source's asymptotic interval).

q is :func:`evalstats._result.critical_value` with the result's ``df``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .._result import ConfidenceInterval, EvalResult, _get_ax, critical_value, wald_interval

__all__ = ["CVErrorResult", "CompareLearnersResult", "INTERVAL_METHODS", "transformed_ok"]

#: interval methods of a single learner's result (first: the class default)
INTERVAL_METHODS = ("t", "log", "logit", "normal")


def _clip(lo, hi, bounds) -> ConfidenceInterval:
    return ConfidenceInterval(float(np.clip(lo, *bounds)), float(np.clip(hi, *bounds)))


def diff_range(bounds) -> tuple[float, float]:
    """Range of a difference of two losses with range ``bounds``."""
    return (bounds[0] - bounds[1], bounds[1] - bounds[0])


def transformed_ok(method: str, estimate: float, bounds) -> bool:
    """Whether the log/logit interval is defined at ``estimate`` for a loss in ``bounds``."""
    lo, hi = bounds
    if method == "log":
        return lo >= 0 and estimate > 0
    if method == "logit":
        return np.isfinite(lo) and np.isfinite(hi) and lo < estimate < hi
    return True


def _transformed(method, est, se, q, bounds) -> tuple[float, float]:
    if method == "log":
        h = q * se / est
        with np.errstate(over="ignore"):
            return est * np.exp(-h), est * np.exp(h)
    a, b = bounds
    p = (est - a) / (b - a)
    h = q * se / ((b - a) * p * (1 - p))
    eta = np.log(p / (1 - p))
    return a + (b - a) / (1 + np.exp(-(eta - h))), a + (b - a) / (1 + np.exp(-(eta + h)))


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class CVErrorResult(EvalResult):
    r"""Expected loss θ(g) of a learner trained on ``g`` observations, with an interval.

    Attributes
    ----------
    train_size : int
        Learning-set size g (the estimand is θ(g)).
    loss : str
        Loss name (``"auc"``: the estimate is an AUC, higher is better).
    interval_method : {"t", "log", "logit", "normal"}
        Default interval of ``conf_int()`` (see the module docstring); baselines use
        ``"t"`` with their own df.
    std_error : float
        √(V̂ + se_MC(Θ̂)²): the variance of the Monte-Carlo estimate includes the noise
        of the draws.
    variance_estimate : float
        V̂ as computed (may be negative: see ``variance_fallback``).
    variance_mc_se, mc_se : float
        Monte-Carlo standard errors of V̂ and Θ̂ (randomness of the draws, data fixed).
    leading_variance : float
        The first-order (Hájek) term m²ζ₁/n of Var(Θ̂) estimated from the same draws.
    n_draws, n_fits : int
        Draws (pairs of disjoint learning sets) and model fits used.
    variance_fallback : str
        ``""`` when V̂ > 0 was used; ``"leading_term"`` or ``"bound"`` when V̂ stayed ≤ 0
        and the leading term (or, if that is not positive either, the conservative
        bound) replaced it.
    hoeffding_bound, hoeffding_draws : float
        The talk's bound 2·exp(−δ²N/2) on P(|V̂_N − V̂| ≥ δ) with δ = mc_tol·V̂, and the
        number of draws it would need to reach 5 % (losses in [0, 1] only, else NaN).
    split_scores : ndarray or None
        Per-split scores of a baseline method.
    loss_range : (float, float)
        Declared range of the loss; intervals are clipped to it.
    """

    train_size: int = 0
    loss: str = "zero_one"
    variance_estimate: float = float("nan")
    variance_mc_se: float = float("nan")
    mc_se: float = float("nan")
    leading_variance: float = float("nan")
    n_draws: int = 0
    n_fits: int = 0
    variance_fallback: str = ""
    hoeffding_bound: float = float("nan")
    hoeffding_draws: float = float("nan")
    split_scores: np.ndarray | None = None
    loss_range: tuple = (-np.inf, np.inf)

    INTERVAL_METHODS: ClassVar[tuple[str, ...]] = INTERVAL_METHODS

    @property
    def interval(self) -> str:
        """Deprecated spelling of ``interval_method``."""
        import warnings

        warnings.warn("`interval` is deprecated; use `interval_method`", FutureWarning,
                      stacklevel=2)
        return self.interval_method

    def _interval(self, level: float, method: str) -> ConfidenceInterval:
        if self.std_error is None or not np.isfinite(self.std_error):
            return ConfidenceInterval(float("nan"), float("nan"))
        if method in ("log", "logit") and not transformed_ok(method, self.estimate,
                                                             self.loss_range):
            method = "t"  # undefined (boundary, or logit of an unbounded loss): t interval
        if method in ("log", "logit"):
            lo, hi = _transformed(method, self.estimate, self.std_error,
                                  critical_value(level, self.df), self.loss_range)
        else:
            lo, hi = wald_interval(self.estimate, self.std_error, level,
                                   None if method == "normal" else self.df)
        return _clip(lo, hi, self.loss_range)

    def _glance_extra(self) -> dict[str, Any]:
        return dict(train_size=self.train_size, loss=self.loss,
                    interval_method=self.interval_method,
                    variance_estimate=self.variance_estimate,
                    variance_mc_se=self.variance_mc_se, mc_se=self.mc_se,
                    leading_variance=self.leading_variance, df=self.df,
                    n_draws=self.n_draws, n_fits=self.n_fits,
                    variance_fallback=self.variance_fallback)

    def _title(self) -> str:
        return f"Expected {'AUC' if self.loss == 'auc' else 'loss'} of a learner (θ(g))"

    def _header(self) -> dict[str, Any]:
        hdr = super()._header()
        hdr["Learning-set size g"] = self.train_size
        hdr["Loss"] = self.loss
        hdr["Interval"] = self.interval_method if self.df is None else (
            f"{self.interval_method} (t quantile, df = {self.df:.3g})")
        if self.method == "ustat":
            hdr["Variance estimate V"] = self.variance_estimate
            hdr["MC s.e. of estimate / of V"] = f"{self.mc_se:.3g} / {self.variance_mc_se:.3g}"
            hdr["Draws / fits"] = f"{self.n_draws} / {self.n_fits}"
            if self.variance_fallback:
                hdr["Variance fallback"] = self.variance_fallback
        else:
            hdr["Fits"] = self.n_fits
        return hdr

    def _axis_label(self) -> str:
        if self.loss == "auc":
            return "AUC of the learner trained on g observations"
        name = {"zero_one": "error rate (0-1 loss)", "squared": "mean squared error",
                "log": "log loss"}.get(self.loss, f"loss ({self.loss})")
        return f"expected {name}"

    def plot(self, ax=None, **kwargs):
        """The interval at 80/90/95/99 % (and the split scores of a baseline); an Axes."""
        ax = _get_ax(ax)
        if self.split_scores is not None:
            s = np.asarray(self.split_scores, float).ravel()
            ax.plot(s, np.zeros_like(s), "|", ms=20, color="grey", label="split scores")
        for k, lev in enumerate((0.8, 0.9, 0.95, 0.99)):
            lo, hi = self.conf_int(lev)
            ax.plot([lo, hi], [k + 1, k + 1], lw=3, **kwargs)
            ax.text(hi, k + 1, f" {100 * lev:g}%", va="center")
        ax.axvline(self.estimate, color="k", ls="--", lw=1, label=f"estimate {self.estimate:.3g}")
        self._decorate(ax)
        ax.set_yticks([])
        ax.set_xlabel(self._axis_label())
        ax.set_title(f"{self._title()}, g = {self.train_size}, {self.method}")
        ax.legend(frameon=False, loc="lower right")
        return ax

    def _decorate(self, ax) -> None:
        """Hook for subclasses (the comparison adds the zero line)."""


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
        Test of H0: θ_A = θ_B (t with ``df``), two-sided.
    names : tuple of str
        Names of the two learners.
    interval_method : {"t", "normal"}
        A difference can be negative: no log/logit interval.
    """

    estimate_a: float = float("nan")
    estimate_b: float = float("nan")
    std_error_a: float = float("nan")
    std_error_b: float = float("nan")
    covariance: float = float("nan")
    statistic: float = float("nan")
    p_value: float = float("nan")
    names: tuple = ("A", "B")

    INTERVAL_METHODS: ClassVar[tuple[str, ...]] = ("t", "normal")

    def _tidy_rows(self, level: float, method: str) -> list[dict[str, Any]]:
        rows = super()._tidy_rows(level, method)
        rows[0].update(statistic=self.statistic, p_value=self.p_value)
        for name, est, se in ((self.names[0], self.estimate_a, self.std_error_a),
                              (self.names[1], self.estimate_b, self.std_error_b)):
            lo, hi = _clip(*wald_interval(est, se, level, self.df), self.loss_range)
            rows.append(dict(term=f"{self.loss} {name}", estimate=est, std_error=se,
                             conf_low=lo, conf_high=hi, confidence_level=level,
                             method=self.method, statistic=np.nan, p_value=np.nan))
        return rows

    def _interval(self, level: float, method: str) -> ConfidenceInterval:
        lo, hi = wald_interval(self.estimate, self.std_error, level,
                               None if method == "normal" else self.df)
        return _clip(lo, hi, diff_range(self.loss_range))

    def _glance_extra(self) -> dict[str, Any]:
        out = super()._glance_extra()
        out.update(statistic=self.statistic, p_value=self.p_value, covariance=self.covariance)
        return out

    def _title(self) -> str:
        return f"Comparing two learners: {self.names[0]} - {self.names[1]}"

    def _axis_label(self) -> str:
        what = "AUC" if self.loss == "auc" else super()._axis_label()
        return f"difference in {what} ({self.names[0]} − {self.names[1]})"

    def _decorate(self, ax) -> None:
        ax.axvline(0.0, color="firebrick", lw=1.2, label="no difference")

    def _header(self) -> dict[str, Any]:
        hdr = super()._header()
        hdr["p-value (H0: equal expected loss)"] = self.p_value
        return hdr
