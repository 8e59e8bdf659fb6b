"""``evalstats cv``: interval for the expected error of a learner trained on g observations."""

from __future__ import annotations

import numpy as np

from ._common import add_output_args, emit, resolve_seed

ORDER = 20

_CLASSIFIERS = ("logistic", "tree", "knn")
_REGRESSORS = ("linear", "tree", "knn")


def make_model(name: str, train_size: int, regression: bool = False):
    """A scikit-learn estimator by short name (``logistic``/``linear``, ``tree``, ``knn``)."""
    from sklearn.linear_model import LinearRegression, LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    from .._validation import check_option

    check_option(name, "--model", _REGRESSORS if regression else _CLASSIFIERS,
                 remedy="With --loss squared the models are regressors (linear, tree, knn)."
                 if regression else "Regressors (linear) need --loss squared.")
    k = max(1, min(5, train_size))
    if regression:
        return {"linear": LinearRegression(), "tree": DecisionTreeRegressor(max_depth=4),
                "knn": make_pipeline(StandardScaler(), KNeighborsRegressor(k))}[name]
    return {"logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
            "tree": DecisionTreeClassifier(max_depth=4),
            "knn": make_pipeline(StandardScaler(), KNeighborsClassifier(k))}[name]


def register(sub) -> None:
    p = sub.add_parser(
        "cv", help="CI for the expected error of a learner (U-statistic variance)",
        description="Confidence interval for θ(g), the expected loss of a learner trained "
                    "on g observations (Fuchs et al. 2013), from a CSV file. Needs n >= 2g+2.")
    p.add_argument("--data", required=True, help="CSV file (gzip allowed)")
    p.add_argument("--target", required=True, help="name of the label column")
    p.add_argument("--model", default=None,
                   help="logistic|tree|knn (classification) or linear|tree|knn with "
                        "--loss squared (default logistic; linear with --loss squared)")
    p.add_argument("--train-size", type=int, required=True, help="learning-set size g")
    p.add_argument("--loss", default="zero_one", help="zero_one|squared|log|auc")
    p.add_argument("--method", default="ustat",
                   help="ustat|naive_t|corrected_t|5x2cv|bayle|nested_cv")
    p.add_argument("--interval", default="auto",
                   help="auto|t|log|logit|normal|t_skew|log_skew|logit_skew (ustat; auto: "
                        "logit for bounded losses, log for nonnegative ones; *_skew: with "
                        "the skewness correction)")
    p.add_argument("--design", default=None,
                   help="pairs|partition (default: pairs for one learner, partition for "
                        "--compare)")
    p.add_argument("--max-seconds", type=float, default=None,
                   help="stop adding draws after this many seconds")
    p.add_argument("--compare", metavar="MODEL", default=None,
                   help="also compare with a second model on the same draws")
    p.add_argument("--n-draws", type=int, default=None, help="initial draws (default 1000)")
    p.add_argument("--max-draws", type=int, default=None)
    p.add_argument("--confidence-level", type=float, default=0.95)
    p.add_argument("--n-jobs", type=int, default=None)
    p.add_argument("--seed", type=int, default=None,
                   help="random seed (default: a fresh one, printed so the run can be "
                        "repeated)")
    add_output_args(p, seed=False)
    p.set_defaults(func=run)


def _read(path: str, target: str):
    from .._io import read_table
    from .._validation import fail

    df = read_table(path, what="data file")  # an empty or header-only file names the file
    if target not in df.columns:
        raise fail("--target", f"a column of {path}", value=target)
    features = df.drop(columns=[target])
    X = features.select_dtypes("number")
    dropped = [c for c in features.columns if c not in X.columns]
    for col in dropped:
        text = features[col].dropna().astype(str).str.strip()
        commas = text.str.fullmatch(r"[-+]?\d*,\d+").mean() if len(text) else 0.0
        if commas >= 0.9:             # decimal commas: a number column read as text
            raise fail("--data", f"numbers with a decimal point in column {col!r}",
                       got=f"decimal commas (e.g. {text.iloc[0]!r})",
                       remedy="Convert the file (e.g. pandas.read_csv(..., decimal=',')).")
    if dropped:
        import sys

        shown = ", ".join(repr(c) for c in dropped[:5]) + (" ..." if len(dropped) > 5 else "")
        print(f"evalstats cv: note: non-numeric column(s) {shown} are not used as features",
              file=sys.stderr)
    if X.shape[1] == 0:
        raise fail("--data", "a CSV with at least one numeric feature column",
                   got="no numeric column besides the target")
    _check_features(X, path)
    return X.to_numpy(float), df[target].to_numpy()


def _check_features(X, path: str) -> None:
    """Feature cells must be finite and of bounded magnitude (the learners square them);
    the first bad cell is named by its line in the file (the header is line 1) and column."""
    from .._validation import fail
    from ..cv_variance import MAX_FEATURE

    vals = X.to_numpy(float)
    bad = ~np.isfinite(vals) | (np.abs(np.nan_to_num(vals)) > MAX_FEATURE)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise fail("--data", f"finite feature values of magnitude at most {MAX_FEATURE:g}",
                   got=f"{float(vals[r, c]):g} in {path}, row {r + 2}, column "
                   f"{X.columns[c]!r}", verb="must hold",
                   remedy="Remove or rescale it (e.g. divide the column by a constant).")


def run(args) -> int:
    from ..cv_variance import compare_learners, cv_error_ci

    X, y = _read(args.data, args.target)
    resolve_seed(args)                  # after the input checks: an error stays one line
    regression = args.loss == "squared"
    if args.train_size < 1:
        from .._validation import fail

        raise fail("--train-size", "an integer >= 1 (the learning-set size g)",
                   value=args.train_size)
    if args.model is None:
        args.model = "linear" if regression else "logistic"
    model = make_model(args.model, args.train_size, regression)
    kw = dict(train_size=args.train_size, loss=args.loss, method=args.method,
              n_draws=args.n_draws, max_draws=args.max_draws,
              max_seconds=args.max_seconds, confidence_level=args.confidence_level,
              rng=args.seed, n_jobs=args.n_jobs)
    if args.design is not None:
        kw["design"] = args.design
    if args.compare:
        other = make_model(args.compare, args.train_size, regression)
        if args.interval != "auto":         # compare_learners' own default otherwise
            kw["interval"] = args.interval
        res = compare_learners(model, other, X, y, names=(args.model, args.compare), **kw)
    else:
        res = cv_error_ci(model, X, y, interval=None if args.interval == "auto" else
                          args.interval, **kw)
    emit(res, args, title="evalstats cv")
    return 0


def demo_results(fast: bool, seed: int = 2026) -> list:
    """U-statistic CI (naive Bayes) and a comparison with the majority guess on a small
    simulation; DeLong's AUC interval on the bundled ``sim_pool``."""
    from sklearn.dummy import DummyClassifier
    from sklearn.naive_bayes import GaussianNB

    from .. import datasets
    from ..cv_variance import compare_learners, cv_error_ci
    from ..holdout import auc_ci

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.logistic(size=60) > 0).astype(int)
    kw = dict(train_size=15, n_draws=100 if fast else 1000, rng=seed,
              mc_tol=None if fast else 0.25, max_draws=None if fast else 4000, progress=False)
    one = cv_error_ci(GaussianNB(), X, y, **kw)
    two = compare_learners(GaussianNB(), DummyClassifier(), X, y, **kw)
    pool = datasets.load("sim_pool")
    return [one, two, auc_ci(pool["label"].to_numpy(), pool["prob"].to_numpy())]
