"""DuckDB's aggregates over a Parquet file equal what the pandas path computes on the same
events loaded with ``from_parquet`` (``datasets/file_aggregates.py``).

The expectations are the pandas path's own functions (``sample_span_s``, ``series_counts``,
the busiest lead series as ``production`` computes it, ``window_counts``), run on the loaded
events: the two paths must agree exactly, for two named datasets with two entity columns
(tuples of series), queries naming both, one or none of them, and windows with no pad, an
hour's pad and every event (``bucket_s`` None).
"""

from __future__ import annotations

import pytest

import workbench as wb
from workbench.analysis.production_reads import series_codes, window_counts
from workbench.analysis.series import sample_span_s, series_counts
from workbench.datasets.file_aggregates import file_aggregates
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


def test_a_missing_column_or_a_text_time_is_refused(tmp_path):
    named = wb.load_dataset("fx_prices", size=500)
    path = str(tmp_path / "events.parquet")
    frame = named.frame.assign(time=named.frame["time"].astype(str))
    frame.to_parquet(path, index=False)
    with pytest.raises(DatasetError, match="'symbol' is not in the file"):
        file_aggregates(path, entity=["symbol"], time="time")
    with pytest.raises(DatasetError, match="not a Parquet timestamp"):
        file_aggregates(path, entity=["pair"], time="time")


def test_a_two_column_entity_is_counted_exactly_out_of_core(tmp_path):
    """100 metrics × 1,000 hosts = 100,000 series by construction, 2 readings each. A shape
    sample of about a tenth of the series holds every metric and nearly every host, so a
    product of per-column ratios (100/100 × 1,000/1,000) kept the sample's ~10,000 tuples; the
    production figures must take DuckDB's count of distinct (metric, host) pairs instead."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    metrics, hosts, readings = 100, 1_000, 2
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
    assert held < 20_000 and ds.frame["metric"].nunique() == metrics  # a shape sample, truly
    assert ds.aggregates is not None and ds.aggregates.series == metrics * hosts
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
