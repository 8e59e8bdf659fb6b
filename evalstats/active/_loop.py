"""The labeling loop of :class:`~._evaluator.ActiveEvaluator`: ask an oracle batch by
batch until a number of labels — or, with the anytime-valid sequence, a half-width — is
reached, keeping every label bought when the oracle fails."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from .._progress import progress_bar
from .._validation import check_int, check_scalar, fail, plain_value

__all__ = ["LoopMixin", "oracle_answer"]


def oracle_answer(answer: Any, ids: np.ndarray) -> np.ndarray:
    """The oracle's labels for ``ids``, aligned by its index when it carries one.

    A Series (or a one-column DataFrame) whose index holds exactly the requested ids is
    read in the requested order; one whose index holds other ids is refused. Anything else
    must be one label per id, in order."""
    n = len(ids)
    if isinstance(answer, pd.DataFrame):
        if answer.shape[1] != 1:
            raise fail("oracle", "to return one label per id (a Series, an array or a "
                       "one-column DataFrame)", got=f"a DataFrame with columns "
                       f"{list(answer.columns)}", verb="must be a callable")
        answer = answer.iloc[:, 0]
    if isinstance(answer, pd.Series) and not isinstance(answer.index, pd.RangeIndex):
        index = pd.Index(answer.index)
        wanted = pd.Index(ids)
        if len(index) != n or not index.is_unique or not wanted.isin(index).all():
            extra = index.difference(wanted)
            missing = wanted.difference(index)
            what = (f"id {plain_value(missing[0])!r} missing" if len(missing) else
                    f"id {plain_value(extra[0])!r} not requested" if len(extra) else
                    "repeated ids")
            raise fail("oracle", "to return labels indexed by the requested ids (or a plain "
                       "array in their order)", got=f"a Series whose index disagrees "
                       f"({what})", verb="must be a callable")
        answer = answer.reindex(wanted)
    arr = np.asarray(answer.to_numpy() if isinstance(answer, pd.Series) else answer)
    if arr.shape != (n,):
        raise fail("oracle", f"to return one label per id ({n})", got=f"shape {arr.shape}",
                   verb="must be a callable")
    return arr


class LoopMixin:
    """``run``: the oracle loop (mixed into ActiveEvaluator)."""

    def run(self, oracle: Callable[[np.ndarray], Any], n_labels: int, *,
            half_width: float | None = None, batch_size: int | None = None,
            progress: bool | None = None) -> Any:
        """Label with ``oracle`` until ``n_labels`` labels (or the half-width), return
        :meth:`result`.

        Parameters
        ----------
        oracle : callable
            ``oracle(ids) -> labels``; an answer indexed by id is aligned by its index.
        n_labels : int
            The most labels to hold at the end (labels already bought count).
        half_width : float, optional
            Stop as soon as the interval's half-width is at most this. Only with
            ``interval="anytime"``: a fixed-sample interval watched until it is narrow
            is no longer valid (optional stopping); the confidence sequence is. Being
            valid whatever the model, the sequence keeps about
            ``Δ(n) = N log(4/α)/(ε n)`` positives hidden among the items the model is
            sure of plausible after ``n`` labels (they are drawn only through the
            defensive share ``ε``), so for F1 (``D`` predicted plus actual positives) it
            can stop only after about ``N log(4/α)(F1 − 2w)/(2 w ε D)`` labels with
            ``w = half_width``; ``n_labels`` is the budget it never passes.
        batch_size : int, optional
            Labels per oracle call. Default: 100 for ``"pps"`` with the optimal
            proposal, whose model is refitted between batches; the whole budget for a
            passive proposal (there is no model to refit) and with replacement (a tenth
            of it, at least 10, with ``recalibrate``).
        progress : bool or None
            A progress bar over the labels (tqdm).

        Notes
        -----
        If the oracle raises (any exception, Ctrl-C included) every label bought so far
        stays in this evaluator — attached to the error as ``err.evaluator`` — and the loop
        can go on with ``err.evaluator.run(oracle, n_labels)``.
        """
        self._label(oracle, n_labels, half_width, batch_size, progress)
        return self.result()

    def _label(self, oracle: Callable[[np.ndarray], Any], n_labels: int,
               half_width: float | None, batch_size: int | None,
               progress: bool | None) -> None:
        """:meth:`run`'s loop, without the final result."""
        n_labels = check_int(n_labels, "n_labels", 1)
        if n_labels > self._pool.size:
            raise fail("n_labels", f"at most the pool size {self._pool.size}", value=n_labels)
        if half_width is not None:
            half_width = check_scalar(half_width, "half_width", 0.0, low_inclusive=False)
            if self._config.get("interval") != "anytime":
                raise fail("half_width", "None unless interval='anytime'", value=half_width,
                           remedy="Stopping when a fixed-sample interval is narrow makes it "
                                  "invalid; the anytime-valid sequence stays valid.")
        size = check_int(self._default_batch(n_labels) if batch_size is None else batch_size,
                         "batch_size", 1)
        with progress_bar(n_labels, progress=progress, desc="labels") as bar:
            bar.update(min(self.n_labels, n_labels))
            while self.n_labels < n_labels:
                if not self._pending:
                    self.query(min(size, n_labels - self.n_labels))
                before = self.n_labels
                self._ask(oracle)
                bar.update(self.n_labels - before)
                if half_width is not None and self._narrow(half_width):
                    break

    def _default_batch(self, n_labels: int) -> int:
        return self._design.default_batch(n_labels)

    def _ask(self, oracle: Callable) -> None:
        """Ask ``oracle`` for the pending items; any failure keeps what was bought."""
        ids = self.pending
        try:
            self.update(ids, oracle_answer(oracle(ids), ids))
        except BaseException as err:
            err.evaluator = self
            if isinstance(err, Exception | KeyboardInterrupt):
                note = (f"{self.n_labels} labels bought so far are kept in `err.evaluator`; "
                        f"continue with `err.evaluator.run(oracle, n_labels)`"
                        + (f" (the session file {str(self._store.path)!r} holds them too)."
                           if self._store is not None else "."))
                if hasattr(err, "add_note"):
                    err.add_note(note)
            raise

    def _narrow(self, half_width: float) -> bool:
        """Whether the interval is that narrow now (its warnings are the final result's)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lo, hi = self.result().conf_int()
        return bool(np.isfinite(lo) and np.isfinite(hi) and (hi - lo) / 2 <= half_width)
