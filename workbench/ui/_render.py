"""What the designer shows for one design, as plain functions: PNG figures and HTML panels.

Figures are drawn on a bare ``matplotlib.figure.Figure`` (no pyplot: nothing for
the inline backend to show twice, nothing to close) at a modest size that fits the
designer's right-hand pane at 1280 px, with the plot functions of
:mod:`workbench.plots`. Panels are small HTML strings built from the analysis.
"""

from __future__ import annotations

import html
import io
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import matplotlib

from ..analysis import Analysis
from ..display import workload_line
from ..errors import error_parts
from ..formatting import ratio
from ..plots.style import BAD, GOOD, style
from ..units import human_bytes

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset
    from ..schema.schema import Schema

# picture → (tab title, plot function path, analysis attribute, size in inches)
FIGURES: dict[str, tuple[str, str, str, tuple[float, float]]] = {
    "heatmap": ("Key heat map", "heatmap:plot_key_heatmap", "keyspace", (11.0, 4.6)),
    "nodes": ("Node load", "keyspace:plot_node_load", "keyspace", (11.0, 3.4)),
    "hotspot": ("Hotspot", "keyspace:plot_hotspot", "keyspace", (11.0, 3.4)),
    "rowsizes": ("Row sizes", "sizes:plot_row_sizes", "rowsizes", (11.0, 3.8)),
    "queries": ("Query costs", "queries:plot_query_costs", "queries", (11.0, 3.8)),
}
DPI = 72  # 11 in (the plots' design width) × 72 dpi ≈ 790 px: fits the figure pane at 1280 px


def _plot_fn(path: str) -> Callable[..., Any]:
    import importlib

    mod, name = path.split(":")
    return getattr(importlib.import_module(f"workbench.plots.{mod}"), name)


def figure_png(a: Analysis, which: str, *, dpi: int = DPI, what: str = "writes") -> bytes:
    """One picture of an analysis as PNG bytes (``what``: writes or reads, for the heat map)."""
    if which not in FIGURES:
        raise ValueError(f"Unknown figure {which!r}; choose one of {', '.join(FIGURES)}.")
    from matplotlib.figure import Figure

    _, path, attr, (w, h) = FIGURES[which]
    fn = _plot_fn(path)
    if which == "queries":
        n = int((a.queries.table["kind"] != "cannot plan").sum()) if len(a.queries.table) else 0
        h = max(h, 0.62 * n + 1.8)
    with style():
        fig = Figure(figsize=(w, h), dpi=dpi, layout="constrained")
        ax = fig.add_subplot()
        kwargs = {"what": what} if which == "heatmap" else {}
        fn(getattr(a, attr), ax=ax, **kwargs)
        _drop_minor_log_ticks(fig)
        buf = io.BytesIO()
        # the figure has its exact size already: no "tight" bbox, which costs a whole extra draw
        with matplotlib.rc_context({"savefig.bbox": "standard"}):
            fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def _drop_minor_log_ticks(fig: Any) -> None:
    """No minor ticks on log axes spanning a decade or more: at 72 dpi they are a faint comb,
    and measuring them is a third of the figure's draw (the designer redraws on every change)."""
    from matplotlib.ticker import NullLocator

    for ax in fig.axes:
        for axis, lim in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            lo, hi = sorted(lim)
            if axis.get_scale() == "log" and lo > 0 and hi / lo >= 10:
                axis.set_minor_locator(NullLocator())


def render_figures(
    ds: Dataset, schema: Schema, *, which: tuple[str, ...] | None = None, nodes: int | None = None
) -> dict[str, bytes]:
    """Analyse ``schema`` on ``ds`` and draw the designer's pictures (no widgets, no cache)."""
    from ..analysis import analyze

    a = analyze(ds, schema, nodes=nodes)
    return {w: figure_png(a, w) for w in (which or tuple(FIGURES))}


# ----------------------------------------------------------------------------- panels

_CSS = (
    "<style>.wb-d{line-height:1.35;font-size:13px}.wb-d table{border-collapse:collapse;font-size:13px}"
    ".wb-d td,.wb-d th{padding:2px 8px;text-align:left;border-bottom:1px solid #eee;vertical-align:top}"
    ".wb-d code{font-size:12.5px;overflow-wrap:anywhere}.wb-d .bad{color:"
    + BAD
    + "}.wb-d .good{color:"
    + GOOD
    + "}"
    ".wb-d h4{margin:6px 0 4px 0}</style>"
)


def panel_box(body: str) -> str:
    return f"{_CSS}<div class='wb-d'>{body}</div>"


def headline_html(a: Analysis) -> str:
    """The figures that change as you move a control: hotspot, storage, rows, queries."""
    kd, rs, cap = a.keyspace, a.rowsizes, a.capacity
    # red when the verdict is a hotspot at the model's rate, even with the load spread out
    hot = "bad" if kd.hotspot else {"hotspot": "bad", "even": "good", "uneven": ""}[kd.spread]
    row = "bad" if rs.projected_max_bytes > rs.settings.row_advisory_bytes else ""
    parts = [
        f"<b>{html.escape(a.schema)}</b> on {html.escape(a.dataset)}: "
        f"{a.index.n_cells:,} cells in {a.index.n_rows:,} rows",
        "<table>",
        (
            f"<tr><th>hotspot</th><td class='{hot}' data-metric='busiest_node_share'>busiest node "
            f"takes <b>{kd.mean_share:.0%}</b> of the load ({kd.factor_text} its fair "
            f"share of {kd.fair_share:.0%}, {kd.nodes} nodes)</td></tr>"
            if kd.nodes > 1
            else f"<tr><th>hotspot</th><td class='{hot}' data-metric='busiest_node_share'>one "
            f"node; its busiest tablet takes <b>{kd.mean_tablet_share:.0%}</b> of the load</td></tr>"
        ),
        (
            f"<tr><th>ceiling</th><td class='{'bad' if kd.hotspot else ''}' "
            f"data-metric='ceiling'>{_ceiling_html(kd.ceiling)}</td></tr>"
            if kd.ceiling is not None
            else ""
        ),
        f"<tr><th>storage</th><td data-metric='bytes_per_event'>{html.escape(cap.verdict())}</td></tr>",
        f"<tr><th>rows</th><td class='{row}' data-metric='max_row_bytes'>{html.escape(rs.verdict())}</td></tr>",
        "</table>",
    ]
    parts.append(workload_line(cap))  # which inputs are the user's, which are defaults
    t = a.queries.table
    if len(t):
        parts.append(
            "<table><tr><th>query</th><th>plan</th><th>scans</th><th>rows seen</th>"
            "<th>returned</th><th title='rows seen per row the query keeps (a latest-N query "
            "keeps N)'>waste</th></tr>"
        )
        for q, r in t.iterrows():
            if r["kind"] == "cannot plan":
                parts.append(
                    f"<tr><td>{html.escape(str(q))}</td><td class='bad' colspan=5>cannot plan: "
                    f"{html.escape(str(r.get('error', '')))}</td></tr>"
                )
                continue
            waste = float(r["waste"])
            cls = "bad" if waste > 10 else ("good" if waste <= 1.5 else "")
            parts.append(
                f"<tr data-query='{html.escape(str(q))}'><td>{html.escape(str(q))}</td>"
                f"<td>{html.escape(str(r['kind']))}</td><td data-metric='scans'>{int(r['scans'])}</td>"
                f"<td>{int(r['rows_seen']):,}{_emulator_seen(r)}</td>"
                f"<td>{_returned(r)}</td>"
                f"<td class='{cls}'>{ratio(waste)}</td></tr>"
            )
        parts.append("</table>")
    return panel_box("".join(parts))


KEY_SHOWN = 48  # characters of a row key the headline prints (the whole key in its tooltip)


def middle_cut(text: str, keep: int = KEY_SHOWN) -> str:
    """``text`` shortened to ``keep`` characters by an ellipsis in the middle (a row key's start
    and end both tell rows apart: "system,cpu-type=idle,…,batch-0001-8jxvz")."""
    if len(text) <= keep:
        return text
    head = (keep - 1) // 2 + (keep - 1) % 2
    return f"{text[:head]}…{text[len(text) - (keep - 1 - head) :]}"


def _ceiling_html(ceiling: Any) -> str:
    """The ceiling's sentence with its unit's row key cut in the middle; the full key is the
    cut key's tooltip (server_metrics' busiest frontier is a 130-character key)."""
    text, name = ceiling.text(), ceiling.unit_name
    cut = middle_cut(name)
    if cut == name or name not in text:
        return html.escape(text)
    before, after = text.split(name, 1)
    return (
        f"{html.escape(before)}<code title='{html.escape(name, quote=True)}' data-full-key>"
        f"{html.escape(cut)}</code>{html.escape(after)}"
    )


def _returned(r: Any) -> str:
    """Rows returned, and the rows the query keeps where the client drops some (a latest-N read
    forward): the waste beside it is rows seen ÷ rows kept, and the cell says so."""
    ret, kept = int(r["rows_returned"]), int(r.get("rows_kept", r["rows_returned"]))
    if kept == ret:
        return f"{ret:,}"
    return f"{ret:,} <small data-metric='rows_kept'>(keeps {kept:,})</small>"


def _emulator_seen(r: Any) -> str:
    """The emulator's own figure next to Cloud Bigtable's, where they differ (no reverse scans)."""
    emu = int(r.get("emulator_rows_seen", r["rows_seen"]))
    if emu == int(r["rows_seen"]):
        return ""
    note = html.escape(str(r.get("emulator_note", "")), quote=True)
    return f" <small title='{note}' data-metric='emulator_rows_seen'>(emulator: {emu:,})</small>"


def design_html(ds: Dataset, schema: Schema) -> str:
    """The design in words: description, key template, an example key, layout, families + GC."""
    try:
        example = schema.example_key(ds)
    except Exception as exc:  # noqa: BLE001 - shown, not hidden
        example = f"(no example: {exc})"
    rows = [
        ("row key", f"<code>{html.escape(schema.key.template())}</code>"),
        ("example key", f"<code data-example-key>{html.escape(example)}</code>"),
        ("layout", html.escape(f"{schema.layout.describe()} [{schema.layout.guideline}]")),
    ]
    for tname, fams in schema.table_families().items():
        rows.append((f"table {html.escape(tname)}", "<br>".join(html.escape(str(f)) for f in fams)))
    for t in schema.tables:
        rows.append(
            (f"table {html.escape(t.name)} key", f"<code>{html.escape(t.key.template())}</code>")
        )
    if schema.guidelines:
        rows.append(("guidelines", html.escape(", ".join(schema.guidelines))))
    desc = f"<i>{html.escape(schema.description)}</i>" if schema.description else ""
    body = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return panel_box(f"{desc}<table>{body}</table>")


def error_html(exc: BaseException) -> str:
    """A workbench error as one red sentence (naming the column, row or limit, and what to do);
    the evidence (e.g. every colliding row) folds under "details"."""
    head, detail = error_parts(exc)
    more = (
        "<details><summary>details</summary><pre style='white-space:pre-wrap;font-size:11px'>"
        f"{html.escape(detail)}</pre></details>"
        if detail
        else ""
    )
    return panel_box(
        f"<p class='bad' data-error><b>{html.escape(type(exc).__name__)}:</b> "
        f"{html.escape(head)}</p>{more}"
    )


def note_html(text: str, cls: str = "") -> str:
    return panel_box(f"<p class='{cls}'>{html.escape(text)}</p>")


def png_bundle(png: bytes, alt: str) -> dict[str, Any]:
    """An Output-widget display_data entry holding a PNG (what nbclient saves and reports draw)."""
    import base64

    return {
        "output_type": "display_data",
        "metadata": {},
        "data": {
            "image/png": base64.b64encode(png).decode("ascii"),
            "text/plain": f"<Figure: {alt}>",
        },
    }


def html_bundle(text: str, plain: str = "") -> dict[str, Any]:
    return {
        "output_type": "display_data",
        "metadata": {},
        "data": {"text/html": text, "text/plain": plain or "(html)"},
    }


__all__ = [
    "FIGURES",
    "figure_png",
    "render_figures",
    "headline_html",
    "design_html",
    "error_html",
    "png_bundle",
    "html_bundle",
    "human_bytes",
]
