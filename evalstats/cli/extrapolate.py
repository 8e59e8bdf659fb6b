"""``evalstats extrapolate``: predict multi-class accuracy for more classes from a score matrix."""

from __future__ import annotations

import numpy as np

ORDER = 40


def register(sub) -> None:
    from ..extrapolate import METHOD_NAMES

    p = sub.add_parser(
        "extrapolate", help="extrapolate multi-class accuracy to more classes",
        description="Fit the accuracy curve of a marginal classifier on k1 classes "
                    "(Zheng, Achanta & Benjamini) and predict the expected accuracy on "
                    "k2 > k1 random classes.")
    p.add_argument("--scores", required=True, metavar="CSV",
                   help="score matrix: one row per test point, one column per class "
                        "(higher = more likely), with a header row of class names")
    p.add_argument("--labels", required=True, metavar="CSV",
                   help="true classes, one per row (first column): class names from the "
                        "scores header or 0-based column indices")
    p.add_argument("--to", nargs="+", type=int, required=True, metavar="K",
                   help="numbers of classes to predict for")
    p.add_argument("--method", default="regression", choices=METHOD_NAMES)
    p.add_argument("--seed", type=int, default=2026, help="random seed (default 2026)")
    p.add_argument("--n-subsamples", type=int, default=40, help="class subsamples (default 40)")
    p.add_argument("--confidence-level", type=float, default=0.95)
    p.add_argument("--plot", metavar="PNG", default=None, help="also save the plot")
    p.set_defaults(func=run)


def read_inputs(scores_path: str, labels_path: str) -> tuple[np.ndarray, np.ndarray]:
    """Score matrix and label indices from the two CSV files."""
    import pandas as pd

    from .._validation import fail

    scores = pd.read_csv(scores_path)
    labels = pd.read_csv(labels_path, header=None).iloc[:, 0]
    if len(labels) == len(scores) + 1:        # the labels file had a header row
        labels = labels.iloc[1:].reset_index(drop=True)
    names = [str(c) for c in scores.columns]
    as_text = labels.astype(str).str.strip()
    if as_text.isin(names).all():
        y = as_text.map({n: i for i, n in enumerate(names)}).to_numpy()
    else:
        try:
            y = pd.to_numeric(labels).to_numpy()
        except ValueError:
            bad = as_text[~as_text.isin(names)].iloc[0]
            raise fail("--labels", "class names from the --scores header or column indices",
                       value=bad) from None
    return scores.to_numpy(float), y


def run(args) -> int:
    from ..extrapolate import extrapolate_accuracy

    scores, y = read_inputs(args.scores, args.labels)
    fit = extrapolate_accuracy(scores, y, method=args.method, k_target=args.to, rng=args.seed,
                               n_subsamples=args.n_subsamples,
                               confidence_level=args.confidence_level)
    print(fit.summary().as_text())
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        ax = fit.plot()
        ax.figure.savefig(args.plot, dpi=120, bbox_inches="tight")
        print(f"\nPlot written to {args.plot}")
    return 0


def demo_results(fast: bool, seed: int = 2026) -> list:
    """Extrapolation on the bundled ``sim_multiclass`` scores (true curve known)."""
    from .. import datasets
    from ..extrapolate import extrapolate_accuracy

    bundle = datasets.load("sim_multiclass")
    fit = extrapolate_accuracy(bundle.scores, bundle.labels, k_target=[200, 1000], rng=seed,
                               n_subsamples=10 if fast else 40)
    return [fit]
