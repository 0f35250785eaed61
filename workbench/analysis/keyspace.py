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
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..notes import EMULATOR_NOTES
from ._index import CellIndex
from .settings import DEFAULT, Settings

_DELIMS = ("#", "|", "/", ":", ",", ".", "_", "-")


@dataclass(frozen=True)
class Writes:
    """One entry per mutation (row × event timestamp), in event-time order."""

    row: np.ndarray  # global row id (key rank)
    ts: np.ndarray  # µs
    nbytes: np.ndarray
    cells: np.ndarray


def writes_from_index(index: CellIndex) -> Writes:
    """Group cells into mutations: same row and same timestamp form one write."""
    if index.n_cells == 0:
        z = np.zeros(0, dtype=np.int64)
        return Writes(z, z, z, z)
    order = np.lexsort((index.ts, index.row))  # cells by (row, timestamp)
    r = index.row[order]
    t = index.ts[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = r[1:] != r[:-1]
    first[1:] |= t[1:] != t[:-1]
    starts = np.flatnonzero(first)
    del first
    nbytes = np.add.reduceat(index.nbytes[order], starts, dtype=np.int64).astype(
        np.int32
    )  # a row < 256 MB
    del order
    cells = np.diff(np.r_[starts, len(r)]).astype(np.int32)
    row, ts = r[starts], t[starts]
    del r, t, starts
    order = np.lexsort((row, ts))
    return Writes(row[order], ts[order], nbytes[order], cells[order])


def key_delimiter(keys: np.ndarray) -> str:
    """The segment delimiter the keys use most (``#`` as in the paper's keys when tied)."""
    sample = "".join(keys[:: max(1, len(keys) // 200)][:200]) if len(keys) else ""
    counts = {d: sample.count(d) for d in _DELIMS}
    best = max(_DELIMS, key=lambda d: (counts[d], d == "#"))
    return best if counts[best] else "#"


def common_prefix(a: str, b: str) -> str:
    n = 0
    for x, y in zip(a, b, strict=False):  # stops at the shorter text
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


def _snake(order: np.ndarray, nodes: int) -> np.ndarray:
    """Node per tablet: deal tablets in ``order`` to nodes 0..N-1, N-1..0, 0..N-1, …"""
    p = np.arange(len(order))
    lap, pos = np.divmod(p, nodes)
    node_of_pos = np.where(lap % 2 == 0, pos, nodes - 1 - pos)
    out = np.empty(len(order), dtype=np.int64)
    out[order] = node_of_pos
    return out


def _split(
    starts: list[int],
    sizes: list[float],
    row_bytes: np.ndarray,
    threshold: float,
    n_rows: int,
    frontier: int,
) -> tuple[list[int], list[float]]:
    """Split every tablet above the threshold at its byte median until none is (or none can)."""
    new_s, new_b = [], []
    stack = list(zip(starts, [*starts[1:], n_rows], sizes, strict=True))[::-1]
    while stack:
        s, e, b = stack.pop()
        if b > threshold and e - s > 1:
            e_eff = min(e, frontier)
            c = np.cumsum(row_bytes[s:e_eff])
            if len(c) >= 1 and c[-1] > 0:
                # split after the byte median; a lone written row is split off the empty rest
                k = int(np.searchsorted(c, c[-1] / 2.0, "left")) + 1
                k = min(max(k, 1), max(len(c) - 1, 1))
                left = float(c[k - 1])
                stack.append((s + k, e, b - left))
                stack.append((s, s + k, left))
                continue
        new_s.append(s)
        new_b.append(b)
    return new_s, new_b


@dataclass
class KeyDistribution:
    """Writes and reads over time × key space, per-node load and the hotspot figure."""

    writes: np.ndarray  # (windows, buckets) write operations
    reads: np.ndarray  # (windows, buckets) rows read by the workload
    window_edges_us: np.ndarray  # (windows + 1,)
    bucket_first_key: np.ndarray  # (buckets,)
    labels: list[tuple[int, str]]
    node_writes: np.ndarray  # (windows, nodes)
    busiest_share: np.ndarray  # (windows,), nan where a window has no writes
    nodes: int
    n_writes: int
    n_rows: int
    n_tablets: int
    tablet_starts: np.ndarray  # final tablets, as key ranks
    threshold_bytes: float
    busiest_range: dict = field(default_factory=dict)
    warmup_windows: int = (
        0  # windows before the table had one tablet per node (excluded from the shares)
    )
    delimiter: str = "#"
    read_note: str = ""
    schema_name: str = ""

    # -- headline figures ------------------------------------------------------------------
    @property
    def fair_share(self) -> float:
        return 1.0 / self.nodes

    def _shares(self) -> np.ndarray:
        s = self.busiest_share[self.warmup_windows :]
        s = s[~np.isnan(s)]
        if not len(s):  # the table never had a tablet per node: use every window
            s = self.busiest_share[~np.isnan(self.busiest_share)]
        return s

    @property
    def max_share(self) -> float:
        """Busiest node's share of a window's writes, worst window after warm-up."""
        s = self._shares()
        return float(s.max()) if len(s) else float("nan")

    @property
    def mean_share(self) -> float:
        """Busiest node's share of a window's writes, mean over windows after warm-up."""
        s = self._shares()
        return float(s.mean()) if len(s) else float("nan")

    @property
    def hotspot_factor(self) -> float:
        """Busiest node's load over its fair share, averaged over windows (1.0 = perfectly even)."""
        return self.mean_share * self.nodes

    @property
    def span_s(self) -> float:
        return max((self.window_edges_us[-1] - self.window_edges_us[0]) / 1e6, 1e-6)

    @property
    def writes_per_s(self) -> float:
        return self.n_writes / self.span_s

    @property
    def peak_writes_per_s(self) -> float:
        w = (
            max((self.window_edges_us[1] - self.window_edges_us[0]) / 1e6, 1e-6)
            if len(self.window_edges_us) > 1
            else 1.0
        )
        return float(self.node_writes.sum(axis=1).max() / w) if self.node_writes.size else 0.0

    @property
    def spread(self) -> str:
        """``"hotspot"`` (one node takes ≥ 80 % of each window's writes), ``"even"`` (busiest node ≤ 1.5× its
        fair share) or ``"uneven"``: the one classification every title, colour and verdict follows."""
        if self.mean_share >= 0.8:
            return "hotspot"
        return "even" if self.hotspot_factor <= 1.5 else "uneven"

    def verdict(self) -> str:
        """The takeaway in one line (used as the figures' titles)."""
        if self.n_writes == 0:
            return "No writes"
        if self.spread == "hotspot":
            return (
                f"Hotspot: {self.mean_share:.0%} of each window's writes hit one node "
                f"(fair share {self.fair_share:.0%})"
            )
        if self.spread == "even":
            return f"Writes spread evenly: busiest node {self.hotspot_factor:.2f}× its fair share"
        return f"Uneven writes: busiest node carries {self.hotspot_factor:.1f}× its fair share"

    def summary(self) -> dict[str, object]:
        return {
            "nodes": self.nodes,
            "writes": self.n_writes,
            "rows": self.n_rows,
            "tablets": self.n_tablets,
            "busiest_node_share_mean": self.mean_share,
            "busiest_node_share_max": self.max_share,
            "fair_share": self.fair_share,
            "hotspot_factor": self.hotspot_factor,
            "busiest_range": self.busiest_range.get("name", ""),
            "writes_per_s": self.writes_per_s,
            "peak_writes_per_s": self.peak_writes_per_s,
        }

    def _repr_html_(self) -> str:
        from ..plots import figure_html
        from ..plots.keyspace import plot_hotspot, plot_key_heatmap, plot_node_load

        s = self.summary()
        return (
            f"<div><b>Key distribution</b> {html.escape(self.schema_name)}: {html.escape(self.verdict())}. "
            f"{s['tablets']} tablets on {self.nodes} nodes; busiest key range "
            f"<code>{html.escape(str(s['busiest_range']))}</code>"
            + figure_html(plot_key_heatmap, self, emulator_note=False)
            + figure_html(plot_node_load, self)
            + figure_html(plot_hotspot, self)
            + f"<p><small>{html.escape(EMULATOR_NOTES['keyspace'])}</small></p></div>"
        )


def key_distribution(
    index: CellIndex,
    *,
    seen_rows: Mapping[str, np.ndarray] | None = None,
    weights: Mapping[str, float] | None = None,
    nodes: int | None = None,
    settings: Settings = DEFAULT,
    runs_per_window: float = 1.0,
    writes: Writes | None = None,
    schema_name: str = "",
) -> KeyDistribution:
    """Replay the writes over the tablet/node model; ``seen_rows`` (query → row ids) gives the reads."""
    from ..errors import WorkbenchError

    nodes = settings.nodes if nodes is None else int(nodes)
    if nodes < 1:
        raise WorkbenchError(f"nodes must be at least 1, got {nodes}.")
    w = writes if writes is not None else writes_from_index(index)
    R = index.n_rows
    B = max(1, min(settings.key_buckets, R))
    n = len(w.row)
    t0 = int(w.ts[0]) if n else 0
    t1 = int(w.ts[-1]) if n else 1
    W = settings.time_windows if t1 > t0 else 1
    edges = t0 + (np.arange(W + 1, dtype=np.float64) * ((t1 - t0) / W)).astype(np.int64)
    edges[-1] = max(t1, t0 + 1)
    win = (
        np.minimum(((w.ts - t0) * W) // max(t1 - t0, 1), W - 1)
        if n
        else np.zeros(0, dtype=np.int64)
    )
    bucket_of_row = (np.arange(R, dtype=np.int64) * B) // max(R, 1)
    writes_m = np.bincount(win * B + bucket_of_row[w.row], minlength=W * B).reshape(W, B)

    # reads: each query's rows seen, weighted, the same in every window
    reads_m = np.zeros((W, B))
    for name, rows in (seen_rows or {}).items():
        wt = float((weights or {}).get(name, 1.0)) * runs_per_window
        reads_m += wt * np.bincount(bucket_of_row[rows], minlength=B)[None, :]

    # tablet model
    total_bytes = float(w.nbytes.sum(dtype=np.int64))
    threshold = max(total_bytes / max(settings.target_tablets, 1), 1.0)
    table_starts = sorted(
        {int(x) for x in np.searchsorted(index.row_table, np.unique(index.row_table), "left")}
    ) or [0]
    starts: list[int] = table_starts
    sizes: list[float] = [0.0] * len(starts)
    row_bytes = np.zeros(R, dtype=np.float64)
    assign = _snake(np.arange(len(starts)), nodes)
    node_w = np.zeros((W, nodes), dtype=np.int64)
    wstart = np.searchsorted(win, np.arange(W + 1), "left")
    # busiest tablet seen (writes, window, first and last row, window total): over every window, and over
    # windows after warm-up (before it, one tablet holds the whole key space and names it all)
    best_any = best_settled = (0, 0, 0, 0, 0)
    frontier = 0
    warmup = None
    for k in range(W):
        a, b = wstart[k], wstart[k + 1]
        if a == b:
            continue
        rr, bb = w.row[a:b], w.nbytes[a:b]
        sarr = np.asarray(starts)
        tab = np.searchsorted(sarr, rr, "right") - 1
        load = np.bincount(tab, minlength=len(starts))
        node_w[k] = np.bincount(assign, weights=load, minlength=nodes)
        top = int(load.argmax())
        cnt, settled = int(load[top]), warmup is not None  # warm-up ended in an earlier window
        if cnt > best_any[0] or (
            settled and cnt > best_settled[0]
        ):  # rows looked up only for a new best
            in_top = rr[tab == top]
            entry = (cnt, k, int(in_top.min()), int(in_top.max()), int(b - a))
            best_any = entry if cnt > best_any[0] else best_any
            best_settled = entry if settled and cnt > best_settled[0] else best_settled
        added = np.bincount(tab, weights=bb, minlength=len(starts))
        sizes = [s + x for s, x in zip(sizes, added.tolist(), strict=True)]
        np.add.at(row_bytes, rr, bb)
        frontier = max(frontier, int(rr.max()) + 1)
        if max(sizes) > threshold:
            starts, sizes = _split(starts, sizes, row_bytes, threshold, R, frontier)
            sarr = np.asarray(starts)
            tab = np.searchsorted(sarr, rr, "right") - 1
            load = np.bincount(tab, minlength=len(starts))
        order = np.lexsort((-np.asarray(sizes), -load))
        assign = _snake(order, nodes)
        if warmup is None and len(starts) >= nodes:
            warmup = k + 1
    totals = node_w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(totals > 0, node_w.max(axis=1) / np.maximum(totals, 1), np.nan)

    best = best_settled if best_settled[0] > 0 else best_any
    busiest: dict = {}
    if best[0] > 0:
        cnt, k, lo_r, hi_r, tot = best
        first, last = index.key(lo_r), index.key(hi_r)
        pref = common_prefix(first, last)
        if first == last:
            label = first
        elif len(pref) >= 4:
            label = pref + "…"
        else:  # the range spans several top-level prefixes: name both ends
            label = f"{first[:24]} … {last[:24]}"
        busiest = {
            "name": label,
            "first_key": first,
            "last_key": last,
            "writes": cnt,
            "window_share": cnt / max(tot, 1),
            "window_start": pd.Timestamp(int(edges[k]), unit="us", tz="UTC"),
        }
    first_keys = (
        index.keys(np.searchsorted(bucket_of_row, np.arange(B), "left"))
        if R
        else np.zeros(0, dtype=object)
    )
    delim = key_delimiter(first_keys)
    labels = prefix_labels(first_keys, delimiter=delim)
    if len(index.tables) > 1:
        tb = index.row_table[np.searchsorted(bucket_of_row, np.arange(B), "left")]
        labels = [(p, f"{index.tables[tb[p]]}: {t}") for p, t in labels]
    return KeyDistribution(
        writes=writes_m,
        reads=reads_m,
        window_edges_us=edges,
        bucket_first_key=first_keys,
        labels=labels,
        node_writes=node_w,
        busiest_share=share,
        nodes=nodes,
        n_writes=n,
        n_rows=R,
        n_tablets=len(starts),
        tablet_starts=np.asarray(starts),
        threshold_bytes=threshold,
        busiest_range=busiest,
        warmup_windows=int(warmup if warmup is not None else 0),
        delimiter=delim,
        read_note=(
            f"reads: each query's rows seen × its weight, {runs_per_window:g} run(s) per window, "
            "spread evenly over time"
        ),
        schema_name=schema_name,
    )
