"""Private pieces of :func:`evalstats.budget.guided_sample`: retrieval of minority-class
examples with a surrogate classifier retrained in rounds (Valizadegan et al. 2012,
Section 4, second scheme; Section 5 uses a decision tree, 100 seeds, 5 per round)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._validation import check_binary_labels


def default_estimator(seed: int):
    """A decision tree, as in the paper's experiments (scikit-learn imported lazily)."""
    try:
        from sklearn.tree import DecisionTreeClassifier
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("guided sampling needs scikit-learn: pip install "
                          "'evalstats[ml]' (or scikit-learn).") from err
    return DecisionTreeClassifier(random_state=seed)


def ask(oracle: Callable | np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Labels of the pool items ``idx`` from an array of labels or a callable oracle."""
    if callable(oracle):
        raw = np.asarray(oracle(idx)).ravel()
        if raw.shape != idx.shape:
            raise ValueError(f"`oracle` must return {len(idx)} labels coded 0/1; got "
                             f"an array of shape {raw.shape}.")
        # the values as returned, checked as the array path's labels (astype(int) first
        # turned 0.7 into 0)
        return check_binary_labels(raw, "oracle")
    return np.asarray(oracle)[idx].astype(int)


def guided_order(x, oracle, n_pool: int, n_labels: int, n_seed: int, batch_size: int,
                 estimator, rng: np.random.Generator):
    """Indices in labeling order and their labels; the surrogate is refitted every round.

    Each round fits a fresh clone of ``estimator`` on all labels so far, predicts the
    unlabeled pool and labels ``batch_size`` examples drawn at random among those predicted
    positive; when too few are predicted positive, the batch is filled with the unlabeled
    examples of highest predicted positive probability (random ones if the surrogate
    cannot be fitted, e.g. while the labels hold a single class).
    """
    from sklearn.base import clone

    order = list(rng.choice(n_pool, size=n_seed, replace=False))
    labels = list(ask(oracle, np.asarray(order)))
    labeled = np.zeros(n_pool, bool)
    labeled[order] = True
    n_rounds = 0
    while len(order) < n_labels:
        b = min(batch_size, n_labels - len(order))
        free = np.flatnonzero(~labeled)
        if len(set(labels)) < 2:
            pick = rng.choice(free, size=b, replace=False)
        else:
            model = clone(estimator).fit(x[np.asarray(order)], np.asarray(labels))
            n_rounds += 1
            proba = model.predict_proba(x[free])[:, list(model.classes_).index(1)]
            cand = free[proba > 0.5]
            if len(cand) >= b:
                pick = rng.choice(cand, size=b, replace=False)
            else:
                rest = free[proba <= 0.5]
                top = rest[np.argsort(-proba[proba <= 0.5], kind="stable")[:b - len(cand)]]
                pick = np.concatenate([cand, top])
        new = ask(oracle, pick)
        order.extend(int(i) for i in pick)
        labels.extend(int(v) for v in new)
        labeled[pick] = True
    return np.asarray(order, np.int64), np.asarray(labels, int), n_rounds


def random_order(oracle, n_pool: int, n_labels: int, rng: np.random.Generator):
    """Uniformly random labels (the paper's baseline)."""
    order = rng.choice(n_pool, size=n_labels, replace=False).astype(np.int64)
    return order, ask(oracle, order), 0
