"""Labels are never lost or misread through files: ``sample --out`` never clobbers labels,
a session or the pool; every write is atomic; ids are text; a model is never scored
against its own predictions; user errors are one line, tracebacks only with ``--debug``.

Failures of the file system (disk full, quota, permission denied, read-only) are simulated
by injecting ``OSError`` into the writer after part of the file was written, into
``fsync`` and into ``os.replace``.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import stat

import numpy as np
import pandas as pd
import pytest

from evalstats import _io
from evalstats._io import (
    OverwriteError,
    TableError,
    WriteError,
    atomic_write,
    check_ids,
    check_overwrite,
    id_key,
    read_table,
    same_file,
    write_csv,
    write_text,
)
from evalstats.cli import main

N_POOL, N_LABELS = 300, 60


def _pool_frame(seed: int = 5, n: int = N_POOL, probs=None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.beta(0.7, 0.7, n) if probs is None else np.asarray(probs, float)
    return pd.DataFrame({"id": [f"{i:05d}" for i in range(n)], "prob": np.round(p, 6),
                         "pred": (p > 0.5).astype(int),
                         "truth": (rng.random(n) < p).astype(int)})


@pytest.fixture
def work(tmp_path, capsys):
    """A pool with zero-padded text ids and a 60-item design `evalstats sample` wrote."""
    pool = _pool_frame()
    pool_path = tmp_path / "pool.csv"
    pool.to_csv(pool_path, index=False)
    design = tmp_path / "d.csv"
    assert _sample(pool_path, design) == 0
    capsys.readouterr()
    return dict(tmp=tmp_path, pool=pool_path, design=design, frame=pool)


def _sample(pool_path, out, *extra) -> int:
    return main(["sample", "--pool", str(pool_path), "--score-col", "prob", "--pred-col",
                 "pred", "--id-col", "id", "--n-labels", str(N_LABELS), "--seed", "1",
                 "--out", str(out), *extra])


def _label(work, column="label", values=None) -> pd.DataFrame:
    """The design with true labels added in ``column`` (ids read as text)."""
    d = pd.read_csv(work["design"], dtype={"id": str}, keep_default_na=False)
    truth = work["frame"].set_index("id")["truth"]
    d[column] = truth.loc[d["id"]].to_numpy() if values is None else values(d)
    d.to_csv(work["design"], index=False)
    return d


def _one_error_line(err: str, cmd: str) -> str:
    assert err.startswith(f"evalstats {cmd}: error: "), err
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


def _no_temp_files(folder) -> bool:
    return not [f for f in os.listdir(folder) if f.endswith(".tmp")]


# -- reading: ids are text ------------------------------------------------------------------------

def test_read_table_keeps_id_text_and_parses_the_rest(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("id,x,y\n00009,,NA\nNA,1.5,2\n 7 ,3,null\n")
    df = read_table(f, text_columns=["id"])
    assert df["id"].tolist() == ["00009", "NA", " 7 "]          # exactly as written
    assert np.isnan(df["x"].iloc[0]) and np.isnan(df["y"].iloc[0]) and np.isnan(df["y"].iloc[2])
    assert df["x"].iloc[1] == 1.5 and df["y"].iloc[1] == 2.0


def test_read_table_argument_errors(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("id,label\n1,0\n")
    with pytest.raises(TypeError, match="`path` must be a path"):
        read_table(3)
    with pytest.raises(TypeError, match="`required` must be a sequence of column names"):
        read_table(f, required="id")              # a string is not a list of names
    with pytest.raises(TypeError, match="`text_columns` must be a sequence"):
        read_table(f, text_columns=[1])


@pytest.mark.parametrize("a, b", [("9", "00009"), ("9", " 9 "), ("9", 9), ("9", 9.0),
                                  ("9", "9.0"), ("-3", "-003"), ("0", "-0"), ("1000", "1e3"),
                                  ("1.5", "1.50"), ("", float("nan"))])
def test_id_key_same_id_written_differently(a, b):
    assert id_key(a) == id_key(b)


@pytest.mark.parametrize("a, b", [("a", "A"), ("NA", ""), ("1_0", "10"),
                                  ("12345678901234567890", "12345678901234567891"),
                                  ("9007199254740993", "9007199254740992"), ("0x1", "1")])
def test_id_key_different_ids_stay_different(a, b):
    # exact integer text, never through a float (2**53 + 1 is not 2**53)
    assert id_key(a) != id_key(b)


@pytest.mark.parametrize("ids, rows, shown", [
    (["a", "b", "a"], "rows 2 and 4", "'a' twice"),
    (["1", "2", "01"], "rows 2 and 4", "'1' and '01', the same identifier written differently"),
    (["x", " x", "y"], "rows 2 and 3", "'x' and ' x'"),
])
def test_check_ids_names_both_rows(ids, rows, shown):
    df = pd.DataFrame({"id": ids})
    with pytest.raises(TableError, match=f"f.csv, {rows}, column 'id': expected a unique "
                                         f"identifier; got {shown}"):
        check_ids(df, "id", "f.csv")


def _reference_first_repeat(values) -> tuple[str, int, int]:
    """The first empty or repeated id by a dictionary over :func:`id_key` (one at a time)."""
    keys = [id_key(v) for v in values]
    if "" in keys:
        i = keys.index("")
        return "empty", i, i
    seen: dict[str, int] = {}
    for i, k in enumerate(keys):
        if k in seen:
            return "repeat", seen[k], i
        seen[k] = i
    return "", -1, -1


def test_vectorised_id_keys_match_one_at_a_time():
    # every form the fast path handles or hands on: padded digits, 18-20/25 digits, spaces,
    # signs, decimals, exponents, text, unicode digits, missing values, numbers, long ids
    from evalstats._ids import first_repeat

    rng = np.random.default_rng(3)
    forms = [lambda k: f"{k:05d}", lambda k: str(k), lambda k: f" {k}", lambda k: f"+{k}",
             lambda k: f"{k}.0", lambda k: f"{k}e0", lambda k: f"id{k}", lambda k: f"{k}a",
             lambda k: str(10 ** 17 + k), lambda k: str(10 ** 18 + k), lambda k: "0" * 8 +
             str(10 ** 17 + k), lambda k: str(10 ** 24 + k), lambda k: f"-{k}",
             lambda k: "\u0663" * (k % 3 + 1), lambda k: k, lambda k: float(k),
             lambda k: "x" * 70 + str(k), lambda k: f"{k} ", lambda k: f"\u00a0{k}",
             lambda k: f".{k}", lambda k: str(10 ** 19 - 1 - k), lambda k: str(2 ** 64 + k),
             lambda k: f"-{10 ** 19 - 1 - k}"]
    for trial in range(300):
        n = int(rng.integers(1, 40))
        ks = rng.integers(0, 3 * n, n)
        values = [forms[int(f)](int(k)) for f, k in zip(rng.integers(0, len(forms), n), ks,
                                                          strict=True)]
        if trial % 7 == 0:
            values[int(rng.integers(n))] = [None, np.nan, "", "  "][trial % 4]
        kind, j, i, _ = first_repeat(np.array(values, dtype=object))
        assert (kind, j, i) == _reference_first_repeat(values), values


def test_check_ids_refuses_empty_and_counts_repeats():
    with pytest.raises(TableError, match=r"f.csv, row 3, column 'id': expected a non-empty"):
        check_ids(pd.DataFrame({"id": ["a", "  ", "b"]}), "id", "f.csv")
    with pytest.raises(TableError, match=r"\(2 more repeated row\(s\)\)"):
        check_ids(pd.DataFrame({"id": ["a", "a", "a", "a"]}), "id", "f.csv")
    check_ids(pd.DataFrame({"id": ["NA", "00009", "9.5", "a"]}), "id", "f.csv")  # all fine


# -- atomic writes ------------------------------------------------------------------------------

class _FailingFile:
    """A file object that writes ``limit`` bytes, then fails with ``code`` (a full disk)."""

    def __init__(self, fh, limit: int, code: int):
        self._fh, self._left, self._code = fh, limit, code

    def write(self, data):
        if len(data) > self._left:
            self._fh.write(data[:self._left])
            self._left = 0
            raise OSError(self._code, os.strerror(self._code))
        self._left -= len(data)
        return self._fh.write(data)

    def __getattr__(self, name):
        return getattr(self._fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.close()


def _fail_writes(monkeypatch, code=errno.ENOSPC, limit=100):
    real = os.fdopen
    monkeypatch.setattr(_io.os, "fdopen",
                        lambda fd, *a, **k: _FailingFile(real(fd, *a, **k), limit, code))


@pytest.mark.parametrize("code, reason", [(errno.ENOSPC, "disk full"),
                                          (errno.EDQUOT, "disk quota exceeded"),
                                          (errno.EACCES, "permission denied"),
                                          (errno.EROFS, "read-only file system")])
def test_failed_write_keeps_old_file_and_leaves_no_temp(tmp_path, monkeypatch, code, reason):
    target = tmp_path / "out.csv"
    target.write_text("old content\n")
    _fail_writes(monkeypatch, code)
    with pytest.raises(WriteError, match=f"cannot write '{target}': {reason}.*the previous "
                                         "file is unchanged") as info:
        write_csv(pd.DataFrame({"x": np.arange(10_000)}), target)
    assert info.value.errno == code and isinstance(info.value, OSError)
    assert target.read_text() == "old content\n"
    assert _no_temp_files(tmp_path)


def test_failed_first_write_leaves_nothing(tmp_path, monkeypatch):
    _fail_writes(monkeypatch)
    with pytest.raises(WriteError, match="disk full.*nothing was written"):
        write_text(tmp_path / "r.txt", "x" * 10_000)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("where", ["fsync", "replace"])
def test_failure_at_sync_or_rename_keeps_old_file(tmp_path, monkeypatch, where):
    target = tmp_path / "r.txt"
    target.write_text("old")

    def boom(*args, **kwargs):
        raise OSError(errno.ENOSPC if where == "fsync" else errno.EACCES, "injected")
    monkeypatch.setattr(_io.os, where, boom)
    with pytest.raises(WriteError, match="disk full" if where == "fsync" else
                       "permission denied"):
        write_text(target, "new")
    assert target.read_text() == "old" and _no_temp_files(tmp_path)


def test_interrupted_write_keeps_old_file(tmp_path):
    target = tmp_path / "r.txt"
    target.write_text("old")
    with pytest.raises(KeyboardInterrupt), atomic_write(target) as fh:
        fh.write("half")
        raise KeyboardInterrupt
    assert target.read_text() == "old" and _no_temp_files(tmp_path)


def test_atomic_write_replaces_keeps_mode_and_writes_through_links(tmp_path):
    target = tmp_path / "r.txt"
    target.write_text("old")
    os.chmod(target, 0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert _no_temp_files(tmp_path)


def test_write_csv_gzip_round_trip(tmp_path):
    df = pd.DataFrame({"id": ["00009", "NA"], "x": [1.5, 2.0]})
    write_csv(df, tmp_path / "t.csv.gz")
    back = pd.read_csv(tmp_path / "t.csv.gz", dtype={"id": str}, keep_default_na=False)
    pd.testing.assert_frame_equal(back, df, check_dtype=False)


def test_atomic_write_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="`mode` must be 'w' or 'wb'"), \
            atomic_write(tmp_path / "x", "a"):
        pass
    with pytest.raises(TypeError, match="`text` must be a str"):
        write_text(tmp_path / "x", b"bytes")
    with pytest.raises(TypeError, match="`df` must be a pandas DataFrame"):
        write_csv([1, 2], tmp_path / "x.csv")
    with pytest.raises(WriteError, match="the folder does not exist"):
        write_text(tmp_path / "no" / "x.txt", "x")


# -- check_overwrite ----------------------------------------------------------------------------

def test_check_overwrite_what_it_refuses(tmp_path):
    plain = tmp_path / "plain.csv"
    plain.write_text("a,b\n1,2\n")
    with pytest.raises(OverwriteError, match="is a CSV file it did not write .columns 'a', "
                                             "'b'.*pass --force"):
        check_overwrite(plain, own_columns=lambda first: None)
    check_overwrite(plain, force=True, own_columns=lambda first: None)
    labels = tmp_path / "labels.csv"
    labels.write_text("id,label\n1,0\n2,\n3,NA\n4,1\n")
    with pytest.raises(OverwriteError, match=r"holds 2 label\(s\) in column 'label'"):
        check_overwrite(labels)
    binary = tmp_path / "b.csv"
    binary.write_bytes(b"\x00\x01\x02" * 50)
    with pytest.raises(OverwriteError, match="is a binary file"):
        check_overwrite(binary)
    with pytest.raises(OverwriteError, match="is a folder"):
        check_overwrite(tmp_path)
    (tmp_path / "empty.csv").write_text("")
    check_overwrite(tmp_path / "empty.csv")
    check_overwrite(tmp_path / "missing.csv")


def test_check_overwrite_sessions(tmp_path):
    path = tmp_path / "s.csv"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE labels (idx INTEGER PRIMARY KEY, label REAL)")
    con.executemany("INSERT INTO labels VALUES (?, ?)", [(i, i % 2) for i in range(7)])
    con.commit()
    con.close()
    with pytest.raises(OverwriteError, match=r"is an evalstats labeling session holding 7 "):
        check_overwrite(path)


def test_same_file_by_inode(tmp_path):
    a = tmp_path / "a.csv"
    a.write_text("x\n1\n")
    os.link(a, tmp_path / "hard.csv")
    (tmp_path / "soft.csv").symlink_to(a)
    assert same_file(a, tmp_path / "hard.csv") and same_file(a, tmp_path / "soft.csv")
    assert same_file(a, tmp_path / "sub" / ".." / "a.csv") is False  # no folder 'sub'
    assert not same_file(a, tmp_path / "missing.csv")
    with pytest.raises(OverwriteError, match="is the same file as --pool"):
        check_overwrite(tmp_path / "hard.csv", protect={"--pool": a}, force=True)


# -- evalstats sample --out ---------------------------------------------------------------------

def test_rerunning_sample_replaces_an_untouched_design(work, capsys):
    assert _sample(work["pool"], work["design"]) == 0
    assert _sample(work["pool"], work["design"], "--seed", "2") == 0


@pytest.mark.parametrize("column, extra", [("label", ()), ("y", ("--label-col", "y")),
                                           ("y", ()), ("notes", ())])
def test_sample_never_overwrites_added_labels(work, capsys, column, extra):
    _label(work, column)
    before = work["design"].read_bytes()
    rc = _sample(work["pool"], work["design"], *extra)
    err = _one_error_line(capsys.readouterr().err, "sample")
    assert rc == 2 and "already exists and holds" in err and "--force" in err
    assert f"{column!r}" in err
    assert work["design"].read_bytes() == before                 # not one label lost
    assert _sample(work["pool"], work["design"], "--force") == 0  # explicit: replaced
    assert "label" not in pd.read_csv(work["design"]).columns


def test_sample_never_overwrites_a_session(work, capsys):
    from evalstats.active import ActiveEvaluator

    path = work["tmp"] / "session.csv"
    ev = ActiveEvaluator(work["frame"]["prob"].to_numpy(), "f1", path=path, rng=1)
    ids = ev.query(5)
    ev.update(ids, work["frame"]["truth"].to_numpy()[ids])
    before = path.read_bytes()
    assert _sample(work["pool"], path) == 2
    err = _one_error_line(capsys.readouterr().err, "sample")
    assert "is an evalstats labeling session holding 5 label(s)" in err
    assert path.read_bytes() == before


@pytest.mark.parametrize("link", ["hard", "soft"])
def test_sample_never_overwrites_the_pool(work, capsys, link):
    out = work["tmp"] / "pool_link.csv"
    (os.link if link == "hard" else os.symlink)(work["pool"], out)
    before = work["pool"].read_bytes()
    assert _sample(work["pool"], out, "--force") == 2
    err = _one_error_line(capsys.readouterr().err, "sample")
    assert "--pool" in err and work["pool"].read_bytes() == before


def test_sample_disk_full_keeps_old_design(work, capsys, monkeypatch):
    before = work["design"].read_bytes()
    _fail_writes(monkeypatch, errno.ENOSPC, limit=500)
    assert _sample(work["pool"], work["design"], "--seed", "3") == 2
    err = _one_error_line(capsys.readouterr().err, "sample")
    assert f"cannot write '{work['design']}': disk full" in err
    assert work["design"].read_bytes() == before and _no_temp_files(work["tmp"])


def test_sample_interrupted_while_writing(work, capsys, monkeypatch):
    before = work["design"].read_bytes()

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(pd.DataFrame, "to_csv", interrupt)
    assert _sample(work["pool"], work["design"], "--seed", "3") == 130
    assert work["design"].read_bytes() == before and _no_temp_files(work["tmp"])


def test_sample_keeps_ids_exactly(tmp_path, capsys):
    pool = _pool_frame(n=40)
    pool.loc[3, "id"] = "NA"
    pool.loc[5, "id"] = " x1"
    pool.to_csv(tmp_path / "pool.csv", index=False)
    out = tmp_path / "d.csv"
    assert main(["sample", "--pool", str(tmp_path / "pool.csv"), "--score-col", "prob",
                 "--id-col", "id", "--n-labels", "40", "--seed", "1", "--out", str(out)]) == 0
    ids = pd.read_csv(out, dtype=str, keep_default_na=False)["id"]
    assert sorted(ids) == sorted(pool["id"])                    # '00009', 'NA', ' x1' kept
    assert "00009" in set(ids) and "NA" in set(ids)


@pytest.mark.parametrize("ids, message", [
    ({4: "00001"}, "rows 3 and 6, column 'id': expected a unique identifier; got '00001' "
                   "twice"),
    ({4: "1"}, "rows 3 and 6, column 'id': expected a unique identifier; got '00001' and "
               "'1', the same identifier written differently"),
    ({4: " 00001"}, "rows 3 and 6"),
    ({4: ""}, "row 6, column 'id': expected a non-empty identifier"),
])
def test_sample_refuses_repeated_ids_up_front(tmp_path, capsys, ids, message):
    pool = _pool_frame(n=40)
    for i, v in ids.items():
        pool.loc[i, "id"] = v
    pool.to_csv(tmp_path / "pool.csv", index=False)
    rc = main(["sample", "--pool", str(tmp_path / "pool.csv"), "--score-col", "prob",
               "--id-col", "id", "--n-labels", "10", "--seed", "1", "--out",
               str(tmp_path / "d.csv")])
    err = _one_error_line(capsys.readouterr().err, "sample")
    assert rc == 2 and f"pool.csv, {message}" in err
    assert not (tmp_path / "d.csv").exists()


@pytest.mark.parametrize("extra, flag", [(("--id-col", "prob"), "--id-col"),
                                         (("--label-col", "pred"), "--label-col"),
                                         (("--pred-col", "prob"), "--pred-col")])
def test_sample_refuses_one_column_in_two_roles(tmp_path, capsys, extra, flag):
    _pool_frame(n=40).to_csv(tmp_path / "pool.csv", index=False)
    rc = main(["sample", "--pool", str(tmp_path / "pool.csv"), "--score-col", "prob",
               "--n-labels", "10", "--seed", "1", "--out", str(tmp_path / "d.csv"), *extra])
    assert rc == 2 and f"`{flag}` must be" in _one_error_line(capsys.readouterr().err,
                                                             "sample")


# -- evalstats estimate: ids and the label column ----------------------------------------------

def _estimate(work, *extra) -> tuple[int, str, str]:
    rc = main(["estimate", "--design", str(work["design"]), *extra])
    captured = work["capsys"].readouterr()
    return rc, captured.out, captured.err


@pytest.fixture
def est(work, capsys):
    work["capsys"] = capsys
    return work


def test_estimate_matches_text_ids_from_a_labels_file(est):
    d = pd.read_csv(est["design"], dtype={"id": str}, keep_default_na=False)
    assert d["id"].str.len().eq(5).all()                          # zero-padded, as in the pool
    truth = est["frame"].set_index("id")["truth"]
    lab = est["tmp"] / "lab.csv"
    pd.DataFrame({"id": d["id"], "label": truth.loc[d["id"]].to_numpy()}).to_csv(lab,
                                                                                 index=False)
    rc, out, err = _estimate(est, "--labels", str(lab))
    assert rc == 0, err
    _label(est)
    rc2, out2, _ = _estimate(est)

    def numbers(text):                      # the Call line echoes the inputs' shapes
        return [ln for ln in text.splitlines()[:20] if "DataFrame>" not in ln]

    assert rc2 == 0 and numbers(out) == numbers(out2)


def test_estimate_refuses_repeated_ids_in_labels(est):
    d = pd.read_csv(est["design"], dtype={"id": str}, keep_default_na=False)
    lab = est["tmp"] / "lab.csv"
    pd.DataFrame({"id": [*d["id"], d["id"].iloc[0]], "label": 0}).to_csv(lab, index=False)
    rc, _, err = _estimate(est, "--labels", str(lab))
    assert rc == 2 and f"lab.csv, rows 2 and {len(d) + 2}, column 'id'" in \
        _one_error_line(err, "estimate")


@pytest.mark.parametrize("column, role", [("pred", "prediction column of the model"),
                                          ("score", "score column"),
                                          ("model_prob", "score column"),
                                          ("id", "id column"),
                                          ("q", "a column `evalstats sample` wrote")])
def test_estimate_refuses_a_model_column_as_labels(est, column, role):
    rc, _, err = _estimate(est, "--label-col", column)
    assert rc == 2 and "`--label-col` must be the column of true labels" in err
    assert role in _one_error_line(err, "estimate")


def test_estimate_refuses_label_col_equal_to_id_col(est):
    rc, _, err = _estimate(est, "--labels", str(est["design"]), "--label-col", "id")
    assert rc == 2 and "`--label-col` must be a column other than --id-col" in err


def test_estimate_refuses_a_copy_of_the_predictions(est):
    _label(est, "label", values=lambda d: d["pred"].astype(int))
    rc, _, err = _estimate(est)
    err = _one_error_line(err, "estimate")
    assert rc == 2 and "not a copy of the predictions" in err and "'pred'" in err
    assert "--allow-identical-labels" in err
    rc, out, _ = _estimate(est, "--allow-identical-labels")
    assert rc == 0 and "Active estimate" in out


def test_identical_labels_from_confident_scores_are_accepted(tmp_path, capsys):
    # P(labels = predictions everywhere) = 0.9995 ** 60 = 0.97 under the scores: accepted
    n = N_POOL
    pool = _pool_frame(n=n, probs=np.where(np.arange(n) % 4 == 0, 0.9995, 0.0005))
    pool.to_csv(tmp_path / "pool.csv", index=False)
    work = dict(tmp=tmp_path, pool=tmp_path / "pool.csv", design=tmp_path / "d.csv",
                frame=pool.assign(truth=pool["pred"]), capsys=capsys)
    assert _sample(work["pool"], work["design"]) == 0
    capsys.readouterr()
    _label(work)
    rc, out, err = _estimate(work)
    assert rc == 0, err


def test_estimate_report_write_failure(est, monkeypatch):
    _label(est)
    report = est["tmp"] / "r.html"
    report.write_text("old report")
    _fail_writes(monkeypatch, errno.EACCES, limit=10)
    rc, _, err = _estimate(est, "--out", str(report))
    assert rc == 2 and "permission denied" in _one_error_line(err.splitlines()[-1] + "\n",
                                                              "estimate")
    assert report.read_text() == "old report" and _no_temp_files(est["tmp"])


# -- one line, or a traceback with --debug --------------------------------------------------------

def test_debug_flag_shows_the_traceback(work, capsys):
    _label(work)
    assert _sample(work["pool"], work["design"]) == 2
    _one_error_line(capsys.readouterr().err, "sample")
    for argv in (["--debug", "sample"], ["sample", "--debug"]):
        with pytest.raises(OverwriteError):
            main([*argv, "--pool", str(work["pool"]), "--score-col", "prob", "--n-labels",
                  "5", "--out", str(work["design"])])


def test_internal_error_is_one_line_asking_for_debug(work, capsys, monkeypatch):
    from evalstats.cli import sample

    def bug(args):
        return [][1]
    monkeypatch.setattr(sample, "_read_pool", bug)
    assert _sample(work["pool"], work["tmp"] / "new.csv") == 1
    err = capsys.readouterr().err
    assert err.startswith("evalstats sample: internal error (IndexError): list index out of "
                          "range") and "--debug" in err and "Traceback" not in err
    with pytest.raises(IndexError):
        _sample(work["pool"], work["tmp"] / "new.csv", "--debug")
