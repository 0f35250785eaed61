"""The Views tab: add a continuous materialized view to the current design and see its effect.

A rollup (``GROUP BY`` entity and a time bucket, with the chosen statistics: the managed form of
hand-written aggregate rows, G29) or an asynchronous secondary index (the same rows in another
key order: the managed form of a dual-written second table, G05). The tab shows the view's
``CREATE MATERIALIZED VIEW`` statement, what Bigtable spends keeping it against the client
writing the same rows (:func:`workbench.analysis.views.view_effect`), the rows each query reads
with it, its staleness, and that the emulator cannot run it.

The SQL is drawn at once; the costs need the derived rows built and analysed (a second or two
on workshop data the first time), so inside a running kernel they follow on the next turn of
its event loop and are cached per (dataset, design, view) in the designer's Workspace.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING, Any

import ipywidgets as W

from ..analysis.views import ROLLUP_NAMES, ViewEffect, rollup
from ..errors import WorkbenchError
from ..formatting import fair_factor
from ..schema import RowKey
from ..schema.views import EMULATOR_NOTE, AsyncIndex, Rollup
from ..units import human_bytes
from . import _render as R
from .state import segment_labels
from .tabs import Tab

if TYPE_CHECKING:  # pragma: no cover
    from .app import Designer

NONE, ROLLUP, INDEX = "no view", "rollup (G29)", "async index (G05)"
KINDS = (NONE, ROLLUP, INDEX)
STATS = ("count", "min", "max", "sum", "mean")
BUCKETS = tuple(ROLLUP_NAMES)
# each bucket's width (a month: 30 days, the usual length, for the events-per-bucket estimate)
BUCKET_S = {"minute": 60.0, "hour": 3_600.0, "day": 86_400.0, "week": 604_800.0,
            "month": 2_592_000.0}  # fmt: skip


def series_spacing_s(ds: Any) -> float | None:
    """The median time between two events of one series, in seconds (None: no series has two)."""
    import numpy as np

    f = ds.frame
    t = (f[ds.time] - f[ds.time].min()).dt.total_seconds()  # whatever the column's unit
    keys = list(ds.entity)
    t = t.sort_values()
    gaps = (t.groupby([f[k] for k in keys]).diff() if keys else t.diff()).dropna()
    gaps = gaps[gaps > 0]
    return float(np.median(gaps)) if len(gaps) else None


def helpful_bucket(ds: Any) -> tuple[str | None, float | None]:
    """The finest rollup bucket that gathers at least two events of a series (its rows are then
    fewer than the events: it helps the query it answers), and the series' spacing in seconds.
    None when even a month holds one event: a rollup would copy the rows and help no query."""
    spacing = series_spacing_s(ds)
    if spacing is None:
        return None, None
    return next((b for b in BUCKETS if BUCKET_S[b] >= 2 * spacing), None), spacing


def _a(bucket: str) -> str:
    """ "A day", "An hour": the article a bucket's name takes."""
    return f"{'An' if bucket == 'hour' else 'A'} {bucket}"


def bucket_note(d: Designer) -> str:
    """Why the rollup's bucket is what it is: the finest one that helps, or that none does (HTML)."""
    from ..formatting import duration

    best, spacing = helpful_bucket(d.ds)
    chosen = d.controls.view_bucket.value
    if spacing is None:
        return ""
    every = duration(spacing)
    if best is None:
        return (
            f"<p class='bad' data-bucket-note>No bucket summarises: a series of "
            f"{html.escape(d.ds.name)} has an event every {every}, so even a month bucket holds "
            "about one event and the rollup copies the rows instead of summarising them.</p>"
        )
    per = BUCKET_S[chosen] / spacing
    if per < 2:
        return (
            f"<p class='bad' data-bucket-note>{_a(chosen)} bucket holds about {per:.1f} event of a "
            f"series (one every {every}): the rollup copies the rows instead of summarising "
            f"them. The finest bucket that summarises is {best}.</p>"
        )
    return (
        f"<p data-bucket-note><small>{_a(chosen)} bucket summarises about {per:,.0f} events of a "
        f"series (one every {every}); {best} is the finest that summarises.</small></p>"
    )


def build(d: Designer) -> W.VBox:
    """The tab's controls and its panel (made once, when the designer is built)."""
    c = d.controls
    c.view_kind = W.ToggleButtons(options=KINDS, value=NONE, style={"button_width": "auto"})
    c.view_bucket = W.Dropdown(
        options=BUCKETS,
        value="hour",
        description="bucket width",
        style={"description_width": "90px"},
        layout=W.Layout(width="220px"),
    )
    c.view_stats = W.SelectMultiple(
        options=STATS,
        value=STATS,
        rows=5,
        description="statistics",
        style={"description_width": "90px"},
        layout=W.Layout(width="220px"),
    )
    c.view_order = W.TagsInput(allow_duplicates=False, layout=W.Layout(width="100%"))
    d.view_rollup_box = W.HBox([c.view_bucket, c.view_stats], layout=W.Layout(display="none"))
    d.view_index_box = W.VBox(
        [W.HTML("<small>index key order: drag to reorder the design's key segments</small>"),
         c.view_order],
        layout=W.Layout(display="none", width="100%"),
    )  # fmt: skip
    d.views_panel = W.HTML()
    return W.VBox(
        [
            W.HTML(
                "Add a continuous materialized view to this design: Bigtable keeps it from the "
                "table's writes (no client code), eventually consistent."
            ),
            c.view_kind,
            d.view_rollup_box,
            d.view_index_box,
            d.views_panel,
        ],
        layout=W.Layout(width="100%"),
    )


def wire(d: Designer) -> None:
    c = d.controls
    for w in (c.view_kind, c.view_bucket, c.view_stats, c.view_order):
        w.observe(d.with_log(lambda _change: on_view(d)), names="value")


def on_view(d: Designer) -> None:
    if d.syncing:
        return
    d.stale.add("views")
    d.render_tab("views")


def default_order(d: Designer) -> list[str]:
    """An index's first key order: the design's segments rotated by one (player#game#ts →
    game#ts#player), so the next query's field leads."""
    labels = list(segment_labels(d.schema.key))
    return labels[1:] + labels[:1] if len(labels) > 1 else labels


def current_view(d: Designer) -> Rollup | AsyncIndex | None:
    """The view the controls describe for the current design (None: no view)."""
    c = d.controls
    kind = c.view_kind.value
    if kind == ROLLUP:
        if not c.view_stats.value:
            raise WorkbenchError(
                "A rollup needs at least one statistic: pick one of " + ", ".join(STATS) + "."
            )
        return rollup(c.view_bucket.value, tuple(s for s in STATS if s in c.view_stats.value))
    if kind == INDEX:
        key = d.schema.key
        by_label = dict(zip(segment_labels(key), key.segments, strict=True))
        order = list(c.view_order.value)
        unknown = [s for s in order if s not in by_label]
        if unknown:
            raise WorkbenchError(
                f"{unknown[0]!r} is not a segment of this design's key; an index orders the "
                f"key's own segments: {', '.join(by_label)}."
            )
        if not order:
            raise WorkbenchError("An index needs at least one key segment.")
        # a view id is letters, digits and _ (reversed(meter_id) → reversed_meter_id)
        name = "by_" + "_".join(re.sub(r"\W+", "_", s).strip("_") for s in order[:2])
        return AsyncIndex(name, RowKey(tuple(by_label[s] for s in order), key.delimiter))
    return None


def sync(d: Designer) -> None:
    """Show the controls of the chosen kind; an index's order starts from the design's key."""
    c = d.controls
    kind = c.view_kind.value
    d.view_rollup_box.layout.display = "flex" if kind == ROLLUP else "none"
    d.view_index_box.layout.display = "flex" if kind == INDEX else "none"
    # a new design's key starts from its own order; within one design the order is as typed
    # a dataset's first rollup starts at the finest bucket that summarises its series (an hour
    # bucket over monthly data copied every row); picked by hand, a bucket stays
    if kind == ROLLUP and d.view_bucket_for != d.ds.name:
        best, _ = helpful_bucket(d.ds)
        d.syncing = True
        try:
            c.view_bucket.value = best or "month"
        finally:
            d.syncing = False
        d.view_bucket_for = d.ds.name
    if kind == INDEX and (not c.view_order.value or d.view_order_key != d.schema.key):
        d.syncing = True
        try:
            c.view_order.value = default_order(d)
        finally:
            d.syncing = False
        d.view_order_key = d.schema.key


def render(d: Designer) -> None:
    """Draw the tab: the SQL at once, the costs when known (cached, or computed next)."""
    from .emulator_tab import table_id_for

    sync(d)
    try:
        view = current_view(d)
    except WorkbenchError as exc:
        d.views_panel.value = R.error_html(exc)
        return
    if view is None:
        d.views_panel.value = R.panel_box(
            f"<p>{no_view_text(d.schema)}</p>"
            "<p>Pick <b>rollup</b> to let Bigtable keep per-bucket statistics (instead of "
            "writing aggregate rows yourself, G29) or <b>async index</b> to let it keep the "
            "rows in another key order (instead of a second, dual-written table, G05).</p>"
            f"<p><small>{html.escape(EMULATOR_NOTE)}</small></p>"
        )
        return
    ds, schema, table = d.ds, d.schema, table_id_for(d.ds, d.schema)
    note = bucket_note(d) if isinstance(view, Rollup) else ""
    lead = R.panel_box(note) if note else ""  # whether the bucket helps, above the numbers
    cached = d.ws.view_effect_cached(ds, schema, view, table)
    if cached is not None:
        d.views_panel.value = lead + effect_html(cached, d.analysis.queries.table)
        return

    def compute() -> None:
        if d.schema is not schema or d.ds is not ds or current_view(d) != view:
            return  # the design or the view changed meanwhile: that change draws its own
        try:
            eff = d.ws.view_effect(ds, schema, view, table)
        except WorkbenchError as exc:
            d.views_panel.value = R.error_html(exc)
            return
        d.views_panel.value = lead + effect_html(eff, d.analysis.queries.table)

    try:
        sql = view_sql_only(schema, view, table)
    except WorkbenchError as exc:
        d.views_panel.value = R.error_html(exc)
        return
    d.views_panel.value = lead + R.panel_box(
        sql + "<p data-view-pending><i>Costing the view's rows…</i></p>"
    )
    d.later(d.with_log(compute))


def no_view_text(schema: Any) -> str:
    """What the current design keeps by hand that a view could keep instead (HTML)."""
    name = f"<b>{html.escape(schema.name)}</b>"
    kept = []
    if schema.aggregates is not None:
        kept.append(
            f"writes its own {html.escape(schema.aggregates.name)} aggregate rows "
            "(a rollup could replace them, G29)"
        )
    for t in schema.tables:
        kept.append(
            f"dual-writes table {html.escape(t.name)!s} (an async index could replace it, G05)"
        )
    if not kept:
        return f"{name} keeps no derived rows by hand: a view would add rows, not replace any."
    return f"{name} " + "; ".join(kept) + "."


def view_sql_only(schema: Any, view: Rollup | AsyncIndex, table: str) -> str:
    """The view's CREATE statement as HTML (raises SchemaError when the design cannot have it)."""
    from ..analysis.views import view_design

    vd = view_design(schema, view)
    return _sql_html(vd.create_sql(table))


def _sql_html(sql: dict[str, str]) -> str:
    # the statement scrolls in its own box: a rollup of many measures is 20+ lines
    body = "".join(
        "<pre data-view-sql style='max-height:190px;overflow:auto;background:#f7f7f7;"
        f"padding:4px'>{html.escape(s)}</pre>"
        for s in sql.values()
    )
    return (
        "<h4>The view's SQL</h4>" + body + "<p class='good' data-view-check>"
        "Checked against the documented restrictions: GROUP BY or ORDER BY, no DESC, no LIMIT, "
        "deterministic functions only.</p>"
    )


def _num(v: float) -> str:
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:,.2f}"


def _now(now: Any, name: str) -> str:
    """Rows the current design reads for ``name`` (— for a query only the view answers)."""
    if now is None or name not in now.index or now.loc[name, "kind"] == "cannot plan":
        return "—"
    return f"{int(now.loc[name, 'rows_seen']):,}"


def helped(e: ViewEffect, now: Any) -> list[tuple[str, int, int]]:
    """(query, rows read now, rows read with the view) for each of the dataset's queries the
    view serves with fewer rows than the current design reads: what the view helps, computed
    from the two query tables (a rollup helps a query only if the query reads its rows)."""
    if now is None:
        return []
    out = []
    for name, r in e.queries.iterrows():
        if r["kind"] == "cannot plan" or r["reads"] != "the view" or name not in now.index:
            continue
        if now.loc[name, "kind"] == "cannot plan":
            continue
        before, after = int(now.loc[name, "rows_seen"]), int(r["rows_seen"])
        if after < before:
            out.append((str(name), before, after))
    return out


def helps_html(e: ViewEffect, now: Any) -> str:
    """Which of the dataset's queries the view helps, by name, with their rows before → after;
    or that it helps none of them (and which query it answers instead)."""
    if now is None:
        return ""
    found = helped(e, now)
    if found:
        items = "; ".join(
            f"<b>{html.escape(q)}</b> ({before:,} → {after:,} rows)" for q, before, after in found
        )
        return f"<p class='good' data-view-helps>Helps {items}.</p>"
    own = f" It answers its own query, <b>{html.escape(e.query)}</b>." if e.query else ""
    return (
        "<p class='bad' data-view-helps>Helps none of the dataset's queries: none of them reads "
        f"fewer rows with the view.{own}</p>"
    )


def effect_html(e: ViewEffect, now: Any = None) -> str:
    """The view's effect: SQL, who writes what, the derived rows, the rows queries read
    (``now``: the current design's query table, for the rows it reads without the view)."""
    v, c = e.by_view, e.by_client
    rows = [
        ("maintained by", v.maintained_by, c.maintained_by, "maintained_by"),
        (
            "client writes per event",
            f"{v.client_writes_per_event:.2f}",
            f"{c.client_writes_per_event:.2f}",
            "client_writes_per_event",
        ),
        ("client row mutations", _num(v.client_writes), _num(c.client_writes), "client_writes"),
        (
            "maintenance writes (Bigtable)",
            _num(v.maintenance_writes),
            _num(c.maintenance_writes),
            "maintenance_writes",
        ),
        ("write node-seconds", f"{v.write_node_s:,.2f}", f"{c.write_node_s:,.2f}", "write_node_s"),
        ("derived rows", f"{v.derived_rows:,}", f"{c.derived_rows:,}", "derived_rows"),
        (
            "derived bytes",
            human_bytes(v.derived_bytes),
            human_bytes(c.derived_bytes),
            "derived_bytes",
        ),
        (
            "hotspot factor of its updates",
            fair_factor(v.derived_hotspot_factor),
            fair_factor(c.derived_hotspot_factor),
            "derived_hotspot_factor",
        ),
        ("staleness", v.staleness, c.staleness, "staleness"),
    ]
    cost = "".join(
        f"<tr data-view-row='{m}'><th>{html.escape(k)}</th><td>{html.escape(a)}</td>"
        f"<td>{html.escape(b)}</td></tr>"
        for k, a, b, m in rows
    )
    kind = "aggregate rows" if isinstance(e.design.views[0], Rollup) else "second table"
    q = e.queries
    qrows = "".join(
        f"<tr data-view-query='{html.escape(str(name))}'><td>{html.escape(str(name))}"
        f"{' <b>(the view)</b>' if name == e.query else ''}</td>"
        f"<td>{_now(now, name)}</td>"
        f"<td data-metric='rows_seen'>{int(r['rows_seen']):,}</td>"
        f"<td>{html.escape(str(r['reads']))}</td></tr>"
        for name, r in q.iterrows()
        if r["kind"] != "cannot plan"
    )
    return R.panel_box(
        f"<p><b>{html.escape(e.design.describe().split('. ')[0].split(': ', 1)[1])}</b></p>"
        + helps_html(e, now)
        + "<h4>What keeping it costs</h4><table><tr><th></th><th>Bigtable keeps the view</th>"
        f"<th>the client writes the {kind}</th></tr>{cost}</table>"
        + "<h4>Rows each query reads</h4><table><tr><th>query</th><th>this design now</th>"
        f"<th>with the view</th><th>reads</th></tr>{qrows}</table>"
        + _sql_html(e.sql)
        + f"<p><small data-view-note>{html.escape(e.note)} Maintenance writes: an assumed "
        "view-row update per source row written (Settings.view_updates_per_source_write); "
        "Google documents no figure.</small></p>"
    )


DESIGNER_TABS = (Tab("views", "Views (CMV)", order=80, panel=build, render=render),)
