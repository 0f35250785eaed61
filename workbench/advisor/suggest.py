"""Better schemas, built with the schema engine: the "apply" half of each finding.

Each function takes a schema and returns a changed copy (``dataclasses.replace``),
named after the fix, so the designer can offer it with one click and the advisor
can check that applying it removes the finding it answers.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from ..datasets.model import Dataset
from ..errors import SchemaError
from ..schema import (
    Family,
    Field,
    Hashed,
    Layout,
    Metric,
    NewCells,
    NewColumns,
    ReversedId,
    RowKey,
    Schema,
    Segment,
    Serialized,
    Tall,
    TimeBucket,
    Wide,
    loss_report,
)
from ..schema.families import GcRule
from ..schema.segments import TIME
from ..schema.time_segments import BaseTimestamp
from ..schema.time_text import PRECISIONS


def is_time(seg: Segment) -> bool:
    return TIME in seg.sources() and seg.time_order != 0


def lead_index(key: RowKey) -> int | None:
    """Index of the first segment that is not fixed text (what decides where writes land)."""
    return next((i for i, s in enumerate(key.segments) if not s.constant), None)


def renamed(schema: Schema, suffix: str, description: str) -> Schema:
    """``<base name> + <suffix>``: earlier suggestions and the designer's edit notes ("base: key time#pair")
    are dropped, so the name says what the design is, not how it was reached."""
    base = schema.name.split(" + ")[0].split(": ")[0]
    return replace(schema, name=f"{base} + {suffix}", description=description)


def with_key(schema: Schema, table: str, key: RowKey) -> Schema:
    """The schema with the row key of logical table ``table`` replaced."""
    if table == schema.table:
        return replace(schema, key=key)
    return replace(
        schema, tables=tuple(replace(t, key=key) if t.name == table else t for t in schema.tables)
    )


def key_of(schema: Schema, table: str) -> RowKey:
    return dict(schema.all_tables())[table]


def sequential_ints(values: Any) -> bool:
    """Consecutive-looking integer IDs: at least 3 distinct, dense in their range (G23)."""
    import numpy as np

    v = np.unique(np.asarray(values, dtype=np.int64))
    return len(v) >= 3 and (int(v.max()) - int(v.min()) + 1) <= 2 * len(v)


def promote(key: RowKey, ds: Dataset) -> RowKey:
    """Field promotion (G07): leading fixed text, then the non-time segments, then the time.

    Salt is dropped (promotion is what makes it unnecessary); a sequential integer ID
    that would now lead the key is reversed (G23); with no entity segment at all the
    dataset's entity columns are added as readable fields."""
    lead = [s for s in key.segments[: lead_index(key) or 0]]
    rest = key.segments[len(lead) :]
    others = [s for s in rest if not is_time(s) and not s.buckets()]
    times = [s for s in rest if is_time(s)]
    if not any(s.sources() for s in others):
        others = [Field(c) for c in ds.entity] + others
    lead_col = others[0].value_column if others and others[0].integer else None
    if lead_col is not None and lead_col in ds.frame:
        col = ds.frame[lead_col]
        if col.dtype.kind in "iu" and sequential_ints(col.to_numpy()):
            others[0] = ReversedId(lead_col)
    return RowKey(tuple(lead + others + times), key.delimiter)


def without_salt(key: RowKey, ds: Dataset) -> RowKey:
    return promote(RowKey(tuple(s for s in key.segments if not s.buckets()), key.delimiter), ds)


def replace_segment(key: RowKey, i: int, seg: Segment) -> RowKey:
    segs = list(key.segments)
    segs[i] = seg
    return RowKey(tuple(segs), key.delimiter)


def finer_precisions(seg: Segment) -> list[str]:
    """Precisions finer than the segment's, coarsest first (second, ms, us at most)."""
    p = seg.time_precision()
    if p not in PRECISIONS:
        return []
    start = max(PRECISIONS.index(p) + 1, PRECISIONS.index("second"))
    return list(PRECISIONS[start:])


def loses_nothing(schema: Schema, ds: Dataset) -> bool:
    """The schema's own collision check: no event overwritten, no time rounded."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cells = schema.to_cells(ds, accept_loss=True)
    except SchemaError:
        return False
    return not loss_report(cells)


def first_lossless(candidates: Iterable[Callable[[], Schema]], ds: Dataset) -> Schema | None:
    for make in candidates:
        try:
            s = make()
        except SchemaError:
            continue
        if loses_nothing(s, ds):
            return s
    return None


def tall_layout(layout: Layout) -> Layout:
    """The single-timestamp equivalent of a layout (a new row per reading, G24/G03)."""
    if isinstance(layout, NewCells):
        return Tall(replace(layout.family, gc=None), layout.qualifiers, layout.value_qualifier)
    if isinstance(layout, (Tall, Serialized)):
        return layout
    if isinstance(layout, NewColumns):
        return Tall(layout.family)
    if isinstance(layout, Wide):
        return Tall(Family("m"))
    return Tall()


def with_family_gc(schema: Schema, family: str, gc: GcRule | None) -> Schema:
    """The schema with the GC rule of one family changed (layouts that name one family)."""
    lay = schema.layout
    if isinstance(lay, (Tall, NewColumns, Serialized)) and lay.family.name == family:
        return replace(schema, layout=replace(lay, family=replace(lay.family, gc=gc)))
    if isinstance(lay, Wide):
        fams = tuple((m, replace(f, gc=gc) if f.name == family else f) for m, f in lay.family_pairs)
        return replace(schema, layout=replace(lay, families_=fams))
    if schema.aggregates is not None and schema.aggregates.family.name == family:
        return replace(
            schema,
            aggregates=replace(schema.aggregates, family=replace(schema.aggregates.family, gc=gc)),
        )
    raise SchemaError(f"No family {family!r} in schema {schema.name!r} whose GC rule can be set.")


def short_names(schema: Schema, measures: Iterable[str], carried: Iterable[str]) -> Schema:
    """Short but meaningful names (G01): a one-letter family, qualifiers of 1–3 characters."""
    lay = schema.layout
    used: set[str] = set()

    def short(name: str) -> str:
        letters = [c for c in name.lower() if c.isalnum()] or ["x"]
        for n in (1, 2, 3):
            cand = "".join(letters[:n])
            if cand not in used:
                used.add(cand)
                return cand
        i = 0
        while f"{letters[0]}{i}" in used:
            i += 1
        used.add(f"{letters[0]}{i}")
        return f"{letters[0]}{i}"

    new: Layout
    if isinstance(lay, (Tall, NewCells)):
        fam = replace(lay.family, name=short(lay.family.name))
        quals = tuple((c, short(c)) for c in (*measures, *carried))
        new = replace(lay, family=fam, qualifiers=quals, value_qualifier=short(lay.value_qualifier))
    elif isinstance(lay, (Serialized, NewColumns)):
        new = replace(lay, family=replace(lay.family, name=short(lay.family.name)))
    elif isinstance(lay, Wide):
        new = replace(
            lay, families_=tuple((m, replace(lay.family_of(m), name=short(m))) for m in measures)
        )
    else:
        return schema
    return replace(schema, layout=new)


__all__ = [
    "is_time",
    "lead_index",
    "promote",
    "without_salt",
    "replace_segment",
    "finer_precisions",
    "loses_nothing",
    "first_lossless",
    "tall_layout",
    "with_family_gc",
    "short_names",
    "renamed",
    "with_key",
    "key_of",
    "sequential_ints",
    "BaseTimestamp",
    "Hashed",
    "Metric",
    "TimeBucket",
]
