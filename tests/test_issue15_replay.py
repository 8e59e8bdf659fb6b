"""Replays of issue 15 ("No silent wrong answer"), general cases: each is now a clear error,
a flagged result or the right answer.

Capability-specific cases (designs, sessions, extrapolate, cv, budget) are replayed in
their own test files.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import evalstats as es
from evalstats import cli
from evalstats._io import TableError, read_table

ROOT = Path(__file__).resolve().parents[1]


# -- error_ci ---------------------------------------------------------------------------------
def test_error_ci_nan_and_inf_labels_are_not_mistakes():
    # before: k counted NaN != 0 as an error, error = 0.5
    for bad in (np.nan, np.inf):
        with pytest.raises(ValueError, match="`y_true` must be labels without missing values"):
            es.error_ci([0, 1, bad, bad], [0, 1, 0, 0])


def test_error_ci_string_labels_against_integer_predictions():
    # before: error = 1 [0.29, 1] silently ('1' != 1)
    with pytest.raises(TypeError, match="`y_pred` must be labels of the same type as `y_true`"):
        es.error_ci(["1", "0", "1"], [1, 0, 1])


def test_error_ci_probabilities_as_predictions():
    # before: error = 1 [1, 1] silently (0.83 != 1)
    with pytest.raises(ValueError, match="`y_pred` must be class labels, not scores"):
        es.error_ci([1, 0, 1, 1], [0.83, 0.12, 0.64, 0.97])


# -- loss_ci ----------------------------------------------------------------------------------
def test_loss_ci_constant_losses_flagged():
    with pytest.warns(es.SmallSampleWarning, match="zero width"):
        res = es.loss_ci([0.3] * 50)
    assert res.notes and res.conf_int() == (0.3, 0.3)


def test_loss_ci_plus_minus_1e308_refused_not_nan():
    # before: estimate inf, interval (nan, nan)
    with pytest.raises(ValueError, match="`losses` must be small enough in magnitude"):
        es.loss_ci([1e308, -1e308, 1e308, 1e308])


# -- empty CSV, through evalstats._io ---------------------------------------------------------
def test_empty_csv_names_the_file(tmp_path):
    empty = tmp_path / "data.csv"
    empty.write_text("")
    with pytest.raises(TableError, match=r"data.csv: the data table is empty"):
        read_table(empty, required=("x",), what="data table")
    header_only = tmp_path / "labels.csv"
    header_only.write_text("id,label\n")
    with pytest.raises(TableError, match=r"labels.csv: the labels file has a header but no rows"):
        read_table(header_only, required=("id", "label"), what="labels file")


def test_cli_empty_csv_is_one_line_exit_2(tmp_path, capsys):
    # before: pandas' "No columns to parse from file" (with a traceback in some commands)
    empty = tmp_path / "data.csv"
    empty.write_text("")
    rc = cli.main(["cv", "--data", str(empty), "--target", "y", "--train-size", "5"])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith("evalstats cv: error: data.csv: the data file is empty")
    assert err.count("\n") == 1


# -- the CLI exit-code policy -----------------------------------------------------------------
def _fake_parser(func):
    parser = argparse.ArgumentParser(prog="evalstats")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("boom").set_defaults(func=func)
    return parser


def test_cli_validation_error_is_one_line(monkeypatch, capsys):
    def func(args):
        es.loss_ci([1.0])  # package validation: "`losses` must be of length >= 2; got ..."

    monkeypatch.setattr(cli, "build_parser", lambda: _fake_parser(func))
    assert cli.main(["boom"]) == 2
    err = capsys.readouterr().err
    assert err == "evalstats boom: error: `losses` must be of length >= 2; got length 1.\n"


def test_cli_internal_bug_is_one_line_and_keeps_its_traceback_for_debug(monkeypatch, capsys):
    def func(args):
        return np.zeros(2)[5]  # an IndexError is a bug in evalstats, not bad input

    monkeypatch.setattr(cli, "build_parser", lambda: _fake_parser(func))
    assert cli.main(["boom"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("evalstats boom: internal error (IndexError): index 5 is out of "
                          "bounds") and "--debug" in err and err.count("\n") == 1
    monkeypatch.setenv("EVALSTATS_TRACEBACK", "1")       # the spelling of --debug in the env
    with pytest.raises(IndexError):
        cli.main(["boom"])

    def func2(args):
        return int(np.float64("nan"))  # ValueError raised outside the message template

    monkeypatch.setattr(cli, "build_parser", lambda: _fake_parser(func2))
    with pytest.raises(ValueError, match="cannot convert float NaN"):
        cli.main(["boom"])
    monkeypatch.delenv("EVALSTATS_TRACEBACK")
    assert cli.main(["boom"]) == 1
    assert "internal error (ValueError): cannot convert float NaN" in capsys.readouterr().err


def test_cli_keyboard_interrupt_in_process(monkeypatch, capsys):
    def func(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", lambda: _fake_parser(func))
    assert cli.main(["boom"]) == 130
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "interrupted" in err


def _sigint_default() -> None:
    """Run in the child before exec: a suite started in the background (``cmd &`` in a
    non-interactive shell) ignores SIGINT, and an ignored signal stays ignored across exec,
    so the child would never see the Ctrl-C that these tests send."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_on_cv_exits_130_with_one_line(tmp_path):
    """A real SIGINT during a long ``evalstats cv`` run (before: an 83-line traceback)."""
    rng = np.random.default_rng(15)
    n = 300
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + rng.logistic(size=n) > 0).astype(int)
    data = tmp_path / "big.csv"
    np.savetxt(data, np.c_[X, y], delimiter=",", header="a,b,y", comments="", fmt="%.6g")
    # print "ready" once main is about to run, so the signal lands during the computation
    code = ("import sys; from evalstats.cli import main; print('ready', flush=True); "
            "sys.exit(main(sys.argv[1:]))")
    env = dict(os.environ, PYTHONPATH=str(ROOT), TQDM_DISABLE="1", MPLBACKEND="Agg",
               PYTHONWARNINGS="ignore")
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "cv", "--data", str(data), "--target", "y",
         "--train-size", "100", "--n-draws", "1000000", "--max-draws", "1000000",
         "--seed", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=_sigint_default)
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(1.5)
        assert proc.poll() is None, "the run ended before Ctrl-C"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert err == "evalstats cv: interrupted (Ctrl-C); what was already saved is kept.\n"


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs Linux /proc")
def test_ctrl_c_on_python_dash_m_evalstats_cv(tmp_path):
    """The literal ``python -m evalstats cv`` of the issue; the signal is sent once
    scikit-learn is loaded (it is imported inside the subcommand, so main() is running)."""
    rng = np.random.default_rng(16)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] + rng.logistic(size=300) > 0).astype(int)
    data = tmp_path / "big.csv"
    np.savetxt(data, np.c_[X, y], delimiter=",", header="a,b,y", comments="", fmt="%.6g")
    env = dict(os.environ, PYTHONPATH=str(ROOT), TQDM_DISABLE="1", MPLBACKEND="Agg",
               PYTHONWARNINGS="ignore")
    proc = subprocess.Popen(
        [sys.executable, "-m", "evalstats", "cv", "--data", str(data), "--target", "y",
         "--train-size", "100", "--n-draws", "1000000", "--max-draws", "1000000",
         "--seed", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=_sigint_default)
    maps = Path(f"/proc/{proc.pid}/maps")
    try:
        deadline = time.monotonic() + 120
        while "sklearn" not in maps.read_text() and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.2)
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert err.count("\n") == 1 and err.startswith("evalstats cv: interrupted"), err


def _plan_cmd(*extra):
    return [sys.executable, "-m", "evalstats", "plan", "--n-pool", "20000", "--prevalence",
            "0.04", "--rule-rate", "0.05", *extra]


def _env(**extra):
    return dict(os.environ, PYTHONPATH=str(ROOT), TQDM_DISABLE="1", MPLBACKEND="Agg", **extra)


def test_cli_warning_is_one_line():
    proc = subprocess.run(_plan_cmd("--half-width", "0.001", "--max-labels", "10", "--measures",
                                    "precision"), capture_output=True, text=True, env=_env())
    assert proc.returncode == 1  # infeasible plan
    assert proc.stderr.startswith("evalstats plan: warning (SmallSampleWarning): Infeasible")
    assert proc.stderr.count("\n") == 1


def test_cli_closed_stdout_exits_141_quietly():
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader went away, as `evalstats plan ... | head -0`
    try:
        proc = subprocess.run(_plan_cmd("--half-width", "0.01"), stdout=write_end,
                              stderr=subprocess.PIPE, text=True, env=_env())
    finally:
        os.close(write_end)
    assert proc.returncode == 141 and proc.stderr == ""


def test_cli_traceback_on_request():
    proc = subprocess.run(_plan_cmd("--half-width", "-1"), capture_output=True, text=True,
                          env=_env())
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    proc = subprocess.run(_plan_cmd("--half-width", "-1"), capture_output=True, text=True,
                          env=_env(EVALSTATS_TRACEBACK="1"))
    assert proc.returncode == 1 and "Traceback (most recent call last)" in proc.stderr


def test_cli_binary_file_is_one_line(tmp_path, capsys):
    data = tmp_path / "data.csv"
    data.write_bytes(bytes(range(256)) * 4)
    rc = cli.main(["cv", "--data", str(data), "--target", "y", "--train-size", "5"])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("evalstats cv: error:") and err.count("\n") == 1


def test_loss_ci_refuses_text_losses():
    # before: ["0.1", "0.2", "0.9"] converted silently to numbers
    with pytest.raises(TypeError, match="`losses` must be array-like of numbers; got text"):
        es.loss_ci(["0.1", "0.2", "0.9"])
    with pytest.raises(TypeError, match="`losses` must be array-like of numbers; got text"):
        es.loss_ci(np.array([0.1, "x"], dtype=object))


def test_one_test_case_is_singular():
    res = es.error_ci([0], [0])
    assert repr(res).endswith("1 test case>")
    assert "from 1 test case." in res.summary().as_text()
