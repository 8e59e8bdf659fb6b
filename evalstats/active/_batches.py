"""The without-replacement design in sequential batches: what the evaluator asks for.

:class:`BatchDesign` builds batch ``k`` from the labels of batches ``< k``: the model
(:class:`~._design.StrataModel`, or the scores as they are), the inclusion probabilities over
the unlabeled items (:func:`~._design.inclusion_probabilities`), the sample (Pareto or
Poisson) and the pool totals the estimator needs (:class:`~._ht.DesignSample`). It holds no
labels itself; the evaluator keeps the state and can persist it as plain data.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_option, fail
from ._calibration import apply_recalibration, fit_recalibration
from ._design import (
    POOL_BLOCK,
    StrataModel,
    coefficients_at,
    defensive_weights,
    inclusion_probabilities,
    pareto_sample,
    poisson_sample,
    size_measure,
)
from ._ht import MIN_CALIBRATION, DesignSample, slope_shares
from ._measures import MeasureSpec
from ._proposals import Pool, Proposal, plot_sample

__all__ = ["BatchDesign", "DESIGNS", "design_iv"]

DESIGNS = ("pps", "with_replacement")

#: fewest labels for the recalibrated model in the anticipated-variance floor
MIN_RECALIBRATION = 10

#: the recalibration behind the floor weighs a label by ``π^(−power)``: 1 is the design-
#: weighted fit, 0 the model-based one; ½ (see :meth:`BatchDesign.anticipated`)
RECALIBRATION_WEIGHT_POWER = 0.5


class BatchDesign:
    """Batch builder for a binary pool (``pool.probs`` is the model's prior ``p(y=1|x)``)."""

    def __init__(self, pool: Pool, spec: MeasureSpec, *, ranking: np.ndarray, epsilon: float,
                 sampling: str, estimator: str, adaptive: bool, passive: bool,
                 raw: bool = False, defensive: str = "influence") -> None:
        self.pool, self.spec = pool, spec
        self.epsilon, self.sampling, self.estimator = epsilon, sampling, estimator
        #: how ε is spread: "influence" (:func:`~._design.defensive_weights`) or "uniform"
        #: (sessions written before the influence rule replay the design they drew with)
        self.defensive = defensive
        self.passive = passive
        self.adaptive = adaptive
        self.raw = raw
        # raw margins: the logistic map is barely a prior (2 pseudo-labels per stratum)
        self.model = StrataModel(ranking, pool.probs, kappa=2.0 if raw else 10.0)
        # batch k's predictive totals depend on the labels of batches <= k only, which do
        # not change once batch k is complete: kept per batch, keyed by their count and that
        # of batch k + 1 (whose labels the models fitted up to k are scored on)
        self._never: dict[int, tuple[tuple[int, int, bool], list]] = {}

    def estimator_model(self, k_labels: int) -> bool:
        """Whether a batch's estimator uses the model: not for raw margins before any label
        (their logistic map is no probability; that batch is Horvitz–Thompson)."""
        return (self.estimator in ("difference", "calibrated")
                and not (self.raw and k_labels == 0))

    def model_probs(self, lab_idx: np.ndarray, lab_y: np.ndarray) -> np.ndarray:
        """The model a batch is designed with: updated from the labels when adaptive."""
        if not self.adaptive:
            return self.pool.probs
        return self.model.probabilities(lab_idx, lab_y)

    def plug_in(self, m: np.ndarray, lab_idx: np.ndarray, lab_y: np.ndarray) -> float:
        """The model's value of the headline measure, with known labels substituted."""
        f = self.pool.headline_pred
        y1 = float(np.dot(f, m)) + float(np.dot(f[lab_idx], lab_y - m[lab_idx]))
        y_all = float(m.sum()) + float(np.sum(lab_y - m[lab_idx]))
        n1 = float(f.sum())
        n0 = f.shape[0] - n1
        (c0a, c1a, d0a, d1a), (c0b, c1b, d0b, d1b) = (coefficients_at(self.spec, 1.0),
                                                      coefficients_at(self.spec, 0.0))
        num = c0a * n1 + c0b * n0 + c1a * y1 + c1b * (y_all - y1)
        den = d0a * n1 + d0b * n0 + d1a * y1 + d1b * (y_all - y1)
        return num / den if den > 0 else float("nan")

    def next_batch(self, n: int, lab_idx: np.ndarray, lab_y: np.ndarray,
                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                      dict[str, Any], np.ndarray, float]:
        """Select batch positions; return ``(idx, pi, m, stats, pi_over_pool, plug_in)``."""
        unl, pi, m, g = self.inclusion(n, lab_idx, lab_y)
        pos = pareto_sample(pi, n, rng) if self.sampling == "pareto" else poisson_sample(pi, rng)
        preds = unl.take(self.pool.preds)
        use_model = self.estimator_model(len(lab_idx))
        m_u = unl.take(m)
        mu = m_u if use_model else np.zeros(unl.n)
        zero = pi <= 0
        pz = preds[zero]
        stats = dict(n_target=float(n), n_unlabeled=float(unl.n), sum_m=float(mu.sum()),
                     sum_f=preds.sum(axis=0).tolist(), sum_fm=(mu @ preds).tolist(),
                     zero_f1=(pz == 1).sum(axis=0).tolist(),
                     zero_f0=(pz == 0).sum(axis=0).tolist(),
                     model=float(use_model))
        # anticipated (model-expected) variance under the batch's own model; before the
        # labels, a group counts as calibrated if it expects MIN_CALIBRATION free labels
        centre = None
        if self.estimator == "calibrated":
            free = np.where(pi < 1.0, pi, 0.0)
            ex1 = free @ np.asarray(preds, dtype=float).reshape(unl.n, -1)
            expected = np.column_stack([float(free.sum()) - ex1, ex1])     # [j, g]
            centre = np.where(expected >= MIN_CALIBRATION, 1.0, np.nan)
        stats.update(anticipated_totals(pi, [m_u], mu, preds, centre))
        return unl.positions(pos), pi[pos], mu[pos], stats, unl.scatter(pi), g

    def inclusion(self, n: int, lab_idx: np.ndarray, lab_y: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """``(unlabeled positions, π over them, model m, plug-in G̃)`` for a batch of ``n``."""
        unl = _Rows(self.pool.size, lab_idx)
        m = self.model_probs(lab_idx, lab_y)
        g = self.plug_in(m, lab_idx, lab_y)
        defensive = None
        if self.passive or not np.isfinite(g):
            shape = np.zeros(unl.n)
        else:
            f = unl.take(self.pool.headline_pred)
            shape = size_measure(unl.take(m), f, self.spec, g)
            if self.defensive == "influence":   # ε by each group's influence on the measure
                defensive = (np.flatnonzero(f == 1), *defensive_weights(self.spec, g))
        pi = inclusion_probabilities(shape, n, 1.0 if self.passive else self.epsilon,
                                     defensive)
        return unl, pi, m, g

    def anticipated(self, batches: list[dict[str, Any]], lab_idx: np.ndarray,
                    lab_y: np.ndarray, lab_batch: np.ndarray,
                    lab_pi: np.ndarray | None = None) -> list[dict[str, Any]]:
        """The batches with their anticipated-variance totals recomputed from every label
        (:func:`anticipated_totals`) under two models of ``y``: ``m_f``, the stratified model
        fitted on every label, and ``m_r = σ(a + b·logit m)``, the logistic recalibration of
        the scores on the labels (:func:`~._calibration.fit_recalibration`, weights
        ``π^(−½)``; needs ``lab_pi``); each prediction group takes the larger total.

        The weights are a compromise (Kish's square-root weights). The design weights ``1/π``
        target the pool-average map whatever the truth, but with sizes ``v^0.7`` they span
        four decades and the fit is ruled by a few far-tail labels (all zero): on
        sim_overconfident the floor then stayed low and the default's intervals covered
        0.887–0.953 (four measures, 200–1000 labels, 300 seeds). Unweighted (the model-based
        fit, valid when ``σ(a + b·logit m)`` is the truth, since labels are drawn on the
        scores alone) covered 0.94–0.98 but widened accuracy intervals on the rare
        entity-resolution pools up to 10-fold; ``π^(−½)`` covered 0.940–0.98 with F1 widths
        there ×1.1–1.4 (they covered 1.00 before and after).

        The stratified model only moves a stratum once its labels show events, so where the
        scores are overconfident it keeps the tiny variance of the strata whose few labels
        hold no positive — the unsampled mass that made intervals undercover (sim_overconfident:
        the floor of the FN total was 2,500–12,500 against 22,400 under the true
        probabilities). The recalibration borrows the slope ``b`` from every stratum and
        extends it there. The inclusion probabilities ``π_k`` and the batch's model are
        replayed (deterministic functions of the labels of the batches before ``k``)."""
        m_final = self.model.probabilities(lab_idx, lab_y)     # always learned from labels
        cands = [m_final]
        if lab_pi is not None and len(lab_idx) >= MIN_RECALIBRATION:
            cands.append(apply_recalibration(
                self.pool.probs, fit_recalibration(
                    self.pool.probs[lab_idx], lab_y,
                    np.asarray(lab_pi, float) ** -RECALIBRATION_WEIGHT_POWER)))
        out = []
        for k, bt in enumerate(batches):
            before = lab_batch < k
            unl, pi, m_k, _ = self.inclusion(int(bt["n_target"]), lab_idx[before],
                                             lab_y[before])
            use_model = bool(bt.get("model", 1.0))
            mu = unl.take(m_k) if use_model else np.zeros(unl.n)
            centre = None
            if self.estimator == "calibrated" and lab_pi is not None:
                ins = lab_batch == k          # centred on the line the estimator fits
                m_ins = m_k[lab_idx[ins]] if use_model else np.zeros(int(ins.sum()))
                centre = slope_shares(lab_y[ins] - m_ins, m_ins,
                                      np.asarray(lab_pi, float)[ins],
                                      self.pool.preds[lab_idx[ins]])
            elif self.estimator == "calibrated":
                centre = True
            out.append(dict(bt, **anticipated_totals(
                pi, [unl.take(c) for c in cands], mu, unl.take(self.pool.preds), centre)))
            upto = lab_batch <= k             # the items no batch up to k has labeled
            nxt = lab_batch == k + 1          # scored by the models fitted up to k
            key = (int(upto.sum()), int(nxt.sum()), lab_pi is not None)
            cached = self._never.get(k)
            if cached is not None and cached[0] == key:
                out[-1]["never"] = cached[1]
                continue
            bases = [("scores", self.pool.probs)]
            if k == len(batches) - 1 and len(cands) > 1:
                bases.append(("recalibrated", cands[1]))   # the same fit: every label is up to k
            elif lab_pi is not None and key[0] >= MIN_RECALIBRATION:
                bases.append(("recalibrated", apply_recalibration(
                    self.pool.probs, fit_recalibration(
                        self.pool.probs[lab_idx[upto]], lab_y[upto],
                        np.asarray(lab_pi, float)[upto] ** -RECALIBRATION_WEIGHT_POWER))))
            if self.raw and len(bases) > 1:
                # raw margins: their logistic map is no probability, so once fitted only the
                # recalibration predicts the never-drawn labels (see ._rare)
                bases = bases[1:]
            out[-1]["never"] = [dict(self.model.predictive(lab_idx[upto], lab_y[upto],
                                                           self.pool.preds, base=b),
                                     **self.model.next_loglik(lab_idx[upto], lab_y[upto],
                                                              lab_idx[nxt], lab_y[nxt],
                                                              self.pool.preds, base=b),
                                     model=name)
                                for name, b in bases]
            self._never[k] = (key, out[-1]["never"])
        return out

    def proposal(self, pi_full: np.ndarray, g: float, n: int) -> Proposal:
        """The batch's inclusion probabilities as a :class:`Proposal` (``q = π / n``)."""
        q = pi_full / max(float(pi_full.sum()), 1e-300)
        return Proposal(q=q, term=self.spec.name, plug_in=g, n_pool=self.pool.size,
                        method=f"capped πps ({self.sampling}), batch of {n}",
                        kind="passive" if self.passive else "pps", epsilon=self.epsilon,
                        criterion="model-assisted", **plot_sample(self.pool, q))


class _Rows:
    """The unlabeled rows of the pool: all of them (views, no copies) or an index array."""

    def __init__(self, size: int, lab_idx: np.ndarray) -> None:
        self.size = size
        if len(lab_idx) == 0:
            self.idx, self.n = None, size
        else:
            labeled = np.zeros(size, dtype=bool)
            labeled[lab_idx] = True
            self.idx = np.flatnonzero(~labeled)
            self.n = int(self.idx.shape[0])

    @property
    def array(self) -> np.ndarray:
        """The positions as an array."""
        return np.arange(self.size) if self.idx is None else self.idx

    def take(self, a: np.ndarray) -> np.ndarray:
        return a if self.idx is None else a[self.idx]

    def positions(self, pos: np.ndarray) -> np.ndarray:
        return pos if self.idx is None else self.idx[pos]

    def scatter(self, values: np.ndarray) -> np.ndarray:
        if self.idx is None:
            return np.asarray(values, dtype=float)
        full = np.zeros(self.size)
        full[self.idx] = values
        return full


def anticipated_totals(pi: np.ndarray, cands: list[np.ndarray], mu: np.ndarray,
                       preds: np.ndarray, centre: bool | np.ndarray | None
                       ) -> dict[str, Any]:
    r"""Model-anticipated variance totals of one batch, by prediction group and model column.

    The batch's estimator has residual ``y − μ − δ_g − γ_g μ`` (``μ`` the model it used,
    ``0`` in a Horvitz–Thompson batch; ``δ_g + γ_g μ`` the calibrated estimator's group
    regression of the residual on the model, :func:`~._ht.calibration_fit`, else 0). Its
    expected square under a model ``m*`` of ``y`` is
    ``m*(1 − m*) + (m* − μ − δ*_g − γ*_g μ)²`` with ``γ*_g = ρ_g β*_g``, ``β*_g`` the
    least-squares slope of ``m* − μ`` on ``μ`` over the group's unlabeled items (what the
    calibration estimates), ``ρ_g`` the share of it the estimator keeps and ``δ*_g`` the
    group's mean of ``m* − μ − γ*_g μ`` (as :func:`~._ht.calibration_fit` refits the
    intercept). ``centre``: ``ρ`` per model column and group (``[j, g]``, NaN: the group is
    not calibrated, ``δ* = γ* = 0``; :func:`~._ht.slope_shares`), ``True`` for ``ρ = 1``
    everywhere, ``None``/``False`` for no centring. The full line (``ρ = 1`` for every
    group) overstated the centring of groups whose slope is shrunk or that have too few
    labels to be calibrated: not centring at all raised the default's coverage in 41 of
    108 cells of the small-sample bed by up to 0.020 and lowered none (30–100 labels, 300
    runs). Each group's total is the largest over the models ``cands`` (each a coherent
    model of every label; an item-wise maximum would mix them, and its F1 interval was 5 %
    wider on er_abt_buy at 1000 labels):

    .. math::

        \tilde V_{g,j} = \max_{m^*} \sum_{U_k:\,f_j = g} \frac{1 - \pi_i}{\pi_i}
            \bigl[m^*_i (1 - m^*_i) + (m^*_i - \mu_i - \delta^*_{g} - \gamma^*_g\mu_i)^2\bigr]

    (Särndal et al. 1992, §12.2, for one model).
    Under the batch's own model (``m* = μ``) this is ``Σ (1 − π)/π · μ(1 − μ)``; in a
    Horvitz–Thompson batch without calibration ``Σ (1 − π)/π · m*``. Returns ``antic_f``
    (``g = 1``) and ``antic_f0`` (``g = 0``) per model column ``j``, ``antic_0`` (both
    groups of column 0), and ``antic_skew_f`` / ``antic_skew_f0``: under the model that gave
    the group's total, the third cumulant ``Σ (1 − π)(1 − 2π)/π² · m*(1 − m*)(1 − 2m*)`` of
    the group's error. Positive (rare positives: a sample typically misses some and
    under-estimates the total, and now and then draws one at weight ``1/π``) or negative
    (rare negatives); its sign tells :meth:`~._ht.DesignSample.estimate` on which side of
    the estimate the floor belongs.
    """
    preds = np.asarray(preds, dtype=float).reshape(pi.shape[0], -1)
    # (group-1 sums per model column, total) of each vector of _anticipated_vectors, pool
    # block by pool block (a 10-million pool would otherwise hold ~10 full-size temporaries)
    n_vec = 5 + _PER_MODEL * len(cands)
    g1, tot_all = np.zeros((n_vec, preds.shape[1])), np.zeros(n_vec)
    for a in range(0, pi.shape[0], POOL_BLOCK):
        blk = slice(a, a + POOL_BLOCK)
        for k, vec in enumerate(_anticipated_vectors(pi[blk], mu[blk],
                                                     [c[blk] for c in cands])):
            g1[k] += vec @ preds[blk]
            tot_all[k] += float(vec.sum())
    sums = [(g1[k], float(tot_all[k])) for k in range(n_vec)]
    base = sums[:5]
    per = [sums[5 + _PER_MODEL * i:5 + _PER_MODEL * (i + 1)] for i in range(len(cands))]
    n1 = preds.sum(axis=0)
    a1, a0, k1, k0 = [], [], [], []
    for j in range(preds.shape[1]):
        tot = {1: 0.0, 0: 0.0}
        skew = {1: 0.0, 0: 0.0}
        n_of = {1: float(n1[j]), 0: float(preds.shape[0] - n1[j])}
        for g in (1, 0):
            s_t, s_tm, s_tmm, s_m, s_mm = (_group_sum(s, j, g) for s in base)
            n = n_of[g]
            for i, rows in enumerate(per):
                s_vd, s_td, s_tdm, s_d, s_dm, s_k3 = (_group_sum(s, j, g) for s in rows)
                delta = gamma = 0.0
                rho = _share(centre, j, g)
                if rho == rho and n > 0:
                    var_m = s_mm - s_m * s_m / n
                    if var_m > 1e-12 * max(s_mm, 1e-300):
                        gamma = rho * (s_dm - s_d * s_m / n) / var_m
                    delta = (s_d - gamma * s_m) / n
                total = float(s_vd - 2.0 * delta * s_td - 2.0 * gamma * s_tdm
                              + delta * delta * s_t + 2.0 * delta * gamma * s_tm
                              + gamma * gamma * s_tmm)
                if i == 0 or total > tot[g]:
                    tot[g], skew[g] = max(total, tot[g]), s_k3
        a1.append(tot[1])
        a0.append(tot[0])
        k1.append(float(skew[1]))
        k0.append(float(skew[0]))
    return dict(antic_0=a1[0] + a0[0], antic_f=a1, antic_f0=a0, antic_skew_f=k1,
                antic_skew_f0=k0)


def _share(centre: bool | np.ndarray | None, j: int, g: int) -> float:
    """``ρ`` of model column ``j``, group ``g`` in :func:`anticipated_totals` (NaN: none)."""
    if centre is None or centre is False:
        return float("nan")
    if centre is True:
        return 1.0
    return float(np.asarray(centre, dtype=float)[j, g])


#: per-item vectors of :func:`_anticipated_vectors` for each model of ``y``
_PER_MODEL = 6


def _group_sum(s: tuple[np.ndarray, float], j: int, g: int) -> float:
    """Group ``g``'s sum of model column ``j`` from ``(group-1 sums, total)``."""
    return float(s[0][j]) if g == 1 else s[1] - float(s[0][j])


def _anticipated_vectors(pi: np.ndarray, mu: np.ndarray, cands: list[np.ndarray]):
    """The per-item terms whose sums :func:`anticipated_totals` needs, one at a time:
    ``t, tμ, tμ², μ, μ²`` with ``t = (1 − π)/π`` (0 where ``π = 0``: such items are flagged,
    not estimated), then per model ``m*`` (``d = m* − μ``) ``t[m*(1 − m*) + d²], td, tdμ, d,
    dμ`` and the third cumulant ``(1 − π)(1 − 2π)/π² · m*(1 − m*)(1 − 2m*)`` of the item's
    error ``(y − m*)(I/π − 1)``. Σ t(d − δ − γμ)² = Σ t d² − 2δ Σ t d − 2γ Σ t d μ + δ² Σ t +
    2δγ Σ t μ + γ² Σ t μ², with (δ, γ) from Σ d, Σ d μ, Σ μ, Σ μ² and the group's size."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (1.0 - pi) / pi
        t3 = t * (1.0 - 2.0 * pi) / pi
    t[pi <= 0] = 0.0
    t3[pi <= 0] = 0.0
    tm = t * mu
    yield from (t, tm, tm * mu, mu, mu * mu)
    for c in cands:
        d = c - mu
        td = t * d
        vd = c * (1.0 - c)
        skew = vd * (1.0 - 2.0 * c)
        skew *= t3
        vd *= t
        vd += td * d
        yield from (vd, td, td * mu, d, d * mu, skew)


def design_sample(item_ids: np.ndarray, labels: np.ndarray, preds: np.ndarray,
                  batch: np.ndarray, pi: np.ndarray, m: np.ndarray,
                  batches: list[dict[str, Any]], sampling: str,
                  estimator: str) -> DesignSample:
    """A :class:`DesignSample` (arrays as given, batches as plain dicts)."""
    n_models = len(batches[0]["sum_f"]) if batches else 1
    return DesignSample(item_ids=np.asarray(item_ids), item_labels=np.asarray(labels, float),
                        item_preds=np.asarray(preds, float).reshape(len(item_ids), n_models),
                        item_batch=np.asarray(batch, int), item_pi=np.asarray(pi, float),
                        item_m=np.asarray(m, float), batches=list(batches),
                        sampling=sampling, estimator=estimator)


def design_iv(design: str | None, spec: MeasureSpec, scores: Any,
              recalibrate: str | None, default: str) -> str:
    """``None`` -> "pps" for binary pools; "pps" needs a binary pool and no recalibration."""
    binary = np.ndim(scores) == 1 and spec.kind != "squared"
    if design is None:
        return default if binary and recalibrate is None else "with_replacement"
    check_option(design, "design", DESIGNS)
    if design == "pps" and not binary:
        raise fail("design", "'with_replacement' for multi-class or squared-loss pools",
                   value=design)
    if design == "pps" and recalibrate is not None:
        raise fail("recalibrate", "None with design='pps' (use adaptive=True)",
                   value=recalibrate)
    return design

