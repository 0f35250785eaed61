"""Cell values as text and back (G28: values are bytes in Bigtable; the workbench writes them
as text): each expected value written by hand from the rule in ``encode_text``'s docstring
(floats as their shortest repr, bools as true/false, times as µs since the epoch, text as
UTF-8) and its inverse ``decode_text``, where a missing text is a missing value."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.errors import SchemaError
from workbench.schema.value_text import (
    decode_text,
    digits,
    encode_bytes,
    encode_coded,
    int_text,
)


def test_values_become_their_utf8_text():
    assert list(encode_bytes(pd.Series([True, False]))) == [b"true", b"false"]
    assert list(encode_bytes(pd.Series([7, -12]))) == [b"7", b"-12"]
    assert list(encode_bytes(pd.Series([0.1, 2.0]))) == [b"0.1", b"2.0"]
    # é is U+00E9, two bytes in UTF-8: 0xC3 0xA9 (past the ASCII fast path)
    assert list(encode_bytes(pd.Series(["café", "x"]))) == [b"caf\xc3\xa9", b"x"]


def test_text_becomes_the_columns_values_again():
    assert list(decode_text(np.array(["true", "false"], dtype=object), "bool")) == [True, False]
    ints = decode_text(np.array(["3", "-2"], dtype=object), "int64")
    assert list(ints) == [3, -2] and ints.dtype == np.int64
    # 1,704,067,200,000,000 µs since the epoch is 2024-01-01 00:00 UTC (19,723 days x 86,400 s)
    t = decode_text(np.array(["1704067200000000"], dtype=object), "datetime64[us, UTC]")
    assert t.iloc[0] == pd.Timestamp("2024-01-01 00:00", tz="UTC")
    with pytest.raises(SchemaError, match="bool"):
        decode_text(np.array(["yes"], dtype=object), "bool")


def test_a_missing_text_is_a_missing_value_of_the_columns_kind():
    floats = decode_text(np.array(["1.5", None], dtype=object), "float64")
    assert floats.iloc[0] == 1.5 and np.isnan(floats.iloc[1])
    counts = decode_text(np.array(["3", None], dtype=object), "Int64")
    assert counts.iloc[0] == 3 and counts.iloc[1] is pd.NA and str(counts.dtype) == "Int64"
    texts = decode_text(np.array(["a", None], dtype=object), "object")
    assert list(texts) == ["a", None]
    # a column with no value at all still has its kind of missing value
    assert decode_text(np.array([None, None], dtype=object), "float64").isna().all()


def test_a_column_with_no_value_at_all_reads_back_as_that_many_missing_values():
    # two events, neither with a cell: two NaN (an int or float column with gaps is float64)
    for dtype in ("float64", "int64"):
        back = decode_text([None, None], dtype)
        assert len(back) == 2 and back.isna().all() and back.dtype == np.float64


def test_no_number_is_no_padded_text():
    out = digits(np.array([], dtype=np.int64), 3)
    assert out.dtype == object and len(out) == 0


def test_float_key_text_is_coded_once_per_distinct_value():
    # 1.5, 2.0, 1.5: two distinct floats, their shortest reprs, codes in first-seen order
    codes, texts = encode_coded(pd.Series([1.5, 2.0, 1.5]))
    assert codes.tolist() == [0, 1, 0] and texts.tolist() == ["1.5", "2.0"]


def test_int_text_formats_each_distinct_number_as_str_does():
    got = int_text(np.array([7, 59, 7, -3, 123456789012]), pad=2)
    assert got.tolist() == ["07", "59", "07", "-3", "123456789012"]
    assert int_text(np.array([5, 5, 10], dtype=np.uint64)).tolist() == ["5", "5", "10"]
    assert int_text(np.array([], dtype=np.int64)).tolist() == []
