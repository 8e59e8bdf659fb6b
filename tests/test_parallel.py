"""Parallel map: bit-identical results for any n_jobs and backend."""

from __future__ import annotations

import io

import numpy as np
import pytest

from evalstats._parallel import map_replicates, parallel_map, spawn_generators
from evalstats._progress import progress_bar


def _draw(i, g):
    return i, g.standard_normal(5)


def test_same_results_any_n_jobs():
    serial = map_replicates(_draw, 8, rng=123, n_jobs=1)
    two = map_replicates(_draw, 8, rng=123, n_jobs=2)
    assert [i for i, _ in two] == list(range(8))
    for (_, a), (_, b) in zip(serial, two, strict=True):
        np.testing.assert_array_equal(a, b)


def test_same_results_threading_backend():
    joblib = pytest.importorskip("joblib")
    serial = map_replicates(_draw, 6, rng=np.random.default_rng(9), n_jobs=None)
    with joblib.parallel_config(backend="threading"):
        threaded = map_replicates(_draw, 6, rng=np.random.default_rng(9), n_jobs=2)
    for (_, a), (_, b) in zip(serial, threaded, strict=True):
        np.testing.assert_array_equal(a, b)


def test_streams_are_independent_and_seeded():
    g1 = spawn_generators(7, 3)
    g2 = spawn_generators(7, 3)
    x1 = [g.random() for g in g1]
    assert x1 == [g.random() for g in g2]
    assert len(set(x1)) == 3


def test_parallel_map_order_and_bad_n_jobs():
    assert parallel_map(lambda x: x * x, range(5)) == [0, 1, 4, 9, 16]
    with pytest.raises(ValueError, match="`n_jobs` must be None, a positive int"):
        parallel_map(abs, [1], n_jobs=0)


def test_progress_bar_forced_and_silent(capsys):
    with progress_bar(3, progress=False) as bar:
        bar.update(1)
    with progress_bar(3, progress=True, desc="x") as bar:
        bar.update(3)


def test_one_bar_across_batches(monkeypatch):
    """Batches inside an enclosing bar count on it; its total grows to the real task count."""
    pytest.importorskip("tqdm")
    import tqdm.auto

    made = []
    real = tqdm.auto.tqdm

    def spy(*args, **kwargs):
        bar = real(*args, **kwargs)
        made.append(bar)
        return bar

    monkeypatch.setattr(tqdm.auto, "tqdm", spy)
    with progress_bar(4, progress=True, desc="draws") as bar:
        first = map_replicates(_draw, 4, rng=1)
        bar.note("stopping rule: doubling to 8 tasks")
        second = map_replicates(_draw, 4, rng=2)
        assert bar.n == 8 and bar.total == 8
    assert len(made) == 1 and made[0].total == 8 and made[0].n == 8
    assert len(first) == len(second) == 4


def test_auto_bar_appears_when_a_run_becomes_long(monkeypatch):
    pytest.importorskip("tqdm")
    import tqdm.auto

    import evalstats._progress as progress_mod
    from evalstats._progress import LONG_LOOP

    made = []
    real = tqdm.auto.tqdm
    monkeypatch.setattr(tqdm.auto, "tqdm", lambda *a, **k: made.append(k) or real(*a, **k))
    monkeypatch.setattr(progress_mod, "_watched", lambda: True)     # as in a terminal
    with progress_bar(10) as bar:
        parallel_map(abs, range(10))
        assert not made
        parallel_map(abs, range(LONG_LOOP))
        assert bar.total == bar.n == LONG_LOOP + 10
    assert len(made) == 1 and made[0]["initial"] == 10
    with progress_bar(5, progress=False) as bar:
        parallel_map(abs, range(LONG_LOOP + 1))
        assert bar.total == bar.n == LONG_LOOP + 1


def test_auto_bar_stays_silent_when_nobody_watches(monkeypatch):
    """``progress=None`` with standard error redirected (a log file, a pipe) and no Jupyter
    kernel: no bar, however long the loop; ``progress=True`` still forces one."""
    pytest.importorskip("tqdm")
    import tqdm.auto

    import evalstats._progress as progress_mod
    from evalstats._progress import LONG_LOOP

    made = []
    real = tqdm.auto.tqdm
    monkeypatch.setattr(tqdm.auto, "tqdm", lambda *a, **k: made.append(k) or real(*a, **k))
    monkeypatch.setattr(progress_mod.sys, "stderr", io.StringIO())
    monkeypatch.delitem(progress_mod.sys.modules, "ipykernel", raising=False)
    assert not progress_mod._watched()
    with progress_bar(LONG_LOOP + 5) as bar:
        parallel_map(abs, range(LONG_LOOP + 5))
        assert bar.n == LONG_LOOP + 5
    assert not made
    with progress_bar(3, progress=True) as bar:
        bar.update(3)
    assert len(made) == 1
