"""Row keys as ordered segments joined by a delimiter (G04, G06–G09, G20–G23, G27, G16).

A segment turns whole columns of events into key text at once (``render``) and,
where it can, back (``parse``). Segments are frozen dataclasses: a key is data
that prints, compares by value and can be tweaked with ``dataclasses.replace``.

The same ``render`` code builds the keys written to Bigtable and the keys a
read plan asks for, so a plan can never disagree with the data.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..cells import utf8_len
from ..errors import SchemaError
from .codecs import (
    _TOKEN_RX,
    DEFAULT_FORMATS,
    PRECISIONS,
    US_PER_MS,
    US_PER_S,
    _distinct,
    check_format,
    crc32,
    digits,
    encode_coded,
    factorize,
    format_time_coded,
)

TIME = "@time"  # the pseudo-column name segments use for "the event time"

# Text of one key part for every event as (codes, distinct texts): ``texts[codes]`` is the
# text, equal codes ⇔ equal texts (``texts`` may hold values no event uses).
Coded = tuple[np.ndarray, np.ndarray]


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
            raise SchemaError(_unknown(name, list(self.columns)))
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


def _unknown(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return f"Unknown column {name!r} in a key segment; the dataset has {known}.{hint}"


def _no_delimiter(texts: np.ndarray, what: str, delimiter: str) -> np.ndarray:
    """``texts`` are distinct values (in first-seen order)."""
    if delimiter and len(texts) and _contains(texts, delimiter):
        bad = [u for u in texts if delimiter in u]
        if bad:
            raise SchemaError(
                f"Column {what!r} has values containing the key delimiter {delimiter!r} "
                f"(e.g. {bad[0]!r}); the key could not be split back. Choose another delimiter."
            )
    return texts


def _contains(texts: np.ndarray, delimiter: str) -> bool:
    """Whether any of the texts contains ``delimiter`` (one C-level scan of the joined texts)."""
    if "\x00" in delimiter:
        return any(delimiter in t for t in texts)
    return delimiter in "\x00".join(texts)


def _map_coded(coded: Coded, fn) -> Coded:
    """Apply a scalar function once per distinct text (entities are few; events are many)."""
    codes, texts = coded
    return _distinct(codes, np.asarray([fn(u) for u in texts], dtype=object))


def _factorized(values: np.ndarray) -> Coded:
    codes, uniq = factorize(np.asarray(values), use_na_sentinel=False)
    return codes, np.asarray(uniq)


# ----------------------------------------------------------------------------- segments


@dataclass(frozen=True)
class Segment:
    """Base class. ``sources`` are dataset columns (or ``TIME``) the text depends on."""

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

    def regex(self, delimiter: str) -> str:
        """RE2-compatible pattern for any text this segment can produce."""
        return f"[^{re.escape(delimiter)}]*"

    def template(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    self_delimited = False
    time_order = 0  # +1 increases with time, -1 decreases (reversed), 0 not a time


@dataclass(frozen=True)
class Literal(Segment):
    """Fixed text: a dataset or tenant prefix (G17, G25) like ``BATTERY`` or ``agg#hourly``."""

    text: str

    def coded(self, ctx: RenderContext) -> Coded:
        return np.zeros(ctx.n, dtype=np.intp), np.array([self.text], dtype=object)

    def n_parts(self, delimiter: str) -> int | None:
        return self.text.count(delimiter) + 1 if delimiter else 1

    def regex(self, delimiter: str) -> str:
        return re.escape(self.text)

    def template(self) -> str:
        return self.text


@dataclass(frozen=True)
class Field(Segment):
    """An entity column as readable text (field promotion, G07, G22)."""

    column: str

    def sources(self) -> tuple[str, ...]:
        return (self.column,)

    def recovers(self) -> tuple[str, ...]:
        return (self.column,)

    def coded(self, ctx: RenderContext) -> Coded:
        return ctx.coded(self.column)

    def parse(self, text: pd.Series) -> dict[str, pd.Series]:
        return {self.column: text}

    def template(self) -> str:
        return "{" + self.column + "}"


@dataclass(frozen=True)
class Int(Field):
    """An integer column without padding: the G21 anti-pattern (``3`` sorts after ``20``)."""

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

    def coded(self, ctx: RenderContext) -> Coded:
        col = ctx.column(self.column)
        if col.dtype.kind not in "iu":
            raise SchemaError(f"PaddedInt needs an integer column; {self.column!r} is {col.dtype}.")
        codes, uniq = _factorized(col.to_numpy())
        return codes, digits(uniq, self.width, f"{self.column}")

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

    def recovers(self) -> tuple[str, ...]:
        return ()

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

    def parse(self, text: pd.Series) -> dict[str, pd.Series]:
        back = self.measure_of()
        return {"_metric": text.map(lambda x: back.get(x, x))}

    def template(self) -> str:
        return "{measure}"


@dataclass(frozen=True)
class Timestamp(Segment):
    """The event time at a precision (month … us) and format (G06, G21, G31).

    Formats: strftime-like with %Y %m %d %H %M %S (3 or 6 fractional digits are appended
    for ``ms``/``us``), or ``epoch_s``/``epoch_ms``/``epoch_us`` zero-padded numbers."""

    precision: str = "second"
    fmt: str | None = None

    time_order = 1

    def __post_init__(self) -> None:
        if self.precision not in PRECISIONS:
            raise SchemaError(
                f"Unknown precision {self.precision!r}; use one of {', '.join(PRECISIONS)}."
            )
        check_format(self.fmt)

    def sources(self) -> tuple[str, ...]:
        return (TIME,)

    def coded(self, ctx: RenderContext) -> Coded:
        return format_time_coded(ctx.t_us, self.precision, self.fmt)

    def _alphabet(self) -> str | None:
        fmt = self.fmt or DEFAULT_FORMATS[self.precision]
        if fmt.startswith("epoch_"):
            return "0123456789"
        return "0123456789" + "".join(
            "%" if tok == "%" else lit for tok, lit in _TOKEN_RX.findall(fmt)
        )

    _fixed_width = True

    def subms(self, text: pd.Series) -> np.ndarray | None:
        """The sub-millisecond µs of the event (only a ``us`` precision key keeps them)."""
        if self.precision != "us":
            return None
        if self.fmt and self.fmt.startswith("epoch_"):
            return text.astype("int64").to_numpy() % US_PER_MS
        return text.str[-3:].astype("int64").to_numpy()

    def template(self) -> str:
        f = self.fmt or DEFAULT_FORMATS[self.precision]
        frac = (
            {"ms": ".mmm", "us": ".uuuuuu"}.get(self.precision, "")
            if not f.startswith("epoch_")
            else ""
        )
        return (
            "{time:"
            + f
            + frac
            + (f" per {self.precision}" if self.precision in ("month", "week") else "")
            + "}"
        )


@dataclass(frozen=True)
class TimeBucket(Timestamp):
    """The start of the event's time bucket (week, day, month…) for time-bucket rows (G12, G13, G02)."""

    precision: str = "week"


@dataclass(frozen=True)
class ReversedTimestamp(Segment):
    """``max_value − time`` zero-padded, so the newest event sorts first (G09).

    The blog's sensor key uses seconds with ``max_value=9999999999`` and 10 digits;
    Java's ``Long.MAX_VALUE`` with milliseconds needs 19 digits."""

    unit: str = "s"
    max_value: int = 9_999_999_999
    width: int = 10

    time_order = -1

    def __post_init__(self) -> None:
        if self.unit not in ("s", "ms", "us"):
            raise SchemaError(f"ReversedTimestamp unit must be s, ms or us, got {self.unit!r}.")
        if self.max_value >= 10**self.width:
            raise SchemaError(
                f"max_value {self.max_value} has more than width={self.width} digits."
            )

    @property
    def _per(self) -> int:
        return {"s": US_PER_S, "ms": US_PER_MS, "us": 1}[self.unit]

    @property
    def precision(self) -> str:
        return {"s": "second", "ms": "ms", "us": "us"}[self.unit]

    def sources(self) -> tuple[str, ...]:
        return (TIME,)

    def coded(self, ctx: RenderContext) -> Coded:
        codes, uniq = _factorized(np.floor_divide(ctx.t_us, self._per))
        return codes, digits(self.max_value - uniq, self.width, "reversed timestamp")

    def _alphabet(self) -> str | None:
        return "0123456789"

    _fixed_width = True

    def subms(self, text: pd.Series) -> np.ndarray | None:
        if self.unit != "us":
            return None
        return (self.max_value - text.astype("int64").to_numpy()) % US_PER_MS

    def template(self) -> str:
        return "{" + f"{self.max_value} - time_{self.unit}:0{self.width}d" + "}"


@dataclass(frozen=True)
class BaseTimestamp(Segment):
    """Heroic's base timestamp ``ts − ts mod 2^bits`` in ms, unpadded (G16)."""

    bits: int = 32

    time_order = 1
    precision = "base"

    def sources(self) -> tuple[str, ...]:
        return (TIME,)

    def coded(self, ctx: RenderContext) -> Coded:
        ms = np.floor_divide(ctx.t_us, US_PER_MS)
        codes, uniq = _factorized(ms - np.mod(ms, 2**self.bits))
        return codes, uniq.astype(str).astype(object)

    def _alphabet(self) -> str | None:
        return "-0123456789"

    def template(self) -> str:
        return "{" + f"ms - ms % 2^{self.bits}" + "}"


SALT_MAX = 1024  # buckets: each one is a scan for every time-range read


@dataclass(frozen=True)
class Salt(Segment):
    """``crc32(x) mod n`` of some columns or of the key's time text (G08).

    The paper salts the timestamp with 3 buckets: ``BATTERY#2#20150301124501002``.
    Every time-range read then needs one scan per bucket."""

    n: int = 3
    of: tuple[str, ...] = ("time",)

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

    def _alphabet(self) -> str | None:
        return "0123456789"

    _fixed_width = True

    def buckets(self) -> list[str]:
        return [str(i).zfill(self.width) for i in range(self.n)]

    def regex(self, delimiter: str) -> str:
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
        return _factorized(out)

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
    codes, texts, _ = _join_sized(
        a, np.zeros(len(a[1]), np.int64), b, np.zeros(len(b[1]), np.int64), sep
    )
    return codes, texts


def _join_sized(
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


@dataclass(frozen=True)
class RowKey:
    """Ordered segments joined by ``delimiter`` (G20: common-to-granular, short, readable)."""

    segments: tuple[Segment, ...]
    delimiter: str = "#"

    def __post_init__(self) -> None:
        if isinstance(self.segments, (str, Segment)):
            raise SchemaError(
                f"RowKey takes a sequence of segments, e.g. RowKey((Field('sensor'), "
                f"Timestamp('second'))), got {self.segments!r}."
            )
        object.__setattr__(self, "segments", tuple(self.segments))
        if not self.segments:
            raise SchemaError("A row key needs at least one segment.")
        not_segments = [s for s in self.segments if not isinstance(s, Segment)]
        if not_segments:
            raise SchemaError(
                f"RowKey segments must be key segments such as Field('sensor') or "
                f"Timestamp('second'), got {not_segments[0]!r}."
            )
        d = self.delimiter
        if not isinstance(d, str) or not d:
            raise SchemaError(
                f"A row key's delimiter must be a non-empty string such as '#', got {d!r}: "
                "without it the key could not be split back into its segments."
            )
        for (
            seg
        ) in self.segments:  # values are checked when rendered; fixed alphabets can be checked now
            alphabet = seg._alphabet()
            clash = sorted({ch for ch in d if alphabet is not None and ch in alphabet})
            if clash and seg.n_parts(d) == 1:
                raise SchemaError(
                    f"The delimiter {d!r} can occur inside the text of {seg.template()} "
                    f"(it writes {''.join(clash)!r}), so keys could not be split back into "
                    "segments. Choose another delimiter (e.g. '#') or a time format without it."
                )
        variable = [s for s in self.segments if s.n_parts(self.delimiter) is None]
        if len(variable) > 1:
            raise SchemaError("A row key can have at most one variable-width segment (Tags).")
        if sum(isinstance(s, Metric) for s in self.segments) > 1:
            raise SchemaError("A row key can have at most one Metric segment.")

    # -- introspection ---------------------------------------------------------------
    def columns(self) -> tuple[str, ...]:
        out: list[str] = []
        for s in self.segments:
            out += [c for c in s.sources() if c != TIME and c not in out]
        return tuple(out)

    def recovers(self) -> tuple[str, ...]:
        out: list[str] = []
        for s in self.segments:
            out += [c for c in s.recovers() if c not in out]
        return tuple(out)

    @property
    def metric(self) -> Metric | None:
        return next((s for s in self.segments if isinstance(s, Metric)), None)

    @property
    def time_segments(self) -> list[Segment]:
        return [s for s in self.segments if TIME in s.sources() and s.time_order != 0]

    def keeps_microseconds(self) -> bool:
        return any(getattr(s, "precision", None) == "us" for s in self.time_segments)

    def template(self) -> str:
        out = ""
        for i, s in enumerate(self.segments):
            out += s.template()
            if i < len(self.segments) - 1:
                out += self.delimiter
        return out

    # -- render / parse --------------------------------------------------------------
    def render(self, ctx: RenderContext) -> np.ndarray:
        """Key text for every event (for ``ctx.metric`` when the key has a Metric segment)."""
        coded = self._render_coded(ctx)
        if coded is not None:
            codes, texts, _ = coded
            return texts[codes]
        return self._render_text(ctx)

    def _render_coded(self, ctx: RenderContext) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Keys as (dense codes, distinct key texts in first-seen order, their UTF-8 byte lengths).

        Each segment gives codes into its distinct texts; the codes are combined pairwise and
        only distinct combinations get text, so a key is built (and later hashed and measured)
        once per distinct key, not once per event. This is exact when the combination is
        injective: a one-character delimiter that no varying segment's text contains, so each
        key splits back into the same segment texts. Otherwise (and for Tags) it returns None
        and ``render`` joins the texts per event."""
        d = self.delimiter
        if len(d) != 1 or d == "\x00" or any(s.self_delimited for s in self.segments):
            return None  # NUL: the text path joins with numpy str scalars, which drop it; keep its keys
        ctx.delimiter = d
        ctx.time_coded = None
        parts: list[Coded | None] = [None] * len(self.segments)
        for i, s in enumerate(self.segments):
            if not isinstance(s, Salt):
                parts[i] = s.coded(ctx)
                if ctx.time_coded is None and s.time_order != 0:
                    ctx.time_coded = parts[i]
        for i, s in enumerate(self.segments):
            if isinstance(s, Salt):
                parts[i] = s.coded(ctx)
        sizes = []
        for s, (_codes, texts) in zip(self.segments, parts, strict=True):  # type: ignore[misc]
            alphabet = s._alphabet()
            if len(texts) > 1 and (alphabet is None or d in alphabet) and _contains(texts, d):
                return None
            if s._fixed_width and alphabet is not None and alphabet.isascii() and len(texts):
                sizes.append(np.full(len(texts), len(texts[0]), dtype=np.int64))
            else:
                sizes.append(utf8_len(pd.Series(texts, dtype=object)))
        codes, texts = parts[0]  # type: ignore[misc]
        size = sizes[0]
        dense = (
            False  # codes are 0..len(texts)-1, each used (a segment's texts may hold unused values)
        )
        for nxt, nsize in zip(parts[1:], sizes[1:], strict=True):
            n_left, n_right = len(texts), len(nxt[1])  # type: ignore[index]
            codes, texts, size = _join_sized((codes, texts), size, nxt, nsize, d)  # type: ignore[arg-type]
            if n_right != 1:
                dense = n_left != 1
        if not dense:
            codes, uniq = factorize(codes)
            texts, size = texts[uniq], size[uniq]
        return codes, texts, size

    def _render_text(self, ctx: RenderContext) -> np.ndarray:
        ctx.delimiter = self.delimiter
        ctx.time_coded = None
        texts: list[np.ndarray | None] = [None] * len(self.segments)
        for i, s in enumerate(self.segments):
            if not isinstance(s, Salt):
                codes, distinct = s.coded(ctx)
                texts[i] = distinct[codes]
                if ctx.time_coded is None and s.time_order != 0:
                    ctx.time_coded = (codes, distinct)
        for i, s in enumerate(self.segments):
            if isinstance(s, Salt):
                texts[i] = s.render(ctx)
        rendered = [t for t in texts if t is not None]  # every slot was filled above
        out = rendered[0]
        for i in range(1, len(rendered)):
            sep = "" if self.segments[i - 1].self_delimited else self.delimiter
            out = out + sep + rendered[i] if sep else out + rendered[i]
        if self.segments[-1].self_delimited:
            out = pd.Series(out, dtype=object).str.rstrip(self.delimiter).to_numpy(dtype=object)
        return out

    def _split(self, keys: pd.Series) -> list[pd.Series]:
        """Each segment's text, vectorized; a key that does not fit the template raises."""
        d = self.delimiter
        counts = [s.n_parts(d) for s in self.segments]
        var = next((i for i, c in enumerate(counts) if c is None), None)
        bad_msg = "Row key {!r} does not match the key template " + repr(self.template()) + "."
        # RowKey allows at most one variable-width segment (None), so every other count is known
        widths = [c for c in counts if c is not None]
        if var is None:
            total = sum(widths)
            parts = keys.str.split(d, regex=False, expand=True) if total > 1 else keys.to_frame()
            if parts.shape[1] != total or parts.isna().any().any():
                bad = keys[parts.isna().any(axis=1)] if parts.shape[1] >= total else keys
                raise SchemaError(bad_msg.format(bad.iloc[0] if len(bad) else "?"))
            cols = [parts[j] for j in range(total)]
            out, j = [], 0
            for c in widths:
                seg = cols[j]
                for k in range(1, c):
                    seg = seg + d + cols[j + k]
                out.append(seg.astype(object))
                j += c
            return out
        left = sum(widths[:var])
        right = sum(widths[var:])
        if left:
            lp = keys.str.split(d, n=left, regex=False, expand=True)
            if lp.shape[1] != left + 1 or lp.isna().any().any():
                raise SchemaError(bad_msg.format(keys.iloc[0]))
            rest = lp[left]
            lcols = [lp[j] for j in range(left)]
        else:
            rest, lcols = keys, []
        rp = (d + rest).str.rsplit(d, n=right, expand=True)
        if rp.shape[1] != right + 1 or rp.isna().any().any():
            raise SchemaError(bad_msg.format(keys.iloc[0]))
        middle = rp[0].str[1:]
        rcols = [rp[j] for j in range(1, right + 1)]
        flat = [*lcols, middle, *rcols]
        out, j = [], 0
        for n in counts:
            if n is None:
                out.append(flat[j].astype(object))
                j += 1
                continue
            seg = flat[j]
            for k in range(1, n):
                seg = seg + d + flat[j + k]
            out.append(seg.astype(object))
            j += n
        return out

    def parse(self, keys: pd.Series) -> pd.DataFrame:
        """Unique keys → recovered entity text, ``_metric``, ``_subms`` (µs below the ms) and
        ``_event_row`` (the key without its metric segment: what identifies one event's row)."""
        keys = keys.reset_index(drop=True).astype(object)
        texts = self._split(keys)
        out = pd.DataFrame(index=keys.index)
        for s, t in zip(self.segments, texts, strict=True):
            got = s.parse(t, self.delimiter) if isinstance(s, Tags) else s.parse(t)
            for k, v in got.items():
                out[k] = v.to_numpy()
            sub = getattr(s, "subms", None)
            if sub is not None and "_subms" not in out:
                v = sub(t)
                if v is not None:
                    out["_subms"] = v
        m = next((i for i, s in enumerate(self.segments) if isinstance(s, Metric)), None)
        if m is None:
            out["_event_row"] = keys.to_numpy()
        else:
            rest = [t for i, t in enumerate(texts) if i != m]
            er = rest[0] if rest else pd.Series([""] * len(keys), dtype=object)
            for t in rest[1:]:
                er = er + "\x00" + t
            out["_event_row"] = er.to_numpy()
        return out


def heroic_key(
    key: str = "key", tags: tuple[str, ...] = (), resources: tuple[str, ...] = (), bits: int = 32
) -> RowKey:
    """Heroic's row key: ``key,tag=value…,base,resource…`` (tags and resources sorted by name)."""
    segs: list[Segment] = [Field(key)]
    if tags:
        segs.append(Tags(tuple(tags)))
    segs.append(BaseTimestamp(bits))
    segs += [Field(r) for r in sorted(resources)]
    return RowKey(tuple(segs), ",")
