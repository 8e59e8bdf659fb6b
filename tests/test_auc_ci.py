"""auc_ci: DeLong's variance, O(n log n) placements against the O(n^2) definition."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from evalstats._warnings import SmallSampleWarning, UndefinedEstimateWarning
from evalstats.holdout import AUCResult, auc_ci


def _delong_quadratic(y, s):
    """DeLong (1988) by definition: psi matrix over all positive x negative pairs."""
    pos, neg = s[y == 1], s[y == 0]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    var = v10.var(ddof=1) / len(pos) + v01.var(ddof=1) / len(neg)
    return psi.mean(), np.sqrt(var)


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 6)), min_size=4, max_size=40))
def test_fast_delong_equals_quadratic_definition_with_ties(data):
    y = np.array([d[0] for d in data])
    s = np.array([d[1] for d in data], float) / 3.0  # many ties
    if min(y.sum(), (1 - y).sum()) < 2:
        return
    res = auc_ci(y, s)
    auc, se = _delong_quadratic(y, s)
    assert res.estimate == pytest.approx(auc, abs=1e-12)
    assert res.std_error == pytest.approx(se, abs=1e-12)


def test_auc_equals_mann_whitney_and_interval(rng):
    y = rng.integers(0, 2, 300)
    s = rng.normal(size=300) + y
    res = auc_ci(y, s, confidence_level=0.9)
    # AUC = U / (m n), U the Mann-Whitney statistic of positives vs negatives (scipy)
    u = stats.mannwhitneyu(s[y == 1], s[y == 0]).statistic
    assert res.estimate == pytest.approx(u / (y.sum() * (300 - y.sum())), rel=1e-12)
    z = stats.norm.ppf(0.95)
    assert res.conf_int() == pytest.approx((res.estimate - z * res.std_error,
                                            res.estimate + z * res.std_error), rel=1e-12)
    assert isinstance(res, AUCResult) and res.tidy().shape[0] == 1
    res.plot()


def test_auc_ci_degenerate_cases():
    with pytest.raises(ValueError, match="`y_true` must contain both classes"):
        auc_ci([1, 1, 1], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="`y_score` must be finite"):
        auc_ci([0, 1, 1], [0.1, np.nan, 0.3])
    with pytest.raises(ValueError, match="must have the same length"):
        auc_ci([0, 1, 1], [0.1, 0.3])
    with pytest.warns(UndefinedEstimateWarning):
        res = auc_ci([0, 1, 1, 1], [0.1, 0.2, 0.3, 0.4])
    assert np.isnan(res.std_error) and res.notes
    with pytest.warns(SmallSampleWarning):
        res = auc_ci([0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4])
    assert res.estimate == 1.0 and res.conf_int() == (1.0, 1.0)
