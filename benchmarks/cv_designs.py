"""Data-generating designs of the CV benchmarks: learners, outcome laws and the truth θ(g).

Two families, fixed before any run (``cv_coverage.py`` states the rule that uses them):

* **dev** — where the default interval is chosen. Mean predictor with squared loss (so
  θ(g) = σ²(1 + 1/g) exactly) for a Gaussian, an exponential, a lognormal(0, 1) and a
  Student t₅ outcome (heavy tails with E y⁴ < ∞, so that Var Θ̂ is finite: under t₃ it
  is infinite and no interval can be calibrated); OLS with an intercept (Gaussian and
  centred exponential noise); L2-penalised logistic regression on two classes with
  Gaussian or t₃ features, under the 0-1 and the log loss.
* **fresh** — drawn once after the choice, other laws, learners and sizes: the mean
  predictor for gamma(½) (more skewed than the exponential), Lomax (Pareto II, α = 6),
  contaminated normal (0.9 N(0, 1) + 0.1 N(0, 9)) and Poisson(3) outcomes; ridge
  regression and k-NN regression (squared loss, skewed noise); a depth-3 tree and k-NN
  classification (0-1 loss) on a nonlinear boundary; n ∈ {50, 100}, g ∈ {8, n/3}.

Each design is ``Design(sim, learner, loss, loss_range, truth)``: ``sim(n, rng) -> (X, y)``,
``learner()`` a fresh estimator, ``truth(g, rng) -> (θ(g), Monte-Carlo s.e.)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special, stats
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

# -- learners --------------------------------------------------------------------------------


class MeanReg(RegressorMixin, BaseEstimator):
    """Predicts ``shrink`` × the mean of the learning set's y."""

    def __init__(self, shrink=1.0):
        self.shrink = shrink

    def fit(self, X, y):
        self.m_ = self.shrink * float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.m_)


class FastOLS(RegressorMixin, BaseEstimator):
    """OLS with an intercept (numpy lstsq); ``col`` restricts it to one feature."""

    def __init__(self, col=None):
        self.col = col

    def _design(self, X):
        X = np.asarray(X, float)
        X = X if self.col is None else X[:, [self.col]]
        return np.hstack([np.ones((len(X), 1)), X])

    def fit(self, X, y):
        self.w_ = np.linalg.lstsq(self._design(X), y, rcond=None)[0]
        return self

    def predict(self, X):
        return self._design(X) @ self.w_


class FastLogistic(ClassifierMixin, BaseEstimator):
    """L2-penalised logistic regression, intercept unpenalised: the objective of
    scikit-learn's ``LogisticRegression()`` default (C = 1), solved by Newton steps;
    ``col`` restricts it to one feature."""

    def __init__(self, C=1.0, col=None):
        self.C, self.col = C, col

    def _x(self, X):
        X = np.asarray(X, float)
        return X if self.col is None else X[:, [self.col]]

    def fit(self, X, y):
        X = self._x(X)
        self.classes_ = np.unique(y)
        t = (y == self.classes_[-1]).astype(float)
        Z = np.hstack([np.ones((len(X), 1)), X])
        pen = np.full(Z.shape[1], 1.0 / self.C)
        pen[0] = 0.0
        w = np.zeros(Z.shape[1])
        for _ in range(30):
            mu = special.expit(Z @ w)
            H = (Z * (mu * (1 - mu))[:, None]).T @ Z + np.diag(pen + 1e-10)
            step = np.linalg.solve(H, Z.T @ (mu - t) + pen * w)
            w -= step
            if np.abs(step).max() < 1e-10:
                break
        self.intercept_, self.coef_ = w[0], w[1:]
        return self

    def decision_function(self, X):
        return self._x(X) @ self.coef_ + self.intercept_

    def predict_proba(self, X):
        p1 = special.expit(self.decision_function(X))
        return np.column_stack([1 - p1, p1])

    def predict(self, X):
        return np.where(self.decision_function(X) > 0, self.classes_[-1], self.classes_[0])


class NearestMean(ClassifierMixin, BaseEstimator):
    """Nearest class mean (Euclidean) on the columns ``cols`` (all by default)."""

    def __init__(self, cols=None):
        self.cols = cols

    def _x(self, X):
        X = np.asarray(X, float)
        return X if self.cols is None else X[:, list(self.cols)]

    def fit(self, X, y):
        X = self._x(X)
        self.classes_ = np.unique(y)
        self.means_ = np.array([X[y == c].mean(axis=0) for c in self.classes_])
        return self

    def predict(self, X):
        d = ((self._x(X)[:, None, :] - self.means_[None]) ** 2).sum(-1)
        return self.classes_[d.argmin(1)]


@dataclass(frozen=True)
class Design:
    """A cell's data law, learner and loss (see the module docstring)."""

    sim: Callable[[int, np.random.Generator], tuple[np.ndarray, np.ndarray]]
    learner: Callable[[], Any]
    loss: Any
    truth: Callable[[int, np.random.Generator], tuple[float, float]]
    loss_range: tuple[float, float] | None = None


# -- the mean predictor: θ(g) = σ²(1 + 1/g) ---------------------------------------------------

#: outcome laws of the mean design: (sampler, variance)
MEAN_LAWS = {
    "normal": (lambda r, n: r.normal(size=n), 1.0),
    "exponential": (lambda r, n: r.exponential(size=n), 1.0),
    "lognormal": (lambda r, n: r.lognormal(size=n), float(np.e * (np.e - 1))),
    "t5": (lambda r, n: r.standard_t(5, size=n), 5 / 3),
    # fresh family
    "gamma_half": (lambda r, n: r.gamma(0.5, size=n), 0.5),
    "lomax6": (lambda r, n: r.pareto(6.0, size=n), 6.0 / (25.0 * 4.0)),
    "contaminated": (lambda r, n: np.where(r.random(n) < 0.1, 3.0, 1.0) * r.normal(size=n),
                     0.9 + 0.1 * 9.0),
    "poisson3": (lambda r, n: r.poisson(3.0, size=n).astype(float), 3.0),
}


def mean_design(law: str) -> Design:
    draw, var = MEAN_LAWS[law]

    def sim(n, rng):
        return np.zeros((n, 1)), draw(rng, n)

    return Design(sim, MeanReg, "squared", lambda g, rng: (var * (1 + 1 / g), 0.0))


# -- OLS with an intercept: y = 1 + x₁ − x₂/2 + ε ----------------------------------------------

BETA = np.array([1.0, 1.0, -0.5])
NOISE = {"normal": lambda r, s: r.normal(size=s),
         "exponential": lambda r, s: r.exponential(size=s) - 1.0}


def _ols_sim(noise):
    def sim(n, rng):
        X = rng.normal(size=(n, 2))
        return X, BETA[0] + X @ BETA[1:] + NOISE[noise](rng, n)
    return sim


def _ols_truth(noise, reps=20000):
    def truth(g, rng):
        sim = _ols_sim(noise)
        vals = np.empty(reps)
        for k in range(reps):
            X, y = sim(g, rng)
            w = FastOLS().fit(X, y).w_
            vals[k] = 1.0 + np.sum((w - BETA) ** 2)  # noise variance 1, x ~ N(0, I)
        return float(vals.mean()), float(vals.std(ddof=1) / np.sqrt(reps))
    return truth


def ols_design(noise: str) -> Design:
    return Design(_ols_sim(noise), FastOLS, "squared", _ols_truth(noise))


# -- logistic regression on two classes ---------------------------------------------------------

SHIFT = 0.75  # class means ±(0.75, 0): Bayes error Φ(−0.75) = 0.227 with Gaussian features
_T3_SCALE = 1 / np.sqrt(3.0)  # t₃ features scaled to unit variance


def _feature_noise(law, rng, shape):
    if law == "gaussian":
        return rng.normal(size=shape)
    return _T3_SCALE * rng.standard_t(3, size=shape)


def _logit_sim(law):
    def sim(n, rng):
        y = (rng.random(n) < 0.5).astype(int)
        X = _feature_noise(law, rng, (n, 2))
        X[:, 0] += SHIFT * (2 * y - 1)
        return X, y
    return sim


_GH_X, _GH_W = np.polynomial.hermite_e.hermegauss(80)
_GH_W = _GH_W / _GH_W.sum()


def _risk_gaussian(model, loss):
    """Exact risk of a linear classifier under Gaussian class conditionals (the score is
    N(±0.75 w₁ + b, ‖w‖²) in each class; Gauss–Hermite quadrature for the log loss)."""
    w, b = model.coef_, model.intercept_
    s = np.linalg.norm(w)
    out = 0.0
    for sign in (1, -1):                     # class 1 (sign +1) and class 0
        m = sign * SHIFT * w[0] + b
        if loss == "zero_one":
            out += 0.5 * (stats.norm.cdf(-sign * m / s) if s > 0 else 0.5)
        else:
            z = m + s * _GH_X
            out += 0.5 * float(_GH_W @ np.logaddexp(0.0, -sign * z))
    return out


def _risk_mc(model, loss, law, rng, n_test=4000):
    X, y = _logit_sim(law)(n_test, rng)
    if loss == "zero_one":
        return float(np.mean(model.predict(X) != y))
    p = np.clip(model.predict_proba(X)[:, 1], 1e-15, 1 - 1e-15)
    return float(np.mean(-np.log(np.where(y == 1, p, 1 - p))))


def _logit_truth(law, loss, reps=20000):
    def truth(g, rng):
        sim = _logit_sim(law)
        k = reps if law == "gaussian" else reps // 4
        vals = np.empty(k)
        for i in range(k):
            X, y = sim(g, rng)
            while len(np.unique(y)) < 2:          # as the package: a one-class set predicts
                X, y = sim(g, rng)                 # that class; resampled here (rare, g ≥ 5)
            m = FastLogistic().fit(X, y)
            vals[i] = (_risk_gaussian(m, loss) if law == "gaussian"
                       else _risk_mc(m, loss, law, rng))
        return float(vals.mean()), float(vals.std(ddof=1) / np.sqrt(k))
    return truth


def logit_design(law: str, loss: str) -> Design:
    return Design(_logit_sim(law), FastLogistic, loss, _logit_truth(law, loss))


# -- families --------------------------------------------------------------------------------

MEAN_CELLS = ((30, 7), (40, 5), (40, 10), (80, 20), (120, 30))
OLS_CELLS = ((40, 10), (120, 30))
LOGIT_CELLS = ((40, 10),)


def dev_family() -> dict[tuple, Design]:
    """{(design name, n, g): Design} of the development family."""
    out = {}
    for law in ("normal", "exponential", "lognormal", "t5"):
        out.update({(f"mean_{law}", n, g): mean_design(law) for n, g in MEAN_CELLS})
    for noise in NOISE:
        out.update({(f"ols_{noise}", n, g): ols_design(noise) for n, g in OLS_CELLS})
    for law in ("gaussian", "t3"):
        for loss in ("zero_one", "log"):
            out.update({(f"logit_{law}_{loss}", n, g): logit_design(law, loss)
                        for n, g in LOGIT_CELLS})
    for n, g in ((40, 5), (80, 20)):
        out[("logit_gaussian_zero_one", n, g)] = logit_design("gaussian", "zero_one")
    return out


# -- the fresh family (fixed before the dev runs; run once after the choice) --------------------

FRESH_MEAN_CELLS = ((50, 8), (50, 16), (100, 8), (100, 33))
FRESH_CELLS = ((50, 16), (100, 33), (100, 8))
_RIDGE_BETA = np.array([1.0, -1.0, 0.5, 0.0, 0.0])


def _ridge_sim(n, rng):
    X = rng.normal(size=(n, 5))
    return X, X @ _RIDGE_BETA + rng.gamma(2.0, size=n) - 2.0


def _knn_reg_sim(n, rng):
    X = rng.uniform(-1.5, 1.5, size=(n, 2))
    return X, np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + rng.laplace(scale=0.5, size=n)


def _ring_sim(n, rng):
    X = rng.normal(size=(n, 2))
    r2 = (X ** 2).sum(1) + rng.normal(scale=0.5, size=n)
    return X, (r2 > 1.4).astype(int)


def _mc_truth(sim, make, loss, reps=4000, n_test=2000):
    """θ(g) by Monte Carlo: ``reps`` learning sets, each scored on its own test sample."""
    def truth(g, rng):
        vals = np.empty(reps)
        for i in range(reps):
            X, y = sim(g, rng)
            while loss == "zero_one" and len(np.unique(y)) < 2:
                X, y = sim(g, rng)
            pred = make().fit(X, y).predict((Xt := sim(n_test, rng))[0])
            yt = Xt[1]
            vals[i] = np.mean(pred != yt) if loss == "zero_one" else np.mean((pred - yt) ** 2)
        return float(vals.mean()), float(vals.std(ddof=1) / np.sqrt(reps))
    return truth


def _sk(name):
    from sklearn.linear_model import Ridge
    from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
    from sklearn.tree import DecisionTreeClassifier

    return {"ridge": lambda: Ridge(alpha=1.0),
            "knn_reg": lambda: KNeighborsRegressor(5),
            "tree": lambda: DecisionTreeClassifier(max_depth=3, random_state=0),
            "knn_clf": lambda: KNeighborsClassifier(5)}[name]


def fresh_family() -> dict[tuple, Design]:
    """{(design name, n, g): Design} of the fresh family (see the module docstring)."""
    out = {}
    for law in ("gamma_half", "lomax6", "contaminated", "poisson3"):
        out.update({(f"mean_{law}", n, g): mean_design(law) for n, g in FRESH_MEAN_CELLS})
    for name, sim, loss in (("ridge", _ridge_sim, "squared"),
                            ("knn_reg", _knn_reg_sim, "squared"),
                            ("tree", _ring_sim, "zero_one"),
                            ("knn_clf", _ring_sim, "zero_one")):
        make = _sk(name)
        out.update({(name, n, g): Design(sim, make, loss, _mc_truth(sim, make, loss))
                    for n, g in FRESH_CELLS})
    return out


# -- compare_learners: nulls (θ_A(g) = θ_B(g)) and alternatives -------------------------------


def ols_risk(var_residual: float, g: int, p: int) -> float:
    """Expected test MSE of OLS with an intercept and p N(0, I) features trained on g
    points: σ²(1 + 1/g)(g − 2)/(g − p − 2) (checked here by Monte Carlo to 4 decimals)."""
    return var_residual * (1 + 1 / g) * (g - 2) / (g - p - 2)


@dataclass(frozen=True)
class CompareDesign:
    """``setup(n, shift, rng) -> (X, y, A, B, loss)``; ``diff(g, shift)`` = θ_A − θ_B
    (NaN where only the null is known); ``null`` the shift of H0."""

    setup: Callable
    diff: Callable[[int, float], float]
    null: Callable[[int], float]
    family: str


def _mean_half(n, mu, rng):
    return np.zeros((n, 1)), rng.normal(size=n) + mu, MeanReg(), MeanReg(0.5), "squared"


def _clf_sym(n, _, rng):
    X = rng.normal(size=(n, 2))
    y = (rng.random(n) < special.expit(X.sum(1))).astype(int)
    return X, y, NearestMean((0,)), NearestMean((1,)), "zero_one"


#: b with θ_A(g) = θ_B(g) in the nested-classifier null (paired Monte Carlo, 20,000
#: learning sets; earlier benchmark): g = 10: 0.519
ASYM_B = {10: 0.519}


def _clf_nested(n, b, rng):
    X = rng.normal(size=(n, 2))
    y = (rng.random(n) < special.expit(X[:, 0] + b * X[:, 1])).astype(int)
    return X, y, NearestMean((0,)), NearestMean(), "zero_one"


def _ols_sym(n, delta, rng):
    """y = x₁ + (1 + δ)x₂ + centred exponential noise; OLS on x₁ vs OLS on x₂."""
    X = rng.normal(size=(n, 2))
    y = X[:, 0] + (1 + delta) * X[:, 1] + rng.exponential(size=n) - 1.0
    return X, y, FastOLS(0), FastOLS(1), "squared"


def _stump_neg(n, _, rng):
    """y = 1[x₁ > x₂]; logistic regression on x₁ vs on x₂: the two never err on the same
    case, so their error estimates are negatively correlated; equal by symmetry."""
    X = rng.normal(size=(n, 2))
    return X, (X[:, 0] > X[:, 1]).astype(int), FastLogistic(col=0), FastLogistic(col=1), \
        "zero_one"


def _nested_ols(n, b, rng):
    """y = x₁ + b x₂ + N(0, 1); OLS on x₁ vs OLS on (x₁, x₂)."""
    X = rng.normal(size=(n, 2))
    y = X[:, 0] + b * X[:, 1] + rng.normal(size=n)
    return X, y, FastOLS(0), FastOLS(), "squared"


COMPARE_DESIGNS = {
    # dev: the designs the previous defaults were chosen on
    "mean_half": CompareDesign(_mean_half, lambda g, mu: 0.75 / g - 0.25 * mu ** 2,
                               lambda g: np.sqrt(3 / g), "dev"),
    "clf_sym": CompareDesign(_clf_sym, lambda g, s: 0.0 if s == 0 else np.nan,
                             lambda g: 0.0, "dev"),
    "clf_nested": CompareDesign(_clf_nested, lambda g, b: 0.0 if b == ASYM_B[g] else np.nan,
                                lambda g: ASYM_B[g], "dev"),
    # fresh: skewed losses, negatively correlated and nested learners
    "ols_sym_skew": CompareDesign(
        _ols_sym, lambda g, d: ((1 + d) ** 2 - 1) * ols_risk(1.0, g, 1), lambda g: 0.0,
        "fresh"),
    "stump_neg": CompareDesign(_stump_neg, lambda g, s: 0.0 if s == 0 else np.nan,
                               lambda g: 0.0, "fresh"),
    "nested_ols": CompareDesign(
        _nested_ols, lambda g, b: ols_risk(1 + b * b, g, 1) - ols_risk(1.0, g, 2),
        lambda g: np.sqrt(1 / (g - 4)), "fresh"),
}
