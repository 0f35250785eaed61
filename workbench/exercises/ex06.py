"""Notebook 06's exercises (energy_meters): problem objects the notebook's answer cells check."""

from __future__ import annotations

from typing import Any

from .core import Problem, ____, not_a_name

__all__ = ["____", "daily_panel"]


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


def _daily_panel(answer: str, ds, base) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze

    bucket = summary_bucket(answer)
    if bucket is None:
        words = ["minute", "hour", "day", "week", "month", "hourly", "daily", "weekly"]
        return False, not_a_name(answer, words, "a summary bucket") or "", {}
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


daily_panel = Problem(
    "daily_panel",
    'a summary bucket, e.g. "hour"',
    _daily_panel,
    "summaries per hour still leave 24 rows per day: pick a coarser bucket.",
    "day",
    '"day": one summary row per day, so ten days read ten rows (G30).',
)
