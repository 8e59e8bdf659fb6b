"""Items an annotator cannot label: ``ActiveEvaluator.skip`` / ``unskip`` (issue 38).

A skip is never silent: it is recorded with its reason (session file and design table
too), it unblocks the next query, and every result counts it (``n_skipped`` in glance, a
header line, a warning note). What it does to the estimate is checked against a hand
computation per design: πps counts the item with the batch model's prediction (residual
zero); with replacement its draws are left out of the self-normalised estimate.
"""

from __future__ import annotations

import json
import sqlite3
import warnings

import numpy as np
import pandas as pd
import pytest
from test_active_public_names import sampled_design

import evalstats as es
from evalstats.active import (
    ActiveEvaluator,
    SkippedItemsWarning,
    active_design,
    check_labels,
    estimate_from_labels,
)
from evalstats.active._design_table import records_from_table
from evalstats.active._state import SessionFileError
from evalstats.active._successive_sample import SuccessiveSample
from evalstats.cli import main


@pytest.fixture(scope="module")
def pool():
    return es.datasets.load("sim_pool")


def _session(pool, design="pps", n_skip=2, path=None, rng=1):
    """One batch of 40 with the last ``n_skip`` skipped, then a second batch labeled."""
    y = pool["label"].to_numpy()
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], rng=rng,
                         design=design, path=path)
    ids = ev.query(40)
    ev.update(ids[:-n_skip], y[ids[:-n_skip]])
    ev.skip(ids[-n_skip:], reason="page did not load")
    more = ev.query(40)                      # a skip unblocks the next query
    ev.update(more, y[more])
    return ev, ids[-n_skip:]


def _quiet_result(ev):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = ev.result()
    return res, [w.category for w in caught]


@pytest.mark.parametrize("design", ["pps", "with_replacement"])
def test_skip_then_continue_counts_the_skips_everywhere(pool, design):
    ev, skipped = _session(pool, design)
    assert list(ev.skipped["id"]) == list(skipped)
    assert set(ev.skipped["reason"]) == {"page did not load"}
    assert len(ev.pending) == 0
    res, caught = _quiet_result(ev)
    assert SkippedItemsWarning in caught
    assert res.n_skipped == 2 and res.glance()["n_skipped"].iloc[0] == 2
    assert res.n_labels == ev.n_labels == 78            # skipped items are not labels
    assert repr(res).endswith("!>")
    assert any("2 queried item(s) were skipped" in n for n in res.notes)
    text = res.summary().as_text() if hasattr(res.summary(), "as_text") else str(res.summary())
    assert "Skipped items" in text and "were skipped" in text


def test_pps_counts_a_skipped_item_with_the_models_prediction(pool):
    """Hand computation: the same design table with the skipped rows' labels set to their
    ``model_prob`` (residual zero) gives the same estimate and interval."""
    ev, skipped = _session(pool, "pps")
    res, _ = _quiet_result(ev)
    table = ev.design()
    assert table["skipped"].sum() == 2
    assert set(table.loc[table["skipped"] == 1, "id"]) == set(skipped)
    truth = pool["label"].to_numpy()[table["id"].to_numpy()].astype(float)
    y = np.where(table["skipped"] == 1, table["model_prob"], truth)
    by_hand = SuccessiveSample(records_from_table(table, y))
    spec = res.specs[0]
    assert by_hand.estimate(spec).estimate == res.estimate
    assert tuple(by_hand.interval(spec, 0, 0.95, "score")) == tuple(res.conf_int())
    # and labeling them as 0 or 1 instead would move the estimate: the skip is not a no-op
    for fill in (0.0, 1.0):
        moved = SuccessiveSample(records_from_table(table, np.where(table["skipped"] == 1,
                                                                    fill, truth)))
        assert moved.estimate(spec).estimate != res.estimate


def test_with_replacement_leaves_the_skipped_draws_out(pool):
    """Hand computation of the self-normalised F1, ``2 Σ w f y / Σ w (f + y)``, over the
    draws whose items were not skipped."""
    ev, skipped = _session(pool, "with_replacement")
    res, _ = _quiet_result(ev)
    table = ev.design()
    truth = pool["label"].to_numpy()
    num = den = 0.0
    for _, row in table.iterrows():
        if row["skipped"] == 1:
            continue
        w = np.array([float(x) for x in str(row["draw_weights"]).split(";")])
        f, y = float(row["pred"]), float(truth[row["id"]])
        num += w.sum() * f * y
        den += w.sum() * (f + y)
    assert res.estimate == pytest.approx(2 * num / den, rel=1e-12)
    assert set(table.loc[table["skipped"] == 1, "id"]) == set(skipped)


def test_a_redraw_of_a_skipped_item_asks_for_no_label():
    scores = np.array([0.9, 0.8, 0.2, 0.1, 0.6])
    ev = ActiveEvaluator(scores, "f1", rng=0, design="with_replacement")
    first = ev.query(2)
    ev.skip(first, reason="no access")
    later = ev.query(3)
    assert not set(later) & set(first)
    with pytest.raises(ValueError, match="at most the 0 unlabeled items"):
        ev.update(later, [1, 0, 1])
        ev.query(1)


@pytest.mark.parametrize("design", ["pps", "with_replacement"])
def test_offline_equals_online_with_skips(pool, design):
    ev, skipped = _session(pool, design)
    res, _ = _quiet_result(ev)
    table = ev.design()
    labels = pd.DataFrame({"id": ev._ids[list(ev._labels)],
                           "label": list(ev._labels.values())})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        off = estimate_from_labels(table, labels)
    assert off.n_skipped == res.n_skipped == 2 and off.n_labels == res.n_labels
    if design == "pps":                         # the default design: bit for bit
        assert off.estimate == res.estimate
        assert tuple(off.conf_int()) == tuple(res.conf_int())
    else:
        assert off.estimate == pytest.approx(res.estimate, rel=1e-10)
    given = pd.concat([labels, pd.DataFrame({"id": [skipped[0]], "label": [1]})])
    with pytest.raises(ValueError, match="no label for an item the design marks skipped"):
        estimate_from_labels(table, given)


def test_a_skipped_item_is_labeled_only_after_unskip(pool):
    ev, skipped = _session(pool, "pps")
    with pytest.raises(ValueError, match=r"skipped \('page did not load'\).*unskip"):
        ev.update(skipped[:1], [1])
    ev.unskip(skipped[:1])
    assert list(ev.pending) == [skipped[0]]
    with pytest.raises(ValueError, match="called after the previous batch is labeled"):
        ev.query(10)                         # pending again: it blocks the next batch
    ev.update(skipped[:1], [pool["label"].to_numpy()[skipped[0]]])
    res, _ = _quiet_result(ev)
    assert res.n_skipped == 1 and res.n_labels == 79
    with pytest.raises(ValueError, match="which is not skipped"):
        ev.unskip(skipped[:1])


def test_skip_refuses_what_it_cannot_mean(pool):
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], rng=2)
    ids = ev.query(10)
    ev.update(ids[:5], pool["label"].to_numpy()[ids[:5]])
    cases = [(ids[:1], "labeled"), ([-7], "unknown"), ([ids[5], ids[5]], "twice"),
             ([int(np.setdiff1d(np.arange(100), ids)[0])], "never queried")]
    for bad, text in cases:
        with pytest.raises(ValueError, match=text):
            ev.skip(bad, reason="x")
    with pytest.raises(ValueError, match="`reason`"):
        ev.skip(ids[5:6], reason="  ")
    with pytest.raises(TypeError, match="`reason`"):
        ev.skip(ids[5:6], reason=None)
    ev.skip(ids[5:6], reason="x")
    with pytest.raises(ValueError, match="skipped already"):
        ev.skip(ids[5:6], reason="x")
    assert len(ev.pending) == 4                     # nothing else changed


def test_skips_survive_a_reopened_session_and_edits_are_refused(pool, tmp_path):
    path = tmp_path / "s.db"
    ev, skipped = _session(pool, "pps", path=path)
    res, _ = _quiet_result(ev)
    back = ActiveEvaluator.open(path)
    pd.testing.assert_frame_equal(back.skipped, ev.skipped)
    again, _ = _quiet_result(back)
    assert again.estimate == res.estimate and again.n_skipped == 2
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value = ? WHERE key = 'skipped'",
                (json.dumps([[10 ** 6, "x"]]),))
    con.commit()
    con.close()
    with pytest.raises(SessionFileError, match="records a skip"):
        ActiveEvaluator.open(path)


def test_no_skip_no_column_no_count(pool):
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], rng=3)
    ids = ev.query(30)
    ev.update(ids, pool["label"].to_numpy()[ids])
    res, caught = _quiet_result(ev)
    assert "skipped" not in ev.design().columns
    assert res.n_skipped == 0 and SkippedItemsWarning not in caught
    assert ev.skipped.empty


@pytest.mark.parametrize("design", ["pps", "with_replacement"])
def test_the_label_skip_in_a_design_file_is_a_skip(pool, design):
    """``"skip"`` as a label does what ``ActiveEvaluator.skip`` does: the same estimate
    from the same items (bit for bit with the default design)."""
    y = pool["label"].to_numpy()
    table = active_design(pool["prob"], 100, "f1", predictions=pool["pred"], rng=4,
                          design=design)
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], rng=4, design=design,
                         adaptive=False)
    ids = ev.query(100)
    assert list(ids) == list(table["id"])
    skip = ids[[3, 50]]
    rest = np.setdiff1d(ids, skip)
    ev.update(rest, y[rest])
    ev.skip(skip, reason="no access")
    online, _ = _quiet_result(ev)
    labels = pd.DataFrame({"id": table["id"],
                           "label": [" Skip" if i in set(skip) else y[i] for i in table["id"]]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        offline = estimate_from_labels(table, labels)
    assert SkippedItemsWarning in [w.category for w in caught]
    assert offline.n_skipped == online.n_skipped == 2
    assert offline.n_labels == online.n_labels == 98
    if design == "pps":
        assert offline.estimate == online.estimate
        assert tuple(offline.conf_int()) == tuple(online.conf_int())
    else:
        assert offline.estimate == pytest.approx(online.estimate, rel=1e-10)
    checked = check_labels(table, labels)
    assert list(checked.loc[checked["skipped"] == 1, "id"]) == list(table["id"][[3, 50]])
    both = pd.concat([labels, pd.DataFrame({"id": [skip[0]], "label": [1]})])
    with pytest.raises(ValueError, match="one label per id"):
        estimate_from_labels(table, both)
    odd = labels.assign(label=labels["label"].replace(" Skip", "?"))
    with pytest.raises(TypeError, match=r"got '\?' \(write 'skip' for an item nobody"):
        estimate_from_labels(table, odd)


def test_cli_estimate_reads_skip_labels(pool, tmp_path, capsys):
    out, d = sampled_design(pool, tmp_path, seed=3)
    truth = pool["label"].to_numpy()[d["id"].astype(int).to_numpy()]
    d.assign(label=np.where(np.arange(len(d)) == 5, "skip", truth.astype(str))).to_csv(
        out, index=False)
    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["estimate", "--design", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Skipped items" in printed and "were skipped" in printed


@pytest.mark.slow
def test_pps_skip_targets_the_pool_with_skipped_labels_replaced_by_the_model():
    """Monte Carlo, 2,000 seeded runs on a 30-item pool (one batch of 10, the scores as a
    fixed model): accuracy is linear in the totals, so its mean must be the accuracy of
    the pool whose items in ``S`` (always skipped when drawn) carry their scores instead
    of their labels — and not the pool's own accuracy."""
    rng = np.random.default_rng(0)
    n = 30
    scores = np.round(rng.uniform(0.02, 0.98, n), 3)
    labels = (rng.random(n) < scores).astype(int)
    pred = (scores > 0.5).astype(int)
    s = np.concatenate([np.flatnonzero((labels == 1) & (pred == 0))[:3],
                        np.flatnonzero((labels == 0) & (pred == 1))[:2]])
    value = labels.astype(float)
    value[s] = scores[s]
    target = (value @ pred - value @ (1 - pred) + n - pred.sum()) / n
    truth = float((labels == pred).mean())
    est = []
    for seed in range(2000):
        ev = ActiveEvaluator(scores, "accuracy", predictions=pred, rng=seed, adaptive=False)
        ids = ev.query(10)
        skip = np.isin(ids, s)
        if (~skip).any():
            ev.update(ids[~skip], labels[ids[~skip]])
        if skip.any():
            ev.skip(ids[skip], reason="cannot be labeled")
        est.append(_quiet_result(ev)[0].estimate)
    est = np.array(est)
    se = est.std(ddof=1) / np.sqrt(len(est))
    assert abs(est.mean() - target) < 4 * se
    assert abs(est.mean() - truth) > 10 * se
