"""``workbench bulk-load`` lets Beam scale the work (G29, G17): a CSV file is read in byte
ranges any worker may take (a quoted field's line breaks told apart by the quotes before each
range), and a pre-aggregated design's summary rows are built per (entity, bucket), so no
element of the pipeline holds an entity's whole history. Expectations are derived by hand
from the events written here; the cells themselves are compared with ``load``'s in
tests/beam/test_bulk_load.py."""

from __future__ import annotations

import gzip
import math
from dataclasses import replace

import apache_beam as beam
import numpy as np
import pandas as pd
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.util import assert_that, equal_to

from workbench.beam import bulk_load as bl
from workbench.beam import command
from workbench.beam.batches import GROUP_EVENTS, bucket_index
from workbench.beam.sources import (
    CsvRange,
    Source,
    csv_options,
    csv_ranges,
    range_frames,
    read_events,
)
from workbench.bigtable import admin
from workbench.bigtable.emulator import ENV_HOST
from workbench.errors import DatasetError

ROWS = 120


def _awkward_csv(path) -> None:
    """Rows whose text field holds, now and then, a line break or doubled quotes inside quotes:
    a byte range that starts inside such a field must not take its second line for a row."""
    lines = ["sensor,time,v,note"]
    for i in range(ROWS):
        if i % 3 == 0:
            note = f'"first line {i}\nsecond, line"'
        elif i % 3 == 1:
            note = f'"she said ""hi {i}"", twice\n"""'
        else:
            note = f"plain {i}"
        lines.append(f"s{i % 4},2024-01-01T00:{i // 60:02d}:{i % 60:02d}Z,{i},{note}")
    path.write_text("\n".join(lines) + "\n")


def _source(path, range_bytes: int) -> Source:
    src = Source(str(path), "csv", "time", ("v",), ("sensor",), name="awkward")
    return replace(src, csv_options=csv_options(str(path), src), range_bytes=range_bytes)


@pytest.mark.parametrize("range_bytes", [7, 37, 500, 0])
def test_csv_ranges_read_every_row_once(tmp_path, range_bytes):
    path = tmp_path / "awkward.csv"
    _awkward_csv(path)
    size = path.stat().st_size
    src = _source(path, range_bytes)
    ranges = csv_ranges(str(path), size, range_bytes)
    # by hand: ⌈size ÷ range⌉ ranges, or the whole file in one when ranges are off (0)
    assert len(ranges) == (math.ceil(size / range_bytes) if range_bytes else 1)
    want = pd.read_csv(path, **src.csv_options)  # the file read whole, from_csv's options
    assert len(want) == ROWS and want["note"].str.contains("\n").sum() == 80  # i % 3 in (0, 1)
    expected = [tuple(r) for r in want.itertuples(index=False)]
    with beam.Pipeline() as p:
        frames = read_events(p, src, batch=5)
        rows = frames | "rows" >> beam.FlatMap(
            lambda f: [tuple(r) for r in f.itertuples(index=False)]
        )
        assert_that(rows, equal_to(expected))


def test_a_compressed_csv_is_one_range(tmp_path):
    path = tmp_path / "e.csv.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("a,b\n" + "1,2\n" * 1000)
    assert csv_ranges(str(path), path.stat().st_size, 10) == [
        CsvRange(str(path), 0, -1)  # cannot be entered in the middle
    ]


ENTITIES = 10
PER_ENTITY = 100_000  # one event a second: 100,000 s = 27 h 46 min 40 s per entity


def _events_csv(path) -> None:
    start = pd.Timestamp("2024-03-01", tz="UTC")  # on the hour: buckets start with the data
    t = start + pd.to_timedelta(np.arange(PER_ENTITY), unit="s")
    frame = pd.DataFrame(
        {
            "time": np.tile(t.strftime("%Y-%m-%dT%H:%M:%SZ"), ENTITIES),
            "sensor": np.repeat([f"s{i:02d}" for i in range(ENTITIES)], PER_ENTITY),
            "v": np.tile(np.arange(PER_ENTITY) % 97, ENTITIES),
        }
    ).sort_values(["time", "sensor"], kind="stable")  # an export in time order
    frame.to_csv(path, index=False)


@pytest.mark.slow
def test_summary_rows_are_built_per_entity_and_bucket(conn, tmp_path, monkeypatch):
    """A million events, ten entities of 100,000 each, the pre-aggregated design (hourly
    summaries, G29): the largest group is five whole hours of one entity, never its history."""
    monkeypatch.setenv(ENV_HOST, conn.host)
    path = tmp_path / "events.csv"
    _events_csv(path)
    table_id = admin.unique_table_id("bulk-scale")
    args = command.parser().parse_args(
        [
            str(path),
            "--entity=sensor",
            "--time=time",
            "--measures=v",
            "--design=pre_aggregated",
            f"--project={conn.project}",
            f"--instance={conn.instance}",
            f"--table={table_id}",
            "--batch-events=50000",
            "--no-pre-split",
        ]
    )
    plan, _, _ = command.plan(args)
    # ranges of 4 MB: the file (about 28 MB) is read by several ranges, not one reader
    plan = replace(plan, source=replace(plan.source, range_bytes=4 * 2**20))
    assert plan.grouped and plan.schema.aggregates.bucket == "hour"
    # by hand: the shape sample the span comes from keeps whole series (as from_csv takes it),
    # one event a second, so its busiest (entity, hour) holds 3,600 events; a group aims at
    # 20,000 (GROUP_EVENTS, below the batch's 50,000) → 20,000 // 3,600 = 5 whole hours a group
    assert GROUP_EVENTS == 20_000 and plan.group_span == 5
    try:
        report = bl.run(plan, PipelineOptions(["--runner=DirectRunner"]))
        assert report is not None
        events = ENTITIES * PER_ENTITY
        # by hand: 100,000 s = 27 full hours + 2,800 s, hours h = 0 … 27 of each entity.
        # 2024-03-01 is day 19,783 since the epoch (19,723 for 2024-01-01, + 31 + 29): hour
        # 474,792, and 474,792 mod 5 = 2, so the first group holds hours 0-2 (10,800 events),
        # four more hold 5 hours (18,000 each) and the last hours 23-27 (4 × 3,600 + 2,800)
        assert (19_723 + 31 + 29) * 24 == 474_792 and 474_792 % 5 == 2
        sizes = [3 * 3600, *[5 * 3600] * 4, 4 * 3600 + 2800]
        assert sum(sizes) == PER_ENTITY
        groups, total, smallest, largest = report.sizes["group_events"]
        assert groups == ENTITIES * len(sizes)  # 60 (entity, 5 hours) groups
        assert total == events
        assert (smallest, largest) == (min(sizes), max(sizes)) == (10_800, 18_000)
        assert largest * 5 < PER_ENTITY  # an entity's history is 5.6× the largest group
        # no part sent to a group exceeds a batch (50,000 events of all ten entities)
        assert report.sizes["part_events"][3] <= 50_000
        assert report.sizes["part_events"][1] == events
        # cells: one per event (one measure), five statistics per summary row
        c = report.counts
        assert c["events_read"] == c["events"] == events
        hours = 28  # summary rows per entity
        assert c["cells_written"] == c["cells_built"] == events + ENTITIES * hours * 5
        assert any("at most 18,000 in one" in line for line in report.lines())
    finally:
        for p in admin.table_ids(
            table_id, list(plan.schema.table_families()), admin.main_table(plan.schema)
        ).values():
            admin.drop_table(conn, p)


def test_summary_buckets_are_numbered_consecutively():
    # by hand: 2024-01-01 is day 19,723 of the epoch (54 × 365 + 13 leap days); 2024-03-01 is
    # day 19,723 + 31 + 29 = 19,783, a Friday, hour 474,792; its Monday, 2024-02-26, is day
    # 19,779 and 1970-01-05 (day 4) the first Monday: week (19,779 − 4) ÷ 7 = 2,825; month
    # (2024 − 1970) × 12 + 2 = 650. The next Monday starts week 2,826; 2024-02-29 is month 649.
    times = pd.to_datetime(
        ["2024-03-01T00:30:00Z", "2024-03-04T00:00:00Z", "2024-02-29T23:59:59Z"], utc=True
    )
    t = times.as_unit("us").asi8
    assert bucket_index(t, "hour").tolist() == [474_792, 474_792 + 3 * 24, 474_792 - 1]
    assert bucket_index(t, "day").tolist() == [19_783, 19_786, 19_782]
    assert bucket_index(t, "week").tolist() == [2_825, 2_826, 2_825]
    assert bucket_index(t, "month").tolist() == [650, 650, 649]


def test_a_bad_row_in_a_range_is_named_by_file_and_bytes(tmp_path):
    path = tmp_path / "bad.csv"
    good = "".join(f"s1,2024-01-01T00:00:{i:02d}Z,{i}\n" for i in range(20))
    path.write_text("sensor,time,v\n" + good + "s1,2024-01-01T00:01:00Z,1,2,3\n")
    src = _source(path, 100)
    size = path.stat().st_size
    last = csv_ranges(str(path), size, 100)[-1]  # holds the row with three fields too many
    with pytest.raises(DatasetError, match=r"bad\.csv \(the rows in bytes [\d,]+-[\d,]+"):
        list(range_frames(last, (0, 0), src.csv_options, 5))
