"""Pre-aggregated summary rows (G29) on a hand-made dataset: two sensors at two sites, events
on 2024-01-01; the summary key is agg#<name>#<entity>#<bucket>, the bucket written in the
bucket's own format (a day as %Y%m%d)."""

from __future__ import annotations

import pandas as pd

from workbench.datasets.model import Dataset
from workbench.schema import Aggregates, Family, Field, RowKey, Schema, Tall, Timestamp


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
