"""Shared test configuration: deterministic hypothesis, quiet progress bars, data helpers."""

from __future__ import annotations

import os

import matplotlib
import numpy as np
import pytest
from hypothesis import settings

os.environ.setdefault("TQDM_DISABLE", "1")
os.environ.setdefault("EVALSTATS_VIGNETTE_FAST", "1")
matplotlib.use("Agg")

settings.register_profile("deterministic", derandomize=True, database=None, deadline=None,
                          max_examples=60)
settings.register_profile("nightly", deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


@pytest.fixture
def rng():
    return np.random.default_rng(20261121)


@pytest.fixture(scope="session")
def shared_datasets():
    """Path of ``../shared/datasets``; skips the test cleanly when it is absent."""
    from evalstats.datasets import find_shared_datasets

    path = find_shared_datasets()
    if path is None:
        pytest.skip("shared datasets folder not found (set EVALSTATS_DATA to run this test)")
    return path


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/*.txt from the current summaries")


@pytest.fixture
def update_golden(request):
    return request.config.getoption("--update-golden")
