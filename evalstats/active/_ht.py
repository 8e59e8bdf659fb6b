r"""Model-assisted (difference) and Horvitz–Thompson estimators for batched πps samples.

Every supported measure is a ratio ``G = A / B`` of pool totals with per-item contributions
``a = c₀ + c₁ y`` and ``b = d₀ + d₁ y`` (see :func:`._design.spec_coefficients`). With a model
``m(x) ≈ p(y=1|x)`` fixed before batch ``k`` is drawn, the *difference* (model-assisted,
AIPW) estimator of ``A`` from batch ``k`` is

.. math::

    \hat A_k = \sum_{L_{<k}} a_i + \sum_{U_k} (c_{0i} + c_{1i} m_k(x_i))
              + \sum_{S_k} c_{1i}\,\frac{y_i - m_k(x_i)}{\pi_{ki}},

(``L_{<k}``: items labeled in earlier batches, known exactly; ``U_k``: the rest; ``S_k``: the
batch's sample), unbiased given the past for *any* model (Särndal et al. 1992, §6.3; Zrnic &
Candès, ICML 2024; Angelopoulos et al., Science 2023). ``estimator="horvitz_thompson"`` uses
``m ≡ 0`` (only the exactly known parts are not estimated).

**Calibrated (default).** ``estimator="calibrated"`` regresses, in each prediction group
``g ∈ {0, 1}`` (items predicted negative / positive, whose coefficients ``c₁, d₁`` are
constant), the residual ``y − m`` of the batch's non-certainty items on ``(1, m)`` with
weights ``1/π`` (:func:`calibration_fit`, a ridge of two pseudo-observations towards the
model as it is, and the slope shrunk by its leverage-corrected signal-to-noise ratio, so
that a slope a few high-leverage labels set is dropped): ``y ≈ δ_g + (1 + γ_g) m``, and
adds to ``Â_k`` (and ``B̂_k``)
``c_{1g} [δ_g (N_{U,g} − N̂_{U,g}) + γ_g (M_{U,g} − M̂_{U,g})]`` with ``N̂_{U,g} = Σ_{S_g} 1/π``
and ``M̂_{U,g} = Σ_{S_g} m/π`` (``M_{U,g} = Σ_{U_g} m``): the generalized regression (GREG)
estimator with the auxiliaries ``(1, m)`` per group (Särndal et al. 1992, §6.5–6.6),
approximately unbiased (bias ``O(1/n)``) for any model. The intercept removes a model that is
off by a constant within a group — scores all 0.5, raw margins mapped through a logistic:
with constant scores of 0.5 on a pool with 3.4 % positives the plain difference estimator
covered 0.78 of 200 runs at 100 labels, the calibrated one 0.995. The slope removes a model
that is off by a factor — a classifier trained at another prevalence: on a 147,000-item pool
whose scores summed to 2,091 expected positives against 50 true ones, the intercept alone
left F1's estimated denominator below zero (F1 undefined, or 1.0 with five known false
positives). The residuals in the variance are ``y − m − δ_g − γ_g m``. A group with fewer
than ``MIN_CALIBRATION`` labeled non-certainty items in a batch is not corrected. In a
Horvitz–Thompson batch (``m ≡ 0``, the first batch of raw margins) it is the Hájek estimator
post-stratified by prediction.

Batches are combined with fixed weights ``λ_k ∝ n_k``: ``Â = Σ λ_k Â_k`` is then a
martingale sum. ``Ĝ = Â / B̂`` with the linearised variance

.. math::

    \widehat{\mathrm{Var}}(\hat G) = \frac{1}{\hat B^2} \sum_k \lambda_k^2 \sum_{S_k}
        (1 - \pi_{ki}) \frac{e_i^2}{\pi_{ki}^2},
    \qquad e_i = (c_{1i} - \hat G d_{1i})(y_i - m_k(x_i))

for Poisson sampling (the Horvitz–Thompson variance estimator of the linearised total); for
Pareto order sampling the centred form of Rosén (1997),
``n'/(n'−1) Σ (1 − π)(e/π − Ā)²`` over the ``n'`` non-certainty items.

**Variance floor.** The design-based estimate misses the contribution of rare large residuals
that the sample happened not to contain (a false negative with a small ``π``), which is what
made plain normal intervals undercover on pools with very few positives. The reported
variance is therefore ``Σ_k λ_k² max(V̂_k, Ṽ_k) / B̂²`` with the model-anticipated variance
(Särndal et al. 1992, §12.2)

.. math::

    \tilde V_k = \sum_{g} (c_{1g} - \hat G d_{1g})^2 \max_{m^*} \sum_{U_{k,g}}
        \frac{1 - \pi_i}{\pi_i} \bigl[m^*_i (1 - m^*_i)
        + (m^*_i - m_{ki} - \delta^*_g - \gamma^*_g m_{ki})^2\bigr],

the expected squared residual of the estimator actually used (``m_k ≡ 0`` in a
Horvitz–Thompson batch; ``δ*_g + γ*_g m_k`` the least-squares line of ``m* − m_k`` on
``m_k`` over the group, the model-expected calibration, for the calibrated estimator,
else 0), the larger over two models ``m*`` of ``y`` refitted on every label: the
stratified Beta–Bernoulli model and a logistic recalibration ``σ(a + b·logit m)`` of the
scores, fitted with weights ``π^(−½)`` (see :meth:`~._batches.BatchDesign.anticipated`).
The first alone left the floor of the false-negative total on ``sim_overconfident`` at
2,500–12,500 against 22,400 under the true probabilities, and its 95 % intervals covered
0.865–0.938 (four measures, 200 labels, 400 runs; sizes ``√v``); with the recalibration
(weights ``1/π``) and the centring 0.920–0.948; with sizes ``v^0.7`` and weights
``π^(−½)`` 0.940–0.980 (200–1000 labels, 300 runs). The evaluator
replays each batch's ``π``; an exported design table keeps the totals recorded when the
batch was drawn (under the batch's own model).

**Which side the floor is on.** The floor stands for rare large residuals the sample has
not seen. Where positives are rare in a group (``m* < ½``), a sample typically misses some
of them and *under*-estimates the group's total, and now and then draws one at weight
``1/π`` and over-estimates it; the overshoot is in ``V̂`` (the drawn item's residual is in
it), the miss is not. So the error of ``Ĝ`` from group ``g`` is skewed to the side
``sign(k_g κ₃_g)`` (``k_g = c_{1g} − Ĝ d_{1g}``; ``κ₃_g`` the anticipated third cumulant of
the group's error, ``antic_skew_*``, from :func:`~._batches.anticipated_totals`), and the
true value lies beyond the estimate on that side. Each interval side ``s`` therefore uses
``Σ_k λ_k² max(V̂_k, Σ_g w_{g,s} k_g² Ṽ_{g,k})`` with ``w = 1`` on the group's side and
``w = 1/(1 + γ_g²)`` on the other (``γ_g = κ₃_g / Ṽ_g^{3/2}``, the error's skewness: a
roughly symmetric error keeps its floor on both sides, one dominated by a rare label at
weight ``1/π`` keeps it on one); ``std_error`` keeps the floor of both groups. Measured
(``benchmarks/active_benchmark.py``, adaptive default, 100 runs, 200–1000 labels): F1
intervals 0.61× as wide on er_abt_buy_rare and 0.70× on er_abt_buy (they covered 1.00
and still do), 0.87× on sim_rare (F1 coverage 0.99–1.00 → 0.93–0.96); the lowest coverage
over four measures and ten pools stays 0.92. Moving the floor whole (share 0) dropped the
constant-score case (scores all 0.5, 100 labels) from ≥ 0.90 to 0.78 coverage. Tables and
sessions written before ``antic_skew_*`` existed keep the floor on both sides.

**Rare events.** Where a group's anticipated error is skewed (skewness above
:data:`RARE_ESTIMATE_SKEW`), the estimate is the predictive models' prediction instead of
the design-based one and the interval also holds their reach; above :data:`RARE_SKEW` the
group leaves the variance floor: see :mod:`._rare`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._design import pool_totals, spec_coefficients
from ._measures import MeasureSpec
from ._rare import model_names, model_reach, model_weights

__all__ = ["DesignSample", "ESTIMATORS", "antic_group0", "calibration_fit",
           "consistent_bounds", "group_calibration", "slope_shares"]

ESTIMATORS = ("difference", "horvitz_thompson", "calibrated")

#: fewest labeled non-certainty items of a prediction group in a batch for the calibrated
#: estimator to estimate that group's mean residual (fewer: the plain difference estimator)
MIN_CALIBRATION = 5

#: pseudo-observations of the prior at the identity map (γ = 0) in :func:`calibration_fit`
CALIBRATION_RIDGE = 2.0

#: shrink the calibration slope by its HC3 signal share (:func:`calibration_fit`); off only
#: to check the unshrunk GREG formulas
SLOPE_SHRINKAGE = True

#: an estimate within this of 0 or 1 is the boundary: totals known exactly (certainty
#: items) sum to 0 only up to rounding (1e-17), which put a logit interval beside 0
BOUNDARY_TOL = 1e-12

#: a prediction group whose anticipated error has skewness above this (``γ² ≈ 1/h``: about
#: ``h < 0.04`` of its rare large residuals expected in the sample) leaves the variance
#: floor for the model's reach. Measured at 500 labels (3 runs each, false-negative group):
#: γ 1.4–2.6 sim_calibrated, 2.4–4.4 sim_overconfident, 1.2–2.7 tweets_rare (which keep the
#: floor: with γ > 1 the first two covered 0.81–0.92), 7–18 sim_rare, 8–19 er_abt_buy,
#: 7–11 shuttle_rare, 30–43 er_abt_buy_rare
RARE_SKEW = 5.0

#: a prediction group whose anticipated error has skewness above this (``h < 1/9`` of its
#: rare large residuals expected in the sample) makes the models' prediction the estimate
#: (:mod:`._rare`); up to :data:`RARE_SKEW` it keeps its variance floor, and the interval
#: also holds the models' reach. Probe (60 runs per pool, seeds 7000–7059, F1 RMSE at
#: 200/500/1000 labels, threshold 5 → 3): kdd_rare 0.50/0.44/0.23 → 0.32/0.31/0.23,
#: tweets_rare 0.0067/0.0034/0.0021 → 0.0067/0.0034/0.0017, the other pools within ±10 %;
#: with 2 tweets_rare rose to 0.0046 at 500 labels. No cell's coverage fell. Committed run
#: (seed 2026, 100 runs): F1 RMSE ÷ OASIS kdd_rare 1.16 → 0.82 at 500 labels, tweets_rare
#: 1.06 → 0.83 and sim_overconfident 0.83 → 0.68 at 1000 (benchmarks/README.md).
RARE_ESTIMATE_SKEW = 3.0


def calibration_fit(r: np.ndarray, m: np.ndarray, w: np.ndarray,
                    ridge: float | None = None, shrink: bool | None = None
                    ) -> tuple[float, float]:
    r"""``(δ, γ)`` of the weighted ridge regression ``r ≈ δ + γ m`` of residuals on the model,
    with the slope shrunk toward the model's own scale by its signal share.

    .. math::

        \tilde\gamma = \frac{\hat\gamma_0}{1 + \kappa / n},\quad
        \hat\gamma_0 = \frac{\sum w (m - \bar m)(r - \bar r)}{\sum w (m - \bar m)^2},
        \qquad
        \gamma = \tilde\gamma\,\Bigl(1 - \frac{V_3}{\hat\gamma_0^2}\Bigr)_+,\qquad
        \delta = \bar r - \gamma \bar m

    (``w``-weighted means; ``κ`` = ``ridge`` pseudo-observations at ``γ = 0``; ``γ = 0`` when
    ``m`` does not vary). ``V₃`` is the HC3 (leverage-corrected, MacKinnon & White 1985;
    about the jackknife) sandwich variance of the weighted least-squares slope ``γ̂₀``,
    ``Σ w² (m − m̄)² e² / (1 − h)² / S_mm²`` with its residuals ``e = r − r̄ − γ̂₀ (m − m̄)``
    and the weighted leverages ``h = w/Σw + w (m − m̄)²/S_mm`` — statsmodels'
    ``WLS(r, (1, m), weights=w).fit(cov_type="HC3")``. The factor ``(1 − V₃/γ̂₀²)₊`` (an
    empirical-Bayes share of signal in the slope, positive part) keeps a slope the labels
    determine (``|γ̂₀| ≫ √V₃``; an exact linear fit has ``V₃ = 0``) and drops one within its
    own noise (``|γ̂₀| ≤ √V₃``). A slope that hinges on one item (leverage ``h ≥ 1 − 10⁻⁹``,
    e.g. one score away from a cluster of equal ones: without it no spread is left) is
    dropped too. With ``γ = 0`` this is the Hájek mean residual of the intercept-only
    calibration. ``shrink=False`` returns the unshrunk ridge fit ``(r̄ − γ̃ m̄, γ̃)``
    (``None``, the default, follows :data:`SLOPE_SHRINKAGE`, which is on).

    Scores that are off by a factor — a classifier trained at another prevalence — are
    what the slope repairs: on a pool whose scores summed to 2,091 expected positives
    against 50 true ones, the intercept alone left denominators of F1 below zero; raw
    margins (tweets) need it too (without a slope, tweets_rare's F1 RMSE at 500 labels
    rose 1.4-fold and its coverage fell to 0.90, 60 runs). On a near-separable, calibrated
    pool a handful of errors sets the unshrunk slope (high leverage, fitted residuals near
    0), which added error that the variance estimate missed: passive proposal, 30 labels,
    coverage 0.865–0.882 (400 runs; ``benchmarks/active_calibration_probe.py``); shrunk
    0.938–0.952. The shrunk slope is data-dependent, so, as for any GREG, the estimator is
    approximately (``O(1/n)``) rather than exactly design-unbiased.
    """
    ridge = CALIBRATION_RIDGE if ridge is None else ridge
    shrink = SLOPE_SHRINKAGE if shrink is None else shrink
    w = np.asarray(w, dtype=float)
    sw = float(w.sum())
    mbar, rbar = float(np.dot(w, m) / sw), float(np.dot(w, r) / sw)
    dm = m - mbar
    smm = float(np.dot(w, dm * dm))
    n = m.shape[0]
    if not smm > 1e-12 * sw * max(mbar * mbar, 1e-12) or n < 2:     # no spread in m
        return rbar, 0.0
    g0 = float(np.dot(w, dm * (r - rbar))) / smm             # weighted least squares
    gamma = g0 / (1.0 + ridge / n)
    if shrink and gamma != 0.0:
        h = w / sw + w * dm * dm / smm
        if float(h.max()) >= 1.0 - 1e-9:
            return rbar, 0.0                # the slope hinges on one item
        # each term divided by S_mm before squaring: no under/overflow for extreme w
        t = w * dm * ((r - rbar) - g0 * dm) / ((1.0 - h) * smm)
        v3 = float(np.dot(t, t))
        gamma *= max(0.0, 1.0 - v3 / (g0 * g0)) if np.isfinite(v3) else 0.0
    return rbar - gamma * mbar, gamma


def group_calibration(r: np.ndarray, m: np.ndarray, pi: np.ndarray, sel: np.ndarray,
                      **kw: Any) -> tuple[float, float] | None:
    """``(δ_g, γ_g)`` of :func:`calibration_fit` on a batch's items ``sel`` of one prediction
    group with ``π < 1`` (weights ``1/π``), or ``None`` where fewer than
    :data:`MIN_CALIBRATION` of them are labeled (the group is then not calibrated)."""
    free = sel & (pi < 1.0)
    if int(free.sum()) < MIN_CALIBRATION:
        return None
    return calibration_fit(r[free], m[free], 1.0 / pi[free], **kw)


def slope_shares(r: np.ndarray, m: np.ndarray, pi: np.ndarray,
                 preds: np.ndarray) -> np.ndarray:
    r"""How the calibrated estimator treats each prediction group of a batch, per model
    column: ``out[j, g]`` is ``ρ = γ_g / γ̂_{0,g}``, the share of its weighted least-squares
    slope that :func:`calibration_fit` keeps (ridge and signal-to-noise shrinkage; 0 where
    the slope is dropped or ``m`` does not vary), or NaN where the group is not calibrated
    (fewer than :data:`MIN_CALIBRATION` labeled items with ``π < 1``). The variance floor
    centres its anticipated residual on the line the estimator fits
    (:func:`~._batches.anticipated_totals`): the full least-squares line overstated that
    centring where the slope is shrunk and where no line is fitted at all."""
    preds = np.asarray(preds, dtype=float).reshape(r.shape[0], -1)
    out = np.full((preds.shape[1], 2), np.nan)
    for j in range(preds.shape[1]):
        for g in (0, 1):
            sel = preds[:, j] == g
            fit = group_calibration(r, m, pi, sel)
            if fit is None:
                continue
            full = group_calibration(r, m, pi, sel, ridge=0.0, shrink=False)[1]
            out[j, g] = fit[1] / full if full != 0.0 else 0.0
    return out


def consistent_bounds(a: np.ndarray, b: np.ndarray) -> list[tuple[float, float]]:
    r"""``[(1, 0)]`` if no labeled item has ``a_i < b_i``, ``[(0, 0)]`` if none has
    ``a_i > 0`` (both, or neither): the boundaries of ``G = A/B`` (``0 ≤ a_i ≤ b_i``) that
    the labels do not contradict, for the interval to hold.

    ``G = 1`` forces ``a_i = b_i`` on every item (no error for accuracy, no false positive
    for precision, no false negative for recall), so under ``G = 1`` every sample looks
    like this one: a test that rejects ``G = 1`` here can only do so on which items
    happened to be drawn, not on evidence against it. The interval holds 1 (likewise 0),
    as exact intervals do (Clopper–Pearson for ``n`` successes in ``n`` trials reaches 1);
    a conservative choice, applied to every model's measures (``measures()``).
    The design interval did not: a perfect classifier's accuracy, no error in 500
    labels, got ``[0.838, 0.9999999]`` from models that expect a few errors (coverage
    0.910 of 200 seeds, ``benchmarks/active_boundary_coverage.py``; now 1.000)."""
    out = []
    if not np.any(a < b - 1e-12):
        out.append((1.0, 0.0))
    if not np.any(a > 1e-12):
        out.append((0.0, 0.0))
    return out


def _skew(batch: dict[str, Any], group: str, j: int) -> float:
    """The sign-bearing third cumulant ``antic_skew_<group>[j]`` of a batch's floor (0 for
    tables and sessions written before it existed: the floor then counts on both sides)."""
    vals = batch.get(f"antic_skew_{group}")
    return float(vals[j]) if vals is not None else 0.0


def antic_group0(batch: dict[str, Any], j: int) -> float:
    """The predicted-negative group's anticipated-variance total ``antic_f0[j]`` of a batch;
    tables and sessions written before the key existed get ``antic_0 − antic_f[j]`` (exact
    for model column 0, the total they floored)."""
    if "antic_f0" in batch:
        return float(batch["antic_f0"][j])
    return float(batch["antic_0"] - batch["antic_f"][j])


@dataclass
class DesignSample:
    """The labeled items of a batched πps design with what the estimators need.

    ``batches[k]`` holds the pool totals of the model over the items still unlabeled before
    batch ``k``: ``n_unlabeled``, ``sum_m``, per model column ``sum_f`` and ``sum_fm``, and
    ``zero_f1``/``zero_f0`` (unlabeled items with ``π = 0`` by prediction), and ``n_target``.
    """

    item_ids: np.ndarray
    item_labels: np.ndarray
    item_preds: np.ndarray            # (n_items, n_models)
    item_batch: np.ndarray
    item_pi: np.ndarray
    item_m: np.ndarray
    batches: list[dict[str, Any]] = field(default_factory=list)
    sampling: str = "pareto"
    estimator: str = "difference"

    @property
    def n_labels(self) -> int:
        return int(self.item_ids.shape[0])

    def lambdas(self, n_batches: int | None = None) -> np.ndarray:
        """Batch weights ``λ_k = n_k / Σ n_k`` (fixed by the batch sizes, so ``Σ λ_k (T̂_k − T)``
        is a martingale). Weights by the inverse model-anticipated variance were tried: no
        better on the benchmark pools and worse under an overconfident model."""
        k = len(self.batches) if n_batches is None else n_batches
        w = np.array([b["n_target"] for b in self.batches[:k]], dtype=float)
        return w / w.sum()

    def estimate(self, spec: MeasureSpec, model: int = 0,
                 n_batches: int | None = None) -> dict[str, Any]:
        """``Ĝ``, its standard error, the effective sizes and flags for one measure/model."""
        k_used = len(self.batches) if n_batches is None else n_batches
        out = dict(n=self.n_labels, estimate=float("nan"), std_error=float("nan"),
                   defined=False, zero_width=False, ess=0.0, n_eff=float("nan"),
                   max_weight_share=float("nan"), reason="", vacuous=False)
        if k_used == 0:
            out["reason"] = "no batch labeled yet"
            return out
        f = self.item_preds[:, model]
        y = self.item_labels
        c0, c1, d0, d1 = spec_coefficients(spec, f)
        a_true, b_true = c0 + c1 * y, d0 + d1 * y
        use_model = self.estimator in ("difference", "calibrated")
        m = self.item_m if use_model else np.zeros_like(self.item_m)   # 0 in HT batches too
        delta = self._calibration(f, y, m, model, k_used)
        f1c0, f1c1, f1d0, f1d1 = (float(v[0]) for v in spec_coefficients(spec, np.ones(1)))
        f0c0, f0c1, f0d0, f0d1 = (float(v[0]) for v in spec_coefficients(spec, np.zeros(1)))
        lam = self.lambdas(k_used)
        used = self.item_batch < k_used
        if float(self.batches[k_used - 1]["n_unlabeled"]) <= np.sum(self.item_batch
                                                                    == k_used - 1):
            # a census: the last batch took every item left, so the pool's labels are all
            # known (the batch-weighted estimate would still average the earlier batches')
            b_sum = float(b_true[used].sum())
            if not b_sum > 0:
                out["reason"] = "its denominator is zero on this pool"
                return out
            return dict(out, estimate=float(np.clip(a_true[used].sum() / b_sum, 0.0, 1.0)),
                        std_error=0.0, se_low=0.0, se_high=0.0, reach=[], defined=True,
                        zero_width=True, census=True, n_eff=float("inf"), ess=float("inf"),
                        max_weight_share=0.0)
        if f1d0 == 0 and f0d0 == 0 and not np.any(d1[used] * y[used] > 0):
            # the denominator is a count of events (recall: positives) and no labeled item
            # is one: any B̂ is the model's total minus its own estimate, noise around 0
            out.update(vacuous=True, reason="no labeled item contributes to its estimated "
                       "denominator (e.g. no positive seen); the interval is the whole range "
                       "[0, 1]")
            return out
        a_hat = b_hat = 0.0
        for k in range(k_used):
            bt = self.batches[k]
            if (bt["zero_f1"][model] and (f1c1 or f1d1)) or (bt["zero_f0"][model] and
                                                              (f0c1 or f0d1)):
                out["reason"] = ("some items can never be drawn (inclusion probability 0) and "
                                 f"their labels enter {spec.name}")
                return out
            before = self.item_batch < k
            ins = self.item_batch == k
            nu, sf, sm, sfm = pool_totals(bt, model, use_model)
            # Σ_U (c0 + c1 m) and Σ_U (d0 + d1 m) from the batch's pool totals
            sum_c0 = f1c0 * sf + f0c0 * (nu - sf)
            sum_c1m = f1c1 * sfm + f0c1 * (sm - sfm)
            sum_d0 = f1d0 * sf + f0d0 * (nu - sf)
            sum_d1m = f1d1 * sfm + f0d1 * (sm - sfm)
            res = (y[ins] - m[ins]) / self.item_pi[ins]
            a_k = a_true[before].sum() + sum_c0 + sum_c1m + float(np.dot(c1[ins], res))
            b_k = b_true[before].sum() + sum_d0 + sum_d1m + float(np.dot(d1[ins], res))
            for grp, (d_g, gap, g_g, mgap) in delta[k].items():
                # δ_g (N_{U,g} − N̂_{U,g}) + γ_g (M_{U,g} − M̂_{U,g})
                cg = (f1c1, f1d1) if grp == 1 else (f0c1, f0d1)
                corr = d_g * gap + g_g * mgap
                a_k += cg[0] * corr
                b_k += cg[1] * corr
            a_hat += lam[k] * a_k
            b_hat += lam[k] * b_k
        if not b_hat > 0:
            if f1d1 or f0d1:        # the denominator is estimated from labels: no event seen
                out.update(vacuous=True, reason="no labeled item contributes to its estimated "
                           "denominator (e.g. no positive seen); the interval is the whole "
                           "range [0, 1]")
            else:                   # the denominator is known (e.g. no predicted positive)
                out["reason"] = "its denominator is zero on this pool"
            return out
        g = float(np.clip(a_hat / b_hat, 0.0, 1.0))
        if g < BOUNDARY_TOL:            # rounding residue of an exactly known 0 (or 1)
            g = 0.0
        elif g > 1.0 - BOUNDARY_TOL:
            g = 1.0
        var = var_bern = var_labels = 0.0
        reach_ok = bool(self.batches[k_used - 1].get("never"))
        model_groups: set[str] = set()      # the models' prediction is the estimate
        var_side = {-1: 0.0, 1: 0.0}        # the interval's lower / upper side
        k1, k0 = f1c1 - g * f1d1, f0c1 - g * f0d1
        wsum, w2sum, wmax = 0.0, 0.0, 0.0
        for k in range(k_used):
            ins = self.item_batch == k
            pi = self.item_pi[ins]
            shift = np.zeros(int(ins.sum()))
            for grp, (d_g, _, g_g, _) in delta[k].items():
                sel = f[ins] == grp
                shift[sel] = d_g + g_g * m[ins][sel]
            e = (c1[ins] - g * d1[ins]) * (y[ins] - m[ins] - shift)
            v_k = self._batch_var(e, pi)
            bt = self.batches[k]
            floor = {-1: 0.0, 0: 0.0, 1: 0.0}   # lower side, both groups (std_error), upper
            if "antic_0" in bt:
                for grp, kg, total, skew in (
                        ("f", k1, bt["antic_f"][model], _skew(bt, "f", model)),
                        ("f0", k0, antic_group0(bt, model), _skew(bt, "f0", model))):
                    side = int(np.sign(kg * skew))
                    gam = skew / total ** 1.5 if total > 0 else 0.0     # the error's skewness
                    if reach_ok and abs(gam) > min(RARE_ESTIMATE_SKEW, RARE_SKEW):
                        model_groups.add(grp)   # the estimate: the models' prediction
                    if reach_ok and abs(gam) > RARE_SKEW:
                        continue                # rare regime: the model's reach, no floor
                    floor[0] += kg * kg * total
                    for sd in (-1, 1):
                        # full weight on the side unseen rare labels move the measure to;
                        # on the other side 1/(1 + γ²): near 1 while the error is roughly
                        # symmetric, near 0 where one rare label at weight 1/π dominates it
                        share = 1.0 if side in (0, sd) else 1.0 / (1.0 + gam * gam)
                        floor[sd] += share * kg * kg * total
            for sd in (-1, 1):
                var_side[sd] += lam[k] ** 2 * max(v_k, floor[sd])
            var += lam[k] ** 2 * max(v_k, floor[0])
            var_labels += lam[k] ** 2 * v_k
            var_bern += lam[k] ** 2 * float(np.sum((1.0 - pi) * (b_true[ins] / pi) ** 2))
            wb = lam[k] * b_true[ins] * (pi < 1) / pi
            wsum, w2sum = wsum + wb.sum(), w2sum + (wb ** 2).sum()
            wmax = max(wmax, float(wb.max()) if wb.size else 0.0)
        se = float(np.sqrt(max(var, 0.0)) / b_hat)
        se_low, se_high = (float(np.sqrt(max(var_side[sd], 0.0)) / b_hat) for sd in (-1, 1))
        se_labels = float(np.sqrt(max(var_labels, 0.0)) / b_hat)   # without the floors
        reach = model_reach(self, spec, model, k_used, a_hat, b_hat, delta,
                            m) if model_groups else []
        g_model, weights = g, ()
        if reach:                   # the rare regime: the models' prediction is the estimate
            w = model_weights(self, model, k_used, [js for _, _, js in reach])
            weights = tuple(float(v) for v in w)
            g_model = float(sum(wj * gt for wj, (gt, _, _) in zip(weights, reach, strict=True)))
        n_eff = b_hat ** 2 / var_bern if var_bern > 0 else float("inf")
        held = (consistent_bounds(a_true[used], b_true[used]) if spec.kind != "squared"
                else [])
        return dict(out, estimate=g_model, design_estimate=g, model_weights=weights,
                    std_error=se, se_low=se_low, se_high=se_high, se_labels=se_labels,
                    held=held,
                    reach=[(gt, sigma) for gt, sigma, _ in reach],
                    reach_models=[js for _, _, js in reach],
                    reach_names=model_names(self.batches[k_used - 1], reach),
                    defined=True, zero_width=se == 0.0,
                    n_eff=float(n_eff), ess=wsum ** 2 / w2sum if w2sum > 0 else float("inf"),
                    max_weight_share=wmax / wsum if wsum > 0 else 0.0)

    def _calibration(self, f: np.ndarray, y: np.ndarray, m: np.ndarray, model: int,
                     k_used: int) -> list[dict[int, tuple[float, float, float, float]]]:
        """Per batch, ``{g: (δ_g, N_{U,g} − N̂_{U,g}, γ_g, M_{U,g} − M̂_{U,g})}`` for the
        prediction groups ``g ∈ {0, 1}`` the calibrated estimator corrects (empty for the
        other estimators).

        The residual ``r = y − m`` of the items with ``π < 1`` is regressed on ``(1, m)``
        with weights ``1/π`` (:func:`calibration_fit`): ``r ≈ δ_g + γ_g m``, i.e. the
        assisting model ``δ_g + (1 + γ_g) m`` — a shift and a rescaling of the scores in
        each prediction group (GREG with auxiliaries ``(1, m)``; Särndal et al. 1992, §6.5).
        ``N̂_{U,g} = Σ_{S_g} 1/π`` and ``M̂_{U,g} = Σ_{S_g} m/π`` estimate the group's size
        and model total ``M_{U,g} = Σ_{U_g} m``."""
        out: list[dict[int, tuple[float, float, float, float]]] = [{} for _ in range(k_used)]
        if self.estimator != "calibrated":
            return out
        for k in range(k_used):
            bt = self.batches[k]
            ins = self.item_batch == k
            pi, fk, mk = self.item_pi[ins], f[ins], m[ins]
            nu, s_f, s_m, s_fm = pool_totals(bt, model, True)
            n_group = {1: s_f, 0: nu - s_f}
            m_group = {1: s_fm, 0: s_m - s_fm}
            for grp in (0, 1):
                sel = fk == grp
                fit = group_calibration(y[ins] - mk, mk, pi, sel)
                if fit is None:
                    continue
                d_g, g_g = fit
                out[k][grp] = (d_g, float(n_group[grp] - np.sum(1.0 / pi[sel])), g_g,
                               float(m_group[grp] - np.sum(mk[sel] / pi[sel])))
        return out

    def _batch_var(self, e: np.ndarray, pi: np.ndarray) -> float:
        """Design variance estimate of ``Σ_S e/π`` (Poisson, or Rosén's for Pareto)."""
        free = pi < 1.0
        e, pi = e[free], pi[free]
        n = e.shape[0]
        if self.sampling == "poisson" or n < 2:
            return float(np.sum((1.0 - pi) * (e / pi) ** 2))
        wt = 1.0 - pi
        abar = float(np.sum(wt * e / pi) / wt.sum())
        return float(n / (n - 1) * np.sum(wt * (e / pi - abar) ** 2))
