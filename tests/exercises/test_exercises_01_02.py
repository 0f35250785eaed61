"""Notebooks 00–02: the predict-then-check exercises, their accepted answers, and the claims their
prose makes about the output (the comparison's direction, the set-up self-check).

Expected figures are derived by hand from the dataset or the names, not read from the judge:
39 gardens (the workshop sample's series), 769 readings of VEGGIEGARDEN (its events), 2 scans
(one range per measure in the key), 51 bytes (characters counted per cell).
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest

import workbench as wb
from workbench.exercises import PROBLEMS
from workbench.exercises.ex01 import gardens_day_rows, versions_cells
from workbench.exercises.ex02 import measure_scans, name_bytes

REPO = Path(__file__).resolve().parents[2]


def _cells(notebook: str) -> list:
    return jupytext.read(REPO / "notebooks" / notebook).cells


def _row_per_measure() -> wb.Schema:
    # as notebook 02 builds it (G11)
    key = wb.RowKey(
        (wb.Field("game"), wb.Field("player"), wb.Metric(("win", "kda")), wb.Timestamp("ms"))
    )
    return wb.Schema("row_per_measure", key, wb.Tall(wb.Family("GAME")))


def _long_names(by_player: wb.Schema) -> wb.Schema:
    # as notebook 02 builds it (G01)
    names = {"win": "did_the_player_win", "kda": "kill_death_assist_ratio"}
    return wb.Schema("long_names", by_player.key, wb.Tall(wb.Family("game_results"), names))


def context_01_02(name: str, ds) -> tuple:
    """What each exercise's check gets besides the answer, built as notebooks 01 and 02 build it."""
    if name == "gardens_day_rows":
        return ds, wb.preset("garden_temperature", "month_rows")
    if name == "versions_cells":
        return ds, wb.preset("garden_temperature", "unbounded_row")
    if name == "measure_scans":
        return ds, _row_per_measure()
    by_player = wb.preset("game_scores", "game_player_time")
    return ds, by_player, _long_names(by_player)


@pytest.fixture(scope="module")
def garden():
    return wb.load_dataset("garden_temperature", size="workshop")


@pytest.fixture(scope="module")
def games():
    return wb.load_dataset("game_scores", size="workshop")


def test_01_predictions_accept_the_hand_derived_counts_and_the_stated_tolerance(
    garden, monkeypatch
):
    monkeypatch.delenv("WORKBENCH_SOLUTIONS", raising=False)
    frame = garden.frame
    gardens = frame["garden"].nunique()  # one month row per garden holds 15 March
    history = int((frame["garden"] == "VEGGIEGARDEN").sum())  # every version of TEMP
    assert (gardens, history) == (39, 769)  # the header's 39 series; 29,991 / 39
    day = context_01_02("gardens_day_rows", garden)
    assert gardens_day_rows.check(gardens, *day).passed
    # "exact": one more or one fewer is not the count
    assert not gardens_day_rows.check(gardens + 1, *day).passed
    assert not gardens_day_rows.check(gardens - 1, *day).passed
    versions = context_01_02("versions_cells", garden)
    # ±10 % of 769 is ±76.9: 693 and 845 pass, 690 and 850 do not
    for guess, ok in ((history, True), (693, True), (845, True), (690, False), (850, False)):
        assert versions_cells.check(guess, *versions).passed is ok, guess
    # a miss says which way, never the figure
    line = repr(versions_cells.check(31, *versions))
    assert "more cells" in line and "769" not in line


@pytest.mark.slow  # three analyses of 30,000 games (~7 s)
def test_02_predictions_accept_the_hand_derived_counts(games, monkeypatch):
    monkeypatch.delenv("WORKBENCH_SOLUTIONS", raising=False)
    # one contiguous range per measure in the key: win and kda
    assert measure_scans.check(2, *context_01_02("measure_scans", games)).passed
    # per cell the family adds len("game_results") - len("GAME") = 8 bytes; the qualifiers add
    # 18 - 3 (did_the_player_win vs WIN) and 23 - 3 (kill_death_assist_ratio vs KDA)
    extra = 2 * (len("game_results") - len("GAME")) + (18 - 3) + (23 - 3)
    assert extra == 51
    names = context_01_02("name_bytes", games)
    for guess, ok in ((extra, True), (46, True), (56, True), (45, False), (57, False)):
        assert name_bytes.check(guess, *names).passed is ok, guess
    line = repr(name_bytes.check(35, *names))
    assert "more extra bytes" in line and "51" not in line


def test_three_exercises_in_each_of_01_and_02():
    for module in ("ex01", "ex02"):
        mine = [p for p in PROBLEMS.values() if p.judge.__module__.endswith(module)]
        assert len(mine) >= 3, module


def test_no_hint_names_its_answer():
    # a hint helps without naming the answer (02's used to say "think two tables")
    for name in ("garden_month", "gardens_day_rows", "versions_cells", "game_both"):
        p = PROBLEMS[name]
        answer = str(p.solution_value)
        assert answer not in p.hint_text, name
        assert answer.replace("_", " ") not in p.hint_text.replace("_", " "), name
    for name in ("measure_scans", "name_bytes"):
        assert not re.search(rf"\b{PROBLEMS[name].solution_value}\b", PROBLEMS[name].hint_text)


def test_the_comparison_says_the_ceiling_goes_up_and_names_a_tie_at_this_rate(garden):
    from workbench.plots.compare import comparison_html, plot_comparison

    # timestamp-first concentrates the writes (busiest node 3.0× fair) but at the sample's 1.63
    # events/h both ceilings are far above the rate: the hotspot panel says it costs nothing yet
    cmp = wb.compare(
        garden,
        [
            wb.preset("garden_temperature", "tall"),
            wb.preset("garden_temperature", "timestamp_first"),
        ],
    )
    assert cmp.table["hotspot_factor"].max() > 2 * cmp.table["hotspot_factor"].min()
    page = cmp._repr_html_()
    assert "Lower is better on every criterion." not in page
    assert "but the ceiling, where higher is better" in page
    box = comparison_html(cmp)
    assert "lower is better in every panel;" not in box
    assert "ceiling (events/s no node count lifts) — higher is better" in box
    assert "hotspot (busiest node ÷ fair share) — no cost at this rate" in box
    assert "e+0" not in box  # the ceiling reads 382,200, not 3.82e+05
    axes = plot_comparison(cmp)
    titles = [
        " ".join("".join(ax.get_title(loc) for loc in ("left", "center", "right")).split())
        for ax in axes
        if ax.get_visible()
    ]
    assert any(t.startswith("ceiling") and "— higher is better" in t for t in titles), titles
    assert any(t.startswith("hotspot") and "no cost at this rate" in t for t in titles), titles
    # the storage panel ties within 5 % (40 B both): no note, nothing differs
    assert not any(t.startswith("storage") and "tie" in t for t in titles), titles
    import matplotlib.pyplot as plt

    plt.close("all")


def test_00_the_self_check_stops_with_one_clear_line_when_no_emulator_can_start(
    monkeypatch, tmp_path
):
    # 00 says: "the cell stops at wb.emulator() with a one-line error that says what is wrong and
    # how to fix it". A binary that cannot run stands for an emulator that cannot start.
    from workbench.bigtable.emulator import ENV_BINARY, ENV_HOST
    from workbench.errors import WorkbenchError, error_line
    from workbench.session import Session

    text = " ".join(c.source for c in _cells("00_start_here.py"))
    assert "stops at `wb.emulator()` with a one-line error" in text
    assert 'print(f"✔ the emulator at {emu.host} answered' in text
    broken = tmp_path / "cbtemulator"
    broken.write_text("not a program")
    monkeypatch.setenv(ENV_BINARY, str(broken))
    monkeypatch.delenv(ENV_HOST, raising=False)
    with pytest.raises(WorkbenchError) as caught:
        Session().ensure_emulator()
    line = error_line(caught.value)
    assert "\n" not in line and "is not an executable file" in line, line


def test_01_what_if_prose_matches_the_row_sizes_it_computes(garden):
    # 01: "one a second brings the row close to the 100 MB guideline, and ten a second take it
    # past the 256 MB hard limit" — the table's own arithmetic: readings × measured bytes/reading
    text = " ".join(" ".join(c.source.split()) for c in _cells("01_garden_temperature.py"))
    assert "one a second brings the row close to the 100 MB guideline" in text
    assert "ten a second take it past the 256 MB hard limit" in text
    rs = wb.analyze(garden, wb.preset("garden_temperature", "month_rows")).rowsizes
    per_reading = rs.bytes.sum() / rs.cells.sum()
    every_second = 31 * 24 * 3600 * per_reading
    assert 0.8 * rs.settings.row_advisory_bytes < every_second < rs.settings.row_advisory_bytes
    assert 10 * every_second > rs.settings.row_hard_bytes
    # "the month design reads the paper's month as one row, where the tall design reads one row
    # per day" (see `garden_month: rows seen`): March has 31 days
    assert (
        "reads the paper's month as **one row**, where the tall design reads one row per day"
        in text
    )
    tall = wb.analyze(garden, wb.preset("garden_temperature", "tall")).queries
    assert int(tall["garden_month"]["rows_seen"]) == 31


@pytest.mark.slow  # five analyses of 30,000 games (~10 s)
def test_02_prose_claims_hold_for_the_figures_the_cells_show(games):
    text = " ".join(" ".join(c.source.split()) for c in _cells("02_game_scores.py"))
    frame = games.frame
    lol = frame["game"] == "LoL"
    march = (frame["time"] >= "2015-03-01") & (frame["time"] < "2015-04-01")

    def analysed(design):
        return wb.analyze(games, design).queries

    by_player = wb.preset("game_scores", "game_player_time")
    by_time = analysed(wb.preset("game_scores", "game_time_player"))
    player = analysed(by_player)
    # G04: "all LoL games in March must scan every LoL game ever played"; "Corrie's question
    # scans every LoL game of March"
    assert "must scan every LoL game ever played" in text
    assert int(player["lol_march"]["rows_seen"]) == int(lol.sum())
    assert "Corrie's question scans every LoL game of March" in text
    assert int(by_time["corrie_lol_march"]["rows_seen"]) == int((lol & march).sum())
    # G05: "The second table doubles the bytes written per event"
    assert "The second table doubles the bytes written per event" in text
    two = wb.compare(games, [by_player, wb.preset("game_scores", "two_tables")]).table
    ratio = (
        two.loc["two_tables", "bytes_per_event"] / two.loc["game_player_time", "bytes_per_event"]
    )
    assert ratio == pytest.approx(2.0, abs=0.05)
    # G11: "halves the rows and the scans"
    assert "halves the rows and the scans" in text
    together = wb.compare(games, [by_player, _row_per_measure()]).table
    assert together.loc["row_per_measure", "rows"] == 2 * together.loc["game_player_time", "rows"]
    split = analysed(_row_per_measure())
    assert int(split["corrie_latest"]["scans"]) == 2 * int(player["corrie_latest"]["scans"])
    # G22: "the hash buys nothing" (hotspot within 5 %) and costs bytes
    assert "so the hash buys nothing" in text
    spread = wb.compare(games, [by_player, wb.preset("game_scores", "hashed_player")]).table
    hot = spread["hotspot_factor"].astype(float)
    assert hot.max() <= hot.min() * 1.05
    assert (
        spread.loc["hashed_player", "bytes_per_event"]
        > spread.loc["game_player_time", "bytes_per_event"]
    )


def test_a_schema_object_as_the_answer_is_one_short_line(garden, monkeypatch):
    # an attendee who types month (the Schema object) for "month_rows", or a Schema for a count:
    # the reason names the object in a few words, not its ~1,000-character repr
    monkeypatch.delenv("WORKBENCH_SOLUTIONS", raising=False)
    from workbench.exercises.ex01 import garden_month

    month = wb.preset("garden_temperature", "month_rows")
    line = repr(garden_month.check(month, garden))
    assert line.startswith("NOT YET — ") and "'month_rows', not the object" in line, line
    assert len(line) < 200 and "Shape(" not in line, line
    line = repr(gardens_day_rows.check(month, garden, month))
    assert "got Schema 'month_rows'" in line and len(line) < 200, line
