"""How wide the anytime-valid sequence must be, checked against the information limit.

On a pool with a blind spot (items scored 1e-6, which the design reaches only through its
defensive share ``ε``), ``n`` draws miss ``K`` positives hidden there with probability
about ``exp(−ε n K/N)``; a valid one-sided sequence at level ``α/4`` (the union bound of
``evalstats.active``'s box over four sides) can therefore not put the upper end of
``Y₀`` (positives among predicted negatives) less than ``Δ(n) = N log(4/α)/(ε n)`` above
the positives it has seen — precisely, not by ``c Δ(n)`` in more than a share
``(α/4)^{1−c}`` of runs (0.11 at ``c = ½``). The sequence must respect that limit
(narrower would be invalid), come within a small factor of it (wider would be waste),
and shrink as ``1/n``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from evalstats.active import ActiveEvaluator
from evalstats.active._confseq import total_box

N, BLIND, EPSILON, LEVEL = 20_000, 6_000, 0.1, 0.95


def _blind_spot_pool(seed: int = 0):
    """Calibrated scores (a mixture of Beta laws) on 14,000 items plus 6,000 items scored
    1e-6 that hold no positive: the pool any valid sequence cannot tell from one where
    positives hide among them."""
    rng = np.random.default_rng(seed)
    m = N - BLIND
    s = np.where(rng.random(m) < 0.9, rng.beta(0.5, 12, m), rng.beta(3, 2, m))
    y = (rng.random(m) < s).astype(int)
    scores = np.concatenate([s, np.full(BLIND, 1e-6)])
    labels = np.concatenate([y, np.zeros(BLIND, dtype=int)])
    return scores, labels, (scores > 0.5).astype(int)


def _excess(n: int, seed: int, f1_check: bool = False) -> float:
    """Upper end of ``Y₀`` minus its true value, after ``n`` labels; with ``f1_check``,
    also check that the F1 sequence's lower end is at most ``F₁ D/(D + Δ(n))``."""
    scores, labels, pred = _blind_spot_pool()
    ev = ActiveEvaluator(scores, "f1", predictions=pred, epsilon=EPSILON, rng=seed,
                         interval="anytime", confidence_level=LEVEL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ev.run(lambda i: labels[i], n)
    box = total_box(res.sample.records, LEVEL)
    if f1_check:
        d = pred.sum() + labels.sum()
        f1 = 2 * (pred * labels).sum() / d
        assert res.conf_int()[0] <= f1 * d / (d + _limit(n))
    return float(box[0][1][-1] - labels[pred == 0].sum())


def _limit(n: int) -> float:
    return N * np.log(4 / (1 - LEVEL)) / (EPSILON * n)


def test_limit_formula_by_hand():
    # N log(4/α)/(ε n) at N = 20,000, α = 0.05, ε = 0.1, n = 500: 20000·log(80)/50
    assert _limit(500) == pytest.approx(20000 * 4.382026634673881 / 50, rel=1e-12)
    assert BLIND > _limit(500)          # the blind spot can hold that many positives


def test_the_sequence_is_no_narrower_than_the_limit_and_shrinks_as_one_over_n():
    e500, e1000 = _excess(500, 0, f1_check=True), _excess(1000, 0, f1_check=True)
    assert e500 >= _limit(500) and e1000 >= _limit(1000)
    assert e500 <= 3 * _limit(500) and e1000 <= 3 * _limit(1000)
    assert 1.6 <= e500 / e1000 <= 2.4


@pytest.mark.slow
@pytest.mark.parametrize("n", [300, 500, 1000, 2000])
def test_the_limit_holds_over_seeds(n):
    ratios = np.array([_excess(n, seed) / _limit(n) for seed in range(5)])
    assert (ratios >= 0.5).all() and ratios.mean() >= 1.0, ratios
    assert (ratios <= 3.0).all(), ratios
