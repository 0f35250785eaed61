"""The simulated Key Visualizer, per-node load and the hotspot figure (G06, G07, G08)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import matplotlib.dates as mdates
import matplotlib.ticker as mticker
import numpy as np
import pandas as pd

from ..notes import EMULATOR_NOTES
from .style import BAD, GOOD, MUTED, OKABE_ITO, heatmap_cmap, new_axes, note, styled

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..analysis import KeyDistribution


def _times(kd: KeyDistribution) -> pd.DatetimeIndex:
    return pd.to_datetime(kd.window_edges_us, unit="us", utc=True)


# what the heat map can draw: (colour-bar label, log scale?)
COUNTS = ("writes",)  # metrics that count whole events in the sample (1 is the least there is)
METRICS = {
    "writes": ("writes per window and key bucket (the sample)", True),
    "reads": ("rows read per window (production rate)", False),
    "ops": ("ops per minute: reads + writes (production rate)", True),
    "write_bytes": ("bytes written per minute (production rate)", True),
    "read_bytes": ("bytes read per minute (production rate)", True),
    "pressure": ("pressure: CPU of the serving node, % of the 70 % target", False),
    "rows": ("rows per key bucket", False),
    "data": ("bytes stored per key bucket (the sample)", True),
    "large_rows": ("rows over 256 MiB", False),
}


def heatmap_data(kd: KeyDistribution, what: str = "writes"):
    """The key-bucket × window matrix to draw (masked where nothing happened) and its norm: log for
    counts that span decades (writes, ops, bytes), linear for the rest. Shared by this figure and
    the designer's HTML heat map. ``what``: ``"writes"``, ``"reads"`` or a Key Visualizer metric
    of :meth:`KeyDistribution.metric`."""
    from matplotlib.colors import LogNorm, Normalize

    if what not in METRICS:
        raise ValueError(
            f"what must be 'writes' or 'reads' or a Key Visualizer metric ({', '.join(METRICS)}), "
            f"got {what!r}."
        )
    m = {"writes": lambda: kd.writes, "reads": lambda: kd.reads}.get(
        what, lambda: kd.metric(what)
    )()
    data = np.ma.masked_less_equal(np.asarray(m, dtype=float).T, 0)
    if what in COUNTS:
        # whole counts: white is 0 (masked), the scale starts half a step below 1 so a cell with
        # one write gets a colour of its own (not the palest), and the top is at least 2 so 1 is
        # never also "the most": 0, 1 and many stay three different colours however small the data
        vmax = max(float(data.max()) if data.count() else 1.0, 2.0)
        return data, LogNorm(vmin=0.5, vmax=vmax)
    if METRICS[what][1]:
        vmax = float(data.max()) if data.count() else 1.0
        vmin = float(data.min()) if data.count() else 1.0
        vmin = max(vmin, vmax / 1e6)
        return data, LogNorm(vmin=vmin, vmax=max(vmax, vmin * 1.0001))
    lo, hi = (float(data.min()), float(data.max())) if data.count() else (0.0, 1.0)
    return data, Normalize(vmin=lo, vmax=hi)  # what matplotlib's autoscale picks


def scale_ticks(norm: Any, what: str) -> list[tuple[float, float, str]]:
    """(fraction up the colour bar, value, label) for the heat map's scale: the top, the middle and,
    for counts, 1 (the bottom of the bar is half a write, which no cell has)."""
    lo, hi = float(norm.vmin), float(norm.vmax)
    if what in COUNTS:
        values = sorted({1.0, round(float(np.sqrt(hi))), hi})
    else:
        mid = float(np.sqrt(lo * hi)) if METRICS[what][1] and lo > 0 else (lo + hi) / 2
        values = [lo, mid, hi]
    out = []
    for v in values:
        label = f"{v:,.0f}" if abs(v) >= 10 or (what in COUNTS) else f"{v:.3g}"
        out.append((float(np.clip(norm(v), 0.0, 1.0)), v, label))
    return out


def _key_axis(ax: Axes, kd: KeyDistribution, n_buckets: int) -> None:
    pos = [p for p, _ in kd.labels]
    ax.set_yticks([p + 0.5 for p in pos])
    ax.set_yticklabels([t for _, t in kd.labels], fontsize=9, family="monospace")
    ax.set_ylim(n_buckets, 0)  # key order top to bottom, as in Key Visualizer
    ax.set_ylabel(f"row key ({n_buckets:,} buckets, key order)")


@styled
def plot_key_heatmap(
    kd: KeyDistribution, ax: Axes | None = None, *, what: str = "writes", emulator_note: bool = True
) -> Axes:
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
        cmap=heatmap_cmap(),
        norm=norm,
        extent=(x0, x1, data.shape[0], 0),
    )
    ax.set_facecolor("white")
    ax.xaxis_date()
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(ax.xaxis.get_major_locator()))
    _key_axis(ax, kd, data.shape[0])
    cb = ax.figure.colorbar(im, ax=ax, pad=0.01, aspect=30)
    cb.set_label(METRICS[what][0])
    cb.ax.yaxis.set_major_formatter(
        mticker.FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}")
    )
    ticks = scale_ticks(norm, what)
    cb.set_ticks([v for _, v, _ in ticks], labels=[lab for _, _, lab in ticks])
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
    elif what == "reads":
        ax.set_title("Reads by the query workload (" + kd.read_note.split(":", 1)[-1].strip() + ")")
    else:
        diag = "; ".join(d["message"] for d in kd.diagnostics())
        ax.set_title(f"Key Visualizer: {METRICS[what][0]}" + (f" — {diag}" if diag else ""))
    ax.set_xlabel("event time")
    return ax


def node_load_title(kd: KeyDistribution) -> tuple[str, str]:
    """The node-load picture's takeaway and its colour (the figure's and the designer's)."""
    where = f"({kd.nodes} node{'s' if kd.nodes > 1 else ''}, {kd.n_tablets} tablets)"
    if kd.nodes == 1:
        return (
            f"One node carries all the load; busiest tablet {kd.mean_tablet_share:.0%} {where}",
            "black",
        )
    if kd.spread == "hotspot":
        return f"One node takes the load; the others idle {where}", BAD
    if kd.spread == "even":
        return f"Every node shares the load evenly {where}", "black"
    return (
        f"Every node gets load, unevenly: the busiest {kd.hotspot_factor:.1f}× its fair share "
        f"{where}",
        "black",
    )


def hotspot_title(kd: KeyDistribution) -> str:
    return (
        f"Busiest node: {kd.mean_share:.0%} of the load, worst window {kd.max_share:.0%} "
        f"(fair {kd.fair_share:.0%}; {kd.hotspot_factor:.1f}× fair; busiest tablet "
        f"{kd.mean_tablet_share:.0%})"
    )


def node_shares(kd: KeyDistribution) -> np.ndarray:
    """Each node's share of each window's load (NaN where a window has none)."""
    return _node_shares(kd)


def _node_shares(kd: KeyDistribution) -> np.ndarray:
    tot = kd.node_cpu.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, kd.node_cpu / np.where(tot > 0, tot, 1), np.nan)


@styled
def plot_node_load(kd: KeyDistribution, ax: Axes | None = None) -> Axes:
    """Each node's share of each window's load (reads + writes as CPU) and the fair share."""
    ax = new_axes(ax, height=3.6)
    t = _times(kd)
    mid = t[:-1] + (t[1:] - t[:-1]) / 2
    shares = _node_shares(kd)
    show = np.argsort(-np.nan_to_num(shares).sum(axis=0))[: min(kd.nodes, 8)]  # the busiest 8
    for rank, i in enumerate(sorted(show)):
        ax.plot(
            mid,
            shares[:, i],
            color=OKABE_ITO[rank % len(OKABE_ITO)],
            lw=1.6,
            label=f"node {i + 1}",
            drawstyle="steps-mid",
        )
    ax.axhline(kd.fair_share, color=MUTED, lw=1.2, ls="--", label="fair share")
    ax.set_ylabel("share of the window's load")
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_xlabel("event time")
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(ax.xaxis.get_major_locator()))
    ax.legend(ncol=min(len(show) + 1, 6), loc="upper left", bbox_to_anchor=(0, 1.0), fontsize=8)
    ax.set_ylim(0, 1.05)
    text, colour = node_load_title(kd)
    ax.set_title(text, color=colour)
    return ax


@styled
def plot_hotspot(kd: KeyDistribution, ax: Axes | None = None) -> Axes:
    """Busiest node's and busiest tablet's share of each window's load against the fair share 1/N:
    the tablet line is the floor no node count goes below."""
    ax = new_axes(ax, height=3.6)
    t = _times(kd)
    mid = t[:-1] + (t[1:] - t[:-1]) / 2
    share = kd.busiest_share
    colour = {"hotspot": BAD, "even": GOOD, "uneven": OKABE_ITO[1]}[kd.spread]
    ax.fill_between(
        mid,
        kd.fair_share,
        np.maximum(np.nan_to_num(share), kd.fair_share),
        step="mid",
        color=colour,
        alpha=0.3,
        lw=0,
        label="above fair share",
    )
    ax.plot(mid, share, drawstyle="steps-mid", color=colour, lw=1.5, label="busiest node's share")
    ax.plot(
        mid,
        kd.tablet_share,
        drawstyle="steps-mid",
        color="black",
        lw=1.0,
        ls=":",
        label="busiest tablet's share (the floor)",
    )
    ax.axhline(kd.fair_share, color="black", ls="--", lw=1.2, label=f"fair share 1/{kd.nodes}")
    if kd.warmup_windows:
        ax.axvspan(
            t[0],
            t[min(kd.warmup_windows, len(t) - 1)],
            color=MUTED,
            alpha=0.15,
            lw=0,
            label="warm-up (a new table: one tablet, moves not landed yet)",
        )
    ax.set_ylim(0, 1.05)
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_ylabel("share of the load")
    ax.set_xlabel("event time")
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(ax.xaxis.get_major_locator()))
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(hotspot_title(kd))
    return ax


@styled
def plot_node_sweep(kd: KeyDistribution, ax: Axes | None = None, *, nodes=(1, 3, 10, 30)) -> Axes:
    """The same workload on several cluster sizes: the busiest node's share against the fair
    share and the busiest tablet's floor. What a Key Visualizer cannot show before the table
    exists."""
    ax = new_axes(ax, height=3.0)
    runs = {int(n): kd.at_nodes(int(n)) for n in nodes}  # the result reruns itself (cached)
    x = np.arange(len(runs))
    busiest = [r.mean_share for r in runs.values()]
    ax.bar(
        x,
        busiest,
        color=[
            {"hotspot": BAD, "even": GOOD, "uneven": OKABE_ITO[1]}[r.spread] for r in runs.values()
        ],
        width=0.6,
        label="busiest node",
    )
    ax.plot(x, [1 / n for n in runs], "k_", ms=30, mew=2, label="fair share 1/N")
    ax.plot(
        x,
        [r.mean_tablet_share for r in runs.values()],
        "k:",
        marker="o",
        label="busiest tablet (floor)",
    )
    for i, v in enumerate(busiest):
        ax.text(i, v, f" {v:.0%}", ha="center", va="bottom")
    ax.set_xticks(x)
    ax.set_xticklabels([f"{n} node{'s' if n > 1 else ''}" for n in runs])
    ax.set_ylim(0, 1.1)
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_ylabel("share of the load")
    ax.legend(loc="upper right", fontsize=8)
    ax.set_title("The same load on 1, 3, 10 and 30 nodes: does adding nodes help?")
    return ax


@styled
def plot_read_profile(kd: KeyDistribution, ax: Axes | None = None) -> Axes:
    """Rows read per key bucket by the query workload, once every row exists (the last window)."""
    ax = new_axes(ax, width=4.0, height=5.2)
    prof = kd.reads[-1] if kd.reads.size else np.zeros(0)
    ax.barh(np.arange(len(prof)) + 0.5, prof, height=1.0, color=OKABE_ITO[0])
    _key_axis(ax, kd, len(prof))
    ax.set_xlabel("rows read per window")
    ax.set_title("Where the queries read")
    return ax
