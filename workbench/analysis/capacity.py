"""Storage and capacity: bytes per event, growth per month, nodes and monthly cost (G01, G06, G14, G15).

Every cell stores its row key, family and qualifier again, so names are paid
per cell: the breakdown shows how much of an event's bytes are names (G01) and
what one-byte names would save. Nodes are sized for the write rate, inflated by
the hotspot factor of the key-distribution model: a design whose writes all hit
one node needs that node to carry everything, and no number of nodes helps.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field

import pandas as pd

from ..notes import EMULATOR_NOTES
from ._index import CellIndex
from .keyspace import KeyDistribution
from .settings import DEFAULT, Settings

_NAME_LIKE_QUALIFIERS = 64  # more distinct qualifiers than this means they carry data (G12, G19)


@dataclass
class Capacity:
    """Storage per event and per month, nodes needed for the write rate, and the monthly bill."""

    events: int
    cells: int
    total_bytes: int
    breakdown: dict[str, int]  # key / family / qualifier / timestamp / value bytes over all cells
    short_names_bytes: int  # total bytes with one-byte family and qualifier names
    events_per_s: float
    writes_per_s: float  # rate the nodes are sized for (target or the dataset's own)
    hotspot_factor: float
    busiest_share: float
    nodes_fair: int
    nodes_needed: int
    hotspot_limited: bool
    bytes_per_month: float
    stored_bytes: float  # after the retention period
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

    def table(self) -> pd.DataFrame:
        rows = {
            "bytes per event": self.bytes_per_event,
            "…with 1-byte family/qualifier names (G01)": self.short_names_bytes_per_event,
            "names share of bytes": self.name_overhead_share,
            "events per second (data)": self.events_per_s,
            "writes per second (sized for)": self.writes_per_s,
            "growth per month (GB)": self.bytes_per_month / 1e9,
            f"stored after {self.settings.retention_months:g} months (GB)": self.stored_bytes / 1e9,
            "hotspot factor (busiest node ÷ fair)": self.hotspot_factor,
            "nodes if writes were even": self.nodes_fair,
            "nodes needed": self.nodes_needed,
            "node cost per month (USD)": self.node_cost_month,
            "storage cost per month (USD)": self.storage_cost_month,
            "total per month (USD)": self.monthly_cost,
        }
        return pd.DataFrame({"value": pd.Series(rows, dtype=float)})

    def verdict(self) -> str:
        if self.hotspot_limited:
            return (
                f"Hotspot-bound: {self.busiest_share:.0%} of writes hit one node, so {self.writes_per_s:,.0f} writes/s "
                f"cannot be served by adding nodes"
            )
        return (
            f"{self.bytes_per_event:,.0f} B per event, {self.nodes_needed} node(s), "
            f"≈ ${self.monthly_cost:,.0f} per month"
        )

    def _repr_html_(self) -> str:
        from ..plots import figure_html
        from ..plots.capacity import plot_bytes_breakdown

        return (
            f"<div><b>Storage and capacity</b> {html.escape(self.schema_name)}: {html.escape(self.verdict())}"
            + self.table().to_html(
                float_format=lambda x: f"{x:,.3g}" if abs(x) < 100 else f"{x:,.0f}"
            )
            + figure_html(plot_bytes_breakdown, self)
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
) -> Capacity:
    """``events``: the dataset's event count; ``target_writes_per_s``: your production rate (default: the data's)."""
    n = index.n_cells
    key_b = int(index.key_bytes[index.row].sum()) if n else 0
    fam_b = int(index.family_bytes[index.family].sum()) if n else 0
    qual_b = int(index.qualifier_bytes[index.qualifier].sum()) if n else 0
    ts_b = 8 * n
    val_b = int(index.value_bytes_total)
    total = key_b + fam_b + qual_b + ts_b + val_b
    short = settings.short_name_bytes
    fam_short = short * n
    qual_short = short * n if len(index.qualifiers) <= _NAME_LIKE_QUALIFIERS else qual_b
    short_total = total - fam_b - qual_b + min(fam_short, fam_b) + min(qual_short, qual_b)
    span_s = kd.span_s
    events_per_s = events / span_s if events else 0.0
    mutations_per_event = kd.n_writes / max(events, 1)
    rate = target_writes_per_s if target_writes_per_s is not None else kd.writes_per_s
    target_given = target_writes_per_s is not None
    share = kd.mean_share if not math.isnan(kd.mean_share) else 1.0
    factor = share * kd.nodes
    nodes_fair = max(settings.min_nodes, math.ceil(rate / settings.writes_per_s_per_node))
    nodes_needed = max(
        settings.min_nodes, math.ceil(rate * factor / settings.writes_per_s_per_node)
    )
    # a hotspot that does not shrink as nodes are added: the busiest node alone must carry share × rate
    hotspot_limited = bool(share >= 0.8 and rate * share > settings.writes_per_s_per_node)
    seconds_per_month = settings.hours_per_month * 3600
    bytes_per_event = total / max(events, 1)
    per_month = (
        bytes_per_event
        * (rate / max(mutations_per_event, 1e-9) if target_given else events_per_s)
        * seconds_per_month
    )
    stored = per_month * settings.retention_months
    node_cost = nodes_needed * settings.node_hour_usd * settings.hours_per_month
    storage_cost = stored / 1e9 * settings.ssd_gb_month_usd
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
        hotspot_factor=float(factor),
        busiest_share=float(share),
        nodes_fair=nodes_fair,
        nodes_needed=nodes_needed,
        hotspot_limited=hotspot_limited,
        bytes_per_month=float(per_month),
        stored_bytes=float(stored),
        node_cost_month=float(node_cost),
        storage_cost_month=float(storage_cost),
        settings=settings,
        schema_name=schema_name,
        target_given=target_given,
    )


__all__ = ["Capacity", "capacity"]
