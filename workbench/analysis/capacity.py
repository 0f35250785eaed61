"""Storage and capacity: bytes per event, compressed storage, nodes and the monthly bill (G01, G06, G14, G15).

Every cell stores its row key, family and qualifier again, so names are paid per cell: the
breakdown shows how much of an event's bytes are names (G01) and what one-byte names would
save.

Rates are **events per second** (what a team knows); each design turns them into mutations
(a design that writes every event to two tables needs twice the writes). Nodes are the larger
of two needs, per cluster:

* **CPU**: one model, the design at the stated workload (``analysis/production.py``, what
  ``analyze`` builds and passes): the writes and every query at production size at the peak
  rate, over the CPU target of the replication and routing (70 % single-cluster routing, or
  multi-cluster with autoscaling; 35 % per cluster for two clusters with multi-cluster routing
  and no autoscaling), spread evenly with units that cannot split packed whole
  (``cpu_need.production_need``). When the rate exceeds the design's **ceiling** (the busiest
  unsplittable unit at the CPU target: one write frontier, a salt bucket, one hot row, one
  fixed entity; or the most-read row) no node count serves it: the result is
  *hotspot-limited*, names the unit, the ceiling and the fix.
* **storage**: the bytes each family keeps under its GC rule (``analysis/retention.py``: max
  age, max versions) on the planning horizon, **compressed** (the design's measured ratio:
  Bigtable counts physical storage), over a node's storage at ``storage_utilization_target``.

With ``tiered_after_days`` (tiered storage, Preview) cells older than that, by cell timestamp,
move to the infrequent-access tier: storage and its bill split into hot (SSD) and cold, each
query is told which tier its rows come from, and cold reads are sized at the cold tier's
per-node rate. The emulator runs none of this (it silently drops ``tiered_storage_config``):
every figure here is the production model.

Storage is billed on compressed data in binary GB (GiB): the ratio is measured by compressing
a sample of the design's own cells, serialized in key order and cut into 64 KB blocks like an
SSTable, with Snappy (the codec the Bigtable paper names, as Zippy). Replication multiplies
nodes and storage by the number of clusters. Prices are dated settings.

Why one module: the node count, what bounds it (hotspot, CPU, storage or the one-node
minimum), the ceiling, the bill and their verdict are one calculation read together; split,
each part would re-derive the others' figures (the retention and tier parts already live in
``retention.py`` and ``tiers.py``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..formatting import counted
from ..reprs import html_of
from ..schema.families import Family
from ._index import CellIndex
from .compression import compression_ratio
from .cpu_need import NodeNeed, UnitLimit, production_limit, production_need
from .pricing import Bill, monthly_bill
from .production import Production
from .retention import FamilyRetention, retention
from .settings import DEFAULT, Settings
from .tiers import TierSplit, tier_split, tier_text

_NAME_LIKE_QUALIFIERS = 64  # more distinct qualifiers than this means they carry data (G12, G19)


@dataclass
class Capacity:
    """Storage per event and per month, nodes for CPU and storage, and the monthly bill."""

    events: int
    cells: int
    total_bytes: int
    breakdown: dict[str, int]  # key / family / qualifier / timestamp / value bytes over all cells
    short_names_bytes: int  # total bytes with one-byte family and qualifier names
    events_per_s: float  # production events per second
    mutations_per_event: float  # the design's mutations for one event (two tables: 2)
    writes_per_s: float  # production mutations per second the nodes are sized for
    queries_per_s: float
    write_cpu: float  # CPU of the writes at the peak, in nodes
    read_cpu: float  # CPU of the reads at the peak, in nodes
    peak_cpu: float  # total CPU at the workload's peak (writes + reads + cold reads), in nodes
    cpu: NodeNeed
    cpu_target: float
    ceiling: UnitLimit
    storage_nodes: int
    clusters: int
    storage: str
    hotspot_factor: float
    busiest_share: float
    nodes_fair: int  # nodes if the load were perfectly even (CPU only)
    nodes_per_cluster: int
    nodes_needed: int  # over all clusters
    hotspot_limited: bool
    bytes_per_month: float  # logical, one copy, everything written
    stored_bytes: float  # logical, kept under each family's GC rule, one copy
    compression_ratio: float
    stored_gib: float  # compressed, all clusters (what is billed)
    node_cost_month: float
    storage_cost_month: float
    production: Production = field(repr=False)  # the design at the workload: what was sized
    families: list[FamilyRetention] = field(default_factory=list)
    family_stored_bytes: dict[str, float] = field(default_factory=dict)  # logical, per family
    cold_bytes: float = 0.0  # logical, one copy, in the infrequent-access tier
    cold_gib: float = 0.0  # compressed, all clusters
    cold_read_nodes: float = 0.0  # CPU (nodes) of reads served from the cold tier
    query_tiers: dict[str, float] = field(default_factory=dict)  # query: share of rows cold
    replication_gib_month: float = 0.0  # written bytes copied between clusters
    dropped_gib_per_day: float = 0.0  # compressed, one copy: what the GC rules drop a day at
    # the retention horizon (what incremental backups hold beyond the table)
    backup_gib: float = 0.0  # billed backup storage: dropped_gib_per_day × backup_retention_days
    data_boost_spu_hours: float = 0.0  # a month of the queries sent to Data Boost
    bill: Bill | None = None  # the month's line items (pricing.monthly_bill)
    write_limited: bool = False  # the write rate exceeds the write ceiling
    query_ceiling_per_s: float = math.inf  # queries/s at which the most-read row fills a node
    read_row: str = ""  # that row
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
        """The bill's total: nodes, storage, replication network and the optional lines."""
        if self.bill is not None:
            return self.bill.total
        return self.node_cost_month + self.storage_cost_month

    @property
    def hot_gib(self) -> float:
        return self.stored_gib - self.cold_gib

    @property
    def tiered(self) -> bool:
        return self.settings.tiered_after_days is not None

    @property
    def ceiling_events_per_s(self) -> float:
        """The ceiling in events/s (``math.inf``: no unsplittable unit limits the design)."""
        return self.ceiling.writes_per_s / max(self.mutations_per_event, 1e-12)

    @property
    def bound_by(self) -> str:
        """What sets the node count: hotspot, cpu, storage or minimum (the smallest cluster)."""
        st, nodes = self.settings, max(self.cpu.nodes, self.storage_nodes)
        if self.hotspot_limited:
            return "hotspot"
        if nodes <= st.min_nodes and self.peak_cpu < st.min_nodes * self.cpu_target:
            return "minimum"
        return "storage" if self.storage_nodes > self.cpu.nodes else "cpu"

    @property
    def bound_text(self) -> str:
        """ "cpu-bound", or "the 1-node minimum" (a sample's rate is not cpu-bound at $475)."""
        n = self.settings.min_nodes
        return f"the {n}-node minimum" if self.bound_by == "minimum" else f"{self.bound_by}-bound"

    @property
    def units_assumption(self) -> str:
        """Whether the busiest unit grows with volume or is fixed: stated with every ceiling."""
        c = self.ceiling
        if not c.kind:
            return "no unsplittable unit: the load splits across tablets as it grows"
        if c.kind == "salt bucket":
            return f"fixed: {c.units} salt buckets, whatever the volume"
        if c.kind == "write frontier":
            return "fixed: one write frontier, whatever the volume"
        if c.kind == "hot row":
            return "fixed: one row takes the writes"
        if c.fixed:
            return (
                f"fixed: the dataset's entities each write faster at a higher rate "
                f"(≈{c.units:,} busy units); state growth='grow' (wb.Workload) if production "
                "adds series instead"
            )
        return "growing: production adds series like the dataset's (growth='grow')"

    def fix(self) -> str:
        """What would serve the target when it exceeds the ceiling ("" when it does not)."""
        c = self.ceiling
        if not self.hotspot_limited:
            return ""
        if not self.write_limited:
            return (
                "serve that row's reads from a cache or a copy per reader, or split what it "
                "holds over rows (G05)"
            )
        need = max(c.units + 1, math.ceil(c.units * self.writes_per_s / c.writes_per_s - 1e-9))
        if c.kind == "salt bucket":
            return f"{need} salt buckets (Salt(n={need})) would serve it (G08)"
        if c.kind == "hot row":
            return (
                "spread this row's writes over new rows, e.g. a time bucket in the key (G09, G16)"
            )
        if c.kind == "write frontier":
            return (
                f"put a field with at least {need} busy values ahead of the timestamp (G07), or "
                f"salt the key into at least {need} buckets (G08)"
            )
        return (
            f"the busiest entity takes {c.share_text()}: split it with a field "
            "after "
            "it or a salt (G08); if production adds series rather than speeding these up, "
            "state growth='grow' or the series count (wb.Workload)"
        )

    @property
    def rate_label(self) -> str:
        """Whose rate the figures are at: a stated production rate, or the sample's own."""
        return "production" if self.target_given else "the sample's own rate"

    def table(self) -> pd.DataFrame:
        st = self.settings
        per_node_tb = st.tb_per_node
        said = self.rate_label
        rows: dict[str, float] = {
            "bytes per event": self.bytes_per_event,
            "…with 1-byte family/qualifier names (G01)": self.short_names_bytes_per_event,
            "names share of bytes": self.name_overhead_share,
            f"events per second ({said})": self.events_per_s,
            "mutations per event (this design)": self.mutations_per_event,
            f"writes per second ({said})": self.writes_per_s,
            f"queries per second ({said})": self.queries_per_s,
            "CPU of writes (nodes)": self.write_cpu,
            "CPU of reads (nodes)": self.read_cpu,
            "CPU at the peak (nodes, reads + writes)": self.peak_cpu,
            f"ceiling (events/s, busiest unit at {self.cpu_target:.0%} CPU)": self.ceiling_events_per_s,
            "ceiling (queries/s, most-read row)": self.query_ceiling_per_s,
            f"busiest node CPU at {counted(self.cpu.nodes, 'node')}": self.cpu.busiest_cpu,
            "hotspot factor (busiest node ÷ fair)": self.hotspot_factor,
            f"nodes for CPU (busiest ≤ {self.cpu_target:.0%})": self.cpu.nodes,
            "growth per month (GB, logical)": self.bytes_per_month / 1e9,
            f"kept under the GC rules, ≤ {self.production.workload.retention_months:g} months "
            "(TB, logical)": (self.stored_bytes / 1e12),
            f"compression ({st.compression_codec}, measured on the cells)": self.compression_ratio,
            "kept, compressed (TB, one cluster)": self.stored_bytes / self.compression_ratio / 1e12,
            (
                f"nodes for storage ({per_node_tb:g} TB per {self.storage} node at "
                f"{st.storage_utilization_target:.0%})"
            ): self.storage_nodes,
            f"billed storage (GiB compressed, {self.clusters} cluster(s))": self.stored_gib,
        }
        if self.tiered:
            rows[f"…cold tier, older than {st.tiered_after_days:g} days (GiB)"] = self.cold_gib
            rows["…hot tier, SSD (GiB)"] = self.hot_gib
            rows["CPU of cold-tier reads (nodes)"] = self.cold_read_nodes
        rows.update(
            {
                "nodes per cluster": self.nodes_per_cluster,
                "clusters (replication)": self.clusters,
                "nodes in total": self.nodes_needed,
                "replication traffic (GiB per month)": self.replication_gib_month,
                f"node cost per month (USD, prices of {st.prices_date})": self.node_cost_month,
                f"storage cost per month (USD, prices of {st.prices_date})": self.storage_cost_month,
                "replication network, backups, Data Boost per month (USD)": (
                    self.monthly_cost - self.node_cost_month - self.storage_cost_month
                ),
                "total per month (USD)": self.monthly_cost,
            }
        )
        if self.hotspot_limited:  # no node count serves this design: the price is the fix's
            rows = {fix_label(k): v for k, v in rows.items()}
        return pd.DataFrame({"value": pd.Series(rows, dtype=float)})

    def view(self, rows: Sequence[str] | None = None) -> Any:
        """``table()`` (or some of its rows) formatted for reading: :meth:`shown_table`."""
        return self.shown_table(rows)

    def shown_table(self, rows: Sequence[str] | None = None) -> pd.DataFrame:
        """:meth:`table` (or some of its rows) as read: rates per s/min/h/day, shares in %,
        dollars, sizes in B/kB/MB, at most three decimals (the workshop samples' rates are tiny;
        they must not read as 8.3e-06 nor 0.00000827)."""
        from ..formatting import shown

        t = self.table()
        if rows is not None:  # the plain labels name the fix's rows of a hotspot-limited design
            t = t.loc[[r if r in t.index else fix_label(r) for r in rows]]
        pairs = [shown(str(k), v) for k, v in t["value"].items()]
        # the unit lives in the value ("329.3 kB"), so the label drops it ("growth per month
        # (logical)"); ``view(rows)`` still takes the labels of :meth:`table`
        return pd.DataFrame(
            {"value": [text for _, text in pairs]}, index=[label for label, _ in pairs]
        )

    def query_tier_texts(self) -> dict[str, str]:
        """Which tier each query's rows come from (tiered storage only; modelled)."""
        return {q: tier_text(share) for q, share in self.query_tiers.items()}

    def retention_table(self) -> pd.DataFrame:
        """Per family: its GC rule, the months it keeps, the share of cells it keeps, TB kept."""
        return pd.DataFrame.from_records(
            [
                {
                    "table": f.table,
                    "family": f.family,
                    "gc rule": f.rule,
                    "months kept": f.months,
                    "share of cells kept (versions)": f.versions_share,
                    "kept (TB, logical)": self.family_stored_bytes.get(f"{f.table}/{f.family}", 0.0)
                    / 1e12,
                }
                for f in self.families
            ]
        )

    def rate_text(self) -> str:
        from ..formatting import number, rate

        return (
            f"{rate(self.events_per_s, 'events')} ({self.rate_label}; "
            f"{rate(self.writes_per_s, 'mutations')}, {number(self.mutations_per_event)} per event)"
        )

    def verdict(self) -> str:
        from ..formatting import rate

        if self.hotspot_limited and not self.write_limited:
            return (
                f"Hotspot-limited at {rate(self.queries_per_s, 'queries')}: the rows query "
                f"{self.read_row!r} reads are "
                f"the most read and cannot split, so reads stop scaling at "
                f"{rate(self.query_ceiling_per_s, 'queries')} ({self.cpu_target:.0%} CPU), "
                f"whatever the node count; fix: {self.fix()}"
            )
        if self.hotspot_limited:
            c = self.ceiling
            return (
                f"Hotspot-limited at {self.rate_text()}: {c.kind} {c.name or '(unnamed)'} takes "
                f"{c.share_text() if c.spread else f'{c.share:.0%} of the writes'}, so this "
                "design stops scaling at "
                f"{rate(self.ceiling_events_per_s, 'events')} ({self.cpu_target:.0%} CPU), "
                f"whatever the node count; fix: {self.fix()}"
            )
        tier = ""
        if self.tiered:
            tier = (
                f", {self.cold_gib / max(self.stored_gib, 1e-12):.0%} of the storage cold "
                f"(after {self.settings.tiered_after_days:g} days; modelled: the emulator "
                "cannot run tiers)"
            )
        return (
            f"{self.bytes_per_event:,.0f} B per event, {counted(self.nodes_needed, self.storage + ' node')} "
            f"({self.bound_text}) at {self.rate_text()}{tier}, ≈ ${self.monthly_cost:,.0f} "
            f"per month (prices of {self.settings.prices_date})"
        )

    def assumptions(self) -> list[str]:
        """What the figures assume, stated next to them."""
        st = self.settings
        out = [
            f"CPU target {st.cpu_target_source}; {counted(self.clusters, 'cluster')}, {st.routing} "
            "routing" + (", autoscaling" if st.autoscaling else ""),
            f"units: {self.units_assumption}",
            f"storage: compressed bytes at ≤ {st.storage_utilization_target:.0%} of "
            f"{st.tb_per_node:g} TB per {self.storage} node; each family kept as its GC rule says",
        ]
        if self.clusters > 1:
            out.append(
                f"replication: every cluster applies every write; "
                f"{self.replication_gib_month:,.0f} GiB/month copied between clusters, "
                f"billed as {st.replication_network} network (analysis/pricing.py)"
            )
        if self.tiered:
            out.append(
                f"tiered storage ({st.edition}, prices and figures of {st.tiers_date}): cold "
                f"tier ≈ {st.cold_reads_per_s_per_node:,.0f} reads/s, "
                f"{st.cold_writes_per_s_per_node:,.0f} writes/s, "
                f"{st.cold_scan_bytes_per_s_per_node / 1e6:,.0f} MB/s scans per node; the "
                "emulator cannot run tiers (it silently drops tiered_storage_config): modelled"
            )
        return out

    def _repr_html_(self) -> str:
        return html_of(self)


def bytes_by_part(index: CellIndex) -> dict[str, int]:
    """The sample's stored bytes by what they are: every cell repeats its row key, family and
    qualifier, then an 8-byte timestamp and its value (G01)."""
    n = index.n_cells
    return {
        "row key": int(index.key_bytes[index.row].sum()) if n else 0,
        "family": int(index.family_bytes[index.family].sum()) if n else 0,
        "qualifier": int(index.qualifier_bytes[index.qualifier].sum()) if n else 0,
        "timestamp": 8 * n,
        "value": int(index.value_bytes_total),
    }


def short_names_total(index: CellIndex, parts: Mapping[str, int], short_name_bytes: int) -> int:
    """The sample's bytes had every family (and every name-like qualifier: a few distinct ones,
    not data in the qualifier) been ``short_name_bytes`` long."""
    n = index.n_cells
    fam_b, qual_b = parts["family"], parts["qualifier"]
    qual_short = short_name_bytes * n if len(index.qualifiers) <= _NAME_LIKE_QUALIFIERS else qual_b
    return (
        sum(parts.values())
        - fam_b
        - qual_b
        + min(short_name_bytes * n, fam_b)
        + min(qual_short, qual_b)
    )


def storage_nodes_needed(hot_bytes: float, cold_bytes: float, st: Settings) -> int:
    """Nodes the compressed bytes need: hot bytes at ``tb_per_node`` each filled to the
    utilisation target; with tiering, also hot and cold together at the tiered per-node
    limit (higher with the Enterprise Plus edition). At least ``min_nodes``."""
    usable = st.storage_utilization_target * 1e12
    need = hot_bytes / (st.tb_per_node * usable)
    if st.tiered_after_days is not None:
        per_node = (
            st.tiered_tb_per_node_plus if st.edition == "enterprise-plus" else st.tiered_tb_per_node
        )
        need = max(need, (hot_bytes + cold_bytes) / (per_node * usable))
    return max(st.min_nodes, math.ceil(need - 1e-9))


_FIX_PRICED = ("nodes per cluster", "nodes in total", "node cost per month", "total per month")
ONCE_FIXED = " once the hotspot is fixed"


def fix_label(label: str) -> str:
    """A node-count or price row's label when no node count serves the design: the figure is
    what the design costs once its hotspot is fixed (the verdict names the fix), never a price
    for a rate it cannot serve. Other labels are returned unchanged."""
    if not label.startswith(_FIX_PRICED):
        return label
    head, sep, tail = label.partition(" (")
    return f"{head}{ONCE_FIXED}{sep}{tail}"


def capacity(
    index: CellIndex,
    events: int,
    production: Production,
    *,
    schema_name: str = "",
    compression: float | None = None,
    families: Mapping[str, Sequence[Family]] | None = None,
    seen_rows: Mapping[str, np.ndarray] | None = None,
) -> Capacity:
    """Storage, nodes and cost of a design at its production workload.

    ``index``: the design's cells; ``events``: the dataset's event count (the sample the cells
    hold); ``production``: the design at the stated workload (``analysis/production.py``): its
    rates, the CPU of its writes and reads, its ceiling and node count, and its settings (one
    model: ``analyze`` builds it); ``compression``: logical ÷ compressed bytes
    (:func:`compression_ratio`; default 1); ``families``: the design's families per table
    (``Schema.table_families()``: their GC rules set retention); ``seen_rows``:
    the sample's rows each query reads (which tier they come from; how many a second is the
    production figure, ``Production.rows_read_per_s``).

    The steps, each its own function: :func:`bytes_by_part` (what a cell stores), ``retention``
    (what each family keeps), ``tier_split`` (what tiering moves cold),
    ``cpu_need.production_need`` (nodes for the CPU), ``cpu_need.production_limit`` (the
    ceiling), :func:`storage_nodes_needed` (nodes for the bytes); the rest is their arithmetic
    into the bill.

    Why one function: what remains after those steps is the rate conversion, a few products
    and the one ``Capacity`` of some forty named figures; split further, each part would pass
    most of them along.
    """
    st = production.settings
    n = index.n_cells
    parts = bytes_by_part(index)
    total = sum(parts.values())
    short_total = short_names_total(index, parts, st.short_name_bytes)

    writes, ev_rate = production.writes_per_s, production.events_per_s
    seconds_per_month = st.hours_per_month * 3600
    days_per_month = st.hours_per_month / 24
    scale = ev_rate * seconds_per_month / max(events, 1)  # sample bytes → bytes per month
    per_month = total * scale
    months = production.workload.retention_months  # the horizon the workload keeps data for
    fams = retention(index, families, months, days_per_month=days_per_month)
    kept = {f"{f.table}/{f.family}": f.bytes * scale * f.months * f.versions_share for f in fams}
    stored = float(sum(kept.values()))
    ratio = float(compression) if compression else 1.0
    after = st.tiered_after_days
    tiers = (
        TierSplit()
        if after is None
        else tier_split(
            index,
            fams,
            kept,
            after_days=after,
            days_per_month=days_per_month,
            seen_rows=seen_rows or {},
            reads_per_s=production.rows_read_per_s(),
            cold_reads_per_s_per_node=st.cold_reads_per_s_per_node,
        )
    )
    cold, cold_read_nodes = tiers.cold_bytes, tiers.cold_read_nodes

    clusters = int(st.clusters)
    target = production.cpu_target
    peak = production.peak_cpu + cold_read_nodes
    ceiling = production_limit(production)
    need = production_need(production, cold_read_nodes, st.min_nodes)
    storage_nodes = storage_nodes_needed((stored - cold) / ratio, cold / ratio, st)
    per_cluster = max(need.nodes, storage_nodes)
    nodes_total = per_cluster * clusters
    gib = stored / ratio / 2**30 * clusters
    cold_gib = cold / ratio / 2**30 * clusters
    replication_gib = per_month / 2**30 * (clusters - 1)
    # at the horizon each family drops a day's worth of what it keeps every day (its months
    # kept): incremental backups kept D days hold that data beyond what the table still shares
    dropped = sum(
        kept[f"{f.table}/{f.family}"] / (f.months * days_per_month) for f in fams if f.months > 0
    )
    dropped_gib_day = dropped / ratio / 2**30
    backup_gib = min(dropped_gib_day * st.backup_retention_days, (gib / clusters))
    spu_hours = production.queries.data_boost_spu_hours
    bill = monthly_bill(
        nodes_total,
        hot_gib=gib - cold_gib,
        cold_gib=cold_gib,
        replication_gib=replication_gib,
        backup_gib=backup_gib,
        data_boost_spu_hours=spu_hours,
        settings=st,
    )
    node_cost, storage_cost = bill.usd("nodes"), bill.usd("storage")
    return Capacity(
        events=events,
        cells=n,
        total_bytes=total,
        breakdown=parts,
        short_names_bytes=int(short_total),
        events_per_s=ev_rate,
        mutations_per_event=float(production.mutations_per_event),
        writes_per_s=float(writes),
        queries_per_s=production.queries_per_s,
        write_cpu=production.write_cpu,
        read_cpu=production.read_cpu,
        peak_cpu=peak,
        cpu=need,
        cpu_target=target,
        ceiling=ceiling,
        storage_nodes=storage_nodes,
        clusters=clusters,
        storage=st.storage.upper(),
        hotspot_factor=float(need.hotspot_factor),
        busiest_share=float(need.busiest_cpu / peak) if peak > 0 else 1.0,
        nodes_fair=max(st.min_nodes, math.ceil(peak / target - 1e-9)) if peak > 0 else st.min_nodes,
        nodes_per_cluster=per_cluster,
        nodes_needed=nodes_total,
        hotspot_limited=production.limited,
        write_limited=production.write_limited,
        query_ceiling_per_s=float(production.query_ceiling_per_s),
        read_row=production.queries.busiest_row_query,
        bytes_per_month=float(per_month),
        stored_bytes=stored,
        compression_ratio=ratio,
        stored_gib=float(gib),
        node_cost_month=float(node_cost),
        storage_cost_month=float(storage_cost),
        families=fams,
        family_stored_bytes=kept,
        cold_bytes=float(cold),
        cold_gib=float(cold_gib),
        cold_read_nodes=float(cold_read_nodes),
        query_tiers=dict(tiers.query_tiers or {}),
        replication_gib_month=float(replication_gib),
        dropped_gib_per_day=float(dropped_gib_day),
        backup_gib=float(backup_gib),
        data_boost_spu_hours=float(spu_hours),
        bill=bill,
        settings=st,
        schema_name=schema_name,
        production=production,
        target_given=(
            production.workload.events_per_s is not None or bool(production.series.stated)
        ),
    )


__all__ = [
    "Capacity",
    "NodeNeed",
    "UnitLimit",
    "bytes_by_part",
    "capacity",
    "compression_ratio",
    "storage_nodes_needed",
    "tier_text",
]
