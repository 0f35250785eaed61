"""The design gallery for a user's own data, on a hand-made dataset: the keys and cells that a
design's rule gives, written by hand (a sampled mutation run found the own-data Heroic design
and the guideline IDs unchecked, docs/architecture.md "Mutation testing")."""

from __future__ import annotations

import re

import pandas as pd

import workbench as wb
from workbench.datasets.model import Dataset
from workbench.schema.gallery import patterns_for, schema_for

T0 = pd.Timestamp("2024-01-01 00:00", tz="UTC")
GUIDELINE_ID = re.compile(r"G(0[1-9]|[12][0-9]|3[01])")  # ../shared/GUIDELINES.md: G01-G31


def sensors() -> Dataset:
    """Two sensors at two sites, one event a minute for two minutes, two measures."""
    rows = [
        (site, sensor, T0 + pd.Timedelta(minutes=m), 20.0 + m, 50.0)
        for site, sensor in (("a", "s1"), ("b", "s2"))
        for m in range(2)
    ]
    f = pd.DataFrame(rows, columns=["site", "sensor", "time", "temp", "hum"])
    f["time"] = f["time"].astype("datetime64[us, UTC]")
    return Dataset(
        name="sensors", frame=f, entity=["site", "sensor"], time="time", measures=["temp", "hum"]
    )


def test_every_design_cites_guidelines_by_their_ids():
    ds = sensors()
    cited = {p: schema_for(ds, p).guidelines for p in patterns_for(ds)}
    for name in ("fx_prices", "server_metrics", "energy_meters", "game_scores", "weather_balloons"):
        cited |= {f"{name}/{p}": wb.preset(name, p).guidelines for p in wb.pattern_names(name)}
    assert all(ids for ids in cited.values()), cited
    wrong = {p: ids for p, ids in cited.items() if not all(GUIDELINE_ID.fullmatch(g) for g in ids)}
    assert not wrong
    # each own-data design says what it does in a line citing its guidelines by ID (G01-G31)
    lines = {p: schema_for(ds, p).description for p in patterns_for(ds)}
    assert all(GUIDELINE_ID.search(text) for text in lines.values()), lines
    ids = {p: re.findall(r"\b[gG]\d\d\b", text) for p, text in lines.items()}
    assert {p: i for p, i in ids.items() if not all(GUIDELINE_ID.fullmatch(g) for g in i)} == {}


def test_heroic_keys_hold_a_base_of_2_to_the_32_ms_and_qualifiers_the_offset():
    # G16 (Heroic): the key is entity,...,base with ',' between; base = t_ms - t_ms mod 2^32.
    # 2024-01-01 00:00 UTC is t_ms = 1,704,067,200,000; 2^32 = 4,294,967,296;
    # 1,704,067,200,000 // 4,294,967,296 = 396, base = 396 * 4,294,967,296 = 1,700,807,049,216,
    # offset = 1,704,067,200,000 - 1,700,807,049,216 = 3,260,150,784 (a minute later: + 60,000)
    ds = sensors()
    cells = schema_for(ds, "heroic").to_cells(ds).frame
    assert sorted(cells["row_key"].unique()) == ["a,s1,1700807049216", "b,s2,1700807049216"]
    temp = cells[cells["family"] == "p0"]
    assert sorted(temp["qualifier"].unique()) == ["3260150784", "3260210784"]
    # one family per measure, p0, p1 in the dataset's order, each with every event's cell
    assert dict(cells.groupby("family").size()) == {"p0": 4, "p1": 4}
    assert sorted(set(cells.loc[cells["family"] == "p1", "value"])) == [b"50.0"]


def test_every_design_at_once_is_each_design_by_name():
    """``presets`` works out your data's shape once for all designs: the same designs, in the
    same order, as asking for each by name (and a named dataset's presets likewise)."""
    ds = sensors()
    assert list(wb.presets(ds)) == wb.pattern_names(ds)
    assert wb.presets(ds) == {p: wb.preset(ds, p) for p in wb.pattern_names(ds)}
    assert all(s.shape == wb.preset(ds, "entity_first").shape for s in wb.presets(ds).values())
    meters = wb.load_dataset("energy_meters", size=200)
    assert wb.presets(meters) == {p: wb.preset(meters, p) for p in wb.pattern_names(meters)}
    assert wb.presets("energy_meters") == {
        p: wb.preset("energy_meters", p) for p in wb.pattern_names("energy_meters")
    }
