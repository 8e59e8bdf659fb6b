"""Budget result classes: plans are Reportables (counts in their own columns, no interval);
bounds and rule evaluations are estimates (the registry-wide contract is in
tests/test_result_contract.py)."""

from __future__ import annotations

import numpy as np
import pytest

from evalstats._result import EvalResult, Reportable
from evalstats.budget import (
    LabelDesign,
    bernstein_bound,
    evaluate_rules,
    guided_sample,
    plan_labels,
    tradeoff,
)


def test_plans_are_reportables_not_estimates():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 2))
    y = (X[:, 0] > 1.2).astype(int)
    for res in (tradeoff(0.05, 0.1), plan_labels(2000, 0.05, 0.1, half_width=0.02),
                guided_sample(X, y, 60, n_seed=20, batch_size=10, rng=1)):
        assert isinstance(res, Reportable) and not isinstance(res, EvalResult)
        assert "[" not in repr(res)
        assert not {"conf_low", "conf_high", "estimate"} & set(res.tidy().columns)
        with pytest.warns(FutureWarning, match="deprecated"):
            res.estimate  # noqa: B018  (old attribute, kept with a warning)


def test_estimates_stay_estimates():
    lab = np.array([1, 0, 1, 0, 0, 1, 0, 0])
    rules = np.random.default_rng(0).integers(0, 2, size=(8, 2))
    for res in (bernstein_bound("recall", n_pool=1000, prevalence=0.05, rule_rate=0.1),
                evaluate_rules(lab, rules, LabelDesign.simple(100, 8))):
        assert isinstance(res, EvalResult)
        lo, hi = res.conf_int(0.9)
        assert lo <= hi
