"""Continuous materialized views (CMVs) as design options: rollups and asynchronous indexes.

A CMV is a SQL query Bigtable keeps answered as the table changes, in its own key space
(docs: "Continuous materialized views", "Continuous materialized view queries"):

* :class:`Rollup` — ``GROUP BY`` entity and ``TIMESTAMP_TRUNC(time, HOUR)`` with COUNT / SUM /
  MIN / MAX / AVG: the managed form of hand-written ``agg#hourly#…`` rows (G29).
* :class:`AsyncIndex` — ``ORDER BY`` another key order over the same rows: the managed form of
  a second, dual-written table (G05), eventually consistent.

A :class:`ViewDesign` is a source :class:`~.schema.Schema` plus up to five views
(``MAX_VIEWS_PER_TABLE``, release notes Dec 2025). ``equivalent`` is the client-maintained
design that stores the same rows (the aggregate rows, the second table): the analysis costs
the view's rows from it and adds what differs — who writes them, the write CPU Bigtable spends,
staleness (``analysis/views.py``). ``create_sql()`` gives each view's ``CREATE MATERIALIZED
VIEW`` statement, checked against the documented restrictions (:func:`check_view_sql`), and
``admin_requests()`` the instance admin API's ``CreateMaterializedViewRequest``.

The emulator has no SQL (``ExecuteQuery``/``PrepareQuery`` answer 501), so no CMVs: every
figure for a view is a model of Cloud Bigtable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from ..errors import SchemaError
from ..notes import EMULATOR_NOTES
from .families import Family, max_versions
from .keys import RowKey
from .layouts import Tall
from .rowkey_schema import RowKeySchema, row_key_schema
from .schema import Aggregates, Schema, Table
from .segments import Segment

SOURCE_KEY = "source_key"  # an index's alias of the source row key (_key), last in its ORDER BY
MAX_VIEWS_PER_TABLE = 5  # release notes, December 2025: up to 5 CMVs per source table
EMULATOR_NOTE = EMULATOR_NOTES["views"]

# The documented restrictions of a CMV query ("Continuous materialized view queries").
SUPPORTED_AGGREGATES = (
    "COUNT", "SUM", "MIN", "MAX", "AVG", "ANY_VALUE", "BIT_AND", "BIT_OR", "BIT_XOR",
    "HLL_COUNT.INIT", "HLL_COUNT.MERGE", "HLL_COUNT.MERGE_PARTIAL",
)  # fmt: skip
_OTHER_AGGREGATES = (
    "ARRAY_AGG", "ARRAY_CONCAT_AGG", "COUNT_IF", "STRING_AGG", "LOGICAL_AND", "LOGICAL_OR",
    "STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP", "CORR",
    "COVAR_POP", "COVAR_SAMP", "APPROX_COUNT_DISTINCT", "APPROX_QUANTILES", "APPROX_TOP_COUNT",
    "APPROX_TOP_SUM", "PERCENTILE_CONT", "PERCENTILE_DISC",
)  # fmt: skip
_NON_DETERMINISTIC = (
    "CURRENT_TIMESTAMP", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_DATETIME", "RAND",
    "GENERATE_UUID", "NOW",
)  # fmt: skip
_STATS_SQL = {"count": "COUNT", "min": "MIN", "max": "MAX", "sum": "SUM", "mean": "AVG"}
_TRUNC = {"minute": "MINUTE", "hour": "HOUR", "day": "DAY", "week": "WEEK", "month": "MONTH"}


def check_view_sql(sql: str) -> list[str]:
    """What in ``sql`` a CMV query may not have (empty: none found). Checks the documented
    restrictions: a SELECT; GROUP BY or ORDER BY, not both; only the supported aggregations;
    no DESC, LIMIT/OFFSET, SELECT *, DISTINCT, OVER, ARRAY, DATE/DATETIME outputs, and no
    non-deterministic functions such as CURRENT_TIMESTAMP."""
    text = re.sub(r"'(?:[^'\\]|\\.)*'", "''", sql)  # string literals cannot break the rules
    text = re.sub(r"`[^`]*`", "t", text)
    up = re.sub(r"\s+", " ", text.upper()).strip()
    problems = []
    if not up.startswith("SELECT "):
        problems.append("it must be a SELECT statement")
    group, order = " GROUP BY " in f" {up} ", " ORDER BY " in f" {up} "
    if group == order:
        problems.append(
            "it needs a GROUP BY clause (a rollup) or an ORDER BY clause (an asynchronous "
            "secondary index), not both and not neither"
        )
    if order and not group:
        problems += _index_problems(up)
    if re.search(r"\bDESC\b", up):
        problems.append("DESC ordering is not supported (key order is ascending)")
    if re.search(r"\b(LIMIT|OFFSET)\b", up):
        problems.append("LIMIT/OFFSET is not supported (the view holds every group)")
    if re.search(r"SELECT\s+(DISTINCT\s+)?\*", up) or re.search(r",\s*\*\s*(,|FROM)", up):
        problems.append("SELECT * is not supported: name each output column")
    if re.search(r"\bDISTINCT\b", up):
        problems.append("DISTINCT is not supported (use HLL_COUNT.INIT for distinct counts)")
    if re.search(r"\bOVER\s*\(", up):
        problems.append("window functions (OVER) are not supported")
    for fn in _NON_DETERMINISTIC:
        if re.search(rf"\b{fn}\b", up):
            problems.append(f"{fn} is non-deterministic: a view must give the same rows every time")
    for fn in _OTHER_AGGREGATES:
        if re.search(rf"\b{re.escape(fn)}\s*\(", up):
            problems.append(
                f"{fn} is not a supported aggregation (use {', '.join(SUPPORTED_AGGREGATES[:5])}…)"
            )
    if re.search(r"\bARRAY\s*[<\[(]", up):
        problems.append("ARRAY is not supported")
    if re.search(r"\b(DATE|DATETIME)\s*\(", up) or re.search(r"\bAS\s+(DATE|DATETIME)\b", up):
        problems.append("DATE/DATETIME outputs are not supported: output a TIMESTAMP or a string")
    return problems


def _index_problems(up: str) -> list[str]:
    """An asynchronous secondary index's rules ("Create an asynchronous secondary index"): the
    ORDER BY holds the source table's unmodified row key (``_key`` or its plain alias), so each
    source row is one index row, and every ORDER BY column is an output of the SELECT."""
    head, _, order = up.rpartition(" ORDER BY ")
    select = head[len("SELECT ") :].partition(" FROM ")[0]
    outputs = {m.group(1) for m in re.finditer(r"\bAS\s+(\w+)\s*(?:,|$)", select)}
    outputs |= {m.group(1) for m in re.finditer(r"(?:^|,)\s*(\w+)\s*(?=,|$)", select)}
    key_names = {"_KEY"} & outputs | {
        m.group(1) for m in re.finditer(r"(?:^|,)\s*_KEY\s+AS\s+(\w+)", select)
    }
    order = re.split(r"\s+(?:LIMIT|OFFSET)\b", order)[0]  # refused on their own
    items = [re.sub(r"\s+(?:ASC|DESC)$", "", i.strip()) for i in order.split(",")]
    problems = []
    if not key_names & set(items):
        problems.append(
            "an asynchronous secondary index must ORDER BY the source table's unmodified row key "
            "(select _key AS source_key and end the ORDER BY with source_key): each source row "
            "maps to one index row"
        )
    missing = [i for i in items if i not in outputs]
    if missing:
        problems.append(
            f"every ORDER BY column must be in the SELECT list: {', '.join(missing).lower()} is not"
        )
    return problems


def _require_valid(sql: str, what: str) -> str:
    problems = check_view_sql(sql)
    if problems:
        raise SchemaError(
            f"{what}: not a valid continuous materialized view: {'; '.join(problems)}."
        )
    return sql


def _time_sql(seg: Segment, field_name: str) -> str:
    """A TIMESTAMP expression decoding the key's time text (deterministic functions only)."""
    sql = seg.time_sql(field_name)
    if sql is None:
        raise SchemaError(
            f"A view needs the event time from the key as a Timestamp or ReversedTimestamp "
            f"segment; {seg.template()} is neither."
        )
    return sql


def _source_fields(schema: Schema) -> tuple[RowKeySchema, list[str], tuple[str, Segment]]:
    """The source key's schema, its entity field names, and (time field, its segment)."""
    rks = row_key_schema(schema.key, schema.table)
    # the fields that name an entity, each in its one place (a tag may be left out of a key)
    d = rks.delimiter
    ents = [
        f.name
        for f in rks.fields
        if f.segment and f.segment.recovers() and f.segment.n_parts(d) == 1
    ]
    times: list[tuple[str, Segment]] = [
        (f.name, f.segment)
        for f in rks.fields
        if f.segment is not None and f.segment.time_sql(f.name) is not None
    ]
    if not times:
        raise SchemaError(
            f"Design {schema.name!r}: a view over it needs the event time in the row key "
            f"({schema.key.template()} has none)."
        )
    return rks, ents, times[0]


@dataclass(frozen=True)
class Rollup:
    """A ``GROUP BY`` view: per entity and ``bucket``, the ``stats`` of each numeric measure."""

    name: str = "hourly"
    bucket: str = "hour"
    stats: tuple[str, ...] = ("count", "min", "max", "sum", "mean")

    kind = "rollup"

    def __post_init__(self) -> None:
        object.__setattr__(self, "stats", tuple(self.stats))
        bad = [s for s in self.stats if s not in _STATS_SQL]
        if bad:
            raise SchemaError(f"Rollup stats {bad} unknown; use some of {list(_STATS_SQL)}.")
        if self.bucket not in _TRUNC:
            raise SchemaError(f"Rollup bucket {self.bucket!r}: use one of {list(_TRUNC)}.")

    def sql(self, source: Schema, table: str, measures: tuple[str, ...]) -> str:
        if not isinstance(source.layout, Tall) or source.key.metric is not None:
            raise SchemaError(
                f"A rollup view reads a cell per measure: design {source.name!r} has the "
                f"{source.layout.label} layout. Use a single-timestamp (Tall) source design."
            )
        _, ents, (tname, tseg) = _source_fields(source)
        fam = source.layout.family.name
        bucket = f"TIMESTAMP_TRUNC({_time_sql(tseg, tname)}, {_TRUNC[self.bucket]})"
        cols = [*ents, f"{bucket} AS {self.bucket}"]
        for m in measures:
            value = f"CAST(CAST({fam}['{source.layout.qname(m)}'] AS STRING) AS FLOAT64)"
            for s in self.stats:
                arg = "*" if s == "count" else value
                cols.append(f"{_STATS_SQL[s]}({arg}) AS {m}_{s}")
        return (
            "SELECT\n  "
            + ",\n  ".join(cols)
            + f"\nFROM `{table}`\nGROUP BY {', '.join([*ents, self.bucket])}"
        )

    def view_key(self, source: Schema) -> tuple[str, ...]:
        _, ents, _ = _source_fields(source)
        return (*ents, self.bucket)

    def equivalent(self, source: Schema, prefix: str = "agg") -> Schema:
        """The client-maintained design storing the same rows: ``agg#<name>#…`` rows (G29)."""
        return replace(
            source,
            aggregates=Aggregates(
                self.bucket, self.name, prefix, self.stats, Family("s", gc=max_versions(1))
            ),
        )


@dataclass(frozen=True)
class AsyncIndex:
    """An ``ORDER BY`` view: the same rows under another key order (``key``), kept by Bigtable."""

    name: str
    key: RowKey

    kind = "async index"

    def sql(self, source: Schema, table: str, measures: tuple[str, ...]) -> str:
        src = row_key_schema(source.key, source.table)
        fields = {f.segment: f.name for f in src.fields if f.segment is not None}
        order = []
        for seg in self.key.segments:
            if seg not in fields:
                raise SchemaError(
                    f"Index {self.name!r}: {seg.template()} is not a segment of the source key "
                    f"{source.key.template()}: an index orders the source's own key fields."
                )
            order.append(fields[seg])
        fams = [f.name for f in source.layout.families(measures)]
        return (
            f"SELECT\n  {', '.join(order)},\n  _key AS {SOURCE_KEY},\n  "
            + ",\n  ".join(fams)
            + f"\nFROM `{table}`\nORDER BY {', '.join([*order, SOURCE_KEY])}"
        )

    def view_key(self, source: Schema) -> tuple[str, ...]:
        """The index's row key: the ordered fields, then the source row key (documented: the
        ORDER BY must hold the unmodified source key, so source rows and index rows pair 1:1)."""
        src = row_key_schema(source.key, source.table)
        names = {f.segment: f.name for f in src.fields}
        return (*(names[s] for s in self.key.segments if s in names), SOURCE_KEY)

    def equivalent(self, source: Schema) -> Schema:
        """The client-maintained design storing the same rows: a second table (G05)."""
        return replace(source, tables=(*source.tables, Table(self.name, self.key)))


View = Rollup | AsyncIndex


@dataclass(frozen=True)
class ViewDesign:
    """A source design plus the continuous materialized views Bigtable keeps for it."""

    name: str
    source: Schema
    views: tuple[View, ...]
    description: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "views", tuple(self.views))
        if not self.views:
            raise SchemaError("A ViewDesign needs at least one view (a Rollup or an AsyncIndex).")
        if len(self.views) > MAX_VIEWS_PER_TABLE:
            raise SchemaError(
                f"{len(self.views)} views on one table: Bigtable allows up to "
                f"{MAX_VIEWS_PER_TABLE} continuous materialized views per source table."
            )
        names = [v.name for v in self.views]
        if len(set(names)) != len(names):
            raise SchemaError(f"View names must differ; got {names}.")

    @property
    def dataset(self) -> str | None:
        return self.source.dataset

    @property
    def equivalent(self) -> Schema:
        """The client-maintained design that stores the same rows as source + views."""
        out = self.source
        for v in self.views:
            out = v.equivalent(out)
        return replace(out, name=self.name, description=self.description or out.description)

    def create_sql(self, table_id: str | None = None) -> dict[str, str]:
        """View name → ``CREATE MATERIALIZED VIEW`` statement (each checked)."""
        table = table_id or self.source.table
        measures = self.source.shape.measures if self.source.shape is not None else ()
        out = {}
        for v in self.views:
            body = _require_valid(v.sql(self.source, table, measures), f"view {v.name!r}")
            out[v.name] = f"CREATE MATERIALIZED VIEW `{v.name}` AS\n{body}"
        return out

    def view_sql(self, table_id: str | None = None) -> dict[str, str]:
        """View name → the query alone (what ``MaterializedView.query`` holds)."""
        return {k: v.split(" AS\n", 1)[1] for k, v in self.create_sql(table_id).items()}

    def admin_requests(self, instance_path: str, table_id: str | None = None) -> list[Any]:
        """The instance admin API's ``CreateMaterializedViewRequest`` per view (not sent: the
        emulator has no CMVs; send them with ``BigtableInstanceAdminClient``)."""
        from google.cloud.bigtable_admin_v2 import types as t

        return [
            t.CreateMaterializedViewRequest(
                parent=instance_path,
                materialized_view_id=name,
                materialized_view=t.MaterializedView(query=query),
            )
            for name, query in self.view_sql(table_id).items()
        ]

    def describe(self) -> str:
        parts = [
            f"{v.kind} {v.name!r} keyed ({', '.join(v.view_key(self.source))})" for v in self.views
        ]
        return f"{self.name}: {self.source.name} + " + "; ".join(parts) + f". {EMULATOR_NOTE}"

    def __str__(self) -> str:
        return self.describe()


def view_designs(ds: Any) -> dict[str, Schema | ViewDesign]:
    """For a workshop dataset: each client-maintained design next to its CMV form.

    server_metrics and energy_meters: hand-written hourly aggregate rows (``pre_aggregated``)
    and a CMV rollup over the same raw rows; game_scores: the dual-written ``two_tables`` and
    an asynchronous index by game and time over the one table."""
    from .gallery import preset

    name = ds if isinstance(ds, str) else ds.name
    if name == "game_scores":
        two = preset(name, "two_tables")
        by_game = two.tables[0]
        source = replace(two, tables=(), name="game_player_time")
        return {
            "two_tables": two,
            "async_index": ViewDesign(
                "async_index",
                source,
                (AsyncIndex(by_game.name, by_game.key),),
                "One table keyed by player; Bigtable keeps an index by game and time (G05).",
            ),
        }
    sources = {"server_metrics": "host_metric_time", "energy_meters": "sequential_id"}
    if name not in sources:
        raise SchemaError(
            f"view_designs knows server_metrics, energy_meters and game_scores, not {name!r}; "
            "build a ViewDesign(name, source_schema, (Rollup(...),)) for your own design."
        )
    raw = preset(name, sources[name])
    rollup = Rollup("hourly", "hour", ("count", "min", "max", "sum", "mean"))
    # energy has the hand-written form as a preset; server_metrics gets the same rows added
    pre = preset(name, "hourly_aggregates") if name == "energy_meters" else rollup.equivalent(raw)
    return {
        "pre_aggregated": replace(pre, name="pre_aggregated"),
        "cmv_rollup": ViewDesign(
            "cmv_rollup",
            raw,
            (rollup,),
            "Raw rows only; Bigtable keeps hourly count/min/max/sum/avg per series (G29).",
        ),
    }


def view_queries(ds: Any) -> list[Any]:
    """The dataset's queries plus one that reads the rollup (an hourly aggregate), so a
    comparison shows the rows a view's query reads next to the raw rows' cost."""
    from ..datasets.model import QueryIntent

    qs = list(ds.queries)
    if ds.name == "energy_meters":
        qs.append(
            QueryIntent(
                "meter_hourly_kwh",
                "range",
                "Hourly kWh of meter 100001 on 1 March 2015 (a dashboard: 24 sums)",
                {"meter_id": 100001},
                ds.time_span[0].floor("D"),
                ds.time_span[0].floor("D") + pd.Timedelta(days=1),
                measures=("kwh",),
                aggregate="hourly:sum",
                weight=2.0,
            )
        )
    elif ds.name == "server_metrics":
        first = next(q for q in ds.queries if q.name == "host_cpu_15min")
        qs.append(
            QueryIntent(
                "host_cpu_hourly",
                "range",
                "Hourly mean CPU idle % of database.example.com over the data (a dashboard)",
                dict(first.entity),
                ds.time_span[0].floor("h"),
                ds.time_span[1].floor("h") + pd.Timedelta(hours=1),
                aggregate="hourly:mean",
                weight=2.0,
            )
        )
    return qs
