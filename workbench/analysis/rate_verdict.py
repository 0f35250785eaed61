"""Verdicts at a rate: the shape of the load (what the keys do) apart from its consequence (what
that shape costs at the rate judged).

A write frontier at 0.0003 writes/s costs a millionth of a node; at 100,000 writes/s it is ten
times past what any cluster serves. So "Hotspot" is said only when, at the rate judged, the
busiest node is over the CPU target with the load concentrated, or the rate is over the design's
ceiling (ceiling.py); otherwise the verdict names the shape ("Write frontier", "Hot row",
"Concentrated load") and what it costs at that rate. Every verdict names the rate it judged:
the dataset's own, or the target.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..formatting import number

if TYPE_CHECKING:  # pragma: no cover
    from .ceiling import Ceiling
    from .keyspace import KeyDistribution


class RateVerdict(str):
    """A verdict: its text (what every title prints) and its parts.

    ``writes_per_s`` is the rate judged (mutations/s; ``events_per_s`` when judged at an event
    rate), ``source`` says whose rate it is, ``shape`` what the keys do whatever the rate,
    ``consequence`` what that costs at the rate, ``hotspot`` whether it is one."""

    writes_per_s: float
    events_per_s: float | None
    source: str
    shape: str
    consequence: str
    hotspot: bool
    busiest_node_cpu: float
    ceiling: Ceiling | None

    def __new__(
        cls,
        text: str,
        *,
        writes_per_s: float = 0.0,
        events_per_s: float | None = None,
        source: str = "",
        shape: str = "",
        consequence: str = "",
        hotspot: bool = False,
        busiest_node_cpu: float = 0.0,
        ceiling: Ceiling | None = None,
    ) -> RateVerdict:
        out = super().__new__(cls, text)
        out.writes_per_s = writes_per_s
        out.events_per_s = events_per_s
        out.source = source
        out.shape = shape
        out.consequence = consequence
        out.hotspot = hotspot
        out.busiest_node_cpu = busiest_node_cpu
        out.ceiling = ceiling
        return out


def share_of_node(cpu: float) -> str:
    """A node's CPU as a percentage, at most three decimals: 0.37 → 37 %, 2e-8 → <0.001 %."""
    pct = 100.0 * cpu
    if pct >= 10:
        return f"{pct:,.0f} %"
    return "<0.001 %" if 0 < pct < 0.001 else f"{number(pct)} %"


def rate_text(rate: float, noun: str) -> str:
    """A rate in the first unit of time it reaches 1 in: an hourly series writes "1.00 writes/h"
    (not 0.000278 writes/s), a busy one "100,000 writes/s"."""
    from ..formatting import rate as per_unit

    return per_unit(rate, noun)


def over_ceiling(kd: KeyDistribution) -> bool:
    """Whether the model's write rate is over the design's ceiling."""
    c = kd.ceiling
    return c is not None and kd.write_rate_per_s > c.writes_per_s * (1 + 1e-9)


def is_hotspot(kd: KeyDistribution) -> bool:
    """A hotspot at the model's rate: the rate is over the ceiling, or the busiest node is over
    the CPU target while the load is concentrated (an even load over the target wants more
    nodes, not another key)."""
    if over_ceiling(kd):
        return True
    return kd.spread != "even" and kd.busiest_node_cpu > kd.settings.cpu_target


def shape_label(kd: KeyDistribution) -> str:
    """The concentrated shape's name, for a verdict that is not a hotspot at its rate."""
    if kd.frontier:
        return "Write frontier"
    if kd.hot_rows:
        return "Hot row"
    return "Concentrated load"


def consequence(kd: KeyDistribution, source: str) -> str:
    """What the shape costs at the model's rate, and where the design stops scaling."""
    rate = kd.write_rate_per_s
    cpu = kd.busiest_node_cpu
    uses = f"needs {cpu:,.1f} nodes of CPU" if cpu >= 1 else f"uses {share_of_node(cpu)} of a node"
    out = f"at {rate_text(rate, 'writes')} ({source}) the busiest node {uses}"
    c = kd.ceiling
    if c is not None and math.isfinite(c.writes_per_s):
        out += f"; stops scaling at {number(c.writes_per_s)} writes/s"
        if over_ceiling(kd):
            out += f" ({c.shortfall(rate):,.1f}× short: no node count serves this rate)"
    return out


def judge(
    kd: KeyDistribution, shape: str, source: str, events_per_s: float | None = None
) -> RateVerdict:
    """The verdict on ``kd`` at its own write rate: ``shape`` is the load's shape in words
    (from ``KeyDistribution.spread``), ``source`` whose rate that is."""
    parts = {
        "writes_per_s": kd.write_rate_per_s,
        "events_per_s": events_per_s,
        "source": source,
        "busiest_node_cpu": kd.busiest_node_cpu,
        "ceiling": kd.ceiling,
    }
    if kd.n_writes == 0 and not kd.reads.any():
        return RateVerdict("No load", shape="no load", **parts)  # type: ignore[arg-type]
    then = consequence(kd, source)
    hot = is_hotspot(kd)
    c = kd.ceiling
    if hot and kd.spread != "hotspot" and c is not None and c.unit and over_ceiling(kd):
        text = f"Hotspot: {c.shape()}; {then}"  # spread out now, but its units cannot keep up
    elif hot:
        text = f"Hotspot: {shape}; {then}"
    elif kd.spread == "hotspot":
        text = f"{shape_label(kd)}: {shape}; {then}"
    elif kd.spread == "even" and kd.busiest_node_cpu > kd.settings.cpu_target:
        text = f"{shape}; {then}: every node is over the {kd.settings.cpu_target:.0%} CPU target, more nodes needed"
    else:  # spread out, under the target: the shape is the news (the ceiling is in the summary)
        text = shape
    return RateVerdict(text, shape=shape, consequence=then, hotspot=hot, **parts)  # type: ignore[arg-type]
