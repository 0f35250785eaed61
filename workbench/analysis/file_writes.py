"""The engine path's writes: every event of the files keyed by DuckDB, for the load model (G06).

A shape sample (``from_parquet`` over ``SHAPE_ABOVE`` events) holds a tenth or less of the
series; replaying its writes gives the key distribution within ~15 % of the file's. Here
DuckDB writes each event's row key in SQL over the files themselves (``RowKey.key_sql``: each
segment's own text, checked equal to ``render`` in ``tests/schema/test_keys.py``) and
groups the events per (row key, balancer step of the load model's grid): the entries number
the distinct rows × the steps they are written in, not the events, and each stands for its
``count`` mutations (``Writes.count``; an event is one mutation: two events in one cell are a
collision the write path refuses). ``key_distribution`` replays them through the same steps
as the in-memory path's one entry per mutation, so the tablets, shares and split keys are the
whole file's (``tests/datasets/test_file_aggregates.py``, on a million events).

From the sample still: the bytes and cells of a mutation besides its key (its key's own bytes
are the file's), the rows each query reads (its plan's rows in the sample, found among the
file's keys, at the plan's node time in the sample) and the ceiling the model states before
production's.

Past ``Settings.rows_max`` rows (a key with the event's time has up to a row per event:
decided from the file's event count without a scan, else by DuckDB's estimate of the distinct
keys) the file is keyed by **ranges of consecutive rows** (:func:`_range_key`): the rows of one
key prefix (the segments before the key's time) within one slot of time, the slot the finest
of ``SLOT_S`` that keeps the ranges at most ``rows_max`` (from the file's series and span), a
range's key its first row's in byte order, its writes its rows', and its row count kept
(``CellIndex.key_rows``) so the figures that count rows count the file's. A tablet split then
falls between ranges, not rows. Where a prefix's slots would make more (range, step) entries
than ``Settings.entries_max``, a range is the whole rows of consecutive prefixes
(:func:`_range_plan`). Where SQL cannot write the key (a hash, a salt, a measure's
name, Heroic's tags), a design writes more than one table or summary rows, the file has more
rows than ``rows_max`` and no slot tiles them (a week or month row, Heroic's base, no time in
the key, or more series than the bound), more entries than ``entries_max`` still, or the
SQL keys miss one of the sample's, the load model replays the sample as before and its note
says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from ..datasets.file_aggregates import FileAggregates, connect, sql_name
from ..datasets.model import Dataset
from ..formatting import duration
from ..schema.schema import Schema
from ._index import CellIndex
from .ceiling import Ceiling, design_ceiling
from .load_windows import Writes, first_writes, query_rates, read_load, window_grid
from .replay import balancer_steps
from .settings import Settings

# The slots of time the range path groups rows in, in seconds: each divides a day (or is whole
# days), so an epoch-aligned slot holds whole rows of any key time up to a day wide (UTC)
SLOT_S: tuple[int, ...] = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600)
SLOT_S += (7200, 10_800, 21_600, 43_200, 86_400, 7 * 86_400, 28 * 86_400)
DAY_US = 86_400_000_000


@dataclass(frozen=True)
class Ranges:
    """How the file's rows are grouped past ``rows_max``: the SQL texts of the key's segments
    before its time (the prefix), their template ("{host}", "" for none) and delimiter, the
    slot of time in µs and the most ranges of a prefix's slots it gives."""

    prefix: tuple[str, ...]
    what: str
    delimiter: str
    slot_us: int
    most: int


@dataclass(frozen=True)
class FileWrites:
    """The file's rows (``index``: keys only, in Bigtable order), its writes grouped per (row,
    balancer step), its events, and the note the load model prints."""

    index: CellIndex
    writes: Writes
    events: int
    note: str

    def seen_rows(self, sample: CellIndex, seen: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Each query's rows in the sample (``seen``: sample row ids) as the file's row ids:
        the sample's keys are among the file's (checked when the writes were made); ranges:
        the range each sample row falls in, once each."""
        keys = self.index.row_keys
        if self.index.key_rows is None:
            return {
                q: np.searchsorted(keys, sample.row_keys[np.asarray(r)]) for q, r in seen.items()
            }
        return {
            q: np.unique(np.searchsorted(keys, sample.row_keys[np.asarray(r)], "right") - 1)
            for q, r in seen.items()
        }


@dataclass(frozen=True)
class Replayed:
    """What the load model replays (``overview.load_model``): the rows, their writes, the
    rows each query reads, the events the writes are of, whose writes they are (a note, ""
    for the data's own) and the ceiling to state (None: the writes' own)."""

    index: CellIndex
    writes: Writes
    seen: Mapping[str, np.ndarray] | None
    events: int
    note: str
    ceiling: Ceiling | None


def replayed(
    ds: Dataset,
    schema: Schema | None,
    sample: tuple[CellIndex, Writes],
    reads: tuple[Mapping[str, np.ndarray] | None, Mapping[str, float], Mapping[str, float] | None],
    queries_per_s: float,
    st: Settings,
) -> Replayed:
    """The file's writes where :func:`file_writes` makes them (``schema`` given), else the
    sample's; ``reads``: each query's rows in the sample, weight and node-seconds per run."""
    index, w = sample
    fw = file_writes(ds, schema, index, w, st) if schema is not None else None
    if not isinstance(fw, FileWrites):
        return Replayed(index, w, reads[0], len(ds), fw or "", None)
    seen, weights, node_s = reads
    ceiling = writes_ceiling(
        index,
        w,
        seen_rows=seen,
        weights=weights,
        query_node_s=node_s,
        queries_per_s=queries_per_s,
        settings=st,
    )
    in_file = fw.seen_rows(index, dict(seen)) if seen is not None else None
    return Replayed(fw.index, fw.writes, in_file, fw.events, fw.note, ceiling)


def writes_ceiling(
    index: CellIndex,
    w: Writes,
    *,
    seen_rows: Mapping[str, np.ndarray] | None,
    weights: Mapping[str, float] | None,
    query_node_s: Mapping[str, float] | None,
    queries_per_s: float,
    settings: Settings,
) -> Ceiling:
    """The ceiling :func:`key_distribution` states of ``index``'s writes ``w`` when none is
    given (``design_ceiling``, the reads per row as the model spreads them). The engine path
    states the shape sample's: production grows its units from the sample's series
    (``production.write_units``), so the file's units there would be counted twice."""
    seen = seen_rows or {}
    row_bytes = np.bincount(w.row, weights=w.nbytes, minlength=index.n_rows)
    rates = query_rates(seen, weights or {}, queries_per_s)
    rcpu = read_load(
        row_bytes,
        seen,
        rates,
        dict(query_node_s or {}),
        settings,
        lambda rows: np.zeros(len(rows), dtype=np.int64),
        1,
    )[0]
    first = first_writes(w.row, index.n_rows)
    return design_ceiling(index, w, first, rcpu, queries_per_s, settings)


def sample_note(why: str) -> str:
    """The load model's note when it replays the shape sample."""
    return f"writes: the shape sample's replay ({why})"


def file_writes(
    ds: Dataset, schema: Schema, sample: CellIndex, sample_writes: Writes, st: Settings
) -> FileWrites | str | None:
    """The file's writes for the load model (see the module docstring), the reason the sample
    stands in for them (a note), or None for a dataset that is not a shape sample of files."""
    agg = ds.aggregates
    if agg is None:
        return None
    if not agg.source:
        return sample_note("a CSV is counted in one pass; its events are not scanned again")
    why = _unkeyable(schema)
    ranges = _ranges(ds, schema, agg, st.rows_max)
    per_event = any(s.time_order and not s.time_bucket for s in schema.key.segments)
    if not why and per_event and agg.events > st.rows_max and isinstance(ranges, str):
        why = (
            f"the key's time gives up to a row per event: {agg.events:,} over "
            f"{st.rows_max:,}, and no ranges of them fit ({ranges})"
        )
    if why:
        return sample_note(why)
    paths, naive_tz = agg.source
    columns = [*ds.measures, *ds.attributes]
    con = connect(paths, [*ds.entity, ds.time], ds.time, naive_tz)
    try:
        types = dict(con.execute("SELECT column_name, column_type FROM (DESCRIBE ev)").fetchall())
        text = {c: _key_text(c, str(types[c])) for c in ds.entity}
        t_us = f"epoch_us({sql_name(ds.time)})"
        key = schema.key.key_sql({c: t for c, t in text.items() if t}, t_us)
        if key is None:
            return sample_note("an entity column is neither text nor a whole number")
        if isinstance(ranges, Ranges):
            ranges = replace(ranges, prefix=tuple(_prefix_sql(schema, text, t_us)))
        found = _grouped(con, key, t_us, _has_cell(schema, columns, types), st, ranges)
    finally:
        con.close()
    if isinstance(found, str):
        return sample_note(found)
    keys, rows, entries, n, t_last = found
    return _as_writes(keys, entries, (agg.events, n, t_last), sample, sample_writes, rows)


def _ranges(ds: Dataset, schema: Schema, agg: FileAggregates, rows_max: int) -> Ranges | str:
    """How to group the file's rows into at most ``rows_max`` ranges of consecutive rows (its
    ``prefix`` SQL left empty: :func:`file_writes` writes it), or why they cannot be: the rows
    of one value of the key's segments before its time, within one epoch-aligned slot of
    ``SLOT_S`` that holds whole rows (the time's width divides it). A prefix of entity columns
    has at most as many values as their groups; each over the file's span takes at most span ÷
    slot + 2 slots (the first and last partial)."""
    segs = schema.key.segments
    at = next((i for i, s in enumerate(segs) if s.time_order), None)
    if at is None:
        return "the key holds no time to group its rows by"
    width = segs[at].bucket_us()
    if not width or width != segs[at].bucket_us(longest=True) or DAY_US % width:
        return f"the key's {segs[at].template()} rows do not tile a day"
    before = segs[:at]
    if any(c not in ds.entity for s in before for c in s.sources()):
        return "the key holds a time or a column not of the series before its time"
    cols = tuple(c for c in ds.entity if any(c in s.sources() for s in before))
    groups = (agg.busiest.get(cols) or (agg.series,))[0] if cols else 1
    span_us = int(agg.span_s * 1e6)
    what = schema.key.delimiter.join(s.template() for s in before)
    for slot in SLOT_S:
        w = slot * 1_000_000
        if w % width == 0 and groups * (span_us // w + 2) <= rows_max:
            return Ranges((), what, schema.key.delimiter, w, groups * (span_us // w + 2))
    return f"{groups:,} key prefixes take at least 2 ranges each, over {rows_max:,}"


def _prefix_sql(schema: Schema, text: dict, t_us: str) -> list[str]:
    """The SQL texts of the key's segments before its time (a range's prefix)."""
    out = []
    for s in schema.key.segments:
        if s.time_order:
            break
        sql = s.key_sql({c: t for c, t in text.items() if t}, t_us)
        assert sql is not None  # the whole key's SQL is written
        out.append(sql)
    return out


def _unkeyable(schema: Schema) -> str:
    """Why the design's writes are not keyed here ("" when they are)."""
    if schema.tables or schema.aggregates is not None:
        return "the design writes more than one table or summary rows"
    for seg in schema.key.segments:
        if seg.names_measure:
            return f"the key's {seg.template()} writes a row per measure"
        if seg.key_sql({c: "x" for c in seg.sources()}, "0") is None:
            return f"the key's {seg.template()} is not written in SQL"
    return ""


def _key_text(column: str, sql_type: str) -> str | None:
    """A column's key text in SQL: text with the spaces around it stripped (as ``from_parquet``
    and the bulk load's preflight strip them), a whole number's digits (None: other types,
    whose text the sample's formatting gives)."""
    q = sql_name(column)
    if sql_type == "VARCHAR":
        return f"trim({q})"
    if sql_type in (
        "TINYINT",
        "SMALLINT",
        "INTEGER",
        "BIGINT",
        "UTINYINT",
        "USMALLINT",
        "UINTEGER",
    ):
        return f"CAST({q} AS VARCHAR)"
    return None


def _has_cell(schema: Schema, columns: list[str], types: dict) -> str:
    """The SQL condition of an event that writes a cell: a value in a measure or attribute (an
    event with none writes none, unless the design writes a ``missing`` text)."""
    if schema.missing is not None:
        return "TRUE"
    held = [
        f"({sql_name(c)} IS NOT NULL"
        + (f" AND NOT isnan({sql_name(c)}))" if str(types[c]) in ("DOUBLE", "FLOAT") else ")")
        for c in columns
        if c in types
    ]
    return " OR ".join(held) or "TRUE"


def _grouped(
    con, key: str, t_us: str, where: str, st: Settings, ranges: Ranges | str
) -> tuple | str:
    """(distinct keys in byte order, the rows each range holds and the note's words for one
    (None: a key is a row), per (key,
    step) entries as (key, first ms, mutations), mutations, the last one's time) by DuckDB, or
    why not. The grid is the load model's own (``window_grid``, ``balancer_steps``) over the
    file's mutations, so an entry's step is the step its mutations take in the replay. Past
    ``rows_max`` rows the keys are ``ranges``' (:func:`_range_key`)."""
    ms = _floored(t_us, 1000)  # to the ms, as cells hold it
    cols = ""
    if isinstance(ranges, Ranges):  # a range's prefix and slot (read only by the ranges' SQL)
        cols = "".join(f", {p} AS p{i}" for i, p in enumerate(ranges.prefix))
        cols += f", {_floored(t_us, ranges.slot_us)} // {ranges.slot_us} AS s"
    con.execute(
        f"CREATE TEMP VIEW k AS SELECT {key} AS key, {ms} AS tm{cols} FROM ev WHERE {where}"
    )
    row = con.execute(
        "SELECT count(*), min(tm), max(tm), approx_count_distinct(key) FROM k"
    ).fetchone()
    assert row is not None
    n, t_first, t_last, rows = int(row[0]), row[1], row[2], int(row[3])
    if not n:
        return "the files hold no event with a cell"
    # HyperLogLog's estimate is within a few %: ranges from 95 % of the bound, so the rows
    # fetched one by one stay under it
    by_range = isinstance(ranges, Ranges) and rows > st.rows_max * 0.95
    if not by_range and rows > st.rows_max * 1.05:
        return f"about {rows:,} rows, over the {st.rows_max:,} the engine path keys ({ranges})"
    t0, win_us, W = window_grid(int(t_first), int(t_last), n, st)
    sub, _ = balancer_steps(win_us / 1e6, n, W, st)
    step = f"least((tm - {t0}) * {sub} // {win_us}, {W * sub - 1})"
    most = st.entries_max + 1
    if by_range:
        assert isinstance(ranges, Ranges)
        planned = _range_plan(con, ranges, step, st.entries_max)
        if isinstance(planned, str):
            return planned
        sql, words = planned
        sql += f" LIMIT {most}"
    else:
        sql = (
            f"SELECT key, {step} AS step, count(*) AS c, min(tm) AS t FROM k "
            f"GROUP BY key, step LIMIT {most}"
        )
    got = con.execute(sql).fetchnumpy()
    if len(got["c"]) > st.entries_max:
        return f"over {st.entries_max:,} ({'range' if by_range else 'row'}, step) entries"
    # UTF-8 bytes, as the index holds keys: numpy's "S" sorts them as Bigtable does
    keys = np.char.encode(got["key"].astype(str), "utf-8")
    uniq, row_of = np.unique(keys, return_inverse=True)
    del keys
    if len(uniq) > st.rows_max:
        return f"{len(uniq):,} rows, over the {st.rows_max:,} the engine path keys"
    ranged = None  # the rows of each range, and the note's words for one
    if by_range:
        ranged = (np.zeros(len(uniq), dtype=np.int64), words)
        ranged[0][row_of] = got["r"]
    entries = (
        row_of.astype(np.int64),
        np.asarray(got["t"], dtype=np.int64),
        np.asarray(got["c"], dtype=np.int64),
    )
    return uniq, ranged, entries, n, int(t_last)


def _range_plan(con, ranges: Ranges, step: str, entries_max: int) -> tuple[str, str] | str:
    """(the ranges' SQL, the note's words for one range), or why none fit ``entries_max``.
    Each (prefix, step) written is one (range, step) entry or more, a slot boundary inside a
    step one more: with DuckDB's estimate of the pairs plus the slots' ranges within the bound,
    ranges of a prefix's slot; else, a prefix before the time given, ranges of the whole rows of
    ``per`` consecutive prefixes (in byte order: consecutive rows), about pairs ÷ ``per``
    entries where the prefixes write alike; else none."""
    ps = [f"p{i}" for i in range(len(ranges.prefix))]
    got = con.execute(
        f"SELECT approx_count_distinct(hash({', '.join([*ps, 'step'])})) "
        f"FROM (SELECT *, {step} AS step FROM k)"
    ).fetchone()
    pairs = int(got[0]) if got is not None else 0
    if pairs + ranges.most <= entries_max:
        w = ranges.slot_us // 1_000_000
        words = f"one {ranges.what}'s {duration(w)}" if ranges.what else duration(w)
        return _range_key(", ".join([*ps, "s"]), step, "k"), words
    if not ps:
        return (
            f"about {pairs:,} (key prefix, step) pairs, each one (range, step) entry or more, "
            f"over the {entries_max:,} the engine path fetches"
        )
    per = -(-pairs // int(entries_max * 0.9))
    d = "'" + ranges.delimiter.replace("'", "''") + "'"
    by = "".join(f"{p} || {d} || " for p in ps) + "''"  # as the keys start: each + delimiter
    con.execute(
        f"CREATE TEMP VIEW kg AS SELECT k.* EXCLUDE (s), g.s FROM k JOIN (SELECT {', '.join(ps)}, "
        f"(row_number() OVER (ORDER BY {by}) - 1) // {per} AS s FROM (SELECT DISTINCT "
        f"{', '.join(ps)} FROM k)) g USING ({', '.join(ps)})"
    )
    return _range_key("s", step, "kg"), f"the whole rows of {per:,} consecutive {ranges.what}s"


def _range_key(part: str, step: str, source: str) -> str:
    """The SQL of the file's writes per (range, step): a range is the events of ``source``
    (``k`` or ``kg``: each event's key, ms, prefix ``p0``… and range column ``s``) with one
    value of ``part`` — one prefix's epoch-aligned slot of time (consecutive rows: the prefix's
    rows sort together and, within them, the key's fixed-width time in time order) or a run
    of consecutive prefixes —, its key the first of its rows in byte order (``min`` over
    VARCHAR: DuckDB compares the UTF-8 bytes, as Bigtable orders keys:
    ``tests/analysis/test_file_writes.py``), ``r`` its distinct rows. Columns key, r, step, c
    (mutations), t (the first one's ms), as the row grouping's."""
    return (
        f"SELECT key, r, step, c, t FROM (SELECT min(key) OVER g AS key, max(r) OVER g AS r, "
        f"step, c, t FROM (SELECT {part}, step, count(*) AS c, min(tm) AS t, min(key) AS key, "
        f"count(DISTINCT key) AS r FROM (SELECT *, {step} AS step FROM {source}) "
        f"GROUP BY GROUPING SETS (({part}, step), ({part}))) WINDOW g AS (PARTITION BY {part})) "
        "WHERE step IS NOT NULL"
    )


def _floored(t_us: str, unit: int) -> str:
    """SQL of the µs ``t_us`` floored to a multiple of ``unit`` µs (before 1970 too)."""
    return f"({t_us} - (({t_us} % {unit}) + {unit}) % {unit})"


def _as_writes(
    keys: np.ndarray,
    entries: tuple[np.ndarray, np.ndarray, np.ndarray],
    counts: tuple[int, int, int],
    sample: CellIndex,
    sample_writes: Writes,
    ranges: tuple[np.ndarray, str] | None = None,
) -> FileWrites | str:
    """The entries as ``Writes`` in time order, each mutation's bytes its key's plus the
    sample's mean of the rest (cells, family, qualifier, timestamp, value), and the file's
    rows as a keys-only index; ``counts``: the file's events, its mutations, the last one's
    time; ``ranges``: the rows each key's range holds (None: a key is a row; a range's key
    bytes are its first row's) and the note's words for a range."""
    events, n, t_last = counts
    rows, words = ranges or (None, "")
    if rows is None:
        got = np.searchsorted(keys, sample.row_keys)
        inside = got < len(keys)
        missed = not (inside.all() and (keys[got[inside]] == sample.row_keys).all())
    else:  # each sample key falls in a range: none before the first
        missed = bool(len(keys)) and bool((sample.row_keys < keys[0]).any())
    if missed:
        return sample_note("the keys DuckDB writes miss some of the sample's")
    w = sample_writes
    n_s = max(len(w.row), 1)
    cells_per = float(w.cells.sum(dtype=np.float64)) / n_s
    rest = float((w.nbytes - w.cells * sample.key_bytes[w.row]).sum(dtype=np.float64)) / n_s
    row, ts, count = entries
    order = np.lexsort((row, ts))  # by time, then key: the in-memory path's order
    row, ts, count = row[order], ts[order], count[order]
    key_bytes = np.char.str_len(keys).astype(np.int64)
    nbytes = np.rint(count * (cells_per * key_bytes[row] + rest)).astype(np.int64)
    cells = np.rint(count * cells_per).astype(np.int64)
    index = CellIndex.keys_only(list(sample.tables[:1]), keys, key_bytes, rows)
    on = f"{len(keys):,} rows"
    if rows is not None:
        on = (
            f"{int(rows.sum()):,} rows, grouped into ranges of {words}: {len(keys):,} ranges, "
            "a split falls between them"
        )
    note = f"writes: every event of the file keyed by DuckDB ({n:,} mutations on {on}); "
    note += "bytes besides the key from the sample"
    return FileWrites(index, Writes(row, ts, nbytes, cells, count, t_last), events, note)
