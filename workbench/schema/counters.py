"""Counters: per-bucket counter qualifiers in an aggregate family (G29, G12).

A row per entity and ``row_bucket`` (a day), a column per ``bucket`` (an hour: qualifier
``"07"``), each event adding its input to that column's cell with ``AddToCell``. Bigtable keeps
one int64 per cell — the sum (a count when every input is 1), the min or the max — so "events
per hour for a sensor on a day" is a one-row read of at most 24 small cells, maintained as the
data arrives, without a read-modify-write and without raw rows. It is derived data, like
:class:`~.schema.Aggregates`: the events cannot be read back from it.

Data arriving in batches (several writes, any order) adds up: each write's ``AddToCell`` is
merged with what the cell holds, so the cell ends at the aggregate of every event
(:meth:`Counters.expected` of all the batches). The emulator does that for sums only; for
min/max it keeps the last input (measured), and ``expected`` gives its figure beside.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..cells import DEFAULT_TABLE, CellFrame
from ..errors import SchemaError
from .families import Family
from .keys import RowKey
from .segments import Field, RenderContext
from .time_segments import TimeBucket
from .time_text import floor_us, format_time_coded, time_us

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset

# the qualifier text of a bucket inside its row (the row bucket holds several)
_QUALIFIER_FORMAT = {"minute": "%H%M", "hour": "%H", "day": "%d"}
_ROW_OF = {"minute": ("hour", "day"), "hour": ("day", "month"), "day": ("month",)}


@dataclass(frozen=True)
class Counters:
    """Counter cells: ``<entity…>#<row_bucket>`` rows, a ``<bucket>`` qualifier per bucket.

    ``measure=None`` counts events (input 1); a numeric measure adds its whole-number values
    (``aggregate`` "sum", "min" or "max" keeps that statistic per bucket)."""

    entity: tuple[str, ...]
    bucket: str = "hour"
    row_bucket: str = "day"
    measure: str | None = None
    family: Family = Family("c", aggregate="sum")
    delimiter: str = "#"

    def __post_init__(self) -> None:
        object.__setattr__(self, "entity", tuple(self.entity))
        if not self.entity:
            raise SchemaError("Counters need at least one entity column for the row key.")
        if self.bucket not in _ROW_OF:
            raise SchemaError(
                f"Counters bucket {self.bucket!r}: use one of {', '.join(_ROW_OF)} (the qualifier)."
            )
        if self.row_bucket not in _ROW_OF[self.bucket]:
            raise SchemaError(
                f"A row of {self.row_bucket!r} cannot hold {self.bucket!r} counters by qualifier: "
                f"use row_bucket one of {_ROW_OF[self.bucket]}."
            )
        if self.family.aggregate not in ("sum", "min", "max"):
            raise SchemaError(
                f"Counters need an aggregate family (sum, min or max), got family "
                f"{self.family.name!r} with aggregate {self.family.aggregate!r}."
            )
        if self.measure is None and self.family.aggregate != "sum":
            raise SchemaError(
                "Counting events needs a 'sum' family; min/max counters need a measure."
            )

    @property
    def key(self) -> RowKey:
        return RowKey(
            (*(Field(c) for c in self.entity), TimeBucket(self.row_bucket)), self.delimiter
        )

    def families(self) -> tuple[Family, ...]:
        return (self.family,)

    def _inputs(self, ds: Dataset) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
        frame = ds.frame.reset_index(drop=True)
        missing = [c for c in self.entity if c not in frame.columns]
        if missing:
            raise SchemaError(
                f"Counters entity column {missing[0]!r} is not in the dataset "
                f"(columns: {list(frame.columns)})."
            )
        t = time_us(frame[ds.time])
        if self.measure is None:
            return frame, t, np.ones(len(frame), dtype=np.int64)
        if self.measure not in frame.columns:
            raise SchemaError(f"Counters measure {self.measure!r} is not a dataset column.")
        v = pd.to_numeric(frame[self.measure], errors="coerce")
        keep = v.notna().to_numpy()
        whole = v[keep].to_numpy(dtype=np.float64)
        if not np.all(whole == np.round(whole)):
            raise SchemaError(
                f"Counters measure {self.measure!r} has fractional values (e.g. "
                f"{whole[whole != np.round(whole)][0]!r}): an int64 aggregate family takes whole "
                "numbers; scale them first (e.g. watt-hours instead of kWh)."
            )
        return frame[keep].reset_index(drop=True), t[keep], whole.astype(np.int64)

    def to_cells(self, ds: Dataset, table: str = DEFAULT_TABLE) -> CellFrame:
        """One input cell per event (``value`` 8-byte big-endian int64, ``timestamp`` the row
        bucket's start); the writer combines each cell's inputs with the family's aggregate."""
        frame, t, inputs = self._inputs(ds)
        ctx = RenderContext({c: frame[c] for c in frame.columns}, t, self.delimiter)
        keys = self.key.render(ctx)
        codes, texts = format_time_coded(t, self.bucket, _QUALIFIER_FORMAT[self.bucket])
        return CellFrame(
            pd.DataFrame(
                {
                    "table": pd.Series([table] * len(keys), dtype=object),
                    "row_key": pd.Series(keys, dtype=object),
                    "family": pd.Series([self.family.name] * len(keys), dtype=object),
                    "qualifier": pd.Series(texts[codes], dtype=object),
                    "timestamp_us": floor_us(t, self.row_bucket).astype(np.int64),
                    "value": pd.Series(_int64_bytes(inputs), dtype=object),
                }
            )
        )

    def expected(self, ds: Dataset, *later: Dataset) -> pd.DataFrame:
        """What Bigtable keeps per cell after ``ds`` and then each of ``later`` are written, one
        write each: (row_key, qualifier) → ``value``, the family's aggregate of every event of
        every batch (``AddToCell`` merges each input with what the cell holds, whatever the
        order), computed with pandas; and ``emulator``, what the emulator holds instead
        (measured, SDK 528: it adds sums, but a min/max cell keeps only the last input, so the
        aggregate of the last batch written into it: the writer sends one input per cell and
        write)."""
        keys = ["row_key", "qualifier"]
        parts = []
        for i, batch in enumerate((ds, *later)):
            cells = self.to_cells(batch).frame
            ints = np.frombuffer(b"".join(cells["value"].tolist()), dtype=">i8").astype(np.int64)
            parts.append(pd.DataFrame({"row_key": cells["row_key"], "qualifier": cells["qualifier"],
                                       "value": ints, "_write": i}))  # fmt: skip
        events = pd.concat(parts, ignore_index=True)
        kind = str(self.family.aggregate)
        out = events.groupby(keys, sort=True)["value"].agg(kind).reset_index()
        if kind == "sum":
            return out.assign(emulator=out["value"])
        per_write = events.groupby([*keys, "_write"], sort=True)["value"].agg(kind)
        last = per_write.reset_index().drop_duplicates(keys, keep="last")
        return out.merge(last[[*keys, "value"]].rename(columns={"value": "emulator"}), on=keys)

    def describe(self) -> str:
        what = "events" if self.measure is None else f"{self.family.aggregate} of {self.measure}"
        return (
            f"Counters: rows {self.key.template()}, a qualifier per {self.bucket} in family "
            f"{self.family.name!r} ({self.family.aggregate} aggregate) holding the {what}."
        )


def _int64_bytes(values: np.ndarray) -> list[bytes]:
    """Each int as its 8-byte big-endian cell value (what an int64 aggregate family reads)."""
    raw = np.asarray(values, dtype=np.int64).astype(">i8").tobytes()
    return [raw[i : i + 8] for i in range(0, len(raw), 8)]
