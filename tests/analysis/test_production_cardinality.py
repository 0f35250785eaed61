"""Known values as a visible assumption: a plan that lists one range per known value says it
relies on the application listing every one, with the count used; a production entity count
re-plans and re-costs the read, and ``wb.compare`` ranks at that count."""

from __future__ import annotations

import re
from functools import cache

import pytest

import workbench as wb
from workbench.analysis.settings import DEFAULT
from workbench.errors import SchemaError

TEN_THOUSAND = {"meter_id": 10_000}


@cache
def _ds():
    # 31 meters, a reading every 15 minutes for 12.5 days: 1,200 readings each, 37,200 rows
    return wb.load_dataset("energy_meters", size="workshop")


def _costs(pattern, entities=None):
    a = wb.analyze(
        _ds(), wb.preset("energy_meters", pattern), workload=wb.Workload(entities=entities)
    )
    return a.queries.plans["all_meters_hour"], a.queries.table.loc["all_meters_hour"]


def _counts(note: str) -> set[int]:
    """The whole numbers a note states (10,000 → 10000; not the digits inside names)."""
    return {
        int(n.replace(",", "")) for n in re.findall(r"(?<![\w.])\d{1,3}(?:,\d{3})*(?![\w.])", note)
    }


def test_the_sample_plan_states_the_registry_assumption():
    plan, row = _costs("reversed_id_hourly")
    assert plan.n_ranges == 31 and plan.assumes == (("meter_id", 31),)
    # the note names the listed field and its count in the sample (31 meters)
    assert "meter_id" in plan.note and 31 in _counts(plan.note)
    # no count and no rate given: production is the sample's 31 meters at their own rate, and
    # one hour of each reads the same 124 rows (4 readings a meter; the model's per-meter rate
    # is the sample's mean, 960 readings over 959 quarter-hours: 4 × 960/959, 0.1 % more)
    assert row["production_rows_seen"] == pytest.approx(124 * 960 / 959, rel=1e-6)


def test_ten_thousand_meters_are_planned_and_costed_at_that_cardinality():
    plan, row = _costs("reversed_id_hourly", TEN_THOUSAND)
    # 10,000 ranges, one per meter, in ⌈10,000 ÷ 1,000⌉ = 10 requests sent side by side
    # (Settings.ranges_per_request): never a full scan because the count passed one request
    assert not plan.full_scan and plan.assumes == (("meter_id", 10_000),)
    assert "meter_id" in plan.note and 10_000 in _counts(plan.note)
    assert row["production_ranges"] == 10_000 and row["production_requests"] == 10
    # each meter's hour: 4 readings at the sample's own per-meter rate (960 over 959
    # quarter-hours), 10,000 meters
    assert row["production_rows_seen"] == pytest.approx(40_000 * 960 / 959, rel=1e-3)
    # time first reads the same rows in one range: what the ranges add is exactly 9 more
    # requests and 9,999 more seeks
    _, ts = _costs("timestamp_first", TEN_THOUSAND)
    assert ts["rows_seen"] == 124
    assert ts["production_rows_seen"] == pytest.approx(row["production_rows_seen"], rel=1e-9)
    costs = DEFAULT.read_costs()
    extra_ms = 1e3 * (9 * costs.request_s + 9_999 * costs.seek_s)
    assert row["production_node_ms"] - ts["production_node_ms"] == pytest.approx(extra_ms)
    # the scan the planner weighed instead reads every meter's 12 months
    assert plan.runner_up_node_ms > 1000 * row["production_node_ms"]


def test_a_production_count_under_the_limit_keeps_the_ranges_and_counts_them():
    plan, row = _costs("reversed_id_hourly", {"meter_id": 50})
    assert plan.n_ranges == 31 and plan.assumes == (("meter_id", 50),)
    assert "meter_id" in plan.note and {31, 50} <= _counts(plan.note)
    assert row["production_ranges"] == pytest.approx(50)
    assert row["production_rows_seen"] == pytest.approx(4 * 50 * 960 / 959, rel=1e-6)


def test_compare_ranks_at_the_production_cardinality():
    designs = [wb.preset("energy_meters", p) for p in ("reversed_id_hourly", "timestamp_first")]
    crit = "query all_meters_hour (node-ms per run)"
    sample = wb.compare(_ds(), designs)
    assert sample.rankings.loc[crit, "best"] == "timestamp_first"  # 0.24 vs 1.55 node-ms
    prod = wb.compare(_ds(), designs, workload=wb.Workload(entities=TEN_THOUSAND))
    assert prod.rankings.loc[crit, "ranking"] == "timestamp_first < reversed_id_hourly"
    ratio = (
        prod.table.loc["reversed_id_hourly", "all_meters_hour: node ms"]
        / prod.table.loc["timestamp_first", "all_meters_hour: node ms"]
    )
    # the same 40,000 rows; 10,000 seeks against one (by hand: 1 + 10,000 × 0.0435 ms over
    # 66 ms of rows)
    assert 5 < ratio < 10


def test_an_unknown_entity_column_is_named():
    with pytest.raises(SchemaError, match=r"\['meter'\].*entity columns: \['meter_id'\]"):
        wb.preset("energy_meters", "reversed_id_hourly").bind(_ds(), entities={"meter": 5})
