"""Tests of evalstats.extrapolate (Zheng, Achanta & Benjamini accuracy extrapolation)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, special, stats

from evalstats import datasets
from evalstats._warnings import (
    ConvergenceError,
    ConvergenceWarning,
    ExtrapolationWarning,
    SmallSampleWarning,
)
from evalstats.extrapolate import (
    METHOD_NAMES,
    AccuracyExtrapolation,
    average_accuracy,
    average_risk,
    extrapolate_accuracy,
    true_class_rank,
)
from evalstats.extrapolate._bernstein import Bernstein
from evalstats.extrapolate._grid import normal_mean_accuracy
from evalstats.extrapolate._methods import Radial


# -- brute-force references -------------------------------------------------------------------
def brute_force_accuracy(scores, y, k):
    """Average over every k-subset containing the true class of P(truth wins), ties at random."""
    n, k1 = scores.shape
    tot = 0.0
    for i in range(n):
        others = [j for j in range(k1) if j != y[i]]
        vals = []
        for sub in itertools.combinations(others, k - 1):
            s_true, s_sub = scores[i, y[i]], scores[i, list(sub)]
            if (s_sub > s_true).any():
                vals.append(0.0)
            else:
                vals.append(1.0 / (1 + (s_sub == s_true).sum()))
        tot += np.mean(vals)
    return tot / n


def brute_force_risk(scores, y, k, cost):
    """Average cost over every k-subset containing the truth (no ties in the data)."""
    n, k1 = scores.shape
    tot = 0.0
    for i in range(n):
        others = [j for j in range(k1) if j != y[i]]
        vals = []
        for sub in itertools.combinations(others, k - 1):
            cls = [y[i], *sub]
            pred = cls[int(np.argmax(scores[i, cls]))]
            vals.append(cost[y[i], pred])
        tot += np.mean(vals)
    return tot / n


@pytest.fixture
def tied_scores(rng):
    k1, n = 7, 30
    return rng.integers(0, 4, size=(n, k1)).astype(float), rng.integers(0, k1, size=n)


# -- unbiased curve ---------------------------------------------------------------------------
def test_average_accuracy_matches_subset_enumeration(tied_scores):
    s, y = tied_scores
    for k in range(2, s.shape[1] + 1):
        assert average_accuracy(s, y, k) == pytest.approx(brute_force_accuracy(s, y, k),
                                                          rel=1e-12, abs=1e-14)


def test_pessimistic_and_optimistic_ties_bracket(tied_scores):
    s, y = tied_scores
    lo = average_accuracy(s, y, None, ties="pessimistic").accuracy
    mid = average_accuracy(s, y, None).accuracy
    hi = average_accuracy(s, y, None, ties="optimistic").accuracy
    assert np.all(lo <= mid + 1e-15) and np.all(mid <= hi + 1e-15)
    assert lo.iloc[-1] < hi.iloc[-1]
    # pessimistic = a tie counts as a loss: brute force on scores with ties lowered
    s_low = s.copy()
    true = s[np.arange(len(y)), y]
    s_low[np.arange(len(y)), y] = true - 0.5
    np.testing.assert_allclose(lo, average_accuracy(s_low, y, None).accuracy, rtol=1e-12)


def test_k1_is_plain_accuracy_and_k2_pairwise_win_rate(rng):
    s = rng.standard_normal((200, 12))
    y = rng.integers(0, 12, 200)
    assert average_accuracy(s, y, 12) == pytest.approx(np.mean(s.argmax(1) == y), rel=1e-12)
    true = s[np.arange(200), y][:, None]
    pair = ((s < true).sum(1) / 11).mean()
    assert average_accuracy(s, y, 2) == pytest.approx(pair, rel=1e-12)


def test_chance_gives_one_over_k_exactly():
    # b = 0..k1-1 once each (uniform rank of the truth): sum_b C(b, k-1) = C(k1, k)
    k1 = 40
    s = np.tile(np.arange(k1, dtype=float), (k1, 1))
    y = np.arange(k1)
    acc = average_accuracy(s, y, np.arange(2, k1 + 1))
    np.testing.assert_allclose(acc, 1.0 / np.arange(2, k1 + 1), rtol=1e-12)


def test_large_k1_is_stable():
    rng = np.random.default_rng(0)
    s = rng.standard_normal((50, 3000)) + 3.0 * (np.arange(3000) == 0)
    y = np.zeros(50, int)
    acc = average_accuracy(s, y, [2, 1500, 3000])
    assert np.all(np.isfinite(acc)) and acc[-1] == pytest.approx(np.mean(s.argmax(1) == 0))


def test_average_risk_matches_enumeration(rng):
    s = rng.standard_normal((15, 6))
    y = rng.integers(0, 6, 15)
    cost = rng.uniform(0, 3, (6, 6))
    for k in (2, 3, 5, 6):
        assert average_risk(s, y, k, cost) == pytest.approx(brute_force_risk(s, y, k, cost),
                                                            rel=1e-12)
    assert average_risk(s, y, 4) == pytest.approx(1 - average_accuracy(s, y, 4), rel=1e-12)


def test_true_class_rank():
    s = np.array([[0.1, 0.5, 0.4], [0.3, 0.3, 0.2]])
    np.testing.assert_array_equal(true_class_rank(s, [1, 0], ties="average"), [3, 2.5])
    np.testing.assert_array_equal(true_class_rank(s, [1, 0], ties="pessimistic"), [3, 2])
    np.testing.assert_array_equal(true_class_rank(s, [1, 0], ties="optimistic"), [3, 3])
    assert set(true_class_rank(s, [1, 0], rng=1)) <= {2.0, 3.0}


def test_log_probabilities_with_minus_inf():
    with np.errstate(divide="ignore"):
        s = np.log(np.array([[0.7, 0.3, 0.0], [0.0, 0.9, 0.1], [0.2, 0.5, 0.3]]))
    assert average_accuracy(s, [0, 1, 2], 3) == pytest.approx(2 / 3)


# -- numerics of the probit grid --------------------------------------------------------------
@pytest.mark.parametrize("c,h,k", [(0.0, 1.0, 2), (1.5, 1.0, 50), (2.5, 0.3, 1000),
                                   (3.0, 0.5, 10**6)])
def test_normal_mean_accuracy_vs_quad(c, h, k):
    # E[Phi(W)^(k-1)], W ~ N(c, h^2), by adaptive quadrature (scipy.integrate.quad)
    def f(z):
        return stats.norm.pdf(z, c, h) * np.exp((k - 1) * special.log_ndtr(z))

    ref = integrate.quad(f, c - 12 * h, c + 12 * h, points=[stats.norm.isf(1 / k)],
                         limit=200, epsabs=1e-13)[0]
    assert normal_mean_accuracy([c], [k], h)[0, 0] == pytest.approx(ref, rel=1e-6, abs=1e-12)


def test_chance_curve_is_one_over_k_up_to_a_million():
    ks = np.array([2, 10, 1000, 10**6])
    np.testing.assert_allclose(normal_mean_accuracy([0.0], ks)[0] * ks, 1.0, rtol=1e-6)


class _ExactView:
    """A view whose ATA curve is given exactly (noise-free data)."""

    def __init__(self, acc_fn, k1):
        self.acc_fn, self.k1 = acc_fn, k1

    n = 1000

    def ata(self, ks):
        return self.acc_fn(np.asarray(ks))

    def survival_counts(self):
        return self.n * self.surv_fn(self.k1 - 1)


def _known_polynomial():
    # D(u) = sum_l beta_l C(d,l) u^l (1-u)^(d-l), monotone beta: closed form
    # 1 - AGA_k = (k-1) sum_l beta_l C(d,l) B(l+k-1, d-l+1)
    d = 6
    beta = np.array([0.0, 0.05, 0.1, 0.3, 0.55, 0.8, 0.95])

    def acc(ks):
        ks = np.asarray(ks, float)[:, None]
        ell = np.arange(d + 1)[None, :]
        logterm = (np.log(special.comb(d, ell)) + special.betaln(ell + ks - 1, d - ell + 1)
                   + np.log(ks - 1))
        return 1.0 - np.exp(logterm) @ beta

    return d, beta, acc


def test_known_polynomial_recovered_from_noise_free_curve():
    d, beta, acc = _known_polynomial()
    # exact degree, no penalty: the coefficients loosely (ill-conditioned moment problem),
    # the curve tightly
    meth = Bernstein(60, candidates=[(d, 1.0)], penalty=0.0)
    coef, status = meth.fit(_ExactView(acc, 60), (d, 1.0))
    assert status == "optimal"
    np.testing.assert_allclose(coef, beta, atol=0.05)
    ks = np.array([2, 30, 60, 100, 1000, 10**5])
    np.testing.assert_allclose(meth.curve(coef, (d, 1.0)).accuracy(ks), acc(ks), atol=1e-4)


@pytest.mark.parametrize("penalty, tol", [(0.0, 3e-3), (None, 3e-3)])
def test_high_degree_model_reproduces_known_polynomial(penalty, tol):
    # the paper's model at degree 64 contains the degree-6 polynomial (degree elevation);
    # with the default roughness penalty it stays within 0.003 up to k = 10^5
    _, _, acc = _known_polynomial()
    meth = Bernstein(60, candidates=[(64, 1.0)], penalty=penalty)
    coef, status = meth.fit(_ExactView(acc, 60), (64, 1.0))
    assert status == "optimal"
    assert np.all(np.diff(coef) >= -1e-7) and coef[0] >= -1e-7 and coef[-1] <= 1 + 1e-7
    ks = np.array([2, 30, 60, 100, 1000, 10**5])
    np.testing.assert_allclose(meth.curve(coef, (64, 1.0)).accuracy(ks), acc(ks), atol=tol)


def _known_polynomial_gamma(n):
    # gamma_h = P(V >= h), V ~ Bin(n, U*): 1 - int D(u) beta_{h,n-h+1}(u) du, in closed form
    # 1 - sum_l beta_l C(d,l) B(l+h, d-l+n-h+1) / B(h, n-h+1)
    d, beta, _ = _known_polynomial()
    h = np.arange(1, n + 1, dtype=float)[:, None]
    ell = np.arange(d + 1)[None, :]
    logt = (np.log(special.comb(d, ell)) + special.betaln(ell + h, d - ell + n - h + 1)
            - special.betaln(h, n - h + 1))
    return 1.0 - np.exp(logt) @ beta


@pytest.mark.parametrize("form", ["bernoulli", "binomial"])
def test_pseudolikelihood_recovers_known_polynomial_from_expected_counts(form):
    _, _, acc = _known_polynomial()
    view = _ExactView(acc, 60)
    view.surv_fn = _known_polynomial_gamma
    # gamma_n is the k1-class accuracy: the two closed forms agree
    assert _known_polynomial_gamma(59)[-1] == pytest.approx(acc([60])[0], abs=1e-12)
    meth = Bernstein(60, candidates=[(64, 1.0)], fit=form, penalty=0.0)
    coef, status = meth.fit(view, (64, 1.0))
    assert status == "optimal"
    ks = np.array([2, 30, 60, 100, 1000])
    np.testing.assert_allclose(meth.curve(coef, (64, 1.0)).accuracy(ks), acc(ks), atol=3e-3)


def test_radial_recovers_chance_and_known_mixture():
    k1 = 50
    meth = Radial(k1, candidates=[0.5])
    coef, _ = meth.fit(_ExactView(lambda ks: 1.0 / ks, k1), 0.5)
    pred = meth.curve(coef, 0.5).accuracy(np.array([100, 1000]))
    np.testing.assert_allclose(pred, [0.01, 0.001], atol=2e-3)


# -- the extrapolation ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sim():
    return datasets.load("sim_multiclass")


@pytest.fixture(scope="module")
def default_fit(sim):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return extrapolate_accuracy(sim.scores, sim.labels, k_target=[200, 1000], rng=3)


def test_default_fit_api(default_fit, sim):
    fit = default_fit
    assert isinstance(fit, AccuracyExtrapolation)
    with pytest.warns(ExtrapolationWarning):
        pr = fit.predict([2, 100, 200, 10**4, 10**6])
    assert list(pr.columns[:4]) == ["k", "accuracy", "conf_low", "conf_high"]
    acc = pr.accuracy.to_numpy()
    assert np.all(np.isfinite(acc)) and np.all(np.diff(acc) <= 1e-12)
    assert np.all(pr.conf_low <= pr.accuracy) and np.all(pr.accuracy <= pr.conf_high)
    lo, hi = fit.conf_int()
    assert lo < fit.estimate < hi
    assert fit.conf_int(0.5)[1] - fit.conf_int(0.5)[0] < hi - lo
    td = fit.tidy()
    assert len(td) == 2 and td.term.tolist() == ["accuracy(k=200)", "accuracy(k=1000)"]
    assert fit.glance().shape[0] == 1
    text = fit.summary().as_text()
    assert "Back-test" in text and "marginal" in text
    import matplotlib.pyplot as plt

    ax = fit.plot()
    assert ax.get_xscale() == "log"
    plt.close("all")
    # the fit reproduces the observed curve inside the data
    assert pr.accuracy[1] == pytest.approx(fit.ata[-1], abs=0.02)
    # and is within a few standard errors of the truth at k = 200
    truth = np.interp(200, sim.truth.k, sim.truth.accuracy)
    assert abs(fit.estimate - truth) < 4 * fit.std_error + 0.02


def test_extrapolation_warning(default_fit):
    with pytest.warns(ExtrapolationWarning, match="ratio"):
        default_fit.predict(5000)


@pytest.mark.parametrize("method", METHOD_NAMES)
def test_every_method_runs(method, sim):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = extrapolate_accuracy(sim.scores, sim.labels, method=method, rng=0,
                                   n_subsamples=6)
    pr = fit.predict([50, 200, 400]).accuracy.to_numpy()
    assert np.all((pr >= 0) & (pr <= 1)) and np.all(np.diff(pr) <= 1e-9)
    assert fit.method == method


def test_chance_classifier_extrapolates_to_one_over_k(rng):
    k1 = 60
    s = rng.standard_normal((600, k1))              # scores independent of the labels
    y = np.repeat(np.arange(k1), 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # the unpenalised stretched polynomial (degrees 48-96 on 60 classes) flattens
        # somewhat on pure noise: within 0.015 of 1/240 (0.0142 for this seed)
        for method, tol in (("regression", 0.01), ("hd", 0.01), ("two_param", 0.01),
                            ("polynomial", 0.015)):
            fit = extrapolate_accuracy(s, y, method=method, rng=1, n_subsamples=8)
            assert fit.predict(240).accuracy[0] == pytest.approx(1 / 240, abs=tol)


def test_one_fit_predicts_every_k_whatever_k_target(sim):
    """The back-test and the weights do not depend on k_target (a ratio-4 back-test used
    to switch on for targets beyond 3 k1, so predict(400) moved with k_target)."""
    kw = dict(rng=3, n_subsamples=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits = [extrapolate_accuracy(sim.scores, sim.labels, k_target=t, **kw)
                for t in (None, [400], [200, 400, 2000])]
    ref = fits[0].predict([400, 1000])
    for f in fits[1:]:
        pd.testing.assert_frame_equal(f.predict([400, 1000]), ref)
        np.testing.assert_array_equal(f.cv_table.weight, fits[0].cv_table.weight)
    assert fits[0].glance().selection_ratio[0] == 2.0
    assert "back-tested at ratio 2" in repr(fits[0])
    assert "back-tested at ratio 2" in str(fits[0].summary())


def test_seed_stability_and_reproducibility(sim):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = [extrapolate_accuracy(sim.scores, sim.labels, rng=s).estimate for s in (1, 2, 3)]
        again = extrapolate_accuracy(sim.scores, sim.labels, rng=1).estimate
    assert again == est[0]
    assert np.ptp(est) < 0.01


def test_parallel_identical(sim):
    joblib = pytest.importorskip("joblib")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # the threading backend: the NNLS regression is bit-identical; the cvxpy fits are
        # not under threads (documented under ``n_jobs``; process backends: slow test
        # test_pseudolikelihood_n_jobs_bit_identical)
        kw = dict(method="regression", rng=5, n_subsamples=4)
        a = extrapolate_accuracy(sim.scores, sim.labels, **kw)
        with joblib.parallel_config(backend="threading"):
            b = extrapolate_accuracy(sim.scores, sim.labels, n_jobs=2, **kw)
    pd.testing.assert_frame_equal(a.predict([200, 500]), b.predict([200, 500]))


def test_near_perfect_accuracy_warns(rng):
    k1 = 20
    y = np.repeat(np.arange(k1), 5)
    s = rng.standard_normal((100, k1)) + 50.0 * (np.arange(k1)[None, :] == y[:, None])
    with pytest.warns(ExtrapolationWarning, match="near 1"):
        fit = extrapolate_accuracy(s, y, method="hd", rng=0, n_subsamples=3)
    assert any("near 1" in n for n in fit.notes)


def test_predict_rejects_k_below_2(default_fit):
    with pytest.raises(ValueError, match="`k` must be whole numbers of classes >= 2"):
        default_fit.predict([1, 5])


@pytest.mark.parametrize("k", [[], 2.5, [100, 250.5]])
def test_predict_rejects_empty_and_fractional_k(default_fit, k):
    # before: [] crashed inside numpy, 2.5 classes were predicted
    with pytest.raises(ValueError, match="`k` must be whole numbers of classes >= 2"):
        default_fit.predict(k)


def test_small_k1_warns(rng):
    s = rng.standard_normal((40, 6))
    y = np.repeat(np.arange(6), [7, 7, 7, 7, 6, 6])
    with pytest.warns(SmallSampleWarning):
        fit = extrapolate_accuracy(s, y, rng=0, n_subsamples=3)
    assert any("SmallSampleWarning" in n for n in fit.notes)


# -- bad input --------------------------------------------------------------------------------
def test_bad_input():
    s = np.zeros((4, 5))
    with pytest.raises(ValueError, match="`y` and|same length"):
        average_accuracy(s, [0, 1, 2], 2)
    with pytest.raises(ValueError, match=r"`y` must be column indices in \[0, 4\]"):
        average_accuracy(s, [0, 1, 2, 5], 2)
    bad = s.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="`scores` must be free of NaN"):
        average_accuracy(bad, [0, 1, 2, 3], 2)
    with pytest.raises(ValueError, match=r"`k` must be integers in \[2, k1\]"):
        average_accuracy(s, [0, 1, 2, 3], 1)
    with pytest.raises(ValueError, match="extrapolate_accuracy"):
        average_accuracy(s, [0, 1, 2, 3], 6)
    with pytest.raises(ValueError, match="`scores` must be 2-dimensional"):
        average_accuracy(np.zeros(5), [0], 2)
    with pytest.raises(TypeError, match="`y` must be integer column indices"):
        average_accuracy(s, ["a", "b", "c", "d"], 2)
    with pytest.raises(ValueError, match="`method` must be one of"):
        extrapolate_accuracy(s, [0, 1, 2, 3], method="spline")
    with pytest.raises(ValueError, match="`k_target` must be"):
        extrapolate_accuracy(s, [0, 1, 2, 3], k_target=1)
    with pytest.raises(ValueError, match="`cost` must be a \\(5, 5\\) matrix"):
        average_risk(s, [0, 1, 2, 3], 2, cost=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="`scores` must be free of NaN and \\+inf and -inf"):
        with np.errstate(divide="ignore"):
            logp = np.log(np.eye(5)[[0, 1, 2, 3]])
        extrapolate_accuracy(logp, [0, 1, 2, 3], method="kde")


# -- never crash, refuse bad input (issues 10 and 15) ------------------------------------------
@pytest.fixture(scope="module")
def small():
    g = np.random.default_rng(11)
    k1 = 30
    y = np.repeat(np.arange(k1), 3)
    s = g.standard_normal((len(y), k1)) + 1.5 * (np.arange(k1)[None, :] == y[:, None])
    return s, y


@pytest.mark.parametrize("kwargs, match", [
    (dict(degree=(3, float("nan")), method="polynomial"), "`degree` must be"),
    (dict(degree=3, method="regression"), "`degree` may be given only with method in"),
    (dict(bandwidth=0, method="regression"), "`bandwidth` must be a positive finite"),
    (dict(bandwidth=-1, method="regression"), "`bandwidth` must be a positive finite"),
    (dict(bandwidth=float("nan"), method="regression"),
     "`bandwidth` must be a positive finite"),
    (dict(bandwidth=float("inf"), method="kde"), "`bandwidth` must be a positive finite"),
    (dict(bandwidth=0.5, method="hd"), "`bandwidth` may be given only"),
    (dict(n_subsamples=1), "`n_subsamples` must be 0 .* or at least 2"),
    (dict(likelihood="poisson", method="pseudolikelihood"), "`likelihood` must be one of"),
    (dict(penalty=-1.0, method="polynomial"), "`penalty` must be a finite number >= 0"),
    (dict(k_target=[]), "`k_target` must be"),
])
def test_bad_arguments_are_refused(small, kwargs, match):
    s, y = small
    with pytest.raises((ValueError, TypeError), match=match):
        extrapolate_accuracy(s, y, **kwargs)


def test_degenerate_data_refused_or_flagged(rng):
    # one class column / one class with test points: a clear error
    with pytest.raises(ValueError, match="at least 2 class columns"):
        extrapolate_accuracy(np.zeros((5, 1)), np.zeros(5, int))
    with pytest.raises(ValueError, match="at least 2 different classes"):
        extrapolate_accuracy(rng.standard_normal((5, 8)), np.zeros(5, int))
    # 3 rows: most subsets have no test point; a result with the failures noted
    s = rng.standard_normal((3, 8))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = extrapolate_accuracy(s, [0, 1, 2], rng=0, n_subsamples=4)
    assert np.isfinite(fit.estimate)
    assert fit.std_error is None or np.isfinite(fit.std_error)


def test_nnls_failure_falls_back_with_a_note(small, monkeypatch):
    from scipy import optimize

    def boom(*a, **k):
        raise RuntimeError("Maximum number of iterations reached")

    monkeypatch.setattr(optimize, "nnls", boom)
    s, y = small
    with pytest.warns(ConvergenceWarning, match="nnls_fallback_lsq_linear"):
        fit = extrapolate_accuracy(s, y, method="regression", rng=0, n_subsamples=3)
    assert np.isfinite(fit.estimate)
    assert any("nnls_fallback" in n for n in fit.notes)


def test_solver_failure_becomes_convergence_error_or_note(small, monkeypatch):
    from evalstats.extrapolate import _bernstein

    def fail_all(prob, var, name):
        raise ConvergenceError(f"{name}: status 'infeasible'")

    monkeypatch.setattr(_bernstein, "solve_checked", fail_all)
    s, y = small
    with pytest.raises(ConvergenceError, match="every candidate model failed"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            extrapolate_accuracy(s, y, method="polynomial", rng=0, n_subsamples=2)


def test_class_labels_of_any_type(small):
    s, y = small
    names = np.array([f"class-{j}" for j in range(s.shape[1])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = extrapolate_accuracy(s, y, rng=2, n_subsamples=3, method="hd")
        b = extrapolate_accuracy(s, names[y], classes=names, rng=2, n_subsamples=3,
                                 method="hd")
        c = extrapolate_accuracy(pd.DataFrame(s, columns=names), names[y], rng=2,
                                 n_subsamples=3, method="hd")
    assert a.estimate == b.estimate == c.estimate
    # a class order given explicitly: permuted columns with their labels
    perm = np.random.default_rng(0).permutation(s.shape[1])
    assert average_accuracy(s[:, perm], names[y], 5, classes=names[perm]) == \
        pytest.approx(average_accuracy(s, y, 5), abs=1e-12)
    with pytest.raises(ValueError, match="`y` must be labels listed in `classes`"):
        average_accuracy(s, np.append(names[y][:-1], "zebra"), 2, classes=names)
    with pytest.raises(ValueError, match="`classes` must be one class per score column"):
        average_accuracy(s, names[y], 2, classes=names[:-1])


def test_n_jobs_bit_identical_with_processes(sim):
    joblib = pytest.importorskip("joblib")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = extrapolate_accuracy(sim.scores, sim.labels, rng=5, n_subsamples=4,
                                 k_target=[200, 1000])
        with joblib.parallel_config(backend="loky"):
            b = extrapolate_accuracy(sim.scores, sim.labels, rng=5, n_subsamples=4,
                                     k_target=[200, 1000], n_jobs=2)
    pd.testing.assert_frame_equal(a.predict([200, 1000]), b.predict([200, 1000]),
                                  check_exact=True)
    assert a.estimate == b.estimate and a.std_error == b.std_error


def test_dask_cluster_bit_identical(sim):
    # issue 15: the scale-out path, asserted bit-identical to n_jobs=1
    distributed = pytest.importorskip("distributed")
    import joblib

    kw = dict(rng=5, n_subsamples=4, k_target=[200, 1000], method="regression")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = extrapolate_accuracy(sim.scores, sim.labels, **kw)
        with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                      dashboard_address=None) as cluster, \
                distributed.Client(cluster), joblib.parallel_config(backend="dask"):
            b = extrapolate_accuracy(sim.scores, sim.labels, n_jobs=2, **kw)
    pd.testing.assert_frame_equal(a.predict([200, 1000]), b.predict([200, 1000]),
                                  check_exact=True)


# -- property-based: valid inputs give finite or flagged results, bad ones our errors ----------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(k1=st.integers(4, 12), per=st.integers(1, 3), seed=st.integers(0, 10**6),
       signal=st.floats(0.0, 5.0), method=st.sampled_from(["regression", "hd", "naive",
                                                           "kde"]),
       ties=st.booleans())
def test_valid_inputs_give_finite_or_flagged_results(k1, per, seed, signal, method, ties):
    g = np.random.default_rng(seed)
    y = np.repeat(np.arange(k1), per)
    s = g.standard_normal((len(y), k1)) + signal * (np.arange(k1)[None, :] == y[:, None])
    if ties:
        s = np.round(s)                       # many ties
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = extrapolate_accuracy(s, y, method=method, rng=seed, n_subsamples=3,
                                   k_target=[2 * k1, 5 * k1])
    pr = fit.predict([2 * k1, 5 * k1])
    assert np.all(np.isfinite(pr.accuracy)) and np.all((pr.accuracy >= 0) & (pr.accuracy <= 1))
    assert np.all(np.isfinite(pr.std_error) | (fit.std_error is None))
    assert fit.std_error is None or np.isfinite(fit.std_error)


@settings(max_examples=25, deadline=None)
@given(bad=st.sampled_from([
    dict(bandwidth=float("nan")),
    dict(bandwidth=-0.5), dict(bandwidth="wide"), dict(degree=(0, 2.0), method="polynomial"),
    dict(degree=(4, -1.0), method="polynomial"), dict(degree="high", method="polynomial"),
    dict(n_subsamples=-1), dict(n_subsamples=1.5), dict(k_target=[1]),
    dict(k_target="many"), dict(confidence_level=95), dict(ties="coin"),
    dict(method="spline"), dict(match_k1="yes", method="polynomial"),
    dict(rng=-3), dict(likelihood="binomial", method="regression")]))
def test_bad_inputs_raise_our_errors(small, bad):
    s, y = small
    with pytest.raises((ValueError, TypeError)) as info:
        extrapolate_accuracy(s, y, **bad)
    assert "`" in str(info.value)            # our messages name the argument


def test_targets_below_k1_and_tiny_radial_bandwidths_are_refused():
    """Below k1 a smoothed curve stood in for the unbiased ATA_k (its band excluded it at
    k = 2 and 10 of sim_multiclass); a radial bandwidth of 1e-6 asked numpy for 222 GiB."""
    b = datasets.load("sim_multiclass")
    with pytest.raises(ValueError, match=r"`k_target` must be at least the k1 = 100.*got 2, 10"
                                         r".*average_accuracy"):
        extrapolate_accuracy(b.scores, b.labels, method="hd", k_target=[2, 10, 200])
    with pytest.raises(ValueError, match="`bandwidth` must be at least 0.01"):
        extrapolate_accuracy(b.scores, b.labels, method="regression", bandwidth=1e-6)


def test_perfectly_separated_kde_prediction_stays_within_0_1():
    # found by the property test above: rounding gave accuracy 1 + 8.9e-16
    k1, per, seed, signal = 8, 1, 245066, 3.228606827798168
    g = np.random.default_rng(seed)
    y = np.repeat(np.arange(k1), per)
    s = np.round(g.standard_normal((len(y), k1))
                 + signal * (np.arange(k1)[None, :] == y[:, None]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = extrapolate_accuracy(s, y, method="kde", rng=seed, n_subsamples=3,
                                   k_target=[2 * k1, 5 * k1])
    acc = fit.predict([2 * k1, 5 * k1]).accuracy.to_numpy()
    assert np.all((acc >= 0) & (acc <= 1)) and acc == pytest.approx(1.0)


def test_solver_accuracy_is_reported_once_not_as_cvxpy_warnings():
    """k1 = 5 classes, three test points each: some solver calls end 'optimal_inaccurate';
    evalstats' ConvergenceWarning counts them, cvxpy's own UserWarning no longer leaks."""
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(5), 3)
    S = rng.normal(size=(15, 5))
    S[np.arange(15), y] += 1
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        extrapolate_accuracy(S, y, method="polynomial", likelihood="bernoulli", rng=0,
                             n_subsamples=8)
    assert not [w for w in rec if w.category is UserWarning]
    assert any("optimal_inaccurate" in str(w.message) for w in rec)


def test_kde_warns_on_tied_scores():
    """All scores tied: the truth is 1/k (random tie-breaking, closed form); the KDE method
    counts each tie as half a win (0.5^(k−1): 1.8e-12 at k = 40) — now with a warning."""
    k1 = 40
    y = np.repeat(np.arange(k1), 5)
    S = np.zeros((len(y), k1))
    with pytest.warns(ExtrapolationWarning, match="assumes continuous scores"):
        f = extrapolate_accuracy(S, y, method="kde", k_target=[80], n_subsamples=4, rng=0)
    assert any("half a win" in n for n in f.notes)


def test_rng_none_records_a_seed_that_repeats_the_run_and_repr_stays_quiet():
    """rng=None recorded no seed (cv_error_ci did); repr/conf_int/glance of a far
    extrapolation re-emitted its warning on every call."""
    b = datasets.load("sim_multiclass")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = extrapolate_accuracy(b.scores, b.labels, n_subsamples=4, k_target=[2000])
        g = extrapolate_accuracy(b.scores, b.labels, n_subsamples=4, k_target=[2000],
                                 rng=f.call["rng"])
    assert isinstance(f.call["rng"], int) and (f.estimate, f.std_error) == (g.estimate,
                                                                             g.std_error)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        repr(f), f.conf_int(), f.glance()
    assert not rec


def test_empty_k_and_degree_lists_are_named():
    """k=[] reached numpy ('zero-size array to reduction'); degree=[] raised a
    ConvergenceError saying every model failed to fit."""
    b = datasets.load("sim_multiclass")
    with pytest.raises(ValueError, match="`k` must be an integer or a non-empty"):
        average_accuracy(b.scores, b.labels, k=[])
    with pytest.raises(ValueError, match="`degree` must be .* non-empty list"):
        extrapolate_accuracy(b.scores, b.labels, method="polynomial", degree=[])
