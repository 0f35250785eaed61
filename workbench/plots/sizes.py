"""Row sizes against Cloud Bigtable's limits, and row size against bucket width (G02, G10, G12)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..notes import EMULATOR_NOTES
from ..units import human_bytes
from .style import BAD, MUTED, NEUTRAL, OKABE_ITO, new_axes, note, styled

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..analysis import RowSizes


@styled
def plot_row_sizes(rs: RowSizes, ax: Axes | None = None, *, emulator_note: bool = True) -> Axes:
    """Histogram of bytes per row (log scale) with the 100 MB guideline and the 256 MB hard limit."""
    ax = new_axes(ax, height=3.8)
    b = np.maximum(rs.bytes.astype(float), 1.0)
    s = rs.settings
    hi = max(float(rs.projected_max_bytes), s.row_hard_bytes * 1.6)
    bins = np.logspace(0, np.log10(hi), 80).tolist()
    ax.hist(b, bins=bins, color=NEUTRAL, alpha=0.85, label=f"rows now ({rs.n_rows:,})")
    if rs.open_rows:
        ax.hist(
            np.maximum(rs.projected_bytes.astype(float), 1.0),
            bins=bins,
            color=OKABE_ITO[1],
            alpha=0.6,
            label=f"after {s.retention_months:g} months (rows that never close)",
        )
    ax.set_xscale("log")
    counts = np.histogram(b, bins=bins)[0]
    if counts.max() > 50 * max(counts[counts > 0].min(), 1):
        ax.set_yscale("log")
    for x, lab, ls, y, ha in (
        (s.row_advisory_bytes, "100 MB guideline ", "--", 0.97, "right"),
        (s.row_hard_bytes, " 256 MB hard limit", "-", 0.80, "left"),
    ):
        ax.axvline(x, color=BAD, ls=ls, lw=1.4)
        ax.text(
            x, y, lab, transform=ax.get_xaxis_transform(), color=BAD, va="top", ha=ha, fontsize=9.5
        )
    ax.xaxis.set_major_formatter(lambda v, _: human_bytes(v))
    ax.set_xlabel("bytes per row (key + family + qualifier + timestamp + value, per cell)")
    ax.set_ylabel("rows")
    ax.legend(loc="upper left")
    ax.set_title(
        rs.verdict(), color=BAD if rs.projected_max_bytes > s.row_advisory_bytes else "black"
    )
    note(
        ax,
        (EMULATOR_NOTES["rowsizes"] + " " if emulator_note else "")
        + f"Largest row: {rs.largest_row} ({human_bytes(rs.max_bytes)}, "
        f"{int(rs.cells.max()) if rs.n_rows else 0:,} cells).",
    )
    return ax


@styled
def plot_bucket_growth(sweep, ax: Axes | None = None) -> Axes:
    """Row size against time-bucket width: a straight line (rows grow with the bucket, G02/G12)."""
    ax = new_axes(ax, width=7.0, height=4.0)
    x = sweep["width_s"].to_numpy() / 86400
    for col, lab, c in (
        ("max_row_bytes", "largest row", OKABE_ITO[3]),
        ("median_row_bytes", "median row", NEUTRAL),
    ):
        y = sweep[col].to_numpy()
        ax.plot(x, y, "o-", color=c, label=lab)
    ax.set_xlabel("bucket width (days)")
    ax.set_ylabel("bytes per row")
    ax.yaxis.set_major_formatter(lambda v, _: human_bytes(v))
    ax.set_ylim(0, None)
    ax.set_xlim(0, None)
    y = sweep["median_row_bytes"].to_numpy()
    per_day = np.polyfit(x, y, 1)[0] if len(x) > 1 else float("nan")
    ax.set_title(f"Rows grow linearly with the bucket: ≈ {human_bytes(per_day)} per day of width")
    ax.legend()
    ax.grid(axis="y", color=MUTED, alpha=0.3)
    return ax
