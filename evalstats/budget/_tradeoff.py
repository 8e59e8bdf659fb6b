"""Equal-bound points of the paper's Section 3.3: ε*_O+(U), the prevalence ratio
ε*_O+(U)/ε_O+(S) (the paper's α, eq 3.24), positives to label (eq 3.23), cost weights
(Section 3.4), and the ratio maps of Figures 1-3.

The paper calls the ratio α; in evalstats ``alpha`` is reserved for the weight of the
F_α-measure, so the ratio is called ``prevalence_ratio`` here (:func:`ratio_map`; the old
name :func:`alpha_map` still works with a ``FutureWarning``).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._naming import named_result
from .._render.format import format_value
from .._result import Reportable, _get_ax
from .._validation import check_int, check_option, check_scalar, fail
from .._warnings import Notes
from . import _scan as _bp
from ._common import costs_iv

__all__ = ["TradeoffResult", "ratio_map", "alpha_map", "tradeoff"]


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class TradeoffResult(Reportable):
    """Equal-bound points ε*_O+(U) and prevalence ratios for the pairs of Section 3.3.

    A set of closed-form points, not an estimate: no interval. ``tidy()`` is
    :attr:`table`; ``glance()`` is one row: ``prevalence``, ``rule_rate``, ``n_pool`` and
    ``n_labels`` (None unless given), one ``prevalence_ratio_<pair>`` column per pair
    (the pair's name with underscores, e.g. ``prevalence_ratio_precision_specificity``)
    and ``n_notes``.

    Attributes
    ----------
    table : DataFrame
        One row per pair: ``pair, eps_unlabeled`` (the prevalence ε*_O+(U) of the
        unlabeled items at which the pair's bounds are equal), ``prevalence_ratio`` (the
        paper's α = ε*_O+(U)/ε_O+(S), eq 3.24), ``cost_ratio, label_more`` and, when
        ``n_pool`` and ``n_labels`` are given, ``n_positive`` (positives among the labels,
        eq 3.23).
    prevalence, rule_rate : float
        The pool's prevalence ε_O+(S) and the rules' positive rate ε_R+(S).
    n_pool, n_labels : int or None
        The pool's size and the labels, when given.
    """

    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    prevalence: float = 0.0
    rule_rate: float = 0.0
    n_pool: int | None = None
    n_labels: int | None = None

    _default_title = "Prevalence of the unlabeled items at which two bounds are equal"

    @property
    def estimate(self) -> float:
        """Deprecated: the prevalence ratio for precision vs specificity."""
        warnings.warn("TradeoffResult.estimate is deprecated (a trade-off point is not an "
                      "estimate); use table['prevalence_ratio'].", FutureWarning, stacklevel=2)
        return float(self.table["prevalence_ratio"].iloc[0])

    def _tidy_rows(self):
        return self.table.to_dict("records")

    def _main_table(self):
        words = {"eps_unlabeled": "unlabeled prevalence", "label_more": "Label more",
                 "n_positive": "positives to label"}
        table = self.tidy()
        if (table["cost_ratio"] == 1).all():
            table = table.drop(columns="cost_ratio")
        return ("Equal-bound points (Valizadegan et al. 2012, Section 3.3)",
                table.rename(columns=words))

    def _glance_extra(self):
        ratios = {f"prevalence_ratio_{p.replace('-', '_')}": r for p, r in
                  zip(self.table["pair"], self.table["prevalence_ratio"], strict=True)}
        return dict(prevalence=self.prevalence, rule_rate=self.rule_rate, n_pool=self.n_pool,
                    n_labels=self.n_labels, **ratios)

    def _header(self):
        hdr = {"Prevalence of the pool": self.prevalence,
               "Rules' positive rate": self.rule_rate}
        if self.n_pool is not None:
            hdr.update({"Pool": f"{self.n_pool:,} items", "Labels": self.n_labels})
        hdr.update(super()._header())
        return hdr

    def _finding(self) -> str:
        t = self.table.set_index("pair")

        def at(pair):
            r, e = t.loc[pair, "prevalence_ratio"], t.loc[pair, "eps_unlabeled"]
            return f"{format_value(r, 2)} times the pool's ({format_value(e, 2)})"
        more = set(t["label_more"])
        conclusion = (f"label more {more.pop()} than a random sample would" if len(more) == 1
                      else "which class to label more depends on the pair")
        return ("The small-budget bounds of precision and specificity are equal when the "
                f"prevalence of the unlabeled items is {at('precision-specificity')}, those "
                f"of sensitivity and specificity at {at('sensitivity-specificity')}, and "
                "both, when the rules' positive rate equals the prevalence, at "
                f"{at('rule-rate-equals-prevalence')}: {conclusion}.")

    def _repr_body(self) -> str:
        r = self.table.set_index("pair")["prevalence_ratio"]
        return ("prevalence_ratio: " + ", ".join(f"{p}={format_value(v, 3)}"
                                                  for p, v in r.items()))

    def plot(self, ax=None, pair: str = "precision-specificity", **kwargs):
        """Ratio map of the paper's Figures 1-3 with this problem marked."""
        ax = ratio_map(pair, ax=ax, **kwargs)
        ax.plot([self.prevalence], [self.rule_rate], "r*", ms=12)
        return ax


def ratio_map(pair: str = "precision-specificity", ax=None, cost_ratio: float = 1.0,
              n_grid: int = 99, **kwargs):
    """Contour map of the prevalence ratio ε*_O+(U)/ε_O+(S) (the paper's α) over
    ε_O+(S) (x) and ε_R+(S) (y).

    Figures 1 (precision-specificity), 2 (sensitivity-specificity) and 3
    (rule-rate-equals-prevalence, a function of ε_O+(S) only) of the paper.

    See Also
    --------
    tradeoff : the same ratio at one (ε_O+(S), ε_R+(S)).
    LabelPlan.plot : ``kind=pair`` draws this map with the plan's problem marked.
    """
    pair = check_option(pair, "pair", _bp.PAIRS)
    n_grid = check_int(n_grid, "n_grid", low=2)
    cost_ratio = check_scalar(cost_ratio, "cost_ratio", 0, None, low_inclusive=False)
    ax = _get_ax(ax)
    g = np.linspace(0.01, 0.99, n_grid)
    es, er = np.meshgrid(g, g)
    if pair == "rule-rate-equals-prevalence":
        er = es
    ratio = _bp.balance_eps(es, er, pair, cost_ratio) / es
    cs = ax.contourf(es, np.meshgrid(g, g)[1], ratio, levels=np.linspace(0, 1, 11),
                     extend="max", **kwargs)
    ax.figure.colorbar(cs, ax=ax, label="unlabeled prevalence / pool prevalence")
    ax.set_xlabel("prevalence of the pool")
    ax.set_ylabel("rules' positive rate")
    ax.set_title(f"Prevalence ratio at equal bounds, {pair}")
    return ax


def alpha_map(*args, **kwargs):
    """Deprecated name of :func:`ratio_map` (``alpha`` is reserved for the F-weight)."""
    warnings.warn("alpha_map is deprecated; use ratio_map (in evalstats `alpha` is the "
                  "F-measure weight).", FutureWarning, stacklevel=2)
    return ratio_map(*args, **kwargs)


@named_result
def tradeoff(prevalence: float, rule_rate: float, *, n_pool: int | None = None,
             n_labels: int | None = None, costs: Mapping[str, float] | None = None
             ) -> TradeoffResult:
    r"""Equal-bound points of ε_O+(U), the prevalence ratio (eq 3.24) and the positives to
    label (eq 3.23).

    Parameters
    ----------
    prevalence : float
        ε_O+(S) in (0, 1).
    rule_rate : float
        ε_R+(S) in (0, 1).
    n_pool, n_labels : int, optional
        |S| and the budget |L|; when given, eq 3.23 gives |L_O+| for each pair.
    costs : mapping, optional
        Cost weights per measure (Section 3.4), e.g. ``{"specificity": 2}``. They multiply
        the *squared* bounds (variance scale), as in the paper: the equality
        C_a B_a² = C_sp B_sp² is solved. For weights on the error scale pass their squares.

    Returns
    -------
    TradeoffResult

    Notes
    -----
    Setting the small-budget squared bounds (3.19)-(3.21) equal gives (3.22)
    :math:`ε^* = A/((1-ε_S)^3 + A)`, :math:`A = ε_{R+}ε_{R-}ε_S`, (3.25)
    :math:`ε^* = ε_S^3ε_{R-}/(ε_S^3ε_{R-} + (1-ε_S)^3ε_{R+})` and, for ε_R+ = ε_S,
    (3.29) :math:`ε^* = ε_S^2/(ε_S^2 + (1-ε_S)^2)`. These are *crossings*, not optima:
    under (3.19)-(3.21) both bounds fall as ε_O+(U) falls (for ε < 1/3), and under the
    exact model all three errors fall when more positives are labeled while
    ε_O+(U) < 1/2 (see ``plan_labels``).

    See Also
    --------
    plan_labels, ratio_map

    Examples
    --------
    >>> from evalstats.budget import tradeoff
    >>> eps = 23_257 / 581_012  # covtype, classes 4 and 7
    >>> t = tradeoff(eps, eps, n_pool=581_012, n_labels=23_257)
    >>> round(float(t.table["prevalence_ratio"].iloc[2]), 4)
    0.0434
    """
    es, er, cost, n_pool, n_labels = _tradeoff_iv(prevalence, rule_rate, n_pool, n_labels,
                                                  costs)
    rows = []
    for pair in _bp.PAIRS:
        other = "sensitivity" if pair.startswith("sensitivity") else "precision"
        ratio = cost["specificity"] / cost[other]
        eps = float(_bp.balance_eps(es, er, pair, ratio))
        row = dict(pair=pair, eps_unlabeled=eps, prevalence_ratio=eps / es, cost_ratio=ratio,
                   label_more="positives" if eps < es else "negatives")
        if n_pool is not None:
            row["n_positive"] = float(_bp.positives_for_eps(n_pool, es, n_labels, eps))
        rows.append(row)
    table = pd.DataFrame(rows)
    notes = Notes()
    notes.add("Equal-bound points are crossings of the paper's small-budget bounds "
              "(3.19)-(3.21), not optima; under the exact model labeling positives lowers "
              "all three errors while the prevalence of the unlabeled items is below 1/2.")
    return TradeoffResult(call=dict(function="tradeoff", prevalence=es, rule_rate=er),
                          notes=notes.as_tuple(), table=table, prevalence=es, rule_rate=er,
                          n_pool=n_pool, n_labels=n_labels)


def _tradeoff_iv(prevalence, rule_rate, n_pool, n_labels, costs):
    """Normalised arguments of :func:`tradeoff` (raises on bad input)."""
    es = check_scalar(prevalence, "prevalence", 0, 1, low_inclusive=False, high_inclusive=False)
    er = check_scalar(rule_rate, "rule_rate", 0, 1, low_inclusive=False, high_inclusive=False)
    cost = costs_iv(costs)
    if (n_pool is None) != (n_labels is None):
        raise fail("n_labels", "given together with `n_pool` (or both omitted)",
                   got=f"n_pool={n_pool!r}, n_labels={n_labels!r}")
    if n_pool is not None:
        n_pool = check_int(n_pool, "n_pool", low=2)
        n_labels = check_int(n_labels, "n_labels", low=1, high=n_pool)
    return es, er, cost, n_pool, n_labels
