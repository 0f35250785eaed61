"""Exercises as problem objects: a blank answer, a wrong one, the solution, and the solutions switch."""

from __future__ import annotations

import pytest

import workbench as wb
from workbench.exercises import PROBLEMS, ExerciseNotSolved, ____, fx_salt, garden_month


@pytest.fixture(scope="module")
def fx():
    return wb.load_dataset("fx_prices", size="workshop")


def test_a_blank_answer_asks_for_one_without_failing(fx, monkeypatch):
    monkeypatch.delenv("WORKBENCH_SOLUTIONS", raising=False)
    result = fx_salt.check(____, fx)
    assert not result.answered and not result.passed
    assert "replace ____" in repr(result) and "fx_salt.hint()" in repr(result)
    assert "Your turn" in result._repr_html_()


def test_a_wrong_answer_says_not_yet_with_the_hint(fx, monkeypatch):
    monkeypatch.delenv("WORKBENCH_SOLUTIONS", raising=False)
    # one salt bucket is the pair-first key: USD/JPY alone (about a third of the quotes in the
    # workshop sample) lands on one of 8 nodes, far above the 20% goal
    result = fx_salt.check(1, fx)
    assert result.answered and not result.passed
    assert "Hint: salt counts that are a multiple" in repr(result)
    assert "Not yet" in result._repr_html_()


def test_the_solution_passes_and_the_switch_fills_blanks(fx, monkeypatch):
    # 8 buckets over 8 nodes: each node holds about one bucket of every pair, so the busiest node
    # is near the 12.5% fair share and under 20%
    assert fx_salt.check(8, fx).passed
    monkeypatch.setenv("WORKBENCH_SOLUTIONS", "1")
    filled = fx_salt.check(____, fx)
    assert filled.passed and "solution filled in: WORKBENCH_SOLUTIONS=1" in filled.message


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
    from pathlib import Path

    src = Path(__file__).resolve().parent.parent / "notebooks"
    for name in PROBLEMS:
        users = [p for p in src.glob("0*.py") if f"{name}.check(" in p.read_text()]
        assert len(users) == 1, (name, users)
        text = users[0].read_text()
        # the answer cell holds the blank; the check, hint and solution live in the package
        assert "= ____   # ← your" in text, users[0].name
        assert "wb.check(" not in text, users[0].name
