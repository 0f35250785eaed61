"""The read-plan compiler: the ReadRows request an experienced engineer would send.

``compile_plan`` walks a row key's segments left to right with what a query fixes and builds
the longest usable prefix: fixed fields are rendered, a small known value set (the dataset's
own values, ``Shape.values``) or the time buckets of a range become one row range each in one
request (G11), and the first open segment ends the prefix. What the key cannot narrow is left
to a server-side filter (row-key regex, column filter, timestamp range, versions) and, for
latest-N, to a reverse scan with a rows limit where Cloud Bigtable can run one (G09).
The emulator's form of the same plan is ``ReadPlan.on_emulator()``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .keys import RowKey
from .layouts import Layout, NewCells
from .plan import ENUMERATE_VALUES_MAX, RANGES_MAX, CellFilter, KeyRange, ReadPlan, prefix_end
from .segments import TIME, Literal, Metric, RenderContext, Salt, Tags
from .time_segments import BaseTimestamp
from .time_text import US_PER_MS

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import QueryIntent
    from .schema import Schema
    from .shape import Shape


def _render_one(key: RowKey, i: int, known: Mapping[str, Any], t: int | None) -> str:
    seg = key.segments[i]
    cols = {c: pd.Series([v]) for c, v in known.items()}
    tt = np.array([t if t is not None else 0], dtype=np.int64)
    ctx = RenderContext(cols, tt, key.delimiter)
    if isinstance(seg, Salt) and TIME in seg.sources():
        ts = key.time_segments[0]
        ctx.time_coded = ts.coded(ctx)
    return str(seg.render(ctx)[0])


def _render_values(
    key: RowKey, i: int, known: Mapping[str, Any], col: str, values: Sequence[object]
) -> list[str]:
    """Segment ``i``'s text for each value of ``col`` (other columns fixed to ``known``)."""
    n = len(values)
    cols = {c: pd.Series([v] * n) for c, v in known.items()}
    cols[col] = pd.Series(list(values))
    ctx = RenderContext(cols, np.zeros(n, dtype=np.int64), key.delimiter)
    return [str(x) for x in key.segments[i].render(ctx)]


# the shortest bucket of each precision: stepping by it visits every bucket of a range
_STEP_US = {
    "us": 1,
    "ms": 1_000,
    "second": 1_000_000,
    "minute": 60_000_000,
    "hour": 3_600_000_000,
    "day": 86_400_000_000,
    "week": 7 * 86_400_000_000,
    "month": 28 * 86_400_000_000,
}


def _time_texts(
    key: RowKey, i: int, known: Mapping[str, Any], lo: int, hi: int, limit: int
) -> list[str] | None:
    """The distinct texts time segment ``i`` takes over [lo, hi] µs, or None when there are
    more than ``limit`` or the segment's bucket length is unknown."""
    seg = key.segments[i]
    if isinstance(seg, BaseTimestamp):
        step = (1 << seg.bits) * US_PER_MS
    else:
        step = _STEP_US.get(str(getattr(seg, "precision", "")), 0)
    if step <= 0 or hi < lo or (hi - lo) // step + 2 > limit:
        return None
    t = np.unique(np.r_[np.arange(lo, hi + 1, step, dtype=np.int64), np.int64(hi)])
    cols = {c: pd.Series([v] * len(t)) for c, v in known.items()}
    ctx = RenderContext(cols, t, key.delimiter)
    return sorted({str(x) for x in seg.render(ctx)})


def _later_fixed(key: RowKey, i: int, known: Mapping[str, Any]) -> bool:
    """Does a segment after ``i`` take only values the query fixes (so the key keeps helping)?"""
    return any(
        set(s.sources()) and TIME not in s.sources() and set(s.sources()) <= set(known)
        for s in key.segments[i + 1 :]
    )


def _narrowed(
    key: RowKey, i: int, known: Mapping[str, Any], shape: Shape | None
) -> list[str] | None:
    """Segment ``i``'s texts over the values its one open column takes with the query's fixed
    fields, when that set is known and smaller than the column's own (else None)."""
    srcs = set(key.segments[i].sources())
    if shape is None or len(srcs) != 1 or TIME in srcs:
        return None
    col = next(iter(srcs))
    if col in known or col not in shape.entity:
        return None
    vals = shape.known_values(col, known)
    every = shape.known_values(col)
    if vals is None or (every is not None and len(vals) >= len(every)):
        return None
    return sorted(set(_render_values(key, i, known, col, vals)))


def _us(ts: pd.Timestamp) -> int:
    return int(ts.value // 1000)


def compile_plan(
    key: RowKey,
    table: str,
    intent: QueryIntent,
    layout: Layout | None,
    schema: Schema,
    aggregate: bool = False,
) -> ReadPlan:
    """The plan for ``intent`` on one table keyed by ``key`` (``aggregate``: its summary rows).

    The plan carries a private ``_score`` so :meth:`Schema.plan` can pick, among a design's
    tables, the one whose key serves the query best (no full scan, longest prefix, fewest
    requests, no regex).
    """
    d = key.delimiter
    known = dict(intent.entity)
    point = intent.kind == "point" and intent.start is not None
    t_point = _us(intent.start) if point else None
    has_range = intent.kind in ("range", "slice") and (
        intent.start is not None or intent.end is not None
    )
    shape = schema.shape
    needed = tuple(intent.measures) if intent.measures else None
    notes: list[str] = []

    branches = [""]
    # per branch, the entity values its enumerated ranges stand for (which narrow the values
    # of later segments: the balloons of one location)
    bknown: list[dict[str, object]] = [{}]
    stop: int | None = None
    pinned = 0
    time_range: tuple[str | None, str | None] | None = None
    stop_reason = ""
    partial_tags = False
    # what made the prefix branch into several ranges: a latest-N read limits each range
    merged_branches = False  # salt buckets or known entity values: the client merges the newest
    enumerated: set[str] = set()  # entity columns read as one range per known value
    known_set = set(known) | ({TIME} if t_point is not None else set())
    for i, seg in enumerate(key.segments):
        srcs = set(seg.sources())
        sep = "" if seg.self_delimited else d
        if isinstance(seg, Literal):
            branches = [b + seg.text + sep for b in branches]
        elif isinstance(seg, Metric):
            ms = seg.measures or schema._measures(shape)
            if not ms:
                stop, stop_reason = i, "the measure list is unknown"
                break
            want = [m for m in ms if needed is None or m in needed]
            branches = [b + seg.name_of(m) + sep for b in branches for m in want]
            bknown = [k for k in bknown for _ in want]
        elif isinstance(seg, Salt) and not srcs <= known_set:
            branches = [b + s + sep for b in branches for s in seg.buckets()]
            bknown = [k for k in bknown for _ in seg.buckets()]
            merged_branches = True
            notes.append(f"salted with {seg.n} buckets: one scan per bucket (G08)")
        elif isinstance(seg, Tags) and not srcs <= set(known):
            txt = ""
            for c in seg.columns:
                if c not in known:
                    break
                v = str(known[c])
                txt += f"{c}={v}{d}" if v != "" else ""
            branches = [b + txt for b in branches]
            stop, stop_reason, partial_tags = i, "not every tag is fixed", True
            break
        elif TIME in srcs and seg.time_order != 0:
            if t_point is not None:
                txt = _render_one(key, i, known, t_point)
                branches = [b + txt + sep for b in branches]
            elif has_range:
                lo_t = _us(intent.start) if intent.start is not None else None
                hi_t = _us(intent.end) - 1 if intent.end is not None else None
                # a coarse time segment followed by fixed parts of the key: read each bucket the
                # range covers with the rest of the key, instead of a range + row-key regex
                texts = (
                    _time_texts(key, i, known, lo_t, hi_t, RANGES_MAX // len(branches))
                    if lo_t is not None and hi_t is not None and _later_fixed(key, i, known)
                    else None
                )
                if texts is not None:
                    branches = [b + t + sep for b in branches for t in texts]
                    bknown = [k for k in bknown for _ in texts]
                    notes.append(
                        f"{len(texts)} time bucket(s) of the range, each read with the rest of the key"
                    )
                    pinned += 1
                    continue
                lo = _render_one(key, i, known, lo_t) if lo_t is not None else None
                hi = _render_one(key, i, known, hi_t) if hi_t is not None else None
                time_range = (lo, hi) if seg.time_order > 0 else (hi, lo)
                stop, stop_reason = i, "time range"
                pinned += 1
                break
            else:
                stop, stop_reason = i, "time"
                break
        elif srcs <= known_set and srcs:
            branches = [b + _render_one(key, i, known, t_point) + sep for b in branches]
        else:
            open_cols = srcs - set(known)
            col = next(iter(open_cols)) if len(open_cols) == 1 and TIME not in srcs else None
            per_branch = (
                [shape.known_values(col, {**known, **bk}) for bk in bknown]
                if (col is not None and shape is not None)
                else [None]
            )
            if (
                col is not None
                and all(v is not None for v in per_branch)
                and sum(len(v or ()) for v in per_branch) <= RANGES_MAX
            ):
                # a small, known value set (the dataset's own values, narrowed by the fields
                # already fixed): one row range per value, all in one ReadRows request (G11),
                # instead of scanning past the other values
                nb: list[str] = []
                nk: list[dict[str, object]] = []
                for b, bk, some in zip(branches, bknown, per_branch, strict=True):
                    vals = tuple(some or ())
                    texts = _render_values(key, i, known, col, vals)
                    seen_t: set[str] = set()
                    for txt, val in sorted(zip(texts, vals, strict=True), key=lambda tv: tv[0]):
                        if txt in seen_t:
                            continue
                        seen_t.add(txt)
                        nb.append(b + txt + sep)
                        nk.append({**bk, col: val})
                branches, bknown = nb, nk
                notes.append(
                    f"{len(branches)} ranges over the known {col} values: one row range each, "
                    "one request"
                )
                enumerated.add(col)
                merged_branches = True
                pinned += 1
                continue
            stop, stop_reason = i, "unknown " + ",".join(sorted(open_cols))
            if col is not None and shape is not None and col in shape.entity:
                notes.append(
                    f"{col} is open-ended (more than {ENUMERATE_VALUES_MAX} values, or unknown): "
                    "the rows of every value are scanned"
                )
            break
        pinned += 1

    complete = stop is None
    first_unused = len(key.segments) if stop is None else stop + (0 if partial_tags else 1)
    ranges: list[KeyRange] = []
    keys: tuple[str, ...] = ()
    if complete:
        keys = tuple(
            b[: -len(d)] if b.endswith(d) and not key.segments[-1].self_delimited else b.rstrip(d)
            for b in branches
        )
    elif time_range is not None:
        lo, hi = time_range
        for b in branches:
            start = b + lo if lo is not None else (b or None)
            end = prefix_end(b + hi) if hi is not None else (prefix_end(b) if b else None)
            ranges.append(KeyRange(start=start, end=end))
    else:
        ranges = [KeyRange.for_prefix(b) for b in branches if b] if any(branches) else []

    # a row-key regex for fixed fields after the point where the key stopped helping
    regex = None
    if not complete:
        later_known = any(
            (set(s.sources()) <= set(known) and set(s.sources()) - {TIME} and s.recovers())
            or (isinstance(s, Tags) and set(s.sources()) & set(known))
            # a measure in the key after the stop, when the query needs only some measures
            or (
                isinstance(s, Metric)
                and needed is not None
                and not set(s.measures or schema._measures(shape)) <= set(needed)
            )
            for s in key.segments[first_unused:]
        )
        if later_known:
            parts = []
            for j, s in enumerate(key.segments):
                sep = "" if (s.self_delimited or j == len(key.segments) - 1) else re.escape(d)
                srcs = set(s.sources())
                if isinstance(s, Tags):
                    parts.append(s.regex(d, known))
                elif isinstance(s, Literal):
                    parts.append(re.escape(s.text) + sep)
                elif isinstance(s, Metric):
                    ms = tuple(
                        m
                        for m in (s.measures or schema._measures(shape))
                        if needed is None or m in needed
                    )
                    parts.append(
                        (
                            "(?:" + "|".join(re.escape(s.name_of(m)) for m in ms) + ")"
                            if ms
                            else s.regex(d)
                        )
                        + sep
                    )
                elif srcs and srcs <= set(known) and TIME not in srcs:
                    parts.append(re.escape(_render_one(key, j, known, None)) + sep)
                elif (narrow := _narrowed(key, j, known, shape)) is not None:
                    # the values that go with the fixed fields (the hosts of one site)
                    parts.append("(?:" + "|".join(re.escape(t) for t in narrow) + ")" + sep)
                else:
                    parts.append(s.regex(d) + sep)
            regex = "".join(parts)
            notes.append("the key does not fit this query: rows are filtered by a row-key regex")

    # filters
    fam = None
    qual = None
    if not aggregate and layout is not None and needed and key.metric is None and shape is not None:
        cols = tuple(m for m in shape.measures if m in needed) + schema._carried(key, shape)
        cf = layout.column_filter(cols)
        if cf is None:
            notes.append("the serialized cell holds every measure: no column filter possible (G14)")
        else:
            fam = cf.get("families")
            qual = cf.get("qualifier_regex")
    if fam is None and not aggregate and layout is not None and schema.aggregates is not None:
        fam = tuple(f.name for f in layout.families(schema._measures(shape)))
    time_filter: tuple[int | None, int | None] | None = None
    if intent.kind != "scan" and intent.kind != "latest":
        if point:
            lo_ms = _us(intent.start) - _us(intent.start) % US_PER_MS
            time_filter = (lo_ms, lo_ms + US_PER_MS)
        elif has_range:
            lo_us = (
                _us(intent.start) - _us(intent.start) % US_PER_MS
                if intent.start is not None
                else None
            )
            hi_us = (
                -((-_us(intent.end)) // US_PER_MS) * US_PER_MS if intent.end is not None else None
            )
            time_filter = (lo_us, hi_us)
    rows_limit = None
    latest_versions = None
    client_keeps = None
    reverse = False
    limit_per_range = False
    if intent.kind == "latest":
        n = intent.limit or 1
        stop_seg = key.segments[stop] if stop is not None else None
        # a server-side rows limit is only right when every field the query fixes is enforced by
        # the server: in the prefix, or after the stop by the row-key regex (a hashed segment
        # after the time gets none), never only by the client's decoding of the cells
        key_cols = {c for sg in key.segments for c in sg.sources() if c != TIME}
        after = key.segments[stop + 1 :] if stop is not None else ()
        tail_cols = {c for sg in after for c in sg.sources() if c != TIME}
        fixed = set(intent.entity)
        # fields the query fixes that the key does not hold are still safe when the series the
        # key's fields pick all carry the query's values (a host's site and pod)
        outside_ok = fixed <= key_cols or (
            shape is not None
            and shape.determines(
                {c: v for c, v in known.items() if c in key_cols},
                {c: v for c, v in known.items() if c not in key_cols},
            )
        )
        limit_safe = outside_ok and not (tail_cols & fixed and regex is None)
        if (
            stop is not None
            and stop_seg is not None
            and stop_seg.time_order < 0
            and stop_reason == "time"
            and len(branches) == 1
            and layout is not None
            and not layout.multi_event
            and limit_safe
        ):
            metric = key.metric
            after_metric = metric is not None and key.segments.index(metric) > stop
            rows = n * (
                len(metric.measures or schema._measures(shape)) if metric and after_metric else 1
            )
            rows_limit = rows
            notes.append("reversed timestamps put the newest rows first: prefix + rows limit (G09)")
        elif layout is not None and layout.versioned and isinstance(layout, NewCells):
            latest_versions = n
            notes.append(f"newest {n} versions per column (G13)")
            if (
                n == 1
                and key_cols <= set(known)
                and limit_safe
                and stop_reason == "time"
                and len(branches) == 1
            ):
                # time buckets of one entity: the newest version sits in the last bucket row,
                # which a reverse scan with rows_limit=1 reads alone
                reverse, rows_limit = True, 1
                notes.append("reverse scan with rows limit 1: the newest bucket row")
        else:
            # rows holding the n newest events: one row per event and measure, or (time buckets)
            # at most the n newest buckets of each measure
            per_event = (
                len(key.metric.measures or schema._measures(shape)) if key.metric is not None else 1
            )
            keep = n * max(per_event, 1)
            metric_idx = key.segments.index(key.metric) if key.metric is not None else None
            metric_in_prefix = metric_idx is not None and stop is not None and metric_idx < stop
            one_entity = (
                # every entity field is fixed, or read as one range per known value: each range
                # holds one series in time order
                key_cols - enumerated <= set(known)
                and limit_safe
                and stop is not None
                and stop_reason == "time"
                and (key.metric is None or metric_in_prefix)
                and layout is not None
                and (n == 1 or not layout.multi_event)  # a bucket row may hold fewer than n
            )
            if one_entity and len(branches) > 1 and len(branches) > RANGES_MAX // 10:
                one_entity = False  # one request per range: keep the fan-out small
            if one_entity:
                # the newest rows are at the end of each range: Cloud Bigtable reads them with a
                # reverse scan and a rows limit (G09 needs no reversed key for this)
                per_range = n if metric_in_prefix else keep
                reverse, rows_limit = True, per_range
                if len(branches) > 1:
                    # a rows limit counts rows over a whole request: one request per range,
                    # each reversed with its own limit, and the client merges them
                    limit_per_range = True
                    if merged_branches:
                        client_keeps = keep
                    notes.append(
                        f"{len(branches)} reverse scans (one request per range) with rows limit "
                        f"{per_range} each"
                        + (f", the client keeps the newest {keep}" if merged_branches else "")
                    )
                else:
                    notes.append(
                        f"reverse scan with rows limit {per_range}: the newest rows of the range"
                    )
            else:
                client_keeps = keep
                outside = sorted(fixed - key_cols)
                if outside and not outside_ok:
                    notes.append(
                        f"{', '.join(outside)} {'is' if len(outside) == 1 else 'are'} not in the "
                        "row key: the server cannot tell which rows count towards a rows limit, so "
                        "the whole range is read and the client keeps the newest"
                    )
                else:
                    notes.append(
                        "no reversed timestamp before the unknown part of the key: the newest rows "
                        "are at the end of the range, so the whole range is read"
                    )
    if intent.kind == "scan":
        time_filter, regex = None, None
        ranges, keys = [], ()
    flt = CellFilter(
        families=fam,
        qualifier_regex=qual,
        row_key_regex=regex,
        time_range_us=time_filter,
        latest_versions=latest_versions,
    )
    plan = ReadPlan(
        intent=intent.name,
        table=table,
        ranges=tuple(ranges),
        keys=keys,
        filter=flt,
        rows_limit=rows_limit,
        reversed=reverse,
        note="; ".join(dict.fromkeys(notes)),
        client_keeps=client_keeps,
        limit_per_range=limit_per_range,
    )
    full = plan.full_scan
    object.__setattr__(plan, "_score", (full, -pinned, plan.scans, regex is not None))
    return plan
