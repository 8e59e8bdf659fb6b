"""Score-matrix generators for the extrapolation benchmarks: development and fresh families.

The two families are fixed here, in code, before any method is run on the fresh one
(the protocol of ``DEVELOPERS.md``: develop on one family, decide on another).

Development family (``DEV``): the JMLR Gaussian 1-NN simulation of Zheng, Achanta &
Benjamini (class centres N(0, I_d), one training point and three test points per class,
x | y ~ N(mu_y, sigma^2 I_d), scores = minus the squared distance to each class's training
point) at d = 4, 10, 30 and several noise levels, k1 = 100.

Fresh family (``FRESH``), other class geometries and scorers, k1 = 100 unless stated:

* ``t3-centres-d6``: heavy-tailed class centres (multivariate t, 3 df), d = 6, sigma 0.5.
* ``spread-lognormal-d8``: unequal class spreads sigma_y = 0.5 exp(0.4 Z_y), d = 8.
* ``clustered-d10``: class centres in 10 clusters (centre N(0, I) + 0.5 N(0, I)),
  sigma 0.35.
* ``gauss-d2`` and ``gauss-d50``: other dimensions (sigma 0.05 and 1.3).
* ``centroid-5train-d10``: five training points per class, nearest-centroid score.
* ``nn-5train-laplace-d10``: five training points per class, Laplace noise, 1-NN.
* ``lda-nonmarginal-d10``: not marginal -- anisotropic noise, two training points per
  class, Mahalanobis nearest centroid with the pooled within-class covariance of the k
  classes' training points (adding classes changes every score).
* ``knn3-votes-d10``: not marginal, tied scores -- 3-NN vote counts among the training
  points of all k classes (three per class).
* real sets, truth = the unbiased average accuracy of the full set: Omniglot pixel 1-NN
  (gallery drawers 1-5; k1 = 12, 24, 60), Omniglot with one gallery drawer (k1 = 24),
  Omniglot nearest centroid on 30 principal components (k1 = 24), UCI letter 1-NN
  (k1 = 6).

Rule fixed in advance for the fresh family: a noise level may be changed only if the true
accuracy at k1 falls outside [0.15, 0.97] (a degenerate case), judged on the truths alone,
never on a method's error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

Draw = Callable[[int, np.random.Generator], tuple[np.ndarray, np.ndarray]]


def _sq_dist(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances, rows of ``a`` to rows of ``b``."""
    d2 = (a**2).sum(1)[:, None] + (b**2).sum(1)[None, :] - 2.0 * a @ b.T
    return np.maximum(d2, 0.0)


def _nn_scores(xte: np.ndarray, xtr: np.ndarray, n_train: int, chunk: int = 1000
               ) -> np.ndarray:
    """Minus the smallest squared distance to each class's ``n_train`` training points
    (``xtr`` sorted by class), in chunks of test points."""
    k = len(xtr) // n_train
    out = np.empty((len(xte), k))
    for lo in range(0, len(xte), chunk):
        d2 = _sq_dist(xte[lo:lo + chunk], xtr)
        out[lo:lo + chunk] = -d2.reshape(len(d2), k, n_train).min(axis=2)
    return out


@dataclass(frozen=True)
class Gaussian1NN:
    """Centres from ``centres(k, d, g)``, ``n_train`` training and ``n_test`` test points
    per class with noise ``noise(shape, g) * spread_y``; score = minus the distance to the
    nearest training point (``rule="nn"``) or to the class's mean (``"centroid"``)."""

    d: int
    sigma: float
    n_test: int = 3
    n_train: int = 1
    centres: str = "normal"          # normal | t3 | clustered
    spread_sd: float = 0.0           # log-normal spread of sigma_y across classes
    noise: str = "normal"            # normal | laplace
    rule: str = "nn"
    marginal: bool = True

    def _centres(self, k, g):
        z = g.standard_normal((k, self.d))
        if self.centres == "t3":
            return z / np.sqrt(g.chisquare(3, size=(k, 1)) / 3.0)
        if self.centres == "clustered":
            hubs = np.random.default_rng(12345).standard_normal((10, self.d))
            return hubs[g.integers(0, 10, k)] + 0.5 * z
        return z

    def _noise(self, shape, g):
        if self.noise == "laplace":
            return g.laplace(scale=1 / np.sqrt(2), size=shape)
        return g.standard_normal(shape)

    def __call__(self, k: int, g: np.random.Generator):
        mu = self._centres(k, g)
        sig = self.sigma * np.exp(self.spread_sd * g.standard_normal(k))
        own = np.repeat(np.arange(k), self.n_train)
        xtr = mu[own] + sig[own, None] * self._noise((k * self.n_train, self.d), g)
        y = np.repeat(np.arange(k), self.n_test)
        xte = mu[y] + sig[y, None] * self._noise((k * self.n_test, self.d), g)
        if self.rule == "centroid":
            cen = xtr.reshape(k, self.n_train, self.d).mean(axis=1)
            return -_sq_dist(xte, cen), y
        return _nn_scores(xte, xtr, self.n_train), y


@dataclass(frozen=True)
class LDANonMarginal:
    """Anisotropic noise (eigenvalues 0.1..3 on a fixed random basis), two training points
    per class; score = minus the Mahalanobis distance to the class centroid under the
    pooled within-class covariance of all k classes' training points (+ 0.01 I)."""

    d: int = 10
    scale: float = 0.55
    n_test: int = 3
    n_train: int = 2
    marginal: bool = False

    def __call__(self, k: int, g: np.random.Generator):
        basis = np.linalg.qr(np.random.default_rng(777).standard_normal((self.d, self.d)))[0]
        root = basis * np.sqrt(np.geomspace(0.1, 3.0, self.d))[None, :]
        mu = g.standard_normal((k, self.d))
        own = np.repeat(np.arange(k), self.n_train)
        xtr = mu[own] + self.scale * g.standard_normal((len(own), self.d)) @ root.T
        y = np.repeat(np.arange(k), self.n_test)
        xte = mu[y] + self.scale * g.standard_normal((len(y), self.d)) @ root.T
        cen = xtr.reshape(k, self.n_train, self.d).mean(axis=1)
        resid = xtr - cen[own]
        cov = resid.T @ resid / max(len(own) - k, 1) + 0.01 * np.eye(self.d)
        w = np.linalg.cholesky(np.linalg.inv(cov))
        return -_sq_dist(xte @ w, cen @ w), y


@dataclass(frozen=True)
class KNNVotes:
    """3-NN vote counts among the training points of all k classes (three per class): not
    marginal, and most scores are tied (0 votes)."""

    d: int = 10
    sigma: float = 0.5
    n_test: int = 3
    n_train: int = 3
    n_neighbours: int = 3
    marginal: bool = False

    def __call__(self, k: int, g: np.random.Generator):
        mu = g.standard_normal((k, self.d))
        own = np.repeat(np.arange(k), self.n_train)
        xtr = mu[own] + self.sigma * g.standard_normal((len(own), self.d))
        y = np.repeat(np.arange(k), self.n_test)
        xte = mu[y] + self.sigma * g.standard_normal((len(y), self.d))
        scores = np.zeros((len(y), k))
        for lo in range(0, len(y), 2000):
            d2 = _sq_dist(xte[lo:lo + 2000], xtr)
            nn = np.argpartition(d2, self.n_neighbours, axis=1)[:, :self.n_neighbours]
            rows = np.repeat(np.arange(len(nn)), self.n_neighbours) + lo
            np.add.at(scores, (rows, own[nn.ravel()]), 1.0)
        return scores, y


# -- settings -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Setting:
    """A benchmark case: draws a ``k1``-class problem per repetition (``draw``) or cuts
    ``k1`` random classes out of a fixed real score matrix (``full``)."""

    name: str
    k1: int
    ratios: tuple = (2, 4, 10, 20)
    draw: Draw | None = None
    full: tuple | None = None        # (scores, labels) of a real data set

    @property
    def ks(self) -> np.ndarray:
        kmax = self.full[0].shape[1] if self.full is not None else None
        ks = [r * self.k1 for r in self.ratios]
        return np.array([k for k in ks if kmax is None or k <= kmax])

    def problem(self, rep: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``rep``-th fitted problem (seeded by ``seed`` and ``rep``)."""
        g = np.random.default_rng([seed, rep])
        if self.draw is not None:
            return self.draw(self.k1, g)
        scores, y = self.full
        cls = np.sort(g.choice(scores.shape[1], self.k1, replace=False))
        rows = np.isin(y, cls)
        return scores[np.ix_(rows, cls)], np.searchsorted(cls, y[rows])


DEV_SIMS = {f"jmlr-d{d}-s{s:g}": Gaussian1NN(d, s) for d, s in
            [(10, 0.4), (10, 0.6), (10, 0.9), (4, 0.25), (30, 1.1), (30, 1.5)]}

FRESH_SIMS = {
    "t3-centres-d6": Gaussian1NN(6, 0.5, centres="t3"),
    "spread-lognormal-d8": Gaussian1NN(8, 0.5, spread_sd=0.4),
    "clustered-d10": Gaussian1NN(10, 0.35, centres="clustered"),
    "gauss-d2": Gaussian1NN(2, 0.05),
    "gauss-d50": Gaussian1NN(50, 1.3),
    "centroid-5train-d10": Gaussian1NN(10, 0.8, n_train=5, rule="centroid"),
    "nn-5train-laplace-d10": Gaussian1NN(10, 0.6, n_train=5, noise="laplace"),
    "lda-nonmarginal-d10": LDANonMarginal(),
    "knn3-votes-d10": KNNVotes(),
}


def sim_settings(family: dict, k1: int = 100) -> list[Setting]:
    return [Setting(name, k1, draw=draw) for name, draw in family.items()]


def truth_curve(draw, ks: np.ndarray, n_problems: int, seed: int) -> tuple[np.ndarray,
                                                                           np.ndarray]:
    """Expected accuracy at ``ks`` and its Monte-Carlo s.e.: for a marginal scorer the
    unbiased ATA_k of ``n_problems`` independent problems with ``max(ks)`` classes (one
    problem gives every k); otherwise (the scores change with the set of classes) the
    accuracy of ``n_problems`` problems with exactly ``k`` classes, for each k."""
    from evalstats.extrapolate import average_accuracy

    ks = np.asarray(ks)
    vals = np.empty((n_problems, len(ks)))
    for i in range(n_problems):
        g = np.random.default_rng([seed, 10_000 + i])
        if getattr(draw, "marginal", True):
            s, y = draw(int(ks.max()), g)
            vals[i] = average_accuracy(s, y, ks)
        else:
            for j, k in enumerate(ks):
                s, y = draw(int(k), g)
                vals[i, j] = average_accuracy(s, y, int(k))
    return vals.mean(axis=0), vals.std(axis=0, ddof=1) / np.sqrt(n_problems)


# -- real data sets -----------------------------------------------------------------------------
def omniglot_pca_centroid(data: dict, n_components: int = 30, gallery_drawers: int = 10):
    """Omniglot nearest centroid on principal components: components from the gallery
    images of all classes (a fixed embedding), centroid of each class's gallery drawers
    ``1..gallery_drawers``, queries the other drawers."""
    drawer = data["meta"]["drawer"].to_numpy()
    y = np.asarray(data["y"], int)
    X = np.asarray(data["X"], float)
    gal = drawer <= gallery_drawers
    mean = X[gal].mean(axis=0)
    _, _, vt = np.linalg.svd(X[gal] - mean, full_matrices=False)
    Z = (X - mean) @ vt[:n_components].T
    k = int(y.max()) + 1
    cen = np.stack([Z[gal & (y == c)].mean(axis=0) for c in range(k)])
    return -_sq_dist(Z[~gal], cen), y[~gal]


def letter_split(df, per_gallery: int, per_query: int, seed: int):
    """UCI letter features, letter codes and ``per_gallery`` gallery / ``per_query`` query
    row indices per letter (seeded)."""
    import pandas as pd

    X = df.drop(columns="letter").to_numpy(float)
    y_all = pd.Categorical(df["letter"]).codes.astype(int)
    g = np.random.default_rng(seed)
    gal, qry = [], []
    for c in range(26):
        idx = g.permutation(np.flatnonzero(y_all == c))
        gal.extend(idx[:per_gallery])
        qry.extend(idx[per_gallery:per_gallery + per_query])
    return X, y_all, np.array(gal), np.array(qry)


def letter_nn(df, per_gallery: int = 3, per_query: int = 30, seed: int = 8000):
    """UCI letter 1-NN: ``per_gallery`` random gallery rows and ``per_query`` query rows per
    letter (seeded)."""
    X, y_all, gal, qry = letter_split(df, per_gallery, per_query, seed)
    own = y_all[gal]
    order = np.argsort(own, kind="stable")
    scores = _nn_scores(X[qry], X[gal][order], per_gallery)
    return scores, y_all[qry]


def real_settings() -> list[Setting]:
    """Real score matrices (empty without the shared data sets)."""
    import evalstats as es
    from evalstats.extrapolate.scores import omniglot_scores

    if es.datasets.find_shared_datasets() is None:
        return []
    om = es.datasets.load("omniglot")
    om5 = omniglot_scores(om, gallery_drawers=5)
    om1 = omniglot_scores(om, gallery_drawers=1)
    pca = omniglot_pca_centroid(om)
    let = letter_nn(es.datasets.load("letter"))
    return [Setting("omniglot-nn5-k12", 12, full=om5), Setting("omniglot-nn5-k24", 24, full=om5),
            Setting("omniglot-nn5-k60", 60, full=om5), Setting("omniglot-nn1-k24", 24, full=om1),
            Setting("omniglot-pca-k24", 24, full=pca), Setting("letter-nn-k6", 6, full=let)]
