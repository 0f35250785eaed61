"""The planner chooses the cheapest plan by the cost model and names the runner-up.

For every named dataset × preset × query (workshop size), every alternative plan the planner
weighs (``planner.alternatives``: known values listed or scanned, time buckets or one range
with a regex, salt fan-out or one scan, a whole-table scan with filters, the newest bucket rows
by key or a reverse scan, a second table, the pre-aggregated rows) is evaluated on the real
cells (``analysis.evaluate`` on the cells' index: the figures of ``ReadPlan.evaluate``, the
model the emulator tests check; ``tests/analysis/test_querycost.py`` pins the two equal) and priced with the cost
model (``Settings.read_costs``: one request or one per range, a seek per range or key, every
row, cell and byte seen). The plan the planner returns must be the cheapest (ties within 1 %),
return the same rows as every other alternative, and name the runner-up whenever there is one.

At production counts (``bind(entities=...)``) the alternatives are priced as the sample's
figures scaled by hand: an entity column the query leaves open holds ``production ÷ sample``
times as many rows, and a plan listing one range per value lists the production count.
"""

from __future__ import annotations

import warnings
from functools import cache

import pytest
from preset_matrix import analysed_presets

import workbench as wb
from workbench.analysis import CellIndex, evaluate
from workbench.analysis.settings import DEFAULT
from workbench.schema.plan import ReadPlan
from workbench.schema.planner import alternatives

pytestmark = pytest.mark.slow  # every preset's cells, every alternative evaluated

COSTS = DEFAULT.read_costs()
TIE = 1.01


@cache
def _ds(name: str):
    return wb.load_dataset(name, size="workshop")


@cache
def _bound(name: str, pattern: str, entities: tuple[tuple[str, int], ...] = ()):
    ds = _ds(name)
    return wb.preset(name, pattern).bind(ds, costs=COSTS, entities=dict(entities) or None)


@cache
def _index(name: str, pattern: str) -> CellIndex:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # second_precision's loss is excluded below
        return CellIndex.build(_bound(name, pattern).to_cells(_ds(name), accept_loss=True))


def _node_ms(plan: ReadPlan, name: str, pattern: str) -> float:
    r = evaluate(_index(name, pattern), plan)
    return 1e3 * COSTS.node_seconds(
        requests=plan.requests,
        seeks=plan.n_ranges,
        rows=r.rows_seen,
        cells=r.cells_seen,
        nbytes=r.bytes_seen,
    )


def _same(a: ReadPlan, b: ReadPlan) -> bool:
    return (a.table, a.ranges, a.keys, a.filter, a.rows_limit, a.reversed) == (
        b.table,
        b.ranges,
        b.keys,
        b.filter,
        b.rows_limit,
        b.reversed,
    )


@pytest.mark.parametrize("combo", analysed_presets(), ids=lambda c: "/".join(c))
def test_the_chosen_plan_is_the_cheapest_alternative_and_names_the_runner_up(combo):
    name, pattern = combo
    schema = _bound(name, pattern)
    for q in _ds(name).queries:
        alts = alternatives(schema, q)
        chosen = schema.plan(q)
        costs = [_node_ms(a.plan, name, pattern) for a in alts]
        mine = _node_ms(chosen, name, pattern)
        assert _same(chosen, alts[0].plan), q.name
        assert mine <= min(costs) * TIE, (
            q.name,
            mine,
            [(a.label, c) for a, c in zip(alts, costs, strict=True)],
        )
        if len(alts) > 1:
            assert chosen.runner_up and chosen.runner_up_node_ms is not None, q.name
            assert "runner-up: " + chosen.runner_up in chosen.note, q.name
        if q.kind != "latest":  # a latest-N read forward keeps the newest on the client
            want = evaluate(_index(name, pattern), chosen)
            for a in alts:
                got = evaluate(_index(name, pattern), a.plan)
                assert (got.rows_returned, got.cells_returned) == (
                    want.rows_returned,
                    want.cells_returned,
                ), (q.name, a.label)


# The plans that used to read far more than an alternative the key allows (the figures the
# planner recorded before, ranges, rows, cells and bytes seen, from
# tests/fixtures/read_plan_matrix.csv at the previous commit) and, by hand, what the cheaper
# plan reads: every balloon of every location in one minute is 18 rows (the minute's events, one
# row each; 72 with one row per measure), one range per balloon (234, × 4 measures for
# tall_per_metric); in week buckets (week#location#balloon) a location's minute or week reads the
# location's rows of each week in one range with the balloons scanned (4 rows for the minute, 28
# for the week) instead of one range per balloon and week (26, 52 seeks).
BEFORE = {
    ("weather_balloons", "single_timestamp", "all_locations_minute"): (9, 32136, 128544, 6486702),
    ("weather_balloons", "long_names", "all_locations_minute"): (9, 32136, 128544, 8896902),
    ("weather_balloons", "serialized_json", "all_locations_minute"): (9, 32136, 32136, 3828939),
    ("weather_balloons", "serialized_protobuf", "all_locations_minute"): (
        9,
        32136,
        32136,
        2598977,
    ),
    ("weather_balloons", "reversed_timestamp", "all_locations_minute"): (9, 32136, 128544, 5972526),
    ("weather_balloons", "tall_per_metric", "all_locations_minute"): (9, 128544, 128544, 7740006),
    ("weather_balloons", "bucket_new_cells", "location_minute"): (26, 4, 1500, 87470),
    ("weather_balloons", "bucket_new_cells", "location_pressure_week"): (52, 28, 14132, 823952),
}


@pytest.mark.parametrize("combo", sorted(BEFORE), ids=lambda c: "/".join(c))
def test_the_eight_plans_that_had_a_far_cheaper_alternative_now_take_it(combo):
    name, pattern, query = combo
    ranges, rows, cells, nbytes = BEFORE[combo]
    before = 1e3 * COSTS.node_seconds(
        requests=1, seeks=ranges, rows=rows, cells=cells, nbytes=nbytes
    )
    plan = _bound(name, pattern).plan(_ds(name).query(query))
    now = _node_ms(plan, name, pattern)
    assert now * 1.55 <= before, (now, before)  # 1.6x to 7x cheaper
    assert plan.runner_up and "runner-up" in plan.note
    if query == "all_locations_minute":
        per = 4 if pattern == "tall_per_metric" else 1  # pressure, temperature, humidity, altitude
        assert plan.n_ranges == 234 * per
        assert evaluate(_index(name, pattern), plan).rows_seen == 18 * per


def _k(name: str, col: str, n: int) -> float:
    return n / _ds(name).frame[col].nunique()


def _at_production(plan: ReadPlan, name: str, pattern: str, col: str, n: int) -> float:
    """A plan's node-ms with ``n`` values of ``col`` in production, the query leaving ``col``
    open: k = n ÷ the sample's values times the rows, cells and bytes seen, and k times the
    ranges of a plan listing one per value."""
    r = evaluate(_index(name, pattern), plan)
    k = _k(name, col, n)
    seeks = round(plan.n_ranges * (k if plan.assumes else 1.0))
    return 1e3 * COSTS.node_seconds(
        requests=max(plan.requests, -(-seeks // COSTS.ranges_per_request)),
        seeks=seeks,
        rows=round(r.rows_seen * k),
        cells=round(r.cells_seen * k),
        nbytes=round(r.bytes_seen * k),
    )


@pytest.mark.parametrize("meters", [31, 125, 900, 2000, 50_000])
def test_every_meter_in_one_hour_follows_the_production_count(meters):
    """energy_meters ``sequential_id`` (meter#minute), every meter 18:00-19:00: one range per
    meter reads the answer only (4 readings each) for a seek each; scanning reads every reading
    of every meter. At every count the ranges cost far less; past 1,000 ranges
    (``ranges_per_request``) they are sent as ⌈meters ÷ 1,000⌉ requests side by side, never
    turned into a scan."""
    name, pattern, query = "energy_meters", "sequential_id", "all_meters_hour"
    ents = (("meter_id", meters),)
    schema = _bound(name, pattern, ents)
    q = _ds(name).query(query)
    plan = schema.plan(q)
    assert dict(plan.assumes) == {"meter_id": meters} and plan.n_ranges == 31
    assert "scanned" in plan.runner_up
    assert plan.cost is not None and plan.cost.requests == -(-meters // 1000)
    assert plan.cost.seeks == pytest.approx(meters)
    costs = {
        a.label: _at_production(a.plan, name, pattern, "meter_id", meters)
        for a in alternatives(schema, q)
    }
    assert _at_production(plan, name, pattern, "meter_id", meters) <= min(costs.values()) * TIE
    if meters == 125:
        # by hand: 125 ranges ≈ 125 seeks; the scan ≈ 29,760 × 125/31 readings
        listed = _at_production(plan, name, pattern, "meter_id", meters)
        assert listed < 10.0
        scan = next(a for a in alternatives(schema, q) if "scanned" in a.label)
        assert _at_production(scan.plan, name, pattern, "meter_id", meters) > 20 * listed
