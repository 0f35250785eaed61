"""Row sizes, limits, growth, storage and capacity (G01, G02, G10, G12, G24)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hand_production import hand_production

import workbench as wb
from workbench.analysis import CellIndex, capacity, row_sizes
from workbench.analysis.settings import DEFAULT
from workbench.cells import CellFrame
from workbench.errors import WorkbenchError

DAY_US = 86_400 * 1_000_000
T0 = 1_425_168_000_000_000  # 2015-03-01 UTC in µs


def _garden(
    days: int = 62, gardens=("VEGGIEGARDEN", "HERBGARDEN"), layout: str = "month_row"
) -> CellFrame:
    """Daily temperatures: ``month_row`` is the paper's VEGGIEGARDEN#20150301 row with TEMP:<day> cells."""
    keys, quals, ts, vals = [], [], [], []
    for g in gardens:
        for d in range(days):
            t = pd.Timestamp(T0 + d * DAY_US, unit="us", tz="UTC")
            if layout == "month_row":
                keys.append(f"{g}#{t:%Y%m}01"), quals.append(str(t.day))
            elif layout == "one_row":  # one row per garden, updated forever (G24)
                keys.append(g), quals.append(f"{t:%Y%m%d}")
            else:
                keys.append(f"{g}#{t:%Y%m%d}"), quals.append("TEMP")
            ts.append(T0 + d * DAY_US), vals.append(b"60.4")
    return CellFrame.from_columns(
        row_key=keys, family="TEMP", qualifier=quals, timestamp_us=ts, value=vals
    )


def test_month_rows_hold_a_month_of_daily_cells():
    rs = row_sizes(CellIndex.build(_garden()))
    assert rs.n_rows == 2 * 2 + 2  # March, April (30 days) and May 1-2 per garden
    assert int(rs.cells.max()) == 31 and rs.largest_row in (
        "HERBGARDEN#20150301",
        "VEGGIEGARDEN#20150301",
    )
    assert rs.open_rows == 0 and rs.projected_max_bytes == rs.max_bytes
    lim = rs.limits()
    assert bool(lim["ok"].all())
    assert (
        lim.loc["row (now)", "advisory_bytes"] == 100_000_000
        and lim.loc["row (now)", "hard_bytes"] == 256_000_000
    )


def test_a_row_without_time_grows_over_the_retention_period():
    rs = row_sizes(CellIndex.build(_garden(layout="one_row")))
    assert rs.open_rows == 2
    span_days = 61
    months = 12  # the default horizon a workload that states none keeps (Workload.retention_months)
    expected = rs.max_bytes * months * DEFAULT.hours_per_month * 3600 / (span_days * 86_400)
    assert rs.projected_max_bytes == pytest.approx(expected, abs=1)
    tiny = DEFAULT.replace(row_advisory_bytes=rs.max_bytes * 2, row_hard_bytes=rs.max_bytes * 3)
    rs2 = row_sizes(CellIndex.build(_garden(layout="one_row")), settings=tiny)
    assert "hard limit" in rs2.verdict()
    assert rs2.limits().loc[f"row (after {months:g} months)", "rows_over_advisory"] == 2
    # a workload keeping 3 months projects over 3 (retention is production's, issue 47), and
    # the advisor's unbounded-row evidence states the same months
    rs3 = row_sizes(CellIndex.build(_garden(layout="one_row")), retention_months=3)
    three = rs3.max_bytes * 3 * 730 * 3600 / (span_days * 86_400)
    assert rs3.projected_max_bytes == pytest.approx(three, abs=1)
    assert rs3.horizon_text == "3 months" and "row (after 3 months)" in rs3.limits().index


def test_the_workloads_retention_reaches_row_sizes_and_the_advisor():
    ds = wb.load_dataset("energy_meters")
    design = wb.preset(ds, "unbounded_row")
    adv = wb.advise(ds, design, workload=wb.Workload(retention_months=3))
    rs = adv.context.analysis.rowsizes
    assert rs.retention_months == 3 and rs.horizon_text == "3 months"
    (f,) = adv.by_rule("unbounded_rows")
    assert any("after 3 months" in e for e in f.evidence), f.evidence


def test_big_cells_are_flagged_against_the_cell_limit():
    cf = CellFrame.from_columns(
        row_key=["a#1", "a#2"],
        family="F",
        qualifier="blob",
        timestamp_us=[1000, 2000],
        value=[b"x" * 11_000_000, b"y"],
    )
    lim = row_sizes(CellIndex.build(cf)).limits()
    assert lim.loc["cell", "largest_bytes"] > 10_000_000 and not bool(lim.loc["cell", "ok"])


def test_bucket_width_sweep_is_linear():
    from workbench.analysis import bucket_width_sweep

    class DayBuckets:  # rows of N days, one cell per day (a stand-in until the presets land)
        def __init__(self, days):
            self.days = days

        def to_cells(self, ds):
            keys = [f"G#{d // self.days:04d}" for d in range(ds)]
            return CellFrame.from_columns(
                row_key=keys,
                family="T",
                qualifier=[f"{d:03d}" for d in range(ds)],
                timestamp_us=[T0 + d * DAY_US for d in range(ds)],
                value=[b"60.4"] * ds,
            )

    sw = bucket_width_sweep(360, DayBuckets, [1, 2, 4, 8])
    slope = np.polyfit(sw["width_s"], sw["max_row_bytes"], 1)
    resid = sw["max_row_bytes"] - np.polyval(slope, sw["width_s"])
    assert np.abs(resid).max() < 0.02 * sw["max_row_bytes"].max()
    assert sw["max_row_cells"].tolist() == [1, 2, 4, 8]


def test_bytes_per_event_shows_the_cost_of_long_names():
    def cells(fam, qual):
        return CellFrame.from_columns(
            row_key=[f"s#{i:05d}" for i in range(100)],
            family=fam,
            qualifier=qual,
            timestamp_us=[T0 + i * 60_000_000 for i in range(100)],
            value=[b"1.5"] * 100,
        )

    out = {}
    for label, (fam, qual) in {
        "short": ("m", "t"),
        "long": ("measurements", "temperature_celsius"),
    }.items():
        idx = CellIndex.build(cells(fam, qual))
        out[label] = capacity(idx, 100, hand_production(1))
    assert (
        out["long"].bytes_per_event - out["short"].bytes_per_event
        == len("measurements") - 1 + len("temperature_celsius") - 1
    )
    assert out["long"].short_names_bytes_per_event == pytest.approx(out["short"].bytes_per_event)
    assert out["long"].name_overhead_share > out["short"].name_overhead_share
    b = out["short"].breakdown
    assert sum(b.values()) == out["short"].total_bytes == 100 * (7 + 1 + 1 + 8 + 3)


def test_nodes_needed_for_a_write_frontier_and_a_spread_key():
    from analysis.test_keyspace import battery

    # 100,000 writes/s of small rows (one 1 KB planning row each): 100,000 / 14,000 = 7.14
    # nodes of CPU; at 70 %: ceil(10.2) = 11 nodes when the writes spread
    frontier = {"unit_kind": "write frontier", "units": 1, "unit_share": 1.0}
    for design, unit in (("timestamp_first", frontier), ("field_promotion", {})):
        idx = CellIndex.build(battery(design))
        at = hand_production(100_000, **unit)
        cap = capacity(idx, 12_000, at)
        assert cap.nodes_fair == 11
        if unit:  # the frontier takes every write, 7.14 nodes: no node count serves it; its
            # ceiling is one node's 70 %: 0.7 × 14,000 = 9,800 writes/s
            assert cap.hotspot_limited and cap.bound_by == "hotspot"
            assert cap.cpu.busiest_tablet_cpu == pytest.approx(100_000 / 14_000)
            assert cap.ceiling.writes_per_s == pytest.approx(9_800)
        else:  # spread: the even count
            assert not cap.hotspot_limited and cap.cpu.nodes == 11
        # storage: 100,000 events/s × bytes per event × 730 h × 12 months, 5 TB per SSD node
        # kept ≤ 70 % full (no compression given: the ratio is 1)
        per_event = cap.total_bytes / 12_000
        assert cap.stored_bytes == pytest.approx(100_000 * per_event * 730 * 3600 * 12)
        assert cap.storage_nodes == np.ceil(cap.stored_bytes / (5e12 * 0.7))
        assert cap.nodes_needed == max(cap.cpu.nodes, cap.storage_nodes)
        # the month's bill at a price set here (not the default's): $1 a node-hour over a
        # month of 8,760 h / 12 = 730 h is $730 per node; $2.50 is 2.5 times that
        for usd in (1.0, 2.5):
            own = DEFAULT.replace(node_hour_usd=usd)
            priced = capacity(idx, 12_000, hand_production(100_000, settings=own, **unit))
            assert priced.nodes_needed == cap.nodes_needed  # a price never changes the count
            assert priced.node_cost_month == pytest.approx(cap.nodes_needed * usd * 8_760 / 12)
    with pytest.raises(WorkbenchError, match="Unknown analysis setting"):
        DEFAULT.replace(node_hours=2)


def test_heroic_rows_close_with_their_base_timestamp_bucket():
    """Heroic's key holds ``ms - ms % 2^32`` (G16): a row takes events for at most 2^32 ms.

    The workshop sample spans well under that bucket, so every row is still filling at the end.
    Hand derivation: a row filling at its observed rate for 2^32 ms = 4,294,967.296 s holds
    bytes_now × 4,294,967.296 / data_span_s when its bucket closes; the old projection ran it for
    the 12-month retention instead (≈ 7.3× more) and claimed the 256 MB hard limit.
    """
    import workbench as wb

    ds = wb.load_dataset("server_metrics", size="workshop")
    schema = wb.preset("server_metrics", "heroic")
    a = wb.analyze(ds, schema)
    rs = a.rowsizes
    assert rs.row_bound_s == 2**32 / 1000
    assert rs.data_span_s < rs.row_bound_s
    expected = rs.max_bytes * (2**32 / 1000) / rs.data_span_s
    assert abs(rs.projected_max_bytes - expected) <= 1  # int truncation
    retention_s = rs.retention_months * rs.settings.hours_per_month * 3600
    assert rs.projected_max_bytes < rs.max_bytes * retention_s / rs.data_span_s / 7
    assert rs.open_rows == 0 and rs.growing_rows == rs.n_rows
    assert "256 MB" not in rs.verdict() and "49.7-day" in rs.verdict()
    assert "row (when full)" in rs.limits().index
    # the advisor reads the same projection: under the 100 MB advice, no row-size finding
    findings = list(wb.advise(ds, schema))
    assert not [f for f in findings if f.rule in ("unbounded_rows", "limits")]


def test_rows_without_time_in_the_key_still_run_to_retention():
    """A key with no time (one row per meter, G24) never closes: projected over all retention."""
    import workbench as wb

    ds = wb.load_dataset("energy_meters", size="workshop")
    rs = wb.analyze(ds, wb.preset("energy_meters", "unbounded_row")).rowsizes
    assert rs.row_bound_s is None
    retention_s = rs.retention_months * rs.settings.hours_per_month * 3600
    expected = rs.max_bytes * retention_s / rs.data_span_s
    assert abs(rs.projected_max_bytes - expected) <= 1
    assert rs.open_rows == rs.growing_rows > 0
