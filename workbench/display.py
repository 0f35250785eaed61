"""Every analysis result as a notebook shows it: its numbers, its figures, what the emulator cannot show.

The display layer sits above the analyses and the figures: the results know nothing of drawing
(their ``_repr_html_`` is ``return html_of(self)``, :mod:`workbench.reprs`), the figures take a
result and draw it, and this module puts the two together, one function per result class.
``import workbench`` imports it, which registers every function below.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from .notes import EMULATOR_NOTES
from .reprs import shows
from .units import human_bytes

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .analysis.capacity import Capacity
    from .analysis.comparison import Comparison
    from .analysis.keyspace import KeyDistribution
    from .analysis.overview import Analysis
    from .analysis.querycost import QueryCosts
    from .analysis.rowsizes import RowSizes


def _spaced(frame: pd.DataFrame) -> pd.DataFrame:
    """A table's column names as headers that wrap between words ("rows_seen" → "rows seen")."""
    return frame.rename(columns=lambda c: c.replace("_", " "))


def _note(view: str) -> str:
    return f"<p><small>{html.escape(EMULATOR_NOTES[view])}</small></p>"


@shows("workbench.analysis.keyspace.KeyDistribution")
def key_distribution_html(kd: KeyDistribution) -> str:
    """The verdict, the diagnostics, the heat map, node load, hotspot, the node sweep, hot tablets."""
    from .formatting import counted, styled
    from .plots import figure_html
    from .plots.heatmap import key_heatmap_html
    from .plots.keyspace import plot_hotspot, plot_node_load, plot_node_sweep

    s = kd.summary()
    diag = "".join(
        f"<li><b>{html.escape(d['message'])}</b> ({d['severity']}): {html.escape(d['detail'])}</li>"
        for d in kd.diagnostics()
    )
    hot = kd.hot_tablets.head(5)
    return (
        f"<div><b>Key distribution</b> {html.escape(kd.schema_name)}: {html.escape(kd.verdict())}. "
        f"{counted(kd.n_tablets, 'tablet')} on {counted(kd.nodes, 'node')}; busiest key range "
        f"<code>{html.escape(str(s['busiest_range']))}</code>"
        + (
            f"<p><b>Ceiling</b>: {html.escape(kd.ceiling.text())}; "
            f"<small>{html.escape(kd.ceiling.assumption)}</small></p>"
            if kd.ceiling is not None
            else ""
        )
        # whose writes a shape sample's model replays: the files' keyed by DuckDB, or why not
        + (f"<p><small>{html.escape(kd.source_note)}</small></p>" if kd.source_note else "")
        + (f"<ul>{diag}</ul>" if diag else "")
        # the heat map as the designer draws it: its labels and scale follow the picture at any
        # page width (a PNG's 9-pt key labels shrank to ~6 px on a 1280-px notebook page)
        + key_heatmap_html(kd, emulator_note=False)
        + figure_html(plot_node_load, kd)
        + figure_html(plot_hotspot, kd)
        + figure_html(plot_node_sweep, kd)
        + (
            f"<p>{html.escape(hot_tablets_heading(kd))}</p>"
            + styled(hot).hide(axis="index").to_html()
            if len(hot)
            else ""
        )
        + _note("keyspace")
        + "</div>"
    )


# A tablet ListHotTablets would call hot uses at least this share of its node's CPU; below it
# the table lists the busiest tablets at a rate too low to make any of them hot.
HOT_TABLET_CPU = 0.01


def hot_tablets_heading(kd: KeyDistribution) -> str:
    """What the hot-tablets table shows: its CPU is at the model's write rate, so at a sample's
    own trickle the busiest tablets are named but none is hot (their share of the load is what
    the node-load figure shows)."""
    from .formatting import percent, rate

    busiest = float(kd.hot_tablets["node_cpu_usage_percent"].max()) / 100
    head = (
        f"Hot tablets (as ListHotTablets reports them), at {rate(kd.write_rate_per_s, 'writes')} "
        f"({kd.rate_source})"
    )
    if busiest >= HOT_TABLET_CPU:
        return f"{head}: the tablets using the most of their node's CPU."
    return (
        f"{head}: the busiest tablets, but at this rate none is hot (the busiest uses "
        f"{percent(busiest)} of its node). State a production rate (workload=wb.Workload(events_per_s=…)) to see "
        "them under load; the node-load figure shows their share of the load."
    )


def limit_text(n: float) -> str:
    """A limit as Bigtable documents it: a key's 4 KiB and a qualifier's 16 KiB binary, a cell's and a
    row's sizes (10 MB, 100 MB, 256 MB) decimal, as the table's largest sizes are."""
    n = int(n)
    for unit, f in (("MiB", 1024**2), ("MB", 10**6), ("KiB", 1024), ("kB", 10**3)):
        if n >= f and n % f == 0:
            return f"{n // f:,} {unit}"
    return human_bytes(n)


def limits_html(df: pd.DataFrame) -> str:
    """``RowSizes.limits()`` as a table: the largest of each, the advice and the hard limit."""
    import pandas as pd

    from .formatting import count

    shown = pd.DataFrame(
        {
            "largest": df["largest_bytes"].map(human_bytes),
            "advice": df["advisory_bytes"].map(limit_text),
            "hard limit": df["hard_bytes"].map(limit_text),
            "within advice": df["ok"].map({True: "yes", False: "no"}),
            "rows over advice": df["rows_over_advisory"].map(count),
        },
        index=df.index,
    )
    shown.index.name = None
    return shown.to_html()


@shows("workbench.analysis.rowsizes.RowSizes")
def row_sizes_result_html(rs: RowSizes) -> str:
    """The verdict, each limit against the largest, and the row-size histogram."""
    from .plots import figure_html
    from .plots.sizes import plot_row_sizes

    return (
        f"<div><b>Row sizes</b> {html.escape(rs.schema_name)}: {html.escape(rs.verdict())}"
        + limits_html(rs.limits())
        + figure_html(plot_row_sizes, rs, emulator_note=False)
        + _note("rowsizes")
        + "</div>"
    )


# what fits a 1280-px page; the full figures are in QueryCosts.table
QUERY_COLUMNS = (
    "kind",
    "ranges",
    "rows_seen",
    "rows_returned",
    "rows_kept",  # what waste divides by: fewer than returned where the client drops rows
    "bytes_seen",
    "waste",
    "emulator_rows_seen",
    "node_ms",
    "production_node_ms",  # the planner's one read cost at the workload
)


@shows("workbench.analysis.querycost.QueryCosts")
def query_costs_result_html(qc: QueryCosts) -> str:
    """The query table (formatted, in a scroll box) and the query-cost figure."""
    from .formatting import styled
    from .plots import figure_html
    from .plots.queries import plot_query_costs

    cols = [c for c in QUERY_COLUMNS if c in qc.table.columns]
    if "rows_kept" in cols and (qc.table["rows_kept"] == qc.table["rows_returned"]).all():
        cols.remove("rows_kept")  # the same figure as rows returned: one column says it
    measured = [c for c in qc.table.columns if c.startswith("measured_")]
    # spaced headers wrap (the raw names ran past a 1280-px page); each column formatted as
    # its name says: rows with separators, bytes in kB/MB, waste as ×, node time in ms. The
    # emulator's figures are a second table under the model's, one row per query as above:
    # side by side the two ran 1,198 px wide, past 04's output column at 1280 and 1440 px
    # (828 and 988 px), and the measured half scrolled out of sight inside the box
    tables = [styled(_spaced(qc.table[cols])).to_html()]
    if measured:
        caption = "measured on the emulator: what the read returned (the model's figures above)"
        tables.append(styled(_spaced(qc.table[measured]), caption=caption).to_html())
    return (
        f"<div><b>Query costs</b> {html.escape(qc.schema_name)}"
        + "".join(f"<div style='overflow-x:auto;max-width:100%'>{t}</div>" for t in tables)
        + figure_html(plot_query_costs, qc, emulator_note=False)
        + _note("querycost")
        + "</div>"
    )


def workload_line(cap: Capacity) -> str:
    """The production a result is at: the user's inputs on one line, the defaults on the next.

    Each input reads as its value where the value names its unit ("100,000 events/s", not
    "events/s 100,000 events/s"); 12 px, not ``<small>`` (~11 px, hard to read at 1280 px). The
    designer's headline shows the same block."""
    own, default = cap.production.input_texts()
    mine = "; ".join(map(html.escape, own)) or "nothing stated"
    defaults = "; ".join(map(html.escape, default)) or "none"
    return (
        "<div class='wb-workload' data-metric='workload' style='font-size:12px;"
        "line-height:1.4;margin:4px 0;color:var(--jp-content-font-color2,#444)'>"
        f"<b>Workload — yours:</b> {mine}<br><b>defaults:</b> {defaults}</div>"
    )


@shows("workbench.analysis.capacity.Capacity")
def capacity_result_html(cap: Capacity) -> str:
    """The verdict, the capacity table and its assumptions, rows read per tier, retention per
    family, bytes per event and the nodes needed."""
    from .analysis.tiers import tier_text
    from .formatting import amount, nbytes, percent
    from .plots import figure_html
    from .plots.capacity import plot_bytes_breakdown, plot_node_need

    tiers = ""
    if cap.tiered and cap.query_tiers:
        tiers = (
            "<p>Rows each query reads, by tier: "
            + ", ".join(html.escape(f"{q}: {tier_text(s)}") for q, s in cap.query_tiers.items())
            + "</p>"
        )
    return (
        f"<div><b>Storage and capacity</b> {html.escape(cap.schema_name)}: "
        f"{html.escape(cap.verdict())}"
        + workload_line(cap)
        + cap.shown_table().to_html()
        + "<ul>"
        + "".join(f"<li><small>{html.escape(a)}</small></li>" for a in cap.assumptions())
        + "</ul>"
        + tiers
        # the unit in the value ("801.9 kB"), so not in the header ("kept (logical)")
        + cap.retention_table()
        .rename(columns={"kept (TB, logical)": "kept (logical)"})
        .to_html(
            index=False,
            formatters={
                "months kept": amount,
                "share of cells kept (versions)": percent,
                "kept (logical)": lambda v: nbytes(v * 1e12),
            },
        )
        + figure_html(plot_bytes_breakdown, cap)
        + figure_html(plot_node_need, cap)
        + _note("capacity")
        + "</div>"
    )


@shows("workbench.analysis.comparison.Comparison")
def comparison_result_html(cmp: Comparison) -> str:
    """The ranking with its reasons, a row per criterion and a column per design, the small multiples."""
    import pandas as pd

    from .formatting import amount as num
    from .formatting import nbytes
    from .plots import figure_html
    from .plots.compare import plot_comparison

    # a row per criterion and a column per design: narrow enough for a notebook or a printed report
    rows = {"verdict": cmp.table["verdict"]}
    # a size in the unit that reads ("70.3 MB"; its label names none), "bytes per event" a number
    rows.update(
        {
            label: cmp.table[c].map(nbytes if c.endswith("_bytes") else num)
            for c, label in cmp.criteria
        }
    )
    for col in ("maintained_by", "client_writes_per_event", "write_node_s", "staleness"):
        if col in cmp.table:  # a comparison with continuous materialized views
            rows[col.replace("_", " ")] = cmp.table[col].map(
                lambda v: v if isinstance(v, str) else num(v)
            )
    t = pd.DataFrame(rows).T
    t.columns.name = None
    first = next(iter(cmp.analyses.values()), None)
    return (
        f"<div><h3>{len(cmp.analyses)} designs for {html.escape(cmp.dataset)}</h3>"
        + (workload_line(first.capacity) if first is not None else "")
        + "<p><small>Ranking: best first; <b>&lt;</b> the next design is worse, <b>≈</b> within 5 %. "
        "Lower is better on every criterion but the ceiling, where higher is better.</small></p>"
        + cmp.rankings[["ranking", "reason"]].to_html(escape=True)
        + t.to_html(escape=True)
        + figure_html(plot_comparison, cmp)
        + f"<p><small>{html.escape(EMULATOR_NOTES['keyspace'])} "
        f"{html.escape(EMULATOR_NOTES['querycost'])}"
        + (f" {html.escape(EMULATOR_NOTES['views'])}" if "maintained_by" in cmp.table else "")
        + "</small></p></div>"
    )


@shows("workbench.analysis.overview.Analysis")
def analysis_html(a: Analysis) -> str:
    """One design's whole analysis: key distribution, row sizes, query costs, capacity."""
    total = sum(a.timings_ms.values())
    return (
        f"<div><h3>{html.escape(a.schema)} on {html.escape(a.dataset)}</h3>"
        f"<p>{a.index.n_cells:,} cells in {a.index.n_rows:,} rows · analysed in {total:,.0f} ms</p>"
        + workload_line(a.capacity)
        + key_distribution_html(a.keyspace)
        + row_sizes_result_html(a.rowsizes)
        + query_costs_result_html(a.queries)
        + capacity_result_html(a.capacity)
        + "</div>"
    )


@shows("workbench.schema.rowkey_schema.RowKeySchema")
def row_key_schema_html(rks: Any) -> str:
    """A row-key schema: its fields, what it cannot express, the emulator's note."""
    return f"<pre>{html.escape(rks.explain())}</pre>"


@shows("workbench.schema.key_conformance.Conformance")
def conformance_html(result: Any) -> str:
    """Whether a table's keys conform, and the first that does not."""
    return (
        f"<pre>{html.escape(str(result))}</pre>"
        f"<p><small>{html.escape(EMULATOR_NOTES['rowkey_schema'])}</small></p>"
    )


@shows("workbench.analysis.views.ViewCost")
def view_cost_html(cost: Any) -> str:
    """Who keeps a design's derived rows and what it costs, with the emulator's note."""
    rows = "".join(
        f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>"
        for k, v in cost.as_row().items()
    )
    return f"<table>{rows}</table><p><small>{html.escape(cost.note)}</small></p>"
