"""Notebooks 03–05: the predict-then-check exercises accept the hand-derived figures within their
stated tolerance, the cells after an exercise never read its answer, and hints do not name it.

Hand-derived: the server_metrics workshop sample runs from 07:06:40 to 07:46:40 (40 minutes) with
a point every 10 s, both ends included: 40 × 6 + 1 = 241 points per series, and a Heroic row (one
series within a 2^32 ms base) holds them all, so each row has 241 cells (29,884 events ÷ 124
series = 241 as well).
fx_prices: with the pair first and the time increasing, the emulator (no reverse scans) reads the
whole USD/JPY range to keep its last row — every USD/JPY quote, counted in the frame; the key
"USD/JPY#" + 20 digits of microseconds (yyyymmddhhmmss + 6) is 28 bytes, stored with each of a
quote's two cells (bid, ask): 56 bytes of key per quote.
weather_balloons: a week-bucket row holds one balloon's one measure for a week and a flight lasts
hours, so one balloon's hour touches one row per measure (4); a versioned column holds one
balloon's readings of a week: about events ÷ balloons (32,136 ÷ 234 ≈ 137), the median a little
lower where a week boundary cuts a flight — counted here per (balloon, measure, ISO week).
"""

from __future__ import annotations

from pathlib import Path

import jupytext
import pytest

import workbench as wb
from workbench.exercises.ex03 import column_versions, week_hour_rows
from workbench.exercises.ex04 import key_bytes, latest_emulator_rows
from workbench.exercises.ex05 import row_cells

REPO = Path(__file__).resolve().parents[2]


def _cells(notebook: str) -> list:
    return jupytext.read(REPO / "notebooks" / notebook).cells


@pytest.fixture(scope="module")
def servers():
    return wb.load_dataset("server_metrics", size="workshop")


def test_05_row_cells_accepts_the_hand_derived_count_within_ten_percent(servers, monkeypatch):
    monkeypatch.delenv("WORKBENCH_SOLUTIONS", raising=False)
    frame = servers.frame
    span_s = (frame["time"].max() - frame["time"].min()).total_seconds()
    points = int(span_s // 10) + 1  # a point every 10 s, both ends included
    assert points == 241 == len(frame) // frame.groupby(list(servers.entity)).ngroups
    # ±10 % of 241 is ±24.1: 217 and 265 pass, 216 and 266 do not
    for guess, ok in ((points, True), (240, True), (217, True), (265, True)):
        assert row_cells.check(guess, servers).passed is ok, guess
    for guess in (216, 266):
        assert not row_cells.check(guess, servers).passed, guess
    # a miss says which way, never the figure
    line = repr(row_cells.check(40, servers))
    assert "more cells" in line and "241" not in line


@pytest.fixture(scope="module")
def balloons():
    return wb.load_dataset("weather_balloons", size="workshop")


def test_03_predictions_accept_the_hand_derived_counts(balloons, monkeypatch):
    monkeypatch.delenv("WORKBENCH_SOLUTIONS", raising=False)
    measures = len(balloons.measures)
    assert measures == 4
    for guess, ok in ((measures, True), (3, False), (5, False), (8, False), (1, False)):
        assert week_hour_rows.check(guess, balloons).passed is ok, guess
    frame = balloons.frame
    monday = frame["time"].dt.tz_localize(None).dt.to_period("W-SUN")
    per_week = frame.groupby(["balloon_id", "location", monday]).size()
    median = float(per_week.median())
    assert median == 134.0  # a flight: 117..164 readings, a few cut by a week boundary
    assert abs(len(frame) / frame.groupby(["location", "balloon_id"]).ngroups - median) <= 13.4
    # ±10 % of 134 is ±13.4: 121 and 147 pass, 120 and 148 do not
    for guess, ok in ((137, True), (121, True), (147, True), (120, False), (148, False)):
        assert column_versions.check(guess, balloons).passed is ok, guess
    line = repr(column_versions.check(2, balloons))
    assert "more versions" in line and "134" not in line


@pytest.fixture(scope="module")
def fx():
    return wb.load_dataset("fx_prices", size="workshop")


def test_04_predictions_accept_the_hand_derived_counts_within_ten_percent(fx, monkeypatch):
    monkeypatch.delenv("WORKBENCH_SOLUTIONS", raising=False)
    usdjpy = int((fx.frame["pair"] == "USD/JPY").sum())
    # ±10 % of the pair's quotes: the share-table estimate passes, one pair's worth off does not
    for guess, ok in ((usdjpy, True), (int(usdjpy * 0.91), True), (int(usdjpy * 1.09), True)):
        assert latest_emulator_rows.check(guess, fx).passed is ok, guess
    for guess in (int(usdjpy * 0.89), int(usdjpy * 1.11), 1, len(fx)):
        assert not latest_emulator_rows.check(guess, fx).passed, guess
    line = repr(latest_emulator_rows.check(1, fx))
    assert "more rows" in line and f"{usdjpy:,}" not in line
    key = len("USD/JPY#") + len("20150302045507958019")
    per_quote = key * len(("bid", "ask"))
    assert per_quote == 56
    # ±10 % of 56 is ±5.6: 51 and 61 pass, 50 and 62 do not; the key once (28) does not
    for guess, ok in ((56, True), (51, True), (61, True), (50, False), (62, False), (28, False)):
        assert key_bytes.check(guess, fx).passed is ok, guess
    line = repr(key_bytes.check(28, fx))
    assert "more key bytes" in line and "56" not in line


def test_05_the_prose_before_the_row_exercise_does_not_state_the_count():
    cells = _cells("05_server_metrics.py")
    at = next(i for i, c in enumerate(cells) if "row_cells.check(" in c.source)
    before = " ".join(c.source for c in cells[:at] if c.cell_type == "markdown")
    assert "241" not in before and "240" not in before


def test_04_the_prose_before_the_new_exercises_does_not_state_the_counts():
    cells = _cells("04_fx_prices.py")
    for name, said in (("latest_emulator_rows", ("6,255", "6255")), ("key_bytes", ("56 ",))):
        at = next(i for i, c in enumerate(cells) if f"{name}.check(" in c.source)
        before = " ".join(c.source for c in cells[:at] if c.cell_type == "markdown")
        assert not [w for w in said if w in before], name
