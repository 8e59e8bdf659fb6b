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


def test_pos_label_any_labels(rng):
    y = rng.integers(0, 2, 60)
    s = rng.normal(size=60) + y
    ref = auc_ci(y, s)
    named = auc_ci(np.where(y == 1, "case", "control"), s, pos_label="case")
    assert named.estimate == ref.estimate and named.std_error == ref.std_error
    assert named.pos_label == "case" and named.call["pos_label"] == "case"
    # the other class as positive: AUC(-> 1 - AUC) by the symmetry psi(x, y) = 1 - psi(y, x)
    flipped = auc_ci(y, s, pos_label=0)
    assert flipped.estimate == pytest.approx(1 - ref.estimate, abs=1e-12)
    assert flipped.std_error == pytest.approx(ref.std_error, abs=1e-12)


def test_pos_label_errors():
    with pytest.raises(ValueError, match=r"`pos_label` must be one of the labels in `y_true` "
                                         r"\{'a', 'b'\}; got 'c'"):
        auc_ci(["a", "b", "a", "b"], [0.1, 0.2, 0.3, 0.4], pos_label="c")
    with pytest.raises(ValueError, match=r"`pos_label` must be one of the labels.*got '2'"):
        auc_ci([1, 2, 1, 2], [0.1, 0.2, 0.3, 0.4], pos_label="2")
    with pytest.raises(ValueError, match=r"`y_true` must be binary labels coded 0/1 \(or give "
                                         r"`pos_label`\); got values \{1, 2\}"):
        auc_ci([1, 2, 1, 2], [0.1, 0.2, 0.3, 0.4])
    with pytest.raises(ValueError, match=r"`y_true` must have two classes when `pos_label`"):
        auc_ci([1, 2, 3, 2], [0.1, 0.2, 0.3, 0.4], pos_label=2)
    with pytest.raises(ValueError, match=r"`y_true` must be labels without missing values"):
        auc_ci([0, 1, np.nan, 1], [0.1, 0.2, 0.3, 0.4])


def _band_by_boxes(pos, neg, level, x):
    """Campbell's band by its definition: union of boxes (d0, d1) around every vertex."""
    fpr = np.array([np.mean(neg >= c) for c in np.r_[np.inf, np.sort(np.r_[pos, neg])[::-1]]])
    tpr = np.array([np.mean(pos >= c) for c in np.r_[np.inf, np.sort(np.r_[pos, neg])[::-1]]])
    q = np.sqrt(level)
    d0, d1 = stats.kstwo.ppf(q, neg.size), stats.kstwo.ppf(q, pos.size)
    hi = np.array([tpr[fpr <= xi + d0].max() + d1 for xi in x])
    lo = np.array([tpr[fpr >= xi - d0].min() - d1 for xi in x])
    return np.clip(lo, 0, 1), np.clip(hi, 0, 1)


def test_roc_band_matches_definition_with_ties(rng):
    y = rng.integers(0, 2, 45)
    s = np.round(rng.normal(size=45) + y, 1)  # ties
    res = auc_ci(y, s, confidence_level=0.9)
    band = res.roc_band()
    lo, hi = _band_by_boxes(s[y == 1], s[y == 0], 0.9, band["fpr"].to_numpy())
    np.testing.assert_allclose(band["tpr_low"], lo, atol=1e-12)
    np.testing.assert_allclose(band["tpr_high"], hi, atol=1e-12)
    assert (band["tpr_low"] <= band["tpr"]).all() and (band["tpr"] <= band["tpr_high"]).all()


def test_roc_band_simultaneous_coverage():
    """Seeded Monte-Carlo: binormal scores, true ROC R(x) = Phi(1 + Phi^-1(x)).

    R = 200 replications, 25 positives and 35 negatives; the band must contain the true curve
    on the whole FPR grid in >= 95% - 3 SE of replications (KS bands are conservative).
    """
    rng = np.random.default_rng(1994)
    reps, hits = 200, 0
    for _ in range(reps):
        pos, neg = rng.normal(1.0, 1.0, 25), rng.normal(0.0, 1.0, 35)
        res = auc_ci(np.r_[np.ones(25), np.zeros(35)], np.r_[pos, neg])
        band = res.roc_band()
        x = band["fpr"].to_numpy()
        truth = stats.norm.cdf(1.0 + stats.norm.ppf(np.clip(x, 1e-12, 1 - 1e-12)))
        hits += bool(np.all((band["tpr_low"] <= truth + 1e-12) & (truth <= band["tpr_high"]
                                                                  + 1e-12)))
    se = np.sqrt(0.95 * 0.05 / reps)
    assert hits / reps >= 0.95 - 3 * se, hits  # observed 200/200 (conservative band)


def test_auc_plot_is_roc_with_band(rng):
    y = rng.integers(0, 2, 80)
    res = auc_ci(y, rng.normal(size=80) + y)
    ax = res.plot()
    assert "false positive rate" in ax.get_xlabel() and "AUC =" in ax.get_title()
    assert len(ax.collections) >= 1  # the band
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("simultaneous band" in t for t in labels)
