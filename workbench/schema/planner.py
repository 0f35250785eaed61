"""The read-plan compiler: the ReadRows request an experienced engineer would send.

The model, step by step (each step a function here or in ``latest_plan.py``; segment texts
come from ``key_text.py``; tested on a hand-made case in
``tests/test_planner_steps.py``):

1. **Walk the key** (:func:`walk_key`), left to right, one planner per kind of segment:
   a literal or a field the query fixes adds its text (:func:`fixed_field`); a measure name
   adds one branch per measure needed (:func:`metric_names`); a salt the query cannot compute
   adds one branch per bucket (:func:`salted_fanout`, G08); a time segment adds a point
   read's text, or the time buckets of a range when fixed parts of the key follow
   (:func:`time_buckets`; only when the cost estimate of :func:`bucket_or_range` finds them
   cheaper than one range with a row-key regex, and the plan's note names the runner-up and
   both estimates), or ends the prefix at the range's bounds (:func:`time_segment`);
   an open field whose values form a small known set (the dataset's own values,
   ``Shape.known_values``) adds one row range per value, all in one request, while the
   values listed stay within ``ENUMERATE_VALUES_MAX`` (:func:`known_value_ranges`, G11; the
   plan then says it assumes the application knows every value); anything else ends the
   prefix.
2. **Ranges or keys** (:func:`key_ranges`): every segment fixed gives row keys (point reads),
   otherwise one prefix (or prefix + time bounds) per branch; no prefix is a full scan.
3. **Server-side filters** for what the key cannot narrow: a row-key regex for fields fixed
   after the stop (:func:`row_key_regex`), the measures' columns (:func:`column_filter`) and
   the cells' timestamp range (:func:`time_filter`).
4. **Latest-N** (``latest_plan.latest_n``): a reversed key's prefix + rows limit, the newest versions
   of a versioned layout, a reverse scan with a rows limit (per range when there are several,
   G09), or the whole range read and the client keeping the newest; for the newest of one
   entity in time buckets, a reverse scan or the row keys of the current and the previous
   bucket, whichever the cost estimate finds cheaper (``latest_plan.newest_bucket``, the
   runner-up in the note).
5. **Across a design** (:func:`plan_query`): the pre-aggregated rows when they answer the
   query (:func:`aggregate_rows`, G29), else the table whose key ranks best (:class:`PlanRank`:
   no full scan, longest prefix, fewest scans, no regex; a second table, G05).

The emulator's form of the same plan is ``ReadPlan.on_emulator()``.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .key_text import bucket_us, later_fixed, narrowed, render_one, render_values, time_texts
from .key_walk import KeyWalk, Query, us_of
from .keys import RowKey
from .latest_plan import Latest, latest_n
from .layouts import Layout
from .plan import (
    ENUMERATE_VALUES_MAX,
    RANGES_MAX,
    CellFilter,
    KeyRange,
    ReadPlan,
    prefix_end,
)
from .segments import TIME, Literal, Metric, Salt, Tags
from .time_text import US_PER_MS

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import QueryIntent
    from .schema import Schema


# ----------------------------------------------------------------------------- the walk


# Each planner below handles one segment of the key and returns whether the walk goes on.


def literal_text(w: KeyWalk, key: RowKey, i: int, q: Query) -> bool:
    """A literal: every range continues with its text."""
    seg = key.segments[i]
    assert isinstance(seg, Literal)
    w.add(seg.text + _sep(key, i))
    return True


def metric_names(w: KeyWalk, key: RowKey, i: int, q: Query) -> bool:
    """A measure name in the key: one branch per measure the query needs."""
    seg = key.segments[i]
    assert isinstance(seg, Metric)
    ms = seg.measures or q.measures
    if not ms:
        return w.halt(i, "the measure list is unknown")
    w.fan([seg.name_of(m) for m in ms if q.needed is None or m in q.needed], _sep(key, i))
    return True


def salted_fanout(w: KeyWalk, key: RowKey, i: int, q: Query) -> bool:
    """A salt the query cannot compute: one scan per bucket, merged by the client (G08)."""
    seg = key.segments[i]
    assert isinstance(seg, Salt)
    w.fan(seg.buckets(), _sep(key, i))
    w.merged = True
    w.notes.append(f"salted with {seg.n} buckets: one scan per bucket (G08)")
    return True


def tag_prefix(w: KeyWalk, key: RowKey, i: int, q: Query) -> bool:
    """Heroic tags not all fixed: the leading fixed ``name=value,`` pairs, then stop."""
    seg = key.segments[i]
    assert isinstance(seg, Tags)
    txt = ""
    for c in seg.columns:
        if c not in q.known:
            break
        v = str(q.known[c])
        txt += f"{c}={v}{key.delimiter}" if v != "" else ""
    w.add(txt)
    w.partial_tags = True
    return w.halt(i, "not every tag is fixed")


def fixed_field(w: KeyWalk, key: RowKey, i: int, q: Query) -> bool:
    """A field the query fixes (or a point read's time): its one text."""
    w.add(render_one(key, i, q.known, q.t_point) + _sep(key, i))
    return True


def time_segment(w: KeyWalk, key: RowKey, i: int, q: Query) -> bool:
    """A time segment: a point read's one text, a range's bucket enumeration when fixed parts
    of the key follow, else the range's bounds (and the walk stops)."""
    if q.t_point is not None:
        return fixed_field(w, key, i, q)
    if not q.has_range:
        return w.halt(i, "time")
    if time_buckets(w, key, i, q):
        return True
    seg = key.segments[i]
    lo = render_one(key, i, q.known, q.lo_t) if q.lo_t is not None else None
    hi = render_one(key, i, q.known, q.hi_t) if q.hi_t is not None else None
    w.time_range = (lo, hi) if seg.time_order > 0 else (hi, lo)
    w.pinned += 1
    return w.halt(i, "time range")


def time_buckets(w: KeyWalk, key: RowKey, i: int, q: Query) -> bool:
    """A coarse time segment followed by fixed parts of the key: each bucket the range covers,
    read with the rest of the key, instead of a range + row-key regex."""
    if q.lo_t is None or q.hi_t is None or not later_fixed(key, i, q.known):
        return False
    texts = time_texts(key, i, q.known, q.lo_t, q.hi_t, RANGES_MAX // len(w.branches))
    if texts is None:
        return False
    est = bucket_or_range(w, key, i, q, len(texts))
    what = f"{len(texts)} time bucket(s) of the range, each read with the rest of the key"
    one = "one range over the time range with a row-key regex"
    if est is not None and est[1] < est[0]:
        w.notes.append(
            f"{one} (est. {est[1] * 1e3:.3g} node-ms); runner-up: {what} "
            f"(est. {est[0] * 1e3:.3g} node-ms)"
        )
        return False
    w.fan(texts, _sep(key, i))
    w.notes.append(
        what
        + (
            ""
            if est is None
            else f" (est. {est[0] * 1e3:.3g} node-ms); runner-up: {one} "
            f"(est. {est[1] * 1e3:.3g} node-ms)"
        )
    )
    return True


def bucket_or_range(
    w: KeyWalk, key: RowKey, i: int, q: Query, n_texts: int
) -> tuple[float, float] | None:
    """Estimated node-seconds of (reading each time bucket with the rest of the key, one range
    over the time with a row-key regex), or None when the design has no costs or the dataset's
    series and span are unknown.

    Both read whole buckets of the time range, a share ``buckets × bucket length ÷ span`` of
    the events; the buckets read with the rest of the key see only the series with every
    field the query fixes, the one range every series with the fields fixed before the time.
    The buckets cost a seek each, the range one."""
    shape, costs = q.shape, q.costs
    step = bucket_us(key.segments[i])
    if shape is None or costs is None or shape.span_us is None or step <= 0:
        return None
    span = max(shape.span_us[1] - shape.span_us[0] + 1, step)
    share_t = min(1.0, n_texts * step / span)
    before = {c for s in key.segments[:i] for c in s.sources()}
    kb = {c: v for c, v in q.known.items() if c in before}
    shares = [shape.series_share({**kb, **bk}) for bk in w.bknown]
    mine = shape.series_share(q.known)
    if mine is None or any(x is None for x in shares):
        return None
    per_row = costs.row_s + len(q.measures) * costs.cell_s
    rows_b = shape.events * share_t * mine
    rows_r = shape.events * share_t * sum(x or 0.0 for x in shares)
    branches = len(w.branches)
    each = (
        costs.node_seconds(requests=1, seeks=branches * n_texts, rows=0, cells=0, nbytes=0)
        + rows_b * per_row
    )
    one = costs.node_seconds(requests=1, seeks=branches, rows=0, cells=0, nbytes=0) + (
        rows_r * per_row
    )
    return each, one


def known_value_ranges(w: KeyWalk, key: RowKey, i: int, q: Query) -> bool:
    """A field the query leaves open whose values form a small known set (the dataset's own,
    narrowed by the fields already fixed): one row range per value, all in one ReadRows request
    (G11), instead of scanning past the other values. Otherwise the walk stops here."""
    srcs = set(key.segments[i].sources())
    open_cols = srcs - set(q.known)
    col = next(iter(open_cols)) if len(open_cols) == 1 and TIME not in srcs else None
    shape = q.shape
    per_branch = (
        [shape.known_values(col, {**q.known, **bk}) for bk in w.bknown]
        if (col is not None and shape is not None)
        else [None]
    )
    every = shape.known_values(col) if col is not None and shape is not None else None
    prod = shape.production_count(col) if col is not None and shape is not None else None
    if col is not None and prod is not None and every and prod > ENUMERATE_VALUES_MAX:
        # the sample lists few values, production many more: plan for production
        w.notes.append(
            f"at {prod:,} {col} values in production (the count given; {len(every)} in the "
            f"sample), one range each is over the {ENUMERATE_VALUES_MAX}-value limit: the rows "
            "of every value are scanned"
        )
        return w.halt(i, "unknown " + ",".join(sorted(open_cols)))
    listed = {v for some in per_branch for v in (some or ())}
    if col is not None and every is None and len(listed) > ENUMERATE_VALUES_MAX:
        # each branch (a location) lists few values, all of them together more than the cap:
        # the application would hold the same open-ended registry the cap is there to avoid
        w.notes.append(
            f"{len(listed)} {col} values over the branches before it (each few, together over "
            f"the {ENUMERATE_VALUES_MAX}-value limit): the rows of every value are scanned"
        )
        return w.halt(i, "unknown " + ",".join(sorted(open_cols)))
    if (
        col is None
        or any(v is None for v in per_branch)
        or sum(len(v or ()) for v in per_branch) > RANGES_MAX
    ):
        if col is not None and shape is not None and col in shape.entity:
            w.notes.append(
                f"{col} is open-ended (more than {ENUMERATE_VALUES_MAX} values, or unknown): "
                "the rows of every value are scanned"
            )
        return w.halt(i, "unknown " + ",".join(sorted(open_cols)))
    sep = _sep(key, i)
    nb: list[str] = []
    nk: list[dict[str, object]] = []
    for b, bk, some in zip(w.branches, w.bknown, per_branch, strict=True):
        vals = tuple(some or ())
        texts = render_values(key, i, q.known, col, vals)
        seen_t: set[str] = set()
        for txt, val in sorted(zip(texts, vals, strict=True), key=lambda tv: tv[0]):
            if txt in seen_t:
                continue
            seen_t.add(txt)
            nb.append(b + txt + sep)
            nk.append({**bk, col: val})
    w.branches, w.bknown = nb, nk
    n_every = len(every or nb)
    w.notes.append(
        f"{len(nb)} ranges over the known {col} values: one row range each, one request; this "
        f"relies on the application listing every {col} ({n_every} in the sample"
        + (f", {prod:,} in production" if prod is not None else "")
        + f"): a {col} added later is missed until the list is updated"
    )
    w.assumed[col] = prod if prod is not None else n_every
    w.enumerated.add(col)
    w.merged = True
    return True


def _sep(key: RowKey, i: int) -> str:
    return "" if key.segments[i].self_delimited else key.delimiter


def _step_for(key: RowKey, i: int, q: Query) -> Any:
    """Which planner handles segment ``i`` for this query."""
    seg = key.segments[i]
    srcs = set(seg.sources())
    if isinstance(seg, Literal):
        return literal_text
    if isinstance(seg, Metric):
        return metric_names
    if isinstance(seg, Salt) and not srcs <= q.known_set:
        return salted_fanout
    if isinstance(seg, Tags) and not srcs <= set(q.known):
        return tag_prefix
    if TIME in srcs and seg.time_order != 0:
        return time_segment
    if srcs and srcs <= q.known_set:
        return fixed_field
    return known_value_ranges


def walk_key(key: RowKey, q: Query) -> KeyWalk:
    """The longest usable prefix: each segment left to right by its planner, until one stops."""
    w = KeyWalk()
    for i in range(len(key.segments)):
        if not _step_for(key, i, q)(w, key, i, q):
            break
        w.pinned += 1
    return w


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
    first_unused = w.stop + (0 if w.partial_tags else 1)
    needed = q.needed
    later_known = any(
        (set(s.sources()) <= set(q.known) and set(s.sources()) - {TIME} and s.recovers())
        or (isinstance(s, Tags) and set(s.sources()) & set(q.known))
        # a measure in the key after the stop, when the query needs only some measures
        or (
            isinstance(s, Metric)
            and needed is not None
            and not set(s.measures or q.measures) <= set(needed)
        )
        for s in key.segments[first_unused:]
    )
    if not later_known:
        return None
    parts = []
    for j, s in enumerate(key.segments):
        sep = "" if (s.self_delimited or j == len(key.segments) - 1) else re.escape(d)
        srcs = set(s.sources())
        if isinstance(s, Tags):
            parts.append(s.regex(d, q.known))
        elif isinstance(s, Literal):
            parts.append(re.escape(s.text) + sep)
        elif isinstance(s, Metric):
            ms = tuple(m for m in (s.measures or q.measures) if needed is None or m in needed)
            alt = "(?:" + "|".join(re.escape(s.name_of(m)) for m in ms) + ")"
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
    """A plan with its rank among the candidate tables of one design."""

    plan: ReadPlan
    rank: PlanRank


def compile_ranked(
    key: RowKey,
    table: str,
    intent: QueryIntent,
    layout: Layout | None,
    schema: Schema,
    aggregate: bool = False,
) -> RankedPlan:
    """The plan for ``intent`` on one table keyed by ``key`` (``aggregate``: its summary rows),
    with its rank: walk the key, turn the walk into ranges or keys, add the server-side
    filters, bound a latest-N read."""
    q = Query.of(intent, schema)
    w = walk_key(key, q)
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
    return RankedPlan(plan, PlanRank(plan.full_scan, -w.pinned, plan.scans, regex is not None))


def compile_plan(
    key: RowKey,
    table: str,
    intent: QueryIntent,
    layout: Layout | None,
    schema: Schema,
    aggregate: bool = False,
) -> ReadPlan:
    """The plan for ``intent`` on one table keyed by ``key`` (see :func:`compile_ranked`)."""
    return compile_ranked(key, table, intent, layout, schema, aggregate).plan


def plan_query(schema: Schema, intent: QueryIntent) -> ReadPlan:
    """A design's plan for ``intent``: its pre-aggregated rows when they answer it (G29), else
    the table whose key serves it best (a second table keyed for this query, G05)."""
    agg = schema.aggregates
    if agg is not None and agg.applies_to(intent):
        return aggregate_rows(schema, intent)
    cands = [
        compile_ranked(key, tname, intent, schema.layout, schema)
        for tname, key in schema.all_tables()
    ]
    best = min(cands, key=lambda c: c.rank).plan
    if len(cands) == 1:
        return best
    note = f"table {best.table!r} has the key for this query (G05). " + best.note
    return dataclasses.replace(best, note=note.strip())


def aggregate_rows(schema: Schema, intent: QueryIntent) -> ReadPlan:
    """The pre-aggregated summary rows (G29): the summary key, the summary family only."""
    agg = schema.aggregates
    assert agg is not None
    p = compile_plan(agg.key(schema.key), schema.table, intent, None, schema, aggregate=True)
    # each summary row holds every statistic of every measure; a dashboard needs one or two
    quals = agg.qualifiers(intent, schema.measure_names())
    qual = None if quals is None else "|".join(re.escape(c) for c in quals)
    what = "" if quals is None else f", only the cells {', '.join(quals)}"
    return dataclasses.replace(
        p,
        filter=dataclasses.replace(p.filter, families=(agg.family.name,), qualifier_regex=qual),
        note=(f"reads the pre-aggregated {agg.name} rows (G29){what}. " + p.note).strip(),
    )
