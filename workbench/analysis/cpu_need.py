"""The CPU a cluster needs at a rate, and the ceiling no node count lifts (G06–G08).

``cpu_nodes``: start at the node count the busy-window CPU needs if spread evenly, run the load
model there and raise the count while the busiest node is over the target and the added nodes
actually relieve it; never past twice the even count (units each under the target pack into
that many), never extrapolating a busiest node that more nodes do not move (the sample's
warm-up, or one unit). ``unit_limit``: the design's ceiling, set by its busiest unsplittable
unit (a write frontier, a salt bucket, a hot row, a fixed entity) at the CPU target.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from .keyspace import KeyDistribution

_MAX_ROUNDS = 6  # node-count iterations before the answer is taken as settled
_PACKING_BOUND = 2.0  # first-fit packing of units each under the target: under 2 × the even count
_RELIEF = 0.5  # added nodes must lower the busiest node by half of what they would if even


@dataclass(frozen=True)
class UnitLimit:
    """The design's ceiling: the highest write rate its busiest unsplittable unit takes at the
    CPU target, whatever the node count (``math.inf``: no unit limits it)."""

    writes_per_s: float
    kind: str  # "write frontier", "salt bucket", "hot row", "entity" or "" (none)
    name: str  # the unit's key range or row key
    share: float  # the unit's share of the writes
    units: int  # how many such units carry the writes (K frontiers, N salt buckets)
    fixed: bool  # True: the unit does not grow with volume (stated, see Settings.entities_grow)

    @property
    def limited(self) -> bool:
        return math.isfinite(self.writes_per_s)


def unit_limit(
    kd: KeyDistribution,
    target: float,
    *,
    salt_buckets: int | None = None,
    entities_grow: bool = False,
) -> UnitLimit:
    """The design's ceiling (``kd.ceiling``, the load model's busiest unsplittable unit) at the
    capacity's CPU target, with the unit named as a capacity plan names it.

    The ceiling scales with the target (a replicated cluster at 35 % takes half of what one at
    70 % does). A salt bucket, a single frontier and a single row are fixed units; an entity of
    the dataset's set is fixed unless ``entities_grow`` (production adds entities like it)."""
    c = kd.ceiling
    if c is None or not c.unit or not math.isfinite(c.writes_per_s) or c.writes_per_s <= 0:
        return UnitLimit(math.inf, "", "", 0.0, 0, True)
    single = c.unit == "row" or c.units == 1 or c.unit_share >= 0.999
    if salt_buckets:
        kind, units = "salt bucket", int(salt_buckets)
    elif c.unit == "row":
        kind, units = "hot row", 1
    else:
        kind, units = ("write frontier" if single else "entity"), int(c.units)
    fixed = single or bool(salt_buckets) or not entities_grow
    rate = c.writes_per_s * target / c.cpu_target if fixed else math.inf
    return UnitLimit(rate, kind, c.unit_name, float(c.unit_share), units, fixed)


@dataclass
class NodeNeed:
    """How many nodes one cluster needs for its CPU, and how the answer was reached."""

    nodes: int
    busiest_cpu: float  # busiest node's CPU at that count (1.0 = one node)
    busiest_tablet_cpu: float  # what the busiest tablet alone needs
    hotspot_factor: float  # at that count
    hotspot_limited: bool  # the rate exceeds the design's ceiling: nodes cannot help
    rounds: list[tuple[int, float]] = field(default_factory=list)  # (nodes tried, busiest CPU)
    note: str = ""  # why the iteration stopped where it did, when not because it fits


def cpu_nodes(
    peak_cpu: float,
    load_at: Callable[[int], KeyDistribution] | None,
    target: float,
    *,
    min_nodes: int = 1,
    limited: bool = False,
) -> NodeNeed:
    """Smallest node count whose busiest node stays under ``target`` CPU, hotspots included.

    ``peak_cpu``: the cluster's total CPU (reads + writes, in nodes) in a busy window; it does
    not depend on the node count. ``load_at(n)``: the load model at ``n`` nodes. Start at the
    count the total needs if spread evenly; while the busiest node is over the target, scale
    the count by its excess and run the model again, but only while the added nodes relieve
    the busiest node (at least half of what an even spread would) and never past twice the
    even count (units each under the target pack into fewer). ``limited``: the rate exceeds
    the design's ceiling; the even count is returned, flagged, since no count serves it."""
    fair = max(min_nodes, math.ceil(peak_cpu / target - 1e-9)) if peak_cpu > 0 else min_nodes
    bound = max(fair, math.ceil(_PACKING_BOUND * fair))
    n = fair
    rounds: list[tuple[int, float]] = []
    tried: list[NodeNeed] = []
    for _ in range(_MAX_ROUNDS):
        if n == 1 or load_at is None:  # one node carries everything; no model: perfectly even
            busiest, tablet, hf = peak_cpu / n, 0.0, 1.0
        else:
            kd = load_at(n)
            busiest, tablet, hf = kd.busiest_node_cpu, kd.busiest_tablet_cpu, kd.hotspot_factor
        rounds.append((n, busiest))
        need = NodeNeed(n, busiest, tablet, hf, limited, rounds)
        if tried:
            prev = tried[-1]
            relief = prev.busiest_cpu * (1 - prev.nodes / n)  # what an even spread would take off
            if prev.busiest_cpu - busiest < _RELIEF * relief:
                prev.note = (
                    f"the model's busiest node stays at {busiest:.2f} nodes of CPU at "
                    f"{prev.nodes} and {n} nodes: more nodes do not relieve it (the sample's "
                    "warm-up, or one unit), so it is not extrapolated"
                )
                prev.rounds = rounds
                return prev
        tried.append(need)
        if busiest <= target or limited:
            return need
        if n >= bound:
            need.note = (
                f"stopped at twice the even count ({bound}): units each under the target "
                "pack into that many nodes"
            )
            return need
        n = min(bound, max(n + 1, math.ceil(n * busiest / target - 1e-9)))
    return tried[-1]


__all__ = ["NodeNeed", "UnitLimit", "cpu_nodes", "unit_limit"]
