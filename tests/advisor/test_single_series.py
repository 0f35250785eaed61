"""A file of one series at its own trickle gets no hotspot error (G06): co2 is one weekly
reading (0.14 writes a day), seattle_temps one an hour. Capacity says no node is near its
target, so the advisor's load rules stay below an error on every preset; told the rate that
does stop a design, the same advisor says so (the error is not silenced, only judged at the
rate)."""

from __future__ import annotations

from pathlib import Path

import pytest

import workbench as wb
from workbench.advisor import advise

pytestmark = pytest.mark.slow  # every preset of two files advised (about 15 s)

F = Path(__file__).parents[1] / "fixtures" / "owndata"


def _co2():
    return wb.from_csv(F / "co2.csv", time="date", measures="co2", naive_tz="UTC")


def _seattle():
    return wb.from_csv(F / "seattle_temps.csv", time="date", measures="temp", naive_tz="UTC")


@pytest.mark.parametrize("load", [_co2, _seattle], ids=["co2", "seattle_temps"])
def test_one_series_at_its_own_rate_has_no_error_on_any_preset(load):
    ds = load()
    span_days = (ds.frame["date"].max() - ds.frame["date"].min()).total_seconds() / 86_400
    per_day = (len(ds) - 1) / span_days
    # by hand: co2 is weekly (1958-03-29, 1958-04-05, ...): 1/7 ≈ 0.14 a day; seattle hourly: 24
    assert per_day == pytest.approx(1 / 7 if ds.name == "co2" else 24, rel=0.05)
    for pattern in wb.pattern_names(ds):
        adv = advise(ds, wb.preset(ds, pattern))
        errors = [f"{f.rule}: {f.message}" for f in adv if f.severity == "error"]
        assert not errors, (pattern, errors)
        assert not adv.context.analysis.capacity.hotspot_limited, pattern


def test_the_same_file_at_a_rate_one_series_cannot_carry_is_an_error():
    # by hand: one series' frontier takes every write; one node at a 70 % target carries
    # 0.7 × 14,000 = 9,800 writes/s, so 50,000 events/s on timestamp_first is past it
    ds = _co2()
    adv = advise(ds, wb.preset(ds, "timestamp_first"), workload=wb.Workload(events_per_s=50_000))
    assert adv.context.analysis.capacity.hotspot_limited
    assert any(f.severity == "error" and f.rule == "hotspot_limited" for f in adv), str(adv)
