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

from ._design import (
    StrataModel,
    inclusion_probabilities,
    pareto_sample,
    poisson_sample,
    size_measure,
    spec_coefficients,
)
from ._ht import DesignSample
from ._measures import MeasureSpec
from ._proposals import Pool, Proposal, plot_sample

__all__ = ["BatchDesign", "DESIGNS"]

DESIGNS = ("pps", "with_replacement")


class BatchDesign:
    """Batch builder for a binary pool (``pool.probs`` is the model's prior ``p(y=1|x)``)."""

    def __init__(self, pool: Pool, spec: MeasureSpec, *, ranking: np.ndarray, epsilon: float,
                 sampling: str, estimator: str, adaptive: bool, passive: bool) -> None:
        self.pool, self.spec = pool, spec
        self.epsilon, self.sampling, self.estimator = epsilon, sampling, estimator
        self.passive = passive
        self.model = StrataModel(ranking, pool.probs) if adaptive else None

    def model_probs(self, lab_idx: np.ndarray, lab_y: np.ndarray) -> np.ndarray:
        if self.model is None:
            return self.pool.probs
        return self.model.probabilities(lab_idx, lab_y)

    def plug_in(self, m: np.ndarray, labeled: np.ndarray, lab_idx: np.ndarray,
                lab_y: np.ndarray) -> float:
        """The model's value of the headline measure, with known labels substituted."""
        y = m.copy()
        y[lab_idx] = lab_y
        c0, c1, d0, d1 = spec_coefficients(self.spec, self.pool.headline_pred)
        den = float(np.sum(d0 + d1 * y))
        return float(np.sum(c0 + c1 * y) / den) if den > 0 else float("nan")

    def next_batch(self, n: int, lab_idx: np.ndarray, lab_y: np.ndarray,
                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                      dict[str, Any], np.ndarray, float]:
        """Select batch positions; return ``(idx, pi, m, stats, pi_over_pool, plug_in)``."""
        size = self.pool.size
        labeled = np.zeros(size, dtype=bool)
        labeled[lab_idx] = True
        unl = np.flatnonzero(~labeled)
        m = self.model_probs(lab_idx, lab_y)
        g = self.plug_in(m, labeled, lab_idx, lab_y)
        f = self.pool.headline_pred[unl]
        if self.passive or not np.isfinite(g):
            shape = np.zeros(unl.shape[0])
        else:
            shape = size_measure(m[unl], f, self.spec, g)
        pi = inclusion_probabilities(shape, n, 1.0 if self.passive else self.epsilon)
        pos = pareto_sample(pi, n, rng) if self.sampling == "pareto" else poisson_sample(pi, rng)
        preds = self.pool.preds[unl]
        mu = m[unl]
        zero = pi <= 0
        # anticipated (model-expected) variance terms Σ_U (1 − π)/π · Var_m(residual)
        vres = mu * (1.0 - mu) if self.estimator == "difference" else mu
        with np.errstate(divide="ignore", invalid="ignore"):
            av = np.where(zero, 0.0, (1.0 - pi) / pi * vres)
        c0, c1, d0, d1 = spec_coefficients(self.spec, f)
        coef = (c1 - (g if np.isfinite(g) else 0.0) * d1) ** 2
        antic = float(np.sum(coef * av))
        stats = dict(n_target=float(n), n_unlabeled=float(unl.shape[0]), sum_m=float(mu.sum()),
                     sum_f=preds.sum(axis=0).tolist(),
                     sum_fm=(preds * mu[:, None]).sum(axis=0).tolist(),
                     zero_f1=(preds[zero] == 1).sum(axis=0).tolist(),
                     zero_f0=(preds[zero] == 0).sum(axis=0).tolist(),
                     antic_0=float(av.sum()), antic_f=(preds * av[:, None]).sum(axis=0).tolist(),
                     weight=1.0 / max(antic, 1e-12))
        full = np.zeros(size)
        full[unl] = pi
        return unl[pos], pi[pos], mu[pos], stats, full, g

    def proposal(self, pi_full: np.ndarray, g: float, n: int) -> Proposal:
        """The batch's inclusion probabilities as a :class:`Proposal` (``q = π / n``)."""
        q = pi_full / max(float(pi_full.sum()), 1e-300)
        return Proposal(q=q, term=self.spec.name, plug_in=g, n_pool=self.pool.size,
                        method=f"capped πps ({self.sampling}), batch of {n}",
                        kind="passive" if self.passive else "pps", epsilon=self.epsilon,
                        criterion="model-assisted", **plot_sample(self.pool, q))


def design_sample(item_ids: np.ndarray, labels: np.ndarray, preds: np.ndarray,
                  batch: np.ndarray, pi: np.ndarray, m: np.ndarray,
                  batches: list[dict[str, Any]], sampling: str,
                  estimator: str) -> DesignSample:
    """A :class:`DesignSample` (arrays as given, batches as plain dicts)."""
    return DesignSample(item_ids=np.asarray(item_ids), item_labels=np.asarray(labels, float),
                        item_preds=np.asarray(preds, float).reshape(len(item_ids), -1),
                        item_batch=np.asarray(batch, int), item_pi=np.asarray(pi, float),
                        item_m=np.asarray(m, float), batches=list(batches),
                        sampling=sampling, estimator=estimator)
