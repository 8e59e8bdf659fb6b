"""Boundaries the labels do not contradict are held by the interval.

Source of the expected values: ``G = A/B`` with ``0 ≤ a_i ≤ b_i`` equals 1 only if every
item has ``a_i = b_i`` and 0 only if every ``a_i = 0``; a sample with no labeled
``a_i < b_i`` has probability 1 under ``G = 1``, so no level-α test rejects ``G = 1`` on it
and a test-inverted interval holds 1. The cases below are enumerated by hand.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import evalstats as es
from evalstats.active import active_evaluate
from evalstats.active._ht import consistent_bounds


@pytest.mark.parametrize(("a", "b", "expected"), [
    ([1, 1, 0], [1, 1, 0], [(1.0, 0.0)]),            # only a = b: 1 is possible
    ([0, 0], [1, 0.5], [(0.0, 0.0)]),                # only a = 0 < b: 0 is possible
    ([1, 0], [1, 1], []),                            # one of each: neither
    ([0, 0], [0, 0], [(1.0, 0.0), (0.0, 0.0)]),      # nothing relevant labeled: both
    ([0.5], [1.0], []),
])
def test_consistent_bounds_enumerated(a, b, expected):
    assert consistent_bounds(np.array(a, float), np.array(b, float)) == expected


def _perfect(seed):
    pool = es.datasets.load("sim_pool")
    pred, p = pool["pred"].to_numpy(), pool["prob"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return active_evaluate(p, lambda i: pred[i], 500, "accuracy", predictions=pred,
                               rng=seed)


def test_a_perfect_classifiers_accuracy_interval_holds_one():
    """Seed 16: no error among 500 labels, the models expect a few; the interval was
    [0.838, 0.9999999] and missed the truth 1 (4 of 40 seeds did)."""
    r = _perfect(16)
    lo, hi = r.conf_int()
    assert r.estimate < 1.0 and hi == 1.0 and lo < r.estimate
    assert r.bounds_held == ((1.0, 0.0),)
    assert any("No labeled item contradicts accuracy = 1" in n for n in r.notes)
    t = r.measures().set_index("term")
    assert t.loc["accuracy", "conf_high"] == 1.0


def test_a_sample_with_errors_holds_no_boundary():
    pool = es.datasets.load("sim_pool")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = active_evaluate(pool["prob"], lambda i: pool["label"].to_numpy()[i], 300,
                            "precision", predictions=pool["pred"], rng=1)
    assert r.bounds_held == ()
    assert not any("contradicts" in n for n in r.notes)
    assert r.conf_int().high < 1.0
