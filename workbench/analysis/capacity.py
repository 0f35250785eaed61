"""Storage and capacity: bytes per event, compressed storage, nodes and the monthly bill (G01, G06, G14, G15).

Every cell stores its row key, family and qualifier again, so names are paid per cell: the
breakdown shows how much of an event's bytes are names (G01) and what one-byte names would
save.

Nodes are the larger of two needs, per cluster:

* **CPU**: reads and writes as node CPU at the production rates (the load model), with the
  busiest node kept under the recommended CPU target (70 % with one cluster, 35 % per cluster
  with multi-cluster routing). The busiest node is found by running the load model at the
  candidate node count and raising the count until it settles, so the answer does not depend on
  the node count the model was first run at. A tablet that alone needs more than the target
  (one hot row, one write frontier) cannot be served by adding nodes: that is said, not hidden.
* **storage**: the data kept after the retention period over the storage a node may hold
  (SSD 5 TB, HDD 16 TB: current "Quotas and limits"), counted on logical bytes.

Storage is billed on compressed data in binary GB (GiB): the ratio is measured by compressing
a sample of the design's own cells, serialized in key order and cut into 64 KB blocks like an
SSTable, with Snappy (the codec the Bigtable paper names, as Zippy). Replication multiplies
nodes and storage by the number of clusters. Prices are dated settings.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..notes import EMULATOR_NOTES
from ._index import CellIndex
from .keyspace import KeyDistribution
from .settings import DEFAULT, Settings

_NAME_LIKE_QUALIFIERS = 64  # more distinct qualifiers than this means they carry data (G12, G19)
_MAX_ROUNDS = 12  # node-count iterations before the answer is taken as settled


def compression_ratio(
    cells, settings: Settings = DEFAULT, *, bytes_per_cell: float | None = None
) -> float:
    """Logical bytes ÷ compressed bytes of a sample of ``cells`` (a CellFrame).

    The sample is a contiguous run of cells in Bigtable's order (about
    ``compression_sample_bytes``), each written as key, family, qualifier, an 8-byte timestamp
    and the value, as an SSTable stores them; it is compressed in ``compression_block_bytes``
    blocks with ``compression_codec`` (pyarrow's codecs: snappy, lz4, zstd, gzip, brotli)."""
    import pyarrow as pa

    f = cells.frame
    if not len(f):
        return 1.0
    per_cell = max(bytes_per_cell or float(cells.total_bytes) / len(f), 1.0)
    n = int(min(len(f), max(1, settings.compression_sample_bytes // per_cell)))
    start = (len(f) - n) // 2  # from the middle: neither the first nor the last keys only
    part = f.iloc[start : start + n].sort_values(
        ["table", "row_key", "family", "qualifier", "timestamp_us"],
        ascending=[True, True, True, True, False],
        kind="stable",
    )
    blob = b"".join(
        k.encode() + fam.encode() + q.encode() + int(ts).to_bytes(8, "big", signed=True) + v
        for k, fam, q, ts, v in zip(
            part["row_key"],
            part["family"],
            part["qualifier"],
            part["timestamp_us"],
            part["value"],
            strict=True,
        )
    )
    codec = pa.Codec(settings.compression_codec)
    blk = max(int(settings.compression_block_bytes), 1024)
    packed = sum(
        len(codec.compress(blob[i : i + blk], asbytes=True)) for i in range(0, len(blob), blk)
    )
    return len(blob) / max(packed, 1)


@dataclass
class NodeNeed:
    """How many nodes one cluster needs for its CPU, and how the answer was reached."""

    nodes: int
    busiest_cpu: float  # busiest node's CPU at that count (1.0 = one node)
    busiest_tablet_cpu: float  # what the busiest tablet alone needs
    hotspot_factor: float  # at that count
    hotspot_limited: bool  # the busiest tablet alone exceeds the target: nodes cannot help
    rounds: list[tuple[int, float]] = field(default_factory=list)  # (nodes tried, busiest CPU)


def cpu_nodes(
    peak_cpu: float,
    load_at: Callable[[int], KeyDistribution] | None,
    target: float,
    *,
    min_nodes: int = 1,
    hotspot_share: float = 0.5,
) -> NodeNeed:
    """Smallest node count whose busiest node stays under ``target`` CPU, hotspots included.

    ``peak_cpu``: the cluster's total CPU (reads + writes, in nodes) in a busy window; it does
    not depend on the node count. ``load_at(n)``: the load model at ``n`` nodes. Start at the
    count the total needs if spread perfectly; while the busiest node is over the target, scale
    the count by its excess (a hotspot makes it grow faster than the load) and run the model
    again; stop when it fits, or when one tablet that carries at least ``hotspot_share`` of the
    load (one row, one write frontier) is alone over the target: no node count serves that."""
    n = max(min_nodes, math.ceil(peak_cpu / target - 1e-9)) if peak_cpu > 0 else min_nodes
    rounds: list[tuple[int, float]] = []
    need = NodeNeed(n, peak_cpu, 0.0, 1.0, False, rounds)
    for _ in range(_MAX_ROUNDS):
        if n == 1 or load_at is None:  # one node carries everything; no model: perfectly even
            busiest, tablet, hf, share = peak_cpu / n, 0.0, 1.0, 0.0
        else:
            kd = load_at(n)
            busiest, tablet, hf = kd.busiest_node_cpu, kd.busiest_tablet_cpu, kd.hotspot_factor
            share = kd.mean_tablet_share
            if share < hotspot_share and tablet > peak_cpu / n:
                # many busy key ranges, the busiest over a node's fair share: production grows by
                # adding keys (more entities), which lowers that floor, so keep only how far the
                # balancer is from the best it could do
                busiest = busiest / tablet * peak_cpu / n
                hf = busiest * n / peak_cpu if peak_cpu else 1.0
        rounds.append((n, busiest))
        need = NodeNeed(n, busiest, tablet, hf, False, rounds)
        if busiest <= target:
            return need
        if tablet > target and share >= hotspot_share:  # one tablet, most of the load: no
            need.hotspot_limited = True  # node count splits it
            return need
        n = max(n + 1, math.ceil(n * busiest / target - 1e-9))
    return need


@dataclass
class Capacity:
    """Storage per event and per month, nodes for CPU and storage, and the monthly bill."""

    events: int
    cells: int
    total_bytes: int
    breakdown: dict[str, int]  # key / family / qualifier / timestamp / value bytes over all cells
    short_names_bytes: int  # total bytes with one-byte family and qualifier names
    events_per_s: float  # production events per second
    writes_per_s: float  # production mutations per second the nodes are sized for
    queries_per_s: float
    write_cpu: float  # mean CPU of the writes, in nodes
    read_cpu: float  # mean CPU of the reads, in nodes
    peak_cpu: float  # total CPU in a busy window (95th percentile), in nodes
    cpu: NodeNeed
    cpu_target: float
    storage_nodes: int
    clusters: int
    storage: str
    hotspot_factor: float
    busiest_share: float
    nodes_fair: int  # nodes if the load were perfectly even (CPU only)
    nodes_per_cluster: int
    nodes_needed: int  # over all clusters
    hotspot_limited: bool
    bytes_per_month: float  # logical, one copy
    stored_bytes: float  # logical, after the retention period, one copy
    compression_ratio: float
    stored_gib: float  # compressed, all clusters (what is billed)
    node_cost_month: float
    storage_cost_month: float
    settings: Settings = field(default=DEFAULT, repr=False)
    schema_name: str = ""
    target_given: bool = False

    @property
    def bytes_per_event(self) -> float:
        return self.total_bytes / max(self.events, 1)

    @property
    def short_names_bytes_per_event(self) -> float:
        return self.short_names_bytes / max(self.events, 1)

    @property
    def name_overhead_share(self) -> float:
        """Share of stored bytes that are family and qualifier names."""
        return (self.breakdown["family"] + self.breakdown["qualifier"]) / max(self.total_bytes, 1)

    @property
    def monthly_cost(self) -> float:
        return self.node_cost_month + self.storage_cost_month

    @property
    def nodes_cpu(self) -> int:
        return self.cpu.nodes

    @property
    def bound_by(self) -> str:
        """What sets the node count: ``"hotspot"``, ``"cpu"`` or ``"storage"``."""
        if self.hotspot_limited:
            return "hotspot"
        return "storage" if self.storage_nodes > self.cpu.nodes else "cpu"

    def table(self) -> pd.DataFrame:
        st = self.settings
        per_node_tb = st.tb_per_node
        rows = {
            "bytes per event": self.bytes_per_event,
            "…with 1-byte family/qualifier names (G01)": self.short_names_bytes_per_event,
            "names share of bytes": self.name_overhead_share,
            "events per second (production)": self.events_per_s,
            "writes per second (production)": self.writes_per_s,
            "queries per second (production)": self.queries_per_s,
            "CPU of writes (nodes)": self.write_cpu,
            "CPU of reads (nodes)": self.read_cpu,
            "CPU in a busy window (nodes, 95th pct)": self.peak_cpu,
            f"busiest node CPU at {self.cpu.nodes} nodes": self.cpu.busiest_cpu,
            "hotspot factor (busiest node ÷ fair)": self.hotspot_factor,
            f"nodes for CPU (busiest ≤ {self.cpu_target:.0%})": self.cpu.nodes,
            "growth per month (GB, logical)": self.bytes_per_month / 1e9,
            f"stored after {st.retention_months:g} months (TB, logical)": self.stored_bytes / 1e12,
            f"nodes for storage ({per_node_tb:g} TB per {self.storage} node)": self.storage_nodes,
            f"compression ({st.compression_codec}, measured on the cells)": self.compression_ratio,
            f"billed storage (GiB compressed, {self.clusters} cluster(s))": self.stored_gib,
            "nodes per cluster": self.nodes_per_cluster,
            "clusters (replication)": self.clusters,
            "nodes in total": self.nodes_needed,
            f"node cost per month (USD, prices of {st.prices_date})": self.node_cost_month,
            f"storage cost per month (USD, prices of {st.prices_date})": self.storage_cost_month,
            "total per month (USD)": self.monthly_cost,
        }
        return pd.DataFrame({"value": pd.Series(rows, dtype=float)})

    def verdict(self) -> str:
        if self.hotspot_limited:
            return (
                f"Hotspot-bound: the busiest tablet alone needs {self.cpu.busiest_tablet_cpu:.0%} of "
                f"a node at {self.writes_per_s:,.0f} writes/s, over the {self.cpu_target:.0%} "
                "target: adding nodes cannot serve it"
            )
        return (
            f"{self.bytes_per_event:,.0f} B per event, {self.nodes_needed} {self.storage} node(s) "
            f"({self.bound_by}-bound), ≈ ${self.monthly_cost:,.0f} per month "
            f"(prices of {self.settings.prices_date})"
        )

    def _repr_html_(self) -> str:
        from ..plots import figure_html
        from ..plots.capacity import plot_bytes_breakdown, plot_node_need

        return (
            f"<div><b>Storage and capacity</b> {html.escape(self.schema_name)}: {html.escape(self.verdict())}"
            + self.table().to_html(
                float_format=lambda x: f"{x:,.3g}" if abs(x) < 100 else f"{x:,.0f}"
            )
            + figure_html(plot_bytes_breakdown, self)
            + figure_html(plot_node_need, self)
            + f"<p><small>{html.escape(EMULATOR_NOTES['capacity'])}</small></p></div>"
        )


def capacity(
    index: CellIndex,
    events: int,
    kd: KeyDistribution,
    *,
    settings: Settings = DEFAULT,
    target_writes_per_s: float | None = None,
    schema_name: str = "",
    compression: float | None = None,
    load_at: Callable[[int], KeyDistribution] | None = None,
) -> Capacity:
    """Storage, nodes and cost of a design at its production rates.

    ``events``: the dataset's event count; ``kd``: the load model (its production write and
    query rates are the ones sized for; ``target_writes_per_s`` re-runs it at another write
    rate); ``compression``: logical ÷ compressed bytes (:func:`compression_ratio` of the cells;
    default 1, no compression); ``load_at(n)``: the load model at ``n`` nodes (default:
    ``kd.at_nodes``)."""
    st = settings
    if target_writes_per_s is not None and abs(target_writes_per_s - kd.write_rate_per_s) > 1e-9:
        kd = kd.rerun(write_rate_per_s=target_writes_per_s)
    n = index.n_cells
    key_b = int(index.key_bytes[index.row].sum()) if n else 0
    fam_b = int(index.family_bytes[index.family].sum()) if n else 0
    qual_b = int(index.qualifier_bytes[index.qualifier].sum()) if n else 0
    ts_b = 8 * n
    val_b = int(index.value_bytes_total)
    total = key_b + fam_b + qual_b + ts_b + val_b
    short = st.short_name_bytes
    fam_short = short * n
    qual_short = short * n if len(index.qualifiers) <= _NAME_LIKE_QUALIFIERS else qual_b
    short_total = total - fam_b - qual_b + min(fam_short, fam_b) + min(qual_short, qual_b)

    rate = kd.write_rate_per_s
    mutations_per_event = kd.n_writes / max(events, 1)
    events_per_s = rate / max(mutations_per_event, 1e-9) if kd.n_writes else 0.0
    seconds_per_month = st.hours_per_month * 3600
    bytes_per_event = total / max(events, 1)
    per_month = bytes_per_event * events_per_s * seconds_per_month
    stored = per_month * st.retention_months

    clusters = int(st.clusters)
    target = st.cpu_target if clusters == 1 else st.cpu_target_multi_cluster
    totals = kd.node_cpu.sum(axis=1)
    settled = totals[kd.warmup_windows :]
    settled = settled[settled > 0] if (settled > 0).any() else totals[totals > 0]
    peak = float(np.percentile(settled, 95)) if len(settled) else 0.0
    need = cpu_nodes(
        peak, load_at or kd.at_nodes, target, min_nodes=st.min_nodes, hotspot_share=st.hotspot_share
    )
    storage_nodes = max(st.min_nodes, math.ceil(stored / (st.tb_per_node * 1e12) - 1e-9))
    per_cluster = max(need.nodes, storage_nodes)
    nodes_total = per_cluster * clusters
    ratio = float(compression) if compression else 1.0
    gib = stored / ratio / 2**30 * clusters
    node_cost = nodes_total * st.node_hour_usd * st.hours_per_month
    storage_cost = gib * st.storage_gb_month_usd
    return Capacity(
        events=events,
        cells=n,
        total_bytes=total,
        breakdown={
            "row key": key_b,
            "family": fam_b,
            "qualifier": qual_b,
            "timestamp": ts_b,
            "value": val_b,
        },
        short_names_bytes=int(short_total),
        events_per_s=events_per_s,
        writes_per_s=float(rate),
        queries_per_s=kd.queries_per_s,
        write_cpu=kd.write_cpu,
        read_cpu=kd.read_cpu,
        peak_cpu=peak,
        cpu=need,
        cpu_target=target,
        storage_nodes=storage_nodes,
        clusters=clusters,
        storage=st.storage.upper(),
        hotspot_factor=float(need.hotspot_factor),
        busiest_share=float(need.busiest_cpu / peak) if peak > 0 else 1.0,
        nodes_fair=max(st.min_nodes, math.ceil(peak / target - 1e-9)) if peak > 0 else st.min_nodes,
        nodes_per_cluster=per_cluster,
        nodes_needed=nodes_total,
        hotspot_limited=need.hotspot_limited,
        bytes_per_month=float(per_month),
        stored_bytes=float(stored),
        compression_ratio=ratio,
        stored_gib=float(gib),
        node_cost_month=float(node_cost),
        storage_cost_month=float(storage_cost),
        settings=st,
        schema_name=schema_name,
        target_given=target_writes_per_s is not None,
    )


__all__ = ["Capacity", "NodeNeed", "capacity", "compression_ratio", "cpu_nodes"]
