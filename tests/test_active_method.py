"""The default active method against independent computations.

* exact unbiasedness of the default path (adaptive batches, model refits, certainty
  stratum, successive draws) by enumerating every draw sequence of small pools, with the
  pseudo-outcomes recomputed from their definition;
* the variance of the pool totals in closed form (one batch, one draw);
* the model-expected (predictable) variance of each draw by enumerating every label vector
  of the items left under the batch model;
* the score interval against a brute-force scan of its defining inequality;
* the betting capital against a direct product.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import evalstats as es
from evalstats.active._aipw import (
    DrawRecords,
    pseudo_outcomes,
    ratio_coefficients,
    ratio_estimate,
    score_interval,
)
from evalstats.active._confseq import one_side
from evalstats.active._measures import measure_spec
from evalstats.active._optimal_proposal import Pool
from evalstats.active._successive_design import (
    SuccessiveDesign,
    _model_variance,
    certain_items,
    recalibrate,
    successive_order,
)

F1 = measure_spec("f1")


def _pool(p, f, y):
    return Pool(np.asarray(p, float), np.asarray(f, float).reshape(-1, 1), ["model"], True), \
        np.asarray(y, float)


POOLS = {
    # 6 items: two predicted positives (one wrong), a hidden positive at a low score
    "small": _pool([0.9, 0.6, 0.3, 0.2, 0.05, 0.01], [1, 1, 0, 0, 0, 0], [1, 0, 1, 0, 0, 1]),
    # 7 items, overconfident scores
    "overconfident": _pool([0.99, 0.97, 0.7, 0.02, 0.01, 0.005, 0.001],
                           [1, 1, 1, 0, 0, 0, 0], [1, 0, 1, 1, 0, 0, 1]),
}


def _paths(design: SuccessiveDesign, y: np.ndarray, batches: list[int], prob: float = 1.0):
    """Every sequence of the default design with its probability, computed here from the
    plan's sizes (``Π s_x / Σ_{R_t} s``), independently of the recorded ``q``."""
    k = len(design.batches)
    if k == len(batches):
        yield design, prob
        return
    lab = np.asarray(design.rows["item"], dtype=int)
    plan = design.plan(batches[k], lab, y[lab])
    s = plan["size"][plan["left"]]
    n_draw = batches[k] - len(plan["cert"])
    for order in itertools.permutations(range(len(s)), n_draw):
        p = prob
        left = float(s.sum())
        for i in order:
            p *= s[i] / left
            left -= s[i]
        child = SuccessiveDesign(design.pool, design.spec, design.feature, design.epsilon,
                                 design.passive, design.adaptive)
        child.restore(design.meta())
        child.take(plan, np.asarray(order, dtype=int))
        yield from _paths(child, y, batches, p)


def _brute_totals(design: SuccessiveDesign, y: np.ndarray) -> tuple[float, float]:
    """``Σ a_t X_t`` from the definition: known labels, the batch model on the items left,
    the weighted residual of the drawn item (every quantity recomputed from the pool)."""
    f = design.pool.preds[:, 0]
    rows = design.rows
    n_total = len(rows["item"])
    est1 = est0 = 0.0
    for k, b in enumerate(design.batches):
        idx = [r for r, bb in enumerate(rows["batch"]) if bb == k]
        draws = [r for r in idx if not rows["certain"][r]]
        coef = b["coef"]
        for r in draws:
            labeled = set(rows["item"][:r])
            remaining = [i for i in range(design.pool.size) if i not in labeled]
            g = {i: (design.pool.probs[i] if coef is None else
                     1 / (1 + np.exp(-(coef[0] + coef[1] * design.feature[i]))))
                 for i in remaining}
            x = rows["item"][r]
            x1 = sum(y[i] * f[i] for i in labeled) + sum(g[i] * f[i] for i in remaining)
            x0 = sum(y[i] * (1 - f[i]) for i in labeled) + sum(g[i] * (1 - f[i])
                                                                 for i in remaining)
            resid = (y[x] - g[x]) / rows["q"][r]
            a = (b["n"] / n_total) / len(draws)
            est1 += a * (x1 + f[x] * resid)
            est0 += a * (x0 + (1 - f[x]) * resid)
    return est1, est0


@pytest.mark.parametrize("name", list(POOLS))
@pytest.mark.parametrize("batches", [[2, 2], [3, 1], [1, 1, 2]])
def test_default_totals_exactly_unbiased(name, batches):
    pool, y = POOLS[name]
    feature = np.log(pool.probs) - np.log1p(-pool.probs)
    design = SuccessiveDesign(pool, F1, feature, 0.1, passive=False, adaptive=True)
    f = pool.preds[:, 0]
    mean1 = mean0 = total = 0.0
    for path, p in _paths(design, y, batches):
        rec = path.records({i: y[i] for i in path.rows["item"]}, len(batches))
        tot = pseudo_outcomes(rec)
        t1, t0 = float(tot.a @ tot.x1), float(tot.a @ tot.x0)
        b1, b0 = _brute_totals(path, y)
        assert t1 == pytest.approx(b1, rel=1e-12, abs=1e-12)
        assert t0 == pytest.approx(b0, rel=1e-12, abs=1e-12)
        mean1 += p * t1
        mean0 += p * t0
        total += p
    assert total == pytest.approx(1.0, abs=1e-12)
    assert mean1 == pytest.approx(float(f @ y), abs=1e-10)          # TP
    assert mean0 == pytest.approx(float((1 - f) @ y), abs=1e-10)    # FN


def test_sessions_without_model_variance_restore_to_the_realised_one():
    # a design state written before the model variance was recorded: restored as unknown
    pool, y = POOLS["small"]
    feature = np.log(pool.probs) - np.log1p(-pool.probs)
    design = SuccessiveDesign(pool, F1, feature, 0.1, passive=False)
    design.take(design.plan(3, np.zeros(0, int), np.zeros(0)), np.array([2, 0]))
    meta = design.meta()
    old = {"rows": {k: v for k, v in meta["rows"].items() if k != "model_var"},
           "batches": meta["batches"]}
    back = SuccessiveDesign(pool, F1, feature, 0.1, passive=False)
    back.restore(old)
    labels = {i: y[i] for i in design.rows["item"]}
    rec, rec_old = design.records(labels, 1), back.records(labels, 1)
    assert np.isfinite(rec.model_var).all() and np.isnan(rec_old.model_var).all()
    coef = ratio_coefficients(F1, pool.size, float(pool.preds[:, 0].sum()))
    r, r_old = (ratio_estimate(pseudo_outcomes(x), coef) for x in (rec, rec_old))
    assert r_old.estimate == r.estimate
    assert r_old.std_error == r.std_error_realised


def test_recorded_q_is_the_successive_probability():
    pool, y = POOLS["small"]
    feature = np.log(pool.probs) - np.log1p(-pool.probs)
    design = SuccessiveDesign(pool, F1, feature, 0.1, passive=False)
    plan = design.plan(3, np.zeros(0, int), np.zeros(0))
    s = plan["size"][plan["left"]]
    design.take(plan, np.array([2, 0]))
    n_cert = len(plan["cert"])
    q = design.rows["q"][n_cert:]
    assert q[0] == pytest.approx(s[2] / s.sum(), rel=1e-14)
    assert q[1] == pytest.approx(s[0] / (s.sum() - s[2]), rel=1e-14)


def test_successive_order_frequencies():
    # first draw ∝ size (exponential races): 20,000 draws, 4 SE
    rng = np.random.default_rng(5)
    size = np.array([0.5, 0.3, 0.15, 0.05])
    first = np.array([successive_order(size, 2, rng)[0] for _ in range(20000)])
    freq = np.bincount(first, minlength=4) / 20000
    assert np.all(np.abs(freq - size) < 4 * np.sqrt(size * (1 - size) / 20000))


def test_certain_items_closed_form():
    # sizes 0.5, 0.2, 0.1 x3: with n = 3, c = 3 gives 1.5 > 1: cap the first, then
    # c' = 2 / 0.5 = 4 -> 0.8 for the second (< 1): one certain item
    size = np.array([0.5, 0.2, 0.1, 0.1, 0.1])
    assert certain_items(size, 3).tolist() == [0]
    assert certain_items(size, 5).tolist() == [0, 1, 2, 3]     # at most n - 1
    assert certain_items(np.full(4, 0.25), 2).tolist() == []


def test_variance_of_one_draw_closed_form():
    # one batch, one draw from the whole pool: Var(X) = Σ q (r/q)^2 − (Σ r)^2 with
    # r = y − ĝ on the group; the martingale estimate from many single draws agrees
    pool, y = POOLS["small"]
    feature = np.log(pool.probs) - np.log1p(-pool.probs)
    design = SuccessiveDesign(pool, F1, feature, 0.1, passive=False, adaptive=False)
    plan = design.plan(1, np.zeros(0, int), np.zeros(0))
    assert len(plan["cert"]) == 0
    s = plan["size"] / plan["size"].sum()
    f = pool.preds[:, 0]
    r = (y - pool.probs) * f
    exact = float((r ** 2 / s).sum() - r.sum() ** 2)
    values = []
    for i in range(pool.size):
        d = SuccessiveDesign(pool, F1, feature, 0.1, passive=False, adaptive=False)
        d.take(d.plan(1, np.zeros(0, int), np.zeros(0)), np.array([i]))
        values.append(pseudo_outcomes(d.records({int(d.rows["item"][0]): y[d.rows["item"][0]]},
                                                1)).x1[0])
    values = np.array(values)
    assert float(s @ values) == pytest.approx(float(f @ y), abs=1e-12)
    assert float(s @ (values - f @ y) ** 2) == pytest.approx(exact, rel=1e-10)


def _brute_model_variance(g, s, f, order):
    """``E_m[Var_q(r_t | past, y)]`` of each draw and group by enumeration: every label
    vector of the items left (weights ``Π ĝ^y (1 − ĝ)^(1−y)``), every item they may draw
    (``q = s / Σ_{R_t} s``), ``r = 1[i ∈ G](y_i − ĝ_i)/q_i``."""
    out = np.zeros((len(order), 2 * f.shape[1]))
    for t in range(len(order)):
        left = [i for i in range(len(g)) if i not in set(order[:t].tolist())]
        q = s[left] / s[left].sum()
        for ys in itertools.product([0.0, 1.0], repeat=len(left)):
            y = np.array(ys)
            w = float(np.prod(np.where(y == 1, g[left], 1 - g[left])))
            for j in range(f.shape[1]):
                for c, grp in enumerate((f[left, j] == 1, f[left, j] != 1)):
                    r = np.where(grp, (y - g[left]) / q, 0.0)
                    out[t, 2 * j + c] += w * (float(q @ r ** 2) - float(q @ r) ** 2)
    return out


def test_model_variance_by_enumeration():
    # 7 items, two prediction columns, five of them drawn (the last from two items left)
    rng = np.random.default_rng(11)
    g = np.array([0.9, 0.6, 0.3, 0.2, 0.05, 0.01, 0.5])
    s = rng.uniform(0.2, 1.0, 7)
    f = np.array([[1, 1, 0, 0, 0, 0, 1], [1, 0, 1, 0, 0, 1, 0]], float).T
    order = np.array([3, 0, 6, 1, 4])
    left = s.sum() - np.concatenate(([0.0], np.cumsum(s[order])[:-1]))
    got = _model_variance(g, s, f, order, left)
    assert got == pytest.approx(_brute_model_variance(g, s, f, order), rel=1e-10, abs=1e-13)
    # one item left: the draw is certain and adds no variance
    last = _model_variance(g[:1], s[:1], f[:1], np.array([0]), s[:1])
    assert last == pytest.approx(np.zeros((1, 4)), abs=1e-15)


def _toy_records(rng, n=40):
    preds = (rng.random(n) < 0.4).astype(float).reshape(-1, 1)
    labels = (rng.random(n) < 0.5).astype(float)
    return DrawRecords(batch=np.repeat([0, 1], n // 2), certain=np.zeros(n, bool),
                       q=rng.uniform(0.01, 0.2, n), bounds=np.full((n, 4), 50.0),
                       ghat=rng.uniform(0.1, 0.9, n), preds=preds, labels=labels,
                       sum1=np.array([[5.0], [4.0]]), sum0=np.array([[9.0], [8.0]]),
                       pool_size=200, n_pred_pos=np.array([80.0]))


def _projected_numerator(rec, tot, coef, grid):
    """``Â − g B̂`` from the group totals clipped by hand to what the labels allow."""
    f, y = rec.preds[:, 0], rec.labels
    n1, n0 = 80.0, 120.0                                  # _toy_records' group sizes
    y1 = np.clip(tot.a @ tot.x1, f @ y, n1 - f @ (1 - y))
    y0 = np.clip(tot.a @ tot.x0, (1 - f) @ y, n0 - (1 - f) @ (1 - y))
    (a1, a0, ac), (b1, b0, bc) = coef
    return (a1 * y1 + a0 * y0 + ac) - grid * (b1 * y1 + b0 * y0 + bc)


@pytest.mark.parametrize("measure", ["f1", "precision", "recall", "accuracy"])
def test_score_interval_solves_its_inequality(measure):
    spec = measure_spec(measure)
    rec = _toy_records(np.random.default_rng(3))
    tot = pseudo_outcomes(rec)
    coef = ratio_coefficients(spec, rec.pool_size, 80.0)
    r = ratio_estimate(tot, coef)
    lo, hi = score_interval(r, 0.95)
    grid = np.linspace(0, 1, 20001)
    A, B, a = r.A, r.B, r.a
    d = A[None, :] - grid[:, None] * B[None, :]
    num = _projected_numerator(rec, tot, coef, grid)
    inside = num ** 2 <= 1.959963984540054 ** 2 * (d ** 2 @ (a * a))
    assert lo == pytest.approx(grid[inside].min(), abs=1e-4)
    assert hi == pytest.approx(grid[inside].max(), abs=1e-4)
    assert lo <= r.estimate <= hi


@pytest.mark.parametrize("measure", ["f1", "recall", "accuracy"])
def test_model_and_max_score_intervals_solve_their_inequalities(measure):
    # model: (Σ a D(g))² ≤ z² Σ a² (c₁(g)² w₁ + c₀(g)² w₀); max: the union with the realised set
    spec = measure_spec(measure)
    rec = _toy_records(np.random.default_rng(4))
    w = np.random.default_rng(5).uniform(0.0, 30.0, (rec.n_labels, 2))
    tot = pseudo_outcomes(DrawRecords(**{**rec.__dict__, "model_var": w}))
    coef = ratio_coefficients(spec, rec.pool_size, 80.0)
    r = ratio_estimate(tot, coef, variance="realised")
    (a1, a0, _), (b1, b0, _) = coef
    grid = np.linspace(0, 1, 20001)
    a, z2 = r.a, 1.959963984540054 ** 2
    lhs = _projected_numerator(rec, tot, coef, grid) ** 2
    v_model = ((a1 - grid * b1) ** 2 * ((a * a) @ w[:, 0])
               + (a0 - grid * b0) ** 2 * ((a * a) @ w[:, 1]))
    d = r.A[None, :] - grid[:, None] * r.B[None, :]
    v_real = d ** 2 @ (a * a)
    for variance, inside in (("model", lhs <= z2 * v_model),
                             ("max", lhs <= z2 * np.maximum(v_model, v_real))):
        lo, hi = score_interval(r, 0.95, variance=variance)
        assert lo == pytest.approx(grid[inside].min(), abs=1e-4)
        assert hi == pytest.approx(grid[inside].max(), abs=1e-4)
    se_m = np.sqrt((a1 - r.estimate * b1) ** 2 * ((a * a) @ w[:, 0])
                    + (a0 - r.estimate * b0) ** 2 * ((a * a) @ w[:, 1])) / r.b_hat
    assert r.std_error_model == pytest.approx(se_m, rel=1e-12)
    assert r.std_error == r.std_error_realised
    both = ratio_estimate(tot, coef)                        # the default: the larger
    assert both.std_error == max(r.std_error_model, r.std_error_realised)
    assert tuple(score_interval(both, 0.95)) == tuple(score_interval(r, 0.95, variance="max"))


def test_betting_capital_matches_a_direct_product():
    rng = np.random.default_rng(8)
    y = rng.exponential(3.0, 30)
    lo = np.zeros(30)
    grid = np.array([1.0, 2.5, 4.0])
    alpha = 0.05
    ok = one_side([(y, lo, 1.0, 0.0)], grid, alpha, np.arange(30))
    scale = max(grid.max(), 1.0)
    thr = np.log(1 / alpha)
    for j, m in enumerate(grid):
        log_k, var, mean, rejected = 0.0, 0.25, 0.0, False
        for t in range(30):
            lam = np.sqrt(2 * thr / (var / (t + 1) * (t + 1) * np.log(t + 2))) / scale
            lam = min(lam, 0.5 / m)
            log_k += np.log1p(lam * (y[t] - m))
            rejected = rejected or log_k >= thr
            assert ok[t, j] == (not rejected)
            z = y[t] / scale
            var += (z - mean) ** 2
            mean += (z - mean) / (t + 1)


def test_recalibration_is_identity_without_information():
    # no labels pull away from the prior mode (0, 1); many labels give the MLE
    rng = np.random.default_rng(0)
    x = rng.normal(-2, 2, 20000)
    y = (rng.random(20000) < 1 / (1 + np.exp(-(0.5 + 0.5 * x)))).astype(float)
    a, b = recalibrate(x, y)
    assert a == pytest.approx(0.5, abs=0.1) and b == pytest.approx(0.5, abs=0.05)
    a0, b0 = recalibrate(x[:0], y[:0])
    assert (a0, b0) == pytest.approx((0.0, 1.0), abs=1e-9)


# -- offline = online -------------------------------------------------------------------------

def _sim():
    import evalstats as es

    pool = es.datasets.load("sim_pool")
    return pool, pool["label"].to_numpy()


@pytest.mark.parametrize("interval", ["score", "anytime", "wald"])
def test_offline_equals_online_bit_for_bit(interval, tmp_path):
    """The same items and labels give identical estimates and intervals through
    active_evaluate, an ActiveEvaluator session, its design + estimate_from_labels, and the
    design written to CSV and read back (the command line's route)."""
    import pandas as pd

    from evalstats.active import ActiveEvaluator, active_evaluate, estimate_from_labels

    pool, y = _sim()
    one = active_evaluate(pool["prob"], lambda i: y[i], n_labels=200, predictions=pool["pred"],
                          rng=5, interval=interval)
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], rng=5,
                         interval=interval, path=tmp_path / "s.db")
    for _ in range(2):
        ids = ev.query(100)
        ev.update(ids, y[ids])
    two = ActiveEvaluator.open(tmp_path / "s.db").result()
    design = ev.design()
    three = estimate_from_labels(design, y[design["id"]], interval=interval)
    design.assign(label=y[design["id"]]).to_csv(tmp_path / "d.csv", index=False)
    back = pd.read_csv(tmp_path / "d.csv")
    four = estimate_from_labels(back, back[["id", "label"]], interval=interval)
    for res in (two, three, four):
        assert res.estimate == one.estimate
        assert res.std_error == one.std_error
        assert tuple(res.conf_int()) == tuple(one.conf_int())
        pd.testing.assert_frame_equal(res.measures().drop(columns="method"),
                                      one.measures().drop(columns="method"))
        for key in ("plot_x", "plot_q", "plot_pred"):          # the plot's inset too
            np.testing.assert_array_equal(getattr(res, key), getattr(one, key))


@pytest.mark.parametrize("recalibrate", [None, "platt"])
def test_with_replacement_offline_equals_online_bit_for_bit(recalibrate, tmp_path):
    """The papers' design: the draw weights written to the design table (and its CSV)
    give back the online estimate exactly (a rounded weight moved it by about 1e-14)."""
    import pandas as pd

    from evalstats.active import ActiveEvaluator, estimate_from_labels

    pool, y = _sim()
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], rng=1,
                         design="with_replacement", recalibrate=recalibrate)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = ev.run(lambda i: y[i], 250)
        design = ev.design()
        design.assign(label=y[design["id"]]).to_csv(tmp_path / "d.csv", index=False)
        back = pd.read_csv(tmp_path / "d.csv")
        for res in (estimate_from_labels(design, y[design["id"]]),
                    estimate_from_labels(back, back[["id", "label"]])):
            assert res.estimate == one.estimate
            assert tuple(res.conf_int()) == tuple(one.conf_int())
            assert res.ess == one.ess


def test_design_tables_without_model_variance_use_the_realised_one():
    """A design table written before the model variance was recorded still estimates:
    the same estimate, the realised standard error and the realised score interval."""
    from evalstats.active import active_design, estimate_from_labels
    from evalstats.active._design_table import records_from_table
    from evalstats.active._sealed_design import seal_design, sealed_names

    pool, y = _sim()
    design = active_design(pool["prob"], 150, "f1", rng=3, predictions=pool["pred"])
    added = ["model_var_1_0", "model_var_0_0"]
    assert set(added) <= set(design.columns)
    older = seal_design(design.drop(columns=added), sealed_names(design)[1])  # as written before
    labels = y[design["id"]]
    new = estimate_from_labels(design, labels)
    old = estimate_from_labels(older, labels)
    r = ratio_estimate(pseudo_outcomes(records_from_table(design, labels)),
                       ratio_coefficients(F1, len(pool), float(pool["pred"].sum())))
    assert old.estimate == new.estimate == r.estimate
    assert old.std_error == pytest.approx(r.std_error_realised, rel=1e-12)
    assert new.std_error == pytest.approx(r.std_error, rel=1e-12)
    assert tuple(old.conf_int()) == pytest.approx(
        tuple(score_interval(r, 0.95, variance="realised")), rel=1e-12)


def test_score_interval_options_name_their_variance():
    """``interval="score_<variance>"`` and ``conf_int(method=...)`` give the score interval
    with that variance; ``"score"`` is the larger variance (the union of the two sets)."""
    from evalstats.active import active_evaluate
    from evalstats.active._measures import measure_spec

    pool, y = _sim()
    res = active_evaluate(pool["prob"], lambda i: y[i], n_labels=200, rng=4,
                          predictions=pool["pred"], measure="recall")
    r = res.sample.estimate(measure_spec("recall"))
    sets = {v: tuple(score_interval(r, 0.95, variance=v)) for v in ("realised", "model")}
    for v, ci in sets.items():
        assert tuple(res.conf_int(method=f"score_{v}")) == ci
    both = tuple(res.conf_int())
    assert both == tuple(res.conf_int(method="score_max"))
    assert both == (min(c[0] for c in sets.values()), max(c[1] for c in sets.values()))
    assert res.std_error == max(r.std_error_realised, r.std_error_model)
    alone = active_evaluate(pool["prob"], lambda i: y[i], n_labels=200, rng=4,
                            predictions=pool["pred"], measure="recall",
                            interval="score_realised")
    assert alone.estimate == res.estimate and tuple(alone.conf_int()) == sets["realised"]


def test_active_design_is_the_first_batch_of_the_evaluator():
    from evalstats.active import active_design, active_evaluate, estimate_from_labels

    pool, y = _sim()
    design = active_design(pool["prob"], 150, "f1", rng=2, predictions=pool["pred"])
    res = estimate_from_labels(design, y[design["id"]])
    online = active_evaluate(pool["prob"], lambda i: y[i], n_labels=150, rng=2,
                             predictions=pool["pred"], batch_size=150, adaptive=False)
    assert res.estimate == online.estimate and res.conf_int() == online.conf_int()


def test_deprecated_options_warn_and_change_nothing():
    from evalstats.active import active_evaluate

    pool, y = _sim()
    base = active_evaluate(pool["prob"], lambda i: y[i], n_labels=100, rng=1,
                           predictions=pool["pred"])
    with pytest.warns(FutureWarning, match="`sampling` is deprecated"):
        old = active_evaluate(pool["prob"], lambda i: y[i], n_labels=100, rng=1,
                              predictions=pool["pred"], sampling="poisson",
                              estimator="calibrated")
    assert old.estimate == base.estimate


def test_half_width_stopping_needs_the_anytime_sequence():
    from evalstats.active import ActiveEvaluator, active_evaluate

    pool, y = _sim()
    with pytest.raises(ValueError, match="interval='anytime'"):
        active_evaluate(pool["prob"], lambda i: y[i], n_labels=300, half_width=0.1, rng=0)
    with pytest.raises(ValueError, match="`interval`"):
        ActiveEvaluator(pool["prob"], interval="logit")
    ev = ActiveEvaluator(pool["prob"], predictions=pool["pred"], interval="anytime", rng=0)
    res = ev.run(lambda i: y[i], 200, half_width=0.45, batch_size=50)
    lo, hi = res.conf_int()
    assert (hi - lo) / 2 <= 0.45 and res.n_labels % 50 == 0


def test_both_designs_return_one_frozen_estimate_record():
    """The per-measure estimate is one typed, immutable record whatever the design."""
    import dataclasses

    from evalstats.active import active_evaluate
    from evalstats.active._estimate_record import RatioEstimate

    pool, y = _sim()
    spec = measure_spec("f1")
    for design in ("pps", "with_replacement"):
        res = active_evaluate(pool["prob"], lambda i: y[i], n_labels=100, rng=2,
                              predictions=pool["pred"], design=design)
        r = res.sample.estimate(spec)
        assert type(r) is RatioEstimate
        assert (r.estimate, r.std_error, r.ess) == (res.estimate, res.std_error, res.ess)
        with pytest.raises(dataclasses.FrozenInstanceError):
            r.estimate = 0.0


@pytest.mark.parametrize("design", ["pps", "with_replacement"])
def test_both_designs_implement_the_design_protocol(design):
    """The evaluator talks to its design through one protocol, whatever the design."""
    from evalstats.active import ActiveEvaluator
    from evalstats.active._design_protocol import Design

    pool, y = _sim()
    ev = ActiveEvaluator(pool["prob"], "f1", predictions=pool["pred"], design=design, rng=1)
    assert isinstance(ev._design, Design) and not isinstance(ev._pool, Design)
    assert ev._design.name == design
    ids = ev.query(20)
    ev.update(ids, y[ids])
    assert ev.result().design == design
    assert set(ev.design()["design"]) == {design}


def test_scores_are_read_once_margins_into_probabilities():
    """One reading of the scores: margins -> expit for πps (closed form), kept as the
    model's covariate; a placeholder to recalibrate with replacement; a two-column
    matrix read as its positive column."""
    from evalstats.active._pool_inputs import log_odds, pool_scores

    spec = measure_spec("f1")
    m = np.array([-2.0, 0.0, 3.0])
    pps = pool_scores(m, spec, None, None)
    assert (pps.design, pps.margins, pps.placeholder) == ("pps", True, False)
    np.testing.assert_allclose(pps.probs, 1.0 / (1.0 + np.exp(-m)), rtol=1e-15)
    np.testing.assert_array_equal(log_odds(pps.raw, pps.margins), m)
    p = np.array([0.1, 0.5, 0.9])
    probs = pool_scores(p, spec, None, None)
    assert not probs.margins and probs.probs is p
    np.testing.assert_allclose(log_odds(probs.raw, probs.margins), np.log(p / (1 - p)))
    two = pool_scores(np.column_stack([1 - p, p]), spec, None, None)
    np.testing.assert_array_equal(two.raw, p)
    wr = pool_scores(m, spec, "with_replacement", "platt")
    assert wr.placeholder and np.all(wr.probs == 0.5)
    np.testing.assert_array_equal(wr.raw, m)
    assert pool_scores(p, spec, "with_replacement", "platt").raw is None
    with pytest.raises(ValueError, match="recalibrate"):
        pool_scores(np.column_stack([p, 1 - p, 0 * p]), measure_spec("accuracy"), None,
                    "platt")


def test_projected_totals_stay_in_range_and_never_move_away_from_the_truth():
    # a rare pool whose positives hide among items scored 0.001: the 1/q-weighted residual
    # of one drawn positive overshoots; the projection is a clip onto an interval that
    # contains the truth, so no run's error grows (checked run by run, against the pool)
    from evalstats.active._aipw import projected_totals, total_support
    rng = np.random.default_rng(11)
    n = 4000
    scores = np.where(rng.random(n) < 0.02, rng.uniform(0.6, 0.99, n), 0.001)
    pred = (scores > 0.5).astype(int)
    labels = (rng.random(n) < np.where(scores > 0.5, 0.7, 0.004)).astype(int)
    true1, true0 = float(labels @ pred), float(labels @ (1 - pred))
    bit = 0
    for seed in range(40):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = es.active_evaluate(scores, lambda i: labels[i], n_labels=100,
                                  predictions=pred, rng=seed, progress=False)
        rec = est.sample.records
        tot = pseudo_outcomes(rec)
        lo1, hi1, lo0, hi0 = total_support(rec)
        assert lo1 <= true1 <= hi1 and lo0 <= true0 <= hi0
        y1, y0, moved = projected_totals(tot)
        raw1, raw0 = tot.a @ tot.x1, tot.a @ tot.x0
        assert abs(y1 - true1) <= abs(raw1 - true1) + 1e-12
        assert abs(y0 - true0) <= abs(raw0 - true0) + 1e-12
        assert moved == ((y1 != raw1 and hi1 > lo1) or (y0 != raw0 and hi0 > lo0))
        bit += moved
        table = est.measures()
        assert ((table.estimate >= 0) & (table.estimate <= 1)).all()
        assert (table.projected == moved).all()
    assert bit > 0                                    # the case the projection is for


def test_a_fully_labeled_group_has_its_labeled_count_and_no_warning():
    # 1,500 of 2,000 items: every predicted positive is labeled, so Y1 is known exactly
    # (16 here); the AIPW average of earlier draws' pseudo-outcomes is not exactly 16
    from evalstats.active._aipw import projected_totals, total_support
    rng = np.random.default_rng(0)
    s = rng.beta(0.3, 3, 2000)
    pred = (s > 0.6).astype(int)
    y = (rng.random(2000) < s).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = es.active_evaluate(s, lambda i: y[i], n_labels=1500, predictions=pred, rng=0,
                                 progress=False)
    rec = est.sample.records
    lo1, hi1, _, _ = total_support(rec)
    assert lo1 == hi1 == float(y @ pred)
    tot = pseudo_outcomes(rec)
    y1, _, moved = projected_totals(tot)
    assert y1 == float(y @ pred) and tot.a @ tot.x1 != y1 and not moved
    assert not any("labels allow" in str(w.message) for w in caught)


def test_active_design_is_the_one_batch_unadapted_run_bit_for_bit():
    """active_design's docstring: one batch sized by the scores, the items and results of
    active_evaluate(adaptive=False, batch_size=n_labels) with the same seed."""
    from evalstats.active import active_design, active_evaluate, estimate_from_labels

    pool, y = _sim()
    for seed in (0, 7):
        design = active_design(pool["prob"], 300, "f1", rng=seed, predictions=pool["pred"])
        off = estimate_from_labels(design, y[design["id"]])
        on = active_evaluate(pool["prob"], lambda i: y[i], n_labels=300, rng=seed,
                             predictions=pool["pred"], adaptive=False, batch_size=300)
        np.testing.assert_array_equal(on.sample.records.q, off.sample.records.q)
        np.testing.assert_array_equal(on.sample.records.labels, off.sample.records.labels)
        assert off.estimate == on.estimate
        assert tuple(off.conf_int()) == tuple(on.conf_int())
        assert tuple(off.conf_int(method="anytime")) == tuple(on.conf_int(method="anytime"))


@pytest.mark.parametrize("interval", ["score", "anytime", "wald"])
def test_intervals_stay_within_what_the_labels_allow(interval):
    """A census fixes every measure, and with one item unlabeled F1 can take only the two
    values of that item's label (brute force): every interval lies within them."""
    import warnings

    from evalstats.active import ActiveEvaluator

    rng = np.random.default_rng(0)
    n_pool = 400
    p = rng.beta(0.5, 3, n_pool)
    y = (rng.random(n_pool) < p).astype(int)
    pred = (p > 0.5).astype(int)

    def f1(labels):
        return 2 * int(labels @ pred) / (pred.sum() + labels.sum())

    for n in (n_pool, n_pool - 1):
        ev = ActiveEvaluator(p, "f1", predictions=pred, rng=1, interval=interval)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = ev.run(lambda i: y[i], n)
        missing = np.setdiff1d(np.arange(n_pool), ev.design()["id"].to_numpy())
        assert missing.size == n_pool - n
        values = [f1(np.where(np.arange(n_pool) == j, v, y)) for j in missing for v in (0, 1)]
        values = values or [f1(y)]
        lo, hi = res.conf_int()
        assert min(values) - 1e-12 <= lo <= hi <= max(values) + 1e-12
        if n == n_pool:
            assert (lo, hi) == pytest.approx((f1(y), f1(y)), abs=1e-12)


def test_a_skipped_item_constrains_no_total():
    """A skipped item stands in as ĝ in the records; the totals the labels allow must
    count only true labels (else the intervals, held within them, could exclude the
    pool's value when the skipped label differs from ĝ)."""
    import warnings

    from evalstats.active import ActiveEvaluator
    from evalstats.active._aipw import total_support

    rng = np.random.default_rng(0)
    n_pool = 60
    p = rng.beta(0.5, 3, n_pool)
    y = (rng.random(n_pool) < p).astype(int)
    pred = (p > 0.5).astype(int)
    ev = ActiveEvaluator(p, "f1", predictions=pred, rng=1)
    skipped = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while ev.n_labels + len(skipped) < n_pool:
            ids = ev.query(min(20, n_pool - ev.n_labels - len(skipped)))
            sk = [i for i in ids if y[i] == 1][:1 - len(skipped)]
            rest = np.array([i for i in ids if i not in sk])
            if sk:
                ev.skip(sk, "unreadable")
                skipped += sk
            ev.update(rest, y[rest])
        rec = ev.result().sample.records
    assert len(skipped) == 1
    known = np.setdiff1d(np.arange(n_pool), skipped)
    f, yk = pred[known], y[known]
    expected = (float(f @ yk), pred.sum() - float(f @ (1 - yk)),
                float((1 - f) @ yk), (n_pool - pred.sum()) - float((1 - f) @ (1 - yk)))
    assert total_support(rec) == pytest.approx(expected)
    lo, hi = ev.result().conf_int()
    two = [2 * (pred @ v) / (pred.sum() + v.sum()) for v in
           (np.where(np.arange(n_pool) == skipped[0], b, y) for b in (0, 1))]
    # a census but for the skip: the interval lies between the two values its label
    # allows, and is not collapsed onto the value of the stand-in ĝ
    assert min(two) - 1e-12 <= lo < hi <= max(two) + 1e-12


def _small_pool_with_an_empty_sequence():
    """A 30-item pool on which the Y₀ upper sequence rejects every value after five draws
    (found by a user's audit; the rejection is one of the α-events of the sequence)."""
    g = np.random.default_rng(0)
    p = g.random(30)
    y = (g.random(30) < p).astype(int)
    return p, y, (p > 0.5).astype(int)


def test_an_empty_anytime_sequence_is_flagged_and_falls_back_to_the_labels():
    from evalstats.active._aipw import total_support

    p, y, f = _small_pool_with_an_empty_sequence()
    truth = float(np.mean(y == f))
    with pytest.warns(es.UndefinedEstimateWarning, match="confidence sequences of accuracy"):
        res = es.active_evaluate(p, lambda i: y[i], 12, "accuracy", predictions=f, rng=0,
                                 batch_size=7, interval="anytime")
    assert repr(res).endswith("!>")
    # every measure reported from the sample whose sequence uses the empty total (Y₀ here:
    # not precision) is named
    assert any("sequences of accuracy, recall and f1 are empty" in n for n in res.notes)
    lo, hi = res.conf_int()
    # Y₀ falls back to its trivial range and the Y₁ sequence still spans the values the
    # labels allow for it, so the interval is the measure's range over the totals the
    # labels allow, by hand: accuracy = (N − P + Y₁ − Y₀)/N rises in Y₁ and falls in Y₀
    lo1, hi1, lo0, hi0 = total_support(res.sample.records)
    n, n_pos = 30, f.sum()
    assert (lo, hi) == pytest.approx(((n - n_pos + lo1 - hi0) / n, (n - n_pos + hi1 - lo0) / n))
    assert lo <= truth <= hi
    # asked of a result whose own interval is the score interval: a warning at the call
    plain = es.active_evaluate(p, lambda i: y[i], 12, "accuracy", predictions=f, rng=0,
                               batch_size=7)
    with pytest.warns(es.UndefinedEstimateWarning, match="sequence of accuracy is empty"):
        assert tuple(plain.conf_int(method="anytime")) == (lo, hi)


def test_the_empty_sequence_note_states_its_level_exactly():
    from evalstats.active._estimators import empty_sequence_note

    text = empty_sequence_note(["f1"], 0.925)
    assert "92.5% anytime confidence sequence of f1 is" in text
    assert "at most 7.5%" in text


def test_a_census_gives_the_exact_value_even_after_an_empty_sequence():
    p, y, f = _small_pool_with_an_empty_sequence()
    with warnings.catch_warnings():
        warnings.simplefilter("error", es.UndefinedEstimateWarning)
        res = es.active_evaluate(p, lambda i: y[i], 30, "accuracy", predictions=f, rng=0,
                                 batch_size=7, interval="anytime")
        exact = float(np.mean(y == f))
        assert tuple(res.conf_int()) == pytest.approx((exact, exact), abs=1e-12)
        assert res.running()[["conf_low", "conf_high"]].notna().all().all()


def test_a_sequence_outside_what_the_labels_allow_is_empty_too():
    """A total whose sequence lies wholly outside the values the labels allow (here the
    upper end of Y₀ below a positive already labeled among the predicted negatives; found
    by a review) is as certain a miss as one with no value left."""
    from evalstats.active._aipw import total_support
    from evalstats.active._confseq import held_box, total_box
    from evalstats.active._measures import measure_spec

    g = np.random.default_rng(2)
    p = g.random(40)
    y = (g.random(40) < p).astype(int)
    f = (p > 0.5).astype(int)
    with pytest.warns(es.UndefinedEstimateWarning, match="80% anytime"):
        res = es.active_evaluate(p, lambda i: y[i], 15, "accuracy", predictions=f, rng=13,
                                 batch_size=5, interval="anytime", confidence_level=0.8)
    rec = res.sample.records
    box = total_box(rec, 0.8)
    lo0 = total_support(rec)[2]
    assert box[0][1][0] < lo0                     # the raw sequence's upper end of Y₀
    use, empty = held_box(rec, measure_spec("accuracy"), 0.8, box=box)
    assert empty.tolist() == [True]
    assert use[0][0][0] == lo0                    # the whole range the labels allow
    truth = float(np.mean(y == f))
    lo, hi = res.conf_int()
    assert lo <= truth <= hi


def test_probabilities_with_a_negative_entry_warn_before_being_read_as_margins():
    rng = np.random.default_rng(0)
    p = rng.beta(0.5, 3, 2000)
    y = (rng.random(2000) < p).astype(int)
    bad = p.copy()
    bad[0] = -1e-12
    with pytest.warns(es.InputWarning, match="1 negative value"):
        res = es.active_evaluate(bad, lambda i: y[i], 200, rng=0)
    assert repr(res).endswith("!>")
    # margins that reach above 1, or mostly negative (a rare pool's log-odds), are read
    # without a doubt
    with warnings.catch_warnings():
        warnings.simplefilter("error", es.InputWarning)
        es.active_evaluate(np.log(p / (1 - p)), lambda i: y[i], 200, rng=0)
        es.active_evaluate(np.log(p / (1 - p)) - 2, lambda i: y[i], 200, rng=0)
    # where only probabilities are read, the refusal says what to do
    from evalstats.active import optimal_proposal

    with pytest.raises(ValueError, match="correct the values outside"):
        optimal_proposal(bad, "f1")


def test_warnings_point_at_the_users_line_and_module():
    """A result method's warning (not inside a public call) points at the calling line;
    one raised inside a public call run from code without a file (a notebook cell) keeps
    the caller's module, so ``filterwarnings(module="__main__")`` matches it."""
    p, y, f = _small_pool_with_an_empty_sequence()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = es.active_evaluate(p, lambda i: y[i], 12, "accuracy", predictions=f, rng=0,
                                   batch_size=7)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        plain.conf_int(method="anytime")
    assert [w.filename for w in seen] == [__file__]
    cell = compile("es.active_evaluate(p, lambda i: y[i], 12, 'accuracy', predictions=f, "
                   "rng=0, batch_size=7, interval='anytime')", "<cell>", "exec")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.filterwarnings("error", category=es.UndefinedEstimateWarning,
                                module="__main__")
        with pytest.raises(es.UndefinedEstimateWarning):
            exec(cell, dict(es=es, p=p, y=y, f=f, __name__="__main__"))
