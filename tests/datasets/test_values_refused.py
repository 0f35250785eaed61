"""Values that used to be read wrong without a word: a two-digit year (31/12/99 became 2099),
an infinite measure (1e400), an integer given as text that float64 would round (22 digits).
Each is refused naming the column, the row and what to do."""

from __future__ import annotations

import re

import pandas as pd
import pytest

import workbench as wb
from workbench.errors import DatasetError

# float64 keeps 53 bits: 1234567890123456789012 becomes the nearest multiple of 2^18 = 262,144
ROUNDED = "1,234,567,890,123,456,774,144"


def _csv(tmp_path, body: str):
    p = tmp_path / "d.csv"
    p.write_text("sensor,time,v\n" + body)
    return p


def test_a_two_digit_year_is_refused_not_read_as_20xx(tmp_path):
    p = _csv(tmp_path, "S1,30/12/1999,1\nS1,31/12/99,2\n")
    with pytest.raises(DatasetError) as ei:
        wb.from_csv(p, entity="sensor", time="time", measures="v", naive_tz="UTC")
    msg = str(ei.value)
    assert re.search(r"'time' .*two-digit year \(1 lines, .*line 3: '31/12/99'", msg), msg
    assert "19xx or 20xx" in msg
    assert "four-digit years" in msg and "format='%d/%m/%y'" in msg


def test_an_infinite_measure_is_refused_with_its_row(tmp_path):
    p = _csv(tmp_path, "S1,2024-01-01T00:00:00Z,1\nS1,2024-01-01T00:01:00Z,1e400\n")
    with pytest.raises(DatasetError) as ei:
        wb.from_csv(p, entity="sensor", time="time", measures="v")
    msg = str(ei.value)
    # pandas reads 1e400 as inf: the row is named
    assert re.search(r"'v' holds 1 infinite value\(s\) \(line 3: \['inf'\]\)", msg), msg
    assert "drop those rows" in msg
    df = pd.DataFrame(
        {"sensor": ["S1"], "time": pd.to_datetime(["2024-01-01"], utc=True), "v": [float("-inf")]}
    )
    with pytest.raises(DatasetError, match=r"1 infinite.*\(row 0: \['-inf'\]\)"):
        wb.from_dataframe(df, entity="sensor", time="time", measures="v")


def test_an_integer_float64_would_round_is_refused():
    # numbers given as text (a frame read with dtype=str, a JSON export): converted here
    df = pd.DataFrame(
        {
            "sensor": ["S1", "S1"],
            "time": pd.to_datetime(["2024-01-01", "2024-01-02"], utc=True),
            "v": ["12", "1234567890123456789012"],
        }
    )
    with pytest.raises(DatasetError) as ei:
        wb.from_dataframe(df, entity="sensor", time="time", measures="v")
    msg = str(ei.value)
    # float64(1234567890123456789012) = 1,234,567,890,123,456,774,144 (53-bit mantissa)
    assert re.search(r"float64 .*\(1 rows, row 1: '1234567890123456789012'\D+" + ROUNDED, msg)
    assert "2^53 = 9,007,199,254,740,992" in msg and "attributes=['v']" in msg
    # 2^53 itself is exact: read
    df["v"] = ["12", "9007199254740992"]
    assert (
        wb.from_dataframe(df, entity="sensor", time="time", measures="v").frame["v"].max() == 2**53
    )


def test_an_entity_given_as_a_number_is_named_not_a_type_error():
    df = pd.DataFrame(
        {"sensor": ["S1"], "time": pd.to_datetime(["2024-01-01"], utc=True), "v": [1.0]}
    )
    with pytest.raises(
        DatasetError,
        match=r"entity .*not 0.*\(columns: \['sensor', 'time', 'v'\]\)",
    ):
        wb.from_dataframe(df, entity=0, time="time", measures="v")


def test_a_22_digit_integer_in_a_csv_is_refused_not_rounded(tmp_path):
    p = _csv(
        tmp_path, "S1,2024-01-01T00:00:00Z,12\nS1,2024-01-01T00:01:00Z,1234567890123456789012\n"
    )
    with pytest.raises(DatasetError) as ei:
        wb.from_csv(p, entity="sensor", time="time", measures="v")
    msg = str(ei.value)
    assert re.search(r"float64 .*\(1 rows, line 3: '1234567890123456789012'\D+" + ROUNDED, msg)
    # next to a decimal, pandas reads the column as float64 (already rounded): read again
    mixed = _csv(
        tmp_path, "S1,2024-01-01T00:00:00Z,1.5\nS1,2024-01-01T00:01:00Z,1234567890123456789012\n"
    )
    with pytest.raises(DatasetError, match=r"line 3: '1234567890123456789012'\D+" + ROUNDED):
        wb.from_csv(mixed, entity="sensor", time="time", measures="v")
    # a large number written as a float is what it says: read
    ok = _csv(tmp_path, "S1,2024-01-01T00:00:00Z,1e21\n")
    assert wb.from_csv(ok, entity="sensor", time="time", measures="v").frame["v"].iloc[0] == 1e21
