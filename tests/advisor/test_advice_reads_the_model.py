"""The advisor reads the model: key-shape rules take their severity from the measured load,
a design time-first in effect is caught, waste is shown in rows, cells and bytes, and every
share in the evidence is of one window's total (never over 100 %)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

import workbench as wb
from workbench.advisor import advise

F = Path(__file__).parents[1] / "fixtures" / "owndata"


@cache
def _ds(name: str, size: str = "workshop"):
    return wb.load_dataset(name, size=size)


def _errors(adv):
    return [f for f in adv if f.severity == "error"]


def test_week_buckets_first_are_not_an_error_when_the_load_is_even():
    # week#location#balloon: the week changes once a week, and within it every balloon of every
    # location writes its own row, so the writes spread (the model: about 1.1x, under 1.5x)
    ds = _ds("weather_balloons")
    schema = wb.preset("weather_balloons", "bucket_new_cells")
    a = wb.analyze(ds, schema)
    assert a.keyspace.hotspot_factor < 1.5
    adv = advise(ds, schema)
    assert not _errors(adv), str(adv)
    (f,) = adv.by_rule("time_first")
    assert f.severity == "info" and "load is even" in f.title
    assert any("not apply" in e and "week bucket" in e for e in f.evidence)


def test_sequential_ids_measured_even_are_a_note():
    # 31 meters, each reporting every 15 minutes: no ID writes more than another
    ds = _ds("energy_meters")
    adv = advise(ds, wb.preset("energy_meters", "sequential_id"))
    assert not _errors(adv)
    assert [f.severity for f in adv.by_rule("sequential_id")] == ["info"]


def test_one_series_entity_first_is_time_first_in_effect():
    # co2: one series, so the key 'co2-series#time' has one value before the time: every write
    # lands at the end of one series, 100 % on one node
    co2 = wb.from_csv(F / "co2.csv", time="date", measures="co2").shifted()
    schema = wb.preset(co2, "entity_first")
    # at the file's own 0.14 writes/day the frontier costs nothing: the shape is a warning
    adv = advise(co2, schema)
    (f,) = adv.by_rule("time_first")
    assert f.severity == "warning", str(adv)
    assert "time-first in effect" in f.title
    assert any("one value" in e for e in f.evidence)
    assert not _errors(adv), str(adv)
    # at 50,000 events/s one frontier is 5× past what one node takes: an error, as capacity says
    adv = advise(co2, schema, workload=wb.Workload(events_per_s=50_000))
    (f,) = adv.by_rule("time_first")
    assert f.severity == "error" and adv.context.analysis.capacity.hotspot_limited


def test_a_slice_across_every_entity_names_the_plan_it_beat():
    # games_on_day on game#player#time: one range per game (8) would add up to the whole table
    # (every game's range holds the day's games), so the cost-based planner reads the table once
    # with a time filter and names the 8 ranges as the runner-up: 30,000 rows read for 93
    ds = _ds("game_scores")
    s = wb.preset("game_scores", "game_player_time")
    t = wb.analyze(ds, s).queries.table.loc["games_on_day"]
    assert t["kind"] == "full-table scan" and "8 ranges" in t["runner_up"]
    assert t["rows_seen"] == len(ds.frame) == 30_000 and t["rows_returned"] == 93
    adv = advise(ds, s)
    (f,) = [f for f in adv.by_rule("full_scan") if "games_on_day" in f.title]
    assert re.search(r"all 30,000 rows\D+93\b", " ".join(f.evidence))


def test_byte_waste_in_wide_rows_is_shown():
    # Heroic rows hold an hour of one series (241 readings); the fleet's minute needs 6 of each
    # of the 124 rows it reads: 29,884 cells for 744, about 241 / 6 = 40x in cells and bytes
    ds = _ds("server_metrics")
    adv = advise(ds, wb.preset("server_metrics", "heroic"))
    (f,) = [f for f in adv.by_rule("query_filter") if "fleet_minute" in f.title]
    assert f.data["cell_waste"] == pytest.approx(241 / 6, rel=1e-3)
    assert f.data["byte_waste"] == pytest.approx(40, rel=0.05)
    line = next(e for e in f.evidence if "cells read" in e)
    assert re.search(r"\b124 rows read\D+124 returned \(1\.0×\)", line), line
    assert re.search(r"\b29,884 cells read\D+744 returned \(40\.2×\)", line), line
    assert "MB bytes read" in line or "MB read" in line or "bytes read" in line


_PCT = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s?%")


def _shares(adv) -> list[float]:
    text = " ".join(" ".join((f.title, *f.evidence)) for f in adv)
    return [float(m.replace(",", "")) for m in _PCT.findall(text)]


@pytest.mark.parametrize("name", wb.dataset_names())
def test_evidence_shares_never_exceed_100_percent(name):
    size = "workshop" if name == "weather_balloons" else "tiny"
    ds = _ds(name, size)
    for pattern in wb.pattern_names(name):
        if pattern == "second_precision":
            continue  # collides by design: refused before any share is measured
        shares = _shares(advise(ds, wb.preset(name, pattern)))
        assert all(s <= 100 for s in shares), (pattern, shares)
