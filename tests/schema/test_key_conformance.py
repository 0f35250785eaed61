"""Does every key a design writes conform to its row-key schema: the reason a key does not,
and the keys of a design that loses events (worked out by hand from each key's parts)."""

from __future__ import annotations

import pandas as pd

import workbench as wb
from workbench.schema import Aggregates, Field, RowKey, Tags, Timestamp
from workbench.schema.key_conformance import check_keys, design_keys, key_conformance
from workbench.schema.rowkey_schema import row_key_schema


def _rooms(sensors: list[str]) -> wb.Dataset:
    t = pd.date_range("2024-01-01", periods=len(sensors), freq="1min", tz="UTC")
    frame = pd.DataFrame({"sensor": sensors, "time": t, "temp": [20.0 + i for i in range(len(t))]})
    return wb.from_dataframe(frame, name="rooms", entity=["sensor"], time="time", measures=["temp"])


def test_too_few_parts_and_too_many_get_their_own_reason():
    # site#sensor#ts declares 3 fields; "a#20240101000000" has 2: a part is missing, not a
    # tag left out (the key has no tags)
    plain = row_key_schema(RowKey((Field("site"), Field("sensor"), Timestamp("second"))))
    short = check_keys(["a#20240101000000"], plain)
    assert (short.bad, short.first_bad) == (1, "a#20240101000000")
    assert "fewer parts" in short.reason and "Tags" not in short.reason
    # host#tags: 3 fields (host, dc, role); "h1#dc=x#role=db#extra" has 4: a value holds the
    # delimiter, whatever the tags do (G16)
    tagged = row_key_schema(RowKey((Field("host"), Tags(("dc", "role")))))
    assert tagged.names == ("host", "dc", "role")
    extra = check_keys(["h1#dc=x#role=db#extra"], tagged)
    assert "contains the delimiter '#'" in extra.reason and "Tags" not in extra.reason
    # "h1#dc=x" has 2: the empty role was left out of the key
    assert "Tags leaves an empty tag out" in check_keys(["h1#dc=x"], tagged).reason


def test_a_design_that_loses_events_still_lists_its_keys():
    # hall and lab every minute for 4 minutes, hour keys: two events of each sensor share a
    # key (they collide), yet the keys the design writes are known: one per sensor and hour
    ds = _rooms(["hall", "lab", "hall", "lab"])
    design = wb.Schema("rooms", RowKey((Field("sensor"), Timestamp("hour"))))
    keys = design_keys(design, ds)
    assert keys["main"].tolist() == ["hall#2024010100", "lab#2024010100"]


def test_bad_event_rows_beside_aggregate_rows_count_both():
    # two event keys, one with a '#' inside the sensor ("lab#2": 3 parts for 2 fields), and two
    # aggregate rows (4 parts each): the event row's problem is named first, and the bad
    # count is that 1 plus the 2 aggregate rows, of 4 keys (G29)
    design = wb.Schema(
        "rooms", RowKey((Field("sensor"), Timestamp("second"))), aggregates=Aggregates()
    )
    ds = _rooms(["hall", "lab"])
    keys = pd.Series(
        [
            "hall#20240101000000",
            "lab#2#20240101000100",
            "agg#hourly#hall#2024010100",
            "agg#hourly#lab#2024010100",
        ]
    )
    got = key_conformance(design, ds, keys={"main": keys})["main"]
    assert (got.keys, got.bad, got.first_bad) == (4, 3, "lab#2#20240101000100")
    assert "contains the delimiter '#'" in got.reason
