"""Schemas: row-key segments, layouts, families + GC, read plans, and the preset gallery.

``wb.pattern_names(dataset)`` lists the designs for a dataset (recommended first);
``wb.preset(dataset, pattern)`` builds one; ``schema.to_cells(ds)`` /
``schema.from_cells(cells)`` / ``schema.plan(intent)`` do the work.
"""

from __future__ import annotations

from . import segments, time_segments
from .families import (
    Family,
    GcRule,
    Intersection,
    MaxAge,
    MaxVersions,
    Union_,
    intersection,
    max_age,
    max_versions,
    union,
)
from .gallery import pattern_names, preset, presets
from .keys import RowKey, heroic_key
from .layouts import Layout, NewCells, NewColumns, Serialized, Tall
from .limits import Finding, LossReport, check_limits
from .plan import CellFilter, KeyRange, PlanResult, ReadPlan
from .schema import Aggregates, Schema, Table, findings, loss_report
from .segments import *  # noqa: F403  # every segment kind: its module's __all__
from .shape import Shape
from .time_segments import *  # noqa: F403
from .wide_layouts import HeroicOffsets, Wide

__all__ = [
    "Schema",
    "Table",
    "Aggregates",
    "Shape",
    "pattern_names",
    "preset",
    "presets",
    "RowKey",
    *segments.__all__,
    *time_segments.__all__,
    "heroic_key",
    "Layout",
    "Tall",
    "Serialized",
    "NewColumns",
    "NewCells",
    "Wide",
    "HeroicOffsets",
    "Family",
    "GcRule",
    "MaxAge",
    "MaxVersions",
    "Union_",
    "Intersection",
    "max_age",
    "max_versions",
    "union",
    "intersection",
    "ReadPlan",
    "KeyRange",
    "CellFilter",
    "PlanResult",
    "Finding",
    "LossReport",
    "check_limits",
    "loss_report",
    "findings",
]
