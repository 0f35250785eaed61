"""Tablets: contiguous row ranges that split by size and by load (steps of the load model).

Bigtable splits a tablet that grows past the split size (``settings.tablet_split_bytes``) and
one that is busy; it never splits a row. A run of new rows written in key order (a *write
frontier*, e.g. a timestamp first in the key) is never cut either: its next writes land past
its end whatever the split, so the cut would relieve nothing. Tablets are kept as the sorted
array of their first rows (``starts``); a row id is its key's rank.

Every function here is a pure step over plain arrays, except that ``found`` (the units no
split can relieve: ``{"row": {row: load}, "frontier": load}``) is filled in place.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def initial_tablets(
    row_table: np.ndarray, n_rows: int, pre_splits: int, nodes: int
) -> tuple[np.ndarray, np.ndarray]:
    """(first row of each tablet, its node) of new tables: one tablet per table plus
    ``pre_splits`` split points evenly over the rows, dealt round the nodes."""
    table_starts = np.searchsorted(row_table, np.unique(row_table), "left")
    extra = (
        np.linspace(0, n_rows, pre_splits + 2)[1:-1].astype(np.int64)
        if pre_splits > 0 and n_rows
        else np.zeros(0, dtype=np.int64)
    )
    starts = np.unique(np.r_[np.asarray(table_starts, dtype=np.int64), extra, 0]).astype(np.int64)
    starts = starts[starts < max(n_rows, 1)]
    return starts, np.arange(len(starts)) % nodes


def sample_split_bytes(split_bytes: float, scale: float, nbytes: np.ndarray, buckets: int) -> float:
    """The split size in the sample's bytes: each sample byte stands for ``scale`` production
    bytes; the sample resolves at most one size tablet per key bucket (finer tablets would each
    hold less than a row of it)."""
    sample_bytes = float(nbytes.sum()) if len(nbytes) else 0.0
    return max(split_bytes / scale if scale > 0 else float("inf"), sample_bytes / buckets)


def step_rows(
    rows: np.ndarray, wcpu: np.ndarray | Callable[[np.ndarray, int], np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """(distinct rows written in a step, sorted; the cumulative write CPU before each of them,
    one longer) from each write's row and CPU (or what sums it per bin: ``Writes.cpu_by``)."""
    lrows, inv = np.unique(rows, return_inverse=True)
    per = wcpu(inv, len(lrows)) if callable(wcpu) else np.bincount(inv, weights=wcpu)
    return lrows, np.concatenate(([0.0], np.cumsum(per)))


def frontier_allowed(lrows: np.ndarray, is_new: np.ndarray, first_ts: np.ndarray) -> np.ndarray:
    """Per written row (sorted ``lrows``), whether a cut may fall just before it.

    Not inside a write frontier: consecutive rows that are new (``is_new``: first written in
    this window) and whose first writes (``first_ts``) follow their key order, forward (a
    timestamp) or backward (a reversed timestamp), whichever the step's new rows mostly do; a
    cut where that order breaks separates two frontiers and is allowed."""
    adj = is_new[1:] & is_new[:-1] & (np.diff(lrows) == 1)
    step_dir = np.sign(np.diff(first_ts))
    fwd = (step_dir[adj] >= 0).sum() >= (step_dir[adj] <= 0).sum()
    allowed = np.ones(len(lrows), dtype=bool)
    allowed[1:] = ~(adj & ((step_dir >= 0) if fwd else (step_dir <= 0)))
    return allowed


def load_split_points(
    s: int,
    e: int,
    lrows: np.ndarray,
    wcum: np.ndarray,
    allowed: np.ndarray,
    live: np.ndarray,
    threshold: float,
    found: dict,
) -> list[int]:
    """Row ids where tablet [s, e) splits by load: recursively, while a part carries more than
    ``threshold``. Load is the step's writes (``lrows``: rows written, ``wcum``: their cumulative
    CPU) plus the reads of rows that exist (``live`` per row).

    The busiest row is cut out on its own when it carries half the load (a row cannot be split:
    recorded in ``found["row"]``); otherwise the cut is the allowed position nearest the load
    median. A cut inside a write frontier (``allowed[i]`` False) is never made; a part whose
    load only such a cut could split is recorded in ``found["frontier"]``."""
    out: list[int] = []
    stack = [(s, e)]
    base = s
    rc = np.empty(e - s + 1)  # reads, cumulative (in place: a first tablet spans every row)
    rc[0] = 0.0
    np.cumsum(live[s:e], dtype=np.float64, out=rc[1:])

    def rcum(x):  # cumulative reads before row(s) x
        return rc[np.asarray(x) - base]

    def ok_at(c: int) -> bool:
        i = int(np.searchsorted(lrows, c))
        return not (0 < i < len(lrows) and lrows[i] == c and not allowed[i])

    while stack:
        a, b = stack.pop()
        i0, i1 = int(np.searchsorted(lrows, a)), int(np.searchsorted(lrows, b))
        total = float(wcum[i1] - wcum[i0] + rcum(b) - rcum(a))
        if total <= threshold:
            continue
        # the busiest row: a written row (its writes and reads) or a row that is only read
        own = wcum[i0 + 1 : i1 + 1] - wcum[i0:i1] + live[lrows[i0:i1]]
        jr = a + int(live[a:b].argmax())
        r, top = jr, float(live[jr])
        if len(own) and own.max() >= top:
            r, top = int(lrows[i0 + int(own.argmax())]), float(own.max())
        cuts: list[int] = []
        if top >= 0.5 * total:  # one row carries the tablet: isolate it
            cuts = [c for c in (r, r + 1) if a < c < b and ok_at(c)]
            if not cuts:
                if b - a == 1:
                    note_row(found, r, total)
                else:
                    note_frontier(found, total)
                continue
        else:
            # candidate cuts: before each written row (where allowed) and at the reads' median
            pos = lrows[i0:i1][allowed[i0:i1]] if i1 > i0 else lrows[:0]
            half_r = rcum(a) + (rcum(b) - rcum(a)) / 2
            if rcum(b) > rcum(a):
                m = int(np.searchsorted(rc, half_r, "left")) + base
                pos = np.r_[pos, m] if ok_at(m) else pos
            pos = pos[(pos > a) & (pos < b)]
            left = (
                wcum[np.searchsorted(lrows, pos)] - wcum[i0] + rcum(pos) - rcum(a)
                if len(pos)
                else np.zeros(0)
            )
            # a cut that leaves (nearly) all the load on one side relieves nothing
            useful = (left >= 0.1 * total) & (left <= 0.9 * total)
            pos, left = pos[useful], left[useful]
            if not len(pos):
                note_frontier(found, total)
                continue
            cuts = [int(pos[np.abs(left - total / 2).argmin()])]
        out.extend(cuts)
        bounds = [a, *cuts, b]
        stack.extend(zip(bounds[:-1], bounds[1:], strict=True))
    return out


def note_row(found: dict, row: int, load: float) -> None:
    """Record a single row carrying ``load`` (a row cannot be split)."""
    rows = found.setdefault("row", {})
    rows[row] = max(rows.get(row, 0.0), load)


def note_frontier(found: dict, load: float) -> None:
    """Record a write frontier carrying ``load`` (no cut inside it relieves it)."""
    found["frontier"] = max(found.get("frontier", 0.0), load)


def load_split_cuts(
    starts: np.ndarray,
    t_load: np.ndarray,
    t_read: np.ndarray,
    threshold: float,
    n_rows: int,
    step: tuple[np.ndarray, np.ndarray, np.ndarray],
    live: np.ndarray,
    found: dict,
) -> list[int]:
    """Split points for every tablet whose load (``t_load``) is over ``threshold``.

    ``step`` is (rows written, their cumulative CPU, where a cut is allowed) from
    :func:`step_rows` and :func:`frontier_allowed`. A single-row tablet over the threshold is
    recorded as a hot row; a tablet whose load is one frontier (no allowed cut, no reads) is
    recorded as a frontier without searching it."""
    ends = np.append(starts[1:], n_rows)
    over = t_load > threshold
    for t in np.flatnonzero(over & (ends - starts == 1)):
        note_row(found, int(starts[t]), float(t_load[t]))
    cand = np.flatnonzero(over & (ends - starts > 1))
    if not len(cand):
        return []
    lrows, wcum, allowed = step
    ac = np.concatenate(([0], np.cumsum(allowed)))
    i0 = np.searchsorted(lrows, starts[cand])
    i1 = np.searchsorted(lrows, ends[cand])
    stuck = (ac[i1] - ac[np.minimum(i0 + 1, i1)] == 0) & (t_read[cand] <= 0)
    stuck &= i1 - i0 > 1
    if stuck.any():
        note_frontier(found, float(t_load[cand[stuck]].max()))
    cuts: list[int] = []
    for t in cand[~stuck]:
        cuts += load_split_points(
            int(starts[t]), int(ends[t]), lrows, wcum, allowed, live, threshold, found
        )
    return cuts


def size_split_cuts(
    starts: np.ndarray, size: np.ndarray, split_bytes: float, row_bytes: np.ndarray
) -> list[int]:
    """Split points of the tablets over ``split_bytes``: each at its byte median (``row_bytes``:
    bytes per row so far), never inside a row."""
    ends = np.append(starts[1:], len(row_bytes))
    cuts = []
    for t in np.flatnonzero((size > split_bytes) & (ends - starts > 1)):
        s_, e_ = int(starts[t]), int(ends[t])
        cb = np.cumsum(row_bytes[s_:e_])
        cut = s_ + 1 + int(np.searchsorted(cb, cb[-1] / 2, "left"))
        if s_ < cut < e_:
            cuts.append(cut)
    return cuts


def apply_cuts(
    starts: np.ndarray, node: np.ndarray, cuts: list[int]
) -> tuple[np.ndarray, np.ndarray]:
    """(new tablet starts, their nodes): both halves of a split stay on the parent's node."""
    new = np.unique(np.r_[starts, np.asarray(cuts, dtype=np.int64)])
    parent = np.searchsorted(starts, new, "right") - 1
    return new, node[parent]
