"""Monte-Carlo draws of pairs of disjoint learning sets (private engine of ``cv_variance``).

One *draw* permutes ``0..n-1`` and splits it into two disjoint learning sets
``L1, L2`` of size ``g`` and the rest ``R`` (``n - 2g`` points). Each learner is
fitted once on ``L1`` and once on ``L2`` and evaluated on *every* point outside
its learning set (fit reuse):

* the Θ stream collects the losses γ(L1; i), i ∉ L1 and γ(L2; j), j ∉ L2 —
  each fit's held-out mean is an unbiased draw of the complete leave-p-out Θ̂;
* the Ξ stream collects Σ_{i ≠ j ∈ R} γ(L1; i) γ(L2; j), i.e. all ordered pairs of
  disjoint (learning set, test point) configurations inside the draw, computed as
  (Σa)(Σb) − Σ a·b. Every configuration is equally likely, so the average is
  unbiased for the complete Ξ̂ (the U-statistic estimate of θ²).

For the AUC the kernel has a learning set, one positive and one negative test case
(degree g + 2); a draw contributes a *sum* and a *count* of kernel values and the
estimates are ratios Σ sums / Σ counts (consistent; exactly the complete U-statistic
in expectation of numerator and denominator).

Each task returns an array with one row per draw and columns
``[t_cnt, x_cnt, (t_sum, q_sum, x_sum) per stream]`` where ``q_sum`` is the sum of
squared kernel values (used by the conservative fallback variance).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._validation import fail
from ._jackknife import JK_ROWS, jk_fit, jk_pair
from ._seeding import FitSeeder, seeded_clone

__all__ = ["ACC_ROWS", "BUILTIN_LOSSES", "DrawTask", "aggregate", "fit_predict", "case_losses",
           "single_threaded", "leading_variance", "projection_terms", "projection_df",
           "projection_skewness", "dominance"]

#: declared ranges of the built-in losses (``auc`` is a score, higher is better)
BUILTIN_LOSSES = {"zero_one": (0.0, 1.0), "squared": (0.0, np.inf), "log": (0.0, np.inf),
                  "auc": (0.0, 1.0)}
#: rows of the per-observation accumulators: six role sums (:func:`_accumulate`), then
#: the delete-one sums of :mod:`._jackknife` for two halves of the draws
ACC_ROWS = 6 + JK_ROWS
CLASSIFICATION_LOSSES = _CLASSIFICATION = ("zero_one", "log", "auc")
_LOG_EPS = 1e-15


def single_threaded():
    """Limit BLAS/OpenMP to one thread while fitting many tiny models.

    Thousands of fits on g points gain nothing from threaded BLAS; under CPU contention
    threaded BLAS made a LogisticRegression fit ~15x slower in our measurements.
    Parallelism comes from ``n_jobs`` (one task per worker) instead.
    """
    global _CONTROLLER
    if _CONTROLLER is None:  # scanning the loaded libraries costs ~5 ms: do it once
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - threadpoolctl ships with scikit-learn
            return contextlib.nullcontext()
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1)


_CONTROLLER = None


class _Constant:
    """Predicts the single class seen in a learning set that has only one class."""

    def __init__(self, label):
        self.label = label
        self.classes_ = np.array([label])

    def predict(self, X):
        return np.full(X.shape[0], self.label, dtype=object)

    def predict_proba(self, X):
        return np.ones((X.shape[0], 1))


#: share of single-class learning sets above which the substitution warns (below: a note)
SINGLE_CLASS_WARN = 0.05


def single_class_share(y: np.ndarray, g: int) -> float:
    """Probability that a uniform learning set of ``g`` of the ``n`` observations holds a
    single class: ``Σ_c C(n_c, g) / C(n, g)`` (every learning set of both designs is
    marginally such a draw)."""
    from scipy.special import gammaln

    n = len(y)
    if g <= 0 or g > n:
        return 0.0
    _, counts = np.unique(y, return_counts=True)

    def log_comb(a, b):
        return gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1)

    return float(sum(np.exp(log_comb(c, g) - log_comb(n, g)) for c in counts if c >= g))


def substitutes_constant(estimator, loss) -> bool:
    """Whether :func:`_fit` replaces ``estimator`` by a constant prediction on a learning
    set of one class: for the classification losses, and for any scikit-learn classifier
    whatever the loss (a cost-weighted callable loss, squared loss on 0/1 labels), which
    cannot be fitted on one class."""
    return loss in _CLASSIFICATION or is_classifier(estimator)


def is_classifier(est) -> bool:
    """sklearn's ``is_classifier``, tolerant of duck-typed estimators (it raises on a
    learner without scikit-learn's tags)."""
    try:
        from sklearn.base import is_classifier as _sk

        return bool(_sk(est))
    except (ImportError, AttributeError, TypeError):
        return getattr(est, "_estimator_type", None) == "classifier"


def note_single_class(notes, y: np.ndarray, g: int, loss, estimators) -> None:
    """Say how often a learning set holds one class, where :func:`_fit` substitutes the
    constant prediction of that class for the learner (which cannot be fitted there)."""
    if not any(substitutes_constant(e, loss) for e in estimators):
        return
    share = single_class_share(y, g)
    if share <= 0:
        return
    msg = (f"A learning set of g = {g} holds a single class with probability {share:.3g}; "
           "there the learner is replaced by the constant prediction of that class (most "
           "learners cannot be fitted on one class), and θ(g) includes those fits.")
    if share > SINGLE_CLASS_WARN:
        from .._warnings import SmallSampleWarning

        notes.warn(SmallSampleWarning, msg + " Increase train_size for the learner itself.")
    else:
        notes.add(msg)


def take(X, idx):
    """Rows ``idx`` of ``X`` as the user passed it (a DataFrame stays a DataFrame)."""
    return X.iloc[idx] if hasattr(X, "iloc") else X[idx]


def _fit(estimator, X, y, idx, loss, params: dict | None = None, template: bool = False):
    """A clone of ``estimator`` fitted on ``idx`` (``g = 0``: the estimator as given);
    ``params`` are the fit's random states (:class:`~._seeding.FitSeeder`); ``template``:
    ``estimator`` is an unfitted clone made once per task (:func:`~._seeding.seeded_clone`)."""
    if len(idx) == 0:
        return estimator
    ytr = y[idx]
    if np.all(ytr == ytr[0]) and substitutes_constant(estimator, loss):
        return _Constant(ytr[0])
    return seeded_clone(estimator, params or {}, template).fit(take(X, idx), ytr)


def _positive_score(model, X):
    if hasattr(model, "predict_proba"):
        proba = np.asarray(model.predict_proba(X))
        classes = list(getattr(model, "classes_", [0, 1]))
        if 1 in classes:
            return proba[:, classes.index(1)]
        return np.zeros(X.shape[0])
    return np.asarray(model.decision_function(X), dtype=float).ravel()


def case_losses(model, X, y, loss) -> np.ndarray:
    """Per-case losses of a fitted ``model`` on ``(X, y)`` (not for ``auc``)."""
    if loss == "log":
        proba = np.asarray(model.predict_proba(X))
        classes = list(getattr(model, "classes_", []))
        col = np.array([classes.index(v) if v in classes else -1 for v in y])
        p = np.where(col >= 0, proba[np.arange(len(y)), np.maximum(col, 0)], 0.0)
        return -np.log(np.clip(p, _LOG_EPS, 1.0))
    pred = np.asarray(model.predict(X))
    if pred.shape[:1] != (len(y),) or (pred.ndim > 1 and pred.size != len(y)):
        raise fail("estimator", f"a model whose predict() returns one prediction per case "
                   f"({len(y)})", got=f"an array of shape {pred.shape}")
    pred = pred.reshape(len(y))
    if loss == "zero_one":
        return (pred != y).astype(float)
    if loss == "squared":
        return (np.asarray(pred, float) - y) ** 2
    out = np.asarray(loss(y, pred), dtype=float)
    if out.size != len(y):
        raise fail("loss", f"a callable returning one loss per case ({len(y)}), e.g. "
                   "lambda y, pred: (y != pred).astype(float)", got=f"shape {out.shape}")
    return out.reshape(len(y))


def auc_matrix(model, X, y) -> np.ndarray:
    """Kernel h(i, j) = 1[s_i > s_j] + ½ 1[s_i = s_j] for positives i (rows), negatives j."""
    s = _positive_score(model, X)
    sp, sn = s[y == 1][:, None], s[y == 0][None, :]
    return (sp > sn) + 0.5 * (sp == sn)


def fit_predict(estimator, X, y, train, test, loss, params: dict | None = None):
    """Fit on ``train``; per-case losses (or the AUC kernel matrix) on ``test``."""
    model = _fit(estimator, X, y, train, loss, params)
    if loss == "auc":
        return auc_matrix(model, take(X, test), y[test])
    return case_losses(model, take(X, test), y[test], loss)


def _values(model, X, y, out_idx, loss):
    """Kernel values of one fit outside its learning set (vector, or pos x neg matrix)."""
    if loss == "auc":
        return auc_matrix(model, take(X, out_idx), y[out_idx])
    return case_losses(model, take(X, out_idx), y[out_idx], loss)


def _stats(V, rest, y_out):
    """(t_sum, t_cnt, q_sum, values restricted to R) of one fit's kernel values."""
    Vr = V[np.ix_(rest[y_out == 1], rest[y_out == 0])] if V.ndim == 2 else V[rest]
    return V.sum(), V.size, (V * V).sum(), Vr


def _xi(a, b):
    """Σ over disjoint configurations of the product of two kernel values, and its count."""
    if a.ndim == 2:  # AUC: positives i1 != i2, negatives j1 != j2
        P, N = a.shape
        total = a.sum() * b.sum() - a.sum(1) @ b.sum(1) - a.sum(0) @ b.sum(0) + (a * b).sum()
        return total, P * (P - 1) * N * (N - 1)
    r = a.size
    return a.sum() * b.sum() - a @ b, r * (r - 1)


class DrawTask:
    """``task(i, rng)`` runs ``n_draws`` draws for one or two learners (picklable).

    With two learners the streams are A, B and the difference A − B (kernel Γ_A − Γ_B
    on the same learning sets and test points). Returns ``(rows, acc)``: one row per draw
    (see the module docstring) and per-observation accumulators ``acc`` of shape
    (streams, 6, n) — sums, counts and sums of squares of the kernel values in which an
    observation is the test case, and of the held-out means of the fits whose learning
    set contains it (used by :func:`leading_variance`).
    """

    def __init__(self, estimators: Sequence[Any], X, y, g: int, loss: str | Callable,
                 n_draws: int, design: str = "pairs", n_plus: int = 0, offset: int = 0):
        self.estimators = list(estimators)
        self.X, self.y, self.g, self.loss, self.n_draws = X, y, g, loss, n_draws
        self.design = design
        #: task ``i`` of a batch that starts at task ``offset`` runs one draw more while
        #: ``offset + i < n_plus``, so a run's total is exact
        self.n_plus, self.offset = n_plus, offset

    def _jk(self, acc, k):
        """Jackknife rows of stream k (None for the AUC and for g = 0)."""
        return None if acc is None or self.loss == "auc" or not self.g else acc[k, 6:]

    def _one_partition(self, perm, acc=None, half=0, seeder=None, models=None):
        """One random partition into r = ⌊n/g⌋ learning sets: r fits per learner and all
        r(r − 1)/2 disjoint pairs (every block and every pair of blocks is marginally a
        uniform draw, so the sums stay unbiased; quadratic yield of pairs per fit)."""
        n, g = len(self.y), self.g
        r = n // g
        blocks = [perm[k * g:(k + 1) * g] for k in range(r)]
        member = np.full(n, -1)
        for k, b in enumerate(blocks):
            member[b] = k
        outs = [np.flatnonzero(member != k) for k in range(r)]
        vals = []
        tmpl, models = models is not None, self.estimators if models is None else models
        for e, est in enumerate(models):
            params = seeder.params(e) if seeder is not None else None
            vals.append([_values(_fit(est, self.X, self.y, b, self.loss, params, tmpl),
                                 self.X, self.y, o, self.loss)
                         for b, o in zip(blocks, outs, strict=True)])
        if len(vals) == 2:
            vals.append([a - b for a, b in zip(vals[0], vals[1], strict=True)])
        ys = [self.y[o] for o in outs]
        row: list[float] = []
        t_cnt = x_cnt = 0
        for k, vs in enumerate(vals):
            t_sum = q_sum = x_sum = 0.0
            t_cnt = x_cnt = 0
            jk = self._jk(acc, k)
            for a in range(r):
                t_sum += vs[a].sum()
                q_sum += (vs[a] * vs[a]).sum()
                t_cnt += vs[a].size
                if acc is not None:
                    _accumulate(acc[k], vs[a], outs[a], ys[a], blocks[a])
                if jk is not None:
                    jk_fit(jk, half, vs[a], outs[a], blocks[a])
                for b in range(a + 1, r):
                    ra = member[outs[a]] != b
                    rb = member[outs[b]] != a
                    va, vb = _stats(vs[a], ra, ys[a])[3], _stats(vs[b], rb, ys[b])[3]
                    xs, cnt = _xi(va, vb)
                    x_sum += 2 * xs  # ordered pairs (a, b) and (b, a)
                    x_cnt += 2 * cnt
                    if jk is not None:
                        jk_pair(jk, half, va, vb, outs[a][ra],
                                np.concatenate([blocks[a], blocks[b]]), weight=2.0)
            row += [t_sum, q_sum, x_sum]
        return [t_cnt, x_cnt] + row

    def _one(self, perm, acc=None, half=0, seeder=None, models=None):
        n, g = len(self.y), self.g
        L1, L2 = perm[:g], perm[g:2 * g]
        in1 = np.zeros(n, bool)
        in1[L1] = True
        in2 = np.zeros(n, bool)
        in2[L2] = True
        out1, out2 = np.flatnonzero(~in1), np.flatnonzero(~in2)
        rest1, rest2 = ~in2[out1], ~in1[out2]
        vals = []
        tmpl, models = models is not None and g > 0, self.estimators if models is None else models
        for e, est in enumerate(models):
            p1, p2 = (seeder.params(e), seeder.params(e)) if seeder is not None else (None, None)
            m1 = _fit(est, self.X, self.y, L1, self.loss, p1, tmpl)
            m2 = m1 if g == 0 else _fit(est, self.X, self.y, L2, self.loss, p2, tmpl)
            vals.append((_values(m1, self.X, self.y, out1, self.loss),
                         _values(m2, self.X, self.y, out2, self.loss)))
        if len(vals) == 2:
            vals.append((vals[0][0] - vals[1][0], vals[0][1] - vals[1][1]))
        y1, y2 = self.y[out1], self.y[out2]
        row: list[float] = []
        t_cnt = x_cnt = 0
        for k, (v1, v2) in enumerate(vals):
            s1, s2 = _stats(v1, rest1, y1), _stats(v2, rest2, y2)
            xs, x_cnt = _xi(s1[3], s2[3])
            t_cnt = s1[1] + s2[1]
            row += [s1[0] + s2[0], s1[2] + s2[2], xs]
            if acc is not None:
                _accumulate(acc[k], v1, out1, y1, L1)
                _accumulate(acc[k], v2, out2, y2, L2)
            jk = self._jk(acc, k)
            if jk is not None:
                jk_fit(jk, half, v1, out1, L1)
                jk_fit(jk, half, v2, out2, L2)
                jk_pair(jk, half, s1[3], s2[3], out1[rest1], perm[:2 * g])
        return [t_cnt, x_cnt] + row

    def __call__(self, i: int, rng: np.random.Generator):
        n = len(self.y)
        acc = np.zeros((3 if len(self.estimators) == 2 else 1, ACC_ROWS, n))
        # overflow of huge losses is refused after the draws (check_loss_values), once
        with single_threaded(), np.errstate(over="ignore", invalid="ignore"):
            one = self._one_partition if self.design == "partition" and self.g else self._one
            count = self.n_draws + (1 if self.offset + i < self.n_plus else 0)
            seeder = FitSeeder(self.estimators, rng)   # does not advance rng's stream
            models = (self.estimators if self.g == 0 else  # unfitted clones, copied per fit
                      [seeded_clone(e, {}) for e in self.estimators])
            rows = np.array([one(rng.permutation(n), acc, j % 2, seeder, models)
                             for j in range(count)], float)
        return rows, acc


def _accumulate(acc, V, out_idx, y_out, learn):
    """Add one fit's test-role and learn-role values to the per-observation sums."""
    if V.ndim == 2:  # AUC: a positive's value is its row mean, a negative's its column mean
        if V.size == 0:  # no positive (or no negative) held out: no kernel value, no role
            return
        t = np.empty(len(out_idx))
        t[y_out == 1] = V.mean(1)
        t[y_out == 0] = V.mean(0)
    else:
        t = V
    acc[0, out_idx] += t
    acc[1, out_idx] += 1
    acc[2, out_idx] += t * t
    if len(learn):
        mean = V.mean()
        acc[3, learn] += mean
        acc[4, learn] += 1
        acc[5, learn] += mean * mean


def _role_means(acc: np.ndarray, g: int):
    """Per-observation means of the draws with k as test case (t) and in the learning set
    (l), each with the Monte-Carlo variance of its mean; ``None`` when an observation has
    no draw in a role."""
    n = acc.shape[-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        tm = acc[0] / acc[1]
        t_noise = np.maximum(acc[2] / acc[1] - tm ** 2, 0) / acc[1]
        lm = acc[3] / acc[4] if g else np.zeros(n)
        l_noise = (np.maximum(acc[5] / acc[4] - lm ** 2, 0) / acc[4]) if g else np.zeros(n)
    if not (np.all(np.isfinite(tm)) and np.all(np.isfinite(lm))):
        return None
    return tm, t_noise, lm, l_noise


def leading_variance(acc: np.ndarray, theta: float, g: int, y: np.ndarray | None) -> float:
    r"""Hájek (first-order) term m²ζ₁/n of Var(Θ̂), estimated from the same draws.

    For observation k, t_k = E[γ(L; k)] − θ (k the test case) and l_k = E[γ(L; j) | k ∈ L]
    − θ (k in the learning set) are estimated by the per-observation means of the draws;
    the first-order projection of the symmetrised kernel is (t_k + g·l_k)/m, so

    .. math:: V_1 = \frac{1}{n}\,\widehat{\mathrm{Var}}_k(t_k + g\,l_k)

    with the Monte-Carlo noise of the per-observation means subtracted (Hoeffding 1948;
    Fuchs et al. 2013, ``zeta1.R``). For the AUC (``y`` given) the test-case terms are
    split by class: Var_+(t)/n₊ + Var_−(t)/n₋ + g²Var(l)/n (two-sample projection).
    V₁ ≤ Var(Θ̂) for a U-statistic: it is the leading term, not a bound.
    """
    n = acc.shape[-1]
    means = _role_means(acc, g)
    if means is None:
        return float("nan")
    tm, t_noise, lm, l_noise = means

    def _var(x, noise):
        return float(x.var(ddof=1) - noise.mean()) if x.size > 1 else float("nan")

    if y is None:
        return _var(tm + g * lm, t_noise + g * g * l_noise) / n
    pos, neg = y == 1, y == 0
    return (_var(tm[pos], t_noise[pos]) / pos.sum() + _var(tm[neg], t_noise[neg]) / neg.sum()
            + g * g * _var(lm, l_noise) / n)


def aggregate(rows: np.ndarray, stream: int) -> dict[str, float]:
    """Estimates and Monte-Carlo standard errors for one stream from the draw rows.

    Θ̂ = Σ t_sum / Σ t_cnt;  Ξ̂ = Σ x_sum / Σ x_cnt;  V̂ = Θ̂² − var_MC(Θ̂) − Ξ̂, where the
    subtraction of var_MC(Θ̂) makes Θ̂² conditionally unbiased for the square of the
    complete estimate. Monte-Carlo standard errors use the delta method on draw-level
    influence values (ratio estimators).
    """
    D = rows.shape[0]
    t_cnt, x_cnt = rows[:, 0], rows[:, 1]
    t_sum, q_sum, x_sum = rows[:, 2 + 3 * stream], rows[:, 3 + 3 * stream], rows[:, 4 + 3 * stream]
    theta = t_sum.sum() / t_cnt.sum()
    xi = x_sum.sum() / x_cnt.sum()
    psi_t = (t_sum - theta * t_cnt) / t_cnt.mean()
    psi_x = (x_sum - xi * x_cnt) / x_cnt.mean()
    if D > 1:
        var_t = psi_t.var(ddof=1) / D
        var_v = (2 * theta * psi_t - psi_x).var(ddof=1) / D
    else:
        var_t = var_v = 0.0
    gamma2 = q_sum.sum() / t_cnt.sum()
    return dict(theta=float(theta), xi=float(xi), variance=float(theta ** 2 - var_t - xi),
                mc_se=float(np.sqrt(var_t)), variance_mc_se=float(np.sqrt(var_v)),
                kernel_variance=float(max(gamma2 - theta ** 2, 0.0)), n_draws=D)


def projection_terms(acc: np.ndarray, theta: float, g: int, y: np.ndarray | None):
    r"""First-order terms a_k of Θ̂ − θ ≈ Σ_k a_k, their Monte-Carlo noise and groups.

    One sample: a_k = (t_k + g·l_k)/n with t_k, l_k the per-observation means of
    :func:`leading_variance` (centred at their mean). AUC (``y`` given): a_k = t_k/n_c +
    g·l_k/n with t centred within the class c of k and n_c its size (two-sample
    projection). ``noise`` is the Monte-Carlo variance of each â_k; ``groups`` is the class
    label (AUC) or zeros. Returns ``None`` when an observation has no draws in a role.
    """
    n = acc.shape[-1]
    means = _role_means(acc, g)
    if means is None:
        return None
    tm, t_noise, lm, l_noise = means
    groups = np.zeros(n, int) if y is None else np.asarray(y, int)
    nc = np.empty(n)
    t = tm.copy()
    for c in np.unique(groups):
        k = groups == c
        nc[k] = n if y is None else k.sum()
        t[k] -= tm[k].mean()
    a = t / nc + g * (lm - lm.mean()) / n
    noise = t_noise / nc ** 2 + g * g * l_noise / n ** 2
    return a, noise, groups


def projection_df(acc: np.ndarray, theta: float, g: int, y: np.ndarray | None,
                  scale: str = "t", bounds: tuple[float, float] = (0.0, 1.0)) -> float:
    r"""Data degrees of freedom of the interval's standard error, estimated from the draws.

    To first order Θ̂ − θ ≈ Σ_k a_k (Hoeffding projection, :func:`projection_terms`) and
    V̂ ≈ Σ_k a_k², so with R the squared standard error on the interval's scale
    (R = V̂ for ``"t"``, V̂/Θ̂² for ``"log"``, V̂/(Θ̂(1−Θ̂))² for ``"logit"`` after mapping
    the loss range to [0, 1]) the delta method gives

    .. math:: \delta\log R \approx \sum_k b_k,\qquad
              b_k = \frac{a_k^2}{V_1} - c\,a_k,\qquad V_1 = \sum_k a_k^2,

    with c = 0 (t), 2/Θ̂ (log), 2(1 − 2Θ̂)/(Θ̂(1 − Θ̂)) (logit), and the Satterthwaite
    degrees of freedom ν = 2/Var(δ log R) = 2/Σ_k Var(b_k) (Satterthwaite 1946; the
    log-scale version is what makes the log interval's df larger than V̂'s: Θ̂ and V̂ are
    positively correlated). Var(b_k) is estimated by the spread of the b̂_k within their
    group (class for the AUC); the Monte-Carlo noise of â_k is subtracted from â_k².
    For the closed-form mean design (squared loss, Gaussian y) this gives ν = n/3 on the
    log scale and 2n/14 on the t scale. Returns NaN when the terms are unavailable.
    """
    terms = projection_terms(acc, theta, g, y)
    if terms is None:
        return float("nan")
    a, noise, groups = terms
    lo, hi = bounds
    th = theta
    if scale == "log":
        c = 2.0 / th if th > 0 else 0.0
    elif scale == "logit" and np.isfinite(hi) and hi > lo:
        u = (th - lo) / (hi - lo)
        c = 2 * (1 - 2 * u) / (u * (1 - u)) / (hi - lo) if 0 < u < 1 else 0.0
    else:
        c = 0.0
    a2 = a * a - noise
    v1 = a2.sum()
    if not v1 > 0:
        return float("nan")
    b = a2 / v1 - c * a
    var = 0.0
    for grp in np.unique(groups):
        bk = b[groups == grp]
        if bk.size > 1:
            var += bk.size * bk.var(ddof=1)
    return float(2.0 / var) if var > 0 else float("nan")


def projection_skewness(acc: np.ndarray, theta: float, g: int,
                        y: np.ndarray | None) -> float:
    r"""Skewness γ̂ of Θ̂ (already of the estimate: ∝ n^{-1/2}) from its first-order terms.

    With Θ̂ − θ ≈ Σ_k a_k (:func:`projection_terms`, independent terms), the third
    cumulant of Θ̂ is Σ_k E a_k³ and its variance Σ_k E a_k², so

    .. math:: \hat\gamma = \frac{k_3}{k_2^{3/2}},\qquad
              k_2 = \frac{n}{n-1}\sum_k (\hat a_k^2 - \hat\nu_k),\qquad
              k_3 = \frac{n^2}{(n-1)(n-2)}\sum_k (\hat a_k^3 - 3\hat a_k\hat\nu_k),

    with â_k centred (within each class for the AUC, summed over classes), ν̂_k the
    Monte-Carlo variance of â_k (E(a + e)³ = a³ + 3a·E e² for noise e of mean 0) and the
    factors of Fisher's k-statistics. With ``g = 0`` (fixed test set, Θ̂ the mean of n
    losses) γ̂ = G₁/√n, G₁ the adjusted sample skewness of the losses
    (``scipy.stats.skew(bias=False)``). Returns NaN when the terms are unavailable.
    """
    terms = projection_terms(acc, theta, g, y)
    if terms is None:
        return float("nan")
    a, noise, groups = terms
    k2 = k3 = 0.0
    for grp in np.unique(groups):
        ak, nu = a[groups == grp], noise[groups == grp]
        m = ak.size
        if m < 3:
            continue
        ak = ak - ak.mean()
        k2 += m / (m - 1) * float((ak * ak - nu).sum())
        k3 += m * m / ((m - 1) * (m - 2)) * float((ak ** 3 - 3 * ak * nu).sum())
    return float(k3 / k2 ** 1.5) if k2 > 0 else float("nan")


def dominance(acc: np.ndarray, theta: float, g: int, y: np.ndarray | None) -> float:
    r"""Largest share of the first-order variance Σ_k â_k² carried by one observation.

    With Θ̂ − θ ≈ Σ_k a_k (:func:`projection_terms`), observation k carries the share
    w_k = â_k²/Σ_j â_j² of the first-order (Hájek) variance (Monte-Carlo noise of â_k
    subtracted, negative parts set to 0). ``max_k w_k > 1/2`` means that one observation
    carries more of the variance than all the others together: the normal approximation of
    Θ̂ then rests on a single summand. NaN when the terms are unavailable.
    """
    terms = projection_terms(acc, theta, g, y)
    if terms is None:
        return float("nan")
    a, noise, _ = terms
    w = np.maximum(a * a - noise, 0.0)
    total = w.sum()
    return float(w.max() / total) if total > 0 else float("nan")
