"""Labels are never lost or misread in the active loop, sessions and designs (issue 38:
oracle failures, oracle answers indexed by id, sessions checked on open, resumed sessions,
ids as text)."""

from __future__ import annotations

import json
import sqlite3
import warnings

import numpy as np
import pandas as pd
import pytest

import evalstats as es
from evalstats.active import ActiveEvaluator, active_design, active_evaluate
from evalstats.active._labels_io import UnusedLabelsWarning
from evalstats.active._state import SessionFileError

WR = dict(design="with_replacement")


@pytest.fixture(scope="module")
def sim():
    pool = es.datasets.load("sim_pool")
    return pool, pool["label"].to_numpy()


class _Flaky:
    """An oracle that answers ``ok`` calls, then raises ``exc``."""

    def __init__(self, truth, ok, exc):
        self.truth, self.ok, self.exc, self.calls = truth, ok, exc, 0

    def __call__(self, ids):
        self.calls += 1
        if self.calls > self.ok:
            raise self.exc
        return self.truth[ids]


@pytest.mark.parametrize("exc", [ConnectionError("reset"), TimeoutError("slow"),
                                 KeyboardInterrupt(), RuntimeError("quota")])
@pytest.mark.parametrize("kw", [{}, WR])
def test_any_oracle_failure_keeps_every_label_bought(sim, exc, kw):
    pool, y = sim
    oracle = _Flaky(y, 2, exc)
    with pytest.raises(type(exc)) as info:
        active_evaluate(pool["prob"], oracle, n_labels=400, predictions=pool["pred"], rng=1,
                        batch_size=100, **kw)
    ev = info.value.evaluator
    assert ev.n_labels == 200
    if isinstance(info.value, Exception):
        assert any("err.evaluator.run" in n for n in getattr(info.value, "__notes__", []))
    oracle.ok = 10 ** 6                      # the service is back: go on where it stopped
    res = ev.run(oracle, 400)
    assert res.n_labels == 400


def test_continuing_after_a_failure_equals_an_uninterrupted_run(sim):
    pool, y = sim
    with pytest.raises(ConnectionError) as info:
        active_evaluate(pool["prob"], _Flaky(y, 1, ConnectionError()), n_labels=300,
                        predictions=pool["pred"], rng=4)
    resumed = info.value.evaluator.run(lambda i: y[i], 300)
    straight = active_evaluate(pool["prob"], lambda i: y[i], n_labels=300,
                               predictions=pool["pred"], rng=4)
    assert resumed.estimate == straight.estimate
    assert resumed.conf_int() == straight.conf_int()


@pytest.mark.parametrize("kw", [{}, WR])
def test_an_answer_indexed_by_id_is_aligned_by_its_index(sim, kw):
    pool, y = sim
    ids = np.array([f"item{i:05d}" for i in range(len(pool))])
    lab = pd.Series(y, index=ids)

    def shuffled(asked):                     # the labels of the asked ids, in another order
        return lab[lab.index.isin(asked)]

    a = active_evaluate(pool["prob"], shuffled, n_labels=200, predictions=pool["pred"],
                        ids=ids, rng=2, **kw)
    b = active_evaluate(pool["prob"], lambda asked: lab[asked].to_numpy(), n_labels=200,
                        predictions=pool["pred"], ids=ids, rng=2, **kw)
    assert a.estimate == b.estimate


def test_an_answer_indexed_by_other_ids_is_refused_and_keeps_labels(sim):
    pool, y = sim

    def wrong(asked):
        return pd.Series(y[:len(asked)], index=np.arange(len(asked)) + 10 ** 6)

    with pytest.raises(ValueError, match="index disagrees") as info:
        active_evaluate(pool["prob"], wrong, n_labels=100, predictions=pool["pred"], rng=0)
    assert info.value.evaluator.n_labels == 0


def _session(tmp_path, sim, kw=None):
    pool, y = sim
    path = tmp_path / "s.db"
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], rng=0, path=path,
                         **(kw or {}))
    for _ in range(2):
        ids = ev.query(20)
        ev.update(ids, y[ids])
    return path


def _sql(path, statement, *args):
    con = sqlite3.connect(path)
    con.execute(statement, args)
    con.commit()
    con.close()


@pytest.mark.parametrize("value, match", [(2.0, "outside the measure's labels"),
                                          (0.5, "outside the measure's labels"),
                                          (None, "outside the measure's labels")])
def test_an_edited_label_is_refused_on_open(tmp_path, sim, value, match):
    path = _session(tmp_path, sim)
    _sql(path, "UPDATE labels SET label = ? WHERE idx = (SELECT idx FROM labels LIMIT 1 OFFSET 2)",
         value)
    with pytest.raises(SessionFileError, match=match):
        ActiveEvaluator.open(path)


def test_a_deleted_draw_is_refused_on_open(tmp_path, sim):
    path = _session(tmp_path, sim, WR)
    _sql(path, "DELETE FROM draws WHERE seq = 5")
    with pytest.raises(SessionFileError, match="lacks draw 5"):
        ActiveEvaluator.open(path)


def test_a_config_replaced_by_a_string_is_refused_on_open(tmp_path, sim):
    path = _session(tmp_path, sim)
    _sql(path, "UPDATE meta SET value = ? WHERE key = 'config'", json.dumps("oops"))
    with pytest.raises(SessionFileError, match="malformed configuration"):
        ActiveEvaluator.open(path)


def test_a_full_disk_is_named_as_such(tmp_path, sim, monkeypatch):
    from evalstats.active._state import StateStore

    path = _session(tmp_path, sim)
    store = StateStore(path)
    err = store._file_error(sqlite3.OperationalError("database or disk is full"))
    assert "disk holding the session file" in str(err) and "intact" in str(err)


@pytest.mark.parametrize("kw", [{}, WR])
def test_both_designs_refuse_new_queries_while_items_are_pending(sim, kw):
    pool, y = sim
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], rng=0, **kw)
    ids = ev.query(40)
    ev.update(ids, y[ids])
    ids = ev.query(20)
    ev.update(ids[5:], y[ids[5:]])            # the first five are left pending
    with pytest.raises(ValueError, match="`query` must be called after"):
        ev.query(20)
    with pytest.warns(UnusedLabelsWarning, match="15 of them labeled"):
        res = ev.result()
    assert res.n_labels == 40 and repr(res).endswith("!>")


def test_unused_labels_of_an_incomplete_batch_warn_and_flag(sim):
    pool, y = sim
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], rng=0)
    ids = ev.query(30)
    ev.update(ids, y[ids])
    ids = ev.query(30)
    ev.update(ids[:10], y[ids[:10]])
    with pytest.warns(UnusedLabelsWarning, match="10 of them labeled"):
        res = ev.result()
    assert res.n_labels == 30 and repr(res).endswith("!>")


def test_ids_keep_their_text_and_odd_ids_are_refused(sim, tmp_path):
    pool, y = sim
    n = 200
    ids = np.array([f"x{i:05d}" for i in range(n)], dtype=object)
    ids[7] = "00009"
    d = active_design(pool["prob"][:n].to_numpy(), 30, "f1", rng=0, ids=ids,
                      predictions=pool["pred"][:n].to_numpy())
    assert set(d["id"]) <= set(ids)
    with pytest.raises(ValueError, match="`ids`"):
        active_design(pool["prob"][:n].to_numpy(), 30, rng=0,
                      ids=np.array([1, "1"] + list(range(2, n)), dtype=object))
    with pytest.raises(ValueError, match="`ids`"):
        active_design(pool["prob"][:n].to_numpy(), 30, rng=0,
                      ids=np.array([np.nan] + list(range(1, n)), dtype=object))
    with pytest.raises(ValueError, match="non-empty"):
        active_design(pool["prob"][:n].to_numpy(), 30, rng=0,
                      ids=np.array([" "] + [f"x{i}" for i in range(1, n)], dtype=object))
    # "NA" is an id like any other: it survives the design file
    na_ids = np.array(["NA"] + [f"x{i}" for i in range(1, n)], dtype=object)
    d_na = active_design(pool["prob"][:n].to_numpy(), n, rng=0, ids=na_ids,
                         predictions=pool["pred"][:n].to_numpy())
    path = tmp_path / "na.csv"
    d_na.to_csv(path, index=False)
    from evalstats.active import read_design

    assert "NA" in set(read_design(path)["id"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from evalstats.active import estimate_from_labels

        pos = [list(ids).index(i) for i in d["id"]]
        back = estimate_from_labels(d, dict(zip(d["id"], y[:n][pos], strict=True)))
    assert back.n_labels == 30
