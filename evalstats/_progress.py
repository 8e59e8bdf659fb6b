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

    def __init__(self, inner, total: int, auto: bool = False, desc: str | None = None):
        self._inner = inner
        self.total = int(total)
        self.n = 0
        self._auto = auto  # progress=None: start showing once the run becomes long
        self._desc = desc

    def extend(self, n: int) -> None:
        """Add ``n`` tasks to the total (a stopping rule extended the run)."""
        if n <= 0:
            return
        self.total += int(n)
        if self._auto and isinstance(self._inner, _NoBar) and self.total > LONG_LOOP:
            self._inner = _tqdm(self.total, self._desc, None, initial=self.n)
        self._inner.total = self.total
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
def progress_bar(total: int, *, progress: bool | None = None, desc: str | None = None):
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
    show = progress if progress is not None else (total > LONG_LOOP)
    available = tqdm_available() and (progress is not None or _watched())
    inner = _tqdm(total, desc, progress) if show and available else _NoBar(total)
    bar = _Bar(inner, total, auto=progress is None and available, desc=desc)
    token = _ACTIVE.set(bar)
    try:
        yield bar
    finally:
        _ACTIVE.reset(token)
        bar.close()
