"""Which designs the designer offers for a dataset: the preset gallery, or generic designs for your own data.

The named sample datasets have hand-made presets (``wb.pattern_names``). A CSV or
DataFrame of your own has other columns, so it gets a small generic gallery built
from its entity columns and the finest time precision its events need (G31): the
recommended entity-first key (G07), timestamp-first (G06), salted (G08),
reversed timestamp (G09) and one serialized cell per event (G14).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..datasets.model import Dataset
from ..errors import SchemaError
from ..schema import (
    Family,
    Field,
    ReversedTimestamp,
    RowKey,
    Salt,
    Schema,
    Serialized,
    Shape,
    Tall,
    Timestamp,
    pattern_names,
    preset,
)
from ..schema.presets import SHAPES
from ..schema.time_text import time_us

GENERIC = ("entity_first", "timestamp_first", "salted", "reversed_timestamp", "serialized_json")


def has_presets(ds: Dataset) -> bool:
    """True when ``ds`` is one of the named datasets (same columns), so its preset gallery applies."""
    shape = SHAPES.get(ds.name)
    if shape is None:
        return False
    return (tuple(ds.entity), ds.time, tuple(ds.measures)) == (
        shape.entity,
        shape.time,
        shape.measures,
    )


def patterns_for(ds: Any) -> list[str]:
    """The design names to offer for ``ds``, the recommended one first."""
    return pattern_names(ds.name) if has_presets(ds) else list(GENERIC)


def time_precision(ds: Any) -> str:
    """The coarsest key precision that keeps every event's time: second, ms or us (G31)."""
    t = time_us(ds.frame[ds.time]) if len(ds.frame) else np.zeros(0, dtype=np.int64)
    if (t % 1000).any():
        return "us"
    if (t % 1_000_000).any():
        return "ms"
    return "second"


def schema_for(ds: Any, pattern: str, **params: Any) -> Schema:
    """The named design for ``ds``: a preset for a named dataset, else a generic design."""
    if has_presets(ds):
        return preset(ds.name, pattern, **params)
    if pattern not in GENERIC:
        raise SchemaError(
            f"Unknown design {pattern!r} for your dataset {ds.name!r}; choose one of {', '.join(GENERIC)}."
        )
    if params:
        raise SchemaError(
            f"The generic design {pattern!r} takes no parameters; got {sorted(params)}."
        )
    prec = time_precision(ds)
    ents = tuple(Field(c) for c in ds.entity)
    fam = Family("m")
    shape = Shape.of(ds)
    unit = {"second": "s", "ms": "ms", "us": "us"}[prec]
    width = {"s": 10, "ms": 13, "us": 16}[unit]
    designs = {
        "entity_first": (
            RowKey((*ents, Timestamp(prec))),
            Tall(fam),
            "Entity columns first, then the time: writes spread over the entities (G07).",
            ("G07", "G04"),
        ),
        "timestamp_first": (
            RowKey((Timestamp(prec), *ents)),
            Tall(fam),
            "Anti-pattern: the time leads the key, every write lands on one tablet (G06).",
            ("G06",),
        ),
        "salted": (
            RowKey((Salt(4, ("time",)), Timestamp(prec), *ents)),
            Tall(fam),
            "Time-first key salted into 4 buckets: writes spread, range reads need 4 scans (G08).",
            ("G08",),
        ),
        "reversed_timestamp": (
            RowKey((*ents, ReversedTimestamp(unit, 10**width - 1, width))),
            Tall(fam),
            "Newest event first within an entity: latest-N is one short read (G09).",
            ("G09",),
        ),
        "serialized_json": (
            RowKey((*ents, Timestamp(prec))),
            Serialized("json", fam),
            "One JSON cell per event: compact, no per-measure reads (G14).",
            ("G14", "G28"),
        ),
    }
    key, layout, desc, gl = designs[pattern]
    return Schema(
        pattern, key, layout, dataset=ds.name, shape=shape, description=desc, guidelines=gl
    )


__all__ = ["patterns_for", "schema_for", "has_presets", "time_precision", "GENERIC"]
