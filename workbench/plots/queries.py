"""Query costs (G04, G05, G08): rows seen against rows returned for every query, with the waste:
:func:`plot_query_costs` (matplotlib) and :func:`query_costs_html` (the designer's HTML bars)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

import numpy as np

from ..formatting import ratio
from ..notes import EMULATOR_NOTES
from .html_parts import breakable, figure_box, log_pos
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
    kept = t["rows_kept"] if "rows_kept" in t.columns else t["rows_returned"]
    for yi, (s, w, ms, r, k) in enumerate(
        zip(seen, t["waste"], t["node_ms"], t["rows_returned"], kept, strict=True)
    ):
        ax.text(
            s * 1.15,
            yi,
            (f"{w:,.0f}× waste" if w >= 100 else f"{w:,.1f}× waste")
            + (f" (client keeps {k:,.0f} of {r:,.0f})" if k != r else ""),
            va="bottom",
            fontsize=9.5,
            color=BAD if w > 10 else ("black" if w > 1.5 else GOOD),
        )
        ax.text(
            s * 1.15,
            yi,
            f"{ms:,.3f} node-ms per run on the sample",
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


def _waste_class(w: float) -> str:
    # the thresholds of the headline and the matplotlib figure: > 10× red, ≤ 1.5× green
    return "bad" if w > 10 else ("good" if w <= 1.5 else "")


def query_costs_html(qc: QueryCosts, *, emulator_note: bool = True) -> str:
    """:func:`plot_query_costs` as HTML: rows seen (light bar) against rows returned (dark bar) per query on one log scale, with the
    waste and the modelled node time: the numbers of ``qc.table`` (G04, G05, G08)."""
    t = qc.table
    planned = t[t["kind"] != "cannot plan"] if len(t) else t
    if not len(planned):
        return figure_box("<div class='wb-b-title'>No query could be planned</div>")
    hi = max(float(planned["rows_seen"].max()), 1.0) * 1.2
    worst, most = planned["waste"].idxmax(), float(planned["waste"].max())
    if most > 1.5:
        title = f"{worst} reads {ratio(most).rstrip('×')} rows for every row it needs"
    else:
        title = "Every query reads about what it returns"
    rows = []
    for q, r in t.iterrows():
        name = html.escape(str(q))
        shown = breakable(q)  # a long name wraps after a "_", never mid-word
        if r["kind"] == "cannot plan":
            rows.append(
                f"<tr><td class='wb-b-name'><b>{shown}</b></td><td colspan=3 class='bad'>cannot plan: "
                f"{html.escape(str(r.get('error', '')))}</td></tr>"
            )
            continue
        seen, ret, w = float(r["rows_seen"]), float(r["rows_returned"]), float(r["waste"])
        kept = float(r.get("rows_kept", ret))  # waste is rows seen ÷ rows kept
        scans = int(r["scans"])
        plan = html.escape(str(r["kind"])) + (f", {scans:,} scans" if scans > 1 else "")
        ws, wr = (100 * log_pos(max(v, 0.8), 0.7, hi) for v in (seen, ret))
        bar = (
            f"<div style='position:relative;width:100%;min-width:120px;height:22px;background:#f6f6f6'>"
            f"<div title='{seen:,.0f} rows seen' style='position:absolute;left:0;top:0;height:22px;"
            f"width:{ws:.2f}%;background:{MUTED};opacity:.55'></div>"
            f"<div title='{ret:,.0f} rows returned' style='position:absolute;left:0;top:6px;"
            f"height:10px;width:{wr:.2f}%;background:{NEUTRAL}'></div></div>"
        )
        rows.append(
            f"<tr data-query='{name}'><td class='wb-b-name'><b>{shown}</b><br><small>{plan}</small></td>"
            f"<td style='width:35%'>{bar}</td><td class='wb-b-num'>{seen:,.0f} seen<br>{ret:,.0f} returned"
            + (f"<br>{kept:,.0f} kept" if kept != ret else "")
            + "</td>"
            f"<td class='wb-b-num {_waste_class(w)}'><b>{ratio(w)} waste</b><br>"
            f"{float(r['node_ms']):,.3f} node-ms per run<br><small>on the sample</small></td></tr>"
        )
    key = (
        f"<span style='background:{MUTED};opacity:.55'></span>rows seen"
        f"<span style='background:{NEUTRAL}'></span>rows returned (bars on one log scale)"
    )
    note = EMULATOR_NOTES["querycost"] if emulator_note and "measured_ms" in t.columns else ""
    return figure_box(
        f"<div class='wb-b-title' style='color:"
        f"{BAD if most > 10 else 'black'}'>{html.escape(title)}</div>"
        f"<div class='wb-b-key'>{key}</div><table style='width:100%'>{''.join(rows)}</table>"
        + (f"<div class='wb-b-note'>{html.escape(note)}</div>" if note else "")
    )
