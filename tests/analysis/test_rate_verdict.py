"""Verdicts at a rate: the shape apart from what it costs at the rate judged (issue: an hourly
series was called a hotspot at 0.0003 writes/s).

Hand-derived: an hourly series written under one entity is one write frontier; at its own rate
(one write an hour, 1/3600 ≈ 0.00028 writes/s) its busiest node uses a few millionths of a node,
so it is no hotspot; its ceiling is one node's 14,000 writes/s at the 70 % target, 9,800
writes/s; at 100,000 writes/s it is 100,000 / 9,800 ≈ 10.2× past any cluster.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

import workbench as wb
from workbench.analysis import CellIndex, analyze, key_distribution
from workbench.cells import CellFrame

HOURS = 8_759  # vega_datasets' sf-temps: hourly temperatures for a year
T0 = 1_420_070_400_000_000  # 2015-01-01, µs


@pytest.fixture(scope="module")
def hourly():
    t = T0 + np.arange(HOURS, dtype=np.int64) * 3_600_000_000
    stamps = [f"sf#{x // 1_000_000:012d}" for x in t]
    cf = CellFrame.from_columns(
        row_key=np.array(stamps, dtype=object),
        family="m",
        qualifier="temp",
        timestamp_us=t,
        value=b"51.3",
    )
    return key_distribution(CellIndex.build(cf), events=HOURS)


def test_an_hourly_series_at_its_own_rate_is_a_frontier_not_a_hotspot(hourly):
    v = hourly.verdict()
    assert not v.hotspot and "Hotspot" not in v
    assert v.startswith("Write frontier:")
    assert v.writes_per_s == pytest.approx(1 / 3600, rel=0.01)
    assert v.source == "the dataset's own rate" and "the dataset's own rate" in v
    assert "1.00 writes/h" in v  # the rate judged, named: one write an hour
    assert v.busiest_node_cpu < 1e-6
    assert "at 9,800 writes/s" in v
    # the shape says what the keys do without a rate; the consequence carries the rate
    assert "one write frontier" in v.shape and "writes/s" not in v.shape
    assert "writes/s" in v.consequence


def test_the_same_series_at_100000_writes_per_s_is_a_hotspot_with_its_shortfall(hourly):
    v = hourly.verdict(100_000)
    assert v.hotspot and v.startswith("Hotspot:")
    assert v.events_per_s == 100_000 and v.writes_per_s == pytest.approx(100_000)
    assert v.source == "the target rate" and "100,000 writes/s (the target" in v
    assert "at 9,800 writes/s" in v
    assert f"{100_000 / 9_800:.1f}× short" in v
    assert hourly.verdict().hotspot is False  # judging at a rate leaves the model as it was


def test_garden_at_its_own_rate_has_no_hotspot_and_shows_the_ceiling():
    ds = wb.load_dataset("garden_temperature", size="workshop")
    for pattern in wb.pattern_names("garden_temperature"):
        kd = analyze(ds, wb.preset("garden_temperature", pattern)).keyspace
        v = kd.verdict()
        assert "Hotspot" not in v and not v.hotspot, (pattern, v)
        assert kd.ceiling is not None and kd.ceiling.writes_per_s >= 9_800 * 0.99
        if pattern == "timestamp_first":
            assert v.startswith("Write frontier:") and "at 9,800 writes/s" in v
            hot = kd.verdict(100_000)
            assert hot.hotspot and "at 9,800 writes/s" in hot
            assert "× short" in hot


def test_an_even_load_over_the_target_wants_nodes_not_another_key():
    # 20 entities writing in turn: spread evenly; at 1,000,000 writes/s on 3 nodes every node is
    # far over the target, yet the busiest entity (5 %) stops at 9,800 / 0.05 = 196,000: over it
    n = 6000
    t = T0 + np.arange(n, dtype=np.int64) * 1_000_000
    keys = np.array([f"e{i % 20:02d}#{i:08d}" for i in range(n)], dtype=object)
    cf = CellFrame.from_columns(row_key=keys, family="m", qualifier="v", timestamp_us=t, value=b"1")
    kd = key_distribution(CellIndex.build(cf), events=n)
    assert kd.ceiling.writes_per_s == pytest.approx(196_000, rel=0.01)
    v = kd.verdict(150_000)  # under the ceiling, every node over the target
    assert not v.hotspot and "more nodes needed" in v
    assert kd.verdict(400_000).hotspot  # over the ceiling


def test_an_event_rate_becomes_the_designs_mutations(hourly):
    # a design writing every event twice judges 100 events/s as 200 writes/s
    doubled = key_distribution(hourly.inputs["index"], events=HOURS // 2)
    assert doubled.mutations_per_event == pytest.approx(HOURS / (HOURS // 2))
    assert doubled.verdict(100).writes_per_s == pytest.approx(100 * HOURS / (HOURS // 2))


def test_compare_ties_hotspot_rankings_when_every_ceiling_is_far_above_the_rate():
    ds = wb.load_dataset("garden_temperature", size="workshop")
    schemas = [wb.preset("garden_temperature", p) for p in ("tall", "timestamp_first")]
    own = wb.compare(ds, schemas)
    hot = own.rankings.loc["hotspot (busiest node ÷ fair share)"]
    # at the garden's own rate (a reading an hour per bed) the lowest ceiling, one frontier's
    # 9,800 writes/s, is millions of times the rate: the shapes cost nothing, and the reason says
    # so; but the ranking keeps their order: "≈" is within 5 %, and timestamp_first's 3.0× fair
    # (one node of 3 takes every write) is not within 5 % of tall's
    assert hot["best"] == "" and "costs anything" in hot["reason"]
    factors = own.table["hotspot_factor"]
    assert factors["timestamp_first"] == pytest.approx(3.0, abs=0.05)
    assert factors["timestamp_first"] > 1.05 * factors["tall"]
    assert hot["ranking"] == "tall < timestamp_first", hot["ranking"]
    ceil = own.rankings.loc["ceiling (events/s no node count lifts)"]
    assert ceil["ranking"].startswith("tall") and ceil["worst"] == "timestamp_first"
    assert own.table.loc["timestamp_first", "ceiling_events_per_s"] == pytest.approx(
        9_800, rel=0.01
    )
    # at 100,000 events/s the timestamp-first design is past its ceiling: ranked, not tied
    fast = wb.compare(ds, schemas, workload=wb.Workload(events_per_s=100_000))
    hot = fast.rankings.loc["hotspot (busiest node ÷ fair share)"]
    assert hot["best"] == "tall" and hot["worst"] == "timestamp_first"


def test_the_ceiling_reads_the_same_in_the_summary_the_headline_and_print():
    import html

    from workbench.ui._render import headline_html, middle_cut

    ds = wb.load_dataset("garden_temperature", size="workshop")
    a = analyze(ds, wb.preset("garden_temperature", "timestamp_first"))
    line = a.keyspace.ceiling.text()
    assert "at 9,800 writes/s" in line
    assert html.escape(line) in a.keyspace._repr_html_()
    # the headline shows the same sentence; only a unit key longer than the headline's column
    # is cut in the middle there (the whole key in its tooltip)
    shown = html.unescape(re.sub(r"<[^>]+>", "", headline_html(a)))
    name = a.keyspace.ceiling.unit_name
    assert line.replace(name, middle_cut(name)) in shown
    assert (
        f"title='{html.escape(name, quote=True)}'" in headline_html(a) or middle_cut(name) == name
    )
    assert line in str(a.keyspace)
    # capacity reads the same ceiling (one writes per event here, one cluster at 70 %)
    assert a.capacity.ceiling_events_per_s == pytest.approx(a.keyspace.ceiling.writes_per_s)


def test_a_hotspot_costing_nothing_yet_is_not_ranked_about_equal():
    # 07 ranked "pair_microseconds ≈ salted ≈ timestamp_first" under a legend that says "≈ within
    # 5 %", beside a reason giving 1.3× and 3.0× fair: the order stays, with "<" where the next is
    # more than 5 % worse; the designs are still coloured neither best nor worst at this rate
    ds = wb.load_dataset("fx_prices", size="workshop")
    names = ("pair_microseconds", "timestamp_first", "salted")
    cmp = wb.compare(ds, [wb.preset("fx_prices", p) for p in names])
    hot = cmp.rankings.loc["hotspot (busiest node ÷ fair share)"]
    f = cmp.table["hotspot_factor"].astype(float).sort_values()
    assert f["timestamp_first"] == pytest.approx(3.0, abs=0.05)  # one node of 3 takes it all
    expected = f.index[0]
    for a, b in itertools.pairwise(f.index):
        expected += (" ≈ " if f[b] <= 1.05 * f[a] else " < ") + b
    assert hot["ranking"] == expected and hot["ranking"].endswith(" < timestamp_first")
    assert hot["best"] == hot["worst"] == "" and "costs anything" in hot["reason"]
