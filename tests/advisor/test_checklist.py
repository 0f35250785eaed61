"""Google's own schema checklist (google/skills, skills/cloud/bigtable-basics/references/
schema_design.md, "Performance Checklist", 2026): each item has a firing and a silent case on
hand-made data, and each firing finding cites its item (``data["checklist"]`` and an evidence
line naming the checklist).

Items: row key < 4 KB, ideally 10–100 bytes (G20); unique keys (G31); characters
``^[a-zA-Z0-9\\-_#]+$`` (G20, G22); zero-padded numbers (G21); qualifiers < 16 KB (G19);
< 100 families (G18); cells < 10 MB (G10); rows < 100 MB (G10); and its "Materialized views"
and "Counters for real-time metrics" sections: rollups as CMVs, counts as counters (G29)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import workbench as wb
from workbench.advisor import Finding, advise
from workbench.advisor.rule_base import CHECKLIST
from workbench.analysis import DEFAULT
from workbench.schema import (
    Aggregates,
    Family,
    Field,
    PaddedInt,
    RowKey,
    Schema,
    Tall,
    TimeBucket,
    Timestamp,
    Wide,
    preset,
)

T0 = pd.Timestamp("2015-03-01 07:00", tz="UTC")


def _frame(entities: list, times: list | None = None, **extra) -> wb.Dataset:
    """One event per entity (or per given time), a measure ``v``; ``extra`` columns ride along."""
    times = times or [T0] * len(entities)
    fr = pd.DataFrame(
        {
            "g": pd.Series(entities, dtype=object if isinstance(entities[0], str) else None),
            "time": pd.DatetimeIndex(times),
            "v": np.arange(len(entities), dtype=float),
            **{k: pd.Series(v, dtype=object) for k, v in extra.items()},
        }
    )
    return wb.from_dataframe(fr, entity=["g"], time="time", measures=["v"], queries=[], name="h")


def _tall(key_segments=None, layout=None) -> Schema:
    segs = key_segments or (Field("g"), Timestamp("second"))
    return Schema("hand", RowKey(tuple(segs)), layout or Tall(Family("m")))


def _fires(ds, schema, rule, severity=None, **kw) -> Finding:
    """The first finding of ``rule`` of ``severity`` (default: a warning or an error), which
    must exist."""
    got = [
        f
        for f in advise(ds, schema, **kw).by_rule(rule)
        if (f.severity == severity if severity else f.severity != "info")
    ]
    assert got, f"{rule} did not fire"
    return got[0]


def _cites(f: Finding, item: str) -> None:
    assert f.data["checklist"] == item
    assert CHECKLIST[item] in f.evidence[-1] and "google/skills bigtable-basics" in f.evidence[-1]


def _items(adv) -> set[str]:
    return {f.data.get("checklist") for f in adv} - {None}


# ----------------------------------------------------------------------------- row key size


def test_key_size_longer_than_ideal_is_a_note_near_the_limit_a_warning():
    # 120-character names: the key is 120 + '#' + 14 time digits = 135 bytes (> 100, ideal)
    long = _frame(["garden-" + "x" * 113, "garden-" + "y" * 113])
    f = _fires(long, _tall(), "key_size", "info")
    assert "ideal 100" in f.title and f.data["longest_key_bytes"] == 135
    assert f.data["keys_over_ideal"] == 2
    _cites(f, "key_size")
    # 2,500 characters: over half the 4 KiB limit, a warning citing the same item
    near = _fires(_frame(["n" * 2500]), _tall(), "limits", "warning")
    assert near.guideline == "G20"
    _cites(near, "key_size")


def test_key_size_shorter_than_ideal_is_a_note():
    # keyed by the name alone, one event each: keys 'a1', 'a2' are 2 bytes (< 10)
    ds = _frame(["a1", "a2", "a3"])
    f = _fires(ds, _tall((Field("g"),)), "key_size", "info")
    assert (
        "ideal 10 " in f.title
        and f.data["shortest_key_bytes"] == 2
        and f.data["keys_under_ideal"] == 3
    )
    _cites(f, "key_size")


def test_key_size_silent_between_10_and_100_bytes():
    # 'BERRYPATCH#20150301070000': 25 bytes
    adv = advise(_frame(["BERRYPATCH", "ROSEGARDEN"]), _tall())
    assert "key_size" not in _items(adv)


# ----------------------------------------------------------------------------- uniqueness


def test_keys_that_are_not_unique_lose_events():
    # two readings 0.5 s apart in one second, keyed to the second: one overwrites the other
    ds = _frame(["G1", "G1"], [T0 + pd.Timedelta("100ms"), T0 + pd.Timedelta("600ms")])
    f = _fires(ds, _tall(), "collisions", "error")
    assert f.data["lost"] == 1 and f.guideline == "G31"
    _cites(f, "uniqueness")
    # keyed to the microsecond both survive: silent
    assert not advise(ds, _tall((Field("g"), Timestamp("us")))).by_rule("collisions")


# ----------------------------------------------------------------------------- character set


GRUNFELD = ["American Steel", "General Motors", "US Steel", "Atlantic Refining"]


def _grunfeld(names: list[str]) -> wb.Dataset:
    """Grunfeld-style investment panel: firms by name, one reading a year (hand-made)."""
    years = pd.date_range("1935-01-01", periods=5, freq="YS", tz="UTC")
    return _frame([n for n in names for _ in years], [t for _ in names for t in years])


def test_spaces_in_entity_names_are_a_warning():
    f = _fires(_grunfeld(GRUNFELD), _tall(), "key_characters", "warning")
    # 4 firms × 5 years = 20 keys, 'American Steel#19350101000000' among them, all with a space
    assert f.data["keys_outside"] == 20 and f.data["characters"] == " "
    assert "American Steel#19350101000000" in " ".join(f.evidence)
    assert "from g (4 of 4 values" in f.evidence[1]
    assert f.guidelines == ("G20", "G22")
    _cites(f, "characters")


def test_spaces_in_a_real_file_iowa_electricity():
    # vega_datasets' iowa-electricity.csv (shipped with the package): sources 'Fossil Fuels',
    # 'Nuclear Energy', 'Renewables', one row a year 2001-2017
    from vega_datasets import local_data

    fr = local_data("iowa-electricity")
    fr["year"] = pd.to_datetime(fr["year"]).dt.tz_localize("UTC")
    fr["source"] = fr["source"].astype(object)
    ds = wb.from_dataframe(
        fr, entity=["source"], time="year", measures=["net_generation"], queries=[]
    )
    key = _tall((Field("source"), Timestamp("second")))
    f = _fires(ds, key, "key_characters", "warning")
    # two of three sources hold a space: 2 × 17 years = 34 of 51 keys
    assert f.data["keys_outside"] == 34 and f.data["characters"] == " "
    assert "'Fossil Fuels#20010101000000'" in f.evidence[0]


def test_other_punctuation_is_a_note_and_the_set_itself_is_silent():
    # '/' (as in AUD/USD): outside the set but harmless to type: a note, not a warning
    fx = advise(_frame(["AUD/USD", "EUR/USD"]), _tall()).by_rule("key_characters")
    assert [f.severity for f in fx] == ["info"] and fx[0].data["characters"] == "/"
    # letters, digits, '-', '_' and '#' only: silent
    ok = advise(_grunfeld([n.replace(" ", "_") for n in GRUNFELD]), _tall())
    assert not ok.by_rule("key_characters")


def test_non_ascii_names_are_a_warning():
    f = _fires(_frame(["Zürich", "Genève"]), _tall(), "key_characters", "warning")
    assert set(f.data["characters"]) == {"ü", "è"}
    assert "non-ASCII" in f.evidence[2]


# ----------------------------------------------------------------------------- zero padding


def test_unpadded_numbers_fire_and_padded_ones_do_not():
    ds = _frame([7, 8, 9, 10, 11, 12])
    f = _fires(ds, _tall(), "unpadded_number", "warning")
    # as text 10 < 11 < 12 < 7: '12#…' sorts before '7#…' although 12 > 7
    assert f.data["pair"] == (12, 7) and f.guideline == "G21"
    _cites(f, "padding")
    padded = _tall((PaddedInt("g", 4), Timestamp("second")))
    assert not advise(ds, padded).by_rule("unpadded_number")


# ----------------------------------------------------------------------------- qualifier size


def test_qualifiers_over_half_of_16_kib_fire_and_short_ones_do_not():
    ds = _frame(["G1", "G2"])
    f = _fires(ds, _tall(layout=Tall(Family("m"), {"v": "q" * 9000})), "limits", "warning")
    assert f.data["max_qualifier_bytes"] == 9000 and f.guideline == "G19"
    _cites(f, "qualifier")
    assert "qualifier" not in _items(advise(ds, _tall()))


# ----------------------------------------------------------------------------- family count


def _measures(n: int) -> wb.Dataset:
    t = pd.date_range("2015-03-01 07:00", periods=3, freq="D", tz="UTC")
    cols = {f"s{i:03d}": np.arange(3, dtype=float) + i for i in range(n)}
    fr = pd.DataFrame({"g": pd.Series(["G1"] * 3, dtype=object), "time": t, **cols})
    return wb.from_dataframe(fr, entity=["g"], time="time", measures=list(cols), queries=[])


def test_one_hundred_families_fire_ninety_nine_do_not():
    # a wide design with a family per measure: 100 measures → 100 families ("< 100" fails)
    wide = Schema("wide", RowKey((Field("g"), TimeBucket("month"))), Wide("day"))
    f = _fires(_measures(100), wide, "families", "warning")
    assert f.data["n_families"] == 100 and f.guideline == "G18"
    _cites(f, "families")
    assert not advise(_measures(99), wide).by_rule("families")


# ----------------------------------------------------------------------------- cell and row size


@pytest.mark.slow
def test_a_cell_over_10_mb_fires_one_under_does_not():
    # one reading with a 10.5 MB note: a 10,500,000-byte value in one cell (> 10 MB advice)
    big = _frame(["G1"], note=["x" * 10_500_000])
    f = _fires(big, _tall(), "limits", "warning", rules=["limits"])
    assert f.guideline == "G10" and f.data["max_cell_bytes"] > 10_500_000
    _cites(f, "cell")
    assert "cell" not in _items(advise(_frame(["G1"], note=["x" * 9_500_000]), _tall()))


def test_rows_over_the_advice_fire_and_small_rows_do_not():
    # a month row of 31 daily readings; the checklist's 100 MB is the default advice, and the
    # rule compares the largest row with it (lowered here to 500 bytes so that a hand-made
    # month fires without writing 100 MB)
    assert DEFAULT.row_advisory_bytes == 100_000_000
    t = list(pd.date_range("2015-03-01 07:00", periods=31, freq="D", tz="UTC"))
    ds = _frame(["G1"] * 31, t)
    month = Schema("month", RowKey((Field("g"), TimeBucket("month"))), Wide("day"))
    low = DEFAULT.replace(row_advisory_bytes=500)
    f = next(x for x in advise(ds, month, settings=low).by_rule("limits") if "Rows" in x.title)
    assert f.data["max_row_bytes"] > 500 and f.guideline == "G10"
    _cites(f, "row")
    assert "row" not in _items(advise(ds, month))  # ~1 kB per month: far under 100 MB


# ----------------------------------------------------------------------------- rollups as CMVs


def test_hand_kept_rollups_point_to_a_materialized_view():
    ds = wb.load_dataset("energy_meters", size="tiny")
    f = advise(ds, preset("energy_meters", "hourly_aggregates")).by_rule("cmv_rollup")[0]
    assert f.guideline == "G29"
    _cites(f, "rollups")
    assert not advise(ds, preset("energy_meters", "sequential_id")).by_rule("cmv_rollup")


def test_counts_kept_as_plain_cells_point_to_counters_in_an_aggregate_family():
    # hand-made: two gardens, 6 readings an hour for 2 hours, hourly summary rows with count
    # and mean in a plain family: count can be a 'sum' counter, mean cannot
    t = list(pd.date_range("2015-03-01 07:00", periods=12, freq="10min", tz="UTC"))
    ds = _frame(["G1"] * 12 + ["G2"] * 12, t + t)
    hourly = Aggregates(stats=("count", "mean"))
    design = Schema("hand", RowKey((Field("g"), Timestamp("second"))), Tall(Family("m")))
    f = _fires(ds, dataclasses.replace(design, aggregates=hourly), "counters", "info")
    # 2 gardens × 2 hours = 4 summary rows
    assert f.data["stats"] == ("count",) and "4 hourly rows" in f.evidence[0]
    assert "count → sum" in f.evidence[1] and f.guideline == "G29"
    _cites(f, "counters")
    # only a mean (no counter keeps it), or no summary rows at all: silent
    mean_only = dataclasses.replace(design, aggregates=Aggregates(stats=("mean",)))
    assert not advise(ds, mean_only).by_rule("counters")
    assert not advise(ds, design).by_rule("counters")


def test_every_checklist_item_is_checked_here():
    import re
    from pathlib import Path

    text = Path(__file__).read_text(encoding="utf-8")
    cited = set(re.findall(r'_cites\(\w+, "(\w+)"\)', text))
    assert cited == set(CHECKLIST)
