"""`evalstats sample` / `evalstats estimate` and design files end to end (issue 15).

Every case of issue 15 about active-estimation files is replayed here: edited designs
(rows deleted or copied, negative or NaN weights, repeated draw positions, a bogus or
changed measure, header-only and empty files), labels outside the measure's domain, labels
files with unknown ids, ids written as ``10559.0``, header-only labels files, and missing
labels early in the draw sequence. Each must give a clear error naming file, row and
column, a flagged result, or the right answer.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evalstats as es
from evalstats.active import active_design, estimate_from_labels
from evalstats.active._labels_io import UnusedLabelsWarning
from evalstats.active._sealed_design import DesignError, canon, seal_design, verify_design
from evalstats.cli import main


@pytest.fixture(scope="module")
def pool():
    return es.datasets.load("sim_pool")


@pytest.fixture
def files(pool, tmp_path, capsys):
    """A pool CSV, a 120-item with-replacement design written by `evalstats sample` (the
    design whose draw sequence the edits below tamper with), and true labels."""
    pool_path = tmp_path / "pool.csv"
    pool[["id", "prob", "pred"]].to_csv(pool_path, index=False)
    design = tmp_path / "to_label.csv"
    assert main(["sample", "--pool", str(pool_path), "--score-col", "prob", "--pred-col",
                 "pred", "--id-col", "id", "--measure", "f1", "--n-labels", "120", "--seed",
                 "4", "--design", "with_replacement", "--out", str(design)]) == 0
    truth = pool.set_index("id")["label"]
    d = pd.read_csv(design)
    labels = tmp_path / "labeled.csv"
    pd.DataFrame({"id": d["id"], "label": truth.loc[d["id"]].to_numpy()}).to_csv(
        labels, index=False)
    capsys.readouterr()
    return dict(pool=pool_path, design=design, labels=labels, truth=truth, tmp=tmp_path)


def _estimate(files, capsys, design=None, labels=None, *extra):
    argv = ["estimate", "--design", str(design or files["design"])]
    if labels is not False:
        argv += ["--labels", str(labels or files["labels"])]
    rc = main(argv + list(extra))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_sample_then_estimate(pool, files, capsys):
    design = pd.read_csv(files["design"])
    assert len(design) == 120
    ref = active_design(pool["prob"].to_numpy(), 120, "f1", rng=4, design="with_replacement",
                        predictions=pool[["pred"]], ids=pool["id"].to_numpy())
    np.testing.assert_array_equal(design["id"], ref["id"])
    rc, out, _ = _estimate(files, capsys, None, None, "--out", str(files["tmp"] / "r.html"))
    assert rc == 0
    assert "Active estimate of f1" in out and "precision" in out
    want = estimate_from_labels(ref, files["truth"].loc[ref["id"]].to_numpy())
    assert f"{want.estimate:.4g}" in out
    assert (files["tmp"] / "r.html").exists()


def test_labels_in_the_design_itself_and_resorted_rows(files, capsys):
    d = pd.read_csv(files["design"])
    d["label"] = files["truth"].loc[d["id"]].to_numpy()
    ref = estimate_from_labels(d, d[["id", "label"]])
    shuffled = d.sample(frac=1.0, random_state=0)          # sorted in a spreadsheet
    path = files["tmp"] / "with_labels.csv"
    shuffled.to_csv(path, index=False)
    rc, out, err = _estimate(files, capsys, path, False)
    assert rc == 0, err
    assert f"{ref.estimate:.4g}" in out
    res = estimate_from_labels(shuffled, shuffled[["id", "label"]])
    assert res.estimate == ref.estimate and any("re-sorted" in n for n in res.notes)
    aligned = estimate_from_labels(shuffled, shuffled["label"].to_numpy())   # by position
    assert aligned.estimate == ref.estimate


def test_columns_added_by_the_user_are_ignored(pool):
    design = active_design(pool["prob"], 30, "f1", rng=1, predictions=pool["pred"])
    y = pool["label"].to_numpy()[design["id"]]
    added = design.assign(score_notes="unsure", weight_comment="", label=y, annotator="ann")
    assert estimate_from_labels(added, y).estimate == estimate_from_labels(design, y).estimate


def test_added_pred_and_score_columns_are_not_read_as_design_columns(pool):
    """Only the columns evalstats sealed are read: an added ``pred_reviewer`` became an
    extra model (with replacement) or a KeyError (πps), and added ``score_*`` columns made
    labels 2 acceptable and dropped precision, recall and F1."""
    y = pool["label"].to_numpy()
    pps = active_design(pool["prob"], 100, "f1", rng=2, predictions=pool["pred"])
    lab = y[pps["id"].to_numpy()]
    base = estimate_from_labels(pps, lab)
    assert estimate_from_labels(pps.assign(pred_reviewer=1), lab).estimate == base.estimate
    wr = active_design(pool["prob"], 100, "accuracy", rng=2, predictions=pool["pred"],
                       design="with_replacement")
    lab = y[wr["id"].to_numpy()]
    base = estimate_from_labels(wr, lab).measures()
    added = estimate_from_labels(wr.assign(pred_reviewer=1), lab).measures()
    assert list(added["term"]) == list(base["term"])      # no 'reviewer:' rows
    bad = lab.copy()
    bad[:5] = 2
    with pytest.raises(DesignError, match="expected 0 or 1"):
        estimate_from_labels(wr.assign(score_a=.1, score_b=.2, score_c=.3), bad)


def test_with_replacement_table_remembers_items_it_can_never_draw(pool):
    """epsilon=0 for precision never draws predicted negatives: the callback reports
    recall, accuracy and F1 undefined; the exported table forgot it and gave recall 1.000
    [0.948, 1] (truth 0.479)."""
    y = pool["label"].to_numpy()
    kw = dict(predictions=pool["pred"], rng=5, epsilon=0, design="with_replacement")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        live = es.active.active_evaluate(pool["prob"], lambda i: y[i], 100, "precision", **kw)
        d = active_design(pool["prob"], 100, "precision", **kw)
        off = estimate_from_labels(d, y[d["id"].to_numpy()])
    a, b = live.measures().set_index("term"), off.measures().set_index("term")
    for m in ("recall", "accuracy", "f1"):
        assert not a.loc[m, "defined"] and not b.loc[m, "defined"]
        assert np.isnan(b.loc[m, "estimate"])
    assert b.loc["precision", "estimate"] == pytest.approx(a.loc["precision", "estimate"])


def test_spreadsheet_round_trip_is_accepted(files, capsys):
    """15 significant digits (what spreadsheets keep) and ids written as floats pass."""
    d = pd.read_csv(files["design"])
    d["weight"] = [float(f"{w:.15g}") for w in d["weight"]]
    d["q"] = [f"{q:.14E}" for q in d["q"]]
    d["id"] = d["id"].astype(float)                         # 10559 -> 10559.0
    path = files["tmp"] / "excel.csv"
    d.to_csv(path, index=False)
    rc, _, err = _estimate(files, capsys, path)
    assert rc == 0, err


# -- edited designs ----------------------------------------------------------------------------

def _drop(d, i):
    return d.drop(index=i)


def _copy(d, i):
    return pd.concat([d.iloc[:i + 1], d.iloc[[i]], d.iloc[i + 1:]])


def _set(col, value, rows=(7,)):
    def edit(d, _):
        d = d.copy()
        d[col] = d[col].astype(object)
        for r in rows:
            d.loc[r, col] = value
        return d
    return edit


def _same_draw_seq(d, _):
    d = d.copy()
    d.loc[8, "draw_seq"] = d.loc[7, "draw_seq"]
    return d


EDITS = {
    # case: (edit, expected message)
    "row deleted": (_drop, r"to_label\.csv: design row 8 of 120 is missing \(after row 8\); "
                           r"1 row\(s\) were deleted"),
    "last row deleted": (lambda d, _: d.iloc[:-1],
                         r"design row 120 of 120 is missing"),
    "row duplicated": (_copy, r"to_label\.csv, row 10, column 'design_row': expected a row "
                              r"number not used before \(design row 8 is also on row 9"),
    "negative weight": (_set("weight", -1.5), r"to_label\.csv, row 9, column 'weight': "
                                              r"expected a positive finite weight; got -1\.5"),
    "NaN weight": (_set("weight", np.nan), r"row 9, column 'weight': expected a positive "
                                           r"finite weight; got nan"),
    "weight edited": (_set("weight", 2.5), r"row 9, column 'weight': expected the value "
                                           r"evalstats wrote \(this cell was edited"),
    "id edited": (_set("id", 999999), r"row 9, column 'id': expected the value evalstats wrote"),
    "duplicated draw_seq": (_same_draw_seq, r"row 10, column 'draw_seq': .*is also on row 9"),
    "bogus measure": (_set("measure", "bogus", rows=range(120)),
                      r"to_label\.csv, row 2, column 'measure': expected one of f1, "),
    "measure changed": (_set("measure", "precision", rows=range(120)),
                        r"to_label\.csv, column 'measure' \(every row\): expected the setting "
                        r"evalstats wrote; got 'precision'"),
    "measure changed on one row": (_set("measure", "recall"),
                                   r"row 9, column 'measure': expected the same value on every "
                                   r"row"),
    "pool size edited": (_set("pool_size", 5, rows=range(120)),
                         r"column 'pool_size': expected a whole number at least"),
    "column deleted": (lambda d, _: d.drop(columns="q"),
                       r"to_label\.csv: `--design` must be a table with the columns.*no "
                       r"column\(s\) q"),
    "check removed": (lambda d, _: d.drop(columns=["design_check"]),
                      r"not a design written by `evalstats sample`"),
}


@pytest.mark.parametrize("case", list(EDITS))
def test_edited_design_is_refused_naming_row_and_column(files, capsys, case):
    edit, message = EDITS[case]
    d = pd.read_csv(files["design"], dtype={"id": str})
    bad = files["tmp"] / "to_label.csv"
    edit(d, 7).to_csv(bad, index=False)
    rc, out, err = _estimate(files, capsys, bad)
    assert rc == 2 and out == ""
    assert "Traceback" not in err
    import re

    assert re.search(message, err), err


@pytest.mark.parametrize("case", ["row deleted", "row duplicated", "negative weight",
                                  "NaN weight", "duplicated draw_seq", "bogus measure"])
def test_edited_design_is_refused_by_the_python_api(pool, case):
    edit, _ = EDITS[case]
    design = active_design(pool["prob"], 60, "f1", rng=1, predictions=pool["pred"],
                            design="with_replacement")
    labels = pool["label"].to_numpy()[design["id"]]
    bad = edit(design, 7)
    with pytest.raises(DesignError, match=r"design(, row \d+, column '\w+')?:"):
        estimate_from_labels(bad, pd.DataFrame({"id": design["id"], "label": labels}))


def test_unsealed_design_is_still_checked_value_by_value(pool):
    design = active_design(pool["prob"], 60, "f1", rng=1, predictions=pool["pred"],
                            design="with_replacement")
    labels = pool["label"].to_numpy()[design["id"]]
    plain = design.drop(columns=["design_row", "row_check", "design_check", "sealed_columns",
                                 "evalstats_version"])
    res = estimate_from_labels(plain, labels)
    assert res.estimate == estimate_from_labels(design, labels).estimate
    assert any("no integrity check" in n for n in res.notes)
    bad = plain.copy()
    bad.loc[3, "weight"] = np.nan
    with pytest.raises(DesignError, match=r"design, row 5, column 'weight'"):
        estimate_from_labels(bad, labels)
    with pytest.raises(DesignError, match=r"^design: the design has no rows"):
        estimate_from_labels(design.iloc[:0], labels[:0])          # header only: no IndexError
    with pytest.raises(DesignError, match=r"draw \d+ of the draw sequence is on no row"):
        estimate_from_labels(plain.drop(index=[10, 11]), labels[np.r_[0:10, 12:60]])


@pytest.mark.parametrize("content,message", [
    ("", r"to_label\.csv: the design is empty"),
    ("id,n_draws,draw_seq,weight\n", r"to_label\.csv: the design has a header but no rows"),
])
def test_empty_and_header_only_design(files, capsys, content, message):
    bad = files["tmp"] / "to_label.csv"
    bad.write_text(content)
    rc, _, err = _estimate(files, capsys, bad)
    assert rc == 2
    import re

    assert re.search(message, err), err


# -- labels ----------------------------------------------------------------------------------

def test_label_outside_binary_domain_is_refused(files, capsys):
    """A label 2 in a binary F1 design was counted as a negative (issue 15)."""
    lab = pd.read_csv(files["labels"])
    lab.loc[4, "label"] = 2
    bad = files["tmp"] / "labels2.csv"
    lab.to_csv(bad, index=False)
    rc, _, err = _estimate(files, capsys, None, bad)
    assert rc == 2
    assert ("labels2.csv, row 6, column 'label': expected 0 or 1 (the measure 'f1' is defined "
            "for binary labels); got 2") in err
    d = pd.read_csv(files["design"])
    with pytest.raises(ValueError, match="expected 0 or 1"):
        estimate_from_labels(d, lab)
    with pytest.raises(ValueError, match="expected 0 or 1"):     # also for aligned arrays
        estimate_from_labels(d, np.where(np.arange(len(d)) == 3, 2, 0))


def test_label_domain_follows_the_measure_not_the_largest_label():
    rng = np.random.default_rng(0)
    probs = rng.dirichlet(np.ones(3), 300)
    design = active_design(probs, 40, "accuracy", rng=0)
    y = probs[design["id"]].argmax(1)
    assert np.isfinite(estimate_from_labels(design, y).estimate)     # 2 is a class here
    with pytest.raises(ValueError, match=r"expected a class label 0\.\.2 .*got 3"):
        estimate_from_labels(design, np.where(np.arange(40) == 5, 3, y))
    with pytest.raises(ValueError, match=r"expected 0 or 1.*got 0\.5"):
        binary = active_design(probs[:, 1] / probs[:, 1].max(), 20, "accuracy", rng=0)
        estimate_from_labels(binary, np.full(20, 0.5))


def test_unknown_ids_are_reported(files, capsys):
    lab = pd.read_csv(files["labels"])
    extra = pd.concat([lab, pd.DataFrame({"id": [-5, -6], "label": [1, 0]})])
    path = files["tmp"] / "extra.csv"
    extra.to_csv(path, index=False)
    rc, out, _ = _estimate(files, capsys, None, path)
    assert rc == 0
    assert "2 label(s) in extra.csv have ids that are not in the design and were ignored" in out


def test_ids_written_as_floats_are_matched(files, capsys):
    lab = pd.read_csv(files["labels"])
    ref_rc, ref_out, _ = _estimate(files, capsys)
    lab["id"] = lab["id"].map(lambda v: f"{v}.0")                # 10559 -> "10559.0"
    path = files["tmp"] / "float_ids.csv"
    lab.to_csv(path, index=False)
    rc, out, _ = _estimate(files, capsys, None, path)
    assert rc == ref_rc == 0
    assert "matched as the same number" in " ".join(out.split())  # notes wrap at 88 columns
    estimate_line = [ln for ln in ref_out.splitlines() if ln.strip().startswith("f1")][0]
    assert estimate_line in out


def test_string_ids_are_matched_exactly():
    p = np.linspace(0.01, 0.99, 50)
    ids = np.array([f"{i:03d}" for i in range(50)])             # "007" is not 7 here
    design = active_design(p, 10, "f1", rng=0, ids=ids)
    lab = pd.DataFrame({"id": design["id"], "label": (p[design["id"].astype(int)] > 0.5)
                        .astype(int)})
    res = estimate_from_labels(design, lab)
    assert res.n_labels == 10


@pytest.mark.parametrize("content,message", [
    ("id,label\n", r"labels\.csv: the labels file has a header but no rows"),
    ("", r"labels\.csv: the labels file is empty"),
    ("7,1\n9,0\n", r"labels\.csv: the labels file lacks column\(s\) 'id', 'label'"),
])
def test_bad_labels_files(files, capsys, content, message):
    path = files["tmp"] / "labels.csv"
    path.write_text(content)
    rc, _, err = _estimate(files, capsys, None, path)
    assert rc == 2
    import re

    assert re.search(message, err), err


def test_labels_without_header_need_the_flag(files, capsys):
    lab = pd.read_csv(files["labels"])
    path = files["tmp"] / "noheader.csv"
    lab.to_csv(path, index=False, header=False)
    rc, out, err = _estimate(files, capsys, None, path, "--no-header")
    assert rc == 0, err
    ref = _estimate(files, capsys)[1]
    assert out.splitlines()[:12] == ref.splitlines()[:12]


def test_non_numeric_and_conflicting_labels(files, capsys):
    lab = pd.read_csv(files["labels"])
    lab["label"] = lab["label"].astype(object)
    lab.loc[2, "label"] = "yes"
    path = files["tmp"] / "words.csv"
    lab.to_csv(path, index=False)
    rc, _, err = _estimate(files, capsys, None, path)
    assert rc == 2 and "words.csv, row 4, column 'label': expected numeric labels; got 'yes'" \
        in err
    lab = pd.read_csv(files["labels"])
    twice = pd.concat([lab, lab.iloc[[0]].assign(label=1 - lab["label"].iloc[0])])
    path = files["tmp"] / "twice.csv"
    twice.to_csv(path, index=False)
    rc, _, err = _estimate(files, capsys, None, path)
    assert rc == 2 and f"twice.csv, rows 2 and {len(lab) + 2}, column 'id': expected a " \
        "unique identifier" in err


def test_no_matching_id_is_an_error_not_nan(files, capsys):
    path = files["tmp"] / "other.csv"
    pd.DataFrame({"id": ["a", "b"], "label": [1, 0]}).to_csv(path, index=False)
    rc, _, err = _estimate(files, capsys, None, path)
    assert rc == 2 and "must give labels for the design's ids; got no label for any of the " \
        "120 design ids" in err


def test_missing_label_early_says_what_it_ignores(files, capsys, pool):
    d = pd.read_csv(files["design"])
    y = files["truth"].loc[d["id"]].to_numpy().astype(float)
    y[2] = np.nan                                              # third item drawn
    with pytest.warns(UnusedLabelsWarning, match=r"labeled item\(s\) drawn later are ignored"):
        res = estimate_from_labels(d, y)
    first3 = d.iloc[:2]
    ref = estimate_from_labels(first3.drop(columns=["design_check"]), y[:2])
    assert res.n_labels == 2 and res.estimate == ref.estimate or np.isnan(ref.estimate)
    note = [n for n in res.notes if "no label" in n][0]
    assert f"id {d['id'].iloc[2].item()!r}" in note and "117 labeled item(s)" in note
    lab = pd.read_csv(files["labels"])
    lab.loc[2, "label"] = np.nan
    path = files["tmp"] / "holes.csv"
    lab.to_csv(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc, out, _ = _estimate(files, capsys, None, path)
    assert rc == 0 and "drawn later are ignored" in out


# -- sample --------------------------------------------------------------------------------------

def test_sample_errors_name_file_row_and_column(tmp_path, capsys):
    pool_path = tmp_path / "pool.csv"
    pd.DataFrame({"p": [0.1, 0.5]}).to_csv(pool_path, index=False)

    def run(*argv):
        rc = main(["sample", "--pool", str(pool_path), "--out", str(tmp_path / "o.csv"),
                   "--seed", "1", *argv])
        return rc, capsys.readouterr().err

    rc, err = run("--score-col", "prob", "--n-labels", "1")
    assert rc == 2 and "pool.csv: the pool lacks column(s) 'prob'; it has 'p'" in err
    rc, err = run("--score-col", "p", "--n-labels", "0")
    assert rc == 2 and "`--n-labels` must be an integer >= 1" in err
    pd.DataFrame({"p": [0.1, np.nan, 0.3], "id": [1, 2, 2]}).to_csv(pool_path, index=False)
    rc, err = run("--score-col", "p", "--n-labels", "1")
    assert rc == 2 and "pool.csv, row 3, column 'p': expected a probability in [0, 1]" in err
    pd.DataFrame({"p": [0.1, 0.2, 0.3], "id": [1, 2, 2]}).to_csv(pool_path, index=False)
    rc, err = run("--score-col", "p", "--id-col", "id", "--n-labels", "1")
    assert rc == 2 and "pool.csv, rows 3 and 4, column 'id': expected a unique" in err
    pool_path.write_text("")
    rc, err = run("--score-col", "p", "--n-labels", "1")
    assert rc == 2 and "pool.csv: the pool is empty" in err and "Traceback" not in err


def test_old_budget_flag_still_works(tmp_path, capsys, pool):
    pool_path = tmp_path / "pool.csv"
    pool[["prob"]].iloc[:500].to_csv(pool_path, index=False)
    rc = main(["sample", "--pool", str(pool_path), "--score-col", "prob", "--budget", "9",
               "--seed", "2", "--out", str(tmp_path / "d.csv")])
    assert "--budget is deprecated; use --n-labels" in capsys.readouterr().err
    assert rc == 0 and len(pd.read_csv(tmp_path / "d.csv")) == 9


def test_seed_is_printed_when_not_given(tmp_path, capsys, pool):
    pool_path = tmp_path / "pool.csv"
    pool[["prob"]].iloc[:500].to_csv(pool_path, index=False)
    assert main(["sample", "--pool", str(pool_path), "--score-col", "prob", "--n-labels", "5",
                 "--out", str(tmp_path / "d.csv")]) == 0
    assert "using --seed" in capsys.readouterr().err


@pytest.mark.parametrize("fmt,marker", [("text", "items to label  9"),
                                        ("markdown", "| items to label | 9 |"),
                                        ("html", "<th>items to label</th><td>9</td>"),
                                        ("latex", "items to label & 9 \\\\")])
def test_sample_prints_in_every_format(tmp_path, capsys, pool, fmt, marker):
    pool_path = tmp_path / "pool.csv"
    pool[["prob"]].iloc[:500].to_csv(pool_path, index=False)
    assert main(["sample", "--pool", str(pool_path), "--score-col", "prob", "--n-labels", "9",
                 "--seed", "2", "--format", fmt, "--out", str(tmp_path / "d.csv")]) == 0
    assert marker in capsys.readouterr().out


@pytest.mark.parametrize("cmd", ["sample", "estimate"])
def test_help(cmd, capsys):
    with pytest.raises(SystemExit):
        main([cmd, "--help"])
    out = capsys.readouterr().out
    assert "usage: evalstats " + cmd in out and "--budget" not in out


# -- the integrity layer on its own -------------------------------------------------------------

def test_canonical_values():
    assert canon(10559) == canon(10559.0) == canon("10559.0") == canon(" 10559 ") == "10559"
    assert canon(0.1) == canon("0.1000000000000001") == "0.1"
    assert canon(np.nan) == canon(None) == canon("") == ""
    assert canon("a1") == "a1" and canon("a1 ") == "a1 "


def test_generic_seal_with_settings_mapping():
    """Any design table + settings (e.g. a Poisson design with inclusion probabilities)."""
    df = pd.DataFrame({"id": ["a", "b", "c"], "pi": [0.2, 1.0, 0.5], "batch": [0, 0, 1]})
    sealed = seal_design(df, {"measure": "f1", "design": "poisson", "budget": 2})
    back, notes = verify_design(sealed)
    assert list(back["id"]) == ["a", "b", "c"] and len(notes) == 0
    bad = sealed.copy()
    bad.loc[1, "pi"] = 1.5
    with pytest.raises(DesignError, match=r"row 3, column 'pi': expected a probability"):
        verify_design(bad)
    bad = sealed.copy()
    bad["design"] = "fixed"
    with pytest.raises(DesignError, match=r"column 'design' \(every row\)"):
        verify_design(bad)
    bad = sealed.copy()
    bad.loc[2, "batch"] = 0
    with pytest.raises(DesignError, match=r"row 4, column 'batch': expected the value"):
        verify_design(bad)


# -- properties (hypothesis) -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def small_design(pool):
    return active_design(pool["prob"], 25, "f1", rng=2, predictions=pool["pred"])


_VALUES = st.one_of(st.integers(-5, 10**6), st.floats(allow_nan=True, allow_infinity=True),
                    st.text(max_size=6), st.none())


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_single_cell_edit_is_detected(small_design, data):
    d = small_design
    i = data.draw(st.integers(0, len(d) - 1), label="row")
    col = data.draw(st.sampled_from(list(d.columns)), label="column")
    new = data.draw(_VALUES, label="value")
    edited = d.copy()
    edited[col] = edited[col].astype(object)
    edited.loc[i, col] = new
    if canon(new) == canon(d[col].iloc[i]) or (col in ("row_check", "design_check",
                                                       "sealed_columns", "evalstats_version")
                                               and str(new).strip() == str(d[col].iloc[i])):
        verify_design(edited)                                # the same value: accepted
    else:
        with pytest.raises(DesignError, match=r"^design(, row \d+, column '[\w]+'|, column|:)"):
            verify_design(edited)


@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(order=st.lists(st.integers(0, 24), min_size=1, max_size=40))
def test_rows_deleted_or_copied_are_detected_resorting_is_not(small_design, order):
    edited = small_design.iloc[order]
    if sorted(order) == list(range(25)):
        back, _ = verify_design(edited)
        pd.testing.assert_frame_equal(back, small_design)
    else:
        with pytest.raises(DesignError, match=r"missing|copied|not used before"):
            verify_design(edited)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(labels=st.lists(st.one_of(st.sampled_from([0, 1, 0.0, 1.0, np.nan]),
                                 st.floats(-3, 3), st.integers(-3, 3)), min_size=25,
                       max_size=25))
def test_labels_outside_0_1_are_refused_whatever_the_largest(small_design, labels):
    y = np.array(labels, dtype=float)
    known = ~np.isnan(y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if (known & ~np.isin(y, (0, 1))).any():
            with pytest.raises(DesignError, match="expected 0 or 1"):
                estimate_from_labels(small_design, y)
        elif not known.any():
            with pytest.raises(DesignError, match="no label for any"):
                estimate_from_labels(small_design, y)
        else:
            res = estimate_from_labels(small_design, y)
            assert res.n_labels <= int(known.sum())


def test_default_pps_design_round_trip_and_edit_refused(pool, tmp_path, capsys):
    """The default (without-replacement) design is sealed too: it estimates as written and
    an edited inclusion probability is refused naming row and column."""
    pool_path = tmp_path / "pool.csv"
    pool[["id", "prob", "pred"]].to_csv(pool_path, index=False)
    design = tmp_path / "pps.csv"
    assert main(["sample", "--pool", str(pool_path), "--score-col", "prob", "--pred-col",
                 "pred", "--id-col", "id", "--n-labels", "80", "--seed", "3", "--out",
                 str(design)]) == 0
    d = pd.read_csv(design)
    assert (d["design"] == "pps").all() and "q" in d
    truth = pool.set_index("id")["label"]
    labels = tmp_path / "labels.csv"
    pd.DataFrame({"id": d["id"], "label": truth.loc[d["id"]].to_numpy()}).to_csv(
        labels, index=False)
    capsys.readouterr()
    assert main(["estimate", "--design", str(design), "--labels", str(labels)]) == 0
    d.loc[5, "q"] = d.loc[5, "q"] * 2
    edited = tmp_path / "edited.csv"
    d.to_csv(edited, index=False)
    capsys.readouterr()
    assert main(["estimate", "--design", str(edited), "--labels", str(labels)]) == 2
    err = capsys.readouterr().err
    assert "row 7" in err and "'q'" in err


def test_estimate_names_an_unlabeled_item(tmp_path):
    """A design whose first batch has an item without a label: the error names the item
    (before: 'got missing labels')."""
    p = np.linspace(0.01, 0.99, 200)
    design = active_design(p, 20, "f1", rng=0)
    labels = (p[design["id"].astype(int)] > 0.5).astype(float)
    labels[3] = np.nan
    with pytest.raises(ValueError, match=r"1 design items without a label, e\.g\. id"):
        estimate_from_labels(design, labels)


def test_pps_table_with_a_missing_label_warns_about_the_labels_it_drops(pool):
    """One missing label in batch 1 of 4 discards the 239 labels of batches 1-3: a note
    only, where the with-replacement table warns (UnusedLabelsWarning)."""
    from evalstats.active import ActiveEvaluator

    y = pool["label"].to_numpy()
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], rng=11)
    for _ in range(4):
        ids = ev.query(80)
        ev.update(ids, y[ids])
    d = ev.design()
    lab = y[d["id"].to_numpy()].astype(float)
    lab[np.flatnonzero(d["batch"].to_numpy() == 1)[0]] = np.nan
    with pytest.warns(UnusedLabelsWarning, match="239 labeled items are ignored"):
        r = estimate_from_labels(d, lab)
    assert r.n_labels == 80


def test_recalibrated_design_table_keeps_every_draws_weight(pool):
    """A recalibrated proposal changes between batches and each draw keeps its own weight;
    the table stored the first draw's weight per item (evaluator 0.6489, table 0.6371)."""
    from evalstats.active import ActiveEvaluator

    y = pool["label"].to_numpy()
    ev = ActiveEvaluator(pool["prob_overconfident"], "recall", predictions=pool["pred"],
                         rng=2, recalibrate="isotonic", epsilon=0.02)
    for _ in range(6):
        ids = ev.query(50)
        ev.update(ids, y[ids])
    d = ev.design()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        live, table = ev.result(), estimate_from_labels(d, y[d["id"].to_numpy()])
    assert table.estimate == pytest.approx(live.estimate, rel=1e-9)
    assert table.conf_int().low == pytest.approx(live.conf_int().low, rel=1e-9)


def test_estimate_takes_the_interval_option(pool, tmp_path, capsys):
    """`evalstats estimate --interval anytime` gives estimate_from_labels' sequence; a
    with-replacement design refuses it by name."""
    pool_path = tmp_path / "pool.csv"
    pool[["id", "prob", "pred"]].to_csv(pool_path, index=False)
    design = tmp_path / "pps.csv"
    assert main(["sample", "--pool", str(pool_path), "--score-col", "prob", "--pred-col",
                 "pred", "--id-col", "id", "--n-labels", "150", "--seed", "2",
                 "--out", str(design)]) == 0
    d = pd.read_csv(design)
    truth = pool.set_index("id")["label"]
    d.assign(label=truth.loc[d["id"]].to_numpy()).to_csv(design, index=False)
    capsys.readouterr()
    assert main(["estimate", "--design", str(design), "--interval", "anytime"]) == 0
    text = capsys.readouterr().out
    want = estimate_from_labels(pd.read_csv(design), pd.read_csv(design)[["id", "label"]],
                                interval="anytime")
    lo, hi = want.conf_int()
    assert "anytime" in text
    assert f" {lo:.3f} " in text and f" {hi:.3f}" in text
    with pytest.raises(ValueError, match="`interval` must be 'score'"):
        estimate_from_labels(active_design(pool["prob"].to_numpy(), 50, rng=1,
                                           design="with_replacement"),
                             np.zeros(50), interval="anytime")
