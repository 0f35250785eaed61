"""Latest-N reads: how the newest N rows of a series are bounded on the server (G09, G13).

A reversed key's prefix takes a rows limit; a versioned layout keeps the newest versions per
column; otherwise a reverse scan with a rows limit (one request per range when there are
several), or, when the server cannot tell which rows count, the whole range read and the
client keeping the newest. Called by :func:`planner.compile_ranked` after the key walk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .key_text import render_one
from .keys import RowKey
from .layouts import Layout, NewCells
from .plan import RANGES_MAX
from .plan_choice import ChoiceWalk
from .segments import TIME

if TYPE_CHECKING:  # pragma: no cover
    from .key_walk import KeyWalk, Query


@dataclass
class Latest:
    """How a latest-N read is bounded: a rows limit (per range or per request), reversed or
    not, the newest versions per column, or the client keeping the newest rows."""

    rows_limit: int | None = None
    reverse: bool = False
    limit_per_range: bool = False
    latest_versions: int | None = None
    client_keeps: int | None = None
    keys: tuple[str, ...] | None = None  # row keys to read instead of the walk's ranges


def limit_safe(key: RowKey, w: KeyWalk, q: Query, regex: str | None) -> tuple[bool, bool]:
    """(may the server count rows towards a limit, are the fields outside the key implied).

    A server-side rows limit is only right when every field the query fixes is enforced by the
    server: in the prefix, or after the stop by the row-key regex (a hashed segment after the
    time gets none), never only by the client's decoding of the cells. Fields the query fixes
    that the key does not hold are still safe when the series the key's fields pick all carry
    the query's values (a host's site and pod)."""
    key_cols = {c for sg in key.segments for c in sg.sources() if c != TIME}
    after = key.segments[w.stop + 1 :] if w.stop is not None else ()
    tail_cols = {c for sg in after for c in sg.sources() if c != TIME}
    fixed = set(q.intent.entity)
    outside_ok = fixed <= key_cols or (
        q.shape is not None
        and q.shape.determines(
            {c: v for c, v in q.known.items() if c in key_cols},
            {c: v for c, v in q.known.items() if c not in key_cols},
        )
    )
    return outside_ok and not (tail_cols & fixed and regex is None), outside_ok


def latest_n(key: RowKey, w: KeyWalk, q: Query, layout: Layout | None, regex: str | None) -> Latest:
    """The newest N: a reversed key's prefix + rows limit (G09), the newest versions of a
    versioned layout, a reverse scan with a rows limit (per range when there are several), or
    the whole range read and the client keeping the newest."""
    n = q.intent.limit or 1
    stop_seg = key.segments[w.stop] if w.stop is not None else None
    key_cols = {c for sg in key.segments for c in sg.sources() if c != TIME}
    safe, outside_ok = limit_safe(key, w, q, regex)
    one_range_at_time = w.stop_reason == "time" and len(w.branches) == 1
    metric = key.metric
    if (
        stop_seg is not None
        and stop_seg.time_order < 0
        and one_range_at_time
        and layout is not None
        and not layout.multi_event
        and safe
    ):
        after_metric = metric is not None and key.segments.index(metric) > (w.stop or 0)
        per = len(metric.measures or q.measures) if metric and after_metric else 1
        w.notes.append("reversed timestamps put the newest rows first: prefix + rows limit (G09)")
        return Latest(rows_limit=n * per)
    if layout is not None and layout.versioned and isinstance(layout, NewCells):
        w.notes.append(f"newest {n} versions per column (G13)")
        if n == 1 and key_cols <= set(q.known) and safe and one_range_at_time:
            if stop_seg is not None and stop_seg.time_order < 0:
                # a reversed time puts the newest bucket row first: a forward rows limit 1
                w.notes.append("reversed timestamps put the newest bucket row first: rows limit 1")
                return Latest(latest_versions=1, rows_limit=1)
            # time buckets of one entity: the newest version sits in the last bucket row,
            # which a reverse scan with rows_limit=1 reads alone
            return newest_bucket(key, w, q)
        return Latest(latest_versions=n)
    return reverse_scan_limit(key, w, q, layout, n, safe, outside_ok)


def reverse_scan_limit(
    key: RowKey, w: KeyWalk, q: Query, layout: Layout | None, n: int, safe: bool, outside_ok: bool
) -> Latest:
    """Rows holding the n newest events (one row per event and measure, or, in time buckets, at
    most the n newest buckets of each measure) at the end of each range: a reverse scan with a
    rows limit when each range holds one series in time order (G09 needs no reversed key for
    this), else the whole range read and the client keeping the newest."""
    metric = key.metric
    per_event = len(metric.measures or q.measures) if metric is not None else 1
    keep = n * max(per_event, 1)
    metric_idx = key.segments.index(metric) if metric is not None else None
    metric_in_prefix = metric_idx is not None and w.stop is not None and metric_idx < w.stop
    key_cols = {c for sg in key.segments for c in sg.sources() if c != TIME}
    one_entity = (
        # every entity field is fixed, or read as one range per known value
        key_cols - w.enumerated <= set(q.known)
        and safe
        and w.stop is not None
        and w.stop_reason == "time"
        and (metric is None or metric_in_prefix)
        and layout is not None
        and (n == 1 or not layout.multi_event)  # a bucket row may hold fewer than n
        # one request per range: keep the fan-out small
        and not (len(w.branches) > 1 and len(w.branches) > RANGES_MAX // 10)
    )
    if not one_entity:
        outside = sorted(set(q.intent.entity) - key_cols)
        if outside and not outside_ok:
            w.notes.append(
                f"{', '.join(outside)} {'is' if len(outside) == 1 else 'are'} not in the "
                "row key: the server cannot tell which rows count towards a rows limit, so "
                "the whole range is read and the client keeps the newest"
            )
        else:
            w.notes.append(
                "no reversed timestamp before the unknown part of the key: the newest rows "
                "are at the end of the range, so the whole range is read"
            )
        return Latest(client_keeps=keep)
    per_range = n if metric_in_prefix else keep
    if len(w.branches) == 1:
        w.notes.append(f"reverse scan with rows limit {per_range}: the newest rows of the range")
        return Latest(reverse=True, rows_limit=per_range)
    # a rows limit counts rows over a whole request: one request per range, each reversed with
    # its own limit, and the client merges them
    w.notes.append(
        f"{len(w.branches)} reverse scans (one request per range) with rows limit "
        f"{per_range} each" + (f", the client keeps the newest {keep}" if w.merged else "")
    )
    return Latest(
        reverse=True,
        rows_limit=per_range,
        limit_per_range=True,
        client_keeps=keep if w.merged else None,
    )


def newest_bucket(key: RowKey, w: KeyWalk, q: Query) -> Latest:
    """The newest version of one entity in time buckets: a reverse scan of the entity's range
    with rows limit 1, or the row keys of the current bucket and the one before (reversed, rows
    limit 1: the current bucket's row when it exists, else the one before; an entity silent for
    longer needs the application to step back further). When the planner compares costs both
    are alternatives (``plan_choice.estimate``: with the bucket ahead of the entity fields, the
    scan walks back past every series of the newest bucket; the two keys cost two seeks and one
    row); otherwise the scan."""
    scan = Latest(latest_versions=1, reverse=True, rows_limit=1)
    keys = bucket_keys(key, w, q)
    scan_note = "reverse scan with rows limit 1: the newest bucket row"
    two = "the current bucket's row and the one before, reversed with rows limit 1"
    if (
        keys is not None
        and isinstance(w, ChoiceWalk)
        and w.explore
        and w.choose(two, scan_note, True)
    ):
        w.notes.append(f"{two} ({keys[1]!r}, {keys[0]!r}): the newest that exists")
        return Latest(latest_versions=1, reverse=True, rows_limit=1, keys=keys)
    w.notes.append(scan_note)
    return scan


def bucket_keys(key: RowKey, w: KeyWalk, q: Query) -> tuple[str, str] | None:
    """The row keys of the entity's bucket holding the dataset's last event ("now") and of the
    bucket before it, in key order; None unless every segment after the time is fixed."""
    shape = q.shape
    if w.stop is None or shape is None or shape.span_us is None:
        return None
    step = key.segments[w.stop].bucket_us()
    later = key.segments[w.stop + 1 :]
    if step <= 0 or key.segments[w.stop].time_order <= 0:
        return None
    if any(not s.sources() or not set(s.sources()) <= set(q.known) for s in later):
        return None
    now = shape.span_us[1]
    d = key.delimiter
    out = []
    for t in (now - step, now):
        parts = [
            render_one(key, j, q.known, t) + ("" if s.self_delimited else d)
            for j, s in enumerate(key.segments)
            if j >= w.stop
        ]
        text = w.branches[0] + "".join(parts)
        out.append(
            text[: -len(d)] if text.endswith(d) and not key.segments[-1].self_delimited else text
        )
    if out[0] == out[1]:
        return None
    return out[0], out[1]
