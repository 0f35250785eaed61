"""A file analysed from a shape sample plus DuckDB's counts of every event sizes as the whole
file loaded into memory does (G05, G06, G07): the sample gives the shape, the file the counts.

The file: 1,500 sensors × 200 readings a minute apart (a tenth of them stop at half: 285,000
events, seeded), each sensor at its own second: more sensors than one request lists ranges for
(``RANGES_MAX``, 1,000), so "all over 1 minute" on entity_first scans the table in the full load,
and the shape sample's ~300 sensors must plan it the same way (the planner takes the file's
series). ``from_parquet(..., shape_events=60_000)`` keeps about a fifth of the sensors
whole and counts the file with DuckDB; no workload is stated, so the production figures rest
on the file's rate and series — from memory for the full load, from DuckDB for the shape path.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import workbench as wb
import workbench.datasets.file_aggregates as fa
from workbench.analysis import analyze
from workbench.analysis.series import sample_span_s
from workbench.errors import DatasetError

pytestmark = pytest.mark.slow

SENSORS, READINGS = 1_500, 200
QUERIES = ["latest 1 per sensor_id", "all over 1 minute"]
DESIGNS = ["entity_first", "bucket_new_cells", "two_tables"]


def sensor_table() -> pa.Table:
    """The module docstring's events (seeded), in sensor order."""
    rng = np.random.default_rng(20261126)
    t0 = np.datetime64("2025-01-01T00:00:00", "us")
    offsets = rng.integers(0, 60, SENSORS)
    # a few sensors stop early, so the busiest series is above the mean (1,000 ÷ mean)
    lengths = np.where(np.arange(SENSORS) % 10 == 0, READINGS // 2, READINGS)
    sid = np.repeat(np.arange(SENSORS), lengths)
    minute = np.concatenate([np.arange(n) for n in lengths])
    ts = t0 + ((minute * 60 + offsets[sid]) * 1_000_000).astype("timedelta64[us]")
    return pa.table(
        {
            "sensor_id": pa.array([f"s{i:05d}" for i in sid]),
            "time": pa.array(ts, type=pa.timestamp("us", tz="UTC")),
            "temp": pa.array(np.round(rng.normal(20, 3, len(sid)), 2)),
        }
    )


@pytest.fixture(scope="module")
def sensors(tmp_path_factory):
    path = tmp_path_factory.mktemp("shape") / "sensors.parquet"
    pq.write_table(sensor_table(), path)

    def load(**kw):
        return wb.from_parquet(
            path,
            entity="sensor_id",
            time="time",
            measures="temp",
            queries=QUERIES,
            progress=False,
            **kw,
        )

    return load(), load(shape_events=60_000), path


def test_the_shape_sample_keeps_whole_series_and_says_where_its_counts_come_from(sensors):
    full, shape, _ = sensors
    n_full = 1_350 * READINGS + 150 * READINGS // 2  # by hand: 150 of 1,500 stop at half
    assert len(full) == n_full == 285_000
    assert full.aggregates is None
    kept = shape.frame["sensor_id"].unique()
    assert 0 < len(kept) < SENSORS
    # whole series: every kept sensor holds all of its readings
    per = shape.frame.groupby("sensor_id").size()
    assert all(per[s] == (READINGS // 2 if int(s[1:]) % 10 == 0 else READINGS) for s in kept)
    assert len(shape) < n_full / 2
    assert shape.notes[0].startswith(f"shape sample: {len(shape):,} of {n_full:,} events")


def test_duckdb_counts_equal_the_pandas_path_on_the_whole_file(sensors):
    full, shape, _ = sensors
    assert_counts_of(shape.aggregates, full)


def assert_counts_of(agg, full):
    """``agg`` holds what pandas counts on ``full``, the whole file in memory."""
    f = full.frame
    sizes = f.groupby("sensor_id").size()
    assert agg.events == len(full)
    assert agg.span_s == sample_span_s(full)
    assert agg.series == f["sensor_id"].nunique() == SENSORS
    assert agg.by_column == {"sensor_id": SENSORS}
    assert agg.lead_sizes == (SENSORS, pytest.approx(float(sizes.max() / sizes.mean())))


@pytest.mark.parametrize("pattern", DESIGNS)
def test_shape_sample_with_file_counts_sizes_as_the_full_load(sensors, pattern):
    full, shape, _ = sensors
    assert_sized_as_full(full, shape, pattern)


def assert_sized_as_full(full, shape, pattern, counted_by="counted by DuckDB"):
    """``shape`` with its file counts sizes ``pattern`` within 15 % of ``full`` (nodes,
    ceiling, storage, each query's node-ms), the same plans, the file's rate and series."""
    a_full = analyze(full, wb.preset(full, pattern))
    a_shape = analyze(shape, wb.preset(shape, pattern))
    cf, cs = a_full.capacity, a_shape.capacity
    for figure in ("nodes_needed", "ceiling_events_per_s", "stored_gib"):
        v = float(getattr(cf, figure)), float(getattr(cs, figure))
        assert max(v) <= 1.15 * min(v), (pattern, figure, v)
    tf, ts = a_full.queries.table, a_shape.queries.table
    assert list(ts["kind"]) == list(tf["kind"]), pattern  # the same plans
    if pattern == "entity_first":  # 1,500 sensors' ranges: two requests of at most 1,000
        assert ts.loc["all_over_1_minute", "kind"] == "multi-range"
        assert ts.loc["all_over_1_minute", "production_requests"] == 2
    for q in tf.index:
        v = float(tf.loc[q, "production_node_ms"]), float(ts.loc[q, "production_node_ms"])
        assert max(v) <= 1.15 * min(v), (pattern, q, v)
    pf, ps = cf.production, cs.production
    # the file's rate, not the sample's: both are the whole file's events over its span
    assert ps.events_per_s == pytest.approx(pf.events_per_s, rel=1e-9)
    assert ps.series.production == pytest.approx(SENSORS)
    line = ps.inputs_line()
    assert f"the file's: {len(full):,} events" in line and counted_by in line
    assert "nothing stated" in line  # the file's counts are defaults, not the user's


def test_compare_of_a_shape_sample_reads_the_file_no_more(sensors, monkeypatch):
    _, shape, _ = sensors

    def no_second_pass(*a, **k):
        raise AssertionError("compare scanned the file again")

    monkeypatch.setattr(fa, "file_aggregates", no_second_pass)
    c = wb.compare(shape, [wb.preset(shape, p) for p in DESIGNS])
    for p in DESIGNS:
        one = analyze(shape, wb.preset(shape, p)).capacity
        assert c.analyses[p].capacity.nodes_needed == one.nodes_needed
        assert c.analyses[p].capacity.production.events_per_s == pytest.approx(
            shape.aggregates.events / shape.aggregates.span_s
        )


def test_shape_events_with_sample_is_refused(sensors):
    _, _, path = sensors
    with pytest.raises(DatasetError, match="shape_events=1000.*not together with sample="):
        wb.from_parquet(
            path, entity="sensor_id", time="time", measures="temp", sample=0.5, shape_events=1000
        )


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_a_shape_sample_below_one_series_names_the_count_that_keeps_one(tmp_path, kind):
    """4 sensors of 10,000 readings each: a series is kept when the CRC-32 of its name ÷ 2^32
    is under shape_events ÷ the file's events. The lowest draw is 'c' (zlib.crc32(b'c') ÷ 2^32
    = 0.0263), so 10 events keep none and 0.0263 × 40,000 ≈ 1,051 are needed."""
    import math
    import zlib

    frame = pd.DataFrame(
        {
            "sensor": [s for s in "abcd" for _ in range(10_000)],
            "time": list(pd.date_range("2024-01-01", periods=10_000, freq="min", tz="UTC")) * 4,
            "temp": range(40_000),
        }
    )
    path = tmp_path / f"s4.{kind}"
    frame.to_csv(path, index=False) if kind == "csv" else frame.to_parquet(path)
    read = wb.from_csv if kind == "csv" else wb.from_parquet
    args = {"entity": "sensor", "time": "time", "measures": "temp", "progress": False}
    lowest = min(zlib.crc32(s.encode()) / 2**32 for s in "abcd")
    assert lowest == zlib.crc32(b"c") / 2**32
    with pytest.raises(
        DatasetError, match=r"shape_events=10 keeps none of the file's 4 series"
    ) as e:
        read(path, shape_events=10, **args)
    least = int(re.search(r"Give shape_events=([\d,]+) or more", str(e.value))[1].replace(",", ""))
    # the file's events (Parquet) or the lines estimated from the first MiB (CSV)
    assert math.ceil(lowest * 40_000) <= least <= math.ceil(lowest * 40_000) * 1.02 + 1
    kept = read(path, shape_events=least, **args)
    assert list(kept.frame["sensor"].unique()) == ["c"]  # the one series the count keeps
