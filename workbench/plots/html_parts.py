"""Building blocks of the figures' fast HTML forms: one style sheet, log positions, date ticks.

Each picture's ``*_html`` function (next to its matplotlib ``plot_*`` function in the same
module) draws the same numbers as positioned HTML ``div`` bars or SVG lines: a few
milliseconds, where a matplotlib draw with a PNG encode costs 200-500 ms (the designer redraws
on every widget change and has half a second; notebooks and reports keep the matplotlib form).
"""

from __future__ import annotations

import html
import math

import numpy as np
import pandas as pd

from .style import BAD, GOOD

PLOT_W, PLOT_H = 720, 200  # px: the same width as the HTML heat map (fits the designer at 1280 px)

CSS = (
    "<style>.wb-b{font:12px sans-serif;line-height:1.3;max-width:900px}"
    ".wb-b-title{font-weight:bold;font-size:14px;margin:2px 0 6px 0}"
    ".wb-b-plot{position:relative;border-left:1px solid #999;border-bottom:1px solid #999}"
    ".wb-b-plot>div{position:absolute;bottom:0}"
    ".wb-b-x{position:relative;height:18px;font-size:11px}"
    ".wb-b-x span{position:absolute;transform:translateX(-50%);white-space:nowrap}"
    ".wb-b-note{color:#555;font-size:11px;margin-top:4px}"
    ".wb-b-key span{display:inline-block;width:10px;height:10px;margin:0 4px 0 10px}"
    # auto layout: JupyterLab's output CSS sets `.jp-RenderedHTMLCommon table{table-layout:
    # fixed}`, which splits a 100 %-wide table's width evenly among cells without a width and
    # ignores their min-width, so the Compare tab's name cells shrank to a few characters and
    # broke names mid-word ("pair_micr|osecond|s"); `div.wb-b table` outranks that rule
    "div.wb-b table{border-collapse:collapse;table-layout:auto}"
    ".wb-b td,.wb-b th{padding:3px 8px;text-align:left;"
    "vertical-align:middle;border-bottom:1px solid #eee}"
    # long names (query and design names have no spaces) wrap in their own cell instead of
    # running under the bar beside them, at a "_" (<wbr>) where they have one: break-word
    # splits a word only when it fits no line (anywhere shrank the cell and split mid-word)
    ".wb-b td.wb-b-name{overflow-wrap:break-word;text-align:left;min-width:8em}"
    ".wb-b td.wb-b-num{white-space:nowrap;text-align:left}"
    ".wb-b .bad{color:" + BAD + "}.wb-b .good{color:" + GOOD + "}</style>"
)


def breakable(text: str) -> str:
    """``text`` escaped for HTML with a line-break chance after each "_": a design or query name
    (``pair_microseconds``) wraps between its words in a narrow cell, never mid-word."""
    return html.escape(str(text)).replace("_", "_<wbr>")


def figure_box(body: str) -> str:
    """``body`` in the figures' HTML box, with the style sheet it needs (each picture stands alone)."""
    return f"{CSS}<div class='wb-b'>{body}</div>"


def log_pos(v: float, lo: float, hi: float) -> float:
    """Where ``v`` sits between ``lo`` and ``hi`` on a log axis, as a fraction 0…1."""
    v = min(max(v, lo), hi)
    return (math.log10(v) - math.log10(lo)) / max(math.log10(hi) - math.log10(lo), 1e-12)


def date_ticks(edges_us: np.ndarray, n: int = 7) -> list[tuple[float, str]]:
    """(fraction across, label) for about ``n`` dates between the first and last window edge."""
    t0, t1 = int(edges_us[0]), int(edges_us[-1])
    if t1 <= t0:
        return [(0.0, f"{pd.Timestamp(t0, unit='us', tz='UTC'):%Y-%m-%d %H:%M}")]
    span = pd.Timestamp(t1, unit="us") - pd.Timestamp(t0, unit="us")
    fmt = (
        "%b %Y"  # years of data (your own CSV): the year, not the day, tells the ticks apart
        if span >= pd.Timedelta(days=300)
        else "%b %d"
        if span >= pd.Timedelta(days=2)
        else ("%b %d %H:%M" if span >= pd.Timedelta(hours=6) else "%H:%M:%S")
    )
    ticks = np.linspace(t0, t1, n)
    return [
        ((t - t0) / (t1 - t0), f"{pd.Timestamp(int(t), unit='us', tz='UTC'):{fmt}}") for t in ticks
    ]
