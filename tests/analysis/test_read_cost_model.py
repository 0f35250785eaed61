"""One read cost, derived by hand (G04, G08, G11).

A plan's cost at production is requests + seeks + the rows, cells and bytes it visits, at the
unit costs calibrated on Google's per-node figures (``Settings.read_costs``: 17,000 1 KB reads/s
and 220 MB/s of scan per SSD node). The planner ranks with that figure and every view shows it
(``ReadPlan.cost`` is the ``production_*`` columns). Each expectation below is counted by hand
from the workload, not read from the code.
"""

from __future__ import annotations

import math
import warnings
from functools import cache
from pathlib import Path

import pytest

import workbench as wb
from workbench.analysis.settings import DEFAULT

RC = DEFAULT.read_costs()
CELL = RC.cell_s + 64 * RC.byte_s  # one cell visited: its unit cost and 64 counted bytes
STOCKS = Path(__file__).parents[1] / "fixtures" / "owndata" / "stocks.csv"


@cache
def _stocks():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return wb.from_csv(
            STOCKS,
            entity="symbol",
            time="date",
            measures="price",
            naive_tz="UTC",
            queries=["all at 2005-01-01", "latest 1 per symbol"],
        )


@pytest.mark.parametrize("symbols", [5_000, 50_000, 1_000_000])
def test_all_at_t_is_one_range_per_series_in_requests_of_a_thousand(symbols):
    """``entity_first`` (symbol#second): every symbol at one second is a range each. At 50,000
    events/s the second holds 50,000 events, a row each; the ranges are ⌈N ÷ 1,000⌉ requests
    and N seeks, so the cost is continuous in N and never a full scan."""
    ds = _stocks()
    wl = wb.Workload(events_per_s=50_000, entities={"symbol": symbols})
    a = wb.analyze(ds, wb.preset(ds, "entity_first"), workload=wl)
    plan = a.queries.plans["all_at_2005_01_01"]
    row = a.queries.table.loc["all_at_2005_01_01"]
    requests = math.ceil(symbols / 1_000)
    assert not plan.full_scan
    assert row["production_requests"] == requests and row["production_ranges"] == symbols
    hand = requests * RC.request_s + symbols * RC.seek_s + 50_000 * (RC.row_s + CELL)
    assert row["production_node_ms"] / 1e3 == pytest.approx(hand, rel=0.01)
    assert hand / 2 <= row["production_node_ms"] / 1e3 <= 2 * hand
    # each series' value at that second: one row of each returned
    assert row["production_rows_returned"] == pytest.approx(min(symbols, 50_000), rel=0.01)
    # the planner's figure is the one shown
    assert plan.est_node_ms == pytest.approx(row["production_node_ms"])


def test_the_cost_is_continuous_past_a_thousand_ranges():
    ds = _stocks()
    ms = []
    for n in (1_000, 1_001):
        wl = wb.Workload(events_per_s=50_000, entities={"symbol": n})
        a = wb.analyze(ds, wb.preset(ds, "entity_first"), workload=wl)
        ms.append(a.queries.table.loc["all_at_2005_01_01", "production_node_ms"])
    # one more range: one more seek and one more request, nothing else
    assert ms[1] - ms[0] == pytest.approx(1e3 * (RC.seek_s + RC.request_s), rel=1e-6)


@pytest.mark.parametrize(
    ("dataset", "pattern", "query", "rows"),
    [
        # time first: the newest of one balloon of 234 alike passes 234 interleaved rows
        ("weather_balloons", "timestamp_first", "latest_reading", 234),
        # salted over time (4 buckets, then the time, then the pair): the newest USD/JPY quote
        # is a reverse scan of each bucket, each passing 1 ÷ (1/8 of the quotes) = 8 rows
        ("fx_prices", "salted", "latest_quote", 4 * 8),
    ],
)
def test_latest_on_a_time_first_key_does_not_grow_with_retention(dataset, pattern, query, rows):
    """Latest-N on interleaved series passes about 1 ÷ (the asked series' share of writes)
    rows per range, whatever the table holds: the figure stays put from 1 to 12 months kept.
    The series are stated alike (``spread="uniform"``) so the share is 1 ÷ the series count."""
    ds = wb.load_dataset(dataset)
    figures = []
    for months in (1, 3, 12):
        wl = wb.Workload(events_per_s=100_000, retention_months=months, spread="uniform")
        t = wb.analyze(ds, wb.preset(ds, pattern), workload=wl).queries.table.loc[query]
        assert t["production_rows_seen"] == pytest.approx(rows)
        figures.append(t["production_node_ms"])
    assert max(figures) <= 1.10 * min(figures)


def test_a_newest_bucket_row_holds_one_bucket_and_a_scan_reads_every_bucket_row():
    """weather_balloons ``bucket_new_cells`` (a row per balloon and week, a cell per reading):
    at 100,000 events/s over 234 balloons each writes 427.35 readings/s. The newest reading of
    one balloon reads its current week's row whole: 427.35 × 604,800 s readings of 4 cells.
    A full scan of the table visits every balloon's week rows over the 12 months kept."""
    ds = wb.load_dataset("weather_balloons")
    wl = wb.Workload(events_per_s=100_000, retention_months=12)
    a = wb.analyze(ds, wb.preset(ds, "bucket_new_cells"), workload=wl)
    t = a.queries.table
    per_balloon = 100_000 / 234
    week = 7 * 86_400
    cells_per_reading = t.loc["latest_reading", "production_cells_seen"] / (per_balloon * week)
    assert cells_per_reading == pytest.approx(len(ds.measures), rel=0.02)
    assert t.loc["latest_reading", "production_rows_seen"] <= 2  # the current week, or the last
    # the planner's full-scan alternative of the same design: every week row of every balloon
    schema = wb.preset(ds, "bucket_new_cells").bind(
        ds,
        costs=RC,
        rate_factor=a.capacity.production.rate_factor,
        retention_s=12 * 730 * 3600,
    )
    from workbench.schema.planner import alternatives

    scan = next(
        x for x in alternatives(schema, ds.query("all_locations_minute")) if x.plan.full_scan
    )
    weeks = 12 * 730 * 3600 / week
    assert scan.cost is not None
    assert scan.cost.rows == pytest.approx(234 * weeks, rel=0.05)


def test_a_newest_day_row_is_one_day_of_cells():
    """A meter's own CSV through the gallery's ``bucket_new_cells`` (meter_id#day, a cell per
    reading and measure). At 100,000 events/s over 50,000 meters each writes 2 readings/s:
    its newest day row holds 2 × 86,400 readings of 2 cells = 345,600 cells, read whole in one
    request, whatever the 12 months kept."""
    csv = Path(__file__).parents[2] / "datasets" / "energy_meters.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine = wb.from_csv(
            csv,
            entity=["meter_id"],
            time="time",
            measures=["kwh", "voltage"],
            name="meters",
            queries=["latest 1 for meter_id=100001"],
        )
    schema = wb.preset(mine, "bucket_new_cells")
    assert "TimeBucket(precision='day'" in str(schema.key)
    wl = wb.Workload(events_per_s=100_000, retention_months=12, entities={"meter_id": 50_000})
    t = wb.analyze(mine, schema, workload=wl).queries.table.loc["latest_1_for_meter_id_100001"]
    per_meter = 100_000 / 50_000
    assert t["production_rows_seen"] == 1 and t["production_requests"] == 1
    assert t["production_cells_seen"] == pytest.approx(per_meter * 86_400 * 2, rel=0.01)


def test_a_window_inside_one_row_per_series_visits_a_row_of_each_series():
    """Heroic's rows (server_metrics ``heroic``) each hold 2^32 ms ≈ 49.7 days of one series.
    The site dashboard fixes every tag but host and pod: the workshop sample has 124 series, 4
    of them at site gew with cpu-idle. At the sample's own rate (no workload stated) its 15
    minutes fall inside one base row of each of those 4 series, so the read visits 4 rows and
    returns 4, however few events each row's share of the window holds. (It counted 1 row:
    a range's rows were floored at its seeks, not at the series it passes.)"""
    ds = wb.load_dataset("server_metrics")
    t = wb.analyze(ds, wb.preset(ds, "heroic")).queries.table.loc["site_cpu_dashboard"]
    gew_idle = 4  # hosts of site gew reporting cpu-idle in the sample (its rows_returned)
    assert t["rows_returned"] == gew_idle
    assert t["production_rows_seen"] == pytest.approx(gew_idle)
    assert t["production_rows_returned"] == pytest.approx(gew_idle)
