"""Load over the nodes: node load and the hotspot (G06, G07, G08), each in two forms side by side.

:func:`plot_node_load` / :func:`node_load_html` and :func:`plot_hotspot` / :func:`hotspot_html`:
the matplotlib figure for notebooks and reports, and the same lines as SVG for the designer
(milliseconds). :func:`plot_node_sweep` and :func:`plot_read_profile` are drawn only in
notebooks. The key heat map is :mod:`.heatmap`.
"""

from __future__ import annotations

import html
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING

import matplotlib.dates as mdates
import numpy as np
import pandas as pd

from ..formatting import EVEN_FACTOR
from .heatmap import key_axis, window_times
from .html_parts import PLOT_H, PLOT_W, date_ticks, figure_box
from .style import BAD, GOOD, MUTED, OKABE_ITO, legend_outside, new_axes, styled

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..analysis import KeyDistribution


def node_load_title(kd: KeyDistribution) -> tuple[str, str]:
    """The node-load picture's takeaway and its colour (the figure's and the designer's): a
    hotspot verdict as it stands, otherwise what the figure draws (:func:`window_spread`)."""
    from ..formatting import counted

    where = f"({counted(kd.nodes, 'node')}, {counted(kd.n_tablets, 'tablet')})"
    if kd.nodes == 1:
        return (
            f"One node carries all the load; busiest tablet {kd.mean_tablet_share:.0%} {where}",
            "black",
        )
    if kd.spread == "hotspot":
        return f"One node takes the load; the others idle {where}", BAD
    if kd.hotspot:  # spread over the nodes, yet the verdict is a hotspot at the model's rate
        return f"Hotspot at this rate: {hotspot_cause(kd)} {where}", BAD
    words = window_spread(kd).words()
    if words.startswith("Uneven"):  # some windows reach 2× fair; the verdict speaks of the mean
        words += f"; the busiest node averages {kd.factor_text} fair"
    return f"{words} {where}", "black"


UNEVEN_FACTOR = 2.0  # a drawn window whose busiest node takes 2× its fair share is uneven


@dataclass(frozen=True)
class WindowSpread:
    """What the node-load figure draws, window by window: the busiest node's share of each
    window's load (NaN: no load), the fair share, and the window edges (µs)."""

    busiest: np.ndarray
    fair: float
    edges_us: np.ndarray

    @property
    def factors(self) -> np.ndarray:
        """Each window's busiest share over the fair share, to a tenth as the title states it
        (1.99× reads "2.0×": a window the title calls 2.0× is uneven)."""
        return np.round(np.nan_to_num(self.busiest, nan=0.0) / self.fair, 1)

    @property
    def uneven(self) -> np.ndarray:
        """The windows whose busiest node takes :data:`UNEVEN_FACTOR` × its fair share or more."""
        return np.flatnonzero(self.factors >= UNEVEN_FACTOR)

    @property
    def worst(self) -> int:
        """The window whose busiest node takes the largest share."""
        return int(np.argmax(np.nan_to_num(self.busiest, nan=0.0)))

    def words(self) -> str:
        """The title: even (the busiest share at most), even after a start-up run of uneven
        windows (the busiest share before), or uneven (the busiest share and its window)."""
        from ..formatting import duration

        worst, uneven, n = self.worst, self.uneven, len(self.busiest)
        share, factor = float(self.busiest[worst]), float(self.factors[worst])
        took = f"{share:.0%} of a window's load ({factor:.1f}× fair)"
        # "evenly" where every window the words cover stays within 1.5× (KeyDistribution.spread)
        evenly = " evenly" if self.factors[len(uneven) :].max(initial=0.0) <= EVEN_FACTOR else ""
        if not len(uneven):
            return f"Every node shares the load{evenly}: the busiest at most {took}"
        if uneven.tolist() == list(range(len(uneven))) and len(uneven) < n:
            first = duration(float(self.edges_us[len(uneven)] - self.edges_us[0]) / 1e6)
            return (
                f"Every node shares the load{evenly} after the first "
                f"{first.replace('.0 ', ' ')}; before, the busiest took {took}"
            )
        when = pd.Timestamp(int(self.edges_us[worst]), unit="us", tz="UTC")
        return f"Uneven: the busiest node takes up to {took}, worst window from {when:%b %d %H:%M}"


def window_spread(kd: KeyDistribution) -> WindowSpread:
    """The node-load figure's windows as its title judges them: from :func:`node_shares`, the
    lines it draws (the start-up windows included: the figure shades, not hides, them)."""
    shares = node_shares(kd)
    busiest = np.where(np.isnan(shares).all(axis=1), np.nan, np.nan_to_num(shares).max(axis=1))
    return WindowSpread(busiest, float(kd.fair_share), np.asarray(kd.window_edges_us))


WARMUP_LABEL = "warm-up (a new table: one tablet, moves not landed yet)"


def shade_warmup(ax: Axes, kd: KeyDistribution, t) -> None:
    """Shade the warm-up windows grey: the same band on the hotspot and node-load figures."""
    if kd.warmup_windows:
        ax.axvspan(
            t[0],
            t[min(int(kd.warmup_windows), len(t) - 1)],
            color=MUTED,
            alpha=0.15,
            lw=0,
            label=WARMUP_LABEL,
        )


def hotspot_cause(kd: KeyDistribution) -> str:
    """Why a load spread over the nodes is still a hotspot (``judge`` in rate_verdict.py): the
    rate is over the design's ceiling, or the busiest node is over the CPU target."""
    from ..analysis.rate_verdict import over_ceiling
    from ..formatting import number

    spread = "evenly" if kd.spread == "even" else "unevenly"
    c = kd.ceiling
    if c is not None and over_ceiling(kd):
        return (
            f"the load is spread {spread} over the nodes, but the design stops scaling at "
            f"{number(c.writes_per_s)} writes/s"
        )
    return (
        f"the load is spread {spread}, but the busiest node is over the "
        f"{kd.settings.cpu_target:.0%} CPU target"
    )


def hotspot_title(kd: KeyDistribution) -> str:
    """The hotspot picture's title (the figure's and the designer's)."""
    return (
        f"Busiest node: {kd.mean_share:.0%} of the load, worst window {kd.max_share:.0%} "
        f"(fair {kd.fair_share:.0%}; {kd.factor_text} fair; busiest tablet "
        f"{kd.mean_tablet_share:.0%})"
    )


def node_shares(kd: KeyDistribution) -> np.ndarray:
    """Each node's share of each window's load (NaN where a window has none)."""
    tot = kd.node_cpu.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, kd.node_cpu / np.where(tot > 0, tot, 1), np.nan)


@styled
def plot_node_load(kd: KeyDistribution, ax: Axes | None = None) -> Axes:
    """Each node's share of each window's load (reads + writes as CPU) and the fair share."""
    ax = new_axes(ax, height=3.6)
    t = window_times(kd)
    mid = t[:-1] + (t[1:] - t[:-1]) / 2
    shares = node_shares(kd)
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
    shade_warmup(ax, kd, t)
    ax.set_ylabel("share of the window's load")
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_xlabel("event time")
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(ax.xaxis.get_major_locator()))
    legend_outside(ax)
    ax.set_ylim(0, 1.05)
    text, colour = node_load_title(kd)
    ax.set_title(textwrap.fill(text, 100), color=colour)  # a long title on two lines
    return ax


@styled
def plot_hotspot(kd: KeyDistribution, ax: Axes | None = None) -> Axes:
    """Busiest node's and busiest tablet's share of each window's load against the fair share 1/N:
    the tablet line is the floor no node count goes below."""
    ax = new_axes(ax, height=3.6)
    t = window_times(kd)
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
    shade_warmup(ax, kd, t)
    ax.set_ylim(0, 1.05)
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_ylabel("share of the load")
    ax.set_xlabel("event time")
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(ax.xaxis.get_major_locator()))
    legend_outside(ax)
    ax.set_title(hotspot_title(kd))
    return ax


# ----------------------------------------------------------------------------- HTML forms


def _steps(y: np.ndarray, w: float, h: float) -> str:
    """SVG path of a step line (one level per window) through ``y`` (shares 0…1.05, NaN: a gap)."""
    n = len(y)
    parts, pen = [], False
    for i, v in enumerate(y):
        if not np.isfinite(v):
            pen = False
            continue
        x0, x1, yy = w * i / n, w * (i + 1) / n, h * (1 - min(float(v), 1.05) / 1.05)
        parts.append(f"{'L' if pen else 'M'}{x0:.1f},{yy:.1f}L{x1:.1f},{yy:.1f}")
        pen = True
    return "".join(parts)


def _share_chart(
    kd: KeyDistribution,
    lines: list[tuple[np.ndarray, str, str, str]],
    title: str,
    colour: str,
    fill: tuple[np.ndarray, str] | None = None,
    warmup: int = 0,
) -> str:
    """Shares of each window's load over event time as SVG step lines, the fair share dashed."""
    w, h = PLOT_W, PLOT_H
    fy = h * (1 - kd.fair_share / 1.05)
    svg = [
        f"<svg width='{w}' height='{h}' style='display:block;border-left:1px solid #999;"
        "border-bottom:1px solid #999;overflow:visible'>"
    ]
    n = max(len(lines[0][0]) if lines else 1, 1)
    if warmup:
        svg.append(
            f"<rect x='0' y='0' width='{w * min(warmup, n) / n:.1f}' height='{h}' "
            f"fill='{MUTED}' fill-opacity='0.15'/>"
        )
    for frac in (0.25, 0.5, 0.75, 1.0):
        yy = h * (1 - frac / 1.05)
        svg.append(
            f"<line x1='0' x2='{w}' y1='{yy:.1f}' y2='{yy:.1f}' stroke='#eee'/>"
            f"<text x='-4' y='{yy + 4:.1f}' text-anchor='end' font-size='11'>{frac:.0%}</text>"
        )
    if fill is not None:
        y, c = fill
        top = np.maximum(np.nan_to_num(y), kd.fair_share)
        pts = [
            f"{w * i / n:.1f},{h * (1 - min(v, 1.05) / 1.05):.1f} {w * (i + 1) / n:.1f},"
            f"{h * (1 - min(v, 1.05) / 1.05):.1f}"
            for i, v in enumerate(top)
        ]
        svg.append(
            f"<polygon points='0,{fy:.1f} {' '.join(pts)} {w},{fy:.1f}' fill='{c}' "
            "fill-opacity='0.3'/>"
        )
    for y, c, dash, _ in lines:
        svg.append(
            f"<path d='{_steps(np.asarray(y, dtype=float), w, h)}' fill='none' stroke='{c}' "
            f"stroke-width='1.6'{f' stroke-dasharray={dash!r}' if dash else ''}/>"
        )
    svg.append(
        f"<line x1='0' x2='{w}' y1='{fy:.1f}' y2='{fy:.1f}' stroke='black' "
        "stroke-dasharray='6,4'/></svg>"
    )
    key = (
        "".join(f"<span style='background:{c}'></span>{html.escape(lab)}" for _, c, _, lab in lines)
        + f"<span style='background:none;border-top:2px dashed black;height:0'></span>fair share "
        f"1/{kd.nodes} = {kd.fair_share:.0%}"
    )
    if warmup:
        key += f"<span style='background:{MUTED};opacity:.3'></span>warm-up (a new table)"
    ticks = "".join(
        f"<span style='left:{100 * f:.2f}%'>{html.escape(t)}</span>"
        for f, t in date_ticks(np.asarray(kd.window_edges_us))
    )
    return figure_box(
        f"<div class='wb-b-title' style='color:{colour}'>{html.escape(title)}</div>"
        f"<div class='wb-b-key'>{key}</div><div style='padding-left:36px'>{''.join(svg)}"
        f"<div class='wb-b-x' style='width:{w}px'>{ticks}</div>"
        "<div style='font-size:11px'>event time; share of each window's load (reads + writes "
        "as node CPU)</div></div>"
    )


def node_load_html(kd: KeyDistribution) -> str:
    """:func:`plot_node_load` as HTML: each node's share of each window's load (the busiest 8
    nodes) as SVG step lines against the fair share."""
    shares = node_shares(kd)
    show = np.argsort(-np.nan_to_num(shares).sum(axis=0))[: min(kd.nodes, 8)]
    lines = [
        (shares[:, i], OKABE_ITO[rank % len(OKABE_ITO)], "", f"node {i + 1}")
        for rank, i in enumerate(sorted(show))
    ]
    title, colour = node_load_title(kd)
    return _share_chart(kd, lines, title, colour, warmup=int(kd.warmup_windows or 0))


def hotspot_html(kd: KeyDistribution) -> str:
    """:func:`plot_hotspot` as HTML: the busiest node's and busiest tablet's share of each
    window's load against 1/N."""
    colour = {"hotspot": BAD, "even": GOOD, "uneven": OKABE_ITO[1]}[kd.spread]
    lines = [
        (np.asarray(kd.busiest_share, dtype=float), colour, "", "busiest node's share"),
        (
            np.asarray(kd.tablet_share, dtype=float),
            "black",
            "2,3",
            "busiest tablet's share (the floor)",
        ),
    ]
    return _share_chart(
        kd,
        lines,
        hotspot_title(kd),
        "black",
        fill=(np.asarray(kd.busiest_share, dtype=float), colour),
        warmup=int(kd.warmup_windows or 0),
    )


# ----------------------------------------------------------------------------- notebooks only


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
    legend_outside(ax)
    ax.set_title("The same load on 1, 3, 10 and 30 nodes: does adding nodes help?")
    return ax


@styled
def plot_read_profile(kd: KeyDistribution, ax: Axes | None = None) -> Axes:
    """Rows read per key bucket by the query workload, once every row exists (the last window)."""
    ax = new_axes(ax, width=4.0, height=5.2)
    prof = kd.reads[-1] if kd.reads.size else np.zeros(0)
    ax.barh(np.arange(len(prof)) + 0.5, prof, height=1.0, color=OKABE_ITO[0])
    key_axis(ax, kd, len(prof))
    ax.set_xlabel("rows read per window")
    ax.set_title("Where the queries read")
    return ax
