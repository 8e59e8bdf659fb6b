"""The three ways to work (callback, offline design, sequential evaluator), input checks,
degenerate samples, the session file, recalibration and the budget calculator."""

from __future__ import annotations

import sqlite3
import warnings

import numpy as np
import pandas as pd
import pytest
from _models import rare_pool_without_false_positives

import evalstats as es
from evalstats._warnings import SmallSampleWarning, UndefinedEstimateWarning
from evalstats.active import (
    ActiveEvaluator,
    active_budget,
    active_design,
    active_evaluate,
    estimate_from_labels,
    optimal_proposal,
)

#: the papers' with-replacement design (the tests below check its draw-sequence semantics)
WR = {"design": "with_replacement"}


@pytest.fixture(scope="module")
def pool():
    return es.datasets.load("sim_pool")


class CountingOracle:
    def __init__(self, truth):
        self.truth = np.asarray(truth)
        self.asked: list[int] = []

    def __call__(self, ids):
        self.asked.extend(int(i) for i in ids)
        return self.truth[ids]


@pytest.mark.parametrize("budget", [2, 4, 6])
def test_sampler_stops_at_budget_th_distinct_label(budget):
    """Tiny pool with a peaked proposal: repeats happen, the oracle is asked once per item."""
    p1 = np.array([0.99, 0.5, 0.5, 0.01, 0.2, 0.7, 0.6, 0.4])
    truth = np.array([1, 0, 1, 0, 0, 1, 1, 0])
    oracle = CountingOracle(truth)
    ev = ActiveEvaluator(p1, "f1", **WR, rng=11)
    ids = ev.query(budget)
    assert len(ids) == budget == len(set(ids.tolist()))
    ev.update(ids, oracle(ids))
    res = ev.result()
    assert res.n_labels == budget == len(oracle.asked) == len(set(oracle.asked))
    # the last draw is the budget-th new item: stopping exactly there
    assert ev._draw_idx[-1] == ids[-1]
    assert res.n_draws == ev.n_draws >= budget


def test_repeats_reuse_cache_and_count_as_draws(pool):
    truth = pool["label"].to_numpy()
    oracle = CountingOracle(truth)
    res = active_evaluate(pool["prob"], oracle, 300, predictions=pool["pred"], **WR, rng=0,
                          batch_size=60)
    assert res.n_labels == 300 == len(set(oracle.asked)) == len(oracle.asked)
    assert res.n_draws >= 300
    assert res.n == 300 and res.df == res.n_draws - 1
    if res.n_draws > 300:
        assert any("repeated draws" in n for n in res.notes)


def test_passive_equals_plain_counts(pool):
    """Uniform q: Ĝ is the F1 of the drawn multiset (weights cancel)."""
    truth = pool["label"].to_numpy()
    res = active_evaluate(pool["prob"], lambda i: truth[i], 400, proposal="passive",
                          predictions=pool["pred"], **WR, rng=4)
    s = res.sample
    f = s.item_preds[s.draw_item, 0]
    y = s.item_labels[s.draw_item]
    tp, fp, fn = np.sum((f == 1) & (y == 1)), np.sum((f == 1) & (y == 0)), np.sum(
        (f == 0) & (y == 1))
    assert res.estimate == pytest.approx(2 * tp / (2 * tp + fp + fn), rel=1e-12)
    table = res.measures().set_index("term")
    assert table.loc["accuracy", "estimate"] == pytest.approx(np.mean(f == y), rel=1e-12)
    if tp + fp > 0:
        assert table.loc["precision", "estimate"] == pytest.approx(tp / (tp + fp), rel=1e-12)
    assert np.all(s.draw_weight == s.draw_weight[0])


def test_measures_table_and_several_models(pool):
    truth = pool["label"].to_numpy()
    preds = pd.DataFrame({"thr05": pool["pred"], "thr02": (pool["prob"] > 0.2).astype(int)})
    res = active_evaluate(pool["prob"], lambda i: truth[i], 200, predictions=preds, **WR, rng=2)
    table = res.measures()
    assert set(table["model"]) == {"thr05", "thr02"}
    assert set(table["measure"]) == {"f1", "accuracy", "precision", "recall"}
    # second model from the same weights, recomputed by hand
    s = res.sample
    f2, y = s.item_preds[s.draw_item, 1], s.item_labels[s.draw_item]
    v = s.draw_weight
    rec = np.sum(v * f2 * y) / np.sum(v * y)
    row = table[(table.model == "thr02") & (table.measure == "recall")].iloc[0]
    assert row["estimate"] == pytest.approx(rec, rel=1e-12)
    assert list(res.tidy().columns[:7]) == ["term", "estimate", "std_error", "conf_low",
                                            "conf_high", "confidence_level", "method"]
    assert len(res.glance()) == 1
    text = res.summary().as_text()
    for key in ("Distinct labels", "Random draws", "Design", "Interval"):
        assert key in text
    lo, hi = res.conf_int(0.99)
    lo95, hi95 = res.conf_int()
    assert lo <= lo95 <= res.estimate <= hi95 <= hi


def test_undefined_precision_is_nan_with_warning():
    p1 = np.full(50, 0.01)
    preds = np.zeros(50)
    preds[0] = 1                         # a single predicted positive, rarely drawn
    truth = np.zeros(50, int)
    ev = ActiveEvaluator(p1, "precision", predictions=preds, proposal="passive", **WR, rng=0)
    ids = ev.query(3)
    while 0 in ids:                      # make sure item 0 was not drawn
        ev = ActiveEvaluator(p1, "precision", predictions=preds, proposal="passive",
                             **WR, rng=int(ids.sum()))
        ids = ev.query(3)
    ev.update(ids, truth[ids])
    with pytest.warns(UndefinedEstimateWarning):
        res = ev.result()
    assert np.isnan(res.estimate) and not res.defined
    assert any("undefined" in n for n in res.notes)
    assert "undefined" in res.summary().as_text()
    assert all(np.isnan(res.conf_int()))


def test_zero_width_gets_wilson_interval_at_ess():
    p1 = np.array([0.9] * 10 + [0.1] * 10)
    truth = (p1 > 0.5).astype(int)       # a perfect classifier: every loss equal
    with pytest.warns(SmallSampleWarning):
        res = active_evaluate(p1, lambda i: truth[i], 8, "accuracy", **WR, rng=1)
    assert res.zero_width and res.estimate == 1.0 and res.std_error == 0.0
    lo, hi = res.conf_int()
    assert hi == pytest.approx(1.0) and lo < 1.0
    from statsmodels.stats.proportion import proportion_confint
    assert lo == pytest.approx(proportion_confint(res.ess, res.ess, 0.05, "wilson")[0])


@pytest.mark.parametrize(("scores", "match"), [
    (np.array([0.2, 1.3, 0.5]), r"`scores` must contain probabilities in \[0, 1\]"),
    (np.array([0.2, np.nan, 0.5]), r"`scores` must be finite"),
    (np.array([[0.2, 0.7], [0.5, 0.5]]), r"`scores` must be a probability matrix"),
    (np.array([]), r"`scores` must be of length >= 1"),
])
def test_bad_scores(scores, match):
    with pytest.raises(ValueError, match=match):
        active_evaluate(scores, lambda i: np.zeros(len(i)), 1)
    with pytest.raises(ValueError, match=match):
        optimal_proposal(scores)


def test_bad_arguments(pool):
    p = pool["prob"].to_numpy()
    with pytest.raises(ValueError, match=r"`n_labels` must be an integer >= 1; got 0"):
        active_evaluate(p, lambda i: i, 0)
    with pytest.raises(ValueError, match="`measure` must be one of"):
        active_evaluate(p, lambda i: i, 5, measure="auc")
    with pytest.raises(ValueError, match="`proposal` must be one of"):
        active_evaluate(p, lambda i: i, 5, proposal="greedy")
    with pytest.raises(TypeError, match="`oracle` must be a callable"):
        active_evaluate(p, [0, 1], 5)
    with pytest.raises(ValueError, match="`predictions` must be class labels"):
        active_evaluate(p, lambda i: i, 5, predictions=np.full(len(p), 2))
    with pytest.raises(ValueError, match="`n_labels` must be at most the pool size"):
        active_evaluate(p[:5], lambda i: i, 6)
    with pytest.raises(ValueError, match="`measure` must be 'accuracy' or 'error'"):
        optimal_proposal(np.full((4, 3), 1 / 3), "f1")


def test_bad_oracle_answer_keeps_labels(pool):
    truth = pool["label"].to_numpy()
    calls = []

    def oracle(ids):
        calls.append(len(ids))
        return truth[ids] if len(calls) == 1 else np.full(len(ids), 7)

    with pytest.raises(ValueError, match=r"`labels` must be in the label set") as exc:
        active_evaluate(pool["prob"], oracle, 100, predictions=pool["pred"], rng=0,
                        batch_size=40)
    assert exc.value.evaluator.n_labels == 40
    assert "kept" in str(exc.value)


def test_session_file_resumes_identically(pool, tmp_path):
    truth = pool["label"].to_numpy()
    kw = dict(predictions=pool["pred"], rng=9)
    ref = ActiveEvaluator(pool["prob"], "f1", **kw)
    for _ in range(3):
        ids = ref.query(30)
        ref.update(ids, truth[ids])
    path = tmp_path / "session.sqlite"
    ev = ActiveEvaluator(pool["prob"], "f1", path=path, **kw)
    ids = ev.query(30)
    ev.update(ids, truth[ids])
    ids = ev.query(30)
    del ev                                            # "crash" with a batch pending
    ev2 = ActiveEvaluator.open(path)
    assert ev2.n_labels == 30 and len(ev2.pending) == 30
    ev2.update(ids, truth[ids])
    ids = ev2.query(30)
    ev2.update(ids, truth[ids])
    a, b = ref.result(), ev2.result()
    assert a.estimate == b.estimate and a.n_draws == b.n_draws
    np.testing.assert_array_equal(a.sample.records.labels, b.sample.records.labels)
    assert a.conf_int() == b.conf_int()
    # plain SQLite, no pickled objects
    with open(path, "rb") as fh:
        assert fh.read(16) == b"SQLite format 3\x00"
    con = sqlite3.connect(path)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    con.close()
    assert tables == {"meta", "pool", "draws", "labels"}
    with pytest.raises(ValueError, match="`path` must be a new file"):
        ActiveEvaluator(pool["prob"], "f1", path=path)


def test_update_rejects_unknown_and_conflicting(pool):
    truth = pool["label"].to_numpy()
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], rng=0)
    ids = ev.query(5)
    with pytest.raises(ValueError, match="`ids` must be identifiers of pool items"):
        ev.update([10 ** 9], [0])
    not_drawn = next(i for i in range(len(truth)) if i not in set(ids.tolist()))
    with pytest.raises(ValueError, match="`ids` must be items returned by `query"):
        ev.update([not_drawn], [0])
    ev.update(ids, truth[ids])
    with pytest.raises(ValueError, match="consistent with labels given before"):
        ev.update(ids[:1], 1 - truth[ids[:1]])


def test_partial_labels_cut_the_draw_sequence(pool):
    truth = pool["label"].to_numpy()
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], **WR, rng=0)
    ids = ev.query(20)
    ev.update(ids[:10], truth[ids[:10]])
    res = ev.result()
    assert res.n_labels == 10
    assert any("not used yet" in n for n in res.notes)


def test_sealed_design_floats_survive_a_parser_off_by_a_few_ulps():
    """A sealed design's float cells give the same 12-digit canonical text (the one the row
    check hashes) when read back a few ulps off, as pandas < 3's default CSV parser may do
    (about 1 row in 150 of a real design was refused before the floats were rounded at
    sealing). Values on a 12th-digit rounding boundary are the ones that flip."""
    from evalstats.active._sealed_design import canon, seal_design

    edge = np.array([0.1234567890125, 2.0000000000005, 1 / 3, 7.5e-7 + 5e-19, 123.4567890125])
    raw_flips = sum(canon(a) != canon(b) for a, b in zip(edge, edge * (1 + 4e-16), strict=True))
    assert raw_flips > 0                      # the unrounded values do flip
    sealed = seal_design(pd.DataFrame({"id": np.arange(5), "pi": edge}), {"measure": "f1"})
    v = sealed["pi"].to_numpy()
    for w in (v * (1 + 4e-16), v * (1 - 4e-16), np.nextafter(v, np.inf)):
        assert [canon(a) for a in w] == [canon(a) for a in v]


def test_design_csv_roundtrip_equals_evaluator(pool, tmp_path):
    truth = pool["label"].to_numpy()
    design = active_design(pool["prob"], 150, "recall", **WR, rng=5, predictions=pool["pred"])
    assert len(design) == 150 and design["n_draws"].sum() >= 150
    assert np.allclose(design["weight"], 1 / (len(pool) * design["q"]))
    path = tmp_path / "to_label.csv"
    design.to_csv(path, index=False)
    # the fast parser ("high", pandas < 3's default) is exact only to within an ulp: the
    # design's floats are written at the 12 digits the row check hashes, so it still reads
    back = pd.read_csv(path, float_precision="high")
    labeled = pd.DataFrame({"id": back["id"], "label": truth[back["id"]]})
    res = estimate_from_labels(back, labeled)
    ev = ActiveEvaluator(pool["prob"], "recall", predictions=pool["pred"], **WR, rng=5)
    ids = ev.query(150)
    ev.update(ids, truth[ids])
    ref = ev.result()
    assert res.term == "recall"
    # the written weights are rounded to 12 significant digits
    assert res.estimate == pytest.approx(ref.estimate, rel=1e-10)
    assert res.std_error == pytest.approx(ref.std_error, rel=1e-10)
    assert res.n_draws == ref.n_draws
    # dict and aligned-array forms; a missing label cuts the sequence
    res2 = estimate_from_labels(back, dict(zip(labeled.id, labeled.label, strict=True)))
    assert res2.estimate == res.estimate
    partial = labeled.iloc[1:]
    res3 = estimate_from_labels(back, partial)
    assert res3.n_labels < 150 and any("no label" in n for n in res3.notes)
    with pytest.raises(ValueError, match="`design` must be a table with the columns"):
        estimate_from_labels(back.drop(columns="weight"), labeled)


def test_multiclass_accuracy():
    bundle = es.datasets.load("digits_pool")
    probs = bundle[[f"prob_{j}" for j in range(10)]].to_numpy()
    probs = probs / probs.sum(1, keepdims=True)
    truth = bundle["label"].to_numpy()
    res = active_evaluate(probs, lambda i: truth[i], 150, "accuracy",
                          predictions=bundle["pred"], rng=3)
    assert 0.8 < res.estimate <= 1.0
    assert list(res.measures()["measure"]) == ["accuracy"]


def test_squared_loss_end_to_end():
    rng = np.random.default_rng(0)
    mean = rng.normal(size=500)
    var = rng.uniform(0.2, 2.0, size=500)
    truth = mean + rng.normal(size=500) * np.sqrt(var)
    res = active_evaluate(mean, lambda i: truth[i], 200, "squared", variance=var, rng=1)
    assert res.term == "squared" and np.isfinite(res.std_error)
    lo, hi = res.conf_int()
    assert lo < res.estimate < hi


def test_recalibration_updates_proposal_and_weights(pool):
    truth = pool["label"].to_numpy()
    ev = ActiveEvaluator(pool["prob_overconfident"], "f1", predictions=pool["pred"],
                         recalibrate="platt", rng=0)
    q_first = ev.proposal.q.copy()
    for _ in range(4):
        ids = ev.query(40)
        ev.update(ids, truth[ids])
    q_later = ev.proposal.q
    assert not np.allclose(q_first, q_later)
    batches = np.asarray(ev._draw_batch)
    qs = np.asarray(ev._draw_q)
    # each draw carries the q of its own batch (several distinct q per item possible)
    assert len(np.unique(batches)) == 4
    res = ev.result()
    np.testing.assert_allclose(res.sample.draw_weight, 1 / (len(pool) * qs))
    assert res.proposal_kind == "optimal+platt"


def test_raw_margins_need_recalibration():
    pool = pd.DataFrame({"score": np.linspace(-3, 3, 400)})
    truth = (np.random.default_rng(0).random(400) < 1 / (1 + np.exp(-2 * pool.score))).astype(
        int)
    with pytest.raises(ValueError, match="`scores` must contain probabilities"):
        active_evaluate(pool.score, lambda i: truth[i], 50, design="with_replacement")
    res = active_evaluate(pool.score, lambda i: truth[i], 100, recalibrate="isotonic",
                          predictions=(pool.score > 0).astype(int), **WR, rng=0)
    assert res.n_labels == 100 and np.isfinite(res.estimate)
    # the πps design takes margins (negative values) as they are: logistic prior, learned
    res = active_evaluate(pool.score, lambda i: truth[i], 100, batch_size=25,
                          predictions=(pool.score > 0).astype(int), rng=0)
    assert res.design == "pps" and res.n_labels == 100 and np.isfinite(res.estimate)


def test_budget_calculator(pool):
    plan = active_budget(pool["prob"], "f1", predictions=pool["pred"], half_width=0.05)
    t = plan.table
    assert (np.diff(t["se_active"]) < 0).all() and (t["se_active"] < t["se_passive"]).all()
    assert plan.labels_needed_active < plan.labels_needed_passive
    # expected distinct labels: passive closed form N(1 − (1 − 1/N)^k)
    n = len(pool)
    k = t["n_draws_passive"].to_numpy()
    np.testing.assert_allclose(n * (1 - (1 - 1 / n) ** k), t["n_labels"], rtol=1e-3)
    wider = active_budget(pool["prob"], "f1", predictions=pool["pred"], half_width=0.1)
    assert wider.labels_needed_active <= plan.labels_needed_active
    with pytest.raises(ValueError, match="`half_width` must be a finite number > 0"):
        active_budget(pool["prob"], half_width=0)


def test_plots_and_reports(pool, tmp_path):
    import matplotlib.pyplot as plt

    truth = pool["label"].to_numpy()
    res = active_evaluate(pool["prob"], lambda i: truth[i], 100, predictions=pool["pred"],
                          rng=0)
    ax = res.plot()                      # one batch: every measure with its interval
    assert ax.get_xlabel() == "estimate"
    assert [t.get_text() for t in ax.get_yticklabels()] == list(res.measures()["term"])
    fig, given = plt.subplots()
    assert res.plot(ax=given) is given
    batched = active_evaluate(pool["prob"], lambda i: truth[i], 200, predictions=pool["pred"],
                              rng=0, batch_size=50)
    assert batched.plot().get_xlabel() == "distinct labels"     # the running estimate
    prop = optimal_proposal(pool["prob"], "recall", predictions=pool["pred"])
    assert prop.plot().get_yscale() == "log"
    assert len(np.asarray(prop)) == len(pool)
    plan = active_budget(pool["prob"], "f1", predictions=pool["pred"])
    plan.plot()
    out = es.report([res, prop, plan], path=tmp_path / "r.html")
    assert out is not None
    plt.close("all")
    run = res.running()
    assert run["n_labels"].is_monotonic_increasing


def test_generalized_risk_custom_loss():
    """Cost-sensitive loss over 3 labels: q ∝ sqrt(Σ p w²(ℓ−G)²) computed by hand."""
    probs = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4], [0.2, 0.2, 0.6]])
    cost = np.array([[0, 1, 4], [1, 0, 1], [4, 1, 0.0]])
    prop = optimal_proposal(probs, loss=cost, epsilon=0.0)
    f = probs.argmax(1)
    lm = cost[f]
    g = np.sum(probs * lm) / 4
    c = np.sqrt(np.sum(probs * (lm - g) ** 2, axis=1))
    assert prop.estimate == pytest.approx(g)
    np.testing.assert_allclose(prop.q, c / c.sum(), rtol=1e-12)


def test_no_warning_on_healthy_run(pool):
    truth = pool["label"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedEstimateWarning)
        active_evaluate(pool["prob"], lambda i: truth[i], 300, predictions=pool["pred"], rng=0)


def test_absolute_criterion_by_hand():
    """activeeval's deterministic variant: q ∝ Σ_y p(y|x) |w (ℓ − G̃)| (F1, by hand)."""
    p1 = np.array([0.9, 0.6, 0.3, 0.05])
    f = np.array([1, 1, 0, 0.0])
    prop = optimal_proposal(p1, "f1", predictions=f, epsilon=0.0, criterion="absolute")
    g = np.sum(f * p1) / np.sum(0.5 * f + 0.5 * p1)
    c = np.where(f == 1, p1 * (1 - g) + (1 - p1) * 0.5 * g, p1 * 0.5 * g)
    np.testing.assert_allclose(prop.q, c / c.sum(), rtol=1e-12)


def test_string_ids_survive_the_session_file(tmp_path):
    p1 = np.linspace(0.01, 0.99, 60)
    ids = np.array([f"item-{i}" for i in range(60)])
    truth = dict(zip(ids, (p1 > 0.5).astype(int), strict=True))
    ev = ActiveEvaluator(p1, "recall", ids=ids, **WR, rng=0, path=tmp_path / "s.db")
    got = ev.query(10)
    assert all(str(g).startswith("item-") for g in got)
    ev.update(got, [truth[g] for g in got])
    ev2 = ActiveEvaluator.open(tmp_path / "s.db")
    assert ev2.result().estimate == ev.result().estimate
    assert set(ev2.result().sample.item_ids) == set(got)


@pytest.mark.parametrize("level", [95, 1.5, "0.9", True])
def test_measures_validates_its_confidence_level(level):
    rng = np.random.default_rng(3)
    s = rng.uniform(size=400)
    y = (rng.uniform(size=400) < s).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = active_evaluate(s, lambda ids: y[ids], n_labels=100, rng=1)
    with pytest.raises((ValueError, TypeError), match="confidence_level"):
        res.measures(level)


def test_active_budget_takes_a_single_budget():
    s = np.random.default_rng(0).uniform(size=1000)
    one = active_budget(s, n_labels=100)
    assert list(one.table["n_labels"]) == [100]
    assert one.table.equals(active_budget(s, n_labels=[100]).table)


def test_with_replacement_estimate_on_the_boundary_warns():
    """15 positives in 20,000, no false positive, five false negatives among low scores:
    the papers' design draws none of them and reports F1 = 1 with a narrow interval that
    excludes the truth (0.8); that now says why."""
    s, y, f = rare_pool_without_false_positives(20_000)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        res = active_evaluate(s, lambda i: y[i], n_labels=300, predictions=f, rng=1, **WR)
    assert res.estimate == pytest.approx(1.0, abs=1e-12)
    assert (f * y).sum() * 2 / (f.sum() + y.sum()) == 0.8      # the truth
    assert any("on the boundary" in str(w.message) for w in rec)
    assert repr(res).endswith("!>")
    # the companion measures on the boundary are named too (recall 1 here, truth 2/3)
    edge = [str(w.message) for w in rec if "on the boundary" in str(w.message)]
    assert any("recall = 1" in m for m in edge)


def test_one_id_twice_in_one_update_needs_one_label():
    # before: update([q, q], [0, 1]) was accepted and the last label won silently
    s = np.random.default_rng(0).uniform(size=500)
    ev = ActiveEvaluator(s, "f1", predictions=(s > 0.5).astype(int), rng=0)
    q = ev.query(5)
    with pytest.raises(ValueError, match=r"got labels 0 and 1 for id \d+ in this call"):
        ev.update([q[0], q[0]], [0, 1])
    ev.update([q[0], q[0]], [1, 1])                    # the same label twice is fine


def test_with_replacement_census_is_exact():
    """Every item of a 10-item pool labeled with the with-replacement design: the pool's
    own F1 (exact enumeration: 2·4/(2·4 + 1 + 2) = 0.7273), zero width, in the evaluator
    and from its table (the draw-weighted ratio gave 0.650 [0.479, 0.789], the table 0.708)."""
    from evalstats.active import active_evaluate

    p = np.array([.9, .8, .7, .6, .55, .4, .3, .2, .1, .05])
    pred = (p > 0.5).astype(int)
    y = np.array([1, 1, 1, 0, 1, 0, 1, 0, 1, 0])
    tp, fp, fn = int(((pred == 1) & (y == 1)).sum()), int(((pred == 1) & (y == 0)).sum()), \
        int(((pred == 0) & (y == 1)).sum())
    f1 = 2 * tp / (2 * tp + fp + fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = active_evaluate(p, lambda i: y[i], 10, "f1", predictions=pred, rng=1,
                            design="with_replacement")
        d = es.active.active_design(p, 10, "f1", predictions=pred, rng=1,
                                    design="with_replacement")
        t = es.active.estimate_from_labels(d, y[d["id"].to_numpy()])
    for res in (r, t):
        assert res.estimate == pytest.approx(f1, rel=1e-12)
        lo, hi = res.conf_int()
        assert hi - lo < 1e-8


def test_reading_the_proposal_of_a_pps_evaluator_changes_nothing():
    """`ev.proposal` on the default πps design replaced the state result() uses: result()
    before any batch then returned NaN instead of its documented error."""
    from evalstats.active import ActiveEvaluator

    pool = es.datasets.load("sim_pool")
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], rng=1)
    assert ev.proposal.q.shape == (len(pool),)
    with pytest.raises(ValueError, match="after at least one labeled batch"):
        ev.result()


def test_result_sample_is_read_only():
    """`r.sample.item_labels[:] = 0` rewrote what measures() reported."""
    pool = es.datasets.load("sim_pool")
    y = pool["label"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = es.active.active_evaluate(pool["prob"], lambda i: y[i], 100, "f1",
                                      predictions=pool["pred"], rng=3)
    with pytest.raises(ValueError, match="read-only"):
        r.sample.records.labels[:] = 0


def test_a_two_column_probability_matrix_is_a_binary_pool():
    """(N, 2) probabilities were validated as a binary pool but picked the with-replacement
    design, and design='pps' was refused as multi-class; they now mean the same as the
    positive class's column."""
    from evalstats.active import active_evaluate

    rng = np.random.default_rng(0)
    p = rng.uniform(size=500)
    y = (rng.random(500) < p).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        two = active_evaluate(np.column_stack([1 - p, p]), lambda i: y[i], 100, "f1", rng=1)
        one = active_evaluate(p, lambda i: y[i], 100, "f1", rng=1)
    assert two.design == one.design == "pps"
    assert two.estimate == one.estimate and two.conf_int() == one.conf_int()


def test_with_replacement_ratio_stays_within_its_losses():
    """A weighted mean of losses that are all 1 is exactly 1: ``np.dot(vw, 1)/Σvw`` gave
    1 + 2e-16 on these 28 weights (an estimate outside its own interval [., 1.0], seen by
    a review in 34 with-replacement intervals)."""
    from evalstats.active._labeled_sample import hajek_estimate

    vw = np.array([0.00789154623705146, 79.91963797161148, 3.2228672473983178,
                   0.7966391827460546, 225.32844187566513, 0.0003623079504845691,
                   0.0041744811220437985, 0.05414099836301646, 112.61366554055718,
                   0.00040694780063930616, 0.0003006901069229073, 0.744380726347399,
                   0.000851875912234257, 0.013893167912019756, 7.037857692667978,
                   0.08211030883946388, 0.09818283228717939, 8.437905623687268,
                   424.10648544401283, 0.0009796887085096566, 0.09739844048523552,
                   503.67697920057896, 0.07534465385839052, 9.138376676731628,
                   0.04761470719687531, 86.3786241097085, 7.015685660618728,
                   293.92425597455764])
    ones = np.ones(vw.size)
    assert np.dot(vw, ones) / vw.sum() > 1.0            # the rounding this guards against
    r = hajek_estimate(vw, ones, ones)
    assert r.estimate == 1.0 and r.zero_width
    r = hajek_estimate(vw, ones, np.r_[0.25, ones[1:]])
    assert 0.25 <= r.estimate <= 1.0


def test_pps_refuses_a_zero_defensive_share():
    """epsilon=0 would give zero draw probability to items the sizes give zero (the
    predicted negatives for precision): the estimates of the measures they carry were
    silently wrong, so it is refused by name; with replacement it stays allowed."""
    from evalstats.active import ActiveEvaluator, active_design

    rng = np.random.default_rng(3)
    p = rng.beta(0.5, 3, 500)
    pred = (p > 0.5).astype(int)
    with pytest.raises(ValueError, match="`epsilon` must be a number in \\(0, 1\\]"):
        ActiveEvaluator(p, "precision", predictions=pred, epsilon=0)
    with pytest.raises(ValueError, match="`epsilon`"):
        active_design(p, 50, "precision", predictions=pred, epsilon=0.0, rng=1)
    ActiveEvaluator(p, "precision", predictions=pred, epsilon=0, design="with_replacement")
    ActiveEvaluator(p, "precision", predictions=pred, epsilon=0, proposal="passive")


def test_beta_other_than_one_needs_fbeta():
    """beta=3 with measure='f1' was silently ignored (the result was F1)."""
    from evalstats.active import ActiveEvaluator

    p = np.random.default_rng(0).random(200)
    with pytest.raises(ValueError, match="`beta` must be 1 \\(the default\\) unless"):
        ActiveEvaluator(p, "f1", beta=3)
    ev = ActiveEvaluator(p, "fbeta", beta=3)
    assert ev._spec.name == "f_beta=3"
    ActiveEvaluator(p, "f1", beta=1)


def test_active_evaluate_warns_once_per_message():
    """The result was computed twice (run() and again with the call), so every warning
    came twice."""
    p = np.random.default_rng(0).random(300)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        es.active.active_evaluate(p, lambda i: np.zeros(len(i), int), 30, rng=0)
    messages = [str(w.message) for w in caught]
    assert messages and len(messages) == len(set(messages))


def test_pps_plot_inset_shows_the_draws_and_the_legend_names_a_sequence():
    import matplotlib

    matplotlib.use("Agg")
    pool = es.datasets.load("sim_pool")
    y = pool["label"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = es.active.active_evaluate(pool["prob"], lambda i: y[i], 300, rng=1,
                                        predictions=pool["pred"], interval="anytime")
    rec = res.sample.records
    assert len(res.plot_q) == int((~rec.certain).sum())
    np.testing.assert_array_equal(res.plot_q, rec.q[~rec.certain])
    ax = res.plot()
    assert "confidence sequence" in [t.get_text() for t in ax.get_legend().get_texts()][0]
    assert ax.child_axes[0].get_title().startswith("Draws")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        two = es.active.active_evaluate(pool["prob"], lambda i: y[i], 150, rng=1,
                                        predictions=pool["pred"], interval="anytime")
    forest = two.plot()                  # two batches: every measure as a forest plot
    assert "confidence sequence" in forest.get_legend().get_texts()[0].get_text()


def test_passive_defensive_share_reads_the_same_offline():
    """A passive design reported epsilon 1.0 online and 0.1 from its design file."""
    from evalstats.active import ActiveEvaluator, estimate_from_labels

    pool = es.datasets.load("sim_pool")
    y = pool["label"].to_numpy()
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], rng=3,
                         proposal="passive")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        on = ev.run(lambda i: y[i], 200)
        d = ev.design()
        off = estimate_from_labels(d, y[d["id"]])
    assert on.epsilon == off.epsilon == 1.0


def test_a_column_of_scores_gets_a_remedy():
    from evalstats.active import ActiveEvaluator

    p = np.random.default_rng(0).random((50, 1))
    with pytest.raises(ValueError, match=r"`scores.ravel\(\)`"):
        ActiveEvaluator(p, "f1")


def test_a_degenerate_proposal_is_an_input_warning_not_an_undefined_estimate():
    """Scores all 0 give a proposal that is zero everywhere: the estimate is defined (it
    samples uniformly), so the warning is about the input."""
    from evalstats._warnings import InputWarning

    y = (np.random.default_rng(0).random(500) < 0.05).astype(int)
    with pytest.warns(InputWarning, match="degenerate"):
        res = es.active.active_evaluate(np.zeros(500), lambda i: y[i], 100, rng=0)
    assert res.defined
