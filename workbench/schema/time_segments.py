"""Time segments of a row key: the event time, its bucket, reversed, or Heroic's base (G06,
G09, G12, G13, G16, G21, G31)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..errors import SchemaError
from .segments import (
    BUCKET_LABEL,
    TIME,
    TIME_LABEL,
    Coded,
    KeyPart,
    RenderContext,
    Segment,
    factorized,
    sql_text,
)
from .time_text import (
    DEFAULT_FORMATS,
    PRECISIONS,
    TOKEN_RX,
    US_PER_MS,
    US_PER_S,
    check_format,
    epoch_unit,
    format_time_coded,
)
from .value_text import digits

__all__ = [
    "Timestamp",
    "TimeBucket",
    "ReversedTimestamp",
    "BaseTimestamp",
]  # the time segment kinds

# A reversed time at a precision: (unit, max_value, width), max_value all nines (G09)
REVERSED_UNITS = {
    "second": ("s", 9_999_999_999, 10),
    "ms": ("ms", 9_999_999_999_999, 13),
    "us": ("us", 9_999_999_999_999_999, 16),
}
_TRUNC = {  # a precision as DuckDB's date_trunc names it
    **{p: p for p in ("month", "week", "day", "hour", "minute", "second")},
    "ms": "millisecond",
    "us": "microsecond",
}
_FROM_EPOCH = {"s": "TIMESTAMP_SECONDS", "ms": "TIMESTAMP_MILLIS", "us": "TIMESTAMP_MICROS"}


@dataclass(frozen=True)
class Timestamp(Segment):
    """The event time at a precision (month … us) and format (G06, G21, G31).

    Formats: strftime-like with %Y %m %d %H %M %S (3 or 6 fractional digits are appended
    for ``ms``/``us``, with no separator: the template says ``mmm``/``uuuuuu`` where they go),
    or ``epoch_s``/``epoch_ms``/``epoch_us`` zero-padded numbers."""

    precision: str = "second"
    fmt: str | None = None

    time_order = 1

    @property
    def label(self) -> str:
        return TIME_LABEL

    def key_fields(self, delimiter: str) -> tuple[list[KeyPart], list[str]]:
        return [KeyPart("ts", note=self.template())], []

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
            "%" if tok == "%" else lit for tok, lit in TOKEN_RX.findall(fmt)
        )

    _fixed_width = True

    def at_precision(self, precision: str) -> Segment:
        """The formats follow: epoch_ms → epoch_us."""
        fmt = self.fmt
        if fmt and fmt.startswith("epoch_"):
            fmt = {"ms": "epoch_ms", "us": "epoch_us"}.get(precision, "epoch_s")
        return replace(self, precision=precision, fmt=fmt)

    def time_sql(self, field_name: str) -> str | None:
        fmt = self.fmt or DEFAULT_FORMATS[self.precision]
        if fmt.startswith("epoch_"):
            return f"{_FROM_EPOCH[fmt.removeprefix('epoch_')]}(CAST({field_name} AS INT64))"
        width = sum({"Y": 4}.get(c, 2) for c in re.findall(r"%([YmdHMS])", fmt)) + len(
            re.sub(r"%[YmdHMS]", "", fmt)
        )
        text = (
            field_name
            if self.precision not in ("ms", "us")
            else f"SUBSTR({field_name}, 1, {width})"
        )
        return f"PARSE_TIMESTAMP('{fmt}', {text})"

    def key_sql(self, columns: Mapping[str, str], t_us: str, delimiter: str = "#") -> str | None:
        fmt = self.fmt or DEFAULT_FORMATS[self.precision]
        # floored in UTC as ``floor_us`` floors: weeks from Monday (ISO), months from the 1st
        ts = f"date_trunc('{_TRUNC[self.precision]}', make_timestamp({t_us}))"
        if fmt.startswith("epoch_"):
            unit, width = epoch_unit(fmt)
            return f"lpad(CAST(epoch_us({ts}) // {unit} AS VARCHAR), {width}, '0')"
        text = f"strftime({ts}, {sql_text(fmt)})"
        frac = {"ms": ("// 1000 % 1000", 3), "us": ("% 1000000", 6)}.get(self.precision)
        if frac is None:
            return text
        return f"{text} || lpad(CAST(epoch_us({ts}) {frac[0]} AS VARCHAR), {frac[1]}, '0')"

    def subms(self, text: pd.Series) -> np.ndarray | None:
        """The sub-millisecond µs of the event (only a ``us`` precision key keeps them)."""
        if self.precision != "us":
            return None
        if self.fmt and self.fmt.startswith("epoch_"):
            return text.astype("int64").to_numpy() % US_PER_MS
        return text.str[-3:].astype("int64").to_numpy()

    def template(self) -> str:
        f = self.fmt or DEFAULT_FORMATS[self.precision]
        # the digits follow the seconds directly, as in the key text (20150302085455730)
        frac = (
            {"ms": "mmm", "us": "uuuuuu"}.get(self.precision, "")
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

    time_bucket = True

    def rebucketed(self, choice: str) -> Segment:
        return TimeBucket(choice)

    @property
    def label(self) -> str:
        return BUCKET_LABEL

    def key_fields(self, delimiter: str) -> tuple[list[KeyPart], list[str]]:
        return [KeyPart("bucket", note=self.template())], []


@dataclass(frozen=True)
class ReversedTimestamp(Segment):
    """``max_value − time`` zero-padded, so the newest event sorts first (G09).

    The blog's sensor key uses seconds with ``max_value=9999999999`` and 10 digits;
    Java's ``Long.MAX_VALUE`` with milliseconds needs 19 digits."""

    unit: str = "s"
    max_value: int = 9_999_999_999
    width: int = 10

    time_order = -1

    @property
    def label(self) -> str:
        return TIME_LABEL

    def key_fields(self, delimiter: str) -> tuple[list[KeyPart], list[str]]:
        return [
            KeyPart("ts_reversed", note=f"{self.max_value} − time in {self.unit}, zero-padded text")
        ], [
            "{name}: a reversed time stored as text is a STRING to SQL, not a TIMESTAMP (the "
            "schema's TIMESTAMP is a binary int64 of µs); a time range becomes a reversed text "
            "range the client computes (G09)."
        ]

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

    def at_precision(self, precision: str) -> Segment:
        return ReversedTimestamp(*REVERSED_UNITS[precision])

    def time_sql(self, field_name: str) -> str | None:
        return f"{_FROM_EPOCH[self.unit]}({self.max_value} - CAST({field_name} AS INT64))"

    def coded(self, ctx: RenderContext) -> Coded:
        codes, uniq = factorized(np.floor_divide(ctx.t_us, self._per))
        return codes, digits(self.max_value - uniq, self.width, "reversed timestamp")

    def key_sql(self, columns: Mapping[str, str], t_us: str, delimiter: str = "#") -> str | None:
        per = f"CAST(floor(({t_us}) / {self._per}) AS BIGINT)" if self._per > 1 else t_us
        return f"lpad(CAST({self.max_value} - {per} AS VARCHAR), {self.width}, '0')"

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
    time_bucket = True
    precision = "base"
    bucket_choices = tuple(f"2^{n} ms" for n in (24, 28, 30, 32, 34))

    def bucket_choice(self) -> str | None:
        return f"2^{self.bits} ms"

    def rebucketed(self, choice: str) -> Segment:
        return BaseTimestamp(int(choice.split("^")[1].split()[0]))

    @property
    def label(self) -> str:
        return BUCKET_LABEL

    def key_fields(self, delimiter: str) -> tuple[list[KeyPart], list[str]]:
        return [KeyPart("base_ms", note=self.template())], [
            "base_ms: Heroic's unpadded base time is text of varying width, so text order "
            "is not time order before 2001-09-09 (13 digits) (G21)."
        ]

    def sources(self) -> tuple[str, ...]:
        return (TIME,)

    def bucket_us(self, longest: bool = False) -> int:
        return (1 << self.bits) * US_PER_MS

    def coded(self, ctx: RenderContext) -> Coded:
        ms = np.floor_divide(ctx.t_us, US_PER_MS)
        codes, uniq = factorized(ms - np.mod(ms, 2**self.bits))
        return codes, uniq.astype(str).astype(object)

    def key_sql(self, columns: Mapping[str, str], t_us: str, delimiter: str = "#") -> str | None:
        # floored as numpy floors (DuckDB's % and // truncate toward zero): the ms, then the base
        ms = f"((({t_us}) - ((({t_us}) % 1000) + 1000) % 1000) // 1000)"
        m = 1 << self.bits
        return f"CAST({ms} - (({ms} % {m}) + {m}) % {m} AS VARCHAR)"

    def _alphabet(self) -> str | None:
        return "-0123456789"

    def template(self) -> str:
        return "{" + f"ms - ms % 2^{self.bits}" + "}"
