"""The designer's state as plain data, and the two pure functions between it and a Schema.

A design in the designer is a *base* schema (a preset from the gallery, a design
you passed in, or an advisor's suggestion) plus a few edits: the key's segment
order, the timestamp's precision and reversal (G06, G09, G31), salt buckets (G08),
the time-bucket width (G12, G13), the layout (G14, G15) and each family's name and
GC rules (G01, G18, G30). :func:`state_from_schema` reads those knobs off a schema;
:func:`designer_state_to_schema` applies them. The widgets only move values around.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ..errors import SchemaError
from ..schema import (
    Family,
    HeroicOffsets,
    Intersection,
    MaxAge,
    MaxVersions,
    NewColumns,
    ReversedTimestamp,
    RowKey,
    Salt,
    Schema,
    Segment,
    Serialized,
    Tall,
    Timestamp,
    Union_,
    Wide,
    max_age,
    max_versions,
    union,
)
from ..schema.segments import BUCKET_LABEL, SALT_LABEL, TIME_LABEL
from ..schema.segments import TIME as TIME_COLUMN
from ..schema.time_segments import REVERSED_UNITS
from ..schema.time_text import PRECISIONS

SALT, TIME, BUCKET = SALT_LABEL, TIME_LABEL, BUCKET_LABEL  # the segments' own labels
REVERSIBLE = ("second", "ms", "us")  # ReversedTimestamp units s / ms / us
BUCKETS = ("hour", "day", "week", "month")

LAYOUT_CELLS = "a cell per measure (G15)"
LAYOUT_JSON = "serialized JSON (G14)"
LAYOUT_PROTOBUF = "serialized protobuf (G14)"
SWITCHABLE_LAYOUTS = (LAYOUT_CELLS, LAYOUT_JSON, LAYOUT_PROTOBUF)


@dataclass(frozen=True)
class FamilyEdit:
    """One column family's editable settings; 0 means "no such GC rule"."""

    role: str  # "layout", "measure:<name>" (wide rows: a family per measure) or "aggregates"
    name: str
    max_age_days: int = 0
    max_versions: int = 0


@dataclass(frozen=True)
class DesignState:
    """Every knob of the designer; ``None`` marks a knob the schema does not have."""

    segments: tuple[str, ...]
    precision: str | None = None
    reversed: bool = False
    salt_buckets: int = 1  # 1: no salt
    bucket: str | None = None
    layout: str = LAYOUT_CELLS
    families: tuple[FamilyEdit, ...] = ()


@dataclass(frozen=True)
class Applicable:
    """Which controls apply to a schema, and their choices (the rest are disabled)."""

    precision: bool
    precisions: tuple[str, ...]
    reversed: bool
    salt: bool
    bucket: bool
    layout: bool
    layouts: tuple[str, ...]


# ----------------------------------------------------------------------------- segments


def segment_label(seg: Segment) -> str:
    """A short name for a key segment, as shown in the segment-order control (its ``label``)."""
    return seg.label


def segment_labels(key: RowKey) -> tuple[str, ...]:
    """Unique labels for a key's segments, in key order."""
    out: list[str] = []
    for seg in key.segments:
        lab = segment_label(seg)
        while lab in out:
            lab += "'"
        out.append(lab)
    return tuple(out)


def place_added(
    old: tuple[str, ...], new: tuple[str, ...], base: tuple[str, ...]
) -> tuple[str, ...]:
    """Where a segment typed back into the key editor goes. The editor appends a typed segment
    at the end unless the attendee moved the cursor; a segment added *last* returns to its place
    in the design's own key (``base``): before the first kept segment that follows it there.
    ``old`` ("time",), new ("time", "pair"), base ("pair", "time") → ("pair", "time")."""
    added = [s for s in new if s not in old]
    if len(added) != 1 or new[-1] != added[0] or added[0] not in base:
        return new  # nothing added, several at once, or put somewhere on purpose: as typed
    seg, kept = added[0], list(new[:-1])
    rank = {s: i for i, s in enumerate(base)}
    after = [i for i, s in enumerate(kept) if rank.get(s, len(base)) > rank[seg]]
    kept.insert(after[0] if after else len(kept), seg)
    return tuple(kept)


def _main_time(key: RowKey) -> Segment | None:
    """The event's time in the key (the designer's precision and reversal knobs)."""
    return next((s for s in key.time_segments if not s.time_bucket), None)


def _bucket_seg(key: RowKey) -> Segment | None:
    return next((s for s in key.segments if s.time_bucket), None)


# ----------------------------------------------------------------------------- families


def _gc_parts(gc) -> tuple[int, int]:
    """(max-age days, max versions) a GC rule amounts to (0: absent)."""
    if gc is None:
        return 0, 0
    if isinstance(gc, MaxAge):
        return max(1, math.ceil(gc.seconds / 86400)), 0
    if isinstance(gc, MaxVersions):
        return 0, gc.n
    if isinstance(gc, (Union_, Intersection)):
        age = vers = 0
        for r in gc.rules:
            a, v = _gc_parts(r)
            age, vers = age or a, vers or v
        return age, vers
    return 0, 0


def gc_rule(max_age_days: int, versions: int):
    """The GC rule for a pair of settings: either rule alone, or both (garbage when either says so)."""
    rules: list[MaxAge | MaxVersions] = []
    if max_age_days and max_age_days > 0:
        rules.append(max_age(f"{int(max_age_days)}D"))
    if versions and versions > 0:
        rules.append(max_versions(int(versions)))
    if not rules:
        return None
    return rules[0] if len(rules) == 1 else union(*rules)


def family_slots(schema: Schema) -> list[tuple[str, Family]]:
    """The schema's editable families with their roles."""
    lay = schema.layout
    out: list[tuple[str, Family]] = []
    if isinstance(lay, Wide):
        pairs = list(lay.family_pairs)
        if not pairs:
            ms = schema.shape.measures if schema.shape is not None else ()
            pairs = [(m, lay.family_of(m)) for m in ms]
        out += [(f"measure:{m}", f) for m, f in pairs]
    elif hasattr(lay, "family"):
        out.append(("layout", lay.family))
    if schema.aggregates is not None:
        out.append(("aggregates", schema.aggregates.family))
    return out


def _edit_family(fam: Family, edit: FamilyEdit) -> Family:
    name = edit.name.strip()
    if not name:
        raise SchemaError(f"The {edit.role} family needs a name (short but meaningful, G01).")
    gc = (
        fam.gc
        if _gc_parts(fam.gc) == (edit.max_age_days, edit.max_versions)
        else gc_rule(edit.max_age_days, edit.max_versions)
    )
    return replace(fam, name=name, gc=gc)


# ----------------------------------------------------------------------------- state <-> schema


def state_from_schema(schema: Schema) -> DesignState:
    """Read the designer's knobs off a schema."""
    key = schema.key
    t = _main_time(key)
    b = _bucket_seg(key)
    lay = schema.layout
    if isinstance(lay, Serialized):
        layout = LAYOUT_JSON if lay.format == "json" else LAYOUT_PROTOBUF
    elif type(lay) is Tall:
        layout = LAYOUT_CELLS
    else:
        layout = lay.label
    return DesignState(
        segments=segment_labels(key),
        precision=(t.time_precision() if t is not None else None),
        reversed=t is not None and t.time_order < 0,
        salt_buckets=next((len(sb) for s in key.segments if (sb := s.buckets())), 1),
        bucket=b.bucket_choice() if b is not None else None,
        layout=layout,
        families=tuple(
            FamilyEdit(role, f.name, *_gc_parts(f.gc)) for role, f in family_slots(schema)
        ),
    )


def applicable(schema: Schema) -> Applicable:
    """Which knobs the schema has (the designer disables the others)."""
    key = schema.key
    t = _main_time(key)
    lay = schema.layout
    switch = (type(lay) is Tall or isinstance(lay, Serialized)) and key.metric is None
    reversed_now = t is not None and t.time_order < 0
    return Applicable(
        precision=t is not None,
        precisions=REVERSIBLE if reversed_now else PRECISIONS,
        reversed=t is not None,
        salt=bool(key.time_segments) or bool(key.columns()),
        bucket=_bucket_seg(key) is not None,
        layout=switch,
        layouts=SWITCHABLE_LAYOUTS if switch else (state_from_schema(schema).layout,),
    )


def bucket_choices(schema: Schema) -> tuple[str, ...]:
    b = _bucket_seg(schema.key)
    return (b.bucket_choices if b is not None else ()) or BUCKETS


def _time_segment(old: Segment, state: DesignState) -> Segment:
    prec: str = state.precision or old.time_precision() or "second"
    if state.reversed:
        if prec not in REVERSIBLE:
            raise SchemaError(
                f"A reversed timestamp counts down in seconds, ms or µs; precision {prec!r} "
                f"cannot be reversed (G09). Choose one of {', '.join(REVERSIBLE)}."
            )
        if old.time_order < 0 and old.time_precision() == prec:
            return old
        return ReversedTimestamp(*REVERSED_UNITS[prec])
    if old.time_order > 0 and old.time_precision() == prec:
        return old
    fmt = getattr(old, "fmt", None)  # a Timestamp's format: epoch numbers stay numbers
    if fmt and fmt.startswith("epoch_"):
        fmt = {"second": "epoch_s", "ms": "epoch_ms", "us": "epoch_us"}.get(prec)
    else:
        fmt = None
    return Timestamp(prec, fmt)


def _bucket_segment(old: Segment, state: DesignState) -> Segment:
    if state.bucket is None or state.bucket == old.bucket_choice():
        return old
    return old.rebucketed(state.bucket)


def _layout(schema: Schema, base: Schema, state: DesignState):
    lay = schema.layout
    if state.layout not in SWITCHABLE_LAYOUTS or state.layout == state_from_schema(schema).layout:
        return lay
    if not applicable(schema).layout:
        raise SchemaError(
            f"The layout of {schema.name!r} ({lay.label}) cannot be switched to {state.layout}."
        )
    # applicable() lets only single-family layouts switch (a Wide layout has a family per measure)
    assert isinstance(lay, (Tall, Serialized, NewColumns)), lay
    family = lay.family
    if state.layout == LAYOUT_CELLS:
        return replace(base.layout, family=family) if type(base.layout) is Tall else Tall(family)
    return Serialized("json" if state.layout == LAYOUT_JSON else "protobuf", family)


def designer_state_to_schema(base: Schema, state: DesignState) -> Schema:
    """Apply the designer's edits to ``base`` (raises SchemaError naming what cannot be done).

    Segment labels come from :func:`segment_labels` of ``base.key``; ``"salt"`` may be added
    (salting any key, G08) or removed by the salt count; a label left out drops that segment.
    """
    key = base.key
    by_label = dict(zip(segment_labels(key), key.segments, strict=True))
    order = [s for s in state.segments if s != SALT or state.salt_buckets > 1]
    if state.salt_buckets > 1 and SALT not in order:
        order.insert(0, SALT)
    unknown = [s for s in order if s not in by_label and s != SALT]
    if unknown:
        raise SchemaError(
            f"Unknown key segment {unknown[0]!r}; this design's segments are "
            f"{', '.join(by_label)} (and 'salt')."
        )
    if not order:
        raise SchemaError("The row key needs at least one segment.")
    segs: list[Segment] = []
    for lab in order:
        if lab == SALT:
            old = by_label.get(SALT)
            if old is not None and old.buckets():  # a salt keeps what it hashes
                of = tuple("time" if c == TIME_COLUMN else c for c in old.sources())
            elif key.time_segments:
                of = ("time",)
            else:
                of = tuple(c for c in key.columns()[:1]) or ("time",)
            segs.append(Salt(int(state.salt_buckets), of))
            continue
        seg = by_label[lab]
        if lab == TIME:
            seg = _time_segment(seg, state)
        elif lab == BUCKET:
            seg = _bucket_segment(seg, state)
        segs.append(seg)
    new_key = replace(key, segments=tuple(segs))
    schema = replace(base, key=new_key)
    if isinstance(schema.layout, HeroicOffsets):
        b = _bucket_seg(new_key)
        bits = getattr(b, "bits", None)  # Heroic's base time: offsets span 2^bits ms (G16)
        if bits is not None and bits != schema.layout.bits:
            schema = replace(schema, layout=replace(schema.layout, bits=bits))
    schema = replace(schema, layout=_layout(schema, base, state))
    # families: by role, in the order family_slots lists them
    edits = {e.role: e for e in state.families}
    lay = schema.layout
    if isinstance(lay, Wide):
        pairs = []
        for role, fam in family_slots(schema):
            if role.startswith("measure:"):
                e = edits.get(role)
                pairs.append((role.split(":", 1)[1], _edit_family(fam, e) if e else fam))
        if pairs:
            lay = replace(lay, families_=tuple(pairs))
    elif isinstance(lay, (Tall, Serialized, NewColumns)) and "layout" in edits:
        lay = replace(lay, family=_edit_family(lay.family, edits["layout"]))
    schema = replace(schema, layout=lay)
    if schema.aggregates is not None and "aggregates" in edits:
        schema = replace(
            schema,
            aggregates=replace(
                schema.aggregates,
                family=_edit_family(schema.aggregates.family, edits["aggregates"]),
            ),
        )
    if schema != base:
        schema = replace(
            schema,
            name=describe_changes(base, schema),
            description=describe_key(schema, base),
            guidelines=key_guidelines(base, schema),
        )
    return schema


# the guidelines a key's shape demonstrates: an edit that changes the shape changes which of
# them the design shows, so an edited design names its own (``key_guidelines``)
KEY_SHAPE_GUIDELINES = ("G06", "G07", "G08", "G09", "G24")


def _key_lead(key: RowKey) -> tuple[str, str]:
    """What the key's first segment does to writes, in words, and the guideline it shows."""
    first = segment_label(key.segments[0])
    if first == SALT:
        return "salted key: writes spread over the salt buckets, every range read scans each", "G08"
    if key.segments[0] in key.time_segments:
        return "time first: every write goes to the end of the key space, one hot node", "G06"
    if not key.time_segments:
        return f"{first} first, no time in the key: one row per {first} keeps growing", "G24"
    return f"{first} first: writes spread over the {first} values, each a time-ordered range", "G07"


def key_guidelines(base: Schema, schema: Schema) -> tuple[str, ...]:
    """The guidelines an edit of ``base`` shows: the one its key's lead shows (G06, G07, G08 or
    G24), G09 while its time counts down, and the base's others (layout, families, buckets),
    which the key's shape does not decide."""
    t = _main_time(schema.key)
    shape = [_key_lead(schema.key)[1]] + (["G09"] if t is not None and t.time_order < 0 else [])
    kept = [g for g in base.guidelines if g not in KEY_SHAPE_GUIDELINES]
    return tuple(dict.fromkeys(shape + kept))


def describe_key(schema: Schema, base: Schema | None = None) -> str:
    """The design in words, read from its current key and layout (never the base's prose, which
    described a key the edits may have changed: "Pair first…" above a key of just the time)."""
    key = schema.key
    text, gid = _key_lead(key)
    lead = f"{text} ({gid})"
    layout = f"Layout: {schema.layout.describe()}." if hasattr(schema.layout, "describe") else ""
    edited = f" Edited from {base.name}." if base is not None and base.name != schema.name else ""
    return f"Row key {key.template()}: {lead}. {layout}".strip() + edited


def describe_changes(base: Schema, schema: Schema) -> str:
    """What the edits changed, for the design's name shown in comparisons, the title and the
    headline: "pair_microseconds (edited): key time#pair", as the design picker says "✎
    pair_microseconds (edited)" (bare, "pair_microseconds: key time#pair" read as that gallery
    design's key, which is pair#time)."""
    if schema == base:
        return base.name
    a, b = state_from_schema(base), state_from_schema(schema)
    parts = []
    if a.segments != b.segments:
        parts.append("key " + "#".join(b.segments))
    if a.precision != b.precision:
        parts.append(f"{b.precision}")
    if a.reversed != b.reversed:
        parts.append("reversed" if b.reversed else "not reversed")
    if a.salt_buckets != b.salt_buckets:
        parts.append(f"salt {b.salt_buckets}")
    if a.bucket != b.bucket:
        parts.append(f"bucket {b.bucket}")
    if a.layout != b.layout:
        parts.append(b.layout.split(" (")[0])
    if a.families != b.families:
        parts.append("families " + ",".join(f.name for f in b.families))
    return f"{base.name} (edited): " + ", ".join(parts) if parts else base.name


__all__ = [
    "DesignState",
    "FamilyEdit",
    "Applicable",
    "segment_label",
    "segment_labels",
    "place_added",
    "state_from_schema",
    "designer_state_to_schema",
    "applicable",
    "bucket_choices",
    "family_slots",
    "gc_rule",
    "describe_changes",
    "describe_key",
    "SWITCHABLE_LAYOUTS",
    "SALT",
    "TIME",
    "BUCKET",
    "REVERSIBLE",
]
