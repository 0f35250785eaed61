"""Row sizes against Cloud Bigtable's limits (G02, G10, G12): :func:`plot_row_sizes` (matplotlib)
and :func:`row_sizes_html` (the designer's HTML bars, the same histogram in milliseconds)."""

from __future__ import annotations

import html
import math
from typing import TYPE_CHECKING

import numpy as np

from ..notes import EMULATOR_NOTES
from ..units import human_bytes
from .html_parts import PLOT_H, PLOT_W, figure_box, log_pos
from .style import BAD, NEUTRAL, OKABE_ITO, legend_outside, new_axes, note, styled

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..analysis import RowSizes


LIMIT_LABELS = ("100 MB guideline", "256 MB hard limit")  # the two lines' names in the legend


@styled
def plot_row_sizes(rs: RowSizes, ax: Axes | None = None, *, emulator_note: bool = True) -> Axes:
    """Histogram of bytes per row (log scale) with the 100 MB guideline and the 256 MB hard limit."""
    ax = new_axes(ax, height=3.8)
    b = np.maximum(rs.bytes.astype(float), 1.0)
    s = rs.settings
    hi = max(float(rs.projected_max_bytes), s.row_hard_bytes * 1.6)
    bins = np.logspace(0, np.log10(hi), 80).tolist()
    ax.hist(b, bins=bins, color=NEUTRAL, alpha=0.85, label=f"rows now ({rs.n_rows:,})")
    later = projected_label(rs)
    if later is not None:
        ax.hist(
            np.maximum(rs.projected_bytes.astype(float), 1.0),
            bins=bins,
            color=OKABE_ITO[1],
            alpha=0.6,
            label=later,
        )
    ax.set_xscale("log")
    split = (
        bars_title(
            rs, np.histogram(np.maximum(rs.projected_bytes.astype(float), 1.0), bins=bins)[0]
        )
        if later is not None
        else ""
    )
    counts = np.histogram(b, bins=bins)[0]
    if counts.max() > 50 * max(counts[counts > 0].min(), 1):
        ax.set_yscale("log")
    # the lines are named in the legend (outside the plot): a label inside sat on the bars
    for x, lab, ls in (
        (s.row_advisory_bytes, LIMIT_LABELS[0], "--"),
        (s.row_hard_bytes, LIMIT_LABELS[1], "-"),
    ):
        ax.axvline(x, color=BAD, ls=ls, lw=1.4, label=lab)
    ax.xaxis.set_major_formatter(lambda v, _: human_bytes(v))
    ax.set_xlabel("bytes per row (key + family + qualifier + timestamp + value, per cell)")
    ax.set_ylabel("rows")
    legend_outside(ax, fontsize=9)
    ax.set_title(
        rs.verdict() + (f"\n({split})" if split else ""),
        color=BAD if rs.projected_max_bytes > s.row_advisory_bytes else "black",
    )
    note(
        ax,
        (EMULATOR_NOTES["rowsizes"] + " " if emulator_note else "")
        + f"Largest row: {rs.largest_row} ({human_bytes(rs.max_bytes)}, "
        f"{int(rs.cells.max()) if rs.n_rows else 0:,} cells).",
    )
    return ax


def projected_label(rs: RowSizes) -> str | None:
    """What the projected rows are called in the legend (None: no row grows, nothing to draw):
    the verdict's "largest … when full" or "after 12 months" has its own bars."""
    if rs.open_rows:
        return f"after {rs.retention_months:g} months (rows that never close)"
    if rs.growing_rows:
        return f"when full (rows close when {rs.horizon_text})"
    return None


def bars_title(rs: RowSizes, later: np.ndarray) -> str:
    """The title's second half when the projected rows fall into several bars: "62 rows never
    close" over two bars of 31 read as a contradiction, so the title says how they split."""
    parts = [int(c) for c in later if c > 0]
    if not rs.open_rows or len(parts) < 2:
        return ""
    split = " + ".join(f"{c:,}" for c in parts) if len(parts) <= 4 else f"{len(parts)} bars"
    return (
        f"after {rs.retention_months:g} months they fall in bars of {split} rows: "
        "not all the same size"
    )


def count_ticks(top: int, log_y: bool) -> list[int]:
    """The row-count axis's labelled values: powers of ten up to ``top`` on a log axis; on a
    linear one 0 and multiples of a 1-2-5 step, at most five labels."""
    if log_y:
        return [10**e for e in range(int(math.log10(max(top, 1))) + 1)]
    step = next(
        m * 10**e for e in range(len(str(max(top, 1)))) for m in (1, 2, 5) if top / (m * 10**e) <= 4
    )
    return list(range(0, top + 1, step))


def row_sizes_html(rs: RowSizes, *, emulator_note: bool = True) -> str:
    """:func:`plot_row_sizes` as HTML: the histogram of bytes per row (log bins) against the 100 MB guideline and 256 MB limit,
    with the projection after the retention period for rows that never close (G02, G10, G12)."""
    s = rs.settings
    b = np.maximum(np.asarray(rs.bytes, dtype=float), 1.0)
    hi = max(float(rs.projected_max_bytes), s.row_hard_bytes * 1.6)
    edges = np.logspace(0, math.log10(hi), 81)
    now = np.histogram(b, bins=edges)[0]
    later_label = projected_label(rs)
    later = (
        np.histogram(np.maximum(np.asarray(rs.projected_bytes, dtype=float), 1.0), bins=edges)[0]
        if later_label is not None
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
            (int(n_later), OKABE_ITO[1], 0.6, later_label),
        ):
            if n:
                bars.append(
                    f"<div title='{n:,} rows of {lo_b}–{hi_b} ({what})' style='left:{i * bar_w:.3f}%;"
                    f"width:{bar_w:.3f}%;height:{height(n):.2f}%;background:{colour};opacity:{alpha}'>"
                    "</div>"
                )
    lines, line_keys = [], ""
    # the lines are named in the key above the plot, not inside it where a label sat on the bars
    for x, lab, style in (
        (s.row_advisory_bytes, LIMIT_LABELS[0], "dashed"),
        (s.row_hard_bytes, LIMIT_LABELS[1], "solid"),
    ):
        f = 100 * log_pos(x, 1.0, hi)
        lines.append(f"<div style='left:{f:.2f}%;top:0;border-left:2px {style} {BAD}'></div>")
        line_keys += (
            f"<span style='background:none;border-top:2px {style} {BAD};height:0'></span>{lab}"
        )
    ticks = "".join(
        f"<span style='left:{100 * log_pos(10.0**e, 1.0, hi):.2f}%'>{human_bytes(10.0**e)}</span>"
        for e in range(0, int(math.log10(hi)) + 1, 3)
    )
    key = f"<span style='background:{NEUTRAL}'></span>rows now ({rs.n_rows:,})"
    if later_label is not None:
        key += (
            f"<span style='background:{OKABE_ITO[1]};opacity:.6'></span>{html.escape(later_label)}"
        )
    key += line_keys
    # the row-count axis: labels at their bars' heights, right-aligned against the plot
    y_ticks = "".join(
        f"<span data-y-tick style='position:absolute;right:3px;bottom:{height(v):.2f}%;"
        f"transform:translateY(50%)'>{v:,}</span>"
        for v in count_ticks(top, log_y)
    )
    bad = rs.projected_max_bytes > s.row_advisory_bytes
    split = bars_title(rs, later) if later_label is not None else ""
    cells = int(rs.cells.max()) if rs.n_rows else 0
    note = (EMULATOR_NOTES["rowsizes"] + " " if emulator_note else "") + (
        f"Largest row: {rs.largest_row} ({human_bytes(rs.max_bytes)}, {cells:,} cells)."
    )
    return figure_box(
        f"<div class='wb-b-title' style='color:{BAD if bad else 'black'}' data-metric="
        f"'max_row_bytes'>{html.escape(rs.verdict())}"
        + (f"<br><span style='font-weight:normal'>({html.escape(split)})</span>" if split else "")
        + "</div>"
        f"<div class='wb-b-key'>{key}</div>"
        f"<div style='display:flex;gap:6px'><div style='writing-mode:vertical-rl;transform:"
        f"rotate(180deg);text-align:center;font-size:11px'>rows{' (log scale)' if log_y else ''}"
        f"</div><div style='position:relative;width:44px;height:{PLOT_H}px;font-size:11px'>"
        f"{y_ticks}</div><div><div class='wb-b-plot' style='width:{PLOT_W}px;height:{PLOT_H}px'>"
        + "".join(bars)
        + "".join(lines)
        + f"</div><div class='wb-b-x' style='width:{PLOT_W}px'>{ticks}</div>"
        "<div style='font-size:11px'>bytes per row, log scale (key + family + qualifier + "
        "timestamp + value, per cell)</div></div></div>"
        f"<div class='wb-b-note'>{html.escape(note)}</div>"
    )
