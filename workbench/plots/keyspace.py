"""The simulated Key Visualizer, per-node load and the hotspot figure (G06, G07, G08)."""

from __future__ import annotations

import matplotlib.dates as mdates
import matplotlib.ticker as mticker
import numpy as np
import pandas as pd

from ..notes import EMULATOR_NOTES
from .style import BAD, GOOD, HEATMAP, MUTED, OKABE_ITO, new_axes, note, styled


def _times(kd) -> pd.DatetimeIndex:
    return pd.to_datetime(kd.window_edges_us, unit="us", utc=True)


def heatmap_data(kd, what: str = "writes"):
    """The key-bucket × window matrix to draw (masked where nothing happened) and its norm: log for
    writes, linear for reads. Shared by this figure and the designer's HTML heat map."""
    from matplotlib.colors import LogNorm, Normalize

    if what not in ("writes", "reads"):
        raise ValueError(f"what must be 'writes' or 'reads', got {what!r}.")
    m = kd.writes if what == "writes" else kd.reads
    data = np.ma.masked_less_equal(m.T.astype(float), 0)
    if what == "writes":
        vmax = max(float(data.max()) if data.count() else 1.0, 1.0)
        return data, LogNorm(vmin=min(1.0, vmax), vmax=vmax)
    lo, hi = (float(data.min()), float(data.max())) if data.count() else (0.0, 1.0)
    return data, Normalize(vmin=lo, vmax=hi)  # what matplotlib's autoscale picks


def _key_axis(ax, kd, n_buckets: int) -> None:
    pos = [p for p, _ in kd.labels]
    ax.set_yticks([p + 0.5 for p in pos])
    ax.set_yticklabels([t for _, t in kd.labels], fontsize=9, family="monospace")
    ax.set_ylim(n_buckets, 0)  # key order top to bottom, as in Key Visualizer
    ax.set_ylabel(f"row key ({n_buckets:,} buckets, key order)")


@styled
def plot_key_heatmap(kd, ax=None, *, what: str = "writes", emulator_note: bool = True):
    """Time × key space heat map of write operations (or the workload's row reads).

    A timestamp-first key draws one diagonal line (the write frontier moving
    through the key space); field promotion draws even horizontal bands; salting
    with N buckets draws N parallel frontiers. ``emulator_note=False`` leaves out the
    caption on how the emulator differs (for pages that print it as text).
    """
    ax = new_axes(ax, height=5.2)
    data, norm = heatmap_data(kd, what)
    t = _times(kd)
    x0, x1 = mdates.date2num(t[0].to_pydatetime()), mdates.date2num(t[-1].to_pydatetime())
    im = ax.imshow(
        data,
        aspect="auto",
        interpolation="nearest",
        cmap=HEATMAP,
        norm=norm,
        extent=(x0, x1, data.shape[0], 0),
    )
    ax.set_facecolor("white")
    ax.xaxis_date()
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(ax.xaxis.get_major_locator()))
    _key_axis(ax, kd, data.shape[0])
    cb = ax.figure.colorbar(im, ax=ax, pad=0.01, aspect=30)
    cb.set_label("writes per window and key bucket" if what == "writes" else "rows read per window")
    cb.ax.yaxis.set_major_formatter(
        mticker.FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}")
    )
    cb.ax.yaxis.set_minor_locator(
        mticker.NullLocator()
    )  # unlabelled log minor ticks cost a redraw's worth of time
    if what == "writes":
        ax.set_title(kd.verdict(), color=BAD if kd.spread == "hotspot" else "black")
        br = kd.busiest_range.get("name")
        if br:
            ax.text(
                0.99,
                0.02,
                f"busiest key range: {br}",
                transform=ax.transAxes,
                ha="right",
                va="bottom",
                fontsize=9,
                family="monospace",
                bbox=dict(facecolor="white", alpha=0.85, edgecolor="none"),
            )
        if emulator_note:
            note(ax, EMULATOR_NOTES["keyspace"])
    else:
        ax.set_title("Reads by the query workload (" + kd.read_note.split(":", 1)[-1].strip() + ")")
    ax.set_xlabel("event time")
    return ax


@styled
def plot_node_load(kd, ax=None):
    """Writes per node over time: one line per node and the fair share."""
    ax = new_axes(ax, height=3.6)
    t = _times(kd)
    mid = t[:-1] + (t[1:] - t[:-1]) / 2
    totals = kd.node_writes.sum(axis=1)
    for i in range(kd.nodes):
        ax.plot(
            mid,
            kd.node_writes[:, i],
            color=OKABE_ITO[i % len(OKABE_ITO)],
            lw=1.6,
            label=f"node {i + 1}",
            drawstyle="steps-mid",
        )
    ax.plot(mid, totals / kd.nodes, color=MUTED, lw=1.2, ls="--", label="fair share")
    ax.set_ylabel("writes per window")
    ax.set_xlabel("event time")
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(ax.xaxis.get_major_locator()))
    ax.legend(ncol=min(kd.nodes + 1, 6), loc="upper left", bbox_to_anchor=(0, 1.0))
    ax.set_ylim(0, max(float(kd.node_writes.max()) * 1.25, 1))
    where = f"({kd.nodes} nodes, {kd.n_tablets} tablets)"
    if kd.spread == "hotspot":
        ax.set_title(f"One node takes the writes; the others idle {where}", color=BAD)
    elif kd.spread == "even":
        ax.set_title(f"Every node shares the writes evenly {where}")
    else:
        ax.set_title(
            f"Every node gets writes, unevenly: the busiest {kd.hotspot_factor:.1f}× its fair share {where}"
        )
    return ax


@styled
def plot_hotspot(kd, ax=None):
    """Busiest node's share of each window's writes against the fair share 1/N."""
    ax = new_axes(ax, height=3.6)
    t = _times(kd)
    mid = t[:-1] + (t[1:] - t[:-1]) / 2
    share = kd.busiest_share
    colour = {"hotspot": BAD, "even": GOOD, "uneven": OKABE_ITO[1]}[kd.spread]
    ax.fill_between(
        mid,
        kd.fair_share,
        np.maximum(share, kd.fair_share),
        step="mid",
        color=colour,
        alpha=0.3,
        lw=0,
        label="above fair share",
    )
    ax.plot(mid, share, drawstyle="steps-mid", color=colour, lw=1.5, label="busiest node's share")
    ax.axhline(kd.fair_share, color="black", ls="--", lw=1.2, label=f"fair share 1/{kd.nodes}")
    if kd.warmup_windows:
        ax.axvspan(
            t[0],
            t[min(kd.warmup_windows, len(t) - 1)],
            color=MUTED,
            alpha=0.15,
            lw=0,
            label="warm-up (fewer tablets than nodes)",
        )
    ax.set_ylim(0, 1.05)
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_ylabel("share of writes")
    ax.set_xlabel("event time")
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(ax.xaxis.get_major_locator()))
    ax.legend(loc="lower right")
    ax.set_title(
        f"Busiest node: mean {kd.mean_share:.0%}, max {kd.max_share:.0%} of writes "
        f"(fair {kd.fair_share:.0%}; {kd.hotspot_factor:.1f}× fair)"
    )
    return ax


@styled
def plot_read_profile(kd, ax=None):
    """Rows read per key bucket by the query workload (constant over time in the model)."""
    ax = new_axes(ax, width=4.0, height=5.2)
    prof = kd.reads[0] if kd.reads.size else np.zeros(0)
    ax.barh(np.arange(len(prof)) + 0.5, prof, height=1.0, color=OKABE_ITO[0])
    _key_axis(ax, kd, len(prof))
    ax.set_xlabel("rows read per window")
    ax.set_title("Where the queries read")
    return ax
