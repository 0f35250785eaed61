"""Notebook 03's exercises (weather_balloons): problem objects the notebook's answer cells check."""

from __future__ import annotations

from typing import Any

from ..formatting import nbytes
from .core import Problem, ____, design_form
from .predict import judge_count, judge_query_figure, number_form

__all__ = ["____", "balloon_format", "column_versions", "week_hour_rows"]


def _balloon_format(choice: str, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze
    from workbench.schema import preset

    mine = analyze(ds, preset("weather_balloons", choice))
    per_event = mine.capacity.bytes_per_event
    scan = int(mine.queries["location_pressure_week"]["bytes_seen"])
    return (
        per_event <= 100 and scan <= 400_000,
        f"{choice}: {per_event:,.0f} bytes per reading (goal ≤ 100); the pressure query scans "
        f"{nbytes(scan)} (goal ≤ {nbytes(400_000)}).",  # in kB, as the notebook's tables
        {},
    )


balloon_format = Problem(
    "balloon_format",
    "a gallery design name",
    _balloon_format,
    "one compact cell per reading: which serialization is smallest?",
    "serialized_protobuf",
    '"serialized_protobuf": one small cell per reading, flexible for new queries (G14, G28).',
    form=design_form("weather_balloons"),
)


def _week_hour_rows(predicted: Any, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.schema import preset

    design = preset("weather_balloons", "bucket_new_columns", bucket="week")
    # exact: countable from the key (what one row holds) and the query (what it asks for)
    what = "rows week buckets read for balloon_hour"
    return judge_query_figure(
        predicted, ds, design, "balloon_hour", "rows_seen", what, relative=0.0
    )


week_hour_rows = Problem(
    "week_hour_rows",
    "a whole number of rows (exact)",
    _week_hour_rows,
    "a row holds one balloon, one measure and one week; the query asks for every measure of one "
    "balloon over one hour. How many rows can that hour touch?",
    4,
    "4: one row per measure (pressure, temperature, humidity, altitude), each holding the whole "
    "flight of that measure, because a flight lasts hours and the bucket a week (G12).",
    form=number_form,
)


def _column_versions(predicted: Any, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.schema import preset

    cells = preset("weather_balloons", "bucket_new_cells", retention="2D").to_cells(ds).frame
    median = float(cells.groupby(["row_key", "qualifier"]).size().median())
    # ±10 %: the attendee estimates a flight's readings as events ÷ balloons from the header
    return judge_count(predicted, median, "versions in a column (median)")


column_versions = Problem(
    "column_versions",
    "a number of versions (±10 %)",
    _column_versions,
    "a column is one measure of one balloon in one week, and every reading adds a version. How "
    "many readings does one balloon send? The dataset's header has the events and the series.",
    134,
    "about 134: a whole flight of readings (32,136 events ÷ 234 balloons ≈ 137; a flight cut by "
    "a week boundary makes a few columns shorter) (G13).",
    form=number_form,
)
