"""The recorded call (R's ``match.call``) and where warnings point.

The Call line of a report must be typed again to rerun the analysis: it lists only the
function's own parameters, every argument that was passed, and the seed drawn when
``rng=None``. A warning raised inside evalstats must point at the user's line (the
filename of this test file), not at a line of the package.
"""

from __future__ import annotations

import inspect
import re
import warnings

import numpy as np
import pytest
from test_result_contract import EXAMPLES

import evalstats as es
from evalstats._naming import ArgumentSummary
from evalstats._result import CallRecord


def _call_args(call_line: str) -> list[str]:
    inner = call_line[call_line.index("(") + 1: -1]
    return re.findall(r"(?:^|, )([a-z_][a-z0-9_]*)=", inner)


def test_every_argument_passed_is_in_the_call():
    y = [0, 1, 1, 0, 1, 1, 0, 0, 1, 1]
    res = es.error_ci(y, y[::-1], null=0.05, name="Test error")
    assert isinstance(res.call, CallRecord)
    line = res.summary().header["Call"]
    assert line == ("error_ci(y_true=<10 values>, y_pred=<10 values>, method='exact', "
                    "confidence_level=0.95, null=0.05, name='Test error')")
    assert res.call["null"] == 0.05 and res.call["y_true"] == y    # short lists are kept


def test_large_arguments_are_described_not_stored():
    x = np.linspace(0, 1, 500)
    res = es.loss_ci(x)
    assert res.call["losses"] == ArgumentSummary("<500 values>")
    assert res.summary().header["Call"] == "loss_ci(losses=<500 values>, confidence_level=0.95)"


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_call_lines_name_only_parameters_that_exist(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = EXAMPLES[name]()
    call = res.call
    if not isinstance(call, CallRecord):
        pytest.skip("not made by a public function")
    func = getattr(es, call["function"])
    params = set(inspect.signature(func).parameters)
    shown = _call_args(res.summary(max_rows=None).header.get("Call", "f()"))
    assert set(shown) <= params, set(shown) - params


def test_a_drawn_seed_is_recorded_and_reruns():
    sim = es.datasets.load("sim_multiclass")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = es.extrapolate_accuracy(sim.scores[:150, :40], sim.labels[:150] % 40,
                                    k_target=[80], n_subsamples=4)
        b = es.extrapolate_accuracy(sim.scores[:150, :40], sim.labels[:150] % 40,
                                    k_target=[80], n_subsamples=4, rng=a.call["rng"])
    assert isinstance(a.call["rng"], int) and a.estimate == b.estimate
    assert f"rng={a.call['rng']}" in a.summary().header["Call"]


def test_warnings_point_at_the_users_line():
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        es.loss_ci([1.0, 1.0, 1.0])                       # Notes.warn inside evalstats
        es.error_ci([0, 1, 1, 0], [0, 1, 0, 0], method="normal")
    assert [w.category for w in rec] == [es.SmallSampleWarning] * 2
    assert {w.filename for w in rec} == {__file__}


def test_warnings_raised_with_a_fixed_stacklevel_are_moved_to_the_users_line():
    pool = es.datasets.load("sim_pool")
    truth = pool["label"].to_numpy()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        es.active_evaluate(pool["prob"], lambda i: truth[i], budget=100, rng=0)
    future = [w for w in rec if issubclass(w.category, FutureWarning)]
    assert future and all(w.filename == __file__ for w in future)


def test_warnings_respect_the_users_filters():
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=es.SmallSampleWarning)
        es.loss_ci([1.0, 1.0, 1.0])
    assert not rec
    with warnings.catch_warnings():
        warnings.simplefilter("error", es.SmallSampleWarning)
        with pytest.raises(es.SmallSampleWarning):
            es.loss_ci([1.0, 1.0, 1.0])
