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
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

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

    @property
    def span_s(self) -> float:
        """The span in seconds, at least one (``analysis/series.sample_span_s``)."""
        if not self.events or self.first is None or self.last is None:
            return 1.0
        return max(float((self.last - self.first).total_seconds()), 1.0)


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _us_at_or_after(t: pd.Timestamp) -> int:
    """The first whole microsecond not before ``t`` (``t_us >= this`` ⇔ ``t >= t`` for events
    in whole microseconds)."""
    return math.ceil(pd.Timestamp(t).value / 1000)


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
) -> FileAggregates:
    """The aggregates of the events in ``paths`` (Parquet: a path, a glob or a list).

    ``entity``: the entity columns; ``time``: the timestamp column (a Parquet timestamp);
    ``lead``: the entity columns whose series' sizes give the busiest ÷ mean ratio;
    ``windows``: per query name ``(start, end, named values, pad_s)``: the window [start, end),
    the entity values the query names, and how far around it a series counts as active (None:
    every event; ``analysis/production_reads.window_counts``'s ``bucket_s``).
    """
    import duckdb

    src = [paths] if isinstance(paths, str) else list(paths)
    con = duckdb.connect(config={"memory_limit": memory_limit, "preserve_insertion_order": False})
    try:
        if threads:
            con.execute(f"SET threads = {int(threads)}")
        files = ", ".join("'" + f.replace("'", "''") + "'" for f in src)  # a view takes no ?
        con.execute(f"CREATE TEMP VIEW ev AS SELECT * FROM read_parquet([{files}])")
        types = dict(con.execute("SELECT column_name, column_type FROM (DESCRIBE ev)").fetchall())
        missing = [c for c in [*entity, time] if c not in types]
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
        t = _q(time)
        ents = [_q(c) for c in entity]
        tup = f"row({', '.join(ents)})" if ents else "1"
        per_col = ", ".join(f"count(DISTINCT {c})" for c in ents)
        head = con.execute(
            f"SELECT count(*), min({t}), max({t}), count(DISTINCT {tup})"
            + (f", {per_col}" if per_col else "")
            + " FROM ev"
        ).fetchone()
        assert head is not None
        n = int(head[0])
        by_column = {c: max(int(v), 1) for c, v in zip(entity, head[4:], strict=True)}
        lead_cols = [_q(c) for c in lead if c in entity]
        lead_sizes = (0, 1.0)
        if lead_cols and n:
            row = con.execute(
                f"SELECT count(*), max(k), avg(k) FROM (SELECT count(*) AS k FROM ev "
                f"GROUP BY {', '.join(lead_cols)})"
            ).fetchone()
            assert row is not None
            lead_sizes = (int(row[0]), float(row[1]) / float(row[2]))
        out = {
            name: _window(con, t, tup, entity, w) if n else None
            for name, w in (windows or {}).items()
        }
        first, last = (
            (pd.Timestamp(head[1]).tz_convert("UTC"), pd.Timestamp(head[2]).tz_convert("UTC"))
            if n
            else (None, None)
        )
        return FileAggregates(
            n, first, last, max(int(head[3]), 1) if n else 1, by_column, lead_sizes, out
        )
    finally:
        con.close()


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
    ans = " AND ".join(f"{_q(c)} = ?" for c in cols) if cols else "TRUE"
    row = con.execute(
        f"SELECT count(DISTINCT CASE WHEN ({ans}) AND {near} THEN {tup} END), "
        f"count(*) FILTER (WHERE ({ans}) AND {inside}), "
        f"count(DISTINCT CASE WHEN NOT ({ans}) AND {near} THEN {tup} END), "
        f"count(*) FILTER (WHERE NOT ({ans}) AND {inside}) FROM ev",
        params * 4 if cols else [],
    ).fetchone()
    return WindowAggregates(*(float(v) for v in row))


__all__ = ["FileAggregates", "WindowAggregates", "file_aggregates"]
