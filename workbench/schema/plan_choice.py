"""The planner's choices and their prices: every alternative plan a key allows, and the node
time each is estimated to cost at the entity counts the planner is given.

A key walk (``planner.walk_key``) meets a few choice points: list one range per known value
or stop there, read each time bucket or one range with a row-key regex, fan out over salt
buckets or scan, read the newest bucket rows by key or reverse-scan, or scan the whole table
with filters. :class:`ChoiceWalk` records the choice taken at each point, so the planner can
replay the walk with every other combination (``planner.alternatives``) and keep the cheapest
by :func:`estimate`, naming the runner-up.

The estimate is the one read cost: :class:`~workbench.schema.plan.PlanCost`, the requests
(⌈ranges ÷ ``ReadCosts.ranges_per_request``⌉, or one per range when a rows limit counts per
range), seeks, rows, cells and bytes one run visits at production, and their node-seconds at the
design's :class:`~workbench.schema.plan.ReadCosts`. The planner ranks with it and every view
shows it (``ReadPlan.cost``; ``analysis.production_reads`` only multiplies it by each query's
stated rate). Each branch reads the events of the production series its fixed fields select
(:func:`series_at`: the sample's own share while no count is stated, every series alike once
one is), each writing its own events where the fixed fields name it (``Shape.events_skew``: the
file's counts for a shape sample, the sample's otherwise; USD/JPY writes 21.8 % of fx's quotes,
not an eighth), over the share of the dataset's span its time bounds cover, uniform in time; a plan
listing one range per known value lists production's values under each branch's other fixed
values. Each series writes ``rate_factor`` times the sample's events and a plan bounding no time
reads retention's worth (``Shape.time_factor``); a rows limit counts rows, and a limited scan
passes ``rows_limit`` ÷ the share of the passed series it asks for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .key_walk import KeyWalk, us_of
from .plan import PlanCost
from .segments import TIME

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping, Sequence, Set

    from .key_walk import Query
    from .keys import RowKey
    from .plan import ReadPlan
    from .shape import Shape

# Bytes the estimate counts per cell visited: the row key and the cell's family, qualifier,
# 8-byte timestamp and value. The same for every plan of a table, so plans that visit the same
# rows tie (and the rank decides).
CELL_BYTES = 64


@dataclass
class ChoiceWalk(KeyWalk):
    """A key walk that records its choices: ``script`` decides the first ones (True: the first
    option), later ones take the default; ``made`` lists (what was taken, the value) in order.
    ``weights`` holds, per branch, the share of the branch's series' events it reads (a salt
    bucket 1/n, a time bucket its length ÷ the dataset's span); ``t_share`` the share a time
    range at the stop covers; ``t_window`` the query's window when the key bounds time."""

    script: tuple[bool, ...] = ()
    made: list[tuple[str, bool]] = field(default_factory=list)
    weights: list[float] = field(default_factory=lambda: [1.0])
    t_share: float = 1.0
    # the query's window in µs when the walk bounds time by the key (a time range or its
    # buckets), None when it reads all time: production holds retention's worth of the latter
    t_window: int | None = None
    t_counted: int | None = None  # µs of that window the weights count (None: within the span)
    explore: bool = False  # offer every alternative (the design has costs): no hard caps

    def choose(self, first: str, second: str, default: bool) -> bool:
        """Take the first option (True) or the second, as the script says (else the default)."""
        k = len(self.made)
        take = self.script[k] if k < len(self.script) else default
        self.made.append((first if take else second, take))
        return take

    def fan(self, texts: Sequence[str], sep: str, weight: float = 1.0) -> None:
        n = len(texts)
        super().fan(texts, sep)
        self.weights = [x * weight for x in self.weights for _ in range(n)]

    @property
    def label(self) -> str:
        """What this walk chose, for the plan's note."""
        return "; ".join(w for w, _ in self.made if w)


def sample_count(shape: Shape, col: str) -> int | None:
    """Distinct values of an entity column in the sample (its series, else its known values)."""
    if shape.series is not None and col in shape.entity:
        i = shape.entity.index(col)
        return len({s[i] for s in shape.series})
    vals = shape.known_values(col)
    return len(vals) if vals else dict(shape.value_counts).get(col)


def growth(shape: Shape, col: str) -> float:
    """How many times the sample's values of ``col`` production holds (1.0 when not given)."""
    prod = shape.production_count(col)
    have = sample_count(shape, col)
    if prod is None or not have:
        return 1.0
    return prod / have


def listed_values(shape: Shape, col: str, given: dict[str, object]) -> tuple[object, ...] | None:
    """Every value of ``col`` that occurs with the ``given`` entity values in the sample's
    series (the values a plan lists one range each for), or None when unknown."""
    if shape.series is None or col not in shape.entity:
        return shape.known_values(col, given)
    fixed = [(shape.entity.index(c), v) for c, v in given.items() if c in shape.entity and c != col]
    i = shape.entity.index(col)
    vals = tuple(dict.fromkeys(s[i] for s in shape.series if all(s[j] == v for j, v in fixed)))
    return vals or None


@dataclass(frozen=True)
class Priced:
    """One alternative plan with what it chose and its cost at production (None: unknown)."""

    plan: ReadPlan
    label: str
    cost: PlanCost | None
    rank: tuple[object, ...]

    @property
    def est_s(self) -> float | None:
        """Node-seconds of one run (None: unknown)."""
        return None if self.cost is None else self.cost.node_s


def estimate(
    plan: ReadPlan,
    w: ChoiceWalk,
    key: RowKey,
    q: Query,
    *,
    events: float | None = None,
    cells_per_row: int | None = None,
    multi_event: bool = False,
) -> PlanCost | None:
    """What ``plan`` (the walk ``w`` built it) does at the production the shape carries, and
    its node-seconds: the one read cost (module docstring); None without costs or the
    dataset's series.

    ``events``: the rows the table holds in the sample (default the dataset's events; summary
    rows for the aggregates); ``cells_per_row``: cells a row read carries (default the
    measures, one when the key names the measure); ``multi_event``: a row holds many events
    (time buckets, a wide row), so a row is visited once for the events it holds: a series'
    events in one bucket of the key's time segment, or all of them without one."""
    shape, costs = q.shape, q.costs
    if shape is None or costs is None or not shape.n_series:
        return None
    total = float(shape.events if events is None else events)
    stop = len(key.segments) if w.stop is None else w.stop
    if w.stop_reason == "full scan":
        stop = 0
    before = {c for s in key.segments[:stop] for c in s.sources() if c != TIME}
    kb = {c: v for c, v in q.known.items() if c in before}
    metric = key.metric
    per_measure = (
        len(metric.measures or q.measures)
        if metric is not None and key.segments.index(metric) >= stop
        else 1
    )
    # a branch listing one value of an enumerated column stands for its share of the values
    # production holds under the branch's other fixed values (not the sample's draw of them)
    bases = [{c: v for c, v in {**kb, **bk}.items() if c not in w.enumerated} for bk in w.bknown]
    keys = [tuple(sorted(b.items(), key=lambda cv: cv[0])) for b in bases]
    listed: dict[tuple[object, ...], set[tuple[object, ...]]] = {}
    for gk, bk in zip(keys, w.bknown, strict=True):
        listed.setdefault(gk, set()).add(tuple(bk.get(c) for c in sorted(w.enumerated)))
    units = passed = 0.0  # events, and the series (× measures) whose rows the ranges pass
    for base, gk, wt in zip(bases, keys, w.weights, strict=True):
        each = shape.n_series * series_at(shape, base) * wt * per_measure / len(listed[gk])
        passed += each
        units += each * shape.events_skew(base)  # the named series' own events, not the mean's
    units = total / shape.n_series * units * w.t_share
    # production: each series writes ``rate_factor`` times the sample's events (summary rows
    # do not grow with the rate), kept for retention: a read bounding no time reads all of it
    rate = shape.rate_factor if events is None else 1.0
    window = w.t_window if w.stop_reason != "full scan" else None
    units *= rate * shape.time_factor(window, w.t_counted)
    seeks = float(plan.n_ranges)
    if w.enumerated:  # the production count of the listed values under each branch's others
        per_branch = sum(
            _values_under(shape, w.enumerated, base) / len(listed[gk])
            for base, gk in zip(bases, keys, strict=True)
        )
        seeks = round(seeks * per_branch / max(len(w.bknown), 1), 6)  # a count, not noise
    requests = costs.requests_for(seeks, int(seeks) if plan.requests > 1 else 1)
    per_row = events_per_row(key, shape, total, rate) if multi_event else 1.0
    answer = _answer_events(q, shape, total, rate) * per_measure
    # a range that holds data visits at least one row (a bucket row it cuts), and a series
    # with events in the window has its own row there, however many events a row holds
    rows = max(units / per_row, min(max(seeks, passed), units))
    if plan.keys and q.t_point is not None:
        rows = units = seeks  # point reads: one row each, its cells at that instant
        answer = min(answer, units)
    if plan.rows_limit is not None:
        # a limited scan stops once it has found its rows: on keys where several series
        # interleave it passes rows_limit ÷ (the share of the rows it scans that match) rows,
        # whatever the table's size; each request counts its own limit
        match = 1.0
        if plan.filter.row_key_regex is not None:
            # the production series the query asks for among those the scan passes
            asked = series_at(shape, q.known) * shape.events_skew(q.known)
            passed = series_at(shape, kb) * shape.events_skew(kb) or 1.0
            match = min(max(asked / passed, 1e-12), 1.0)
        cap = plan.rows_limit / match * requests
        if rows > cap:
            units, rows = units * cap / rows, cap
        rows = max(rows, float(min(plan.rows_limit, 1)))
        units = max(units, rows)
        answer = min(answer, plan.rows_limit * requests * per_row)
    cells = cells_per_row if cells_per_row is not None else (1 if metric else len(q.measures))
    return PlanCost.of(
        costs,
        requests=requests,
        seeks=seeks,
        rows=rows,
        cells=units * cells,
        nbytes=units * cells * CELL_BYTES,
        returned=_returned_rows(q, shape, answer, per_row),
    )


def series_at(shape: Shape, fixed: Mapping[str, object]) -> float:
    """Production's series that the ``fixed`` entity values select, over the sample's series
    (so ``total × series_at`` is their events at the sample's per-series rate). Without a
    production count for any fixed column: the sample's own share of its series (its skew).
    With one: every column alike (uniform), a column another fixed column determines (the
    location of a named balloon) counted once, so the figure does not follow which series a
    sample drew."""
    grown = _grown(shape)
    fixed = {c: v for c, v in fixed.items() if c in shape.entity}
    stated = dict(shape.production)
    if not fixed:
        return grown
    if not any(c in stated for c in fixed):
        return (shape.series_share(fixed) or 0.0) * grown
    keep = list(fixed)
    for c in list(keep):
        if any(o != c and shape.determines({o: fixed[o]}, {c: fixed[c]}) for o in keep):
            keep.remove(c)
    share = 1.0
    for c in keep:
        share /= stated.get(c) or sample_count(shape, c) or 1
    return share * grown


def _grown(shape: Shape) -> float:
    """Production's series over the sample's. A shape sample's file counted its series exactly
    (``Shape.counted``): the file's series, grown by each stated count over the file's values
    of that column; else the sample's series grown column by column (``growth``). A tenth of a
    file's 1,000 metric × host tuples holds every metric and nearly every host, so the column
    product would make a named series about a ninth of one."""
    events, series = shape.counted
    if shape.counted_by_column and series and shape.n_series:
        filed = dict(shape.counted_by_column)
        out = series / shape.n_series
        for c, n in shape.production:
            out *= n / (filed.get(c) or n)
        return out
    grown = 1.0
    for c, _ in shape.production:
        grown *= growth(shape, c)
    return grown


def _returned_rows(q: Query, shape: Shape, answer: float, per_row: float) -> float:
    """Rows the answer's events fill: a row each, or, where rows gather events, at least one row
    of each series the answer holds (its bucket row of that time)."""
    if answer <= 0:
        return 0.0
    series = shape.n_series * series_at(shape, q.known)
    return max(answer / per_row, min(series, answer), 1.0)


def _values_under(shape: Shape, cols: Set[str], base: Mapping[str, object]) -> float:
    """Production's values of the ``cols`` together under the ``base`` values: all of them, at
    most the production series ``base`` selects (a location's balloons, not every balloon)."""
    every = 1.0
    for c in cols:
        every *= shape.production_count(c) or sample_count(shape, c) or 1
    return max(min(every, shape.n_series * series_at(shape, base)), 1.0)


def _answer_events(q: Query, shape: Shape, total: float, rate: float) -> float:
    """The events the query's answer holds at production: the series it names (every series
    when it names none, at production's count) over its window (retention without one; the
    newest ``limit`` of each series for a latest read)."""
    share = series_at(shape, q.known)
    series = shape.n_series * share
    share *= shape.events_skew(q.known)  # the named series' own events (G07: a skewed series)
    intent = q.intent
    if intent.kind == "latest":
        return series * float(intent.limit or 1)
    if q.t_point is not None:  # one event of each series at that instant
        return series
    floor = series if intent.kind == "slice" else 0.0  # a slice: each series' value then
    span = shape.span_len_us
    if span is None:
        return max(total * share, floor)
    kept = span if shape.retention_us is None else shape.retention_us
    if intent.start is not None and intent.end is not None:
        window = max(us_of(intent.end) - us_of(intent.start), 1)
    else:
        window = kept
    return max(total * share * rate * min(window, kept) / span, floor)


def events_per_row(key: RowKey, shape: Shape, total: float, rate: float) -> float:
    """Events one row of a multi-event layout holds on average in production: a series' events
    (at production's rate, ``rate`` × the sample's) over one bucket of the key's time segment,
    or over all the time kept when the key has none (without a retention: the sample's span)."""
    per_series = total / max(shape.n_series, 1) * rate
    spans = [s.bucket_us() for s in key.segments if TIME in s.sources()]
    span = shape.span_len_us
    if not spans or span is None or spans[0] <= 0:
        return max(per_series * shape.time_factor(), 1.0)
    kept = span if shape.retention_us is None else shape.retention_us
    return max(per_series * min(spans[0], kept) / span, 1.0)


def price_note(chosen: Priced, runner_up: Priced | None) -> str:
    """The note naming the chosen alternative and the runner-up, with both estimates."""
    if chosen.est_s is None:
        return ""
    head = f"cheapest of the alternatives: {chosen.label or chosen.plan.kind} " + (
        f"(est. {chosen.est_s * 1e3:.3g} node-ms)"
    )
    if runner_up is None or runner_up.est_s is None:
        return head + "; the only plan the key allows"
    return head + (
        f"; runner-up: {runner_up.label or runner_up.plan.kind} "
        f"(est. {runner_up.est_s * 1e3:.3g} node-ms)"
    )
