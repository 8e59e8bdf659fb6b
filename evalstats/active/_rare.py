r"""Rare events in the batched πps design: the predictive models' reach and estimate.

**Rare events: the model's reach instead of the floor.** Where a group's anticipated error
is extremely skewed (skewness ``γ_g >`` :data:`~._ht.RARE_SKEW`; ``γ² ≈ 1/h`` with ``h = Σ π m*``
the expected number of its rare large residuals in the sample) its floor describes draws
the sample will almost never make: ``Ṽ ≈ M/π`` for ``M`` unseen events at inclusion
probability ``π``, while a sample that misses them is off by about ``M`` — not by
``z√(M/π)``. On er_abt_buy the lower side of the F1 interval was 6–7× the design s.e. and
covered 1.00. Such a group leaves the floor; instead the interval is widened to hold
``G̃ ± z σ`` (``estimate()["reach"]``, applied by :func:`._intervals.interval` at the
level asked for). ``G̃`` is the measure with the labels of the items no batch drew
replaced by a predictive model's expectation, ``σ`` the spread of those labels
(:func:`model_reach`). The model (:meth:`~._design.StrataModel.predictive`) is a
Gamma–Poisson calibration ratio per score stratum, once around the scores and once around
their logistic recalibration. The never-drawn predicted positives and negatives each take
one of the two, so the four pairs ``(j₁, j₀)`` each give a ``G̃`` and the interval holds
all of them. For raw margins (``BatchDesign(raw=True)``: their logistic map is no
probability) only the recalibration predicts, once it is fitted: with the scores' map
among the models, tweets_rare's accuracy (5 positives in 9,956 items) was estimated
0.0056 too low on average, about 55 errors too many, and the default's accuracy RMSE at 500 /
1,000 labels was 0.0058 / 0.0041 against 0.0017 / 0.0006 (200 runs; F1 0.00284 /
0.00152 against 0.00289 / 0.00154; tweets100k, not in this regime, unchanged). This
needs the pool, so it applies to the evaluator and to sessions; a design
table keeps the floor.

**Rare events: the estimate.** From a skewness above :data:`~._ht.RARE_ESTIMATE_SKEW` (3:
``h < 1/9``; the group keeps its floor up to ``RARE_SKEW``, and the interval also holds the
reach) and in that regime the design-based ``Ĝ`` is ruled by whether
the sample caught one of the rare labels at weight ``1/π`` (usually not: too high; now and
then: far too low), while ``G̃`` moves only through the predictive model. The reported
estimate is therefore the models' prediction ``Σ w_{j₁j₀} G̃_{j₁j₀}`` over the pairs, with
``w_{j₁j₀} ∝ exp(ℓ_{1,j₁} + ℓ_{0,j₀})``, ``ℓ_{g,j}`` the prequential log-likelihood (Dawid
1984) of model ``j`` on the labels of prediction group ``g``: batch ``k + 1``'s labels
under the model fitted on batches ``≤ k`` (``next_ll_*``,
:meth:`~._design.StrataModel.next_loglik`). The log-likelihood of a pair is the sum over
the groups, so these are the pair's prequential (pseudo-BMA) weights — no label scores a
model fitted on it, but they are not posterior model probabilities (the first batch is not
scored, each label uses the plug-in posterior of the labels before its batch, and the
recalibration is a weighted point fit). ``Ĝ`` is kept
(``design_estimate``) and the interval is unchanged: it still holds ``Ĝ``'s design interval
and every ``G̃ ± zσ``, so it holds the estimate too; the reported std. error stays the
design's, so the interval need not be centred on the estimate. One batch (no label scored):
equal weights. Measured (``benchmarks/active_benchmark.py``, seed 2026, 100 runs, the committed
table, with one model for both groups weighted by the rare group's labels): F1 RMSE ÷
adaptive OASIS's at 500 / 1000 labels, design ``Ĝ`` → weighted ``G̃``:
er_abt_buy 0.92 / 0.94 → 0.42 / 0.43, er_abt_buy_rare 1.00 / 0.81 → 0.53 / 0.51,
sim_rare 1.25 / 1.05 → 0.57 / 0.42, shuttle_rare 1.07 / 1.08 → 1.08 / 0.79, kdd_rare
1.17 / 1.28 → 1.16 / 0.78 (at 500 labels it is rarely in this regime); sim_overconfident
1.03 / 0.84 → 1.06 / 0.83; the other pools are not in this regime; intervals unchanged.
That first rule let a model that the other group's labels refute predict that group: on
tweets_rare with ``epsilon=0.01`` (with the default ``0.1`` that pool enters the regime
only at 1,000 labels) the scores' model put 22–30 true positives among the never-drawn
predicted positives, 450 of whose labels held 0–1, at weight 0.3; F1 estimate 0.0088 on
average against a truth of 0.0033, RMSE 0.0062 at 500 labels (200 runs). With the pairs:
0.0033, RMSE 0.0026. One model for both groups scored on both groups' labels fixed that
too (0.0027) but cost sim_overconfident 4–8 % F1 RMSE at 200–1000 labels; the pairs are
within 0.5 % of the first rule on the default benchmark pools.
The scores' model alone was best on the calibrated pools and worst on the
prior-shifted ones (F1 RMSE 0.014 vs 0.255 at 500 labels on er_abt_buy and shuttle_rare,
60 runs), the recalibration the reverse; the prequential likelihood preferred the
recalibration in 12–15 % of the runs on the entity-resolution pools and 68–98 % on
shuttle_rare and kdd_rare. Found first in a prototype on other seeds (1000–1059), which
chose the rule; no constant was tuned.

**Coverage in this regime is over the labels' process, not over samples of one pool.** Part
of the truth is the number ``H`` of positives among items whose inclusion probability is
far below one (false negatives among tens of thousands of low scores). A run labels each of
them with small probability ``q`` (on er_abt_buy 3 / 10 / 28 % of runs label a given one at
200 / 500 / 1,000 labels), so the data say little about ``H``: the count caught,
Binomial(``H``, ``q``), pins ``H`` down to about ``±√(H(1 − q)/q)``, no tighter than
``H``'s own spread ``±√H``. On a fixed pool the coverage is ``f(G(H))``, ``f`` the
coverage function of an interval whose distribution barely depends on ``H``; where
``G(H)`` moves over the plausible ``H`` much more than the limits move from run to run,
``f`` is near 1 for a typical ``H`` and falls for an unusual one. It could stay at 95 % for
every plausible ``H`` only by limits that vary as much as ``G(H)`` does, through noise of
their own. The interval targets 95 % over the process that drew the labels. Measured
(``benchmarks/active_label_draws.py``: the scores kept, the labels redrawn ``y ~
Bernoulli(p)`` from calibrated ``p``, 40 runs of the default per draw): er_abt_buy's scores,
75 draws, F1 at 200 / 500 / 1,000 labels: 0.973 / 0.985 / 0.988 over all draws, while per
draw the median is 1.000, the lowest 0.55–0.63, and 81–93 % of the draws show more than
0.97 (at most one miss in 40: a pool covered at exactly 0.95 does that in 40 % of draws);
the draws that miss are those with more hidden positives than expected (``z > 1.5``: 0.88
at 500 labels). The real er_abt_buy labels cover 0.995–1.000. On the control
``sim_calibrated`` (3.2 % positives, not in this regime) the per-draw coverages scatter no
more than binomial noise does (s.d. 0.023 against 0.033). The union with the design
interval keeps a margin (sim_rare's F1 0.997–0.998 over 25 draws): the models' reach alone
(every pair's ``G̃ ± zσ``) covers F1 at 500 / 1,000 labels only 0.59 / 0.68 on
sim_overconfident, 0.61 / 0.88 on tweets_rare and 0.88 / 0.87 on kdd_rare, whose scores
are miscalibrated (200 runs, the runs in this regime; ``benchmarks/active_edge_rule.py``,
``coverage_models_only``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._design import pool_totals, spec_coefficients
from ._measures import MeasureSpec

if TYPE_CHECKING:
    from ._ht import DesignSample

__all__ = ["model_names", "model_reach", "model_weights", "prequential"]


#: the prediction groups and the suffix of their keys in a batch's ``never`` entries
_GROUPS = ((1, "f"), (0, "f0"))


def _deviation(sample: DesignSample, spec: MeasureSpec, model: int, k_used: int,
               delta: list, m: np.ndarray) -> tuple[dict[int, float], dict[int, tuple]]:
    """``Σ_k λ_k (D_k − Σ_{never} m*)`` per prediction group (the part of the deviation
    that no model changes, see :func:`model_reach`) and the groups' ``(c₀, c₁, d₀, d₁)``."""
    f = sample.item_preds[:, model]
    y, pi, bt_of = sample.item_labels, sample.item_pi, sample.item_batch
    coef = {g: tuple(float(v[0]) for v in spec_coefficients(spec, np.full(1, float(g))))
            for g in (0, 1)}
    lam = sample.lambdas(k_used)
    known = {0: 0.0, 1: 0.0}
    for k in range(k_used):
        nu, sf, sm, sfm = pool_totals(sample.batches[k], model, True)
        size = {1: sf, 0: nu - sf}
        mass = {1: sfm, 0: sm - sfm}
        for g in (0, 1):
            sel = (bt_of == k) & (f == g)
            d_g, _, g_g, _ = delta[k].get(g, (0.0, 0.0, 0.0, 0.0))
            resid = y[sel] - m[sel] - d_g - g_g * m[sel]
            known[g] += lam[k] * (
                -float(np.sum(resid * (1.0 / pi[sel] - 1.0)))
                + float(y[(bt_of > k) & (bt_of < k_used) & (f == g)].sum())
                - (1.0 + g_g) * (mass[g] - float(m[sel].sum()))
                - d_g * (size[g] - float(sel.sum())))
    return known, coef


def _measure_at(a_hat: float, b_hat: float, coef: dict[int, tuple],
                d: dict[int, float]) -> tuple[float, float] | None:
    """``(G̃, B̃)`` with the group deviations ``d`` added; ``None`` where ``B̃ ≤ 0``."""
    b_tilde = b_hat + sum(coef[g][3] * d[g] for g in (0, 1))
    if not b_tilde > 0:
        return None
    a_tilde = a_hat + sum(coef[g][1] * d[g] for g in (0, 1))
    return float(np.clip(a_tilde / b_tilde, 0.0, 1.0)), b_tilde


def model_reach(sample: DesignSample, spec: MeasureSpec, model: int, k_used: int,
                a_hat: float, b_hat: float, delta: list, m: np.ndarray
                ) -> list[tuple[float, float, tuple[int, int]]]:
    """``[(G̃, σ, (j₁, j₀)), …]``, one per pair of predictive models in the last batch's
    ``never``: ``j₁`` predicts the never-drawn predicted positives, ``j₀`` the predicted
    negatives (the pairs ``j₁ = j₀`` first); where the pair puts the measure, and the
    spread of the unknown labels.

    Batch ``k``'s estimate of a group total is ``Σ_{U_k} m̃ + Σ_{S_k} r̃/π`` (``m̃`` the
    assisting model, ``r̃ = y − m̃``). With the labels of the items no batch drew replaced
    by their expectation under ``m*`` (``never_mass_*``), the truth would be
    ``Σ_{S_k} y + Σ_{later} y + Σ_{never} m*``, which differs from the estimate by
    ``D_k = −Σ_{S_k} r̃ (1/π − 1) + Σ_{later} y + Σ_{never} m* − Σ_{U_k∖S_k} m̃``.
    ``G̃ = (Â + Σ λ_k c₁ D_k) / (B̂ + Σ λ_k d₁ D_k)``; ``σ² = Σ_g k̃_g² Σ_{never} m*(1 − m*)
    / B̃²``. Only ``Σ_{never} m*`` depends on the model, and ``Σ λ_k = 1``, so the rest
    of ``Σ λ_k D_k`` is summed once. A pair with ``B̃ ≤ 0`` is left out."""
    known, coef = _deviation(sample, spec, model, k_used, delta, m)
    never = sample.batches[k_used - 1].get("never", [])
    pairs = [(j, j) for j in range(len(never))]
    pairs += [(j1, j0) for j1 in range(len(never)) for j0 in range(len(never)) if j1 != j0]
    out = []
    for js in pairs:
        nv = {g: never[j] for (g, _), j in zip(_GROUPS, js, strict=True)}
        at = _measure_at(a_hat, b_hat, coef, {g: known[g] + float(nv[g][f"never_mass_{key}"][model])
                                              for g, key in _GROUPS})
        if at is None:
            continue
        g_tilde, b_tilde = at
        var = sum((coef[g][1] - g_tilde * coef[g][3]) ** 2
                  * float(nv[g][f"never_var_{key}"][model]) for g, key in _GROUPS)
        out.append((g_tilde, float(np.sqrt(max(var, 0.0)) / b_tilde), js))
    return out


def model_names(batch: dict, reach: list[tuple[float, float, tuple[int, int]]]
                ) -> list[tuple[str, str]]:
    """``(name of j₁, name of j₀)`` of each pair of :func:`model_reach`, read from the
    batch's ``never`` entries (``"scores"`` or ``"recalibrated"``; for raw margins the
    recalibration alone, once fitted, sits at index 0). Entries without a name (built by
    hand) are named by position."""
    never = batch.get("never", [])
    names = [nv.get("model", ("scores", "recalibrated")[min(j, 1)])
             for j, nv in enumerate(never)]
    return [(names[j1], names[j0]) for _, _, (j1, j0) in reach]


def model_weights(sample: DesignSample, model: int, k_used: int,
                  pairs: list[tuple[int, int]]) -> np.ndarray:
    """Pseudo-BMA weights of the model pairs ``(j₁, j₀)`` of :func:`model_reach`:
    ``∝ exp(ℓ_{1,j₁} + ℓ_{0,j₀})``, the prequential log-likelihood of the pair (each group's
    labels scored by the model that predicts that group; :func:`prequential`). Judging a
    model of one group by the labels of the other (one model for both) left a model refuted
    by hundreds of labels of the predicted positives at weight 0.3 on tweets_rare with
    ``epsilon=0.01``; scoring only the rare group (the first rule) let that model predict
    the other group unchecked."""
    score = prequential(sample, model, k_used)
    ll = np.array([score["f"][j1] + score["f0"][j0] for j1, j0 in pairs])
    w = np.exp(ll - ll.max())
    return w / w.sum()


def prequential(sample: DesignSample, model: int, k_used: int) -> dict[str, np.ndarray]:
    """Prequential log-likelihood of each predictive model of the last batch's ``never``,
    per prediction group (``"f"``: predicted positives, ``"f0"``): batch ``k + 1``'s labels
    of the group scored by the model fitted on the batches up to ``k`` (``next_ll_*``,
    :meth:`~._design.StrataModel.next_loglik`). Where a model was not fitted yet (the
    recalibration needs ``MIN_RECALIBRATION`` labels) it scores as the scores' model:
    no evidence either way. Tables and sessions without these totals score 0."""
    n_models = len(sample.batches[k_used - 1].get("never", []))
    score = {key: np.zeros(n_models) for _, key in _GROUPS}
    for k in range(k_used - 1):
        nv = sample.batches[k].get("never") or []
        for j in range(n_models):
            entry = nv[min(j, len(nv) - 1)] if nv else {}
            for _, key in _GROUPS:
                ll = entry.get(f"next_ll_{key}")
                if ll is not None:
                    score[key][j] += float(ll[model])
    return score
