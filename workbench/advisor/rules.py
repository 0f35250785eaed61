"""The advisor's rules: one small function per guideline family, registered in ``RULES``.

Key rules live in ``key_rules.py``, row/cell/family rules in ``row_rules.py``, the shared
registry and helpers in ``rule_base.py``; the rules about reads (salting G08, collisions G31,
full scans G04/G05, reversed timestamps G09) are here.

A rule reads the :class:`~workbench.advisor.context.Context` (the design's cells,
their loss report and the analysis of them) and returns findings whose
evidence is *measured* on the user's data: hotspot shares from
``workbench.analysis.keyspace``, row sizes from ``analysis.rowsizes``, rows seen
vs returned from ``analysis.querycost``, limits and collisions from
``workbench.schema.limits``. A suggestion is a better schema built with the
schema engine (``suggest.py``); the tests apply each one and check that the
finding it answers goes away.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial

import pandas as pd

from ..datasets.model import QueryIntent
from ..formatting import counted
from ..schema import (
    Field,
    RowKey,
    Schema,
    Table,
    Timestamp,
    Wide,
)
from ..schema.time_text import PRECISIONS
from ..units import human_bytes
from . import key_rules, row_rules  # noqa: F401  (importing them registers their rules, in order)
from .context import Context
from .findings import Finding
from .key_rules import pii_kind
from .rule_base import (
    FINER_WIDE,
    RULES,
    Rule,
    finer_wide,
    lossless_tall,
    make_finding,
    precision_name,
    rendered_keys,
    rule,
    with_segment,
)
from .suggest import (
    finer_precisions,
    first_lossless,
    is_time,
    lead_index,
    promote,
    renamed,
    with_key,
    without_salt,
)

# ----------------------------------------------------------------------------- G08: salting


@rule("salting", "G08")
def salting(c: Context) -> Iterable[Finding]:
    a = c.analysis
    for tname, key in c.tables:
        salts = [b for s in key.segments if (b := s.buckets())]
        if not salts or a is None:
            continue
        n = len(salts[0])
        t = a.queries.table
        plans = a.queries.plans
        intents = {q.name: q for q in c.ds.queries if q.kind != "scan"}
        fan = {
            q: int(t.loc[q, "scans"])
            for q in intents
            if q in plans and plans[q].table == tname and int(t.loc[q, "scans"]) >= n
        }
        if not fan:
            continue
        total_w = sum(q.weight for q in intents.values())
        hurt_w = sum(intents[q].weight for q in fan)
        top = max(intents.values(), key=lambda q: q.weight).name
        sev = "warning" if (top in fan or hurt_w >= 0.5 * total_w) else "info"
        kd = a.keyspace
        ev = [
            f"{q}: {s} scans (one per salt bucket), {int(t.loc[q, 'rows_seen']):,} rows seen for "
            f"{int(t.loc[q, 'rows_returned']):,} returned"
            for q, s in sorted(fan.items(), key=lambda x: -intents[x[0]].weight)
        ]
        ev.append(
            f"{hurt_w / max(total_w, 1e-9):.0%} of the query workload fans out {n}×; the salt buys a write spread of "
            f"{kd.mean_write_share:.0%} on the busiest node vs a fair {kd.fair_share:.0%}"
        )
        nk = without_salt(key, c.ds)
        sugg = renamed(
            with_key(c.schema, tname, nk),
            "no salt, entity first",
            f"Field promotion instead of salting: {nk.template()} (G07, G08).",
        )
        yield make_finding(
            "salting",
            sev,
            ("G08",),
            f"Salting fans every read out into {n} scans",
            ev,
            fix="Promote a high-cardinality field ahead of the time instead (G07); salt only when no field "
            "spreads writes and reads are rare",
            suggestion=sugg,
            table=tname,
            scans=fan,
        )


# ----------------------------------------------------------------------------- G31: collisions


@rule("collisions", "G31")
def collisions(c: Context) -> Iterable[Finding]:
    loss = c.loss
    if not loss:
        return
    key = c.schema.key
    ev = []
    row = None
    if loss.n_lost:
        keys = pd.Series(rendered_keys(key, c.ds), dtype=object).value_counts()
        row = str(keys.index[0])
        ts = [s for s in key.time_segments]
        prec = precision_name(ts[0]) if ts else "no time"
        ev.append(
            f"{loss.n_lost:,} of {len(c.ds):,} events are overwritten by another event in the same cell "
            f"(key time precision: {prec}); Bigtable keeps one per cell"
        )
        ev.append(f"row {row!r} receives {int(keys.iloc[0]):,} events")
    if loss.n_truncated:
        ev.append(
            f"{loss.n_truncated:,} events have sub-millisecond times; cell timestamps keep milliseconds and the "
            "key has no microsecond segment, so they are rounded"
        )
    cands: list[Callable[[], Schema]] = []
    for i, seg in enumerate(key.segments):
        if is_time(seg) and not seg.time_bucket:
            cands += [
                partial(with_segment, c.schema, key, i, seg.at_precision(p))
                for p in finer_precisions(seg)
            ]
    if isinstance(c.schema.layout, Wide):
        idx = next((j for j, s in enumerate(key.segments) if s.bucket_choice() in PRECISIONS), None)
        if idx is not None:
            cands += [partial(finer_wide, c.schema, key, idx, b, q) for b, q in FINER_WIDE]
    sugg = first_lossless(cands, c.ds)
    if sugg is None and not key.time_segments:
        sugg = lossless_tall(c, key)
    if sugg is not None:
        sugg = renamed(
            sugg,
            "no collisions",
            f"Key precision that keeps every event: {sugg.key.template()} (G31).",
        )
    yield make_finding(
        "collisions",
        "error",
        ("G31",),
        "Events collide: data would be lost",
        ev,
        fix="Use a finer time precision in the key (µs for sub-second data), or promote another field",
        suggestion=sugg,
        row_key=row,
        lost=loss.n_lost,
        truncated=loss.n_truncated,
    )


# ----------------------------------------------------------------------------- G04 / G05: full-table scans


def _keyed_for(c: Context, q: QueryIntent) -> Schema | None:
    """A better design for query ``q``: entity first when time leads the key (G04), else a second
    table keyed for it, the query's fixed fields first (G05)."""
    key = c.schema.key
    i = lead_index(key)
    if i is not None and is_time(key.segments[i]):
        sugg = renamed(
            replace(c.schema, key=promote(key, c.ds)), "entity first", "Entity first (G04)."
        )
    else:
        fixed = [e for e in c.ds.entity if e in q.entity]
        rest = [e for e in c.ds.entity if e not in q.entity]
        tseg = next(iter(key.time_segments), None) or Timestamp("us")
        # the query's fixed fields, then time (so its range is one contiguous read), then the rest;
        # a measure segment stays (a layout with the value in the qualifier needs it in the key)
        metric = (key.metric,) if key.metric is not None else ()
        nk = RowKey(
            (*(Field(e) for e in fixed), tseg, *(Field(e) for e in rest), *metric), key.delimiter
        )
        tname = re.sub(r"[^A-Za-z0-9_]", "_", f"by_{q.name}")[:30]
        sugg = None
        if tname not in [n for n, _ in c.tables]:
            sugg = renamed(
                replace(c.schema, tables=(*c.schema.tables, Table(tname, nk))),
                f"table {tname}",
                f"A second table keyed for {q.name}: {nk.template()} (G05).",
            )
    return sugg


# the share of rows read that a query keeps, below which reading a prefix and filtering it is
# worth a finding: 3 rows read per row kept (the paper's LoL#March read keeps about 1 in 10)
QUERY_FILTER_WASTE = 3.0


# a read that sees at least this share of its table's rows covers (nearly) the whole table
WHOLE_TABLE = 0.9
# a query carrying at least this share of the workload's weight makes cell/byte waste a warning
HEAVY_QUERY = 0.2


def _waste_line(t: pd.DataFrame, name: str) -> str:
    """Rows, cells and bytes read against returned, each with its waste."""
    r = t.loc[name]

    def one(what: str, seen: float, ret: float, fmt) -> str:
        what = f" {what}" if what else ""  # bytes carry their unit: "24.0 kB read", not "kB bytes"
        return f"{fmt(seen)}{what} read for {fmt(ret)} returned ({seen / max(ret, 1):,.1f}×)"

    return (
        "; ".join(
            [
                one("rows", r["rows_seen"], r["rows_returned"], lambda v: f"{int(v):,}"),
                one("cells", r["cells_seen"], r["cells_returned"], lambda v: f"{int(v):,}"),
                one("", r["bytes_seen"], r["bytes_returned"], human_bytes),
            ]
        )
        + f"; {float(r['node_ms']):,.3g} node-ms per run on the sample"
        + _at_production(r)
    )


def _at_production(r: pd.Series) -> str:
    """The same run at production (the planner's one read cost), when the workload priced it."""
    ms = float(r.get("production_node_ms", float("nan")))
    return f", {ms:,.3g} at production" if ms == ms else ""


@rule("query_filter", "G04", "G05")
def query_filter(c: Context) -> Iterable[Finding]:
    """A query that reads a key range and filters most of it away (not a full scan: that is
    ``full_scan``): the key does not fit the query (G04); a second table keyed for it reads only
    what it returns (G05). A slice across every entity is expected to read widely, so it is
    noted only when its ranges add up to (nearly) the whole table; reads that return every row
    they see but few of its cells (wide rows) are noted by their cell and byte waste (G10)."""
    a = c.analysis
    if a is None:
        return
    t = a.queries.table
    total_w = sum(q.weight for q in c.ds.queries) or 1.0
    for q in c.ds.queries:
        if q.kind == "scan" or q.name not in a.queries.plans:
            continue
        plan = a.queries.plans[q.name]
        if plan.full_scan:
            continue  # full_scan's
        waste = float(t.loc[q.name, "waste"])
        seen, ret = int(t.loc[q.name, "rows_seen"]), int(t.loc[q.name, "rows_returned"])
        lo, hi = a.index.table_rows(plan.table)
        rows = max(hi - lo, 1)
        line = _waste_line(t, q.name)
        if waste >= QUERY_FILTER_WASTE and (q.entity or seen >= WHOLE_TABLE * rows):
            whole = seen >= WHOLE_TABLE * rows
            # the title and the evidence say the plan's one range count, in the right number
            ranges = counted(plan.n_ranges, "range")
            ev = [f"query {q.name!r} ({q.kind}, weight {q.weight:g}): {plan.describe()}", line]
            if whole:
                ev.append(
                    f"its {ranges} {'covers' if plan.n_ranges == 1 else 'cover'} {seen:,} of "
                    f"the table's {rows:,} rows: "
                    "a full-table scan in all but name"
                )
            yield make_finding(
                "query_filter",
                "warning" if q.entity else "info",
                ("G04", "G05"),
                f"{q.name} reads {waste:,.1f}× the rows it returns"
                + (f" (the whole table through {ranges})" if whole else " (query and filter)"),
                ev
                + (
                    []
                    if q.entity
                    else [
                        "a slice across every entity: if it matters, serve it from a second "
                        "table keyed by time or from pre-aggregated rows (G05, G29)"
                    ]
                ),
                fix="Put the fields this query fixes first in the key (G04), or add a second table keyed "
                "for it instead of query-and-filter (G05)",
                suggestion=_keyed_for(c, q) if q.entity else None,
                table=plan.table,
                rows_seen=seen,
                rows_returned=ret,
                waste=waste,
            )
            continue
        cells_w = float(t.loc[q.name, "cells_seen"]) / max(
            float(t.loc[q.name, "cells_returned"]), 1
        )
        bytes_w = float(t.loc[q.name, "byte_waste"])
        if waste < QUERY_FILTER_WASTE and max(cells_w, bytes_w) >= 10 * QUERY_FILTER_WASTE:
            heavy = q.weight / total_w >= HEAVY_QUERY
            yield make_finding(
                "query_filter",
                "warning" if heavy else "info",
                ("G10", "G14"),
                f"{q.name} reads {bytes_w:,.0f}× the bytes it returns inside wide rows",
                [
                    f"query {q.name!r} ({q.kind}, weight {q.weight:g}): {plan.describe()}",
                    line,
                    "the rows are the right ones, but each holds far more cells than the query "
                    "needs; Bigtable reads every cell of a row it visits before the filter drops "
                    "them",
                ],
                fix="Narrow the rows (a shorter time bucket, G10) or split the cells this query "
                "needs into their own rows or family (G14)",
                table=plan.table,
                cell_waste=cells_w,
                byte_waste=bytes_w,
            )


@rule("full_scan", "G04", "G05")
def full_scan(c: Context) -> Iterable[Finding]:
    a = c.analysis
    if a is None:
        return
    t = a.queries.table
    for q in c.ds.queries:
        if q.kind == "scan" or q.name not in a.queries.plans:
            continue
        plan = a.queries.plans[q.name]
        if not plan.full_scan:
            continue
        seen, ret = int(t.loc[q.name, "rows_seen"]), int(t.loc[q.name, "rows_returned"])
        # the whole table, as a forward read (and the emulator, which has no reverse scans) sees it
        worst = int(t.loc[q.name, "emulator_rows_seen"])
        if plan.reversed and plan.rows_limit:
            ev = [
                f"query {q.name!r} ({q.kind}, weight {q.weight:g}) has no key range: a reverse scan "
                f"from the end of the table reads until {plan.rows_limit:,} row(s) match: "
                f"{seen:,} rows read to return {ret:,} "
                f"({float(t.loc[q.name, 'waste']):,.0f}× waste) here, because this entity wrote "
                "recently; for an entity that stopped "
                f"writing it reads up to all {worst:,} rows (the emulator, with no reverse scans, "
                f"always does)"
            ]
        else:
            ev = [
                f"query {q.name!r} ({q.kind}, weight {q.weight:g}) has no key range: it reads all "
                f"{seen:,} rows to return {ret:,} ({float(t.loc[q.name, 'waste']):,.0f}× waste)"
            ]
        if not q.entity:
            yield make_finding(
                "full_scan",
                "info",
                ("G05", "G04"),
                f"{q.name}: a slice across every entity is a full-table scan",
                ev
                + [
                    "expected with an entity-first key; if it matters, serve it from a second table or "
                    "pre-aggregated rows (G05, G29)"
                ],
                table=plan.table,
            )
            continue
        sugg = _keyed_for(c, q)
        yield make_finding(
            "full_scan",
            "warning",
            ("G04", "G05"),
            f"{q.name} is served by a full-table scan",
            ev,
            fix="Key the table for this query (entity fields first, G04), or add a second table keyed for "
            "it instead of query-and-filter (G05)",
            suggestion=sugg,
            table=plan.table,
            rows_seen=seen,
            rows_returned=ret,
            worst_rows_seen=worst,
        )
    errors = a.queries.table["error"] if "error" in a.queries.table else pd.Series(dtype=object)
    for name, err in errors.items():
        if isinstance(err, str) and err:
            yield make_finding(
                "full_scan",
                "info",
                ("G04",),
                f"{name}: this design cannot plan the query",
                [str(err)],
            )


# ----------------------------------------------------------------------------- G09: reversed timestamps


@rule("reversed_time_use", "G09")
def reversed_time_use(c: Context) -> Iterable[Finding]:
    key = c.schema.key
    i = lead_index(key)
    rev = [s for j, s in enumerate(key.segments) if s.time_order < 0 and j != i]
    if not rev or not c.ds.queries:
        return
    latest = sum(q.weight for q in c.ds.queries if q.kind == "latest")
    ranges = sum(q.weight for q in c.ds.queries if q.kind in ("range", "slice"))
    if latest >= ranges:
        return
    yield make_finding(
        "reversed_time_use",
        "info",
        ("G09",),
        "Reversed timestamps, but latest-N is not the main query",
        [
            f"latest queries weigh {latest:g} vs {ranges:g} for time ranges: ranges must be given newest-first"
        ],
        fix="Keep reversed timestamps only when latest-N reads dominate",
    )


__all__ = ["RULES", "Rule", "rule", "pii_kind"]


@rule("left_out", "G12", "G02")
def left_out(c: Context) -> Iterable[Finding]:
    """Attribute columns the layout cannot carry (a value-in-the-qualifier or wide layout holds
    only measures beside the key): left out of what is judged, as ``wb.compare`` leaves them
    out, and said, since a load of this design would not store them."""
    if not c.left_out:
        return
    dropped = [
        a
        for a in (c.source.attributes if c.source is not None else ())
        if a not in c.ds.frame.columns
    ]
    yield make_finding(
        "left_out",
        "warning",
        ("G12", "G02"),
        f"{', '.join(map(repr, dropped)) or 'A column'} not stored by this design",
        [
            c.left_out,
            "every other finding judges the events without it",
        ],
        fix="Name the column as a measure or an entity (from_csv/from_dataframe), or choose a "
        "layout that carries it in cells (tall, serialized)",
        left_out=dropped,
    )
