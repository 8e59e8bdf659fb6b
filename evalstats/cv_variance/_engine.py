r"""The U-statistic engine: draws with a stopping rule, variance, fallback and df.

* :func:`run_draws` adds draws until se_MC(V̂) ≤ mc_tol·V̂ (doubling), ``max_draws`` or
  ``max_seconds``; one progress bar over the real number of draws.
* :func:`finish_variance` returns the variance of Θ̂ used for the interval:
  max(V̂, V₁) + se_MC(Θ̂)² when V̂ > 0; else the leading (Hájek) term V₁ from the same draws; else
  the conservative bound.
* :func:`ustat_df` gives the Satterthwaite degrees of freedom of the variance estimate
  (data part :func:`interval_data_df`, estimated from the draws); :func:`note_unreliable`
  flags a result whose estimated data df is small.
"""

from __future__ import annotations

import math
import time

import numpy as np

from .._parallel import map_replicates
from .._progress import progress_bar
from .._warnings import ConvergenceWarning, NegativeVarianceWarning, Notes, SmallSampleWarning
from ._checks import check_loss_values
from ._draws import (
    ACC_ROWS,
    DrawTask,
    aggregate,
    fit_predict,
    leading_variance,
    note_single_class,
)
from ._seeding import trial_fits

__all__ = ["run_draws", "finish_variance", "ustat_df", "data_df", "interval_data_df",
           "note_unreliable", "hoeffding", "DF_RULE", "UNRELIABLE_DF"]

#: how the data df of the interval is chosen (see :func:`interval_data_df`)
DF_RULE = "estimated"
#: below this estimated df of V̂ a result is flagged unreliable (:func:`note_unreliable`):
#: with ν < 4 the χ²_ν/ν law of V̂/V gives the standard error a 95 % range wider than
#: 0.35–1.67 times its value (a factor of two either way)
UNRELIABLE_DF = 4.0
#: raise V̂ to its estimated leading term V̂₁ when it is below it (see :func:`finish_variance`)
LEADING_TERM_FLOOR = True

_DRAWS_PER_TASK = 25
_HOEFFDING_ETA = 0.05


def run_draws(estimators, args, rng, n_jobs, progress, stream):
    """Draws with the sequential stopping rule; returns (rows, acc, aggregate, notes)."""
    notes = Notes()
    n, g = len(args.y), args.g
    note_single_class(notes, args.y, g, args.loss, estimators)
    trial_fits(estimators, learner_names(estimators), args, g, notes, fit_predict)
    n_streams = 3 if len(estimators) == 2 else 1
    rows = np.empty((0, 2 + 3 * n_streams))
    acc = np.zeros((n_streams, ACC_ROWS, n))
    target = 1 if g == 0 else args.n_draws
    start = time.monotonic()
    timed_out = False
    chunk = max(4, 4 * (n_jobs or 1) if n_jobs and n_jobs > 0 else 8)
    with progress_bar(target, progress=progress, desc="cv draws") as bar:
        while True:
            need = target - rows.shape[0]
            if need > 0:
                n_tasks = math.ceil(need / _DRAWS_PER_TASK)
                for first in range(0, n_tasks, chunk):
                    # exactly `need` draws: the first need % n_tasks tasks run one more
                    task = DrawTask(estimators, args.X, args.y, g, args.loss,
                                    need // n_tasks, args.design, n_plus=need % n_tasks,
                                    offset=first)
                    out = map_replicates(task, min(chunk, n_tasks - first), rng=rng,
                                         n_jobs=n_jobs, progress=False)
                    rows = np.vstack([rows] + [r for r, _ in out])
                    acc += sum(a for _, a in out)
                    bar.update(sum(len(r) for r, _ in out))
                    if args.max_seconds and time.monotonic() - start > args.max_seconds:
                        timed_out = True
                        break
                check_loss_values(rows, args.bounds, len(estimators))
            agg = aggregate(rows, stream)
            v, se_v = agg["variance"], agg["variance_mc_se"]
            done = g == 0 or args.mc_tol is None or (v > 0 and se_v <= args.mc_tol * v)
            if done or timed_out or rows.shape[0] >= args.max_draws:
                break
            new_target = min(2 * rows.shape[0], args.max_draws)
            why = (f"V = {v:.3g} <= 0 (Monte-Carlo noise)" if v <= 0 else
                   f"Monte-Carlo s.e. of V {se_v:.3g} > mc_tol x V = {args.mc_tol * v:.3g}")
            msg = f"stopping rule: {why} after {rows.shape[0]} draws; extending to {new_target}."
            notes.add(msg)  # only a V <= 0 that the result keeps warns (finish_variance)
            if hasattr(bar, "total") and not getattr(bar, "disable", True):
                bar.total = new_target
                bar.set_description(f"cv draws (extended to {new_target})")
                bar.write(f"evalstats: {msg}")
            target = new_target
    if timed_out:
        notes.warn(ConvergenceWarning, f"stopped after max_seconds = {args.max_seconds:g} s "
                   f"with {rows.shape[0]} draws; the Monte-Carlo s.e. of V is "
                   f"{agg['variance_mc_se']:.3g} (V = {agg['variance']:.3g}).")
    elif not done and agg["variance"] > 0:
        notes.warn(ConvergenceWarning,
                   f"Monte-Carlo s.e. of V ({agg['variance_mc_se']:.3g}) is above mc_tol x V "
                   f"({args.mc_tol * agg['variance']:.3g}) after max_draws = {rows.shape[0]} "
                   "draws.")
    return rows, acc, agg, notes


def learner_names(estimators) -> list[str]:
    """The argument names of the learners (for messages)."""
    return ["estimator"] if len(estimators) == 1 else ["est_a", "est_b"]


def finish_variance(agg, acc_stream, args, notes,
                    jackknife: float | None = None) -> tuple[float, float, str]:
    """(variance used for the interval, leading term V₁, fallback label).

    max(V̂, V̂₁) + se_MC(Θ̂)² when V̂ > 0 (the Monte-Carlo estimate Θ̂_N varies around θ
    by Var(Θ̂) + var_MC). The floor: the variance of a U-statistic is at least its
    first-order (Hájek) term, Var(U) ≥ m²ζ₁/n (Hoeffding 1948), and V̂ is unbiased but
    noisy, so a V̂ below the leading term V̂₁ estimated from the same draws is raised to
    it (a note says so; ``LEADING_TERM_FLOOR``). It binds mostly for the 0-1 loss at small
    g, where V̂ is noisiest relative to its leading term. When V̂ ≤ 0: the leading term V₁
    (:func:`leading_variance`), and if that is not positive either the conservative
    bound m/n·Var(kernel) (Hoeffding 1948; for the AUC Var(kernel)·(g/n + 1/n₊ + 1/n₋),
    the two-sample analogue).

    ``jackknife`` (``compare_learners``): the cross-half jackknife variance Var_J(Θ̂)
    (:func:`~._jackknife.jackknife_moments`) is a further floor, and the fallback before
    V₁ when V̂ ≤ 0. By the Efron–Stein inequality E Var_J ≥ Var(Θ̂) (Efron & Stein 1981):
    it over-counts the higher-order Hoeffding terms, which is what a difference of two
    learners that share most of their fit needs — its variance is mostly second order,
    where V̂ is unbiased but so noisy that it is often ≤ 0 and usually below the truth.
    """
    n, g = len(args.y), args.g
    y01 = args.y if args.loss == "auc" else None
    v1 = leading_variance(acc_stream, agg["theta"], g, y01) if g > 0 else agg["variance"]
    v, mc = agg["variance"], agg["mc_se"] ** 2
    jk = float(jackknife) if jackknife is not None and np.isfinite(jackknife) else float("nan")
    if jk > 0 and jk > max(v, v1 if np.isfinite(v1) else 0.0):
        if v > 0:
            notes.add(f"V̂ = {v:.3g} is below the jackknife variance over observations "
                      f"Var_J = {jk:.3g} (an upper-biased estimate, Efron–Stein); the "
                      "standard error uses Var_J.")
            return float(jk + mc), float(v1), ""
        notes.warn(NegativeVarianceWarning,
                   f"the unbiased variance estimate stayed <= 0 (V = {v:.3g}) after "
                   f"{agg['n_draws']} draws (the difference is mostly second order); using "
                   f"the jackknife variance over observations Var_J = {jk:.3g} from the "
                   "same draws.")
        return float(jk + mc), float(v1), "jackknife"
    if v > 0 and LEADING_TERM_FLOOR and np.isfinite(v1) and v1 > v:
        notes.add(f"V̂ = {v:.3g} is below its leading (first-order) term V₁ = {v1:.3g}, a "
                  "lower bound of Var(Θ̂) (Hoeffding 1948); the standard error uses V₁.")
        return float(v1 + mc), float(v1), ""
    if v > 0:
        return float(v + mc), float(v1), ""
    if np.isfinite(v1) and v1 > 0:
        notes.warn(NegativeVarianceWarning,
                   f"the unbiased variance estimate stayed <= 0 (V = {v:.3g}) after "
                   f"{agg['n_draws']} draws; using its leading (first-order) term "
                   f"V1 = {v1:.3g} estimated from the same draws. Increase max_draws for "
                   "the unbiased estimate.")
        return float(v1 + mc), float(v1), "leading_term"
    if y01 is not None:
        n_pos = int(y01.sum())
        factor = g / n + 1 / n_pos + 1 / (n - n_pos)
        what = "Var(kernel) x (g/n + 1/n_pos + 1/n_neg)"
    else:
        factor = (g + 1) / n
        what = f"m/n x Var(kernel) (m = {g + 1})"
    bound = factor * agg["kernel_variance"]
    notes.warn(NegativeVarianceWarning,
               f"the unbiased variance estimate stayed <= 0 (V = {v:.3g}) after "
               f"{agg['n_draws']} draws and its leading term is not positive either; using "
               f"the conservative bound {what} = {bound:.3g}. Increase max_draws.")
    return float(bound + mc), float(v1), "bound"


def data_df(n: int, g: int) -> float:
    r"""The calibrated data degrees of freedom (n − 1)/3 of the earlier default.

    With g = 0, V̂ = s²/n exactly and has n − 1 degrees of freedom. For g ≥ 1, (n − 1)/3 is
    the first-order log-scale df of V̂/Θ̂² in the mean-predictor design with a *Gaussian*
    outcome (ψ_k = (1 + 1/g)(y_k² − 1), χ²₁ central moments 2, 8, 60): a constant derived
    for one outcome law, kept for ``interval_data_df(rule="calibrated" | "min")``. The
    default df is estimated from the data (:func:`interval_data_df`).
    """
    if g == 0:
        return float(n - 1)
    return float(max(2.0, (n - 1) / 3.0))


def interval_data_df(n: int, g: int, estimated: float, rule: str | None = None) -> float:
    r"""Data degrees of freedom of the interval.

    The default (``rule="estimated"``) is ``estimated``, the Satterthwaite df of V̂
    estimated from the draws (:func:`~evalstats.cv_variance._draws.projection_df` on the
    t scale), floored at 2:

    .. math:: \hat\nu = \frac{2\hat V_1^2}{\widehat{\mathrm{Var}}(\hat V)}
              = \frac{2\,(\sum_k \hat a_k^2)^2}{n\,\widehat{\mathrm{var}}_k(\hat a_k^2)},

    the two-moment (χ²_ν/ν) match of V̂'s law (Satterthwaite 1946; Welch 1947) with
    Var(V̂) from the first-order Hoeffding terms: Θ̂ − θ ≈ Σ_k a_k and V̂ ≈ Σ_k a_k², so
    Var(V̂) ≈ Σ_k Var(a_k²). It is the df of V̂ whatever the scale of the interval: on
    the log (logit) scale V̂/Θ̂² varies less than V̂ only because V̂ moves with Θ̂, and
    that coupling is what makes a skewed loss's misses one-sided, not information about
    Var(Θ̂). Fourth moments of heavy-tailed losses are biased low in small samples, so
    ν̂ errs high there; ν̂ < :data:`UNRELIABLE_DF` flags the result. The floor: below 2
    the t law has no variance. With g = 0 (V̂ = s²/n): n − 1.

    ``"calibrated"``: (n − 1)/3 (:func:`data_df`); ``"min"``: the smaller of the two (the
    earlier default, which passed the estimate on the interval's scale).
    """
    rule = DF_RULE if rule is None else rule
    cal = data_df(n, g)
    if g == 0 or rule == "calibrated" or not np.isfinite(estimated):
        return cal
    est = max(2.0, float(estimated))
    return est if rule == "estimated" else min(cal, est)


def note_unreliable(notes, estimated: float, what: str = "interval") -> bool:
    """Flag (warn, and return True) when the estimated data df ν̂ of V̂ is below
    :data:`UNRELIABLE_DF`."""
    if not (np.isfinite(estimated) and estimated < UNRELIABLE_DF):
        return False
    notes.warn(SmallSampleWarning,
               f"the variance estimate has only {estimated:.2g} degrees of freedom (below "
               f"{UNRELIABLE_DF:g}): its standard error is uncertain by a factor of two "
               "either way, and the losses' tail (a few observations carry most of the "
               f"variance) is not resolved at this sample size; the {what} is unreliable. "
               "More observations, or a loss with lighter tails, help.")
    return True


def ustat_df(n: int, variance: float, variance_mc_se: float,
             data: float | None = None) -> float:
    r"""Satterthwaite degrees of freedom of √V̂, including its Monte-Carlo noise.

    With ν_data the data degrees of freedom of V̂ (default n − 1, the g = 0 value) and
    independent Monte-Carlo error of variance se_MC²,

    .. math:: \nu = \frac{2\hat V^2}{2\hat V^2/\nu_{data} + \mathrm{se}_{MC}(\hat V)^2}.

    Never below 1.
    """
    data = float(n - 1) if data is None else float(data)
    if not variance > 0:
        return data
    return float(max(1.0, data / (1 + data * variance_mc_se ** 2 / (2 * variance ** 2))))


def hoeffding(bounds, variance, mc_tol, n_draws):
    """The talk's bound 2 exp(−δ²N/2) (kernel in [−1, 1]) and the N it needs for 5 %."""
    lo, hi = bounds
    if not (lo >= 0 and hi <= 1) or mc_tol is None or not variance > 0:
        return float("nan"), float("nan")
    delta = mc_tol * variance
    return (float(min(1.0, 2 * np.exp(-delta ** 2 * n_draws / 2))),
            float(np.ceil(2 * np.log(2 / _HOEFFDING_ETA) / delta ** 2)))
