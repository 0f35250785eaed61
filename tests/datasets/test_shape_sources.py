"""A shape sample from several Parquet files (a glob) and from a CSV sizes as the whole data
loaded into memory does (G05, G06, G07), with the same checks as ``tests/datasets/test_shape_sample.py``
(its data and helpers, imported): the 285,000 events of 1,500 sensors written as three Parquet
files split by time (every sensor in every file, so a series is whole only if the CRC-32 picks
it in each), and as one CSV; plus the refusals.

The CSV's counts are taken in from_csv's own chunked read (``datasets/shape_sample.py``): they are
compared with ``from_csv`` of the whole file, including naive times read in a zone with a DST
change and entity text with spaces around it, both of which the pandas path normalises.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import workbench as wb
from datasets.test_shape_sample import (
    DESIGNS,
    QUERIES,
    READINGS,
    SENSORS,
    assert_counts_of,
    assert_sized_as_full,
    sensor_table,
)
from workbench.analysis.series import sample_span_s
from workbench.datasets.shape_sample import COUNTED_BY
from workbench.errors import DatasetError

pytestmark = pytest.mark.slow

ARGS = dict(entity="sensor_id", time="time", measures="temp", queries=QUERIES, progress=False)


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    d = tmp_path_factory.mktemp("sources")
    table = sensor_table()
    # three files by time: readings 0-59, 60-119, 120-199 of every sensor
    t = pc.cast(table["time"], pa.int64())
    t0 = pc.min(t).as_py()
    cut1, cut2 = t0 + 60 * 60 * 1_000_000, t0 + 120 * 60 * 1_000_000
    for i, mask in enumerate(
        [
            pc.less(t, cut1),
            pc.and_(pc.greater_equal(t, cut1), pc.less(t, cut2)),
            pc.greater_equal(t, cut2),
        ]
    ):
        pq.write_table(table.filter(mask), d / f"part-{i}.parquet")
    csv = d / "sensors.csv"
    table.to_pandas().to_csv(csv, index=False)
    full = wb.from_parquet(str(d / "part-*.parquet"), **ARGS)
    glob_shape = wb.from_parquet(str(d / "part-*.parquet"), shape_events=60_000, **ARGS)
    csv_shape = wb.from_csv(csv, shape_events=60_000, chunksize=50_000, **ARGS)
    return full, {"glob": glob_shape, "csv": csv_shape}, d


def test_a_glob_reads_every_file_as_one_dataset(sources):
    full, shapes, d = sources
    # by hand: 150 of 1,500 sensors stop at half (test_shape_sample's data)
    assert len(full) == 1_350 * READINGS + 150 * READINGS // 2
    assert full.frame["sensor_id"].nunique() == SENSORS
    assert full.name == "part"
    parts = [len(pq.read_table(d / f"part-{i}.parquet")) for i in range(3)]
    assert all(n > 0 for n in parts) and sum(parts) == len(full)
    # a list of the same files is the same dataset
    listed = wb.from_parquet([d / f"part-{i}.parquet" for i in range(3)], **ARGS)
    assert listed.frame.equals(full.frame)


@pytest.mark.parametrize("source", ["glob", "csv"])
def test_the_shape_sample_keeps_whole_series_across_files_and_chunks(sources, source):
    full, shapes, _ = sources
    shape = shapes[source]
    per = shape.frame.groupby("sensor_id").size()
    assert 0 < len(per) < SENSORS
    # whole series: each kept sensor has all its readings, from all three files / 6 chunks
    assert all(n == (READINGS // 2 if int(s[1:]) % 10 == 0 else READINGS) for s, n in per.items())
    assert shape.notes[0].startswith(f"shape sample: {len(shape):,} of {len(full):,} events")


@pytest.mark.parametrize("source", ["glob", "csv"])
def test_the_counts_equal_the_pandas_path_on_all_the_data(sources, source):
    full, shapes, _ = sources
    assert_counts_of(shapes[source].aggregates, full)


@pytest.mark.parametrize("pattern", DESIGNS)
@pytest.mark.parametrize("source", ["glob", "csv"])
def test_a_shape_sample_sizes_as_the_full_load(sources, source, pattern):
    full, shapes, _ = sources
    by = "counted by DuckDB" if source == "glob" else f"counted by {COUNTED_BY}"
    assert_sized_as_full(full, shapes[source], pattern, counted_by=by)


def test_csv_counts_parse_naive_zones_and_strip_entities_as_from_csv(tmp_path):
    # 3 sensors × 4 hourly naive readings in Europe/Paris across the 2025-03-30 DST change
    # (02:00 does not exist, so readings are 00:30, 01:30, 03:30, 04:30 local) and " b" with a
    # space that from_csv strips into "b": by hand, 12 events, 2 series ("a" 4, "b" 8: max÷mean
    # = 8 ÷ 6), first 00:30+01:00 = 2025-03-29T23:30Z, last 04:30+02:00 = 2025-03-30T02:30Z.
    rows = ["sensor_id,time,temp"]
    for s in ["a", "b", " b"]:
        for h in ["00:30", "01:30", "03:30", "04:30"]:
            rows.append(f"{s},2025-03-30 {h}:{'00' if s != ' b' else '01'},1.5")
    p = tmp_path / "paris.csv"
    p.write_text("\n".join(rows) + "\n")
    args = dict(entity="sensor_id", time="time", measures="temp", progress=False)
    shape = wb.from_csv(p, naive_tz="Europe/Paris", shape_events=8, chunksize=5, **args)
    whole = wb.from_csv(p, naive_tz="Europe/Paris", **args)
    # share 8 / 12: CRC-32 of "b" is 0.444 × 2**32 (kept, with " b" stripped into it), of "a"
    # 0.909 (zlib.crc32 by hand): the sample is b's 8 events whole
    assert len(shape) == 8 and set(shape.frame["sensor_id"]) == {"b"}
    agg = shape.aggregates
    assert agg.events == len(whole) == 12
    assert agg.series == 2 and agg.by_column == {"sensor_id": 2}
    assert agg.lead_sizes == (2, pytest.approx(8 / 6))
    assert agg.first == pd_ts("2025-03-29T23:30:00Z") == whole.frame["time"].min()
    assert agg.last == pd_ts("2025-03-30T02:30:01Z") == whole.frame["time"].max()
    assert agg.span_s == sample_span_s(whole)


def pd_ts(text):
    import pandas as pd

    return pd.Timestamp(text)


def test_a_glob_that_matches_nothing_is_refused(tmp_path):
    with pytest.raises(DatasetError, match=r"No file matches .*part-\*\.parquet"):
        wb.from_parquet(str(tmp_path / "part-*.parquet"), **ARGS)


def test_files_whose_columns_differ_are_refused_naming_file_and_column(tmp_path):
    base = {"sensor_id": ["s1"], "time": pa.array([0], pa.timestamp("us", tz="UTC"))}
    pq.write_table(pa.table({**base, "temp": [1.5]}), tmp_path / "a-0.parquet")
    pq.write_table(pa.table({**base, "temperature": [1.5]}), tmp_path / "a-1.parquet")
    pq.write_table(pa.table({**base, "temp": [1]}), tmp_path / "b-0.parquet")
    pq.write_table(pa.table({**base, "temp": [1.5]}), tmp_path / "b-1.parquet")
    with pytest.raises(DatasetError, match=r"Column 'temp' is in 'a-0.parquet' but not in 'a-1"):
        wb.from_parquet(str(tmp_path / "a-*.parquet"), **ARGS)
    with pytest.raises(DatasetError, match=r"Column 'temp' is double in 'b-1.parquet' but int64"):
        wb.from_parquet(str(tmp_path / "b-*.parquet"), **ARGS)


def test_csv_shape_events_with_sample_is_refused(tmp_path):
    p = tmp_path / "e.csv"
    p.write_text("sensor_id,time,temp\ns1,2025-01-01T00:00:00Z,1.5\n")
    with pytest.raises(DatasetError, match="shape_events=10.*not together with sample="):
        wb.from_csv(
            p, entity="sensor_id", time="time", measures="temp", sample=0.5, shape_events=10
        )


def test_a_csv_over_shape_csv_bytes_is_shape_sampled_by_default(tmp_path, monkeypatch):
    import workbench.datasets.shape_sample as ss

    p = tmp_path / "e.csv"
    # 2 series × 3 events; by hand 20 + 6 × 27 = 182 bytes, over 100; 6 events, over 4
    p.write_text(
        "sensor_id,time,temp\n"
        + "".join(f"{s},2025-01-01T00:0{i}:00Z,1.5\n" for s in "ab" for i in range(3))
    )
    monkeypatch.setattr(ss, "SHAPE_CSV_BYTES", 100)
    monkeypatch.setattr(ss, "SHAPE_EVENTS", 4)
    args = dict(entity="sensor_id", time="time", measures="temp", progress=False)
    ds = wb.from_csv(p, **args)
    assert ds.aggregates is not None and ds.aggregates.events == 6
    assert list(ds.frame["sensor_id"].unique()) == ["b"]  # CRC-32: b 0.444 < 4/6 < a 0.909
    monkeypatch.setattr(ss, "SHAPE_CSV_BYTES", p.stat().st_size)  # not over: every event
    assert wb.from_csv(p, **args).aggregates is None
