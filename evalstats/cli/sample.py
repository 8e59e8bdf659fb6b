"""``evalstats sample`` and ``evalstats estimate``: active estimation through files.

    evalstats sample --pool pool.csv --score-col prob --pred-col pred --measure f1 \\
        --budget 300 --out to_label.csv
    # ... fill in the labels (a 'label' column, or a separate id,label file) ...
    evalstats estimate --design to_label.csv --labels labeled.csv
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

ORDER = 30


def register(sub) -> None:
    p = sub.add_parser(
        "sample", help="choose the pool items to label for active estimation",
        description="Draw a labeling design from the variance-optimal proposal (Sawade et al. "
                    "2010) and write the items to label (id, number of draws, q, weight) "
                    "as CSV.")
    p.add_argument("--pool", required=True, help="CSV of the unlabeled pool")
    p.add_argument("--score-col", required=True, help="column with p(y=1|x)")
    p.add_argument("--pred-col", default=None,
                   help="column(s) with predicted labels, comma-separated (default: "
                        "score > 0.5)")
    p.add_argument("--id-col", default=None, help="identifier column (default: row number)")
    p.add_argument("--measure", default="f1",
                   choices=["f1", "precision", "recall", "fbeta", "accuracy", "error"])
    p.add_argument("--beta", type=float, default=1.0, help="beta of --measure fbeta")
    p.add_argument("--budget", type=int, required=True, help="distinct labels to buy")
    p.add_argument("--proposal", default="optimal", choices=["optimal", "passive"])
    p.add_argument("--epsilon", type=float, default=0.1, help="uniform share (default 0.1)")
    p.add_argument("--seed", type=int, default=None, help="random seed")
    p.add_argument("--out", required=True, help="CSV to write the design to")
    p.set_defaults(func=run_sample)

    e = sub.add_parser(
        "estimate", help="estimate accuracy, precision, recall and F from a labeled design",
        description="Compute every measure with its interval from a design written by "
                    "`evalstats sample` and the labels that came back.")
    e.add_argument("--design", required=True, help="CSV written by `evalstats sample`")
    e.add_argument("--labels", default=None,
                   help="CSV with id and label columns (default: a 'label' column of the "
                        "design itself)")
    e.add_argument("--label-col", default="label", help="label column (default 'label')")
    e.add_argument("--id-col", default="id", help="id column of --labels (default 'id')")
    e.add_argument("--confidence-level", type=float, default=0.95)
    e.add_argument("--out", default=None, help="also write the report (.html, .md or .txt)")
    e.set_defaults(func=run_estimate)


def run_sample(args: argparse.Namespace) -> int:
    from ..active import active_design

    pool = pd.read_csv(args.pool)
    cols = [args.score_col] + ([] if args.pred_col is None else args.pred_col.split(","))
    if args.id_col:
        cols.append(args.id_col)
    missing = [c for c in cols if c not in pool.columns]
    if missing:
        raise ValueError(f"`--pool` must have the column(s) {', '.join(missing)}; got "
                         f"columns {', '.join(map(str, pool.columns))}.")
    preds = None if args.pred_col is None else pool[args.pred_col.split(",")]
    design = active_design(pool[args.score_col].to_numpy(), args.budget, args.measure,
                           rng=args.seed, predictions=preds, beta=args.beta,
                           ids=None if args.id_col is None else pool[args.id_col].to_numpy(),
                           proposal=args.proposal, epsilon=args.epsilon)
    design.to_csv(args.out, index=False)
    print(f"{len(design)} items to label ({int(design['n_draws'].sum())} draws) written to "
          f"{args.out}; add a 'label' column, then run `evalstats estimate --design "
          f"{args.out}`.")
    return 0


def run_estimate(args: argparse.Namespace) -> int:
    from ..active import estimate_from_labels

    design = pd.read_csv(args.design)
    if args.labels is None:
        if args.label_col not in design.columns:
            raise ValueError(f"`--labels` must be given when the design has no "
                             f"'{args.label_col}' column; got columns "
                             f"{', '.join(map(str, design.columns))}.")
        labels = design[args.label_col].to_numpy()
    else:
        lab = pd.read_csv(args.labels)
        for c in (args.id_col, args.label_col):
            if c not in lab.columns:
                raise ValueError(f"`--labels` must have a '{c}' column; got columns "
                                 f"{', '.join(map(str, lab.columns))}.")
        labels = pd.DataFrame({"id": lab[args.id_col], "label": lab[args.label_col]})
    res = estimate_from_labels(design, labels, confidence_level=args.confidence_level)
    print(res.summary().as_text())
    if args.out:
        import matplotlib

        from .. import report

        matplotlib.use("Agg")
        report([res], title="Active estimate", path=args.out)
        print(f"\nReport written to {args.out}")
    return 0


def demo_results(fast: bool, seed: int = 2026) -> list:
    """Active vs passive F1 on the bundled simulated pool (3.4 % positives)."""
    from .. import datasets
    from ..active import active_evaluate

    pool = datasets.load("sim_pool")
    truth = pool["label"].to_numpy()
    budget = 200 if fast else 500

    def oracle(ids: np.ndarray) -> np.ndarray:
        return truth[ids]

    return [active_evaluate(pool["prob"], oracle, budget, "f1", proposal=kind,
                            predictions=pool["pred"], rng=seed)
            for kind in ("optimal", "passive")]
