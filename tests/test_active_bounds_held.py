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
    [0.838, 0.9999999] and missed the truth 1 (4 of 40 seeds did). The held bound put 1
    in it; since an estimate within half an s.e. of 1 whose s.e. is almost all variance
    floor (the labels' own s.e. is 4e-5 of 0.0017) gets the boundary rule
    (``_intervals.boundary_weight``), the design interval reaches 1 by itself and the lower
    limit is 0.968 (it was 0.838: Wilson at a tiny n*)."""
    from evalstats.active._estimators import interval_of

    r = _perfect(16)
    lo, hi = r.conf_int()
    assert r.estimate < 1.0 and hi == 1.0 and 0.96 < lo < r.estimate
    assert r.bounds_held == ((1.0, 0.0),)
    t = r.measures().set_index("term")
    assert t.loc["accuracy", "conf_high"] == 1.0
    # the note says so exactly when the held bound moved a limit
    d = r.sample.estimate(r.specs[0])
    inner = interval_of(d, bounded=True, level=0.95, method="wilson", held=False)
    noted = any("No labeled item contradicts accuracy = 1" in n for n in r.notes)
    assert noted == (inner.high < 1.0)


class _FloorlessSample:
    """A real design sample whose headline s.e. is cut to a tenth: the design interval
    then stops short of 1, and only the held bound reaches it."""

    def __init__(self, sample):
        self._s = sample

    def __getattr__(self, name):
        return getattr(self._s, name)

    def estimate(self, spec, model=0, **kw):
        d = dict(self._s.estimate(spec, model, **kw))
        d["design_estimate"] = d["estimate"] = 0.995
        for k in ("std_error", "se_low", "se_high", "se_labels"):
            d[k] = d[k] / 10
        d["reach"] = []
        return d


def test_the_note_names_a_held_bound_that_moved_a_limit():
    from evalstats.active._estimators import interval_of, make_estimate

    r = _perfect(16)
    fake = _FloorlessSample(r.sample)
    d = fake.estimate(r.specs[0])
    inner = interval_of(d, bounded=True, level=0.95, method="wilson", held=False)
    outer = interval_of(d, bounded=True, level=0.95, method="wilson")
    assert inner.high < 1.0 and outer.high == 1.0 and outer.low == inner.low
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = make_estimate(fake, list(r.specs), model_names=["model"], level=0.95,
                          proposal_kind="pps", epsilon=0.1, plug_in=0.99, pool_size=20000,
                          call={})
    assert e.conf_int().high == 1.0
    assert any("No labeled item contradicts accuracy = 1" in n for n in e.notes)


def test_a_sample_with_errors_holds_no_boundary():
    pool = es.datasets.load("sim_pool")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = active_evaluate(pool["prob"], lambda i: pool["label"].to_numpy()[i], 300,
                            "precision", predictions=pool["pred"], rng=1)
    assert r.bounds_held == ()
    assert not any("contradicts" in n for n in r.notes)
    assert r.conf_int().high < 1.0
