"""What every subcommand shares: ``--format``, ``--out``, ``--seed``, and old flag aliases.

* :func:`add_output_args` adds ``--format {text,markdown,html,latex}`` (what is printed),
  ``--out PATH`` (also write a report: ``.html`` with plots, ``.md``, ``.tex`` or ``.txt``)
  and, unless ``seed=False``, ``--seed INT``. The default seed is ``None``: a fresh seed is
  drawn, used and printed, so every run can be repeated (:func:`resolve_seed`).
* :func:`emit` prints the results in ``--format`` and writes ``--out``.
* :func:`add_alias` keeps an old flag working, hidden from ``--help``, with a
  one-line note on stderr naming the new spelling (flags are spelled like the API's arguments).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

FORMATS = ("text", "markdown", "html", "latex")

__all__ = ["FORMATS", "add_output_args", "add_alias", "resolve_seed", "emit", "check_outputs"]

#: what ``--out`` may be: a report, or (``sample``) the design table
REPORT_SUFFIXES = (".html", ".htm", ".md", ".tex", ".txt")
TABLE_SUFFIXES = (".csv", ".csv.gz")
#: image formats matplotlib writes, for ``--plot``
PLOT_SUFFIXES = (".png", ".pdf", ".svg", ".jpg", ".jpeg", ".eps", ".ps", ".tif", ".tiff",
                 ".webp")


def _check_path(flag: str, value: str | None, suffixes: tuple[str, ...], what: str) -> None:
    from pathlib import Path

    from .._validation import fail

    if value is None:
        return
    path = Path(value)
    if not str(path).lower().endswith(suffixes):
        raise fail(flag, f"{what} ending in {', '.join(suffixes)}", value=value)
    if not path.parent.is_dir():
        raise fail(flag, "a path in an existing folder", got=f"{value!r} (no folder "
                   f"{str(path.parent)!r})")


def check_outputs(args: argparse.Namespace) -> None:
    """Check ``--out`` and ``--plot`` before any work: their suffix (any case) and folder;
    ``sample --out`` must be a CSV other than its ``--pool``."""
    from pathlib import Path

    from .._validation import fail

    if getattr(args, "command", None) == "sample":
        _check_path("--out", getattr(args, "out", None), TABLE_SUFFIXES, "a CSV file")
        pool = getattr(args, "pool", None)
        if pool and args.out and Path(args.out).resolve() == Path(pool).resolve():
            raise fail("--out", "a file other than --pool (it would be overwritten)",
                       value=args.out)
    else:
        outs = getattr(args, "out", None)
        for out in outs if isinstance(outs, list) else [outs]:
            _check_path("--out", out, REPORT_SUFFIXES, "a report file")
    _check_path("--plot", getattr(args, "plot", None), PLOT_SUFFIXES, "an image file")


def add_output_args(p: argparse.ArgumentParser, *, seed: bool = True,
                    out_help: str = "also write a report (.html with plots, .md, .tex, .txt)",
                    several: bool = False) -> None:
    """Add the shared ``--format``, ``--out`` and (optionally) ``--seed`` flags;
    ``several=True`` lets ``--out`` take several paths (a list, ``None`` when absent)."""
    p.add_argument("--format", default="text", choices=FORMATS,
                   help="format of what is printed (default text)")
    if several:
        p.add_argument("--out", metavar="PATH", default=None, nargs="+", action="extend",
                       help=out_help)
    else:
        p.add_argument("--out", metavar="PATH", default=None, help=out_help)
    if seed:
        p.add_argument("--seed", type=int, default=None,
                       help="random seed (default: a fresh one, printed so the run can be "
                            "repeated)")


class _AliasAction(argparse.Action):
    def __init__(self, option_strings, dest, new_flag: str = "", **kwargs):
        self.new_flag = new_flag
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        # one line on stderr, shown whatever the warning filters say
        print(f"evalstats: note: {option_string} is deprecated; use {self.new_flag}",
              file=sys.stderr)
        setattr(namespace, self.dest, True if self.nargs == 0 else values)


def add_alias(p: argparse.ArgumentParser, old: str, new: str, dest: str, *,
              type: Any = None, flag: bool = False) -> None:
    """Accept the old flag ``old`` for ``dest`` (hidden; warns to use ``new``)."""
    kwargs: dict[str, Any] = {"nargs": 0} if flag else {"type": type}
    p.add_argument(old, dest=dest, action=_AliasAction, new_flag=new, help=argparse.SUPPRESS,
                   default=argparse.SUPPRESS, **kwargs)


def resolve_seed(args: argparse.Namespace) -> int:
    """``args.seed``, or a fresh seed (stored back in ``args.seed`` and printed to stderr)."""
    if getattr(args, "seed", None) is None:
        import numpy as np

        args.seed = int(np.random.SeedSequence().entropy % (2**32))
        print(f"evalstats: using --seed {args.seed}", file=sys.stderr)
    if int(args.seed) < 0:
        raise ValueError(f"`--seed` must be an integer >= 0; got {args.seed}.")
    return int(args.seed)


def emit(results: Sequence[Any] | Any, args: argparse.Namespace, *,
         title: str = "evalstats report") -> None:
    """Print each result's summary in ``args.format``; write ``args.out`` if given."""
    items = list(results) if isinstance(results, list | tuple) else [results]
    print("\n\n".join(r.summary().render(args.format) for r in items))
    if getattr(args, "out", None):
        import matplotlib

        matplotlib.use("Agg")
        from .. import report

        report(items, title=title, path=args.out)
        print(f"\nReport written to {args.out}")
