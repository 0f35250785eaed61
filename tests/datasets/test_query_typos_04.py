"""Notebook 04's bad inputs: a misspelled query name and a misspelled window word.

Expectations are written by hand from the fx_prices dataset's query names (usdjpy_day, ...) and
the mini-language's window words (over/from/at): the error must name the wrong word and the
right one, and must not be a KeyError traceback or blame the value the typo swallowed.
"""

from __future__ import annotations

import pytest

import workbench as wb
from workbench.datasets.queries import QuerySyntaxError, parse_query
from workbench.errors import WorkbenchError


@pytest.fixture(scope="module")
def fx():
    return wb.load_dataset("fx_prices", size="workshop")


def test_query_name_typo_is_a_workbench_error_with_a_suggestion(fx):
    with pytest.raises(WorkbenchError, match=r"no query 'usdjpy_dya'\. Did you mean 'usdjpy_day'"):
        fx.query("usdjpy_dya")
    assert fx.query("usdjpy_day").name == "usdjpy_day"  # the right name still works


@pytest.mark.parametrize(
    ("line", "typo", "word"),
    [
        ("pair=USD/JPY ovr 1 day", "ovr", "over"),
        ("mean bid for pair=USD/JPY ovr 30 days", "ovr", "over"),
        ("all ovr 1 hour", "ovr", "over"),
        ("pair=USD/JPY form 2024-01-01 to 2024-01-02", "form", "from"),
    ],
)
def test_window_word_typo_is_blamed_on_the_word(fx, line, typo, word):
    with pytest.raises(QuerySyntaxError) as err:
        parse_query(line, fx)
    msg = str(err.value)
    assert f"{typo!r} is not a word" in msg and f"did you mean {word!r}" in msg
    assert "is not in the data" not in msg  # not the value 'USD/JPY ovr 1 day'


def test_a_value_typo_is_still_blamed_on_the_value(fx):
    # no window word nearby: the value itself is wrong, and that error stays
    with pytest.raises(WorkbenchError, match=r"'USD/JPX' is not in the data.*'USD/JPY'"):
        parse_query("pair=USD/JPX over 1 day", fx)
    assert parse_query("pair=USD/JPY over 1 day", fx).entity == {"pair": "USD/JPY"}
