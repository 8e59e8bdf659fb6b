"""One parallel map for every expensive loop (replicates, CV draws, class subsamples).

Seeds are spawned per *task* from the caller's generator, so results are
bit-identical for any ``n_jobs`` and any joblib backend. evalstats never picks
a backend: users choose one with joblib's context manager, e.g.

>>> import joblib                                           # doctest: +SKIP
>>> with joblib.parallel_config(backend="dask"):            # doctest: +SKIP
...     res = evalstats.cv_error_ci(model, X, y, train_size=20, n_jobs=-1)

When joblib is not installed the map runs serially.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import numpy as np

from ._progress import progress_bar
from ._validation import check_int, check_rng, fail, rng_alias

T = TypeVar("T")

__all__ = ["parallel_map", "map_replicates", "spawn_generators", "joblib_available"]


def joblib_available() -> bool:
    return importlib.util.find_spec("joblib") is not None


def _check_n_jobs(n_jobs: Any) -> int | None:
    if n_jobs is None:
        return None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int | np.integer) or n_jobs == 0:
        raise fail("n_jobs", "None, a positive int or a negative int (-1 = all cores)",
                   value=n_jobs)
    return int(n_jobs)


def _check_task_count(n: Any) -> int:
    """A number of tasks: an integer >= 0 that a list can hold."""
    n = check_int(n, "n", 0)
    if n > sys.maxsize:
        raise fail("n", "a number of tasks a list can hold (at most sys.maxsize)", value=n)
    return n


def _check_callable(fn: Any) -> Callable[..., Any]:
    if not callable(fn):
        raise fail("fn", "a callable", got=f"an object of type {type(fn).__name__}",
                   exc=TypeError)
    return fn


def _check_progress(progress: Any, desc: Any) -> None:
    if progress is not None and not isinstance(progress, bool | np.bool_):
        raise fail("progress", "None, True or False", value=progress, exc=TypeError)
    if desc is not None and not isinstance(desc, str):
        raise fail("desc", "None or a str", got=f"an object of type {type(desc).__name__}",
                   exc=TypeError)


def spawn_generators(rng: None | int | np.random.Generator, n: int) -> list[np.random.Generator]:
    """``n`` independent generators spawned from ``rng`` (reproducible for a seeded ``rng``)."""
    n = _check_task_count(n)
    return check_rng(rng).spawn(n)


def parallel_map(fn: Callable[..., T], items: Sequence[Any] | Iterable[Any], *,
                 n_jobs: int | None = None, progress: bool | None = None,
                 desc: str | None = None) -> list[T]:
    """``[fn(item) for item in items]``, in parallel through joblib when ``n_jobs`` asks.

    Order of the output follows the input whatever the backend. Inside an enclosing
    :func:`~evalstats._progress.progress_bar` the tasks count on that bar (one bar over
    all batches) instead of a new one.
    """
    _check_callable(fn)
    _check_progress(progress, desc)
    if isinstance(items, str | bytes) or not isinstance(items, Iterable):
        raise fail("items", "an iterable of tasks (a list, a range, ...)",
                   got=f"an object of type {type(items).__name__}", exc=TypeError)
    items = list(items)
    n_jobs = _check_n_jobs(n_jobs)
    out: list[T] = []
    with progress_bar(len(items), progress=progress, desc=desc) as bar:
        if n_jobs in (None, 1) or not joblib_available() or len(items) <= 1:
            for item in items:
                out.append(fn(item))
                bar.update(1)
            return out
        from joblib import Parallel, delayed

        gen = Parallel(n_jobs=n_jobs, return_as="generator")(delayed(fn)(it) for it in items)
        for res in gen:
            out.append(res)
            bar.update(1)
    return out


@rng_alias
def map_replicates(fn: Callable[[int, np.random.Generator], T], n: int, *,
                   rng: None | int | np.random.Generator = None, n_jobs: int | None = None,
                   progress: bool | None = None, desc: str | None = None) -> list[T]:
    """Run ``fn(i, generator_i)`` for ``i = 0..n-1`` with independent spawned generators.

    Parameters
    ----------
    fn : callable
        ``fn(index, rng) -> result``; must be picklable for process backends.
    n : int
        Number of tasks (batch several replicates into one task for cheap work).
    rng : None, int or Generator
        Parent generator; child seeds are spawned from it, one per task.
    n_jobs : int, optional
        joblib ``n_jobs``; ``None`` or 1 runs serially.
    progress : bool, optional
        Progress-bar policy (see :func:`evalstats._progress.progress_bar`); inside an
        enclosing ``progress_bar`` (a batched loop) the tasks count on that one bar.

    Returns
    -------
    list
        Results in task order; identical for every ``n_jobs`` and backend.

    Raises
    ------
    TypeError, ValueError
        A ``fn`` that is not callable, ``n`` that is not an integer >= 0, a bad ``n_jobs``,
        ``progress`` or ``desc``; each message names the argument.
    """
    _check_callable(fn)
    _check_progress(progress, desc)
    n = _check_task_count(n)
    _check_n_jobs(n_jobs)
    gens = spawn_generators(rng, n)
    return parallel_map(_Call(fn), list(enumerate(gens)), n_jobs=n_jobs, progress=progress,
                        desc=desc)


class _Call:
    """Picklable adapter ``(i, g) -> fn(i, g)``."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, item):
        i, g = item
        return self.fn(i, g)
