"""Notebook 05's exercises (server_metrics): problem objects the notebook's answer cells check."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..errors import CollisionError, error_line
from .core import Problem, ____, short_repr
from .predict import judge_count, number_form

__all__ = ["____", "dashboard_key", "host_first_scans", "row_cells"]


def _segments_form(key: Any) -> str | None:
    """Why ``key`` is not a list of key segments, or None."""
    from workbench.schema.segments import Segment

    if isinstance(key, list | tuple) and key and all(isinstance(s, Segment) for s in key):
        return None
    return (
        "the answer is a list of key segments, e.g. "
        f'[wb.Field("site"), wb.Timestamp("ms", "epoch_ms")]; got {short_repr(key)}.'
    )


def _dashboard_key(key: list, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze
    from workbench.schema import Family, RowKey, Schema, Tall

    mine = Schema("my_key", RowKey(tuple(key)), Tall(Family("m")))
    try:
        a = analyze(ds, mine)
    except CollisionError as exc:
        lost = error_line(exc).split(":")[0]  # "29,884 events collide"
        return (
            False,
            f"with this key {lost}: readings of one host at one time share a row, so Bigtable "
            "would keep only one. Keep every segment that tells two readings apart.",
            {},
        )
    dash = a.queries["site_cpu_dashboard"]
    hot = a.keyspace.hotspot_factor
    scans = int(dash["scans"])
    return (
        dash["waste"] <= 1.5 and hot <= 1.5 and scans == 1,
        f"the dashboard reads {int(dash['rows_seen']):,} rows to return "
        f"{int(dash['rows_returned']):,} ({dash['waste']:,.1f}×, goal ≤ 1.5×) in {scans:,} key "
        f"range(s) (goal: one, whatever hosts the site has); busiest node {hot:.2f}× its fair "
        f"share (goal ≤ 1.5×).{_why_many_ranges(key, ds) if scans > 1 else ''}",
        {"schema": mine, "analysis": a},
    )


def _why_many_ranges(key: list, ds) -> str:
    """Why the panel needs a range per value: a column it leaves open sits before the time, so
    one range over what it fixes would read that column's every value over all time."""
    fixed = ds.query("site_cpu_dashboard").entity
    columns = [s.value_column for s in key]
    time_at = columns.index(None) if None in columns else len(columns)
    open_before = [c for c in columns[:time_at] if c is not None and c not in fixed]
    if not open_before:
        return ""
    mask = (ds.frame[list(fixed)] == pd.Series(fixed)).all(axis=1)
    return (
        f" Why several: {', '.join(open_before)} comes before the time, and the panel leaves it "
        f"open; one range over what it fixes would read all {int(mask.sum()):,} of its readings "
        "(every time, not only the window), so the planner reads one range per value instead."
    )


def _dashboard_solution() -> list:
    from workbench.schema import Field, Timestamp

    return [Field("site"), Field("what"), Timestamp("ms", "epoch_ms"), Field("host")]


dashboard_key = Problem(
    "dashboard_key",
    "a list of key segments",
    _dashboard_key,
    "put the segments the dashboard fixes first, then the time, then what it leaves open.",
    lambda: _dashboard_solution(),
    'site, what, time, host: [wb.Field("site"), wb.Field("what"), '
    'wb.Timestamp("ms", "epoch_ms"), wb.Field("host")] (G04, G07).',
    form=_segments_form,
)


def _host_first_scans(predicted: Any, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze
    from workbench.schema import preset

    plan = analyze(ds, preset("server_metrics", "host_metric_time")).queries["site_cpu_dashboard"]
    # exact: a range per host of the site, countable from the data without the workbench
    return judge_count(predicted, float(plan["scans"]), "key ranges (scans)", relative=0.0)


host_first_scans = Problem(
    "host_first_scans",
    "a whole number of key ranges (exact)",
    _host_first_scans,
    "the key starts with the host, and the panel names a site, not a host: a range can only "
    "cover one host's rows. Count what the panel leaves open in the data.",
    4,
    "4: one range per host of site gew (4 hosts in the workshop data), because the host leads "
    "the key (G20).",
    form=number_form,
)


def _row_cells(predicted: Any, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.schema import preset

    cells = preset("server_metrics", "heroic").to_cells(ds).frame
    median = float(cells.groupby("row_key").size().median())
    # ±10 %: the attendee estimates it from the sample's span and the reporting interval
    return judge_count(predicted, median, "cells in a Heroic row of the workshop data (median)")


row_cells = Problem(
    "row_cells",
    "a number of cells (±10 %)",
    _row_cells,
    "a row holds one series, one cell per point, and the sample is far shorter than a row's "
    "window. How long does the sample last, and how often does a host report?",
    241,
    "about 241: 40 minutes at one point every 10 seconds, both ends included; the row could "
    "hold 2^32 ms of points, so the sample fills a tiny part of it (G16).",
    form=number_form,
)
