"""The model variants of benchmarks/active_model_class.py: their fits and their installation."""

from __future__ import annotations

import numpy as np
import pytest
from _scripts import load_script

mc = load_script("benchmarks/active_model_class.py")


def test_step_fit_is_pool_adjacent_violators_by_hand():
    # y in score order 0, 1, 0, 1, 1: PAV pools the violating pair (1, 0) into 0.5
    x = np.array([0.5, 0.1, 0.3, 0.9, 0.2])        # order: 0.1, 0.2, 0.3, 0.5, 0.9
    y = np.array([1.0, 0.0, 0.0, 1.0, 1.0])        # in that order: 0, 1, 0, 1, 1
    _, xs, fit = mc._step_fit(x, y)
    assert xs.tolist() == [0.1, 0.2, 0.3, 0.5, 0.9]
    assert fit.tolist() == pytest.approx([0.0, 0.5, 0.5, 1.0, 1.0])


def test_step_fit_shrinks_each_block_by_one_pseudo_label():
    # blocks {0.1} (y 0), {0.2, 0.3} (y 1, 0), {0.5, 0.9} (y 1, 1); prior block means
    # 0.2, 0.4, 0.8: rates (0 + 0.2)/2, (1 + 0.4)/3, (2 + 0.8)/3
    x = np.array([0.5, 0.1, 0.3, 0.9, 0.2])
    y = np.array([1.0, 0.0, 0.0, 1.0, 1.0])
    prior = np.array([0.8, 0.2, 0.4, 0.8, 0.4])
    _, _, fit = mc._step_fit(x, y, prior)
    assert fit.tolist() == pytest.approx([0.1, 1.4 / 3, 1.4 / 3, 2.8 / 3, 2.8 / 3])


def test_variant_is_installed_and_restored():
    cls = mc._design_class().SuccessiveDesign
    saved = cls.model, cls.predict
    with mc.variant("isotonic", np.zeros(3)):
        assert cls.model is not saved[0]
    assert (cls.model, cls.predict) == saved
    with pytest.raises(RuntimeError), mc.variant("rank_logit", np.zeros(3)):
        raise RuntimeError
    assert (cls.model, cls.predict) == saved


def test_one_seed_runs_every_variant_and_oasis_on_a_small_pool():
    pytest.importorskip("joblib")
    pool = mc.active_pools.make_pool("margins", n_items=2000, prevalence=0.05, rng=3,
                                     kind="saturating", scale=2.0, name="tiny")
    if mc.active_families.import_oasis() is None:
        pytest.skip("oasis is not installed")
    rows = mc.one_seed(pool, np.random.SeedSequence(1), 200, mc.VARIANTS)
    assert [r["variant"] for r in rows] == list(mc.VARIANTS) + ["oasis"]
    assert all(r["error"] == "" for r in rows), [r["error"] for r in rows]
    assert all(0.0 <= r["estimate"] <= 1.0 for r in rows)


def test_joint_fit_is_the_posterior_mode_by_direct_minimisation():
    from scipy import optimize, special

    rng = np.random.default_rng(5)
    x = np.column_stack([np.ones(80), rng.normal(size=80), rng.normal(size=80)])
    y = (rng.random(80) < special.expit(x @ np.array([-0.5, 1.5, 0.7]))).astype(float)
    prior = np.array([0.0, 1.0, 0.0])

    def neg_log_post(c):
        eta = x @ c
        return np.sum(np.logaddexp(0.0, eta) - y * eta) + np.sum((c - prior) ** 2) / (2 * 2.5 ** 2)

    direct = optimize.minimize(neg_log_post, prior, method="BFGS", options={"gtol": 1e-10}).x
    assert mc._joint_fit(x, y, prior) == pytest.approx(direct, abs=1e-5)
