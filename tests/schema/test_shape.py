"""The dataset's shape as the planner prices it: a query naming a series reads that series' own
events (``Shape.events_skew``), from the sample's counts or, for a shape sample, the file's."""

from __future__ import annotations

import pandas as pd
import pytest

import workbench as wb
from workbench.schema.shape import Shape


def test_a_query_naming_a_series_reads_its_own_events_not_the_mean_series():
    """fx: USD/JPY writes 6,255 of the 28,629 quotes (21.8 %), not an eighth of them; the day
    read returns its quotes over the day's share of the span (no workload: the sample's rate),
    where the mean pair's figure was 28,629 ÷ 8 × day ÷ span (G07)."""
    ds = wb.load_dataset("fx_prices")
    f = ds.frame
    usdjpy = int((f["pair"] == "USD/JPY").sum())
    assert (usdjpy, len(f), f["pair"].nunique()) == (6_255, 28_629, 8)
    span_us = (f[ds.time].max() - f[ds.time].min()).value // 1000 + 1  # the shape's span, µs
    day_us = 86_400 * 10**6
    q = ds.query("usdjpy_day")
    assert q.end - q.start == pd.Timedelta(days=1)
    a = wb.analyze(ds, wb.preset(ds, "pair_microseconds"))
    row = a.queries.table.loc["usdjpy_day"]
    # one row per quote: its own 6,255 quotes × day ÷ span (≈ 156), not 28,629 ÷ 8 × day ÷ span
    assert row["production_rows_returned"] == pytest.approx(usdjpy * day_us / span_us, rel=1e-9)
    assert row["production_rows_seen"] == pytest.approx(usdjpy * day_us / span_us, rel=1e-9)
    mean_pair = len(f) / 8 * day_us / span_us
    assert row["production_rows_returned"] / mean_pair == pytest.approx(usdjpy * 8 / len(f))


def _shape(top, counted):
    return Shape(("metric", "host"), "t", ("v",), series_events=top, counted=counted)


def test_events_skew_reads_the_counted_series_and_the_rest_evenly():
    """Three of five series counted (the busiest): a counted series is its events over the mean
    (1,000 events ÷ 5 series = 200); one past them writes the rest's mean, (1,000 − 600 − 200 −
    100) ÷ 2 = 50, a quarter of the mean; a partial name past the counted ones is unknown."""
    top = ((("a", "h1"), 600), (("a", "h2"), 200), (("b", "h1"), 100))
    s = _shape(top, (1_000, 5))
    assert s.events_skew({"metric": "a", "host": "h1"}) == pytest.approx(600 / 200)
    assert s.events_skew({"metric": "c", "host": "h9"}) == pytest.approx(50 / 200)
    assert s.events_skew({"metric": "a"}) == 1.0  # the uncounted series of metric a: unknown
    assert s.events_skew({}) == 1.0
    # every series counted: a partial name reads its series' events over as many means
    every = _shape((*top, (("b", "h2"), 60), (("c", "h1"), 40)), (1_000, 5))
    assert every.events_skew({"metric": "a"}) == pytest.approx((600 + 200) / (2 * 200))
    assert every.events_skew({"host": "h1"}) == pytest.approx((600 + 100 + 40) / (3 * 200))
    assert every.events_skew({"metric": "zz"}) == 1.0  # no such series: no skew to apply


def test_a_shape_sample_carries_the_files_counts():
    """Shape.of takes the file's busiest series and totals from ``Dataset.aggregates`` when a
    shape sample carries them, the frame's otherwise."""
    ds = wb.load_dataset("fx_prices")
    own = Shape.of(ds)
    assert own.counted == (28_629, 8)
    assert own.series_events[0] == (("EUR/USD",), int((ds.frame["pair"] == "EUR/USD").sum()))
    assert sum(k for _, k in own.series_events) == 28_629
    from workbench.datasets.file_aggregates import FileAggregates

    ds.aggregates = FileAggregates(
        100, None, None, 2, {"pair": 2}, (2, 1.5), series_events=((("X",), 75), (("Y",), 25))
    )
    filed = Shape.of(ds)
    assert filed.counted == (100, 2) and filed.series_events[0] == (("X",), 75)
    assert filed.events_skew({"pair": "X"}) == pytest.approx(75 / 50)


def _sites(sites: list[str]):
    from workbench.datasets.model import Dataset

    t = pd.date_range("2024-01-01", periods=len(sites), freq="1min", tz="UTC")
    f = pd.DataFrame(
        {
            "site": pd.Series(sites, dtype=object),
            "time": t.astype("datetime64[us, UTC]"),
            "temp": [1.0] * len(sites),
        }
    )
    return Dataset(name="sites", frame=f, entity=["site"], time="time", measures=["temp"])


def test_one_value_is_a_known_set_and_no_value_is_none():
    # a single site is a set of one the planner can list (one range); an empty sample knows
    # no value, so no set at all (None), not an empty one
    one = Shape.of(_sites(["a", "a"]))
    assert (one.n_series, one.known_values("site")) == (1, ("a",))
    empty = Shape.of(_sites([]))
    assert (empty.n_series, empty.events, empty.known_values("site")) == (0, 0, None)


def test_known_values_without_the_series_are_the_columns_own():
    # no series kept (over SERIES_MAX in the sample): a fixed site cannot narrow the sensors,
    # so every known sensor is listed; a column outside the entity has no known set
    s = Shape(
        ("site", "sensor"),
        "t",
        ("v",),
        values=(("site", ("a", "b")), ("sensor", ("s1", "s2", "s3"))),
        series=None,
    )
    assert s.known_values("sensor", {"site": "a"}) == ("s1", "s2", "s3")
    kept = Shape(
        ("site", "sensor"),
        "t",
        ("v",),
        values=(("site", ("a", "b")), ("sensor", ("s1", "s2", "s3"))),
        series=(("a", "s1"), ("a", "s2"), ("b", "s3")),
    )
    assert kept.known_values("sensor", {"site": "a"}) == ("s1", "s2")
    assert kept.known_values("v", {"site": "a"}) is None
