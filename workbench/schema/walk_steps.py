"""The key walk: one planner per kind of row-key segment, left to right, until the key stops
helping (step 1 of ``planner.py``'s model). Each planner adds its segment's text to every branch
(a row range or key being built), fans the branches out (measures, salt buckets, time buckets,
known values) or stops the walk; at a choice point it asks ``ChoiceWalk.choose``, so
``planner.alternatives`` can replay the walk with every combination of choices.
"""

from __future__ import annotations

from typing import Any

from .key_text import later_fixed, render_one, render_values, time_texts
from .key_walk import KeyWalk, Query
from .keys import RowKey
from .plan import ENUMERATE_VALUES_MAX, RANGES_MAX
from .plan_choice import ChoiceWalk, growth, listed_values
from .segments import TIME

# Each planner below handles one segment of the key and returns whether the walk goes on.


def metric_names(w: KeyWalk, key: RowKey, i: int, q: Query) -> bool:
    """A measure name in the key: one branch per measure the query needs."""
    seg = key.metric
    assert seg is not None  # the key's one segment that names the measure
    ms = seg.measures or q.measures
    if not ms:
        return w.halt(i, "the measure list is unknown")
    w.fan([seg.name_of(m) for m in ms if q.needed is None or m in q.needed], _sep(key, i))
    return True


def salted_fanout(w: ChoiceWalk, key: RowKey, i: int, q: Query) -> bool:
    """A salt the query cannot compute: one scan per bucket, merged by the client (G08); the
    alternative, when the planner compares costs, is one scan of every bucket with a regex."""
    buckets = key.segments[i].buckets()
    n = len(buckets)
    fan = f"one scan per salt bucket ({n})"
    if w.explore and not w.choose(fan, "every salt bucket in one scan, filtered", True):
        return w.halt(i, "salt")
    w.fan(buckets, _sep(key, i), 1.0 / n)
    w.merged = True
    w.notes.append(f"salted with {n} buckets: one scan per bucket (G08)")
    return True


def tag_prefix(w: KeyWalk, key: RowKey, i: int, q: Query) -> bool:
    """Heroic tags not all fixed: the leading fixed ``name=value,`` pairs, then stop."""
    w.add(key.segments[i].known_prefix(q.known, key.delimiter))
    w.partial_tags = True
    return w.halt(i, "not every tag is fixed")


def fixed_field(w: KeyWalk, key: RowKey, i: int, q: Query) -> bool:
    """A field the query fixes (or a point read's time): its one text."""
    w.add(render_one(key, i, q.known, q.t_point) + _sep(key, i))
    return True


def time_segment(w: ChoiceWalk, key: RowKey, i: int, q: Query) -> bool:
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
    w.t_share = _time_share(key, i, q, q.lo_t, q.hi_t)
    w.t_window = _window_us(q)
    w.pinned += 1
    return w.halt(i, "time range")


def _window_us(q: Query) -> int | None:
    """The query's time window in µs (None: open on a side, so the read covers all time)."""
    return None if q.lo_t is None or q.hi_t is None else max(q.hi_t - q.lo_t, 1)


def _time_share(key: RowKey, i: int, q: Query, lo: int | None, hi: int | None) -> float:
    """The share of the dataset's span that whole buckets of segment ``i`` over [lo, hi] cover
    (1.0 when the span is unknown)."""
    shape = q.shape
    if shape is None or shape.span_us is None:
        return 1.0
    first, last = shape.span_us
    step = max(key.segments[i].bucket_us(), 1)
    a = max(lo if lo is not None else first, first) // step * step
    b = (min(hi if hi is not None else last, last) // step + 1) * step
    span = max(last - first + 1, step)
    return min(1.0, max(0.0, (b - a) / span))


def time_buckets(w: ChoiceWalk, key: RowKey, i: int, q: Query) -> bool:
    """A coarse time segment followed by fixed parts of the key: each bucket the range covers,
    read with the rest of the key, or (the alternative, when the planner compares costs) one
    range over the time with a row-key regex."""
    if q.lo_t is None or q.hi_t is None or not later_fixed(key, i, q.known):
        return False
    texts = time_texts(key, i, q.known, q.lo_t, q.hi_t, RANGES_MAX // len(w.branches))
    if texts is None:
        return False
    what = f"{len(texts)} time bucket(s) of the range, each read with the rest of the key"
    one = "one range over the time range with a row-key regex"
    if w.explore and not w.choose(what, one, True):
        return False
    shape = q.shape
    step = key.segments[i].bucket_us()
    span = (
        max(shape.span_us[1] - shape.span_us[0] + 1, step)
        if shape is not None and shape.span_us is not None
        else 0
    )
    w.fan(texts, _sep(key, i), min(1.0, step / span) if span and step > 0 else 1.0)
    # each bucket weighs its length even past the sample's span: the window is counted whole
    w.t_window = w.t_counted = _window_us(q)
    w.notes.append(what)
    return True


def known_value_ranges(w: ChoiceWalk, key: RowKey, i: int, q: Query) -> bool:
    """A field the query leaves open whose values form a known set (the dataset's own,
    narrowed by the fields already fixed): one row range per value, all in one ReadRows request
    (G11), instead of scanning past the other values. Otherwise the walk stops here.

    When the planner compares costs (``w.explore``), listing the values is one alternative and
    stopping here the other, whatever their number (past ``ReadCosts.ranges_per_request`` the
    ranges go in several requests); without costs, at most ``ENUMERATE_VALUES_MAX`` values
    are listed."""
    srcs = set(key.segments[i].sources())
    open_cols = srcs - set(q.known)
    col = next(iter(open_cols)) if len(open_cols) == 1 and TIME not in srcs else None
    shape = q.shape
    if w.explore and col is not None and shape is not None and shape.series is not None:
        return _listed_or_scanned(w, key, i, q, col)
    per_branch: list[tuple[object, ...] | None] = (
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
    _list_values(w, key, i, q, col, per_branch)
    _listed_note(w, col, len(every or w.branches), prod)
    return True


def _listed_or_scanned(w: ChoiceWalk, key: RowKey, i: int, q: Query, col: str) -> bool:
    """The cost-compared form of :func:`known_value_ranges`: list every value of ``col`` the
    series hold with the branch's fixed fields (one range each), or stop and scan, as the walk's
    script says, at any production count (several requests past ``ranges_per_request``)."""
    shape = q.shape
    assert shape is not None
    per_branch = [listed_values(shape, col, {**q.known, **bk}) for bk in w.bknown]
    n = sum(len(v or ()) for v in per_branch)
    prod_n = n * growth(shape, col)
    scan = f"the rows of every {col} scanned"
    if any(v is None for v in per_branch):
        return w.halt(i, f"unknown {col}")
    if not w.choose(f"{prod_n:,.0f} ranges over the known {col} values", scan, True):
        return w.halt(i, f"unknown {col}")
    # the values the application must list: the column's own (when few), else those listed here
    every = len(shape.known_values(col) or ()) or len({v for vs in per_branch for v in vs or ()})
    _list_values(w, key, i, q, col, per_branch)
    _listed_note(w, col, every, shape.production_count(col))
    return True


def _list_values(
    w: ChoiceWalk,
    key: RowKey,
    i: int,
    q: Query,
    col: str,
    per_branch: list[tuple[object, ...] | None],
) -> None:
    """Each branch becomes one branch per value of ``col`` it lists (its own text, sorted)."""
    sep = _sep(key, i)
    nb: list[str] = []
    nk: list[dict[str, object]] = []
    nw: list[float] = []
    for b, bk, wt, some in zip(w.branches, w.bknown, w.weights, per_branch, strict=True):
        vals = tuple(some or ())
        texts = render_values(key, i, q.known, col, vals)
        seen_t: set[str] = set()
        for txt, val in sorted(zip(texts, vals, strict=True), key=lambda tv: tv[0]):
            if txt in seen_t:
                continue
            seen_t.add(txt)
            nb.append(b + txt + sep)
            nk.append({**bk, col: val})
            nw.append(wt)
    w.branches, w.bknown, w.weights = nb, nk, nw


def _listed_note(w: ChoiceWalk, col: str, n_every: int, prod: int | None) -> None:
    """The note and bookkeeping of a plan that lists one range per known value of ``col``."""
    nb = w.branches
    w.notes.append(
        f"{len(nb)} ranges over the known {col} values: one row range each, in one request "
        "(in production one per 1,000 ranges, sent side by side); this "
        f"relies on the application listing every {col} ({n_every} in the sample"
        + (f", {prod:,} in production" if prod is not None else "")
        + f"): a {col} added later is missed until the list is updated"
    )
    w.assumed[col] = prod if prod is not None else n_every
    w.enumerated.add(col)
    w.merged = True


def _sep(key: RowKey, i: int) -> str:
    return "" if key.segments[i].self_delimited else key.delimiter


def _step_for(key: RowKey, i: int, q: Query) -> Any:
    """Which planner handles segment ``i`` for this query."""
    seg = key.segments[i]
    srcs = set(seg.sources())
    if seg.names_measure:
        return metric_names
    if seg.buckets() and not srcs <= q.known_set:
        return salted_fanout
    if seg.self_delimited and not srcs <= set(q.known):
        return tag_prefix
    if TIME in srcs and seg.time_order != 0:
        return time_segment
    if srcs <= q.known_set:  # a constant (no sources) too: its one text
        return fixed_field
    return known_value_ranges


def walk_key(key: RowKey, q: Query, script: tuple[bool, ...] = ()) -> ChoiceWalk:
    """The longest usable prefix: each segment left to right by its planner, until one stops.

    When the design has costs and the dataset's series are known, the walk offers every
    alternative at its choice points (a whole-table scan first), taking them as ``script``
    says (see :func:`alternatives`)."""
    w = ChoiceWalk(
        script=script,
        explore=q.costs is not None and q.shape is not None and q.shape.series is not None,
    )
    if w.explore and not w.choose("", "a full-table scan with filters", True):
        w.halt(0, "full scan")
        return w
    for i in range(len(key.segments)):
        if not _step_for(key, i, q)(w, key, i, q):
            break
        w.pinned += 1
    return w
