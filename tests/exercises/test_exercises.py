"""Exercises as problem objects: a blank answer, a wrong one, the solution, and the solutions switch."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from exercise_answers import RIGHT_ALIASES, WRONG

import workbench as wb
from workbench.exercises import PROBLEMS, ExerciseNotSolved, ____
from workbench.exercises.ex01 import garden_month
from workbench.exercises.ex04 import fx_salt, key_bytes


@pytest.fixture(scope="module")
def fx():
    return wb.load_dataset("fx_prices", size="workshop")


def test_a_blank_answer_asks_for_one_without_failing(fx, monkeypatch):
    monkeypatch.delenv("WORKBENCH_SOLUTIONS", raising=False)
    result = fx_salt.check(____, fx)
    assert not result.answered and not result.passed
    assert "replace ____" in repr(result) and "fx_salt.hint()" in repr(result)
    assert "Your turn" in result._repr_html_()


def test_a_wrong_answer_says_not_yet_in_one_line_and_the_hint_adds_to_it(fx, monkeypatch):
    monkeypatch.delenv("WORKBENCH_SOLUTIONS", raising=False)
    # one salt bucket is the pair-first key: USD/JPY alone (about a third of the quotes in the
    # workshop sample) lands on one of 8 nodes, far above the 20% goal
    result = fx_salt.check(1, fx)
    assert result.answered and not result.passed
    assert repr(result).startswith("NOT YET — with 1 salt buckets")
    assert "✘ Not yet</b> — " in result._repr_html_()
    # the hint is one call away and says what the line did not
    assert "fx_salt.hint()" in result.message
    assert fx_salt.hint_text not in result.message


def test_the_solution_passes_and_the_switch_fills_blanks(fx, monkeypatch):
    # 8 buckets over 8 nodes: each node holds about one bucket of every pair, so the busiest node
    # is near the 12.5% fair share and under 20%
    assert fx_salt.check(8, fx).passed
    monkeypatch.setenv("WORKBENCH_SOLUTIONS", "1")
    filled = fx_salt.check(____, fx)
    assert filled.passed and "solution filled in: WORKBENCH_SOLUTIONS=1" in filled.message


def test_fx_salt_asks_for_an_even_spread_and_refuses_the_goal_as_a_count(fx, monkeypatch):
    monkeypatch.delenv("WORKBENCH_SOLUTIONS", raising=False)
    # a whole-number float is a number, as 01 accepts 39.0 and 03 4.0
    assert fx_salt.check(8.0, fx).passed
    # 16 buckets: two per node, as even as 8 (the solution says it passes at twice the scans)
    sixteen = fx_salt.check(16, fx)
    assert sixteen.passed and "16 scans" in sixteen.message
    # 20 is the goal (20 % of the writes) typed as a count: said so, whatever its share would be
    for goal in (20, 20.0):
        line = fx_salt.check(goal, fx).message
        assert "20 is the goal" in line and "not a salt count" in line, line
    # 6 and 7 buckets keep the busiest of 8 nodes under 20 % on this sample, but leave some nodes
    # without a frontier: not the even spread the hint teaches
    for uneven in (6, 7):
        result = fx_salt.check(uneven, fx)
        assert not result.passed and "do not divide evenly among 8 nodes" in result.message
    # 8.5 is no count of buckets
    assert "whole number" in fx_salt.check(8.5, fx).message


def test_a_report_shows_the_filled_blank_as_the_solution_not_as_what_was_said(fx, monkeypatch):
    # a report runs with blanks filled (WORKBENCH_SOLUTIONS=1): its cell reads KEY_BYTES = ____,
    # so the check under it names the solution, never "you said"
    monkeypatch.setenv("WORKBENCH_SOLUTIONS", "1")
    filled = key_bytes.check(____, fx)
    assert filled.passed and "solution: 56" in filled.message, filled.message
    assert "you said" not in filled.message
    # an attendee's own answer is still what they said (28 key bytes × 2 cells = 56)
    monkeypatch.delenv("WORKBENCH_SOLUTIONS")
    typed = key_bytes.check(55, fx)
    assert typed.passed and "you said 55" in typed.message and "solution" not in typed.message


def test_under_the_switch_a_failing_answer_fails_the_run(fx, monkeypatch):
    monkeypatch.setenv("WORKBENCH_SOLUTIONS", "1")
    with pytest.raises(ExerciseNotSolved, match="fx_salt"):
        fx_salt.check(1, fx)


def test_every_problem_has_a_hint_and_a_solution():
    assert set(PROBLEMS) >= {"garden_month", "fx_salt", "daily_panel", "lab_pattern"}
    for p in PROBLEMS.values():
        assert p.hint().startswith("Hint: ") and len(p.hint()) > 20
        assert p.solution().startswith("Solution: ")
    assert "month_rows" in garden_month.solution()


def test_no_notebook_prefills_an_exercise_answer():
    src = Path(__file__).resolve().parents[2] / "notebooks"
    for name in PROBLEMS:
        users = [p for p in src.glob("0*.py") if f"{name}.check(" in p.read_text()]
        assert len(users) == 1, (name, users)
        text = users[0].read_text()
        # the answer cell holds the blank; the check, hint and solution live in the package
        assert "= ____   # ← your" in text, users[0].name
        assert "wb.check(" not in text, users[0].name


def _exercise_cells() -> list[tuple[str, str, list]]:
    """(notebook, problem, its cells) for every exercise, found where its check is called."""
    import jupytext

    src = Path(__file__).resolve().parents[2] / "notebooks"
    found = []
    for path in sorted(src.glob("0*.py")):
        cells = jupytext.read(path).cells
        found += [(path.name, n, cells) for n in PROBLEMS if f"{n}.check(" in path.read_text()]
    return found


@pytest.mark.parametrize(
    ("notebook", "name", "cells"), _exercise_cells(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_every_accepted_answer_lets_the_rest_run(notebook, name, cells):
    # the cells after an exercise never read its answer (a check cell may read what the check
    # found): whatever a check accepts (any gallery design that passes, any count within the
    # tolerance), the rest of the notebook runs the same
    code = [(i, c.source) for i, c in enumerate(cells) if c.cell_type == "code"]
    at = next(i for i, src in code if f"{name}.check(" in src)
    answer = re.search(rf"{name}\.check\((\w+)", cells[at].source).group(1)
    later = [i for i, src in code if i > at and re.search(rf"\b{answer}\b", src)]
    assert not later, (notebook, name, answer, later)
    # predict, then see: the answer cell is the one just before the check
    assert f"{answer} = ____   # ← your" in cells[at - 1].source, (notebook, name)


DATASETS = {
    "garden_month": "garden_temperature",
    "game_both": "game_scores",
    "gardens_day_rows": "garden_temperature",
    "versions_cells": "garden_temperature",
    "measure_scans": "game_scores",
    "name_bytes": "game_scores",
    "balloon_format": "weather_balloons",
    "week_hour_rows": "weather_balloons",
    "column_versions": "weather_balloons",
    "fx_salt": "fx_prices",
    "latest_emulator_rows": "fx_prices",
    "key_bytes": "fx_prices",
    "dashboard_key": "server_metrics",
    "host_first_scans": "server_metrics",
    "row_cells": "server_metrics",
    "daily_panel": "energy_meters",
    "latest_rows": "energy_meters",
    "hourly_day_rows": "energy_meters",
    "time_first_share": "fx_prices",
    "fix_share": "fx_prices",
    "slash_bad_keys": "fx_prices",
    "cmv_maintenance": "energy_meters",
    "counter_cells": "energy_meters",
}


_CONTEXT_06_08 = {"latest_rows", "hourly_day_rows", "time_first_share", "fix_share"}
_CONTEXT_06_08 |= {"cmv_maintenance", "counter_cells"}


# what each exercise's check needs besides the answer, built as the notebooks build it
def _context(name: str) -> tuple:
    if name == "lab_pattern":  # 07 runs it on its own CSV (the energy sample read with from_csv)
        from exercises.test_exercises_06_08 import my_meters

        return (wb.designer(my_meters()),)
    ds = wb.load_dataset(DATASETS[name], size="workshop")
    if name == "daily_panel":
        return ds, wb.preset("energy_meters", "hourly_aggregates")
    if name in _CONTEXT_06_08:
        from exercises.test_exercises_06_08 import context_06_08

        return context_06_08(name, ds)
    if name in ("gardens_day_rows", "versions_cells", "measure_scans", "name_bytes"):
        from exercises.test_exercises_01_02 import context_01_02

        return context_01_02(name, ds)
    return (ds,)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(WRONG))
def test_three_typical_wrong_answers_each_get_one_not_yet_line(name, monkeypatch):
    # a near-miss name, an input the prose suggests and a typo: never a traceback, always one line
    # that says why, and a closest name where the answer was not one of the choices
    monkeypatch.delenv("WORKBENCH_SOLUTIONS", raising=False)
    problem, context = PROBLEMS[name], _context(name)
    for kind, source in WRONG[name]:
        result = problem.check(eval(source, {"wb": wb}), *context)
        assert result.answered and not result.passed, (kind, source, result)
        line = repr(result)
        assert line.startswith("NOT YET — ") and "\n" not in line, (kind, line)
        assert "Traceback" not in line and problem.hint_text not in line, (kind, line)
        if kind == "typo" and source.startswith('"'):
            assert "did you mean" in line.lower(), (kind, line)


@pytest.mark.parametrize("name", sorted(RIGHT_ALIASES))
def test_the_answers_the_prose_names_are_accepted(name, monkeypatch):
    # 06's text calls the summary rows agg#daily#…, so "daily" is as right as "day"
    monkeypatch.delenv("WORKBENCH_SOLUTIONS", raising=False)
    context = _context(name)
    for source in RIGHT_ALIASES[name]:
        assert PROBLEMS[name].check(eval(source), *context).passed, source


def test_the_answer_is_not_stated_just_above_an_exercise():
    # the markdown before an exercise's answer cell must not name the solution: the attendee
    # finds it, the text explains it afterwards
    from pathlib import Path

    import jupytext

    src = Path(__file__).resolve().parents[2] / "notebooks"
    review: set[str] = set()  # exercises whose text may name the answer (none now)
    for name, problem in PROBLEMS.items():
        if not isinstance(problem.solution_value, str) or name in review:
            continue
        path = next(p for p in src.glob("0*.py") if f"{name}.check(" in p.read_text())
        cells = jupytext.read(path).cells
        # the answer cell: the one just before the check
        at = next(i for i, c in enumerate(cells) if f"{name}.check(" in c.source) - 1
        before = [c.source for c in cells[:at] if c.cell_type == "markdown"]
        said = [f"`{problem.solution_value}`", f'"{problem.solution_value}"']
        assert not [t for t in before for w in said if w in t], (name, path.name)
