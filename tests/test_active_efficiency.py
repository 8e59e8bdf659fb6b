"""The Godambe–Joshi bound of benchmarks/active_efficiency.py, against closed forms."""

from __future__ import annotations

import numpy as np
import pytest
from _scripts import load_script

eff = load_script("benchmarks/active_efficiency.py")


def test_equal_items_give_the_srs_variance():
    # N items with one variance v: π = n/N for all, Σ v (N/n − 1) = N v (N/n − 1)
    g, c = np.full(1000, 0.2), np.ones(1000)
    v = 0.2 * 0.8
    assert eff.gj_bound(g, c, 50) == pytest.approx(np.sqrt(1000 * v * (1000 / 50 - 1)))


def test_neyman_allocation_and_the_certainty_cap():
    # two strata: 10 items with r = 1 and 990 with r = 0.01 (r = |c|·sqrt(g(1 − g)));
    # uncapped π ∝ r would give the first stratum π = 20·1/19.9 > 1, so they are taken
    # with certainty and the 10 remaining labels spread evenly over the rest
    g = np.full(1000, 0.5)
    c = np.concatenate([np.full(10, 2.0), np.full(990, 0.02)])
    v_rest = (0.02 ** 2) * 0.25
    expected = np.sqrt(990 * v_rest * (990 / 10 - 1))
    assert eff.gj_bound(g, c, 20) == pytest.approx(expected)
    # a brute-force check that no other split of the 20 labels between the strata does
    # better (even within-stratum allocation is optimal by convexity)
    best = min(990 * v_rest * (990 / (20 - k) - 1) + 10 * 0.25 * 4 * (10 / k - 1)
               for k in range(1, 11))
    assert eff.gj_bound(g, c, 20) ** 2 == pytest.approx(best)


def test_items_without_variance_add_nothing():
    g = np.array([0.0, 1.0, 0.5, 0.5])
    assert eff.gj_bound(g, np.ones(4), 2) == pytest.approx(np.sqrt(2 * 0.25 * (2 / 2 - 1)))
    assert eff.gj_bound(g, np.ones(4), 1) == pytest.approx(np.sqrt(2 * 0.25 * (2 - 1)))
