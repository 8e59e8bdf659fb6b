"""``evalstats sample`` and ``evalstats estimate``: active estimation through files.

    evalstats sample --pool pool.csv --score-col prob --pred-col pred --measure f1 \\
        --n-labels 300 --seed 1 --out to_label.csv
    # ... fill in the labels (a 'label' column, or a separate id,label file) ...
    evalstats estimate --design to_label.csv --labels labeled.csv

The design file carries its own integrity check (columns ``design_row``, ``row_check``,
``design_check``, ``sealed_columns``, ``evalstats_version``): ``estimate`` refuses a design
whose rows were deleted, copied or edited, naming the file, row and column. Add columns
(``label``) freely; change nothing else.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from ._common import add_alias, add_output_args, emit, resolve_seed

ORDER = 30
MEASURE_CHOICES = ("f1", "precision", "recall", "fbeta", "accuracy", "error")


def register(sub) -> None:
    p = sub.add_parser(
        "sample", help="choose the pool items to label for active estimation",
        description="Draw a labeling design from the variance-optimal proposal (Sawade et al. "
                    "2010) and write the items to label (id, number of draws, q, weight and "
                    "an integrity check) as CSV.")
    p.add_argument("--pool", required=True, help="CSV of the unlabeled pool (with a header)")
    p.add_argument("--score-col", required=True, help="column with p(y=1|x)")
    p.add_argument("--pred-col", default=None,
                   help="column(s) with predicted labels, comma-separated (default: "
                        "score > 0.5)")
    p.add_argument("--id-col", default=None, help="identifier column (default: row number)")
    p.add_argument("--measure", default="f1", choices=MEASURE_CHOICES)
    p.add_argument("--beta", type=float, default=1.0, help="beta of --measure fbeta")
    p.add_argument("--alpha", type=float, default=None,
                   help="F_alpha weight (overrides --beta; 1 = precision, 0 = recall)")
    p.add_argument("--n-labels", type=int, default=None, dest="n_labels",
                   help="distinct labels to buy (required)")
    add_alias(p, "--budget", "--n-labels", "n_labels", type=int)
    p.add_argument("--proposal", default="optimal", choices=["optimal", "passive"])
    p.add_argument("--epsilon", type=float, default=0.1,
                   help="defensive share (default 0.1; uniform with replacement, by each "
                        "prediction group's influence in the pps design)")
    p.add_argument("--design", default=None, choices=["pps", "with_replacement"],
                   help="sampling design (default: the package default for the measure — "
                        "'pps', without replacement, for binary measures)")
    add_output_args(p, out_help="CSV file to write the design to (required)")
    p.set_defaults(func=run_sample)

    e = sub.add_parser(
        "estimate", help="estimate accuracy, precision, recall and F from a labeled design",
        description="Compute every measure with its interval from a design written by "
                    "`evalstats sample` and the labels that came back. The design's "
                    "integrity check is verified first.")
    e.add_argument("--design", required=True, help="CSV written by `evalstats sample`")
    e.add_argument("--labels", default=None,
                   help="CSV with id and label columns (default: a label column of the "
                        "design itself)")
    e.add_argument("--label-col", default="label", help="label column (default 'label')")
    e.add_argument("--id-col", default="id", help="id column of --labels (default 'id')")
    e.add_argument("--no-header", action="store_true",
                   help="--labels has no header row: its columns are id, label in that order")
    e.add_argument("--confidence-level", type=float, default=0.95)
    add_output_args(e, seed=False)
    e.set_defaults(func=run_estimate)


# -- sample ----------------------------------------------------------------------------------

def _read_pool(args: argparse.Namespace) -> tuple[pd.DataFrame, list[str], str]:
    from pathlib import Path

    from .._io import cell_error, read_table

    preds = [] if args.pred_col is None else [c.strip() for c in args.pred_col.split(",")]
    cols = [args.score_col, *preds] + ([args.id_col] if args.id_col else [])
    pool = read_table(args.pool, required=cols, what="pool")
    fname = Path(args.pool).name
    for c in [args.score_col, *preds]:
        x = pd.to_numeric(pool[c], errors="coerce").to_numpy(float)
        lo, hi = (0.0, 1.0) if c == args.score_col else (0.0, np.inf)
        bad = ~np.isfinite(x) | (x < lo) | (x > hi)
        if c != args.score_col:
            bad |= x != np.round(x)
        if bad.any():
            want = "a probability in [0, 1]" if c == args.score_col else \
                "a class label 0, 1, ..."
            raise cell_error(fname, pool, bad, c, want)
        pool[c] = x
    if args.id_col:          # ids as written: "00009" stays "00009", "NA" is text
        pool[args.id_col] = pd.read_csv(args.pool, usecols=[args.id_col], dtype=str,
                                        keep_default_na=False)[args.id_col].to_numpy()
        dup = pool[args.id_col].duplicated(keep="first").to_numpy() | \
            (pool[args.id_col] == "").to_numpy()
        if dup.any():
            raise cell_error(fname, pool, dup, args.id_col, "a unique, non-empty identifier")
    return pool, preds, fname


def run_sample(args: argparse.Namespace) -> int:
    from ..active import active_design

    if args.out is None:
        raise ValueError("`--out` must be given: the CSV file to write the design to.")
    if args.n_labels is None or args.n_labels < 1:
        raise ValueError("`--n-labels` must be an integer >= 1 (the number of distinct labels "
                         f"to buy); got {args.n_labels}.")
    pool, preds, _ = _read_pool(args)
    seed = resolve_seed(args)
    design = active_design(pool[args.score_col].to_numpy(), args.n_labels, args.measure,
                           rng=seed, predictions=pool[preds] if preds else None,
                           beta=args.beta, alpha=args.alpha,
                           ids=None if args.id_col is None else pool[args.id_col].to_numpy(),
                           proposal=args.proposal, epsilon=args.epsilon, design=args.design)
    design.to_csv(args.out, index=False)
    draws = (int((design["certain"] == 0).sum()) if "certain" in design.columns
             else int(design["n_draws"].sum()))
    facts = {"items to label": len(design), "draws": draws,
             "pool size": len(pool), "measure": args.measure, "proposal": args.proposal,
             "epsilon": args.epsilon, "seed": seed, "design file": str(args.out)}
    print(_render_facts(facts, args.format))
    print(f"Add a 'label' column to {args.out} (change nothing else), then run `evalstats "
          f"estimate --design {args.out}`.")
    return 0


def _render_facts(facts: dict, fmt: str) -> str:
    """A two-column table of ``facts`` in ``--format`` (text, markdown, html or latex)."""
    items = [(k, str(v)) for k, v in facts.items()]
    if fmt == "markdown":
        return "\n".join(["| | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in items])
    if fmt == "html":
        import html

        rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                       for k, v in items)
        return f"<table>{rows}</table>"
    if fmt == "latex":
        def esc(t: str) -> str:
            return "".join("\\" + c if c in "&%$#_{}" else c for c in t)
        body = "\n".join(f"{esc(k)} & {esc(v)} \\\\" for k, v in items)
        return f"\\begin{{tabular}}{{ll}}\n{body}\n\\end{{tabular}}"
    width = max(len(k) for k, _ in items)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in items)


# -- estimate ------------------------------------------------------------------------------------

def _read_labels(args: argparse.Namespace, design: pd.DataFrame, dname: str,
                 ) -> tuple[pd.DataFrame, str]:
    from pathlib import Path

    from .._io import check_columns, read_table

    if args.labels is None:
        check_columns(design, [args.label_col], dname, "design")
        return pd.DataFrame({"id": design["id"], "label": design[args.label_col]}), dname
    names = [args.id_col, args.label_col] if args.no_header else None
    lab = read_table(args.labels, required=[args.id_col, args.label_col],
                     header=not args.no_header, names=names, what="labels file")
    return (pd.DataFrame({"id": lab[args.id_col], "label": lab[args.label_col]}),
            Path(args.labels).name)


def run_estimate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..active import estimate_from_labels, read_design

    design = read_design(args.design)
    dname = Path(args.design).name
    labels, lname = _read_labels(args, design, dname)
    design.attrs["source"], labels.attrs["source"] = dname, lname
    # every refusal names the files: the design's checks and the labels' rows first
    res = estimate_from_labels(design, labels, confidence_level=args.confidence_level,
                               require_seal=True, label_column=args.label_col)
    emit(res, args, title="Active estimate")
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
