"""Bytes per event, split into key, family, qualifier, timestamp and value (G01, G14, G15)."""

from __future__ import annotations

from .style import OKABE_ITO, new_axes, styled

_PARTS = ("row key", "family", "qualifier", "timestamp", "value")


@styled
def plot_bytes_breakdown(cap, ax=None):
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
    ax.legend(ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.35))
    ax.set_title(
        f"Names are {cap.name_overhead_share:.0%} of the bytes: {cap.bytes_per_event:,.0f} B per event"
    )
    return ax
