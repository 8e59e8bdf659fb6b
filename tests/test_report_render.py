"""Every result class renders correctly: LaTeX compiles, HTML parses and shows every value,
Markdown tables are aligned; tables are publication-grade; documents have a title block,
contents, findings and unique section titles.

The LaTeX tests run pdflatex when it is installed (``apt-get install texlive-latex-base
texlive-latex-recommended``) and skip cleanly otherwise.
"""

from __future__ import annotations

import shutil
import subprocess
import warnings
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from test_result_contract import EXAMPLES

import evalstats as es
from evalstats._render.document import Document
from evalstats._render.escape import latex_escape, md_escape
from evalstats._render.format import format_column
from evalstats._render.report import LATEX_PREAMBLE, Report
from evalstats._render.words import call_text as _call_text
from evalstats._render.words import finding_sentence
from evalstats._result import RESULT_CLASSES, EvalResult

PDFLATEX = shutil.which("pdflatex")
needs_pdflatex = pytest.mark.skipif(PDFLATEX is None, reason="pdflatex is not installed")


def _example(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return EXAMPLES[name]()


def _compile(tmp_path, body: str, name: str = "doc") -> None:
    tex = tmp_path / f"{name}.tex"
    tex.write_text(body, encoding="utf-8")
    proc = subprocess.run([PDFLATEX, "-interaction=nonstopmode", "-halt-on-error",
                           "-no-shell-escape", tex.name], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    log = proc.stdout[-3000:]
    assert proc.returncode == 0, f"pdflatex failed for {name}:\n{log}"
    assert (tmp_path / f"{name}.pdf").exists()


class _Text(HTMLParser):
    """Collects the visible text and checks that every opened tag is closed in order."""

    VOID = {"meta", "img", "br", "hr", "link", "input"}

    def __init__(self):
        super().__init__()
        self.text: list[str] = []
        self.stack: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def _parse(html: str) -> tuple[str, list[str]]:
    p = _Text()
    p.feed(html)
    p.close()
    return " ".join(" ".join(p.text).split()), p.errors + [f"unclosed {t}" for t in p.stack]


def _squash(s: str) -> str:
    return " ".join(str(s).split())


# -- every registered class ---------------------------------------------------------------------
def test_examples_cover_every_class():
    import evalstats.active  # noqa: F401
    import evalstats.budget  # noqa: F401
    import evalstats.cv_variance  # noqa: F401
    import evalstats.extrapolate  # noqa: F401

    assert set(RESULT_CLASSES) <= set(EXAMPLES)


@pytest.fixture(scope="module", params=sorted(EXAMPLES))
def summary(request):
    return _example(request.param).summary()


def test_html_parses_and_shows_every_value(summary):
    text, errors = _parse(summary.as_html())
    assert not errors, errors
    lay = summary.layout()
    assert _squash(summary.title) in text
    for key, value in lay.header.items():
        assert _squash(key) in text and _squash(value) in text, (key, value)
    for table in lay.tables + lay.appendix:
        for row in table.rows:
            for cell in row:
                assert _squash(cell) in text, cell
    if summary.finding:
        assert _squash(summary.finding) in text


def test_markdown_tables_are_aligned(summary):
    md = summary.as_markdown()
    for block in md.split("\n\n"):
        lines = [ln for ln in block.splitlines() if ln.startswith("|")]
        if not lines:
            continue
        widths = {ln.replace("\\|", "").count("|") for ln in lines}
        assert len(widths) == 1, block
        assert set(lines[1].replace("|", "")) <= set("-:"), lines[1]


def test_text_has_no_numpy_reprs(summary):
    for out in (summary.as_text(), summary.as_html(), summary.as_markdown()):
        assert "np.float64" not in out and "np.int64" not in out


@needs_pdflatex
def test_latex_of_every_class_compiles(summary, tmp_path):
    body = (LATEX_PREAMBLE + "\\begin{document}\n" + summary.as_latex()
            + "\n\\end{document}\n")
    _compile(tmp_path, body, "fragment")


@needs_pdflatex
def test_whole_document_with_figures_compiles(tmp_path):
    results = [_example(n) for n in ("ErrorRateResult", "AUCResult", "EvalResult",
                                     "AccuracyExtrapolation")]
    doc = es.report(results, title="All & everything: 100% of θ_1")
    doc.save(tmp_path / "doc.tex")
    assert (tmp_path / "doc_files" / "figure_1.png").exists()
    _compile(tmp_path, (tmp_path / "doc.tex").read_text(encoding="utf-8"))


# -- escaping ------------------------------------------------------------------------------------
def test_call_line_is_escaped_and_plain():
    res = EvalResult(estimate=0.5, std_error=0.1, term="theta", n=30,
                     call={"function": "f", "k_target": [200, 1000],
                           "prevalence": np.float64(0.09541234567), "n": np.int64(7),
                           "X": np.zeros((1797, 10)), "y": np.zeros(1797)})
    call = _call_text("f", res.call)
    assert call == ("f(k_target=[200, 1000], prevalence=0.0954123, n=7, "
                    "X=<1797x10 ndarray>, y=<1797 values>)")
    text, errors = _parse(res.summary().as_html())
    assert not errors and "k_target=[200, 1000]" in text and "X=<1797x10 ndarray>" in text
    assert "&lt;1797 values&gt;" in res.summary().as_html()


def test_latex_escape_specials_and_unicode():
    assert latex_escape("ATA_k 5% a&b #1 $x {y} ~ ^") == (
        r"ATA\_k 5\% a\&b \#1 \$x \{y\} \textasciitilde{} \textasciicircum{}")
    assert latex_escape("ε ≤ θ ± 2 × α") == (
        r"$\varepsilon$ $\le$ $\theta$ $\pm$ 2 $\times$ $\alpha$")
    assert latex_escape("0.49–0.68") == "0.49--0.68"
    assert latex_escape("θ(g)≤1") == r"$\theta$(g)$\le$1"
    assert latex_escape("ρ̂ V̂") == r"$\hat{\rho}$ \^{V}"   # a math accent over a Greek letter
    assert latex_escape("café ✓") == "caf\\'{e} [U+2713]"
    # no LaTeX form: the code point, so two such class names stay apart
    assert latex_escape("猫") == "[U+732B]" != latex_escape("犬")


@pytest.mark.parametrize("text, expected", [
    ("V\u0302", "\\^{V}"),                      # V + combining circumflex (the CV header)
    ("\u0120(H)", "\\.{G}(H)"),                 # precomposed: decomposed to G + dot
    ("naïve", 'na\\"{\\i}ve'),                  # an accented i loses its dot
    ("Σ Δ Α λ ς ο", "$\\Sigma$ $\\Delta$ A $\\lambda$ $\\sigma$ o"),
    ("x² σ₁", "x\\textsuperscript{2} $\\sigma_{1}$"),
    ("µ", "$\\mu$"),                              # the micro sign is mu
    ("a\u0361b", "ab"),                            # a mark LaTeX has no accent for
])
def test_latex_escape_rules(text, expected):
    """Accents (precomposed or combining), Greek by Unicode name, scripts, compatibility
    forms; the expected strings are LaTeX's own spellings (Lamport, table 3.1)."""
    assert latex_escape(text) == expected


def test_latex_escape_covers_every_character_the_package_prints():
    """Every non-ASCII character in the package's source gets a LaTeX form (no code-point
    fallback), so no report of ours prints ``[U+....]``."""
    import pathlib
    import unicodedata

    root = pathlib.Path(es.__file__).parent
    chars = {ch for f in root.rglob("*.py") for ch in f.read_text(encoding="utf-8")
             if ord(ch) > 127}
    # class names in tests of the fallback itself
    chars -= {"猫", "犬", "Ж", "✓"}
    missing = sorted(ch for ch in chars if "[U+" in latex_escape("x" + ch))
    assert not missing, [unicodedata.name(c, "?") for c in missing]


def test_markdown_escape():
    assert md_escape("a|b <list> mean_loss _x_") == r"a\|b \<list\> mean_loss \_x\_"


# -- tables ------------------------------------------------------------------------------------
def test_fixed_decimals_per_column_right_aligned():
    cells, align = format_column("std_error", [0.0003462, 0.9959, 8.323e-05])
    assert align == "r" and len({len(c.split(".")[1]) for c in cells}) == 1
    assert "e" not in "".join(cells)
    assert format_column("n", [20000, 3, 440]) == (["20,000", "3", "440"], "r")
    assert format_column("term", ["a", "b"]) == (["a", "b"], "l")
    assert format_column("p_value", [0.5, 1e-9]) == (["0.5000", "<0.0001"], "r")
    assert format_column("x", [1.5, np.nan, None])[0] == ["1.500", "", ""]
    assert format_column("x", [0.123456], {"x": 2})[0] == ["0.12"]
    assert format_column("ok", [True, False]) == (["yes", "no"], "l")


def test_estimate_interval_and_std_error_share_decimals():
    """JCGM 100:2008 (GUM) 7.2.6: the standard error to two significant digits, the
    estimate and interval to the same decimal place; the smallest SE sets the column."""
    rep = Report("t", tables=(("Estimates", pd.DataFrame(
        {"term": ["a", "b"], "estimate": [0.5, 0.03728], "std_error": [0.01, 0.004469],
         "conf_low": [0.48, 0.02901], "conf_high": [0.52, 0.04711]})),))
    tab = rep.layout().tables[0]
    assert tab.rows == (("a", "0.5000", "0.0100", "0.4800", "0.5200"),
                        ("b", "0.0373", "0.0045", "0.0290", "0.0471"))
    assert tab.aligns == ("l", "r", "r", "r", "r")
    wide = Report("t", tables=(("E", pd.DataFrame(
        {"term": ["x"], "estimate": [1.3274], "std_error": [0.2427],
         "conf_low": [0.881], "conf_high": [1.997]})),)).layout().tables[0]
    assert wide.rows == (("x", "1.33", "0.24", "0.88", "2.00"),)


def test_constant_columns_move_to_the_header_and_empty_ones_go():
    res = _example("RuleEvaluation")
    lay = res.summary().layout()
    cols = lay.tables[0].columns
    assert "Confidence level" not in cols and "Method" not in cols
    assert lay.header["Confidence level"] == "95%"
    rep = Report("t", header={"Model's plug-in estimate": float("nan"), "Pool": 5, "X": None},
                 tables=(("T", pd.DataFrame({"term": ["a", "b", "c"], "v": [1, 2, 3],
                                             "model": ["m", "m", "m"],
                                             "empty": [np.nan] * 3})),))
    lay = rep.layout()
    assert lay.header == {"Pool": "5", "model": "m"}
    assert lay.tables[0].columns == ("Term", "v")


def test_wide_tables_split_into_headline_and_appendix():
    wide = pd.DataFrame({"term": ["a", "b"], "estimate": [0.1, 0.2], "std_error": [0.01, 0.02],
                         "conf_low": [0.0, 0.1], "conf_high": [0.2, 0.3],
                         **{f"extra_{i}": [i, i + 1] for i in range(8)}})
    lay = Report("W", tables=(("Estimates", wide),)).layout()
    assert len(lay.tables[0].columns) <= 8 and lay.tables[0].columns[:2] == ("Term",
                                                                            "Estimate")
    assert lay.appendix[0].columns[0] == "Term"
    shown = set(lay.tables[0].columns) | set(lay.appendix[0].columns)
    assert {"extra 0", "extra 7"} <= shown
    doc = es.report([Report("W", tables=(("Estimates", wide),))])
    text, errors = _parse(doc.as_html())
    assert not errors and "Appendix" in text and "More in the appendix" in text


def test_digits_argument():
    res = _example("ErrorRateResult")
    tab = res.summary(digits={"estimate": 2}).layout().tables[0]
    assert tab.rows[0][tab.columns.index("Estimate")] == f"{res.estimate:.2f}"
    tab = res.summary(digits=2).layout().tables[0]
    assert len(tab.rows[0][tab.columns.index("CI low")].split(".")[1]) <= 3


# -- the document ----------------------------------------------------------------------------
def test_finding_sentence():
    res = EvalResult(estimate=0.58, std_error=0.05, term="f1", n=500, n_unit="labels")
    lo, hi = res.conf_int()
    assert res._finding() == f"F1 is 0.58 (95% CI {lo:.2f}\u2013{hi:.2f}) from 500 labels."
    neg = EvalResult(estimate=-0.19, std_error=0.07, term="difference", n=60)
    assert " to " in neg._finding()
    nan = EvalResult(estimate=float("nan"), std_error=None, term="precision")
    assert "undefined" in nan._finding()
    assert res.summary().finding == res._finding()
    # an estimate next to a bound is not rounded onto it (0.999 read "1.00", as if exact)
    near = finding_sentence("accuracy", 0.99897, (0.838, 1.0), 0.95, 500, "labels")
    assert near.startswith("Accuracy is 0.999 (95% CI 0.838–1.000)")
    assert finding_sentence("precision", 1.0, (0.84, 1.0), 0.95).startswith(
        "Precision is 1.00 (95% CI 0.84")


def test_names_title_block_contents_and_unique_titles():
    a, b = _example("ErrorRateResult"), _example("ErrorRateResult")
    doc = es.report({"Model A": a, "Model B": b}, title="Two models",
                    meta={"Seed": 2026})
    titles = [r.title for r in doc.reports]
    assert titles == ["Model A", "Model B"]
    text, errors = _parse(doc.as_html())
    assert not errors
    for key in ("Package", "evalstats", "Date", "Seed", "2026", "Contents", "Model A"):
        assert key in text
    same = es.report([a, a.with_name("")])
    assert len({r.title for r in same.reports}) == 2
    assert len({r.anchor for r in same.reports}) == 2
    assert a.with_name("Renamed").summary().title == "Renamed" and a.name == ""


def test_document_markdown_and_text(tmp_path):
    doc = es.report([_example("ErrorRateResult"), _example("MeanLossResult")], title="Doc")
    path = doc.save(tmp_path / "r.md")
    md = path.read_text()
    assert "**Contents**" in md and "(r_files/figure_1.png)" in md
    assert (tmp_path / "r_files" / "figure_2.png").exists()
    assert "Package" in doc.as_text()
    assert isinstance(doc, Document) and doc.render("latex").startswith("\\documentclass")


def test_demo_document_renders_and_compiles(tmp_path, capsys):
    """`evalstats demo --out report.tex --format html`: the printed HTML parses with a
    contents list and unique sections; the .tex (with its figures) compiles."""
    from evalstats.cli import main

    out = tmp_path / "report.tex"
    assert main(["demo", "--fast", "--format", "html", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    html = printed[: printed.rindex("</html>") + len("</html>")]
    text, errors = _parse(html)
    assert not errors, errors
    assert "Contents" in text and "Seeds 2026" in text and "Package evalstats" in text
    ids = [seg.split('"', 1)[0] for seg in html.split('<section class="evalstats-report" id="')[1:]]
    assert len(ids) == len(set(ids)) >= 5
    assert (tmp_path / "report_files" / "figure_1.png").exists()
    if PDFLATEX is not None:
        _compile(tmp_path, out.read_text(encoding="utf-8"), "report")


# -- the maintained renderer (pandas' Styler) ---------------------------------------------------
def _odd_table():
    return Report("Odd & ends", tables=(("Estimates of θ_1 <x>", pd.DataFrame(
        {"term": ["a_b", "50% & <c>"], "estimate": [0.5, 0.25], "n_labels": [10, 20000]})),))


def test_html_and_latex_tables_are_rendered_by_styler():
    tab = _odd_table().layout().tables[0]
    html = tab.as_html()
    assert 'class="col_heading level0 col0"' in html  # written by pandas' Styler
    assert "50% &amp; &lt;c&gt;" in html and "Estimates of θ_1 &lt;x&gt;" in html
    assert "<c>" not in html
    # numbers right-aligned even without the document's CSS (Styler's <style> block)
    assert "td.col1 {\n  text-align: right;" in html and "th.col2 {\n  text-align: right;" in html
    assert "td.col0 {" not in html and 'class="data row1 col2 num"' in html
    text, errors = _parse(html)
    assert not errors and "20,000" in text
    latex = tab.as_latex()
    assert "\\begin{tabular}{@{}lrr@{}}" in latex and "\\toprule" in latex
    assert "\\bottomrule" in latex and "\\label{tab:odd-ends-1}" in latex
    assert "\n50\\% \\& \\textless{}c\\textgreater{} & 0.2500 & 20,000 \\\\\n" in latex
    assert "\na\\_b & 0.5000 & 10 \\\\\n" in latex
    assert "\\caption{Estimates of $\\theta$\\_1 \\textless{}x\\textgreater{}}" in latex


def test_markdown_is_one_pipe_table_whatever_is_installed(monkeypatch):
    import sys

    tab = _odd_table().layout().tables[0]
    ours = tab.as_markdown()
    monkeypatch.setitem(sys.modules, "tabulate", None)      # tabulate plays no part
    assert tab.as_markdown() == ours
    rows = [[c.strip() for c in ln.strip("|").split(" | ")] for ln in ours.splitlines()
            if ln.startswith("|")]
    assert rows[0] == ["Term", "Estimate", "n labels"]
    assert rows[3] == ["50% & \\<c\\>", "0.2500", "20,000"]
    assert "|---|---:|---:|" in ours


# -- tall tables ---------------------------------------------------------------------------------
def _tall(n=100):
    return pd.DataFrame({"k": np.arange(n), "accuracy": np.linspace(0.5, 0.9, n),
                         "name": [f"θ_{i}" for i in range(n)]})


def test_tall_tables_show_head_and_tail_with_a_note():
    rep = Report("Tall", tables=(("Curve", _tall()), ("More", _tall(50))))
    lay = rep.layout()
    t0, t1 = lay.tables
    assert len(t0.rows) == 40 and t0.omitted == 60 and t0.gap == 20
    assert [r[0] for r in t0.rows[19:21]] == ["19", "80"] and t0.rows[-1][0] == "99"
    # decimals chosen from the whole column, not the rows shown
    assert t0.rows[0][1] == "0.5000"
    note = "\u2026 60 of 100 rows omitted; full table in tidy()"
    assert t0.note == note and t1.note.endswith("full table in summary().tables[1]")
    text = rep.as_text()
    assert note in text and "\n...      ... ... \n" in text
    html = rep.as_html()
    body, errors = _parse(html)
    assert not errors and note in body and body.count("\u2026") >= 3 + 1
    md = rep.as_markdown()
    assert f"*{note}*" in md and "| \u2026 | \u2026 | \u2026 |" in _squash(md)
    full = dataclasses_replace(rep, max_rows=None).layout().tables[0]
    assert len(full.rows) == 100 and full.omitted == 0 and full.note == ""
    short = Report("Short", tables=(("Curve", _tall(40)),)).layout().tables[0]
    assert short.omitted == 0 and len(short.rows) == 40


def dataclasses_replace(obj, **kw):
    import dataclasses

    return dataclasses.replace(obj, **kw)


def test_tall_tables_are_longtables_in_latex(tmp_path):
    rep = Report("Tall", tables=(("Curve", _tall(100)),), max_rows=None)
    latex = rep.as_latex()
    assert "\\begin{longtable}{@{}rrl@{}}" in latex and "\\endhead" in latex
    assert "\\caption{Curve} \\label{tab:tall-1}" in latex
    short = Report("Short", tables=(("Curve", _tall(10)),)).as_latex()
    assert "longtable" not in short and "\\begin{table}" in short
    cut = Report("Cut", tables=(("Curve", _tall(100)),)).as_latex()
    assert "longtable" in cut and "60 of 100 rows omitted" in cut
    if PDFLATEX is not None:
        doc = Document("Tall tables", (rep, Report("Cut", tables=(("Curve", _tall(100)),))))
        _compile(tmp_path, doc.as_latex(), "tall")


def test_max_rows_is_an_option_of_summary_and_report():
    res = _example("RuleEvaluation")
    assert len(res.tidy()) == 6
    tab = res.summary(max_rows=4).layout().tables[0]
    assert len(tab.rows) == 4 and tab.note.endswith("2 of 6 rows omitted; full table in tidy()")
    assert res.summary().layout().tables[0].omitted == 0
    doc = es.report([res], max_rows=2)
    assert "4 of 6 rows omitted" in doc.as_html() and "4 of 6 rows omitted" in doc.as_text()
    for bad, exc in ((1, ValueError), ("40", TypeError), (2.5, TypeError)):
        with pytest.raises(exc, match="max_rows"):
            res.summary(max_rows=bad)


@pytest.mark.parametrize("df", [pd.DataFrame(), pd.DataFrame({"a": []}),
                                pd.DataFrame({"x": [1.5, 2.5, 3.5]})])
def test_empty_and_one_column_tables_render_in_every_format(df):
    rep = Report("E", tables=(("T", df),), max_rows=2)
    for fmt in ("text", "html", "latex", "markdown"):
        assert "E" in rep.render(fmt)
    if len(df):
        assert "1 of 3 rows omitted" in rep.as_text()


@pytest.mark.parametrize("digits", [-1, 0, 2.5, "3", {"estimate": -2}])
def test_summary_refuses_bad_digits(digits):
    # before: "Format specifier missing precision" from deep in the formatter, or silence
    res = es.error_ci([0, 1, 1, 0, 1], [0, 1, 0, 0, 1])
    with pytest.raises((ValueError, TypeError), match="digits"):
        res.summary(digits=digits)


@pytest.mark.parametrize("title", [None, 5])
def test_report_title_must_be_text(title, tmp_path):
    # before: a document titled "None" was written, and as_text() then crashed
    res = es.error_ci([0, 1, 1, 0, 1], [0, 1, 0, 0, 1])
    with pytest.raises(TypeError, match="`title` must be a string"):
        es.report([res], title=title, path=tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()


def test_report_of_nothing_is_refused(tmp_path):
    # before: an empty document with a title block was written without a word
    with pytest.raises(ValueError, match="`results` must hold at least one result"):
        es.report([], path=tmp_path / "r.html")
