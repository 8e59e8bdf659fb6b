"""``evalstats sample`` and ``evalstats estimate``: active estimation through files.

    evalstats sample --pool pool.csv --score-col prob --pred-col pred --measure f1 \\
        --n-labels 300 --seed 1 --out to_label.csv
    # ... fill in the labels (a 'label' column, or a separate id,label file) ...
    evalstats estimate --design to_label.csv --labels labeled.csv

The design file carries its own integrity check (columns ``design_row``, ``row_check``,
``design_check``, ``sealed_columns``, ``evalstats_version``): ``estimate`` refuses a design
whose rows were deleted, copied or edited, naming the file, row and column. Add columns
(``label``) freely; change nothing else. Write ``skip`` as the label of an item nobody can
label: the estimate counts it and says what that does to it, instead of leaving out
every label drawn after it.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from ._common import add_alias, add_output_args, emit, resolve_seed

ORDER = 30
MEASURE_CHOICES = ("f1", "precision", "recall", "fbeta", "accuracy", "error")
INTERVAL_CHOICES = ("score", "anytime", "wald", "score_realised", "score_model", "score_max")


def register(sub) -> None:
    p = sub.add_parser(
        "sample", help="choose the pool items to label for active estimation",
        description="Draw a labeling design sized by the variance-optimal proposal (Sawade "
                    "et al. 2010) and write the items to label as CSV with what the "
                    "estimator needs and an integrity check: for the default pps design "
                    "id, batch, certain, q (draw probability), the model's values and "
                    "sums; with replacement id, n_draws, draw_seq, q and weight.")
    p.add_argument("--pool", required=True, help="CSV of the unlabeled pool (with a header)")
    p.add_argument("--score-col", required=True, help="column with p(y=1|x)")
    p.add_argument("--pred-col", default=None,
                   help="column(s) with predicted labels, comma-separated (default: "
                        "score > 0.5)")
    p.add_argument("--id-col", default=None,
                   help="identifier column, read as text and written back exactly as given "
                        "(default: row number)")
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
    p.add_argument("--label-col", default="label",
                   help="column that will hold the labels (default 'label'): an existing "
                        "--out file with labels in it is never overwritten without --force")
    p.add_argument("--force", action="store_true",
                   help="replace an existing --out file even if it holds labels, added "
                        "columns or a labeling session (never the pool itself)")
    add_output_args(p, out_help="CSV file to write the design to (required; an existing "
                                "design is replaced only if nothing was added to it)")
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
    e.add_argument("--label-col", default="label",
                   help="label column (default 'label'); 'skip' marks an item nobody can "
                        "label")
    e.add_argument("--id-col", default="id", help="id column of --labels (default 'id')")
    e.add_argument("--no-header", action="store_true",
                   help="--labels has no header row: its columns are id, label in that order")
    e.add_argument("--confidence-level", type=float, default=0.95)
    e.add_argument("--interval", default="score", choices=INTERVAL_CHOICES,
                   help="pps designs: 'score' (default), 'anytime' (the anytime-valid "
                        "confidence sequence), 'wald', or the score interval with one "
                        "variance ('score_realised', 'score_model'); with replacement "
                        "'score' only")
    e.add_argument("--allow-identical-labels", action="store_true",
                   help="accept labels equal to a prediction column on every row although "
                        "the model's own scores make that implausible (p < 0.001)")
    add_output_args(e, seed=False)
    e.set_defaults(func=run_estimate)


# -- sample ----------------------------------------------------------------------------------

def _columns(spec: str | None) -> list[str]:
    return [] if spec is None else [c.strip() for c in spec.split(",")]


def _check_sample_args(args: argparse.Namespace) -> None:
    """Flags that name one column in two roles, and a missing ``--out``/``--n-labels``."""
    from .._validation import fail

    if args.out is None:
        raise ValueError("`--out` must be given: the CSV file to write the design to.")
    if args.n_labels is None or args.n_labels < 1:
        raise ValueError("`--n-labels` must be an integer >= 1 (the number of distinct labels "
                         f"to buy); got {args.n_labels}.")
    model = [args.score_col, *_columns(args.pred_col)]
    if args.score_col in _columns(args.pred_col):
        raise fail("--pred-col", "columns of predicted labels other than --score-col",
                   value=args.pred_col)
    if args.id_col is not None and args.id_col in model:
        raise fail("--id-col", "a column other than --score-col and --pred-col",
                   value=args.id_col)
    if args.label_col in [*model, args.id_col]:
        raise fail("--label-col", "a column other than --score-col, --pred-col and --id-col",
                   value=args.label_col)


def _read_pool(args: argparse.Namespace) -> tuple[pd.DataFrame, list[str], str]:
    from pathlib import Path

    from .._io import cell_error, check_ids, read_table

    preds = _columns(args.pred_col)
    ids = [args.id_col] if args.id_col else []
    pool = read_table(args.pool, required=[args.score_col, *preds, *ids], what="pool",
                      text_columns=ids)
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
    if args.id_col:
        check_ids(pool, args.id_col, fname)
    return pool, preds, fname


def run_sample(args: argparse.Namespace) -> int:
    from .._io import check_overwrite, write_csv
    from ..active import active_design, design_columns

    _check_sample_args(args)
    check_overwrite(args.out, force=args.force, protect={"--pool": args.pool},
                    label_columns=sorted({"label", args.label_col}),
                    own_columns=design_columns, writer="`evalstats sample`")
    pool, preds, _ = _read_pool(args)
    seed = resolve_seed(args)
    design = active_design(pool[args.score_col].to_numpy(), args.n_labels, args.measure,
                           rng=seed, predictions=pool[preds] if preds else None,
                           beta=args.beta, alpha=args.alpha,
                           ids=None if args.id_col is None else
                           pool[args.id_col].to_numpy(dtype=object),
                           proposal=args.proposal, epsilon=args.epsilon, design=args.design)
    if args.label_col in design.columns:
        from .._validation import fail

        raise fail("--label-col", "a column the design does not have already",
                   got=f"{args.label_col!r}, {_column_role(args.label_col, set(design.columns))}")
    write_csv(design, args.out)
    draws = (int((design["certain"] == 0).sum()) if "certain" in design.columns
             else int(design["n_draws"].sum()))
    facts = {"items to label": len(design), "draws": draws,
             "pool size": len(pool), "measure": args.measure, "proposal": args.proposal,
             "epsilon": args.epsilon, "seed": seed, "design file": str(args.out)}
    print(_render_facts(facts, args.format))
    print(f"Add a {args.label_col!r} column to {args.out} (change nothing else), then run "
          f"`evalstats estimate --design {args.out}"
          + ("`." if args.label_col == "label" else f" --label-col {args.label_col}`."))
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

#: the level of the test that refuses labels equal to a model's predictions on every row:
#: honest labels drawn from calibrated scores are refused at most this often
IDENTICAL_LABELS_LEVEL = 1e-3


def _column_role(column: str, own: set[str] | None) -> str | None:
    """What a design column holds, when it is one evalstats wrote (``None``: added; with
    ``own=None``, a design without a seal, the column's name decides)."""
    if own is not None and column not in own:
        return None
    if column == "id":
        return "the design's id column"
    if column == "pred" or column.startswith("pred_"):
        return "a prediction column of the model: it would be scored against itself"
    if column in ("score", "model_prob") or column.startswith("score_"):
        return "the model's score column"
    return "a column `evalstats sample` wrote" if own is not None else None


def _check_label_col(args: argparse.Namespace, design: pd.DataFrame) -> None:
    """The label column holds labels somebody gave: not the id, score or prediction column
    of the design, nor the id column of ``--labels``."""
    from .._io import same_file
    from .._validation import fail
    from ..active import design_columns

    if args.labels is not None:
        if args.label_col == args.id_col:
            raise fail("--label-col", "a column other than --id-col", value=args.label_col)
        if not same_file(args.labels, args.design):
            return
    role = _column_role(args.label_col, design_columns(design.head(1)))
    if role is not None:
        raise fail("--label-col", "the column of true labels added to the design",
                   got=f"{args.label_col!r}, {role}",
                   remedy="Add a column with the labels (e.g. 'label') and name it.")


def _read_labels(args: argparse.Namespace, design: pd.DataFrame, dname: str,
                 ) -> tuple[pd.DataFrame, str]:
    from pathlib import Path

    from .._io import check_columns, check_ids, read_table

    if args.labels is None:
        check_columns(design, [args.label_col], dname, "design")
        return pd.DataFrame({"id": design["id"], "label": design[args.label_col]}), dname
    names = [args.id_col, args.label_col] if args.no_header else None
    lab = read_table(args.labels, required=[args.id_col, args.label_col],
                     header=not args.no_header, names=names, what="labels file",
                     text_columns=[args.id_col])
    lname = Path(args.labels).name
    check_ids(lab, args.id_col, lname)
    return pd.DataFrame({"id": lab[args.id_col], "label": lab[args.label_col]}), lname


def _agreement_law(design: pd.DataFrame, pred: np.ndarray) -> np.ndarray | None:
    """P(label = pred) on each row under the model's own scores (``None``: no scores)."""
    k_cols = sorted((c for c in design.columns if c.startswith("score_")
                     and c[6:].isdigit()), key=lambda c: int(c[6:]))
    if len(k_cols) > 2:
        probs = design[k_cols].apply(pd.to_numeric, errors="coerce").to_numpy(float)
        ok = np.isin(pred, np.arange(len(k_cols)))
        return None if not ok.all() else probs[np.arange(len(pred)), pred.astype(int)]
    if "score" not in design.columns or not np.isin(pred, (0, 1)).all():
        return None
    s = pd.to_numeric(design["score"], errors="coerce").to_numpy(float)
    return np.where(pred == 1, s, 1 - s)


def _check_not_self_scored(design: pd.DataFrame, y: np.ndarray, args: argparse.Namespace,
                           lname: str) -> None:
    """Refuse labels equal to a prediction column on every labeled row when the model's own
    scores give that less than :data:`IDENTICAL_LABELS_LEVEL`: under calibrated scores,
    independent labels agree everywhere with probability ``prod P(label_i = pred_i)``, so
    this refuses honest labels at most that often (a level-0.001 test) and catches a copy
    of the predictions (the model scored against itself) whenever the scores doubt it."""
    from .._validation import fail

    known = np.isfinite(y)
    if args.allow_identical_labels or not known.any():
        return
    for c in [c for c in design.columns if c == "pred" or c.startswith("pred_")]:
        pred = pd.to_numeric(design[c], errors="coerce").to_numpy(float)[known]
        if not np.array_equal(pred, y[known]):
            continue
        law = _agreement_law(design.loc[known], pred)
        if law is None or not np.all(np.isfinite(law)):
            continue
        with np.errstate(divide="ignore"):
            log_p = float(np.sum(np.log(np.clip(law, 0.0, 1.0))))
        if log_p < np.log(IDENTICAL_LABELS_LEVEL):
            p = f"{np.exp(log_p):.2g}" if log_p > -690 else "below 1e-300"
            raise fail("--label-col", "a column of true labels, not a copy of the predictions",
                       got=f"column {args.label_col!r} of {lname}, equal to the predictions "
                           f"{c!r} on all {int(known.sum())} labeled rows (probability {p} "
                           "under the model's own scores)",
                       remedy="Give the true labels; if they really agree with every "
                              "prediction, pass --allow-identical-labels.")


def run_estimate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..active import check_labels, estimate_from_labels, read_design

    design = read_design(args.design)
    dname = Path(args.design).name
    _check_label_col(args, design)
    labels, lname = _read_labels(args, design, dname)
    design.attrs["source"], labels.attrs["source"] = dname, lname
    # every refusal names the files: the design's checks and the labels' rows first
    checked = check_labels(design, labels, require_seal=True, label_column=args.label_col)
    _check_not_self_scored(checked, checked["label"].to_numpy(float), args, lname)
    res = estimate_from_labels(design, labels, confidence_level=args.confidence_level,
                               interval=args.interval, require_seal=True,
                               label_column=args.label_col)
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
