"""A-priori labeling budget: expected standard errors of active and passive estimation."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._naming import named_result
from .._result import Reportable, _get_ax, critical_value
from .._validation import check_array, check_confidence_level, check_scalar, fail
from .._warnings import UndefinedEstimateWarning
from ._measures import measure_spec
from ._optimal_proposal import Proposal, pool_iv
from ._proposal_mix import build_proposal

__all__ = ["BudgetForecast", "active_budget"]


def _expected_distinct(q: np.ndarray, draws: np.ndarray, max_items: int = 1_000_000,
                       ) -> np.ndarray:
    """``E[distinct items] = Σ_x 1 − (1 − q_x)^k`` (on a fixed subsample for huge pools)."""
    n = q.shape[0]
    qs = q if n <= max_items else q[np.linspace(0, n - 1, max_items).astype(int)]
    scale = n / qs.shape[0]
    lq = np.log1p(-np.minimum(qs, 1 - 1e-15))
    return np.array([scale * float(np.sum(-np.expm1(k * lq))) for k in draws])


def _draws_for_labels(q: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Expected number of draws to reach each number of distinct labels (interpolated)."""
    n = q.shape[0]
    kmax = float(max(labels.max(), 1))
    while _expected_distinct(q, np.array([kmax]))[0] < min(labels.max(), 0.999 * n):
        kmax *= 2
        if kmax > 1e12:
            break
    grid = np.unique(np.geomspace(1, kmax, 120))
    dist = _expected_distinct(q, grid)
    return np.interp(labels, dist, grid, right=np.inf)


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class BudgetForecast(Reportable):
    """Expected standard errors of active and passive estimation before any label is bought.

    A forecast, not an estimate: it trusts the model's probabilities.

    Attributes
    ----------
    table : DataFrame
        Per number of labels: expected draws, standard error and half-width for the active
        and the passive estimator.
    half_width : float or None
        The target half-width, when given.
    labels_needed_active, labels_needed_passive : float
        Distinct labels expected to reach ``half_width`` (NaN without a target).
    expected_gain : float
        Model-expected variance ratio passive / active per draw.
    confidence_level : float
        Level of the half-widths.
    proposal : Proposal
        The proposal the forecast is computed for.
    """

    confidence_level: float = 0.95
    table: pd.DataFrame | None = None
    half_width: float | None = None
    labels_needed_active: float = float("nan")
    labels_needed_passive: float = float("nan")
    expected_gain: float = float("nan")
    proposal: Proposal | None = None

    def _title(self) -> str:
        return self.name or f"Labeling budget forecast for {self.proposal.term}"

    @property
    def estimate(self) -> float:
        """Labels needed (active) for ``half_width``, else the model's plug-in value."""
        return (self.labels_needed_active if self.half_width is not None
                else self.proposal.plug_in)

    def _tidy_rows(self) -> list[dict[str, Any]]:
        return self.table.assign(confidence_level=self.confidence_level).to_dict("records")

    def _main_table(self) -> tuple[str, pd.DataFrame]:
        return ("Expected precision by number of labels", self.tidy())

    def _repr_body(self) -> str:
        if self.half_width is not None:
            return (f"{self.proposal.term}: {self.labels_needed_active:g} labels active vs "
                    f"{self.labels_needed_passive:g} passive for half-width {self.half_width:g}")
        return f"{self.proposal.term}: expected gain {self.expected_gain:.3g}x over passive"

    def _header(self) -> dict[str, Any]:
        hdr = super()._header()
        hdr.update({"Pool size": self.proposal.n_pool,
                    "Model's plug-in estimate": self.proposal.plug_in,
                    "Expected variance ratio (passive / active)": self.expected_gain})
        if self.half_width is not None:
            hdr[f"Labels for half-width {self.half_width:g} (active)"] = \
                self.labels_needed_active
            hdr[f"Labels for half-width {self.half_width:g} (passive)"] = \
                self.labels_needed_passive
        return hdr

    def _glance_extra(self) -> dict[str, Any]:
        return dict(half_width=self.half_width, labels_needed_active=self.labels_needed_active,
                    labels_needed_passive=self.labels_needed_passive,
                    expected_gain=self.expected_gain)

    def plot(self, ax=None, **kwargs):
        """Expected standard error against distinct labels, active and passive."""
        ax = _get_ax(ax)
        t = self.table
        ax.plot(t["n_labels"], t["se_active"], label="active (optimal proposal)", **kwargs)
        ax.plot(t["n_labels"], t["se_passive"], "--", label="passive (uniform)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("distinct labels")
        ax.set_ylabel("expected standard error")
        ax.set_title(self._title())
        ax.legend(fontsize="small")
        return ax


def _draws_for_half_width(var: float, half_width: float, level: float) -> float:
    """Smallest ``n`` with ``t_{n-1} sqrt(var / n) <= half_width`` (fixed-point iteration)."""
    z = critical_value(level)
    n = max((z / half_width) ** 2 * var, 2.0)
    for _ in range(50):
        n_new = max((critical_value(level, n - 1) / half_width) ** 2 * var, 2.0)
        if abs(n_new - n) < 1e-6:
            break
        n = n_new
    return float(np.ceil(n))


@named_result
def active_budget(scores: Any, measure: str = "f1", *, predictions: Any = None,
                  beta: float = 1.0, alpha: float | None = None, variance: Any = None,
                  epsilon: float = 0.1, half_width: float | None = None,
                  n_labels: Any = None, confidence_level: float = 0.95) -> BudgetForecast:
    r"""A-priori labeling budget: expected standard error of active vs passive estimation.

    From the model's own probabilities: the per-draw asymptotic variances
    ``σ̃²_q = Σ p² r / q / E[w]²`` of the optimal proposal and of uniform sampling, the expected
    standard error ``sqrt(σ̃²/n)`` after ``n`` draws, and the expected number of distinct
    labels after ``n`` draws, ``Σ_x 1 − (1 − q_x)^n`` (repeats are free). The labels needed
    for a target half-width solve ``t_{n−1} sqrt(σ̃²/n) = half_width``.

    The forecast is for the papers' with-replacement design, not for the default πps design
    (without replacement; usually, not always, more precise at the same number of labels).

    The forecast is only as good as the calibration of ``scores``: with overconfident scores
    it is optimistic; the defensive mixture bounds the loss at 1/ε.

    Parameters
    ----------
    scores, measure, predictions, beta, alpha, variance, epsilon
        As in :func:`optimal_proposal`.
    half_width : float, optional
        Target half-width of the interval.
    n_labels : array_like of int, optional
        Budgets for the table (default 50, 100, 200, 500, 1000, 2000, 5000 within the pool).
    confidence_level : float

    See Also
    --------
    optimal_proposal, active_evaluate

    Examples
    --------
    >>> import evalstats as es
    >>> from evalstats.active import active_budget
    >>> pool = es.datasets.load("sim_pool")
    >>> plan = active_budget(pool["prob"], "f1", predictions=pool["pred"], half_width=0.05)
    >>> plan.labels_needed_active < plan.labels_needed_passive
    True
    """
    level = check_confidence_level(confidence_level)
    spec = measure_spec(measure, beta, alpha)
    epsilon = check_scalar(epsilon, "epsilon", 0.0, 1.0)
    pool = pool_iv(scores, spec, predictions, variance)
    prop = build_proposal(pool, spec, "optimal", epsilon)
    n_pool = pool.size
    if half_width is not None:
        half_width = check_scalar(half_width, "half_width", 0.0, low_inclusive=False)
    if n_labels is None:
        grid = np.array([b for b in (50, 100, 200, 500, 1000, 2000, 5000) if b <= n_pool])
        grid = grid if len(grid) else np.array([n_pool])
    else:
        grid = check_array(np.atleast_1d(np.asarray(n_labels)) if np.ndim(n_labels) == 0
                           else n_labels, "n_labels").astype(float)
        if grid.min() < 1 or grid.max() > n_pool:
            raise fail("n_labels", f"numbers of labels in [1, {n_pool}]",
                       got=f"values in [{grid.min():g}, {grid.max():g}]")
    uniform = np.full(n_pool, 1.0 / n_pool)
    d_act = _draws_for_labels(prop.q, grid)
    d_pas = _draws_for_labels(uniform, grid)
    se_a = np.sqrt(prop.expected_variance / d_act)
    se_p = np.sqrt(prop.passive_variance / d_pas)
    tq = critical_value(level, np.maximum(np.minimum(d_act, 1e9) - 1, 1))
    tp = critical_value(level, np.maximum(np.minimum(d_pas, 1e9) - 1, 1))
    table = pd.DataFrame(dict(n_labels=grid.astype(int), n_draws_active=d_act,
                              se_active=se_a, half_width_active=tq * se_a,
                              n_draws_passive=d_pas, se_passive=se_p,
                              half_width_passive=tp * se_p))
    need_a = need_p = float("nan")
    notes = tuple(prop.notes)
    if not prop.expected_variance > 0:
        msg = ("[UndefinedEstimateWarning] The model anticipates zero variance for "
               f"{spec.name} (e.g. it predicts no positives, so the measure is fixed under "
               "the model's own probabilities): no forecast of labels is possible; check the "
               "scores and predictions.")
        warnings.warn(msg[len("[UndefinedEstimateWarning] "):], UndefinedEstimateWarning,
                      stacklevel=2)
        notes += (msg,)
    elif half_width is not None and np.isfinite(prop.expected_variance):
        na = _draws_for_half_width(prop.expected_variance, half_width, level)
        npas = _draws_for_half_width(prop.passive_variance, half_width, level)
        need_a = float(np.ceil(_expected_distinct(prop.q, np.array([na]))[0]))
        need_p = float(np.ceil(_expected_distinct(uniform, np.array([npas]))[0]))
    return BudgetForecast(
        confidence_level=level, call=dict(function="active_budget", measure=measure,
                                       half_width=half_width, epsilon=epsilon),
        notes=notes, table=table, half_width=half_width, labels_needed_active=need_a,
        labels_needed_passive=need_p, expected_gain=prop.expected_gain, proposal=prop)

