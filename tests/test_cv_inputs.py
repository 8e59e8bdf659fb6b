"""cv_variance: inputs as people have them, clear errors, cost made visible (issues 12, 15)."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from evalstats._warnings import ConvergenceWarning
from evalstats.cv_variance import compare_learners, cv_error_ci


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    return X, X[:, 0] + rng.normal(size=40)


def test_train_size_zero_needs_a_fitted_model(data):
    X, y = data
    with pytest.raises(ValueError, match="`estimator` must be an already fitted model"):
        cv_error_ci(LinearRegression(), X, y, train_size=0, loss="squared")


def test_continuous_y_with_a_classifier_is_refused(data):
    X, y = data
    with pytest.raises(ValueError, match=r"`y` must be class labels \(estimator is a classifier"):
        cv_error_ci(LogisticRegression(), X, y, train_size=5)
    with pytest.raises(ValueError, match="`y` must be class labels"):
        cv_error_ci(LinearRegression(), X, y, train_size=5, loss="zero_one")


def test_loss_range_with_builtin_loss_is_refused(data):
    X, y = data
    with pytest.raises(ValueError, match="`loss_range` must be None for the built-in loss"):
        cv_error_ci(LinearRegression(), X, y, train_size=5, loss="squared", loss_range=(0, 1))


def test_dataframe_with_string_column_reaches_the_pipeline_unchanged():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"num": rng.normal(size=40),
                       "city": rng.choice(["a", "b", "c"], size=40)})
    y = (df["num"] + (df["city"] == "a") + rng.normal(size=40) > 0.5).astype(int)
    pipe = make_pipeline(
        ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore"), ["city"])],
                          remainder="passthrough"),
        LogisticRegression())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = cv_error_ci(pipe, df, y, train_size=10, n_draws=20, mc_tol=None, rng=0)
    assert 0 <= res.estimate <= 1 and res.n_fits == 40


def test_call_records_seed_and_draws_and_max_seconds_stops(data):
    X, y = data
    res = cv_error_ci(LinearRegression(), X, y, train_size=5, loss="squared", n_draws=20,
                      mc_tol=None)
    assert isinstance(res.call["rng"], int) and res.n_draws == 20
    again = cv_error_ci(LinearRegression(), X, y, train_size=5, loss="squared", n_draws=20,
                        mc_tol=None, rng=res.call["rng"])
    assert again.estimate == res.estimate  # the recorded seed reproduces the result
    with pytest.warns(ConvergenceWarning, match="max_seconds"):
        quick = cv_error_ci(LinearRegression(), X, y, train_size=5, loss="squared",
                            n_draws=100000, max_seconds=0.05, rng=1)
    assert quick.n_draws < 100000


def test_stopping_rule_extension_is_noted(data):
    X, y = data
    res = cv_error_ci(LinearRegression(), X, y, train_size=5, loss="squared", n_draws=4,
                      mc_tol=0.01, max_draws=16, rng=1)
    assert res.n_draws == 16
    assert any("extending to" in n for n in res.notes)


def test_missing_sklearn_names_the_extra(data, monkeypatch):
    X, y = data
    monkeypatch.setitem(sys.modules, "sklearn", None)
    with pytest.raises(ModuleNotFoundError, match=r"pip install \"evalstats\[ml\]\""):
        cv_error_ci(object(), X, y, train_size=5, loss="squared")


def test_peer_baselines_have_the_same_result_shape(data):
    X, y = data
    for method, fits in (("bayle", 10), ("nested_cv", 10 * 25 + 2 * 5)):
        res = cv_error_ci(LinearRegression(), X, y, train_size=5, loss="squared",
                          method=method, rng=0)
        lo, hi = res.conf_int()
        assert lo < res.estimate < hi and res.n_fits == fits and res.notes
        assert list(res.tidy().columns[:7]) == ["term", "estimate", "std_error", "conf_low",
                                                "conf_high", "confidence_level", "method"]
    cmp_ = compare_learners(LinearRegression(), LinearRegression(fit_intercept=False), X, y,
                            train_size=5, loss="squared", method="bayle", rng=0)
    assert 0 <= cmp_.p_value <= 1
    with pytest.raises(ValueError, match="per-case loss"):
        cv_error_ci(LogisticRegression(), X, (y > 0).astype(int), train_size=5, loss="auc",
                    method="bayle")


def test_bayle_matches_its_formula(data):
    # Bayle et al. (2020): R ± z sigma_out / sqrt(n), sigma_out^2 = mean (e_i - R)^2, one
    # 10-fold CV; recomputed by hand from an explicit K-fold loop with the same folds.
    X, y = data
    res = cv_error_ci(LinearRegression(), X, y, train_size=5, loss="squared", method="bayle",
                      rng=0)
    seed = int(np.random.default_rng(0).spawn(1)[0].integers(2 ** 63))
    folds = np.array_split(np.random.default_rng(seed).permutation(40), 10)
    e = np.empty(40)
    for f in folds:
        tr = np.setdiff1d(np.arange(40), f)
        e[f] = (LinearRegression().fit(X[tr], y[tr]).predict(X[f]) - y[f]) ** 2
    assert res.estimate == pytest.approx(e.mean(), rel=1e-10)
    assert res.std_error == pytest.approx(np.sqrt(np.mean((e - e.mean()) ** 2) / 40), rel=1e-10)


def test_compare_plot_has_zero_line_and_readable_label(data):
    X, y = data
    res = compare_learners(LinearRegression(), LinearRegression(fit_intercept=False), X, y,
                           train_size=5, loss="squared", n_draws=20, mc_tol=None, rng=0)
    ax = res.plot()
    assert "difference in expected mean squared error" in ax.get_xlabel()
    assert any(list(line.get_xdata()) == [0.0, 0.0] for line in ax.get_lines())


@pytest.mark.parametrize("method", ["bayle", "naive_t", "corrected_t"])
def test_baseline_comparison_of_identical_learners_is_flagged(method):
    """Identical predictions on every split: a zero-width interval and a NaN p-value, now
    with a warning and the result's flag (before: silent, as if the difference were known)."""
    from sklearn.naive_bayes import GaussianNB

    from evalstats._warnings import SmallSampleWarning

    rng = np.random.default_rng(0)
    X = rng.normal(size=(36, 3))
    y = (X[:, 0] + rng.logistic(size=36) > 0).astype(int)
    with pytest.warns(SmallSampleWarning, match="identical on every split"):
        res = compare_learners(GaussianNB(), GaussianNB(), X, y, train_size=8, method=method,
                               rng=0, progress=False)
    assert res.estimate == 0.0 and np.isnan(res.p_value)
    assert repr(res).endswith("!>")


def test_single_class_share_matches_enumeration():
    from itertools import combinations

    from evalstats.cv_variance._draws import single_class_share

    y = np.array([0, 0, 0, 0, 0, 1, 1, 2])
    for g in (1, 2, 3, 5, 6):
        sets = list(combinations(range(len(y)), g))
        want = sum(len(set(y[list(s)])) == 1 for s in sets) / len(sets)
        assert single_class_share(y, g) == pytest.approx(want, rel=1e-12)


def test_learning_sets_with_one_class_are_flagged():
    """LogisticRegression cannot be fitted on one class; the constant prediction stands in
    (before: silently, in 69 % of the fits here)."""
    from evalstats._warnings import SmallSampleWarning

    rng = np.random.default_rng(0)
    X = rng.normal(size=(36, 3))
    y = np.zeros(36, int)
    y[:3] = 1
    with pytest.warns(SmallSampleWarning, match="single class with probability 0.695"):
        res = cv_error_ci(LogisticRegression(), X, y, train_size=4, rng=0, n_draws=60,
                          mc_tol=None, progress=False)
    assert any("constant prediction" in n for n in res.notes)


def test_a_classifier_with_another_loss_gets_the_constant_on_one_class():
    """A cost-weighted callable loss (or squared loss on 0/1 labels) with a classifier: a
    learning set of one class crashed inside scikit-learn, because the substitution was
    keyed on the loss name; it now follows the estimator (``is_classifier``), with the note.
    The baselines substitute too and now say so."""
    from evalstats._warnings import SmallSampleWarning

    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] + rng.normal(size=40) > 0).astype(int)

    def cost(yt, yp):
        return np.where(yt != yp, np.where(yt == 1, 5.0, 1.0), 0.0)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = cv_error_ci(LogisticRegression(), X, y, train_size=5, loss=cost,
                          loss_range=(0, 5), n_draws=100, mc_tol=None, rng=1, progress=False)
    assert np.isfinite(res.estimate)
    assert any("single class with probability 0.125" in n for n in res.notes)
    y3 = np.zeros(30, int)
    y3[:3] = 1
    with pytest.warns(SmallSampleWarning, match="single class"):
        cv_error_ci(LogisticRegression(), X[:30], y3, train_size=13, loss="auc",
                    method="corrected_t", rng=1, progress=False)


def test_max_draws_below_the_default_start_is_respected(data):
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = cv_error_ci(LinearRegression(), X, y, train_size=5, loss="squared",
                          max_draws=40, rng=1, progress=False)
    assert res.n_draws == 40 and res.call["max_draws"] == 40   # before: 1000 draws run
    with pytest.raises(ValueError, match="`max_draws` must be at least n_draws = 50"):
        cv_error_ci(LinearRegression(), X, y, train_size=5, loss="squared", n_draws=50,
                    max_draws=40, rng=1)


def test_auc_draws_without_a_held_out_positive_add_nothing():
    """A draw that leaves no positive outside the learning set has an empty AUC kernel;
    before, its NaN mean entered the per-observation sums (numpy's 'Mean of empty slice'
    reached the user and the leading variance was NaN)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(36, 3))
    y = np.zeros(36, int)
    y[:3] = 1
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        res = cv_error_ci(LogisticRegression(), X, y, train_size=10, loss="auc", rng=0,
                          n_draws=60, mc_tol=None, progress=False)
    assert not [w for w in rec if w.category is RuntimeWarning]
    assert np.isfinite(res.leading_variance) and np.isfinite(res.estimate)


def test_all_losses_zero_gets_the_zero_failure_limit_not_a_point():
    """A tree that separates n = 30 points: every held-out loss is 0, every variance
    estimate 0, and the interval was [0, 0] even at level 0.999999. It is now the
    zero-failure Clopper–Pearson limit of 30 cases, 1 − (α/2)^(1/30) (closed form:
    0.1157 at 95 %), still flagged."""
    from sklearn.tree import DecisionTreeClassifier

    y = np.repeat([0, 1], 15)
    X = np.c_[y, y].astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = cv_error_ci(DecisionTreeClassifier(), X, y, train_size=14, rng=1, n_draws=100,
                          mc_tol=None, progress=False)
    assert res.estimate == 0.0 and res.std_error == 0.0
    lo, hi = res.conf_int()
    assert lo == 0.0 and hi == pytest.approx(1 - 0.025 ** (1 / 30), rel=1e-12)
    assert res.conf_int(0.999999).high > hi
    assert repr(res).endswith("!>")


def test_5x2cv_auc_with_an_undefined_part_says_why():
    """A half with no positive has no AUC: the interval was NaN without a word, and for two
    learners the warning said (wrongly) that their losses were identical."""
    from sklearn.dummy import DummyClassifier
    from sklearn.naive_bayes import GaussianNB

    from evalstats._warnings import UndefinedEstimateWarning

    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 2))
    y = np.zeros(30, int)
    y[:3] = 1
    X[:3, 0] += 2
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        r = cv_error_ci(GaussianNB(), X, y, train_size=13, loss="auc", method="5x2cv", rng=1)
        c = compare_learners(GaussianNB(), DummyClassifier(), X, y, train_size=12, loss="auc",
                             method="5x2cv", rng=1)
    msgs = [str(w.message) for w in rec]
    assert sum("give no score" in m for m in msgs) == 2 and not any("identical" in m for m in msgs)
    assert any(issubclass(w.category, UndefinedEstimateWarning) for w in rec)
    assert repr(r).endswith("!>") and repr(c).endswith("!>")


def test_interval_with_a_baseline_is_refused_and_bayle_says_normal():
    """interval='logit' with method='corrected_t' was silently ignored (a t interval came
    back); bayle's interval uses the normal quantile but was labelled 't'."""
    from sklearn.naive_bayes import GaussianNB

    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] + rng.normal(size=40) > 0).astype(int)
    with pytest.raises(ValueError, match="`interval` must be left at its default with "
                                         "method='corrected_t'"):
        cv_error_ci(GaussianNB(), X, y, train_size=10, method="corrected_t", interval="logit")
    with pytest.raises(ValueError, match="`interval` must be left at its default"):
        compare_learners(GaussianNB(), GaussianNB(), X, y, train_size=10, method="5x2cv",
                         interval="t")
    res = cv_error_ci(GaussianNB(), X, y, train_size=10, method="bayle", rng=1,
                      progress=False)
    assert res.interval_method == "normal" and res.df is None
    assert cv_error_ci(GaussianNB(), X, y, train_size=10, method="corrected_t", rng=1,
                       progress=False).interval_method == "t"


def test_auc_with_text_classes_says_how_to_recode():
    """yes/no labels with loss='auc' were told to go through pd.to_numeric, which cannot
    work; the message now asks for 0/1 with the positive class named."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] > 0, "yes", "no")
    with pytest.raises(TypeError, match=r"`y` must be labels coded 0/1 for loss='auc'.*"
                                        r"\(y == '(yes|no)'\)\.astype\(int\)"):
        cv_error_ci(LogisticRegression(), X, y, train_size=10, loss="auc")


def test_prediction_and_loss_shapes_are_checked_and_sparse_X_is_passed_on():
    """A predict() of the wrong length and a callable loss returning a scalar ended in
    numpy broadcasting errors; a sparse X was refused as 'got shape ()'. Sparse input now
    gives the same result as the dense matrix."""
    import scipy.sparse as sp

    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)

    class WrongShape(LogisticRegression):
        def predict(self, X):
            return np.zeros(X.shape[0] + 1, int)

    kw = dict(train_size=10, n_draws=20, mc_tol=None, rng=1, progress=False)
    with pytest.raises(ValueError, match=r"`estimator` must be a model whose predict\(\) "
                                         r"returns one prediction per case \(30\)"):
        cv_error_ci(WrongShape(), X, y, **kw)
    with pytest.raises(ValueError, match="`loss` must be a callable returning one loss per"):
        cv_error_ci(LogisticRegression(), X, y, loss=lambda a, b: np.mean(a != b),
                    loss_range=(0, 1), **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dense = cv_error_ci(LogisticRegression(), X, y, **kw)
        sparse = cv_error_ci(LogisticRegression(), sp.csr_matrix(X), y, **kw)
    assert sparse.estimate == pytest.approx(dense.estimate, abs=1e-12)


def test_draw_counts_are_exact_and_the_cap_holds():
    """mc_tol=None promises exactly n_draws (101 gave 105) and max_draws is a cap (320 gave
    321); the split into tasks stays identical for any n_jobs."""
    from sklearn.naive_bayes import GaussianNB

    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] + rng.normal(size=40) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = cv_error_ci(GaussianNB(), X, y, train_size=10, n_draws=101, mc_tol=None,
                          rng=1, progress=False)
        two = cv_error_ci(GaussianNB(), X, y, train_size=10, n_draws=101, mc_tol=None,
                          rng=1, progress=False, n_jobs=2)
        capped = cv_error_ci(GaussianNB(), X, y, train_size=10, n_draws=40, max_draws=320,
                             rng=3, progress=False)
    assert one.n_draws == 101 and (one.estimate, one.std_error) == (two.estimate,
                                                                     two.std_error)
    assert capped.n_draws <= 320


def test_nested_cv_needs_two_cases_per_outer_fold():
    """At n = 8 the outer folds held one case: 40 numpy warnings and, silently, the naive
    (too narrow) width."""
    from sklearn.dummy import DummyRegressor

    rng = np.random.default_rng(1)
    X = rng.normal(size=(8, 1))
    y = X[:, 0] + rng.normal(size=8)
    with pytest.raises(ValueError, match="`method` may be 'nested_cv' only with n >= 10"):
        cv_error_ci(DummyRegressor(), X, y, train_size=2, loss="squared", method="nested_cv")


def test_huge_losses_are_refused_without_numpy_noise():
    """Losses near 1e150 crashed with an OverflowError in the df; near 1e200 they gave a
    NaN interval and hundreds of numpy overflow warnings."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 2))
    y = X[:, 0] + rng.normal(size=40)
    for scale in (1e150, 1e200):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            with pytest.raises(ValueError, match="`loss` must be at most 1e\\+75 in magnitude"):
                cv_error_ci(LinearRegression(), X, y, train_size=5,
                            loss=lambda a, b, s=scale: s * (a - b) ** 2, n_draws=40,
                            mc_tol=None, rng=1, progress=False)
        assert not [w for w in rec if issubclass(w.category, RuntimeWarning)]
