"""The designer's Views (CMV) tab and the row-key schema in its Schema & cbt tab, driven from
Python on workshop data, with the figures derived by hand.

energy_meters (workshop): 31 meters × 10 days × 96 quarter-hours = 29,760 events; hourly
aggregate rows: 31 × 240 hours = 7,440; daily: 31 × 10 = 310. game_scores (workshop): 30,000
events. A row write is 1 / 14,000 node-seconds (Settings.writes_per_s_per_node); a view costs an
assumed one maintenance write per source row written (Settings.view_updates_per_source_write).
"""

from __future__ import annotations

import asyncio
import re

import pytest

import workbench as wb
from workbench.notes import EMULATOR_NOTES
from workbench.schema import Field, RowKey, Timestamp
from workbench.schema.views import check_view_sql
from workbench.ui.app import TABS, Designer
from workbench.ui.model import Workspace
from workbench.ui.views_tab import INDEX, NONE, ROLLUP

EVENTS, HOURLY, DAILY = 31 * 10 * 96, 31 * 240, 31 * 10
WRITES_PER_NODE_S = 14_000


@pytest.fixture(scope="module")
def ws() -> Workspace:
    return Workspace()


def _text(html_text: str) -> str:
    no_style = re.sub(r"<style>.*?</style>", "", html_text, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", no_style)).replace("&#x27;", "'")


def _row(panel: str, metric: str) -> list[str]:
    """The two cells (view, client) of the cost row ``metric``."""
    m = re.search(
        rf"<tr data-view-row='{metric}'><th>[^<]*</th><td>([^<]*)</td><td>([^<]*)</td>", panel
    )
    assert m, f"no row {metric} in {_text(panel)[:400]}"
    return [m.group(1), m.group(2)]


def _rows_seen(panel: str, query: str) -> tuple[str, int, str]:
    m = re.search(
        rf"<tr data-view-query='{query}'>.*?</td><td>([^<]*)</td>"
        rf"<td data-metric='rows_seen'>([\d,]+)</td><td>([^<]*)</td>",
        panel,
    )
    assert m, f"no query {query} in {_text(panel)[:600]}"
    return m.group(1), int(m.group(2).replace(",", "")), m.group(3)


def _designer(ws: Workspace, name: str, pattern: str) -> Designer:
    d = wb.designer(ws.dataset(name, "workshop"), workspace=ws)
    d.controls.pattern.value = pattern
    d.show_tab("views")
    return d


def test_rollup_replaces_hand_written_aggregate_rows(ws):
    d = _designer(ws, "energy_meters", "hourly_aggregates")
    assert "rollup" in _text(d.views_panel.value) and d.controls.view_kind.value == NONE
    d.controls.view_kind.value = ROLLUP
    p = d.views_panel.value
    sql = re.search(r"<pre data-view-sql[^>]*>(.*?)</pre>", p, re.S).group(1)
    sql = sql.replace("&#x27;", "'").replace("&gt;", ">").replace("&lt;", "<")
    assert sql.startswith("CREATE MATERIALIZED VIEW `hourly` AS\nSELECT\n  meter_id,\n")
    assert "TIMESTAMP_TRUNC(PARSE_TIMESTAMP('%Y%m%d%H%M', ts), HOUR) AS hour" in sql
    assert sql.endswith("GROUP BY meter_id, hour")
    assert check_view_sql(sql.split(" AS\n", 1)[1]) == []
    # the view: raw rows only from the client; the hand-written form adds the 7,440 hourly rows
    assert _row(p, "maintained_by") == ["Bigtable (CMV)", "client"]
    assert _row(p, "client_writes") == [f"{EVENTS:,}", f"{EVENTS + HOURLY:,}"]
    assert _row(p, "client_writes_per_event") == ["1.00", "1.25"]
    assert _row(p, "maintenance_writes") == [f"{EVENTS:,}", "0"]
    assert _row(p, "write_node_s") == [
        f"{2 * EVENTS / WRITES_PER_NODE_S:.2f}",
        f"{(EVENTS + HOURLY) / WRITES_PER_NODE_S:.2f}",
    ]  # 4.25 and 2.66: the view saves client writes, Bigtable spends more in total
    assert _row(p, "derived_rows") == [f"{HOURLY:,}", f"{HOURLY:,}"]
    assert _row(p, "staleness")[0].startswith("eventually consistent")
    # the view's query: meter 100001's hourly mean over the 10 days reads 240 view rows
    now, seen, reads = _rows_seen(p, "hourly_kwh_mean")
    assert (now, seen, reads) == ("—", 240, "the view")
    assert _rows_seen(p, "meter_day") == ("96", 96, "the table")  # a day of raw rows: unchanged
    assert "no SQL" in _text(p) and "data-view-note" in p

    # a daily bucket with one statistic: 310 rows, 10 read, only MAX in the SQL
    d.controls.view_bucket.value = "day"
    d.controls.view_stats.value = ("max",)
    p = d.views_panel.value
    assert "`daily`" in p and ", DAY) AS day" in p and "MAX(" in p and "COUNT(" not in p
    assert _row(p, "derived_rows") == [f"{DAILY:,}", f"{DAILY:,}"]
    assert _rows_seen(p, "daily_kwh_max")[1:] == (10, "the view")


@pytest.mark.slow  # a 30,000-event second table costed and compared (~9 s of CPU)
def test_async_index_replaces_a_dual_written_table(ws):
    d = _designer(ws, "game_scores", "two_tables")
    d.controls.view_kind.value = INDEX
    # the first order offered: the design's key rotated by one segment
    assert list(d.controls.view_order.value) == ["player", "time", "game"]
    d.controls.view_order.value = ["game", "time", "player"]
    p = d.views_panel.value
    assert "CREATE MATERIALIZED VIEW `by_game_time` AS" in p
    assert "ORDER BY game, ts, player" in p
    n = 30_000
    assert _row(p, "client_writes") == [f"{n:,}", f"{2 * n:,}"]  # the dual write is gone
    assert _row(p, "client_writes_per_event") == ["1.00", "2.00"]
    assert _row(p, "maintenance_writes") == [f"{n:,}", "0"]
    assert _row(p, "derived_rows") == [f"{n:,}", f"{n:,}"]  # every event has its index row
    assert "atomicity" in _row(p, "staleness")[1]
    # lol_march (one game over March) reads the index: the rows it returns, as the second table did
    now, seen, reads = _rows_seen(p, "lol_march")
    assert reads == "the view" and seen == int(now.replace(",", ""))
    # a segment the key does not have is refused, naming the key's segments
    d.controls.view_order.value = ["game", "score"]
    assert re.search(r"'score' .*not a segment", _text(d.views_panel.value))


def test_a_layout_a_view_cannot_read_is_named(ws):
    d = _designer(ws, "fx_prices", "serialized_protobuf")
    d.controls.view_kind.value = ROLLUP
    t = _text(d.views_panel.value)
    assert "per measure" in t and "Tall" in t


def test_the_sql_shows_at_once_and_the_costs_follow_on_the_next_turn(ws, monkeypatch):
    """Inside a running event loop (a kernel) a new view draws its SQL within the change itself
    and its costs on a later turn of the loop; a view seen before is drawn from the Workspace's
    cache within the change, nothing deferred. (How fast: bench/bench_views.py.)"""
    d = _designer(ws, "energy_meters", "sequential_id")
    deferred: list[object] = []
    later_of = d.later

    def counting_later(fn):
        deferred.append(fn)
        return later_of(fn)

    monkeypatch.setattr(d, "later", counting_later)

    async def change() -> tuple[str, str]:
        d.controls.view_kind.value = ROLLUP
        first = d.views_panel.value  # what the change itself drew, before the loop turns
        # wait for the state: the costs arrive on a later turn (a minute is never needed)
        deadline = asyncio.get_running_loop().time() + 120
        while "data-view-row" not in d.views_panel.value:
            assert asyncio.get_running_loop().time() < deadline, "the costs never arrived"
            await asyncio.sleep(0.05)
        return first, d.views_panel.value

    first, later = asyncio.run(change())
    assert (
        "data-view-sql" in first and "data-view-pending" in first and "data-view-row" not in first
    )
    assert len(deferred) == 1  # the costs: one piece of work handed to the loop
    assert "data-view-row" in later and "data-view-pending" not in later
    d.controls.view_kind.value = NONE
    d.controls.view_kind.value = ROLLUP  # cached: drawn whole within the change
    assert d.views_panel.value == later
    assert len(deferred) == 1  # nothing handed to the loop this time


def test_schema_tab_shows_the_row_key_schema_and_conformance(ws):
    d = wb.designer(ws.dataset("energy_meters", "workshop"), workspace=ws)
    d.controls.pattern.value = "sequential_id"
    d.show_tab("schema")
    p = d.cbt_panel.value
    assert "fieldName: &quot;meter_id&quot;" in p and "fieldName: &quot;ts&quot;" in p
    assert "--row-key-schema-definition-file=row_key_schema.yaml" in p
    assert re.search(r"<pre data-rowkey-sql [^>]*>SELECT meter_id, ts, r\nFROM `energy_meters-", p)
    assert re.search(rf"\b{EVENTS:,} distinct keys, all conform .*\(meter_id, ts\)", _text(p))
    # hand-written aggregate rows share the table under another key shape: 7,440 do not conform
    d.controls.pattern.value = "hourly_aggregates"
    t = _text(d.cbt_panel.value)
    assert f"{EVENTS + HOURLY:,} distinct keys, {HOURLY:,} do not conform" in t
    assert "First: 'agg#hourly#00100001#2015030100'" in t and "(G29)" in t
    assert EMULATOR_NOTES["rowkey_schema"] in t


@pytest.mark.parametrize(
    "precision,fmt,template",
    [
        ("ms", None, "{time:%Y%m%d%H%M%Smmm}"),
        ("us", None, "{time:%Y%m%d%H%M%Suuuuuu}"),
        ("ms", "%Y-%m-%dT%H:%M:%S", "{time:%Y-%m-%dT%H:%M:%Smmm}"),
        ("second", None, "{time:%Y%m%d%H%M%S}"),
    ],
)
def test_time_template_matches_the_key_text(precision, fmt, template):
    """The template puts the fraction's digits where the key text has them: no dot."""
    ds = wb.load_dataset("fx_prices", size="tiny")
    key = RowKey((Field("pair"), Timestamp(precision, fmt)))
    assert key.segments[1].template() == template
    text = wb.Schema("x", key).example_key(ds).split("#", 1)[1]
    width = {"%Y": 4, "%m": 2, "%d": 2, "%H": 2, "%M": 2, "%S": 2, "mmm": 3, "uuuuuu": 6}
    shape = template[len("{time:") : -1]
    for tok, n in width.items():
        shape = shape.replace(tok, "9" * n)
    assert len(text) == len(shape) and "." not in text
    assert re.sub(r"\d", "9", text) == shape


def test_views_tab_is_listed():
    assert "views" in TABS and TABS.index("views") == TABS.index("schema") + 1
