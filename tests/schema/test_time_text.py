"""Time columns as µs since the epoch, and key time text from them, each expected value by hand
for 2024-03-05 07:08:09.123 UTC: a literal ``%%`` and a NUL byte in a format (which takes the
general path, the fixed-width fast path cannot hold trailing NULs) are written as they are."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.errors import SchemaError
from workbench.schema.time_text import format_time, time_us

# 2024-03-05 is day 19,787 since 1970 (2024-01-01 is day 19,723, + 31 + 29 + 4):
# 19,787 x 86,400,000 + 7 h 25,200,000 + 8 min 480,000 + 9.123 s 9,123 = 1,709,622,489,123 ms
T_US = np.array([1_709_622_489_123_000])


def test_a_percent_sign_in_a_format_is_written_once():
    assert list(format_time(T_US, "second", "%Y%%%m")) == ["2024%03"]
    assert list(format_time(T_US, "ms", "%d%%")) == ["05%123"]


def test_a_nul_byte_in_a_format_is_kept():
    # year, "%", NUL, day; then the 3 ms digits of a ms key
    assert list(format_time(T_US, "second", "%Y%%\x00%d")) == ["2024%\x0005"]
    assert list(format_time(T_US, "ms", "%Y\x00")) == ["2024\x00123"]
    assert list(format_time(T_US, "second", "\x00%H")) == ["\x0007"]


def test_a_year_past_9999_is_refused_naming_the_first_such_event():
    # 10000-01-01 00:00:00.001 is year 10000, month 01, day 01, 00:00:00 and 001 ms: the key text
    # would be 18 digits, 10000 0101 000000 001, for the 17 of %Y%m%d%H%M%S (4+2+2+2+2+2) + 3 ms
    late = np.datetime64("10000-01-01T00:00:00.001", "us").astype(np.int64)
    later = np.datetime64("10001-01-01T00:00:00.001", "us").astype(np.int64)
    with pytest.raises(
        SchemaError, match=r"time 100000101000000001 does not fit in 17 zero-padded"
    ):
        format_time(np.array([0, late, later]), "ms")
    # in event order: the first event past 9999 is named, whichever time is smaller
    with pytest.raises(
        SchemaError, match=r"time 100010101000000001 does not fit in 17 zero-padded"
    ):
        format_time(np.array([later, late]), "ms")


def test_a_time_column_becomes_microseconds_whatever_its_unit():
    # 2024-03-05 07:08:09.123456 UTC is 1,709,622,489,123,456 µs (T_US above, plus 456 µs)
    when = pd.Series(pd.to_datetime(["2024-03-05 07:08:09.123456"], utc=True), name="t")
    assert time_us(when.astype("datetime64[ns, UTC]")).tolist() == [1_709_622_489_123_456]
    # a coarser unit holds fewer digits: ms keeps .123, s keeps none
    assert time_us(when.astype("datetime64[ms, UTC]")).tolist() == [1_709_622_489_123_000]
    assert time_us(when.astype("datetime64[s, UTC]")).tolist() == [1_709_622_489_000_000]
    # a nanosecond part cannot be kept (cells and keys go down to µs)
    finer = (when + pd.Timedelta(nanoseconds=1)).astype("datetime64[ns, UTC]")
    with pytest.raises(SchemaError, match="'t' has nanosecond parts"):
        time_us(finer)
