"""Guarantees for ANY rule (issue 11), zero-plan notes, and pools up to 1e12.

References: exhaustive enumeration of every rule and every labeled set on a tiny pool;
hand derivations of the deterministic plan; scipy's exact quantiles for the continuous
approximation; seeded Monte-Carlo coverage for informative rules (slow).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from evalstats.budget import bernstein_bound, plan_labels
from evalstats.budget._anyrule import positives_halfwidth, random_halfwidth
from evalstats.budget._bounds import Discrete, discrete_ppf


def test_deterministic_halfwidth_is_the_worst_case_over_every_rule_by_enumeration():
    # pool of 10 (4 positives), rules of size 5, k positives labeled: enumerate every rule
    # and every labeled set; the truth lies in the range, and the planner's half-width is
    # the largest half-width of the range (attained).
    n, pos, size = 10, 4, 5
    y = np.array([1] * pos + [0] * (n - pos))
    for measure in ("precision", "sensitivity", "specificity"):
        for k in range(pos + 1):
            worst = 0.0
            for rule_idx in itertools.combinations(range(n), size):
                r = np.zeros(n, int)
                r[list(rule_idx)] = 1
                truth = {"precision": (y * r).sum() / size, "sensitivity": (y * r).sum() / pos,
                         "specificity": ((1 - y) * (1 - r)).sum() / (n - pos)}[measure]
                for lab in itertools.combinations(range(pos), k):
                    tp_l = int(r[list(lab)].sum())
                    res = bernstein_bound(measure, n_pool=n, n_pool_positive=pos,
                                          n_rule_positive=size, n_labeled_positive=k,
                                          rule_hits_positive=tp_l, rule_hits_negative=0)
                    lo, hi = res.deterministic_range
                    assert lo - 1e-12 <= truth <= hi + 1e-12
                    worst = max(worst, (hi - lo) / 2)
            planned = float(positives_halfwidth(measure, n, pos, pos, size,
                                                np.array([k]))[0])
            assert planned == pytest.approx(worst, abs=1e-12), (measure, k)


def test_readme_example_plans_labels_for_any_rule():
    # |S| = 20,000, 600 positives, |S_R+| = 1,000, h = 0.02. Every rule's unknown count
    # ranges over W = min(|S_R+|, |U_O+|) = 600 - k (hand derivation):
    # precision (600 - k)/(2*1000) <= 0.02 -> k >= 560; recall (600 - k)/(2*600) <= 0.02
    # -> k >= 576; specificity 600/(2*19,400) = 0.0155 <= 0.02 -> 0.
    plan = plan_labels(n_pool=20_000, prevalence=0.03, rule_rate=0.05, half_width=0.02)
    det = plan.table[plan.table["bound"] == "deterministic"].set_index("measure")
    assert dict(det["n_positive"]) == {"precision": 560, "recall": 576, "specificity": 0}
    # finding 576 of the 600 positives in random order takes nearly the whole pool:
    # the k-th of 600 positives sits at 576 * 20,001/601 = 19,169 on average
    assert det.loc["recall", "n_total_mean"] == pytest.approx(576 * 20_001 / 601)
    assert det.loc["recall", "n_total"] > 19_169
    # so random labels are cheaper: the headline counts labels to buy
    assert (plan.strategy, plan.bound) == ("random", "exact")
    assert plan.n_total == int(plan.headline()["n_total"].max()) < det["n_total"].max()
    assert "labels to buy" in repr(plan)


def test_zero_plans_always_carry_a_note():
    paper = plan_labels(n_pool=20_000, prevalence=0.03, rule_rate=0.05, half_width=0.02,
                        rules="random", joint=False)
    assert paper.n_total == 0
    any_rule = plan_labels(n_pool=20_000, prevalence=0.03, rule_rate=0.05, half_width=0.02,
                           joint=False)
    assert any("assumes random rules" in n and f"{any_rule.n_total:,} labels" in n
               for n in paper.notes)
    loose = plan_labels(n_pool=20_000, prevalence=0.03, rule_rate=0.05, half_width=0.5)
    assert loose.n_total == 0
    assert any("No label needed" in n and "prevalence" in n for n in loose.notes)


def test_continuous_quantiles_match_scipy():
    # above CONTINUOUS_SD the Cornish-Fisher quantile is used: within 2 of scipy's exact
    for m, n_succ, draws in [(10**6, 30_000, 200_000), (10**7, 10**6, 10**5),
                             (2 * 10**6, 10**6, 10**6)]:
        d = Discrete("hypergeom", np.array([m]), np.array([n_succ]), np.array([draws]))
        for q in (0.0005, 0.025, 0.975, 0.9995):
            approx = discrete_ppf(d, np.array([q]), np.array([draws * n_succ / m]))[0]
            assert abs(approx - stats.hypergeom.ppf(q, m, n_succ, draws)) <= 2


def test_huge_pools_answer_and_agree():
    a = plan_labels(10**12, 0.03, 0.05, half_width=0.02)
    b = plan_labels(10**11, 0.03, 0.05, half_width=0.02)
    # random labels: the need no longer depends on the pool size (within 1 %)
    assert a.strategy == b.strategy == "random"
    assert a.n_total == pytest.approx(b.n_total, rel=0.01)
    assert plan_labels(10**12, 0.03, 0.05, half_width=0.02, prevalence_known=False).feasible


def test_random_labels_subset_halfwidth_is_the_worst_case_proportion():
    # with every example labeled the subset estimate is exact
    assert random_halfwidth("precision", 1000, 100, 100, 200, np.array([1000]), "exact",
                            0.05)[0] == 0.0
    hw = random_halfwidth("precision", 100_000, 10_000, 10_000, 20_000, np.array([20_000]),
                          "exact", 0.05)[0]
    # ~4,000 labeled rule positives, p = 1/2, finite-population factor (1 - 4000/20000)
    approx = 1.96 * np.sqrt(0.25 / 4000 * (1 - 4000 / 20_000))
    assert approx < hw < 1.1 * approx


@pytest.mark.slow
def test_any_rule_plans_cover_informative_rules_monte_carlo():
    # informative rules: thresholds of a noisy score; labels bought by each any-rule plan;
    # |estimate - truth| <= h must hold in >= 95 % of replications (exact for positives).
    rng = np.random.default_rng(11)
    n, h = 4000, 0.08
    y = (rng.random(n) < 0.08).astype(int)
    score = y + rng.normal(scale=0.8, size=n)
    rules = [(score > np.quantile(score, 1 - rate)).astype(int) for rate in (0.05, 0.1)]
    reps, hits, total = 300, 0, 0
    for rate, r in zip((0.05, 0.1), rules, strict=True):
        plan = plan_labels(n, y.mean(), rate, half_width=h, strategy="random",
                           measures=("precision", "recall"))
        k = plan.n_total
        truth = np.array([(y * r).sum() / r.sum(), (y * r).sum() / y.sum()])
        for _ in range(reps):
            idx = rng.choice(n, k, replace=False)
            yl, rl = y[idx], r[idx]
            est = np.array([(yl * rl).sum() / max(rl.sum(), 1),
                            (yl * rl).sum() / max(yl.sum(), 1)])
            hits += int(np.all(np.abs(est - truth) <= h))
            total += 1
    cov = hits / total
    se = np.sqrt(0.95 * 0.05 / total)
    assert cov >= 0.95 - 3 * se, (cov, total)


def test_fast_hypergeometric_cdf_matches_scipy():
    from evalstats.budget._bounds import _hypergeom_cdf

    rng = np.random.default_rng(1)
    for _ in range(60):
        m = int(10 ** rng.uniform(1.5, 6))
        n_succ = int(m * rng.uniform(0.01, 0.6))
        draws = max(1, int(m * rng.uniform(0.001, 0.9)))
        mean = draws * n_succ / m
        x = np.linspace(mean - 300, mean + 300, 41).round()
        np.testing.assert_allclose(_hypergeom_cdf(x, m, n_succ, draws),
                                   stats.hypergeom.cdf(x, m, n_succ, draws), atol=1e-8)


def test_continuous_quantiles_are_exact_on_random_laws():
    from evalstats.budget._bounds import CONTINUOUS_SD, _moments

    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(150):
        m = int(10 ** rng.uniform(3.5, 6))
        n_succ, draws = int(m * rng.uniform(0.01, 0.5)), int(m * rng.uniform(0.01, 0.9))
        d = Discrete("hypergeom", np.array([m]), np.array([n_succ]), np.array([draws]))
        if np.sqrt(_moments(d)[0][0]) <= CONTINUOUS_SD:
            continue
        for q in (0.0005, 0.025, 0.975, 0.9995):
            approx = discrete_ppf(d, np.array([q]), np.array([draws * n_succ / m]))[0]
            assert abs(approx - stats.hypergeom.ppf(q, m, n_succ, draws)) <= 1
            checked += 1
    assert checked > 100


def test_readme_plan_matches_the_golden_table():
    from pathlib import Path

    import pandas as pd

    golden = pd.read_csv(Path(__file__).parent / "reference" / "budget" / "readme_plan.csv")
    plan = plan_labels(n_pool=20_000, prevalence=0.03, rule_rate=0.05, half_width=0.02)
    got = plan.tidy()
    pd.testing.assert_frame_equal(got[golden.columns].reset_index(drop=True), golden,
                                  check_dtype=False, rtol=1e-8)
