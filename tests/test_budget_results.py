"""Every budget result class honours the EvalResult contract (tidy/glance/summary/plot)."""

from __future__ import annotations

import numpy as np
import pytest

from evalstats._result import TIDY_COLUMNS
from evalstats.budget import (
    LabelDesign,
    bernstein_bound,
    evaluate_rules,
    guided_sample,
    plan_labels,
    tradeoff,
)


def _results():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 2))
    y = (X[:, 0] > 1.2).astype(int)
    lab = np.array([1, 0, 1, 0, 0, 1, 0, 0])
    rules = rng.integers(0, 2, size=(8, 2))
    return [
        bernstein_bound("sensitivity", n_pool=1000, prevalence=0.05, rule_rate=0.1),
        tradeoff(0.05, 0.1),
        plan_labels(2000, 0.05, 0.1, half_width=0.02, bounds=("exact",)),
        evaluate_rules(lab, rules, LabelDesign.simple(100, 8)),
        guided_sample(X, y, 60, n_seed=20, batch_size=10, rng=1),
    ]


@pytest.mark.parametrize("i", range(5))
def test_result_contract(i):
    import matplotlib.pyplot as plt

    res = _results()[i]
    td = res.tidy()
    assert tuple(td.columns[:len(TIDY_COLUMNS)]) == TIDY_COLUMNS
    assert len(res.glance()) == 1
    rep = res.summary()
    for fmt in ("text", "html", "latex", "markdown"):
        assert len(rep.render(fmt)) > 50
    assert repr(res).startswith("<")
    lo, hi = res.conf_int(0.9)
    assert lo <= hi
    assert res.plot() is not None
    plt.close("all")
    with pytest.raises(AttributeError):
        res.estimate = 0.0
