"""Table layouts: how one event becomes cells (family, qualifier, timestamp, value).

* :class:`Tall` – single-timestamp rows, a cell per measure (G15; with a Metric key
  segment, one row per measure as in ``4c410523#memusage#1423523569918``).
* :class:`Serialized` – single-timestamp rows, one JSON or protobuf cell (G14, G28).
* :class:`NewColumns` – time-bucket rows, the value in the qualifier, empty cell (G12).
* :class:`NewCells` – time-bucket rows, each event a new version of its columns (G13);
  without a time segment in the key it is the one-row-per-device anti-pattern (G24, G03).
* :class:`~workbench.schema.wide_layouts.Wide` and ``HeroicOffsets`` – bounded short-and-wide
  rows and Heroic's offsets (``wide_layouts.py``, G02, G16). Payload encodings: ``payloads.py``.

Every layout writes the event time (truncated to ms) as the cell timestamp: the
analysis replays writes in time order from it, and decoding reads it back.

A missing value (NaN, None, NaT) gets no cell: Bigtable is sparse, an absent cell is stored as
nothing and read back as nothing (a serialized event omits the field). Layouts build a cell for
every value and mark the absent ones (``CellParts.present``); ``Schema.to_cells`` drops them
after the collision and limit checks. With a sentinel (``Schema(missing="NaN")``,
``BuildInput.missing``) a missing value is a cell holding that text instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..errors import SchemaError
from .families import Family
from .keys import RowKey
from .missing_values import check_sentinel, fill_missing, json_payloads, missing_mask, present_mask
from .payloads import protobuf_payloads, protobuf_records, py_to_text
from .segments import RenderContext
from .time_text import US_PER_MS
from .value_text import encode_bytes_len, encode_text, float_bytes_coded


def as_pairs(m: Any) -> tuple:
    if m is None:
        return ()
    if isinstance(m, Mapping):
        return tuple(m.items())
    return tuple(tuple(p) for p in m)


def to_bytes(texts: np.ndarray) -> np.ndarray:
    """Object array of str → object array of UTF-8 bytes."""
    if len(texts) == 0:
        return np.asarray([], dtype=object)
    try:  # str.encode per value in C: numpy's char.encode took 140 ms per 250,000 payloads, this 13
        return np.fromiter(map(str.encode, texts), dtype=object, count=len(texts))
    except TypeError:  # a value that is not str: as text first
        return np.asarray([str(t).encode("utf-8") for t in texts], dtype=object)


def _full(n: int, value: str | bytes) -> np.ndarray:
    """An object array repeating one str/bytes (a scalar fill; ``np.full`` with object dtype is slower)."""
    out = np.empty(n, dtype=object)
    out[:] = value
    return out


@dataclass(eq=False)
class Taken:
    """``texts[codes]`` not yet materialized: :meth:`CellParts.frame` takes it straight into
    its column (no per-add copy of a million pointers)."""

    texts: np.ndarray
    codes: np.ndarray

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, j: int) -> Any:
        return self.texts[self.codes[j]]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = self.texts[self.codes]
        return out if dtype is None else out.astype(dtype)


@dataclass
class CellParts:
    """Cells under construction: parallel arrays plus the event index of each cell.

    A family, qualifier or value that is one value for a whole ``add`` stays a scalar
    (``str``/``bytes``) until :meth:`frame` fills the column once; ``value_len`` holds the
    values' byte lengths when the encoder knew them (else None)."""

    row_key: list[np.ndarray] = field(default_factory=list)
    family: list[np.ndarray | str] = field(default_factory=list)
    qualifier: list[np.ndarray | str] = field(default_factory=list)
    ts: list[np.ndarray] = field(default_factory=list)
    value: list[np.ndarray | bytes] = field(default_factory=list)
    event: list[np.ndarray] = field(default_factory=list)
    constant: list[bool] = field(
        default_factory=list
    )  # family and qualifier are one value for the add
    value_len: list[np.ndarray | None] = field(default_factory=list)
    # per add, which of its cells hold a value (None: all of them); the others are dropped
    present: list[np.ndarray | None] = field(default_factory=list)

    def add(
        self,
        row_key,
        family,
        qualifier,
        ts,
        value,
        event,
        value_len: np.ndarray | None = None,
        present: np.ndarray | None = None,
    ) -> None:
        self.constant.append(isinstance(family, str) and isinstance(qualifier, str))
        self.row_key.append(row_key)
        self.family.append(family)
        self.qualifier.append(qualifier)
        self.ts.append(ts)
        self.value.append(value)
        self.event.append(event)
        self.value_len.append(value_len)
        self.present.append(present)

    def absent(self) -> np.ndarray | None:
        """Per cell in :meth:`frame` order, True where the value is missing (no cell is stored);
        None when every cell holds a value."""
        if all(p is None for p in self.present):
            return None
        return np.concatenate(
            [
                np.zeros(len(k), dtype=bool) if p is None else ~p
                for k, p in zip(self.row_key, self.present, strict=True)
            ]
        )

    def __len__(self) -> int:
        return sum(len(k) for k in self.row_key)

    def events(self) -> np.ndarray:
        """The event index of each cell, in :meth:`frame` order."""
        if not self.event:
            return np.zeros(0, dtype=np.int64)
        return np.concatenate(self.event).astype(np.int64, copy=False)

    def frame(self, table: str, events: bool = True) -> pd.DataFrame:
        """The cells as a DataFrame (object text columns, int64 timestamps), plus ``_event`` unless
        ``events=False``. Columns are filled in place and the frame is not consolidated, so each
        text column is written exactly once."""
        if not self.row_key:
            out = {
                "table": [],
                "row_key": [],
                "family": [],
                "qualifier": [],
                "timestamp_us": np.zeros(0, np.int64),
                "value": [],
            }
            return pd.DataFrame({**out, "_event": np.zeros(0, np.int64)} if events else out)
        obj = lambda a: pd.Series(a, dtype=object, copy=False)  # noqa: E731 - CellFrame text columns are object
        cols = {
            "table": obj(_full(len(self), table)),
            "row_key": obj(self._column(self.row_key)),
            "family": obj(self._column(self.family)),
            "qualifier": obj(self._column(self.qualifier)),
            "timestamp_us": pd.Series(
                np.concatenate(self.ts).astype(np.int64, copy=False), copy=False
            ),
            "value": obj(self._column(self.value)),
        }
        if events:
            cols["_event"] = pd.Series(self.events(), copy=False)
        return pd.DataFrame(cols, copy=False)

    def _column(self, pieces: list) -> np.ndarray:
        """One object column from per-add arrays or scalars (a scalar fills its slice)."""
        if all(isinstance(p, np.ndarray) and p.dtype == object for p in pieces):
            return np.concatenate(pieces)
        out = np.empty(len(self), dtype=object)
        start = 0
        for p, keys in zip(pieces, self.row_key, strict=True):
            end = start + len(keys)
            if isinstance(p, (str, bytes)):
                out[start:end] = p  # numpy fills an object slice with the one scalar
            elif isinstance(p, Taken):
                np.take(p.texts, p.codes, out=out[start:end], mode="clip")  # "clip": no buffering
            else:
                out[start:end] = p
            start = end
        return out


@dataclass
class BuildInput:
    """What a layout needs: the key, the render context, which columns are measures/carried."""

    key: RowKey
    ctx: RenderContext
    measures: tuple[str, ...]
    carried: tuple[str, ...]
    # the text a missing value is written as (``Schema.missing``); None: no cell
    missing: str | None = None
    # id(keys array) → (keys, dense codes, distinct keys, their UTF-8 lengths) for keys_for's
    # results, so the limit and collision checks reuse the codes instead of hashing keys again
    coded: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = field(
        default_factory=dict
    )

    @property
    def ts_ms(self) -> np.ndarray:
        return self.ctx.t_us - np.mod(self.ctx.t_us, US_PER_MS)

    @property
    def events(self) -> np.ndarray:
        return np.arange(self.ctx.n, dtype=np.int64)

    def keys_for(self, metric: str | None = None) -> np.ndarray:
        self.ctx.metric = metric
        coded = self.key._render_coded(self.ctx)
        if coded is None:
            return self.key._render_text(self.ctx)
        codes, texts, size = coded
        keys = texts[codes]
        self.coded[id(keys)] = (keys, codes, texts, size)
        return keys


# ----------------------------------------------------------------------------- layouts


@dataclass(frozen=True)
class Layout:
    """Base class; subclasses are frozen dataclasses (pure data)."""

    versioned = False  # a column keeps one cell per event (time = cell version)
    multi_event = False  # one row holds many events (time buckets, wide rows)
    label = "layout"
    guideline = ""

    def families(self, measures: tuple[str, ...]) -> tuple[Family, ...]:  # pragma: no cover
        raise NotImplementedError

    def check(self, key: RowKey, carried: tuple[str, ...]) -> None:
        if key.metric is not None:
            raise SchemaError(
                f"The {self.label} layout cannot use a Metric segment in the row key."
            )

    def build(self, b: BuildInput) -> CellParts:  # pragma: no cover
        raise NotImplementedError

    def decode(
        self, f: pd.DataFrame, parsed: pd.DataFrame, payload: tuple = ()
    ) -> pd.DataFrame:  # pragma: no cover
        """Cells (with ``_er`` event-row code and ``_t`` µs time) → long (``_er``, ``_t``, column, text)."""
        raise NotImplementedError

    def column_filter(self, needed: tuple[str, ...]) -> dict[str, Any] | None:
        """CellFilter fields that keep only ``needed`` columns, or None when impossible (G14)."""
        return None

    def describe(self) -> str:
        return self.label


@dataclass(frozen=True)
class Tall(Layout):
    """Single-timestamp rows, unserialized: one cell per measure (G15).

    ``qualifiers`` maps a column to its qualifier (short names, G01). Columns the
    key cannot give back (hashed or absent entity fields, attributes) ride along
    as cells too, like the paper's ``METRIC:USER:Corrie``."""

    family: Family = Family("m")
    # a mapping or (column, qualifier) pairs; stored as pairs (hashable, so the schema compares by value)
    qualifiers: Mapping[str, str] | tuple[tuple[str, str], ...] = ()
    value_qualifier: str = "v"  # the single qualifier when the key holds the measure (Metric)

    label = "single-timestamp rows, a cell per measure"
    guideline = "G15"

    def __post_init__(self) -> None:
        object.__setattr__(self, "qualifiers", as_pairs(self.qualifiers))
        if isinstance(self.family, str):
            object.__setattr__(self, "family", Family(self.family))

    def qname(self, col: str) -> str:
        return dict(self.qualifiers).get(col, col)

    def families(self, measures: tuple[str, ...]) -> tuple[Family, ...]:
        return (self.family,)

    def check(self, key: RowKey, carried: tuple[str, ...]) -> None:
        if key.metric is not None and carried:
            raise SchemaError(
                f"With the measure in the row key, every entity column must be in the key too; "
                f"{list(carried)} would be lost. Add them as Field segments."
            )
        names = [self.qname(c) for c in carried]
        if len(set(names)) != len(names):
            raise SchemaError(f"Two columns share a qualifier in {self.qualifiers}.")

    def build(self, b: BuildInput) -> CellParts:
        parts = CellParts()
        ts, ev, fam = b.ts_ms, b.events, self.family.name
        if b.key.metric is not None:
            for m in b.measures:
                values, size, present = column_values(b, m)
                parts.add(b.keys_for(m), fam, self.value_qualifier, ts, values, ev, size, present)
            return parts
        keys = b.keys_for(None)
        cols = (*b.measures, *b.carried)
        qn = [self.qname(c) for c in cols]
        if len(set(qn)) != len(qn):
            raise SchemaError(
                f"Two columns map to the same qualifier: {dict(zip(cols, qn, strict=True))}."
            )
        for c, q in zip(cols, qn, strict=True):
            values, size, present = column_values(b, c)
            parts.add(keys, fam, q, ts, values, ev, size, present)
        return parts

    def decode(self, f: pd.DataFrame, parsed: pd.DataFrame, payload: tuple = ()) -> pd.DataFrame:
        if "_metric" in parsed:
            col = parsed["_metric"].to_numpy()[f["_rk"].to_numpy()]
        else:
            back = {v: k for k, v in dict(self.qualifiers).items()}
            col = f["qualifier"].map(lambda q: back.get(q, q)).to_numpy()
        return decoded_frame(f, col, utf8_texts(f["value"]))

    def column_filter(self, needed: tuple[str, ...]) -> dict[str, Any] | None:
        return {"qualifier_regex": "|".join(re.escape(self.qname(c)) for c in needed)}

    def describe(self) -> str:
        q = ", ".join(f"{k}→{v}" for k, v in dict(self.qualifiers).items())
        return f"{self.label} (family {self.family.name}" + (f"; qualifiers {q}" if q else "") + ")"


@dataclass(frozen=True)
class NewCells(Tall):
    """Time-bucket rows where each event adds a new cell (version) to each column (G13).

    Needs a GC rule (max versions or max age) or the versions pile up; with no time
    in the key every reading lands in one row per device (``4c410523#memusage``, G24)."""

    label = "time buckets, new cells (versions) per event"
    guideline = "G13"
    versioned = True
    multi_event = True

    def describe(self) -> str:
        gc = self.family.cbt_gc()
        # without a rule the versions pile up: said once, the [G13] tag names the guideline
        rule = f"gc {gc}" if gc else "no GC rule, so versions pile up"
        return f"{self.label} (family {self.family.name}, {rule})"


@dataclass(frozen=True)
class NewColumns(Layout):
    """Time-bucket rows, a new column per event: the value is the qualifier, the cell is empty (G12).

    Needs the measure in the key (a Metric segment), as the weather-balloon example does."""

    family: Family = Family("m")

    label = "time buckets, new columns per event (data in the qualifier)"
    guideline = "G12"
    versioned = True
    multi_event = True

    def __post_init__(self) -> None:
        if isinstance(self.family, str):
            object.__setattr__(self, "family", Family(self.family))

    def families(self, measures: tuple[str, ...]) -> tuple[Family, ...]:
        return (self.family,)

    def check(self, key: RowKey, carried: tuple[str, ...]) -> None:
        if key.metric is None:
            raise SchemaError(
                "The new-columns layout stores the value in the qualifier, so the measure "
                "must be in the row key: add a Metric segment (G12)."
            )
        if carried:
            raise SchemaError(
                f"The new-columns layout needs every entity column in the key; {list(carried)} are not."
            )

    def build(self, b: BuildInput) -> CellParts:
        parts = CellParts()
        for m in b.measures:
            col = b.ctx.column(m)
            absent = missing_mask(col)
            if absent is None:
                parts.add(b.keys_for(m), self.family.name, encode_text(col), b.ts_ms, b"", b.events)
                continue
            texts = encode_text(fill_missing(col, absent))
            present = None
            if b.missing is None:
                present = ~absent
            else:
                check_sentinel(texts == b.missing, absent, m, b.missing)
                texts[absent] = b.missing
            parts.add(b.keys_for(m), self.family.name, texts, b.ts_ms, b"", b.events, None, present)
        return parts

    def decode(self, f: pd.DataFrame, parsed: pd.DataFrame, payload: tuple = ()) -> pd.DataFrame:
        col = parsed["_metric"].to_numpy()[f["_rk"].to_numpy()]
        return decoded_frame(f, col, f["qualifier"].to_numpy())

    def describe(self) -> str:
        return f"{self.label} (family {self.family.name})"


@dataclass(frozen=True)
class Serialized(Layout):
    """Single-timestamp rows with all of an event in one cell: JSON or protobuf (G14, G28).

    Compact and flexible, but a read cannot select measures with a filter (G14)."""

    format: Literal["json", "protobuf"] = "json"
    family: Family = Family("m")
    qualifier: str = "d"

    label = "single-timestamp rows, serialized"
    guideline = "G14"

    def __post_init__(self) -> None:
        if self.format not in ("json", "protobuf"):
            raise SchemaError(
                f"Serialized format must be 'json' or 'protobuf', got {self.format!r}."
            )
        if isinstance(self.family, str):
            object.__setattr__(self, "family", Family(self.family))

    def families(self, measures: tuple[str, ...]) -> tuple[Family, ...]:
        return (self.family,)

    def build(self, b: BuildInput) -> CellParts:
        cols = (*b.measures, *b.carried)
        keys = b.keys_for(None)
        if self.format == "json":
            values = to_bytes(json_payloads(b.ctx.column, cols, b.ctx.n, b.missing))
        else:
            if b.missing is not None:
                raise SchemaError(
                    f"A protobuf payload cannot hold the missing-value text {b.missing!r}: its "
                    "fields are typed (double, sint64, bool, string), and a missing value is an "
                    "unset field. Use missing=None with serialized protobuf."
                )
            values = protobuf_payloads({c: b.ctx.column(c) for c in cols})
        parts = CellParts()
        parts.add(keys, self.family.name, self.qualifier, b.ts_ms, values, b.events)
        return parts

    def decode(self, f: pd.DataFrame, parsed: pd.DataFrame, payload: tuple = ()) -> pd.DataFrame:
        vals = f["value"].to_numpy()
        if self.format == "json":
            recs = [json.loads(v) for v in vals]
        else:
            recs = protobuf_records(vals, payload)
        wide = pd.DataFrame.from_records(recs) if recs else pd.DataFrame()
        if payload:  # a column every event left out (all missing) is still a column
            wide = wide.reindex(columns=[*wide.columns, *(c for c, _ in payload if c not in wide)])
        wide = wide.apply(py_to_text) if len(wide.columns) else wide
        wide["_er"] = f["_er"].to_numpy()
        wide["_t"] = f["_t"].to_numpy()
        long = wide.melt(id_vars=["_er", "_t"], var_name="column", value_name="text")
        return long

    def describe(self) -> str:
        return (
            f"{self.label} as {self.format} (family {self.family.name}, qualifier {self.qualifier})"
        )


def column_values(
    b: BuildInput, col: str
) -> tuple[np.ndarray | Taken, np.ndarray, np.ndarray | None]:
    """A column's cell values, their byte lengths (floats: as codes into distinct values) and
    which events have a value (None: all, or a sentinel stands in for the missing ones)."""
    values = b.ctx.column(col)
    absent = missing_mask(values)
    if values.dtype.kind == "f":
        codes, texts, lens = float_bytes_coded(values.to_numpy())
        if absent is not None and b.missing is not None:
            mark = b.missing.encode("utf-8")
            check_sentinel((texts == mark)[codes], absent, col, b.missing)
            texts = np.append(texts, np.asarray([mark], dtype=object))
            lens = np.append(lens, len(mark))
            codes = np.where(absent, len(texts) - 1, codes)
        return Taken(texts, codes), lens[codes], present_mask(absent, b.missing)
    if absent is None:
        return (*encode_bytes_len(values), None)
    out, size = encode_bytes_len(fill_missing(values, absent))
    if b.missing is not None:
        mark = b.missing.encode("utf-8")
        check_sentinel(out == mark, absent, col, b.missing)
        out[absent] = mark
        size[absent] = len(mark)
    return out, size, present_mask(absent, b.missing)


def utf8_texts(values: pd.Series) -> np.ndarray:
    return np.asarray([v.decode("utf-8") for v in values], dtype=object)


def decoded_frame(f: pd.DataFrame, column: np.ndarray, text: np.ndarray) -> pd.DataFrame:
    """What every layout's ``decode`` returns: per cell, its event row, time, column and text."""
    return pd.DataFrame(
        {"_er": f["_er"].to_numpy(), "_t": f["_t"].to_numpy(), "column": column, "text": text}
    )
