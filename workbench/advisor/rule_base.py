"""What every advisor rule shares: the ``RULES`` registry and ``@rule``, the finding builder,
thresholds, Google's schema checklist, and small helpers over a design's key and data."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..datasets.model import Dataset
from ..schema import (
    Family,
    RowKey,
    Schema,
    Tall,
    TimeBucket,
    Timestamp,
    Wide,
)
from ..schema.segments import RenderContext, Segment
from ..schema.time_text import time_us
from ..schema.wide_layouts import WideQualifier
from .context import Context
from .findings import Finding
from .suggest import (
    first_lossless,
    replace_segment,
    tall_layout,
)

NEAR = 0.5  # "near a hard limit": half of it (G19, G20)
NAME_LIKE = 64  # more distinct qualifiers than this carry data (G12, G19), not names (G01)
# Google's own schema checklist: google/skills, skills/cloud/bigtable-basics/references/
# schema_design.md, "Performance Checklist (Agent Verification)" (2026), plus its "Counters for
# real-time metrics" and "Materialized views" sections. A finding that checks an item cites it
# (``make_finding(checklist=...)``, or by rule name below): its data["checklist"] is the item
# and its last evidence line the item and the source.
CHECKLIST_SOURCE = (
    "Google's schema checklist (google/skills bigtable-basics, "
    "references/schema_design.md, Performance Checklist)"
)
CHECKLIST = {
    "key_size": "Row Key Size: < 4 KB (ideal 10–100 bytes)",
    "uniqueness": "Uniqueness: row keys globally unique (duplicates overwrite data)",
    "characters": "Character Set: ^[a-zA-Z0-9\\-_#]+$",
    "padding": "Character Set: zero-pad all numbers so keys sort correctly",
    "qualifier": "Column Qualifier Size: < 16 KB",
    "families": "Column Family Count: < 100 families",
    "cell": "Cell Field Size: < 10 MB (100 MB hard limit)",
    "row": "Row Size: < 100 MB (256 MB hard limit at read time)",
    "rollups": "Materialized views: pre-aggregate frequently used metrics",
    "counters": "Counters for real-time metrics: an aggregate family, not read-modify-write",
}
CHECKLIST_OF_RULE = {  # rules that check one item whatever they find
    "collisions": "uniqueness",
    "unpadded_number": "padding",
    "key_characters": "characters",
    "cmv_rollup": "rollups",
}


@dataclass(frozen=True)
class Rule:
    name: str
    guidelines: tuple[str, ...]
    fn: Callable[[Context], Iterable[Finding]]

    def __call__(self, c: Context) -> list[Finding]:
        return list(self.fn(c) or ())


RULES: list[Rule] = []


def rule(name: str, *guidelines: str):
    def deco(fn: Callable[[Context], Iterable[Finding]]) -> Callable[[Context], Iterable[Finding]]:
        RULES.append(Rule(name, guidelines, fn))
        return fn

    return deco


def make_finding(
    rule_name: str,
    severity: str,
    ids: tuple[str, ...],
    title: str,
    evidence: Iterable[str],
    fix: str = "",
    suggestion: Schema | None = None,
    table: str = "main",
    row_key: str | None = None,
    checklist: str | None = None,
    **data: Any,
) -> Finding:
    ev = tuple(e for e in evidence if e)
    item = checklist or CHECKLIST_OF_RULE.get(rule_name)
    if item is not None:  # the checklist item this finding checks, and where it is written
        ev += (f"checklist: {CHECKLIST[item]} — {CHECKLIST_SOURCE}",)
        data["checklist"] = item
    return Finding(
        guideline=ids[0],
        message=ev[0] if ev else title,
        row_key=row_key,
        table=table,
        severity=severity,
        title=title,
        evidence=ev,
        fix=fix,
        suggestion=suggestion,
        rule=rule_name,
        guidelines=ids,
        data=data,
    )


# ----------------------------------------------------------------------------- helpers


def duration_text(seconds: float) -> str:
    for unit, f in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= f:
            return f"{seconds / f:,.1f} {unit}"
    return f"{seconds:,.1f} s"


def rendered_keys(
    key: RowKey, ds: Dataset, overrides: dict[str, list] | None = None, rows: int | None = None
) -> np.ndarray:
    """Row keys of the dataset's events (or of its first event with columns overridden), rendered by the key."""
    f = ds.frame.reset_index(drop=True)
    if overrides:
        n = len(next(iter(overrides.values())))
        f = f.iloc[[0] * n].reset_index(drop=True).copy()
        for col, vals in overrides.items():
            f[col] = pd.Series(vals, dtype=ds.frame[col].dtype)
    elif rows is not None:
        f = f.head(rows)
    ctx = RenderContext({c: f[c] for c in f.columns}, time_us(f[ds.time]))
    ctx.metric = ds.measures[0] if key.metric is not None else None
    return key.render(ctx)


def carried_columns(c: Context, key: RowKey) -> list[str]:
    rec = set(key.recovers())
    return [x for x in (*c.ds.entity, *c.ds.attributes) if x not in rec]


def precision_name(seg: Segment) -> str:
    return seg.time_precision() or "?"


def lossless_tall(c: Context, key: RowKey) -> Schema | None:
    """A new row per reading: the key plus a time segment at the coarsest precision that loses nothing."""
    lay = tall_layout(c.schema.layout)
    cands = [
        lambda p=p: replace(
            c.schema, key=RowKey((*key.segments, Timestamp(p)), key.delimiter), layout=lay
        )
        for p in ("minute", "second", "ms", "us")
    ]
    return first_lossless(cands, c.ds)


def tall_at(schema: Schema, segs: tuple, delimiter: str, precision: str) -> Schema:
    """``schema`` as tall rows keyed by ``segs`` then the time at ``precision``."""
    return replace(
        schema, key=RowKey((*segs, Timestamp(precision)), delimiter), layout=Tall(Family("m"))
    )


def with_segment(schema: Schema, key: RowKey, i: int, seg: Segment) -> Schema:
    return replace(schema, key=replace_segment(key, i, seg))


# a wide row one step finer: the bucket in the key, and the qualifier that splits it
FINER_WIDE: tuple[tuple[str, WideQualifier], ...] = (
    ("day", "hour"),
    ("hour", "minute"),
    ("minute", "second"),
)


def finer_wide(
    schema: Schema, key: RowKey, i: int, bucket: str, qualifier: WideQualifier
) -> Schema:
    """A wide design one step finer: ``bucket`` rows with ``qualifier`` columns."""
    assert isinstance(schema.layout, Wide)  # only offered for wide designs
    return replace(
        schema,
        key=replace_segment(key, i, TimeBucket(bucket)),
        layout=replace(schema.layout, qualifier=qualifier),
    )
