"""Key distribution over time: a simulated Key Visualizer on a tablet/node model (G06, G07, G08, G23).

Cloud Bigtable stores rows sorted by key in *tablets* (contiguous key ranges);
a tablet that grows too large splits in two, and tablets are moved between
nodes to even out load. Writes whose keys all increase (a timestamp first in
the key) always land at the end of the key space: in one tablet, on one node,
whatever the cluster size. That is the hotspot this module makes visible.

The model, replayed from the CellFrame in event-time order:

* a *write* is one mutation: the cells with the same row key and the same
  timestamp (one event);
* time is cut into ``settings.time_windows`` equal windows; within a window the
  tablets and their node assignment are fixed;
* at the end of each window every tablet over the split threshold splits at
  its byte median (the threshold is scaled to the dataset so a workshop
  dataset ends with ``target_tablets``–2×``target_tablets`` tablets), then the
  tablets are dealt to nodes by the window's write load (heaviest first, in a
  snake order, ties by size) — the next window is served by that assignment;
* reads come from the dataset's query workload: each intent's plan rows-seen,
  weighted by ``intent.weight`` and spread evenly over time.

Everything is numpy over integer arrays (searchsorted / bincount); the only
Python loop is over time windows and tablet splits.

Why one module: the replay is one simulation over shared per-window state (tablet bounds,
node assignment, load splits, reads); the result class reruns it (``at_nodes``). The hot-tablet
table and the figure inputs could move out once the model settles.
"""

from __future__ import annotations

import html
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..notes import EMULATOR_NOTES
from ._index import CellIndex
from .settings import DEFAULT, Settings

_DELIMS = ("#", "|", "/", ":", ",", ".", "_", "-")
_CHUNK_ROWS = 1 << 20  # rows per slice where a per-row temporary would be large
_CHUNK_CELLS = 1 << 21  # cells per slice where a per-cell sort's temporaries would be large
_KEEP_WRITES = 1_000_000  # a KeyDistribution keeps its writes for re-runs up to this many


@dataclass(frozen=True)
class Writes:
    """One entry per mutation (row × event timestamp), in event-time order."""

    row: np.ndarray  # global row id (key rank)
    ts: np.ndarray  # µs
    nbytes: np.ndarray
    cells: np.ndarray


def _row_slices(row: np.ndarray, cells: int) -> Iterator[tuple[int, int]]:
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
    parts: list[tuple[np.ndarray, ...]] = []
    for a, b in _row_slices(index.row, _CHUNK_CELLS):
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


def key_delimiter(keys: np.ndarray) -> str:
    """The segment delimiter the keys use most (``#`` as in the paper's keys when tied)."""
    sample = "".join(keys[:: max(1, len(keys) // 200)][:200]) if len(keys) else ""
    counts = {d: sample.count(d) for d in _DELIMS}
    best = max(_DELIMS, key=lambda d: (counts[d], d == "#"))
    return best if counts[best] else "#"


def common_prefix(a: str, b: str) -> str:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return a[:n]


def prefix_labels(
    first_keys: np.ndarray, *, delimiter: str = "#", max_labels: int = 14, max_chars: int = 28
) -> list[tuple[int, str]]:
    """Label positions (bucket index, text) at boundaries of the key-prefix hierarchy.

    Uses the deepest segment depth whose groups still fit ``max_labels``; when
    even the first segment changes too often (a timestamp first), evenly spaced
    group starts are labelled instead.
    """
    if len(first_keys) == 0:
        return []
    segs = [k.split(delimiter) for k in first_keys]
    best: list[tuple[int, str]] = []
    for depth in (1, 2, 3, 4):
        pref = [delimiter.join(s[:depth]) for s in segs]
        starts = [0] + [i for i in range(1, len(pref)) if pref[i] != pref[i - 1]]
        if len(starts) > max_labels:
            if len(best) < 2:  # too coarse above, too fine here (a timestamp): sample evenly
                pick = np.unique(np.linspace(0, len(starts) - 1, max_labels).round().astype(int))
                best = [(starts[i], pref[starts[i]]) for i in pick]
            break
        best = [(i, pref[i]) for i in starts]
        if all(len(s) <= depth for s in segs):
            break
    out = []
    for pos, text in best or []:
        out.append((pos, text if len(text) <= max_chars else text[: max_chars - 1] + "…"))
    return out


# -- the load model -------------------------------------------------------------------------


def _windows(ts: np.ndarray, n: int, settings: Settings) -> tuple[int, int, int]:
    """(first µs, window length µs, number of windows): whole minutes, between ``min_windows``
    (a readable picture) and ``max_windows``, and otherwise long enough that a window holds
    about ``min_writes_per_window`` of the sample's writes."""
    minute = 60_000_000
    t0 = int(ts[0]) if n else 0
    span = max(int(ts[-1]) - t0, 1) if n else 1
    step = max(int(settings.window_minutes), 1) * minute
    want = max(settings.min_windows, n // max(settings.min_writes_per_window, 1))
    want = max(1, min(settings.max_windows, want))
    win = max(step, -(-span // want))  # ceil
    win = -(-win // step) * step  # whole window_minutes
    return t0, win, max(1, -(-(span + 1) // win))


def _read_load(
    row_bytes: np.ndarray,
    seen_rows: Mapping[str, np.ndarray],
    rates: Mapping[str, float],
    node_s: Mapping[str, float],
    settings: Settings,
    cell_of_row,
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
        for a in range(0, len(seen), _CHUNK_ROWS):  # in slices: a full scan sees every row
            part = seen[a : a + _CHUNK_ROWS]
            rb = row_bytes[part]
            cpu[part] += (settings.planning_row_bytes + rb) * per
            cell = cell_of_row(part)
            ops += np.bincount(cell, minlength=n_cells) * rate
            nbytes += np.bincount(cell, weights=rb, minlength=n_cells) * rate
            del rb, cell
    return cpu, ops, nbytes


def _time_ids(ts: np.ndarray, t0: int, win_us: int, per_window: int) -> np.ndarray:
    """Index of the time slot of each timestamp: ``per_window`` equal slots per window, in place."""
    out = np.empty(len(ts), dtype=np.int32)
    for a in range(0, len(ts), _CHUNK_ROWS):  # in slices: no int64 temporary of every write
        part = ts[a : a + _CHUNK_ROWS] - t0
        part *= per_window
        part //= win_us
        out[a : a + _CHUNK_ROWS] = part
    return out


def _cell_of(win_of_rows: np.ndarray, rows: np.ndarray, buckets: int, n_rows: int) -> np.ndarray:
    """Flat (window, key bucket) index of rows, built in place in one int64 array."""
    out = rows.astype(np.int64)
    out *= buckets
    out //= max(n_rows, 1)
    tmp = win_of_rows.astype(np.int64)
    tmp *= buckets
    out += tmp
    return out


def _lpt(load: np.ndarray, current: np.ndarray, nodes: int) -> np.ndarray:
    """Node per tablet: loaded tablets heaviest first onto the least-loaded node (longest
    processing time first) for the heaviest few per node, the light rest dealt in that order
    onto the nodes from the least loaded up; tablets without load stay where they are."""
    import heapq

    out = current.copy()
    loaded = np.flatnonzero(load > 0)
    order = loaded[np.argsort(-load[loaded], kind="stable")]
    heap = [(0.0, i) for i in range(nodes)]
    head, tail = order[: 4 * nodes], order[4 * nodes :]
    for t in head.tolist():
        lo, i = heapq.heappop(heap)
        out[t] = i
        heapq.heappush(heap, (lo + float(load[t]), i))
    if len(tail):
        by_load = np.array([i for _, i in sorted(heap)])
        p = np.arange(len(tail))
        lap, pos = np.divmod(p, nodes)
        out[tail] = by_load[np.where(lap % 2 == 0, pos, nodes - 1 - pos)]
    return out


def _split_points(
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
    median. A run of new rows written in key order (a write frontier) is never cut
    (``allowed[i]`` is False before such a row): its next writes land past its end whatever the
    split, so the cut would relieve nothing."""
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
                    found.setdefault("row", {})[r] = max(found.get("row", {}).get(r, 0.0), total)
                else:
                    found["frontier"] = max(found.get("frontier", 0.0), total)
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
                found["frontier"] = max(found.get("frontier", 0.0), total)
                continue
            cuts = [int(pos[np.abs(left - total / 2).argmin()])]
        out.extend(cuts)
        bounds = [a, *cuts, b]
        stack.extend(zip(bounds[:-1], bounds[1:], strict=True))
    return out


@dataclass
class KeyDistribution:
    """Load over time × key space (a simulated Key Visualizer), per-node CPU and the hotspot figure.

    Matrices are (windows, key buckets); ``writes`` counts the sample's mutations, every other
    load figure is at the production rate (``write_rate_per_s``, ``queries_per_s``)."""

    writes: np.ndarray  # sample mutations
    reads: np.ndarray  # rows read per window by the query workload (production rate)
    write_bytes: np.ndarray  # sample bytes written
    read_bytes: np.ndarray  # bytes read per window (production rate)
    rows: np.ndarray  # rows that exist at the window's end
    data_bytes: np.ndarray  # bytes stored at the window's end (sample)
    large_rows: np.ndarray  # rows over the large-row size at the window's end
    pressure: np.ndarray  # 100 × CPU of the serving node ÷ CPU target, where the bucket had ops
    window_edges_us: np.ndarray  # (windows + 1,)
    bucket_first_key: np.ndarray
    labels: list[tuple[int, str]]
    node_cpu: np.ndarray  # (windows, nodes): CPU of each node, 1.0 = one node fully busy
    node_writes: np.ndarray  # (windows, nodes): sample writes per node
    busiest_share: np.ndarray  # (windows,): busiest node's share of the CPU load (nan: no load)
    tablet_share: np.ndarray  # (windows,): busiest tablet's share of the CPU load
    tablet_write_share: np.ndarray  # (windows,): busiest tablet's share of the writes
    write_share: np.ndarray  # (windows,): busiest node's share of the writes
    nodes: int
    n_writes: int
    n_rows: int
    n_tablets: int
    tablet_starts: np.ndarray  # final tablets, as key ranks
    hot_tablets: pd.DataFrame  # like ListHotTablets: window, CPU %, start and end key
    hot_rows: dict[str, float] = field(default_factory=dict)  # single rows no split can relieve
    frontier: bool = False  # the busiest load is a run of new keys (a write frontier)
    busiest_range: dict = field(default_factory=dict)
    warmup_windows: int = 0  # windows before the first rebalance could take effect
    delimiter: str = "#"
    write_rate_per_s: float = 0.0  # production mutations/s the model ran at
    queries_per_s: float = 0.0
    data_writes_per_s: float = 0.0  # the sample's own rate
    window_minutes: float = 1.0
    write_cpu: float = 0.0  # mean CPU of the writes, in nodes
    read_cpu: float = 0.0  # mean CPU of the reads, in nodes
    read_note: str = ""
    schema_name: str = ""
    settings: Settings = field(default=DEFAULT, repr=False)
    inputs: dict = field(default_factory=dict, repr=False, compare=False)  # to re-run the model
    _runs: dict = field(default_factory=dict, repr=False, compare=False)

    # -- the same workload on another cluster ----------------------------------------------
    def rerun(self, **changes: object) -> KeyDistribution:
        """The model again with the same data and workload, changing ``nodes``,
        ``write_rate_per_s``, ``queries_per_s``, ``pre_splits`` or ``settings``."""
        if not self.inputs:
            raise ValueError("This KeyDistribution was not made by key_distribution().")
        return key_distribution(**{**self.inputs, **changes})

    def at_nodes(self, nodes: int) -> KeyDistribution:
        """The same workload on ``nodes`` nodes (cached)."""
        if nodes == self.nodes:
            return self
        if nodes not in self._runs:
            self._runs[nodes] = self.rerun(nodes=nodes)
        return self._runs[nodes]

    # -- headline figures ------------------------------------------------------------------
    @property
    def fair_share(self) -> float:
        return 1.0 / self.nodes

    def _settled(self, a: np.ndarray) -> np.ndarray:
        s = a[self.warmup_windows :]
        s = s[~np.isnan(s)]
        return s if len(s) else a[~np.isnan(a)]

    def _weighted(self, share: np.ndarray, weight: np.ndarray) -> float:
        """Load-weighted mean of a per-window share after warm-up: of all the work done, the share
        the busiest node (tablet) did at the time (a near-idle window counts for little)."""
        s, wt = share[self.warmup_windows :], weight[self.warmup_windows :]
        if not np.nansum(wt):
            s, wt = share, weight
        ok = ~np.isnan(s) & (wt > 0)
        return float((s[ok] * wt[ok]).sum() / wt[ok].sum()) if ok.any() else float("nan")

    @property
    def max_share(self) -> float:
        """Busiest node's share of a window's load, worst window after warm-up."""
        s = self._settled(self.busiest_share)
        return float(s.max()) if len(s) else float("nan")

    @property
    def mean_share(self) -> float:
        """Busiest node's share of the load (reads + writes as CPU), per window, load-weighted
        mean after warm-up."""
        return self._weighted(self.busiest_share, self.node_cpu.sum(axis=1))

    @property
    def mean_tablet_share(self) -> float:
        """Busiest tablet's share of the load, as ``mean_share``: what no node count beats."""
        return self._weighted(self.tablet_share, self.node_cpu.sum(axis=1))

    @property
    def mean_tablet_write_share(self) -> float:
        """Busiest tablet's share of the writes, per window, write-weighted mean after warm-up."""
        return self._weighted(self.tablet_write_share, self.node_writes.sum(axis=1))

    @property
    def mean_write_share(self) -> float:
        """Busiest node's share of the writes, write-weighted mean after warm-up."""
        return self._weighted(self.write_share, self.node_writes.sum(axis=1))

    @property
    def hotspot_factor(self) -> float:
        """Busiest node's load over its fair share, mean after warm-up (1.0 = perfectly even)."""
        return self.mean_share * self.nodes

    @property
    def busiest_node_cpu(self) -> float:
        """CPU of the busiest node (1.0 = one node), 95th percentile of the windows after warm-up."""
        s = self._settled(self.node_cpu.max(axis=1)) if self.node_cpu.size else np.zeros(0)
        return float(np.percentile(s, 95)) if len(s) else 0.0

    @property
    def busiest_tablet_cpu(self) -> float:
        """CPU of the busiest tablet (1.0 = one node), 95th percentile after warm-up."""
        tot = self.node_cpu.sum(axis=1)
        s = self._settled(np.where(np.isnan(self.tablet_share), np.nan, self.tablet_share * tot))
        return float(np.percentile(s, 95)) if len(s) else 0.0

    @property
    def span_s(self) -> float:
        return max((self.window_edges_us[-1] - self.window_edges_us[0]) / 1e6, 1e-6)

    @property
    def writes_per_s(self) -> float:
        """The sample's own write rate (mutations per second of event time)."""
        return self.n_writes / self.span_s

    @property
    def peak_writes_per_s(self) -> float:
        w = self.window_minutes * 60.0
        return float(self.node_writes.sum(axis=1).max() / w) if self.node_writes.size else 0.0

    @property
    def scale(self) -> float:
        """Production writes each sample write stands for."""
        return self.write_rate_per_s / self.data_writes_per_s if self.data_writes_per_s else 1.0

    def metric(self, name: str) -> np.ndarray:
        """A Key Visualizer metric as a (windows, buckets) matrix, per minute where it is a rate."""
        per_min = 1.0 / max(self.window_minutes, 1e-9)
        m = {
            "ops": lambda: (self.writes * self.scale + self.reads) * per_min,
            "writes": lambda: self.writes * self.scale * per_min,
            "reads": lambda: self.reads * per_min,
            "write_bytes": lambda: self.write_bytes * self.scale * per_min,
            "read_bytes": lambda: self.read_bytes * per_min,
            "rows": lambda: self.rows,
            "data": lambda: self.data_bytes,
            "large_rows": lambda: self.large_rows,
            "pressure": lambda: self.pressure,
        }
        if name not in m:
            raise ValueError(f"metric must be one of {sorted(m)}, got {name!r}.")
        return m[name]()

    @property
    def spread(self) -> str:
        """``"hotspot"``: one tablet (on more than one node: one node) takes ≥ 80 % of each
        window's load; ``"even"``: the busiest node carries ≤ 1.5× its fair share (on one node:
        no tablet is a hotspot); ``"uneven"`` between. Every title, colour and verdict follows it."""
        if (
            self.mean_tablet_share >= 0.8
            or self.mean_tablet_write_share >= 0.8
            or (self.nodes > 1 and self.mean_share >= 0.8)
        ):
            return "hotspot"
        if self.nodes == 1:
            return "even"
        return "even" if self.hotspot_factor <= 1.5 else "uneven"

    def _row_why(self) -> str:
        if not self.hot_rows:
            return ""
        key = max(self.hot_rows, key=lambda k: self.hot_rows[k])
        return f"one row, {key!r}, carries it and a row cannot be split"

    def _why(self) -> str:
        if self.frontier:
            return "new keys arrive in key order (a write frontier): no split or node spreads it"
        return self._row_why()

    def verdict(self) -> str:
        """The takeaway in one line (used as the figures' titles)."""
        if self.n_writes == 0 and not self.reads.any():
            return "No load"
        if self.spread == "hotspot":
            what = "tablet" if self.nodes == 1 else "node"
            share = self.mean_tablet_share if self.nodes == 1 else self.mean_share
            why = self._why()
            return f"Hotspot: one {what} takes {share:.0%} of each window's load" + (
                f"; {why}" if why else f" (fair share {self.fair_share:.0%})"
            )
        row = f" ({self._row_why()})" if self.hot_rows else ""
        if self.nodes == 1:
            return (
                f"One node serves everything; the busiest tablet takes {self.mean_tablet_share:.0%}"
                f" of the load, so more nodes would share it{row}"
            )
        if self.spread == "even":
            return (
                f"Load spread evenly: busiest node {self.hotspot_factor:.2f}× its fair share{row}"
            )
        floor = (
            f"; its busiest tablet alone takes {self.mean_tablet_share:.0%}"
            if self.mean_tablet_share * self.nodes > 1.2
            else ""
        )
        return f"Uneven load: busiest node carries {self.hotspot_factor:.1f}× its fair share" + (
            row or floor
        )

    def diagnostics(self) -> list[dict[str, str]]:
        """Key Visualizer's diagnostic messages, in its words, where this model shows them."""
        st, out = self.settings, []
        if self.n_writes == 0 and not self.reads.any():
            return [{"message": "No data scanned", "severity": "info", "detail": "no load at all"}]
        poor = self.pressure >= st.pressure_poor
        single = bool(self.hot_rows)
        for kind, m in (("write", self.writes), ("read", self.reads)):
            hit = poor & (m > 0)
            if hit.any():
                out.append(
                    {
                        "message": f"High {kind} pressure",
                        "severity": "danger" if single else "warning",
                        "detail": f"{int(hit.any(axis=0).sum())} key bucket(s) on a node over "
                        f"{st.cpu_target:.0%} CPU" + (" (caused by single rows)" if single else ""),
                    }
                )
        last_rows = self.rows[-1] if self.rows.size else np.zeros(0)
        last_data = self.data_bytes[-1] if self.data_bytes.size else np.zeros(0)
        with np.errstate(invalid="ignore", divide="ignore"):
            avg = np.where(last_rows > 0, last_data / np.maximum(last_rows, 1), 0)
        if self.large_rows.any() or (avg > st.large_row_range_avg_bytes).any():
            out.append(
                {
                    "message": "Large rows",
                    "severity": "warning",
                    "detail": f"rows over {st.large_row_bytes / 2**20:,.0f} MiB or key ranges "
                    f"averaging over {st.large_row_range_avg_bytes / 1e6:,.0f} MB per row",
                }
            )
        if self.n_rows < st.key_buckets:
            out.append(
                {
                    "message": "Key space not to scale",
                    "severity": "info",
                    "detail": f"{self.n_rows:,} rows cannot fill {st.key_buckets:,} key buckets",
                }
            )
        return out

    def summary(self) -> dict[str, object]:
        return {
            "nodes": self.nodes,
            "writes": self.n_writes,
            "rows": self.n_rows,
            "tablets": self.n_tablets,
            "busiest_node_share_mean": self.mean_share,
            "busiest_node_share_max": self.max_share,
            "busiest_tablet_share_mean": self.mean_tablet_share,
            "busiest_node_write_share_mean": self.mean_write_share,
            "fair_share": self.fair_share,
            "hotspot_factor": self.hotspot_factor,
            "busiest_range": self.busiest_range.get("name", ""),
            "hot_rows": list(self.hot_rows),
            "write_frontier": self.frontier,
            "write_rate_per_s": self.write_rate_per_s,
            "queries_per_s": self.queries_per_s,
            "busiest_node_cpu": self.busiest_node_cpu,
            "window_minutes": self.window_minutes,
            "warmup_windows": self.warmup_windows,
        }

    def _repr_html_(self) -> str:
        from ..formatting import styled
        from ..plots import figure_html
        from ..plots.heatmap import plot_key_heatmap
        from ..plots.keyspace import plot_hotspot, plot_node_load, plot_node_sweep

        s = self.summary()
        diag = "".join(
            f"<li><b>{html.escape(d['message'])}</b> ({d['severity']}): {html.escape(d['detail'])}</li>"
            for d in self.diagnostics()
        )
        hot = self.hot_tablets.head(5)
        return (
            f"<div><b>Key distribution</b> {html.escape(self.schema_name)}: {html.escape(self.verdict())}. "
            f"{s['tablets']} tablets on {self.nodes} nodes; busiest key range "
            f"<code>{html.escape(str(s['busiest_range']))}</code>"
            + (f"<ul>{diag}</ul>" if diag else "")
            + figure_html(plot_key_heatmap, self, emulator_note=False)
            + figure_html(plot_node_load, self)
            + figure_html(plot_hotspot, self)
            + figure_html(plot_node_sweep, self)
            + (
                "<p><b>Hot tablets</b> (as ListHotTablets reports them)</p>"
                + styled(hot).hide(axis="index").to_html()
                if len(hot)
                else ""
            )
            + f"<p><small>{html.escape(EMULATOR_NOTES['keyspace'])}</small></p></div>"
        )


def _label(index: CellIndex, lo: int, hi: int) -> str:
    first, last = index.key(lo), index.key(hi)
    pref = common_prefix(first, last)
    if first == last:
        return first
    if len(pref) >= 4:
        return pref + "…"
    return f"{first[:24]} … {last[:24]}"  # the range spans several top-level prefixes


def key_distribution(
    index: CellIndex,
    *,
    seen_rows: Mapping[str, np.ndarray] | None = None,
    weights: Mapping[str, float] | None = None,
    query_node_s: Mapping[str, float] | None = None,
    nodes: int | None = None,
    settings: Settings = DEFAULT,
    write_rate_per_s: float | None = None,
    queries_per_s: float | None = None,
    pre_splits: int | None = None,
    writes: Writes | None = None,
    schema_name: str = "",
) -> KeyDistribution:
    """Replay the sample's writes and the query workload over the tablet/node model.

    ``seen_rows`` (query → row ids the production execution reads) and ``weights`` give the
    reads, ``query_node_s`` each query's modelled node-seconds per run (the query-cost table);
    ``write_rate_per_s``/``queries_per_s`` the production rates (default: settings, then the
    data's own write rate and ``queries_per_write``); ``pre_splits`` the table's split points at
    creation (evenly over the final keys)."""
    from ..errors import WorkbenchError

    st = settings
    nodes = st.nodes if nodes is None else int(nodes)
    if nodes < 1:
        raise WorkbenchError(f"nodes must be at least 1, got {nodes}.")
    w = writes if writes is not None else writes_from_index(index)
    R = index.n_rows
    B = max(1, min(st.key_buckets, R))
    n = len(w.row)
    t0, win_us, W = _windows(w.ts, n, st)
    win_s = win_us / 1e6
    edges = t0 + np.arange(W + 1, dtype=np.int64) * win_us
    win = _time_ids(w.ts, t0, win_us, 1)
    span_s = max((int(w.ts[-1]) - t0) / 1e6, win_s) if n else win_s
    data_rate = n / span_s
    rate = write_rate_per_s if write_rate_per_s is not None else st.write_rate_per_s
    rate = float(data_rate if rate is None else rate)
    if rate < 0:
        raise WorkbenchError(f"write_rate_per_s must be ≥ 0, got {rate}.")
    scale = rate / data_rate if data_rate > 0 else 0.0
    qps = queries_per_s if queries_per_s is not None else st.queries_per_s
    qps = float(st.queries_per_write * rate if qps is None else qps)
    reads_per_node, writes_per_node, _scan = st.node_rates()
    prb = float(st.planning_row_bytes)

    # -- the matrices Key Visualizer draws ------------------------------------------------
    def bucket(rows: np.ndarray) -> np.ndarray:
        return (rows.astype(np.int64) * B) // max(R, 1)

    writes_flat = np.zeros(W * B, dtype=np.int64)
    wbytes_flat = np.zeros(W * B)
    for a in range(0, n, _CHUNK_ROWS):  # in slices: an int64 cell id per write is 80 MB at 10M
        cell_wb = _cell_of(win[a : a + _CHUNK_ROWS], w.row[a : a + _CHUNK_ROWS], B, R)
        writes_flat += np.bincount(cell_wb, minlength=W * B)
        wbytes_flat += np.bincount(cell_wb, weights=w.nbytes[a : a + _CHUNK_ROWS], minlength=W * B)
        del cell_wb
    writes_m = writes_flat.reshape(W, B)
    wbytes_m = wbytes_flat.reshape(W, B)
    # each row's first write (writes are in time order); repeated indices: the last assignment
    # (the earliest write) wins
    first = np.zeros(R, dtype=np.int32 if n < 2**31 else np.int64)
    first[w.row[::-1]] = np.arange(n - 1, -1, -1, dtype=first.dtype)
    born_m = np.zeros(W * B, dtype=np.int64)
    for a in range(0, R, _CHUNK_ROWS):  # in slices of rows, as above
        rows = np.arange(a, min(a + _CHUNK_ROWS, R))
        born_m += np.bincount(_cell_of(win[first[rows]], rows, B, R), minlength=W * B)
    rows_m = np.cumsum(born_m.reshape(W, B), axis=0)
    del born_m
    data_m = np.cumsum(wbytes_m, axis=0)
    # bytes per row, from the writes (no per-cell int64 copy of the index)
    row_bytes = np.bincount(w.row, weights=w.nbytes, minlength=R)
    large_m = np.zeros((W, B))
    big = np.flatnonzero(row_bytes > st.large_row_bytes)
    if len(big):  # the window each large row crosses the limit
        sel = np.isin(w.row, big)
        rr, bb, ww = w.row[sel], w.nbytes[sel].astype(np.float64), win[sel]
        o = np.lexsort((ww, rr))
        rr, bb, ww = rr[o], bb[o], ww[o]
        cum = np.cumsum(bb)
        starts = np.r_[0, np.flatnonzero(np.diff(rr)) + 1]
        cum -= np.repeat(np.r_[0.0, cum[starts[1:] - 1]], np.diff(np.r_[starts, len(rr)]))
        over = cum > st.large_row_bytes
        first_over = np.unique(rr[over], return_index=True)
        cross = ww[over][first_over[1]]
        np.add.at(large_m, (cross, bucket(first_over[0])), 1)
        large_m = np.cumsum(large_m, axis=0)

    names = list((seen_rows or {}).keys())
    wsum = sum(float((weights or {}).get(q, 1.0)) for q in names) or 1.0
    rates = {q: qps * float((weights or {}).get(q, 1.0)) / wsum for q in names}
    # a query reads the rows that exist by then: a row's reads start in the window it is written
    rcpu, rops_m, rbytes_m = _read_load(
        row_bytes,
        seen_rows or {},
        rates,
        dict(query_node_s or {}),
        st,
        lambda rows: _cell_of(win[first[rows]], rows, B, R),
        W * B,
    )
    del row_bytes
    reads_m = np.cumsum(rops_m.reshape(W, B), 0) * win_s
    rbytes_m = np.cumsum(rbytes_m.reshape(W, B), 0) * win_s
    del rops_m
    live = np.zeros(R, dtype=np.float32)  # read CPU of the rows written so far

    # -- tablets --------------------------------------------------------------------------
    table_starts = np.searchsorted(index.row_table, np.unique(index.row_table), "left")
    ps = st.pre_splits if pre_splits is None else int(pre_splits)
    extra = (
        np.linspace(0, R, ps + 2)[1:-1].astype(np.int64)
        if ps > 0 and R
        else np.zeros(0, dtype=np.int64)
    )
    starts = np.unique(np.r_[np.asarray(table_starts, dtype=np.int64), extra, 0]).astype(np.int64)
    starts = starts[starts < max(R, 1)]
    node = np.arange(len(starts)) % nodes  # a new table's tablets dealt round the nodes
    size = np.zeros(len(starts))
    t_read = np.zeros(len(starts))  # read CPU per tablet of the rows that exist
    plan: tuple[int, np.ndarray, np.ndarray] | None = None
    # production bytes per tablet, in the sample's bytes; the sample resolves at most one size
    # tablet per key bucket (finer tablets would each hold less than a row of it)
    sample_bytes = float(w.nbytes.sum()) if n else 0.0
    split_bytes = max(
        st.tablet_split_bytes / scale if scale > 0 else float("inf"), sample_bytes / B
    )
    wcost = scale / (writes_per_node * win_s) if win_s > 0 else 0.0

    node_cpu = np.zeros((W, nodes))
    node_wr = np.zeros((W, nodes))
    top_cpu, top_wr = (
        np.zeros(W),
        np.zeros(W),
    )  # busiest tablet's load, summed over a window's steps
    bucket_cpu = np.zeros((W, B))  # CPU of the busiest node serving part of each bucket
    first_rows = (np.arange(B, dtype=np.int64) * R + B - 1) // B  # first row of each bucket
    last_rows = np.r_[first_rows[1:], R] - 1
    # the balancer works at its own pace: steps of about `rebalance_minutes` inside each window,
    # a move decided in one step lands `lag` steps later
    # (but never so short that a step holds fewer than min_writes_per_step of the sample's
    # writes: the balancer would chase sampling noise the production rate does not have; and
    # at most max_steps in all, the designer's time budget)
    sub = max(1, int(np.ceil(win_s / 60.0 / max(st.rebalance_minutes, 1e-9) - 1e-9)))
    sub = max(1, min(sub, int(n / W / max(st.min_writes_per_step, 1)), st.max_steps // W))
    step_us = win_us / sub
    lag = max(1, int(np.ceil(st.rebalance_minutes * 60e6 / step_us - 1e-9)))
    S = W * sub
    step = np.minimum(_time_ids(w.ts, t0, win_us, sub), S - 1, dtype=np.int32) if n else win
    sstart = np.searchsorted(step, np.arange(S + 1), "left")
    # a row is read from the step it is first written in (reads of rows not yet written would
    # place read-driven cuts among a write frontier's future keys)
    read_rows = np.flatnonzero(rcpu > 0).astype(first.dtype)
    read_step = step[first[read_rows]] if n else np.zeros(len(read_rows), dtype=np.int32)
    read_order = np.argsort(read_step, kind="stable")
    read_born = read_rows[read_order]  # read rows in the order they come to exist
    del read_rows
    read_step = read_step[read_order]
    del read_order
    read_born_at = np.searchsorted(read_step, np.arange(S + 1), "left")
    # the cluster's typical step load: splits and moves answer load that matters against it, not
    # the relative imbalance of a near-idle step (a row is read from its step to the last)
    w_all = wcost / prb * float(np.maximum(w.nbytes, int(prb)).sum(dtype=np.float64)) if n else 0.0
    r_all = (
        S * float(rcpu.sum(dtype=np.float64))
        - float(np.dot(rcpu[read_born], read_step.astype(np.float32)))
    ) / sub
    del read_step
    typical = (w_all + r_all) / max(S, 1)
    hot: list[tuple[int, float, int, int]] = []
    found: dict = {}
    best = (0.0, -1, 0, 0)  # (cpu, window, first row, last row) of the busiest tablet after warm-up
    best_any = best
    idle: tuple[np.ndarray, float, np.ndarray] | None = (
        None  # a step without writes: the next one is the same
    )
    for j in range(S):
        k = j // sub
        if plan is not None and plan[0] <= j:  # a rebalance decided `lag` steps ago lands
            idx = np.searchsorted(plan[1], starts, "right") - 1
            node = plan[2][np.maximum(idx, 0)]
            plan = None
            idle = None
        a, b = sstart[j], sstart[j + 1]
        if read_born_at[j + 1] > read_born_at[j]:
            born_now = read_born[read_born_at[j] : read_born_at[j + 1]]
            live[born_now] = rcpu[born_now] / sub
            t_read += np.bincount(
                np.searchsorted(starts, born_now, "right") - 1,
                weights=live[born_now],
                minlength=len(starts),
            )
            idle = None
        if a == b and idle is not None:
            node_cpu[k] += idle[0]
            top_cpu[k] += idle[1]
            bucket_cpu[k] += idle[2]
            continue
        rr, bb = w.row[a:b], w.nbytes[a:b]
        ends = np.append(starts[1:], R)
        tab = np.searchsorted(starts, rr, "right") - 1
        wc = wcost * np.maximum(1.0, bb / prb)
        t_cpu = np.bincount(tab, weights=wc, minlength=len(starts)) + t_read
        nc = np.bincount(node, weights=t_cpu, minlength=nodes)
        node_cpu[k] += nc
        if b > a:
            t_wr = np.bincount(tab, minlength=len(starts))
            node_wr[k] += np.bincount(node, weights=t_wr, minlength=nodes)
            top_wr[k] += t_wr.max()
        # Key Visualizer reports the worst within a bucket: the busiest node among its tablets
        pair = np.empty(2 * B, dtype=np.int64)
        pair[0::2] = np.searchsorted(starts, first_rows, "right") - 1
        pair[1::2] = np.searchsorted(starts, last_rows, "right")
        bvec = np.maximum.reduceat(np.append(nc[node], 0.0), pair)[0::2]
        bucket_cpu[k] += bvec
        total = float(t_cpu.sum())
        if total > 0:
            order = np.argsort(-t_cpu)[:3]
            top_cpu[k] += t_cpu[order[0]]
            hot.extend(
                (j, float(t_cpu[t]) * sub, int(starts[t]), int(ends[t]))
                for t in order
                if t_cpu[t] > 0
            )
            top = int(order[0])
            cpu_top = float(t_cpu[top]) * sub
            settled = j >= lag
            if cpu_top > best_any[0] or (settled and cpu_top > best[0]):
                s_, e_ = int(starts[top]), int(ends[top])
                loaded = rr[(rr >= s_) & (rr < e_)]
                rd = np.flatnonzero(live[s_:e_]) + s_
                if len(loaded) or len(rd):
                    lo = int(min(loaded.min() if len(loaded) else R, rd.min() if len(rd) else R))
                    hi = int(max(loaded.max() if len(loaded) else -1, rd.max() if len(rd) else -1))
                    entry = (cpu_top, k, lo, hi)
                    best_any = entry if cpu_top > best_any[0] else best_any
                    best = entry if settled and cpu_top > best[0] else best
        if a == b:
            idle = (nc, float(t_cpu.max()) if len(t_cpu) else 0.0, bvec)
        else:
            idle = None
            size += np.bincount(tab, weights=bb, minlength=len(starts))
        # splits: by load (what this window carried) and by size
        thr = st.load_split_share * max(total, typical) / nodes
        new_cuts: list[int] = []
        cand_t = (
            np.flatnonzero((t_cpu > thr) & (ends - starts > 1)) if total > 0 else np.zeros(0, int)
        )
        single = (
            np.flatnonzero((t_cpu > thr) & (ends - starts == 1))
            if total > 0
            else np.zeros(0, dtype=np.int64)
        )
        for t in single:
            r = int(starts[t])
            found.setdefault("row", {})[r] = max(found.get("row", {}).get(r, 0.0), float(t_cpu[t]))
        if len(cand_t):
            lrows, inv = np.unique(rr, return_inverse=True)
            wcum = np.concatenate(([0.0], np.cumsum(np.bincount(inv, weights=wc))))
            # no cut inside a write frontier: consecutive new rows whose keys follow their write
            # order, forward (a timestamp) or backward (a reversed timestamp), whichever the
            # step's new keys mostly do; a cut where that order breaks separates two frontiers
            new = win[first[lrows]] == k  # rows first written in this window
            adj = new[1:] & new[:-1] & (np.diff(lrows) == 1)
            step_dir = np.sign(np.diff(w.ts[first[lrows]]))
            fwd = (step_dir[adj] >= 0).sum() >= (step_dir[adj] <= 0).sum()
            allowed = np.ones(len(lrows), dtype=bool)
            allowed[1:] = ~(adj & ((step_dir >= 0) if fwd else (step_dir <= 0)))
            # a tablet whose load is one frontier (no allowed cut, no reads) cannot split: skip it
            ac = np.concatenate(([0], np.cumsum(allowed)))
            s_c, e_c = starts[cand_t], ends[cand_t]
            i0 = np.searchsorted(lrows, s_c)
            i1 = np.searchsorted(lrows, e_c)
            stuck = (ac[i1] - ac[np.minimum(i0 + 1, i1)] == 0) & (t_read[cand_t] <= 0)
            stuck &= i1 - i0 > 1
            if stuck.any():
                found["frontier"] = max(
                    found.get("frontier", 0.0), float(t_cpu[cand_t[stuck]].max())
                )
            for t in cand_t[~stuck]:
                new_cuts += _split_points(
                    int(starts[t]), int(ends[t]), lrows, wcum, allowed, live, thr, found
                )
        big_t = np.flatnonzero((size > split_bytes) & (ends - starts > 1))
        if len(big_t):
            per_row = np.bincount(w.row[:b], weights=w.nbytes[:b], minlength=R)
            for t in big_t:
                s_, e_ = int(starts[t]), int(ends[t])
                cb = np.cumsum(per_row[s_:e_])
                cut = s_ + 1 + int(np.searchsorted(cb, cb[-1] / 2, "left"))
                if s_ < cut < e_:
                    new_cuts.append(cut)
        if new_cuts:
            old_starts = starts
            starts = np.unique(np.r_[starts, np.asarray(new_cuts, dtype=np.int64)])
            parent = np.searchsorted(old_starts, starts, "right") - 1
            node = node[parent]
            # sizes of the new tablets: the sample's bytes written so far per row range
            ends = np.append(starts[1:], R)
            if len(big_t):
                size = np.add.reduceat(per_row, starts)
                del per_row
            else:  # load cuts only: split the parents' sizes by the rows' bytes so far
                per_row = np.bincount(w.row[:b], weights=w.nbytes[:b], minlength=R)
                size = np.add.reduceat(per_row, starts)
                del per_row
            t_read = np.add.reduceat(live, starts, dtype=np.float64)
            tab = np.searchsorted(starts, rr, "right") - 1
            t_cpu = np.bincount(tab, weights=wc, minlength=len(starts)) + t_read
        # rebalance by load: decided now, in effect `lag` windows later
        if plan is None and total > 0 and nodes > 1:
            nl = np.bincount(node, weights=t_cpu, minlength=nodes)
            floor = max(total / nodes, float(t_cpu.max()))
            if nl.max() > (1 + st.rebalance_tolerance) * floor and nl.max() > typical / nodes:
                plan = (j + lag, starts.copy(), _lpt(t_cpu, node, nodes))

    totals = node_cpu.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(totals > 0, node_cpu.max(axis=1) / totals, np.nan)
        tshare = np.where(totals > 0, top_cpu / totals, np.nan)
        wtot = node_wr.sum(axis=1)
        wshare = np.where(wtot > 0, node_wr.max(axis=1) / wtot, np.nan)
        twshare = np.where(wtot > 0, top_wr / wtot, np.nan)
        pressure = 100.0 * bucket_cpu / max(st.cpu_target, 1e-9) * ((writes_m > 0) | (reads_m > 0))
    warmup = min(int(np.ceil(lag / sub)), max(W - 1, 0))

    pick = best if best[1] >= 0 else best_any
    busiest: dict = {}
    if pick[1] >= 0:
        cpu, k, lo_r, hi_r = pick
        busiest = {
            "name": _label(index, lo_r, hi_r),
            "first_key": index.key(lo_r),
            "last_key": index.key(hi_r),
            "cpu": cpu,
            "window_share": cpu / max(float(totals[k]), 1e-300),
            "window_start": pd.Timestamp(int(edges[k]), unit="us", tz="UTC"),
        }
    hot_df = _hot_table(index, hot, t0, step_us)
    hot_rows = {index.key(r): float(c) for r, c in found.get("row", {}).items()}
    first_keys = index.keys(first_rows) if R else np.zeros(0, dtype=object)
    delim = key_delimiter(first_keys)
    labels = prefix_labels(first_keys, delimiter=delim)
    if len(index.tables) > 1:
        tb = index.row_table[first_rows]
        labels = [(p, f"{index.tables[tb[p]]}: {t}") for p, t in labels]
    wcpu_mean = (
        rate / writes_per_node * (float(np.maximum(w.nbytes, int(prb)).mean()) / prb if n else 1.0)
    )
    return KeyDistribution(
        writes=writes_m,
        reads=reads_m,
        write_bytes=wbytes_m,
        read_bytes=rbytes_m,
        rows=rows_m,
        data_bytes=data_m,
        large_rows=large_m,
        pressure=pressure,
        window_edges_us=edges,
        bucket_first_key=first_keys,
        labels=labels,
        node_cpu=node_cpu,
        node_writes=node_wr,
        busiest_share=share,
        tablet_share=tshare,
        tablet_write_share=twshare,
        write_share=wshare,
        nodes=nodes,
        n_writes=n,
        n_rows=R,
        n_tablets=len(starts),
        tablet_starts=starts,
        hot_tablets=hot_df,
        hot_rows=hot_rows,
        frontier=found.get("frontier", 0.0) > max(found.get("row", {0: 0.0}).values(), default=0.0),
        busiest_range=busiest,
        warmup_windows=warmup,
        delimiter=delim,
        write_rate_per_s=rate,
        queries_per_s=qps,
        data_writes_per_s=data_rate,
        window_minutes=win_us / 60e6,
        write_cpu=wcpu_mean,
        read_cpu=float(rcpu.sum(dtype=np.float64)),
        read_note=(
            f"reads: {qps:,.3g} queries/s split by intent weight, each reading the rows its "
            "production plan sees, steady over time"
        ),
        schema_name=schema_name,
        settings=st,
        inputs={
            "index": index,
            "seen_rows": seen_rows,
            "weights": weights,
            "query_node_s": query_node_s,
            "nodes": nodes,
            "settings": st,
            "write_rate_per_s": rate,
            "queries_per_s": queries_per_s,
            "pre_splits": ps,
            # keep the writes for re-runs only when small (the 10M-event path keeps memory)
            "writes": w if n <= _KEEP_WRITES else None,
            "schema_name": schema_name,
        },
    )


def at_nodes(kd: KeyDistribution, nodes=(1, 3, 10, 30)) -> dict[int, KeyDistribution]:
    """The same data and workload on several cluster sizes: what no Key Visualizer can show
    before the table exists."""
    return {int(n): kd.at_nodes(int(n)) for n in nodes}


def _hot_table(
    index: CellIndex, hot: list[tuple[int, float, int, int]], t0: int, step_us: float
) -> pd.DataFrame:
    """The busiest tablets as ListHotTablets reports them: time range, the share of its node's CPU
    the tablet used, start and end key (a single-row tablet ends at its start key + ``\\x00``)."""
    cols = ["start_time", "end_time", "node_cpu_usage_percent", "start_key", "end_key", "rows"]
    if not hot:
        return pd.DataFrame(columns=cols)
    hot = sorted(hot, key=lambda h: -h[1])[:20]
    R = index.n_rows
    recs = []
    for k, cpu, s, e in hot:
        sk = index.key(s)
        ek = sk + "\x00" if e - s == 1 else (index.key(e) if e < R else "")
        recs.append(
            {
                "start_time": pd.Timestamp(int(t0 + k * step_us), unit="us", tz="UTC"),
                "end_time": pd.Timestamp(int(t0 + (k + 1) * step_us), unit="us", tz="UTC"),
                "node_cpu_usage_percent": 100.0 * min(cpu, 1.0),
                "start_key": sk,
                "end_key": ek,
                "rows": e - s,
            }
        )
    return pd.DataFrame(recs, columns=cols)
