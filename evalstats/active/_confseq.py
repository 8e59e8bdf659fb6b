r"""Anytime-valid confidence sequences for the successive design, by betting.

Every binary measure is monotone in the two totals ``Y₁`` (positives among predicted
positives) and ``Y₀`` (among predicted negatives), so one-sided confidence sequences for
each side of each total give one for the measure, read off the corners of the box (a
union bound: ``α/4`` for each of the four sides, so one box serves every measure).

**One side, by betting.** For a total ``T`` and a candidate ``m`` a *stream* is a
sequence ``Y_t`` with conditional mean ``μ(m)`` under ``T = m`` and a lower bound
``ℓ_t`` known before draw ``t``; ``Π_{s≤t} (1 + λ_s (Y_s − μ))`` with predictable
``0 ≤ λ_s ≤ c/(μ − ℓ_s)`` is then a nonnegative martingale, and so is the average of the
capitals of two streams. By Ville's inequality the values ``m`` whose capital never
reaches ``1/α`` form a sequence that covers ``T`` at every draw at once with probability
``1 − α`` — under the adaptive sizes and *any* stopping rule (Waudby-Smith & Ramdas
2024, JRSSB 86(1); Waudby-Smith, Wu, Ramdas, Karampatziakis & Mineiro 2022, for
importance-weighted and doubly robust outcomes). Each side averages two streams:

* the doubly robust pseudo-outcome ``X_t`` of the point estimate (:mod:`._aipw`), whose
  residual ``(y − ĝ)/q`` is bounded by the largest ``ĝ/q`` and ``(1 − ĝ)/q`` among the
  items of the group still undrawn (recorded at each draw): tight where the model is
  uncertain;
* the importance-weighted count on the remaining pool, ``Σ_{L_t ∩ G} z + z_x/q_t ≥
  Σ_{L_t ∩ G} z`` (``z = y`` for the lower side, ``z = 1 − y`` — the group's negatives,
  ``|G| − T`` — for the upper side): nonnegative, so it needs no bound on the weights.

The bets are the predictable plug-in of Waudby-Smith & Ramdas,
``λ_t = sqrt(2 log(1/α) / (σ̂²_{t−1} t log(1 + t)))``, ``σ̂²`` the running variance of the
stream divided by ``|G|`` with the prior ``¼`` (the largest variance of a variable in
``[0, 1]``) as one pseudo-observation, truncated at ``c = ½`` of the largest bet. They are
sized for the 95 % level whatever level is asked, so one capital serves every level and
the sequences of different levels nest (but where one is empty: it then takes the range
the labels allow, :func:`held_box`).

**How wide, and why.** The sequence is valid without any assumption on the model, and
that has a price no valid sequence escapes. Items the model is sure of (``ĝ ≈ 0`` or
``≈ 1``, so ``s* ≈ 0``) are drawn through the defensive share alone, each with
probability about ``ε/N`` per draw. If ``K`` positives hid among the items it calls sure
negatives, ``n`` draws would miss every one of them with probability about
``exp(−ε n K / N)``; the labels would then be exactly those of a pool without them, so a
procedure that excluded such a pool after seeing none of them would err with at least
that probability. A one-sided guarantee at level ``α'`` therefore cannot exclude

.. math::

    K \approx \frac{N \log(1/\alpha')}{\varepsilon\, n}

hidden positives — a tail rate ``log(1/α')/(ε n)`` of the pool — whenever the items
the model is sure of are that many. (Precisely: a valid upper end must exceed the
positives seen by ``c K`` in all but a share ``α'^{1−c}`` of the runs, for every
``0 < c < 1``.) Here ``α' = α/4`` (the union bound over the four
sides), so the upper end of ``Y₀`` stays at least ``N log(4/α)/(ε n)`` above the
positives seen, shrinking as ``1/n``; the betting sequence comes within a small
constant factor of this limit (checked in the test suite on a pool with a blind spot).

What this means for a measure. With ``Δ(n) = N log(4/α)/(ε n)``, the lower end of recall
``Y₁/(Y₁ + Y₀)`` is at most ``Y₁/(Y₁ + Y₀ + Δ)`` and that of ``F₁ = 2Y₁/D`` (``D = P + Y₁
+ Y₀``, predicted plus actual positives) at most ``F₁ D/(D + Δ)``. "Label until the
interval is narrower than ``2w``" (``ActiveEvaluator.run(..., half_width=w)``) can
therefore stop only once ``F₁ Δ(n)/(D + Δ(n)) ≤ 2w``, that is after at least

.. math::

    n \gtrsim \frac{N \log(4/\alpha)\,(F_1 - 2w)}{2 w\, \varepsilon\, D}

labels: on a pool of ``N`` items with few positives (small ``D/N``) that is many times
the labels a fixed-``n`` interval would report as enough. The fixed-``n`` score interval
is narrower because it assumes what the sequence does not: that a few hundred labels
show the residuals' spread (the martingale CLT), which fails exactly when positives hide
where the model is sure. The same argument bounds negatives hiding among items the model
is sure are positive (the lower end of ``Y₁``: precision, recall and F₁ alike). Items
the model is unsure of are drawn at the rate of the variance-optimal sizes, far above
``ε/N``, and set no such floor.
"""

from __future__ import annotations

import numpy as np

from .._result import ConfidenceInterval
from ._aipw import DrawRecords, box_range, pseudo_outcomes, ratio_coefficients
from ._measures import MeasureSpec

__all__ = ["anytime_sequence", "held_box", "total_box", "one_side", "GRID_SIZE",
           "TRUNCATION"]

#: grid points per total (denser near both ends, where small counts live)
GRID_SIZE = 501
#: fraction of the largest admissible bet (Waudby-Smith & Ramdas 2024)
TRUNCATION = 0.5
#: the level the bets are sized for; the same capital gives every level, so the sequences
#: of different levels nest
BET_LEVEL = 0.95


def one_side(streams: list[tuple[np.ndarray, np.ndarray, float, float]],
             grid: np.ndarray, alpha: float, at: np.ndarray,
             alpha_bet: float | None = None) -> np.ndarray:
    """Which grid values are still plausible after each draw in ``at``: ``(len(at), G)``.

    ``streams``: ``(y, lo, sign, shift)`` — the stream ``y_t`` with bound ``lo_t``, and
    its null mean ``μ(m) = sign·m + shift`` for each grid value ``m``. The capital is the
    average of the streams' capitals; a value is rejected for good once it reaches
    ``1/α``. The bets are sized for ``alpha_bet`` whatever ``alpha``."""
    thr = np.log(1.0 / alpha)
    scale = max(float(np.max(np.abs(grid))), 1.0)
    logs = []
    for y, lo, sign, shift in streams:
        n = y.shape[0]
        z = y / scale
        t = np.arange(1, n + 1)
        mean = np.concatenate(([0.0], np.cumsum(z)[:-1] / t[:-1]))   # of z_1..z_{t-1}
        var = 0.25 + np.concatenate(([0.0], np.cumsum((z - mean) ** 2)[:-1]))
        bet = np.log(1.0 / (alpha if alpha_bet is None else alpha_bet))
        lam = np.sqrt(2.0 * bet / (var / t * t * np.log(t + 1.0))) / scale       # (n,)
        mu = sign * grid + shift                                                # (G,)
        work = np.subtract(mu[None, :], lo[:, None])             # μ − ℓ_t: the gap
        cap = np.full_like(work, np.inf)
        np.divide(TRUNCATION, work, out=cap, where=work > 0)
        np.minimum(cap, lam[:, None], out=cap)                   # λ_t(m)
        np.subtract(y[:, None], mu[None, :], out=work)           # y_t − μ
        work *= cap
        np.log1p(work, out=work)
        logs.append(np.cumsum(work, axis=0, out=work))
    total = logs[0]
    for more in logs[1:]:
        np.logaddexp(total, more, out=total)
    if len(logs) > 1:
        total -= np.log(len(logs))
    rejected = np.maximum.accumulate(total >= thr, axis=0)
    return ~rejected[np.asarray(at, dtype=int)]


def _grid(size: float) -> np.ndarray:
    u = np.linspace(0.0, 1.0, GRID_SIZE)
    return np.unique(np.concatenate([size * u * u, size - size * u * u]))


def _total_bounds(rec: DrawRecords, model: int, g: int, alpha: float, at: np.ndarray,
                  alpha_bet: float) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper sequences of ``Y_g`` (``g = 1``: predicted positives) at ``at``."""
    f = rec.preds[:, model] if g == 1 else 1.0 - rec.preds[:, model]
    size = _group_sizes(rec, model)[g]
    tot = pseudo_outcomes(rec, model)
    x, r = (tot.x1, tot.r1) if g == 1 else (tot.x0, tot.r0)
    b_neg, b_pos = (tot.bounds[:, 0], tot.bounds[:, 1]) if g == 1 else (
        tot.bounds[:, 2], tot.bounds[:, 3])
    known_dr = x - r
    draw = ~rec.certain
    ipw = {}
    for name, z in (("pos", rec.labels), ("neg", 1.0 - rec.labels)):
        known = np.zeros(rec.n_labels)
        np.cumsum((f * z)[:-1], out=known[1:])
        ipw[name] = (known + np.where(draw, f * z / rec.q, 0.0))[draw], known[draw]
    grid = _grid(size)
    lower = one_side([(x, known_dr - b_neg, 1.0, 0.0), (*ipw["pos"], 1.0, 0.0)],
                     grid, alpha, at, alpha_bet)
    upper = one_side([(-x, -(known_dr + b_pos), -1.0, 0.0), (*ipw["neg"], -1.0, size)],
                     grid, alpha, at, alpha_bet)
    lo = np.array([_first_edge(grid, ok, low=True) for ok in lower])
    hi = np.array([_first_edge(grid, ok, low=False) for ok in upper])
    return lo, hi


def _first_edge(grid: np.ndarray, ok: np.ndarray, low: bool) -> float:
    """The conservative edge of the plausible set: the last rejected grid value before
    the first plausible one (from below for ``low``, from above otherwise)."""
    idx = np.flatnonzero(ok)
    if not len(idx):
        return float("nan")
    if low:
        return float(grid[idx[0] - 1]) if idx[0] > 0 else float(grid[0])
    return float(grid[idx[-1] + 1]) if idx[-1] < len(grid) - 1 else float(grid[-1])


def total_box(rec: DrawRecords, level: float, model: int = 0, at: np.ndarray | None = None
              ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Lower and upper sequences of ``Y₁`` and ``Y₀`` after the draws ``at``: four one-sided
    sequences at ``α/4`` each, so that one box serves every measure of the model."""
    n = rec.n_draws
    at = np.array([n - 1]) if at is None else np.asarray(at, dtype=int)
    alpha = (1.0 - level) / 4
    alpha_bet = (1.0 - BET_LEVEL) / 4
    return {g: _total_bounds(rec, model, g, alpha, at, alpha_bet) for g in (1, 0)}


def anytime_sequence(rec: DrawRecords, spec: MeasureSpec, level: float, model: int = 0,
                     at: np.ndarray | None = None,
                     box: dict | None = None) -> list[ConfidenceInterval]:
    """The measure's confidence sequence after the draws ``at`` (default: the last one);
    ``box``: the :func:`total_box` of the same draws, if computed. Each total's sequence
    is held within the values the labels allow at that draw (:func:`held_box`)."""
    if rec.n_draws == 0:
        return [ConfidenceInterval(0.0, 1.0)]
    use, _ = held_box(rec, spec, level, model, at, box)
    coef = ratio_coefficients(spec, rec.pool_size, float(rec.n_pred_pos[model]))
    return [box_range(coef, use[1][0][j], use[1][1][j], use[0][0][j], use[0][1][j])
            for j in range(len(use[1][0]))]


def held_box(rec: DrawRecords, spec: MeasureSpec, level: float, model: int = 0,
             at: np.ndarray | None = None, box: dict | None = None
             ) -> tuple[dict[int, tuple[np.ndarray, np.ndarray]], np.ndarray]:
    """Per total, its sequence after each draw of ``at`` intersected with the values the
    labels allow then (at least the positives labeled in the group, at most its size less
    the negatives labeled in it: the truth lies there with certainty); and, per draw,
    whether a total the measure uses has an *empty* sequence — one side rejected every
    value, or nothing is left once the two sides and the labels are intersected. The
    truth is then certainly outside that total's sequence (the event of probability at
    most ``α`` the guarantee excludes), and the total takes the whole range the labels
    allow instead."""
    at = np.array([rec.n_draws - 1]) if at is None else np.asarray(at, dtype=int)
    box = total_box(rec, level, model, at) if box is None else box
    coef = ratio_coefficients(spec, rec.pool_size, float(rec.n_pred_pos[model]))
    support = _support_at(rec, model, at)
    use, empty = {}, np.zeros(len(at), dtype=bool)
    for g, used in _used_totals(coef).items():
        s_lo, s_hi = support[g]
        if not used:
            use[g] = s_lo, s_hi
            continue
        with np.errstate(invalid="ignore"):
            lo, hi = np.maximum(box[g][0], s_lo), np.minimum(box[g][1], s_hi)   # NaN stays
            none = ~(np.isfinite(lo) & np.isfinite(hi)) | (lo > hi)
        empty |= none
        use[g] = np.where(none, s_lo, lo), np.where(none, s_hi, hi)
    return use, empty


def _support_at(rec: DrawRecords, model: int, at: np.ndarray
                ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """:func:`~._aipw.total_support` of the labels held after each draw of ``at``."""
    f = rec.preds[:, model]
    rows = np.flatnonzero(~rec.certain)[at]            # the row of each of those draws
    sizes = _group_sizes(rec, model)
    out = {}
    for g, in_g in ((1, f), (0, 1.0 - f)):
        pos = np.cumsum(in_g * (rec.labels == 1.0))[rows]
        neg = np.cumsum(in_g * (rec.labels == 0.0))[rows]
        out[g] = pos, sizes[g] - neg
    return out


def _used_totals(coef: tuple) -> dict[int, bool]:
    """Whether the measure ``A/B`` of ``coef`` depends on ``Y₁`` and on ``Y₀``."""
    (a1, a0, _), (b1, b0, _) = coef
    return {1: a1 != 0 or b1 != 0, 0: a0 != 0 or b0 != 0}


def _group_sizes(rec: DrawRecords, model: int) -> dict[int, float]:
    n1 = float(rec.n_pred_pos[model])
    return {1: n1, 0: rec.pool_size - n1}
