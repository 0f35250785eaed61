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


def test_past_the_row_bound_the_sample_replays_and_a_bucket_key_is_still_keyed(files, monkeypatch):
    """A key with the event's time has up to a row per event: over ``ROWS_MAX`` events it
    keeps the sample's replay without scanning the files, and says so; day rows of the same
    file — 100 hosts: h00's 200 seconds in one day, the others' 200 minutes (3 h 20 min)
    from midnight in one too, so 100 rows — are keyed from the files."""
    from workbench.analysis import file_writes

    engine, _ = files
    monkeypatch.setattr(file_writes, "ROWS_MAX", 10_000)  # under the file's 20,000 events
    kd = keyspace(engine, wb.preset(engine, "entity_first"))
    assert "row per event: 20,000 over 10,000" in kd.source_note
    assert kd.n_writes == len(engine)
    kd = keyspace(engine, wb.preset(engine, "bucket_new_cells"))
    assert kd.source_note.startswith("writes: every event of the file keyed by DuckDB")
    assert (kd.n_rows, kd.n_writes) == (100, 20_000)


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
    monkeypatch.setattr(file_writes, "ENTRIES_MAX", 4_599)
    kd = keyspace(engine, wb.preset(engine, "bucket_new_cells"))
    assert "about 4,600 (row, step) entries" in kd.source_note
    assert "100 series × 46 balancer steps" in kd.source_note and opened == []
    monkeypatch.setattr(file_writes, "ENTRIES_MAX", 4_600)
    fk = file_writes.FileKeys(engine, DEFAULT)
    try:
        got = fk.grouped(fk.query(wb.preset(engine, "bucket_new_cells"), ["value"], []))
    finally:
        fk.close()
    assert len(got[1][0]) == 4_456 and len(got[0]) == 100
    kd = keyspace(engine, wb.preset(engine, "bucket_new_cells"))
    assert kd.source_note.startswith("writes: every event of the file keyed by DuckDB")


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
