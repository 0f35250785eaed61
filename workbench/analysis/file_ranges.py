"""The engine path past ``Settings.rows_max`` rows: the file keyed by ranges of consecutive
rows, so the load model still replays every event (G06).

A key with the event's time has up to a row per event; past ``rows_max`` rows
(``analysis/file_writes.py`` decides: from the file's event count, else DuckDB's estimate of
the distinct keys) the rows are grouped into ranges: the rows of one key prefix (the segments
before the key's first time segment, all of them the series' columns) within one
epoch-aligned slot of time, the finest slot of ``SLOT_S`` that keeps the ranges at most
``rows_max`` (:func:`plan_ranges`, from the file's series and span) and their (range, step)
entries at most ``Settings.entries_max`` (:func:`range_plan`). A range's key is its first
row's in byte order, its writes its rows' per balancer step, and its row count
(``count(DISTINCT key)``) is kept on the index (``CellIndex.key_rows``) so the figures that
count rows count the file's. Where no slot's entries fit, a range is the whole rows of
consecutive prefixes. A tablet split then falls between ranges, not rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..datasets.file_aggregates import FileAggregates
from ..datasets.model import Dataset
from ..formatting import duration
from ..schema.schema import Schema
from .load_windows import window_grid
from .replay import balancer_steps
from .settings import Settings

# The slots of time the ranges group rows in, in seconds: each divides a day (or is whole
# days), so an epoch-aligned slot holds whole rows of any key time up to a day wide (UTC)
SLOT_S: tuple[int, ...] = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600)
SLOT_S += (7200, 10_800, 21_600, 43_200, 86_400, 7 * 86_400, 28 * 86_400)
DAY_US = 86_400_000_000


@dataclass(frozen=True)
class Ranges:
    """How the file's rows are grouped past ``rows_max``: the SQL texts of the key's segments
    before its time (the prefix), their template ("{host}", "" for none) and delimiter, and
    the slots of time that fit, finest first: (µs, the most ranges of a prefix's slots)."""

    prefix: tuple[str, ...]
    what: str
    delimiter: str
    slots: tuple[tuple[int, int], ...]


def plan_ranges(ds: Dataset, schema: Schema, agg: FileAggregates, rows_max: int) -> Ranges | str:
    """How to group the file's rows into at most ``rows_max`` ranges of consecutive rows (the
    prefix's SQL left empty: :func:`prefix_sql` writes it), or why they cannot be: the rows of
    one value of the key's segments before its time, within one epoch-aligned slot of
    ``SLOT_S`` that holds whole rows (the time's width divides it). A prefix of entity columns
    has at most as many values as their groups; each over the file's span takes at most span
    ÷ slot + 2 slots (the first and last partial)."""
    segs = schema.key.segments
    at = next((i for i, s in enumerate(segs) if s.time_order), None)
    if at is None:
        return "the key holds no time to group its rows by"
    width = segs[at].bucket_us()
    if not width or width != segs[at].bucket_us(longest=True) or DAY_US % width:
        return f"the key's {segs[at].template()} rows do not tile a day"
    before = segs[:at]
    if any(c not in ds.entity for s in before for c in s.sources()):
        return "the key holds a time, a measure or a column not of the series before its time"
    if any(s.self_delimited or s.names_measure for s in before):
        return "the key's tags or measure name before its time"
    cols = tuple(c for c in ds.entity if any(c in s.sources() for s in before))
    groups = (agg.busiest.get(cols) or (agg.series,))[0] if cols else 1
    span_us = int(agg.span_s * 1e6)
    what = schema.key.delimiter.join(s.template() for s in before)
    fit = [(w, groups * (span_us // w + 2)) for w in (x * 1_000_000 for x in SLOT_S)]
    fit = [(w, most) for w, most in fit if w % width == 0 and most <= rows_max]
    if not fit:
        return f"{groups:,} key prefixes take at least 2 ranges each, over {rows_max:,}"
    return Ranges((), what, schema.key.delimiter, tuple(fit))


def prefix_sql(schema: Schema, text: dict, t_us: str) -> tuple[str, ...]:
    """The SQL texts of the key's segments before its time (a range's prefix); ``text``: each
    entity column's key text in SQL (None: not written; the whole key's SQL is written)."""
    out = []
    for s in schema.key.segments:
        if s.time_order:
            break
        sql = s.key_sql({c: t for c, t in text.items() if t}, t_us, schema.key.delimiter)
        assert sql is not None
        out.append(sql)
    return tuple(out)


def range_view(
    ranges: Ranges, view: str, pairs: Sequence[tuple[str, str]], tm: str, t_us: str
) -> str:
    """The SQL creating ``view``: each mutation's key, ms, µs (``tu``) and prefix (``p0``…),
    an event writing the key of each (key, condition) pair whose condition holds."""
    cols = "".join(f", {p} AS p{i}" for i, p in enumerate(ranges.prefix))
    parts = [
        f"SELECT {key} AS key, {tm} AS tm, {t_us} AS tu{cols} FROM ev WHERE {where}"
        for key, where in pairs
    ]
    return f"CREATE TEMP VIEW {view} AS " + " UNION ALL ".join(parts)


def range_plan(
    con, ranges: Ranges, view: str, step: str, entries_max: int
) -> tuple[str, str] | str:
    """(the ranges' SQL over ``view``, the note's words for one range), or why none fit
    ``entries_max``. Each (prefix, step) written is one (range, step) entry or more, a slot
    boundary inside a step one more: ranges of a prefix's slot, the finest slot whose ranges
    plus DuckDB's estimate of the pairs are within the bound; else, a prefix before the time
    given, ranges of the whole rows of ``per`` consecutive prefixes (in byte order:
    consecutive rows), about pairs ÷ ``per`` entries where the prefixes write alike; else
    none."""
    ps = [f"p{i}" for i in range(len(ranges.prefix))]
    got = con.execute(
        f"SELECT approx_count_distinct(hash({', '.join([*ps, 'step'])})) "
        f"FROM (SELECT *, {step} AS step FROM {view})"
    ).fetchone()
    pairs = int(got[0]) if got is not None else 0
    for w, most in ranges.slots:
        if pairs + most <= entries_max:
            slot = f"(tu - ((tu % {w}) + {w}) % {w}) // {w}"  # floored, before 1970 too
            words = duration(w // 1_000_000)
            words = f"one {ranges.what}'s {words}" if ranges.what else words
            source = f"(SELECT *, {slot} AS s FROM {view})"
            return range_key(", ".join([*ps, "s"]), step, source), words
    if not ps:
        return (
            f"about {pairs:,} (key prefix, step) pairs, each one (range, step) entry or more, "
            f"over the {entries_max:,} the engine path fetches"
        )
    per = -(-pairs // int(entries_max * 0.9))
    d = "'" + ranges.delimiter.replace("'", "''") + "'"
    by = "".join(f"{p} || {d} || " for p in ps) + "''"  # as the keys start: each + delimiter
    con.execute(
        f"CREATE TEMP VIEW {view}g AS SELECT v.*, g.s FROM {view} v JOIN (SELECT "
        f"{', '.join(ps)}, (row_number() OVER (ORDER BY {by}) - 1) // {per} AS s FROM (SELECT "
        f"DISTINCT {', '.join(ps)} FROM {view})) g USING ({', '.join(ps)})"
    )
    return range_key("s", step, f"{view}g"), f"the whole rows of {per:,} consecutive {ranges.what}s"


def range_key(part: str, step: str, source: str) -> str:
    """The SQL of the file's writes per (range, step): a range is the events of ``source``
    (each event's key, ms, prefix ``p0``… and range column ``s``) with one value of ``part``
    — one prefix's epoch-aligned slot of time (consecutive rows: the prefix's rows sort
    together and, within them, the key's fixed-width time in time order) or a run of
    consecutive prefixes —, its key the first of its rows in byte order (``min`` over VARCHAR:
    DuckDB compares the UTF-8 bytes, as Bigtable orders keys:
    ``tests/analysis/test_file_writes.py``), ``r`` its distinct rows. Columns key, r, step, c
    (mutations), t (the first one's ms), as the row grouping's."""
    return (
        f"SELECT key, r, step, c, t FROM (SELECT min(key) OVER g AS key, max(r) OVER g AS r, "
        f"step, c, t FROM (SELECT {part}, step, count(*) AS c, min(tm) AS t, min(key) AS key, "
        f"count(DISTINCT key) AS r FROM (SELECT *, {step} AS step FROM {source}) "
        f"GROUP BY GROUPING SETS (({part}, step), ({part}))) WINDOW g AS (PARTITION BY {part})) "
        "WHERE step IS NOT NULL"
    )


def range_of(first_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """The ranges (by their first keys, sorted) that ``keys`` fall in, once each: for each,
    the last first key at or before it."""
    return np.unique(np.searchsorted(first_keys, keys, "right") - 1)


def ms_sql(t_us: str) -> str:
    """SQL of the µs ``t_us`` floored to the ms, as cells hold it (before 1970 too)."""
    return f"({t_us} - (({t_us} % 1000) + 1000) % 1000)"


class Grid(NamedTuple):
    """The load model's grid of one design's mutations: their count, the last one's time
    (µs), the first window's start, a window in µs, windows and steps per window."""

    n: int
    t_last: int
    t0: int
    win_us: int
    W: int
    sub: int


def load_grid(n: int, t_first: int, t_last: int, st: Settings) -> Grid:
    """The load model's grid (``window_grid``, ``balancer_steps``) of ``n`` mutations."""
    t0, win_us, W = window_grid(t_first, t_last, n, st)
    return Grid(n, t_last, t0, win_us, W, balancer_steps(win_us / 1e6, n, W, st)[0])


def ranged(
    con,
    ranges: Ranges,
    view: tuple[str, str],
    pairs: Sequence[tuple[str, str]],
    g: Grid,
    st: Settings,
) -> tuple | str:
    """A design's writes per (range, step) of its grid ``g``, its own pass: (the ranges' first
    keys in byte order, (the rows each holds, the note's words for one), the entries as
    (range, first ms, mutations)), or why none fit. ``view``: the view's name and the SQL of
    each event's µs; ``pairs`` the design's (key, condition) pairs."""
    name, t_us = view
    step = f"least((tm - {g.t0}) * {g.sub} // {g.win_us}, {g.W * g.sub - 1})"
    con.execute(range_view(ranges, name, pairs, ms_sql(t_us), t_us))
    planned = range_plan(con, ranges, name, step, st.entries_max)
    if isinstance(planned, str):
        return planned
    sql, words = planned
    con.execute(f"CREATE TEMP TABLE {name}_g AS {sql}")  # the files scanned once, fetched thrice
    found = fetch_keyed(con, f"SELECT * FROM {name}_g", "range", st, per_key="r")
    if isinstance(found, str):
        return found
    uniq, rows, entries = found
    return uniq, (rows, words), entries


def fetch_keyed(con, sel: str, what: str, st: Settings, per_key: str = "") -> tuple | str:
    """(distinct keys in byte order, each one's ``per_key`` column (None: none asked), the
    entries as (key id, first ms, mutations)) of ``sel``'s (key, step) groups (columns key, c,
    t and ``per_key``), or why they pass ``entries_max`` or ``rows_max`` (``what``: "row" or
    "range"). The keys cross into Python once each and the entries as row numbers: DuckDB
    orders text by its UTF-8 bytes, as Bigtable orders keys."""
    counted = con.execute(f"SELECT count(*), count(DISTINCT key) FROM ({sel})").fetchone()
    assert counted is not None
    if counted[0] > st.entries_max:
        return f"{counted[0]:,} ({what}, step) entries, over {st.entries_max:,}"
    if counted[1] > st.rows_max:
        return f"{counted[1]:,} {what}s, over the {st.rows_max:,} the engine path keys"
    extra = f", {per_key}" if per_key else ""
    keys = con.execute(f"SELECT DISTINCT key{extra} FROM ({sel}) ORDER BY key").fetchnumpy()
    got = con.execute(
        f"SELECT dense_rank() OVER (ORDER BY key) - 1 AS row, t, c FROM ({sel})"
    ).fetchnumpy()
    uniq = np.char.encode(keys["key"].astype(str), "utf-8")
    row = np.asarray(got["row"], dtype=np.int64)
    per = np.asarray(keys[per_key], dtype=np.int64) if per_key else None
    order = np.argsort(uniq, kind="stable")  # numpy's "S" order, the index's
    if (order != np.arange(len(order))).any():
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        uniq, row = uniq[order], rank[row]
        per = per[order] if per is not None else None
    return (
        uniq,
        per,
        (row, np.asarray(got["t"], dtype=np.int64), np.asarray(got["c"], dtype=np.int64)),
    )
