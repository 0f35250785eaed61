"""Notebook 03's exercises (weather_balloons): problem objects the notebook's answer cells check."""

from __future__ import annotations

from typing import Any

from .core import Problem, ____, design_name

__all__ = ["____", "balloon_format"]


def _balloon_format(choice: str, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze
    from workbench.schema import preset

    if (why := design_name(choice, "weather_balloons")) is not None:
        return False, why, {}
    mine = analyze(ds, preset("weather_balloons", choice))
    per_event = mine.capacity.bytes_per_event
    scan = int(mine.queries["location_pressure_week"]["bytes_seen"])
    return (
        per_event <= 100 and scan <= 400_000,
        f"{choice}: {per_event:,.0f} bytes per reading (goal ≤ 100); the pressure query scans "
        f"{scan:,} bytes (goal ≤ 400,000).",
        {},
    )


balloon_format = Problem(
    "balloon_format",
    "a gallery design name",
    _balloon_format,
    "one compact cell per reading: which serialization is smallest?",
    "serialized_protobuf",
    '"serialized_protobuf": one small cell per reading, flexible for new queries (G14, G28).',
)
