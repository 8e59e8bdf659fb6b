"""``evalstats extrapolate``: predict multi-class accuracy for more classes from a score matrix.

Input files are read with explicit schemas (:func:`evalstats._io.read_table`), never guessed:

* ``--scores``: one row per test point, one column per class (higher = more likely); the
  first row names the classes. With ``--no-header`` there is no header row and the classes
  are the column indices ``0..k1-1``.
* ``--labels``: one row per test point, in the order of ``--scores``; the true class in the
  column ``label`` (``--label-column`` to change it), spelled as in the scores header. With
  ``--no-header`` the file has a single column and no header. ``--label-indices``: the
  labels are 0-based column indices instead of class names.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

ORDER = 40


def register(sub) -> None:
    from ..extrapolate import DEFAULT_METHOD, METHOD_NAMES
    from ._common import _AliasAction, add_output_args

    p = sub.add_parser(
        "extrapolate", help="extrapolate multi-class accuracy to more classes",
        description="Fit the accuracy curve of a marginal classifier on k1 classes "
                    "(Zheng, Achanta & Benjamini) and predict the expected accuracy on "
                    "k2 > k1 random classes.")
    p.add_argument("--scores", required=True, metavar="CSV",
                   help="score matrix: one row per test point, one column per class "
                        "(higher = more likely); first row = class names")
    p.add_argument("--labels", required=True, metavar="CSV",
                   help="true class of each test point (same row order), column 'label'")
    p.add_argument("--label-column", default="label", metavar="NAME",
                   help="column of --labels holding the classes (default 'label')")
    p.add_argument("--label-indices", action="store_true",
                   help="labels are 0-based column indices of --scores, not class names")
    p.add_argument("--no-header", action="store_true",
                   help="neither file has a header row (classes = column indices)")
    p.add_argument("--k-target", nargs="+", type=int, default=None, metavar="K",
                   dest="k_target", help="numbers of classes to predict for (required)")
    # the old spelling, hidden, warning; one or more values like --k-target
    p.add_argument("--to", dest="k_target", action=_AliasAction, new_flag="--k-target",
                   nargs="+", type=int, help=argparse.SUPPRESS, default=argparse.SUPPRESS)
    p.add_argument("--method", default=DEFAULT_METHOD, choices=METHOD_NAMES)
    p.add_argument("--ties", default="random", choices=("random", "pessimistic",
                                                        "optimistic"))
    p.add_argument("--n-subsamples", type=int, default=40, help="class subsamples (default 40)")
    p.add_argument("--confidence-level", type=float, default=0.95)
    p.add_argument("--n-jobs", type=int, default=None)
    p.add_argument("--plot", metavar="PNG", default=None, help="also save the plot")
    add_output_args(p)
    p.set_defaults(func=run)


def read_inputs(scores_path, labels_path, *, header: bool = True,
                label_column: str = "label", label_indices: bool = False
                ) -> tuple[np.ndarray, np.ndarray]:
    """Score matrix and label column indices from the two CSV files (explicit schemas).

    Raises :class:`evalstats._io.TableError` naming the file, row and column of the first
    problem: non-numeric or missing scores, a label that is not a class of the scores
    header (or not a column index with ``label_indices``), different numbers of rows.
    """
    import pandas as pd

    from .._io import TableError, bad_cell, read_table

    if header:
        scores = read_table(scores_path, what="scores file")
    else:
        raw = pd.read_csv(scores_path, header=None, nrows=1) if _nonempty(scores_path) \
            else None
        k1 = raw.shape[1] if raw is not None else 0
        scores = read_table(scores_path, header=False, names=[str(j) for j in range(k1)],
                            what="scores file")
    fname = str(scores_path).rsplit("/", 1)[-1]
    num = scores.apply(pd.to_numeric, errors="coerce")
    bad = num.isna().to_numpy() & ~scores.isna().to_numpy()
    missing = scores.isna().to_numpy()
    for mask, what in ((bad, "a number"), (missing, "a score (no empty cells)")):
        if mask.any():
            row, col = np.argwhere(mask)[0]
            raise bad_cell(fname, scores, mask[:, col], scores.columns[col], what)
    names = [str(c) for c in scores.columns]
    if header:
        labels_df = read_table(labels_path, required=[label_column], what="labels file")
        col = label_column
    else:
        labels_df = read_table(labels_path, header=False, names=["label"], what="labels file")
        col = "label"
    lname = str(labels_path).rsplit("/", 1)[-1]
    if len(labels_df) != len(scores):
        raise TableError(f"{lname}: {len(labels_df)} label rows but {fname} has "
                         f"{len(scores)} score rows (one label per test point, same order"
                         f"{'' if header else '; --no-header: neither file has a header'}).")
    text = labels_df[col].astype(str).str.strip()
    if label_indices:
        idx = pd.to_numeric(text, errors="coerce")
        ok = idx.notna() & (idx == idx.round()) & (idx >= 0) & (idx < len(names))
        if not ok.all():
            raise bad_cell(lname, labels_df, ~ok.to_numpy(), col,
                           f"a column index in [0, {len(names) - 1}]")
        return num.to_numpy(float), idx.to_numpy().astype(np.int64)
    lookup = {n: i for i, n in enumerate(names)}
    ok = text.isin(lookup)
    if not ok.all():
        hint = (" (use --label-indices for 0-based column indices)"
                if header and pd.to_numeric(text, errors="coerce").notna().all() else "")
        raise bad_cell(lname, labels_df, ~ok.to_numpy(), col,
                       f"a class named in the header of {fname}{hint}")
    return num.to_numpy(float), text.map(lookup).to_numpy().astype(np.int64)


def _nonempty(path) -> bool:
    from pathlib import Path

    p = Path(path)
    return p.is_file() and p.stat().st_size > 0


def run(args) -> int:
    from .. import ConvergenceError
    from ..extrapolate import extrapolate_accuracy
    from ._common import emit, resolve_seed

    if not args.k_target:
        raise ValueError("`--k-target` is required: the numbers of classes to predict for.")
    scores, y = read_inputs(args.scores, args.labels, header=not args.no_header,
                            label_column=args.label_column, label_indices=args.label_indices)
    seed = resolve_seed(args)
    try:
        fit = extrapolate_accuracy(scores, y, method=args.method, k_target=args.k_target,
                                   rng=seed, ties=args.ties, n_subsamples=args.n_subsamples,
                                   confidence_level=args.confidence_level,
                                   n_jobs=args.n_jobs)
    except ConvergenceError as err:
        print(f"evalstats extrapolate: error: {err}", file=sys.stderr)
        return 1
    emit([fit], args, title="Accuracy extrapolation")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        ax = fit.plot()
        from pathlib import Path

        from .._io import atomic_write

        with atomic_write(args.plot, "wb") as fh:
            ax.figure.savefig(fh, format=Path(args.plot).suffix.lstrip(".").lower(), dpi=120,
                              bbox_inches="tight")
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
