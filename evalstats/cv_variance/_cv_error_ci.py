r"""``cv_error_ci``: interval for θ(g), the expected loss of a learner trained on g points.

The estimand is θ(g), the expected loss of the model that a learner produces from ``g``
random observations, evaluated on a new observation — the *unconditional* error of the
algorithm, not the error of the model fitted on all n points. Its leave-p-out estimate
Θ̂ (p = n − g) is a U-statistic of degree g + 1; Fuchs, Hornung, De Bin & Boulesteix show
that V̂ = Θ̂² − Ξ̂ (Ξ̂ the U-statistic of γ(L₁; i)·γ(L₂; j) over disjoint pairs, degree
2g + 2) is the unbiased (UMVU) estimator of Var(Θ̂). It exists only when n ≥ 2g + 2, so
it *cannot* target the error of 5- or 10-fold CV; use ``method="corrected_t"`` or
``method="bayle"`` for those.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._naming import named_result
from .._validation import rng_alias, seeded_rng
from .._warnings import Notes, SmallSampleWarning
from ._baselines import baseline_result
from ._checks import cv_error_ci_iv
from ._draws import dominance, projection_df, projection_skewness
from ._engine import (
    data_df,
    finish_variance,
    hoeffding,
    interval_data_df,
    note_unreliable,
    run_draws,
    ustat_df,
)
from ._jackknife import coupling_from, jackknife_moments
from ._results import CVErrorResult, transformed_ok

__all__ = ["cv_error_ci", "ustat_call"]


def ustat_call(function: str, args, seed, extra: dict | None = None) -> dict[str, Any]:
    """The Call recorded in a result (the arguments as used, including the seed)."""
    call = dict(function=function, train_size=args.g,
                loss=getattr(args.loss, "__name__", args.loss), method=args.method)
    if args.method == "ustat":
        call.update(design=args.design, n_draws=args.n_draws, mc_tol=args.mc_tol,
                    max_draws=args.max_draws)
        if args.max_seconds:
            call["max_seconds"] = args.max_seconds
    elif args.method not in ("5x2cv", "bayle", "nested_cv"):
        call.update(n_splits=args.n_splits)
    call.update(extra or {})
    call.update(confidence_level=args.confidence_level, rng=seed)
    return call


@named_result
@rng_alias
def cv_error_ci(estimator: Any, X: Any, y: Any, *, train_size: int,
                loss: str | Callable = "zero_one", method: str = "ustat",
                n_draws: int | None = None, mc_tol: float | None = 0.25,
                max_draws: int | None = None, max_seconds: float | None = None,
                interval: str | None = None, design: str = "pairs", n_splits: int = 15,
                loss_range: tuple[float, float] | None = None,
                confidence_level: float = 0.95,
                rng: None | int | np.random.Generator = None, n_jobs: int | None = None,
                progress: bool | None = None) -> CVErrorResult:
    r"""Interval for θ(g), the expected loss of ``estimator`` trained on ``g`` observations.

    With ``method="ustat"`` (default) the leave-p-out estimate Θ̂ and the unbiased
    variance estimate V̂ = Θ̂² − Ξ̂ of Fuchs et al. [1]_ are computed as incomplete
    U-statistics: each draw fits the learner on two disjoint random learning sets L₁, L₂
    of size g and evaluates each fit on all n − g points outside its learning set
    (for Θ̂) and on every ordered pair of distinct remaining points (for Ξ̂). Draws are
    added (doubling) until the Monte-Carlo standard error of V̂ is at most
    ``mc_tol``·V̂, up to ``max_draws`` draws or ``max_seconds``.

    Parameters
    ----------
    estimator : scikit-learn-compatible estimator
        Cloned and fitted on each learning set. With ``train_size=0`` it must already be
        fitted and is used as given: the fixed-test-set case, where V̂ = s²/n exactly.
    X : array-like or DataFrame of shape (n, p)
        Passed to the estimator unchanged (row subsets keep the DataFrame type, so a
        Pipeline with a ColumnTransformer and string columns works).
    y : array-like of shape (n,)
    train_size : int
        Learning-set size g; requires n ≥ 2g + 2 (n ≥ 2g + 4 for the AUC).
    loss : {"zero_one", "squared", "log", "auc"} or callable
        Per-case loss; a callable ``loss(y_true, y_pred) -> array`` works on
        ``predict`` output. ``"auc"`` uses the kernel with a learning set, one positive
        and one negative test case; the estimate is then an AUC.
    method : {"ustat", "naive_t", "corrected_t", "5x2cv", "bayle", "nested_cv"}
        ``"ustat"`` is the U-statistic method; the others are baselines with the same
        result shape (see :mod:`evalstats.cv_variance._baselines` for their estimands).
    n_draws : int, optional
        Initial number of draws (default: 2 000 fits per learner, i.e. 1 000 pairs of
        learning sets, or ⌈2000/r⌉ partitions with ``design="partition"``).
    mc_tol : float or None
        Stopping rule: se_MC(V̂) ≤ mc_tol·V̂ (default 0.25). ``None``: exactly
        ``n_draws``.
    max_draws : int, optional
        Cap on draws (default 8·n_draws).
    max_seconds : float, optional
        Stop adding draws after this many seconds (flagged with a ConvergenceWarning).
    interval : str, optional
        ``"auto"``, ``"t"``, ``"log"``, ``"logit"``, ``"normal"``, ``"t_skew"``,
        ``"log_skew"`` or ``"logit_skew"``: the interval of ``"ustat"``, stored as the
        result's ``interval_method``.
        ``"*_skew"``: the same scale with the skewness correction of the studentized
        statistic (Johnson 1978; Hall 1992), γ̂ estimated from the per-observation
        projection terms of the draws (``skewness``; see Notes).
        ``"auto"`` (default): ``"logit"`` for losses with a bounded range (zero-one,
        AUC, a callable with finite ``loss_range``), ``"log"`` for other non-negative
        losses, ``"t"`` otherwise. Every interval but ``"normal"`` uses a t quantile whose
        degrees of freedom are those of V̂, estimated from the draws (see Notes).
    design : {"pairs", "partition"}
        One draw is a pair of disjoint random learning sets (2 fits), or a random
        partition into r = ⌊n/g⌋ learning sets (r fits and all r(r − 1)/2 disjoint pairs:
        more pairs per fit, so less Monte-Carlo noise in V̂ per fit). Both are unbiased.
    n_splits : int
        Splits J of the ``naive_t`` and ``corrected_t`` baselines.
    loss_range : (float, float), optional
        Declared range of a *callable* loss (values outside raise ``ValueError``);
        built-in losses have fixed ranges and refuse it.
    confidence_level : float
    rng : None, int or Generator
        Seed; the seed used (drawn fresh for ``None``) is recorded in the Call.
    n_jobs : int, optional
        joblib workers (any joblib backend; results are bit-identical for every value).
    progress : bool, optional
        One progress bar over the real number of draws.

    Returns
    -------
    CVErrorResult

    Raises
    ------
    ValueError
        n < 2g + 2, non-finite data, continuous ``y`` with a classifier, a loss outside
        its range, ``loss_range`` with a built-in loss, unknown options.
    TypeError
        An estimator without ``fit``/``predict``; an unfitted model with
        ``train_size=0`` raises ``ValueError``.
    ModuleNotFoundError
        scikit-learn is missing (``pip install "evalstats[ml]"``).

    Warns
    -----
    NegativeVarianceWarning
        V̂ ≤ 0: draws are added; if it stays ≤ 0 the leading term V₁ (or the bound) is
        used and the result is flagged (``variance_fallback``).
    ConvergenceWarning
        ``max_draws`` or ``max_seconds`` reached before the Monte-Carlo tolerance.
    SmallSampleWarning
        The estimated degrees of freedom of V̂ are below 4 (``diagnostics["unreliable"]``,
        a ``!`` in the repr): the loss is heavy-tailed for this n (a few observations
        carry most of the variance estimate). Intervals for such losses cover less than
        their level across data sets, and the shortfall falls on the samples that did not
        draw the tail, so a data set without the warning from such a loss is not safe
        either: the warning says what the data show about the loss's tail.
    ReproducibilityWarning
        The learner predicted differently when fitted twice on the same learning set with
        the same seeds (randomness that ``rng`` cannot reach).

    Notes
    -----
    *The interval.* On the loss's own scale f (log for non-negative losses, logit for
    bounded ones, identity otherwise) the studentized statistic
    (f(Θ̂) − f(θ))/(f'(Θ̂)·se), se = √(max(V̂, V̂₁) + se_MC(Θ̂)²), is referred to t_ν. V̂₁ is
    the first-order (Hájek) term estimated from the same draws, a lower bound of
    Var(Θ̂) (Hoeffding 1948) that V̂ is raised to when it falls below it; se_MC(Θ̂) is the
    Monte-Carlo noise of the draws. Θ̂ and V̂ move together for skewed losses, so a
    symmetric interval misses mostly on one side; the log (logit) scale removes much of
    that.

    *The degrees of freedom come from the data.* ν is Satterthwaite's two-moment match
    of V̂ to a scaled χ²_ν (Satterthwaite 1946; Welch 1947), ν = 2V²/Var(V̂), with Var(V̂)
    estimated from the first-order Hoeffding terms the draws accumulate: Θ̂ − θ ≈ Σ_k a_k
    and V̂ ≈ Σ_k a_k², so Var(V̂) ≈ Σ_k Var(a_k²) and ν̂ = 2(Σ â_k²)²/(n·var_k(â_k²))
    (:func:`~evalstats.cv_variance._draws.projection_df` on the t scale, the Monte-Carlo
    noise of â_k subtracted; ``diagnostics["data_df_estimated"]["t"]``). The Monte-Carlo
    noise of V̂ is added by the same rule (:func:`ustat_df`). It is V̂'s own df on every
    scale: the log-scale ratio V̂/Θ̂² varies less than V̂ only because V̂ moves with Θ̂,
    which is the coupling that makes misses one-sided, not information about Var(Θ̂).
    For a light-tailed loss ν̂ grows like n; for a skewed one it is small and the
    t quantile widens the interval where V̂ is unreliable. Assumptions: first-order terms
    carry V̂'s fluctuation (higher-order U-statistic terms are treated as fixed), and the
    sample shows the loss's tail: fourth moments of a heavy-tailed loss are biased low
    in small samples, so ν̂ then errs high (hence the warning below 4). What the
    interval promises: coverage 1 − α as n → ∞ for fixed g (Fuchs et al.), with the t
    quantile as the finite-sample correction for the uncertainty of V̂; with g = 0
    (V̂ = s²/n) ν = n − 1, the one-sample t interval.

    The ``"*_skew"`` intervals correct the studentized statistic for the skewness of Θ̂
    and for its coupling with V̂, to first order in the Cornish–Fisher expansion [5]_
    through Hall's monotone cubic [6]_; on the log/logit scale the scale's own curvature
    is part of the correction, so the skewness that the transformation already removes
    is not removed twice (:func:`~evalstats.cv_variance._results.skew_limits` has the
    derivation). Two quantities come from the same draws: the first-order projection
    skewness γ̂₁ (``skewness``; :func:`~evalstats.cv_variance._draws.projection_skewness`)
    and the coupling ρ̂ = Ĉov(Θ̂, V̂)/V̂^{3/2} (``coupling``), a delete-one jackknife over
    observations accumulated in the draws and split into two independent halves so that
    Monte-Carlo noise does not enter the covariance (:mod:`~evalstats.cv_variance._jackknife`).
    For a studentized mean ρ = γ; a U-statistic's second-order part B₃ enters them
    differently (κ₃ ≈ A₃ + 3B₃, Cov ≈ A₃ + 2B₃, A₃ the projection's third moment), so the
    full skewness is γ̂ = (3ρ̂ − γ̂₁)/2 (derived here, and checked against the simulated
    skewness of Θ̂ in the benchmark). Without
    ρ̂ (AUC, g = 0) the correction assumes ρ = γ̂₁. They are options, not the default:
    the uncorrected interval was chosen by a rule written before the coverage runs, and the
    measured coverage is in the benchmark document.

    References
    ----------
    .. [1] M. Fuchs, R. Hornung, R. De Bin, A.-L. Boulesteix (2013). A U-statistic
       estimator for the variance of resampling-based error estimators. arXiv:1310.8203.
    .. [2] C. Nadeau, Y. Bengio (2003). Inference for the generalization error.
       Machine Learning 52, 239–281.
    .. [3] S. Bates, T. Hastie, R. Tibshirani (2023). Cross-validation: what does it
       estimate and how well does it do it? JASA.
    .. [4] P. Bayle, A. Bayle, L. Janson, L. Mackey (2020). Cross-validation confidence
       intervals for test error. NeurIPS.
    .. [5] N. J. Johnson (1978). Modified t tests and confidence intervals for asymmetrical
       populations. JASA 73, 536–544.
    .. [6] P. Hall (1992). On the removal of skewness by transformation. JRSS B 54,
       221–228.

    See Also
    --------
    compare_learners : difference of two learners on the same draws.
    evalstats.holdout.error_ci : a fitted model on a fixed test set.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from evalstats.cv_variance import cv_error_ci
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2)); y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    >>> res = cv_error_ci(LogisticRegression(), X, y, train_size=20, n_draws=200,
    ...                   mc_tol=None, rng=1)
    >>> res.train_size, res.method, res.interval_method
    (20, 'ustat', 'logit')
    """
    args = cv_error_ci_iv(estimator, X, y, train_size, loss, loss_range, method,
                          confidence_level, n_draws, mc_tol, max_draws, max_seconds, n_jobs,
                          n_splits, interval, design)
    gen, seed = seeded_rng(rng)
    if args.method != "ustat":
        call = ustat_call("cv_error_ci", args, seed)
        return baseline_result([estimator], args, gen, n_jobs, progress, call)
    rows, acc, agg, notes = run_draws([estimator], args, gen, n_jobs, progress, stream=0)
    return _ustat_result(args, agg, acc[0], notes, seed)


def _ustat_result(args, agg, acc, notes: Notes, seed) -> CVErrorResult:
    n, g = len(args.y), args.g
    var, v1, fallback = finish_variance(agg, acc, args, notes)
    interval = args.interval
    if not transformed_ok(interval.removesuffix("_skew"), agg["theta"], args.bounds):
        notes.warn(SmallSampleWarning, f"the estimate is {agg['theta']:.3g}, at the edge of "
                   f"the loss range: the {interval}-scale interval is undefined; using the t "
                   "interval instead.")
        interval = "t_skew" if interval.endswith("_skew") else "t"
    if n < 3 * (g + 1):
        notes.add(f"n = {n} is close to the minimum 2g + 2 = {2 * g + 2}: V̂ has few degrees "
                  "of freedom and the interval is wide.")
    y01 = args.y if args.loss == "auc" else None
    est_df = {m: projection_df(acc, agg["theta"], g, y01, m, args.bounds)
              for m in ("t", "log", "logit")} if g > 0 else {}
    skew = projection_skewness(acc, agg["theta"], g, y01)
    nu_v = est_df.get("t", float("nan"))     # the Satterthwaite df of V̂ (data part)
    unreliable = note_unreliable(notes, nu_v)
    df = None if interval == "normal" else ustat_df(
        n, agg["variance"], agg["variance_mc_se"], interval_data_df(n, g, nu_v))
    jk = jackknife_moments(acc[6:], g)
    hb, hn = hoeffding(args.bounds, agg["variance"], args.mc_tol, agg["n_draws"])
    call = ustat_call("cv_error_ci", args, seed,
                      dict(interval=interval))
    return CVErrorResult(
        estimate=agg["theta"], std_error=float(np.sqrt(var)),
        confidence_level=args.confidence_level, method="ustat",
        term="auc" if args.loss == "auc" else "expected loss", n=n, n_unit="observations",
        df=df, call=call, diagnostics=dict(xi=agg["xi"], kernel_variance=agg["kernel_variance"],
                         jackknife=dict(zip(("var_theta", "cov", "var_v"), jk, strict=True)),
                         data_df_estimated=est_df, data_df_calibrated=data_df(n, g),
                         dominance=dominance(acc, agg["theta"], g, y01) if g > 0 else
                         float("nan"), unreliable=unreliable),
        notes=notes.as_tuple(), train_size=g, loss=call["loss"], interval_method=interval,
        variance_estimate=agg["variance"], variance_mc_se=agg["variance_mc_se"],
        mc_se=agg["mc_se"], leading_variance=v1, n_draws=agg["n_draws"],
        n_fits=args.fits_per_draw * agg["n_draws"], variance_fallback=fallback,
        hoeffding_bound=hb, hoeffding_draws=hn, loss_range=args.bounds, skewness=skew,
        coupling=coupling_from(jk, agg["variance"]))
