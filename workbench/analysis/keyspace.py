"""Key distribution over time: a simulated Key Visualizer on a tablet/node model (G06, G07, G08, G23).

Cloud Bigtable stores rows sorted by key in *tablets* (contiguous key ranges); a tablet that
grows too large or too busy splits, and tablets move between nodes to even out load. Writes
whose keys all increase (a timestamp first in the key) always land at the end of the key space:
in one tablet, on one node, whatever the cluster size. That is the hotspot this module shows.

The model, replayed from the CellFrame in event-time order, one named step per module:

1. writes and reads per window (load_windows.py): a *write* is one mutation (the cells with one
   row key and one timestamp); time is cut into whole-minute windows and the key space into
   ``settings.key_buckets`` buckets; reads come from the query workload (each intent's plan
   rows, at ``intent.weight`` of the query rate, from the time a row is first written);
2. tablets (tablets.py): a table starts as one tablet (plus ``pre_splits``); a tablet splits
   at its byte median past ``settings.tablet_split_bytes`` (200 MB, scaled to the production
   rate), and by load when it carries over ``load_split_share`` of a node's fair share: never
   inside a row or a write frontier (a run of new keys written in key order);
3. the replay (replay.py): each window is cut into balancer steps; when a node is more than
   ``rebalance_tolerance`` over the best placement, tablets move to the least-loaded nodes
   (heaviest first) and the move lands ``settings.rebalance_minutes`` later;
4. metrics (load_metrics.py): Key Visualizer's matrices and pressure, ListHotTablets' hot
   tablets, and per window the busiest node's and tablet's share of that window's load.

Each constant's source is in docs/architecture.md ("Load model"). Everything is numpy over
integer arrays; the only Python loops are over balancer steps and tablet splits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..formatting import EVEN_FACTOR, fair_factor, percent
from ..reprs import html_of
from ._index import CellIndex
from .ceiling import Ceiling, design_ceiling
from .keylabels import bucket_labels, prefix_labels, range_label
from .load_metrics import diagnostics, hot_table, pressure, tablet_shares, window_shares
from .load_windows import (
    KeyMatrices,
    Writes,
    first_writes,
    production_rates,
    time_ids,
    window_grid,
    window_reads,
    write_matrices,
    writes_from_index,
)
from .rate_verdict import RateVerdict, is_hotspot, judge
from .replay import Replay, replay
from .settings import DEFAULT, Settings
from .tablets import initial_tablets, sample_split_bytes

__all__ = [
    "KeyDistribution",
    "Writes",
    "at_nodes",
    "key_distribution",
    "prefix_labels",
    "writes_from_index",
]

_KEEP_WRITES = 1_000_000  # a KeyDistribution keeps its writes for re-runs up to this many


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
    read_share: np.ndarray  # the reads' part (0..1) of that serving node's CPU
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
    ceiling: Ceiling | None = None  # the highest sustained rate at any node count
    events: int = 0  # events the sample holds (0: unknown; a write then counts as an event)
    source_note: str = ""  # whose writes: the files' keyed by DuckDB or the sample's, and why
    inputs: dict = field(default_factory=dict, repr=False, compare=False)  # to re-run the model
    _runs: dict = field(default_factory=dict, repr=False, compare=False)  # by nodes or rate

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

    def split_keys(self) -> dict[str, list[str]]:
        """Per logical table, the first keys of its tablets past its first one: the split
        points the model's table ends with at this workload, what ``CreateTable``'s
        ``initial_splits`` (``cbt createtable … splits=``) needs to start a load there rather
        than in one tablet (G06). A table's first tablet starts at its first key, which is no
        split; a table the model never split has none."""
        index = self.inputs.get("index")
        if index is None:
            raise ValueError("This KeyDistribution was not made by key_distribution().")
        out: dict[str, list[str]] = {t: [] for t in index.tables}
        for r in np.asarray(self.tablet_starts, dtype=np.int64):
            t = index.tables[int(index.row_table[r])]
            if r > index.table_rows(t)[0]:
                out[t].append(index.key(int(r)))
        return out

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
        return "even" if self.hotspot_factor <= EVEN_FACTOR else "uneven"

    def _row_why(self) -> str:
        if not self.hot_rows:
            return ""
        key = max(self.hot_rows, key=lambda k: self.hot_rows[k])
        return f"one row, {key!r}, carries it and a row cannot be split"

    def _why(self) -> str:
        if self.frontier:
            return "new keys arrive in key order (a write frontier): no split or node spreads it"
        return self._row_why()

    def shape(self) -> str:
        """What the keys do to the load, whatever the rate (the verdict's first half)."""
        if self.spread == "hotspot":
            what = "tablet" if self.nodes == 1 else "node"
            share = self.mean_tablet_share if self.nodes == 1 else self.mean_share
            c = self.ceiling
            why = c.shape() if c is not None and c.unit and self.frontier else self._why()
            return f"one {what} takes {percent(share)} of each window's load" + (
                f"; {why}" if why else f" (fair share {percent(self.fair_share)})"
            )
        row = f" ({self._row_why()})" if self.hot_rows else ""
        if self.nodes == 1:
            return (
                f"One node serves everything; the busiest tablet takes {percent(self.mean_tablet_share)}"
                f" of the load, so more nodes would share it{row}"
            )
        if self.spread == "even":
            # on average: single windows may reach 2× fair, which the node-load figure calls uneven
            return f"Load spread evenly on average: busiest node {self.factor_text} its fair share{row}"
        floor = f"; its busiest tablet alone takes {percent(self.mean_tablet_share)}"
        floor = floor if self.mean_tablet_share * self.nodes > 1.2 else ""
        return f"Uneven load: busiest node carries {self.factor_text} its fair share" + (
            row or floor
        )

    @property
    def factor_text(self) -> str:
        """The mean hotspot factor as every view prints it (``formatting.fair_factor``): the
        verdict, the node-load title and the comparison quote it in the same words."""
        return fair_factor(self.hotspot_factor)

    @property
    def rate_source(self) -> str:
        """Whose write rate the model ran at: the dataset's own or a target."""
        own = abs(self.write_rate_per_s - self.data_writes_per_s) <= 1e-9 * max(
            self.data_writes_per_s, 1e-300
        )
        return "the dataset's own rate" if own else "the target rate"

    @property
    def hotspot(self) -> bool:
        """Whether the load is a hotspot at the model's rate: over the design's ceiling, or the
        busiest node over the CPU target with the load concentrated."""
        return is_hotspot(self)

    @property
    def mutations_per_event(self) -> float:
        """Mutations the design writes per event (1 when the event count is unknown)."""
        return self.n_writes / self.events if self.events else 1.0

    def at_rate(self, events_per_s: float) -> KeyDistribution:
        """The same workload at ``events_per_s`` events per second, in this design's mutations
        (cached)."""
        writes = float(events_per_s) * self.mutations_per_event
        if abs(writes - self.write_rate_per_s) <= 1e-12 * max(writes, 1.0):
            return self
        key = ("rate", writes)
        if key not in self._runs:
            self._runs[key] = self.rerun(write_rate_per_s=writes)
        return self._runs[key]

    def verdict(self, events_per_s: float | None = None) -> RateVerdict:
        """The takeaway in one line (the figures' titles), judged at the model's own rate or at
        ``events_per_s``: the shape, then what it costs at that rate; "Hotspot" only when the
        busiest node is over the CPU target with the load concentrated, or the rate over the
        ceiling (rate_verdict.py)."""
        if events_per_s is not None:
            kd = self.at_rate(events_per_s)
            return judge(kd, kd.shape(), "the target rate", float(events_per_s))
        return judge(self, self.shape(), self.rate_source)

    def diagnostics(self) -> list[dict[str, str]]:
        """Key Visualizer's diagnostic messages, in its words, where this model shows them."""
        return diagnostics(self)

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
            "ceiling_writes_per_s": self.ceiling.writes_per_s if self.ceiling else float("inf"),
            "ceiling_unit": self.ceiling.unit_name if self.ceiling else "",
            "hotspot_at_rate": self.hotspot,
        }

    def _repr_html_(self) -> str:
        return html_of(self)

    def __str__(self) -> str:
        """The verdict and the ceiling in two lines, and whose writes (what ``print(kd)`` shows)."""
        ceiling = f"\nCeiling: {self.ceiling.text()}" if self.ceiling is not None else ""
        note = f"\n{self.source_note[:1].upper()}{self.source_note[1:]}" if self.source_note else ""
        return f"Key distribution {self.schema_name}: {self.verdict()}{ceiling}{note}"


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
    events: int | None = None,
    ceiling: Ceiling | None = None,
    source_note: str = "",
) -> KeyDistribution:
    """Replay the sample's writes and the query workload over the tablet/node model.

    ``seen_rows`` (query → row ids the production execution reads) and ``weights`` give the
    reads, ``query_node_s`` each query's modelled node-seconds per run (the query-cost table);
    ``write_rate_per_s``/``queries_per_s`` the production rates in mutations and queries
    (``analyze`` derives them from the workload; default: the data's own write rate, no reads); ``pre_splits`` the table's split points at
    creation (evenly over the final keys); ``events`` the events the sample holds;
    ``ceiling``: the design's ceiling at the stated workload (``Production.ceiling()``), kept
    through re-runs; without it, the sample's own (``design_ceiling``); ``source_note``: whose
    writes these are (``KeyDistribution.source_note``)."""
    inputs = dict(locals())
    st = settings
    nodes = _checked_nodes(st.nodes if nodes is None else int(nodes))
    w = writes if writes is not None else writes_from_index(index)
    R, n = index.n_rows, w.n
    B = max(1, min(st.key_buckets, R))
    t0, win_us, W = grid = window_grid(int(w.ts[0]) if n else 0, w.t_last if n else 0, n, st)
    win = time_ids(w.ts, t0, win_us, 1)
    span_s = (w.t_last - t0) / 1e6 if n else 0.0
    rates = production_rates(n, span_s, win_us / 1e6, write_rate_per_s, queries_per_s)
    first = first_writes(w.row, R)
    row_bytes = np.bincount(w.row, weights=w.nbytes, minlength=R)
    km = write_matrices(w, win, first, row_bytes, (W, B), st.large_row_bytes, index.key_rows)
    workload = (seen_rows or {}, weights or {}, query_node_s or {})
    rcpu, reads = window_reads(row_bytes, (win, first, win_us), workload, rates["qps"], st, (W, B))
    del row_bytes
    ps = st.pre_splits if pre_splits is None else int(pre_splits)
    rp = replay(
        w,
        grid=grid,
        first=first,
        rcpu=rcpu,
        tablets=initial_tablets(index.row_table, R, ps, nodes),
        nodes=nodes,
        buckets=B,
        scale=rates["scale"],
        split_bytes=sample_split_bytes(st.tablet_split_bytes, rates["scale"], w.nbytes, B),
        st=st,
    )
    # to re-run the model; the writes are kept only when small (the 10M-event path keeps memory)
    # or grouped (the engine path's index holds no cells to remake them from)
    inputs.update(nodes=nodes, write_rate_per_s=rates["rate"], pre_splits=ps)
    inputs["writes"] = w if len(w.row) <= _KEEP_WRITES or w.count is not None else None
    rates["read_cpu"] = float(rcpu.sum(dtype=np.float64))
    ceil = (
        ceiling if ceiling is not None else design_ceiling(index, w, first, rcpu, rates["qps"], st)
    )
    return _assemble(index, w, grid, km, reads, rp, rates, inputs, ceil)


def _checked_nodes(nodes: int) -> int:
    if nodes < 1:
        from ..errors import WorkbenchError

        raise WorkbenchError(f"nodes must be at least 1, got {nodes}.")
    return nodes


def _assemble(
    index: CellIndex,
    w: Writes,
    grid: tuple[int, int, int],
    km: KeyMatrices,
    reads: tuple[np.ndarray, np.ndarray],
    rp: Replay,
    rates: dict[str, float],
    inputs: dict,
    ceiling: Ceiling,
) -> KeyDistribution:
    """The result from the steps' outputs: shares per window, the busiest range, labels."""
    t0, win_us, W = grid
    st, n, R = inputs["settings"], w.n, index.n_rows
    B = km.writes.shape[1]
    totals = rp.node_cpu.sum(axis=1)
    wtot = rp.node_writes.sum(axis=1)
    pick = rp.best if rp.best[1] >= 0 else rp.best_any
    busiest: dict = {}
    if pick[1] >= 0:
        cpu, k, lo_r, hi_r, share = pick
        busiest = {
            "name": range_label(index, lo_r, hi_r),
            "first_key": index.key(lo_r),
            "last_key": index.key(hi_r),
            "cpu": cpu,
            "window_share": share,  # of the cluster's load at that time (one step)
            "window_start": pd.Timestamp(int(t0 + k * win_us), unit="us", tz="UTC"),
        }
    first_rows = (np.arange(B, dtype=np.int64) * R + B - 1) // B
    first_keys, delim, labels = bucket_labels(index, first_rows)
    prb = float(st.planning_row_bytes)
    mean_w = float(w.cost_bytes(prb).sum(dtype=np.float64)) / n / prb if n else 1.0
    rows_found = {r: c for r, c in rp.found.get("row", {}).items() if index.one_row(r)}
    rate, qps = rates["rate"], rates["qps"]
    return KeyDistribution(
        writes=km.writes,
        reads=reads[0],
        write_bytes=km.write_bytes,
        read_bytes=reads[1],
        rows=km.rows,
        data_bytes=km.data_bytes,
        large_rows=km.large_rows,
        pressure=pressure(rp.bucket_cpu, st.cpu_target, km.writes, reads[0]),
        read_share=np.nan_to_num(window_shares(rp.bucket_read, rp.bucket_cpu)),
        window_edges_us=t0 + np.arange(W + 1, dtype=np.int64) * win_us,
        bucket_first_key=first_keys,
        labels=labels,
        node_cpu=rp.node_cpu,
        node_writes=rp.node_writes,
        busiest_share=window_shares(rp.node_cpu.max(axis=1), totals),
        tablet_share=tablet_shares(rp.top_cpu, rp.node_cpu.max(axis=1), totals),
        tablet_write_share=tablet_shares(rp.top_writes, rp.node_writes.max(axis=1), wtot),
        write_share=window_shares(rp.node_writes.max(axis=1), wtot),
        nodes=inputs["nodes"],
        n_writes=n,
        n_rows=R if index.key_rows is None else int(index.key_rows.sum()),
        n_tablets=len(rp.starts),
        tablet_starts=rp.starts,
        hot_tablets=hot_table(index, rp.hot, t0, win_us / rp.steps_per_window),
        hot_rows={index.key(r): float(c) for r, c in rows_found.items()},
        frontier=rp.found.get("frontier", 0.0) > max(rows_found.values(), default=0.0),
        busiest_range=busiest,
        warmup_windows=rp.warmup_windows,
        delimiter=delim,
        write_rate_per_s=rate,
        queries_per_s=qps,
        data_writes_per_s=rates["data"],
        window_minutes=win_us / 60e6,
        write_cpu=rate / st.node_rates()[1] * mean_w,
        read_cpu=rates["read_cpu"],
        read_note=(
            f"reads: {qps:,.3g} queries/s at the peak, each query at its stated rate, reading "
            "the rows its production plan sees, steady over time"
            if qps > 0
            else "reads: none drawn, no query rate stated (a query sizes nodes and draws read "
            "load only at a stated rate)"
        ),
        schema_name=inputs["schema_name"],
        settings=st,
        ceiling=ceiling,
        events=int(inputs["events"] or 0),
        source_note=inputs["source_note"],
        inputs=inputs,
    )


def at_nodes(kd: KeyDistribution, nodes=(1, 3, 10, 30)) -> dict[int, KeyDistribution]:
    """The same data and workload on several cluster sizes: what no Key Visualizer can show
    before the table exists."""
    return {int(n): kd.at_nodes(int(n)) for n in nodes}
