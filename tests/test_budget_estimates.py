"""evaluate_rules (design-based estimates) and guided_sample (retrieval).

References: exact enumeration of every stratified sample of a tiny pool (the estimator's
design expectation and the expectation of its variance estimator), hand-computed weighted
ratios, and seeded Monte-Carlo coverage (slow)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalstats._warnings import SmallSampleWarning, UndefinedEstimateWarning
from evalstats.budget import LabelDesign, evaluate_rules, guided_sample


def _tiny_pool():
    # 10 items: 4 positives (stratum 1), 6 negatives (stratum 0); two rules
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    r = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0], [0, 0], [1, 1], [0, 0], [0, 1],
                  [0, 0]])
    return y, r


def test_sensitivity_unbiased_with_exact_variance_by_enumeration():
    # Strata = oracle label, so the Se denominator total is known exactly (N_pos) and the
    # estimator is a stratified mean: E[est] = true Se and E[var_hat] = Var[est] exactly.
    y, r = _tiny_pool()
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    ests, vars_ = [], []
    for sp in itertools.combinations(pos, 2):
        for sn in itertools.combinations(neg, 3):
            idx = np.array(sp + sn)
            d = LabelDesign.stratified(y[idx], {1: 4, 0: 6})
            ev = evaluate_rules(y[idx], r[idx], d, measures=("sensitivity", "specificity"))
            ests.append(ev.table["estimate"].to_numpy())
            vars_.append(ev.table["std_error"].to_numpy() ** 2)
    ests, vars_ = np.array(ests), np.array(vars_)
    true = np.array([2 / 4, 2 / 4, 4 / 6, 4 / 6])  # Se rule0, Se rule1, Sp rule0, Sp rule1
    np.testing.assert_allclose(ests.mean(axis=0), true, rtol=1e-12)
    np.testing.assert_allclose(vars_.mean(axis=0), ests.var(axis=0), rtol=1e-12)


def test_precision_is_the_weighted_ratio():
    # hand computation: w = 40/3 for the 3 labeled positives, 960/5 = 192 for negatives
    y = np.array([1, 1, 1, 0, 0, 0, 0, 0])
    r = np.array([[1, 0], [1, 1], [0, 1], [1, 0], [0, 0], [0, 1], [0, 0], [0, 0]])
    ev = evaluate_rules(y, r, LabelDesign.stratified(y, {1: 40, 0: 960}))
    tab = ev.table.set_index(["rule", "measure"])["estimate"]
    wp, wn = 40 / 3, 192.0
    assert tab["rule_0", "precision"] == pytest.approx(2 * wp / (2 * wp + wn), rel=1e-12)
    assert tab["rule_1", "precision"] == pytest.approx(2 * wp / (2 * wp + wn), rel=1e-12)
    assert tab["rule_0", "recall"] == pytest.approx(2 / 3, rel=1e-12)
    assert tab["rule_1", "specificity"] == pytest.approx(4 / 5, rel=1e-12)
    td = ev.tidy()
    assert len(td) == 6 and (td["conf_low"] <= td["estimate"]).all()
    assert (td["conf_high"] <= 1).all() and (td["conf_low"] >= 0).all()


def test_poisson_design_matches_hand_computation():
    y = np.array([1, 0, 1, 0, 0])
    r = np.array([1, 1, 0, 0, 1])
    pi = np.array([0.5, 0.1, 0.5, 0.2, 0.1])
    ev = evaluate_rules(y, pd.DataFrame({"R": r}), LabelDesign.poisson(pi),
                        measures=("precision",))
    num, den = 1 / 0.5, 1 / 0.5 + 1 / 0.1 + 1 / 0.1
    est = num / den
    e = (y * r - est * r) / den
    var = np.sum((1 - pi) / pi ** 2 * e ** 2)
    assert ev.estimate == pytest.approx(est, rel=1e-12)
    assert ev.std_error == pytest.approx(np.sqrt(var), rel=1e-12)
    assert ev.term == "R:precision"


def test_blind_design_is_refused_with_the_alternative_named():
    # issue 11: blind labels after guided retrieval are not a probability sample; the old
    # unweighted subset interval covered 0.17 for an informative rule. Refuse instead.
    y = np.array([1, 1, 0, 0, 0, 0])
    blind = np.array([False, False, False, True, True, True])
    r = {"a": [1, 0, 1, 0, 1, 0]}
    with pytest.raises(ValueError, match="not a probability sample") as err:
        evaluate_rules(y, r, LabelDesign.blind(blind, n_pool=1000))
    assert "LabelDesign.stratified" in str(err.value)
    assert "LabelDesign.poisson" in str(err.value)


def test_undefined_and_single_label_strata_are_marked():
    y = np.array([1, 0, 0])
    r = np.array([[0], [0], [0]])
    with pytest.warns(UndefinedEstimateWarning, match="precision of rule_0 is undefined"):
        with pytest.warns(SmallSampleWarning, match="single label"):
            ev = evaluate_rules(y, r, LabelDesign.stratified(y, {1: 5, 0: 50}))
    assert np.isnan(ev.table["estimate"].iloc[0])
    assert any("undefined" in n for n in ev.notes)


def test_evaluate_rules_bad_input():
    y = np.array([1, 0, 1])
    with pytest.raises(ValueError, match="`rules` must be one row per labeled example"):
        evaluate_rules(y, np.ones((4, 2)), LabelDesign.simple(10, 3))
    with pytest.raises(ValueError, match="`rules` must be predictions coded 0/1"):
        evaluate_rules(y, np.full((3, 1), 0.5), LabelDesign.simple(10, 3))
    with pytest.raises(TypeError, match="`design` must be a LabelDesign"):
        evaluate_rules(y, np.ones((3, 1)), {"strata": [0, 0, 0]})
    with pytest.raises(ValueError, match="`labels` must be binary"):
        evaluate_rules([2, 0, 1], np.ones((3, 1)), LabelDesign.simple(10, 3))
    with pytest.raises(ValueError, match="`stratum_sizes` must be a size for every stratum"):
        LabelDesign.stratified([0, 1], {0: 5})
    with pytest.raises(ValueError, match="at least the 2 labeled"):
        LabelDesign.stratified([0, 0], {0: 1})
    with pytest.raises(ValueError, match="`inclusion_probabilities` must be in \\(0, 1\\]"):
        LabelDesign.poisson([0.0, 0.5])
    with pytest.raises(ValueError, match="`design.strata` must be of length 3"):
        evaluate_rules(y, np.ones((3, 1)), LabelDesign.stratified([0, 0], {0: 10}))


@pytest.mark.slow
def test_stratified_precision_coverage_monte_carlo():
    # 400 seeded replications on the bundled sim_pool: stratify by the surrogate `pred`,
    # oversample predicted positives; 95 % Wald intervals for the precision of 3 rules.
    from evalstats import datasets

    pool = datasets.load("sim_pool")
    y = pool["label"].to_numpy()
    s = pool["pred"].to_numpy()
    rng = np.random.default_rng(11)
    rules = (rng.random((len(y), 3)) < np.array([0.05, 0.1, 0.2])) | (
        pool["prob"].to_numpy()[:, None] > np.array([0.3, 0.5, 0.7]))
    truth = (rules & (y[:, None] == 1)).sum(0) / rules.sum(0)
    sizes = {h: int((s == h).sum()) for h in (0, 1)}
    n_h = {0: 300, 1: min(150, sizes[1])}
    hits, n_rep = np.zeros(3), 400
    for _ in range(n_rep):
        idx = np.concatenate([rng.choice(np.flatnonzero(s == h), n_h[h], replace=False)
                              for h in (0, 1)])
        ev = evaluate_rules(y[idx], rules[idx].astype(int),
                            LabelDesign.stratified(s[idx], sizes), measures=("precision",))
        td = ev.tidy()
        hits += (td["conf_low"].to_numpy() <= truth) & (truth <= td["conf_high"].to_numpy())
    cover = hits / n_rep
    se = np.sqrt(0.95 * 0.05 / n_rep)
    print("coverage", cover, "binomial SE", se)
    assert (cover >= 0.95 - 3 * se).all()


# -- guided retrieval --------------------------------------------------------------------
def _toy(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    y = ((x[:, 0] > 1.5) & (x[:, 1] > -0.5)).astype(int)
    return x, y


def test_guided_retrieves_more_positives_than_random_and_is_reproducible():
    x, y = _toy()
    g = guided_sample(x, y, 300, n_seed=60, batch_size=10, rng=5)
    g2 = guided_sample(x, y, 300, n_seed=60, batch_size=10, rng=5)
    rnd = guided_sample(x, y, 300, strategy="random", rng=5)
    np.testing.assert_array_equal(g.indices, g2.indices)
    assert len(np.unique(g.indices)) == 300
    np.testing.assert_array_equal(g.labels, y[g.indices])
    # random sampling: positives ~ Hypergeom; guided far above its 99.9 % quantile
    q = stats.hypergeom(len(y), y.sum(), 300).ppf(0.999)
    assert g.labels.sum() > q
    assert rnd.labels.sum() <= stats.hypergeom(len(y), y.sum(), 300).ppf(0.9999)
    assert g.positives_curve()[-1] == g.labels.sum()
    import matplotlib.pyplot as plt
    assert g.plot() is not None
    plt.close("all")


def test_callable_oracle_gives_the_same_sample():
    x, y = _toy(1000, 1)
    calls = []

    def oracle(idx):
        calls.append(len(idx))
        return y[idx]

    a = guided_sample(x, oracle, 120, n_seed=40, batch_size=20, rng=3)
    b = guided_sample(x, y, 120, n_seed=40, batch_size=20, rng=3)
    np.testing.assert_array_equal(a.indices, b.indices)
    assert calls[0] == 40 and sum(calls) == 120


def test_guided_sample_bad_input():
    x, y = _toy(200, 2)
    with pytest.raises(ValueError, match="`n_labels` must be an integer in \\[1, 200\\]"):
        guided_sample(x, y, 500)
    with pytest.raises(ValueError, match="`oracle` must be one label per row"):
        guided_sample(x, y[:10], 50)
    with pytest.raises(ValueError, match="`strategy` must be one of"):
        guided_sample(x, y, 50, strategy="active")
    with pytest.raises(ValueError, match="`oracle` must return 10 labels"):
        guided_sample(x, lambda idx: np.zeros(3), 50, n_seed=10)


def test_experiment_plugin_equals_bernstein_bound_mean():
    # the vignette/benchmark plug-in estimator is eq 3.4/3.8/3.10, i.e. BoundResult.estimate
    from evalstats.budget import bernstein_bound
    from evalstats.budget.simulation import plugin_measures, random_rules, subset_measures

    rng = np.random.default_rng(3)
    y = (rng.random(500) < 0.1).astype(int)
    rules = random_rules(500, 60, 2, rng)
    assert (rules.sum(0) == 60).all()
    idx = rng.choice(500, 80, replace=False)
    est = plugin_measures(y, rules, idx)
    yl, r = y[idx].astype(bool), rules[idx, 0]
    for k, m in enumerate(("precision", "sensitivity", "specificity")):
        res = bernstein_bound(m, n_pool=500, n_pool_positive=int(y.sum()), n_rule_positive=60,
                              n_labeled_positive=int(yl.sum()),
                              n_labeled_negative=int((~yl).sum()),
                              rule_hits_positive=int((r & yl).sum()),
                              rule_hits_negative=int((r & ~yl).sum()))
        assert est[k][0] == pytest.approx(res.estimate, rel=1e-12)
    # with every example labeled the subset estimate is the truth
    full = subset_measures(y, rules, np.arange(500))
    assert full[0][0] == pytest.approx((rules[:, 0] & (y == 1)).sum() / 60)


def test_guided_sample_random_state_alias():
    x, y = _toy(300, 2)
    a = guided_sample(x, y, 60, n_seed=20, batch_size=10, random_state=5)  # an alias (README)
    b = guided_sample(x, y, 60, n_seed=20, batch_size=10, rng=5)
    np.testing.assert_array_equal(a.indices, b.indices)


def test_guided_sample_with_a_budget_below_the_default_seed():
    """n_labels = 1 used to fail on the default n_seed = 100, naming an argument the user
    never passed; the seed is now min(100, n_labels)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 1).astype(int)
    res = guided_sample(X, y, 1, rng=0)
    assert res.n_labels == 1 and res.n_seed == 1
    with pytest.raises(ValueError, match="`n_seed` must be"):
        guided_sample(X, y, 10, n_seed=20, rng=0)


def test_wald_intervals_of_rule_measures_stay_in_the_unit_interval():
    # before: precision down to -0.11, recall up to 1.295 on this design
    y = np.array([1, 1, 1, 0, 0, 0, 0, 0])
    r = np.array([[1, 0], [1, 1], [0, 1], [1, 0], [0, 0], [0, 1], [0, 0], [0, 0]])
    ev = evaluate_rules(y, r, LabelDesign.stratified(y, {1: 40, 0: 960}))
    t = ev.tidy(method="wald")
    assert (t["conf_low"] >= 0).all() and (t["conf_high"] <= 1).all()
    assert ((t["conf_low"] <= t["estimate"]) & (t["estimate"] <= t["conf_high"])).all()


@pytest.mark.parametrize("size", [np.nan, np.inf, 40.5, -3])
def test_stratum_sizes_must_be_whole_pool_counts(size):
    # before: accepted, and evaluate_rules reported NaN "with no labeled example"
    y = np.array([1, 1, 1, 0, 0, 0, 0, 0])
    with pytest.raises((ValueError, TypeError), match=r"stratum_sizes\[1\]"):
        LabelDesign.stratified(y, {1: size, 0: 960})


def test_estimate_on_the_boundary_gets_clopper_pearson_at_the_sample_size():
    """100 correct of 100 (simple random sample): the default interval is Clopper–Pearson's
    [(α/2)^(1/100), 1] = [0.9638, 1] (closed form for x = n); before, the effective size
    p(1−p)/se² was 0 at p = 1 and the interval was [0.025, 1] whatever the sample size."""
    y = np.r_[np.ones(100, int), np.zeros(300, int)]
    with pytest.warns(UndefinedEstimateWarning):
        ev = evaluate_rules(y, {"perfect": y, "never": np.zeros(400, int)},
                            LabelDesign.simple(10_000, 400))
    t = ev.tidy().set_index("term")
    assert t.loc["perfect:precision", "conf_low"] == pytest.approx(0.025 ** (1 / 100), rel=2e-3)
    assert t.loc["perfect:precision", "conf_high"] == 1.0
    assert t.loc["never:recall", "conf_high"] == pytest.approx(1 - 0.025 ** (1 / 100), rel=2e-2)
    assert t.loc["perfect:specificity", "conf_low"] == pytest.approx(0.025 ** (1 / 300),
                                                                      rel=2e-3)


def test_callable_oracle_values_are_checked_before_conversion():
    """An oracle answering 0.7 was truncated to 0 by ``astype(int)`` and every label was
    recorded as negative; now it is refused, naming a value. Booleans and 0.0/1.0 pass."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] > 1.2).astype(int)
    with pytest.raises(ValueError,
                       match=r"`oracle` must be binary labels coded 0/1; got values \{0, 0\.7\}"):
        guided_sample(X, lambda idx: 0.7 * y[idx], 50, n_seed=10, rng=0)
    a = guided_sample(X, lambda idx: y[idx].astype(bool), 50, n_seed=10, rng=0)
    b = guided_sample(X, y, 50, n_seed=10, rng=0)
    assert np.array_equal(a.labels, b.labels)


def test_rules_as_a_frame_or_mapping_get_the_checks_of_an_array():
    """A DataFrame or mapping of rules skipped validation: text accepted, numpy's own
    errors for ragged or empty input, an IndexError for a frame without columns."""
    y = np.array([1, 1, 0, 0, 0])
    d = LabelDesign.stratified(y, {1: 10, 0: 100})
    with pytest.raises(TypeError, match=r"`rules\['a'\]` must be array-like of numbers"):
        evaluate_rules(y, pd.DataFrame({"a": ["1", "0", "1", "0", "1"]}), d)
    with pytest.raises(ValueError, match=r"`rules\['b'\]` must be one prediction per labeled "
                                         r"example \(5\); got 4"):
        evaluate_rules(y, {"a": [1, 0, 1, 0, 0], "b": [0, 0, 0, 1]}, d)
    for empty in ({}, pd.DataFrame(index=range(5))):
        with pytest.raises(ValueError, match="`rules` must be at least one rule"):
            evaluate_rules(y, empty, d)
    with pytest.raises(ValueError, match="no NaN"):
        evaluate_rules(y, {"a": [1, 0, np.nan, 0, 1]}, d)
    a = evaluate_rules(y, {"a": [1, 0, 1, 0, 0]}, d)
    b = evaluate_rules(y, np.array([1, 0, 1, 0, 0]), d)
    assert a.estimate == b.estimate


def test_a_census_knows_every_measure_exactly():
    """Every example labeled: the design variance is exactly 0 and the measures are the
    pool's own; the interval was a full Clopper–Pearson one ([0.24, 0.63] for 21/49)."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 50)
    r = rng.integers(0, 2, 50)
    ev = evaluate_rules(y, r, LabelDesign.simple(50, 50))
    t = ev.tidy()
    assert np.allclose(t["conf_low"], t["estimate"]) and np.allclose(t["conf_high"],
                                                                      t["estimate"])
    assert t["estimate"].iloc[0] == pytest.approx((y * r).sum() / r.sum(), rel=1e-12)
    assert any("census" in n for n in ev.notes)
    partial = evaluate_rules(y, r, LabelDesign.simple(60, 50)).tidy()
    assert (partial["conf_high"] > partial["conf_low"]).all()


def test_guided_sample_names_an_estimator_that_is_not_a_classifier():
    """estimator='tree' ended in scikit-learn's clone error, `estimator` never named."""
    X = np.random.default_rng(0).normal(size=(100, 2))
    y = (X[:, 0] > 1).astype(int)
    with pytest.raises(TypeError, match="`estimator` must be a scikit-learn classifier"):
        guided_sample(X, y, 30, n_seed=10, estimator="tree", rng=0)


def test_text_labels_are_refused_like_text_rules():
    """Labels given as text ("1"/"0") converted silently, where the rules' text was refused
    (review of 2026-11-26): a column read as text is a data error; the oracle alike."""
    y = np.array([1, 1, 0, 0, 0])
    d = LabelDesign.stratified(y, {1: 10, 0: 100})
    rules = np.array([[1], [0], [1], [0], [0]])
    with pytest.raises(TypeError, match=r"`labels` must be binary labels coded 0/1; got text"):
        evaluate_rules(y.astype(str), rules, d)
    with pytest.raises(TypeError, match=r"`labels` must be binary labels coded 0/1; got text"):
        evaluate_rules(np.array(["1", 1, 0, 0, 0], dtype=object), rules, d)
    assert evaluate_rules(y.astype(bool), rules, d).tidy().shape[0] > 0
    X = np.random.default_rng(0).normal(size=(300, 2))
    with pytest.raises(TypeError, match=r"`oracle` must be binary labels coded 0/1; got text"):
        guided_sample(X, (X[:, 0] > 1.2).astype(int).astype(str), 50, n_seed=10, rng=0)
