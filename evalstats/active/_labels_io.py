"""Labels matched to a design exactly, checked against the measure, and cut with a clear note.

:func:`match_labels` aligns labels with the design rows (ids matched exactly, or as the
same integer: ``10559.0`` is ``10559``; unknown ids reported; the text ``skip`` marks an
item nobody can label, as ``ActiveEvaluator.skip`` does); :func:`check_label_domain`
checks them against the measure ({0, 1} for binary measures, ``0..K-1`` for a K-class
pool — never a set built from the largest label seen); :func:`cut_at_first_unlabeled`
stops a with-replacement draw sequence at its first unlabeled draw and says which labels
that leaves unused. Every refusal names the source, row and column.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._validation import fail, plain_value
from .._warnings import EvalstatsWarning, Notes
from ._sealed_design import (
    CHECK_COLUMNS,
    DesignError,
    _first,
    canon,
    id_text,
    read_design,
    sealed_names,
    verify_design,
)
from ._skipping import skipped_rows

__all__ = ["UnusedLabelsWarning", "match_labels", "label_domain", "check_label_domain",
           "cut_at_first_unlabeled", "design_and_labels", "as_design", "check_labels"]


#: the label text that marks an item nobody can label (as ``ActiveEvaluator.skip``)
SKIP_LABEL = "skip"


class UnusedLabelsWarning(EvalstatsWarning):
    """Labels were given but cannot be used by the estimator (e.g. after a missing label)."""


def match_labels(design: pd.DataFrame, labels: Any, *, source: str = "labels",
                 label_column: str = "label",
                 ) -> tuple[np.ndarray, np.ndarray, Notes, np.ndarray]:
    """Labels aligned with the design rows (NaN where missing), their source rows, notes,
    and which rows were marked :data:`SKIP_LABEL` (no label: the item cannot be labeled).

    ``labels``: aligned with the rows, a Series/dict keyed by id, or a DataFrame with
    ``id`` and ``label`` columns. Ids match exactly, or as the same number (``10559.0``
    is ``10559``: integer ids written as floats); labels for ids not in the design are
    reported in a note. The source rows (``-1``: none) let later refusals name them.
    """
    notes = Notes()
    n = len(design)
    table = isinstance(labels, pd.DataFrame)
    if table:
        if "label" not in labels.columns or "id" not in labels.columns:
            raise fail("labels", "a DataFrame with columns 'id' and 'label'",
                       got=f"columns {list(labels.columns)}")
        lab_ids, values = list(labels["id"]), labels["label"].reset_index(drop=True)
    elif isinstance(labels, dict):
        lab_ids, values = list(labels), pd.Series(list(labels.values()), dtype=object)
    elif isinstance(labels, pd.Series) and not isinstance(labels.index, pd.RangeIndex):
        lab_ids, values = list(labels.index), labels.reset_index(drop=True)
    else:
        arr = np.asarray(labels)
        if arr.shape != (n,):
            raise fail("labels", f"one label per design row ({n})", got=f"shape {arr.shape}",
                       remedy="Or pass a DataFrame with 'id' and 'label' columns.")
        y, skip = _numeric_labels(pd.Series(arr, dtype=object), source, label_column,
                                  table=False)
        return y, np.arange(n), notes, skip
    y_src, skip_src = _numeric_labels(values, source, label_column, table=table)
    exact = [str(v) for v in design["id"]]
    keys = [id_text(v) for v in design["id"]]
    use_canon = len(set(keys)) == n
    pos = {k: i for i, k in enumerate(keys if use_canon else exact)}
    y = np.full(n, np.nan)
    src = np.full(n, -1)
    skip = np.zeros(n, dtype=bool)
    unknown, renamed = [], []
    for r, (lid, v) in enumerate(zip(lab_ids, y_src, strict=True)):
        k = id_text(lid) if use_canon else str(lid)
        i = pos.get(k)
        if i is None:
            unknown.append(plain_value(lid))
            continue
        if src[i] >= 0 and not (y[i] == v or (np.isnan(y[i]) and np.isnan(v))):
            where = f"{source}, row {r + 2}" if table else f"`{source}`"
            raise DesignError(f"{where}, column {label_column!r}: expected one label per id; id "
                              f"{lid!r} has {y[i]:g} on row {src[i] + 2} and {v:g} here.")
        if str(lid) != exact[i]:
            renamed.append((plain_value(lid), plain_value(design["id"].iloc[i])))
        y[i], src[i] = v, r
        skip[i] |= skip_src[r]
    if renamed:
        notes.add(f"{len(renamed)} label id(s) were written differently from the design's "
                  f"and matched as the same number (e.g. {renamed[0][0]!r} to design id "
                  f"{renamed[0][1]!r}).")
    if unknown:
        notes.add(f"{len(unknown)} label(s) in {source} have ids that are not in the design "
                  f"and were ignored (e.g. {', '.join(map(repr, unknown[:3]))}).")
    if not np.isfinite(y).any():
        hint = (f"; e.g. design id {plain_value(design['id'].iloc[0])!r}, label id {lab_ids[0]!r}"
                if lab_ids else " (it has no rows)")
        raise fail(f"{source}", "labels for the design's ids",
                   got=f"no label for any of the {n} design ids{hint}", exc=DesignError,
                   verb="must give")
    return y, src, notes, skip


def _numeric_labels(values: pd.Series, source: str, column: str, *, table: bool,
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The labels as numbers (NaN: blank or skipped) and the cells marked skipped."""
    num = pd.to_numeric(values, errors="coerce").to_numpy(float)
    blank = np.array([canon(v) == "" for v in values])
    skip = np.array([isinstance(v, str) and v.strip().lower() == SKIP_LABEL for v in values],
                    dtype=bool)
    bad = _first(np.isnan(num) & ~blank & ~skip)
    if bad is not None:
        where = f"{source}, row {bad + 2}, column {column!r}" if table else \
            f"`{source}` at position {bad}"
        raise TypeError(f"{where}: expected numeric labels; got {values.iloc[bad]!r} (write "
                        f"{SKIP_LABEL!r} for an item nobody can label).")
    return num, skip


def label_domain(design: pd.DataFrame) -> tuple[np.ndarray | None, str]:
    """Allowed labels of the design's measure (``None``: any finite number) and a text."""
    name = str(design["measure"].iloc[0]).strip() if "measure" in design else "f1"
    if name == "squared":
        return None, "a finite number"
    n_cls = sum(c.startswith("score_") for c in design.columns)
    if n_cls > 2 and not (name.startswith("f") or name in ("precision", "recall")):
        return np.arange(n_cls), f"a class label 0..{n_cls - 1} (the pool has {n_cls} classes)"
    return np.array([0, 1]), f"0 or 1 (the measure {name!r} is defined for binary labels)"


def check_label_domain(design: pd.DataFrame, y: np.ndarray, src: np.ndarray, *,
                       source: str = "labels", table: bool = True,
                       label_column: str = "label") -> None:
    """Refuse labels outside the measure's label set, naming the source row."""
    allowed, text = label_domain(design)
    known = ~np.isnan(y)
    bad = known & (~np.isfinite(y) if allowed is None else ~np.isin(y, allowed))
    i = _first(bad)
    if i is None:
        return
    more = f" ({int(bad.sum()) - 1} more like it)" if bad.sum() > 1 else ""
    if table and src[i] >= 0:
        where = f"{source}, row {src[i] + 2}, column {label_column!r}"
    else:
        where = f"`{source}` at design row {i + 2} (id {plain_value(design['id'].iloc[i])!r})"
    raise DesignError(f"{where}: expected {text}; got {y[i]:g}{more}.")


def cut_at_first_unlabeled(design: pd.DataFrame, y: np.ndarray, draw_row: np.ndarray,
                           notes: Notes) -> np.ndarray:
    """The draw sequence up to the first draw of an unlabeled item, with a clear warning.

    A with-replacement design may be stopped only at a position of its draw sequence
    fixed in advance of the labels, so every label drawn after the first missing one is
    unused; the note says how many and which item to label.
    """
    known = np.isfinite(y)
    if known.all():
        return draw_row
    lab = known[draw_row]
    stop = int(np.argmin(lab))
    used = len(np.unique(draw_row[:stop]))
    ignored = int(known.sum()) - used
    row = int(draw_row[stop])
    msg = (f"{int((~known).sum())} design item(s) have no label. The first, id "
           f"{plain_value(design['id'].iloc[row])!r} (design row {row + 2}), is draw {stop + 1} of "
           f"{len(draw_row)}, so the estimate uses only the {stop} draws before it "
           f"({used} labeled items); {ignored} labeled item(s) drawn later are ignored, "
           f"because the draw sequence may only be cut at a fixed position. This is the "
           f"valid estimate from the labeled prefix; label the missing item(s) to use every "
           f"label.")
    if ignored > 0:
        notes.warn(UnusedLabelsWarning, msg)
    else:
        notes.add(msg)
    return draw_row[:stop]


def sealed_only(design: pd.DataFrame) -> pd.DataFrame:
    """The columns evalstats wrote (``sealed_columns``), without those a user added: an
    added ``pred_reviewer`` became an extra model, and ``score_*`` columns changed the
    label domain. Tables without a seal keep every column."""
    if "sealed_columns" not in design.columns:
        return design
    row_cols, keys = sealed_names(design)
    keep = set(row_cols) | set(keys) | set(CHECK_COLUMNS)
    return design[[c for c in design.columns if c in keep]]


def design_and_labels(design: Any, labels: Any, *, source: str = "design",
                      labels_source: str = "labels", require_seal: bool = False,
                      label_column: str = "label") -> tuple[pd.DataFrame, np.ndarray, Notes]:
    """:func:`verify_design`, :func:`match_labels` and :func:`check_label_domain` in one:
    the checked design in written order, its labels (NaN: none) and the notes.

    Tables read from files may carry their file name in ``DataFrame.attrs["source"]``; it
    then names them in every message instead of ``source`` / ``labels_source``."""
    if isinstance(design, pd.DataFrame):
        source = design.attrs.get("source", source)
    if isinstance(labels, pd.DataFrame):
        labels_source = labels.attrs.get("source", labels_source)
    checked, notes = verify_design(design, source=source, require_seal=require_seal)
    aligned = not isinstance(labels, pd.DataFrame | dict) and not (
        isinstance(labels, pd.Series) and not isinstance(labels.index, pd.RangeIndex))
    if aligned and "design_row" in checked.columns and np.shape(labels) == (len(design),):
        # labels follow the rows as given; the checked design is back in written order
        order = np.argsort(pd.to_numeric(design["design_row"]).to_numpy(), kind="stable")
        labels = np.asarray(labels)[order]
    design = checked
    y, src, label_notes, skip = match_labels(design, labels, source=labels_source,
                                             label_column=label_column)
    design = sealed_only(design)
    if skip.any():            # skipped in the labels: as ActiveEvaluator.skip would mark them
        design = design.assign(skipped=(skipped_rows(design) | skip).astype(int))
    check_label_domain(design, y, src, source=labels_source,
                       table=isinstance(labels, pd.DataFrame), label_column=label_column)
    notes.extend(label_notes)
    return design, y, notes


def as_design(design: Any) -> Any:
    """A design given as a table or as the path of its CSV (read by :func:`read_design`,
    which names the file in ``attrs["source"]``)."""
    if isinstance(design, str | Path):
        source = Path(design).name
        design = read_design(design)
        design.attrs["source"] = source
    return design


def check_labels(design: pd.DataFrame | str | Path, labels: Any, *,
                 require_seal: bool = False, label_column: str = "label") -> pd.DataFrame:
    """Check a design and match its labels to its rows, as :func:`estimate_from_labels`
    reads them, without estimating.

    The design's integrity is verified first (deleted, copied or edited rows and settings
    are refused with the source, row and column), then the labels are matched to the
    design's ids and checked against the measure's label set. Use it to inspect the labels
    an estimate will use, or to run checks of your own on them.

    Parameters
    ----------
    design : DataFrame or path
        The table returned by :func:`active_design` or ``ActiveEvaluator.design()``, or
        the path of its CSV. A table may carry its file name in ``attrs["source"]``; it
        then names the table in every message.
    labels : array_like, Series, dict or DataFrame
        As in :func:`estimate_from_labels`: aligned with ``design`` rows, a Series/dict
        keyed by ``id``, or a DataFrame with ``id`` and ``label`` columns.
    require_seal : bool
        Refuse a table without its integrity columns (the command line does).
    label_column : str
        The name of the label column, for messages.

    Returns
    -------
    DataFrame
        The columns evalstats wrote (columns a user added are dropped), in the order the
        design was written, and ``label``: the matched label of each row as a float, NaN
        where none was given. Rows skipped (in the session, or by the label ``"skip"``)
        are 1 in a ``skipped`` column, present when any is. ``attrs["notes"]`` holds the
        notes of the checks (re-sorted rows, ids matched as numbers, labels for unknown
        ids).

    Raises
    ------
    DesignError
        An edited or truncated design, an id labeled twice with different labels, no label
        for any design id, or a label outside the measure's label set (all ValueErrors).
    TypeError
        A label that is not a number.

    See Also
    --------
    estimate_from_labels, read_design

    Examples
    --------
    >>> import evalstats as es
    >>> from evalstats.active import active_design, check_labels
    >>> pool = es.datasets.load("sim_pool")
    >>> design = active_design(pool["prob"], 50, "f1", rng=3, predictions=pool["pred"])
    >>> table = check_labels(design, pool["label"].to_numpy()[design["id"]])
    >>> int(table["label"].notna().sum())
    50
    """
    checked, y, notes = design_and_labels(as_design(design), labels,
                                          require_seal=require_seal, label_column=label_column)
    out = checked.copy()
    out["label"] = y
    out.attrs["notes"] = notes.as_tuple()
    return out
