"""Cloud Bigtable figures and prices the models use, kept as settings (not constants).

The per-node throughput figures are Google's public planning numbers for SSD
nodes with ~1 KB rows; real throughput depends on row size, filters and load
shape, so every modelled cost is a planning estimate, not a promise. Prices are
list prices (us-central1, on-demand) at the time of writing: change them with
``settings.replace(node_hour_usd=...)`` for your region, discounts or HDD.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass
from typing import Literal, get_args

from ..errors import WorkbenchError

# the read cost model is the planner's too: its type lives with the plans
from ..schema.plan import ReadCosts

StorageType = Literal["SSD", "HDD"]
Routing = Literal["single-cluster", "multi-cluster"]
Edition = Literal["enterprise", "enterprise-plus"]
ReplicationNetwork = Literal["intra-region", "inter-region"]

MB = 1_000_000
MiB = 1 << 20
GB = 1_000_000_000


@dataclass(frozen=True)
class Settings:
    """Everything the analysis models assume about Cloud Bigtable."""

    # throughput per SSD node (public planning figures)
    reads_per_s_per_node: float = 17_000.0
    writes_per_s_per_node: float = 14_000.0
    scan_bytes_per_s_per_node: float = 220 * MB
    # continuous materialized views: view-row updates per source row written (an assumption:
    # Google documents no CPU figure; see docs/architecture.md)
    view_updates_per_source_write: float = 1.0
    # prices (USD, us-central1 on-demand list prices; dated: change them for your region). The
    # price book, each figure's source or why it is an assumption: analysis/pricing.py
    prices_date: str = "2025-06"
    node_hour_usd: float = 0.65  # an Enterprise node
    enterprise_plus_node_hour_usd: float = 0.845  # assumption (pricing.py: PRICE_SOURCES)
    ssd_gb_month_usd: float = 0.17  # per GiB-month of compressed data
    hdd_gb_month_usd: float = 0.026
    hours_per_month: float = 730.0
    # replication network: the bytes written, copied to every other cluster, per GiB
    replication_network: ReplicationNetwork = "inter-region"  # where the clusters are
    intra_region_replication_gib_usd: float = 0.01  # assumption (pricing.py)
    inter_region_replication_gib_usd: float = 0.02  # assumption (pricing.py)
    # optional lines of the bill (0: not on the bill)
    backup_copies: int = 0  # full backups kept, each the size of the table (one copy)
    backup_gb_month_usd: float = 0.026  # assumption (pricing.py)
    data_boost_spu_hours_per_month: float = 0.0  # Data Boost serverless processing units
    data_boost_spu_hour_usd: float = 0.000845  # assumption (pricing.py)
    # limits (G10, G19, G20); the emulator enforces none of them. Cell and row sizes in decimal MB,
    # as Bigtable's quotas page states them (10 MB / 100 MB per cell, 100 MB / 256 MB per row); a
    # key's and a qualifier's in KiB, as the API states a key's "up to 4KiB"
    cell_advisory_bytes: int = 10 * MB
    cell_hard_bytes: int = 100 * MB
    row_advisory_bytes: int = 100 * MB
    row_hard_bytes: int = 256 * MB
    key_hard_bytes: int = 4 * 1024
    qualifier_hard_bytes: int = 16 * 1024
    # -- load model, Key Visualizer and capacity (sources: docs/architecture.md, "Load model") --
    # cluster and workload
    nodes: int = 3  # cluster size of the key-distribution model
    write_rate_per_s: float | None = None  # production mutations/s; None: the data's own rate
    queries_per_s: float | None = None  # production queries/s (all intents, split by weight)
    queries_per_write: float = 0.001  # when queries_per_s is None: one query per 1,000 writes
    planning_row_bytes: int = (
        1000  # the per-node figures assume 1 KB rows ("Understand performance")
    )
    # Key Visualizer picture
    key_buckets: int = 1000  # "1,000 contiguous ranges" of row keys (Key Visualizer metrics)
    window_minutes: int = 1  # Key Visualizer's finest time step is one minute
    max_windows: int = 240  # longer spans are drawn in coarser whole-minute windows
    min_windows: int = 24  # at least this many columns, however small the sample
    min_writes_per_window: int = 1000  # sample writes per window so node shares are not noise
    min_writes_per_step: int = 200  # sample writes per balancer step (splits, moves), likewise
    max_steps: int = 240  # balancer steps in all (time budget); long spans get longer steps
    # tablets: splits and rebalancing
    tablet_split_bytes: float = 200 * MB  # "100-200 MB" per tablet (Bigtable paper, OSDI 2006)
    load_split_share: float = 0.5  # a tablet splits by load above half a node's fair share
    # settle time after a change in load: "run a heavy pre-test for several minutes" so Bigtable
    # can "balance data across your nodes" (Understand performance); Scaling's "up to 20
    # minutes" is for nodes just added, which this model never does mid-run
    rebalance_minutes: float = 5.0
    rebalance_tolerance: float = 0.10  # moves start when a node is 10 % over the best it could be
    pre_splits: int = 0  # split points given at table creation (cbt createtable splits=...)
    # capacity
    cpu_target: float = 0.70  # recommended max average CPU: single-cluster routing (any number
    # of clusters), or multi-cluster routing with autoscaling (Monitoring)
    cpu_target_multi_cluster: float = 0.35  # two or more clusters, multi-cluster routing, no
    # autoscaling (Monitoring)
    ceiling_headroom: float = 10.0  # compare: ceilings all this far above the rate rank as a tie
    hotspot_share: float = 0.5  # a tablet with half the load is a hotspot more keys do not spread
    clusters: int = 1  # replication: every cluster stores and applies every write
    routing: Routing = "single-cluster"  # app profile routing
    autoscaling: bool = False  # clusters scale themselves to the CPU target (Autoscaling)
    entities_grow: bool = False  # at a higher rate: False, the dataset's entities each write
    # faster (a fixed set: pairs, salt buckets); True, production adds entities like them
    storage_utilization_target: float = 0.70  # keep stored bytes ≤ 70 % of a node's storage
    # (Monitoring: "Disk usage"; Quotas and limits: storage per node)
    storage: StorageType = "SSD"  # one type per instance ("ssd"/"hdd" are read as upper case)
    ssd_tb_per_node: float = 5.0  # storage per node, current "Quotas and limits" (older docs: 2.5)
    hdd_tb_per_node: float = 16.0  # (older docs: 8)
    hdd_reads_per_s_per_node: float = 500.0
    hdd_writes_per_s_per_node: float = 10_000.0
    hdd_scan_bytes_per_s_per_node: float = 180 * MB
    compression_codec: str = "snappy"  # Bigtable compresses SSTable blocks (paper: Zippy = Snappy)
    compression_block_bytes: int = 64 * 1024  # SSTable block size (Bigtable paper: 64 KB)
    compression_sample_bytes: int = 256 * 1024  # cells compressed to estimate the ratio
    large_row_bytes: int = 256 * MB  # Key Visualizer "Large rows": a row over 256 MB ...
    large_row_range_avg_bytes: int = 200 * MB  # ... or a key range averaging over 200 MB per row
    pressure_poor: float = 100.0  # a read/write pressure index of 100 or more is poor
    min_nodes: int = 1  # a production cluster has at least one node
    # read cost model: five unit costs calibrated on the two documented per-node figures (a 1 KB
    # row read at reads_per_s_per_node, 1 KB rows scanned at scan_bytes_per_s_per_node), split
    # by the three stated assumptions below (docs/architecture.md, "Read cost model")
    planning_row_cells: int = 10  # assumption: the 1 KB planning row is 10 cells (YCSB's record)
    scan_fixed_share: float = 0.5  # assumption: share of a row's scan time per row and per cell
    request_share: float = 0.2  # assumption: share of a lookup's own time that is the request
    # assumption: row ranges one ReadRows request carries (the API documents no count); a read
    # of more ranges is several requests sent side by side, as the client's read_rows_sharded
    ranges_per_request: int = 1000
    # storage model
    retention_months: float = 12.0  # planning horizon; a family's GC rule may keep less
    # tiered storage (Preview) and editions, dated: "Tiered storage overview", "Understand
    # performance", "Editions overview" (docs/architecture.md, "Capacity")
    tiers_date: str = "2026-01"
    tiered_after_days: float | None = None  # cells older than this (by cell timestamp) go to
    # the infrequent-access tier; None: no tiering
    tiered_min_days: float = 30.0  # the shortest age a tiering rule accepts
    cold_reads_per_s_per_node: float = 100.0  # infrequent-access tier, 1 KB rows
    cold_writes_per_s_per_node: float = 10_000.0
    cold_scan_bytes_per_s_per_node: float = 36 * MB
    cold_gb_month_usd: float = 0.026  # assumption: the HDD list price (check the pricing page)
    edition: Edition = "enterprise"  # tiering needs either
    tiered_tb_per_node: float = 32.0  # hot + cold per node with tiering, Enterprise
    tiered_tb_per_node_plus: float = 64.0  # ... Enterprise Plus
    in_memory_tier: bool = False  # Enterprise Plus in-memory tier (Preview)
    in_memory_reads_per_s_per_node: float = 40_000.0  # included per node (up to 120,000)
    in_memory_writes_per_s_per_node: float = 10_000.0
    short_name_bytes: int = 1  # "short but meaningful" family/qualifier names (G01)

    def node_rates(self) -> tuple[float, float, float]:
        """(rows read/s, rows written/s, scan bytes/s) one node serves, for this storage type
        (with Enterprise Plus' in-memory tier: its reads and writes, scans as SSD)."""
        if self.in_memory_tier:
            return (
                self.in_memory_reads_per_s_per_node,
                self.in_memory_writes_per_s_per_node,
                self.scan_bytes_per_s_per_node,
            )
        if self.storage.upper() == "HDD":
            return (
                self.hdd_reads_per_s_per_node,
                self.hdd_writes_per_s_per_node,
                self.hdd_scan_bytes_per_s_per_node,
            )
        return self.reads_per_s_per_node, self.writes_per_s_per_node, self.scan_bytes_per_s_per_node

    def read_costs(self) -> ReadCosts:
        """Node-seconds per request, seek, row, cell and byte of a read, for this storage type.

        Calibration (B = planning_row_bytes, C = planning_row_cells, R reads/s, S scan B/s):
        scanning one planning row costs B/S, of which ``scan_fixed_share`` is split evenly
        between its row and its C cells and the rest is bytes; a point read of one planning row
        costs 1/R, and what it costs beyond scanning that row is the lookup: ``request_share``
        of it the request, the rest the seek. So a point read of a 1 KB, 10-cell row costs
        exactly 1/R and a long scan of such rows runs at exactly S.
        """
        reads, _, scan = self.node_rates()
        row_scan = self.planning_row_bytes / scan
        fixed = self.scan_fixed_share * row_scan
        lookup = 1.0 / reads - row_scan
        return ReadCosts(
            request_s=self.request_share * lookup,
            seek_s=(1.0 - self.request_share) * lookup,
            row_s=fixed / 2,
            cell_s=fixed / 2 / self.planning_row_cells,
            byte_s=(row_scan - fixed) / self.planning_row_bytes,
            ranges_per_request=self.ranges_per_request,
        )

    @property
    def replication_cpu_target(self) -> float:
        """The recommended CPU target for this replication (Monitoring, "CPU usage"): 70 % for
        single-cluster routing or autoscaling; 35 % for two clusters with multi-cluster routing
        and no autoscaling. For three or more such clusters the page gives no figure ("depends
        on your configuration"): the assumption here keeps the 2-cluster rule's reason, that
        the other clusters absorb a failed one's traffic under ``cpu_target``, so
        ``cpu_target × (N − 1) / N`` (N = 2 gives the documented 35 %; 3 gives 46.7 %)."""
        if self.clusters >= 2 and self.routing == "multi-cluster" and not self.autoscaling:
            if self.clusters == 2:
                return self.cpu_target_multi_cluster
            return self.cpu_target * (self.clusters - 1) / self.clusters
        return self.cpu_target

    @property
    def cpu_target_source(self) -> str:
        """Where :attr:`replication_cpu_target` comes from, in one line every view can print."""
        t = self.replication_cpu_target
        if self.clusters >= 3 and self.routing == "multi-cluster" and not self.autoscaling:
            return (
                f"{t:.1%}: assumption for {self.clusters} clusters, multi-cluster routing, no "
                f"autoscaling (Monitoring gives no figure for 3+: the other clusters must absorb "
                f"a failed one's traffic under {self.cpu_target:.0%}, "
                f"{self.cpu_target:.0%} × {self.clusters - 1}/{self.clusters})"
            )
        return f"{t:.0%}: Monitoring, recommended maximum average CPU"

    @property
    def tb_per_node(self) -> float:
        return self.hdd_tb_per_node if self.storage.upper() == "HDD" else self.ssd_tb_per_node

    @property
    def storage_gb_month_usd(self) -> float:
        return self.hdd_gb_month_usd if self.storage.upper() == "HDD" else self.ssd_gb_month_usd

    def __post_init__(self) -> None:
        """Refuse a bad value when the settings are made, naming it and what is accepted (as
        xarray's ``set_options`` does): ``Settings(storage="tape")`` never builds."""
        if isinstance(self.storage, str) and self.storage.upper() in get_args(StorageType):
            object.__setattr__(self, "storage", self.storage.upper())
        for name, kind in _CHOICES.items():
            value, allowed = getattr(self, name), get_args(kind)
            if value not in allowed:
                raise WorkbenchError(
                    f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}."
                )
        _check_counts(self)
        _check_shares(self)
        _check_choices(self)

    def replace(self, **changes: object) -> Settings:
        """These settings with ``changes``; an unknown name is refused with the known ones (a
        bad value is refused by ``__post_init__``, as at construction)."""
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            known = ", ".join(f.name for f in dataclasses.fields(self))
            raise WorkbenchError(
                f"Unknown analysis setting(s) {sorted(unknown)}; known settings: {known}."
            )
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


_CHOICES = {
    "storage": StorageType,
    "routing": Routing,
    "edition": Edition,
    "replication_network": ReplicationNetwork,
}


def _check_counts(st: Settings) -> None:
    """Whole counts where Bigtable counts: clusters, nodes, backups."""
    for name, least in (
        ("clusters", 1),
        ("nodes", 1),
        ("min_nodes", 1),
        ("planning_row_cells", 1),
        ("backup_copies", 0),
    ):
        v = getattr(st, name)
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < least:
            raise WorkbenchError(f"{name} must be a whole number ≥ {least}, got {v!r}.")


def _check_shares(st: Settings) -> None:
    """Targets are shares of a node; prices, hours and months are not negative."""
    for name in ("cpu_target", "cpu_target_multi_cluster", "storage_utilization_target"):
        v = getattr(st, name)
        if not 0.0 < v <= 1.0:
            raise WorkbenchError(f"{name} must be in (0, 1], got {v}.")
    if not (0.0 <= st.scan_fixed_share < 1.0 and 0.0 <= st.request_share <= 1.0):
        raise WorkbenchError(
            "scan_fixed_share must be in [0, 1) and request_share in [0, 1], got "
            f"{st.scan_fixed_share} and {st.request_share}."
        )
    prices = [f.name for f in dataclasses.fields(st) if f.name.endswith("_usd")]
    for name in (*prices, "data_boost_spu_hours_per_month"):
        v = getattr(st, name)
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
            raise WorkbenchError(f"{name} must be a finite number ≥ 0, got {v!r}.")
    for name in ("hours_per_month", "retention_months"):
        v = getattr(st, name)
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
            raise WorkbenchError(f"{name} must be a finite number > 0, got {v!r}.")


def _check_choices(st: Settings) -> None:
    """What Bigtable refuses together: the in-memory tier without Enterprise Plus, tiering
    below its shortest age or on HDD."""
    if st.in_memory_tier and st.edition != "enterprise-plus":
        raise WorkbenchError(
            "in_memory_tier needs edition='enterprise-plus' (the in-memory tier is part of "
            "Enterprise Plus)."
        )
    if st.tiered_after_days is not None:
        if st.tiered_after_days < st.tiered_min_days:
            raise WorkbenchError(
                f"tiered_after_days must be at least {st.tiered_min_days:g} days (the shortest "
                f"age a tiering rule accepts), got {st.tiered_after_days:g}."
            )
        if st.storage != "SSD":
            raise WorkbenchError("tiered storage needs SSD clusters; storage is HDD.")


DEFAULT = Settings()
