"""The model's reach: where a predictive model of the never-labeled items puts the measure.

Sources of the expected values:
* The identity behind ``_rare.model_reach``: batch ``k``'s estimate of a group total
  differs from ``Σ_{S_k} y + Σ_{later} y + Σ_{never} y`` (the truth) by ``D_k`` computed from
  the sample alone once ``Σ_{never} y`` is known. Replacing the predictive totals by the true
  number of positives among the never-labeled items (variance 0) must therefore return the
  measure computed directly from the pool's labels, to rounding, for every estimator,
  measure and batch prefix.
* ``StrataModel.predictive``: the Gamma–Poisson posterior of each stratum's calibration ratio
  (``Gamma(e + Σ y, e + Σ m₀)``) and the predictive mean/variance of the never-labeled total
  written out stratum by stratum here with explicit loops (no bincount), from the docstring.
* The rare-regime estimate: the prequential log-likelihood of each predictive model (batch
  ``k``'s labels under the model fitted on the batches before it: the scores, and their
  logistic recalibration refitted on those labels) recomputed here item by item, and the
  estimate ``Σ w_j G̃_j`` with ``w ∝ exp(ℓ)``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from evalstats.active import ActiveEvaluator, _ht
from evalstats.active._calibration import apply_recalibration, fit_recalibration
from evalstats.active._design import StrataModel
from evalstats.active._intervals import interval
from evalstats.active._rare import model_names


def _pool(n=3000, seed=3):
    rng = np.random.default_rng(seed)
    s = rng.beta(0.5, 8, n)
    y = (rng.random(n) < s).astype(float)
    return s, y, (s > 0.3).astype(float)


def _label_batches(ev, y, n_batches, size):
    """Label ``n_batches`` batches of ``size`` (warnings silenced); the design sample."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(n_batches):
            ids = ev.query(size)
            ev.update(ids, y[ids])
        return ev._pps_sample()[0]


def _truth(measure, f, y):
    tp, fp, fn = (f * y).sum(), (f * (1 - y)).sum(), ((1 - f) * y).sum()
    return {"f1": 2 * tp / (2 * tp + fp + fn), "recall": tp / (tp + fn),
            "precision": tp / (tp + fp), "accuracy": float(np.mean(f == y))}[measure]


@pytest.mark.parametrize("estimator", ["calibrated", "difference", "horvitz_thompson"])
@pytest.mark.parametrize("measure", ["f1", "recall", "precision", "accuracy"])
def test_reach_with_the_true_never_labeled_totals_is_the_truth(estimator, measure,
                                                               monkeypatch):
    monkeypatch.setattr(_ht, "RARE_SKEW", -1.0)      # every floored group takes the reach
    s, y, f = _pool()
    ev = ActiveEvaluator(s, measure, predictions=f, rng=1, design="pps", adaptive=True,
                         estimator=estimator)
    sample = _label_batches(ev, y, 3, 60)
    for k, bt in enumerate(sample.batches):
        seen = np.zeros(len(s), dtype=bool)
        seen[sample.item_ids[sample.item_batch <= k]] = True
        never = ~seen
        bt["never"] = [dict(never_mass_f=[float(y[never & (f == 1)].sum())],
                            never_mass_f0=[float(y[never & (f == 0)].sum())],
                            never_var_f=[0.0], never_var_f0=[0.0])]
    truth = _truth(measure, f, y)
    for k_used in (1, 2, 3):
        r = sample.estimate(ev._spec, 0, n_batches=k_used)
        (g_model, sd_model), = r["reach"]
        assert g_model == pytest.approx(truth, abs=1e-12)
        assert sd_model == 0.0
        # one predictive model: the estimate is its prediction, here the truth itself
        assert r["model_weights"] == (1.0,) and r["estimate"] == g_model
        # the interval holds the (exact) model point at any level
        for level in (0.5, 0.95):
            lo, hi = interval(r["design_estimate"], r["std_error"], bounded=True, level=level,
                              method="wilson", n_eff=r["n_eff"], se_low=r["se_low"],
                              se_high=r["se_high"], reach=r["reach"])
            assert lo - 1e-12 <= truth <= hi + 1e-12


@pytest.mark.parametrize("measure", ["f1", "recall", "precision", "accuracy"])
def test_mixed_model_pairs_put_the_measure_where_their_group_masses_say(measure,
                                                                        monkeypatch):
    """Two predictive models: the true never-labeled totals, and the same with ``Δ₁ = 3``
    extra positives among the never-drawn predicted positives and ``Δ₀ = 7`` among the
    negatives. Each pair ``(j₁, j₀)`` must give the measure computed from the pool's counts
    with ``TP += Δ₁·[j₁ = 1]`` (a positive among predicted positives) and ``FN +=
    Δ₀·[j₀ = 1]`` (written out here), to rounding; σ = 0 since the variances are 0."""
    monkeypatch.setattr(_ht, "RARE_SKEW", -1.0)
    s, y, f = _pool()
    ev = ActiveEvaluator(s, measure, predictions=f, rng=1, design="pps", adaptive=True)
    sample = _label_batches(ev, y, 3, 60)
    d1, d0 = 3.0, 7.0
    for k, bt in enumerate(sample.batches):
        seen = np.zeros(len(s), dtype=bool)
        seen[sample.item_ids[sample.item_batch <= k]] = True
        t1, t0 = float(y[~seen & (f == 1)].sum()), float(y[~seen & (f == 0)].sum())
        bt["never"] = [dict(never_mass_f=[m1], never_mass_f0=[m0], never_var_f=[0.0],
                            never_var_f0=[0.0]) for m1, m0 in ((t1, t0), (t1 + d1, t0 + d0))]
    tp, fp, fn = (f * y).sum(), (f * (1 - y)).sum(), ((1 - f) * y).sum()
    n = len(y)
    r = sample.estimate(ev._spec, 0)
    got = dict(zip(r["reach_models"], r["reach"], strict=True))
    assert sorted(got) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    for (j1, j0), (g, sd) in got.items():
        a, c = tp + d1 * j1, fn + d0 * j0            # TP, FN of the pair's world
        b = fp - d1 * j1                             # a never-drawn f = 1 item turned positive
        want = {"f1": 2 * a / (2 * a + b + c), "recall": a / (a + c),
                "precision": a / (a + b), "accuracy": (n - b - c) / n}[measure]
        assert g == pytest.approx(want, abs=1e-9) and sd == 0.0


def test_predictive_matches_stratum_by_stratum_gamma_poisson():
    rng = np.random.default_rng(5)
    n = 400
    scores = rng.beta(0.4, 4, n)
    preds = np.column_stack([(scores > 0.2), (scores > 0.1)]).astype(float)
    model = StrataModel(scores, scores, n_strata=6)
    idx = rng.choice(n, 80, replace=False)
    y = (rng.random(80) < scores[idx] * 1.5).astype(float)
    base = np.clip(scores * 0.8, 0, 1)
    events = 1.0
    got = model.predictive(idx, y, preds, base=base, events=events)
    never = np.ones(n, dtype=bool)
    never[idx] = False
    for j in range(2):
        for key, grp in (("f", 1.0), ("f0", 0.0)):
            mean = var = 0.0
            for st in range(model.n_strata):
                lab = [i for i, ix in enumerate(idx) if model.stratum[ix] == st]
                shape = events + sum(y[i] for i in lab)
                rate = events + sum(base[idx[i]] for i in lab)
                rho, v_rho = shape / rate, shape / rate ** 2
                items = [i for i in range(n) if never[i] and model.stratum[i] == st
                         and preds[i, j] == grp]
                p = sum(base[i] for i in items)
                q = sum(base[i] ** 2 for i in items)
                mean += rho * p
                # Bernoulli variance given ρ, plus Var(ρ)·P² where no labeled event was seen
                v = rho * p - (v_rho + rho ** 2) * q + (v_rho * p * p if shape <= events
                                                        else 0.0)
                var += max(v, 0.0)
            assert got[f"never_mass_{key}"][j] == pytest.approx(mean, rel=1e-10)
            assert got[f"never_var_{key}"][j] == pytest.approx(var, rel=1e-10, abs=1e-12)


def test_predictive_ignores_labels_the_scores_call_near_certain_negatives():
    # 400 labeled negatives where the scores expect 0.04 positives: the ratio moves to
    # 1/1.04 (a Beta–Bernoulli mean with 10 pseudo-labels would fall to 10/410)
    scores = np.concatenate([np.full(500, 1e-4), np.full(500, 0.2)])
    model = StrataModel(scores, scores, n_strata=2)
    got = model.predictive(np.arange(400), np.zeros(400), np.zeros((1000, 1)))
    expected = 100 * 1e-4 / (1.0 + 400 * 1e-4) + 500 * 0.2
    assert got["never_mass_f0"][0] == pytest.approx(expected, rel=1e-9)


def _rare_pool(n=30_000, seed=7):
    """Calibrated scores, ~0.05 % positives: a small group at logit ~ N(1, 1.5²), the rest at
    logit ~ N(−9, 1.5²) (the far tail holds a few false negatives no budget finds)."""
    rng = np.random.default_rng(seed)
    group = rng.random(n) < 0.0004
    p = 1 / (1 + np.exp(-np.where(group, rng.normal(1, 1.5, n), rng.normal(-9, 1.5, n))))
    return p, (rng.random(n) < p).astype(float), (p > 0.5).astype(float)


def _f1_runs(p, y, f, reps, labels=300):
    tp, fp, fn = (f * y).sum(), (f * (1 - y)).sum(), ((1 - f) * y).sum()
    truth = 2 * tp / (2 * tp + fp + fn)
    hits, widths, rare = 0, [], 0
    for r in range(reps):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = ActiveEvaluator(p, "f1", predictions=f, rng=1000 + r, design="pps",
                                 adaptive=True)
            while ev.n_labels < labels:
                ids = ev.query(100)
                ev.update(ids, y[ids])
            lo, hi = ev.result().conf_int()
            rare += bool(ev._pps_sample()[0].estimate(ev._spec)["reach"])
        hits += lo <= truth <= hi
        widths.append(hi - lo)
    return hits / reps, float(np.mean(widths)), rare


@pytest.mark.slow
def test_rare_pool_reach_keeps_coverage_and_narrows_the_floor(monkeypatch):
    p, y, f = _rare_pool()
    reps = 80
    cover, width, rare = _f1_runs(p, y, f, reps)
    monkeypatch.setattr(_ht, "RARE_SKEW", np.inf)             # the floor alone
    cover_floor, width_floor, _ = _f1_runs(p, y, f, reps)
    # measured (seeds 1000..1079; 19 positives, 11 of them false negatives): reach 0.988
    # coverage, mean width 0.598, 79 of 80 runs in the rare regime; the floor alone 0.975,
    # width 0.840 (binomial SE of a coverage ≈ 0.015 at 0.98)
    assert rare >= 0.8 * reps
    assert cover >= 0.88
    assert width <= 0.85 * width_floor


def test_cached_predictive_totals_and_sample_equal_a_fresh_replay():
    """Batch k's predictive totals are kept between ``result()`` calls (they depend on the
    labels of batches <= k only) and the whole sample until a label is added: a fresh
    replay with both caches emptied must give the same estimate, interval and totals."""
    s, y, f = _pool(seed=5)
    ev = ActiveEvaluator(s, "f1", predictions=f, rng=2, design="pps", adaptive=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(4):
            ids = ev.query(50)
            ev.update(ids, y[ids])
            cached = ev.result()
            assert ev.result() is not None and ev._pps_sample() is ev._pps_sample()
            ev._pps._never.clear()
            ev._pps_memo = None
            fresh = ev.result()
            assert fresh.estimate == cached.estimate
            assert fresh.tidy().equals(cached.tidy())
            a, b = (ev._pps_sample()[0].batches for _ in range(2))
            assert [bt["never"] for bt in a] == [bt["never"] for bt in b]
        n_before = len(ev._pps._never)
        ids = ev.query(50)                 # a new, unlabeled batch: the sample is unchanged
        assert ev._pps_sample()[1] == 50 and len(ev._pps._never) == n_before


def test_next_loglik_matches_an_item_by_item_gamma_poisson_loglik():
    rng = np.random.default_rng(8)
    n = 300
    scores = rng.beta(0.5, 3, n)
    y_all = (rng.random(n) < scores).astype(float)
    preds = np.column_stack([scores > 0.3, scores > 0.1]).astype(float)
    model = StrataModel(scores, scores, n_strata=5)
    fit, new = np.arange(0, 120), np.arange(150, 200)
    base = np.clip(1.3 * scores, 0, 1)
    got = model.next_loglik(fit, y_all[fit], new, y_all[new], preds, base=base, events=1.0)
    for j in range(2):
        want = {"f": 0.0, "f0": 0.0}
        for i in new:
            s_i = model.stratum[i]
            members = [t for t in fit if model.stratum[t] == s_i]
            a = 1.0 + sum(y_all[t] for t in members)
            b = 1.0 + sum(base[t] for t in members)
            p0 = (b / (b + base[i])) ** a            # P(no event), ρ ~ Gamma(a, b)
            ll = np.log(1 - p0) if y_all[i] == 1 else np.log(p0)
            want["f" if preds[i, j] == 1 else "f0"] += ll
        assert got["next_ll_f"][j] == pytest.approx(want["f"], rel=1e-12)
        assert got["next_ll_f0"][j] == pytest.approx(want["f0"], rel=1e-12)


_PAIRS = [(0, 0), (1, 1), (0, 1), (1, 0)]   # (model of f = 1, model of f = 0), as model_reach


def _loglik_by_hand(p, f, sample, strata, n_batches):
    """``ℓ[g][j]``: batch ``k``'s labels of prediction group ``g`` under model ``j`` (the
    scores, their recalibration) fitted on the batches before ``k``, item by item."""
    ll = {0: np.zeros(2), 1: np.zeros(2)}
    for k in range(1, n_batches):
        prev, cur = sample.item_batch < k, sample.item_batch == k
        ids_p, y_p = sample.item_ids[prev], sample.item_labels[prev]
        recal = apply_recalibration(p, fit_recalibration(p[ids_p], y_p,
                                                         sample.item_pi[prev] ** -0.5))
        for j, base in enumerate((p, recal)):
            for i, yi in zip(sample.item_ids[cur], sample.item_labels[cur], strict=True):
                same = strata[ids_p] == strata[i]
                a, b = 1.0 + y_p[same].sum(), 1.0 + base[ids_p][same].sum()
                p0 = (b / (b + base[i])) ** a
                ll[int(f[i])][j] += np.log(1 - p0) if yi == 1 else np.log(p0)
    return ll


def _softmax(v):
    w = np.exp(np.asarray(v) - np.max(v))
    return w / w.sum()


def test_rare_regime_weights_score_each_group_with_its_own_model(monkeypatch):
    """Only the predicted negatives in the rare regime (their floor's skewness forced
    high): the estimate averages the four pairs (model of the predicted positives, model of
    the negatives) with weights ``∝ exp(ℓ₁[j₁] + ℓ₀[j₀])``, each group's labels scored by
    its own model. The first rule scored the rare group alone with one model for both
    groups (``∝ exp(ℓ₀[j])`` on the pairs ``j₁ = j₀``): other weights here (checked, so the
    test can fail); on tweets_rare with ``epsilon=0.01`` it left a model refuted by the
    predicted positives' labels at weight 0.3 and biased F1 2.7-fold."""
    monkeypatch.setattr(_ht, "_skew", lambda bt, grp, j: 1e12 if grp == "f0" else 0.0)
    rng = np.random.default_rng(3)          # 400 overconfident predicted positives (1 %)
    p = np.r_[rng.uniform(0.55, 0.95, 400), rng.beta(0.5, 60, 7600)]
    y = (rng.random(8000) < np.r_[np.full(400, 0.01), p[400:] / 4]).astype(float)
    f = (p > 0.5).astype(float)
    ev = ActiveEvaluator(p, "f1", predictions=f, rng=4, design="pps", adaptive=True)
    sample = _label_batches(ev, y, 4, 60)
    r = sample.estimate(ev._spec, 0)
    ll = _loglik_by_hand(p, f, sample, ev._pps.model.stratum, 4)
    w = _softmax([ll[1][j1] + ll[0][j0] for j1, j0 in _PAIRS])
    first_rule = _softmax(ll[0])             # diagonal pairs only, the rare group scored
    assert len(r["reach"]) == 4
    assert r["model_weights"] == pytest.approx(tuple(w), rel=1e-9, abs=1e-12)
    assert r["estimate"] == pytest.approx(sum(wj * g for wj, (g, _) in zip(w, r["reach"],
                                                                          strict=True)),
                                          rel=1e-12)
    old = sum(wj * g for wj, (g, _) in zip(first_rule, r["reach"][:2], strict=True))
    assert abs(r["estimate"] - old) > 1e-4


def test_rare_regime_estimate_is_the_prequentially_weighted_prediction(monkeypatch):
    """Every group in the rare regime (``RARE_SKEW = −1``): the estimate must be
    ``Σ w G̃`` over the model pairs with ``w ∝ exp(ℓ₁[j₁] + ℓ₀[j₀])``, ``ℓ_g[j]`` the
    log-likelihood of group ``g``'s labels of batches 1..K−1 under model ``j`` fitted on the
    batches before (recomputed here); the interval holds the estimate and the design-based
    estimate."""
    monkeypatch.setattr(_ht, "RARE_SKEW", -1.0)
    p, y, f = _rare_pool(n=8000, seed=11)
    ev = ActiveEvaluator(p, "f1", predictions=f, rng=4, design="pps", adaptive=True)
    sample = _label_batches(ev, y, 4, 60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ev.result()
    r = sample.estimate(ev._spec, 0)
    ll = _loglik_by_hand(p, f, sample, ev._pps.model.stratum, 4)
    w = _softmax([ll[1][j1] + ll[0][j0] for j1, j0 in _PAIRS])
    assert len(r["reach"]) == 4
    assert r["model_weights"] == pytest.approx(tuple(w), rel=1e-9, abs=1e-12)
    assert r["estimate"] == pytest.approx(sum(wj * g for wj, (g, _) in zip(w, r["reach"],
                                                                          strict=True)),
                                          rel=1e-12)
    assert res.estimate == r["estimate"] and res.design_estimate == r["design_estimate"]
    lo, hi = res.conf_int()
    assert lo <= res.estimate <= hi and lo <= res.design_estimate <= hi
    # the note says what the 95 % is over (module docstring of _rare: one pool's hidden
    # positives are a fixed number, so its coverage is near 1 or falls, not 95 %)
    note = [n for n in res.notes if "predictive models of the never-labeled" in n]
    assert len(note) == 1 and "over the process that produced the labels" in note[0]


def test_next_loglik_of_a_stratum_of_positives_is_not_decided_by_a_clip():
    """Nineteen labeled positives at scores 0.80–0.98: E[ρ] m₀ > 1 for the next item. It
    scored log(1e-12) = −27.6 when negative under either base (the clip constant, which then
    decided the weights); the Gamma–Poisson probability of an event stays below 1 and the
    two bases differ (review of the prequential weights)."""
    s = np.r_[np.linspace(0.80, 0.99, 20), np.full(980, 0.001)]
    model = StrataModel(s, s, n_strata=2)
    got = [model.next_loglik(np.arange(19), np.ones(19), np.array([19]), np.zeros(1),
                             np.ones((1000, 1)), base=b)["next_ll_f"][0]
           for b in (s, 0.999 * s)]
    a, b = 20.0, 1.0 + s[:19].sum()
    assert got[0] == pytest.approx(a * np.log(b / (b + s[19])), rel=1e-12)
    assert -27 < got[0] < 0 and got[0] != got[1]


def test_raw_margins_predict_never_drawn_labels_with_the_recalibration_only():
    """Raw margins (negative scores) have no probability scale: once the recalibration is
    fitted, it is the only predictive model of the never-drawn labels; scores given as
    probabilities keep both models."""
    import warnings

    from evalstats.active import ActiveEvaluator

    rng = np.random.default_rng(8)
    margin = rng.normal(-2.0, 1.5, 3000)
    y = (rng.random(3000) < 1 / (1 + np.exp(-(margin - 1)))).astype(int)
    counts = {}
    for name, scores in (("raw", margin), ("prob", 1 / (1 + np.exp(-margin)))):
        ev = ActiveEvaluator(scores, "f1", predictions=(margin > 0).astype(int), rng=2,
                             design="pps", adaptive=True,
                             **({"recalibrate": None} if name == "prob" else {}))
        for _ in range(3):
            ids = ev.query(40)
            ev.update(ids, y[ids])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sample, _ = ev._pps_sample()
        counts[name] = [nv["model"] for nv in sample.batches[-1]["never"]]
    assert counts["raw"] == ["recalibrated"] and counts["prob"] == ["scores", "recalibrated"]
    # the summary's names of each pair are read from these entries, not from positions
    reach = [(0.1, 0.01, (0, 0))]
    assert model_names({"never": [{"model": "recalibrated"}]}, reach) == [
        ("recalibrated", "recalibrated")]
