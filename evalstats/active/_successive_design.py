r"""The default design: successive πps sampling in batches, with a certainty stratum.

Before batch ``k`` (``n_k`` labels) and from labels of earlier batches only:

1. **Model.** ``ĝ(x) = expit(a + b·s(x))`` with ``s`` the score's log-odds (or the raw
   margin), ``(a, b)`` the posterior mode under independent normal priors of scale 2.5
   centred on the identity ``(0, 1)``, so it exists with no positive label and moves away
   from "the scores are calibrated" only as far as the labels ask. The scale is that of
   the default weakly informative prior of logistic regression (Gelman, Jakulin, Pittau &
   Su 2008, *Ann. Appl. Stat.*), with two departures: it applies to the log-odds as they
   are, not to an input rescaled to standard deviation 0.5 (log-odds have their own unit,
   in which slope 1 is calibration), and it is normal rather than Cauchy, so the log
   posterior is strictly concave and its mode unique. Before the first label ``ĝ`` is the
   scores. The model affects efficiency only, never the estimator's mean.
2. **Sizes.** ``s*_i = sqrt(ĝ_i(1 − ĝ_i))·|a_i − G̃ b_i|``: the square root of the
   model-expected squared residual of item ``i``'s linearised influence on the headline
   measure ``G = A/B`` (Sawade et al. 2010, Theorem 1, for the model-assisted residual),
   with ``G̃`` the model's own value of the measure. They are mixed with a uniform
   defensive share, ``s = (1 − ε) s* / Σ s* + ε / |R_k|`` (ε = 0.1: the variance is at
   most ``1/(1 − ε)`` times the optimum and at most ``1/ε`` times passive sampling's,
   whatever the labels; Hesterberg 1995).
3. **Certainty stratum.** With ``π_i = min(1, c·s_i)`` and ``Σ π = n_k`` (capped πps,
   Särndal, Swensson & Wretman 1992, §3.6) the items with ``π_i = 1`` are labeled with
   certainty (they add no variance), at most ``n_k − 1`` of them so that every batch
   keeps a random draw.
4. **Draws.** The rest of the batch is drawn one at a time among the remaining items with
   probability ``q_t(i) = s_i / Σ_{R_t} s`` (successive sampling, Rosén 1972), drawn at
   once by exponential races (the order of ``E_i / s_i``, ``E_i ~ Exp(1)``). The draw
   probabilities do not depend on the batch's labels, so its labels can be asked
   together.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import special

from ._aipw import DrawRecords, exclusive_cumsum, ratio_coefficients
from ._measures import MeasureSpec
from ._optimal_proposal import Pool

__all__ = ["SuccessiveDesign", "recalibrate", "sizes", "certain_items", "successive_order",
           "PRIOR_SCALE"]

#: prior scale of the recalibration's intercept and slope (Gelman et al. 2008)
PRIOR_SCALE = 2.5
#: what the design records per labeled row
ROW_KEYS = ("item", "batch", "certain", "q", "bounds", "model_var", "ghat")


def recalibrate(feature: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """Posterior mode of ``logit P(y=1) = a + b·feature`` with ``a, b − 1 ~ N(0, 2.5²)``.

    Damped Newton on the (strictly concave) log posterior."""
    X = np.column_stack([np.ones_like(feature), feature])
    prior = np.array([0.0, 1.0])
    coef = prior.copy()

    def log_post(c: np.ndarray) -> float:
        z = X @ c
        return float(labels @ z - np.logaddexp(0.0, z).sum()
                     - ((c - prior) ** 2).sum() / (2 * PRIOR_SCALE ** 2))

    current = log_post(coef)
    for _ in range(100):
        p = special.expit(X @ coef)
        hess = X.T @ (X * (p * (1 - p))[:, None]) + np.eye(2) / PRIOR_SCALE ** 2
        step = np.linalg.solve(hess, X.T @ (labels - p) - (coef - prior) / PRIOR_SCALE ** 2)
        t = 1.0
        while True:
            trial = coef + t * step
            value = log_post(trial)
            if value >= current or t < 1e-10:
                break
            t /= 2
        done = abs(value - current) < 1e-12 * max(1.0, abs(current))
        coef, current = trial, value
        if done:
            break
    return float(coef[0]), float(coef[1])


def sizes(ghat: np.ndarray, pred: np.ndarray, spec: MeasureSpec, n_pool: int,
          epsilon: float, passive: bool) -> np.ndarray:
    """``s = (1 − ε) s*/Σ s* + ε/|R|`` on the remaining items (uniform when passive)."""
    n = ghat.shape[0]
    if passive:
        return np.full(n, 1.0 / n)
    (a1, a0, _), (b1, b0, _) = ratio_coefficients(spec, n_pool, 0.0)
    g_model = model_value(spec, ghat, pred, n_pool)
    infl = np.where(pred == 1, a1 - g_model * b1, a0 - g_model * b0)
    shape = np.sqrt(ghat * (1.0 - ghat)) * np.abs(infl)
    total = float(shape.sum())
    if not np.isfinite(total) or total <= 0:
        return np.full(n, 1.0 / n)
    return (1.0 - epsilon) * shape / total + epsilon / n


def model_value(spec: MeasureSpec, ghat: np.ndarray, pred: np.ndarray, n_pool: int) -> float:
    """The model's own value ``G̃`` of the measure on the remaining items (0 if undefined)."""
    y1, y0 = float(ghat @ pred), float(ghat @ (1.0 - pred))
    (a1, a0, ac), (b1, b0, bc) = ratio_coefficients(spec, ghat.shape[0], float(pred.sum()))
    den = b1 * y1 + b0 * y0 + bc
    return (a1 * y1 + a0 * y0 + ac) / den if den > 0 else 0.0


def certain_items(size: np.ndarray, n: int) -> np.ndarray:
    """Positions with ``min(1, c·size) = 1`` under ``Σ min(1, c·size) = n`` (at most
    ``n − 1`` of them, the largest)."""
    k = min(n, size.shape[0])
    if k <= 1:
        return np.zeros(0, dtype=int)
    top = np.argpartition(-size, k - 1)[:k]
    top = top[np.argsort(-size[top], kind="stable")]
    rest = float(size.sum()) - np.concatenate(([0.0], np.cumsum(size[top])))
    j = 0
    while j < k - 1 and rest[j] > 0 and (n - j) * size[top[j]] >= rest[j]:
        j += 1
    return np.sort(top[:j])


class SuccessiveDesign:
    """State of the successive design over a pool: the labeled rows and per-batch sums."""

    def __init__(self, pool: Pool, spec: MeasureSpec, feature: Any, epsilon: float,
                 passive: bool, adaptive: bool = True) -> None:
        self.pool, self.spec, self.epsilon, self.passive = pool, spec, epsilon, passive
        self._feature, self.adaptive = feature, adaptive
        self.rows: dict[str, list] = {k: [] for k in ROW_KEYS}
        self.batches: list[dict[str, Any]] = []

    @property
    def feature(self) -> np.ndarray:
        """The recalibration's covariate (log-odds or margins); ``feature`` may be given
        as a function, called once when the first model is fitted (a 10-million pool then
        holds no second copy of its scores until labels arrive)."""
        if callable(self._feature):
            self._feature = self._feature()
        return self._feature

    # -- one batch ---------------------------------------------------------------------------
    def model(self, lab_idx: np.ndarray, lab_y: np.ndarray) -> tuple[float, float] | None:
        """The recalibration fitted on the labels so far (``None``: the scores as given)."""
        if len(lab_idx) == 0 or not self.adaptive:
            return None
        order = np.argsort(lab_idx, kind="stable")     # the same fit after a resume
        return recalibrate(self.feature[lab_idx[order]], np.asarray(lab_y)[order])

    def predict(self, coef: tuple[float, float] | None, idx: np.ndarray) -> np.ndarray:
        if coef is None:
            return np.clip(self.pool.probs[idx], 1e-12, 1 - 1e-12)
        return special.expit(coef[0] + coef[1] * self.feature[idx])

    def plan(self, n: int, lab_idx: np.ndarray, lab_y: np.ndarray) -> dict[str, Any]:
        """Batch ``k``'s design before any draw: the remaining items ``R``, the model ``ĝ``
        on them, the sizes, the certain positions and the positions left to draw from."""
        coef = self.model(lab_idx, lab_y)
        remaining = np.ones(self.pool.size, dtype=bool)
        remaining[lab_idx] = False
        R = np.flatnonzero(remaining)
        ghat = self.predict(coef, R)
        size = sizes(ghat, self.pool.headline_pred[R], self.spec, self.pool.size,
                     self.epsilon, self.passive)
        cert = certain_items(size, n)
        left = np.ones(R.shape[0], dtype=bool)
        left[cert] = False
        return dict(n=int(n), coef=coef, R=R, ghat=ghat, size=size, cert=cert,
                    left=np.flatnonzero(left))

    def next_batch(self, n: int, lab_idx: np.ndarray, lab_y: np.ndarray,
                   rng: np.random.Generator) -> np.ndarray:
        """Select batch ``k``: its certain items, then ``n − #certain`` successive draws."""
        p = self.plan(n, lab_idx, lab_y)
        order = successive_order(p["size"][p["left"]], n - len(p["cert"]), rng)
        return self.take(p, order)

    def take(self, p: dict[str, Any], order: np.ndarray) -> np.ndarray:
        """Record the batch of plan ``p`` whose draws are ``order`` (positions among the
        items left to draw from); return the chosen pool positions."""
        size, left, cert, ghat, R = p["size"], p["left"], p["cert"], p["ghat"], p["R"]
        s_left = size[left]
        remaining = float(s_left.sum()) - np.concatenate(([0.0], np.cumsum(s_left[order])[:-1]))
        q = s_left[order] / remaining if len(order) else np.zeros(0)
        pos = left[order]
        preds = self.pool.preds[R[left]]
        g_left = ghat[left]
        k = len(self.batches)
        self.batches.append(dict(n=p["n"], coef=p["coef"], sum1=(g_left @ preds).tolist(),
                                 sum0=(g_left @ (1.0 - preds)).tolist()))
        chosen = np.concatenate([R[cert], R[pos]])
        bounds = _residual_bounds(g_left, s_left, preds, order, remaining)
        model_var = _model_variance(g_left, s_left, preds, order, remaining)
        self._append(chosen, k, np.concatenate([np.ones(len(cert)), q]),
                     np.concatenate([np.zeros((len(cert), bounds.shape[1])), bounds]),
                     np.concatenate([np.zeros((len(cert), model_var.shape[1])), model_var]),
                     np.concatenate([ghat[cert], ghat[pos]]), len(cert))
        return chosen

    def _append(self, items, k, q, bounds, model_var, ghat, n_cert) -> None:
        r = self.rows
        r["item"] += [int(i) for i in items]
        r["batch"] += [k] * len(items)
        r["certain"] += [True] * n_cert + [False] * (len(items) - n_cert)
        r["q"] += [float(v) for v in q]
        r["bounds"] += [[float(v) for v in row] for row in bounds]
        r["model_var"] += [[float(v) for v in row] for row in model_var]
        r["ghat"] += [float(v) for v in ghat]

    # -- records -----------------------------------------------------------------------------
    def records(self, labels: dict[int, float], n_batches: int) -> DrawRecords:
        """The records of the first ``n_batches`` batches (every item labeled)."""
        keep = np.asarray(self.rows["batch"], dtype=int) < n_batches
        items = np.asarray(self.rows["item"], dtype=int)[keep]
        b = self.batches[:n_batches]
        return DrawRecords(
            batch=np.asarray(self.rows["batch"], dtype=int)[keep],
            certain=np.asarray(self.rows["certain"], dtype=bool)[keep],
            q=np.asarray(self.rows["q"])[keep],
            bounds=np.asarray(self.rows["bounds"], dtype=float).reshape(
                len(keep), -1)[keep],
            model_var=np.asarray(self.rows["model_var"], dtype=float).reshape(
                len(keep), -1)[keep],
            ghat=np.asarray(self.rows["ghat"])[keep], preds=self.pool.preds[items],
            labels=np.array([labels[i] for i in items], dtype=float),
            sum1=np.array([x["sum1"] for x in b], dtype=float).reshape(len(b), -1),
            sum0=np.array([x["sum0"] for x in b], dtype=float).reshape(len(b), -1),
            pool_size=self.pool.size, n_pred_pos=self.pool.preds.sum(axis=0))

    def meta(self) -> dict[str, Any]:
        return dict(rows=self.rows, batches=self.batches)

    def restore(self, meta: dict[str, Any]) -> None:
        self.rows = {k: list(v) for k, v in meta["rows"].items()}
        # sessions written before the model variance was recorded: unknown (NaN)
        n_model = np.shape(self.rows["bounds"])[1] // 4 if self.rows["bounds"] else 0
        self.rows.setdefault("model_var", [[float("nan")] * (2 * n_model)
                                           for _ in self.rows["item"]])
        self.batches = [dict(b, coef=None if b["coef"] is None else tuple(b["coef"]))
                        for b in meta["batches"]]


def successive_order(size: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` successive draws ∝ ``size`` without replacement (positions, in draw order), by
    exponential races: the order of ``E_i / size_i`` with ``E_i ~ Exp(1)``."""
    if n <= 0:
        return np.zeros(0, dtype=int)
    keys = rng.exponential(size=size.shape[0]) / size
    order = np.argpartition(keys, n - 1)[:n] if n < size.shape[0] else np.arange(n)
    return order[np.argsort(keys[order], kind="stable")]


def running_max(values: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``max`` of ``values`` over the items not drawn before each draw of ``order``."""
    n = order.shape[0]
    if values.shape[0] == 0:
        return np.zeros(n)
    k = min(n + 1, values.shape[0])
    top = np.argpartition(-values, k - 1)[:k]
    top = top[np.argsort(-values[top], kind="stable")]
    drawn_at = np.full(values.shape[0], n, dtype=int)
    drawn_at[order] = np.arange(n)
    out = np.zeros(n)
    j = 0
    for t in range(n):
        while j < k and drawn_at[top[j]] < t:
            j += 1
        out[t] = values[top[j]] if j < k else 0.0
    return out


def _model_variance(ghat: np.ndarray, size: np.ndarray, preds: np.ndarray,
                    order: np.ndarray, left: np.ndarray) -> np.ndarray:
    r"""Per draw and model column ``j``: the conditional variance of the residual term
    ``r_t = 1[x_t ∈ G](y − ĝ)/q_t`` of the group totals ``Y₁`` and ``Y₀`` given the past,
    expected under the batch's model (``y_i ~ Bernoulli(ĝ_i)`` independently). ``(n, 2m)``.

    Given the labels, the design variance is ``Σ_{R_t ∩ G} (y_i − ĝ_i)²/q_t(i) −
    (Σ_{R_t ∩ G} (y_i − ĝ_i))²``; its model expectation is
    ``W_t = Σ_{R_t ∩ G} ĝ_i(1 − ĝ_i)(1/q_t(i) − 1)`` with ``q_t(i) = s_i / S_t`` (the
    second term's expectation is the model variance of ``Σ y``; the target is the pool's
    own total, so it is subtracted: a draw from one item left adds no variance). The
    predictable quadratic variation of the design under a calibrated model (the
    anticipated variance of Isaki & Fuller 1982)."""
    v = ghat * (1.0 - ghat)
    cols = []
    for j in range(preds.shape[1]):
        for grp in (preds[:, j] == 1, preds[:, j] != 1):
            vs, vv = np.where(grp, v / size, 0.0), np.where(grp, v, 0.0)
            over_s = float(vs.sum()) - exclusive_cumsum(vs[order])
            plain = float(vv.sum()) - exclusive_cumsum(vv[order])
            cols.append(np.maximum(left * over_s - plain, 0.0))
    return np.column_stack(cols) if cols else np.zeros((len(order), 0))


def _residual_bounds(ghat: np.ndarray, size: np.ndarray, preds: np.ndarray,
                     order: np.ndarray, left: np.ndarray) -> np.ndarray:
    """Per draw and model column ``j``: the largest ``ĝ/q`` and ``(1 − ĝ)/q`` among the
    items left that model ``j`` predicts positive, then negative — the bounds of the
    residual ``(y − ĝ)/q`` the draw can add to each group's total. ``(n, 4m)``."""
    cols = []
    for j in range(preds.shape[1]):
        for grp in (preds[:, j] == 1, preds[:, j] != 1):
            for v in (ghat, 1.0 - ghat):
                vals = np.where(grp, v / size, 0.0)
                cols.append(running_max(vals, order) * left)
    return np.column_stack(cols) if cols else np.zeros((len(order), 0))
