"""What derived rows cost: hand-written aggregate rows and a second table (kept by the client)
against continuous materialized views (kept by Bigtable).

Both store the same derived rows — the hourly summaries, the rows in the other key order — and
their queries read the same rows (``wb.compare`` costs a view from its client-maintained
equivalent, ``ViewDesign.equivalent``). They differ in who writes them and when:

* **row mutations the client sends** (``client_writes``): raw rows, plus the aggregate rows or
  the second table's rows when the client keeps them (G05, G29);
* **maintenance writes Bigtable performs** (``maintenance_writes``): a CMV is updated
  incrementally as the source changes. Google documents no figure for its CPU; the stated
  assumption is ``Settings.view_updates_per_source_write`` (1.0) view-row update per source
  row written, each costing what a row write costs (``writes_per_s_per_node``), on the source
  table's cluster ("Continuous materialized views": computed in the background; little impact
  on a well-provisioned or autoscaled cluster);
* **write node-seconds** (``write_node_s``): both kinds of writes ÷ ``writes_per_s_per_node``;
* **the derived rows' own key distribution** (``derived_hotspot_factor``): one update per
  event into the derived row it changes, replayed over the tablet/node model;
* **staleness**: a view is eventually consistent (no lag bound documented); hand-written
  aggregate rows are as fresh as the job that writes them; a dual write is as fresh as the
  client's second write.

The emulator has no SQL and no CMVs (``ExecuteQuery`` answers 501): every view figure is a model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..cells import CellFrame
from ..schema.schema import Schema
from ..schema.segments import RenderContext
from ..schema.time_text import time_us
from ..schema.views import EMULATOR_NOTE, AsyncIndex, Rollup, ViewDesign
from .settings import DEFAULT, Settings

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset, QueryIntent

STALENESS = {
    "view": "eventually consistent: updates lag the source (no bound documented)",
    "aggregates": "as fresh as the client's aggregation job (a bucket is written after it closes)",
    "tables": "as fresh as the client's second write (no atomicity across tables)",
    "none": "—",
}


@dataclass(frozen=True)
class ViewCost:
    """Who keeps a design's derived rows and what that costs (one row of ``wb.compare``)."""

    design: str
    maintained_by: str  # "client", "Bigtable (CMV)" or "—" (no derived rows)
    events: int
    client_writes: int  # row mutations the client sends
    maintenance_writes: float  # view-row updates Bigtable performs
    derived_rows: int  # aggregate rows, second-table rows or view rows
    derived_bytes: int
    write_node_s: float
    derived_hotspot_factor: float
    staleness: str
    note: str = ""

    @property
    def client_writes_per_event(self) -> float:
        return self.client_writes / self.events if self.events else 0.0

    def as_row(self) -> dict[str, object]:
        return {
            "maintained_by": self.maintained_by,
            "client_writes_per_event": self.client_writes_per_event,
            "maintenance_writes": self.maintenance_writes,
            "derived_rows": self.derived_rows,
            "derived_bytes": self.derived_bytes,
            "write_node_s": self.write_node_s,
            "derived_hotspot_factor": self.derived_hotspot_factor,
            "staleness": self.staleness,
        }

    def _repr_html_(self) -> str:
        from ..reprs import html_of

        return html_of(self)


def _derived_mask(schema: Schema, cells: pd.DataFrame, views: tuple = ()) -> np.ndarray:
    """Cells of derived rows: aggregate rows in the main table, every other table's cells; with
    ``views``, only the rows those views hold (a rollup's aggregate rows, an index's table)."""
    tables = {v.name for v in views if isinstance(v, AsyncIndex)} if views else None
    other = cells["table"] != schema.table
    mask = (other if tables is None else cells["table"].isin(tables)).to_numpy().copy()
    if schema.aggregates is not None and (not views or any(isinstance(v, Rollup) for v in views)):
        lead = schema.aggregates.lead(schema.key.delimiter) + schema.key.delimiter
        mask |= (
            (cells["table"] == schema.table) & cells["row_key"].str.startswith(lead)
        ).to_numpy()
    return mask


def _mutations(cells: pd.DataFrame) -> int:
    """Row mutations: one per (table, row, timestamp) — an event's cells in a row, or a row of
    aggregates stamped with its bucket."""
    return int(cells.drop_duplicates(["table", "row_key", "timestamp_us"]).shape[0])


def _update_keys(schema: Schema, ds: Dataset, views: tuple = ()) -> dict[str, np.ndarray]:
    """Per derived table: the row each event updates (aggregate row of its bucket, or its row in
    the second table), in event order; with ``views``, only the rows those views hold."""
    frame = ds.frame.reset_index(drop=True)
    ctx = RenderContext({c: frame[c] for c in frame.columns}, time_us(frame[ds.time]))
    out = {}
    rollups = not views or any(isinstance(v, Rollup) for v in views)
    if schema.aggregates is not None and rollups:
        out[schema.table] = schema.aggregates.key(schema.key).render(ctx)
    names = {v.name for v in views if isinstance(v, AsyncIndex)}
    for t in schema.tables:
        if not views or t.name in names:
            out[t.name] = t.key.render(ctx)
    return out


def _hotspot(schema: Schema, ds: Dataset, settings: Settings, views: tuple = ()) -> float:
    """Hotspot factor of the updates to the derived rows, one per event at its time."""
    from ._index import CellIndex
    from .keyspace import key_distribution

    keys = _update_keys(schema, ds, views)
    if not keys:
        return float("nan")
    t = time_us(ds.frame[ds.time].reset_index(drop=True))
    t = t - np.mod(t, 1000)
    parts = [
        pd.DataFrame(
            {
                "table": pd.Series([name] * len(k), dtype=object),
                "row_key": pd.Series(k, dtype=object),
                "family": pd.Series(["v"] * len(k), dtype=object),
                "qualifier": pd.Series(["u"] * len(k), dtype=object),
                "timestamp_us": t,
                "value": pd.Series([b""] * len(k), dtype=object),
            }
        )
        for name, k in keys.items()
    ]
    index = CellIndex.build(CellFrame(pd.concat(parts, ignore_index=True)))
    return float(key_distribution(index, settings=settings).hotspot_factor)


@dataclass(frozen=True)
class _Derived:
    """What the cells of a client-maintained design say about its derived rows (shared by the
    view and its client-maintained equivalent: both store the same rows)."""

    events: int
    mutations: int
    source_mutations: int
    derived_rows: int
    derived_bytes: int
    hotspot: float
    has_derived: bool


def _derived(
    ds: Dataset, schema: Schema, cells: CellFrame, settings: Settings, views: tuple = ()
) -> _Derived:
    frame = cells.frame
    derived = _derived_mask(schema, frame, views)
    mutations = _mutations(frame)
    return _Derived(
        events=len(ds.frame),
        mutations=mutations,
        source_mutations=mutations - _mutations(frame[derived]),
        derived_rows=int(frame[derived].drop_duplicates(["table", "row_key"]).shape[0]),
        derived_bytes=int(CellFrame(frame[derived]).total_bytes) if derived.any() else 0,
        hotspot=_hotspot(schema, ds, settings, views) if derived.any() else float("nan"),
        has_derived=bool(derived.any()),
    )


def _cost(
    design: Schema | ViewDesign,
    schema: Schema,
    d: _Derived,
    settings: Settings,
    kind: str | None = None,
) -> ViewCost:
    """``kind``: "aggregates" or "tables", what the client keeps by hand (default: what the
    design has)."""
    _, writes_per_node, _ = settings.node_rates()
    if isinstance(design, ViewDesign):
        client = d.source_mutations
        maintenance = client * settings.view_updates_per_source_write * len(design.views)
        who, stale = "Bigtable (CMV)", STALENESS["view"]
        kinds = ", ".join(f"{v.kind} {v.name!r}" for v in design.views)
        note = f"{kinds}: {EMULATOR_NOTE}"
    else:
        client, maintenance = d.mutations, 0.0
        who = "client" if d.has_derived else "—"
        kind = kind or (
            "aggregates" if schema.aggregates is not None else "tables" if schema.tables else "none"
        )
        stale = STALENESS[kind]
        note = ""
    return ViewCost(
        design=schema.name,
        maintained_by=who,
        events=d.events,
        client_writes=client,
        maintenance_writes=float(maintenance),
        derived_rows=d.derived_rows,
        derived_bytes=d.derived_bytes,
        write_node_s=(client + maintenance) / writes_per_node,
        derived_hotspot_factor=d.hotspot,
        staleness=stale,
        note=note,
    )


def view_cost(
    ds: Dataset,
    design: Schema | ViewDesign,
    *,
    settings: Settings = DEFAULT,
    cells: CellFrame | None = None,
) -> ViewCost:
    """The derived rows of ``design`` on ``ds``: who writes them, how many, their cost
    (``cells``: the client-maintained design's cells, when already built)."""
    schema = design.equivalent if isinstance(design, ViewDesign) else design
    if cells is None:
        cells = schema.to_cells(ds, accept_loss=True)
    views = design.views if isinstance(design, ViewDesign) else ()
    return _cost(design, schema, _derived(ds, schema, cells, settings, views), settings)


ROLLUP_NAMES = {"minute": "per_minute", "hour": "hourly", "day": "daily", "week": "weekly",
                "month": "monthly"}  # fmt: skip


def rollup(
    bucket: str = "hour", stats: tuple[str, ...] = ("count", "min", "max", "sum", "mean")
) -> Rollup:
    """A rollup view named for its bucket (``hourly``, ``daily``…): its queries say
    ``aggregate="hourly:mean"``."""
    return Rollup(ROLLUP_NAMES.get(bucket, bucket), bucket, tuple(stats))


def view_query(ds: Dataset, view: Rollup | AsyncIndex) -> QueryIntent | None:
    """The query a rollup serves: one series' ``bucket`` statistic over the whole data (the
    first event's entity, the first numeric measure); an index serves the dataset's own queries
    (None)."""
    from ..datasets.model import QueryIntent

    if not isinstance(view, Rollup):
        return None
    nums = [m for m in ds.measures if ds.frame[m].dtype.kind in "fiu"]
    if not nums:
        return None
    stat = next((s for s in ("mean", "sum", "max", "min") if s in view.stats), view.stats[0])
    first = ds.frame.iloc[0]
    entity = {c: first[c] for c in ds.entity}
    start, end = ds.time_span
    return QueryIntent(
        f"{view.name}_{nums[0]}_{stat}",
        "range",
        f"{view.name.replace('_', ' ')} {stat} of {nums[0]} for "
        + ", ".join(f"{k}={v}" for k, v in entity.items())
        + " over the data (what the view answers)",
        entity,
        start.floor("D"),
        end.floor("D") + pd.Timedelta(days=1),
        measures=(nums[0],),
        aggregate=f"{view.name}:{stat}",
    )


@dataclass(frozen=True)
class ViewEffect:
    """What adding ``view`` to a design does: the CMV design, its SQL, what Bigtable spends
    keeping it against the client writing the same rows, and the rows each query reads."""

    design: ViewDesign
    sql: dict[str, str]
    by_view: ViewCost
    by_client: ViewCost
    queries: pd.DataFrame  # query → rows_seen, kind, table (of the client-maintained equivalent)
    query: str | None  # the view's own query (a rollup's), if any
    note: str = EMULATOR_NOTE


def managed_vs_client(
    ds: Dataset,
    design: ViewDesign,
    *,
    cells: CellFrame | None = None,
    client_name: str | None = None,
    settings: Settings = DEFAULT,
) -> tuple[ViewCost, ViewCost]:
    """The same derived rows kept two ways: by Bigtable (``design``'s views) and by the client
    (its ``equivalent``: aggregate rows written by hand, a dual-written table), from one set of
    cells (``cells``: the equivalent's, when already built)."""
    from dataclasses import replace

    eq = design.equivalent
    if cells is None:
        cells = eq.to_cells(ds, accept_loss=True)
    d = _derived(ds, eq, cells, settings, design.views)
    client = replace(eq, name=client_name or f"{design.source.name} + client-written rows")
    kind = "aggregates" if any(isinstance(v, Rollup) for v in design.views) else "tables"
    return _cost(design, eq, d, settings), _cost(client, client, d, settings, kind)


def view_design(schema: Schema, view: Rollup | AsyncIndex) -> ViewDesign:
    """``schema`` with ``view`` kept by Bigtable. The view replaces what the design kept by hand:
    a rollup drops the design's own aggregate rows (G29), an index its second tables (G05)."""
    from dataclasses import replace

    source = (
        replace(schema, aggregates=None) if isinstance(view, Rollup) else replace(schema, tables=())
    )
    return ViewDesign(f"{source.name} + {view.kind} {view.name}", source, (view,))


def view_effect(
    ds: Dataset,
    schema: Schema,
    view: Rollup | AsyncIndex,
    *,
    table_id: str | None = None,
    settings: Settings = DEFAULT,
) -> ViewEffect:
    """Add ``view`` to ``schema`` on ``ds`` (:func:`view_design`): its SQL (on ``table_id``),
    its cost against the client writing the same rows, and the rows each query reads."""

    from ..datasets.queries import with_queries
    from .overview import analyze

    vd = view_design(schema, view)
    sql = vd.create_sql(table_id)
    q = view_query(ds, view)
    used = with_queries(ds, [*ds.queries, q]) if q is not None else ds
    eq = vd.equivalent
    cells = eq.to_cells(used, accept_loss=True)
    a = analyze(used, eq, cells=cells, settings=settings)
    by_view, by_client = managed_vs_client(
        used,
        vd,
        cells=cells,
        client_name=f"{vd.source.name} + client-written {view.name}",
        settings=settings,
    )
    intents = {i.name: i for i in used.queries}
    reads = {}
    for name, plan in a.queries.plans.items():
        on_view = plan.table == view.name or (
            eq.aggregates is not None
            and name in intents
            and eq.aggregates.applies_to(intents[name])
        )
        reads[name] = "the view" if on_view else "the table"
    queries = a.queries.table.assign(reads=pd.Series(reads, dtype=object))
    return ViewEffect(
        design=vd,
        sql=sql,
        by_view=by_view,
        by_client=by_client,
        queries=queries,
        query=q.name if q is not None else None,
    )


__all__ = [
    "ViewCost",
    "view_cost",
    "ViewEffect",
    "view_effect",
    "view_query",
    "view_design",
    "managed_vs_client",
    "rollup",
    "ROLLUP_NAMES",
    "STALENESS",
    "Rollup",
    "AsyncIndex",
    "ViewDesign",
]
