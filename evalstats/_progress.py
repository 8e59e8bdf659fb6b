"""Progress bars for long loops (tqdm when installed, a silent no-op otherwise).

``progress=True`` forces a bar, ``False`` suppresses it and ``None`` (default)
shows one only when tqdm is installed and the loop is long (more than
``LONG_LOOP`` tasks). With ``None`` no ``disable=`` keyword is passed, so the
``TQDM_DISABLE=1`` environment variable (set by the test suite) still wins.
"""

from __future__ import annotations

import importlib.util
from contextlib import contextmanager

LONG_LOOP = 200


class _NoBar:
    def update(self, n: int = 1) -> None:  # noqa: D102 - trivial
        pass

    def close(self) -> None:
        pass


def tqdm_available() -> bool:
    return importlib.util.find_spec("tqdm") is not None


@contextmanager
def progress_bar(total: int, *, progress: bool | None = None, desc: str | None = None):
    """Context manager yielding an object with ``update(n)``.

    Parameters
    ----------
    total : int
        Number of tasks.
    progress : bool or None
        ``True`` forces a bar, ``False`` hides it, ``None`` decides from the
        loop length and tqdm's presence.
    desc : str, optional
        Label shown left of the bar.
    """
    show = progress if progress is not None else (total > LONG_LOOP)
    if not show or not tqdm_available():
        yield _NoBar()
        return
    from tqdm.auto import tqdm

    kwargs = dict(total=total, desc=desc, leave=False, mininterval=0.5)
    if progress is True:
        kwargs["disable"] = False
    bar = tqdm(**kwargs)
    try:
        yield bar
    finally:
        bar.close()
