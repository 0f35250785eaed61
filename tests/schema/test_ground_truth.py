"""The seed documents' examples come out exactly: keys, qualifiers, values, aggregates."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import workbench as wb
from workbench.datasets.model import Dataset, QueryIntent
from workbench.schema import (
    Aggregates,
    Family,
    Field,
    HeroicOffsets,
    Literal,
    Metric,
    NewCells,
    ReversedTimestamp,
    RowKey,
    Salt,
    Schema,
    Tall,
    TimeBucket,
    Timestamp,
    Wide,
    heroic_key,
    max_versions,
)


def crafted(frame: dict, entity: list[str], measures: list[str], name: str = "crafted") -> Dataset:
    df = pd.DataFrame(frame)
    df["time"] = pd.to_datetime(df["time"], utc=True).astype("datetime64[us, UTC]")
    df = df.sort_values([*entity, "time"], kind="stable").reset_index(drop=True)
    return Dataset(name=name, frame=df, entity=entity, time="time", measures=measures)


def roundtrips(schema: Schema, ds: Dataset, cells) -> None:
    pd.testing.assert_frame_equal(schema.from_cells(cells), ds.canonical())


TAGS = ("cpu-type", "site", "system-component", "unit", "what")


def test_heroic_row_key_and_offsets_g16():
    ds = crafted(
        {
            "key": ["system"] * 2,
            "site": ["gew"] * 2,
            "what": ["cpu-idle-percentage"] * 2,
            "system-component": ["cpu"] * 2,
            "cpu-type": ["idle"] * 2,
            "unit": ["%"] * 2,
            "host": ["database.example.com"] * 2,
            "podname": ["pod-example-123-abc"] * 2,
            "time": pd.to_datetime([1300000000000, 1300001000000], unit="ms"),
            "value": [42.0, 84.0],
        },
        ["key", *TAGS, "host", "podname"],
        ["value"],
    )
    schema = Schema(
        "heroic",
        heroic_key("key", TAGS, ("podname", "host")),
        HeroicOffsets(families_={"value": "p"}),
    )
    cells = schema.to_cells(ds)
    f = cells.sorted().frame
    assert f["row_key"].unique().tolist() == [
        "system,cpu-type=idle,site=gew,system-component=cpu,unit=%,what=cpu-idle-percentage,1297080123392,"
        "database.example.com,pod-example-123-abc"
    ]
    assert sorted(f["qualifier"]) == ["2919876608", "2920876608"]
    by_q = dict(zip(f["qualifier"], f["value"], strict=True))
    assert by_q == {"2919876608": b"42.0", "2920876608": b"84.0"}
    assert sorted(f["timestamp_us"]) == [1300000000000000, 1300001000000000]
    roundtrips(schema, ds, cells)


def test_heroic_omits_empty_tags_and_parses_them_back():
    ds = crafted(
        {
            "key": ["system", "system"],
            "cpu-type": ["", "idle"],
            "site": ["gew", "gew"],
            "host": ["h1", "h1"],
            "time": ["2011-03-13 07:06:40", "2011-03-13 07:06:40"],
            "value": [1.0, 2.0],
        },
        ["key", "cpu-type", "site", "host"],
        ["value"],
    )
    schema = Schema("heroic", heroic_key("key", ("cpu-type", "site"), ("host",)), HeroicOffsets())
    cells = schema.to_cells(ds)
    keys = sorted(cells.frame["row_key"].unique())
    assert keys[0].startswith("system,cpu-type=idle,site=gew,") and keys[1].startswith(
        "system,site=gew,"
    )
    roundtrips(schema, ds, cells)


def test_lol_corrie_day_key_g04():
    ds = crafted(
        {
            "game": ["LoL", "LoL", "LoL", "Starcraft"],
            "player": ["Corrie", "Jo", "Corrie", "Eriko"],
            "time": [
                "2015-03-01 10:00",
                "2015-03-02 11:00",
                "2015-03-03 12:00",
                "2015-03-03 13:00",
            ],
            "win": [False, True, True, True],
            "kda": [4.25, 7.0, 9.5, 6.0],
        },
        ["game", "player"],
        ["win", "kda"],
    )
    schema = Schema(
        "paper",
        RowKey((Field("game"), Field("player"), Timestamp("day"))),
        Tall(Family("GAME"), {"win": "WIN", "kda": "KDA"}),
    )
    cells = schema.to_cells(ds)
    f = cells.frame
    first = f[f["row_key"] == "LoL#Corrie#20150301"]
    assert dict(zip(first["family"] + ":" + first["qualifier"], first["value"], strict=True)) == {
        "GAME:WIN": b"false",
        "GAME:KDA": b"4.25",
    }
    assert sorted(f["row_key"].unique()) == [
        "LoL#Corrie#20150301",
        "LoL#Corrie#20150303",
        "LoL#Jo#20150302",
        "Starcraft#Eriko#20150303",
    ]
    roundtrips(schema, ds, cells)
    # "How many games of LoL did Corrie win in March?" is one range read
    q = QueryIntent(
        "corrie",
        "range",
        "",
        {"game": "LoL", "player": "Corrie"},
        start="2015-03-01",
        end="2015-04-01",
    )
    plan = schema.plan(q)
    assert plan.kind == "range" and plan.scans == 1 and plan.filter.row_key_regex is None
    assert plan.ranges[0].start == "LoL#Corrie#20150301"
    res = plan.evaluate(cells)
    assert res.rows_returned == res.rows_seen == 2


BATTERY = {
    "user": ["Corrie", "Corrie", "Jo", "Sam", "Sam"],
    "time": [
        "2015-03-01 12:45:01.001",
        "2015-03-01 12:45:01.003",
        "2015-03-01 12:45:01.002",
        "2015-03-01 12:45:01.004",
        "2015-03-01 12:45:01.005",
    ],
    "pct": [98.0, 96.0, 54.0, 43.0, 38.0],
}


def test_battery_field_promotion_key_g07():
    ds = crafted(BATTERY, ["user"], ["pct"])
    schema = Schema(
        "promoted",
        RowKey((Literal("BATTERY"), Field("user"), Timestamp("ms"))),
        Tall(Family("METRIC"), {"pct": "PERCENTAGE"}),
    )
    cells = schema.to_cells(ds)
    assert sorted(cells.frame["row_key"]) == [
        "BATTERY#Corrie#20150301124501001",
        "BATTERY#Corrie#20150301124501003",
        "BATTERY#Jo#20150301124501002",
        "BATTERY#Sam#20150301124501004",
        "BATTERY#Sam#20150301124501005",
    ]
    assert set(cells.frame["family"] + ":" + cells.frame["qualifier"]) == {"METRIC:PERCENTAGE"}
    roundtrips(schema, ds, cells)


def test_battery_salted_key_matches_the_paper_g08():
    ds = crafted(BATTERY, ["user"], ["pct"])
    schema = Schema(
        "salted",
        RowKey((Literal("BATTERY"), Salt(3, ("time",)), Timestamp("ms"))),
        Tall(Family("METRIC"), {"pct": "PERCENTAGE", "user": "USER"}),
    )
    cells = schema.to_cells(ds)
    jo = cells.frame[cells.frame["value"] == b"Jo"]
    assert jo["row_key"].tolist() == [
        "BATTERY#2#20150301124501002"
    ]  # crc32("20150301124501002") % 3 == 2
    roundtrips(schema, ds, cells)  # the user rides along as METRIC:USER
    plan = schema.plan(
        QueryIntent("slice", "slice", "", {}, start="2015-03-01 12:45", end="2015-03-01 12:46")
    )
    assert plan.kind == "multi-range" and plan.scans == 3


def test_veggiegarden_month_row_g02():
    days = pd.date_range("2015-03-01 07:00", periods=31, freq="D")
    temps = np.round(60 + np.arange(31) / 10, 1)
    temps[0] = temps[30] = 60.4
    ds = crafted({"garden": "VEGGIEGARDEN", "time": days, "temp_f": temps}, ["garden"], ["temp_f"])
    schema = Schema(
        "month", RowKey((Field("garden"), TimeBucket("month"))), Wide("day", {"temp_f": "TEMP"})
    )
    cells = schema.to_cells(ds)
    f = cells.frame
    assert f["row_key"].unique().tolist() == ["VEGGIEGARDEN#20150301"]
    cols = (f["family"] + ":" + f["qualifier"]).tolist()
    assert cols == [f"TEMP:{d}" for d in range(1, 32)]
    assert f["value"].iloc[0] == b"60.4" and f["value"].iloc[30] == b"60.4"
    roundtrips(schema, ds, cells)
    plan = schema.plan(
        QueryIntent(
            "m", "range", "", {"garden": "VEGGIEGARDEN"}, start="2015-03-01", end="2015-04-01"
        )
    )
    assert plan.evaluate(cells).rows_seen == 1


def test_phone_device_day_key():
    ds = crafted(
        {
            "type": ["phone", "phone", "tablet"],
            "device": ["4c410523", "4c410523", "a0b81f74"],
            "time": ["2020-05-01 08:00", "2020-05-02 08:00", "2020-05-01 09:00"],
            "mem": [1.0, 2.0, 3.0],
        },
        ["type", "device"],
        ["mem"],
    )
    schema = Schema(
        "device_day", RowKey((Field("type"), Field("device"), Timestamp("day"))), Tall()
    )
    cells = schema.to_cells(ds)
    assert sorted(cells.frame["row_key"]) == [
        "phone#4c410523#20200501",
        "phone#4c410523#20200502",
        "tablet#a0b81f74#20200501",
    ]
    roundtrips(schema, ds, cells)


def test_memusage_new_row_per_reading_and_the_g24_anti_pattern():
    ds = crafted(
        {
            "device": ["4c410523"] * 3,
            "time": pd.to_datetime([1423523569918, 1423523570918, 1423523571918], unit="ms"),
            "memusage": [10.0, 11.0, 12.0],
        },
        ["device"],
        ["memusage"],
    )
    good = Schema(
        "row_per_reading",
        RowKey((Field("device"), Metric(("memusage",)), Timestamp("ms", "epoch_ms"))),
        Tall(),
    )
    cells = good.to_cells(ds)
    assert cells.frame["row_key"].iloc[0] == "4c410523#memusage#1423523569918"
    assert cells.n_rows == 3
    roundtrips(good, ds, cells)
    bad = Schema(
        "one_row",
        RowKey((Field("device"), Metric(("memusage",)))),
        NewCells(Family("m", gc=max_versions(5))),
    )
    cells = bad.to_cells(ds)
    assert cells.frame["row_key"].unique().tolist() == ["4c410523#memusage"]
    assert len(cells) == 3 and cells.n_rows == 1  # three versions of one column in one row
    roundtrips(bad, ds, cells)
    latest = bad.plan(QueryIntent("l", "latest", "", {"device": "4c410523"}, limit=1))
    assert latest.keys == ("4c410523#memusage",) and latest.filter.latest_versions == 1


def test_blog_sensor_reversed_seconds_g09():
    ds = crafted(
        {
            "sensor": ["sensor-001"] * 3,
            "time": pd.to_datetime([1771324200, 1771324201, 1771324202], unit="s"),
            "temperature": [23.5, 23.6, 23.7],
        },
        ["sensor"],
        ["temperature"],
    )
    schema = Schema(
        "reversed",
        RowKey((Field("sensor"), ReversedTimestamp("s", 9999999999, 10))),
        Tall(Family("raw")),
    )
    cells = schema.to_cells(ds)
    keys = cells.sorted().frame["row_key"].tolist()
    assert keys[0] == f"sensor-001#{9999999999 - 1771324202:010d}"  # newest first
    assert all(len(k.split("#")[1]) == 10 for k in keys)
    roundtrips(schema, ds, cells)
    plan = schema.plan(QueryIntent("latest", "latest", "", {"sensor": "sensor-001"}, limit=1))
    assert plan.kind == "prefix" and plan.rows_limit == 1
    res = plan.evaluate(cells)
    assert res.rows_seen == 1 and schema.from_cells(res.cells)["temperature"].tolist() == [23.7]


def test_agg_hourly_rows_g29():
    t = pd.date_range("2015-03-01 00:00", periods=8, freq="15min")
    ds = crafted(
        {
            "meter_id": np.array([100001] * 8, dtype=np.int64),
            "time": t,
            "kwh": [0.1, 0.2, 0.3, 0.4, 1.0, 1.0, 1.0, 1.0],
        },
        ["meter_id"],
        ["kwh"],
    )
    schema = Schema(
        "agg",
        RowKey((Field("meter_id"), Timestamp("minute"))),
        Tall(Family("r")),
        aggregates=Aggregates("hour", "hourly", "agg", ("count", "sum", "max")),
    )
    cells = schema.to_cells(ds)
    agg = cells.frame[cells.frame["row_key"].str.startswith("agg#")]
    assert sorted(agg["row_key"].unique()) == [
        "agg#hourly#100001#2015030100",
        "agg#hourly#100001#2015030101",
    ]
    first = agg[agg["row_key"] == "agg#hourly#100001#2015030100"]
    vals = dict(zip(first["qualifier"], first["value"], strict=True))
    assert (
        vals["kwh_count"] == b"4"
        and float(vals["kwh_sum"]) == pytest.approx(1.0)
        and vals["kwh_max"] == b"0.4"
    )
    assert set(agg["family"]) == {"s"}
    assert set(agg["timestamp_us"]) == {
        int(pd.Timestamp("2015-03-01 00:00", tz="UTC").value // 1000),
        int(pd.Timestamp("2015-03-01 01:00", tz="UTC").value // 1000),
    }
    roundtrips(schema, ds, cells)  # the summaries are derived: from_cells ignores them
    bound = schema.bind(ds)
    pd.testing.assert_frame_equal(bound.aggregates_from_cells(cells), bound.summarize(ds.frame))
    q = QueryIntent(
        "dash",
        "range",
        "",
        {"meter_id": 100001},
        start="2015-03-01",
        end="2015-03-02",
        aggregate="hourly:sum",
    )
    plan = bound.plan(q)
    res = plan.evaluate(cells)
    # hourly:sum needs one of the 3 statistic cells of each of the 2 hour rows: the server
    # still visits the 6 cells of the rows, and returns 2
    assert plan.filter.families == ("s",) and plan.filter.qualifier_regex == "kwh_sum"
    assert (res.rows_returned, res.cells_seen, res.cells_returned) == (2, 6, 2)
    assert set(res.cells.frame["qualifier"]) == {"kwh_sum"}
    pd.testing.assert_frame_equal(
        bound.aggregates_from_cells(res.cells),
        bound.summarize(ds.frame)[["meter_id", "time", "kwh_sum"]],
    )
    # no statistic named: the whole summary row is read
    whole = bound.plan(dataclasses.replace(q, aggregate="hourly"))
    assert whole.filter.qualifier_regex is None and whole.evaluate(cells).cells_seen == 6
    pd.testing.assert_frame_equal(
        bound.aggregates_from_cells(whole.evaluate(cells).cells), bound.summarize(ds.frame)
    )


def test_a_layout_gathering_events_says_what_a_row_holds_under_its_key():
    """New cells per event keep one time bucket a row under a key with a bucket, but under the
    garden alone ({garden}) one row holds the garden's whole history (G24): the description
    must not call that row a time bucket."""
    timeless = wb.preset("garden_temperature", "unbounded_row")
    assert timeless.key.template() == "{garden}"
    text = timeless.layout_text()
    assert "time bucket" not in text and "one row per key for all time" in text
    assert "layout    one row per key for all time" in timeless.describe()
    bucketed = wb.preset("weather_balloons", "bucket_new_cells")
    assert bucketed.layout_text().startswith("time buckets, new cells (versions) per event")


def test_a_printed_description_fits_a_1280_px_output_and_says_a_missing_rule_once():
    """01 prints ``unbounded_row``'s description: its layout line ran to 150 characters, which the
    browser wrapped at column 0 at 1280 px, and told the missing GC rule twice ("gc none —
    versions accumulate (G13 needs one)) [G13]"). Every line fits 100 characters (about what a
    1280 px output area shows) unless it is one unbreakable key, a continuation hangs under its
    value column, and the layout line
    names G13 once (G13: versions need a GC rule)."""
    for dataset in wb.dataset_names():
        ds = wb.load_dataset(dataset, size="tiny")
        for name in wb.pattern_names(dataset):
            text = wb.preset(dataset, name).describe(ds)
            # a key is one word and is never broken: only it may run past the width
            long = [line for line in text.splitlines() if len(line) > 100 and " " in line.strip()]
            assert not long, f"{dataset}/{name}: {long}"
    garden = wb.load_dataset("garden_temperature", size="tiny")
    lines = wb.preset("garden_temperature", "unbounded_row").describe(garden).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  layout    "))
    layout = lines[at] + " " + lines[at + 1].strip()
    assert lines[at + 1].startswith(" " * 12) and not lines[at + 1].startswith(" " * 13)
    assert layout.count("G13") == 1 and "))" not in layout
    assert "no GC rule, so versions pile up" in layout
