"""Query costs: rows seen against rows returned for every query, with the waste (G04, G05, G08)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..notes import EMULATOR_NOTES
from .style import BAD, GOOD, MUTED, NEUTRAL, new_axes, note, styled

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..analysis import QueryCosts


@styled
def plot_query_costs(qc: QueryCosts, ax: Axes | None = None, *, emulator_note: bool = True) -> Axes:
    """Horizontal bars per query: rows seen (light) and returned (dark), log scale; the label says the waste."""
    t = qc.table[qc.table["kind"] != "cannot plan"] if len(qc.table) else qc.table
    ax = new_axes(ax, height=max(2.2, 0.62 * len(t) + 1.4))
    if not len(t):
        ax.set_title("No query could be planned")
        return ax
    y = np.arange(len(t))
    seen = np.maximum(t["rows_seen"].to_numpy(float), 0.8)
    ret = np.maximum(t["rows_returned"].to_numpy(float), 0.8)
    ax.barh(y, seen, height=0.7, color=MUTED, alpha=0.55, label="rows seen")
    ax.barh(y, ret, height=0.4, color=NEUTRAL, label="rows returned")
    ax.set_xscale("log")
    ax.set_yticks(y)
    ax.set_yticklabels(
        [
            f"{q}\n{k}" + (f", {s} scans" if s > 1 else "")
            for q, k, s in zip(t.index, t["kind"], t["scans"], strict=True)
        ],
        fontsize=9.5,
    )
    ax.invert_yaxis()
    for yi, (s, w, ms) in enumerate(zip(seen, t["waste"], t["node_ms"], strict=True)):
        ax.text(
            s * 1.15,
            yi,
            f"{w:,.0f}× waste" if w >= 100 else f"{w:,.1f}× waste",
            va="bottom",
            fontsize=9.5,
            color=BAD if w > 10 else ("black" if w > 1.5 else GOOD),
        )
        ax.text(
            s * 1.15,
            yi,
            f"{ms:,.3f} node-ms per run",
            va="top",
            fontsize=9,
            color=BAD if w > 10 else ("black" if w > 1.5 else GOOD),
        )
    ax.set_xlim(0.7, seen.max() * 60)
    ax.set_xlabel("rows (log scale)")
    worst, most = t["waste"].idxmax(), float(t["waste"].max())
    if most > 1.5:  # the same thresholds as the bar labels: > 10× red, > 1.5× worth naming
        ax.set_title(
            f"{worst} reads {most:,.0f} rows for every row it needs"
            if most >= 100
            else f"{worst} reads {most:,.1f} rows for every row it needs",
            color=BAD if most > 10 else "black",
        )
    else:
        ax.set_title("Every query reads about what it returns")
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=2)
    if "measured_ms" in t.columns and emulator_note:
        note(ax, EMULATOR_NOTES["querycost"])
    return ax
