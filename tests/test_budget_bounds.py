"""Bounds of evalstats.budget: Monte-Carlo of the model, brute-force root finding, closed
forms from the method notes (../shared/notes/budget_planning.md) recomputed here."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import optimize, stats

from evalstats._warnings import ApproximationWarning
from evalstats.budget import bernstein_bound

MEASURES = ("precision", "sensitivity", "specificity")


def _simulate(n_pool, n_pos, n_rpos, l_pos, l_neg, tp_l, fp_l, n_draws, rng):
    """Draw the unknown labels of U with |U_O+| fixed; the rule's positives on U are fixed.

    Returns arrays of Pr, Se, Sp over the draws (the model of Section 3, margins fixed).
    """
    u = n_pool - l_pos - l_neg
    u_pos = n_pos - l_pos
    u_rpos = n_rpos - tp_l - fp_l
    # positions 0..u_rpos-1 of U are the rule's positives; place u_pos positives at random
    tp_u = np.array([np.sum(rng.permutation(u)[:u_pos] < u_rpos) for _ in range(n_draws)])
    u_neg = u - u_pos
    tn_u = u_neg - u_rpos + tp_u
    tn_l = l_neg - fp_l
    return ((tp_l + tp_u) / n_rpos, (tp_l + tp_u) / n_pos,
            (tn_l + tn_u) / (n_pool - n_pos))


POOL = dict(n_pool=600, n_pool_positive=60, n_rule_positive=90, n_labeled_positive=20,
            n_labeled_negative=30, rule_hits_positive=5, rule_hits_negative=4)


def _res(measure, **kw):
    args = dict(POOL)
    args.update(kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        return bernstein_bound(measure, **args)


def test_mean_and_variance_match_monte_carlo_of_the_model():
    # 4000 seeded draws of the finite-pool model; mean within 4 MC standard errors,
    # variance within 8 % (SE of a variance estimate ~ sqrt(2/4000) = 2.2 %).
    rng = np.random.default_rng(20260321)
    sims = _simulate(600, 60, 90, 20, 30, 5, 4, 4000, rng)
    for m, draws in zip(MEASURES, sims, strict=True):
        res = _res(m)
        assert abs(draws.mean() - res.estimate) < 4 * draws.std() / np.sqrt(len(draws))
        assert res.std_error ** 2 == pytest.approx(draws.var(ddof=1), rel=0.08)


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("bound", ["bernstein", "exact"])
def test_bounds_hold_in_simulation(measure, bound):
    # Valid bounds: observed exceedance rate <= delta + 3 binomial SE (4000 draws).
    rng = np.random.default_rng(7)
    idx = MEASURES.index(measure)
    draws = _simulate(600, 60, 90, 20, 30, 5, 4, 4000, rng)[idx]
    res = _res(measure, bound=bound, confidence_level=0.8)
    exceed = np.mean(np.abs(draws - res.estimate) > res.half_width + 1e-12)
    assert exceed <= 0.2 + 3 * np.sqrt(0.2 * 0.8 / 4000)


@pytest.mark.parametrize("measure", MEASURES)
def test_exact_bound_by_enumerating_the_hypergeometric_pmf(measure):
    # Independent check: sum the pmf of TP_U over its support.
    res = _res(measure, bound="exact", confidence_level=0.9)
    u, u_pos, u_rpos = 600 - 50, 60 - 20, 90 - 9
    k = np.arange(0, min(u_pos, u_rpos) + 1)
    pmf = stats.hypergeom.pmf(k, u, u_pos, u_rpos)
    mean = u_rpos * u_pos / u
    dev = np.abs(k - mean) / res.denominator
    assert pmf[dev > res.half_width + 1e-12].sum() <= 0.1
    assert res.tail_probability(res.half_width) == pytest.approx(
        pmf[dev >= res.half_width - 1e-12].sum(), rel=1e-9)


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("variance", ["hypergeometric", "paper", "oracle_binomial"])
def test_bernstein_half_width_is_the_root_of_the_tail(measure, variance):
    # bernstein_paper is exactly the paper's formula: it exists only with its variance
    for bound in ("bernstein", "bernstein_paper") if variance == "paper" else ("bernstein",):
        res = _res(measure, variance=variance, bound=bound, delta=0.05, n_rules=3)
        root = optimize.brentq(lambda xi, r=res: r.tail_probability(xi) - 0.05 / 3, 1e-9, 5.0,
                               xtol=1e-14)
        assert res.half_width == pytest.approx(root, rel=1e-8)


def test_variances_reproduce_the_notes_table():
    # notes §2: |U| = 1e4, eps_O+ = 0.04, eps_R+ = 0.1, no labels. Closed forms:
    # exact V_U = |U| e(1-e) r(1-r) |U|/(|U|-1) = 34.56; paper Pr: |U_R+| e(1-e) = 38.4;
    # paper Sp: |U_R-| e(1-e) = 345.6; Remark II Sp: |U_O-| r(1-r) = 864; alt Se 36.0.
    kw = dict(n_pool=10_000, prevalence=0.04, rule_rate=0.1)
    v = {(m, var): bernstein_bound(m, variance=var, **kw).count_variance
         for m in MEASURES for var in ("hypergeometric", "paper", "oracle_binomial")}
    exact = 1e4 * 0.04 * 0.96 * 0.1 * 0.9 * 1e4 / 9999
    for m in MEASURES:
        assert v[m, "hypergeometric"] == pytest.approx(exact, rel=1e-12)
    assert v["precision", "paper"] == pytest.approx(38.4, rel=1e-12)
    assert v["sensitivity", "paper"] == pytest.approx(38.4, rel=1e-12)
    assert v["specificity", "paper"] == pytest.approx(345.6, rel=1e-12)
    assert v["specificity", "oracle_binomial"] == pytest.approx(864.0, rel=1e-12)
    assert v["sensitivity", "oracle_binomial"] == pytest.approx(36.0, rel=1e-12)


def test_paper_form_condition_is_checked_and_reported():
    # V >= (4/9) log(2/delta) fails for a tiny unknown part
    with pytest.warns(ApproximationWarning, match="constant-4"):
        res = bernstein_bound("precision", n_pool=100, n_pool_positive=10, n_rule_positive=10,
                              n_labeled_positive=9, bound="bernstein_paper")
    assert not res.paper_condition_holds
    assert any("constant-4" in n for n in res.notes)
    assert "!" in repr(res)


def test_interval_is_recomputed_and_nests():
    res = _res("precision")
    lo90, hi90 = res.conf_int(0.9)
    lo99, hi99 = res.conf_int(0.99)
    assert lo99 <= lo90 <= res.estimate <= hi90 <= hi99
    assert res.tidy()["half_width"].iloc[0] == pytest.approx(res.half_width)
    assert "Bound on precision" in res.summary().as_text()


def test_deterministic_range_by_enumeration():
    # tiny pool: every labeling of U consistent with the margins
    res = bernstein_bound("precision", n_pool=10, n_pool_positive=4, n_rule_positive=5,
                          n_labeled_positive=1, n_labeled_negative=1, rule_hits_positive=1,
                          rule_hits_negative=0)
    # U: 8 items, 3 positives, 4 rule positives -> TP_U in [0, 3]; Pr in [1/5, 4/5]
    assert res.deterministic_range == pytest.approx((0.2, 0.8))


@given(n_lab=st.integers(0, 50), extra=st.integers(1, 30),
       measure=st.sampled_from(MEASURES), bound=st.sampled_from(["bernstein",
                                                                  "bernstein_paper"]))
def test_bounds_shrink_as_positives_are_labeled(n_lab, extra, measure, bound):
    kw = dict(n_pool=2000, n_pool_positive=100, n_rule_positive=300, bound=bound)
    a = bernstein_bound(measure, n_labeled_positive=n_lab, **kw).half_width
    b = bernstein_bound(measure, n_labeled_positive=n_lab + extra, **kw).half_width
    assert b <= a + 1e-12


@pytest.mark.parametrize("kwargs, match", [
    (dict(prevalence=1.2), "`prevalence` must be a finite number in \\(0, 1\\)"),
    (dict(prevalence=0.0), "`prevalence`"),
    (dict(rule_rate=-0.1), "`rule_rate`"),
    (dict(n_labeled_positive=500), "`n_labeled_positive` must be an integer in \\[0, 100\\]"),
    (dict(n_labeled_negative=5000), "`n_labeled_negative`"),
    (dict(confidence_level=95), "use 0.95"),
    (dict(delta=0.0), "`delta`"),
    (dict(bound="hoeffding"), "`bound` must be one of"),
    (dict(variance="normal"), "`variance` must be one of"),
    (dict(n_rules=0), "`n_rules`"),
])
def test_bad_input_is_rejected(kwargs, match):
    args = dict(n_pool=1000, prevalence=0.1, rule_rate=0.2)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        bernstein_bound("precision", **args)


def test_bad_measure_and_missing_prevalence():
    with pytest.raises(ValueError, match="`measure` must be one of"):
        bernstein_bound("accuracy", n_pool=10, prevalence=0.5, rule_rate=0.5)
    with pytest.raises(ValueError, match="`prevalence` must be given"):
        bernstein_bound("precision", n_pool=10, rule_rate=0.5)


@pytest.mark.parametrize("m, k, n", [(20, 7, 9), (30, 3, 12), (25, 12, 12)])
def test_hypergeometric_is_a_sum_of_independent_bernoullis(m, k, n):
    # Justifies Bernstein with the exact variance V_U: the pgf sum_j pmf(j) z^j has only
    # real non-positive roots -z_i, so TP_U = sum of Bernoulli(1/(1+z_i)) (independent).
    support = np.arange(max(0, n - (m - k)), min(k, n) + 1)
    pmf = stats.hypergeom.pmf(support, m, k, n)
    roots = np.roots(pmf[::-1])
    assert np.all(np.abs(roots.imag) < 1e-6) and np.all(roots.real <= 1e-9)
    p = 1.0 / (1.0 - roots.real)
    assert p.sum() + support[0] == pytest.approx(n * k / m, rel=1e-6)
    assert (p * (1 - p)).sum() == pytest.approx(stats.hypergeom.var(m, k, n), rel=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("measure", MEASURES)
def test_plugin_coverage_on_connect4_random_rules(shared_datasets, measure):
    # Real data, the paper's setting: 500 random rules of rate 0.1 on connect-4 (draw),
    # 1000 random positives labeled, prevalence known. Fraction of rules whose true measure
    # lies within E(measure) +/- half-width must be >= 0.95 - 3 SE for valid bounds.
    from evalstats import datasets
    from evalstats.budget.simulation import plugin_measures, random_rules, true_measures

    df = datasets.load("connect4")
    y = (df["class"] == "draw").to_numpy().astype(int)
    rng = np.random.default_rng(4)
    rules = random_rules(len(y), int(0.1 * len(y)), 500, rng)
    idx = rng.permutation(np.flatnonzero(y == 1))[:1000]
    k = MEASURES.index(measure)
    err = np.abs(plugin_measures(y, rules, idx)[k] - true_measures(y, rules)[k])
    se = np.sqrt(0.95 * 0.05 / 500)
    for bound in ("exact", "bernstein"):
        hw = bernstein_bound(measure, n_pool=len(y), n_pool_positive=int(y.sum()),
                             n_rule_positive=int(0.1 * len(y)), n_labeled_positive=1000,
                             bound=bound).half_width
        cover = np.mean(err <= hw)
        print(measure, bound, "coverage", cover, "SE", se)
        assert cover >= 0.95 - 3 * se


def test_bernstein_paper_is_exactly_the_papers_formula():
    # Prop 3.1: 2 sqrt(|U_R+| eps(1-eps) log(2/delta)) / |S_R+| with eps = eps_O+(U)
    res = bernstein_bound("precision", n_pool=10_000, prevalence=0.04, rule_rate=0.1,
                          n_labeled_positive=200, bound="bernstein_paper")
    u, u_pos, u_rpos = 9800, 200, 1000 - 0.1 * 200
    eps = u_pos / u
    assert res.variance == "paper"
    assert res.half_width == pytest.approx(
        2 * np.sqrt(u_rpos * eps * (1 - eps) * np.log(2 / 0.05)) / 1000, rel=1e-12)
    with pytest.raises(ValueError, match="`variance` must be 'paper'"):
        bernstein_bound("precision", n_pool=10_000, prevalence=0.04, rule_rate=0.1,
                        bound="bernstein_paper", variance="hypergeometric")


def test_rule_positives_that_cannot_fit_among_the_unlabeled_are_refused():
    """80 of 100 examples labeled, none of them a rule hit, yet the rule flags 60: 60 rule
    positives among 20 unlabeled examples is impossible (it gave an inverted range
    (0.833, 0.167), a variance of −31.6 and a NaN s.e.)."""
    with pytest.raises(ValueError, match=r"rule_hits_positive \+ rule_hits_negative.*60 − 20"):
        bernstein_bound("precision", n_pool=100, n_pool_positive=10, n_rule_positive=60,
                        n_labeled_negative=80, rule_hits_negative=0)
    r = bernstein_bound("precision", n_pool=100, n_pool_positive=10, n_rule_positive=60,
                        n_labeled_negative=80, rule_hits_negative=40)
    lo, hi = r.deterministic_range
    assert lo <= r.estimate <= hi


def test_rule_rate_is_rounded_to_whole_examples_and_must_flag_one():
    """A rule flagging 0.4 of 100 examples was accepted and its exact bound had zero width;
    a pool beyond the documented 1e12 ran for minutes."""
    with pytest.raises(ValueError, match="`rule_rate` must be large enough"):
        bernstein_bound("precision", n_pool=100, prevalence=0.1, rule_rate=0.004, bound="exact")
    r = bernstein_bound("precision", n_pool=100, prevalence=0.1, rule_rate=0.104)
    assert r.counts["s_rpos"] == 10
    with pytest.raises(ValueError, match="`n_pool` must be"):
        bernstein_bound("precision", n_pool=10 ** 18, prevalence=0.1, rule_rate=0.1)
