"""Notebook 05's exercises (server_metrics): problem objects the notebook's answer cells check."""

from __future__ import annotations

from typing import Any

from ..errors import CollisionError, error_line
from .core import Problem, ____

__all__ = ["____", "dashboard_key"]


def _dashboard_key(key: list, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze
    from workbench.schema import Family, RowKey, Schema, Tall
    from workbench.schema.segments import Segment

    if (
        not isinstance(key, (list, tuple))
        or not key
        or not all(isinstance(s, Segment) for s in key)
    ):
        return (
            False,
            "the answer is a list of key segments, e.g. "
            f'[wb.Field("site"), wb.Timestamp("ms", "epoch_ms")]; got {key!r}.',
            {},
        )
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
        "share (goal ≤ 1.5×).",
        {"schema": mine, "analysis": a},
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
)
