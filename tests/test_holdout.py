"""Fixed-test-set intervals against R's binom.test and t.test."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

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


# -- issue 15: no silent wrong answer ---------------------------------------------------------
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, None])
def test_error_ci_refuses_missing_labels(bad):
    y = np.array([0, 1, 1, bad], dtype=object if bad is None else float)
    with pytest.raises(ValueError, match=r"`y_true` must be labels without missing values.*"
                                         r"position 3.*a missing label is not a mistake"):
        es.error_ci(y, [0, 1, 1, 0])
    with pytest.raises(ValueError, match=r"`y_pred` must be labels without missing values"):
        es.error_ci([0, 1, 1, 0], y)


def test_error_ci_refuses_strings_against_numbers():
    with pytest.raises(TypeError, match=r"`y_pred` must be labels of the same type as "
                                        r"`y_true`; got numbers \{0, 1\} against strings"):
        es.error_ci(["1", "0", "1"], [1, 0, 1])
    with pytest.raises(TypeError, match="all numbers or all strings"):
        es.error_ci(np.array([1, "a"], dtype=object), [1, 0])


def test_error_ci_refuses_probabilities_as_predictions():
    with pytest.raises(ValueError, match=r"`y_pred` must be class labels, not scores or "
                                         r"probabilities; got 3 non-integer value\(s\) such "
                                         r"as 0.7.*y_prob >= 0.5"):
        es.error_ci([1, 0, 1], [0.7, 0.2, 0.9])


def test_error_ci_disjoint_codings_warn_and_note():
    with pytest.warns(es.InputWarning if hasattr(es, "InputWarning") else Warning,
                      match="share no label"):
        res = es.error_ci(["yes", "no", "yes"], ["a", "b", "a"])
    assert res.estimate == 1.0 and any("share no label" in n for n in res.notes)


def test_error_ci_equivalent_codings_are_accepted():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # float labels 1.0/0.0 against ints, booleans against ints: equal values, no warning
        assert es.error_ci([1.0, 0.0, 1.0], [1, 0, 0]).n_errors == 1
        assert es.error_ci([True, False], [1, 1]).n_errors == 1
        # one class predicted all wrong is a legitimate error rate of 1 (no mismatch warning)
        assert es.error_ci([0, 0, 0], [1, 1, 1]).estimate == 1.0
        assert es.error_ci(["a", "b"], ["a", "a"]).n_errors == 1


def test_loss_ci_constant_losses_flagged_exactly():
    # 0.1 is not exact in binary: the naive std is ~1e-17, not 0; the result must say 0
    with pytest.warns(es.SmallSampleWarning, match="all 3 losses equal 0.1.*zero width"):
        res = es.loss_ci([0.1, 0.1, 0.1])
    assert res.std_error == 0.0 and res.estimate == 0.1
    assert res.conf_int() == (0.1, 0.1)
    assert any("zero width" in n for n in res.notes)


def test_loss_ci_huge_losses_rescaled_or_refused():
    # mean and sd of (1, 2, 3) * 1e200 by hand: mean 2e200, sd 1e200, se 1e200/sqrt(3);
    # the naive computation overflows in the squares (1e400)
    res = es.loss_ci([1e200, 2e200, 3e200])
    assert res.estimate == pytest.approx(2e200, rel=1e-14)
    assert res.std_error == pytest.approx(1e200 / np.sqrt(3), rel=1e-14)
    lo, hi = res.conf_int()
    assert np.isfinite(lo) and np.isfinite(hi)
    # the interval of (1e308, -1e308, 1e308) is wider than the largest double: refused
    with pytest.raises(ValueError, match=r"`losses` must be small enough in magnitude.*"
                                         r"1e\+308.*Rescale"):
        es.loss_ci([1e308, -1e308, 1e308])
    # a 95 % interval that fits is given, whatever a 99.9 % one would need (it was refused)
    x = np.array([1e307, 2e307, 5e307])
    lo, hi = es.loss_ci(x).conf_int()
    ci = stats.ttest_1samp(x / 1e300, 0).confidence_interval()   # scipy, on rescaled values
    assert (lo, hi) == pytest.approx((ci.low * 1e300, ci.high * 1e300), rel=1e-12)


def test_findings_state_counts_and_the_tests_conclusion():
    """The finding is a sentence a reader would say; with ``null=`` it adds the exact test
    and its conclusion at 5 %. The p-value by hand: under Binomial(10, 0.05) the outcomes no
    likelier than 2 errors are 2..10, P(X >= 2) = 1 - 0.95**10 - 10 * 0.05 * 0.95**9 =
    0.0861 (R's binom.test sums the same outcomes)."""
    y = [0, 1, 1, 0, 1, 1, 0, 0, 1, 1]
    res = es.error_ci(y, [0, 1, 0, 0, 1, 1, 1, 0, 1, 1], null=0.05)
    assert res.p_value == pytest.approx(0.0861, abs=5e-5)
    assert res.summary().finding == (
        "The error rate is 0.20 (95% CI 0.03–0.56): 2 errors from 10 test cases. A two-sided "
        "exact binomial test of error rate = 0.05 gives p = 0.09: at the 5% level the data "
        "are consistent with an error rate of 0.05.")
    low = es.error_ci([0] * 100, [0] * 99 + [1], null=0.3)
    assert low.summary().finding.endswith("at the 5% level the error rate differs from 0.3.")
    assert es.error_ci([0], [0]).summary().finding.endswith("0 errors from 1 test case.")


def test_loss_ci_flags_zero_one_losses_and_a_negative_lower_limit():
    # The interval stays R's t.test(c(1, 0, 1))$conf.int = (-0.7675509, 2.1008842);
    # the result carries a note and the repr its mark.
    with pytest.warns(es.InputWarning, match="zero-one losses"):
        res = es.loss_ci([True, False, True])
    np.testing.assert_allclose(res.conf_int(), (-0.7675509, 2.1008842), rtol=0, atol=5e-7)
    assert repr(res).endswith("!>")
    with pytest.warns(es.InputWarning, match="below 0 although no loss is negative"):
        es.loss_ci([0.01, 0.02, 3.0])
