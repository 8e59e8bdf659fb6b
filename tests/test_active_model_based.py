"""``ActiveEstimate.model_based()``: labels plus the model's expectation for the items
never labeled, checked by hand on a tiny pool, beside (never instead of) the design
estimate."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, logit

from evalstats.active import ActiveEvaluator, active_evaluate, estimate_from_labels

SCORES = np.array([0.95, 0.9, 0.8, 0.7, 0.6, 0.45, 0.3, 0.2, 0.15, 0.1, 0.05, 0.02])
LABELS = np.array([1, 1, 0, 1, 1, 0, 1, 0, 0, 0, 1, 0])
PRED = (SCORES > 0.5).astype(int)


def _f1(y1: float, y0: float) -> float:
    return 2 * y1 / (PRED.sum() + y1 + y0)


def _by_hand(labeled: np.ndarray, ghat: np.ndarray) -> dict[str, float]:
    """Totals over the predicted-positive / -negative groups: labels where labeled, the
    model's ``ĝ`` elsewhere; then F1, precision, recall and accuracy."""
    value = np.where(labeled, LABELS, ghat)
    y1, y0 = float(value @ PRED), float(value @ (1 - PRED))
    n, p = len(SCORES), PRED.sum()
    return dict(f1=_f1(y1, y0), precision=y1 / p, recall=y1 / (y1 + y0),
                accuracy=(y1 - y0 + n - p) / n)


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _table(res) -> dict[str, float]:
    tab = res.model_based()
    assert set(tab["method"]) == {"model-based (assumes calibrated scores)"}
    return dict(zip(tab["term"], tab["estimate"], strict=True))


def test_one_batch_uses_the_scores_for_the_items_never_labeled():
    ev = ActiveEvaluator(SCORES, "f1", predictions=PRED, rng=0)
    ids = ev.query(4)
    ev.update(ids, LABELS[ids])
    res = _quiet(ev.result)
    labeled = np.isin(np.arange(len(SCORES)), ids)
    expect = _by_hand(labeled, SCORES)          # before any label the model is the scores
    got = _table(res)
    for term, value in expect.items():
        assert got[term] == pytest.approx(value, rel=1e-12), term
    assert res.estimate != got["f1"]            # the headline stays the design estimate


def test_later_batches_use_the_last_batch_model():
    ev = ActiveEvaluator(SCORES, "f1", predictions=PRED, rng=1)
    first = ev.query(4)
    ev.update(first, LABELS[first])
    second = ev.query(4)
    ev.update(second, LABELS[second])
    res = _quiet(ev.result)
    a, b = ev._design.successive.batches[1]["coef"]           # the recalibration fitted on batch 0
    ghat = expit(a + b * logit(SCORES))
    labeled = np.isin(np.arange(len(SCORES)), np.concatenate([first, second]))
    expect = _by_hand(labeled, ghat)
    got = _table(res)
    for term, value in expect.items():
        assert got[term] == pytest.approx(value, rel=1e-9), term
    # the design file gives the same numbers
    table = ev.design()
    off = _quiet(estimate_from_labels, table, LABELS[table["id"].to_numpy()])
    pd.testing.assert_frame_equal(off.model_based(), res.model_based())
    design = res.measures()
    assert list(res.model_based()["design_estimate"]) == list(design["estimate"])


def test_a_blind_spot_biases_the_model_based_estimate():
    """300 positives scored 1e-6 that 300 labels almost surely never reach. With the scores
    as the model (``adaptive=False``) the model-based recall counts them as 6,000 · 1e-6
    and lands at the recall of the pool *without* them, far above the truth, in every
    seed. (The design estimate's unbiasedness is checked by exact enumeration elsewhere.)"""
    rng = np.random.default_rng(5)
    m, blind = 14_000, 6_000
    s = np.where(rng.random(m) < 0.9, rng.beta(0.5, 12, m), rng.beta(3, 2, m))
    y = np.concatenate([(rng.random(m) < s).astype(int),
                        (np.arange(blind) < 300).astype(int)])
    scores = np.concatenate([s, np.full(blind, 1e-6)])
    pred = (scores > 0.5).astype(int)
    truth = (pred * y).sum() / y.sum()
    without = (pred * y)[:m].sum() / y[:m].sum()
    for seed in range(2):
        ev = ActiveEvaluator(scores, "recall", predictions=pred, rng=seed, adaptive=False)
        res = _quiet(ev.run, lambda i: y[i], 300)
        model_based = _table(res)["recall"]
        assert model_based - truth > 0.05
        assert model_based == pytest.approx(without, abs=0.02)


def test_with_replacement_results_refuse():
    res = _quiet(active_evaluate, SCORES, lambda i: LABELS[i], 6, "f1", predictions=PRED,
                 rng=0, design="with_replacement")
    with pytest.raises(ValueError, match="design='pps'"):
        res.model_based()
