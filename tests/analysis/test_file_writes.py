"""The engine path's writes (``analysis/file_writes.py``): every event of a shape sample's
Parquet files keyed by DuckDB and grouped per (row, balancer step), replayed by the load
model through the same steps as one entry per mutation (G06)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import workbench as wb
from workbench.analysis._index import CellIndex
from workbench.analysis.keyspace import key_distribution
from workbench.analysis.load_windows import Writes, time_ids, window_grid, writes_from_index
from workbench.analysis.overview import keyspace
from workbench.analysis.replay import balancer_steps
from workbench.analysis.settings import DEFAULT
from workbench.schema import Hashed, Segment
from workbench.schema.keys import heroic_key

FIGURES = (
    "n_writes",
    "n_rows",
    "n_tablets",
    "mean_share",
    "mean_write_share",
    "mean_tablet_share",
    "mean_tablet_write_share",
    "busiest_node_cpu",
    "hotspot_factor",
)


def _events(series: int, per: int) -> pd.DataFrame:
    """``series`` hosts, the first writing every second, the others every minute, ``per``
    readings each, values of four digits (every cell one size)."""
    host = np.repeat([f"h{i:02d}" for i in range(series)], per)
    step = np.where(host == "h00", 1, 60)
    secs = np.tile(np.arange(per), series) * step
    return pd.DataFrame(
        {
            "host": host,
            "time": pd.Timestamp("2024-03-04", tz="UTC") + pd.to_timedelta(secs, unit="s"),
            "value": 1000 + np.arange(len(host)) % 9000,
        }
    )


def _grouped(w: Writes) -> Writes:
    """``w`` (one entry per mutation) grouped by hand per (row, balancer step) of the load
    model's grid: an entry's count, first time and totals, in time order."""
    n = len(w.row)
    t0, win_us, W = window_grid(int(w.ts[0]), int(w.ts[-1]), n, DEFAULT)
    sub, _ = balancer_steps(win_us / 1e6, n, W, DEFAULT)
    step = np.minimum(time_ids(w.ts, t0, win_us, sub), W * sub - 1)
    f = pd.DataFrame({"row": w.row, "step": step, "ts": w.ts, "b": w.nbytes, "c": w.cells})
    g = f.groupby(["row", "step"]).agg(
        ts=("ts", "min"), b=("b", "sum"), c=("c", "sum"), k=("ts", "size")
    )
    g = g.reset_index().sort_values(["ts", "row"], kind="stable")
    return Writes(
        *(g[c].to_numpy(np.int64) for c in ("row", "ts", "b", "c", "k")), last_us=int(w.ts[-1])
    )


def test_writes_grouped_with_their_counts_replay_as_one_entry_per_mutation():
    """The one code path: the same mutations as one entry each or grouped per (row, step)
    with their counts give the same key distribution, to the last bit (whole planning rows
    sum exactly). 3 hosts × 3,000 readings in day rows: h00's 3,000 seconds fit one day, the
    others' 3,000 minutes span three (2024-03-04 to 06), so 1 + 2 × 3 = 7 rows."""
    ds = wb.from_dataframe(_events(3, 3_000), entity="host", time="time", measures="value")
    index = CellIndex.build(wb.preset(ds, "bucket_new_cells").to_cells(ds))
    one = writes_from_index(index)
    grouped = _grouped(one)
    assert len(grouped.row) < len(one.row) and grouped.n == len(one.row) == 9_000
    a = key_distribution(index, writes=one, write_rate_per_s=50_000, nodes=3)
    b = key_distribution(index, writes=grouped, write_rate_per_s=50_000, nodes=3)
    assert a.n_rows == 7
    for fig in FIGURES:
        assert getattr(b, fig) == getattr(a, fig), fig
    np.testing.assert_array_equal(b.node_cpu, a.node_cpu)
    assert b.split_keys() == a.split_keys()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """100 hosts × 200 readings in a Parquet file: the engine path's dataset (a shape sample
    of about 4,000 events) and the file loaded whole."""
    path = tmp_path_factory.mktemp("fw") / "hosts.parquet"
    pq.write_table(pa.Table.from_pandas(_events(100, 200), preserve_index=False), path)
    args = dict(entity="host", time="time", measures="value", progress=False)
    engine = wb.from_parquet(path, shape_events=4_000, **args)
    whole = wb.from_parquet(path, sample=1, **args)
    assert engine.aggregates is not None and len(engine) < 20_000 == len(whole)
    return engine, whole


def test_the_engine_key_distribution_is_the_whole_files(files):
    """entity_first keyed by DuckDB over the file: one row per event, 100 × 200 = 20,000
    rows and writes (the sample holds about a fifth), and every figure the whole file's."""
    engine, whole = files
    wl = wb.Workload(events_per_s=20_000)
    a = keyspace(engine, wb.preset(engine, "entity_first"), workload=wl)
    b = keyspace(whole, wb.preset(whole, "entity_first"), workload=wl)
    assert (a.n_rows, a.n_writes) == (20_000, 20_000)
    assert a.source_note.startswith("writes: every event of the file keyed by DuckDB")
    assert "20,000 mutations on 20,000 rows" in str(a)
    assert b.source_note == ""  # the data's own writes: nothing to say
    for fig in FIGURES:
        assert getattr(a, fig) == pytest.approx(getattr(b, fig), rel=1e-12), fig
    assert a.split_keys() == b.split_keys()


def _design(ds, name: str):
    """A gallery design of ``ds``; ``hashed``: entity_first with md5(host)[:8] (G22);
    ``tagged``: Heroic's key with the tag ``dc`` (G16)."""
    if name == "hashed":
        first = wb.preset(ds, "entity_first")
        key = wb.RowKey((Hashed("host", 8), *first.key.segments[1:]), first.key.delimiter)
        return dataclasses.replace(first, name="hashed", key=key)
    if name == "tagged":
        return dataclasses.replace(wb.preset(ds, "heroic"), key=heroic_key("host", ("dc",)))
    return wb.preset(ds, name)


def _same_as_the_whole_file(engine, whole, design: str, rows: int) -> None:
    """``design`` keyed by DuckDB over the engine dataset's file: ``rows`` rows, a write per
    event (20,000), and every figure the whole file's in memory."""
    wl = wb.Workload(events_per_s=20_000)
    a = keyspace(engine, _design(engine, design), workload=wl)
    b = keyspace(whole, _design(whole, design), workload=wl)
    assert a.source_note.startswith("writes: every event of the file keyed by DuckDB")
    assert (a.n_rows, a.n_writes) == (b.n_rows, b.n_writes) == (rows, 20_000)
    for fig in FIGURES:
        assert getattr(a, fig) == pytest.approx(getattr(b, fig), rel=1e-12), fig
    assert a.split_keys() == b.split_keys()


# every event has its own (host, second): 20,000 rows, hashed or salted by the second's text;
# Heroic's 2^32 ms (~49.7 days) base holds the file's 200 minutes from 2024-03-04 whole
# (1,709,510,400,000 ms is in base 398, which runs from 398 × 2^32 = 1,709,396,983,808 to
# 1,713,691,951,104), so a row per host: 100
@pytest.mark.parametrize(
    ("design", "rows"), [("hashed", 20_000), ("salted", 20_000), ("heroic", 100)]
)
def test_a_key_that_transforms_its_text_is_keyed_by_duckdb_as_the_whole_file(files, design, rows):
    _same_as_the_whole_file(*files, design, rows)


@pytest.fixture(scope="module")
def tagged(tmp_path_factory):
    """``files``' events with a Heroic tag ``dc``: host i's is "", "east" or "wëst" by i mod 3,
    the empty one meaning absent (``empty_ok``)."""
    ev = _events(100, 200)
    ev["dc"] = np.array(["", "east", "wëst"])[ev["host"].str[1:].astype(int) % 3]
    path = tmp_path_factory.mktemp("fw") / "tagged.parquet"
    pq.write_table(pa.Table.from_pandas(ev, preserve_index=False), path)
    args = dict(entity=["host", "dc"], time="time", measures="value", empty_ok=["dc"])
    engine = wb.from_parquet(path, shape_events=4_000, progress=False, **args)
    whole = wb.from_parquet(path, sample=1, progress=False, **args)
    assert engine.aggregates is not None and len(engine) < 20_000 == len(whole)
    return engine, whole


def test_heroics_tags_are_keyed_by_duckdb_as_the_whole_file(tagged):
    """A host's tag, empty or not, adds no row: 100 rows in base 398, as above; a key holds
    "dc=…," unless the host's number is a multiple of 3 (its tag empty, left out)."""
    _same_as_the_whole_file(*tagged, "tagged", 100)
    engine, _ = tagged
    keys = keyspace(engine, _design(engine, "tagged")).split_keys()["main"]
    assert keys and all(("dc=" in k) == (int(k[1:3]) % 3 != 0) for k in keys)
    assert all(k.endswith(",1709396983808") for k in keys)


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """``files``' events with a second measure ``temp``: NULL for the events numbered 0 mod
    4, NaN for 1 mod 4 (neither writes a cell), a value for the other half."""
    ev = _events(100, 200)
    i = np.arange(len(ev))
    temp = pa.array(np.where(i % 4 == 1, np.nan, 20.5), mask=i % 4 == 0, from_pandas=False)
    table = pa.Table.from_pandas(ev, preserve_index=False).append_column("temp", temp)
    path = tmp_path_factory.mktemp("fw") / "measured.parquet"
    pq.write_table(table, path)
    args = dict(entity="host", time="time", measures=["value", "temp"], progress=False)
    engine = wb.from_parquet(path, shape_events=4_000, **args)
    whole = wb.from_parquet(path, sample=1, **args)
    assert engine.aggregates is not None and len(engine) < 20_000 == len(whole)
    return engine, whole


def test_a_row_per_measure_is_keyed_by_duckdb_as_the_whole_file(measured):
    """bucket_new_columns keys {host}#{measure}#{day}: an event writes a mutation per measure
    it has a value of, 20,000 values and 20,000 / 2 temps = 30,000; each host's 200 readings
    fit one day, so 100 hosts × 2 measures = 200 rows."""
    engine, whole = measured
    wl = wb.Workload(events_per_s=20_000)
    a = keyspace(engine, wb.preset(engine, "bucket_new_columns"), workload=wl)
    b = keyspace(whole, wb.preset(whole, "bucket_new_columns"), workload=wl)
    assert a.source_note.startswith("writes: every event of the file keyed by DuckDB")
    assert "30,000 mutations on 200 rows" in a.source_note
    assert (a.n_rows, a.n_writes) == (b.n_rows, b.n_writes) == (200, 30_000)
    for fig in FIGURES:
        assert getattr(a, fig) == pytest.approx(getattr(b, fig), rel=1e-12), fig
    assert a.split_keys() == b.split_keys()


@dataclass(frozen=True)
class _Upper(Segment):
    """A segment kind with no SQL text (the base ``key_sql``): a column upper-cased."""

    column: str

    def sources(self) -> tuple[str, ...]:
        return (self.column,)

    def coded(self, ctx):
        codes, texts = ctx.coded(self.column)
        return codes, np.array([t.upper() for t in texts], dtype=object)

    def template(self) -> str:
        return "{upper(" + self.column + ")}"


def test_a_key_sql_cannot_write_replays_the_sample_and_says_why(files):
    """Every kind the workbench has writes its SQL; a new one that does not (or a design with
    a second table) keeps the sample's replay, and the note says which and why."""
    engine, _ = files
    first = wb.preset(engine, "entity_first")
    upper = dataclasses.replace(first, key=wb.RowKey((_Upper("host"), first.key.segments[1])))
    kd = keyspace(engine, upper)
    assert "shape sample" in kd.source_note and "not written in SQL" in kd.source_note
    assert "{upper(host)}" in str(kd)  # the printed line names the segment
    assert kd.n_writes == len(engine)  # the sample's own writes, one per event
    kd = keyspace(engine, wb.preset(engine, "two_tables"))
    assert "shape sample" in kd.source_note and "more than one table" in kd.source_note


def test_past_the_row_bound_with_no_ranges_to_fit_the_sample_replays_and_says_why(files):
    """``rows_max`` 50 (Settings): a key with the event's time has up to a row per event, and
    100 hosts take at least two ranges each (a first and a last partial slot), 200 > 50, so
    entity_first keeps the sample's replay without scanning the files, and says both; day
    rows — 100 hosts: h00's 200 seconds in one day, the others' 200 minutes (3 h 20 min) from
    midnight in one too, so 100 rows — are over 50 as well (DuckDB's estimate) and a day slot
    takes 2 × 100 ranges: the sample too. At 10,000 the day rows are keyed from the files."""
    engine, _ = files
    low = DEFAULT.replace(rows_max=50)
    kd = keyspace(engine, wb.preset(engine, "entity_first"), settings=low)
    assert "row per event: 20,000 over 50" in kd.source_note
    assert "100 key prefixes take at least 2 ranges each, over 50" in kd.source_note
    assert kd.n_writes == len(engine)
    kd = keyspace(engine, wb.preset(engine, "bucket_new_cells"), settings=low)
    assert "shape sample" in kd.source_note and "rows, over the 50" in kd.source_note
    kd = keyspace(
        engine, wb.preset(engine, "bucket_new_cells"), settings=DEFAULT.replace(rows_max=10_000)
    )
    assert kd.source_note.startswith("writes: every event of the file keyed by DuckDB")
    assert (kd.n_rows, kd.n_writes) == (100, 20_000)


def test_past_the_entry_bound_ranges_take_whole_prefixes_or_are_refused(files):
    """Each (key prefix, balancer step) written is one (range, step) entry or more. The grid:
    23 windows of 9 minutes, 2 steps each (``balancer_steps``: 9 min ÷ 5 min rounded up), so
    steps of 270 s; h00's 200 seconds in step 0, each other host's readings at minutes 0-199
    in steps 0 to 199 × 60 ÷ 270 = 44: 1 + 99 × 45 = 4,456 pairs. At ``entries_max`` 4,000
    no slot of entity_first fits (the pairs alone are over it; the coarsest slot adds 100 ×
    2 ranges), so each range is the whole rows of ⌈4,456 ÷ (0.9 × 4,000)⌉ = 2 consecutive hosts (DuckDB's estimate of the
    pairs, within a few %, gives 2 too): 100 ÷ 2 = 50 ranges, every event still replayed.
    At 6,300 the finest slot that fits is 15 minutes: 10 minutes adds 100 × (11,940 s ÷ 600 s
    = 19, + 2) = 2,100 ranges, over with the pairs (within 5 %, 4,233 or more), 15 minutes
    100 × (13 + 2) = 1,500 (with 4,679 at most, under): h00's one range and each other host's
    minutes 0-199 in 14, 1 + 99 × 14 = 1,387 ranges.
    timestamp_first ({time}#{host}) has no prefix to group: its 45 steps are 45 pairs, over an
    ``entries_max`` of 40, so the sample replays and says why (DuckDB's HyperLogLog estimate
    of so few is within 10 %)."""
    engine, _ = files
    st = DEFAULT.replace(rows_max=10_000, entries_max=4_000)
    wl = wb.Workload(events_per_s=20_000)
    kd = keyspace(engine, wb.preset(engine, "entity_first"), workload=wl, settings=st)
    assert "ranges of the whole rows of 2 consecutive {host}s: 50 ranges" in kd.source_note
    assert (kd.n_rows, kd.n_writes) == (20_000, 20_000) and kd.n_tablets > 1
    splits = kd.split_keys()["main"]  # between pairs of hosts: an even host's first reading
    assert all(k.endswith("#20240304000000") and int(k[1:3]) % 2 == 0 for k in splits)
    st = DEFAULT.replace(rows_max=10_000, entries_max=6_300)
    kd = keyspace(engine, wb.preset(engine, "entity_first"), settings=st)
    assert "ranges of one {host}'s 15.0 min: 1,387 ranges" in kd.source_note
    st = DEFAULT.replace(rows_max=10_000, entries_max=40)
    kd = keyspace(engine, wb.preset(engine, "timestamp_first"), settings=st)
    assert "shape sample" in kd.source_note and "(key prefix, step) pairs" in kd.source_note
    pairs = int(kd.source_note.split("about ")[1].split()[0])
    assert abs(pairs - 45) <= 0.1 * 45 and "over the 40" in kd.source_note  # an estimate


def test_past_the_row_bound_the_file_is_keyed_by_ranges_of_rows(files):
    """``rows_max`` 10,000 (Settings), under entity_first's 20,000 rows (a row per event):
    the rows are grouped into ranges of one host's slot of time, the finest slot of
    ``SLOT_S`` with 100 hosts × (span ÷ slot + 2) ≤ 10,000 over the span of 199 minutes
    (11,940 s): 2 min gives 100 × (99 + 2) = 10,100, over; 5 min 100 × (39 + 2) = 4,100. The
    ranges: h00's 200 seconds from midnight in one 5-minute slot, each other host's 200
    minutes in 40: 1 + 99 × 40 = 3,961. Every event is still replayed: 20,000 writes, and the
    rows counted are the file's (20,000 in all at the end), as the exact path's (the default
    bound). A split falls between ranges: each split key is a range's first key, a host's
    reading at a whole 5 minutes (h00's one range starts at midnight).

    Tolerance, from a split moving by at most one range: a tablet's writes in a window change
    by at most two ranges' (one at each end). The windows are 9 minutes (``window_grid``:
    24 wanted over 11,940 s, 497.5 s rounded up to whole minutes), 23 of them; a range holds
    5 writes (a host's 5 minutes), h00's 200 in window 0, 2 in window 22 (minutes 198-199).
    The write-weighted shares after warm-up move by at most (2 × 200 + 21 × 2 × 5 + 2 × 2) ÷
    the writes after window 0 (21 × 99 × 9 + 99 × 2 = 18,909) = 614 ÷ 18,909, allowed the
    busiest node as the busiest tablet; the hotspot factor is the busiest node's share × 3
    nodes (no reads: CPU is writes). The tablets: within 10 % (a cut moved by a range can tip
    one more load split either way)."""
    engine, _ = files
    wl = wb.Workload(events_per_s=20_000)
    exact = keyspace(engine, wb.preset(engine, "entity_first"), workload=wl)
    low = DEFAULT.replace(rows_max=10_000)
    kd = keyspace(engine, wb.preset(engine, "entity_first"), workload=wl, settings=low)
    assert "grouped into ranges of one {host}'s 5.0 min: 3,961 ranges" in kd.source_note
    assert "20,000 mutations on 20,000 rows" in str(kd)
    assert (kd.n_rows, kd.n_writes) == (exact.n_rows, exact.n_writes) == (20_000, 20_000)
    assert int(kd.rows[-1].sum()) == 20_000
    assert len(kd.window_edges_us) - 1 == 23 and kd.window_minutes == 9
    tol = (2 * 200 + 21 * 2 * 5 + 2 * 2) / (21 * 99 * 9 + 99 * 2)
    for fig in ("mean_write_share", "mean_tablet_write_share"):
        assert abs(getattr(kd, fig) - getattr(exact, fig)) <= tol, fig
    assert abs(kd.hotspot_factor - exact.hotspot_factor) <= 3 * tol
    assert abs(kd.n_tablets - exact.n_tablets) <= 0.1 * exact.n_tablets
    splits = kd.split_keys()["main"]
    assert len(splits) == kd.n_tablets - 1
    for key in splits:
        host, t = key.split("#")
        minute, second = int(t[10:12]), t[12:]
        assert second == "00" and minute % 5 == 0 and (host != "h00" or t.endswith("000000"))


def test_hour_rows_past_the_bound_are_ranges_of_whole_hours(files):
    """Hour rows ({host}#{hour}): h00's 200 seconds in hour 0, each other host's 200 minutes
    from midnight in hours 0-3, so 1 + 99 × 4 = 397 rows. At ``rows_max`` 300 DuckDB's
    estimate is over the bound and the slot must hold whole hours: 1 h gives 100 × (11,940 s ÷
    3,600 s = 3, + 2) = 500, over; 2 h 100 × (1 + 2) = 300. The ranges: h00's one, each other
    host's hours 0-1 and 2-3: 1 + 99 × 2 = 199 ranges, of 397 rows (``count(DISTINCT key)``
    per range: 2 rows in each but h00's)."""
    import dataclasses

    from workbench.schema.keys import RowKey
    from workbench.schema.segments import Field
    from workbench.schema.time_segments import TimeBucket

    engine, _ = files
    day = wb.preset(engine, "bucket_new_cells")
    hour = dataclasses.replace(day, key=RowKey((Field("host"), TimeBucket("hour"))))
    exact = keyspace(engine, hour)
    assert (exact.n_rows, exact.n_writes) == (397, 20_000)
    kd = keyspace(engine, hour, settings=DEFAULT.replace(rows_max=300))
    assert "ranges of one {host}'s 2.0 h: 199 ranges" in kd.source_note
    assert "20,000 mutations on 397 rows" in kd.source_note
    assert (kd.n_rows, kd.n_writes) == (397, 20_000) and int(kd.rows[-1].sum()) == 397


def test_the_ranges_read_what_the_rows_read(files):
    """At a stated query rate each query's CPU is its plan's node time in the sample, spread
    over the rows it sees: found among the file's keys one by one, or in the ranges they fall
    in past ``rows_max``, the total is the same (50 queries/s over the default queries)."""
    engine, _ = files
    wl = wb.Workload(events_per_s=20_000, queries_per_s=50)
    exact = keyspace(engine, wb.preset(engine, "entity_first"), workload=wl)
    low = DEFAULT.replace(rows_max=10_000)
    kd = keyspace(engine, wb.preset(engine, "entity_first"), workload=wl, settings=low)
    assert "3,961 ranges" in kd.source_note and kd.queries_per_s == exact.queries_per_s == 50
    assert kd.read_cpu > 0
    assert kd.read_cpu == pytest.approx(exact.read_cpu, rel=1e-9)


def test_duckdb_orders_text_as_utf8_bytes_as_bigtable_orders_keys():
    """A range's first key is ``min`` over DuckDB VARCHAR: it must be the first in UTF-8 byte
    order (Bigtable's), where UTF-16 order would put U+FFFF after the emoji (a surrogate
    pair) and a collation "é" before "z"."""
    import duckdb

    texts = ["z", "é", "Z", "\uffff", "\U0001f600", "a\x00b", "ab"]
    con = duckdb.connect()
    con.execute("CREATE TABLE t (x VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?)", [[x] for x in texts])
    got = [r[0] for r in con.execute("SELECT x FROM t ORDER BY x").fetchall()]
    assert got == ["Z", "a\x00b", "ab", "z", "é", "\uffff", "\U0001f600"]
    assert con.execute("SELECT min(x) FROM t WHERE x > 'z'").fetchone() == ("é",)


def test_the_bounds_are_settings_and_refuse_a_bound_under_one():
    from workbench.errors import SettingsError

    assert (DEFAULT.rows_max, DEFAULT.entries_max) == (2_000_000, 2_000_000)
    with pytest.raises(SettingsError, match="rows_max"):
        DEFAULT.replace(rows_max=0)
    with pytest.raises(SettingsError, match="entries_max"):
        DEFAULT.replace(entries_max=0.5)


def test_the_notebook_view_says_whose_writes_it_replays(files):
    engine, _ = files
    kd = keyspace(engine, wb.preset(engine, "two_tables"))
    assert "more than one table" in kd._repr_html_()


def test_a_compare_keys_every_design_in_one_pass_with_each_designs_own_figures(files, monkeypatch):
    """``compare`` opens the files once and groups every design it keys in one ``run``
    (two scans), and each design's load model is what its own pass gives (``keyspace``)."""
    from workbench.analysis import file_writes

    engine, _ = files
    opened, runs = [], []
    init, run = file_writes.FileKeys.__init__, file_writes.FileKeys.run

    def counted_init(self, *a):
        opened.append(1)
        init(self, *a)

    def counted_run(self, queries):
        runs.append(len(queries))
        run(self, queries)

    monkeypatch.setattr(file_writes.FileKeys, "__init__", counted_init)
    monkeypatch.setattr(file_writes.FileKeys, "run", counted_run)
    names = ["entity_first", "timestamp_first", "bucket_new_cells", "wide_rows", "two_tables"]
    c = wb.compare(engine, [wb.preset(engine, n) for n in names])
    # two_tables writes a second table, not keyed: four designs in the one pass, none alone
    assert (len(opened), runs) == (1, [4])
    monkeypatch.undo()
    for n in names:
        own = keyspace(engine, wb.preset(engine, n))
        got = c.analyses[n].keyspace
        assert got.source_note == own.source_note, n
        for fig in FIGURES:
            assert getattr(got, fig) == getattr(own, fig), (n, fig)
        assert got.split_keys() == own.split_keys(), n


def test_entries_judged_from_the_files_counts_before_any_scan(files, monkeypatch):
    """The grid over 20,000 events spanning 199 minutes: 24 windows wanted (20,000 ÷ 1,000 is
    under ``min_windows``), 11,940 s ÷ 24 = 497.5 s rounded up to 540 s (9 whole minutes),
    ceil(11,940.000001 ÷ 540) = 23 windows, each cut in ceil(9 ÷ 5 rebalance minutes) = 2
    steps (under 20,000 ÷ 23 ÷ 200 = 4 and 240 ÷ 23 = 10): 46 steps of 4.5 minutes, so 100
    hosts × 46 = 4,600 entries by the counts. Day rows really hold 4,456: h00's 200 seconds
    are all in step 0 (1 entry), each other host's minutes 0–199 reach steps 0–44 (45 each,
    99 × 45 = 4,455)."""
    from workbench.analysis import file_writes

    engine, _ = files
    opened = []
    init = file_writes.FileKeys.__init__

    def counted_init(self, *a):
        opened.append(1)
        init(self, *a)

    monkeypatch.setattr(file_writes.FileKeys, "__init__", counted_init)
    st = DEFAULT.replace(entries_max=4_599)
    kd = keyspace(engine, wb.preset(engine, "bucket_new_cells"), settings=st)
    assert "about 4,600 (row, step) entries" in kd.source_note
    assert "100 series × 46 balancer steps" in kd.source_note and opened == []
    st = DEFAULT.replace(entries_max=4_600)
    fk = file_writes.FileKeys(engine, st)
    try:
        got = fk.grouped(fk.query(wb.preset(engine, "bucket_new_cells"), ["value"], []))
    finally:
        fk.close()
    assert len(got[2][0]) == 4_456 and len(got[0]) == 100 and got[1] is None
    kd = keyspace(engine, wb.preset(engine, "bucket_new_cells"), settings=st)
    assert kd.source_note.startswith("writes: every event of the file keyed by DuckDB")


def test_a_compare_keys_a_design_past_the_row_bound_by_ranges_as_its_own_pass_does(files):
    """In a compare's shared pass a design past ``rows_max`` is grouped by ranges on its own
    (3,961 ranges of one host's 5 minutes for entity_first, as worked out above; timestamp_first
    by 2-second slots: h00's 200 seconds in 100, the other hosts' 200 minutes at :00 in 200
    more, of which minutes 0-3 fall in h00's: 296), the day rows in the shared groups; each
    design's figures are its own ``keyspace``'s."""
    engine, _ = files
    low = DEFAULT.replace(rows_max=10_000)
    names = ["entity_first", "timestamp_first", "bucket_new_cells"]
    c = wb.compare(engine, [wb.preset(engine, n) for n in names], settings=low)
    assert "3,961 ranges" in c.analyses["entity_first"].keyspace.source_note
    assert "ranges of 2 s: 296 ranges" in c.analyses["timestamp_first"].keyspace.source_note
    assert c.analyses["bucket_new_cells"].keyspace.n_rows == 100
    for n in names:
        own = keyspace(engine, wb.preset(engine, n), settings=low)
        got = c.analyses[n].keyspace
        assert got.source_note == own.source_note, n
        for fig in FIGURES:
            assert getattr(got, fig) == getattr(own, fig), (n, fig)


def test_a_row_per_measure_shares_the_pass_without_repeating_the_others_events(
    measured, monkeypatch
):
    """One compare pass keys bucket_new_columns (a key per measure with a value: 20,000 values
    + 10,000 temps = 30,000 mutations on 100 hosts × 2 measures = 200 rows) beside designs of
    one mutation an event: bucket_new_cells 20,000 on 100 day rows, entity_first 20,000 on
    20,000 rows, as the whole file in memory counts them; and each design's figures are its
    own pass's (``keyspace``)."""
    from workbench.analysis import file_writes

    engine, whole = measured
    runs = []
    run = file_writes.FileKeys.run
    monkeypatch.setattr(file_writes.FileKeys, "run", lambda s, q: (runs.append(len(q)), run(s, q)))
    names = ["bucket_new_columns", "bucket_new_cells", "entity_first"]
    wl = wb.Workload(events_per_s=20_000)
    a = wb.compare(engine, [wb.preset(engine, n) for n in names], workload=wl)
    assert runs == [3]
    want = {"bucket_new_columns": (200, 30_000), "bucket_new_cells": (100, 20_000)}
    want["entity_first"] = (20_000, 20_000)
    for n in names:
        got = a.analyses[n].keyspace
        kw = keyspace(whole, wb.preset(whole, n), workload=wl)
        own = keyspace(engine, wb.preset(engine, n), workload=wl)
        assert got.source_note.startswith("writes: every event of the file keyed by DuckDB"), n
        assert (got.n_rows, got.n_writes) == (kw.n_rows, kw.n_writes) == want[n]
        for fig in FIGURES:
            assert getattr(got, fig) == getattr(own, fig), (n, fig)
        assert got.split_keys() == own.split_keys(), n


def test_a_compare_pass_keeps_a_design_refused_by_its_row_estimate_out_of_the_groups(files):
    """At ``rows_max`` 150 one pass counts both designs: wide_rows' hour rows (1 + 99 × 4 =
    397 by DuckDB's estimate, and no slot tiles 100 hosts' hours in 150 ranges) are refused,
    the day rows (100) grouped without the refused key's column."""
    engine, _ = files
    st = DEFAULT.replace(rows_max=150)
    c = wb.compare(
        engine, [wb.preset(engine, n) for n in ("bucket_new_cells", "wide_rows")], settings=st
    )
    assert "rows, over the 150" in c.analyses["wide_rows"].keyspace.source_note
    day = c.analyses["bucket_new_cells"].keyspace
    assert day.source_note.startswith("writes: every event of the file keyed by DuckDB")
    assert (day.n_rows, day.n_writes) == (100, 20_000)


def test_a_ranged_pass_counts_at_most_range_rows_max_rows(files):
    """entity_first has a row per event, 20,000: past ``rows_max`` 10,000 it is ranged while
    ``range_rows_max`` allows 20,000 rows, and replays the sample without scanning at 19,999
    (a range's ``count(DISTINCT key)`` would hold every key in DuckDB's memory)."""
    engine, _ = files
    st = DEFAULT.replace(rows_max=10_000, range_rows_max=20_000)
    kd = keyspace(engine, wb.preset(engine, "entity_first"), settings=st)
    assert "ranges" in kd.source_note and kd.n_rows == 20_000
    kd = keyspace(
        engine, wb.preset(engine, "entity_first"), settings=st.replace(range_rows_max=19_999)
    )
    assert "shape sample" in kd.source_note
    assert "a ranged pass counts at most 19,999 rows" in kd.source_note
    assert kd.n_writes == len(engine)
