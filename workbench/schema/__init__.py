"""Schemas: row-key segments, layouts, families + GC, read plans, and the preset gallery.

``wb.pattern_names(dataset)`` lists the designs for a dataset (recommended first);
``wb.preset(dataset, pattern)`` builds one; ``schema.to_cells(ds)`` /
``schema.from_cells(cells)`` / ``schema.plan(intent)`` do the work.
"""

from __future__ import annotations

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
from .keys import RowKey, heroic_key
from .layouts import Layout, NewCells, NewColumns, Serialized, Tall
from .limits import Finding, LossReport, check_limits
from .plan import CellFilter, KeyRange, PlanResult, ReadPlan
from .presets import pattern_names, preset, presets
from .schema import Aggregates, Schema, Table, findings, loss_report
from .segments import (
    Field,
    Hashed,
    Int,
    Literal,
    Metric,
    PaddedInt,
    ReversedDomain,
    ReversedId,
    Salt,
    Segment,
    Tags,
)
from .shape import Shape
from .time_segments import BaseTimestamp, ReversedTimestamp, TimeBucket, Timestamp
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
    "Segment",
    "Literal",
    "Field",
    "Int",
    "PaddedInt",
    "Hashed",
    "ReversedId",
    "ReversedDomain",
    "Metric",
    "Timestamp",
    "TimeBucket",
    "ReversedTimestamp",
    "BaseTimestamp",
    "Salt",
    "Tags",
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
