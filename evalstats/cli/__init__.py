"""The ``evalstats`` command line (also ``python -m evalstats``).

Each subcommand lives in its own module of this package and defines
``register(subparsers)``; modules are discovered automatically, so a capability
adds its subcommand without touching this file. A module may also define
``demo_results(fast: bool) -> list`` to contribute sections to ``evalstats demo``.

Exit codes and what reaches stderr (policy for every subcommand):

* ``0`` success.
* ``2`` bad input, reported as ONE line ``evalstats <command>: error: <message>``: a
  ``ValueError``/``TypeError`` raised by evalstats' own validation (raised in the
  evalstats package with the message template that names the argument in backticks,
  see :mod:`evalstats._validation`, or a cell as ``<file>, row R, column 'C'``),
  a file that cannot be opened
  (``OSError``), a CSV that cannot be parsed (pandas ``EmptyDataError``/``ParserError``,
  ``UnicodeDecodeError`` for a binary file,
  :class:`evalstats._io.TableError`) or a missing optional dependency (the
  ``pip install "evalstats[...]"`` hint). argparse's own usage errors also exit 2.
* ``1`` a solver failure (:class:`evalstats.ConvergenceError`), one line; for ``plan``
  also an infeasible plan (printed in full, with a warning), as its ``--help`` says.
* ``130`` Ctrl-C (SIGINT): one line ``evalstats <command>: interrupted``; nothing
  already written is removed (labeling sessions commit each label as it is recorded).
* ``141`` the reader of stdout went away (``evalstats ... | head``): no traceback.
* ``1`` anything else (e.g. a ``ValueError`` raised inside numpy or scikit-learn, an
  ``IndexError``): a bug in evalstats, reported as one line
  ``evalstats <command>: internal error (<type>): <message>`` that asks for ``--debug``.
* ``--debug`` (before or after the subcommand) or ``EVALSTATS_TRACEBACK=1``: every error,
  input errors included, is raised with its full traceback (Python exits 1).

Warnings (degenerate statistics, deprecated flags) are printed as one line each,
``evalstats <command>: warning (<Category>): <message>``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import re
import sys
from collections.abc import Sequence

EXIT_INPUT = 2
EXIT_SOLVER = 1
EXIT_BUG = 1
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141

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
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of any error (for bug reports)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for mod in command_modules():
        if hasattr(mod, "register"):
            mod.register(sub)
    for p in sub.choices.values():   # also after the subcommand; SUPPRESS keeps a prior value
        if "--debug" not in p._option_string_actions:
            p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                           help="show the full traceback of any error (for bug reports)")
    return parser


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _raised_by_evalstats(err: BaseException) -> bool:
    """True when the innermost traceback frame is in evalstats' own source."""
    tb = err.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    path = os.path.abspath(tb.tb_frame.f_code.co_filename)
    return path.startswith(_PACKAGE_DIR + os.sep)


def _input_error(err: BaseException) -> bool:
    """Is ``err`` a user-input problem (one line, exit 2) rather than a bug?"""
    from .._io import TableError

    if isinstance(err, TableError | OSError | UnicodeDecodeError):  # unreadable user files
        return True
    if isinstance(err, ModuleNotFoundError):  # from _io.require_extra: names the extra
        return "evalstats[" in str(err)
    try:
        import pandas as pd

        if isinstance(err, pd.errors.EmptyDataError | pd.errors.ParserError):
            return True
    except ImportError:  # pragma: no cover - pandas is a core dependency
        pass
    msg = str(err)
    names_input = "`" in msg or re.search(r"row \d+, column '", msg) is not None
    return isinstance(err, ValueError | TypeError) and names_input and _raised_by_evalstats(err)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


#: API argument names whose command-line option is spelled differently
_API_TO_OPTION = {"rng": "seed", "y": "target"}


def _cli_terms(message: str, args: argparse.Namespace | None) -> str:
    """``message`` with the API's argument names in backticks (``train_size``) replaced by
    the subcommand's options (``--train-size``) where the subcommand has that option: an
    error raised by the library names the argument a command-line user can change."""
    if args is None:
        return message
    dests = {k for k in vars(args) if k not in ("func", "command")}

    def option(match: re.Match) -> str:
        name = _API_TO_OPTION.get(match.group(1), match.group(1))
        return f"`--{name.replace('_', '-')}`" if name in dests else match.group(0)

    def setting(match: re.Match) -> str:         # loss='squared' -> --loss squared
        name = _API_TO_OPTION.get(match.group(1), match.group(1))
        return (f"--{name.replace('_', '-')} {match.group(2)}" if name in dests
                else match.group(0))

    message = re.sub(r"\b([a-z][a-z0-9_]*)='([^'\s]*)'", setting, message)
    return re.sub(r"`([A-Za-z_][A-Za-z0-9_]*)`", option, message)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``evalstats`` console script (exit codes: see the module doc)."""
    import warnings

    command = "evalstats"
    debug = bool(os.environ.get("EVALSTATS_TRACEBACK"))
    saved_format = warnings.formatwarning

    def one_line_warning(message, category, filename, lineno, line=None):
        return f"{command}: warning ({category.__name__}): {_one_line(message)}\n"

    warnings.formatwarning = one_line_warning
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 0
        command = f"evalstats {args.command}"
        debug = debug or bool(getattr(args, "debug", False))
        from ._common import check_outputs

        check_outputs(args)                 # before any work: a bad --out loses nothing
        rc = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows up here, inside the handlers below
        return rc
    except KeyboardInterrupt:
        _flush_quietly()
        print(f"{command}: interrupted (Ctrl-C); what was already saved is kept.",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except Exception as err:
        from .. import ConvergenceError

        if debug:
            raise
        if isinstance(err, ConvergenceError):
            print(f"{command}: solver failed: {_one_line(err)}", file=sys.stderr)
            return EXIT_SOLVER
        if not _input_error(err):
            _flush_quietly()
            print(f"{command}: internal error ({type(err).__name__}): {_one_line(err)}. This "
                  f"is a bug in evalstats: run the command again with --debug for the "
                  f"traceback, and report it.", file=sys.stderr)
            return EXIT_BUG
        message = _cli_terms(_one_line(err), locals().get("args"))
        print(f"{command}: error: {message}", file=sys.stderr)
        return EXIT_INPUT
    finally:
        warnings.formatwarning = saved_format


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (e.g. captured)
        pass


def _flush_quietly() -> None:
    """Flush stdout (a partial report line) before the one-line message on stderr."""
    try:
        sys.stdout.flush()
    except Exception:  # noqa: BLE001 - a closed pipe must not hide the message
        pass
