"""The result/report contract shared by every result class."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import evalstats as es
from evalstats._result import TIDY_COLUMNS, EvalResult


def _results():
    y = np.array([0, 1, 1, 0, 1, 1, 0, 0, 1, 1])
    p = np.array([0, 1, 0, 0, 1, 1, 1, 0, 1, 1])
    return [es.error_ci(y, p), es.loss_ci([0.1, 0.4, 0.35, 0.8, 0.2]),
            EvalResult(estimate=0.5, std_error=0.1, method="toy", term="theta", n=30)]


@pytest.mark.parametrize("res", _results(), ids=lambda r: type(r).__name__)
class TestContract:
    def test_tidy_columns(self, res):
        td = res.tidy()
        assert tuple(td.columns[: len(TIDY_COLUMNS)]) == TIDY_COLUMNS
        assert len(td) >= 1
        assert (td["confidence_level"] == res.confidence_level).all()

    def test_glance_one_row(self, res):
        assert len(res.glance()) == 1

    def test_conf_int_named_tuple_and_levels_nest(self, res):
        ci95 = res.conf_int()
        assert ci95._fields == ("low", "high")
        ci80, ci99 = res.conf_int(0.80), res.conf_int(confidence_level=0.99)
        assert ci99.low <= ci95.low <= ci80.low <= res.estimate
        assert res.estimate <= ci80.high <= ci95.high <= ci99.high
        assert res.tidy(0.8)["conf_low"].iloc[0] == pytest.approx(ci80.low)

    def test_repr_one_line(self, res):
        text = repr(res)
        assert "\n" not in text and text.startswith(f"<{type(res).__name__} ")
        assert "95%" in text

    def test_summary_all_formats(self, res):
        rep = res.summary()
        assert isinstance(rep, es.Report)
        text, html, latex, md = (rep.as_text(), rep.as_html(), rep.as_latex(),
                                 rep.as_markdown())
        for out in (text, html, md):
            assert res.term in out
        assert res.term.replace("_", "\\_") in latex
        assert "<table" in html and "\\begin{tabular}" in latex and "|---" in md
        assert str(rep) == text and rep._repr_html_() == html
        assert rep.render("markdown") == md

    def test_plot_returns_axes(self, res):
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots()
        assert res.plot(ax=ax) is ax
        assert res.plot() is not None

    def test_immutable(self, res):
        with pytest.raises(dataclasses.FrozenInstanceError):
            res.estimate = 0.0  # type: ignore[misc]


def test_notes_numbered_in_every_format():
    res = EvalResult(estimate=1.0, std_error=0.0, method="toy",
                     notes=("[SmallSampleWarning] tiny sample", "plain note"))
    rep = res.summary()
    assert "[1] SmallSampleWarning: tiny sample" in rep.as_text()
    assert "[2] plain note" in rep.as_text()
    assert '<span class="note-kind">SmallSampleWarning:</span> tiny sample' in rep.as_html()
    assert "<li>plain note</li>" in rep.as_html()
    # a bracketed category must not become the \item label (it hung in the margin)
    assert "\\item{} \\textbf{SmallSampleWarning:} tiny sample" in rep.as_latex()
    assert "\\item{} plain note" in rep.as_latex()
    assert "1. **SmallSampleWarning:** tiny sample" in rep.as_markdown()
    assert "2. plain note" in rep.as_markdown()
    assert repr(res).endswith("!>")  # a warning is visibly marked


def test_wald_interval_closed_form():
    # estimate +- z_{0.975} * se, z = 1.959963984540054 (R: qnorm(0.975))
    res = EvalResult(estimate=0.5, std_error=0.1, method="toy")
    lo, hi = res.conf_int()
    assert lo == pytest.approx(0.5 - 0.1959963984540054, rel=1e-12)
    assert hi == pytest.approx(0.5 + 0.1959963984540054, rel=1e-12)
    # t with 4 df: qt(0.975, 4) = 2.776445105197793
    res_t = EvalResult(estimate=0.0, std_error=1.0, df=4, method="toy")
    assert res_t.conf_int().high == pytest.approx(2.776445105197793, rel=1e-12)


def test_mutable_containers_are_frozen():
    res = EvalResult(estimate=1.0, std_error=0.1, method="toy", diagnostics={"a": 1},
                     call={"function": "toy", "x": 2})
    with pytest.raises(TypeError):
        res.diagnostics["a"] = 2  # type: ignore[index]
    assert "toy(x=2)" in res.summary().as_text()


def test_report_document_html_and_md(tmp_path):
    results = _results()[:2]
    doc = es.report(results, title="My evaluation")
    html_path = doc.save(tmp_path / "r.html")
    html = html_path.read_text()
    assert html.startswith("<!DOCTYPE html>") and "My evaluation" in html
    assert html.count("data:image/png;base64,") == 2
    md = doc.save(tmp_path / "r.md").read_text()
    assert "![" in md and (tmp_path / "r_files" / "figure_1.png").exists()
    assert "Error rate" in doc.as_text()
    with pytest.raises(ValueError, match="`path` must end in"):
        doc.save(tmp_path / "r.docx")
    with pytest.raises(TypeError, match="`results` must contain"):
        es.report([object()])


def test_report_single_and_plain_save(tmp_path):
    res = _results()[0]
    rep = res.summary()
    tex = rep.save(tmp_path / "a.tex").read_text()
    assert tex.startswith("\\subsection{") and "\\begin{table}" in tex
    assert "Estimates" not in rep.save(tmp_path / "a.txt").read_text()[:5]
    assert "<h1>" in es.report(res).as_html()
    assert isinstance(rep.to_frame(), pd.DataFrame)


@given(st.integers(0, 40), st.integers(1, 40), st.floats(0.5, 0.99), st.floats(0.5, 0.99))
def test_error_ci_intervals_nest(k, extra, l1, l2):
    n = k + extra
    y = np.zeros(n, int)
    pred = np.r_[np.ones(k, int), np.zeros(extra, int)]
    res = es.error_ci(y, pred)
    a, b = sorted((l1, l2))
    lo_a, hi_a = res.conf_int(a)
    lo_b, hi_b = res.conf_int(b)
    assert lo_b <= lo_a + 1e-12 and hi_a <= hi_b + 1e-12
    assert lo_b <= res.estimate <= hi_b


def test_generics_delegate():
    res = _results()[0]
    assert es.confint(res, 0.9) == res.conf_int(0.9)
    assert es.tidy(res).equals(res.tidy())
    assert len(es.glance(res)) == 1
    assert es.summary(res).as_text() == res.summary().as_text()
    with pytest.raises(TypeError, match="`obj` must be an evalstats result"):
        es.tidy(42)


def test_report_with_notes_only_renders_everywhere():
    rep = es.Report(title="Skipped section", notes=("nothing to show",))
    assert rep.as_text().startswith("Skipped section\n===")
    assert "nothing to show" in rep.as_html() and "nothing to show" in rep.as_markdown()
    assert rep.as_latex().startswith("\\subsection{Skipped section}")


def test_pickle_deepcopy_and_frozen_mappings():
    import copy
    import pickle

    from evalstats._result import FrozenDict

    res = EvalResult(estimate=0.5, std_error=0.1, term="theta", n=30, name="Toy",
                     call={"rng": 3, "k_target": [2, 5]}, diagnostics={"ess": 12.5})
    assert isinstance(res.call, FrozenDict) and isinstance(res.diagnostics, FrozenDict)
    with pytest.raises(TypeError, match="read-only"):
        res.diagnostics["ess"] = 1
    for back in (pickle.loads(pickle.dumps(res)), copy.deepcopy(res), copy.copy(res)):
        assert repr(back) == repr(res) and back.name == "Toy"
        assert dict(back.call) == {"rng": 3, "k_target": [2, 5]}
        assert isinstance(back.diagnostics, FrozenDict)
        assert back.summary().as_text() == res.summary().as_text()
    deep = copy.deepcopy(res)
    assert deep.call["k_target"] is not res.call["k_target"]
    named = pickle.loads(pickle.dumps(res.with_name("Renamed")))
    assert named.name == "Renamed" and res.name == "Toy"
    with pytest.raises(TypeError, match="`name`"):
        res.with_name(3)


def test_conf_int_frame_every_term():
    """statsmodels-style intervals of every term; conf_int() keeps the main term's tuple."""
    design = es.LabelDesign.simple(100, 8)
    rules = np.random.default_rng(0).integers(0, 2, size=(8, 2))
    res = es.evaluate_rules(np.array([1, 0, 1, 0, 0, 1, 0, 0]), rules, design)
    frame = res.conf_int_frame(0.9)
    td = res.tidy(0.9)
    assert list(frame.columns) == ["conf_low", "conf_high"] and frame.index.name == "term"
    assert frame.index.tolist() == td["term"].tolist() and len(frame) > 1
    np.testing.assert_allclose(frame["conf_low"], td["conf_low"])
    np.testing.assert_allclose(frame["conf_high"], td["conf_high"])
    assert tuple(frame.iloc[0]) == tuple(res.conf_int(0.9))
    assert es.confint(res, 0.9, frame=True).equals(frame)
    single = _results()[0]
    assert tuple(single.conf_int_frame().iloc[0]) == tuple(single.conf_int())


def test_notebook_html_is_the_report():
    res = _results()[0]
    assert res._repr_html_() == res.summary().as_html()
