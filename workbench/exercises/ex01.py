"""Notebook 01's exercises (garden_temperature): problem objects the notebook's answer cells check.

* ``garden_month`` — which gallery design reads a garden's month as one row and stays small.
* ``gardens_day_rows`` — predict the rows the month design reads for every garden on one day.
* ``versions_cells`` — predict the cells the versioned row scans to return one month.
"""

from __future__ import annotations

from typing import Any

from .core import Problem, ____, design_form
from .predict import judge_query_figure, number_form

__all__ = ["____", "garden_month", "gardens_day_rows", "versions_cells"]


def _garden_month(choice: str, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze
    from workbench.schema import preset

    mine = analyze(ds, preset("garden_temperature", choice))
    rows = int(mine.queries["garden_month"]["rows_seen"])
    worst = int(mine.rowsizes.projected_max_bytes)
    return (
        rows == 1 and worst <= 10_000,
        f"{choice}: the month query reads {rows:,} row(s) (goal 1); largest row after a year "
        f"{worst:,} bytes (goal ≤ 10,000).",
        {"analysis": mine},
    )


garden_month = Problem(
    "garden_month",
    'a gallery design name, e.g. "daily_rows"',
    _garden_month,
    "a row that holds a whole month is read once for the month; a row that holds everything "
    "is read once too, but keeps growing. Which unit of time closes a row after 31 mornings?",
    "month_rows",
    '"month_rows": the month query reads one row, and a row closes when its month ends (G02, G10).',
    form=design_form("garden_temperature"),
)


def _gardens_day_rows(predicted: Any, ds, design) -> tuple[bool, str, dict[str, Any]]:
    # exact: one row per garden is countable from the dataset's header, no estimate needed
    what = f"rows {design.name} reads for all_gardens_day"
    return judge_query_figure(
        predicted, ds, design, "all_gardens_day", "rows_seen", what, relative=0.0
    )


gardens_day_rows = Problem(
    "gardens_day_rows",
    "a whole number of rows (exact)",
    _gardens_day_rows,
    "a month row holds one garden's month, so one day of every garden sits in a different row "
    "for each garden. How many gardens (series) does the dataset's header say there are?",
    39,
    "39: every garden's month row holds 15 March, so the day reads one row per garden "
    "(the dataset has 39 series); the key cannot bring one day of all gardens together (G02).",
    form=number_form,
)


def _versions_cells(predicted: Any, ds, design) -> tuple[bool, str, dict[str, Any]]:
    # ±10 %: the attendee estimates a garden's history as events ÷ gardens from the header
    what = f"cells {design.name} scans for garden_month"
    return judge_query_figure(
        predicted, ds, design, "garden_month", "cells_seen", what, relative=0.10
    )


versions_cells = Problem(
    "versions_cells",
    "a number of cells (±10 %)",
    _versions_cells,
    "the row holds every reading VEGGIEGARDEN ever sent, and a version filter is applied after "
    "the read. The dataset header gives the events and the series: how many readings is that "
    "per garden?",
    769,
    "about 769 (29,991 events ÷ 39 gardens): the whole garden's history is scanned to return the "
    "31 cells of March (G03).",
    form=number_form,
)
