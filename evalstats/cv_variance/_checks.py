"""Input validation of ``cv_variance`` (one ``_iv`` helper per public function)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from .._io import require_extra
from .._parallel import _check_n_jobs
from .._validation import (
    check_array,
    check_binary_labels,
    check_confidence_level,
    check_consistent_length,
    check_int,
    check_option,
    check_scalar,
    fail,
    is_text,
    plain_value,
)
from ._baselines import BASELINES, NESTED_FOLDS
from ._draws import BUILTIN_LOSSES, CLASSIFICATION_LOSSES, is_classifier
from ._results import INTERVAL_METHODS

__all__ = ["METHODS", "INTERVALS", "DESIGNS", "CVArgs", "cv_error_ci_iv", "compare_learners_iv",
           "check_loss_values"]

METHODS = ("ustat",) + BASELINES
#: values of the ``interval=`` argument: "auto" = logit for bounded losses, log for
#: non-negative unbounded ones, t otherwise
INTERVALS = ("auto",) + INTERVAL_METHODS
#: values of ``compare_learners(interval=)``
COMPARE_INTERVALS = ("t_score", "t_skew", "t", "normal")
DEFAULT_DRAWS = 1000
DEFAULT_MAX_FACTOR = 8


class CVArgs(NamedTuple):
    """Normalised arguments of ``cv_error_ci`` / ``compare_learners``."""

    X: Any
    y: np.ndarray
    g: int
    loss: str | Callable
    bounds: tuple[float, float]
    method: str
    confidence_level: float
    n_draws: int
    mc_tol: float | None
    max_draws: int
    max_seconds: float | None
    interval: str
    n_splits: int
    design: str = "pairs"

    @property
    def fits_per_draw(self) -> int:
        """Fits per learner in one draw: 2 (pairs), ⌊n/g⌋ (partition), 0 (g = 0)."""
        if self.g == 0:
            return 0
        return len(self.y) // self.g if self.design == "partition" else 2


def _check_estimator(est: Any, name: str, loss: Any, g: int) -> None:
    needs = ["predict"]
    if loss == "log":
        needs = ["predict_proba"]
    elif loss == "auc":
        needs = ["predict_proba|decision_function"]
    missing = [m for m in ["fit"] + needs
               if not any(hasattr(est, part) for part in m.split("|"))]
    if missing:
        raise fail(name, "a scikit-learn-compatible estimator with "
                   + " and ".join(f"`{m.replace('|', '` or `')}`" for m in ["fit"] + needs),
                   got=f"an object of type {type(est).__name__} without "
                   + ", ".join(missing), exc=TypeError)
    if g == 0:  # used as given: must already be fitted
        from sklearn.exceptions import NotFittedError
        from sklearn.utils.validation import check_is_fitted

        try:
            check_is_fitted(est)
            fitted = True
        except NotFittedError:
            fitted = False
        except (TypeError, AttributeError):
            # not a scikit-learn estimator: its convention (fitted attributes end in "_")
            fitted = any(k.endswith("_") and not k.startswith("__")
                         for k in getattr(est, "__dict__", {}))
        if not fitted:
            raise fail(name, "an already fitted model when `train_size` = 0 (the fixed-test-set "
                       "case evaluates the model as given)",
                       got=f"an unfitted {type(est).__name__}",
                       remedy="Fit it first, or pass train_size >= 1.")


def _check_loss(loss: Any, loss_range: Any) -> tuple[str | Callable, tuple[float, float]]:
    if callable(loss):
        if loss_range is None:
            return loss, (-np.inf, np.inf)
        try:
            lo, hi = loss_range
        except (TypeError, ValueError):
            raise fail("loss_range", "a pair (low, high)", value=loss_range) from None
        lo, hi = (check_scalar(v, "loss_range") if np.isfinite(v) else float(v)
                  for v in (lo, hi))
        if not lo < hi:
            raise fail("loss_range", "a pair (low, high) with low < high", value=loss_range)
        return loss, (lo, hi)
    loss = check_option(loss, "loss", BUILTIN_LOSSES)
    if loss_range is not None:
        lo, hi = BUILTIN_LOSSES[loss]
        raise fail("loss_range", f"None for the built-in loss {loss!r} (its range is fixed: "
                   f"[{lo:g}, {hi:g}])", value=loss_range,
                   remedy="Pass a callable loss to declare a range.")
    return loss, BUILTIN_LOSSES[loss]


#: the largest feature magnitude accepted: squares of features summed over a million rows
#: stay finite (1e308 gave an overflow and a traceback inside scikit-learn's scalers)
MAX_FEATURE = 1e150

_TEXT_X_REMEDY = ("Encode text features as numbers first, or pass a DataFrame to a "
                  "scikit-learn Pipeline that encodes them (e.g. a ColumnTransformer with "
                  "OneHotEncoder).")


def _check_magnitude(values: np.ndarray, where: str) -> None:
    big = np.abs(values) > MAX_FEATURE
    if np.any(big):
        r, *c = np.argwhere(big)[0]
        cell = f"row {r}" + (f", column {c[0]}" if c and not where else "")
        raise fail("X", f"features of magnitude at most {MAX_FEATURE:g} (learners square "
                   "and multiply them)", got=f"{values[big].flat[0]:.3g} at {where}{cell}",
                   verb="must hold",
                   remedy="Rescale the feature (e.g. divide it by a constant or take logs).")


def _check_frame(X: pd.DataFrame | pd.Series) -> Any:
    """Numeric columns must be finite and of bounded magnitude; other columns go to the
    estimator unchanged (a Pipeline may encode them)."""
    frame = X.to_frame() if isinstance(X, pd.Series) else X
    num = frame.select_dtypes("number")
    if num.shape[1]:
        vals = num.to_numpy(dtype=float)
        bad = ~np.isfinite(vals)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise fail("X", "finite in its numeric columns (no NaN or infinity)",
                       got=f"{int(bad.sum())} non-finite values (first: row {r}, column "
                       f"{num.columns[c]!r})", remedy="Drop or impute them first (e.g. with "
                       "`pd.isna`, or SimpleImputer in a Pipeline).")
        big = np.abs(vals) > MAX_FEATURE
        if big.any():
            r, c = np.argwhere(big)[0]
            _check_magnitude(vals[:, [c]], f"column {num.columns[c]!r}, ")
    return X


def _check_X(X: Any) -> Any:
    """Numeric arrays are checked (finite, bounded, not text); a DataFrame's numeric
    columns too, its other columns go to the estimator unchanged."""
    if isinstance(X, (pd.DataFrame, pd.Series)):
        return _check_frame(X)
    from scipy import sparse

    if sparse.issparse(X):          # scikit-learn takes sparse rows: passed on as CSR
        if X.ndim != 2:
            raise fail("X", "a 2-dimensional sparse matrix", got=f"shape {X.shape}")
        X = sparse.csr_matrix(X)
        if not np.all(np.isfinite(X.data)):
            raise fail("X", "finite (no NaN or infinity)", got="non-finite stored values")
        _check_magnitude(X.data, "a stored value, ")
        return X
    arr = np.asarray(X)
    if is_text(arr) or arr.dtype.kind not in "fciub" and not _numeric_objects(arr):
        example = plain_value(arr.ravel()[0]) if arr.size else ""
        raise fail("X", "numeric (an array of numbers)",
                   got=f"text or other non-numeric values, e.g. {example!r}",
                   remedy=_TEXT_X_REMEDY, exc=TypeError)
    arr = check_array(arr, "X", ndim=(1, 2))
    _check_magnitude(arr, "")
    return arr[:, None] if arr.ndim == 1 else arr


def _numeric_objects(arr: np.ndarray) -> bool:
    """Whether an object array holds only numbers (numpy converts them as such)."""
    try:
        arr.astype(float)
    except (TypeError, ValueError):
        return False
    return True


def _check_y(y: Any, loss: Any, estimators: dict) -> np.ndarray:
    y_raw = np.asarray(y)
    if y_raw.ndim != 1:
        raise fail("y", "1-dimensional", got=f"shape {y_raw.shape}")
    if loss == "auc" and y_raw.dtype.kind not in "fcbiu":
        # text classes: converting them to numbers cannot work, naming the positive can
        example = plain_value(y_raw[0]) if y_raw.size else ""
        raise fail("y", "labels coded 0/1 for loss='auc' (1 = the positive class)",
                   got=f"text or other non-numeric values, e.g. {example!r}",
                   remedy=f"Recode them, e.g. (y == {example!r}).astype(int).", exc=TypeError)
    if y_raw.dtype.kind in "fcbiu" or loss in ("squared", "auc"):
        y = check_array(y_raw, "y", ndim=1, dtype=float if loss == "squared" else None)
        if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
            raise fail("y", "finite (no NaN or infinity)", got="non-finite values")
    else:
        y = y_raw
        if pd.isna(y).any():
            raise fail("y", "free of missing values", got=f"{int(pd.isna(y).sum())} missing")
    classify = loss in CLASSIFICATION_LOSSES or any(is_classifier(e) for e in estimators.values())
    if classify and y.dtype.kind == "f" and not np.all(y == np.round(y)):
        who = [k for k, e in estimators.items() if is_classifier(e)]
        why = f"{who[0]} is a classifier" if who else f"loss={loss!r} needs classes"
        raise fail("y", f"class labels ({why})",
                   got=f"continuous values ({len(np.unique(y))} distinct, e.g. {y[0]:.4g})",
                   remedy="Use a regressor with loss='squared' or a callable loss.")
    return y


def _check_sizes(y, loss, g, n) -> np.ndarray:
    if loss == "auc":
        y = check_binary_labels(y, "y")
        if n < 2 * g + 4 or min(y.sum(), n - y.sum()) < 2:
            raise fail("train_size", f"at most (n - 4)/2 = {(n - 4) // 2} for the AUC with "
                       f"n = {n}: θ² needs two disjoint learning sets plus two positive and "
                       "two negative test cases (n >= 2g + 4)", value=g)
    elif n < 2 * g + 2:
        raise fail("train_size", f"at most n/2 - 1 = {n // 2 - 1} with n = {n}: the unbiased "
                   "variance estimator of the leave-p-out error θ(g) needs two disjoint "
                   "learning sets of size g plus one test case each (n >= 2g + 2). θ(g) is "
                   "the expected loss of the learner trained on g observations; it cannot "
                   "target K-fold CV error (use method='corrected_t' or 'bayle' for that)",
                   value=g)
    return y


DESIGNS = ("pairs", "partition")


def _draw_args(n_draws, mc_tol, max_draws, max_seconds, n_jobs, per_draw=2):
    # default: 2 000 fits per learner to start, whatever the design
    default_n = n_draws is None
    n_draws = (max(20, -(-2 * DEFAULT_DRAWS // per_draw)) if default_n
               else check_int(n_draws, "n_draws", low=2))
    if max_draws is None:
        max_draws = DEFAULT_MAX_FACTOR * n_draws
    else:
        max_draws = check_int(max_draws, "max_draws", low=2)
        if max_draws < n_draws:
            if not default_n:
                raise fail("max_draws", f"at least n_draws = {n_draws}", value=max_draws)
            n_draws = max_draws         # a cap below the default start: the cap wins
    if mc_tol is not None:
        mc_tol = check_scalar(mc_tol, "mc_tol", 0.0, None, low_inclusive=False)
    if max_seconds is not None:
        max_seconds = check_scalar(max_seconds, "max_seconds", 0.0, None, low_inclusive=False)
    _check_n_jobs(n_jobs)
    return n_draws, mc_tol, max_draws, max_seconds


def _baseline_interval_refusal(method: Any, interval: str) -> ValueError:
    """``interval`` chosen with a baseline method, which has its own interval (it was
    silently ignored)."""
    return fail("interval", f"left at its default with method={method!r}: the baselines "
                "have their own interval (t, or normal for 'bayle')", value=interval,
                remedy="interval= applies to method='ustat'.")


def _common_iv(estimators, X, y, train_size, loss, loss_range, method, confidence_level,
               n_draws, mc_tol, max_draws, max_seconds, n_jobs, n_splits, interval,
               purpose, design="pairs") -> CVArgs:
    require_extra("sklearn", "ml", purpose)
    loss, bounds = _check_loss(loss, loss_range)
    method = check_option(method, "method", METHODS)
    g = check_int(train_size, "train_size", low=0)
    for name, est in estimators.items():
        _check_estimator(est, name, loss, g)
    X = _check_X(X)
    y = _check_y(y, loss, estimators)
    check_consistent_length(X=X, y=y)
    y = _check_sizes(y, loss, g, len(y))
    if method in ("naive_t", "corrected_t") and g < 1:
        raise fail("train_size", f">= 1 for method={method!r}", value=g)
    if method == "nested_cv" and len(y) < 2 * NESTED_FOLDS:
        # outer folds of one case have no variance: numpy warned and the naive width stayed
        raise fail("method", f"'nested_cv' only with n >= {2 * NESTED_FOLDS} (its "
                   f"{NESTED_FOLDS} outer folds need two cases each for their variance)",
                   got=f"n = {len(y)}", remedy="Use method='ustat' at this sample size.",
                   verb="may be")
    if method in ("bayle", "nested_cv") and loss == "auc":
        raise fail("method", "'ustat', 'naive_t', 'corrected_t' or '5x2cv' for the AUC "
                   f"({method!r} needs a per-case loss)", value=method)
    confidence_level = check_confidence_level(confidence_level)
    design = check_option(design, "design", DESIGNS)
    per_draw = len(y) // g if design == "partition" and g else 2
    n_draws, mc_tol, max_draws, max_seconds = _draw_args(n_draws, mc_tol, max_draws,
                                                         max_seconds, n_jobs, per_draw)
    n_splits = check_int(n_splits, "n_splits", low=2)
    interval = check_option("auto" if interval is None else interval, "interval", INTERVALS)
    if method != "ustat" and interval != "auto":
        raise _baseline_interval_refusal(method, interval)
    if interval == "auto":
        lo, hi = bounds
        interval = ("logit" if np.isfinite(lo) and np.isfinite(hi)
                    else "log" if lo >= 0 else "t")
    elif interval in ("logit", "logit_skew") and not np.all(np.isfinite(bounds)):
        raise fail("interval", "'auto', 't', 'log', 'normal' or their '_skew' versions for a "
                   "loss with an unbounded "
                   f"range [{bounds[0]:g}, {bounds[1]:g}]", value=interval)
    return CVArgs(X, y, g, loss, bounds, method, confidence_level, n_draws, mc_tol,
                  max_draws, max_seconds, interval, n_splits, design)


def cv_error_ci_iv(estimator, X, y, train_size, loss, loss_range, method, confidence_level,
                   n_draws, mc_tol, max_draws, max_seconds, n_jobs, n_splits,
                   interval, design) -> CVArgs:
    """Validate and normalise the arguments of :func:`cv_error_ci`."""
    return _common_iv({"estimator": estimator}, X, y, train_size, loss, loss_range, method,
                      confidence_level, n_draws, mc_tol, max_draws, max_seconds, n_jobs,
                      n_splits, interval, "cv_error_ci", design)


def compare_learners_iv(est_a, est_b, X, y, train_size, loss, loss_range, method,
                        confidence_level, n_draws, mc_tol, max_draws, max_seconds, n_jobs,
                        n_splits, names, design,
                        interval="t_score") -> tuple[CVArgs, tuple[str, str]]:
    """Validate and normalise the arguments of :func:`compare_learners`."""
    interval = check_option(interval, "interval", COMPARE_INTERVALS)
    if method != "ustat" and interval != "t_score":
        raise _baseline_interval_refusal(method, interval)
    args = _common_iv({"est_a": est_a, "est_b": est_b}, X, y, train_size, loss, loss_range,
                      method, confidence_level, n_draws, mc_tol, max_draws, max_seconds,
                      n_jobs, n_splits, None, "compare_learners", design)
    args = args._replace(interval=interval)
    if names is None:
        names = (type(est_a).__name__, type(est_b).__name__)
        if names[0] == names[1]:
            names = (names[0] + " (A)", names[1] + " (B)")
    names = tuple(str(v) for v in names)
    if len(names) != 2:
        raise fail("names", "a pair of two strings", value=names)
    return args, names


#: the largest held-out mean loss accepted (products of four losses stay below 1e300)
MAX_LOSS = 1e75


def check_loss_values(rows: np.ndarray, bounds, n_learners: int) -> None:
    """Held-out mean losses of every learner must lie in the declared range."""
    lo, hi = bounds
    t = rows[:, [2 + 3 * k for k in range(n_learners)]] / rows[:, [0]]
    if not np.all(np.isfinite(t)):
        raise fail("loss", "finite for every case", got="non-finite loss values")
    big = float(np.max(np.abs(t))) if t.size else 0.0
    if big > MAX_LOSS:
        # the variance estimators square products of losses: 1e150 overflowed in the df
        raise fail("loss", f"at most {MAX_LOSS:g} in magnitude (the variance estimators "
                   "multiply losses, whose products must stay finite)",
                   got=f"held-out mean losses up to {big:.3g}",
                   remedy="Rescale the loss (e.g. divide it by a constant) and scale the "
                          "result back.")
    if np.any(t < lo - 1e-12) or np.any(t > hi + 1e-12):
        raise fail("loss", f"within its declared range [{lo:g}, {hi:g}]",
                   got=f"held-out mean losses in [{t.min():.4g}, {t.max():.4g}]")
