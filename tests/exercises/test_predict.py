"""A numeric prediction's tolerance is told as a percentage of the answer, never as "±40", which
says the answer is about 400 (a "Not yet" must not give the answer's size away)."""

from __future__ import annotations

import re

from workbench.exercises.predict import judge_count


def test_a_miss_states_a_relative_tolerance_as_a_percentage_not_as_its_size():
    # truth 400 at ±10 %: the slack is 40, and "40" would give the answer away (400 = 10 × 40)
    passed, message, _ = judge_count(300, 400, "rows")
    assert not passed and "within 10 %" in message and "more rows" in message
    assert not re.search(r"\b40\b|400", message), message


def test_a_pass_inside_the_tolerance_says_so_in_percent():
    # 370 is 30 below 400, inside 10 % (40); the pass may name the figure itself
    passed, message, _ = judge_count(370, 400, "rows")
    assert passed and "within 10 %" in message and "400" in message


def test_a_one_percent_tolerance_reads_one_percent():
    # ex08's keys: ±1 % of 28,629 is 286 keys; 28,000 is 629 off
    passed, message, _ = judge_count(28_000, 28_629, "keys", relative=0.01)
    assert not passed and "within 1 %" in message and "286" not in message


def test_an_absolute_floor_is_stated_as_itself():
    # ex07's ±10 points on a share of ~100 %: 10 says nothing of the answer; 10 % of 12 is 1.2 < 5
    _, message, _ = judge_count(70, 98.0, "% of writes", relative=0.0, at_least=10)
    assert "within ±10 are accepted" in message
    _, message, _ = judge_count(30, 12, "bytes", relative=0.10, at_least=5)
    assert "±5" in message and "%" not in message


def test_an_exact_count_says_only_the_exact_count_is_accepted():
    _, message, _ = judge_count(3, 4, "rows", relative=0.0)
    assert "only the exact count is accepted" in message
