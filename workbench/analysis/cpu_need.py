"""The CPU a cluster needs at the workload, and the ceiling no node count lifts, as a capacity
plan reads them from the production model (``analysis/production.py``, G06–G08).

``production_need``: the peak's CPU (writes + reads + cold-tier reads) spread evenly over the
replication's CPU target, units that cannot split packed whole (``Production.nodes_for_cpu``).
``production_limit``: the design's ceiling, set by its busiest unsplittable unit (a write
frontier, a salt bucket, a hot row, a fixed entity) at the CPU target, in mutations/s. One CPU
model: ``analyze`` and every view size nodes with it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .production import Production


@dataclass(frozen=True)
class UnitLimit:
    """The design's ceiling: the highest write rate its busiest unsplittable unit takes at the
    CPU target, whatever the node count (``math.inf``: no unit limits it)."""

    writes_per_s: float
    kind: str  # "write frontier", "salt bucket", "hot row", "entity" or "" (none)
    name: str  # the unit's key range or row key
    share: float  # the unit's share of the writes
    units: int  # how many such units carry the writes (K frontiers, N salt buckets)
    fixed: bool  # True: the unit does not grow with volume (stated, see Workload.growth)
    spread: str = ""  # the spread an entity's share is at (Spread.at()), said with the share

    def share_text(self) -> str:
        """The unit's share as every view says it: one decimal (a table of the series' shares
        shows 29.9 %, so does this), with the spread it is at for an entity."""
        return f"{self.share:.1%}" + (f" of the writes at {self.spread}" if self.spread else "")

    @property
    def limited(self) -> bool:
        return math.isfinite(self.writes_per_s)


@dataclass
class NodeNeed:
    """How many nodes one cluster needs for its CPU, and the busiest node there."""

    nodes: int
    busiest_cpu: float  # busiest node's CPU at that count (1.0 = one node)
    busiest_tablet_cpu: float  # what the busiest unit (or most-read row) alone needs
    hotspot_factor: float  # at that count
    hotspot_limited: bool  # the rate exceeds the design's ceiling: nodes cannot help


def production_limit(p: Production) -> UnitLimit:
    """The production model's ceiling as a capacity plan names it (in mutations/s)."""
    w = p.writes
    if not w.unit_kind:
        return UnitLimit(math.inf, "", "", 0.0, 0, True)
    kind = "entity" if w.unit_kind in ("per series", "shared range") else w.unit_kind
    return UnitLimit(
        p.ceiling_events_per_s * p.mutations_per_event,
        kind,
        w.unit_name,
        float(p.unit_share),
        max(1, round(p.units)),
        p.unit_fixed,
        p.spread.at() if w.unit_kind == "per series" else "",
    )


def production_need(p: Production, cold_read_nodes: float, min_nodes: int) -> NodeNeed:
    """Nodes for the production CPU (``Production.nodes_for_cpu``) and the cold tier's reads
    (``cold_read_nodes`` of CPU, spread evenly), at least ``min_nodes``."""
    n = max(p.nodes_for_cpu(min_nodes), min_nodes)
    if cold_read_nodes > 0:
        n = max(n, math.ceil((p.peak_cpu + cold_read_nodes) / p.cpu_target - 1e-9))
    busiest = p.busiest_node_cpu(n)
    even = (p.peak_cpu + cold_read_nodes) / n
    return NodeNeed(
        nodes=n,
        busiest_cpu=busiest,
        busiest_tablet_cpu=max(p.busiest_unit_cpu, p.queries.busiest_row_cpu),
        hotspot_factor=busiest / even if even > 0 else 1.0,
        hotspot_limited=p.limited,
    )


__all__ = ["NodeNeed", "UnitLimit", "production_limit", "production_need"]
