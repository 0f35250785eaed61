"""Query lines that used to be read wrong without a word: a column given twice, a window after
'latest N for', a time of day without a date, a window outside the data, a time beyond what
pandas holds. Each is refused or warned naming the query and what to write instead."""

from __future__ import annotations

import re
import warnings

import pandas as pd
import pytest

import workbench as wb
from workbench.datasets.queries import QuerySyntaxError, parse_query


@pytest.fixture(scope="module")
def ds():
    # two sensors, one reading an hour for two days (2024-01-01 00:00 … 2024-01-02 23:00)
    times = pd.date_range("2024-01-01", periods=48, freq="1h", tz="UTC")
    df = pd.DataFrame(
        {
            "sensor": ["S1"] * 48 + ["S2"] * 48,
            "time": list(times) * 2,
            "v": [float(i) for i in range(96)],
        }
    )
    return wb.from_dataframe(df, entity="sensor", time="time", measures="v", name="two")


# the fixture's first and last events (hourly, 2024-01-01 00:00 to 2024-01-02 23:00 UTC)
SPAN = ("2024-01-01 00:00:00+00:00", "2024-01-02 23:00:00+00:00")


def _quoted(msg: str) -> list[str]:
    """The 'quoted' values a message names (a line, a value, an example)."""
    return re.findall(r"'[^']*'", msg)


def _times(msg: str) -> list[str]:
    """The full timestamps a message states, in order."""
    return re.findall(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\+00:00", msg)


@pytest.mark.parametrize("sep", [", ", " and "])
def test_a_column_given_twice_is_refused_not_overwritten(ds, sep):
    line = f"sensor=S1{sep}sensor=S2 over 1 day"
    with pytest.raises(QuerySyntaxError) as ei:
        parse_query(line, ds)
    msg = str(ei.value)
    # the facts: the line, the column and both of its values
    assert repr(line) in msg and "sensor" in msg and {"'S1'", "'S2'"} <= set(_quoted(msg))
    assert "'sensor=S1' and 'sensor=S2'" in msg and "latest N per sensor" in msg
    # the same value twice is one filter, not a conflict
    assert parse_query("sensor=S1, sensor=S1", ds).entity == {"sensor": "S1"}


def test_a_window_after_latest_for_is_named_not_taken_as_the_value(ds):
    with pytest.raises(QuerySyntaxError) as ei:
        parse_query("latest 1 for sensor=S1 over 1 day", ds)
    msg = str(ei.value)
    assert {"'latest N'", "'over 1 day'"} <= set(_quoted(msg))
    assert "'latest 1 for sensor=S1'" in msg and "'sensor=S1 over 1 day'" in msg
    assert "not in the data" not in msg


def test_a_time_of_day_without_a_date_is_refused_with_the_datas_span(ds):
    with pytest.raises(QuerySyntaxError) as ei:
        parse_query("sensor=S1 at 10:00", ds)
    msg = str(ei.value)
    # the facts: the value refused, the data's first and last times, the same time with a date
    assert {"'10:00'", "'2024-01-01T10:00'"} <= set(_quoted(msg))
    assert _times(msg) == [SPAN[0], SPAN[1]]


def test_a_window_outside_the_data_warns_with_its_span(ds):
    with pytest.warns(UserWarning) as rec:
        q = parse_query("sensor=S1 from 2023-01-01 to 2023-02-01", ds)
    msg = str(rec[0].message)
    assert "outside the data" in msg and _times(msg)[-2:] == [SPAN[0], SPAN[1]]
    assert "0 events" in msg
    assert q.start == pd.Timestamp("2023-01-01", tz="UTC")
    with pytest.warns(UserWarning, match="outside the data"):
        parse_query("sensor=S1 at 2030-01-01T10:00", ds)
    with warnings.catch_warnings():  # inside the data: no word
        warnings.simplefilter("error")
        parse_query("sensor=S1 from 2024-01-01 to 2024-01-02", ds)


def test_times_beyond_what_pandas_holds_are_a_range_message(ds):
    with pytest.raises(QuerySyntaxError, match=r"'9999-01-01' is outside the times .*1677-09-2"):
        parse_query("sensor=S1 from 2024-01-01 to 9999-01-01", ds)
    with pytest.raises(QuerySyntaxError, match=r"'1000 years' reaches before 1677-09-2"):
        parse_query("sensor=S1 over 1000 years", ds)


def test_default_queries_name_only_series_a_line_can_carry():
    # the busiest sensor's name has a comma; its measure name has spaces and a symbol
    times = pd.date_range("2024-01-01", periods=24, freq="1h", tz="UTC")
    df = pd.DataFrame(
        {
            "sensor": ["Hall, north"] * 24 + ["S2"] * 12 + ["line\nbreak"] * 12,
            "time": list(times) + list(times[:12]) + list(times[12:]),
            "temp (°C)": [1.0] * 48,
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning either: every default is inside the data
        ds = wb.from_dataframe(df, entity="sensor", time="time", measures="temp (°C)")
    lines = [q.text for q in ds.queries]
    assert any(ln.startswith("sensor=S2 over ") for ln in lines), lines  # busiest one a line names
    assert not any("Hall" in ln or "break" in ln or "mean" in ln for ln in lines), lines
    assert lines[0] == "latest 1 per sensor"
