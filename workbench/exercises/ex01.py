"""Notebook 01's exercises (garden_temperature): problem objects the notebook's answer cells check."""

from __future__ import annotations

from typing import Any

from .core import Problem, ____, design_name

__all__ = ["____", "garden_month"]


def _garden_month(choice: str, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze
    from workbench.schema import preset

    if (why := design_name(choice, "garden_temperature")) is not None:
        return False, why, {}
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
    "one row per garden per month keeps a month together and stops growing when the month ends.",
    "month_rows",
    '"month_rows": the month query reads one row, and a row closes when its month ends (G02, G10).',
)
