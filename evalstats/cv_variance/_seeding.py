"""Seeding the learners' own randomness from ``rng`` (private engine of ``cv_variance``).

A scikit-learn estimator draws its own random numbers (a tree's feature order, an SGD
shuffle, a forest's bootstrap) from its ``random_state`` parameter; left at ``None`` it
uses numpy's global state, so two calls with the same ``rng`` gave different results.
Every ``random_state`` parameter the user left at ``None`` — the estimator's own and those
of nested estimators (``get_params(deep=True)``: a Pipeline's steps, a meta-estimator's
base) — is set, on each fit's clone, to an integer drawn from a generator spawned from the
draw's generator (an int in [0, 2³² − 1], as ``sklearn.utils.check_random_state``
accepts). Spawning does not advance the draw's own stream, so the learning sets are the
same as without seeding. A ``random_state`` the user set is never changed.

Before the draws, :func:`trial_fits` fits each learner twice on one learning set: a learner
that cannot fit the data (text in ``X`` for a learner that needs numbers) is refused there
with a clear error instead of failing inside the draw loop, and randomness that cannot be
seeded this way (a learner without ``random_state`` drawing from a global generator) shows
as different losses, warned once (:class:`ReproducibilityWarning`).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from .._validation import fail
from .._warnings import EvalstatsWarning

__all__ = ["ReproducibilityWarning", "unset_random_states", "FitSeeder", "seeded_clone",
           "trial_fits"]

_SEED_HIGH = 2 ** 32 - 1


class ReproducibilityWarning(EvalstatsWarning):
    """A learner draws random numbers that ``rng`` cannot seed: results differ per call."""


def unset_random_states(estimator: Any) -> tuple[str, ...]:
    """Names of the ``random_state`` parameters left at ``None`` (nested ones included)."""
    get = getattr(estimator, "get_params", None)
    if get is None:
        return ()
    try:
        params = get(deep=True)
    except TypeError:  # a duck-typed learner whose get_params takes no `deep`
        params = get()
    return tuple(sorted(k for k, v in params.items()
                        if (k == "random_state" or k.endswith("__random_state")) and v is None))


class FitSeeder:
    """Per-fit ``random_state`` values for the estimators of one task.

    ``seeder.params(k)`` returns the ``set_params`` dict for the next fit of estimator
    ``k`` (empty when it has nothing to seed), drawing from a generator spawned from the
    task's ``rng`` (the task's own stream is not advanced).
    """

    def __init__(self, estimators, rng: np.random.Generator):
        self.keys = [unset_random_states(e) for e in estimators]
        self._gen = rng.spawn(1)[0] if any(self.keys) else None

    def params(self, k: int) -> dict[str, int]:
        if not self.keys[k]:
            return {}
        seed = int(self._gen.integers(0, _SEED_HIGH, endpoint=True))
        return dict.fromkeys(self.keys[k], seed)


def seeded_clone(estimator: Any, params: dict[str, int], template: bool = False) -> Any:
    """A clone of ``estimator`` with ``params`` (random states) set.

    ``template=True``: ``estimator`` is already an unfitted clone, and a deep copy of it is
    the same new estimator as ``sklearn.base.clone`` builds (clone rebuilds it from
    ``get_params``, whose signature inspection costs ~0.1 ms a fit: most of the time of a
    fast learner's draws)."""
    if template:
        model = copy.deepcopy(estimator)
    else:
        from sklearn.base import clone

        model = clone(estimator)
    return model.set_params(**params) if params else model


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-12, atol=0.0,
                                                   equal_nan=True))


def trial_fits(estimators, names, args, size: int, notes, fit_predict) -> None:
    """Fit each learner twice (seeded alike) on one learning set of ``size`` rows.

    A failure is raised as a ``ValueError`` naming the learner and the error it gave; a
    different result the second time warns (:class:`ReproducibilityWarning`). The learning
    set is drawn from a fixed generator, not from the user's ``rng``.
    """
    n = len(args.y)
    if size <= 0 or size >= n:
        return
    order = np.random.default_rng(0).permutation(n)
    learn, test = order[:size], order[size:]
    for name, est in zip(names, estimators, strict=True):
        params = dict.fromkeys(unset_random_states(est), 0)
        try:
            first, second = (fit_predict(est, args.X, args.y, learn, test, args.loss, params)
                             for _ in range(2))
        except Exception as err:
            if isinstance(err, (ValueError, TypeError)) and str(err).startswith("`"):
                raise                       # evalstats' own message, naming the argument
            raise fail(name, f"a learner that can fit and predict rows of `X` (tried on a "
                       f"learning set of {size} rows)", got=f"{type(err).__name__}: {err}",
                       remedy="Check that `X` holds what the learner accepts: numbers, or a "
                       "DataFrame for a Pipeline that encodes text columns.") from err
        if not _same(first, second):
            notes.warn(ReproducibilityWarning,
                       f"`{name}` ({type(est).__name__}) gave different losses when fitted "
                       "twice on the same learning set: it draws random numbers that `rng` "
                       "cannot seed (no `random_state` parameter), so repeated calls with "
                       "the same `rng` give different results. Seed the learner yourself "
                       "or make it deterministic.")
