"""Notebook 06's exercises (energy_meters): problem objects the notebook's answer cells check.

* ``latest_rows`` — predict the rows the row-per-reading design reads for a meter's latest reading.
* ``hourly_day_rows`` — predict the rows one meter's day of hourly summaries reads.
* ``daily_panel`` — the summary bucket that draws a per-day panel in at most one row per day.
"""

from __future__ import annotations

from typing import Any

from .core import Problem, ____, not_a_name
from .predict import judge_count, judge_query_figure, number_form

__all__ = ["____", "daily_panel", "hourly_day_dataset", "hourly_day_rows", "latest_rows"]


_SUMMARY_NAMES = {"minute": "per_minute", "hour": "hourly", "day": "daily", "week": "weekly"}


def _summary_name(bucket: str) -> str:
    """The summary rows' name: ``agg#daily#…`` for days, as the notebook's text shows."""
    return _SUMMARY_NAMES.get(bucket, f"per_{bucket}")


def summary_bucket(answer: Any) -> str | None:
    """The bucket an answer names: "day", or "daily" as the rows are called (``agg#daily#…``);
    None when it names none."""
    from workbench.schema.time_text import PRECISIONS

    by_name = {name: bucket for bucket, name in _SUMMARY_NAMES.items()}
    if not isinstance(answer, str):
        return None
    word = answer.strip().lower()
    word = by_name.get(word, word)
    return word if word in PRECISIONS else None


def daily_panel_design(bucket: str, base):
    """The energy summary design for ``bucket`` ("hour", "day"…): ``base``'s key and layout."""
    from workbench.schema import Aggregates, Family, Schema

    return Schema(
        "meter_summaries",
        base.key,
        base.layout,
        aggregates=Aggregates(bucket, _summary_name(bucket), "agg", ("count", "sum"), Family("s")),
    )


def daily_panel_dataset(ds, bucket: str):
    """The billing dataset: ``ds``'s events with one query, meter 100001's sums per ``bucket``."""
    import pandas as pd

    from workbench.datasets import QueryIntent, from_dataframe

    day = ds.query("meter_day")
    panel = QueryIntent(
        "meter_daily_usage",
        "range",
        "meter 100001's daily kWh over the whole period",
        entity=day.entity,
        start=ds.time_span[0].floor("D"),
        end=ds.time_span[1].floor("D") + pd.Timedelta(days=1),
        aggregate=f"{_summary_name(bucket)}:sum",
    )
    return from_dataframe(
        ds.frame,
        entity=["meter_id"],
        time="time",
        measures=["kwh", "voltage"],
        name="energy_billing",
        queries=[panel],
    )


def _bucket_form(answer: Any) -> str | None:
    """Why ``answer`` is not a summary bucket the daily panel can use, or None."""
    bucket = summary_bucket(answer)
    if bucket is None:
        words = ["minute", "hour", "day", "week", "month", "hourly", "daily", "weekly"]
        return not_a_name(answer, words, "a summary bucket") or ""
    if _SECONDS.get(bucket, 0) > _SECONDS["day"]:
        # a week's row holds one sum for seven days: the page cannot draw a bar per day from it,
        # and section 4 compares one summary per day with the raw readings' daily sums
        return f"a row per {bucket} sums several days into one: the page shows each day."
    return None


def _daily_panel(answer: str, ds, base) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze

    bucket = summary_bucket(answer)
    if bucket is None:  # the form lets none through; a direct call is told the same
        return False, _bucket_form(answer) or "", {}
    design = daily_panel_design(bucket, base)
    billing = daily_panel_dataset(ds, bucket)
    cost = analyze(billing, design).queries["meter_daily_usage"]
    days = (ds.time_span[1].normalize() - ds.time_span[0].normalize()).days + 1
    rows = int(cost["rows_seen"])
    return (
        rows <= days and int(cost["rows_returned"]) > 0,
        f"with summaries per {bucket} the panel reads {rows:,} rows for {days} days (goal ≤ {days}).",
        {"design": design, "billing": billing, "cost": cost},
    )


# a bucket's width, to refuse the ones wider than the panel's day
_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86_400, "week": 604_800}
_SECONDS |= {"month": 28 * 86_400, "year": 365 * 86_400}


daily_panel = Problem(
    "daily_panel",
    'a summary bucket, e.g. "hour"',
    _daily_panel,
    "summaries per hour still leave 24 rows per day, and a wider bucket than the page's bars "
    "cannot be split back into them.",
    "day",
    '"day": one summary row per day, so ten days read ten rows (G30).',
    form=_bucket_form,
)


def hourly_day_dataset(ds):
    """``ds``'s events with one query: meter 100001's hourly sums on 1 March, as 06 asks it."""
    from workbench.datasets import QueryIntent, from_dataframe

    day = ds.query("meter_day")
    hourly_day = QueryIntent(
        "meter_day_hourly",
        "range",
        "meter 100001's hourly totals on 1 March",
        entity=day.entity,
        start=day.start,
        end=day.end,
        aggregate="hourly:sum",
    )
    return from_dataframe(
        ds.frame,
        entity=["meter_id"],
        time="time",
        measures=["kwh", "voltage"],
        queries=[hourly_day],
    )


def _hourly_day_rows(predicted: Any, ds, design) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze

    rows = analyze(hourly_day_dataset(ds), design).queries["meter_day_hourly"]["rows_seen"]
    # exact: the hours in a day are countable without the workbench
    return judge_count(predicted, float(rows), "summary rows for one meter's day", relative=0.0)


hourly_day_rows = Problem(
    "hourly_day_rows",
    "a whole number of rows (exact)",
    _hourly_day_rows,
    "each summary row holds one meter's totals for one bucket of the design's width; the query "
    "asks for one calendar day.",
    24,
    "24: one agg#hourly# row per hour of 1 March, where the raw design reads 96 readings (G29).",
    form=number_form,
)


def _latest_rows(predicted: Any, ds, design) -> tuple[bool, str, dict[str, Any]]:
    # exact: a reverse scan with a row limit of 1 per range, one range per measure in the key
    what = f"rows {design.name} reads"
    return judge_query_figure(
        predicted, ds, design, "latest_reading", "rows_seen", what, relative=0.0
    )


latest_rows = Problem(
    "latest_rows",
    "a whole number of rows (exact)",
    _latest_rows,
    "Cloud Bigtable scans a range backwards and stops after one row. How many ranges does one "
    "meter's latest reading need when the measure sits in the key before the time?",
    2,
    "2: one reverse scan of one row per measure (kwh, voltage), since the measure comes before "
    "the time in the key (G03, G11).",
    form=number_form,
)
