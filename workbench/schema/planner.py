"""The read-plan compiler: the ReadRows request an experienced engineer would send.

The model, step by step (each step a function here, in ``walk_steps.py`` (the walk) or in
``latest_plan.py``; segment texts come from ``key_text.py``, the choices and their prices from
``plan_choice.py``; tested on a hand-made case in ``tests/schema/test_planner_steps.py``):

1. **Walk the key** (:func:`walk_key`), left to right, one planner per kind of segment:
   a literal or a field the query fixes adds its text (:func:`fixed_field`); a measure name
   adds one branch per measure needed (:func:`metric_names`); a salt the query cannot compute
   adds one branch per bucket (:func:`salted_fanout`, G08); a time segment adds a point
   read's text, or the time buckets of a range when fixed parts of the key follow
   (:func:`time_buckets`), or ends the prefix at the range's bounds (:func:`time_segment`);
   an open field whose values the dataset's series list adds one row range per value, all in
   one request (:func:`known_value_ranges`, G11; the plan then says it assumes the application
   knows every value); anything else ends the prefix.
2. **Ranges or keys** (:func:`key_ranges`): every segment fixed gives row keys (point reads),
   otherwise one prefix (or prefix + time bounds) per branch; no prefix is a full scan.
3. **Server-side filters** for what the key cannot narrow: a row-key regex for fields fixed
   after the stop (:func:`row_key_regex`), the measures' columns (:func:`column_filter`) and
   the cells' timestamp range (:func:`time_filter`).
4. **Latest-N** (``latest_plan.latest_n``): a reversed key's prefix + rows limit, the newest versions
   of a versioned layout, a reverse scan with a rows limit (per range when there are several,
   G09), or the whole range read and the client keeping the newest; for the newest of one
   entity in time buckets, a reverse scan or the row keys of the current and the previous
   bucket (``latest_plan.newest_bucket``).
5. **The cheapest of every alternative** (:func:`alternatives`, :func:`plan_query`). When the
   design has read costs (``Schema.bind(ds, costs=..., entities=...)``), each choice point of
   the walk is a ``ChoiceWalk.choose``: list the known values (at any production count, in
   several requests past ``ReadCosts.ranges_per_request``) or scan them, the time buckets or one
   range with a regex, the salt fan-out or one scan, the newest bucket rows by key or a reverse
   scan, or the whole table with filters. The walk is replayed with every combination, on every
   table (a second table, G05) and the pre-aggregated rows (:func:`_summary_plan`, G29); each
   plan is priced by ``plan_choice.estimate`` at the entity counts bound with ``entities=``, the
   cheapest is kept (within 0.5 %: :class:`PlanRank`) and its note names the runner-up with both
   estimates (``ReadPlan.runner_up``). Without costs the walk takes the default at each point
   (at most ``ENUMERATE_VALUES_MAX`` known values listed) and :class:`PlanRank` picks the table:
   no full scan, longest prefix, fewest scans, no regex.

The emulator's form of the same plan is ``ReadPlan.on_emulator()``.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .key_text import narrowed, render_one
from .key_walk import KeyWalk, Query, us_of
from .keys import RowKey
from .latest_plan import Latest, latest_n
from .layouts import Layout
from .plan import (
    CellFilter,
    KeyRange,
    ReadPlan,
    prefix_end,
)
from .plan_choice import ChoiceWalk, Priced, estimate, price_note
from .segments import TIME
from .time_text import US_PER_MS
from .walk_steps import walk_key

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import QueryIntent
    from .schema import Schema


# ----------------------------------------------------------------------------- ranges and filters


def key_ranges(w: KeyWalk, key: RowKey) -> tuple[list[KeyRange], tuple[str, ...]]:
    """The walk's branches as row keys (every segment fixed: point reads) or row ranges (a
    prefix each, or a prefix plus the time range's bounds); no branch text is a full scan."""
    d = key.delimiter
    if w.complete:
        last_sd = key.segments[-1].self_delimited
        return [], tuple(
            b[: -len(d)] if b.endswith(d) and not last_sd else b.rstrip(d) for b in w.branches
        )
    if w.time_range is not None:
        lo, hi = w.time_range
        return [
            KeyRange(
                start=b + lo if lo is not None else (b or None),
                end=prefix_end(b + hi) if hi is not None else (prefix_end(b) if b else None),
            )
            for b in w.branches
        ], ()
    return ([KeyRange.for_prefix(b) for b in w.branches if b] if any(w.branches) else []), ()


def row_key_regex(key: RowKey, w: KeyWalk, q: Query) -> str | None:
    """A row-key regex for what the query fixes after the point where the key stopped helping
    (fixed fields, some tags, some measures); None when nothing after the stop is fixed."""
    if w.stop is None:
        return None
    d = key.delimiter
    first_unused = w.stop + (0 if w.partial_tags or w.stop_reason == "full scan" else 1)
    needed = q.needed
    m = key.metric  # the segment naming the measure, if any
    measures = (m.measures or q.measures) if m is not None else ()
    later_known = any(
        (set(s.sources()) <= set(q.known) and set(s.sources()) - {TIME} and s.recovers())
        or (s.self_delimited and set(s.sources()) & set(q.known))  # tags: each narrows
        # a measure in the key after the stop, when the query needs only some measures
        or (s.names_measure and needed is not None and not set(measures) <= set(needed))
        for s in key.segments[first_unused:]
    )
    if not later_known:
        return None
    parts = []
    for j, s in enumerate(key.segments):
        sep = "" if (s.self_delimited or j == len(key.segments) - 1) else re.escape(d)
        srcs = set(s.sources())
        if s.self_delimited:
            parts.append(s.regex(d, q.known))
        elif s.names_measure and m is not None:
            ms = tuple(x for x in measures if needed is None or x in needed)
            alt = "(?:" + "|".join(re.escape(m.name_of(x)) for x in ms) + ")"
            parts.append((alt if ms else s.regex(d)) + sep)
        elif srcs and srcs <= set(q.known) and TIME not in srcs:
            parts.append(re.escape(render_one(key, j, q.known, None)) + sep)
        elif (narrow := narrowed(key, j, q.known, q.shape)) is not None:
            # the values that go with the fixed fields (the hosts of one site)
            parts.append("(?:" + "|".join(re.escape(t) for t in narrow) + ")" + sep)
        else:
            parts.append(s.regex(d) + sep)
    w.notes.append("the key does not fit this query: rows are filtered by a row-key regex")
    return "".join(parts)


def column_filter(
    key: RowKey, q: Query, layout: Layout | None, schema: Schema, aggregate: bool, w: KeyWalk
) -> tuple[tuple[str, ...] | None, str | None]:
    """Families and qualifier regex: the columns of the measures the query needs (and the
    columns that carry entity values), when the layout keeps measures in separate columns."""
    fam = qual = None
    shape = q.shape
    if not aggregate and layout is not None and q.needed and key.metric is None and shape:
        cols = tuple(m for m in shape.measures if m in q.needed) + schema.carried_columns(key)
        cf = layout.column_filter(cols)
        if cf is None:
            w.notes.append(
                "the serialized cell holds every measure: no column filter possible (G14)"
            )
        else:
            fam = cf.get("families")
            qual = cf.get("qualifier_regex")
    if fam is None and not aggregate and layout is not None and schema.aggregates is not None:
        # keep the summary family out of the events' reads
        fam = tuple(f.name for f in layout.families(q.measures))
    return fam, qual


def time_filter(q: Query) -> tuple[int | None, int | None] | None:
    """The cells' timestamp range: the point's millisecond, or the range widened to whole
    milliseconds (Bigtable cell timestamps are in ms)."""
    it = q.intent
    if it.kind in ("scan", "latest"):
        return None
    if q.t_point is not None:
        lo_ms = q.t_point - q.t_point % US_PER_MS
        return (lo_ms, lo_ms + US_PER_MS)
    if not q.has_range:
        return None
    lo = us_of(it.start) - us_of(it.start) % US_PER_MS if it.start is not None else None
    hi = -((-us_of(it.end)) // US_PER_MS) * US_PER_MS if it.end is not None else None
    return (lo, hi)


# ----------------------------------------------------------------------------- composition


@dataclass(frozen=True, order=True)
class PlanRank:
    """How well a table's key serves a query, best first: no full scan, the longest prefix,
    the fewest scans, no row-key regex. :meth:`Schema.plan` picks the best table by it."""

    full_scan: bool
    unpinned: int  # minus the segments the prefix fixes: longer prefixes sort first
    scans: int
    regex: bool


@dataclass(frozen=True)
class RankedPlan:
    """A plan with its rank among the candidate tables of one design, and the walk that built
    it (its choices, for the cost estimate)."""

    plan: ReadPlan
    rank: PlanRank
    walk: ChoiceWalk | None = None


def compile_ranked(
    key: RowKey,
    table: str,
    intent: QueryIntent,
    layout: Layout | None,
    schema: Schema,
    aggregate: bool = False,
    script: tuple[bool, ...] = (),
) -> RankedPlan:
    """The plan for ``intent`` on one table keyed by ``key`` (``aggregate``: its summary rows),
    with its rank: walk the key (its choices as ``script`` says), turn the walk into ranges or
    keys, add the server-side filters, bound a latest-N read."""
    q = Query.of(intent, schema)
    w = walk_key(key, q, script)
    ranges, keys = key_ranges(w, key)
    regex = row_key_regex(key, w, q)
    fam, qual = column_filter(key, q, layout, schema, aggregate, w)
    latest = latest_n(key, w, q, layout, regex) if intent.kind == "latest" else Latest()
    tf = time_filter(q)
    if latest.keys is not None:  # the newest bucket rows, named
        ranges, keys, regex = [], latest.keys, None
    if intent.kind == "scan":
        tf, regex, ranges, keys = None, None, [], ()
    plan = ReadPlan(
        intent=intent.name,
        table=table,
        ranges=tuple(ranges),
        keys=keys,
        filter=CellFilter(
            families=fam,
            qualifier_regex=qual,
            row_key_regex=regex,
            time_range_us=tf,
            latest_versions=latest.latest_versions,
        ),
        rows_limit=latest.rows_limit,
        reversed=latest.reverse,
        note="; ".join(dict.fromkeys(w.notes)),
        client_keeps=latest.client_keeps,
        limit_per_range=latest.limit_per_range,
        assumes=tuple(w.assumed.items()),
    )
    rank = PlanRank(plan.full_scan, -w.pinned, plan.scans, regex is not None)
    return RankedPlan(plan, rank, w)


def table_walks(
    key: RowKey,
    table: str,
    intent: QueryIntent,
    layout: Layout | None,
    schema: Schema,
    aggregate: bool = False,
) -> list[RankedPlan]:
    """Every plan the key allows for ``intent``: the walk replayed with each combination of
    choices (depth first: each choice the last walk took by default is flipped in turn). A
    design without costs makes no choices: one plan."""
    out: list[RankedPlan] = []
    todo: list[tuple[bool, ...]] = [()]
    while todo:
        script = todo.pop()
        r = compile_ranked(key, table, intent, layout, schema, aggregate, script)
        out.append(r)
        made = r.walk.made if r.walk is not None else []
        for j in range(len(script), len(made)):
            todo.append(tuple(v for _, v in made[:j]) + (not made[j][1],))
    return out


def alternatives(schema: Schema, intent: QueryIntent) -> list[Priced]:
    """Every plan a design allows for ``intent``, cheapest first by the estimate at the entity
    counts the schema is bound with (ties and unknown estimates by :class:`PlanRank`): the
    pre-aggregated rows when they answer it (G29), each table's walks (a second table, G05),
    each with what it chose. Identical plans are listed once."""
    q = Query.of(intent, schema)
    agg = schema.aggregates
    out: list[Priced] = []
    several = len(schema.all_tables()) > 1
    if agg is not None and agg.applies_to(intent):
        akey = agg.key(schema.key)
        quals = agg.qualifiers(intent, schema.measure_names())
        cells = len(quals) if quals else len(agg.stats) * max(len(q.measures), 1)
        for r in table_walks(akey, schema.table, intent, None, schema, aggregate=True):
            assert r.walk is not None
            p = _summary_plan(schema, intent, r.plan)
            est = estimate(p, r.walk, akey, q, events=_summary_rows(schema), cells_per_row=cells)
            label = "the pre-aggregated rows (G29)" + (f": {r.walk.label}" if r.walk.label else "")
            out.append(Priced(p, label, est, (0, r.rank)))
    for tname, key in schema.all_tables():
        for r in table_walks(key, tname, intent, schema.layout, schema):
            assert r.walk is not None
            est = estimate(r.plan, r.walk, key, q, multi_event=schema.layout.multi_event)
            label = "; ".join(x for x in (f"table {tname!r}" if several else "", r.walk.label) if x)
            out.append(Priced(r.plan, label, est, (1, r.rank)))
    seen: set[tuple[object, ...]] = set()
    uniq = []
    for c in sorted(out, key=lambda c: (c.est_s is None, c.est_s or 0.0, c.rank)):
        ident = _identity(c.plan)
        if ident not in seen:
            seen.add(ident)
            uniq.append(c)
    # estimates equal but for rounding tie: the rank decides among them (no full scan,
    # longer prefix, fewer scans, no regex)
    low = uniq[0].est_s if uniq else None
    if low is None:
        return sorted(uniq, key=lambda c: c.rank)
    tied = [c for c in uniq if c.est_s is not None and c.est_s <= low * TIE]
    return sorted(tied, key=lambda c: c.rank) + [c for c in uniq if c not in tied]


TIE = 1 + 1e-9  # estimates equal but for rounding are a tie


def _identity(p: ReadPlan) -> tuple[object, ...]:
    return (p.table, p.ranges, p.keys, p.filter, p.rows_limit, p.reversed, p.limit_per_range)


def plan_query(schema: Schema, intent: QueryIntent) -> ReadPlan:
    """A design's plan for ``intent``: the cheapest of :func:`alternatives` by the estimate,
    its note naming the runner-up and both estimates (without costs, the best by
    :class:`PlanRank`: the pre-aggregated rows when they answer it, G29, else the table whose
    key serves it best, a second table keyed for this query, G05)."""
    alts = alternatives(schema, intent)
    best = alts[0]
    runner = next((a for a in alts[1:] if a.est_s is not None), None)
    p = best.plan
    note = p.note
    if len(schema.all_tables()) > 1 and best.rank[0] == 1:
        note = f"table {p.table!r} has the key for this query (G05). " + note
    priced = price_note(best, runner)
    if priced:
        note = (note + ("; " if note else "") + priced).strip()
    return dataclasses.replace(
        p,
        note=note.strip(),
        est_node_ms=None if best.est_s is None else best.est_s * 1e3,
        cost=best.cost,
        runner_up=runner.label or runner.plan.kind if runner is not None else "",
        runner_up_node_ms=(None if runner is None or runner.est_s is None else runner.est_s * 1e3),
    )


def _summary_rows(schema: Schema) -> float | None:
    """Summary rows the aggregates hold in the sample: one per series and bucket at most."""
    shape, agg = schema.shape, schema.aggregates
    if shape is None or agg is None or shape.span_us is None or shape.series is None:
        return None
    step = _AGG_BUCKET_US.get(agg.bucket, 0)
    if step <= 0:
        return None
    buckets = (shape.span_us[1] - shape.span_us[0]) // step + 1
    return float(min(shape.events, len(shape.series) * buckets))


_AGG_BUCKET_US = {
    "minute": 60_000_000,
    "hour": 3_600_000_000,
    "day": 86_400_000_000,
    "week": 7 * 86_400_000_000,
    "month": 30 * 86_400_000_000,
}


def _summary_plan(schema: Schema, intent: QueryIntent, p: ReadPlan) -> ReadPlan:
    """A plan over the summary key narrowed to the summary family and the cells it needs."""
    agg = schema.aggregates
    assert agg is not None
    # each summary row holds every statistic of every measure; a dashboard needs one or two
    quals = agg.qualifiers(intent, schema.measure_names())
    qual = None if quals is None else "|".join(re.escape(c) for c in quals)
    what = "" if quals is None else f", only the cells {', '.join(quals)}"
    return dataclasses.replace(
        p,
        filter=dataclasses.replace(p.filter, families=(agg.family.name,), qualifier_regex=qual),
        note=(f"reads the pre-aggregated {agg.name} rows (G29){what}. " + p.note).strip(),
    )
