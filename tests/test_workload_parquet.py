"""A team's own Parquet file sizes the same whether a fifth, two fifths or all of it is loaded
(G06, G07, G05): the production workload sets the figures, the sample only the design's shape.
The file is made here by a seeded generator: 1,000 sensors × 1,000 readings a minute apart,
each sensor starting at its own second (a million events: the same property as at five
million, in a few minutes of the suite; bench/ measures the larger files)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import workbench as wb
from workbench.analysis import analyze

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

SENSORS, READINGS = 1_000, 1_000
WORKLOAD = wb.Workload(events_per_s=100_000, entities={"sensor_id": 50_000})
QUERIES = ["latest 1 per sensor_id", "all over 1 minute"]


@pytest.fixture(scope="module")
def sensors_parquet(tmp_path_factory):
    rng = np.random.default_rng(20261126)
    path = tmp_path_factory.mktemp("own") / "sensors.parquet"
    t0 = np.datetime64("2025-01-01T00:00:00", "us")
    offsets = rng.integers(0, 60, SENSORS)  # each sensor's own second within the minute
    writer = None
    for lo in range(0, SENSORS, 500):  # in slices: the whole file is never one frame in memory
        ids = np.arange(lo, min(lo + 500, SENSORS))
        sid = np.repeat(ids, READINGS)
        minute = np.tile(np.arange(READINGS), len(ids))
        ts = t0 + ((minute * 60 + offsets[sid]) * 1_000_000).astype("timedelta64[us]")
        table = pa.table(
            {
                "sensor_id": pa.array([f"s{i:05d}" for i in sid]),
                "time": pa.array(ts, type=pa.timestamp("us", tz="UTC")),
                "temp": pa.array(np.round(rng.normal(20, 3, len(sid)), 2)),
            }
        )
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    assert writer is not None
    writer.close()
    return path


def test_own_parquet_sizes_the_same_at_a_fifth_two_fifths_or_all(sensors_parquet):
    datasets = {
        share: wb.from_parquet(
            sensors_parquet,
            entity="sensor_id",
            time="time",
            measures="temp",
            sample=share,
            queries=QUERIES,
            progress=False,
        )
        for share in (0.2, 0.4, None)
    }
    # whole series are kept: about a fifth and two fifths of the sensors
    assert datasets[None].frame["sensor_id"].nunique() == SENSORS
    assert len(datasets[None]) == SENSORS * READINGS
    for pattern in ("entity_first", "two_tables", "bucket_new_cells"):
        caps, costs = [], []
        for ds in datasets.values():
            a = analyze(ds, wb.preset(ds, pattern), workload=WORKLOAD)
            caps.append(a.capacity)
            costs.append(a.queries.table["production_node_ms"])
        for figure in ("nodes_needed", "ceiling_events_per_s", "stored_gib"):
            values = [float(getattr(c, figure)) for c in caps]
            assert max(values) <= 1.15 * min(values), (pattern, figure, values)
        for q in costs[0].index:
            values = [float(c[q]) for c in costs]
            assert max(values) <= 1.15 * min(values), (pattern, q, values)
        # 50,000 sensors at 100,000 events/s: 2 readings/s each, each its own frontier (or
        # its own row in the current bucket): no single unit comes near a node
        assert not any(c.write_limited for c in caps), pattern
