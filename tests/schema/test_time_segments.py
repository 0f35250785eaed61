"""A time segment moved to another precision keeps its kind of format (the advisor's "store
milliseconds" fix, G21): epoch seconds become epoch milliseconds or microseconds, a calendar
format stays as written. Expected values by hand."""

from __future__ import annotations

from workbench.schema import ReversedTimestamp, Timestamp


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
