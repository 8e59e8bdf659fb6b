"""``evalstats plan``: how many labels of each class to evaluate future rules on a pool.

Flags are spelled like :func:`evalstats.budget.plan_labels`'s arguments; the old
``--pool-size``, ``--prevalence-unknown`` and ``--budget`` still work (hidden, with a
deprecation note).
"""

from __future__ import annotations

import argparse

import numpy as np

from ._common import add_alias, add_output_args, emit

ORDER = 10


def register(sub) -> None:
    p = sub.add_parser(
        "plan", help="plan a labeling budget (Valizadegan et al. 2012)",
        description="How many examples to label (search for positives included) so that "
                    "the precision, recall and specificity of rules with a given positive "
                    "rate are known to within +/- HALF_WIDTH (a half-width), all measures "
                    "at once. By default the guarantee holds for any rule of that size "
                    "(--rules any); --rules random gives the paper's random-rule analysis.",
        epilog="Exit status: 0 a feasible plan; 1 an infeasible one (the target cannot be "
               "met within --max-labels, or at all; the plan is still printed, with the "
               "labels the target needs); 2 bad input.")
    p.add_argument("--n-pool", type=float, default=None,
                   help="items in the pool (up to 1e12)")
    add_alias(p, "--pool-size", "--n-pool", dest="n_pool", type=float)
    p.add_argument("--prevalence", default=None,
                   help="positive rate of the pool, in (0, 1), or an interval LOW,HIGH "
                        "known to contain it")
    p.add_argument("--pilot", default=None, metavar="K,N",
                   help="K positives in a simple random pilot of N examples (instead of "
                        "--prevalence)")
    p.add_argument("--scores", default=None, metavar="FILE",
                   help="CSV without header, one pilot-model score per example of the pool "
                        "(positives are then searched in decreasing score)")
    p.add_argument("--rule-rate", type=float, required=True,
                   help="positive rate of the rules to evaluate, in (0, 1)")
    p.add_argument("--half-width", type=float, required=True,
                   help="target half-width of each measure (not the full width)")
    p.add_argument("--confidence-level", type=float, default=0.95)
    p.add_argument("--measures", default="precision,recall,specificity",
                   help="comma-separated subset of precision,recall,specificity")
    p.add_argument("--n-rules", type=int, default=1, help="rules evaluated at once (union bound)")
    p.add_argument("--per-measure", action="store_true",
                   help="guarantee each measure separately instead of all at once")
    p.add_argument("--expected", default=None, metavar="MEASURE=VALUE,...",
                   help="planning values, e.g. precision=0.8 (a planning plan beside the "
                        "worst case)")
    p.add_argument("--rules", default="any", choices=("any", "random"),
                   help="guarantee for any rule of this size (default) or random rules only")
    p.add_argument("--bound", default="exact", choices=("exact", "bernstein", "bernstein_paper"))
    p.add_argument("--variance", default=None,
                   choices=("hypergeometric", "paper", "oracle_binomial"))
    p.add_argument("--strategy", default="auto", choices=("auto", "positives", "random"),
                   help="labeled positives, random labels, or the cheaper (default)")
    p.add_argument("--prevalence-known", action=argparse.BooleanOptionalAction, default=True,
                   help="--no-prevalence-known adds the random sample that estimates the "
                        "prevalence (Prop 4.1)")
    p.add_argument("--prevalence-unknown", dest="prevalence_known", action="store_false",
                   help=argparse.SUPPRESS)
    p.add_argument("--max-labels", type=int, default=None, help="maximum number of labels")
    add_alias(p, "--budget", "--max-labels", dest="max_labels", type=int)
    add_output_args(p, seed=False, out_help="also write the plan (.html with its plot, .md, "
                                            ".tex, .txt)")
    p.set_defaults(func=run)


def run(args) -> int:
    import sys

    from ..budget import plan_labels

    if args.n_pool is None:
        print("evalstats plan: error: the following arguments are required: --n-pool",
              file=sys.stderr)
        return 2
    if "--prevalence-unknown" in sys.argv:
        print("evalstats: note: --prevalence-unknown is deprecated; use --no-prevalence-known",
              file=sys.stderr)
    measures = tuple(m.strip() for m in args.measures.split(",") if m.strip())
    plan = plan_labels(args.n_pool, _prevalence(args.prevalence), args.rule_rate,
                       half_width=args.half_width, confidence_level=args.confidence_level,
                       measures=measures, n_rules=args.n_rules, rules=args.rules,
                       bound=args.bound, variance=args.variance, strategy=args.strategy,
                       prevalence_known=args.prevalence_known, max_labels=args.max_labels,
                       pilot=_numbers(args.pilot, "--pilot", int),
                       scores=_scores(args.scores), joint=not args.per_measure,
                       expected=_expected(args.expected))
    emit([plan], args, title="Labeling plan")
    return 0 if plan.feasible else 1


def _numbers(text, flag, kind=float):
    """``"a,b"`` as a pair of numbers (None stays None)."""
    if text is None:
        return None
    parts = [t.strip() for t in str(text).split(",")]
    try:
        values = tuple(kind(t) for t in parts)
    except ValueError:
        raise ValueError(f"`{flag}` must be numbers separated by a comma; got {text!r}."
                         ) from None
    if len(values) != 2:
        raise ValueError(f"`{flag}` must be two numbers separated by a comma; got {text!r}.")
    return values


def _prevalence(text):
    if text is None:
        return None
    if "," in str(text):
        return _numbers(text, "--prevalence")
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"`--prevalence` must be a number or LOW,HIGH; got {text!r}."
                         ) from None


def _scores(path):
    if path is None:
        return None
    from .._io import read_table

    table = read_table(path, header=False, names=["score"], what="scores file")
    return table["score"].to_numpy(float)


def _expected(text):
    if text is None:
        return None
    out = {}
    for part in str(text).split(","):
        name, _, value = part.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise ValueError(f"`--expected` must be MEASURE=VALUE pairs separated by commas; "
                             f"got {text!r}.") from None
    return out


def demo_results(fast: bool, seed: int = 2026) -> list:
    """A plan for the bundled ``sim_pool`` and a stratified evaluation of three rules."""
    from .. import datasets
    from ..budget import LabelDesign, evaluate_rules, plan_labels

    pool = datasets.load("sim_pool")
    y = pool["label"].to_numpy()
    plan = plan_labels(len(y), float(y.mean()), 0.05, half_width=0.01,
                       measures=("precision", "recall", "specificity"),
                       bounds=("exact", "bernstein") if fast else
                       ("exact", "bernstein", "bernstein_paper"))
    rng = np.random.default_rng(seed)
    s = pool["pred"].to_numpy()
    sizes = {h: int((s == h).sum()) for h in (0, 1)}
    n_h = {0: 200 if fast else 600, 1: min(100 if fast else 300, sizes[1])}
    idx = np.concatenate([rng.choice(np.flatnonzero(s == h), n_h[h], replace=False)
                          for h in (0, 1)])
    prob = pool["prob"].to_numpy()[idx]
    rules = {f"prob>{t:g}": (prob > t).astype(int) for t in (0.2, 0.5, 0.8)}
    ev = evaluate_rules(y[idx], rules, LabelDesign.stratified(s[idx], sizes))
    return [plan, ev]
