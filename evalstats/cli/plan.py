"""``evalstats plan``: how many labels of each class to evaluate future rules on a pool."""

from __future__ import annotations

import numpy as np

ORDER = 10


def register(sub) -> None:
    p = sub.add_parser(
        "plan", help="plan a labeling budget (Valizadegan et al. 2012)",
        description="How many positives and negatives to label from a pool so that the "
                    "precision, sensitivity and specificity of rules with a given positive "
                    "rate are known to within +/- HALF_WIDTH (a half-width).")
    p.add_argument("--pool-size", type=int, required=True, help="|S|, examples in the pool")
    p.add_argument("--prevalence", type=float, required=True,
                   help="positive rate of the pool, in (0, 1)")
    p.add_argument("--rule-rate", type=float, required=True,
                   help="positive rate of the rules to evaluate, in (0, 1)")
    p.add_argument("--half-width", type=float, required=True,
                   help="target half-width of each measure (not the full width)")
    p.add_argument("--confidence-level", type=float, default=0.95)
    p.add_argument("--measures", default="precision,sensitivity,specificity",
                   help="comma-separated subset of precision,sensitivity,specificity")
    p.add_argument("--n-rules", type=int, default=1, help="rules evaluated at once (union bound)")
    p.add_argument("--bound", default="exact", choices=("exact", "bernstein", "bernstein_paper"))
    p.add_argument("--variance", default="hypergeometric",
                   choices=("hypergeometric", "paper", "oracle_binomial"))
    p.add_argument("--strategy", default="positives", choices=("positives", "random"))
    p.add_argument("--prevalence-unknown", action="store_true",
                   help="add the random sample needed to estimate the prevalence (Prop 4.1)")
    p.add_argument("--budget", type=int, default=None, help="maximum number of labels")
    p.add_argument("--format", default="text", choices=("text", "markdown", "html", "latex"))
    p.add_argument("--out", metavar="PATH", default=None,
                   help="also write the plan (.html with its plot, .md, .txt)")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..budget import plan_labels

    measures = tuple(m.strip() for m in args.measures.split(",") if m.strip())
    plan = plan_labels(args.pool_size, args.prevalence, args.rule_rate,
                       half_width=args.half_width, confidence_level=args.confidence_level,
                       measures=measures, n_rules=args.n_rules, bound=args.bound,
                       variance=args.variance, strategy=args.strategy,
                       prevalence_known=not args.prevalence_unknown, budget=args.budget)
    print(plan.summary().render(args.format))
    if args.out:
        import matplotlib

        matplotlib.use("Agg")
        from .. import report

        report([plan], title="Labeling plan", path=args.out)
        print(f"\nPlan written to {args.out}")
    return 0 if plan.feasible else 1


def demo_results(fast: bool, seed: int = 2026) -> list:
    """A plan for the bundled ``sim_pool`` and a stratified evaluation of three rules."""
    from .. import datasets
    from ..budget import LabelDesign, evaluate_rules, plan_labels

    pool = datasets.load("sim_pool")
    y = pool["label"].to_numpy()
    plan = plan_labels(len(y), float(y.mean()), 0.05, half_width=0.01,
                       measures=("precision", "sensitivity", "specificity"),
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
