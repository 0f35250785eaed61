"""The read-plan compiler, one planner per access path, each on a hand-made case.

Three sensors at two sites, events each minute; every expected key, range and note below is
written by hand from the key's template (``site#sensor#YYYYmmddHHMMSS`` and friends), never
read back from the planner.
"""

from __future__ import annotations

import zlib
from dataclasses import replace

import pandas as pd
import pytest

from workbench.analysis.settings import DEFAULT
from workbench.datasets.model import Dataset, QueryIntent
from workbench.schema import (
    Aggregates,
    Family,
    Field,
    Literal,
    Metric,
    NewCells,
    NewColumns,
    ReversedTimestamp,
    RowKey,
    Salt,
    Schema,
    Table,
    Tags,
    Tall,
    Timestamp,
)
from workbench.schema.plan import KeyRange, ReadCosts, prefix_end
from workbench.schema.plan_choice import CELL_BYTES, events_per_row, series_at
from workbench.schema.planner import (
    PlanRank,
    Query,
    _summary_rows,
    alternatives,
    compile_ranked,
    key_ranges,
    row_key_regex,
    table_walks,
    time_filter,
    walk_key,
)

T0 = pd.Timestamp("2024-01-01 00:00", tz="UTC")


def sensors() -> Dataset:
    rows = [
        (site, sensor, T0 + pd.Timedelta(minutes=m), 20.0 + m, 50.0)
        for site, sensor in (("a", "s1"), ("a", "s2"), ("b", "s3"))
        for m in range(3)
    ]
    f = pd.DataFrame(rows, columns=["site", "sensor", "time", "temp", "hum"])
    f["time"] = f["time"].astype("datetime64[us, UTC]")
    return Dataset(
        name="sensors", frame=f, entity=["site", "sensor"], time="time", measures=["temp", "hum"]
    )


LAYOUT = Tall(Family("m"))


def design(*segments, **kw) -> Schema:
    return Schema("hand", RowKey(tuple(segments)), LAYOUT, **kw).bind(sensors())


def at(minute: int, second: int = 0) -> pd.Timestamp:
    return T0 + pd.Timedelta(minutes=minute, seconds=second)


def test_point_read_is_one_row_key():
    s = design(Field("site"), Field("sensor"), Timestamp("second"))
    q = QueryIntent("p", "point", "", {"site": "a", "sensor": "s1"}, start=at(1))
    plan = s.plan(q)
    assert plan.keys == ("a#s1#20240101000100",) and plan.ranges == ()
    assert plan.kind == "point"
    # the cell timestamps of that one millisecond
    assert plan.filter.time_range_us == (int(at(1).value // 1000), int(at(1).value // 1000) + 1000)


def test_prefix_and_time_range_are_one_range():
    s = design(Field("site"), Field("sensor"), Timestamp("second"))
    q = QueryIntent("r", "range", "", {"site": "a", "sensor": "s1"}, start=at(0), end=at(2))
    w = walk_key(s.key, Query.of(q, s))
    assert (w.stop, w.stop_reason, w.pinned) == (2, "time range", 3)
    ranges, keys = key_ranges(w, s.key)
    # end is exclusive: the last second inside is 00:01:59
    assert ranges == [KeyRange("a#s1#20240101000000", prefix_end("a#s1#20240101000159"))]
    assert keys == ()
    # the newest of site b: its one sensor (s3, the dataset's series) completes the prefix,
    # which stops at the time
    only_site = QueryIntent("s", "latest", "", {"site": "b"}, limit=1)
    w = walk_key(s.key, Query.of(only_site, s))
    assert (w.branches, w.stop_reason) == (["b#s3#"], "time")
    assert key_ranges(w, s.key) == ([KeyRange.for_prefix("b#s3#")], ())


def test_known_values_are_one_range_each_in_one_request():
    s = design(Field("sensor"), Timestamp("second"))
    q = QueryIntent("all", "range", "", {}, start=at(0), end=at(1))
    plan = s.plan(q)
    assert [r.start for r in plan.ranges] == [f"{x}#20240101000000" for x in ("s1", "s2", "s3")]
    assert plan.requests == 1 and plan.n_ranges == 3
    assert "3 ranges over the known sensor values" in plan.note
    # a fixed site narrows the sensors to its own two (the dataset's series)
    s2 = design(Field("site"), Field("sensor"), Timestamp("second"))
    w = walk_key(s2.key, Query.of(QueryIntent("a", "range", "", {"site": "a"}, at(0), at(1)), s2))
    assert w.branches == ["a#s1#", "a#s2#"] and w.enumerated == {"sensor"}


def test_time_buckets_before_fixed_fields_are_enumerated():
    s = design(Timestamp("hour"), Field("site"), Field("sensor"))
    q = QueryIntent("h", "range", "", {"site": "a", "sensor": "s1"}, start=at(0), end=at(120))
    plan = s.plan(q)
    # 00:00–01:59 touches the hours 00 and 01; every segment fixed: two row keys
    assert plan.keys == ("2024010100#a#s1", "2024010101#a#s1")
    assert "2 time bucket(s) of the range" in plan.note
    assert plan.filter.row_key_regex is None


def test_time_first_without_enumeration_uses_a_row_key_regex():
    # a minute in milliseconds is 60,000 buckets, over RANGES_MAX: one range over the minute
    s = design(Timestamp("ms"), Field("site"), Field("sensor"))
    q = QueryIntent("r", "range", "", {"site": "a"}, start=at(0), end=at(1))
    qq = Query.of(q, s)
    w = walk_key(s.key, qq)
    assert (w.stop, w.stop_reason, w.branches) == (0, "time range", [""])
    rx = row_key_regex(s.key, w, qq)
    # the site fixed after the time; the sensor any of the site's own two
    assert rx is not None and rx.endswith(r"\#a\#(?:s1|s2)")
    assert time_filter(qq) == (int(at(0).value // 1000), int(at(1).value // 1000))


def test_latest_n_reverse_scan_and_reversed_key():
    fwd = design(Field("site"), Field("sensor"), Timestamp("second"))
    q = QueryIntent("l", "latest", "", {"site": "a", "sensor": "s1"}, limit=1)
    plan = fwd.plan(q)
    assert plan.ranges == (KeyRange.for_prefix("a#s1#"),)
    assert plan.reversed and plan.rows_limit == 1
    assert plan.on_emulator().client_keeps == 1  # the emulator reads forward and keeps one
    rev = design(Field("site"), Field("sensor"), ReversedTimestamp())
    plan = rev.plan(q)
    assert not plan.reversed and plan.rows_limit == 1 and "G09" in plan.note
    # every sensor of a site: one reversed request per range, the client keeps the newest
    site = QueryIntent("ls", "latest", "", {"site": "a"}, limit=1)
    plan = fwd.plan(site)
    assert plan.limit_per_range and plan.requests == 2 and plan.client_keeps == 1


def test_salted_fan_out_is_one_scan_per_bucket():
    s = design(Salt(3, of=("time",)), Field("site"), Field("sensor"), Timestamp("second"))
    q = QueryIntent("r", "range", "", {"site": "a", "sensor": "s1"}, start=at(0), end=at(1))
    plan = s.plan(q)
    assert [r.start for r in plan.ranges] == [f"{b}#a#s1#20240101000000" for b in "012"]
    assert plan.scans == 3 and "salted with 3 buckets" in plan.note


def test_second_table_with_the_better_key_is_chosen():
    s = design(
        Timestamp("ms"),
        Field("site"),
        Field("sensor"),
        tables=(Table("by_sensor", RowKey((Field("site"), Field("sensor"), Timestamp("ms")))),),
    )
    q = QueryIntent("r", "range", "", {"site": "a", "sensor": "s1"}, start=at(0), end=at(1))
    plan = s.plan(q)
    assert plan.table == "by_sensor" and "(G05)" in plan.note
    main = compile_ranked(s.key, "main", q, LAYOUT, s)
    other = compile_ranked(s.tables[0].key, "by_sensor", q, LAYOUT, s)
    # one scan each, but the second table's prefix fixes all three segments, the main one only
    # its time range (then a regex)
    assert other.rank < main.rank
    assert other.rank == PlanRank(full_scan=False, unpinned=-3, scans=1, regex=False)


def test_aggregate_rows_read_the_summary_family():
    s = design(Field("site"), Field("sensor"), Timestamp("second"), aggregates=Aggregates())
    q = QueryIntent(
        "h",
        "range",
        "",
        {"site": "a", "sensor": "s1"},
        start=at(0),
        end=at(60),
        aggregate="hourly:mean",
    )
    plan = s.plan(q)
    assert plan.filter.families == ("s",)
    assert plan.note.startswith("reads the pre-aggregated hourly rows (G29)")
    # hourly:mean of every measure: one of the five statistics of temp and of hum
    assert plan.filter.qualifier_regex == "temp_mean|hum_mean"
    assert "only the cells temp_mean, hum_mean" in plan.note
    lead = s.aggregates.lead("#")
    assert all(r.start.startswith(lead + "#a#s1#") for r in plan.ranges)


def test_rank_orders_full_scans_last_then_longer_prefixes():
    ranks = [
        PlanRank(True, -5, 1, False),
        PlanRank(False, -1, 1, False),
        PlanRank(False, -3, 2, False),
        PlanRank(False, -3, 1, True),
        PlanRank(False, -3, 1, False),
    ]
    assert sorted(ranks) == [ranks[4], ranks[3], ranks[2], ranks[1], ranks[0]]


@pytest.mark.parametrize("shape_bound", [True, False])
def test_schema_exposes_measures_and_carried_columns(shape_bound):
    s = design(Field("sensor"), Timestamp("second"))
    if not shape_bound:
        s = Schema("hand", s.key, LAYOUT)
        assert s.measure_names() == () and s.carried_columns(s.key) == ()
        return
    assert s.measure_names() == ("temp", "hum")
    # the key holds the sensor but not the site: the site travels in a cell
    assert s.carried_columns(s.key) == ("site",)


# ----------------------------------------------------------------------------- costed choices

# Nine events over two minutes (00:00, 00:01, 00:02 for each of three sensors); the planner
# estimates each candidate's node time from the dataset's events, span and series.
COSTS = DEFAULT.read_costs()
FREE_SEEKS = ReadCosts(request_s=0.0, seek_s=0.0, row_s=1.0, cell_s=0.0, byte_s=0.0)


def _per_row() -> float:
    """A row of two measures as the estimate prices it: the row, its 2 cells and their bytes
    (``CELL_BYTES`` each: key, family, qualifier, timestamp and value)."""
    return COSTS.row_s + 2 * COSTS.cell_s + 2 * CELL_BYTES * COSTS.byte_s


def test_one_range_with_a_regex_beats_sixty_second_buckets_when_seeks_cost_more():
    s = design(Timestamp("second"), Field("site"), Field("sensor"))
    q = QueryIntent("m", "range", "", {"site": "a"}, start=at(0), end=at(1))
    # one range over the minute: half the span (60 s of 120 s), 4.5 of the 9 events, one seek;
    # the whole table: all 9 events, one seek; the 60 one-second buckets read only site a's
    # rows but need 60 seeks or more
    one = COSTS.request_s + COSTS.seek_s + 4.5 * _per_row()
    whole = COSTS.request_s + COSTS.seek_s + 9 * _per_row()
    plan = replace(s, costs=COSTS).plan(q)
    assert plan.ranges == (KeyRange("20240101000000", prefix_end("20240101000059")),)
    assert plan.filter.row_key_regex is not None
    assert plan.est_node_ms == pytest.approx(one * 1e3)
    assert plan.runner_up == "a full-table scan with filters"
    assert plan.runner_up_node_ms == pytest.approx(whole * 1e3)
    assert f"runner-up: a full-table scan with filters (est. {whole * 1e3:.3g} node-ms)" in (
        plan.note
    )
    buckets = [
        a for a in alternatives(replace(s, costs=COSTS), q) if "60 time bucket(s)" in a.label
    ]
    assert buckets and all(
        a.est_s is not None and a.est_s > one + 50 * COSTS.seek_s for a in buckets
    )
    # with free seeks the 60 buckets read fewer rows and win
    cheap = replace(s, costs=FREE_SEEKS).plan(q)
    assert cheap.n_ranges == 120 and "60 time bucket(s)" in cheap.note
    # without costs the key alone decides (the buckets, as before costs were compared)
    assert s.plan(q).n_ranges == 120


def test_latest_in_time_buckets_reads_the_current_bucket_or_scans_by_cost():
    s = Schema(
        "cells",
        RowKey((Timestamp("minute"), Field("site"), Field("sensor"))),
        NewCells(Family("m"), ()),
    ).bind(sensors())
    q = QueryIntent("l", "latest", "", {"site": "a", "sensor": "s1"}, limit=1)
    # "now" is the last event, 00:02: that minute's row of a/s1 and the minute before
    keyed = replace(s, costs=FREE_SEEKS).plan(q)
    assert keyed.keys == ("202401010001#a#s1", "202401010002#a#s1")
    assert keyed.reversed and keyed.rows_limit == 1 and keyed.filter.latest_versions == 1
    # a reverse scan from the table's end with rows limit 1 until a/s1's row: the regex passes
    # 1 series in 3, so the limit's one row is found after 3 rows, one seek; a minute row holds
    # 1.5 events on average (3 per series over a 120 s span, 60 s buckets) of 2 cells each, so
    # 9 cells. The two keys, reversed with rows limit 1: two seeks and the newest row, whole
    # (1.5 events, 3 cells). At real costs the seek decides
    cell = COSTS.cell_s + CELL_BYTES * COSTS.byte_s
    scan = replace(s, costs=COSTS).plan(q)
    assert scan.full_scan and scan.reversed and scan.rows_limit == 1
    assert scan.est_node_ms == pytest.approx(
        1e3 * (COSTS.request_s + COSTS.seek_s + 3 * COSTS.row_s + 9 * cell)
    )
    two = next(a for a in alternatives(replace(s, costs=COSTS), q) if a.plan.keys)
    assert two.est_s == pytest.approx(COSTS.request_s + 2 * COSTS.seek_s + COSTS.row_s + 3 * cell)


def test_an_open_ended_time_range_runs_to_the_end_of_the_prefix():
    s = design(Field("site"), Field("sensor"), Timestamp("second"))
    # from 00:01:00 on, no end: from that second's key to the end of the prefix "a#s1#", whose
    # last byte '#' (0x23) + 1 is '$' (0x24)
    q = QueryIntent("r", "range", "", {"site": "a", "sensor": "s1"}, start=at(1))
    w = walk_key(s.key, Query.of(q, s))
    assert w.time_range == ("20240101000100", None)
    assert key_ranges(w, s.key) == ([KeyRange("a#s1#20240101000100", "a#s1$")], ())
    # up to 00:01:00 (exclusive), no start: from the prefix to past its last second 00:00:59
    q = QueryIntent("r", "range", "", {"site": "a", "sensor": "s1"}, end=at(1))
    w = walk_key(s.key, Query.of(q, s))
    assert key_ranges(w, s.key) == ([KeyRange("a#s1#", prefix_end("a#s1#20240101000059"))], ())


def test_a_point_read_of_an_empty_last_value_is_the_key_written():
    t0 = T0.as_unit("us")
    f = pd.DataFrame(
        {
            "host": ["h1", "h1", "h2"],
            "role": ["", "db", ""],
            "dc": ["", "", "x"],
            "time": [t0] * 3,
            "v": [1.0, 2.0, 3.0],
        }
    )
    ds = Dataset(name="d", frame=f, entity=["host", "role", "dc"], time="time", measures=["v"])
    # host#role: an empty role keeps its delimiter ("h1" + "#" + "" = "h1#"), so the point
    # read is that key, not "h1" (G20)
    plain = Schema("s", RowKey((Field("host"), Field("role"))), LAYOUT).bind(ds)
    assert "h1#" in plain.to_cells(ds).frame["row_key"].tolist()
    p = plain.plan(QueryIntent("p", "point", "", {"host": "h1", "role": ""}, start=t0))
    assert p.keys == ("h1#",)
    # host#role#tags: the tags write their own delimiters and an empty tag writes nothing
    # (G16); the key's trailing delimiters go: "h1" + "#" + "" + "#" + "" -> "h1",
    # "h2" + "#" + "" + "#" + "dc=x#" -> "h2##dc=x"
    tagged = Schema("s", RowKey((Field("host"), Field("role"), Tags(("dc",)))), LAYOUT).bind(ds)
    assert tagged.to_cells(ds).frame["row_key"].unique().tolist() == ["h1", "h1#db", "h2##dc=x"]
    for entity, key in (
        ({"host": "h1", "role": "", "dc": ""}, "h1"),
        ({"host": "h2", "role": "", "dc": "x"}, "h2##dc=x"),
    ):
        assert tagged.plan(QueryIntent("p", "point", "", entity, start=t0)).keys == (key,)


def test_a_measure_after_the_stop_narrows_the_regex_to_its_short_names():
    # the time first (a minute in ms: no enumeration), then the site, the measure's short name
    # (temp -> "t", hum -> "h", G01) and the sensor: the regex fixes the site, the measures asked
    # and the site's own two sensors
    s = design(
        Timestamp("ms"), Field("site"), Metric(names={"temp": "t", "hum": "h"}), Field("sensor")
    )
    for measures, alt in ((("temp",), "t"), (("hum", "temp"), "t|h")):
        q = QueryIntent("r", "range", "", {"site": "a"}, start=at(0), end=at(1), measures=measures)
        qq = Query.of(q, s)
        w = walk_key(s.key, qq)
        assert (w.stop, w.stop_reason) == (0, "time range")
        # measures in the key segment's order (the dataset's: temp, hum)
        assert row_key_regex(s.key, w, qq) == rf"[^\#]*\#a\#(?:{alt})\#(?:s1|s2)"


def test_summary_rows_are_one_per_series_and_bucket_at_most():
    # 3 series over 00:00–00:02 (a 120 s span), 9 events: hourly buckets 120 // 3600 + 1 = 1,
    # so 3 × 1 = 3 summary rows; minute buckets 120 // 60 + 1 = 3, so 3 × 3 = 9 = the events
    hourly = design(Field("site"), Field("sensor"), Timestamp("second"), aggregates=Aggregates())
    assert hourly.aggregates.bucket == "hour" and _summary_rows(hourly) == 3.0
    minute = design(
        Field("site"), Field("sensor"), Timestamp("second"), aggregates=Aggregates(bucket="minute")
    )
    assert _summary_rows(minute) == 9.0


def test_a_time_range_stop_prices_the_share_of_the_span_its_buckets_cover():
    s = design(Field("site"), Field("sensor"), Timestamp("minute"))
    # the sample spans 00:00:00.000000–00:02:00.000000, 120,000,001 µs counting both ends;
    # [00:00, 00:01) covers the minute bucket 00:00: 60,000,000 µs of it
    q = QueryIntent("r", "range", "", {"site": "a", "sensor": "s1"}, start=at(0), end=at(1))
    w = walk_key(s.key, Query.of(q, s))
    assert w.stop_reason == "time range" and w.t_share == 60_000_000 / 120_000_001
    # from 00:01 on: the buckets 00:01 and 00:02, 120,000,000 µs
    q = QueryIntent("r", "range", "", {"site": "a", "sensor": "s1"}, start=at(1))
    assert walk_key(s.key, Query.of(q, s)).t_share == 120_000_000 / 120_000_001
    # a design not bound to a dataset has no span: the share is the whole of it
    unbound = Schema("hand", s.key, LAYOUT)
    assert walk_key(unbound.key, Query.of(q, unbound)).t_share == 1.0


def test_a_production_count_over_the_cap_stops_the_walk_at_that_field():
    # 1,000 sensors in production, 3 in the sample: over ENUMERATE_VALUES_MAX (64), so site a's
    # rows are one prefix scan, the walk stopping at the sensor (segment 1) with no row keys
    s = Schema("hand", RowKey((Field("site"), Field("sensor"), Timestamp("second"))), LAYOUT)
    s = s.bind(sensors(), entities={"sensor": 1000})
    q = QueryIntent("r", "range", "", {"site": "a"}, start=at(0), end=at(1))
    w = walk_key(s.key, Query.of(q, s))
    assert (w.stop, w.stop_reason, w.branches) == (1, "unknown sensor", ["a#"])
    assert key_ranges(w, s.key) == ([KeyRange.for_prefix("a#")], ())
    assert "at 1,000 sensor values in production" in s.plan(q).note


def test_few_values_per_branch_but_many_together_are_scanned():
    # 3 sites of 30 sensors each: 90 sensors, over the 64-value cap, so the sample lists no
    # sensor set; each site lists its own 30, together 90 > 64: one prefix per site, not 90
    rows = [(site, f"{site}{k:02d}", T0, 1.0, 2.0) for site in "abc" for k in range(30)]
    f = pd.DataFrame(rows, columns=["site", "sensor", "time", "temp", "hum"])
    f["time"] = f["time"].astype("datetime64[us, UTC]")
    ds = Dataset(
        name="many", frame=f, entity=["site", "sensor"], time="time", measures=["temp", "hum"]
    )
    s = Schema("hand", RowKey((Field("site"), Field("sensor"), Timestamp("second"))), LAYOUT)
    s = s.bind(ds)
    assert s.shape.known_values("sensor") is None
    plan = s.plan(QueryIntent("r", "range", "", {}, start=at(0), end=at(1)))
    assert plan.ranges == tuple(KeyRange.for_prefix(p) for p in ("a#", "b#", "c#"))
    assert "90 sensor values over the branches before it" in plan.note


def test_a_fixed_value_the_sample_lacks_scans_its_prefix_when_costs_compare():
    # site "z" has no series in the sample, so no sensor can be listed under it: the walk
    # stops at the sensor and reads the prefix "z#"; the other alternative is the full scan
    s = replace(design(Field("site"), Field("sensor"), Timestamp("second")), costs=COSTS)
    q = QueryIntent("r", "range", "", {"site": "z"}, start=at(0), end=at(1))
    walks = [r.walk for r in table_walks(s.key, s.table, q, s.layout, s)]
    assert sorted((w.stop, w.stop_reason) for w in walks if w is not None) == [
        (0, "full scan"),
        (1, "unknown sensor"),
    ]
    assert s.plan(q).ranges == (KeyRange.for_prefix("z#"),)


def test_a_literal_after_the_time_does_not_make_buckets_worth_listing():
    # hour buckets, then the literal "t" and two open fields: nothing after the time is fixed
    # by the query (a literal fixes no column), so 00:00–01:59 is one range over the hours
    # 00 and 01, from "2024010100" to past "2024010101"
    s = design(Timestamp("hour"), Literal("t"), Field("site"), Field("sensor"))
    plan = s.plan(QueryIntent("r", "range", "", {}, start=at(0), end=at(120)))
    assert plan.ranges == (KeyRange("2024010100", prefix_end("2024010101")),)
    assert plan.keys == ()


def test_a_salt_of_a_field_is_computed_for_a_point_read_without_a_time():
    # crc32 of the sensor's text mod 4 (G08): the point read's key is the written one
    s = design(Salt(4, of=("sensor",)), Field("sensor"))
    bucket = zlib.crc32(b"s2") % 4
    written = s.to_cells(sensors(), accept_loss=True).frame["row_key"]
    assert f"{bucket}#s2" in set(written)
    plan = s.plan(QueryIntent("p", "point", "", {"site": "a", "sensor": "s2"}, start=at(0)))
    assert plan.keys == (f"{bucket}#s2",)


def test_one_series_holds_every_event_of_its_bucket_row():
    # s1 alone: 3 events over a 120 s span, hour buckets (longer than the span): its one
    # series' 3 events all sit in one row, 3 / 1 × 1 (rate) × min(3,600 s, span) / span = 3
    one = Dataset(
        name="one",
        frame=sensors().frame.query("sensor == 's1'").reset_index(drop=True),
        entity=["site", "sensor"],
        time="time",
        measures=["temp", "hum"],
    )
    s = Schema("hand", RowKey((Field("sensor"), Timestamp("hour"))), LAYOUT).bind(one)
    assert (s.shape.n_series, s.shape.events) == (1, 3)
    assert events_per_row(s.key, s.shape, 3.0, 1.0) == 3.0


def test_the_note_prices_the_chosen_plan_in_node_ms():
    # the one range with a regex of test_one_range_with_a_regex_beats_sixty_second_buckets…:
    # `one` node-seconds, shown × 1,000 in node-ms, as est_node_ms
    s = design(Timestamp("second"), Field("site"), Field("sensor"))
    q = QueryIntent("m", "range", "", {"site": "a"}, start=at(0), end=at(1))
    one = COSTS.request_s + COSTS.seek_s + 4.5 * _per_row()
    plan = replace(s, costs=COSTS).plan(q)
    assert plan.est_node_ms == pytest.approx(one * 1e3)
    assert f"(est. {one * 1e3:.3g} node-ms); runner-up" in plan.note


def test_a_field_the_key_implies_is_not_blamed_for_the_client_keeping_the_newest():
    # the newest 2 of sensor s1 at site a, hour rows of many events (a bucket row may hold
    # fewer than 2): the whole range is read and the client keeps 2; the site is not in the
    # key but s1 implies it (the sample's series), so the note does not name it
    s = Schema("hand", RowKey((Field("sensor"), Timestamp("hour"))), NewColumns(Family("m")))
    s = s.bind(sensors())
    plan = s.plan(QueryIntent("l", "latest", "", {"site": "a", "sensor": "s1"}, limit=2))
    assert plan.client_keeps == 2 and not plan.reversed and plan.rows_limit is None
    assert "not in the row key" not in plan.note and "site" not in plan.note


def test_a_named_series_is_one_of_production_s_stated_count():
    # 30 sensors in production, 3 in the sample: production holds 3 × 30 / 3 = 30 series;
    # sensor s1 is 1 of the 30 stated, so 1 series, a third of the sample's 3 (uniform);
    # site a adds nothing once s1 is named (s1 is at site a)
    s = Schema("hand", RowKey((Field("site"), Field("sensor"), Timestamp("second"))), LAYOUT)
    shape = s.bind(sensors(), entities={"sensor": 30}).shape
    assert series_at(shape, {}) == 30 / 3
    assert series_at(shape, {"sensor": "s1"}) == pytest.approx(1 / 3)
    assert series_at(shape, {"site": "a", "sensor": "s1"}) == pytest.approx(1 / 3)
