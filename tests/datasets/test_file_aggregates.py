"""DuckDB's aggregates over a Parquet file equal what the pandas path computes on the same
events loaded with ``from_parquet`` (``datasets/file_aggregates.py``).

The expectations are the pandas path's own functions (``sample_span_s``, ``series_counts``,
the busiest lead series as ``production`` computes it, ``window_counts``), run on the loaded
events: the two paths must agree exactly, for two named datasets with two entity columns
(tuples of series), queries naming both, one or none of them, and windows with no pad, an
hour's pad and every event (``bucket_s`` None).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import workbench as wb
from workbench.analysis.production_reads import series_codes, window_counts
from workbench.analysis.series import sample_span_s, series_counts
from workbench.datasets import file_aggregates as fa
from workbench.datasets.file_aggregates import busiest_series, file_aggregates
from workbench.datasets.workload import Workload
from workbench.errors import DatasetError


@pytest.mark.parametrize("name", ["weather_balloons", "game_scores"])
def test_duckdb_aggregates_equal_the_pandas_path(name, tmp_path):
    named = wb.load_dataset(name, size=6_000)
    path = str(tmp_path / "events.parquet")
    named.frame.to_parquet(path, index=False, row_group_size=1_000)  # several row groups
    ds = wb.from_parquet(path, entity=named.entity, time=named.time, measures=named.measures)
    windowed = [q for q in named.queries if q.start is not None and q.end is not None]
    assert windowed and any(q.entity for q in windowed)
    for pad in (0.0, 3600.0, None):
        got = file_aggregates(
            path,
            entity=ds.entity,
            time=ds.time,
            lead=ds.entity[:1],
            windows={q.name: (q.start, q.end, q.entity, pad) for q in windowed},
        )
        assert got.events == len(ds)
        assert (got.first, got.last) == ds.time_span
        assert got.span_s == sample_span_s(ds)
        counts = series_counts(ds, Workload(), 1.0)
        assert got.series == counts.sample
        assert got.by_column == {c: ds.frame[c].nunique() for c in ds.entity}
        sizes = ds.frame.groupby(ds.entity[:1], sort=False, observed=True).size()
        assert got.lead_sizes == (len(sizes), float(sizes.max() / sizes.mean()))
        # every series' own events (a query naming one reads them), as the frame counts them
        per = ds.frame.groupby(ds.entity, sort=False, observed=True).size()
        assert len(got.series_events) == len(per) == got.series
        assert dict(got.series_events) == {k: int(v) for k, v in per.items()}
        assert dict(got.series_events) == dict(busiest_series(per))
        codes = series_codes(ds)
        for q in windowed:
            want = window_counts(ds, q, pad, codes)
            assert want is not None
            w = got.windows[q.name]
            assert w is not None
            assert (w.answer_active, w.answer_events, w.other_active, w.other_events) == (
                want.answer_active,
                want.answer_events,
                want.other_active,
                want.other_events,
            ), (q.name, pad)


def test_the_busiest_series_are_kept_up_to_the_cap(tmp_path, monkeypatch):
    """Five series writing 5, 4, 3, 2 and 1 events, at most three kept: the three busiest with
    their own events (the scan returns that many tuples, whatever the series), busiest first;
    the frame's counts capped alike."""
    monkeypatch.setattr(fa, "SERIES_COUNTED", 3)
    names = [f"s{i}" for i in range(5)]
    events = pd.DataFrame(
        {
            "sensor": [n for i, n in enumerate(names) for _ in range(5 - i)],
            "time": pd.date_range("2024-01-01", periods=15, freq="min", tz="UTC"),
        }
    )
    path = str(tmp_path / "five.parquet")
    events.to_parquet(path, index=False)
    got = file_aggregates(path, entity=["sensor"], time="time")
    assert got.series_events == ((("s0",), 5), (("s1",), 4), (("s2",), 3))
    assert (got.events, got.series) == (15, 5)  # the totals stay the file's
    assert busiest_series(events.groupby("sensor").size()) == got.series_events


def test_a_missing_column_or_a_text_time_is_refused(tmp_path):
    named = wb.load_dataset("fx_prices", size=500)
    path = str(tmp_path / "events.parquet")
    frame = named.frame.assign(time=named.frame["time"].astype(str))
    frame.to_parquet(path, index=False)
    with pytest.raises(DatasetError, match="'symbol' is not in the file"):
        file_aggregates(path, entity=["symbol"], time="time")
    with pytest.raises(DatasetError, match="not a Parquet timestamp"):
        file_aggregates(path, entity=["pair"], time="time")


@pytest.mark.parametrize(("metrics", "hosts", "readings"), [(100, 1_000, 2), (100, 100, 40)])
def test_a_two_column_entity_is_counted_exactly_out_of_core(tmp_path, metrics, hosts, readings):
    """metrics × hosts series by construction (100 × 1,000 = 100,000 series of 2 readings:
    200,000 events; 100 × 100 = 10,000 series of 40: 400,000 events). A shape sample of 20,000
    events (a tenth or a twentieth of the series) holds nearly every metric and host, so a
    product of per-column ratios kept the sample's tuples; the production figures must take
    DuckDB's count of distinct (metric, host) pairs instead, and its busiest groups and rows."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    m = np.repeat(np.arange(metrics), hosts * readings)
    h = np.tile(np.repeat(np.arange(hosts), readings), metrics)
    minute = np.tile(np.arange(readings), metrics * hosts)
    t0 = pd.Timestamp("2024-01-01", tz="UTC")
    path = tmp_path / "metrics.parquet"
    pq.write_table(
        pa.table(
            {
                "metric": [f"m{i:03d}" for i in m],
                "host": [f"h{i:04d}" for i in h],
                "time": pa.array(
                    (t0 + pd.to_timedelta(minute * 60 + h % 60, unit="s")).to_numpy(),
                    type=pa.timestamp("us", tz="UTC"),
                ),
                "value": np.arange(len(m), dtype=float),
            }
        ),
        path,
    )
    ds = wb.from_parquet(
        path,
        entity=["metric", "host"],
        time="time",
        measures="value",
        shape_events=20_000,
        queries=["latest 1 per metric, host"],
        progress=False,
    )
    held = ds.frame.groupby(["metric", "host"]).ngroups
    assert held * readings <= 2 * 20_000 < metrics * hosts * readings  # a shape sample, truly
    agg = ds.aggregates
    assert agg is not None and agg.series == metrics * hosts
    assert agg.events == metrics * hosts * readings
    # every series writes `readings` events: each metric holds hosts × readings, each host
    # metrics × readings, each series readings (busiest = mean)
    per = {("metric",): (metrics, hosts), ("host",): (hosts, metrics), ("metric", "host"): None}
    for cols, got in per.items():
        groups, each = got or (metrics * hosts, 1)
        assert agg.busiest[cols] == (groups, each * readings, float(each * readings))
    # readings a minute apart plus up to 59 s: the last at (readings - 1) × 60 + 59 s, within
    # the first hour: one hour-row per series holds all its readings, the hour all events
    assert (readings - 1) * 60 + 59 < 3600
    assert agg.rows[(("metric", "host"), "hour")] == readings
    assert agg.rows[((), "hour")] == metrics * hosts * readings
    a = wb.analyze(ds, wb.preset(ds, "entity_first"))
    prod = a.capacity.production
    assert prod.series.production == metrics * hosts  # 100 × 1,000, not the sample's tuples
    assert prod.series.production_by_column == {"metric": metrics, "host": hosts}
    # every series writes 2 readings: the busiest is the mean, 1/100,000 of the writes (the
    # file's own skew, production having the file's series), so the ceiling is 100,000 × 70 %
    # × 14,000 1 KB writes/s ÷ the write units per event
    assert prod.unit_share == pytest.approx(1 / (metrics * hosts))
    want = metrics * hosts * 0.70 * 14_000 / prod.units_per_event
    assert a.capacity.ceiling_events_per_s == pytest.approx(want, rel=1e-6)


def _skewed_events(path, busy):
    """20 metrics × 50 hosts = 1,000 series: 999 of 900 readings a minute apart (15 hours)
    and ``busy`` = (metric, host) writing one a second for the rest of 1,000,000 events:
    1,000,000 - 999 × 900 = 100,900 readings (28 h 1 min 40 s), from midnight. Values are
    whole numbers of four digits, so every cell has the same size."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    series = [(f"m{m:02d}", f"h{h:03d}") for m in range(20) for h in range(50)]
    quiet = [s for s in series if s != busy]
    n_busy = 1_000_000 - 999 * 900
    metric = np.r_[np.repeat([m for m, _ in quiet], 900), np.repeat(busy[0], n_busy)]
    host = np.r_[np.repeat([h for _, h in quiet], 900), np.repeat(busy[1], n_busy)]
    secs = np.r_[np.tile(np.arange(900) * 60, 999), np.arange(n_busy)]
    t0 = pd.Timestamp("2024-03-04", tz="UTC")  # a Monday, at midnight
    pq.write_table(
        pa.table(
            {
                "metric": metric,
                "host": host,
                "time": pa.array(
                    t0.value // 1000 + secs.astype(np.int64) * 1_000_000,
                    type=pa.timestamp("us", tz="UTC"),
                ),
                "value": 1000 + np.arange(len(secs)) % 9000,
            }
        ),
        path,
        row_group_size=200_000,
    )
    return n_busy


@pytest.fixture(scope="module")
def million(tmp_path_factory):
    """The million events of ``_skewed_events`` whose busy series a shape sample of a tenth
    leaves out by its CRC-32 draw: (busy, its events, the engine path's dataset — a shape
    sample of 100,000 events and DuckDB's counts —, the whole file loaded)."""
    from workbench.datasets.byo import sample_mask

    # the busy series: the first (m00, host) a shape sample of a tenth leaves out (CRC-32)
    cands = pd.DataFrame({"metric": ["m00"] * 50, "host": [f"h{h:03d}" for h in range(50)]})
    out = cands[~sample_mask(cands, ["metric", "host"], 0.1)].iloc[0]
    busy = (out["metric"], out["host"])
    path = tmp_path_factory.mktemp("million") / "skewed.parquet"
    n_busy = _skewed_events(path, busy)
    args = dict(entity=["metric", "host"], time="time", measures="value", progress=False)
    engine = wb.from_parquet(path, shape_events=100_000, **args)
    whole = wb.from_parquet(path, sample=1, **args)
    return busy, n_busy, engine, whole


@pytest.mark.slow  # a million events loaded whole, analysed twice per design (~1 min)
def test_the_engine_path_gives_the_in_memory_figures_on_a_million_events(million):
    """A shape sample whose draw leaves out the busiest series (one writing a reading a second
    among 999 writing one a minute) gives the whole file's figures where DuckDB counts them:
    the series, each column's busiest group, the largest row of a day-bucket design, the ceiling
    — equal to the same analysis of the million events loaded whole. The busy series is heavy
    (100,900 events, ≥ 10 × the mean 1,000): the sample holds it thinned to a tenth."""
    busy, n_busy, engine, whole = million
    assert n_busy == 100_900
    assert len(whole) == 1_000_000 and whole.aggregates is None
    f = engine.frame
    held = int(((f["metric"] == busy[0]) & (f["host"] == busy[1])).sum())
    assert held == pytest.approx(100_900 / 10, rel=0.05)  # thinned to the draw's tenth
    agg = engine.aggregates
    assert agg is not None and (agg.events, agg.series) == (1_000_000, 1_000)
    assert agg.by_column == {"metric": 20, "host": 50}
    # by hand: the busy metric holds 49 quiet hosts × 900 + 100,900 = 145,000 events of a mean
    # 1,000,000 / 20; the busy host 19 × 900 + 100,900 = 118,000 of 1,000,000 / 50
    assert agg.busiest[("metric",)] == (20, 145_000, 50_000.0)
    assert agg.busiest[("host",)] == (50, 118_000, 20_000.0)
    assert agg.busiest[("metric", "host")] == (1_000, 100_900, 1_000.0)
    # rows: the busy series' first hour 3,600 and day 86,400 readings (from midnight); every
    # series' first day: 999 × 900 (15 h) + 86,400; the busy metric's: 49 × 900 + 86,400
    assert agg.rows[(("metric", "host"), "hour")] == 3_600
    assert agg.rows[(("metric", "host"), "day")] == 86_400
    assert agg.rows[((), "day")] == 999 * 900 + 86_400
    assert agg.rows[(("metric",), "day")] == 49 * 900 + 86_400
    for design in ("entity_first", "bucket_new_cells"):
        a = wb.analyze(engine, wb.preset(engine, design))
        b = wb.analyze(whole, wb.preset(whole, design))
        pa_, pb = a.capacity.production, b.capacity.production
        assert pa_.series.production == pb.series.production == 1_000
        assert pa_.writes.busiest_series_ratio == pytest.approx(100.9)  # 100,900 ÷ 1,000
        assert pa_.writes.busiest_series_ratio == pytest.approx(pb.writes.busiest_series_ratio)
        assert pa_.events_per_s == pytest.approx(pb.events_per_s)
        assert a.capacity.ceiling_events_per_s == pytest.approx(b.capacity.ceiling_events_per_s)
        assert a.rowsizes.max_bytes == b.rowsizes.max_bytes, design
    # the day bucket's largest row is the busy series' day: 86,400 cells of the sample's size
    a = wb.analyze(engine, wb.preset(engine, "bucket_new_cells"))
    assert a.rowsizes.file_row.startswith("the file's busiest (metric, host, day): 86,400")
    # the sample's largest is the busy series' day thinned to a tenth: about 8,640 cells
    assert a.rowsizes.max_bytes / int(a.rowsizes.bytes.max()) == pytest.approx(10, rel=0.05)


@pytest.mark.slow  # the million events analysed twice per design at a stated production (~40 s)
def test_the_engine_key_distribution_and_query_rows_are_the_whole_files(million):
    """At a stated production of 100,000 events/s the engine path's load model and each query's
    production rows are the whole file's: the queries name the file's busiest series (both
    paths), each query's rows, cells and node time equal, and the key distribution — every
    event of the file keyed by DuckDB (``analysis/file_writes.py``), not the shape sample's
    replay — equal: tablets, split keys, the busiest node's and tablet's shares of the writes
    and of the load, each node's CPU per window (G06). Before, the sample's replay came within
    15 % (tablet write share 0.106 against 0.102) and 1.2 % before heavy series were thinned in."""
    busy, n_busy, engine, whole = million
    assert [q.name for q in engine.queries] == [q.name for q in whole.queries]
    named = f"metric_{busy[0]}_host_{busy[1]}_over_1_hour"
    assert named in [q.name for q in engine.queries]  # the file's busiest, in both paths
    wl = wb.Workload(events_per_s=100_000)
    cols = [
        "production_rows_seen",
        "production_rows_returned",
        "production_cells_seen",
        "production_node_ms",
    ]
    figures = (
        "n_writes",
        "n_rows",
        "n_tablets",
        "mean_write_share",
        "mean_tablet_write_share",
        "mean_share",
        "mean_tablet_share",
        "hotspot_factor",
        "busiest_node_cpu",
        "frontier",
        "hotspot",
    )
    # by hand, the rows: entity_first a row per event (a series' readings are a second or a
    # minute apart: no two in one ms); bucket_new_cells a row per (series, day): the 999 quiet
    # series' 15 hours from midnight fall in one day, the busy one's 28 h 1 min 40 s in two
    rows = {"entity_first": 1_000_000, "bucket_new_cells": 999 + 2}
    for design in ("entity_first", "bucket_new_cells"):
        a = wb.analyze(engine, wb.preset(engine, design), workload=wl)
        b = wb.analyze(whole, wb.preset(whole, design), workload=wl)
        got, want = a.queries.table[cols].astype(float), b.queries.table[cols].astype(float)
        pd.testing.assert_frame_equal(got, want, rtol=1e-6)
        ka, kb = a.keyspace, b.keyspace
        assert ka.source_note.startswith("writes: every event of the file keyed by DuckDB")
        assert (ka.n_rows, ka.n_writes) == (rows[design], 1_000_000), design
        for fig in figures:
            assert getattr(ka, fig) == pytest.approx(getattr(kb, fig), rel=1e-12), (design, fig)
        np.testing.assert_allclose(ka.node_cpu, kb.node_cpu, rtol=1e-12)
        assert ka.split_keys() == kb.split_keys(), design
        # one mutation per event: the busy series writes 100,900 of the 1,000,000; its keys are
        # one frontier no split takes apart, so the busiest tablet holds about its share
        assert ka.mean_tablet_write_share == pytest.approx(n_busy / 1_000_000, rel=0.05)
        if design == "entity_first":  # one row per event
            # by hand: the busy series writes 100,900 / 1,000,000 of 100,000 events/s = 10,090
            # a second, so its hour returns 10,090 × 3,600 = 36,324,000 rows (the mean series'
            # hour, which the read took before, 100 × 3,600 = 360,000)
            rows_read = float(a.queries.table.loc[named, "production_rows_returned"])
            assert rows_read == pytest.approx(n_busy / 1_000_000 * 100_000 * 3_600, rel=1e-6)


def test_the_engine_read_keeps_the_series_the_batch_read_keeps(tmp_path, monkeypatch):
    """A shape sample read after DuckDB's scan (pyarrow's scanner filtered on the kept values)
    holds exactly the events the batch-by-batch CRC-32 draw keeps, over two files and a
    two-column entity (an integer and a text column: a superset filtered per column, then
    exact): 12 sites × 25 sensors = 300 series of 40 readings, a tenth asked for."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    import workbench.datasets.parquet as wp

    site = np.repeat(np.arange(12), 25 * 40)
    sensor = np.tile(np.repeat([f"s{i:02d}" for i in range(25)], 40), 12)
    minute = np.tile(np.arange(40), 300)
    t0 = pd.Timestamp("2025-06-01", tz="UTC").value // 1000
    for part, rows in enumerate((slice(0, 6_000), slice(6_000, None))):
        pq.write_table(
            pa.table(
                {
                    "site": site[rows],
                    "sensor": sensor[rows],
                    "time": pa.array(
                        t0 + minute[rows].astype(np.int64) * 60_000_000,
                        type=pa.timestamp("us", tz="UTC"),
                    ),
                    "v": np.arange(12_000, dtype=float)[rows],
                }
            ),
            tmp_path / f"part-{part}.parquet",
            row_group_size=1_000,
        )
    args = dict(entity=["site", "sensor"], time="time", measures="v", progress=False)
    glob_ = str(tmp_path / "part-*.parquet")
    engine = wb.from_parquet(glob_, shape_events=1_200, **args)
    monkeypatch.setattr(wp, "_keyed", lambda *a: False)  # the batch-by-batch read
    batch = wb.from_parquet(glob_, shape_events=1_200, **args)
    key = ["site", "sensor", "time"]
    got = engine.frame.sort_values(key).reset_index(drop=True)
    want = batch.frame.sort_values(key).reset_index(drop=True)
    assert 0 < len(want) < 12_000 and len(want) % 40 == 0  # whole series, not all of them
    pd.testing.assert_frame_equal(got, want)
    assert engine.aggregates == batch.aggregates
    assert engine.notes[0] == batch.notes[0]


def test_naive_times_are_read_in_the_zone_named_as_from_parquet_reads_them(tmp_path):
    # 4 sensors × 1,000 minutes of naive wall-clock times from 2024-01-01 00:00 in Paris
    # (UTC+1 in January): the first event is 2023-12-31 23:00 UTC, the last 999 minutes later
    n = 1_000
    frame = pd.DataFrame(
        {
            "sensor": [s for s in "abcd" for _ in range(n)],
            "time": list(pd.date_range("2024-01-01", periods=n, freq="min")) * 4,
            "temp": range(4 * n),
        }
    )
    path = tmp_path / "naive.parquet"
    frame.to_parquet(path)
    ds = wb.from_parquet(
        path,
        entity="sensor",
        time="time",
        measures="temp",
        shape_events=1_000,
        naive_tz="Europe/Paris",
        progress=False,
    )
    agg = ds.aggregates
    assert agg.events == 4 * n and agg.series == 4
    assert agg.first == pd.Timestamp("2023-12-31 23:00", tz="UTC")
    assert agg.last == pd.Timestamp("2024-01-01 15:39", tz="UTC")  # 999 minutes later
    with pytest.raises(DatasetError, match="naive_tz"):
        file_aggregates([str(path)], entity=["sensor"], time="time")


def test_a_heavy_series_joins_the_shape_sample_thinned_to_its_share(tmp_path):
    """100 quiet series of 100 readings a minute apart and one writing 20,000 a second: 30,000
    events, a mean of 30,000 ÷ 101 ≈ 297 a series, so the busy one (≥ 10 × 297) is heavy. A
    shape sample of 3,000 events draws a tenth (3,000 ÷ 30,000) of the series by CRC-32, whole,
    and holds the heavy series whatever its draw, thinned to a tenth of its events: about
    2,000 (binomial noise ±42), so its writes are the file's two-thirds of the sample's, not
    absent (nor every one of them)."""
    from workbench.datasets.byo import sample_mask
    from workbench.datasets.shape_sample import thin_mask

    t0 = pd.Timestamp("2024-03-04", tz="UTC")
    quiet = pd.DataFrame(
        {
            "sensor": [f"s{i:02d}" for i in range(100) for _ in range(100)],
            "time": [t0 + pd.Timedelta(minutes=m) for _ in range(100) for m in range(100)],
        }
    )
    busy = pd.DataFrame({"sensor": "busy", "time": t0 + pd.to_timedelta(range(20_000), unit="s")})
    events = pd.concat([quiet, busy], ignore_index=True)
    events["value"] = 1.0
    path = tmp_path / "heavy.parquet"
    events.to_parquet(path, index=False, row_group_size=5_000)
    ds = wb.from_parquet(
        path, entity="sensor", time="time", measures="value", shape_events=3_000, progress=False
    )
    share = 3_000 / 30_000
    got = ds.frame.groupby("sensor").size()
    assert got["busy"] == pytest.approx(2_000, rel=0.05)
    us = busy["time"].dt.as_unit("us").astype("int64").to_numpy()
    assert got["busy"] == int(thin_mask(us, share).sum())  # the same pick, batch by batch
    series = pd.DataFrame({"sensor": [f"s{i:02d}" for i in range(100)]})
    drawn = set(series["sensor"][sample_mask(series, ["sensor"], share)])
    assert set(got.index) - {"busy"} == drawn and (got.drop("busy") == 100).all()  # whole
    assert "lowest 10.0% kept whole, and the 1 series writing 10× the mean" in ds.notes[0]
    assert ds.aggregates is not None and ds.aggregates.series_events[0] == (("busy",), 20_000)
