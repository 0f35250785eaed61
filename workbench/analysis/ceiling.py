"""A design's ceiling: the highest sustained rate it can take whatever the node count.

More nodes spread tablets, and tablets split by load, but three things never split: a single
row, a *write frontier* (a run of rows created one after the other in key order, e.g. a
timestamp first in the key: every new write lands past the last key, in one tablet), and so a
fixed set of them (salt buckets, the dataset's own entities each writing one frontier). The
busiest such unit must fit on one node at the CPU target, so with a share ``p`` of the write
CPU the design stops scaling at ``cpu_target × writes_per_s_per_node ÷ (p × cost per write)``:
timestamp-first (one frontier, p = 1) at 70 % × 14,000 = 9,800 1 KB writes/s; K equally busy
frontiers at K×; N salt buckets at N×; the busiest entity with share p at 1/p×.

The units here are found in the data, not in the schema: adjacent rows (in key order) belong
to one frontier when the later one is first written no earlier than the earlier one's last
write (or, for a reversed timestamp, the other way round). Whether the units are fixed or grow
with volume is an assumption the result states: by default they are fixed (the sample's
frontiers and entities are all production has); ``units_grow=True`` assumes production adds
keys (entities) as it grows, which lifts every ceiling but a single frontier's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..formatting import percent
from ._index import CellIndex
from .keylabels import range_label
from .load_windows import CHUNK_ROWS, Writes
from .settings import Settings


@dataclass(frozen=True)
class Ceiling:
    """The highest sustained write rate (and query rate) a design takes at any node count.

    ``writes_per_s`` is in mutations/s (``inf``: nothing limits it); ``unit`` says what sets
    it (``"write frontier"``, ``"row"`` or ``""``), ``unit_name`` its keys, ``unit_share`` its
    share of the write CPU and ``units`` how many units carry writes."""

    writes_per_s: float
    queries_per_s: float
    unit: str
    unit_name: str
    unit_share: float
    units: int
    cpu_target: float
    node_writes_per_s: float
    units_grow: bool = False
    read_row: str = ""
    spread: str = ""  # the spread a per-series unit's share is at (Spread.at()), said with it

    @property
    def assumption(self) -> str:
        """The stated assumption about whether the units grow with volume."""
        if self.units_grow:
            return (
                "assumes production adds keys (entities) as it grows: only a single frontier "
                "or row keeps its ceiling"
            )
        return (
            "assumes the sample's frontiers, rows and entities are all production has (fixed "
            "units: salt buckets, the dataset's entity set)"
        )

    def shape(self) -> str:
        """What the busiest unit is, without any rate."""
        if not self.unit:
            return "no single unit carries the writes"
        if self.unit == "row":
            return f"one row, {self.unit_name!r}, takes {percent(self.unit_share)} of the writes"
        if self.units == 1 or self.unit_share >= 0.999:
            return f"writes arrive at one write frontier ({self.unit_name})"
        # one decimal: the same figure a table of the series' shares shows (29.9 %, not 30 %)
        at = f" of the writes at {self.spread}" if self.spread else ""
        return (
            f"writes arrive at {self.units:,} write frontiers; the busiest ({self.unit_name}) "
            f"takes {self.unit_share:.1%}{at}"
        )

    def text(self) -> str:
        """One line: where the design stops scaling and why."""
        if not math.isfinite(self.writes_per_s):
            return "no ceiling: no single unit carries the writes"
        return (
            f"stops scaling at {self.writes_per_s:,.0f} writes/s: {self.shape()} "
            f"(one node at {self.cpu_target:.0%} CPU, {self.node_writes_per_s:,.0f} 1 KB "
            "writes/s per node)"
        )

    def shortfall(self, writes_per_s: float) -> float:
        """How many times the ceiling a rate is (over 1: no node count serves it)."""
        if not math.isfinite(self.writes_per_s) or self.writes_per_s <= 0:
            return 0.0 if math.isfinite(self.writes_per_s) or writes_per_s <= 0 else math.inf
        return writes_per_s / self.writes_per_s


def frontier_links(first_ts: np.ndarray, last_ts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(forward, backward) link of each row to the next, for rows in key order: forward when the
    next row is first written no earlier than this one's last write (a timestamp), backward when
    this row is first written no earlier than the next one's last (a reversed timestamp)."""
    return first_ts[1:] >= last_ts[:-1], first_ts[:-1] >= last_ts[1:]


def frontier_units(first_ts: np.ndarray, last_ts: np.ndarray) -> tuple[np.ndarray, str]:
    """(unit id per row, ``"forward"`` or ``"backward"``) for rows in key order.

    Row i+1 continues row i's frontier when linked (:func:`frontier_links`) in the direction
    that links more rows. A row written over the same time as its neighbour (one row per series,
    both open) starts a unit of its own."""
    if len(first_ts) < 2:
        return np.zeros(len(first_ts), dtype=np.int64), "forward"
    fwd, bwd = frontier_links(first_ts, last_ts)
    link, way = (fwd, "forward") if fwd.sum() >= bwd.sum() else (bwd, "backward")
    return np.concatenate(([0], np.cumsum(~link))), way


def write_ceiling(
    w: Writes,
    first: np.ndarray,
    *,
    planning_row_bytes: float,
    node_writes_per_s: float,
    cpu_target: float,
    units_grow: bool = False,
) -> tuple[float, int, int, float, int, str]:
    """(ceiling writes/s, first row, last row, share, units, kind) of the busiest unit.

    ``w`` are the writes in time order, ``first`` each row's first write. A write costs one
    planning row (1 KB) or its bytes' worth, as in the load model; the ceiling is the total
    write rate at which the busiest unit alone needs ``cpu_target`` of a node. With
    ``units_grow`` only a unit carrying (nearly) all the writes keeps its ceiling. Per-row
    arrays are float32/int32 and built in slices (the 10M-event path stays under 2 GB)."""
    n, n_rows = len(w.row), len(first)
    mutations = w.n
    if n == 0 or n_rows == 0:
        return math.inf, 0, 0, 0.0, 0, ""
    row_cpu = np.zeros(n_rows, dtype=np.float32)
    for a in range(0, n, CHUNK_ROWS):  # in slices, no per-row temporary
        if w.count is None:
            cost = w.nbytes[a : a + CHUNK_ROWS].astype(np.float32)
            cost /= np.float32(planning_row_bytes)
            np.maximum(cost, np.float32(1.0), out=cost)
        else:  # entries standing for several mutations (the engine path)
            cost = w.units(planning_row_bytes, a, a + CHUNK_ROWS).astype(np.float32)
        np.add.at(row_cpu, w.row[a : a + CHUNK_ROWS], cost)
    last = np.zeros(n_rows, dtype=first.dtype)
    last[w.row] = np.arange(n, dtype=first.dtype)  # repeated rows: the last (latest) wins
    fwd = np.empty(max(n_rows - 1, 0), dtype=bool)
    bwd = np.empty_like(fwd)
    for a in range(0, n_rows - 1, CHUNK_ROWS):
        b = min(a + CHUNK_ROWS, n_rows - 1)
        fwd[a:b], bwd[a:b] = frontier_links(w.ts[first[a : b + 1]], w.ts[last[a : b + 1]])
    del last
    link = fwd if fwd.sum() >= bwd.sum() else bwd
    del fwd, bwd
    starts = np.flatnonzero(~link)
    starts += 1
    del link
    starts = np.r_[0, starts]  # each unit's first row
    load = np.add.reduceat(row_cpu, starts, dtype=np.float64)
    total = float(load.sum())
    busiest = int(load.argmax())
    share = float(load[busiest]) / total
    lo = int(starts[busiest])
    hi = int(starts[busiest + 1]) - 1 if busiest + 1 < len(starts) else n_rows - 1
    kind = "row" if lo == hi else "write frontier"
    units = int((load > 0).sum())
    if units_grow and share < 0.999:  # more entities: more units, each no busier than now
        return math.inf, lo, hi, share, units, kind
    ceiling = cpu_target * node_writes_per_s / (share * total / mutations)
    return ceiling, lo, hi, share, units, kind


def query_ceiling(
    row_read_cpu: np.ndarray, queries_per_s: float, cpu_target: float
) -> tuple[float, int]:
    """(ceiling queries/s, busiest row): the query rate at which the row the workload reads
    most needs ``cpu_target`` of a node (a row cannot split; ``inf`` without reads)."""
    if not len(row_read_cpu) or queries_per_s <= 0:
        return math.inf, -1
    r = int(row_read_cpu.argmax())
    top = float(row_read_cpu[r])
    if top <= 0:
        return math.inf, -1
    return queries_per_s * cpu_target / top, r


def design_ceiling(
    index: CellIndex,
    w: Writes,
    first: np.ndarray,
    row_read_cpu: np.ndarray,
    queries_per_s: float,
    st: Settings,
    *,
    units_grow: bool = False,
    cpu_target: float | None = None,
) -> Ceiling:
    """The design's ceiling (see ceiling.py) with its busiest unit named by its keys, at
    ``cpu_target`` (default: the settings') and one node's write rate."""
    target = st.cpu_target if cpu_target is None else float(cpu_target)
    wpn = st.node_rates()[1]
    rate, lo, hi, share, units, kind = write_ceiling(
        w,
        first,
        planning_row_bytes=float(st.planning_row_bytes),
        node_writes_per_s=wpn,
        cpu_target=target,
        units_grow=units_grow,
    )
    qrate, qrow = query_ceiling(row_read_cpu, queries_per_s, target)
    return Ceiling(
        writes_per_s=rate,
        queries_per_s=qrate,
        unit=kind,
        unit_name=range_label(index, lo, hi) if kind else "",
        unit_share=share,
        units=units,
        cpu_target=target,
        node_writes_per_s=wpn,
        units_grow=units_grow,
        read_row=index.key(qrow) if qrow >= 0 else "",
    )
