"""Scale-out on a dask cluster gives the very same numbers as a serial run (issue 15, deliver 5).

Users pick the backend with ``joblib.parallel_config(backend="dask")`` (evalstats never
imports dask). Seeds are spawned per task, so a ``distributed.LocalCluster`` with two
workers must reproduce ``n_jobs=1`` bit for bit. In-process workers (``processes=False``)
keep the test fast (< 30 s) while still going through the dask scheduler and joblib's dask
backend. ``distributed`` is in the ``test`` extra (pyproject.toml), so this runs in CI.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
joblib = pytest.importorskip("joblib")
pytest.importorskip("sklearn")

from sklearn.naive_bayes import GaussianNB  # noqa: E402

from evalstats import datasets  # noqa: E402
from evalstats.cv_variance import compare_learners, cv_error_ci  # noqa: E402
from evalstats.extrapolate import extrapolate_accuracy  # noqa: E402


@pytest.fixture(scope="module")
def dask_backend():
    """A two-worker in-process LocalCluster; yields a context-manager factory."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        yield lambda: joblib.parallel_config(backend="dask")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(15)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] + rng.logistic(size=40) > 0).astype(int)
    return X, y




def test_cv_error_ci_bit_identical_on_dask(dask_backend, data):
    X, y = data
    kw = dict(train_size=8, n_draws=40, mc_tol=None, rng=7, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        serial = cv_error_ci(GaussianNB(), X, y, n_jobs=1, **kw)
        with dask_backend():
            dask = cv_error_ci(GaussianNB(), X, y, n_jobs=2, **kw)
    assert dask.estimate == serial.estimate
    assert dask.std_error == serial.std_error or (
        np.isnan(dask.std_error) and np.isnan(serial.std_error))
    assert dask.variance_estimate == serial.variance_estimate
    assert tuple(dask.conf_int()) == tuple(serial.conf_int())


def test_compare_learners_bit_identical_on_dask(dask_backend, data):
    from sklearn.dummy import DummyClassifier

    X, y = data
    kw = dict(train_size=8, n_draws=40, mc_tol=None, rng=8, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        serial = compare_learners(GaussianNB(), DummyClassifier(), X, y, n_jobs=1, **kw)
        with dask_backend():
            dask = compare_learners(GaussianNB(), DummyClassifier(), X, y, n_jobs=2, **kw)
    pd.testing.assert_frame_equal(dask.tidy(), serial.tidy(), check_exact=True)


def test_extrapolate_accuracy_bit_identical_on_dask(dask_backend):
    sim = datasets.load("sim_multiclass")
    kw = dict(rng=5, n_subsamples=10, k_target=[100, 400])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        serial = extrapolate_accuracy(sim.scores, sim.labels, n_jobs=1, **kw)
        with dask_backend():
            dask = extrapolate_accuracy(sim.scores, sim.labels, n_jobs=2, **kw)
    pd.testing.assert_frame_equal(dask.predict([100, 400]), serial.predict([100, 400]),
                                  check_exact=True)
    assert dask.estimate == serial.estimate


def test_dask_backend_really_runs_tasks(dask_backend):
    """Guard against a silent serial fallback: the cluster's workers run the tasks."""
    from evalstats._parallel import parallel_map

    with dask_backend():
        out = parallel_map(_worker_name, range(4), n_jobs=2)
    assert len(out) == 4 and all(name is not None for name in out)


def _worker_name(_):
    try:
        return distributed.get_worker().name
    except ValueError:  # not on a dask worker
        return None
