"""Plans in labels to buy (search included), uncertain positive counts, joint guarantees,
feasibility bounds and planning values.

References: exact enumeration (every positive count and unknown count of a pool; every
label vector of a 12-item pool; every position of the k-th positive); closed forms
(negative hypergeometric mean); statsmodels' ``samplesize_confint_proportion`` with
Cochran's finite-population correction; the Bonferroni identity of the joint plan.
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest
from scipy import stats

from evalstats.budget import plan_labels
from evalstats.budget._anyrule import random_halfwidth, subset_halfwidth
from evalstats.budget._prevalence import pilot_interval
from evalstats.budget._ranges import measure_range, worst_halfwidth
from evalstats.budget._search import random_search, score_search

MEASURES = ("precision", "sensitivity", "specificity")


def _enumerate_range(measure, n, p_lo, p_hi, r, k_pos, k_neg, t, f):
    """Range of a measure over every positive count P and unknown count x (brute force)."""
    a, u = r - t - f, n - k_pos - k_neg
    vals = []
    for p in range(max(p_lo, k_pos), min(p_hi, n - k_neg) + 1):
        u_pos = p - k_pos
        for x in range(max(0, a - (u - u_pos)), min(a, u_pos) + 1):
            tp, fp = t + x, f + a - x
            vals.append({"precision": tp / r, "sensitivity": tp / p,
                         "specificity": 1 - fp / (n - p)}[measure])
    return min(vals), max(vals)


def test_ranges_over_a_positive_count_interval_match_enumeration():
    rng = np.random.default_rng(0)
    checked = 0
    while checked < 400:
        n = int(rng.integers(6, 40))
        p_lo = int(rng.integers(1, n - 2))
        p_hi = int(rng.integers(p_lo, n - 1))
        r = int(rng.integers(1, n))
        k_pos, k_neg = int(rng.integers(0, p_lo + 1)), int(rng.integers(0, n - p_hi))
        t = int(rng.integers(0, min(k_pos, r) + 1))
        f = int(rng.integers(0, min(k_neg, r - t) + 1))
        if r - t - f > n - k_pos - k_neg:
            continue
        for m in MEASURES:
            want = _enumerate_range(m, n, p_lo, p_hi, r, k_pos, k_neg, t, f)
            got = measure_range(m, n, p_lo, p_hi, r, k_pos, k_neg, t, f)
            assert np.allclose([float(got[0]), float(got[1])], want), (m, n, p_lo, p_hi)
        checked += 1


def test_worst_case_over_rules_matches_enumeration_on_a_60_item_pool():
    # the audit's pool size: every rule hit count t on the k labeled positives
    n, r = 60, 9
    for p_lo, p_hi in ((6, 6), (5, 8), (20, 26)):
        for k in range(0, p_lo + 1, 2):
            for m in MEASURES:
                best = max((lambda lo_hi: (lo_hi[1] - lo_hi[0]) / 2)(
                    _enumerate_range(m, n, p_lo, p_hi, r, k, 0, t, 0))
                    for t in range(max(0, r - (n - k)), min(k, r) + 1))
                assert worst_halfwidth(m, n, p_lo, p_hi, r, k)[0] == pytest.approx(best)


def test_truth_of_every_rule_lies_in_the_range_for_every_positive_count():
    # item-level enumeration: 8-item pools with P in [2, 4]; every rule of size 3 and
    # every set of 2 labeled positives
    n, r, k = 8, 3, 2
    for p in (2, 3, 4):
        y = np.array([1] * p + [0] * (n - p))
        for rule in itertools.combinations(range(n), r):
            pred = np.zeros(n, int)
            pred[list(rule)] = 1
            tp = int((y * pred).sum())
            truth = dict(precision=tp / r, sensitivity=tp / p,
                         specificity=int(((1 - y) * (1 - pred)).sum()) / (n - p))
            for lab in itertools.combinations(range(p), k):
                t = int(pred[list(lab)].sum())
                for m in MEASURES:
                    lo, hi = measure_range(m, n, 2, 4, r, k, 0, t, 0)
                    assert lo - 1e-12 <= truth[m] <= hi + 1e-12


def test_random_search_cost_is_the_negative_hypergeometric_law():
    # P(N_k = m) = C(m-1, k-1) C(N-m, P-k) / C(N, P): the k-th of P positives in a random
    # order of N items sits at position m
    n, p, k = 40, 7, 4
    pmf = np.array([comb(m - 1, k - 1) * comb(n - m, p - k) / comb(n, p)
                    for m in range(1, n + 1)])
    cdf = np.cumsum(pmf)
    for q in (0.5, 0.9, 0.95):
        quant, mean = random_search(n, p, [k], q)
        assert quant[0] == np.flatnonzero(cdf >= q - 1e-12)[0] + 1
        assert mean[0] == pytest.approx((np.arange(1, n + 1) * pmf).sum())
        assert mean[0] == pytest.approx(k * (n + 1) / (p + 1))
    assert random_search(n, p, [p + 1], 0.95)[0][0] == n        # more than exist: census


def test_score_order_search_cost_by_enumerating_every_label_vector():
    probs = np.array([0.9, 0.8, 0.7, 0.5, 0.4, 0.3, 0.2, 0.15, 0.1, 0.05, 0.05, 0.02])
    n = len(probs)
    for k in (1, 3, 5):
        dist = np.zeros(n + 1)                              # labels needed, census cap
        for bits in itertools.product((0, 1), repeat=n):
            y = np.array(bits)
            w = np.prod(np.where(y == 1, probs, 1 - probs))
            c = np.cumsum(y)
            m = int(np.flatnonzero(c >= k)[0] + 1) if c[-1] >= k else n
            dist[m] += w
        cdf = np.cumsum(dist)
        for q in (0.5, 0.9):
            quant, mean = score_search(probs[::-1], [k], q)     # order is the function's
            assert quant[0] == np.flatnonzero(cdf >= q - 1e-12)[0]
            assert mean[0] == pytest.approx((np.arange(n + 1) * dist).sum())


def test_score_order_search_given_the_positive_count_by_enumeration():
    # labels conditioned on exactly P positives: every label vector with P ones
    probs = np.array([0.9, 0.8, 0.7, 0.5, 0.4, 0.3, 0.2, 0.15, 0.1, 0.05, 0.05, 0.02])
    n = len(probs)
    for total in (3, 5):
        for k in (1, 3, total):
            dist = np.zeros(n + 1)
            for bits in itertools.product((0, 1), repeat=n):
                y = np.array(bits)
                if y.sum() != total:
                    continue
                w = np.prod(np.where(y == 1, probs, 1 - probs))
                dist[int(np.flatnonzero(np.cumsum(y) >= k)[0] + 1)] += w
            dist /= dist.sum()
            cdf = np.cumsum(dist)
            for q in (0.5, 0.9):
                quant, mean = score_search(probs, [k], q, n_pos=total)
                assert quant[0] == np.flatnonzero(cdf >= q - 1e-12)[0]
                assert mean[0] == pytest.approx((np.arange(n + 1) * dist).sum())
    # only odds ratios matter given the total: a common logit shift changes nothing
    shifted = 1 / (1 + (1 - probs) / probs * np.exp(1.3))
    assert np.allclose(score_search(shifted, [3], 0.9, n_pos=5),
                       score_search(probs, [3], 0.9, n_pos=5))


def test_score_search_normal_branch_agrees_with_the_recursion(monkeypatch):
    import evalstats.budget._search as S

    rng = np.random.default_rng(3)
    s = 1 / (1 + np.exp(-(2 * rng.normal(size=5000) - 4)))
    for total in (None, int(round(s.sum()))):
        monkeypatch.setattr(S, "MAX_DP_WORK", 3 * 10 ** 7)
        exact = score_search(s, [100, 250], 0.9, n_pos=total)
        monkeypatch.setattr(S, "MAX_DP_WORK", 0)
        approx = score_search(s, [100, 250], 0.9, n_pos=total)
        assert np.allclose(approx[0], exact[0], rtol=0.03)
        assert np.allclose(approx[1], exact[1], rtol=0.03)


def test_pilot_interval_inverts_the_exact_tests():
    # brute force over every positive count: P is in the interval iff neither one-sided
    # hypergeometric test rejects at delta/2
    n, k, m, delta = 300, 6, 40, 0.1
    inside = [p for p in range(k, n - (m - k) + 1)
              if stats.hypergeom.sf(k - 1, n, p, m) > delta / 2
              and stats.hypergeom.cdf(k, n, p, m) > delta / 2]
    assert pilot_interval(n, k, m, delta) == (min(inside), max(inside))


def test_auto_compares_labels_to_buy_and_scores_shorten_the_search():
    kw = dict(n_pool=20_000, prevalence=0.03, rule_rate=0.05, half_width=0.02)
    plan = plan_labels(**kw)
    t = plan.table[plan.table["bound"] != "bernstein"].groupby("strategy")["n_total"].max()
    assert plan.strategy == "random" and plan.n_total == t["random"] < t["positives"]
    # a pilot model that gives 0.99 to 600 items and 0 to the rest: given the 600
    # positives of the pool, they are those 600 items, so 576 labels find 576 positives
    # (without the total, P(Binomial(600, 0.99) >= 576) would be the question)
    scores = np.r_[np.full(600, 0.99), np.zeros(19_400)]
    fast = plan_labels(**kw, scores=scores)
    assert fast.strategy == "positives" and fast.search == "scores"
    assert (fast.n_positive, fast.n_total) == (576, 576)
    assert "in decreasing score until 576 positives" in repr(fast)
    m = next(m for m in range(576, 601) if stats.binom.sf(575, m, 0.99) >= 0.95)
    assert score_search(scores, [576], 0.95)[0][0] == m


def test_plans_over_a_prevalence_interval_hold_for_every_count_in_it():
    kw = dict(n_pool=5_000, rule_rate=0.05, half_width=0.1, strategy="positives")
    plan = plan_labels(prevalence=(0.024, 0.026), **kw)
    lo, hi = 120, 130
    assert plan.prevalence_range == (lo / 5_000, hi / 5_000)
    assert not plan.headline()["census"].any()
    for label, row in plan.headline().set_index("measure").iterrows():
        m = "sensitivity" if label == "recall" else label
        k = row["n_positive"]
        for p in (lo, 125, hi):
            assert worst_halfwidth(m, 5_000, p, p, 250, k)[0] <= 0.1 + 1e-12
        assert worst_halfwidth(m, 5_000, lo, hi, 250, k)[0] <= 0.1 + 1e-12
        if k:
            assert worst_halfwidth(m, 5_000, lo, hi, 250, k - 1)[0] > 0.1
    exact = plan_labels(prevalence=0.025, **kw)
    assert plan.n_positive >= exact.n_positive
    # an interval the labels cannot resolve: the plan is a census, and says so
    with pytest.warns(Warning, match="whole pool"):
        wide = plan_labels(prevalence=(0.01, 0.05), **kw)
    assert wide.n_total == 5_000


def test_pilot_spends_delta_and_widens_with_the_level():
    kw = dict(n_pool=5_000, prevalence=None, pilot=(400, 4_000), rule_rate=0.05,
              half_width=0.25, strategy="positives", measures=("precision",))
    a = plan_labels(**kw, confidence_level=0.9)
    b = plan_labels(**kw, confidence_level=0.99)
    assert not (a.headline()["census"].any() or b.headline()["census"].any())
    assert b.n_positive >= a.n_positive and b.n_total >= a.n_total
    lo, hi = pilot_interval(5_000, 400, 4_000, 0.1)   # all of delta: deterministic plan
    assert a.prevalence_range == (lo / 5_000, hi / 5_000)
    assert any("pilot" in n for n in a.notes)
    # the random-label plan gives the pilot half of delta
    r = plan_labels(**{**kw, "strategy": "random"}, confidence_level=0.9)
    assert any("δ/2" in n for n in r.notes)


def test_unknown_prevalence_does_not_touch_the_random_label_plan():
    # the subset estimates need no prevalence: same plan, no prevalence sample, full delta
    kw = dict(n_pool=20_000, rule_rate=0.05, half_width=0.02, measures=("precision",
                                                                        "recall"))
    known = plan_labels(prevalence=0.03, **kw)
    guess = plan_labels(prevalence=0.03, prevalence_known=False, **kw)
    rows = [p.table.query("strategy == 'random' and bound == 'exact'")
            .set_index("measure")["n_total"] for p in (known, guess)]
    assert rows[0].equals(rows[1])
    assert guess.strategy == "random" and guess.n_prevalence == 0
    assert guess.n_total == known.n_total


def test_joint_plan_is_the_bonferroni_split():
    # with two uncertain measures, the joint plan at 95 % is each measure's plan at
    # 97.5 %; per-measure plans (joint=False) are smaller
    kw = dict(n_pool=20_000, prevalence=0.03, rule_rate=0.05, half_width=0.02,
              strategy="random", measures=("precision", "recall"))
    joint = plan_labels(**kw).headline().set_index("measure")["n_total"]
    split = plan_labels(**kw, joint=False, confidence_level=0.975).headline().set_index(
        "measure")["n_total"]
    per = plan_labels(**kw, joint=False).headline().set_index("measure")["n_total"]
    assert joint.equals(split)
    assert (per <= joint).all() and (per < joint).any()


def test_feasibility_bounds_pin_measures_without_labels():
    # specificity of any rule flagging 1,000 of 20,000 with 600 positives lies in
    # [1 - 1000/19,400, 1 - 400/19,400] = [0.9485, 0.9794]: half-width 0.0155
    lo, hi = measure_range("specificity", 20_000, 600, 600, 1_000)
    assert (float(lo), float(hi)) == pytest.approx((1 - 1000 / 19_400, 1 - 400 / 19_400))
    plan = plan_labels(20_000, 0.03, 0.05, half_width=0.02, strategy="random")
    assert plan.headline().set_index("measure").loc["specificity", "n_total"] == 0
    assert any("Specificity needs no label" in n for n in plan.notes)
    # precision <= P/R = 100/1000: the worst proportion is 0.1, not 1/2
    kw = dict(n_pool=20_000, p_lo=100, p_hi=100, n_rpos=1_000, bound="exact", delta=0.05)
    k = np.array([4_000])
    with_bound = random_halfwidth("precision", k=k, **kw)[0]
    without = random_halfwidth("precision", k=k, feasibility=False, **kw)[0]
    assert with_bound < 0.7 * without


@pytest.mark.parametrize("p, h, wald", [
    # notes §10 (budget_planning.md), Wald column, and the planner: precision 0.8
    (0.04, 0.01, 1476), (0.10, 0.025, 554), (0.50, 0.05, 385), (0.90, 0.05, 139),
    (0.80, 0.05, 246)])
def test_planning_values_against_statsmodels_with_fpc(p, h, wald):
    from statsmodels.stats.proportion import samplesize_confint_proportion

    n0 = samplesize_confint_proportion(p, h, alpha=0.05)
    assert int(np.ceil(n0)) == wald
    d = 5_000                                   # finite denominator: Cochran's FPC
    n_fpc = n0 / (1 + (n0 - 1) / d)
    # the exact (hypergeometric, discrete) half-width at the planning value needs about
    # the normal approximation's count of denominator labels
    ms = np.arange(1, d + 1)
    hw = subset_halfwidth(d, ms, "exact", 0.05, expected=p)
    m = int(ms[np.flatnonzero(hw <= h + 1e-12)[0]])
    assert 0.9 * n_fpc <= m <= 1.1 * n_fpc
    # the plan in labels to buy asks a little more (the labeled count of the denominator
    # is random and taken at its lower delta/20 quantile): rule positives are 10 %
    plan = plan_labels(50_000, 0.3, 0.1, half_width=h, measures=("precision",),
                       expected={"precision": p})
    assert 1.0 <= plan.n_total_planning * 0.1 / n_fpc <= 1.35


def test_expected_values_give_the_planning_plan_beside_the_worst_case():
    kw = dict(n_pool=20_000, prevalence=0.3, rule_rate=0.3, half_width=0.05,
              measures=("precision",))
    worst = plan_labels(**kw)
    plan = plan_labels(**kw, expected={"precision": 0.8})
    assert plan.n_total == worst.n_total                 # the guarantee is unchanged
    assert plan.n_total_planning < plan.n_total
    # ratio close to p(1-p)/(1/4) = 0.64 (both need about z^2 p(1-p)/h^2 rule positives)
    assert plan.n_total_planning / plan.n_total == pytest.approx(0.64, abs=0.06)
    assert "planning values" in plan.summary().as_text()
    with pytest.raises(ValueError, match="expected"):
        plan_labels(**kw, expected={"precision": 1.5})
    with pytest.raises(TypeError, match="`expected`"):
        plan_labels(**kw, expected=[0.8])


def test_plans_never_fall_as_the_level_rises_for_the_deterministic_plan():
    kw = dict(n_pool=3_000, prevalence=None, rule_rate=0.1, half_width=0.05,
              strategy="positives")
    for pilot in ((30, 300), (5, 100)):
        n = [plan_labels(pilot=pilot, confidence_level=cl, **kw).n_total
             for cl in (0.8, 0.9, 0.95, 0.99)]
        assert n == sorted(n), n
    kw = dict(n_pool=3_000, prevalence=0.05, rule_rate=0.1, half_width=0.05,
              strategy="positives")
    n = [plan_labels(confidence_level=cl, **kw).n_total for cl in (0.5, 0.8, 0.9, 0.99)]
    assert n == sorted(n), n


def test_the_listed_confidence_inversion_of_random_rule_plans():
    # listed in plan_labels' Notes: random rules, exact, precision, 5,000 items,
    # prevalence 0.3, +/-0.01 asks 1,476 positives at 91 % and 1,466 at 92 %
    kw = dict(prevalence=0.3, rule_rate=0.05, half_width=0.01, rules="random",
              strategy="positives", bound="exact", measures=("precision",))
    a = plan_labels(5_000, confidence_level=0.91, **kw)
    b = plan_labels(5_000, confidence_level=0.92, **kw)
    assert (a.n_positive, b.n_positive) == (1476, 1466)


def test_new_arguments_are_validated():
    kw = dict(n_pool=1_000, prevalence=0.1, rule_rate=0.2, half_width=0.05)
    with pytest.raises(ValueError, match="`scores` must be one score per example"):
        plan_labels(**kw, scores=np.full(10, 0.1))
    with pytest.raises(ValueError, match="`scores` must contain probabilities"):
        plan_labels(**kw, scores=np.full(1_000, 2.0))
    with pytest.raises(ValueError, match="`prevalence` must be None when `pilot`"):
        plan_labels(**kw, pilot=(3, 30))
    with pytest.raises(TypeError, match="`pilot` must be a pair"):
        plan_labels(**{**kw, "prevalence": None}, pilot=3)
    with pytest.raises(ValueError, match="`pilot\\[0\\]`"):
        plan_labels(**{**kw, "prevalence": None}, pilot=(40, 30))
    with pytest.raises(ValueError, match="`prevalence\\[1\\]`"):
        plan_labels(**{**kw, "prevalence": (0.2, 0.1)})
    with pytest.raises(TypeError, match="`joint` must be True or False"):
        plan_labels(**kw, joint="yes")


@pytest.mark.slow
def test_joint_guarantee_holds_by_simulation_on_a_fresh_logistic_pool():
    # 6,000 items, logistic labels (prevalence ~6 %), the top 8 % of the score as the rule;
    # the default plan's labels at random, 400 replications: all three measures within
    # +/-0.05 together in >= 95 % (minus 3 SE); the per-measure plan for contrast
    from scipy.special import expit

    rng = np.random.default_rng(20261127)
    n = 6_000
    z = rng.normal(size=n)
    y = rng.random(n) < expit(-3.6 + 1.8 * z)
    rule = z >= np.quantile(z, 0.92)
    tp = (y & rule).sum()
    truth = np.array([tp / rule.sum(), tp / y.sum(), (~y & ~rule).sum() / (~y).sum()])
    plan = plan_labels(n, y.mean(), rule.sum() / n, half_width=0.05, strategy="random")
    reps, hits = 400, 0
    for _ in range(reps):
        idx = rng.choice(n, plan.n_total, replace=False)
        yl, rl = y[idx], rule[idx]
        est = np.array([(yl & rl).sum() / rl.sum(), (yl & rl).sum() / yl.sum(),
                        (~yl & ~rl).sum() / (~yl).sum()])
        hits += bool(np.all(np.abs(est - truth) <= 0.05 + 1e-12))
    cov = hits / reps
    assert cov >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / reps), cov
