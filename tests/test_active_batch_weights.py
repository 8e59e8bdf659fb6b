"""The batch schedules of benchmarks/active_batch_weights.py, against closed forms."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _scripts import load_script

bw = load_script("benchmarks/active_batch_weights.py")


def test_uncorrelated_batches_get_inverse_variance_weights():
    # errors with orthogonal columns and mean squares 1, 4: M = diag(1, 4), so the
    # minimiser of a'Ma over a₁ + a₂ = 1 is a ∝ (1, 1/4) = (0.8, 0.2)
    d = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 2.0], [0.0, -2.0]]) * np.sqrt(2)
    assert bw.best_schedule(d) == pytest.approx([0.8, 0.2])


def test_the_schedule_minimises_the_mean_square_by_brute_force():
    rng = np.random.default_rng(3)
    d = rng.normal(size=(200, 3)) @ np.array([[1.0, 0.3, 0.0], [0.0, 2.0, 0.5],
                                               [0.0, 0.0, 0.7]])
    a = bw.best_schedule(d)
    assert a.sum() == pytest.approx(1.0)
    best = np.mean((d @ a) ** 2)
    grid = np.linspace(-1, 2, 61)
    brute = min(np.mean((d @ np.array([x, y, 1 - x - y])) ** 2) for x in grid for y in grid)
    assert best <= brute + 1e-12
    assert best == pytest.approx(brute, rel=0.01)


def test_equal_schedule_reproduces_the_pooled_ratio():
    # two runs of two equal batches: the equal schedule's F1 is 2Ŷ₁/(P + Ŷ₁ + Ŷ₀) of the
    # batch means' average, by hand
    raw = pd.DataFrame(dict(run=[0, 0, 1, 1], batch=[0, 1, 0, 1], n_labels=[5, 5, 5, 5],
                            x1=[10.0, 14.0, 12.0, 12.0], x0=[4.0, 8.0, 6.0, 2.0],
                            headline=0.0))
    truth = dict(tp=12, fn=5, f1=2 * 12 / (20 + 12 + 5), n_pred_pos=20.0)
    rows = {r["schedule"]: r for r in bw.pool_table(raw, truth, np.random.default_rng(0),
                                                    n_boot=50)}
    e0 = 2 * 12 / (20 + 12 + 6) - truth["f1"]
    e1 = 2 * 12 / (20 + 12 + 4) - truth["f1"]
    assert rows["equal"]["f1_rmse"] == pytest.approx(np.sqrt((e0 ** 2 + e1 ** 2) / 2))
    assert rows["equal"]["ratio_equal"] == pytest.approx(1.0)
    # drop_first uses the second batch alone
    d0 = 2 * 14 / (20 + 14 + 8) - truth["f1"]
    d1 = 2 * 12 / (20 + 12 + 2) - truth["f1"]
    assert rows["drop_first"]["f1_rmse"] == pytest.approx(np.sqrt((d0 ** 2 + d1 ** 2) / 2))


def test_equal_schedule_of_batch_means_is_the_estimators_own_total():
    """``Σ_k (n_k/n) X̄_k`` over the batches' draw means is the default's ``Σ a_t X_t``
    with ``a_t = (n_k/n)/n'_k``, certain items included (a pool where some are taken)."""
    import warnings

    import evalstats as es
    from evalstats.active._aipw import pseudo_outcomes

    rng = np.random.default_rng(4)
    p = rng.beta(0.3, 30, 3000)
    p[:40] = 0.5                                   # large sizes: labeled with certainty
    pool = dict(scores=p, predictions=(p > 0.4).astype(int),
                labels=(rng.random(3000) < p).astype(int))
    rows = bw.one_run(pool, np.random.SeedSequence(1), 300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = es.active_evaluate(p, lambda i: pool["labels"][i], n_labels=300,
                                 predictions=pool["predictions"],
                                 rng=np.random.default_rng(np.random.SeedSequence(1)),
                                 progress=False)
    rec = est.sample.records
    assert rec.certain.any()
    tot = pseudo_outcomes(rec)
    n_k = np.array([r["n_labels"] for r in rows], dtype=float)
    a = n_k / n_k.sum()
    assert a @ [r["x1"] for r in rows] == pytest.approx(tot.a @ tot.x1, rel=1e-12)
    assert a @ [r["x0"] for r in rows] == pytest.approx(tot.a @ tot.x0, rel=1e-12)
