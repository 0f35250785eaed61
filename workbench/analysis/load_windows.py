"""Writes and reads per time window × key bucket: the first steps of the load model.

A *write* is one mutation: the cells with the same row key and timestamp (one event). Time is
cut into whole-minute windows (Key Visualizer's finest step is a minute), the key space into
``settings.key_buckets`` contiguous ranges of rows (its "1,000 contiguous ranges"). Every
function here is a pure step over plain arrays; large temporaries are built in slices so the
10-million-event path stays under 2 GB.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from ._index import CellIndex
from .settings import Settings

CHUNK_ROWS = 1 << 20  # rows per slice where a per-row temporary would be large
CHUNK_CELLS = 1 << 21  # cells per slice where a per-cell sort's temporaries would be large
MINUTE_US = 60_000_000


@dataclass(frozen=True)
class Writes:
    """The mutations (row × event timestamp), in event-time order: one entry each (the
    in-memory path, ``count`` None), or one entry per (row, balancer step) standing for
    ``count`` mutations (``nbytes``/``cells`` their totals, ``ts`` the first one's time,
    ``last_us`` the last mutation's): the engine path's writes grouped by DuckDB
    (``analysis/file_writes.py``). Every step reads the counts through ``n``, ``weights`` and
    ``units``, so both paths run the same code (G06)."""

    row: np.ndarray  # global row id (key rank)
    ts: np.ndarray  # µs
    nbytes: np.ndarray
    cells: np.ndarray
    count: np.ndarray | None = None  # mutations per entry (None: one each)
    last_us: int | None = None  # the last mutation's time (None: the last entry's)

    @property
    def n(self) -> int:
        """Mutations the entries stand for."""
        return len(self.row) if self.count is None else int(self.count.sum())

    @property
    def t_last(self) -> int:
        """The last mutation's time, µs."""
        return int(self.ts[-1]) if self.last_us is None else int(self.last_us)

    def weights(self, a: int = 0, b: int | None = None) -> np.ndarray | None:
        """Mutations per entry of the slice [a, b) (None: one each; a bincount's weights)."""
        return None if self.count is None else self.count[a:b]

    def units(self, planning_row_bytes: float, a: int = 0, b: int | None = None) -> np.ndarray:
        """Planning rows (1 KB) per entry of [a, b): a mutation costs one or its bytes' worth,
        so ``count`` mutations at least ``count`` (exact when each is on the same side of 1 KB,
        as the engine path's, of one size per entry, are)."""
        u = self.nbytes[a:b] / float(planning_row_bytes)
        c = self.weights(a, b)
        return np.maximum(u, 1.0 if c is None else c)

    def cost_bytes(self, planning_row_bytes: float) -> np.ndarray:
        """Per entry, the bytes its mutations cost: each at least a planning row (1 KB)."""
        c = 1 if self.count is None else self.count
        return np.maximum(self.nbytes, int(planning_row_bytes) * c)

    def cpu_by(
        self, span: tuple[int, int], wcost: float, prb: float, idx: np.ndarray, size: int
    ) -> np.ndarray:
        """The CPU of the writes [a, b) = ``span`` summed per bin ``idx`` (a tablet, a row) of
        ``size`` bins:
        ``wcost`` per planning row (1 KB) each mutation costs. One entry per mutation: each
        write's CPU added in order, as ever; an entry of k mutations of 1 KB or less adds what
        k single adds of ``wcost`` give (``repeated_sums``), so a bin of m mutations holds the
        same bits on both paths and no tie in the replay breaks the other way; a larger
        mutation adds its bytes' worth."""
        a, b = span
        u = self.units(prb, a, b)
        if self.count is None:
            return np.bincount(idx, weights=wcost * u, minlength=size)
        c = self.count[a:b]
        over = u > c
        m = np.bincount(idx[~over], weights=c[~over], minlength=size).astype(np.int64)
        out = repeated_sums(wcost, m)
        if over.any():
            out += np.bincount(idx[over], weights=wcost * u[over], minlength=size)
        return out


def repeated_sums(x: float, m: np.ndarray) -> np.ndarray:
    """Per count in ``m``, ``x`` added to 0.0 that many times one after the other (float sums
    depend on their order: k × x can differ from k adds of x in the last bit)."""
    top = int(m.max(initial=0))
    if top == 0:
        return np.zeros(len(m))
    table = np.cumsum(np.full(top, float(x)))  # a sequential sum, as bincount's adds are
    return np.where(m > 0, table[np.maximum(m - 1, 0)], 0.0)


def row_slices(row: np.ndarray, cells: int) -> Iterator[tuple[int, int]]:
    """Slices of about ``cells`` cells of a row-sorted cell array, each cut where a row starts."""
    n = len(row)
    cuts = np.searchsorted(row, row[np.arange(cells, n, cells)], "left")
    bounds = np.unique(np.r_[0, cuts, n]).astype(np.int64)
    yield from zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)


def writes_from_index(index: CellIndex) -> Writes:
    """Group cells into mutations: same row and same timestamp form one write.

    The index is in row order, so each slice of whole rows is grouped on its own: the sort's
    temporaries are one slice's, not the whole index's (the 10M-event path stays under 2 GB)."""
    if index.n_cells == 0:
        z = np.zeros(0, dtype=np.int64)
        return Writes(z, z, z, z)
    if index.n_cells == index.n_rows:  # a cell per row: each cell is its row's one mutation
        order = np.argsort(index.ts, kind="stable")  # rows in order: (time, row) order
        return Writes(
            index.row[order],
            index.ts[order],
            index.nbytes[order].astype(np.int32),
            np.ones(len(order), dtype=np.int32),
        )
    parts: list[tuple[np.ndarray, ...]] = []
    for a, b in row_slices(index.row, CHUNK_CELLS):
        order = np.lexsort((index.ts[a:b], index.row[a:b]))  # cells by (row, timestamp)
        r = index.row[a:b][order]
        t = index.ts[a:b][order]
        first = np.ones(len(order), dtype=bool)
        first[1:] = r[1:] != r[:-1]
        first[1:] |= t[1:] != t[:-1]
        starts = np.flatnonzero(first)
        nbytes = np.add.reduceat(index.nbytes[a:b][order], starts, dtype=np.int64).astype(
            np.int32
        )  # a row < 256 MB
        cells = np.diff(np.r_[starts, len(r)]).astype(np.int32)
        parts.append((r[starts], t[starts], nbytes, cells))
    # by time; the rows are already in order, so a stable sort on time keeps (time, row) order
    cols = [list(c) for c in zip(*parts, strict=True)]
    del parts
    ts = np.concatenate(cols[1])
    cols[1].clear()
    order = np.argsort(ts, kind="stable")
    ts = ts[order]
    out = []
    for i in (0, 2, 3):  # one column at a time: its pieces are freed once it is whole
        whole = np.concatenate(cols[i])
        cols[i].clear()
        out.append(whole[order])
        del whole
    return Writes(out[0], ts, out[1], out[2])


def window_grid(t0: int, t_last: int, n: int, settings: Settings) -> tuple[int, int, int]:
    """(first µs, window length µs, number of windows) of ``n`` writes from ``t0`` to
    ``t_last``: whole minutes, between ``min_windows`` (a readable picture) and
    ``max_windows``, and otherwise long enough that a window holds about
    ``min_writes_per_window`` of the sample's writes."""
    t0 = int(t0) if n else 0
    span = max(int(t_last) - t0, 1) if n else 1
    step = max(int(settings.window_minutes), 1) * MINUTE_US
    want = max(settings.min_windows, n // max(settings.min_writes_per_window, 1))
    want = max(1, min(settings.max_windows, want))
    win = max(step, -(-span // want))  # ceil
    win = -(-win // step) * step  # whole window_minutes
    return t0, win, max(1, -(-(span + 1) // win))


def time_ids(ts: np.ndarray, t0: int, win_us: int, per_window: int) -> np.ndarray:
    """Index of the time slot of each timestamp: ``per_window`` equal slots per window, in place."""
    out = np.empty(len(ts), dtype=np.int32)
    for a in range(0, len(ts), CHUNK_ROWS):  # in slices: no int64 temporary of every write
        part = ts[a : a + CHUNK_ROWS] - t0
        part *= per_window
        part //= win_us
        out[a : a + CHUNK_ROWS] = part
    return out


def cell_of(win_of_rows: np.ndarray, rows: np.ndarray, buckets: int, n_rows: int) -> np.ndarray:
    """Flat (window, key bucket) index of rows, built in place in one int64 array."""
    out = rows.astype(np.int64)
    out *= buckets
    out //= max(n_rows, 1)
    tmp = win_of_rows.astype(np.int64)
    tmp *= buckets
    out += tmp
    return out


def first_writes(row: np.ndarray, n_rows: int) -> np.ndarray:
    """Per row, the index of its first write (writes are in time order; a row never written
    gets 0)."""
    n = len(row)
    first = np.zeros(n_rows, dtype=np.int32 if n < 2**31 else np.int64)
    # repeated indices: the last assignment (the earliest write) wins
    first[row[::-1]] = np.arange(n - 1, -1, -1, dtype=first.dtype)
    return first


@dataclass(frozen=True)
class KeyMatrices:
    """The (windows, key buckets) matrices Key Visualizer draws from the writes alone."""

    writes: np.ndarray  # sample mutations per window
    write_bytes: np.ndarray  # sample bytes written per window
    rows: np.ndarray  # rows that exist at the window's end
    data_bytes: np.ndarray  # bytes stored at the window's end
    large_rows: np.ndarray  # rows over the large-row size at the window's end


def write_matrices(
    w: Writes,
    win: np.ndarray,
    first: np.ndarray,
    row_bytes: np.ndarray,
    shape: tuple[int, int],
    large_row_bytes: float,
    key_rows: np.ndarray | None = None,
) -> KeyMatrices:
    """Writes, bytes, rows, data and large rows per (window, key bucket) for ``shape`` =
    (windows, buckets); ``win`` is each write's window, ``first`` each row's first write,
    ``row_bytes`` each row's bytes; ``key_rows``: the rows each key's range holds (None: one
    each), counted from the range's first write, and only a range of one row can be large."""
    W, B = shape
    R = len(row_bytes)
    n = len(w.row)
    writes_flat = np.zeros(W * B, dtype=np.int64)
    wbytes_flat = np.zeros(W * B)
    for a in range(0, n, CHUNK_ROWS):  # in slices: an int64 cell id per write is 80 MB at 10M
        cell_wb = cell_of(win[a : a + CHUNK_ROWS], w.row[a : a + CHUNK_ROWS], B, R)
        writes_flat += np.bincount(
            cell_wb, weights=w.weights(a, a + CHUNK_ROWS), minlength=W * B
        ).astype(np.int64)
        wbytes_flat += np.bincount(cell_wb, weights=w.nbytes[a : a + CHUNK_ROWS], minlength=W * B)
        del cell_wb
    writes_m = writes_flat.reshape(W, B)
    wbytes_m = wbytes_flat.reshape(W, B)
    born_m = np.zeros(W * B, dtype=np.int64)
    for a in range(0, R, CHUNK_ROWS):  # in slices of rows, as above
        rows = np.arange(a, min(a + CHUNK_ROWS, R))
        born = None if key_rows is None else key_rows[rows]
        born_m += np.bincount(
            cell_of(win[first[rows]], rows, B, R), weights=born, minlength=W * B
        ).astype(np.int64)
    rows_m = np.cumsum(born_m.reshape(W, B), axis=0)
    del born_m
    single = row_bytes if key_rows is None else np.where(key_rows == 1, row_bytes, 0.0)
    return KeyMatrices(
        writes=writes_m,
        write_bytes=wbytes_m,
        rows=rows_m,
        data_bytes=np.cumsum(wbytes_m, axis=0),
        large_rows=large_row_matrix(w, win, single, shape, large_row_bytes),
    )


def large_row_matrix(
    w: Writes, win: np.ndarray, row_bytes: np.ndarray, shape: tuple[int, int], limit: float
) -> np.ndarray:
    """Rows over ``limit`` bytes per (window, key bucket), counted from the window each row
    crosses the limit."""
    B, R = shape[1], len(row_bytes)
    large_m = np.zeros(shape)
    big = np.flatnonzero(row_bytes > limit)
    if not len(big):
        return large_m
    sel = np.isin(w.row, big)
    rr, bb, ww = w.row[sel], w.nbytes[sel].astype(np.float64), win[sel]
    o = np.lexsort((ww, rr))
    rr, bb, ww = rr[o], bb[o], ww[o]
    cum = np.cumsum(bb)
    starts = np.r_[0, np.flatnonzero(np.diff(rr)) + 1]
    cum -= np.repeat(np.r_[0.0, cum[starts[1:] - 1]], np.diff(np.r_[starts, len(rr)]))
    over = cum > limit
    first_over = np.unique(rr[over], return_index=True)
    cross = ww[over][first_over[1]]
    np.add.at(large_m, (cross, (first_over[0].astype(np.int64) * B) // max(R, 1)), 1)
    return np.cumsum(large_m, axis=0)


def query_rates(
    seen_rows: Mapping[str, np.ndarray], weights: Mapping[str, float], qps: float
) -> dict[str, float]:
    """Each query's rate: ``qps`` split by the intents' weights (1 when not given)."""
    names = list(seen_rows)
    wsum = sum(float(weights.get(q, 1.0)) for q in names) or 1.0
    return {q: qps * float(weights.get(q, 1.0)) / wsum for q in names}


def read_load(
    row_bytes: np.ndarray,
    seen_rows: Mapping[str, np.ndarray],
    rates: Mapping[str, float],
    node_s: Mapping[str, float],
    settings: Settings,
    cell_of_row: Callable[[np.ndarray], np.ndarray],
    n_cells: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row, the queries' CPU (node-seconds per second, dense); per (window a row appears,
    key bucket): rows read per second and bytes read per second.

    A query's CPU is its plan's modelled node time (``node_s``, from the query costs: one
    number), shared over the rows it sees in proportion to a planning row (1 KB) plus the row's
    bytes, the two terms of the per-node figures (reads/s for 1 KB rows, scan MB/s). One query
    at a time, so memory stays a few arrays of the rows one query sees."""
    cpu = np.zeros(len(row_bytes), dtype=np.float32)  # per row: float32 halves the 10M path
    ops = np.zeros(n_cells)
    nbytes = np.zeros(n_cells)
    rb_rate = settings.node_rates()
    for name, seen in seen_rows.items():
        rate = float(rates.get(name, 0.0))
        if rate <= 0 or not len(seen):
            continue
        seen = np.asarray(seen)
        if len(seen) > 1 and not (seen[1:] > seen[:-1]).all():  # query costs give them sorted
            seen = np.unique(seen)
        seen_bytes = float(row_bytes[seen].sum())
        total_s = node_s.get(name)
        if total_s is None:  # no query-cost table: the same per-node figures, rows and bytes
            total_s = len(seen) / rb_rate[0] + seen_bytes / rb_rate[2]
        wsum = settings.planning_row_bytes * len(seen) + seen_bytes
        per = rate * float(total_s) / max(wsum, 1.0)
        for a in range(0, len(seen), CHUNK_ROWS):  # in slices: a full scan sees every row
            part = seen[a : a + CHUNK_ROWS]
            rb = row_bytes[part]
            cpu[part] += (settings.planning_row_bytes + rb) * per
            cell = cell_of_row(part)
            ops += np.bincount(cell, minlength=n_cells) * rate
            nbytes += np.bincount(cell, weights=rb, minlength=n_cells) * rate
            del rb, cell
    return cpu, ops, nbytes


def window_reads(
    row_bytes: np.ndarray,
    when: tuple[np.ndarray, np.ndarray, int],
    workload: tuple[Mapping[str, np.ndarray], Mapping[str, float], Mapping[str, float]],
    qps: float,
    settings: Settings,
    shape: tuple[int, int],
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """(read CPU per row, (rows read, bytes read) per (window, key bucket)) of the workload.

    ``when`` is (each write's window, each row's first write, the window length in µs);
    ``workload`` is (query → rows seen, query → weight, query → node-seconds per run). A query
    reads the rows that exist by then: a row's reads start in the window it is first written."""
    win, first, win_us = when
    seen_rows, weights, node_s = workload
    W, B = shape
    R = len(row_bytes)
    rcpu, rops, rbytes = read_load(
        row_bytes,
        seen_rows,
        query_rates(seen_rows, weights, qps),
        dict(node_s),
        settings,
        lambda rows: cell_of(win[first[rows]], rows, B, R),
        W * B,
    )
    win_s = win_us / 1e6
    return rcpu, (
        np.cumsum(rops.reshape(W, B), 0) * win_s,
        np.cumsum(rbytes.reshape(W, B), 0) * win_s,
    )


def production_rates(
    n: int,
    span_s: float,
    win_s: float,
    write_rate_per_s: float | None,
    queries_per_s: float | None,
) -> dict[str, float]:
    """The sample's own write rate (``data``: ``n`` writes over the span, at least a window),
    the production write and query rates (given; writes else the data's own, queries else
    none: a read load nobody stated is not drawn) and the ``scale``: production writes per
    sample write."""
    from ..errors import WorkbenchError

    data_rate = n / max(span_s, win_s)
    rate = float(data_rate if write_rate_per_s is None else write_rate_per_s)
    if rate < 0:
        raise WorkbenchError(f"write_rate_per_s must be ≥ 0, got {rate}.")
    qps = float(0.0 if queries_per_s is None else queries_per_s)
    return {
        "data": data_rate,
        "rate": rate,
        "qps": qps,
        "scale": rate / data_rate if data_rate > 0 else 0.0,
    }
