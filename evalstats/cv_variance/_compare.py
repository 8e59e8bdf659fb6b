r"""``compare_learners``: θ_A(g) − θ_B(g) on the same draws (paired design)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import stats

from .._naming import named_result
from .._result import critical_value
from .._validation import rng_alias, seeded_rng
from .._warnings import SmallSampleWarning
from ._baselines import baseline_result
from ._checks import compare_learners_iv
from ._cv_error_ci import ustat_call
from ._draws import aggregate, projection_df, projection_skewness
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
from ._results import TEST_NAMES, CompareLearnersResult, skew_cap, skew_test
from ._score import score_statistic

__all__ = ["compare_learners"]

#: use the cross-half jackknife variance Var_J(Θ̂) as a floor of V̂ (and as the fallback)
JACKKNIFE_FLOOR = True


@named_result
@rng_alias
def compare_learners(est_a: Any, est_b: Any, X: Any, y: Any, *, train_size: int,
                     loss: str | Callable = "zero_one", method: str = "ustat",
                     n_draws: int | None = None, mc_tol: float | None = 0.25,
                     max_draws: int | None = None, max_seconds: float | None = None,
                     design: str = "partition", n_splits: int = 15,
                     loss_range: tuple[float, float] | None = None,
                     names: tuple[str, str] | None = None, confidence_level: float = 0.95,
                     rng: None | int | np.random.Generator = None, n_jobs: int | None = None,
                     progress: bool | None = None,
                     interval: str = "t_score") -> CompareLearnersResult:
    r"""Test and interval for θ_A(g) − θ_B(g), the difference of two learners' expected loss.

    Both learners are fitted on the *same* learning sets and evaluated on the same
    test points (a paired design: the Monte-Carlo noise of the draws largely cancels in
    the difference); the kernel Γ_A − Γ_B gives Θ̂_A − Θ̂_B and its unbiased variance
    V̂_{A−B} = V̂_A + V̂_B − 2Ĉov (Fuchs et al. 2013; talk slide 13), with
    se = √(max(V̂_{A−B}, V̂₁, Var_J) + se_MC²): V̂₁ the leading (Hájek) term and Var_J the
    cross-half jackknife variance over observations, both from the same draws (see
    :func:`~._engine.finish_variance`), and ν from :func:`ustat_df`. The default test and
    interval (``interval="t_score"``) are score-type: the variance is taken at the
    hypothesised difference δ, moved from V̂ along half the jackknife slope of V̂ in Θ̂,
    V(δ) = V̂·max(1 − ρ̂u/2, ½) with u = (Θ̂ − δ)/se and ρ̂ = Ĉov_J(Θ̂, V̂)/V̂^{3/2}
    (:mod:`._score`); p = 2·P(t_ν > |Z(0)|). When V̂_{A−B} stays ≤ 0 (learners that
    share most of their fit, few draws) max(Var_J, V̂₁) replaces it (flagged).

    Parameters
    ----------
    est_a, est_b : scikit-learn-compatible estimators
    X, y, train_size, loss, method, n_draws, mc_tol, max_draws, max_seconds, design,
    n_splits, loss_range, confidence_level, rng, n_jobs, progress
        As in :func:`cv_error_ci`, except that ``design`` defaults to ``"partition"``
        (every pair of disjoint learning sets of a partition is used); baselines
        (``"naive_t"``, ``"corrected_t"``, ``"5x2cv"`` — Dietterich's paired t test,
        ``"bayle"``, ``"nested_cv"``) use the paired split differences.
    names : (str, str), optional
        Labels of the learners (default: class names).
    interval : {"t_score", "t_skew", "t", "normal"}
        The test and its interval (default ``"t_score"``, see Notes). ``"t_skew"``
        corrects T = Θ̂/se by Cornish–Fisher through Hall's cubic for the skewness of Θ̂
        and its coupling ρ with V̂; ``"t"`` is the Wald t test, Θ̂ ± t_ν·se; ``"normal"``
        the z test. All use the same se and ν. The result's ``statistic`` and
        ``p_value`` belong to the chosen test (named in the summary); every test's pair
        is in ``diagnostics`` (``statistic_<name>``, ``p_value_<name>``).

    Returns
    -------
    CompareLearnersResult
        ``estimate`` = Θ̂_A − Θ̂_B (for the AUC: AUC_A − AUC_B), ``p_value``,
        ``statistic``, each learner's estimate and the covariance.
        ``diagnostics["jackknife"]`` holds the cross-half jackknife moments
        (``var_theta``, ``cov``, ``var_v``).

    Notes
    -----
    *Degrees of freedom.* ν is the Satterthwaite df of V̂_{A−B} estimated from the
    first-order Hoeffding terms of the difference, with the Monte-Carlo noise of the
    draws added (:func:`ustat_df`; the same rule as :func:`cv_error_ci`). An estimated
    data df below 4 warns and marks the result (``diagnostics["unreliable"]``).

    *Why a score-type default.* The difference of two learners' losses is often a
    second-order quantity (learners that share most of their fit): V̂ is then noisy and
    correlated with Θ̂, and a Wald ratio Θ̂/√V̂ is heavy-tailed under H0. The score form
    takes the variance at the hypothesised difference instead of at Θ̂. Along a
    mean–variance relation V(θ) ≈ a − bθ² (McNemar's paired proportions are one) the
    variance at the null is the integral of the slope of V̂ in Θ̂ from Θ̂ to 0, half the
    endpoint slope where the slope at the null is 0; the slope is estimated by the
    cross-half jackknife covariance ρ̂ of (Θ̂, V̂). For a studentized mean the
    first-order Cornish–Fisher coefficient is ρ/2 − γ/6, ≈ ρ/4 for the U-statistic
    difference (γ ≈ 3ρ/2): the same small-|u| term. The floor ½ keeps V(δ) positive
    when ρ̂ is large.

    *What the test promises.* Asymptotically (n → ∞, g fixed) every test here has
    level α (Fuchs et al. 2013). In finite samples the score form is conservative where
    ρ̂ and T move together and can exceed α where ρ̂ correlates positively with T;
    ``interval="t"`` has more power and a less predictable size. On the side where the
    variance at the null exceeds the one at Θ̂ (the long tail of a skewed difference) the
    score form has less power than a t test that knew the null distribution of T; that
    distribution depends on the pair of learners, not only on n and g, so a single data
    set can only estimate it (here through ρ̂ and the data df). The size and power
    measured on development and fresh nulls (positively and negatively correlated
    learners, skewed losses, nested models) are in the CV section of
    the benchmark document.

    See Also
    --------
    cv_error_ci : one learner.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.dummy import DummyClassifier
    >>> from evalstats.cv_variance import compare_learners
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2)); y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    >>> res = compare_learners(LogisticRegression(), DummyClassifier(), X, y,
    ...                        train_size=20, n_draws=200, mc_tol=None, rng=1)
    >>> res.estimate < 0
    True
    """
    args, names = compare_learners_iv(est_a, est_b, X, y, train_size, loss, loss_range,
                                      method, confidence_level, n_draws, mc_tol, max_draws,
                                      max_seconds, n_jobs, n_splits, names, design, interval)
    gen, seed = seeded_rng(rng)
    if args.method != "ustat":
        call = ustat_call("compare_learners", args, seed)
        return baseline_result([est_a, est_b], args, gen, n_jobs, progress, call, names)
    rows, acc, agg, notes = run_draws([est_a, est_b], args, gen, n_jobs, progress, stream=2)
    n, g = len(args.y), args.g
    agg_a, agg_b = aggregate(rows, 0), aggregate(rows, 1)
    jk = jackknife_moments(acc[2, 6:], g)
    var, v1, fallback = finish_variance(agg, acc[2], args, notes,
                                        jackknife=jk[0] if JACKKNIFE_FLOOR else None)
    se = float(np.sqrt(var))
    est_df = projection_df(acc[2], agg["theta"], g, args.y if args.loss == "auc" else None,
                           "t", args.bounds) if g > 0 else float("nan")
    unreliable = note_unreliable(notes, est_df, "test")
    df = ustat_df(n, agg["variance"], agg["variance_mc_se"],
                  interval_data_df(n, g, est_df))
    stat = agg["theta"] / se if se > 0 else float("nan")
    skew1 = projection_skewness(acc[2], agg["theta"], g, args.y if args.loss == "auc" else None)
    rho = coupling_from(jk, agg["variance"])
    h, gamma, shrink = skew_test(stat, skew1, rho, critical_value(args.confidence_level, df))
    if args.interval == "t_skew" and shrink < 1:
        notes.add(f"the estimated skewness ({gamma:.2g}) and coupling ({rho:.2g}) of the "
                  "difference (each used clipped to [-1, 1]) are large for a one-term "
                  "correction: it was shrunk by "
                  f"{shrink:.2f} so that the longer interval side is at most "
                  f"≈{skew_cap():.1f}× the t interval's.")
    tests = test_table(stat, h, score_statistic(stat, rho), df)
    statistic, p = tests[args.interval]
    if not np.isfinite(stat):
        notes.warn(SmallSampleWarning, "the two learners' losses are identical on every "
                   "draw: the difference has zero variance and no test is possible.")

    def _se(a):
        ok = a["variance"] > 0
        return float(np.sqrt(a["variance"] + a["mc_se"] ** 2)) if ok else float("nan")

    hb, hn = hoeffding(args.bounds, agg["variance"], args.mc_tol, agg["n_draws"])
    call = ustat_call("compare_learners", args, seed,
                      dict(interval=args.interval))
    return CompareLearnersResult(
        estimate=agg["theta"], std_error=se, confidence_level=args.confidence_level,
        method="ustat", term=f"difference in {'auc' if args.loss == 'auc' else 'expected loss'}",
        n=n, df=df, call=call,
        diagnostics=dict(xi=agg["xi"], variance_a=agg_a["variance"],
                         variance_b=agg_b["variance"], data_df_estimated=est_df,
                         data_df_calibrated=data_df(n, g),
                         **{f"p_value_{m}": v[1] for m, v in tests.items()},
                         **{f"statistic_{m}": v[0] for m, v in tests.items()},
                         test=TEST_NAMES[args.interval], skew_shrink=shrink,
                         unreliable=unreliable,
                         jackknife=dict(zip(("var_theta", "cov", "var_v"), jk,
                                            strict=True))),
        notes=notes.as_tuple(), train_size=g, loss=call["loss"],
        interval_method=args.interval,
        variance_estimate=agg["variance"], variance_mc_se=agg["variance_mc_se"],
        mc_se=agg["mc_se"], leading_variance=v1, n_draws=agg["n_draws"],
        n_fits=2 * args.fits_per_draw * agg["n_draws"], variance_fallback=fallback,
        hoeffding_bound=hb, hoeffding_draws=hn, estimate_a=agg_a["theta"],
        estimate_b=agg_b["theta"],
        std_error_a=_se(agg_a), std_error_b=_se(agg_b),
        covariance=float((agg_a["variance"] + agg_b["variance"] - agg["variance"]) / 2),
        statistic=statistic, p_value=p, names=names, loss_range=args.bounds,
        skewness=skew1, coupling=rho)


def test_table(t: float, h: float, z: float, df: float) -> dict[str, tuple[float, float]]:
    """(statistic, two-sided p-value) of every test, each with its own statistic: the
    Wald t test (T against t_ν), the skewness-corrected test (h(T) against t_ν), the
    score-type test (Z(0) against t_ν) and the z test (T against N(0, 1))."""
    def p_t(x):
        return float(2 * stats.t.sf(abs(x), df)) if np.isfinite(x) else float("nan")

    p_z = float(2 * stats.norm.sf(abs(t))) if np.isfinite(t) else float("nan")
    return {"t": (t, p_t(t)), "t_skew": (h, p_t(h)), "t_score": (z, p_t(z)),
            "normal": (t, p_z)}
