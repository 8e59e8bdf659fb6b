"""Tiny learners shared by tests (no scikit-learn needed)."""

from __future__ import annotations

import numpy as np


class MeanReg:
    """Predicts the training mean: θ(g) = σ²(1 + 1/g) under squared loss (closed form)."""

    def fit(self, X, y):
        self.m_ = float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.m_)

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self


def rare_pool_without_false_positives(n: int, seed: int = 0):
    """Scores, labels and predictions of a pool with 15 positives among ``n`` items: low
    Beta(1, 50) scores for the negatives, Uniform(0.3, 0.99) for the positives, predicted
    positive above 0.5 (no false positive; the positives below 0.5 are false negatives)."""
    rng = np.random.default_rng(seed)
    y = np.zeros(n, int)
    pos = rng.choice(n, 15, replace=False)
    y[pos] = 1
    s = rng.beta(1, 50, n)
    s[pos] = rng.uniform(0.3, 0.99, 15)
    return s, y, (s > 0.5).astype(int)
