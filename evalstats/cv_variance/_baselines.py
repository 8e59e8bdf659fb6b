"""Baseline resampling intervals users know (private; used by ``cv_variance``).

* ``naive_t`` — J random splits with learning sets of size g; t interval over the J
  held-out means, as if they were independent (the talk's "Method 1"; anti-conservative
  because the splits overlap).
* ``corrected_t`` — Nadeau & Bengio (2003) corrected resampled t on the same splits:
  variance (1/J + n_test/n_train)·s².
* ``5x2cv`` — Dietterich (1998): five replications of 2-fold CV, t = p₁⁽¹⁾/√(mean s_i²)
  with 5 degrees of freedom. Its learning sets have n/2 points, whatever ``train_size``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._parallel import map_replicates
from ._draws import fit_predict, single_threaded

__all__ = ["BASELINES", "baseline_scores", "baseline_interval"]

BASELINES = ("naive_t", "corrected_t", "5x2cv")


def _score(values) -> float:
    """Held-out mean loss, or the AUC (mean of the pos x neg kernel matrix)."""
    v = np.asarray(values, float)
    return float(v.mean()) if v.size else float("nan")


class _SplitTask:
    """Scores of every learner for one random split (picklable)."""

    def __init__(self, estimators, X, y, train_size, loss, two_fold):
        self.estimators, self.X, self.y = list(estimators), X, y
        self.train_size, self.loss, self.two_fold = train_size, loss, two_fold

    def __call__(self, i: int, rng: np.random.Generator) -> np.ndarray:
        n = len(self.y)
        perm = rng.permutation(n)
        if self.two_fold:
            h = n // 2
            parts = [(perm[:h], perm[h:]), (perm[h:], perm[:h])]
        else:
            parts = [(perm[:self.train_size], perm[self.train_size:])]
        with single_threaded():
            return np.array([[_score(fit_predict(est, self.X, self.y, tr, te, self.loss))
                              for est in self.estimators] for tr, te in parts])


def baseline_scores(method: str, estimators: Sequence[Any], X, y, train_size: int,
                    loss: str | Callable, n_splits: int, rng, n_jobs, progress) -> np.ndarray:
    """Scores of shape (splits, folds, learners): folds = 1, or 2 for ``5x2cv``."""
    two_fold = method == "5x2cv"
    n_tasks = 5 if two_fold else n_splits
    task = _SplitTask(estimators, X, y, train_size, loss, two_fold)
    out = map_replicates(task, n_tasks, rng=rng, n_jobs=n_jobs, progress=progress,
                         desc=f"cv {method}")
    return np.stack(out)


def baseline_interval(method: str, scores: np.ndarray, n: int,
                      train_size: int) -> tuple[float, float, float]:
    """(estimate, std_error, df) of one learner's (or a difference's) split scores.

    ``scores`` has shape (splits, folds). Nadeau–Bengio: se² = (1/J + n₂/n₁)·s²;
    Dietterich: estimate p₁⁽¹⁾, se² = mean over replications of
    s_i² = (p_i⁽¹⁾ − p̄_i)² + (p_i⁽²⁾ − p̄_i)², df = 5.
    """
    if method == "5x2cv":
        pbar = scores.mean(axis=1, keepdims=True)
        s2 = ((scores - pbar) ** 2).sum(axis=1)
        return float(scores[0, 0]), float(np.sqrt(s2.mean())), 5.0
    mu = scores[:, 0]
    J = mu.size
    s2 = mu.var(ddof=1)
    factor = 1.0 / J if method == "naive_t" else 1.0 / J + (n - train_size) / train_size
    return float(mu.mean()), float(np.sqrt(factor * s2)), float(J - 1)
