"""Bytes per event, split into key, family, qualifier, timestamp and value (G01, G14, G15)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from matplotlib.ticker import MaxNLocator

from ..formatting import counted
from .style import OKABE_ITO, legend_outside, new_axes, styled

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..analysis import Capacity


_PARTS = ("row key", "family", "qualifier", "timestamp", "value")


@styled
def plot_bytes_breakdown(cap: Capacity, ax: Axes | None = None) -> Axes:
    """One stacked bar: what each stored event costs, and the bar with one-byte names (G01)."""
    ax = new_axes(ax, height=2.6)
    per = {k: v / max(cap.events, 1) for k, v in cap.breakdown.items()}
    left = 0.0
    for i, k in enumerate(_PARTS):
        ax.barh(0, per[k], left=left, color=OKABE_ITO[i], label=f"{k} {per[k]:,.0f} B", height=0.55)
        left += per[k]
    ax.barh(1, cap.short_names_bytes_per_event, color="#BBBBBB", height=0.55)
    ax.text(
        cap.short_names_bytes_per_event,
        1,
        f"  {cap.short_names_bytes_per_event:,.0f} B",
        va="center",
    )
    ax.text(left, 0, f"  {left:,.0f} B", va="center")
    ax.set_yticks([0, 1])
    ax.set_yticklabels(["as designed", "1-byte names"])
    ax.invert_yaxis()
    ax.set_xlim(0, left * 1.18)
    ax.set_xlabel("bytes stored per event")
    legend_outside(ax, fontsize=9)
    ax.set_title(
        f"Names are {cap.name_overhead_share:.0%} of the bytes: {cap.bytes_per_event:,.0f} B per event"
    )
    return ax


@styled
def plot_node_need(cap: Capacity, ax: Axes | None = None) -> Axes:
    """Nodes per cluster: what CPU needs (hotspot included), what storage needs, what an even
    load would need; the largest sets the cluster size."""
    ax = new_axes(ax, height=2.4)
    bars = [
        ("CPU if the load were even", cap.nodes_fair, "#BBBBBB"),
        (f"CPU, busiest node ≤ {cap.cpu_target:.0%}", cap.cpu.nodes, OKABE_ITO[5]),
        (
            f"storage, compressed ({cap.settings.tb_per_node:g} TB per {cap.storage} node "
            f"at ≤ {cap.settings.storage_utilization_target:.0%})",
            cap.storage_nodes,
            OKABE_ITO[1],
        ),
    ]
    for i, (_, v, c) in enumerate(bars):
        ax.barh(i, v, color=c, height=0.6)
        ax.text(v, i, f"  {v:,}", va="center")
    ax.set_yticks(range(len(bars)))
    ax.set_yticklabels([b[0] for b in bars])
    ax.invert_yaxis()
    ax.set_xlim(0, max(b[1] for b in bars) * 1.2 + 1)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # a node count: no 0.25-node ticks
    ax.set_xlabel("nodes per cluster")
    bound = {
        "hotspot": f"a hotspot: over the ceiling of {cap.ceiling_events_per_s:,.0f} events/s",
        "cpu": "CPU",
        "storage": "storage",
        "minimum": f"the {cap.settings.min_nodes}-node minimum (neither CPU nor storage needs more)",
    }
    ax.set_title(
        f"{counted(cap.nodes_per_cluster, 'node')} per cluster × {counted(cap.clusters, 'cluster')}: "
        f"set by {bound[cap.bound_by]}"
    )
    return ax
