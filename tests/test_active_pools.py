"""The pool-family generator of the active-estimation benchmarks (benchmarks/active_pools.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _scripts import load_script
from scipy import special, stats

ap = load_script("benchmarks/active_pools.py")

#: every cell but the 10-million one (its float32, chunked path is checked at LARGE below)
SMALL = [c for c in ap.DEV_FAMILY + ap.FRESH_FAMILY if c[1]["n_items"] < ap.LARGE]


@pytest.fixture(scope="module")
def pools():
    return {c[1]["name"]: ap.build_cell(c) for c in SMALL}


def test_families_are_fixed_disjoint_and_differ_in_law():
    fam = ap.list_families()
    assert len(fam["dev"]) == len(set(fam["dev"])) == 13
    assert len(fam["fresh"]) == len(set(fam["fresh"])) == 13
    assert not set(fam["dev"]) & set(fam["fresh"])
    # development laws are logit-normal only, fresh laws never: they differ in law, not seed
    assert {kw.get("law", "logit_normal") for _, kw in ap.DEV_FAMILY} == {"logit_normal"}
    assert "logit_normal" not in {kw.get("law", "logit_normal") for _, kw in ap.FRESH_FAMILY}
    # every member is in both families; sizes and prevalences span the stated ranges
    every = ap.DEV_FAMILY + ap.FRESH_FAMILY
    assert {f for f, _ in ap.DEV_FAMILY} == {f for f, _ in ap.FRESH_FAMILY} == set(ap.FAMILIES)
    assert min(kw["n_items"] for _, kw in every) == 20_000
    assert max(kw["n_items"] for _, kw in every) == 10_000_000
    assert min(kw["prevalence"] for _, kw in every) == 0.0003
    assert max(kw["prevalence"] for _, kw in every) == 0.10
    # acceptance's blind-spot cell (0.4 % hidden below 0.01) is in neither family
    assert all(kw.get("hidden_share") != 0.004 for _, kw in every)


def test_cells_selection():
    assert ap.cells("dev") == ap.DEV_FAMILY
    assert len(ap.cells("all")) == 26
    assert ap.cells(["fr_under"])[0][0] == "logistic"
    with pytest.raises(ValueError, match="unknown pool cells"):
        ap.cells(["nope"])


def test_shapes_dtypes_and_ranges(pools):
    for name, p in pools.items():
        n = p["meta"]["family"] and len(p["labels"])
        assert p["name"] == name
        assert p["scores"].shape == p["predictions"].shape == p["labels"].shape == (n,)
        assert p["scores"].dtype == np.float64
        assert p["labels"].dtype == p["predictions"].dtype == np.int8
        assert set(np.unique(p["labels"])) <= {0, 1}
        assert set(np.unique(p["predictions"])) <= {0, 1}
        assert np.isfinite(p["scores"]).all()
        if p["meta"]["family"] == "margins":
            assert p["scores"].min() < 0 < p["scores"].max()
            np.testing.assert_array_equal(p["predictions"], p["scores"] > 0)
        else:
            assert p["scores"].min() >= ap.CLIP and p["scores"].max() <= 1 - ap.CLIP


def test_prevalence_within_binomial_noise(pools):
    # the label total is Binomial(N, prevalence) (blind spots: k + Binomial(N - k, base),
    # smaller variance): 4.5 SD is exceeded with probability < 1e-5 per cell
    for name, p in pools.items():
        n, prev = p["labels"].size, p["meta"]["prevalence"]
        sd = np.sqrt(n * prev * (1 - prev))
        assert abs(p["meta"]["n_positives"] - n * prev) < 4.5 * sd, name
        assert abs(p["meta"]["expected_positives"] - n * prev) < 4.5 * sd, name


def test_deterministic_under_a_seed():
    cell = ap.cells(["dev_blind"])[0]
    a, b = ap.build_cell(cell), ap.build_cell(cell)
    for key in ("scores", "predictions", "labels"):
        np.testing.assert_array_equal(a[key], b[key])
    c = ap.make_pool("blind_spot", rng=1, **cell[1])
    assert not np.array_equal(a["labels"], c["labels"])
    g1 = ap.make_pool("calibrated", n_items=1000, prevalence=0.1, rng=np.random.default_rng(5))
    g2 = ap.make_pool("calibrated", n_items=1000, prevalence=0.1, rng=5)
    np.testing.assert_array_equal(g1["scores"], g2["scores"])


@pytest.mark.parametrize("shape, lo, hi", [("uniform", 1e-4, 1e-2), ("deep", 1e-6, 1e-4),
                                           ("tied", 0.004, 0.004)])
def test_blind_spot_exactly_as_stated(shape, lo, hi):
    p = ap.make_pool("blind_spot", n_items=25_000, prevalence=0.02, rng=3, spread=3.0,
                     shape=shape, hidden_share=0.0036)
    idx = p["meta"]["hidden_ids"]
    assert p["meta"]["n_hidden"] == len(np.unique(idx)) == 90       # round(0.0036 * 25,000)
    assert (p["labels"][idx] == 1).all()
    assert (p["scores"][idx] >= lo).all() and (p["scores"][idx] <= hi).all()
    assert (p["scores"][idx] < ap.BLIND_BELOW).all() and (p["predictions"][idx] == 0).all()
    # the rest follows the base law at (0.02 N - 90) / (N - 90): total within binomial noise
    rest = np.delete(p["labels"], idx)
    base = (0.02 * 25_000 - 90) / (25_000 - 90)
    assert abs(rest.sum() - base * rest.size) < 4.5 * np.sqrt(rest.size * base)


def test_laws_have_the_stated_mean():
    # logit-normal: the solved location checked by the trapezoid rule on a fine grid
    # (independent of the adaptive quadrature used to solve it)
    z = np.linspace(-14, 14, 400_001)
    def mean(m, s):
        return np.trapezoid(special.expit(m + s * z) * stats.norm.pdf(z), z)
    for prev, s in [(0.0003, 5.0), (0.02, 3.0), (0.1, 1.5)]:
        assert mean(ap._Law("logit_normal", prev, s).mu, s) == pytest.approx(prev, rel=1e-7)
    # two-group: share `prevalence` at logit mean 1, the rest solved
    law = ap._Law("two_group", 0.004, 1.5)
    assert 0.004 * mean(1.0, 1.5) + 0.996 * mean(law.mu, 1.5) == pytest.approx(0.004, rel=1e-7)
    # beta: the mean of Beta(prev k, (1 - prev) k) is prev by construction; a draw agrees
    draw = ap._Law("beta", 0.03, 1.0).draw(400_000, np.random.default_rng(0))
    assert abs(draw.mean() - 0.03) < 4.5 * np.sqrt(0.03 * 0.97 / 2 / 400_000)


def test_score_maps():
    p = np.array([0.001, 0.2, 0.5, 0.9, 0.999])
    ell = special.logit(p)
    np.testing.assert_allclose(special.logit(ap._score_map("logistic", dict(a=2.0, b=-1.0))(p)),
                               2 * ell - 1, rtol=1e-10)
    fold = ap._score_map("distorted", dict(kind="fold", knee=2.0))(p)
    np.testing.assert_allclose(fold[:3], p[:3])
    assert fold[4] < fold[3]                                   # non-monotone above the knee
    np.testing.assert_allclose(ap._score_map("distorted", dict(kind="probit"))(p),
                               stats.norm.cdf(ell))
    np.testing.assert_allclose(ap._score_map("distorted", dict(kind="cloglog"))(p),
                               1 - np.exp(-np.exp(ell)))
    np.testing.assert_allclose(ap._score_map("distorted", dict(kind="quantized"))(p),
                               [0.05, 0.25, 0.55, 0.95, 0.95])
    q = special.expit(np.array([-2.5, -1.9, 0.0, 1.9, 2.5]))
    np.testing.assert_allclose(ap._score_map("distorted", dict(kind="plateau"))(q),
                               [q[0], 0.5, 0.5, 0.5, q[4]])
    wig = ap._score_map("distorted", dict(kind="wiggle"))(special.expit(np.array([2.0, 3.0])))
    assert wig[1] < wig[0]                                     # 1 + 1.5 cos(l) < 0 near l = 3
    sat = ap._score_map("margins", dict(kind="saturating", scale=1.5))(p)
    np.testing.assert_allclose(sat, 1.5 * np.tanh(ell / 1.5))


def test_prediction_rules_and_truth(pools):
    p = pools["fr_topk_many"]
    assert p["predictions"].sum() == round(4.0 * 0.015 * 40_000)
    tied = pools["fr_segment"]       # 30 % of the items share one score: top-k breaks ties
    assert tied["predictions"].sum() == round(0.04 * 25_000)
    bad = pools["dev_cal_badthr"]
    np.testing.assert_array_equal(bad["predictions"], bad["scores"] > 0.05)
    truth = ap.pool_truth(np.array([1, 1, 0, 0, 1]), np.array([1, 0, 1, 0, 1]))
    assert (truth["tp"], truth["fp"], truth["fn"], truth["tn"]) == (2, 1, 1, 1)
    assert truth["f1"] == pytest.approx(2 * 2 / (2 * 2 + 1 + 1))
    assert truth["precision"] == pytest.approx(2 / 3) and truth["accuracy"] == 0.6
    assert np.isnan(ap.pool_truth(np.zeros(3), np.zeros(3))["precision"])


def test_large_pools_are_float32_and_light():
    p = ap.make_pool("distorted", n_items=ap.LARGE, prevalence=0.01, rng=0, law="two_group",
                     spread=1.5, kind="cloglog", top_k=1.0)
    assert p["scores"].dtype == np.float32 and p["labels"].dtype == np.int8
    assert p["predictions"].sum() == round(0.01 * ap.LARGE)
    assert p["scores"].nbytes + p["labels"].nbytes + p["predictions"].nbytes == 6 * ap.LARGE


@pytest.mark.parametrize("kw, match", [
    (dict(n_items=50, prevalence=0.1), "n_items"),
    (dict(n_items=1000, prevalence=0.0), "prevalence"),
    (dict(n_items=1000, prevalence=0.1, law="gamma"), "law"),
    (dict(n_items=1000, prevalence=0.1, threshold=0.5, top_k=1.0), "threshold"),
])
def test_bad_input(kw, match):
    with pytest.raises(ValueError, match=match):
        ap.make_pool("calibrated", rng=0, **kw)
    with pytest.raises(ValueError, match="family"):
        ap.make_pool("other", n_items=1000, prevalence=0.1, rng=0)
    with pytest.raises(ValueError, match="hidden_share"):
        ap.make_pool("blind_spot", n_items=1000, prevalence=0.01, rng=0, hidden_share=0.02)


# -- the harness's bookkeeping (benchmarks/active_families.py) ----------------------------------

def _load_harness():
    return load_script("benchmarks/active_families.py")


def test_harness_counts_failures_as_misses_and_pairs_the_oasis_ratio():
    af = _load_harness()
    nan = float("nan")
    base = dict(cell="c", family="calibrated", n_labels=500, measure="f1", truth=0.5,
                labels_used=500, stopped_by="", seconds=1.0, n_warnings=0)
    rows = [dict(base, method="m", rep=0, estimate=0.6, conf_low=0.4, conf_high=0.7, error=""),
            dict(base, method="m", rep=1, estimate=0.3, conf_low=0.2, conf_high=0.45, error=""),
            dict(base, method="m", rep=2, estimate=nan, conf_low=nan, conf_high=nan,
                 error="TypeError: boom"),
            dict(base, method="m", rep=3, estimate=nan, conf_low=0.0, conf_high=1.0, error="")]
    rows += [dict(base, method="oasis", rep=r, estimate=e, conf_low=nan, conf_high=nan,
                  error="") for r, e in enumerate([0.7, 0.5, 0.4, 0.6])]
    table = af.summarise(pd.DataFrame(rows), n_boot=200).set_index("method")
    m = table.loc["m"]
    # 4 runs: one covers, one misses, one failed (a miss), one undefined whose [0, 1] covers
    assert m["coverage"] == 0.5 and m["coverage_se"] == pytest.approx(np.sqrt(0.25 / 4))
    assert (m["failed"], m["undefined"], m["reps"]) == (1, 1, 4)
    assert m["bias"] == pytest.approx(((0.6 - 0.5) + (0.3 - 0.5)) / 2)
    assert m["rmse"] == pytest.approx(np.sqrt((0.1 ** 2 + 0.2 ** 2) / 2))
    assert m["median_width"] == pytest.approx(np.median([0.3, 0.25, 1.0]))
    assert m["first_error"] == "TypeError: boom"
    assert np.isnan(table.loc["oasis", "coverage"])          # OASIS gives no interval
    # ratio: each method's RMSE over its own finite runs, divided by OASIS's
    oasis_rmse = np.sqrt(np.mean(np.square([0.2, 0.0, -0.1, 0.1])))
    assert m["rmse_ratio_oasis"] == pytest.approx(m["rmse"] / oasis_rmse)
    assert table.loc["oasis", "rmse_ratio_oasis"] == pytest.approx(1.0)


def test_harness_plan_and_seeds():
    af = _load_harness()
    plan = af.make_plan(["design", "anytime"], {}, ["f1"], [500], False, {})
    assert [s["name"] for s in plan["specs"]] == ["anytime", "default"]
    assert plan["specs"][1].get("design") and not plan["oasis"]
    plan = af.make_plan(["model_based"], {}, ["f1"], [500], False, {})
    assert [s["name"] for s in plan["specs"]] == ["default"]
    assert plan["specs"][0].get("model_based") and not plan["specs"][0].get("design")
    with pytest.raises(SystemExit, match="unknown methods"):
        af.make_plan(["nope"], {}, ["f1"], [500], False, {})
    child = np.random.SeedSequence([2026, 1]).spawn(2)[1]
    a, b = af._seed(child, 500), af._seed(child, 500)
    assert a.generate_state(2).tolist() == b.generate_state(2).tolist()
    assert a.generate_state(2).tolist() != af._seed(child, 200).generate_state(2).tolist()


def test_second_fresh_family_is_fixed_and_differs_in_law():
    fam = ap.list_families()
    assert len(fam["fresh2"]) == len(set(fam["fresh2"])) == 6
    assert not set(fam["fresh2"]) & (set(fam["dev"]) | set(fam["fresh"]))
    # its law is in neither earlier family; "all" stays the first two families
    assert {kw.get("law") for _, kw in ap.FRESH2_FAMILY} == {"logit_t"}
    assert "logit_t" not in {kw.get("law", "logit_normal")
                             for _, kw in ap.DEV_FAMILY + ap.FRESH_FAMILY}
    assert ap.cells("fresh2") == ap.FRESH2_FAMILY and len(ap.cells("all")) == 26


def test_logit_t_law_and_band_blind_spot_as_stated():
    # the solved location against a trapezoid rule on a wide fine grid (t(4) density)
    law = ap._Law("logit_t", 0.01, 2.0)
    z = np.linspace(-400, 400, 2_000_001)
    mean = np.trapezoid(special.expit(law.mu + 2.0 * z) * stats.t.pdf(z, ap.T_DF), z)
    assert mean == pytest.approx(0.01, rel=1e-6)
    p = ap.make_pool("blind_spot", n_items=25_000, prevalence=0.02, rng=3, law="logit_t",
                     spread=1.5, shape="band", hidden_share=0.0036)
    idx = p["meta"]["hidden_ids"]
    assert (p["labels"][idx] == 1).all()
    assert (p["scores"][idx] >= 0.02).all() and (p["scores"][idx] < 0.2).all()


def test_real_pools_as_published(monkeypatch, tmp_path):
    """The real cells read the shared datasets as published; the counts and F1 are those
    their READMEs state (er_abt_buy: 53,753 rows, F1 0.5946; tweets100k: 20,000, 0.7702)."""
    from evalstats import datasets

    assert ap.list_families()["real"] == ["real_abt_prob", "real_abt_margin",
                                          "real_tweets_margin"]
    # absent data: a message and None, never a crash
    monkeypatch.setenv("EVALSTATS_DATA", str(tmp_path))
    monkeypatch.setattr(datasets, "find_shared_datasets", lambda: None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert ap.build_cell(ap.cells(["real_abt_prob"])[0]) is None
    monkeypatch.undo()
    try:
        pools = {kw["name"]: ap.build_cell((f, kw)) for f, kw in ap.REAL_FAMILY}
    except datasets.DatasetNotFoundError:   # pragma: no cover - defensive
        pytest.skip("shared datasets absent")
    if any(p is None for p in pools.values()):
        pytest.skip("the shared datasets folder is absent (set EVALSTATS_DATA)")
    abt, margin, tweets = (pools[n] for n in ap.list_families()["real"])
    assert abt["labels"].size == margin["labels"].size == 53_753
    assert tweets["labels"].size == 20_000
    assert abt["meta"]["f1"] == margin["meta"]["f1"] == pytest.approx(0.5946, abs=5e-5)
    assert tweets["meta"]["f1"] == pytest.approx(0.7702, abs=5e-5)
    assert abt["meta"]["family"] == "real" and abt["scores"].min() >= 0
    assert margin["meta"]["family"] == tweets["meta"]["family"] == "margins"
    assert not np.array_equal(abt["scores"], margin["scores"])


def test_the_scored_letter_pool_is_the_vignettes(monkeypatch, tmp_path):
    """letter's second half scored by a logistic regression fitted on its first: 10,000
    items, 396 positives (the second half's "A"s) and 358 predicted positives, as vignette
    03's own code prints for its letter pool (F1 0.878); absent data gives None."""
    pytest.importorskip("sklearn")
    from evalstats import datasets

    monkeypatch.setenv("EVALSTATS_DATA", str(tmp_path))
    monkeypatch.setattr(datasets, "find_shared_datasets", lambda: None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert ap.build_cell(ap.cells(["real_letter_a_lr"])[0]) is None
    monkeypatch.undo()
    pool = ap.build_cell(ap.cells(["real_letter_a_lr"])[0])
    if pool is None:
        pytest.skip("the shared datasets folder is absent (set EVALSTATS_DATA)")
    frame = datasets.load("letter")
    y = (frame["letter"] == "A").to_numpy().astype(int)[len(frame) // 2:]
    np.testing.assert_array_equal(pool["labels"], y)
    f = pool["predictions"]
    tp = int(np.sum((f == 1) & (y == 1)))
    assert pool["meta"]["f1"] == pytest.approx(2 * tp / (f.sum() + y.sum()))
    assert pool["labels"].size == 10_000 and 0 <= pool["scores"].min() <= 1
    assert (int(y.sum()), int(f.sum())) == (396, 358)
    assert pool["meta"]["f1"] == pytest.approx(0.878, abs=5e-4)
    assert "real_letter_a_lr" not in ap.list_families()["real"]
