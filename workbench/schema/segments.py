"""Row-key segments: each turns whole columns of events into key text, and back (G07, G08,
G16, G17, G20–G23, G25, G27).

A segment implements one method, :meth:`Segment.coded`: its text as codes into the distinct
texts, formatting and checking each distinct value once (entities and time buckets are few,
events are many); :meth:`Segment.render` expands it. Segments are frozen dataclasses: a key is
data that prints, compares by value and can be tweaked with ``dataclasses.replace``. The time
segments live in :mod:`.time_segments`; the key that joins them in :mod:`.keys`.

Why one module: each segment kind is one class that says everything about itself (its text,
template, parsing, the designer's ``label``, its row-key schema ``key_fields``), so that a new
kind is one class here and no other module lists the kinds; the kinds share ``RenderContext``,
``Coded`` and the text helpers above them.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

import numpy as np
import pandas as pd

from ..errors import SchemaError
from .hashing import CRC32_SQL, crc32
from .time_text import LONGEST_US, SHORTEST_US
from .value_text import digits, encode_coded, factorize, merge_equal_texts

TIME = "@time"  # the pseudo-column name segments use for "the event time"
MEASURE = "@measure"  # and in SQL for "the measure's name" (``RowKey.key_sql``: one per measure)

# Text of one key part for every event as (codes, distinct texts): ``texts[codes]`` is the
# text, equal codes ⇔ equal texts (``texts`` may hold values no event uses).
Coded = tuple[np.ndarray, np.ndarray]
# A segment's conditions in SQL, as (operator, key text) pairs, and the columns they use.
Where = tuple[list[tuple[str, Any]], tuple[str, ...]]


class KeyQuery(NamedTuple):
    """What a read fixes, as a row-key schema's SQL asks each segment: entity ``values`` by
    dataset column, the time range [t0, t1] in µs (each end may be open), the ``measure``."""

    values: Mapping[str, Any]
    t0: int | None
    t1: int | None
    measure: str | None
    delimiter: str


# ----------------------------------------------------------------------------- context


@dataclass
class RenderContext:
    """What segments render from: dataset columns, event times (µs), the current measure."""

    columns: Mapping[str, pd.Series]
    t_us: np.ndarray
    delimiter: str = "#"
    metric: str | None = None
    _cache: dict = field(default_factory=dict)
    time_coded: Coded | None = None

    @property
    def n(self) -> int:
        return len(self.t_us)

    def column(self, name: str) -> pd.Series:
        if name not in self.columns:
            raise SchemaError(unknown_name_message(name, list(self.columns)))
        return self.columns[name]

    def text(self, name: str) -> np.ndarray:
        """A column as key text; checks once per column that no value contains the delimiter."""
        key = ("text", name, self.delimiter)
        if key not in self._cache:
            codes, texts = self.coded(name)
            self._cache[key] = texts[codes]
        return self._cache[key]

    def coded(self, name: str) -> Coded:
        """A column as key text, as codes into its distinct texts (checked for the delimiter)."""
        key = ("coded", name, self.delimiter)
        if key not in self._cache:
            codes, texts = encode_coded(self.column(name))
            self._cache[key] = (codes, _no_delimiter(texts, name, self.delimiter))
        return self._cache[key]


def sql_text(text: str) -> str:
    """``text`` as a SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def unknown_name_message(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return f"Unknown column {name!r} in a key segment; the dataset has {known}.{hint}"


def _no_delimiter(texts: np.ndarray, what: str, delimiter: str) -> np.ndarray:
    """``texts`` are distinct values (in first-seen order)."""
    if delimiter and len(texts) and any_contains(texts, delimiter):
        bad = [u for u in texts if delimiter in u]
        if bad:
            raise SchemaError(
                f"Column {what!r} has values containing the key delimiter {delimiter!r} "
                f"(e.g. {bad[0]!r}); the key could not be split back. Choose another delimiter."
            )
    return texts


def any_contains(texts: np.ndarray, delimiter: str) -> bool:
    """Whether any of the texts contains ``delimiter`` (one C-level scan of the joined texts)."""
    if "\x00" in delimiter:
        return any(delimiter in t for t in texts)
    return delimiter in "\x00".join(texts)


def _map_coded(coded: Coded, fn) -> Coded:
    """Apply a scalar function once per distinct text (entities are few; events are many)."""
    codes, texts = coded
    return merge_equal_texts(codes, np.asarray([fn(u) for u in texts], dtype=object))


def factorized(values: np.ndarray) -> Coded:
    codes, uniq = factorize(np.asarray(values), use_na_sentinel=False)
    return codes, np.asarray(uniq)


# ----------------------------------------------------------------------------- segments

# The segment kinds (``workbench.schema`` exports them from this list): a new kind is added
# here, in its own module, and nowhere else.
__all__ = [
    "Segment",
    "KeyPart",
    "Literal",
    "Field",
    "Int",
    "PaddedInt",
    "Hashed",
    "ReversedId",
    "ReversedDomain",
    "Metric",
    "Salt",
    "Tags",
]

# The designer's short names for the segments whose label is not a column's name.
SALT_LABEL, TIME_LABEL, BUCKET_LABEL = "salt", "time", "time bucket"


@dataclass(frozen=True)
class KeyPart:
    """One field a segment gives the design's row-key schema (``rowkey_schema``): a base name
    (made unique there), what it holds, and the dataset column a Tags field holds.
    ``of_segment=False``: a part of a Literal that only holds the delimiter's neighbours."""

    name: str
    note: str = ""
    column: str = ""
    of_segment: bool = True


@dataclass(frozen=True)
class Segment:
    """Base class. ``sources`` are dataset columns (or ``TIME``) the text depends on.

    A new kind of segment is one subclass here (or in ``time_segments.py``) with its
    ``coded``, ``template``, ``label`` and ``key_fields``: nothing elsewhere names the kinds."""

    @property
    def label(self) -> str:
        """A short name for the segment, as the designer's segment-order control shows it."""
        return type(self).__name__.lower()

    def key_fields(self, delimiter: str) -> tuple[list[KeyPart], list[str]]:
        """The fields this segment gives a row-key schema, and notes on what the schema cannot
        say (``{name}`` in a note stands for the first field's final name)."""
        raise SchemaError(
            f"Segment {self!r} is not one the workbench can describe as a row-key schema field: "
            "the schema needs each key part as a delimited field of a known type."
        )

    def sources(self) -> tuple[str, ...]:
        return ()

    def recovers(self) -> tuple[str, ...]:
        """Dataset columns this segment gives back when a key is parsed."""
        return ()

    def coded(self, ctx: RenderContext) -> Coded:  # pragma: no cover - abstract
        """The segment's text for every event as (codes, distinct texts): each segment formats
        (and checks) each distinct value once; the one method a segment implements."""
        raise NotImplementedError

    def render(self, ctx: RenderContext) -> np.ndarray:
        """The segment's text for every event."""
        codes, texts = self.coded(ctx)
        return texts[codes]

    def _alphabet(self) -> str | None:
        """Every character the text can hold, when known without looking at it (None: unknown)."""
        return None

    _fixed_width = False  # every text has the same length (with an ASCII alphabet: one byte length)

    def n_parts(self, delimiter: str) -> int | None:
        return 1

    def parse(self, text: pd.Series) -> dict[str, pd.Series]:
        return {}

    def regex(self, delimiter: str, known: Mapping[str, Any] | None = None) -> str:
        """RE2-compatible pattern for any text this segment can produce (with the ``known``
        values of a query, for a segment that narrows on some of its sources: Tags)."""
        return f"[^{re.escape(delimiter)}]*"

    def template(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- the questions the planner, SQL, advisor and designer ask (docs/architecture.md lists
    # them): each has the answer of a segment that is none of these things; kinds that differ
    # override it. Callers never ask which kind a segment is.
    self_delimited = False  # writes its own delimiters (Tags): parse and regex take them, G16
    time_order = 0  # +1 increases with time, -1 decreases (reversed, G09), 0 not a time
    time_bucket = False  # names a bucket of time (a row per bucket, G12), not the event's time
    constant = False  # the same text in every key (a prefix, G17): never where writes land
    names_measure = False  # the measure's name (one row per measure): ``measures``, ``name_of``
    renders_last = False  # hashes other segments' texts (the key's time): rendered after them
    integer = False  # needs an integer column and writes its digits (G21)

    @property
    def value_column(self) -> str | None:
        """The one dataset column whose value this segment writes (a field), else None."""
        return None

    def digits_width(self) -> int | None:
        """The width the value's digits are written at, as the value has them (0: unpadded,
        G21); None when the text transforms them (a hash, reversed digits) or holds no value."""
        return None

    def readable(self) -> Segment:
        """The segment showing its value as readable text (G22): itself unless it hides it."""
        return self

    def buckets(self) -> list[str]:
        """The texts this segment spreads one series' writes over, each one more scan for a
        read that cannot compute it (G08); none for a segment that does not spread writes."""
        return []

    def time_precision(self) -> str | None:
        """The time precision the text keys on, a time segment's ``precision`` ("base" for
        Heroic's base time); None: not a time."""
        return getattr(self, "precision", None)

    def bucket_us(self, longest: bool = False) -> int:
        """How long one text of this time segment lasts, in µs: the shortest such bucket (a
        month: 28 days), or with ``longest`` the longest (31 days); 0: not a time."""
        p = self.time_precision() or ""
        return LONGEST_US.get(p, 0) if longest else SHORTEST_US.get(p, 0)

    # the designer's choices of bucket for it ((): the usual ones)
    bucket_choices: ClassVar[tuple[str, ...]] = ()

    def bucket_choice(self) -> str | None:
        """The designer's name for this time bucket (its precision; None: not a bucket)."""
        return self.time_precision() if self.time_bucket else None

    def rebucketed(self, choice: str) -> Segment:
        """This time bucket at the designer's ``choice`` of bucket."""
        raise SchemaError(f"{self.template()} is not a time bucket the designer can change.")

    def at_precision(self, precision: str) -> Segment:
        """The same time segment at another precision (G31)."""
        raise SchemaError(f"Cannot change the precision of {self.template()}.")

    def subms(self, text: pd.Series) -> np.ndarray | None:
        """The µs below the millisecond a key's text keeps (None: it keeps none)."""
        return None

    def known_prefix(self, known: Mapping[str, Any], delimiter: str) -> str:
        """The text a key starts with here when the query fixes only ``known`` of the sources."""
        return ""

    def text_of(
        self, known: Mapping[str, Any], t_us: int | None = None, delimiter: str = "#"
    ) -> str:
        """The text for one event with the columns ``known`` and the time ``t_us`` (µs)."""
        ctx = RenderContext(
            {c: pd.Series([v]) for c, v in known.items()},
            np.array([t_us or 0], dtype=np.int64),
            delimiter,
        )
        return str(self.render(ctx)[0])

    def sql_where(self, q: KeyQuery, column: str = "") -> Where:
        """This segment's conditions in a row-key schema's SQL for the read ``q``, as (operator,
        key text) pairs, and the columns of ``q.values`` they use (``column``: the dataset column
        of this field). A salt lists every bucket; a time text of fixed width sorts as time
        does, so SQL ranges over it; a column's value is compared as its text."""
        srcs, values = self.sources(), q.values
        if self.buckets():  # the writer computes it: SQL cannot, so it lists them all (G08)
            return [("IN", tuple(self.buckets()))], ()
        if TIME not in srcs:
            if srcs and set(srcs) <= set(values):
                return [("=", self.text_of(values, None, q.delimiter))], srcs
            return [], ()
        if not (self.time_order and self._fixed_width) or (q.t0, q.t1) == (None, None):
            return [], ()
        lo, hi = (None if t is None else self.text_of({}, t, q.delimiter) for t in (q.t0, q.t1))
        if self.time_order < 0:
            lo, hi = hi, lo  # newest first: the later bound is the smaller text
        return [(op, v) for op, v in ((">=", lo), ("<=", hi)) if v is not None], ()

    def time_sql(self, field_name: str) -> str | None:
        """A GoogleSQL TIMESTAMP expression decoding the field's text (None: no event time)."""
        return None

    def key_sql(self, columns: Mapping[str, str], t_us: str, delimiter: str = "#") -> str | None:
        """This segment's text for each event as a DuckDB SQL expression, the text ``coded``
        gives (the engine path's keys over the files, ``analysis/file_writes.py``):
        ``columns`` maps a dataset column to its key text in SQL (VARCHAR) — and ``TIME`` to the
        key's time text, ``MEASURE`` to the measure's name (``RowKey.key_sql``) —, ``t_us`` is
        the event time in µs since the epoch (BIGINT), ``delimiter`` the key's (a segment that
        writes its own, Tags). None: SQL does not write this text (a kind that does not say
        how), and the caller falls back to the sample (G06)."""
        return None


@dataclass(frozen=True)
class Literal(Segment):
    """Fixed text: a dataset or tenant prefix (G17, G25) like ``BATTERY`` or ``agg#hourly``."""

    text: str

    constant = True

    @property
    def label(self) -> str:
        return f"'{self.text}'"

    def key_fields(self, delimiter: str) -> tuple[list[KeyPart], list[str]]:
        n = self.n_parts(delimiter) or 1
        parts = self.text.split(delimiter) if n > 1 else [self.text]
        return [
            KeyPart("prefix", note=f"always {p!r}", of_segment=i == 0) for i, p in enumerate(parts)
        ], []

    def coded(self, ctx: RenderContext) -> Coded:
        return np.zeros(ctx.n, dtype=np.intp), np.array([self.text], dtype=object)

    def key_sql(self, columns: Mapping[str, str], t_us: str, delimiter: str = "#") -> str | None:
        return sql_text(self.text)

    def n_parts(self, delimiter: str) -> int | None:
        return self.text.count(delimiter) + 1 if delimiter else 1

    def regex(self, delimiter: str, known: Mapping[str, Any] | None = None) -> str:
        return re.escape(self.text)

    def template(self) -> str:
        return self.text


@dataclass(frozen=True)
class Field(Segment):
    """An entity column as readable text (field promotion, G07, G22)."""

    column: str

    @property
    def label(self) -> str:
        return self.column

    @property
    def value_column(self) -> str | None:
        return self.column

    def digits_width(self) -> int | None:
        return 0

    def key_fields(self, delimiter: str) -> tuple[list[KeyPart], list[str]]:
        return [KeyPart(self.column)], []

    def sources(self) -> tuple[str, ...]:
        return (self.column,)

    def recovers(self) -> tuple[str, ...]:
        return (self.column,)

    def coded(self, ctx: RenderContext) -> Coded:
        return ctx.coded(self.column)

    def key_sql(self, columns: Mapping[str, str], t_us: str, delimiter: str = "#") -> str | None:
        return columns.get(self.column)

    def parse(self, text: pd.Series) -> dict[str, pd.Series]:
        return {self.column: text}

    def template(self) -> str:
        return "{" + self.column + "}"


@dataclass(frozen=True)
class Int(Field):
    """An integer column without padding: the G21 anti-pattern (``3`` sorts after ``20``)."""

    integer = True

    def coded(self, ctx: RenderContext) -> Coded:
        col = ctx.column(self.column)
        if col.dtype.kind not in "iu":
            raise SchemaError(
                f"Int segment needs an integer column; {self.column!r} is {col.dtype}."
            )
        return ctx.coded(self.column)


@dataclass(frozen=True)
class PaddedInt(Field):
    """An integer column zero-padded to ``width`` digits so it sorts numerically (G21)."""

    width: int = 10

    integer = True

    def digits_width(self) -> int | None:
        return self.width

    def coded(self, ctx: RenderContext) -> Coded:
        col = ctx.column(self.column)
        if col.dtype.kind not in "iu":
            raise SchemaError(f"PaddedInt needs an integer column; {self.column!r} is {col.dtype}.")
        codes, uniq = factorized(col.to_numpy())
        return codes, digits(uniq, self.width, f"{self.column}")

    def key_sql(self, columns: Mapping[str, str], t_us: str, delimiter: str = "#") -> str | None:
        text = columns.get(self.column)  # the digits of a whole number ≥ 0 (``digits``)
        return None if text is None else f"lpad({text}, {int(self.width)}, '0')"

    def _alphabet(self) -> str | None:
        return "0123456789"

    _fixed_width = True

    def template(self) -> str:
        return "{" + self.column + f":0{self.width}d" + "}"


@dataclass(frozen=True)
class Hashed(Field):
    """An entity column replaced by a hash prefix: spreads writes, loses order and readability (G22).

    The value cannot be recovered from the key, so layouts carry the column in a cell."""

    length: int = 8

    @property
    def label(self) -> str:
        return f"md5({self.column})"

    def key_fields(self, delimiter: str) -> tuple[list[KeyPart], list[str]]:
        return [
            KeyPart(f"{self.column}_hash", note=f"md5 of {self.column} (first {self.length} hex)")
        ], [
            f"{{name}}: the key holds a hash, not {self.column!r}; SQL filters it only with the "
            "hash the client computes, and cannot range over it (G22)."
        ]

    def recovers(self) -> tuple[str, ...]:
        return ()

    def digits_width(self) -> int | None:
        return None

    def readable(self) -> Segment:
        return Field(self.column)

    def key_sql(self, columns: Mapping[str, str], t_us: str, delimiter: str = "#") -> str | None:
        # DuckDB's md5 is the lowercase hex digest of the text's UTF-8 bytes, as hexdigest()
        text = columns.get(self.column)
        return None if text is None else f"left(md5({text}), {int(self.length)})"

    def coded(self, ctx: RenderContext) -> Coded:
        return _map_coded(
            ctx.coded(self.column), lambda u: hashlib.md5(u.encode()).hexdigest()[: self.length]
        )

    def parse(self, text: pd.Series) -> dict[str, pd.Series]:
        return {}

    def template(self) -> str:
        return "{md5(" + self.column + f")[:{self.length}]" + "}"


@dataclass(frozen=True)
class ReversedId(Field):
    """A sequential numeric ID written backwards (``100042`` → ``240001``) so new IDs spread (G23)."""

    @property
    def label(self) -> str:
        return f"reversed({self.column})"

    def key_fields(self, delimiter: str) -> tuple[list[KeyPart], list[str]]:
        return [KeyPart(self.column, note="digits written backwards")], [
            f"{self.column}: stored reversed; SQL compares the reversed text (equality works, a "
            "numeric range does not) (G23)."
        ]

    def digits_width(self) -> int | None:
        return None

    def key_sql(self, columns: Mapping[str, str], t_us: str, delimiter: str = "#") -> str | None:
        text = columns.get(self.column)  # the digits of a whole number ≥ 0, backwards (G23)
        return None if text is None else f"reverse({text})"

    def coded(self, ctx: RenderContext) -> Coded:
        col = ctx.column(self.column)
        if col.dtype.kind not in "iu" or (len(col) and col.min() < 0):
            raise SchemaError(
                f"ReversedId needs a non-negative integer column; {self.column!r} is {col.dtype}."
            )
        return _map_coded(ctx.coded(self.column), lambda u: u[::-1])

    def parse(self, text: pd.Series) -> dict[str, pd.Series]:
        return {self.column: text.str[::-1]}

    def template(self) -> str:
        return "{reversed(" + self.column + ")}"


@dataclass(frozen=True)
class ReversedDomain(Field):
    """A domain name with its labels reversed (``maps.google.com`` → ``com.google.maps``, G27)."""

    @property
    def label(self) -> str:
        return f"reversed_domain({self.column})"

    def key_fields(self, delimiter: str) -> tuple[list[KeyPart], list[str]]:
        return [KeyPart(self.column, note="labels reversed")], []

    def digits_width(self) -> int | None:
        return None

    def key_sql(self, columns: Mapping[str, str], t_us: str, delimiter: str = "#") -> str | None:
        text = columns.get(self.column)  # the labels between dots in reverse order (G27)
        if text is None:
            return None
        return f"array_to_string(list_reverse(string_split({text}, '.')), '.')"

    def coded(self, ctx: RenderContext) -> Coded:
        if ctx.delimiter == ".":
            raise SchemaError("ReversedDomain cannot be used with the '.' delimiter.")
        return _map_coded(ctx.coded(self.column), lambda u: ".".join(reversed(u.split("."))))

    def parse(self, text: pd.Series) -> dict[str, pd.Series]:
        return {self.column: text.map(lambda u: ".".join(reversed(u.split("."))))}

    def template(self) -> str:
        return "{reversed_domain(" + self.column + ")}"


@dataclass(frozen=True)
class Metric(Segment):
    """The measure's name in the key: one row per measure (``4c410523#memusage#…``, tall-per-metric).

    ``measures`` lists the measures in order (empty: the dataset's); ``names`` maps a
    measure to its key text (short names, G01)."""

    measures: tuple[str, ...] = ()
    names: tuple[tuple[str, str], ...] = ()

    names_measure = True

    @property
    def label(self) -> str:
        return "measure"

    def sql_where(self, q: KeyQuery, column: str = "") -> Where:
        return ([("=", self.name_of(q.measure))] if q.measure is not None else []), ()

    def key_fields(self, delimiter: str) -> tuple[list[KeyPart], list[str]]:
        return [KeyPart("measure", note="the measure's name")], []

    def __post_init__(self) -> None:
        object.__setattr__(self, "measures", tuple(self.measures))
        if isinstance(self.names, Mapping):
            object.__setattr__(self, "names", tuple(self.names.items()))

    def name_of(self, measure: str) -> str:
        return dict(self.names).get(measure, measure)

    def measure_of(self) -> dict[str, str]:
        return {v: k for k, v in dict(self.names).items()}

    def coded(self, ctx: RenderContext) -> Coded:
        if ctx.metric is None:
            raise SchemaError("A Metric segment needs a layout that writes one row per measure.")
        return np.zeros(ctx.n, dtype=np.intp), np.array([self.name_of(ctx.metric)], dtype=object)

    def key_sql(self, columns: Mapping[str, str], t_us: str, delimiter: str = "#") -> str | None:
        measure = columns.get(MEASURE)  # the measure's name in SQL, as a dataset names it
        if measure is None or not self.names:
            return measure
        whens = " ".join(f"WHEN {sql_text(m)} THEN {sql_text(t)}" for m, t in self.names)
        return f"CASE {measure} {whens} ELSE {measure} END"

    def parse(self, text: pd.Series) -> dict[str, pd.Series]:
        back = self.measure_of()
        return {"_metric": text.map(lambda x: back.get(x, x))}

    def template(self) -> str:
        return "{measure}"


SALT_MAX = 1024  # buckets: each one is a scan for every time-range read


@dataclass(frozen=True)
class Salt(Segment):
    """``crc32(x) mod n`` of some columns or of the key's time text (G08).

    The paper salts the timestamp with 3 buckets: ``BATTERY#2#20150301124501002``.
    Every time-range read then needs one scan per bucket."""

    n: int = 3
    of: tuple[str, ...] = ("time",)

    renders_last = True

    @property
    def label(self) -> str:
        return SALT_LABEL

    def key_fields(self, delimiter: str) -> tuple[list[KeyPart], list[str]]:
        return [KeyPart("salt", note=f"crc32 bucket 0…{self.n - 1}, computed by the writer")], [
            "{name}: the schema names the salt but SQL cannot compute it from a row's other "
            "fields, so a time-range query lists every bucket ({name} IN (…)) and costs "
            f"{self.n} scans (G08)."
        ]

    def __post_init__(self) -> None:
        object.__setattr__(self, "of", (self.of,) if isinstance(self.of, str) else tuple(self.of))
        if isinstance(self.n, bool) or not isinstance(self.n, (int, np.integer)) or self.n < 1:
            raise SchemaError(f"Salt needs n >= 1 buckets, got {self.n!r}.")
        if self.n > SALT_MAX:  # every range read needs n scans; thousands are never a design (G08)
            raise SchemaError(
                f"Salt n={self.n:,} is over {SALT_MAX:,} buckets: every time-range read would "
                f"need {self.n:,} scans (G08). Use a small multiple of the node count."
            )
        if not self.of:
            raise SchemaError("Salt needs at least one source in `of` (a column or 'time').")

    @property
    def width(self) -> int:
        return len(str(self.n - 1))

    def sources(self) -> tuple[str, ...]:
        return tuple(TIME if c == "time" else c for c in self.of)

    def coded(self, ctx: RenderContext) -> Coded:
        acc: Coded | None = None
        for c in self.of:
            if c == "time":
                if ctx.time_coded is None:
                    raise SchemaError(
                        "Salt of 'time' hashes the key's timestamp text: add a time segment to the key."
                    )
                part = ctx.time_coded
            else:
                part = ctx.coded(c)
            acc = part if acc is None else _join_coded(acc, part, "|")
        assert acc is not None
        codes, texts = acc
        bucket = (
            (crc32(texts) % np.uint32(self.n)).astype(np.intp)
            if len(texts)
            else np.zeros(0, np.intp)
        )
        return bucket[codes], digits(np.arange(self.n), self.width, "salt")

    def key_sql(self, columns: Mapping[str, str], t_us: str, delimiter: str = "#") -> str | None:
        # ``coded``'s texts joined by "|", hashed by the crc32 a connection registers (DuckDB
        # has none: ``hashing.register_crc32``); "time" is the key's time text, which
        # ``RowKey.key_sql`` hands over as ``columns[TIME]`` (salts render last)
        texts = [columns.get(TIME if c == "time" else c) for c in self.of]
        if any(t is None for t in texts):
            return None
        text = " || '|' || ".join(f"({t})" for t in texts)
        bucket = f"{CRC32_SQL}({text}) % {int(self.n)}"
        return f"lpad(CAST({bucket} AS VARCHAR), {self.width}, '0')"

    def _alphabet(self) -> str | None:
        return "0123456789"

    _fixed_width = True

    def buckets(self) -> list[str]:
        return [str(i).zfill(self.width) for i in range(self.n)]

    def regex(self, delimiter: str, known: Mapping[str, Any] | None = None) -> str:
        return f"[0-9]{{{self.width}}}"

    def template(self) -> str:
        return "{crc32(" + ",".join(self.of) + f") % {self.n}" + "}"


@dataclass(frozen=True)
class Tags(Segment):
    """Heroic's tags: ``name=value`` pairs sorted by name, absent ("") tags omitted (G16).

    Writes its own delimiters (one after each pair), so a series without tags
    has no empty part in its key."""

    columns: tuple[str, ...] = ()

    self_delimited = True

    @property
    def label(self) -> str:
        return "tags"

    def key_fields(self, delimiter: str) -> tuple[list[KeyPart], list[str]]:
        return [
            KeyPart(c, note=f"'{c}=value'; omitted when empty", column=c) for c in self.columns
        ], [
            "Tags: each tag is a 'name=value' field and an empty tag is left out of the key, so "
            "a series without one of them has fewer fields and does not conform (G16)."
        ]

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", tuple(sorted(self.columns)))

    def sources(self) -> tuple[str, ...]:
        return self.columns

    def recovers(self) -> tuple[str, ...]:
        return self.columns

    def n_parts(self, delimiter: str) -> int | None:
        return None

    def coded(self, ctx: RenderContext) -> Coded:
        # the pairs of every event, then factorized: a series' tags are few distinct texts
        out = np.full(ctx.n, "", dtype=object)
        for c in self.columns:
            t = ctx.text(c)
            pair = np.where(t == "", "", (c + "=") + t + ctx.delimiter).astype(object)
            out = out + pair
        return factorized(out)

    def key_sql(self, columns: Mapping[str, str], t_us: str, delimiter: str = "#") -> str | None:
        # each pair as ``coded`` writes it: nothing for an empty text; a NULL (a missing value,
        # which the loaded events refuse) is no text ("" = NULL is not true), so no key
        texts = [columns.get(c) for c in self.columns]
        if any(t is None for t in texts):
            return None
        pairs = [
            f"CASE WHEN {t} = '' THEN '' ELSE {sql_text(c + '=')} || {t} || {sql_text(delimiter)} END"
            for c, t in zip(self.columns, texts, strict=True)
        ]
        return " || ".join(pairs) or "''"

    def parse(self, text: pd.Series, delimiter: str = ",") -> dict[str, pd.Series]:
        d = re.escape(delimiter)
        out = {}
        for c in self.columns:
            out[c] = (
                text.str.extract(f"(?:^|{d}){re.escape(c)}=([^{d}]*)", expand=False)
                .fillna("")
                .astype(object)
            )
        return out

    def known_prefix(self, known: Mapping[str, Any], delimiter: str) -> str:
        """The leading fixed ``name=value,`` pairs (an empty tag writes nothing)."""
        txt = ""
        for c in self.columns:
            if c not in known:
                break
            v = str(known[c])
            txt += f"{c}={v}{delimiter}" if v != "" else ""
        return txt

    def sql_where(self, q: KeyQuery, column: str = "") -> Where:
        if column not in q.values:
            return [], ()
        return [("=", f"{column}={q.values[column]}")], (column,)

    def regex(self, delimiter: str, known: Mapping[str, Any] | None = None) -> str:
        d = re.escape(delimiter)
        parts = []
        for c in self.columns:
            if known is not None and c in known:
                v = str(known[c])
                parts.append("" if v == "" else re.escape(f"{c}={v}{delimiter}"))
            else:
                parts.append(f"(?:{re.escape(c + '=')}[^{d}]*{d})?")
        return "".join(parts)

    def template(self) -> str:
        return "{" + ",".join(f"{c}=…" for c in self.columns) + " (sorted, empty omitted)}"


# ----------------------------------------------------------------------------- row key


def _join_coded(a: Coded, b: Coded, sep: str) -> Coded:
    """Texts ``a + sep + b`` per event, as codes into the distinct combinations (first-seen order).
    Distinct pairs give distinct texts when ``sep`` splits them back (the caller's check)."""
    codes, texts, _ = join_sized(
        a, np.zeros(len(a[1]), np.int64), b, np.zeros(len(b[1]), np.int64), sep
    )
    return codes, texts


def join_sized(
    a: Coded, la: np.ndarray, b: Coded, lb: np.ndarray, sep: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_join_coded` that also carries the texts' UTF-8 lengths (``la``, ``lb`` → result)."""
    ca, ta = a
    cb, tb = b
    ls = len(sep.encode("utf-8"))
    if len(ca) == 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=object), np.zeros(0, dtype=np.int64)
    if len(tb) == 1:
        return ca, ta + _one(sep + tb[0]), la + (ls + lb[0])
    if len(ta) == 1:
        return cb, _one(ta[0] + sep) + tb, lb + (la[0] + ls)
    codes, pairs = factorize(np.asarray(ca, dtype=np.int64) * len(tb) + cb)
    left, right = np.divmod(pairs, len(tb))
    if len(ta) <= len(tb):
        texts = (ta + _one(sep))[left] + tb[right]
    else:
        texts = ta[left] + (_one(sep) + tb)[right]
    return codes, texts, la[left] + ls + lb[right]


def _one(text: str) -> np.ndarray:
    """A str as a 1-element object array: numpy would turn a bare str operand into a fixed-width
    unicode array and drop its trailing NULs."""
    out = np.empty(1, dtype=object)
    out[0] = text
    return out
