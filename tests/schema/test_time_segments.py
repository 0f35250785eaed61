"""A time segment moved to another precision keeps its kind of format (the advisor's "store
milliseconds" fix, G21): epoch seconds become epoch milliseconds or microseconds, a calendar
format stays as written. Expected values by hand."""

from __future__ import annotations

import pandas as pd

from workbench.schema import ReversedTimestamp, Timestamp
from workbench.schema.time_segments import BaseTimestamp


def test_an_epoch_timestamp_changes_its_unit_with_its_precision():
    epoch = Timestamp("second", fmt="epoch_s")
    assert epoch.at_precision("ms") == Timestamp("ms", fmt="epoch_ms")
    assert epoch.at_precision("us") == Timestamp("us", fmt="epoch_us")
    assert Timestamp("ms", fmt="epoch_ms").at_precision("second") == epoch
    # a calendar format, or none (the precision's default), is kept
    assert Timestamp("second", fmt="%Y%m%d%H%M%S").at_precision("ms").fmt == "%Y%m%d%H%M%S"
    assert Timestamp("second").at_precision("ms") == Timestamp("ms")


def test_a_reversed_timestamp_takes_the_units_maximum_at_its_precision():
    # G09: max - t, with the max of 10 digits of seconds, 13 of ms, 16 of µs
    assert ReversedTimestamp("s", 9_999_999_999, 10).at_precision("ms") == ReversedTimestamp(
        "ms", 9_999_999_999_999, 13
    )


def test_heroics_base_time_note_gives_the_day_its_text_reaches_13_digits():
    # unpadded epoch ms sort as text only once every value has 13 digits: 10**12 ms after the
    # epoch is 2001-09-09 01:46:40 UTC (G21); the row-key schema note states that day
    assert pd.Timestamp(10**12, unit="ms") == pd.Timestamp("2001-09-09 01:46:40")
    _, (note,) = BaseTimestamp().key_fields("#")
    assert note.startswith("base_ms:") and "2001-09-09 (13 digits)" in note and "(G21)" in note
