"""Progress bars of long computations: a capped bar never runs backwards."""

from __future__ import annotations

import pytest

from evalstats._progress import progress_bar


class _Recorder:
    """Stands in for tqdm: records every total and position it shows."""

    def __init__(self, total, desc=None, progress=None, initial=0):
        self.total, self.n, self.shown = total, initial, []

    def update(self, n=1):
        self.n += n
        self.shown.append(self.n / self.total)

    def refresh(self):
        self.shown.append(self.n / self.total)

    def set_postfix_str(self, s="", refresh=True):
        pass

    def close(self):
        self.closed = True


@pytest.fixture
def recorder(monkeypatch):
    import evalstats._progress as prog

    bars = []

    def make(total, desc, progress, initial=0):
        bars.append(_Recorder(total, desc, progress, initial))
        return bars[-1]

    monkeypatch.setattr(prog, "_tqdm", make)
    monkeypatch.setattr(prog, "tqdm_available", lambda: True)
    return bars


def test_a_capped_bar_only_rises_and_completes(recorder):
    with progress_bar(100, progress=True, max_total=800) as bar:
        bar.update(100)
        bar.extend(100)          # the stopping rule doubles the run: 200 of at most 800
        bar.update(100)
    inner = recorder[0]
    assert inner.total == 800
    assert inner.shown == sorted(inner.shown) and inner.shown[-1] == 1.0


def test_without_a_cap_the_total_grows_as_before(recorder):
    with progress_bar(100, progress=True) as bar:
        bar.update(100)
        bar.extend(100)
        bar.update(100)
    assert recorder[0].total == 200 and recorder[0].n == 200
