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
