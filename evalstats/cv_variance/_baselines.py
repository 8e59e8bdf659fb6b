"""Baseline resampling intervals users know (private; used by ``cv_variance``).

* ``naive_t`` — J random splits with learning sets of size g; t interval over the J
  held-out means, as if they were independent (the talk's "Method 1"; anti-conservative
  because the splits overlap).
* ``corrected_t`` — Nadeau & Bengio (2003) corrected resampled t on the same splits:
  variance (1/J + n_test/n_train)·s².
* ``5x2cv`` — Dietterich (1998): five replications of 2-fold CV, t = p₁⁽¹⁾/√(mean s_i²)
  with 5 degrees of freedom. Its learning sets have n/2 points, whatever ``train_size``.
* ``bayle`` — Bayle, Bayle, Janson & Mackey (2020): one K-fold CV (K = 10, at most n),
  R̂ ± z·σ̂_out/√n with σ̂²_out the mean squared deviation of the per-case losses from R̂.
  Estimand: the K-fold test error (learning sets of n(K − 1)/K points). n fits = K.
* ``nested_cv`` — Bates, Hastie & Tibshirani (2023), Algorithm 1 (sized for small n:
  K = 5 folds, 10 repetitions, 2 extra K-fold CVs for the bias correction: 260 fits).
  Estimand: the error of the model trained on n points (bias-corrected CV).

``train_size`` is ignored by ``5x2cv``, ``bayle`` and ``nested_cv`` (each fixes its own
learning-set size; the result notes say which).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy import stats

from .._parallel import map_replicates
from .._warnings import Notes, SmallSampleWarning, UndefinedEstimateWarning
from ._draws import fit_predict, note_single_class, single_threaded
from ._seeding import FitSeeder, trial_fits

__all__ = ["BASELINES", "baseline_scores", "baseline_interval", "baseline_result"]

BASELINES = ("naive_t", "corrected_t", "5x2cv", "bayle", "nested_cv")
BAYLE_FOLDS = 10
NESTED_FOLDS, NESTED_REPS = 5, 10


def _score(values) -> float:
    """Held-out mean loss, or the AUC (mean of the pos x neg kernel matrix)."""
    v = np.asarray(values, float)
    return float(v.mean()) if v.size else float("nan")


class _SplitTask:
    """Scores of every learner for one random split (picklable)."""

    def __init__(self, estimators, X, y, train_size, loss, two_fold):
        self.estimators, self.X, self.y = list(estimators), X, y
        self.train_size, self.loss, self.two_fold = train_size, loss, two_fold

    def __call__(self, i: int, rng: np.random.Generator) -> np.ndarray:
        n = len(self.y)
        perm = rng.permutation(n)
        if self.two_fold:
            h = n // 2
            parts = [(perm[:h], perm[h:]), (perm[h:], perm[:h])]
        else:
            parts = [(perm[:self.train_size], perm[self.train_size:])]
        seeder = FitSeeder(self.estimators, rng)
        with single_threaded():
            return np.array([[_score(fit_predict(est, self.X, self.y, tr, te, self.loss,
                                                 seeder.params(k)))
                              for k, est in enumerate(self.estimators)] for tr, te in parts])


def baseline_scores(method: str, estimators: Sequence[Any], X, y, train_size: int,
                    loss: str | Callable, n_splits: int, rng, n_jobs, progress) -> np.ndarray:
    """Scores of shape (splits, folds, learners): folds = 1, or 2 for ``5x2cv``."""
    two_fold = method == "5x2cv"
    n_tasks = 5 if two_fold else n_splits
    task = _SplitTask(estimators, X, y, train_size, loss, two_fold)
    out = map_replicates(task, n_tasks, rng=rng, n_jobs=n_jobs, progress=progress,
                         desc=f"cv {method}")
    return np.stack(out)


def baseline_interval(method: str, scores: np.ndarray, n: int,
                      train_size: int) -> tuple[float, float, float]:
    """(estimate, std_error, df) of one learner's (or a difference's) split scores.

    ``scores`` has shape (splits, folds). Nadeau–Bengio: se² = (1/J + n₂/n₁)·s²;
    Dietterich: estimate p₁⁽¹⁾, se² = mean over replications of
    s_i² = (p_i⁽¹⁾ − p̄_i)² + (p_i⁽²⁾ − p̄_i)², df = 5.
    """
    if method == "5x2cv":
        pbar = scores.mean(axis=1, keepdims=True)
        s2 = ((scores - pbar) ** 2).sum(axis=1)
        return float(scores[0, 0]), float(np.sqrt(s2.mean())), 5.0
    mu = scores[:, 0]
    J = mu.size
    s2 = mu.var(ddof=1)
    factor = 1.0 / J if method == "naive_t" else 1.0 / J + (n - train_size) / train_size
    return float(mu.mean()), float(np.sqrt(factor * s2)), float(J - 1)


# -- K-fold based baselines (per-case losses) ----------------------------------------------
def _folds(n: int, K: int, rng) -> list[np.ndarray]:
    return np.array_split(rng.permutation(n), K)


def _kfold_losses(est, X, y, idx, K, loss, rng, seeder=None, k=0) -> np.ndarray:
    """Per-case losses of K-fold CV on the subset ``idx`` (returned in the order of idx);
    ``seeder`` gives the random states of estimator ``k``'s fits."""
    out = np.empty(len(idx))
    pos = {v: j for j, v in enumerate(idx)}
    for fold in _folds(len(idx), K, rng):
        test = idx[fold]
        train = np.setdiff1d(idx, test)
        vals = fit_predict(est, X, y, train, test, loss,
                           seeder.params(k) if seeder is not None else None)
        out[[pos[t] for t in test]] = vals
    return out


class _BayleTask:
    def __init__(self, estimators, X, y, loss):
        self.estimators, self.X, self.y, self.loss = list(estimators), X, y, loss

    def __call__(self, i, rng):
        n = len(self.y)
        K = min(BAYLE_FOLDS, n)
        seed = int(rng.integers(2 ** 63))  # same folds for every learner (paired)
        seeder = FitSeeder(self.estimators, rng)
        with single_threaded():
            return np.stack([_kfold_losses(e, self.X, self.y, np.arange(n), K, self.loss,
                                           np.random.default_rng(seed), seeder, k)
                             for k, e in enumerate(self.estimators)], axis=1)


class _NestedTask:
    """One repetition of Bates et al.'s nested CV: (a, b) pivots per outer fold and the
    inner per-case losses; for the bias-correction tasks, one plain K-fold CV mean."""

    def __init__(self, estimators, X, y, loss):
        self.estimators, self.X, self.y, self.loss = list(estimators), X, y, loss

    def __call__(self, i, rng):
        n, K = len(self.y), NESTED_FOLDS
        seed = int(rng.integers(2 ** 63))  # same folds for every learner (paired)
        sd = FitSeeder(self.estimators, rng)
        ests = list(enumerate(self.estimators))
        with single_threaded():
            if i >= NESTED_REPS:  # bias-correction CV on all data
                losses = np.stack([_kfold_losses(e, self.X, self.y, np.arange(n), K,
                                                 self.loss, np.random.default_rng(seed), sd, k)
                                   for k, e in ests], axis=1)
                return "cv", losses.mean(0)
            out = []
            for f, fold in enumerate(_folds(n, K, np.random.default_rng(seed))):
                rest = np.setdiff1d(np.arange(n), fold)
                e_in = np.stack([_kfold_losses(e, self.X, self.y, rest, K - 1, self.loss,
                                               np.random.default_rng([seed, f]), sd, k)
                                 for k, e in ests], axis=1)
                e_out = np.stack([fit_predict(e, self.X, self.y, rest, fold, self.loss,
                                              sd.params(k)) for k, e in ests], axis=1)
                out.append((e_in, e_out))
            return "nested", out


def _stream(arr, combine):
    """A learner's column, or the A − B difference."""
    return arr[:, 0] if combine == "a" else arr[:, 1] if combine == "b" else arr[:, 0] - arr[:, 1]


def _bayle_summary(losses, combine):
    e = _stream(losses, combine)
    n = e.size
    return float(e.mean()), float(np.sqrt(np.mean((e - e.mean()) ** 2) / n)), None


def _nested_summary(parts, cv_means, combine, n):
    K = NESTED_FOLDS
    a, b, ho = [], [], []
    for e_in, e_out in parts:
        ei, eo = _stream(e_in, combine), _stream(e_out, combine)
        a.append((ei.mean() - eo.mean()) ** 2)
        b.append(eo.var(ddof=1) / eo.size)
        ho.append(ei)
    ho = np.concatenate(ho)
    n_sub = n * (K - 1) // K
    naive_se = ho.std(ddof=1) / np.sqrt(n_sub)
    infl = np.sqrt(max(0.0, float(np.mean(a) - np.mean(b)))) / naive_se if naive_se > 0 else 1.0
    infl = float(np.clip(infl, 1.0, np.sqrt(K)))
    cv = np.array([_stream(c[None, :], combine)[0] for c in cv_means])
    bias = (ho.mean() - cv.mean()) * (1 + ((K - 2) / K) ** 1.5)
    return float(ho.mean() - bias), float(ho.std(ddof=1) / np.sqrt(n) * infl), None


def _kfold_baseline(method, estimators, args, rng, n_jobs, progress):
    """(summaries per stream, n_fits, note) of ``bayle`` or ``nested_cv``."""
    n = len(args.y)
    streams = ["a"] if len(estimators) == 1 else ["a", "b", "d"]
    if method == "bayle":
        losses = map_replicates(_BayleTask(estimators, args.X, args.y, args.loss), 1, rng=rng,
                                n_jobs=n_jobs, progress=progress, desc="cv bayle")[0]
        K = min(BAYLE_FOLDS, n)
        note = (f"Bayle et al. Wald CV interval from one {K}-fold CV: its estimand is the "
                f"{K}-fold test error (learning sets of about {n * (K - 1) // K} points), "
                "not θ(g).")
        return {s: _bayle_summary(losses, s) for s in streams}, K * len(estimators), note
    n_bias = max(1, NESTED_REPS // 5)
    out = map_replicates(_NestedTask(estimators, args.X, args.y, args.loss),
                         NESTED_REPS + n_bias, rng=rng, n_jobs=n_jobs, progress=progress,
                         desc="cv nested")
    parts = [p for kind, reps in out if kind == "nested" for p in reps]
    cv_means = [m for kind, m in out if kind == "cv"]
    K = NESTED_FOLDS
    fits = (NESTED_REPS * K * K + n_bias * K) * len(estimators)
    note = (f"nested CV (Bates et al. 2023; K = {K}, {NESTED_REPS} repetitions): its "
            f"estimand is the error of the model trained on all n = {n} points, not θ(g).")
    return {s: _nested_summary(parts, cv_means, s, n) for s in streams}, fits, note


def baseline_result(estimators, args, rng, n_jobs, progress, call, names=None):
    """A ``CVErrorResult`` / ``CompareLearnersResult`` of a baseline method."""
    from ._results import CompareLearnersResult, CVErrorResult

    method, n, g = args.method, len(args.y), args.g
    notes = Notes()
    # the learning-set size of the method's own fits, for the single-class note
    g_fit = {"5x2cv": n // 2, "bayle": n - n // min(BAYLE_FOLDS, n),
             "nested_cv": n - n // NESTED_FOLDS}.get(method, g)
    note_single_class(notes, args.y, g_fit, args.loss, estimators)
    trial_fits(estimators, ["estimator"] if len(estimators) == 1 else ["est_a", "est_b"],
               args, g_fit, notes, fit_predict)
    term = "auc" if args.loss == "auc" else "expected loss"
    common = dict(confidence_level=args.confidence_level, method=method, n=n, call=call,
                  train_size=g, loss=call["loss"], interval_method="t",
                  loss_range=args.bounds)
    if method in ("bayle", "nested_cv"):
        summ, n_fits, note = _kfold_baseline(method, estimators, args, rng, n_jobs, progress)
        notes.add(note)
        split = None
        get = summ.__getitem__
    else:
        scores = baseline_scores(method, estimators, args.X, args.y, g, args.loss,
                                 args.n_splits, rng, n_jobs, progress)
        if method == "naive_t":
            notes.add("naive t: the split scores are treated as independent although the "
                      "learning sets overlap; the interval is known to be far too narrow.")
        if method == "5x2cv":
            notes.add(f"5x2cv learns on n/2 = {n // 2} points: its estimand is θ(n/2), not "
                      f"θ({g}); the estimate is Dietterich's p1(1).")
        n_fits = scores.shape[0] * scores.shape[1] * len(estimators)
        undefined = int(np.isnan(scores).any(axis=2).sum())
        if undefined:
            notes.warn(UndefinedEstimateWarning,
                       f"{method}: {undefined} of {scores.shape[0] * scores.shape[1]} held-out "
                       "parts give no score (for the AUC: no positive or no negative among "
                       "their cases), so the standard error and the interval are undefined "
                       "(NaN).")
        cols = {"a": scores[:, :, 0]}
        if len(estimators) == 2:
            cols.update(b=scores[:, :, 1], d=scores[:, :, 0] - scores[:, :, 1])
        split = cols["a"] if len(estimators) == 1 else cols["d"]

        def get(s):
            return baseline_interval(method, cols[s], n, g)
    if len(estimators) == 1:
        est, se, df = get("a")
        common["interval_method"] = "t" if df else "normal"     # bayle: a normal quantile
        return CVErrorResult(estimate=est, std_error=se, term=term, df=df,
                             notes=notes.as_tuple(), n_fits=n_fits, split_scores=split,
                             **common)
    est, se, df = get("d")
    common["interval_method"] = "t" if df else "normal"
    (ea, sa, _), (eb, sb, _) = get("a"), get("b")
    stat = est / se if se > 0 else float("nan")
    if se == 0:
        notes.warn(SmallSampleWarning, f"{method}: the two learners' losses are identical on "
                   "every split: the difference has zero variance, its interval zero width, "
                   "and no test is possible (p-value NaN).")
    p = (float(2 * (stats.t.sf(abs(stat), df) if df else stats.norm.sf(abs(stat))))
         if np.isfinite(stat) else float("nan"))
    return CompareLearnersResult(
        estimate=est, std_error=se, term=f"difference in {term}", df=df,
        notes=notes.as_tuple(), n_fits=n_fits, split_scores=split, estimate_a=ea,
        estimate_b=eb, std_error_a=sa, std_error_b=sb,
        covariance=float((sa ** 2 + sb ** 2 - se ** 2) / 2), statistic=stat, p_value=p,
        names=tuple(names), **common)
