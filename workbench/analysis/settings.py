"""Cloud Bigtable figures and prices the models use, kept as settings (not constants).

The per-node throughput figures are Google's public planning numbers for SSD
nodes with ~1 KB rows; real throughput depends on row size, filters and load
shape, so every modelled cost is a planning estimate, not a promise. Prices are
list prices (us-central1, on-demand) at the time of writing: change them with
``settings.replace(node_hour_usd=...)`` for your region, discounts or HDD.

Why one module: a setting, the rule that checks it (``SETTING_RULES``) and the rules between
settings (``SETTING_CONSTRAINTS``) are read together by ``Settings.__post_init__`` and by
``tests/analysis/test_settings.py``, which checks that no field lacks its rule; apart, a new
setting could be added without its rule.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal, get_args

from ..errors import SettingsError

# the read cost model is the planner's too: its type lives with the plans
from ..schema import limits as _limits
from ..schema.plan import ReadCosts

StorageType = Literal["SSD", "HDD"]
Routing = Literal["single-cluster", "multi-cluster"]
Edition = Literal["enterprise", "enterprise-plus"]
ReplicationNetwork = Literal["intra-region", "inter-region"]
CompressionCodec = Literal["snappy", "lz4", "zstd", "gzip", "brotli"]  # pyarrow's Codec names

MB = 1_000_000
MiB = 1 << 20
GB = 1_000_000_000


# production facts Settings once held beside Bigtable's constants, and the Workload field that
# states each now (write_rate_per_s was mutations/s: a Workload states events, each design turns
# them into its own mutations)
MOVED_TO_WORKLOAD = {
    "write_rate_per_s": "events_per_s=...",
    "queries_per_s": "queries_per_s=...",
    "entities_grow": 'growth="grow"',
    "retention_months": "retention_months=...",
}


def _refuse_production(given: Mapping[str, object]) -> None:
    moved = [k for k in MOVED_TO_WORKLOAD if k in given]
    if moved:
        raise SettingsError(
            f"Settings no longer hold production ({', '.join(moved)}): state it once, as "
            f"analyze(..., workload=wb.Workload({MOVED_TO_WORKLOAD[moved[0]]}))."
        )


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
    # backups are incremental ("Backups overview": a backup shares physical storage with its
    # table and the table's other backups): the backups kept over this many days hold, beyond
    # what the table still shares, the data the table dropped in that time (pricing.py)
    backup_retention_days: float = 0.0  # 0: no backups; up to 90 days (365 Enterprise Plus)
    backup_gb_month_usd: float = 0.026  # assumption (pricing.py)
    # Data Boost ("Data Boost overview"): 1,000 SPUs ≈ one node's performance, each request
    # billed at least 60 SPU-seconds; the queries sent there (Workload: QueryLoad(data_boost=
    # True)) are billed in SPU-hours from their node-seconds and take no node CPU
    data_boost_spu_per_node: float = 1000.0
    data_boost_min_spu_s_per_request: float = 60.0
    data_boost_spu_hour_usd: float = 0.000845  # assumption (pricing.py)
    # limits (G10, G19, G20); the emulator enforces none of them. The numbers to_cells enforces
    # (schema/limits.py: cell and row sizes in decimal MB as Bigtable's quotas page states them,
    # 10 MB / 100 MB per cell and 100 MB / 256 MB per row; a key's and a qualifier's in KiB, as
    # the API states a key's "up to 4KiB"): one figure per limit
    cell_advisory_bytes: int = _limits.CELL_ADVISORY
    cell_hard_bytes: int = _limits.CELL_MAX
    row_advisory_bytes: int = _limits.ROW_ADVISORY
    row_hard_bytes: int = _limits.ROW_MAX
    key_hard_bytes: int = _limits.ROW_KEY_MAX
    qualifier_hard_bytes: int = _limits.QUALIFIER_MAX
    # -- load model, Key Visualizer and capacity (sources: docs/architecture.md, "Load model") --
    # cluster (production itself, its rates, series and growth, is a wb.Workload: MOVED_TO_WORKLOAD)
    nodes: int = 3  # cluster size of the key-distribution model
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
    # the engine path's bounds (analysis/file_writes.py): rows it keys one by one, and (row,
    # step) entries it fetches (about 100 bytes each in memory while fetched); past rows_max
    # it keys ranges of consecutive rows, past entries_max the sample's replay stays
    rows_max: int = 2_000_000
    entries_max: int = 2_000_000
    # the most distinct rows a ranged pass counts (count(DISTINCT key) per range holds every
    # key in DuckDB's 1 GB, ~60 bytes each, and cannot spill: 100 M per-event keys ran it out
    # of memory); past it the sample's replay stays
    range_rows_max: int = 10_000_000
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
    # the busiest node's CPU, shown beside the average target (the production sheet). Monitoring
    # names a recommended maximum for "High-granularity CPU utilization of hottest node" but
    # the stored page shows no figure: 90 % is from a Google Cloud Community post (assumption)
    hottest_node_cpu_target: float = 0.90
    # autoscaling recommendation (the production sheet): AutoscalingTargets accepts a CPU target
    # of 10-80 %; the maximum node count may be at most 10× the minimum (Google Cloud blog,
    # "Bigtable Autoscaling: Deep dive and cost saving analysis")
    autoscaling_cpu_min: float = 0.10
    autoscaling_cpu_max: float = 0.80
    autoscaling_max_over_min: float = 10.0
    ceiling_headroom: float = 10.0  # compare: ceilings all this far above the rate rank as a tie
    hotspot_share: float = 0.5  # a tablet with half the load is a hotspot more keys do not spread
    clusters: int = 1  # replication: every cluster stores and applies every write
    routing: Routing = "single-cluster"  # app profile routing
    autoscaling: bool = False  # clusters scale themselves to the CPU target (Autoscaling)
    storage_utilization_target: float = 0.70  # keep stored bytes ≤ 70 % of a node's storage
    # (Monitoring: "Disk usage"; Quotas and limits: storage per node)
    storage: StorageType = "SSD"  # one type per instance ("ssd"/"hdd" are read as upper case)
    ssd_tb_per_node: float = 5.0  # storage per node, current "Quotas and limits" (older docs: 2.5)
    hdd_tb_per_node: float = 16.0  # (older docs: 8)
    hdd_reads_per_s_per_node: float = 500.0
    hdd_writes_per_s_per_node: float = 10_000.0
    hdd_scan_bytes_per_s_per_node: float = 180 * MB
    # Bigtable compresses SSTable blocks (paper: Zippy = Snappy)
    compression_codec: CompressionCodec = "snappy"
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
    in_memory_reads_per_s_per_node: float = 40_000.0  # one increment; a node includes one
    # and scales "to 120,000 rows per second per node in increments of 40,000" (Understand
    # performance): in_memory_increments of them per node
    in_memory_increments: int = 1
    in_memory_increment_node_hour_usd: float | None = None  # an increment past the included
    # one, per node-hour: no stored page gives a price (None: not on the bill, said so)
    in_memory_writes_per_s_per_node: float = 10_000.0
    short_name_bytes: int = 1  # "short but meaningful" family/qualifier names (G01)

    def node_rates(self) -> tuple[float, float, float]:
        """(rows read/s, rows written/s, scan bytes/s) one node serves, for this storage type
        (with Enterprise Plus' in-memory tier: its reads and writes, scans as SSD)."""
        if self.in_memory_tier:
            return (
                self.in_memory_reads_per_s_per_node * self.in_memory_increments,
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

    def __new__(cls, *args: object, **kwargs: object) -> Settings:
        """Refuse a production fact these settings once held (``MOVED_TO_WORKLOAD``), naming the
        Workload field that states it (Python alone would say only "unexpected keyword")."""
        _refuse_production(kwargs)
        return super().__new__(cls)

    def __post_init__(self) -> None:
        """Refuse a bad value when the settings are made, naming it, the value and what is
        accepted (as xarray's ``set_options`` does): ``Settings(storage="tape")`` never builds.
        Every field's rule is in :data:`SETTING_RULES`, the rules between fields in
        :data:`SETTING_CONSTRAINTS`; every refused field is named at once. A field without a
        rule is not checked here (the package must still import) but fails
        ``tests/analysis/test_settings.py``, which names it."""
        if isinstance(self.storage, str) and self.storage.upper() in get_args(StorageType):
            object.__setattr__(self, "storage", self.storage.upper())
        problems = [
            _refusal(f, getattr(self, f.name))
            for f in dataclasses.fields(self)
            if f.name in SETTING_RULES and not SETTING_RULES[f.name].accepts(getattr(self, f.name))
        ]
        if not problems:  # the rules between fields read values their own rules accept
            problems = [c.says(self) for c in SETTING_CONSTRAINTS if not c.holds(self)]
        if problems:
            raise SettingsError(" ".join(problems))

    def replace(self, **changes: object) -> Settings:
        """These settings with ``changes``; an unknown name is refused with the known ones (a
        bad value is refused by ``__post_init__``, as at construction)."""
        _refuse_production(changes)
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            known = ", ".join(f.name for f in dataclasses.fields(self))
            raise SettingsError(
                f"Unknown analysis setting(s) {sorted(unknown)}; known settings: {known}."
            )
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


# -- what each setting accepts: one rule per field, checked when settings are made -------------


@dataclass(frozen=True)
class Number:
    """A finite number from ``low`` to ``high`` (``open_low``/``open_high``: the bound itself
    is refused); ``whole``: an integer (never a bool); ``optional``: None is accepted too."""

    low: float
    high: float = math.inf
    open_low: bool = False
    open_high: bool = False
    whole: bool = False
    optional: bool = False

    def accepts(self, value: object) -> bool:
        if value is None:
            return self.optional
        kind = numbers.Integral if self.whole else numbers.Real
        if isinstance(value, bool) or not isinstance(value, kind):
            return False
        v = float(value)
        if not math.isfinite(v):
            return False
        above = v > self.low if self.open_low else v >= self.low
        below = v < self.high if self.open_high else v <= self.high
        return above and below

    @property
    def allowed(self) -> str:
        if self.high < math.inf:
            left, right = "(" if self.open_low else "[", ")" if self.open_high else "]"
            text = f"in {left}{self.low:g}, {self.high:g}{right}"
        else:
            kind = "whole" if self.whole else "finite"
            text = f"a {kind} number {'>' if self.open_low else '≥'} {self.low:g}"
        return f"None or {text}" if self.optional else text


@dataclass(frozen=True)
class Choice:
    """One of a fixed set of names (a ``Literal`` type's)."""

    names: tuple[str, ...]

    def accepts(self, value: object) -> bool:
        return isinstance(value, str) and value in self.names

    @property
    def allowed(self) -> str:
        return f"one of {', '.join(map(repr, self.names))}"


@dataclass(frozen=True)
class Flag:
    """True or False (not 1, "yes" or None)."""

    def accepts(self, value: object) -> bool:
        return isinstance(value, bool)

    @property
    def allowed(self) -> str:
        return "True or False"


@dataclass(frozen=True)
class Text:
    """Non-empty text, e.g. a date as it is printed beside the figures it dates."""

    example: str

    def accepts(self, value: object) -> bool:
        return isinstance(value, str) and bool(value.strip())

    @property
    def allowed(self) -> str:
        return f"non-empty text such as {self.example!r}"


Rule = Number | Choice | Flag | Text

_POSITIVE = Number(0, open_low=True)  # a rate, a size, a duration: divided by, never 0
_NON_NEGATIVE = Number(0)  # a price, a quantity that may be absent, a tolerance
_COUNT = Number(1, whole=True)  # nodes, bytes of a limit, windows, steps
_SHARE = Number(0, 1, open_low=True)  # a share of a node or of its load: (0, 1]
_PRICE = _NON_NEGATIVE

SETTING_RULES: dict[str, Rule] = {
    "reads_per_s_per_node": _POSITIVE,
    "writes_per_s_per_node": _POSITIVE,
    "scan_bytes_per_s_per_node": _POSITIVE,
    "view_updates_per_source_write": _NON_NEGATIVE,
    "prices_date": Text("2025-06"),
    "node_hour_usd": _PRICE,
    "enterprise_plus_node_hour_usd": _PRICE,
    "ssd_gb_month_usd": _PRICE,
    "hdd_gb_month_usd": _PRICE,
    "hours_per_month": _POSITIVE,
    "replication_network": Choice(get_args(ReplicationNetwork)),
    "intra_region_replication_gib_usd": _PRICE,
    "inter_region_replication_gib_usd": _PRICE,
    "backup_retention_days": Number(0, 365),  # Backups overview: up to 90 days (365 Plus)
    "backup_gb_month_usd": _PRICE,
    "data_boost_spu_per_node": _POSITIVE,
    "data_boost_min_spu_s_per_request": _NON_NEGATIVE,
    "data_boost_spu_hour_usd": _PRICE,
    "cell_advisory_bytes": _COUNT,
    "cell_hard_bytes": _COUNT,
    "row_advisory_bytes": _COUNT,
    "row_hard_bytes": _COUNT,
    "key_hard_bytes": _COUNT,
    "qualifier_hard_bytes": _COUNT,
    "nodes": _COUNT,
    "planning_row_bytes": _COUNT,
    "key_buckets": _COUNT,
    "window_minutes": _COUNT,  # Key Visualizer's whole minutes
    "max_windows": _COUNT,
    "min_windows": _COUNT,
    "min_writes_per_window": _COUNT,
    "min_writes_per_step": _COUNT,
    "max_steps": _COUNT,
    "rows_max": _COUNT,
    "entries_max": _COUNT,
    "range_rows_max": _COUNT,
    "tablet_split_bytes": _POSITIVE,
    "load_split_share": _SHARE,
    "rebalance_minutes": _POSITIVE,
    "rebalance_tolerance": _NON_NEGATIVE,  # 0: move at any imbalance
    "pre_splits": Number(0, whole=True),
    "cpu_target": _SHARE,
    "cpu_target_multi_cluster": _SHARE,
    "hottest_node_cpu_target": _SHARE,
    "autoscaling_cpu_min": _SHARE,
    "autoscaling_cpu_max": _SHARE,
    "autoscaling_max_over_min": Number(1),
    "ceiling_headroom": Number(1),  # a factor over the rate
    "hotspot_share": _SHARE,
    "clusters": _COUNT,
    "routing": Choice(get_args(Routing)),
    "autoscaling": Flag(),
    "storage_utilization_target": _SHARE,
    "storage": Choice(get_args(StorageType)),  # "ssd"/"hdd" are read as upper case first
    "ssd_tb_per_node": _POSITIVE,
    "hdd_tb_per_node": _POSITIVE,
    "hdd_reads_per_s_per_node": _POSITIVE,
    "hdd_writes_per_s_per_node": _POSITIVE,
    "hdd_scan_bytes_per_s_per_node": _POSITIVE,
    "compression_codec": Choice(get_args(CompressionCodec)),
    "compression_block_bytes": _COUNT,
    "compression_sample_bytes": _COUNT,
    "large_row_bytes": _COUNT,
    "large_row_range_avg_bytes": _COUNT,
    "pressure_poor": _POSITIVE,
    "min_nodes": _COUNT,
    "planning_row_cells": _COUNT,
    "scan_fixed_share": Number(0, 1, open_high=True),
    "request_share": Number(0, 1),
    "ranges_per_request": _COUNT,
    "tiers_date": Text("2026-01"),
    "tiered_after_days": Number(0, open_low=True, optional=True),  # None: no tiering
    "tiered_min_days": _POSITIVE,
    "cold_reads_per_s_per_node": _POSITIVE,
    "cold_writes_per_s_per_node": _POSITIVE,
    "cold_scan_bytes_per_s_per_node": _POSITIVE,
    "cold_gb_month_usd": _PRICE,
    "edition": Choice(get_args(Edition)),
    "tiered_tb_per_node": _POSITIVE,
    "tiered_tb_per_node_plus": _POSITIVE,
    "in_memory_tier": Flag(),
    "in_memory_reads_per_s_per_node": _POSITIVE,
    "in_memory_writes_per_s_per_node": _POSITIVE,
    "in_memory_increments": Number(1, 3, whole=True),  # 40,000 → 120,000 reads/s per node
    "in_memory_increment_node_hour_usd": Number(0, optional=True),
    "short_name_bytes": _COUNT,
}
"""Every field of :class:`Settings` and what it accepts (``tests/analysis/test_settings.py``
checks that no field lacks a rule and refuses each rule's bad values)."""


def _refusal(field: dataclasses.Field, value: object) -> str:
    rule = SETTING_RULES[field.name]
    return f"{field.name} must be {rule.allowed}, got {value!r}; the default is {field.default!r}."


@dataclass(frozen=True)
class Constraint:
    """A rule between settings: ``holds(st)``, or ``says(st)`` is the refusal (naming the
    fields and their values)."""

    name: str
    holds: Callable[[Settings], bool]
    says: Callable[[Settings], str]


def _read_costs_positive(st: Settings) -> bool:
    reads, _, scan = st.node_rates()
    return reads * st.planning_row_bytes < scan


def _read_costs_refusal(st: Settings) -> str:
    reads, _, scan = st.node_rates()
    prefix = "in_memory_" if st.in_memory_tier else "hdd_" if st.storage == "HDD" else ""
    scan_name = "hdd_" if prefix == "hdd_" else ""
    return (
        f"{prefix}reads_per_s_per_node × planning_row_bytes ({reads:,.0f} × "
        f"{st.planning_row_bytes:,}) must be below {scan_name}scan_bytes_per_s_per_node "
        f"({scan:,.0f}): a point read of a planning row must cost more than scanning it, or the "
        "read cost model's seek costs turn negative."
    )


SETTING_CONSTRAINTS: tuple[Constraint, ...] = (
    Constraint(
        "windows",
        lambda st: st.min_windows <= st.max_windows,
        lambda st: (
            f"min_windows ({st.min_windows}) must be at most max_windows ({st.max_windows})."
        ),
    ),
    Constraint(
        "cell limits",
        lambda st: st.cell_advisory_bytes <= st.cell_hard_bytes,
        lambda st: (
            f"cell_advisory_bytes ({st.cell_advisory_bytes:,}) must be at most cell_hard_bytes "
            f"({st.cell_hard_bytes:,}): the advice comes before the limit."
        ),
    ),
    Constraint(
        "row limits",
        lambda st: st.row_advisory_bytes <= st.row_hard_bytes,
        lambda st: (
            f"row_advisory_bytes ({st.row_advisory_bytes:,}) must be at most row_hard_bytes "
            f"({st.row_hard_bytes:,}): the advice comes before the limit."
        ),
    ),
    Constraint(
        "in-memory tier",
        lambda st: not st.in_memory_tier or st.edition == "enterprise-plus",
        lambda st: (
            "in_memory_tier needs edition='enterprise-plus' (the in-memory tier is part of "
            f"Enterprise Plus), got edition={st.edition!r}."
        ),
    ),
    Constraint(
        "in-memory increments",
        lambda st: st.in_memory_increments == 1 or st.in_memory_tier,
        lambda st: (
            f"in_memory_increments={st.in_memory_increments} needs in_memory_tier=True (the "
            "increments are the in-memory tier's reads per node)."
        ),
    ),
    Constraint(
        "autoscaling targets",
        lambda st: st.autoscaling_cpu_min <= st.autoscaling_cpu_max,
        lambda st: (
            f"autoscaling_cpu_min ({st.autoscaling_cpu_min:g}) must be at most "
            f"autoscaling_cpu_max ({st.autoscaling_cpu_max:g})."
        ),
    ),
    Constraint(
        "tiering age",
        lambda st: st.tiered_after_days is None or st.tiered_after_days >= st.tiered_min_days,
        lambda st: (
            f"tiered_after_days must be at least {st.tiered_min_days:g} days (tiered_min_days, "
            f"the shortest age a tiering rule accepts), got {st.tiered_after_days:g}."
        ),
    ),
    Constraint(
        "tiering storage",
        lambda st: st.tiered_after_days is None or st.storage == "SSD",
        lambda st: (
            "tiered storage needs SSD clusters; storage is HDD (set storage='SSD' or "
            "tiered_after_days=None)."
        ),
    ),
    Constraint("read costs", _read_costs_positive, _read_costs_refusal),
)
"""The rules between settings, checked once every field passes its own rule."""


DEFAULT = Settings()
