r"""Queried items an annotator cannot label: ``skip``, ``unskip`` and what a skip does.

A skipped item is never dropped silently. It is recorded with its reason (in the session
file too), written to the design table (column ``skipped``, 1 on its row) and counted in
the result (``n_skipped``, a :class:`SkippedItemsWarning` and a note). What the estimator
does with it depends on the design, and is a statement about the *target*:

* **πps (the default).** The skipped draw's label is missing; the estimator counts the
  item with the batch model's prediction ``ĝ`` (its residual ``(y − ĝ)/q`` is taken as 0)
  and later models are fitted with ``ĝ`` as its outcome, which leaves the fit where the
  labeled items put it. Each draw's pseudo-outcome then has conditional mean equal to
  the pool total in which the labels of the items that would be skipped are replaced by
  the current model's predictions (with a fixed model, ``adaptive=False``, the totals are
  exactly unbiased for that pool). For the pool itself each total is biased by
  ``Σ (ĝ − y)`` over those items: zero only when the model is calibrated on them, and at
  most their number. No interval shows it.
* **With replacement.** Draws are independent, so the draws of the items that would be
  skipped can be left out: the remaining draws are a sample from the proposal restricted
  to the other items, and the self-normalised estimate targets the pool *without* the
  items that would be skipped. It is the pool's value when skips are unrelated to the
  label (missing completely at random); otherwise it is biased by the difference.

A skipped item is not re-queried; :meth:`~SkipMixin.unskip` returns it to the pending
items, after which it must be labeled with ``update`` like any other.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._validation import fail, plain_value
from .._warnings import EvalstatsWarning

__all__ = ["SkippedItemsWarning", "SkipMixin", "skip_note", "impute_skipped",
           "skipped_rows", "unlabeled_skips"]


class SkippedItemsWarning(EvalstatsWarning):
    """Queried items were skipped (not labeled): the estimate's target changed with them."""


def skip_note(n_skipped: int, design: str) -> str:
    """The note of a result whose sample holds ``n_skipped`` skipped items."""
    head = f"{n_skipped} queried item(s) were skipped (no label). "
    if design == "pps":
        return head + ("Each counts with the model's prediction of its label (its residual is "
                       "taken as zero), so the estimate is biased by the model's error on the "
                       "items that cannot be labeled, which the interval does not show.")
    return head + ("Their draws are left out, so the estimate is of the pool without items "
                   "that would be skipped: the pool's own value only if skips are unrelated "
                   "to the label.")


def skipped_rows(design: pd.DataFrame) -> np.ndarray:
    """Boolean mask of the design rows marked skipped (column ``skipped``; none without)."""
    if "skipped" not in design.columns:
        return np.zeros(len(design), dtype=bool)
    flag = pd.to_numeric(design["skipped"], errors="coerce").to_numpy(float)
    if not np.isin(flag, (0.0, 1.0)).all():
        raise fail("design", "a 'skipped' column of 0 and 1",
                   got=f"{design['skipped'].to_numpy()[~np.isin(flag, (0.0, 1.0))][0]!r}")
    return flag == 1.0


def unlabeled_skips(design: pd.DataFrame, y: np.ndarray) -> np.ndarray:
    """:func:`skipped_rows`, refusing a label given for a skipped row (un-skip it first)."""
    skipped = skipped_rows(design)
    given = skipped & np.isfinite(y)
    if given.any():
        raise fail("labels", "no label for an item the design marks skipped",
                   got=f"a label for id {plain_value(design['id'].to_numpy()[given][0])!r}",
                   remedy="Label it in the session after `ActiveEvaluator.unskip(ids)`, "
                          "and export the design again.")
    return skipped


def impute_skipped(design: pd.DataFrame, y: np.ndarray) -> tuple[np.ndarray, int]:
    """πps labels with every skipped row's label replaced by its ``model_prob`` (the batch
    model's prediction: its residual is zero); the number of such rows."""
    skipped = unlabeled_skips(design, y)
    y = np.where(skipped, design["model_prob"].to_numpy(float), y)
    return y, int(skipped.sum())


class SkipMixin:
    """``skip``, ``unskip`` and ``skipped`` (mixed into ActiveEvaluator)."""

    def skip(self, ids: Any, reason: str) -> None:
        """Record that queried items cannot be labeled, with the reason.

        A skipped item is no longer pending (so the next batch may be queried), is never
        queried again, is written to the session file and to :meth:`design` (column
        ``skipped``), and is counted in every later result (``n_skipped``, a
        :class:`SkippedItemsWarning` and a note). A skipped draw is missing data, and it
        changes what the estimate targets:

        * πps (the default): the item counts with the batch model's prediction ``ĝ`` of
          its label (its residual ``(y − ĝ)/q`` is taken as zero). The totals then target
          the pool in which the labels of the items that would be skipped are replaced by
          the model's predictions (exactly, with a fixed model: ``adaptive=False``); for
          the pool itself each total is biased by ``Σ (ĝ − y)`` over those items — zero
          only if the model is calibrated on them, at most their number — and no
          interval shows it.
        * With replacement: the skipped item's draws are left out (draws are independent,
          so the others are a sample from the proposal restricted to the other items);
          the estimate is of the pool *without* the items that would be skipped, the
          pool's own value only if skips are unrelated to the label.

        A skipped item is never queried again; :meth:`unskip` returns it to the pending
        items (to be labeled with ``update``).

        Parameters
        ----------
        ids : array_like
            Pending items (returned by ``query`` and not labeled).
        reason : str
            Why they cannot be labeled (kept with each item; see :attr:`skipped`).

        Raises
        ------
        ValueError
            An id that is not pending (never queried, labeled or skipped already), or an
            empty reason.
        """
        if not isinstance(reason, str) or not reason.strip():
            raise fail("reason", "a non-empty text saying why the items cannot be labeled",
                       got=repr(reason), exc=TypeError if not isinstance(reason, str)
                       else ValueError)
        pos = self._pending_positions(ids, "skip")
        for i in pos:
            self._pending.pop(i)
            self._skipped[i] = reason.strip()
        self._save_skips()

    def unskip(self, ids: Any) -> None:
        """Return skipped items to the pending items; label them with ``update``.

        Raises
        ------
        ValueError
            An id that is not skipped.
        """
        pos = self._positions(ids)
        bad = [i for i in pos if i not in self._skipped]
        if bad:
            raise fail("ids", "items skipped with `skip()`",
                       got=f"id {plain_value(self._ids[bad[0]])!r}, which is not skipped")
        for i in pos:
            self._skipped.pop(i)
            self._pending[i] = None
        self._save_skips()

    @property
    def skipped(self) -> pd.DataFrame:
        """The skipped items: ``id`` and ``reason``, in the order they were skipped."""
        idx = np.fromiter(self._skipped, dtype=int)
        return pd.DataFrame({"id": self._ids[idx], "reason": list(self._skipped.values())})

    def _positions(self, ids: Any) -> list[int]:
        """Pool positions of ``ids`` (refused when unknown or repeated)."""
        ids = np.atleast_1d(np.asarray(ids))
        if ids.ndim != 1:
            raise fail("ids", "a 1-dimensional array of identifiers", got=f"shape {ids.shape}")
        pos = self._index.get_indexer(ids)
        if (pos < 0).any():
            raise fail("ids", "identifiers of pool items", got=f"{int((pos < 0).sum())} "
                       f"unknown, e.g. {plain_value(ids[pos < 0][0])!r}")
        if len(set(pos.tolist())) != len(pos):
            raise fail("ids", "distinct identifiers", got="an id given twice")
        return [int(i) for i in pos]

    def _pending_positions(self, ids: Any, verb: str) -> list[int]:
        pos = self._positions(ids)
        for i in pos:
            if i in self._pending:
                continue
            state = ("labeled" if i in self._labels else "skipped already"
                     if i in self._skipped else "never queried")
            raise fail("ids", f"pending items (queried, not labeled) to {verb}",
                       got=f"id {plain_value(self._ids[i])!r}, {state}")
        return pos

    def _save_skips(self) -> None:
        if self._store is not None:
            self._store.append(meta=dict(skipped=[[int(i), r] for i, r in
                                                  self._skipped.items()]))

    def _restore_skips(self, entries: Any, path: Any) -> None:
        """Skips read back from a session file: drawn items without a label."""
        from ._state import SessionFileError

        drawn = set(self._draw_idx)
        for entry in entries or []:
            ok = (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], str)
                  and isinstance(entry[0], int) and entry[0] in drawn
                  and entry[0] not in self._labels)
            if not ok:
                raise SessionFileError(
                    f"The session file {str(path)!r} records a skip {entry!r} of an item "
                    f"that was never drawn or is labeled; it was edited after it was written.")
            self._skipped[entry[0]] = entry[1]
            self._pending.pop(entry[0], None)

    def _skipped_in(self, items: Any) -> int:
        """How many of the pool positions ``items`` are skipped."""
        return sum(int(i) in self._skipped for i in np.unique(np.asarray(items, dtype=int)))

    def _mark_skipped(self, table: pd.DataFrame, items: Any) -> pd.DataFrame:
        """``table`` with a ``skipped`` column (1 on skipped items' rows) when any is."""
        if not self._skipped:
            return table
        flag = [int(int(i) in self._skipped) for i in items]
        return table.assign(skipped=flag)
