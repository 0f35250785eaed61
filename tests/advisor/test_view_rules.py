"""The advisor's managed alternatives: a CMV rollup for hand-written aggregate rows (G29) and an
asynchronous index for a dual-written second table (G05), with the evidence derived by hand.

energy_meters (workshop): 29,760 events and 31 × 240 = 7,440 hourly aggregate rows; game_scores
(workshop): 30,000 events, each written to two tables by two_tables. A row write is 1 / 14,000
node-seconds; a view costs an assumed one maintenance write per source row written.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

import workbench as wb
from workbench.advisor import advise
from workbench.schema import Family, Serialized
from workbench.schema.views import check_view_sql

EVENTS, HOURLY, GAMES = 29_760, 7_440, 30_000


@pytest.fixture(scope="module")
def data():
    return {n: wb.load_dataset(n, size="workshop") for n in ("energy_meters", "game_scores")}


def _fires(ds, schema, rule, severity=None):
    got = advise(ds, schema).by_rule(rule)
    assert got, f"{rule} did not fire on {schema.name}"
    assert severity is None or all(f.severity == severity for f in got)
    return got[0]


def test_hand_written_aggregate_rows_get_a_cmv_rollup(data):
    ds = data["energy_meters"]
    f = _fires(ds, wb.preset("energy_meters", "hourly_aggregates"), "cmv_rollup", "info")
    assert f.guidelines == ("G29",)
    assert f.data["client_writes_saved"] == HOURLY
    assert f.data["client_writes_per_event"] == pytest.approx(((EVENTS + HOURLY) / EVENTS, 1.0))
    assert f.data["maintenance_writes"] == EVENTS
    assert f.data["write_node_s"] == pytest.approx(
        ((EVENTS + HOURLY) / 14_000, 2 * EVENTS / 14_000)
    )
    # (29,760 + 7,440) / 29,760 = 1.25 mutations an event by hand, 1.00 with the view
    figures = rf"\b1\.25 row mutations.*\b1\.00 .*view.*\b7,440 fewer.*37,200 \({EVENTS:,}"
    assert re.search(figures, f.evidence[0]), f.evidence[0]
    assert "eventually consistent" in f.evidence[2] and "no SQL" in f.evidence[3]
    (sql,) = f.data["sql"].values()
    assert (
        sql.startswith("CREATE MATERIALIZED VIEW `hourly` AS") and "GROUP BY meter_id, hour" in sql
    )
    assert check_view_sql(sql.split(" AS\n", 1)[1]) == []
    # the suggestion stores the raw rows only, and the finding goes away
    assert f.suggestion.aggregates is None
    assert not advise(ds, f.suggestion).by_rule("cmv_rollup")


def test_a_dual_written_table_gets_an_async_index(data):
    ds = data["game_scores"]
    f = _fires(ds, wb.preset("game_scores", "two_tables"), "async_index", "info")
    assert f.guidelines == ("G05",) and f.table == "by_game"
    assert f.data["client_writes_saved"] == GAMES  # the second write of every event
    assert f.data["client_writes_per_event"] == pytest.approx((2.0, 1.0))
    assert f.data["maintenance_writes"] == GAMES
    assert f.data["write_node_s"] == pytest.approx((2 * GAMES / 14_000, 2 * GAMES / 14_000))
    assert "atomicity" in f.evidence[2]
    assert "ORDER BY game, ts, player, source_key" in f.fix
    assert f.data["sql"]["by_game"].endswith("ORDER BY game, ts, player, source_key")
    assert f.suggestion.tables == ()
    assert not advise(ds, f.suggestion).by_rule("async_index")


def test_no_managed_alternative_where_none_applies(data):
    ds = data["energy_meters"]
    assert not advise(ds, wb.preset("energy_meters", "sequential_id")).by_rule("cmv_rollup")
    # a rollup reads a cell per measure: aggregate rows over serialized values get no offer
    packed = replace(
        wb.preset("energy_meters", "hourly_aggregates"), layout=Serialized("json", Family("r"))
    )
    assert not advise(ds, packed).by_rule("cmv_rollup")
