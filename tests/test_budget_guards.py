"""What the budget estimators refuse or flag: rule hits that are not those of a random
rule (bernstein_bound), guided samples declared as probability samples and results
passed where a design belongs (evaluate_rules), and the Jeffreys smoothing of the
unknown labels.

References: exact hypergeometric tails summed from binomial coefficients; the variance
of the smoothed stratum computed by hand from its four cells.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from evalstats._warnings import InputWarning
from evalstats.budget import (
    LabelDesign,
    bernstein_bound,
    evaluate_rules,
    guided_sample,
)
from evalstats.budget._bound import random_rule_p_value


def test_informative_hits_route_to_the_deterministic_range():
    # the audit: 180 hits among 200 labeled positives for a rule flagging 1,000 of
    # 20,000 (600 positives) gave precision 0.197 [0.185, 0.209] with no note
    with pytest.warns(InputWarning, match="not those of a random rule"):
        res = bernstein_bound("precision", n_pool=20_000, prevalence=0.03, rule_rate=0.05,
                              n_labeled_positive=200, rule_hits_positive=180)
    assert not res.random_rule and res.random_rule_p_value < 1e-100
    # the range: 180 known hits plus 0 to min(820, 400) unknown ones, over 1,000
    assert res.deterministic_range == pytest.approx((0.18, 0.58))
    for level in (0.5, 0.95, 0.999):
        assert tuple(res.conf_int(level)) == pytest.approx((0.18, 0.58))
    assert res.estimate == pytest.approx(0.38) and res.std_error is None
    assert res.method == "deterministic range" and repr(res).endswith("!>")
    assert res.tidy()["half_width"].iloc[0] == pytest.approx(0.2)


def test_random_rule_p_value_by_summing_the_hypergeometric_pmf():
    # pool of 50, rule of 10, 8 labeled positives with x hits, 6 negatives with 1 hit
    def pmf(j, n_lab):
        return comb(10, j) * comb(40, n_lab - j) / comb(50, n_lab)

    def two_sided(x, n_lab):
        lower = sum(pmf(j, n_lab) for j in range(0, x + 1))
        upper = sum(pmf(j, n_lab) for j in range(x, n_lab + 1))
        return min(1.0, 2 * min(lower, upper))

    for x in (0, 1, 2, 5, 8):
        counts = dict(s=50, s_rpos=10, tp_l=x, l_pos=8, fp_l=1, l_neg=6)
        want = min(1.0, 2 * min(two_sided(x, 8), two_sided(1, 6)))
        assert random_rule_p_value(counts) == pytest.approx(want, rel=1e-9)


def test_hits_like_a_random_rule_keep_the_bernstein_interval():
    res = bernstein_bound("precision", n_pool=20_000, prevalence=0.03, rule_rate=0.05,
                          n_labeled_positive=200, rule_hits_positive=11)
    assert res.random_rule and res.random_rule_p_value > 0.05
    lo, hi = res.conf_int()
    assert hi - lo == pytest.approx(2 * res.half_width, rel=1e-9)
    assert hi - lo < (res.deterministic_range[1] - res.deterministic_range[0]) / 5


def test_guided_sample_docstring_points_to_the_range_not_the_interval():
    doc = " ".join(guided_sample.__doc__.split())
    assert "deterministic range" in doc
    assert "holds only for random rules" in doc


def _guided():
    pytest.importorskip("sklearn")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1500, 2))
    y = (X[:, 0] > 1.5).astype(int)
    return X, y, guided_sample(X, y, 150, n_seed=50, batch_size=10, rng=1)


def test_guided_samples_are_refused_whatever_design_is_declared():
    X, y, g = _guided()
    rules = (X[g.indices, :1] > 1.0).astype(int)
    for labels in (g, g.labels):
        with pytest.raises(ValueError, match="not a probability sample"):
            evaluate_rules(labels, rules, LabelDesign.simple(1500, 150))
    # a copy of the same labels cannot be told apart: only the design protects it
    assert evaluate_rules(y[g.indices], rules, LabelDesign.simple(1500, 150)).n == 150


def test_a_result_passed_as_design_gets_a_type_error_saying_what_to_pass():
    X, y, g = _guided()
    rules = (X[g.indices, :1] > 1.0).astype(int)
    with pytest.raises(TypeError, match=r"RetrievalResult.*LabelDesign\.simple"):
        evaluate_rules(y[g.indices], rules, g)
    with pytest.raises(TypeError, match="must be a LabelDesign"):
        evaluate_rules(y[g.indices], rules, "simple")
    r = guided_sample(X, y, 150, strategy="random", rng=2)
    ev = evaluate_rules(r, (X[r.indices, :1] > 1.0).astype(int), LabelDesign.simple(1500, 150))
    assert ev.n == 150


def test_jeffreys_smoothing_of_one_stratum_by_hand():
    # precision of one rule, simple random sample of 8 from 80: 3 rule positives, all
    # positive; the textbook variance of the cell is 0, the smoothed rate is 3.5/4
    y = np.array([1, 1, 1, 0, 0, 0, 1, 0])
    r = np.array([1, 1, 1, 0, 0, 0, 0, 0])
    ev = evaluate_rules(y, r, LabelDesign.simple(80, 8), measures=("precision",))
    n, big_n = 8, 80
    x_hat = big_n / n * r.sum()                      # 30 rule positives estimated
    est = 1.0
    share, rate = 3 / 8, 3.5 / 4
    e_one, e_minus = (1 - est) / x_hat, -est / x_hat
    mean = share * (rate * e_one + (1 - rate) * e_minus)
    second = share * (rate * e_one ** 2 + (1 - rate) * e_minus ** 2)
    var_cell = n / (n - 1) * (second - mean ** 2)
    want = np.sqrt(big_n ** 2 * (1 - n / big_n) / n * var_cell)
    row = ev.table.iloc[0]
    assert row["std_error"] == pytest.approx(0.0, abs=1e-15)
    assert row["std_error_smoothed"] == pytest.approx(want, rel=1e-12)


def test_smoothing_invents_no_prediction_where_the_rule_does_not_fire():
    # two strata; the rule fires only in stratum 1. For recall, stratum 0 contributes
    # through its (unseen) positives the rule misses, never through hits of the rule
    y = np.array([0] * 10 + [1, 1, 0, 1, 0])
    r = np.array([0] * 10 + [1, 1, 0, 0, 0])
    strata = np.array([0] * 10 + [1] * 5)
    sizes = {0: 1000, 1: 50}
    ev = evaluate_rules(y, r, LabelDesign.stratified(strata, sizes), measures=("recall",))
    row = ev.table.iloc[0]
    x_hat = 50 / 5 * 3                               # positives: stratum 1 only
    est = (50 / 5 * 2) / x_hat
    e_minus, e_one = -est / x_hat, (1 - est) / x_hat

    def stratum(n_h, big_n, cells):                   # cells: [(prob, residual)]
        mean = sum(p * e for p, e in cells)
        second = sum(p * e * e for p, e in cells)
        return big_n ** 2 * (1 - n_h / big_n) / n_h * n_h / (n_h - 1) * (second - mean ** 2)

    v0 = stratum(10, 1000, [(1.0 * 0.5 / 11, e_minus)])            # r = 0 only
    v1 = stratum(5, 50, [(2 / 5 * 2.5 / 3, e_one), (3 / 5 * 1.5 / 4, e_minus)])
    assert row["std_error_smoothed"] == pytest.approx(np.sqrt(v0 + v1), rel=1e-12)


def test_a_positive_count_interval_gives_the_range_over_it():
    from evalstats.budget._ranges import measure_range

    kw = dict(n_pool=20_000, rule_rate=0.05, n_labeled_positive=400, rule_hits_positive=12)
    res = bernstein_bound("recall", prevalence=(0.025, 0.035), **kw)
    same = bernstein_bound("recall", n_pool_positive=(500, 700), **kw)
    want = [float(v) for v in measure_range("sensitivity", 20_000, 500, 700, 1_000, 400, 0,
                                            12, 0)]
    assert res.deterministic and res.random_rule
    assert list(res.conf_int()) == pytest.approx(want) == list(same.conf_int(0.5))
    # hand derivation: with P = 700, the 988 unlabeled rule positives hold 0 to 300 of the
    # 300 unlabeled positives -> recall in [12/700, 312/700]; smaller P only narrows it
    assert want == pytest.approx([12 / 700, 312 / 700])
    assert any("known only to lie in [500, 700]" in n for n in res.notes)
    with pytest.raises(ValueError, match="n_pool_positive\\[1\\]"):
        bernstein_bound("recall", n_pool_positive=(700, 500), **kw)
