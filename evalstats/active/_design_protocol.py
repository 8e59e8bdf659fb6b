"""What :class:`~._evaluator.ActiveEvaluator` needs from a sampling design.

The evaluator keeps the pool, the ids, the labels and skipped items (its ``update`` and
``skip``), the log of draws, the session file and a frozen config; a design chooses the
next items, reads the labeled ones back as a sample, exports its design table and carries
whatever state it needs beyond the log. Labels reach a design through the evaluator, read
at its next ``query`` and ``sample``. Two designs implement it:
:class:`~._pps_session.SuccessiveSession` (successive πps, the default) and
:class:`~._wr_session.WithReplacementSession` (the papers' design).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from ._optimal_proposal import Proposal

__all__ = ["Design"]


@runtime_checkable
class Design(Protocol):
    """A sampling design driven by :class:`~._evaluator.ActiveEvaluator`.

    Attributes
    ----------
    name : str
        The design's name in the config, the design table and the result.
    cut_unit : str
        What the sample leaves out while a query is not fully labeled (for the note).
    """

    name: str
    cut_unit: str

    def query(self, batch_size: int) -> np.ndarray:
        """Pool positions of ``batch_size`` new items to label (draws logged on the
        evaluator)."""
        ...

    def sample(self) -> tuple[Any, int, int, int]:
        """The labeled sample, the count of draws (or items) it leaves out, of labeled
        items among those, and of skipped items it uses."""
        ...

    def table(self) -> pd.DataFrame:
        """The queried items as a sealed design table."""
        ...

    def proposal(self) -> Proposal:
        """The proposal of the next query (for orientation where the design has none)."""
        ...

    def last_proposal(self) -> Proposal:
        """The proposal a result reports (its notes and plot)."""
        ...

    def kind(self) -> str:
        """How the items are selected, in words (the result's ``proposal_kind``)."""
        ...

    def default_batch(self, n_labels: int) -> int:
        """The batch size of ``run`` when none is given."""
        ...

    def meta(self) -> dict[str, Any]:
        """State to store in the session file beyond the draws and labels."""
        ...

    def restore(self, meta: dict[str, Any]) -> None:
        """Restore that state from a session file's metadata."""
        ...
