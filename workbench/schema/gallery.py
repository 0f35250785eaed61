"""One gallery for every dataset: the named datasets' presets, or designs derived from your data.

The named sample datasets have hand-made presets. A CSV or DataFrame of your own gets every
pattern family the workbench knows, built from its entity columns, its measures and the
finest time precision its events need (G31): each entity order (field promotion, G07),
timestamp-first (G06), salting (G08), reversed timestamps (G09), time buckets with new
columns (G12) and with new cells (G13), bounded wide rows (G02), serialized JSON/protobuf
(G14), Heroic base + offset (G16), pre-aggregated rows (G29) and two tables (G05). Each
either round-trips losslessly or refuses clearly (``to_cells`` raises CollisionError).
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable
from itertools import permutations
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..errors import SchemaError
from .families import Family, max_age, max_versions, union
from .keys import RowKey
from .layouts import NewCells, NewColumns, Serialized, Tall
from .presets import SHAPES
from .presets import pattern_names as _preset_names
from .presets import preset as _preset
from .schema import Aggregates, Schema, Table
from .segments import Field, Metric, Salt
from .shape import Shape
from .time_segments import BaseTimestamp, ReversedTimestamp, TimeBucket, Timestamp
from .time_text import time_us
from .wide_layouts import HeroicOffsets, Wide

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset


def has_presets(ds: Dataset) -> bool:
    """True when ``ds`` is one of the named datasets (same columns), so its preset gallery applies."""
    shape = SHAPES.get(ds.name) if ds.name in SHAPES else None
    if shape is None:
        return False
    return (tuple(ds.entity), ds.time, tuple(ds.measures)) == (
        shape.entity,
        shape.time,
        shape.measures,
    )


def patterns_for(ds: Dataset) -> list[str]:
    """The design names to offer for ``ds``, the recommended one first."""
    return _preset_names(ds.name) if has_presets(ds) else list(_generic(ds))


def time_precision(ds: Dataset) -> str:
    """The coarsest key precision that keeps every event's time: second, ms or us (G31)."""
    t = time_us(ds.frame[ds.time]) if len(ds.frame) else np.zeros(0, dtype=np.int64)
    if (t % 1000).any():
        return "us"
    if (t % 1_000_000).any():
        return "ms"
    return "second"


_UNIT = {"second": "s", "ms": "ms", "us": "us"}
_WIDTH = {"s": 11, "ms": 14, "us": 17}  # one digit more than now: times before 1970 fit


def _generic(ds: Dataset) -> dict[str, Callable[..., Schema]]:
    """Every design for ``ds``'s shape, recommended (entity columns first) first.

    Why one function: it is a catalogue, one entry per design family for your own data's shape,
    read top to bottom like presets.py.
    """
    prec = time_precision(ds)
    ents = list(ds.entity)
    fam = Family("m")
    out: dict[str, Callable[..., Schema]] = {}

    def entity_order(order: tuple[str, ...]) -> Callable[..., Schema]:
        def build() -> Schema:
            return Schema(
                "entity_first" if list(order) == ents else "promote_" + "_".join(order),
                RowKey((*(Field(c) for c in order), Timestamp(prec))),
                Tall(fam),
                description=f"{'#'.join(order)}#time: writes spread over the entities; one "
                f"{order[0]}'s events are one range (field promotion, G07, G04).",
                guidelines=("G07", "G04"),
            )

        return build

    orders = list(permutations(ents)) if len(ents) <= 3 else [tuple(ents)]
    out["entity_first"] = entity_order(tuple(ents))
    for order in orders[1:]:
        out["promote_" + "_".join(order)] = entity_order(order)

    def timestamp_first() -> Schema:
        return Schema(
            "timestamp_first",
            RowKey((Timestamp(prec), *(Field(c) for c in ents))),
            Tall(fam),
            description="Anti-pattern: the time leads the key, every write lands on one tablet (G06).",
            guidelines=("G06",),
        )

    def salted(n: int = 4) -> Schema:
        return Schema(
            "salted",
            RowKey((Salt(n, ("time",)), Timestamp(prec), *(Field(c) for c in ents))),
            Tall(fam),
            description=f"Time-first key salted into {n} buckets: writes spread, range reads "
            f"need {n} scans (G08).",
            guidelines=("G08", "G06"),
        )

    def reversed_timestamp() -> Schema:
        unit = _UNIT[prec]
        width = _WIDTH[unit]
        return Schema(
            "reversed_timestamp",
            RowKey((*(Field(c) for c in ents), ReversedTimestamp(unit, 10**width // 2 - 1, width))),
            Tall(fam),
            description="Newest event first within an entity: latest-N is one short read (G09).",
            guidelines=("G09",),
        )

    def bucket_new_columns(bucket: str = "day") -> Schema:
        return Schema(
            "bucket_new_columns",
            RowKey((*(Field(c) for c in ents), Metric(tuple(ds.measures)), TimeBucket(bucket))),
            NewColumns(fam),
            description=f"A row per entity, measure and {bucket}; each event is a new column "
            "whose qualifier is the value (G12).",
            guidelines=("G12", "G19"),
        )

    def bucket_new_cells(bucket: str = "day", retention: str = "3650D") -> Schema:
        return Schema(
            "bucket_new_cells",
            RowKey((*(Field(c) for c in ents), TimeBucket(bucket))),
            NewCells(Family("m", gc=max_age(retention))),
            description=f"A row per entity and {bucket}; each event adds a cell version to each "
            f"measure column, kept {retention} by the GC rule (G13).",
            guidelines=("G13",),
        )

    def _fams(prefix: str) -> dict[str, str]:
        if len(ds.measures) == 1:
            return {ds.measures[0]: prefix}
        return {m: f"{prefix}{i}" for i, m in enumerate(ds.measures)}

    step = _step(ds)
    wide_bucket, wide_q = (
        ("hour", "minute")
        if step < 3_600_000_000
        else ("day", "hour")
        if step < 86_400_000_000
        else ("month", "day")
    )

    def wide_rows(bucket: str = wide_bucket, qualifier: str = wide_q) -> Schema:
        return Schema(
            "wide_rows",
            RowKey((*(Field(c) for c in ents), TimeBucket(bucket))),
            Wide(cast(Any, qualifier), _fams("m"), pad=2),
            description=f"A bounded row per entity and {bucket}, one column per {qualifier} "
            f"(G02); refuses data with two events in one {qualifier}.",
            guidelines=("G02", "G19", "G21"),
        )

    def serialized_json() -> Schema:
        return Schema(
            "serialized_json",
            RowKey((*(Field(c) for c in ents), Timestamp(prec))),
            Serialized("json", fam),
            description="One JSON cell per event: compact, no per-measure reads (G14).",
            guidelines=("G14", "G28"),
        )

    def serialized_protobuf() -> Schema:
        return Schema(
            "serialized_protobuf",
            RowKey((*(Field(c) for c in ents), Timestamp(prec))),
            Serialized("protobuf", fam),
            description="One protobuf cell per event: the most compact single-event form (G14).",
            guidelines=("G14", "G28"),
        )

    def heroic(bits: int = 32) -> Schema:
        return Schema(
            "heroic",
            RowKey((*(Field(c) for c in ents), BaseTimestamp(bits)), ","),
            HeroicOffsets(families_={m: Family(f) for m, f in _fams("p").items()}, bits=bits),
            description=f"Heroic's base + offset: a 2^{bits} ms base in the key, the offset in "
            "the qualifier (G16); refuses events finer than a millisecond.",
            guidelines=("G16", "G02"),
        )

    def pre_aggregated(bucket: str = "hour") -> Schema:
        return Schema(
            "pre_aggregated",
            RowKey((*(Field(c) for c in ents), Timestamp(prec))),
            Tall(fam),
            aggregates=Aggregates(
                bucket,
                f"{bucket}ly" if bucket != "day" else "daily",
                "agg",
                ("count", "min", "max", "sum", "mean"),
                Family("s", gc=union(max_age("730D"), max_versions(1))),
            ),
            description=f"Raw rows plus agg#{bucket} summary rows in their own family: "
            "aggregate queries read summaries (G29, G30).",
            guidelines=("G29", "G30"),
        )

    def two_tables() -> Schema:
        return Schema(
            "two_tables",
            RowKey((*(Field(c) for c in ents), Timestamp(prec))),
            Tall(fam),
            tables=(Table("by_time", RowKey((Timestamp(prec), *(Field(c) for c in ents)))),),
            description="Two tables, each keyed for one query: by entity (main) and by time "
            "(by_time). Each query reads a range; writes double (G05).",
            guidelines=("G05", "G04"),
        )

    pre_epoch = len(ds.frame) > 0 and int(time_us(ds.frame[ds.time]).min()) < 0
    for fn in (
        timestamp_first,
        salted,
        reversed_timestamp,
        bucket_new_columns,
        bucket_new_cells,
        wide_rows,
        serialized_json,
        serialized_protobuf,
        heroic,
        pre_aggregated,
        two_tables,
    ):
        if fn is heroic and pre_epoch:
            continue  # Heroic's base is unsigned ms since 1970: refused in schema_for
        out[fn.__name__] = fn
    return out


def _step(ds: Dataset) -> int:
    """The smallest gap between two events of one series, in µs (0 if none)."""
    if len(ds.frame) < 2:
        return 0
    t = time_us(ds.frame[ds.time])
    same = np.ones(len(t) - 1, dtype=bool)
    for c in ds.entity:
        v = ds.frame[c].to_numpy()
        same &= v[1:] == v[:-1]
    d = np.diff(t)[same]
    return int(d.min()) if len(d) else 0


def schema_for(ds: Dataset, pattern: str, **params: Any) -> Schema:
    """The named design for ``ds``: a preset for a named dataset, else a design derived from it."""
    if has_presets(ds):
        return _preset(ds.name, pattern, **params)
    table = _generic(ds)
    if pattern == "heroic" and pattern not in table:
        raise SchemaError(
            f"The Heroic design needs times from 1970 on (its base is unsigned milliseconds since "
            f"the epoch, G16); {ds.name!r} starts {ds.time_span[0]:%Y-%m-%d}. Choose another "
            "design, e.g. 'entity_first' or 'wide_rows'."
        )
    if pattern not in table:
        close = difflib.get_close_matches(pattern, list(table), n=1)
        raise SchemaError(
            f"Unknown design {pattern!r} for your dataset {ds.name!r}; choose one of "
            f"{', '.join(table)}." + (f" Did you mean {close[0]!r}?" if close else "")
        )
    return _built(ds, table[pattern], pattern, params, Shape.of(ds))


def _built(
    ds: Dataset, fn: Callable[..., Schema], pattern: str, params: dict[str, Any], shape: Shape
) -> Schema:
    accepted = list(inspect.signature(fn).parameters)
    bad = [p for p in params if p not in accepted]
    if bad:
        raise SchemaError(
            f"Design {pattern!r} has no parameter {bad[0]!r}; it accepts {accepted or 'none'}."
        )
    from dataclasses import replace

    return replace(fn(**params), dataset=ds.name, shape=shape)


def pattern_names(ds_or_name: Dataset | str) -> list[str]:
    """The designs for a dataset (a named one's presets, or every family for your own Dataset),
    the recommended design first."""
    if isinstance(ds_or_name, str):
        return _preset_names(ds_or_name)
    _require(ds_or_name)
    return patterns_for(ds_or_name)


def preset(ds_or_name: Dataset | str, pattern: str, **params: Any) -> Schema:
    """Build a named design for a dataset.

    Parameters
    ----------
    ds_or_name : Dataset or str
        A dataset name (``"fx_prices"``) or a Dataset (your own data gets every pattern family
        built from its shape).
    pattern : str
        One of ``wb.pattern_names(ds_or_name)`` (recommended first).
    **params
        Override the pattern's defaults, e.g. ``n=8`` salt buckets, ``bucket="week"``.

    Returns
    -------
    Schema
        The design: row key, layout, families and GC rules, extra tables, aggregates.
    """
    if isinstance(ds_or_name, str):
        return _preset(ds_or_name, pattern, **params)
    _require(ds_or_name)
    return schema_for(ds_or_name, pattern, **params)


def presets(ds_or_name: Dataset | str) -> dict[str, Schema]:
    """Every design of a dataset with its default parameters, in gallery order."""
    if not isinstance(ds_or_name, str):
        _require(ds_or_name)
        if not has_presets(ds_or_name):
            # your own data: its shape and design families worked out once, not once per
            # design (0.47 s for twelve designs on a 516,000-event shape sample)
            table, shape = _generic(ds_or_name), Shape.of(ds_or_name)
            return {n: _built(ds_or_name, fn, n, {}, shape) for n, fn in table.items()}
    return {n: preset(ds_or_name, n) for n in pattern_names(ds_or_name)}


def _require(ds: object) -> None:
    from ..datasets.model import require_dataset

    require_dataset(ds, "pattern_names/preset")


__all__ = [
    "patterns_for",
    "schema_for",
    "has_presets",
    "time_precision",
    "pattern_names",
    "preset",
    "presets",
]
