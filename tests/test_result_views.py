"""The reader's view and the diagnostics view of ``summary()``; header repeats."""

from __future__ import annotations

import warnings

import pandas as pd
from test_result_contract import EXAMPLES

from evalstats._render.report import Report
from evalstats._result import EvalResult


def _active():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return EXAMPLES["ActiveEstimate"]()


def test_the_readers_view_leaves_out_the_checks_of_the_computation():
    res = _active()
    reader = res.summary().layout()
    cols = {c.lower() for t in reader.tables for c in t.columns}
    keys = {k.lower() for k in reader.header}
    assert not cols & {"defined", "zero width"}
    assert {"design", "interval"} <= keys          # facts a reader weighs: they stay
    full = res.summary(diagnostics=True).layout()
    cols = {c.lower() for t in full.tables for c in t.columns}
    assert "defined" in cols
    assert any(t.caption.endswith("Diagnostics") for t in full.appendix)


def test_a_warning_shows_in_both_views():
    res = EvalResult(estimate=float("nan"), std_error=None, term="precision",
                     notes=("[UndefinedEstimateWarning] no predicted positive",))
    for diagnostics in (False, True):
        text = res.summary(diagnostics=diagnostics).as_text()
        assert "UndefinedEstimateWarning: no predicted positive" in text
        assert "undefined" in text


def test_header_entries_repeating_one_number_are_said_once():
    rep = Report("t", header={"n (labels)": 300, "Distinct labels": 300, "Draws": 300,
                              "Pool size": 20000, "Confidence level": "95%"},
                 tables=(("T", pd.DataFrame({"term": ["a"], "estimate": [0.5]})),))
    assert rep.layout().header == {"n (labels) = Distinct labels = Draws": "300",
                                   "Pool size": "20,000", "Confidence level": "95%"}


def test_thousands_are_separated_alike_in_header_table_and_finding():
    res = EvalResult(estimate=0.5, std_error=0.01, term="error", n=1797,
                     n_unit="test cases")
    rep = res.summary()
    assert rep.layout().header["n (test cases)"] == "1,797"
    assert "from 1,797 test cases" in rep.finding
