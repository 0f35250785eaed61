"""Managed alternatives to derived rows the client keeps by hand: continuous materialized views.

* ``cmv_rollup`` (G29): a design that writes its own aggregate rows (``agg#hourly#…``) can let
  Bigtable keep the same rows as a rollup view (``GROUP BY`` entity and
  ``TIMESTAMP_TRUNC``).
* ``async_index`` (G05): a design that dual-writes a second table for another key order can let
  Bigtable keep that order as an asynchronous secondary index (``ORDER BY``).

Each finding quotes :func:`workbench.analysis.views.managed_vs_client` on the design's own
cells: the client row mutations per event it saves, the maintenance writes Bigtable performs
instead (a stated assumption), the write node-seconds of both, and the staleness each has. A
view Google's restrictions refuse (a layout without a cell per measure, a key order over
segments the source key does not have) gets no finding. The suggestion is the design without
the hand-kept rows; the finding's ``data["sql"]`` holds the view's ``CREATE MATERIALIZED VIEW``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ..analysis.views import managed_vs_client
from ..errors import WorkbenchError
from ..schema.views import EMULATOR_NOTE, AsyncIndex, Rollup, ViewDesign
from .context import Context
from .findings import Finding
from .rule_base import make_finding, rule
from .suggest import renamed


def _evidence(vd: ViewDesign, c: Context, what: str) -> tuple[list[str], dict]:
    """The measured comparison of the view with the client writing the same rows."""
    view, client = managed_vs_client(
        c.ds, vd, cells=c.cells, client_name=c.schema.name, settings=c.settings
    )
    saved = client.client_writes - view.client_writes
    sql = vd.create_sql()
    ev = [
        f"the client sends {client.client_writes_per_event:.2f} row mutations per event with "
        f"the {what}, {view.client_writes_per_event:.2f} with the view: {saved:,} fewer of "
        f"{client.client_writes:,} ({view.events:,} events)",
        f"Bigtable performs {view.maintenance_writes:,.0f} maintenance writes for the view "
        f"instead (assumed: one view-row update per source row written); write node-seconds "
        f"{view.write_node_s:,.2f} with the view, {client.write_node_s:,.2f} by hand",
        f"both hold {view.derived_rows:,} derived rows; staleness: the view is "
        f"{view.staleness}; the {what}: {client.staleness}",
        EMULATOR_NOTE,
    ]
    data = {
        "client_writes_saved": saved,
        "client_writes_per_event": (client.client_writes_per_event, view.client_writes_per_event),
        "maintenance_writes": view.maintenance_writes,
        "write_node_s": (client.write_node_s, view.write_node_s),
        "staleness": (client.staleness, view.staleness),
        "sql": sql,
    }
    return ev, data


@rule("cmv_rollup", "G29")
def cmv_rollup(c: Context) -> Iterable[Finding]:
    agg = c.schema.aggregates
    if agg is None or c.cells is None:
        return
    source = replace(c.schema, aggregates=None)
    vd = ViewDesign(f"{c.schema.name} as a CMV", source, (Rollup(agg.name, agg.bucket, agg.stats),))
    try:
        ev, data = _evidence(vd, c, "hand-written aggregate rows")
    except WorkbenchError:  # a rollup the documented restrictions refuse: nothing to offer
        return
    view = vd.views[0]
    yield make_finding(
        "cmv_rollup",
        "info",
        ("G29",),
        f"Bigtable can keep the {agg.name} aggregate rows for you: a continuous materialized "
        f"view (rollup per {agg.bucket})",
        ev,
        fix=f"Drop the {agg.prefix}{c.schema.key.delimiter}{agg.name} rows and create the view "
        f"{view.name!r} (CREATE MATERIALIZED VIEW … GROUP BY …, TIMESTAMP_TRUNC(…, "
        f"{agg.bucket.upper()})); read the view instead of the aggregate rows",
        suggestion=renamed(
            source,
            f"CMV rollup {view.name}",
            f"Raw rows only; Bigtable keeps the {agg.name} {', '.join(agg.stats)} per series "
            f"as a continuous materialized view (G29).",
        ),
        **data,
    )


@rule("async_index", "G05")
def async_index(c: Context) -> Iterable[Finding]:
    if not c.schema.tables or c.cells is None:
        return
    for t in c.schema.tables:
        rest = replace(c.schema, tables=tuple(x for x in c.schema.tables if x != t))
        index = AsyncIndex(t.name, t.key)
        vd = ViewDesign(f"{c.schema.name} as a CMV", rest, (index,))
        try:  # an index orders the source key's own fields: none is offered otherwise
            ev, data = _evidence(vd, c, "second table written by the client")
            order = ", ".join(index.view_key(rest))
        except WorkbenchError:
            continue
        yield make_finding(
            "async_index",
            "info",
            ("G05",),
            f"Bigtable can keep table {t.name!r}'s key order for you: an asynchronous secondary "
            "index instead of a dual write",
            ev,
            fix=f"Write only table {c.schema.table!r} and create the view {t.name!r} (CREATE "
            f"MATERIALIZED VIEW … ORDER BY {order}); read the index where the second table was "
            "read (eventually consistent)",
            suggestion=renamed(
                rest,
                f"async index {t.name}",
                f"One table keyed {c.schema.key.template()}; Bigtable keeps an index ordered "
                f"{t.key.template()} (G05).",
            ),
            table=t.name,
            **data,
        )
