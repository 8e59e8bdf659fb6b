"""The report of :class:`ActiveEstimate` and :class:`Proposal`: header keys a reader uses,
no column said twice, and a plot whose inset says what it shows."""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import evalstats as es  # noqa: E402
from evalstats.active import ActiveEvaluator, active_evaluate, optimal_proposal  # noqa: E402


@pytest.fixture(scope="module")
def pool():
    return es.datasets.load("sim_pool")


@pytest.fixture(scope="module")
def results(pool):
    truth = pool["label"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = active_evaluate(pool["prob"], lambda i: truth[i], 300, "f1",
                              predictions=pool["pred"], rng=1)
        prop = optimal_proposal(pool["prob"], "f1", predictions=pool["pred"])
    return est, prop


def test_header_keys_are_capitalised_words(results):
    for res in results:
        keys = list(res._header())
        assert keys, type(res).__name__
        assert all(k[0].isupper() for k in keys), keys
    est = results[0]
    assert "n (labels)" not in est._header()       # "Distinct labels" says it once
    assert est._header()["Distinct labels"] == est.n_labels == est.glance()["n"].iloc[0]


def test_glance_and_tidy_share_no_column(results):
    for res in results:
        shared = set(res.glance().columns) & set(res.tidy().columns)
        assert shared <= {"method", "confidence_level"}, (type(res).__name__, shared)
    prop = results[1]
    assert {"kind", "epsilon", "n_pool", "criterion"} <= set(prop.glance().columns)
    assert {"plug_in", "expected_variance", "expected_gain"} <= set(prop.tidy().columns)


def test_proposal_header_does_not_repeat_the_table(results):
    prop = results[1]
    header = " ".join(prop._header())
    for column in prop.tidy().columns.drop("term"):
        assert column.split("_")[0] not in header.lower(), column


def test_every_measure_table_names_each_measure_once(results):
    est = results[0]
    title, table = est._extra_tables()[0]
    assert title.startswith("Every measure")
    assert "measure" not in table.columns and "model" not in table.columns
    assert list(table["term"]) == ["f1", "accuracy", "precision", "recall"]
    lines = str(est.summary()).splitlines()
    head = lines[[i for i, ln in enumerate(lines) if "Every measure" in ln][0] + 2]
    assert head.split()[0] == "Term" and "measure" not in head.lower()


def test_the_plot_inset_is_labelled(results):
    est = results[0]
    ax = est.plot()
    try:
        insets = ax.child_axes
        assert len(insets) == 1
        inset = insets[0]
        assert inset.get_xlabel() == "model log-odds"
        assert "N·q" in inset.get_ylabel()
        assert inset.get_title()
    finally:
        plt.close(ax.figure)


def test_skipped_items_show_in_the_header_only_when_there_are_some(pool):
    y = pool["label"].to_numpy()
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], rng=4)
    ids = ev.query(30)
    ev.update(ids[:-1], y[ids[:-1]])
    ev.skip(ids[-1:], reason="duplicate record")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ev.result()
    assert res._header()["Skipped items"] == 1
    assert "Skipped items" not in results_header(pool)


def results_header(pool):
    truth = pool["label"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return active_evaluate(pool["prob"], lambda i: truth[i], 100, "f1",
                               predictions=pool["pred"], rng=2)._header()
