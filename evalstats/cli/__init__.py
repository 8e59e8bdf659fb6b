"""The ``evalstats`` command line (also ``python -m evalstats``).

Each subcommand lives in its own module of this package and defines
``register(subparsers)``; modules are discovered automatically, so a capability
adds its subcommand without touching this file. A module may also define
``demo_results(fast: bool) -> list`` to contribute sections to ``evalstats demo``.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

__all__ = ["main", "build_parser", "command_modules"]


def command_modules() -> list:
    """The subcommand modules, sorted by their ``ORDER`` (then name)."""
    mods = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        mods.append(importlib.import_module(f"{__name__}.{info.name}"))
    return sorted(mods, key=lambda m: (getattr(m, "ORDER", 50), m.__name__))


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="evalstats",
        description="Statistical evaluation of classifiers: labeling budgets, active "
                    "estimation, CV confidence intervals, accuracy extrapolation.")
    parser.add_argument("--version", action="version", version=f"evalstats {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for mod in command_modules():
        if hasattr(mod, "register"):
            mod.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``evalstats`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except (ValueError, TypeError, FileNotFoundError) as err:
        print(f"evalstats {args.command}: error: {err}", file=sys.stderr)
        return 2
