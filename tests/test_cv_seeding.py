"""cv_variance: ``rng`` seeds the learners' own randomness; unseedable randomness warns;
``X`` is validated before the draws (clear errors naming the argument)."""

from __future__ import annotations

import warnings

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier

from evalstats.cli import main
from evalstats.cv_variance import ReproducibilityWarning, compare_learners, cv_error_ci
from evalstats.cv_variance._seeding import FitSeeder, unset_random_states

KW = dict(train_size=15, n_draws=30, mc_tol=None, progress=False)


@pytest.fixture
def data():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(50, 4))
    y = (X[:, 0] + rng.normal(size=50) > 0).astype(int)
    return X, y


class Majority(ClassifierMixin, BaseEstimator):
    """Predicts the majority class of its learning set (deterministic, no parameters)."""

    def fit(self, X, y):
        self.classes_, counts = np.unique(y, return_counts=True)
        self.major_ = self.classes_[np.argmax(counts)]
        return self

    def predict(self, X):
        return np.full(len(X), self.major_)


class Spy(Majority):
    """The same learner with a random_state parameter; records it at every fit."""

    seen: list = []

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y):
        Spy.seen.append(self.random_state)
        return super().fit(X, y)


class GlobalNoise(ClassifierMixin, BaseEstimator):
    """Draws from numpy's global generator: randomness that `rng` cannot reach."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        # a fresh coin per row: two fits agree on every row with probability 2**-len(X)
        # (a random threshold could fall between the same two rows twice)
        flip = np.random.random(len(X)) < 0.5  # noqa: NPY002 - the global state is the point
        return np.where(flip, self.classes_[-1], self.classes_[0])


@pytest.mark.parametrize("est", [DecisionTreeClassifier(max_depth=2),
                                 make_pipeline(StandardScaler(),
                                               ExtraTreeClassifier(max_depth=3))])
def test_same_rng_gives_the_same_result_with_a_random_learner(data, est):
    X, y = data
    a = cv_error_ci(est, X, y, rng=0, **KW)
    b = cv_error_ci(est, X, y, rng=0, **KW)
    assert a.estimate == b.estimate and a.conf_int() == b.conf_int()
    assert a.variance_estimate == b.variance_estimate
    c = cv_error_ci(est, X, y, rng=1, **KW)   # and the seed matters
    assert c.estimate != a.estimate
    assert unset_random_states(est)          # the user's object is left unseeded


def test_compare_and_baselines_are_reproducible_and_equal_across_n_jobs(data):
    X, y = data
    a, b = DecisionTreeClassifier(max_depth=2), DecisionTreeClassifier(max_depth=3)
    r1 = compare_learners(a, b, X, y, rng=3, **KW)
    with joblib.parallel_config(backend="threading"):
        r2 = compare_learners(a, b, X, y, rng=3, n_jobs=2, **KW)
    assert (r1.estimate, r1.p_value) == (r2.estimate, r2.p_value)
    for method in ("corrected_t", "5x2cv", "bayle"):
        s1 = cv_error_ci(a, X, y, train_size=15, method=method, rng=4, progress=False)
        s2 = cv_error_ci(a, X, y, train_size=15, method=method, rng=4, progress=False)
        assert s1.estimate == s2.estimate and s1.conf_int() == s2.conf_int(), method


def test_an_explicit_random_state_is_never_overwritten(data):
    X, y = data
    Spy.seen = []
    cv_error_ci(Spy(random_state=7), X, y, rng=0, **KW)
    assert Spy.seen and set(Spy.seen) == {7}
    Spy.seen = []
    cv_error_ci(Spy(), X, y, rng=0, **KW)
    drawn = [s for s in Spy.seen if s is not None]
    assert len(drawn) == len(Spy.seen)                      # every fit was seeded
    assert all(isinstance(s, int) and 0 <= s <= 2 ** 32 - 1 for s in drawn)
    assert len(set(drawn)) > len(drawn) // 2                # a fresh seed per fit


def test_seeding_does_not_move_the_learning_sets(data):
    """Spawning the fit seeds leaves the draws' own stream alone: a deterministic learner
    with an unset random_state gives exactly the result of the same learner without one."""
    X, y = data
    a = cv_error_ci(Spy(), X, y, rng=9, **KW)
    b = cv_error_ci(Majority(), X, y, rng=9, **KW)
    assert a.estimate == b.estimate and a.variance_estimate == b.variance_estimate


def test_fit_seeder_keys_and_stream():
    gen = np.random.default_rng(1)
    state = gen.bit_generator.state
    seeder = FitSeeder([Spy(), Spy(random_state=2), Majority()], gen)
    assert gen.bit_generator.state == state            # spawning does not advance it
    assert seeder.params(1) == {} and seeder.params(2) == {}
    first, second = seeder.params(0), seeder.params(0)
    assert set(first) == {"random_state"} and first != second
    pipe = make_pipeline(StandardScaler(), RandomForestClassifier())
    assert unset_random_states(pipe) == ("randomforestclassifier__random_state",)


def test_unseedable_randomness_warns_once_and_deterministic_learners_do_not(data):
    X, y = data
    with pytest.warns(ReproducibilityWarning, match="cannot seed") as rec:
        res = cv_error_ci(GlobalNoise(), X, y, rng=0, **KW)
    assert len([w for w in rec if w.category is ReproducibilityWarning]) == 1
    assert any("ReproducibilityWarning" in note for note in res.notes)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReproducibilityWarning)
        cv_error_ci(DecisionTreeClassifier(max_depth=2), X, y, rng=0, **KW)
        cv_error_ci(Majority(), X, y, rng=0, **KW)


# -- X is validated before the draws ----------------------------------------------------------

@pytest.mark.parametrize("bad, match", [
    (np.array([["a", "b"]] * 50), "`X` must be numeric.*'a'.*Encode text"),
    (np.array([["1.5", "2"]] * 50), "`X` must be numeric.*'1.5'"),
])
def test_text_X_is_refused_by_name(data, bad, match):
    _, y = data
    with pytest.raises(TypeError, match=match):
        cv_error_ci(DecisionTreeClassifier(), bad, y, rng=0, **KW)


def test_huge_or_missing_features_are_refused_by_name(data):
    X, y = data
    big = X.copy()
    big[3, 1] = 1e308
    with pytest.raises(ValueError, match=r"`X` must hold features of magnitude at most "
                       r"1e\+150.*1e\+308 at row 3, column 1.*Rescale"):
        cv_error_ci(DecisionTreeClassifier(), big, y, rng=0, **KW)
    frame = pd.DataFrame(X, columns=list("abcd"))
    frame.loc[4, "c"] = np.nan
    with pytest.raises(ValueError, match=r"`X` must be finite.*row 4, column 'c'"):
        cv_error_ci(DecisionTreeClassifier(), frame, y, rng=0, **KW)
    frame.loc[4, "c"] = -1e200
    with pytest.raises(ValueError, match=r"-1e\+200 at column 'c', row 4"):
        compare_learners(DecisionTreeClassifier(), DecisionTreeClassifier(), frame, y,
                         rng=0, **KW)


def test_a_learner_that_cannot_fit_X_is_refused_before_the_draws(data):
    X, y = data
    frame = pd.DataFrame(X, columns=list("abcd")).assign(colour=["red", "blue"] * 25)
    with pytest.raises(ValueError, match=r"`estimator` must be a learner that can fit and "
                       r"predict rows of `X`.*could not convert string to float"):
        cv_error_ci(DecisionTreeClassifier(), frame, y, rng=0, **KW)
    pipe = make_pipeline(ColumnTransformer([("oh", OneHotEncoder(), ["colour"])],
                                           remainder="passthrough"),
                         DecisionTreeClassifier(max_depth=2))
    assert np.isfinite(cv_error_ci(pipe, frame, y, rng=0, **KW).estimate)
    numbers_as_objects = X.astype(object)
    assert np.isfinite(cv_error_ci(DecisionTreeClassifier(), numbers_as_objects, y, rng=0,
                                   **KW).estimate)


def test_cli_reports_a_huge_feature_in_one_line(tmp_path, capsys):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"])
    df["y"] = (rng.random(40) < 0.5).astype(int)
    df.loc[3, "a"] = 1e308
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    rc = main(["cv", "--data", str(path), "--target", "y", "--train-size", "10",
               "--seed", "1"])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "`--data` must hold finite feature values" in err
    assert "1e+308" in err and "row 5, column 'a'" in err
