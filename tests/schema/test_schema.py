"""Pre-aggregated summary rows (G29) on a hand-made dataset: two sensors at two sites, events
on 2024-01-01; the summary key is agg#<name>#<entity>#<bucket>, the bucket written in the
bucket's own format (a day as %Y%m%d)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

import workbench
from workbench.datasets.model import Dataset
from workbench.errors import SchemaError
from workbench.schema import Aggregates, Family, Field, RowKey, Schema, Tall, Timestamp, limits
from workbench.schema.limits import LimitWarning


def test_daily_summary_rows_are_keyed_by_the_day():
    t0 = pd.Timestamp("2024-01-01 23:58", tz="UTC")
    rows = [
        (site, sensor, t0 + pd.Timedelta(minutes=m), 20.0 + m)
        for site, sensor in (("a", "s1"), ("b", "s2"))
        for m in range(3)
    ]
    f = pd.DataFrame(rows, columns=["site", "sensor", "time", "temp"])
    f["time"] = f["time"].astype("datetime64[us, UTC]")
    ds = Dataset(name="sensors", frame=f, entity=["site", "sensor"], time="time", measures=["temp"])
    key = RowKey((Field("site"), Field("sensor"), Timestamp("second")))
    s = Schema("hand", key, Tall(Family("m")), aggregates=Aggregates("day", "daily")).bind(ds)
    keys = s.to_cells(ds).frame["row_key"]
    # 23:58 and 23:59 fall on Jan 1, 00:00 on Jan 2: two summary rows per sensor
    assert sorted(keys[keys.str.startswith("agg#")].unique()) == [
        "agg#daily#a#s1#20240101",
        "agg#daily#a#s1#20240102",
        "agg#daily#b#s2#20240101",
        "agg#daily#b#s2#20240102",
    ]


def _sensors(order=(("a", "s1"), ("b", "s2")), measure=None) -> Dataset:
    """Three events a minute apart from 2024-01-01 23:58 per sensor, the sensors in ``order``."""
    t0 = pd.Timestamp("2024-01-01 23:58", tz="UTC")
    rows = [
        (site, sensor, t0 + pd.Timedelta(minutes=m), 20.0 + m)
        for site, sensor in order
        for m in range(3)
    ]
    f = pd.DataFrame(rows, columns=["site", "sensor", "time", "temp"])
    f["time"] = f["time"].astype("datetime64[us, UTC]")
    if measure is not None:
        f["temp"] = measure
    return Dataset(
        name="sensors", frame=f, entity=["site", "sensor"], time="time", measures=["temp"]
    )


KEY = RowKey((Field("site"), Field("sensor"), Timestamp("second")))


def test_summary_rows_come_in_key_order_whatever_the_event_order():
    # sensor b's events first: the raw cells keep the events' order, the summary rows (G29) are
    # in key order, a before b and each sensor's Jan 1 before its Jan 2
    ds = _sensors(order=(("b", "s2"), ("a", "s1")))
    s = Schema("hand", KEY, Tall(Family("m")), aggregates=Aggregates("day", "daily")).bind(ds)
    f = s.to_cells(ds).frame
    assert list(f["row_key"][:3].str[:4]) == ["b#s2"] * 3
    counts = f.loc[f["qualifier"] == "temp_count", "row_key"]
    assert list(counts) == [
        "agg#daily#a#s1#20240101",
        "agg#daily#a#s1#20240102",
        "agg#daily#b#s2#20240101",
        "agg#daily#b#s2#20240102",
    ]


def test_summary_rows_need_a_numeric_measure():
    ds = _sensors(measure="warm")
    s = Schema("hand", KEY, Tall(Family("m")), aggregates=Aggregates("day", "daily")).bind(ds)
    with pytest.raises(SchemaError, match="numeric measure"):
        s.to_cells(ds)


def test_a_key_given_as_a_list_of_segments_is_that_row_key():
    assert Schema("s", [Field("site"), Field("sensor"), Timestamp("second")]).key == KEY


def test_a_cell_over_the_size_advice_warns_at_the_callers_line(monkeypatch):
    # a cell over the advised size (G10: 10 MB, here lowered to 4 bytes so the test builds no
    # 10 MB value): "warm!" is 5 bytes, one over, a LimitWarning pointing at the line that called
    # to_cells, not inside the workbench
    monkeypatch.setattr(limits, "CELL_ADVISORY", 4)
    ds = _sensors(order=(("a", "s1"),), measure="warm!")
    with pytest.warns(LimitWarning, match="of 5 bytes") as seen:
        Schema("hand", KEY, Tall(Family("m"))).bind(ds).to_cells(ds)
    # (the caller's file, or under mutmut its trampoline: either way outside the package)
    assert "G10" in str(seen[0].message)
    assert Path(workbench.__file__).parent not in Path(seen[0].filename).parents


def test_the_html_view_names_the_dataset_only_when_there_is_one():
    s = Schema("hand", KEY, Tall(Family("m")), aggregates=Aggregates("day", "daily"))
    html = s._repr_html_()
    assert "<b>Schema hand</b>" in html
    # the table's two families, one a line: raw m keeps every cell, the summaries' s one version
    assert "m gc: none (keep every cell)<br>s gc: maxversions=1" in html
    assert ">aggregates</th>" in html and "agg#daily… per day" in html
    assert "<b>Schema hand (sensors)</b>" in replace(s, dataset="sensors")._repr_html_()


def test_a_second_bind_keeps_what_the_first_was_told():
    # "What is not given is kept from an earlier bind": a day's retention is 86,400 s = 8.64e10 µs
    ds = _sensors()
    once = Schema("hand", KEY, Tall(Family("m"))).bind(ds, rate_factor=2.0, retention_s=86_400)
    again = once.bind(ds)
    assert again.shape.retention_us == 86_400_000_000 and again.shape.rate_factor == 2.0
    fresh = Schema("hand", KEY, Tall(Family("m"))).bind(ds)
    assert fresh.shape.retention_us is None and fresh.shape.rate_factor == 1.0
