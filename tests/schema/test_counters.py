"""What a Counters design says it keeps (G29, G12): the events counted, or a statistic of a
measure, per qualifier bucket in its aggregate family."""

from __future__ import annotations

from workbench.schema import Family
from workbench.schema.counters import Counters


def test_counters_say_whether_they_count_events_or_aggregate_a_measure():
    events = Counters(("meter",)).describe()
    assert "a qualifier per hour in family 'c' (sum aggregate)" in events
    assert events.endswith("holding the events.")
    biggest = Counters(("meter",), measure="kwh", family=Family("c", aggregate="max")).describe()
    assert "(max aggregate) holding the max of kwh." in biggest
