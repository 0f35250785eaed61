"""Short-and-wide layouts: bounded rows whose qualifier is the event's place in the row's time
bucket (:class:`Wide`, G02; the paper's ``VEGGIEGARDEN#20150301`` with ``TEMP:1`` … ``TEMP:31``)
and Heroic's offset-in-qualifier rows (:class:`HeroicOffsets`, G16)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..errors import SchemaError
from .families import Family
from .keys import RowKey
from .layouts import (
    BuildInput,
    CellParts,
    Layout,
    as_pairs,
    column_values,
    decoded_frame,
    utf8_texts,
)
from .time_text import US_PER_MS, time_fields
from .value_text import int_text

_QUALIFIER_KINDS = ("day", "hour", "minute", "second", "offset_ms")


WideQualifier = Literal["day", "hour", "minute", "second", "offset_ms"]


@dataclass(frozen=True)
class Wide(Layout):
    """Bounded short-and-wide rows: the qualifier is the event's place in the row's bucket (G02).

    With a month key and ``qualifier="day"`` this is the paper's ``VEGGIEGARDEN#20150301``
    row with ``TEMP:1`` … ``TEMP:31``. ``families`` maps each measure to its family
    (default: a family named like the measure)."""

    qualifier: WideQualifier = "day"
    # a mapping or (measure, family) pairs, a family given by name or as a Family; stored as pairs
    families_: Mapping[str, Family | str] | tuple[tuple[str, Family | str], ...] = ()
    bits: int = 32  # for offset_ms: offset = ms mod 2^bits (Heroic)
    pad: int = 0  # zero-pad day/hour/… qualifiers to this width so they sort numerically (G21)

    label = "bounded short-and-wide rows"
    guideline = "G02"
    multi_event = True

    def __post_init__(self) -> None:
        if self.qualifier not in _QUALIFIER_KINDS:
            raise SchemaError(
                f"Wide qualifier must be one of {_QUALIFIER_KINDS}, got {self.qualifier!r}."
            )
        object.__setattr__(
            self,
            "families_",
            tuple((m, Family(f) if isinstance(f, str) else f) for m, f in as_pairs(self.families_)),
        )

    @property
    def family_pairs(self) -> tuple[tuple[str, Family], ...]:
        """``families_`` as stored: (measure, Family) pairs."""
        return tuple(
            (m, f if isinstance(f, Family) else Family(f)) for m, f in dict(self.families_).items()
        )

    def family_of(self, measure: str) -> Family:
        return dict(self.family_pairs).get(measure, Family(measure))

    def families(self, measures: tuple[str, ...]) -> tuple[Family, ...]:
        if not measures:
            return tuple(f for _, f in self.family_pairs)
        return tuple(self.family_of(m) for m in measures)

    def check(self, key: RowKey, carried: tuple[str, ...]) -> None:
        super().check(key, carried)
        if carried:
            raise SchemaError(
                f"Wide rows need every entity column in the key; {list(carried)} are not."
            )

    def qualifiers_for(self, t_us: np.ndarray) -> np.ndarray:
        if self.qualifier == "offset_ms":
            return int_text(np.mod(np.floor_divide(t_us, US_PER_MS), 2**self.bits))
        f = time_fields(t_us)
        q = f[{"day": "d", "hour": "H", "minute": "M", "second": "S"}[self.qualifier]]
        return int_text(q, self.pad)

    def build(self, b: BuildInput) -> CellParts:
        keys = b.keys_for(None)
        q = self.qualifiers_for(b.ctx.t_us)
        fams = [self.family_of(m).name for m in b.measures]
        if len(set(fams)) != len(fams):
            raise SchemaError(
                f"Wide rows need one family per measure; got {dict(zip(b.measures, fams, strict=True))}."
            )
        parts = CellParts()
        for m, fam in zip(b.measures, fams, strict=True):
            values, size, present = column_values(b, m)
            parts.add(keys, fam, q, b.ts_ms, values, b.events, size, present)
        return parts

    def decode(self, f: pd.DataFrame, parsed: pd.DataFrame, payload: tuple = ()) -> pd.DataFrame:
        back = {fam.name: m for m, fam in self.family_pairs}
        col = f["family"].map(lambda x: back.get(x, x)).to_numpy()
        return decoded_frame(f, col, utf8_texts(f["value"]))

    def column_filter(self, needed: tuple[str, ...]) -> dict[str, Any] | None:
        return {"families": tuple(self.family_of(m).name for m in needed)}

    def describe(self) -> str:
        fams = ", ".join(f"{m}→{fam.name}" for m, fam in self.family_pairs)
        return f"{self.label}, qualifier = {self.qualifier} in bucket" + (
            f" (families {fams})" if fams else ""
        )


@dataclass(frozen=True)
class HeroicOffsets(Wide):
    """Heroic: the key holds the base ``ts − ts mod 2^32``; the qualifier the offset in ms (G16)."""

    qualifier: Literal["day", "hour", "minute", "second", "offset_ms"] = "offset_ms"

    label = "Heroic base + offset rows"
    guideline = "G16"
