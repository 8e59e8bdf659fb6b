"""The one reading of an evaluator's ``scores``: the design they allow and the probabilities
of the pool, with raw margins (log-odds) turned into probabilities once, here.

:func:`~._optimal_proposal.pool_iv` then validates the probabilities (with the predictions
and variances) for every active-estimation function; the designs read the scores as given
from :class:`PoolScores` and never test them for margins again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from .._validation import check_array, check_option, check_probability_matrix, fail
from ._measures import MeasureSpec

__all__ = ["PoolScores", "DEFAULT_DESIGN", "DESIGNS", "design_iv", "log_odds", "pool_scores"]

#: the design used for binary pools when ``design=None``
DEFAULT_DESIGN = "pps"
DESIGNS = ("pps", "with_replacement")


@dataclass(frozen=True)
class PoolScores:
    """An evaluator's scores, read once.

    Attributes
    ----------
    design : str
        The design (``design=None`` resolved).
    probs : array_like
        What :func:`~._optimal_proposal.pool_iv` validates as the pool's probabilities
        (or means, for squared loss).
    raw : ndarray or None
        The one-dimensional scores as given, where a design keeps them: the πps ranking
        (its model's covariate), and margins to recalibrate with replacement.
    margins : bool
        ``raw`` holds margins (log-odds), not probabilities.
    doubt : str
        Why the reading as margins may be a mistake (empty if it is not in doubt).
    """

    design: str
    probs: Any
    raw: np.ndarray | None = None
    margins: bool = False
    doubt: str = ""

    @property
    def placeholder(self) -> bool:
        """With replacement, margins give no probabilities until recalibrated: ``probs``
        is then a uniform placeholder (the first batch is drawn passively)."""
        return self.margins and self.design == "with_replacement"


def log_odds(raw: np.ndarray, margins: bool) -> np.ndarray:
    """The log-odds of scores kept as given (margins are log-odds already)."""
    if margins:
        return raw
    return special.logit(np.clip(raw, 1e-12, 1 - 1e-12))


def margins_doubt(margins: np.ndarray) -> str:
    """Why scores read as margins (some negative) look like probabilities with a few wrong
    entries: none exceeds 1 and most lie in ``[0, 1]`` — as log-odds, most items would
    then be between 50 % and ``expit(1) ≈ 73 %`` likely positive and none more. Empty
    where the reading is not in doubt."""
    if not np.isfinite(margins).all() or margins.max() > 1:
        return ""
    k = int(np.count_nonzero(margins < 0))
    if k >= margins.size / 2:
        return ""
    return (f"`scores` hold {k} negative value(s) of {margins.size} and are therefore read "
            f"as margins (log-odds); but the others all lie in [0, 1], so as log-odds most "
            f"items would be 50-73 % likely positive and none more. If the scores are "
            f"probabilities, the negative values are errors: correct them. If they are "
            f"margins, ignore this warning.")


def design_iv(design: str | None, spec: MeasureSpec, scores: Any,
              recalibrate: str | None) -> str:
    """``None`` -> "pps" for binary pools; "pps" needs a binary pool and no recalibration."""
    binary = np.ndim(scores) == 1 and spec.kind != "squared"
    if design is None:
        return DEFAULT_DESIGN if binary and recalibrate is None else "with_replacement"
    check_option(design, "design", DESIGNS)
    if design == "pps" and not binary:
        raise fail("design", "'with_replacement' for multi-class or squared-loss pools",
                   value=design)
    if design == "pps" and recalibrate is not None:
        raise fail("recalibrate", "None with design='pps' (its model is refitted between "
                   "batches by itself; use adaptive=True)", value=recalibrate)
    return design


def pool_scores(scores: Any, spec: MeasureSpec, design: str | None,
                recalibrate: str | None) -> PoolScores:
    """Read ``scores`` once: a two-column probability matrix as its positive column, the
    design, and margins (some score negative for πps; outside ``[0, 1]`` to recalibrate)
    turned into probabilities (πps: ``expit``; with replacement: a placeholder)."""
    if np.ndim(scores) == 2 and np.shape(scores)[1] == 2 and spec.kind != "squared":
        scores = check_probability_matrix(scores, "scores")[:, 1]
    design = design_iv(design, spec, scores, recalibrate)
    if design == "pps":
        ranking = check_array(scores, "scores")
        margins = bool(ranking.size and ranking.min() < 0)
        if margins and np.isfinite(ranking).all():
            scores = special.expit(ranking)   # margins: log-odds
        return PoolScores(design, scores, ranking, margins,
                          margins_doubt(ranking) if margins else "")
    if recalibrate is None:
        return PoolScores(design, scores)
    if np.ndim(scores) != 1 or spec.kind == "squared":
        raise fail("recalibrate", "None for multi-class or squared-loss pools",
                   value=recalibrate)
    arr = check_array(scores, "scores")
    if arr.min() < 0 or arr.max() > 1:   # margins: placeholder probabilities
        return PoolScores(design, np.full(arr.shape, 0.5), arr, True)
    return PoolScores(design, scores)
