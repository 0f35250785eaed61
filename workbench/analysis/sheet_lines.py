"""The production sheet's lines: each figure of an analysis as a :class:`SheetLine` (value,
unit, formula with its numbers, inputs with whose each is, the documented figure), read from
``wb.analyze``'s result and never computed again (``analysis/sheet.py`` puts them together).

Sources of an input: "yours" (the workload stated it), "default …" (a setting or an
assumption), "measured: …" (the sample), "Google: <page>" (a documented figure), "line: …"
(another line of the sheet).

Why one module: the sections (writes, storage, queries, nodes and targets, autoscaling, the
in-memory tier, the bill) read one another's figures as inputs ("line: the nodes line") and
print them with the same number formats and the same named sources; split, every part would
import the others' names and formats.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..formatting import counted, money, rate
from .capacity import ONCE_FIXED
from .settings import Settings

if TYPE_CHECKING:  # pragma: no cover
    from .overview import Analysis


# where a documented figure comes from ("Google: <page title>")
PERFORMANCE = "Google: Understand performance"
MONITORING = "Google: Monitoring"
QUOTAS = "Google: Quotas and limits"
PRICING = "Google: Bigtable pricing"
DATA_BOOST = "Google: Data Boost overview"
BACKUPS = "Google: Backups overview"
AUTOSCALING = "Google: AutoscalingTargets (Admin API); Bigtable Autoscaling deep dive (blog)"
MEASURED = "measured: the sample's cells"
PLANNED = "measured: the plan on the sample, at production's series and retention"
READ_COSTS = "default: the read cost model, calibrated on Understand performance"


@dataclass(frozen=True)
class SheetLine:
    """One line of the sheet: ``value`` ``unit`` = ``formula``, from ``inputs`` (name →
    (value, source): "yours", "default …", "measured: …" or "Google: <page>"), resting on the
    documented ``figure``."""

    section: str
    name: str
    value: float
    unit: str
    formula: str
    inputs: Mapping[str, tuple[float, str]] = field(default_factory=dict)
    figure: str = ""
    note: str = ""

    def inputs_text(self) -> str:
        return "; ".join(
            f"{k} = {shown_input(k, v)} ({src})" for k, (v, src) in self.inputs.items()
        )


# -- numbers as the formulas print them ---------------------------------------------------------


def _n(x: float) -> str:
    """A figure in a formula: 315 M, 12,345, 0.421, 2.1e-06 s never (see :func:`_s`)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    v = float(x)
    if math.isinf(v):
        return "∞"
    a = abs(v)
    for f, suffix in ((1e12, " T"), (1e9, " G"), (1e6, " M")):
        if a >= f:
            return f"{v / f:,.3g}{suffix}"
    if a >= 1000:
        return f"{v:,.0f}"
    if a == 0 or v.is_integer():
        return f"{v:,.0f}"
    if a >= 0.001:
        return f"{v:.3g}"
    return "<0.001" if v > 0 else ">-0.001"  # as formatting.number: never 2.0e-08


def _s(seconds: float) -> str:
    """A unit cost in seconds as read: 1.14 µs, 2.27 ns, 47.1 µs, 421 s."""
    v = float(seconds)
    if abs(v) >= 1000:
        return f"{_n(v)} s"
    for f, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")):
        if abs(v) >= f:
            return f"{v / f:.3g} {unit}"
    return f"{v * 1e12:.3g} ps"


def _pct(x: float) -> str:
    """A share as a percentage: 42.1 %, 0.5 %, and "<0.001 %" below that (never 5.92e-05 %)."""
    v = float(x) * 100
    if 0 < abs(v) < 0.001:
        return "<0.001 %" if v > 0 else ">-0.001 %"
    return f"{v:.3g} %"


def _usd(x: float) -> str:
    v = float(x)
    return f"${v:,.2f}" if abs(v) < 100 else money(v)


def _unit_price(x: float) -> str:
    """A unit price as read: $0.65, $0.17, and below a tenth of a cent per 1,000 units
    ($0.845 per 1,000 SPU-hours, never $0.000845)."""
    v = float(x)
    if 0 < v < 0.001:
        return f"${v * 1000:,.4g} per 1,000"
    return f"${v:,.4g}"


def sheet_lines(a: Analysis, served: bool) -> list[SheetLine]:
    """Every line of the sheet of ``a``, section by section; ``served``: False when no node
    count serves the rate (the bill is then one line naming the fix, no price)."""
    return [
        *_write_lines(a),
        *_storage_lines(a),
        *_query_lines(a),
        *_node_lines(a),
        *_autoscaling_lines(a),
        *_in_memory_lines(a),
        *_bill_lines(a, served),
    ]


def shown_value(value: float, unit: str) -> str:
    """A line's value as printed: node time in s, ms, µs or ns, else the figure and its unit
    ("1 node", "3 nodes": a count of one in the singular)."""
    if unit == "node-s":
        return _s(value)
    if unit == "nodes" and value == 1:
        unit = "node"
    return f"{_n(value)} {unit}"


def shown_input(name: str, value: float) -> str:
    """An input as printed: a unit cost in s, ms, µs or ns (never 2.27e-09), else a figure."""
    if name.startswith("node-s per"):
        return _s(value)
    if name.startswith("unit price"):
        return _unit_price(value)
    if name.endswith("/s"):  # a rate in the first unit of time it reaches 1 in: 1.02/h
        return rate(value)
    return _n(value)


# the formulas' numbers, for the views too
def fmt_share(x: float) -> str:
    return _pct(x)


def fmt_usd(x: float) -> str:
    return _usd(x)


def _stated(a: Analysis, name: str) -> bool:
    return name in set(a.capacity.production.workload.stated())


def _rate_source(a: Analysis) -> str:
    p = a.capacity.production
    if _stated(a, "events_per_s"):
        return "yours"
    if p.file_events:
        return f"default: the file's own rate ({p.file_events:,} events over its span)"
    return "default: the sample's own rate"


def _write_lines(a: Analysis) -> list[SheetLine]:
    cap = a.capacity
    p, st = cap.production, cap.settings
    per_node = st.node_rates()[1]
    peak = p.workload.peak_factor
    upe = p.units_per_event
    return [
        SheetLine(
            "writes",
            "write CPU at the peak",
            cap.write_cpu,
            "nodes",
            f"{rate(p.events_per_s, 'events')} × peak {_n(peak)}× × {_n(upe)} write units per event "
            f"÷ {_n(per_node)} writes/s per node = {_n(cap.write_cpu)} nodes",
            {
                "events/s": (p.events_per_s, _rate_source(a)),
                "peak factor": (peak, "yours" if _stated(a, "peak_factor") else "default"),
                "write units per event": (
                    upe,
                    f"{MEASURED}: each mutation max(1, bytes ÷ {st.planning_row_bytes:,} B)",
                ),
                "writes/s per node": (per_node, PERFORMANCE),
            },
            f"{_n(per_node)} rows/s written per node, 1 KB rows ({PERFORMANCE})",
        )
    ]


def _storage_lines(a: Analysis) -> list[SheetLine]:
    cap = a.capacity
    st = cap.settings
    ratio = cap.compression_ratio
    kept_tb = cap.stored_bytes / 1e12
    compressed = kept_tb / ratio
    retention = _stated(a, "retention_months")
    out = [
        SheetLine(
            "storage",
            "stored, compressed (one cluster)",
            compressed,
            "TB",
            f"{_n(kept_tb)} TB kept under the GC rules ÷ {_n(ratio)} compression = "
            f"{_n(compressed)} TB",
            {
                "kept (logical TB)": (
                    kept_tb,
                    f"{MEASURED}: bytes per event × events/s × the months each family keeps "
                    f"(≤ {cap.production.workload.retention_months:g} months, "
                    f"{'yours' if retention else 'default'})",
                ),
                "compression ratio": (
                    ratio,
                    f"{MEASURED}: {st.compression_codec} on "
                    f"{st.compression_block_bytes // 1024} KB blocks",
                ),
            },
            f"storage is billed compressed ({PRICING})",
        )
    ]
    hot_tb = (cap.stored_bytes - cap.cold_bytes) / ratio / 1e12
    usable = st.storage_utilization_target
    inputs: dict[str, tuple[float, str]] = {
        "hot TB (compressed)": (hot_tb, "line: the line above, less the cold tier"),
        "TB per node": (st.tb_per_node, QUOTAS),
        "storage utilization target": (usable, MONITORING),
        "minimum nodes": (float(st.min_nodes), "default"),
    }
    formula = f"max(⌈{_n(hot_tb)} TB ÷ ({_n(st.tb_per_node)} TB × {_pct(usable)})⌉, "
    if st.tiered_after_days is not None:
        per = (
            st.tiered_tb_per_node_plus if st.edition == "enterprise-plus" else st.tiered_tb_per_node
        )
        cold_tb = cap.cold_bytes / ratio / 1e12
        inputs["cold TB (compressed)"] = (cold_tb, "line: the infrequent-access tier")
        inputs["tiered TB per node"] = (per, "Google: Tiered storage overview")
        formula += f"⌈({_n(hot_tb)} + {_n(cold_tb)}) TB ÷ ({_n(per)} TB × {_pct(usable)})⌉, "
    formula += f"{st.min_nodes}) = {counted(cap.storage_nodes, 'node')}"
    out.append(
        SheetLine(
            "storage",
            "nodes for storage",
            float(cap.storage_nodes),
            "nodes",
            formula,
            inputs,
            f"{_n(st.tb_per_node)} TB per {cap.storage} node ({QUOTAS}), ≤ {_pct(usable)} "
            f"used ({MONITORING})",
        )
    )
    return out


def _run_line(name: str, row: Any, costs: Any, figure: str, per_request: int) -> SheetLine:
    """One run of a query: its production counts at the read cost model's unit costs (the
    planner's ``PlanCost``, term by term)."""
    node_s = float(row["production_node_ms"]) / 1e3
    parts = (
        ("requests", float(row["production_requests"]), costs.request_s, "request"),
        ("seeks", float(row["production_ranges"]), costs.seek_s, "seek"),
        ("rows", float(row["production_rows_seen"]), costs.row_s, "row"),
        ("cells", float(row["production_cells_seen"]), costs.cell_s, "cell"),
        ("bytes", float(row["production_bytes_seen"]), costs.byte_s, "byte"),
    )
    inputs: dict[str, tuple[float, str]] = {}
    terms = []
    for what, n, unit, one in parts:
        inputs[what] = (n, PLANNED)
        inputs[f"node-s per {one}"] = (unit, READ_COSTS)
        if n:  # "1 request", "1 seek": a count of one in the singular, as "1 node" is
            terms.append(f"{_n(n)} {one if n == 1 else what} × {_s(unit)}")
    return SheetLine(
        "queries",
        f"{name}: one run",
        node_s,
        "node-s",
        " + ".join(terms) + f" = {_s(node_s)} of node time",
        inputs,
        figure,
        note=f"requests of up to {per_request:,} ranges run side by side "
        "(ranges_per_request: an assumption)",
    )


def _query_lines(a: Analysis) -> list[SheetLine]:
    cap = a.capacity
    p, st = cap.production, cap.settings
    t = p.queries.table
    costs = st.read_costs()
    reads, _, scan = st.node_rates()
    figure = f"{_n(reads)} rows/s read, {_n(scan / 1e6)} MB/s scanned per node ({PERFORMANCE})"
    peak = p.workload.peak_factor
    nodes = cap.nodes_per_cluster
    out: list[SheetLine] = []
    for q in t.index:
        row = t.loc[q]
        if not row["production_node_ms"] == row["production_node_ms"]:  # NaN: not planned
            continue
        name = str(q)
        node_s = float(row["production_node_ms"]) / 1e3
        out.append(_run_line(name, row, costs, figure, st.ranges_per_request))
        per_s = float(row["production_per_s"])
        load = p.workload.query_load(name)
        own = load.per_s is not None or not p.queries_default
        source = (
            "yours"
            if load.per_s is not None
            else "yours: the query rate split by the queries' weights"
        )
        if row["production_data_boost"]:
            spu_s = float(row["production_spu_s"])
            month_s = st.hours_per_month * 3600
            hours = per_s * month_s * spu_s / 3600
            requests = float(row["production_requests"])
            out.append(
                SheetLine(
                    "queries",
                    f"{name}: on Data Boost",
                    hours,
                    "SPU-hours per month",
                    f"max({_s(node_s)} × {_n(st.data_boost_spu_per_node)} SPU per node, "
                    f"{_n(st.data_boost_min_spu_s_per_request)} SPU-s × {_n(requests)} "
                    f"{'request' if requests == 1 else 'requests'}) "
                    f"= {_n(spu_s)} SPU-s per run × {rate(per_s, 'runs')} × {_n(month_s)} s "
                    f"÷ 3,600 = {_n(hours)} SPU-hours",
                    {
                        "node-s per run": (node_s, "line: the line above"),
                        "SPUs per node": (st.data_boost_spu_per_node, DATA_BOOST),
                        "minimum SPU-s per request": (
                            st.data_boost_min_spu_s_per_request,
                            DATA_BOOST,
                        ),
                        "requests per run": (requests, PLANNED),
                        "runs/s": (per_s, source if own else "default: no rate stated"),
                        "seconds per month": (month_s, "default: 730 h"),
                    },
                    f"1,000 SPUs ≈ one node's performance; at least 60 SPU-seconds per request "
                    f"({DATA_BOOST})",
                    note="takes no node CPU"
                    + ("" if per_s else "; no rate stated: billed per run only"),
                )
            )
        elif own and per_s > 0:
            cpu = float(row["production_cpu"])
            out.append(
                SheetLine(
                    "queries",
                    f"{name}: CPU at the peak",
                    cpu,
                    "nodes",
                    f"{rate(per_s, 'runs')} × peak {_n(peak)}× × {_s(node_s)} of node time = "
                    f"{_n(cpu)} nodes",
                    {
                        "runs/s": (per_s, source),
                        "peak factor": (peak, "yours" if _stated(a, "peak_factor") else "default"),
                        "node-s per run": (node_s, "line: the line above"),
                    },
                    figure,
                )
            )
        else:
            servable = p.servable_per_s(name, nodes)
            out.append(
                SheetLine(
                    "queries",
                    f"{name}: servable on these nodes",
                    servable,
                    "runs/s",
                    f"no rate stated: sizes no node; ({counted(nodes, 'node')} × "
                    f"{_pct(p.cpu_target)} − {_n(p.peak_cpu)} nodes of CPU) ÷ "
                    f"{_s(node_s)} ÷ peak {_n(peak)}× = {rate(servable, 'runs')}",
                    {
                        "nodes (one cluster)": (float(nodes), "line: the nodes line"),
                        "CPU target": (p.cpu_target, MONITORING),
                        "CPU at the peak": (p.peak_cpu, "line: writes + the stated queries"),
                        "node-s per run": (node_s, "line: the line above"),
                        "peak factor": (peak, "yours" if _stated(a, "peak_factor") else "default"),
                    },
                    f"recommended maximum average CPU ({MONITORING})",
                    note="state its rate (Workload(queries={...})) to size nodes for it",
                )
            )
    return out


def _node_lines(a: Analysis) -> list[SheetLine]:
    cap = a.capacity
    p, st = cap.production, cap.settings
    target = cap.cpu_target
    target_src = (
        f"default: {st.cpu_target_source}" if "assumption" in st.cpu_target_source else MONITORING
    )
    cold = cap.cold_read_nodes
    out = [
        SheetLine(
            "nodes",
            "CPU at the peak",
            cap.peak_cpu,
            "nodes",
            f"writes {_n(cap.write_cpu)} + reads {_n(cap.read_cpu)}"
            + (f" + cold-tier reads {_n(cold)}" if cold else "")
            + f" = {_n(cap.peak_cpu)} nodes",
            {
                "write CPU": (cap.write_cpu, "line: the writes line"),
                "read CPU": (cap.read_cpu, "line: the queries' CPU lines"),
                "cold-tier read CPU": (cold, "line: tiered storage"),
            },
            "",
        )
    ]
    inputs: dict[str, tuple[float, str]] = {
        "CPU at the peak": (p.peak_cpu, "line: the line above, less cold-tier reads"),
        "CPU target": (target, target_src),
        "minimum nodes": (float(st.min_nodes), "default"),
    }
    formula = f"max(⌈{_n(p.peak_cpu)} ÷ {_pct(target)}⌉, {st.min_nodes})"
    unit = p.busiest_unit_cpu
    if not p.limited and unit > 0 and p.writes.unit_kind != "per series":
        inputs["unsplittable units"] = (p.units, f"measured: {p.writes.unit_kind}s of the key")
        inputs["CPU of one unit"] = (unit, "measured: its share of the write CPU")
        per = max(1, math.floor(target / unit + 1e-9))
        formula = (
            f"max({formula}, min(⌈{_n(p.units)} units ÷ ⌊{_pct(target)} ÷ {_n(unit)}⌋⌉, "
            f"⌈{_n(p.units)}⌉)) (units packed whole, {per} per node)"
        )
    if cold > 0:
        inputs["cold-tier read CPU"] = (cold, "line: tiered storage")
        formula = f"max({formula}, ⌈({_n(p.peak_cpu)} + {_n(cold)}) ÷ {_pct(target)}⌉)"
    out.append(
        SheetLine(
            "nodes",
            "nodes for CPU",
            float(cap.cpu.nodes),
            "nodes",
            formula + f" = {cap.cpu.nodes:,}",
            inputs,
            f"≤ {_pct(target)} average CPU ({st.cpu_target_source})",
            note=("hotspot-limited: " + cap.fix()) if cap.hotspot_limited else "",
        )
    )
    out.append(
        SheetLine(
            "nodes",
            "nodes per cluster",
            float(cap.nodes_per_cluster),
            "nodes",
            f"max({cap.cpu.nodes:,} for CPU, {cap.storage_nodes:,} for storage) = "
            f"{cap.nodes_per_cluster:,} ({cap.bound_text})",
            {
                "nodes for CPU": (float(cap.cpu.nodes), "line: the line above"),
                "nodes for storage": (float(cap.storage_nodes), "line: the storage lines"),
            },
            "",
        )
    )
    n = cap.nodes_per_cluster
    avg = cap.peak_cpu / max(n, 1)
    out.append(
        SheetLine(
            "targets",
            "average CPU at the peak",
            avg,
            "share of a node",
            f"{_n(cap.peak_cpu)} nodes of CPU ÷ {counted(n, 'node')} = {_pct(avg)} "
            + ("≤" if avg <= target + 1e-9 else ">")
            + f" {_pct(target)} target",
            {
                "CPU at the peak": (cap.peak_cpu, "line: the CPU line"),
                "nodes (one cluster)": (float(n), "line: the nodes line"),
            },
            f"recommended maximum average CPU {_pct(target)} ({MONITORING})",
        )
    )
    row = p.queries.busiest_row_cpu
    hottest = p.busiest_node_cpu(n)  # at the cluster's nodes (cap.cpu: at the CPU's own count)
    limit = st.hottest_node_cpu_target
    out.append(
        SheetLine(
            "targets",
            "hottest node CPU at the peak",
            hottest,
            "share of a node",
            f"max({_n(p.peak_cpu)} ÷ {counted(n, 'node')}, busiest unit {_n(unit)}, most-read row "
            f"{_n(row)}) = {_pct(hottest)} "
            + ("≤" if hottest <= limit + 1e-9 else ">")
            + f" {_pct(limit)} hottest-node target",
            {
                "CPU at the peak": (p.peak_cpu, "line: writes + the stated queries"),
                "nodes (one cluster)": (float(n), "line: the nodes line"),
                "CPU of the busiest unit": (unit, "measured: its share of the write CPU"),
                "CPU of the most-read row": (row, "measured: the queries' reads of one row"),
                "hottest-node target": (
                    limit,
                    "default: assumption (a Google Cloud Community post; Monitoring names a "
                    "hottest-node maximum without a figure in the stored copy)",
                ),
            },
            f"hottest-node CPU ≤ {_pct(limit)} (Monitoring: 'High-granularity CPU utilization "
            "of hottest node'; the figure is an assumption)",
            note="over: a unit or a row that cannot split takes more than the hottest node should"
            if hottest > limit + 1e-9
            else "",
        )
    )
    return out


def autoscaling_recommendation(a: Analysis) -> tuple[int, int, float]:
    """(minimum nodes, maximum nodes, CPU target) for Bigtable's autoscaler: the maximum is what
    the peak needs (the sized cluster), the minimum what the mean load and the storage need (at
    least a tenth of the maximum: the autoscaler takes a maximum at most
    ``autoscaling_max_over_min`` × the minimum), the CPU target the recommended average within
    what AutoscalingTargets accepts."""
    cap = a.capacity
    p, st = cap.production, cap.settings
    target = min(max(cap.cpu_target, st.autoscaling_cpu_min), st.autoscaling_cpu_max)
    mean = p.peak_cpu / p.workload.peak_factor + cap.cold_read_nodes
    high = cap.nodes_per_cluster
    low = max(
        math.ceil(mean / target - 1e-9),
        cap.storage_nodes,
        st.min_nodes,
        math.ceil(high / st.autoscaling_max_over_min - 1e-9),
    )
    return min(low, high), high, target


def _autoscaling_lines(a: Analysis) -> list[SheetLine]:
    cap = a.capacity
    p, st = cap.production, cap.settings
    low, high, target = autoscaling_recommendation(a)
    peak = p.workload.peak_factor
    mean = p.peak_cpu / peak + cap.cold_read_nodes
    note = (
        "hotspot-limited: more nodes do not help; fix the key first" if cap.hotspot_limited else ""
    )
    return [
        SheetLine(
            "autoscaling",
            "autoscaling CPU target",
            target,
            "share of a node",
            f"the recommended average {_pct(cap.cpu_target)} within "
            f"[{_pct(st.autoscaling_cpu_min)}, {_pct(st.autoscaling_cpu_max)}] = {_pct(target)}",
            {
                "CPU target": (cap.cpu_target, MONITORING),
                "lowest target accepted": (st.autoscaling_cpu_min, AUTOSCALING),
                "highest target accepted": (st.autoscaling_cpu_max, AUTOSCALING),
            },
            f"cpu_utilization_percent 10-80 ({AUTOSCALING})",
            note=note,
        ),
        SheetLine(
            "autoscaling",
            "autoscaling maximum nodes",
            float(high),
            "nodes",
            f"the nodes the peak needs = {high:,}",
            {"nodes per cluster": (float(high), "line: the nodes line (sized at the peak)")},
            "",
        ),
        SheetLine(
            "autoscaling",
            "autoscaling minimum nodes",
            float(low),
            "nodes",
            f"max(⌈({_n(p.peak_cpu)} ÷ peak {_n(peak)}×"
            + (f" + {_n(cap.cold_read_nodes)}" if cap.cold_read_nodes else "")
            + f") ÷ {_pct(target)}⌉, {cap.storage_nodes:,} for storage, {st.min_nodes}, "
            f"⌈{high:,} ÷ {_n(st.autoscaling_max_over_min)}⌉) = {low:,} (mean CPU {_n(mean)} "
            "nodes)",
            {
                "CPU at the peak": (p.peak_cpu, "line: writes + the stated queries"),
                "peak factor": (peak, "yours" if _stated(a, "peak_factor") else "default"),
                "cold-tier read CPU": (cap.cold_read_nodes, "line: tiered storage"),
                "autoscaling CPU target": (target, "line: the target line"),
                "nodes for storage": (float(cap.storage_nodes), "line: the storage lines"),
                "minimum nodes": (float(st.min_nodes), "default"),
                "maximum nodes": (float(high), "line: the maximum line"),
                "maximum ÷ minimum at most": (st.autoscaling_max_over_min, AUTOSCALING),
            },
            "the maximum may be at most 10× the minimum (Bigtable Autoscaling deep dive, Google "
            "Cloud blog)",
        ),
    ]


def _in_memory_lines(a: Analysis) -> list[SheetLine]:
    st = a.capacity.settings
    if not st.in_memory_tier:
        return []
    k = st.in_memory_increments
    per = st.in_memory_reads_per_s_per_node
    return [
        SheetLine(
            "in-memory tier",
            "in-memory reads per node",
            per * k,
            "rows/s",
            f"{_n(per)} rows/s × {k} increment(s) = {_n(per * k)} rows/s (every read line above "
            "is at this rate)",
            {
                "reads/s per increment": (per, PERFORMANCE),
                "increments": (float(k), "yours" if k != 1 else "default: the included one"),
            },
            f"an Enterprise Plus node includes 40,000 rows/s, up to 120,000 in increments of "
            f"40,000 ({PERFORMANCE})",
            note=""
            if k == 1 or st.in_memory_increment_node_hour_usd is not None
            else "the extra increments' price is not documented: not on the bill "
            "(in_memory_increment_node_hour_usd)",
        )
    ]


def _bill_lines(a: Analysis, served: bool) -> list[SheetLine]:
    cap = a.capacity
    st = cap.settings
    bill = cap.bill
    if bill is None:
        return []
    out: list[SheetLine] = []
    # no node count serves the design as it is: no price for that; the lines after this one
    # price it once its hotspot is fixed (the capacity table's labels say the same)
    once = "" if served else ONCE_FIXED
    if not served:
        out.append(
            SheetLine(
                "bill",
                "no price",
                math.nan,
                "USD per month",
                "no node count serves this rate as designed, so it has no price; the lines "
                f"below price it once the hotspot is fixed; fix: {cap.fix()}",
                {},
                "",
                note="the fixed design's own analysis gives its exact bill",
            )
        )
    for bl in bill.lines:
        src = PRICING if bl.source.startswith("Bigtable pricing") else f"default: {bl.source}"
        inputs: dict[str, tuple[float, str]] = {"unit price (USD)": (bl.unit_usd, src)}
        if bl.item.startswith("nodes"):
            inputs["nodes (all clusters)"] = (
                float(cap.nodes_needed),
                "line: the nodes line × clusters",
            )
            inputs["hours per month"] = (st.hours_per_month, "default: 730 h")
            formula = (
                f"{counted(cap.nodes_needed, 'node')} × {_n(st.hours_per_month)} h × "
                f"{_unit_price(bl.unit_usd)} = {_usd(bl.usd)}"
            )
        elif bl.item.startswith("backups"):
            inputs["GiB dropped per day"] = (
                cap.dropped_gib_per_day,
                "line: the GC rules' daily drop at the retention horizon, compressed",
            )
            inputs["days the backups are kept"] = (st.backup_retention_days, "yours")
            formula = (
                f"{_n(cap.dropped_gib_per_day)} GiB dropped per day × "
                f"{_n(st.backup_retention_days)} days = {_n(bl.quantity)} GiB × "
                f"{_unit_price(bl.unit_usd)} = {_usd(bl.usd)}"
            )
        else:
            inputs[bl.unit] = (bl.quantity, _quantity_source(bl.item))
            formula = f"{_n(bl.quantity)} {bl.unit} × {_unit_price(bl.unit_usd)} = {_usd(bl.usd)}"
        out.append(
            SheetLine(
                "bill",
                bl.item + once,
                bl.usd,
                "USD per month",
                formula,
                inputs,
                bl.source.replace(" (cloud.google.com/bigtable/pricing)", "")
                if src == PRICING
                else "",
                note=_bill_note(bl.item, st),
            )
        )
    out.append(
        SheetLine(
            "bill",
            "total" + once,
            bill.total,
            "USD per month",
            " + ".join(_usd(bl.usd) for bl in bill.lines)
            + f" = {_usd(bill.total)} (prices of {st.prices_date})",
            {bl.item: (bl.usd, "line: the line above") for bl in bill.lines},
            "",
        )
    )
    return out


def _quantity_source(item: str) -> str:
    if item.startswith("storage"):
        return "line: the storage line × clusters, in GiB"
    if item.startswith("replication"):
        return "line: the month's written bytes copied to each other cluster"
    if item.startswith("Data Boost"):
        return "line: the queries' Data Boost lines"
    return "line: the nodes line"


def _bill_note(item: str, st: Settings) -> str:
    if item.startswith("backups"):
        return (
            "incremental (Backups overview): what the table still shares is billed once, as "
            "the table's; the backups add what it dropped while they were kept (assumption)"
        )
    if item.startswith("Data Boost"):
        return "free during the Preview (Bigtable pricing); priced here as at GA"
    return ""


__all__ = [
    "SheetLine",
    "fmt_share",
    "fmt_usd",
    "shown_input",
    "shown_value",
    "autoscaling_recommendation",
    "sheet_lines",
]
