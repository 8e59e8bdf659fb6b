"""Progress bars for long loops (tqdm when installed, a silent no-op otherwise).

``progress=True`` forces a bar, ``False`` suppresses it and ``None`` (default)
shows one only when tqdm is installed, the loop is long (more than
``LONG_LOOP`` tasks) and someone can watch it: standard error is a terminal or the code
runs in a Jupyter kernel (a bar redrawn into a log file or a pipe is only noise). With
``None`` no ``disable=`` keyword is passed, so the
``TQDM_DISABLE=1`` environment variable (set by the test suite) still wins.

One bar across batches
----------------------
A computation that runs in batches (a stopping rule that adds draws until a tolerance
is met) opens *one* bar around the whole loop; every :func:`progress_bar` opened inside
it — in particular each :func:`evalstats._parallel.map_replicates` batch — reuses that
outer bar and extends its total when the work grows, instead of starting a new bar::

    with progress_bar(n_tasks, progress=progress, desc="cv draws") as bar:
        while not done:
            rows += map_replicates(task, n_batch, rng=rng)   # counts on `bar`
            ...
            if more_needed:
                bar.note(f"stopping rule: doubling to {2 * n} draws")

The bar's ``total`` therefore always shows the real number of tasks run.

A bar that never runs backwards
-------------------------------
When the run may grow but its largest size is known (a stopping rule with a cap on the
draws), pass it as ``max_total``: the bar counts towards that cap from the start, its
percentage only rises, and a run that stops early jumps to 100 % when the bar closes::

    with progress_bar(n_draws, progress=progress, desc="cv draws",
                      max_total=max_draws) as bar:
        ...
"""

from __future__ import annotations

import importlib.util
import sys
from contextlib import contextmanager
from contextvars import ContextVar

LONG_LOOP = 200

__all__ = ["progress_bar", "tqdm_available", "LONG_LOOP"]


class _NoBar:
    """Counts like a bar and shows nothing."""

    def __init__(self, total: int = 0):
        self.n = 0
        self.total = int(total)

    def update(self, n: int = 1) -> None:
        self.n += n

    def refresh(self) -> None:
        pass

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass


class _Bar:
    """A bar whose total can grow: ``update(n)``, ``extend(n)``, ``reserve(n)``, ``note()``."""

    def __init__(self, inner, total: int, auto: bool = False, desc: str | None = None,
                 max_total: int | None = None):
        self._inner = inner
        self.total = int(total)
        self.n = 0
        self._auto = auto  # progress=None: start showing once the run becomes long
        self._desc = desc
        self._cap = None if max_total is None else int(max_total)

    def _shown_total(self) -> int:
        return max(self._cap, self.total) if self._cap is not None else self.total

    def extend(self, n: int) -> None:
        """Add ``n`` tasks to the total (a stopping rule extended the run)."""
        if n <= 0:
            return
        self.total += int(n)
        if self._auto and isinstance(self._inner, _NoBar) and self.total > LONG_LOOP:
            self._inner = _tqdm(self._shown_total(), self._desc, None, initial=self.n)
        self._inner.total = self._shown_total()
        self._inner.refresh()

    def reserve(self, n: int) -> None:
        """Make room for ``n`` more tasks (extends the total only if needed)."""
        self.extend(self.n + int(n) - self.total)

    def update(self, n: int = 1) -> None:
        if self.n + n > self.total:
            self.extend(self.n + n - self.total)
        self.n += n
        self._inner.update(n)

    def note(self, text: str) -> None:
        """Show ``text`` beside the bar (e.g. why the run was extended)."""
        self._inner.set_postfix_str(text)

    def close(self) -> None:
        """Close the bar; a capped bar that stopped early is completed first."""
        if self._cap is not None and self._inner.n < self._inner.total:
            self._inner.update(self._inner.total - self._inner.n)
        self._inner.close()


def _tqdm(total: int, desc: str | None, progress: bool | None, initial: int = 0):
    from tqdm.auto import tqdm

    kwargs = dict(total=total, desc=desc, leave=False, mininterval=0.5, initial=initial)
    if progress is True:
        kwargs["disable"] = False
    return tqdm(**kwargs)


_ACTIVE: ContextVar[_Bar | None] = ContextVar("evalstats_progress_bar", default=None)


def tqdm_available() -> bool:
    return importlib.util.find_spec("tqdm") is not None


def _watched() -> bool:
    """Whether a bar can be seen: standard error is a terminal, or a Jupyter kernel runs."""
    try:
        if sys.stderr is not None and sys.stderr.isatty():
            return True
    except (AttributeError, ValueError):       # a replaced or closed stream
        pass
    return "ipykernel" in sys.modules


@contextmanager
def progress_bar(total: int, *, progress: bool | None = None, desc: str | None = None,
                 max_total: int | None = None):
    """Context manager yielding a bar with ``update(n)``, ``extend(n)`` and ``note(text)``.

    Parameters
    ----------
    total : int
        Number of tasks (may grow later through ``extend``).
    progress : bool or None
        ``True`` forces a bar, ``False`` hides it, ``None`` decides from the
        loop length and tqdm's presence. Ignored inside an enclosing bar.
    desc : str, optional
        Label shown left of the bar.
    max_total : int, optional
        The largest number of tasks the run may grow to: the bar counts towards it from
        the start (its percentage never falls) and is completed when it closes.

    Notes
    -----
    Inside an enclosing ``progress_bar`` no new bar is started: the enclosing one is
    yielded, with room reserved for ``total`` more tasks.
    """
    outer = _ACTIVE.get()
    if outer is not None:
        outer.reserve(total)
        yield outer
        return
    shown = max(total, max_total or 0)
    show = progress if progress is not None else (shown > LONG_LOOP)
    available = tqdm_available() and (progress is not None or _watched())
    inner = _tqdm(shown, desc, progress) if show and available else _NoBar(shown)
    bar = _Bar(inner, total, auto=progress is None and available, desc=desc,
               max_total=max_total)
    token = _ACTIVE.set(bar)
    try:
        yield bar
    finally:
        _ACTIVE.reset(token)
        bar.close()
