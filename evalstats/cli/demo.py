"""``evalstats demo``: a short end-to-end analysis on bundled data, printed as a report.

The analysis runs once; ``--out`` may name several files (``--out r.html r.tex r.md``),
each written from the same results.
"""

from __future__ import annotations

import os

import numpy as np

from ._common import add_output_args, resolve_seed

ORDER = 0


def register(sub) -> None:
    p = sub.add_parser("demo", help="run a short end-to-end analysis on bundled data",
                       description="Run every capability's demonstration on data shipped "
                                   "with evalstats and print one report.")
    add_output_args(p, seed=False, several=True,
                    out_help="also write the report as documents, one per path, from one "
                             "computation (.html with plots, .tex and .md with plot files "
                             "in <stem>_files/, or .txt)")
    p.add_argument("--fast", action="store_true",
                   help="smaller problem sizes (also set by EVALSTATS_VIGNETTE_FAST=1)")
    p.add_argument("--seed", type=int, default=2026, help="random seed (default 2026)")
    p.set_defaults(func=run)


def demo_results(fast: bool, seed: int = 2026) -> list:
    """Fixed-test-set analysis of the source talk on the bundled digits pool."""
    from .. import datasets
    from ..holdout import error_ci, loss_ci

    pool = datasets.load("digits_pool")
    y = pool["label"].to_numpy()
    probs = pool[[f"prob_{j}" for j in range(10)]].to_numpy()
    log_loss = -np.log(np.clip(probs[np.arange(len(y)), y], 1e-15, 1.0))
    return [error_ci(y, pool["pred"].to_numpy(), method="exact"), loss_ci(log_loss)]


def _section(mod, fast: bool, seed: int) -> list:
    """One capability's demo results; a missing optional dependency skips it with a note."""
    from .. import Report

    try:
        return list(mod.demo_results(fast=fast, seed=seed))
    except ImportError as err:
        name = mod.__name__.rsplit(".", 1)[-1]
        return [Report(title=f"evalstats {name}: section skipped",
                       notes=(f"Optional dependency missing ({err.name or err}); install it "
                              "with: pip install 'evalstats[ml]'",))]


def run(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from .. import report
    from . import command_modules

    resolve_seed(args)
    fast = args.fast or os.environ.get("EVALSTATS_VIGNETTE_FAST") == "1"
    results: list = []
    for mod in command_modules():
        if hasattr(mod, "demo_results"):
            results.extend(_section(mod, fast, args.seed))
    doc = report(results, title="evalstats demo", plots=args.out is not None,
                 meta={"Seeds": str(args.seed), "Problem sizes": "fast" if fast else "full"})
    print(doc.render(args.format))
    for out in args.out or []:
        print(f"\nReport written to {doc.save(out)}")
    return 0
