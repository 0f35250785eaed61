"""What the production model reads of the events, computed by DuckDB over the files themselves.

The workload's figures (``analysis/series.py``, ``analysis/production.py``,
``analysis/production_reads.py``) read only aggregates of the events: how many, over what
span, how many series (entity tuples) and distinct values per entity column, how many events
the busiest series wrote against the mean, and per query window the series active and the
events inside it. ``file_aggregates`` asks DuckDB for exactly those over Parquet files (a path,
a list or a glob), in one scan with a memory limit, so a file larger than memory gives the same
numbers the pandas path gives on the loaded events (``tests/datasets/test_file_aggregates.py`` holds
them equal). DuckDB spills what does not fit under ``memory_limit`` to disk
(https://duckdb.org/docs/guides/performance/how_to_tune_workloads, "Larger-than-memory
workloads"); ``preserve_insertion_order`` is off, as its out-of-memory guide advises for large
scans (https://duckdb.org/docs/2.0/guides/performance/oom.html).

Times are compared in microseconds: DuckDB's ``TIMESTAMP WITH TIME ZONE`` holds microseconds,
and Bigtable's cells hold them too (events finer than a microsecond are not exact here).

The figures a shape sample can miss (the busiest series may not be in it) are the file's too,
from the same scan (one ``GROUPING SETS`` aggregate, so one pass serves every design of a
compare): for every combination of entity columns its groups and busiest group's events
(``busiest``: the lead series whatever columns a key puts first), and the events of the
largest (combination, time bucket) for each bucket in ``ROW_BUCKETS`` (``rows``: the largest
row of a design whose rows are a series' bucket, bytes from the sample's bytes per event).
Buckets are floored in UTC as the keys floor them (``schema/time_text.floor_us``: weeks start
on Monday, months on the 1st).

The same aggregate keeps the events of the busiest ``SERIES_COUNTED`` series (``series_events``,
DuckDB's ``max_by(arg, val, n)``: at most that many tuples come back, however many series the
files hold): a query naming a series reads that series' own events, not the mean series'
(``schema/shape.Shape.events_skew``); the series past the cap share the rest evenly.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import pandas as pd

from ..errors import DatasetError


@dataclass(frozen=True)
class WindowAggregates:
    """One query window's series and events: those the query names (``answer_*``: every series
    when it names none) and the others; ``active``: series with an event within ``pad_s`` of
    the window (a bucket row around it), ``events``: events inside it."""

    answer_active: float
    answer_events: float
    other_active: float
    other_events: float


@dataclass(frozen=True)
class FileAggregates:
    """The events' aggregates the production model reads (see the module docstring)."""

    events: int
    first: pd.Timestamp | None
    last: pd.Timestamp | None
    series: int  # distinct entity tuples
    by_column: dict[str, int]  # distinct values per entity column
    lead_sizes: tuple[int, float]  # (series of the lead columns, busiest ÷ mean events)
    windows: dict[str, WindowAggregates | None] = field(default_factory=dict)
    counted_by: str = "DuckDB"  # what counted them, as the production figures' inputs say
    # per combination of entity columns (in the entity's order): (groups, busiest's events,
    # mean events); every combination up to three columns, else each column and all of them
    busiest: dict[tuple[str, ...], tuple[int, int, float]] = field(default_factory=dict)
    # per (combination, bucket in ROW_BUCKETS): the events of its largest group; () is every
    # series together (a key with only a time bucket)
    rows: dict[tuple[tuple[str, ...], str], int] = field(default_factory=dict)
    # the busiest series (entity tuples) and their events, busiest first: every series when
    # there are at most SERIES_COUNTED, else that many (the rest share what they leave)
    series_events: tuple[tuple[tuple[object, ...], int], ...] = field(default=(), repr=False)
    # the distinct entity tuples, when asked for (``keys=True``): a shape sample draws from them
    series_keys: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    # the Parquet files and the zone of naive times, for a later scan of them (the engine
    # path's writes, ``analysis/file_writes.py``); (): not files DuckDB reads (a CSV)
    source: tuple[tuple[str, ...], str | None] | tuple[()] = field(default=(), compare=False)

    def busiest_ratio(self, columns: Sequence[str]) -> float | None:
        """The busiest group of ``columns`` over the mean group, in events (None: not counted)."""
        got = self.busiest.get(tuple(columns))
        return None if got is None or not got[2] else got[1] / got[2]

    @property
    def span_s(self) -> float:
        """The span in seconds, at least one (``analysis/series.sample_span_s``)."""
        if not self.events or self.first is None or self.last is None:
            return 1.0
        return max(float((self.last - self.first).total_seconds()), 1.0)


ROW_BUCKETS = ("hour", "day", "week", "month")
"""The time buckets whose largest (series, bucket) the file's scan counts: the bucket rows of
the gallery (``TimeBucket``: day, week, month; Heroic's and finer keys hold a row's events by
other bounds and keep the sample's figure). A minute bucket is left out: as many groups as
events at a reading a minute, a scan's memory for one figure."""
SERIES_COUNTED = 10_000
"""Series whose own events the scan keeps (the busiest): a query naming one reads its events.
Bounded so ten million series return ten thousand tuples, not a list of every series."""
SUBSETS_UP_TO = 3
"""Entity columns up to which every combination is counted (2^3 - 1 = 7); more columns: each
column and all of them."""


def busiest_series(sizes: pd.Series) -> tuple[tuple[tuple[object, ...], int], ...]:
    """The ``SERIES_COUNTED`` busiest series of ``sizes`` (events per entity tuple, indexed by
    the entity columns) as ``FileAggregates.series_events`` holds them: (tuple, events), busiest
    first; the in-memory path's figure the scan's ``max_by`` gives."""
    top = sizes.nlargest(SERIES_COUNTED) if len(sizes) > SERIES_COUNTED else sizes
    keys = [k if isinstance(k, tuple) else (k,) for k in top.index.tolist()]
    return ordered(zip(keys, (int(v) for v in top.to_numpy()), strict=True))


def ordered(
    pairs: Iterable[tuple[tuple[object, ...], int]],
) -> tuple[tuple[tuple[object, ...], int], ...]:
    """(series, events) busiest first, ties by the series' values (by their text where the
    values do not compare): one order whichever path counted them."""
    items = list(pairs)
    try:
        return tuple(sorted(items, key=lambda p: (-p[1], p[0])))
    except TypeError:
        return tuple(sorted(items, key=lambda p: (-p[1], repr(p[0]))))


def column_sets(entity: Sequence[str]) -> list[tuple[str, ...]]:
    """The combinations of entity columns the scan counts, each in the entity's order."""
    cols = list(entity)
    if len(cols) > SUBSETS_UP_TO:
        return [(c,) for c in cols] + [tuple(cols)]
    return [tuple(s) for k in range(1, len(cols) + 1) for s in combinations(cols, k)]


def sql_name(name: str) -> str:
    """A column name quoted for SQL."""
    return '"' + name.replace('"', '""') + '"'


def _us_at_or_after(t: pd.Timestamp) -> int:
    """The first whole microsecond not before ``t`` (``t_us >= this`` ⇔ ``t >= t`` for events
    in whole microseconds)."""
    return math.ceil(pd.Timestamp(t).value / 1000)


def connect(
    paths: Sequence[str],
    columns: Sequence[str],
    time: str,
    naive_tz: str | None = None,
    memory_limit: str = "1GB",
    threads: int | None = None,
):
    """A DuckDB connection whose view ``ev`` holds the events of the Parquet ``paths``, the
    ``time`` column a ``TIMESTAMP WITH TIME ZONE`` (naive times read in ``naive_tz``);
    ``columns`` must be in the files. The one place the files are opened for SQL:
    ``file_aggregates`` and the engine path's writes (``analysis/file_writes.py``) read them
    alike."""
    import duckdb

    con = duckdb.connect(config={"memory_limit": memory_limit, "preserve_insertion_order": False})
    try:
        con.execute("SET enable_progress_bar = false")  # the reader's own bar counts the events
        if threads:
            con.execute(f"SET threads = {int(threads)}")
        files = ", ".join("'" + f.replace("'", "''") + "'" for f in paths)  # a view takes no ?
        con.execute(f"CREATE TEMP VIEW ev AS SELECT * FROM read_parquet([{files}])")
        types = dict(con.execute("SELECT column_name, column_type FROM (DESCRIBE ev)").fetchall())
        missing = [c for c in columns if c not in types]
        if missing:
            raise DatasetError(
                f"Column {missing[0]!r} is not in the file(s) (columns: {', '.join(types)}); "
                "name an existing column."
            )
        if not str(types[time]).startswith("TIMESTAMP"):
            raise DatasetError(
                f"Column {time!r} is {types[time]}, not a Parquet timestamp: write the times as "
                "timestamps (pandas datetime64 with a time zone) to aggregate them here."
            )
        t = sql_name(time)
        if not str(types[time]).startswith("TIMESTAMP WITH TIME ZONE"):
            if naive_tz is None:
                raise DatasetError(
                    f"Column {time!r} holds times without a time zone ({types[time]}): pass "
                    "naive_tz='UTC' if they are UTC, or the zone they were recorded in."
                )
            zone = naive_tz.replace("'", "''")
            con.execute(
                f"CREATE OR REPLACE TEMP VIEW ev AS SELECT * REPLACE (timezone('{zone}', {t}) "
                f"AS {t}) FROM read_parquet([{files}])"
            )
    except BaseException:
        con.close()
        raise
    return con


def file_aggregates(
    paths: str | Sequence[str],
    *,
    entity: Sequence[str],
    time: str,
    lead: Sequence[str] = (),
    windows: Mapping[str, tuple[pd.Timestamp, pd.Timestamp, Mapping[str, object], float | None]]
    | None = None,
    memory_limit: str = "1GB",
    threads: int | None = None,
    keys: bool = False,
    naive_tz: str | None = None,
) -> FileAggregates:
    """The aggregates of the events in ``paths`` (Parquet: a path, a glob or a list).

    ``entity``: the entity columns; ``time``: the timestamp column (a Parquet timestamp);
    ``lead``: the entity columns whose series' sizes give the busiest ÷ mean ratio;
    ``windows``: per query name ``(start, end, named values, pad_s)``: the window [start, end),
    the entity values the query names, and how far around it a series counts as active (None:
    every event; ``analysis/production_reads.window_counts``'s ``bucket_s``); ``keys``: also
    the distinct entity tuples (``series_keys``), from the same scan; ``naive_tz``: the zone
    times without one were recorded in (``from_parquet``'s; DuckDB's ``timezone(zone, t)``
    reads them as that zone's wall clock, as pandas' ``tz_localize`` does).
    """
    src = [paths] if isinstance(paths, str) else list(paths)
    con = connect(src, [*entity, time], time, naive_tz, memory_limit, threads)
    try:
        t = sql_name(time)
        ents = [sql_name(c) for c in entity]
        tup = f"row({', '.join(ents)})" if ents else "1"
        n, first, last, busiest, rows, series_keys, top = _grouped(con, t, list(entity), keys)
        full = tuple(entity)
        by_column = {c: max(busiest[(c,)][0], 1) if n else 1 for c in entity}
        lead_set = tuple(c for c in entity if c in lead)
        lead_sizes = (0, 1.0)
        if lead_set and n:
            if lead_set not in busiest:  # more than SUBSETS_UP_TO columns, a subset of them
                row = con.execute(
                    f"SELECT count(*), max(k), sum(k) FROM (SELECT count(*) AS k FROM ev "
                    f"GROUP BY {', '.join(sql_name(c) for c in lead_set)})"
                ).fetchone()
                assert row is not None
                busiest[lead_set] = (int(row[0]), int(row[1]), float(row[2]) / int(row[0]))
            g, mx, mean = busiest[lead_set]
            lead_sizes = (g, mx / mean)
        out = {
            name: _window(con, t, tup, entity, w) if n else None
            for name, w in (windows or {}).items()
        }
        series = max(busiest[full][0], 1) if n and full else 1
        return FileAggregates(
            n,
            first,
            last,
            series,
            by_column,
            lead_sizes,
            out,
            busiest=busiest,
            rows=rows,
            series_events=top,
            series_keys=series_keys,
            source=(tuple(src), naive_tz),
        )
    finally:
        con.close()


def _grouped(con, t: str, entity: list[str], keys: bool = False) -> tuple:
    """Events, first and last time, ``busiest`` and ``rows`` (see :class:`FileAggregates`) in
    one aggregate over the events: ``GROUPING SETS`` of every column combination, alone and
    with each bucket of ``ROW_BUCKETS``, then per set its groups, largest and total (and of the
    set of every entity column, the ``SERIES_COUNTED`` busiest tuples with their events); ``keys``:
    the groups are kept in a temporary table (DuckDB spills it) and the entity tuples' read
    back from it, not from a second scan."""
    sets = column_sets(entity)
    keyed = [(s, None) for s in sets] + [(s, b) for s in [(), *sets] for b in ROW_BUCKETS]
    names = [*entity, *(f"__{b}" for b in ROW_BUCKETS)]
    cols = [sql_name(c) for c in names]
    naive = f"make_timestamp(epoch_us({t}))"  # UTC wall time, floored as the keys floor it
    inner = ", ".join(
        [
            *(sql_name(c) for c in entity),
            *(f"date_trunc('{b}', {naive}) AS __{b}" for b in ROW_BUCKETS),
        ]
    )

    def grouping_id(s: tuple[str, ...], b: str | None) -> int:
        held = {*s, *([f"__{b}"] if b else [])}
        return sum(1 << (len(names) - 1 - i) for i, c in enumerate(names) if c not in held)

    spec = ", ".join(
        "(" + ", ".join([*(sql_name(c) for c in s), *([f"__{b}"] if b else [])]) + ")"
        for s, b in keyed
    )
    ents = ", ".join(sql_name(c) for c in entity)
    groups = (
        f"SELECT GROUPING({', '.join(cols)}) AS g, {ents + ', ' if ents else ''}"
        f"count(*) AS k, min({t}) AS lo, max({t}) AS hi "
        f"FROM (SELECT {inner}, {t} FROM ev) GROUP BY GROUPING SETS ({spec})"
    )
    if keys:
        con.execute(f"CREATE TEMP TABLE groups AS {groups}")
        groups = "SELECT * FROM groups"
    full = grouping_id(tuple(entity), None)
    # the busiest series: at most SERIES_COUNTED tuples come back, whatever the series
    top_sql = (
        f", max_by(row({ents}, k), k, {SERIES_COUNTED}) FILTER (WHERE g = {full})" if ents else ""
    )
    got = con.execute(
        f"SELECT g, count(*), max(k), sum(k), min(lo), max(hi){top_sql} FROM ({groups}) GROUP BY g"
    ).fetchall()
    series_keys = None
    if keys and entity:
        series_keys = con.execute(f"SELECT {ents} FROM groups WHERE g = {full}").df()
    per = {int(r[0]): r for r in got}
    top: tuple[tuple[tuple[object, ...], int], ...] = ()
    if entity and full in per and per[full][6]:  # (entity values..., events) max_by kept
        top = ordered((tuple(r[:-1]), int(r[-1])) for r in per[full][6])
    n, first, last = 0, None, None
    if per:  # every set holds every event: any one gives the count and the span
        r = next(iter(per.values()))
        n = int(r[3])
        first, last = (pd.Timestamp(v).tz_convert("UTC") for v in r[4:6])
    busiest: dict[tuple[str, ...], tuple[int, int, float]] = {}
    rows: dict[tuple[tuple[str, ...], str], int] = {}
    for s, b in keyed:
        r = per.get(grouping_id(s, b))
        if r is None:
            continue
        if b is None:
            busiest[s] = (int(r[1]), int(r[2]), float(r[3]) / int(r[1]))
        else:
            rows[(s, b)] = int(r[2])
    return n, first, last, busiest, rows, series_keys, top


def _window(con, t: str, tup: str, entity: Sequence[str], w: tuple) -> WindowAggregates:
    """One window's counts in one aggregate over the events (no rows come back but four)."""
    start, end, named, pad_s = w
    lo, hi = _us_at_or_after(start), _us_at_or_after(end)
    inside = f"(epoch_us({t}) >= {lo} AND epoch_us({t}) < {hi})"
    if pad_s is None:
        near = "TRUE"
    else:
        pad = pd.Timedelta(seconds=pad_s) if pad_s else pd.Timedelta(0)
        near = (
            f"(epoch_us({t}) >= {_us_at_or_after(start - pad)} AND "
            f"epoch_us({t}) < {_us_at_or_after(end + pad)})"
        )
    cols = [c for c in entity if c in named]
    params = [named[c] for c in cols]
    ans = " AND ".join(f"{sql_name(c)} = ?" for c in cols) if cols else "TRUE"
    row = con.execute(
        f"SELECT count(DISTINCT CASE WHEN ({ans}) AND {near} THEN {tup} END), "
        f"count(*) FILTER (WHERE ({ans}) AND {inside}), "
        f"count(DISTINCT CASE WHEN NOT ({ans}) AND {near} THEN {tup} END), "
        f"count(*) FILTER (WHERE NOT ({ans}) AND {inside}) FROM ev",
        params * 4 if cols else [],
    ).fetchone()
    return WindowAggregates(*(float(v) for v in row))


__all__ = [
    "ROW_BUCKETS",
    "SERIES_COUNTED",
    "FileAggregates",
    "WindowAggregates",
    "busiest_series",
    "column_sets",
    "file_aggregates",
]
