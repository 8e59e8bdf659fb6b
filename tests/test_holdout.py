"""Fixed-test-set intervals against R's binom.test and t.test."""

from __future__ import annotations

import numpy as np
import pytest

import evalstats as es


@pytest.mark.parametrize("k,n,low,high", [
    # R 4.3: binom.test(k, n)$conf.int  (Clopper-Pearson)
    (2, 10, 0.02521073, 0.55609546),
    (0, 20, 0.0, 0.1684335),
    (18, 20, 0.6830172, 0.9876515),
])
def test_error_ci_exact_matches_binom_test(k, n, low, high):
    y = np.zeros(n, int)
    pred = np.r_[np.ones(k, int), np.zeros(n - k, int)]
    res = es.error_ci(y, pred)
    assert res.estimate == k / n
    assert res.conf_int() == pytest.approx((low, high), abs=5e-7)


def test_error_ci_exact_against_beta_quantiles():
    # Clopper-Pearson closed form: Beta(k, n-k+1) and Beta(k+1, n-k) quantiles
    from scipy.stats import beta

    k, n = 7, 31
    res = es.error_ci(np.zeros(n), np.r_[np.ones(k), np.zeros(n - k)], confidence_level=0.9)
    assert res.conf_int().low == pytest.approx(beta.ppf(0.05, k, n - k + 1), rel=1e-10)
    assert res.conf_int().high == pytest.approx(beta.ppf(0.95, k + 1, n - k), rel=1e-10)


def test_error_ci_wilson_and_pvalue():
    # Wilson score interval, closed form (p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)
    y = np.zeros(10)
    pred = np.r_[1, 1, np.zeros(8)]
    res = es.error_ci(y, pred, method="wilson", null=0.5)
    z, p, n = 1.959963984540054, 0.2, 10
    half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    expect = ((p + z**2 / (2 * n) - half) / (1 + z**2 / n),
              (p + z**2 / (2 * n) + half) / (1 + z**2 / n))
    assert res.conf_int() == pytest.approx(expect, rel=1e-10)
    # R: binom.test(2, 10, p = 0.5)$p.value = 0.109375
    assert res.p_value == pytest.approx(0.109375, rel=1e-12)


def test_loss_ci_matches_t_test():
    # R: t.test(c(.1,.4,.35,.8,.2), mu = .5) -> CI 0.03682659 0.70317341 (mean 0.37, se 0.12)
    res = es.loss_ci([0.1, 0.4, 0.35, 0.8, 0.2], null=0.5)
    assert res.conf_int() == pytest.approx((0.03682659, 0.70317341), abs=5e-8)
    assert res.df == 4
    # t = -13/12 on 4 df; closed-form t_4 cdf:
    # 1/2 + 3/8 * t/sqrt(a) * (1 - t^2/(12 a)), a = 1 + t^2/4
    t = 13 / 12
    a = 1 + t * t / 4
    p_closed = 2 * (0.5 - 3 / 8 * t / np.sqrt(a) * (1 - t * t / (12 * a)))
    assert res.p_value == pytest.approx(p_closed, rel=1e-10)


def test_bad_input_messages():
    with pytest.raises(ValueError, match="`method` must be one of 'exact'"):
        es.error_ci([0, 1], [0, 1], method="clopper")
    with pytest.raises(ValueError, match="`y_true` and `y_pred` must have the same length; "
                                         "got 3 and 2"):
        es.error_ci([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="`confidence_level` must be a number strictly "
                                         "between 0 and 1 \\(use 0.95, not 95\\)"):
        es.error_ci([0, 1], [0, 1], confidence_level=95)
    with pytest.raises(ValueError, match="`losses` must be finite"):
        es.loss_ci([0.1, np.nan, 0.3])
    with pytest.raises(ValueError, match="`losses` must be of length >= 2"):
        es.loss_ci([0.1])


def test_normal_interval_small_sample_warns():
    with pytest.warns(es.SmallSampleWarning, match="Wald"):
        res = es.error_ci([0, 0, 0], [0, 0, 1], method="normal")
    assert any("SmallSampleWarning" in n for n in res.notes)
