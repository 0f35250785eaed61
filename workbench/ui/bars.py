"""The designer's row-size, query-cost and comparison pictures as HTML bars: no matplotlib draw.

The notebook and report figures are :func:`workbench.plots.sizes.plot_row_sizes`,
:func:`workbench.plots.queries.plot_query_costs` and
:func:`workbench.plots.compare.plot_comparison`. Drawing one (log-scale ticks, mathtext,
constrained layout, a PNG encode) costs 200-300 ms on the workshop machine, so a design
change took well over the designer's half-second budget on those tabs. Here the same numbers
(the analysis' own arrays and tables, nothing re-derived) become positioned ``div`` bars with
HTML labels: a few milliseconds, and text that wraps instead of being clipped.
"""

from __future__ import annotations

import html
import math
from typing import Any

import numpy as np

from ..formatting import ratio
from ..notes import EMULATOR_NOTES
from ..plots.style import BAD, GOOD, MUTED, NEUTRAL, OKABE_ITO
from ..units import human_bytes

PLOT_W, PLOT_H = 720, 200  # px: the same width as the HTML heat map (fits the designer at 1280 px)

_CSS = (
    "<style>.wb-b{font:12px sans-serif;line-height:1.3;max-width:900px}"
    ".wb-b-title{font-weight:bold;font-size:14px;margin:2px 0 6px 0}"
    ".wb-b-plot{position:relative;border-left:1px solid #999;border-bottom:1px solid #999}"
    ".wb-b-plot>div{position:absolute;bottom:0}"
    ".wb-b-x{position:relative;height:18px;font-size:11px}"
    ".wb-b-x span{position:absolute;transform:translateX(-50%);white-space:nowrap}"
    ".wb-b-note{color:#555;font-size:11px;margin-top:4px}"
    ".wb-b-key span{display:inline-block;width:10px;height:10px;margin:0 4px 0 10px}"
    ".wb-b table{border-collapse:collapse}.wb-b td,.wb-b th{padding:3px 8px;text-align:left;"
    "vertical-align:middle;border-bottom:1px solid #eee}"
    ".wb-b .bad{color:" + BAD + "}.wb-b .good{color:" + GOOD + "}</style>"
)


def _box(body: str) -> str:
    return f"{_CSS}<div class='wb-b'>{body}</div>"


def _log_pos(v: float, lo: float, hi: float) -> float:
    """Where ``v`` sits between ``lo`` and ``hi`` on a log axis, as a fraction 0…1."""
    v = min(max(v, lo), hi)
    return (math.log10(v) - math.log10(lo)) / max(math.log10(hi) - math.log10(lo), 1e-12)


# ----------------------------------------------------------------------------- row sizes


def rowsizes_html(rs: Any, *, emulator_note: bool = True) -> str:
    """The histogram of bytes per row (log bins) against the 100 MB guideline and 256 MB limit,
    with the projection after the retention period for rows that never close (G02, G10, G12)."""
    s = rs.settings
    b = np.maximum(np.asarray(rs.bytes, dtype=float), 1.0)
    hi = max(float(rs.projected_max_bytes), s.row_hard_bytes * 1.6)
    edges = np.logspace(0, math.log10(hi), 81)
    now = np.histogram(b, bins=edges)[0]
    later = (
        np.histogram(np.maximum(np.asarray(rs.projected_bytes, dtype=float), 1.0), bins=edges)[0]
        if rs.open_rows
        else np.zeros_like(now)
    )
    top = max(int(now.max()) if len(now) else 0, int(later.max()) if len(later) else 0, 1)
    positive = np.concatenate([now[now > 0], later[later > 0]])
    log_y = len(positive) > 0 and top > 50 * max(int(positive.min()), 1)

    def height(c: int) -> float:
        if c <= 0:
            return 0.0
        if log_y:  # a single row still shows (one step above the axis), the tallest fills the box
            return 100 * (math.log10(c) + 0.3) / (math.log10(top) + 0.3)
        return 100 * c / top

    bar_w = 100 / len(now)
    bars = []
    for i, (n_now, n_later) in enumerate(zip(now, later, strict=True)):
        lo_b, hi_b = human_bytes(edges[i]), human_bytes(edges[i + 1])
        for n, colour, alpha, what in (
            (int(n_now), NEUTRAL, 0.85, "now"),
            (int(n_later), OKABE_ITO[1], 0.6, f"after {s.retention_months:g} months"),
        ):
            if n:
                bars.append(
                    f"<div title='{n:,} rows of {lo_b}–{hi_b} ({what})' style='left:{i * bar_w:.3f}%;"
                    f"width:{bar_w:.3f}%;height:{height(n):.2f}%;background:{colour};opacity:{alpha}'>"
                    "</div>"
                )
    lines = []
    # both labels end at their line (the hard limit sits near the right edge: a label to its
    # right would be cut off), the second one lower so they never overlap
    for x, lab, style, top in (
        (s.row_advisory_bytes, "100 MB guideline", "dashed", 4),
        (s.row_hard_bytes, "256 MB hard limit", "solid", 22),
    ):
        f = 100 * _log_pos(x, 1.0, hi)
        lines.append(
            f"<div style='left:{f:.2f}%;top:0;border-left:2px {style} {BAD}'></div>"
            f"<div style='top:{top}px;bottom:auto;right:{100 - f:.2f}%;padding:0 4px;color:{BAD};"
            f"font-size:11px;white-space:nowrap;background:rgba(255,255,255,.85)'>{lab}</div>"
        )
    ticks = "".join(
        f"<span style='left:{100 * _log_pos(10.0**e, 1.0, hi):.2f}%'>{human_bytes(10.0**e)}</span>"
        for e in range(0, int(math.log10(hi)) + 1, 3)
    )
    key = f"<span style='background:{NEUTRAL}'></span>rows now ({rs.n_rows:,})"
    if rs.open_rows:
        key += (
            f"<span style='background:{OKABE_ITO[1]};opacity:.6'></span>after "
            f"{s.retention_months:g} months (rows that never close)"
        )
    bad = rs.projected_max_bytes > s.row_advisory_bytes
    cells = int(rs.cells.max()) if rs.n_rows else 0
    note = (EMULATOR_NOTES["rowsizes"] + " " if emulator_note else "") + (
        f"Largest row: {rs.largest_row} ({human_bytes(rs.max_bytes)}, {cells:,} cells)."
    )
    return _box(
        f"<div class='wb-b-title' style='color:{BAD if bad else 'black'}' data-metric="
        f"'max_row_bytes'>{html.escape(rs.verdict())}</div>"
        f"<div class='wb-b-key'>{key}</div>"
        f"<div style='display:flex;gap:6px'><div style='writing-mode:vertical-rl;transform:"
        f"rotate(180deg);text-align:center;font-size:11px'>rows{' (log scale)' if log_y else ''}"
        f"</div><div><div class='wb-b-plot' style='width:{PLOT_W}px;height:{PLOT_H}px'>"
        + "".join(bars)
        + "".join(lines)
        + f"</div><div class='wb-b-x' style='width:{PLOT_W}px'>{ticks}</div>"
        "<div style='font-size:11px'>bytes per row, log scale (key + family + qualifier + "
        "timestamp + value, per cell)</div></div></div>"
        f"<div class='wb-b-note'>{html.escape(note)}</div>"
    )


# ----------------------------------------------------------------------------- query costs


def _waste_class(w: float) -> str:
    # the thresholds of the headline and the matplotlib figure: > 10× red, ≤ 1.5× green
    return "bad" if w > 10 else ("good" if w <= 1.5 else "")


def querycosts_html(qc: Any, *, emulator_note: bool = True) -> str:
    """Rows seen (light bar) against rows returned (dark bar) per query on one log scale, with the
    waste and the modelled node time: the numbers of ``qc.table`` (G04, G05, G08)."""
    t = qc.table
    planned = t[t["kind"] != "cannot plan"] if len(t) else t
    if not len(planned):
        return _box("<div class='wb-b-title'>No query could be planned</div>")
    hi = max(float(planned["rows_seen"].max()), 1.0) * 1.2
    worst, most = planned["waste"].idxmax(), float(planned["waste"].max())
    if most > 1.5:
        title = f"{worst} reads {ratio(most).rstrip('×')} rows for every row it needs"
    else:
        title = "Every query reads about what it returns"
    rows = []
    for q, r in t.iterrows():
        name = html.escape(str(q))
        if r["kind"] == "cannot plan":
            rows.append(
                f"<tr><td><b>{name}</b></td><td colspan=3 class='bad'>cannot plan: "
                f"{html.escape(str(r.get('error', '')))}</td></tr>"
            )
            continue
        seen, ret, w = float(r["rows_seen"]), float(r["rows_returned"]), float(r["waste"])
        scans = int(r["scans"])
        plan = html.escape(str(r["kind"])) + (f", {scans:,} scans" if scans > 1 else "")
        ws, wr = (100 * _log_pos(max(v, 0.8), 0.7, hi) for v in (seen, ret))
        bar = (
            f"<div style='position:relative;width:300px;height:22px;background:#f6f6f6'>"
            f"<div title='{seen:,.0f} rows seen' style='position:absolute;left:0;top:0;height:22px;"
            f"width:{ws:.2f}%;background:{MUTED};opacity:.55'></div>"
            f"<div title='{ret:,.0f} rows returned' style='position:absolute;left:0;top:6px;"
            f"height:10px;width:{wr:.2f}%;background:{NEUTRAL}'></div></div>"
        )
        rows.append(
            f"<tr data-query='{name}'><td><b>{name}</b><br><small>{plan}</small></td>"
            f"<td>{bar}</td><td>{seen:,.0f} seen<br>{ret:,.0f} returned</td>"
            f"<td class='{_waste_class(w)}'><b>{ratio(w)} waste</b><br>"
            f"{float(r['node_ms']):,.3f} node-ms per run</td></tr>"
        )
    key = (
        f"<span style='background:{MUTED};opacity:.55'></span>rows seen"
        f"<span style='background:{NEUTRAL}'></span>rows returned (bars on one log scale)"
    )
    note = EMULATOR_NOTES["querycost"] if emulator_note and "measured_ms" in t.columns else ""
    return _box(
        f"<div class='wb-b-title' style='color:"
        f"{BAD if most > 10 else 'black'}'>{html.escape(title)}</div>"
        f"<div class='wb-b-key'>{key}</div><table>{''.join(rows)}</table>"
        + (f"<div class='wb-b-note'>{html.escape(note)}</div>" if note else "")
    )


# ----------------------------------------------------------------------------- node load over time


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
    kd: Any,
    lines: list[tuple[np.ndarray, str, str, str]],
    title: str,
    colour: str,
    fill: tuple[np.ndarray, str] | None = None,
    warmup: int = 0,
) -> str:
    """Shares of each window's load over event time as SVG step lines, the fair share dashed."""
    from .heatmap import _date_ticks

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
        for f, t in _date_ticks(np.asarray(kd.window_edges_us))
    )
    return _box(
        f"<div class='wb-b-title' style='color:{colour}'>{html.escape(title)}</div>"
        f"<div class='wb-b-key'>{key}</div><div style='padding-left:36px'>{''.join(svg)}"
        f"<div class='wb-b-x' style='width:{w}px'>{ticks}</div>"
        "<div style='font-size:11px'>event time; share of each window's load (reads + writes "
        "as node CPU)</div></div>"
    )


def node_load_html(kd: Any) -> str:
    """Each node's share of each window's load (the busiest 8 nodes) against the fair share."""
    from ..plots.keyspace import node_load_title, node_shares

    shares = node_shares(kd)
    show = np.argsort(-np.nan_to_num(shares).sum(axis=0))[: min(kd.nodes, 8)]
    lines = [
        (shares[:, i], OKABE_ITO[rank % len(OKABE_ITO)], "", f"node {i + 1}")
        for rank, i in enumerate(sorted(show))
    ]
    title, colour = node_load_title(kd)
    return _share_chart(kd, lines, title, colour)


def hotspot_html(kd: Any) -> str:
    """The busiest node's and busiest tablet's share of each window's load against 1/N."""
    from ..plots.keyspace import hotspot_title

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


# ----------------------------------------------------------------------------- comparison


def _cmp_fmt(col: str, v: float) -> str:
    if not np.isfinite(v):
        return "n/a"
    if "bytes" in col:
        return human_bytes(v)
    if col == "hotspot_factor":
        return f"{v:.1f}×"
    return f"{v:,.3g}"


def comparison_html(cmp: Any) -> str:
    """Every criterion of a :class:`~workbench.analysis.Comparison` as a small bar chart (lower is
    better; best green, worst vermillion) with its ranking and reason: the rows of ``cmp.table``
    and ``cmp.rankings``, nothing recomputed."""
    names = cmp.table.index.tolist()
    panels = []
    for col, label in cmp.criteria:
        v = cmp.table[col].astype(float).to_numpy()
        r = cmp.rankings.loc[label] if label in cmp.rankings.index else None
        top = float(np.nanmax(v)) if np.isfinite(v).any() else 1.0
        bars = []
        for nm, x in zip(names, v, strict=True):
            colour = (
                GOOD
                if r is not None and nm == r["best"]
                else BAD
                if r is not None and nm == r["worst"]
                else MUTED
            )
            width = 100 * x / top if np.isfinite(x) and top > 0 else 0.0
            bars.append(
                f"<tr><td>{html.escape(nm)}</td><td style='width:45%'><div style='height:14px;"
                f"width:{max(width, 0.5):.1f}%;background:{colour}'></div></td>"
                f"<td style='white-space:nowrap'>{_cmp_fmt(col, x)}</td></tr>"
            )
        reason = f"<br><small>{html.escape(str(r['reason']))}</small>" if r is not None else ""
        panels.append(
            f"<div style='min-width:0'><b>{html.escape(label)}</b>{reason}"
            f"<table style='width:100%'>{''.join(bars)}</table></div>"
        )
    wins = cmp.rankings["best"].replace("", np.nan).dropna().value_counts()
    head = (
        f"{wins.index[0]} is best on {wins.iloc[0]} of {len(cmp.rankings)} criteria"
        if len(wins)
        else "The designs tie on every criterion"
    )
    return _box(
        f"<div class='wb-b-title'>{len(names)} designs for {html.escape(cmp.dataset)}: "
        f"{html.escape(head)}</div><small>lower is better in every panel; green best, "
        "vermillion worst</small><div style='display:grid;grid-template-columns:repeat(auto-fill,"
        "minmax(260px,1fr));gap:10px 18px;margin-top:6px'>"
        + "".join(panels)
        + f"</div><div class='wb-b-note'>{html.escape(EMULATOR_NOTES['keyspace'])} "
        f"{html.escape(EMULATOR_NOTES['querycost'])}</div>"
    )


__all__ = [
    "rowsizes_html",
    "querycosts_html",
    "node_load_html",
    "hotspot_html",
    "comparison_html",
    "PLOT_W",
    "PLOT_H",
]
