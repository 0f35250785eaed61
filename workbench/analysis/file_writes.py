"""The engine path's writes: every event of the files keyed by DuckDB, for the load model (G06).

A shape sample (``from_parquet`` over ``SHAPE_ABOVE`` events) holds a tenth or less of the
series; replaying its writes gives the key distribution within ~15 % of the file's. Here
DuckDB writes each event's row key in SQL over the files (``RowKey.key_sql``, each segment's
text checked equal to ``render`` in ``tests/schema/test_keys.py``; a salt's crc32 is
``hashing.register_crc32``'s function) and groups the events per (row key, balancer step of
the load model's grid): each entry stands for its ``count`` mutations (``Writes.count``; an
event is one mutation, or one per measure with a value when the key names the measure).
``key_distribution`` replays them through the in-memory path's steps, so the tablets, shares
and split keys are the whole file's (``tests/datasets/test_file_aggregates.py``). A compare
keys every design in one pass (:func:`one_pass`, :class:`FileKeys`): one scan counts each
design's mutations and distinct rows, a second groups them all as one ``GROUPING SETS``.

From the sample still: the bytes and cells of a mutation besides its key, the rows each query
reads (its plan's rows in the sample, found among the file's keys) and the ceiling the model
states before production's. Past ``Settings.rows_max`` rows the file is keyed by **ranges of
consecutive rows** (``analysis/file_ranges.py``, its own pass, the rows each holds kept on the
index: ``CellIndex.key_rows``). The sample's replay stays, and its note says why, where a
design writes more than one table or summary rows, its rows pass ``rows_max`` and no ranges
tile them (or pass ``range_rows_max``), its entries pass ``entries_max`` (about series ×
balancer steps by the file's counts, before any scan: ``_over_bounds``), or the SQL keys miss
one of the sample's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from ..datasets.file_aggregates import connect, sql_name
from ..datasets.model import Dataset
from ..schema.hashing import register_crc32
from ..schema.schema import Schema
from ..schema.segments import MEASURE
from ._index import CellIndex
from .ceiling import Ceiling, design_ceiling
from .file_ranges import (
    Grid,
    Ranges,
    fetch_keyed,
    load_grid,
    ms_sql,
    plan_ranges,
    prefix_sql,
    range_of,
    ranged,
)
from .load_windows import Writes, first_writes, query_rates, read_load, window_grid
from .replay import balancer_steps
from .settings import DEFAULT, Settings


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
        find = np.searchsorted if self.index.key_rows is None else range_of
        return {
            q: find(self.index.row_keys, sample.row_keys[np.asarray(r)]) for q, r in seen.items()
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
    stands in for them (a note), or None for a dataset that is not a shape sample of files.
    Inside :func:`one_pass` over ``ds``'s files the pass's DuckDB results serve; else the
    design's own pass runs."""
    agg = ds.aggregates
    if agg is None:
        return None
    if not agg.source:
        return sample_note("a CSV is counted in one pass; its events are not scanned again")
    why = _unkeyable(schema) or _over_bounds(ds, schema, st)
    if why:
        return sample_note(why)
    shared = _PASS.get()
    if shared is not None and not shared.serves(ds, st):
        shared = None
    q = shared.query(schema, ds.measures, ds.attributes) if shared is not None else None
    if shared is not None and q in shared.fetched:
        found = shared.fetched[q]
    else:
        keys = FileKeys(ds, st)
        try:
            q = keys.query(schema, ds.measures, ds.attributes)
            found = keys.grouped(q) if isinstance(q, tuple) else q
        finally:
            keys.close()
    if isinstance(found, str):
        return sample_note(found)
    uniq, ranged, entries, n, t_last = found
    return _as_writes(uniq, entries, (agg.events, n, t_last), sample, sample_writes, ranged)


# a design's mutations: (key, condition) pairs in SQL, an event writing each pair's key where
# its condition holds (``FileKeys.query``)
Query = tuple[tuple[str, str], ...]

_PASS: ContextVar[FileKeys | None] = ContextVar("file_keys_pass", default=None)


@contextmanager
def one_pass(ds: Dataset, schemas: Sequence[Schema], st: Settings | None = None) -> Iterator[None]:
    """Within it, every design of ``schemas`` the engine path keys on ``ds``'s files is
    grouped by one DuckDB pass (two scans of the files: counts, then every design's (row,
    step) groups as one ``GROUPING SETS``), not a pass per design: ``compare``'s. Nothing
    happens for a dataset that is not a shape sample of Parquet files."""
    st = st or DEFAULT
    agg = ds.aggregates
    if agg is None or not agg.source:
        yield
        return
    keys = FileKeys(ds, st)
    qs = [
        keys.query(s, ds.measures, ds.attributes)
        for s in schemas
        if not (_unkeyable(s) or _over_bounds(ds, s, st))
    ]
    try:  # every design's groups fetched, then the connection and its tables let go
        kept = [q for q in qs if isinstance(q, tuple)]
        keys.run(kept)
        keys.fetched = {q: keys.grouped(q) for q in dict.fromkeys(kept)}  # designs alike: once
    finally:
        keys.close()
    token = _PASS.set(keys)
    try:
        yield
    finally:
        _PASS.reset(token)


class FileKeys:
    """One DuckDB connection on a shape sample's files and the designs' (row, step) groups it
    found: ``query`` writes a design's key and has-a-cell condition in SQL, ``run`` groups any
    number of them in one pass, ``grouped`` fetches one design's (running its own pass when
    ``run`` did not cover it). ``one_pass`` keeps every design's answer (``fetched``) and
    closes the connection: DuckDB's tables of a 5 M-event compare held ~460 MB until its end."""

    def __init__(self, ds: Dataset, st: Settings) -> None:
        agg = ds.aggregates
        assert agg is not None and agg.source
        paths, naive_tz = agg.source
        self.ds, self.agg, self.st, self.entity = ds, agg, st, list(ds.entity)
        self.con = connect(paths, [*ds.entity, ds.time], ds.time, naive_tz)
        register_crc32(self.con)  # a salt's bucket (``Salt.key_sql``): DuckDB has no crc32
        self.types = {
            c: str(t)
            for c, t in self.con.execute(
                "SELECT column_name, column_type FROM (DESCRIBE ev)"
            ).fetchall()
        }
        self.t_us = f"epoch_us({sql_name(ds.time)})"
        self.found: dict[Query, _Group | Grid | str] = {}  # a design's groups, or why none
        self.fetched: dict[Query, tuple | str] = {}  # ``grouped``'s answers, kept by ``one_pass``
        self.ranges: dict[Query, Ranges] = {}  # how a design past rows_max is ranged
        self._tables = 0

    def serves(self, ds: Dataset, st: Settings) -> bool:
        """Whether this pass is over ``ds``'s files with the same settings (a design's dataset
        may leave attribute columns out: the files are the same)."""
        return ds.aggregates is self.agg and st == self.st

    def close(self) -> None:
        self.con.close()

    def query(
        self, schema: Schema, measures: Sequence[str], attributes: Sequence[str]
    ) -> Query | str:
        """The design's mutations in SQL as (key, condition) pairs, an event writing the key of
        each pair whose condition holds (a cell; a key naming the measure: one pair per
        measure, the measure's own value), or why not."""
        text = {c: _key_text(c, self.types[c]) for c in self.entity}
        held = {m: _has_cell(schema, [m], self.types) for m in measures}  # a row per measure
        pairs = schema.key.key_pairs({c: t for c, t in text.items() if t}, self.t_us, held)
        if pairs is None:
            odd = [c for c, t in text.items() if t is None]
            if odd:
                return f"the entity column {odd[0]!r} is neither text nor a whole number"
            return f"the key {schema.key.template()} names a column or time it does not hold"
        where = _has_cell(schema, [*measures, *attributes], self.types)
        q = tuple((k, where if c is None else c) for k, c in pairs)
        ranges = plan_ranges(self.ds, schema, self.agg, self.st.rows_max)
        if isinstance(ranges, Ranges):
            known = {c: t for c, t in text.items() if t}
            self.ranges[q] = replace(ranges, prefix=prefix_sql(schema, known, self.t_us))
        return q

    def _too_many(self, rows: int, by_range: bool) -> str:
        """Why a design of about ``rows`` distinct rows (DuckDB's HyperLogLog, within a few %)
        is not grouped ("" when it is): keyed row by row past ``rows_max``, ranged past
        ``range_rows_max`` (a range's ``count(DISTINCT key)`` holds every key in memory)."""
        most, what = (
            (self.st.range_rows_max, "a ranged pass counts")
            if by_range
            else (self.st.rows_max, "the engine path keys")
        )
        return f"about {rows:,} rows, over the {most:,} {what}" if rows > most * 1.05 else ""

    def run(self, queries: Sequence[Query]) -> None:
        """Group every design of ``queries`` not yet found in one pass. One scan: each
        condition's mutations, first and last ms, and each key's distinct rows (DuckDB's
        HyperLogLog). Then, for the designs within ``rows_max``, a second: one ``GROUPING
        SETS`` of (key, step) per key, its step on its design's grid (the load model's,
        ``window_grid`` and ``balancer_steps`` over the design's mutations), into a temporary
        table ``grouped`` fetches from. A key is a column that is NULL where its condition
        fails, so one row per event serves every design (``unnest`` would repeat the events)."""
        qs = list(dict.fromkeys(q for q in queries if q not in self.found))
        if not qs:
            return
        pairs = list(dict.fromkeys(p for q in qs for p in q))
        conds = list(dict.fromkeys(c for _, c in pairs))
        cols = [f"{ms_sql(self.t_us)} AS tm"] + [f"({c}) AS w{i}" for i, c in enumerate(conds)]
        cols += [f"CASE WHEN {c} THEN {k} END AS k{i}" for i, (k, c) in enumerate(pairs)]
        view = f"kv{self._tables}"
        self._tables += 1
        self.con.execute(f"CREATE TEMP VIEW {view} AS SELECT {', '.join(cols)} FROM ev")
        stats = [
            f"count(*) FILTER (WHERE w{i}), min(tm) FILTER (WHERE w{i}), "
            f"max(tm) FILTER (WHERE w{i})"
            for i in range(len(conds))
        ]
        stats += [f"approx_count_distinct(k{i})" for i in range(len(pairs))]
        row = self.con.execute(f"SELECT {', '.join(stats)} FROM {view}").fetchone()
        assert row is not None
        per_cond = {c: row[3 * i : 3 * i + 3] for i, c in enumerate(conds)}
        distinct = {p: int(row[3 * len(conds) + i]) for i, p in enumerate(pairs)}
        grids: dict[tuple[str, ...], tuple[int, int, int, int, int, int]] = {}
        kept: list[Query] = []
        for q in qs:
            got = [per_cond[c] for c in dict.fromkeys(c for _, c in q)]
            n = sum(int(g[0]) for g in got)
            rows = sum(distinct[p] for p in q)
            if not n:
                self.found[q] = "the files hold no event with a cell"
                continue
            # HyperLogLog's estimate is within a few %: ranges (file_ranges.py, grouped on
            # their own) from 95 % of the bound, so the rows fetched one by one stay under it
            by_range = q in self.ranges and rows > self.st.rows_max * 0.95
            why = self._too_many(rows, by_range)
            if why:
                self.found[q] = why
                continue
            grid = load_grid(
                n, min(int(g[1]) for g in got if g[0]), max(int(g[2]) for g in got if g[0]), self.st
            )
            if by_range:
                self.found[q] = grid
                continue
            grids[tuple(c for _, c in q)] = grid
            kept.append(q)
        if not kept:
            return
        grid_of = list(dict.fromkeys(tuple(c for _, c in q) for q in kept))
        steps = [
            f"least((tm - {t0}) * {sub} // {win}, {W * sub - 1}) AS s{g}"
            for g, (_, _, t0, win, W, sub) in enumerate(grids[c] for c in grid_of)
        ]
        sets = list(
            dict.fromkeys(
                (pairs.index(p), grid_of.index(tuple(c for _, c in q))) for q in kept for p in q
            )
        )
        # only the kept designs' keys: GROUPING() refuses a column in no set (a design past
        # rows_max, ranged on its own, or refused)
        used = sorted({pairs.index(p) for q in kept for p in q})
        grouped = [f"k{i}" for i in used] + [f"s{g}" for g in range(len(grid_of))]
        table = f"g{self._tables}"
        self.con.execute(
            f"CREATE TEMP TABLE {table} AS SELECT {', '.join(grouped)}, "
            f"GROUPING({', '.join(grouped)}) AS gid, count(*) AS c, min(tm) AS t "
            f"FROM (SELECT *, {', '.join(steps)} FROM {view}) GROUP BY GROUPING SETS "
            f"({', '.join(f'(k{i}, s{g})' for i, g in sets)})"
        )
        top = len(grouped) - 1
        for q in kept:
            g = grid_of.index(tuple(c for _, c in q))
            ks = [pairs.index(p) for p in q]
            # GROUPING's bit per column (the first the highest) is 1 where it is not grouped
            gids = [
                (1 << len(grouped))
                - 1
                - (1 << (top - used.index(i)))
                - (1 << (top - len(used) - g))
                for i in ks
            ]
            n, t_last = grids[grid_of[g]][:2]
            key = f"coalesce({', '.join(f'k{i}' for i in ks)})" if len(ks) > 1 else f"k{ks[0]}"
            self.found[q] = _Group(table, key, f"s{g}", tuple(gids), n, t_last)

    def grouped(self, q: Query) -> tuple | str:
        """(distinct keys in byte order, the rows each range holds and the note's words for
        one (None: a key is a row), per (key, step) entries as (key, first ms, mutations),
        mutations, the last one's time) of the design ``q``, or why not."""
        if q not in self.found:
            self.run([q])
        g = self.found[q]
        if isinstance(g, str):
            return g
        if isinstance(g, Grid):  # a design past rows_max: ranges of rows, its own pass
            self._tables += 1
            got = ranged(self.con, self.ranges[q], (f"r{self._tables}", self.t_us), q, g, self.st)
            return got if isinstance(got, str) else (*got, g.n, g.t_last)
        sel = (
            f"SELECT {g.key} AS key, c, t FROM {g.table} "
            f"WHERE gid IN ({', '.join(map(str, g.gids))}) AND {g.key} IS NOT NULL"
        )
        found = fetch_keyed(self.con, sel, "row", self.st)
        if isinstance(found, str):
            return found
        uniq, _, entries = found
        return uniq, None, entries, g.n, g.t_last


class _Group(NamedTuple):
    """Where one design's (row, step) groups are: the pass's table, the key and step columns,
    the ``GROUPING`` ids of its sets (one per key), its mutations and the last one's time (µs)."""

    table: str
    key: str
    step: str
    gids: tuple[int, ...]
    n: int
    t_last: int


def _unkeyable(schema: Schema) -> str:
    """Why the design's writes are not keyed here ("" when they are)."""
    if schema.tables or schema.aggregates is not None:
        return "the design writes more than one table or summary rows"
    for seg in schema.key.segments:
        if seg.key_sql({c: "x" for c in (*seg.sources(), MEASURE)}, "0") is None:
            return f"the key's {seg.template()} is not written in SQL"
    return ""


def _over_bounds(ds: Dataset, schema: Schema, st: Settings) -> str:
    """Why the file's rows or (row, step) entries would pass ``rows_max`` or ``entries_max``,
    judged from the file's counts before any scan ("" when they may fit): a key with the event's
    time has up to a row per event; else each series of the key's entity columns writes in
    about every balancer step of the load model's grid its events reach (a steady writer's
    rows: one entry a step), so the entries are about min(events, series × steps). A sparse
    writer has fewer: the bound then errs towards the sample's replay, never towards a scan
    whose entries are dropped."""
    agg = ds.aggregates
    assert agg is not None
    n = agg.events
    if any(s.time_order and not s.time_bucket for s in schema.key.segments) and n > st.rows_max:
        ranges = plan_ranges(ds, schema, agg, st.rows_max)
        if isinstance(ranges, Ranges) and n > st.range_rows_max:
            ranges = f"a ranged pass counts at most {st.range_rows_max:,} rows"
        if isinstance(ranges, Ranges):  # ranges of rows, their entries judged by range_plan
            return ""
        return (
            f"the key's time gives up to a row per event: {n:,} over {st.rows_max:,}, and no "
            f"ranges of them fit ({ranges})"
        )
    if not n or agg.first is None or agg.last is None:
        return ""
    cols = tuple(c for c in ds.entity if any(c in s.sources() for s in schema.key.segments))
    series = agg.busiest[cols][0] if cols in agg.busiest else agg.series if cols else 1
    first = int(agg.first.value // 1000)
    _, win_us, W = window_grid(first, int(agg.last.value // 1000), n, st)
    sub, _ = balancer_steps(win_us / 1e6, n, W, st)
    entries = min(n, series * W * sub)
    if entries > st.entries_max:
        return (
            f"about {entries:,} (row, step) entries by the file's counts ({series:,} series × "
            f"{W * sub:,} balancer steps), over {st.entries_max:,}"
        )
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
        "UBIGINT",
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
