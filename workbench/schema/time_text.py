"""Event times as int64 microseconds since the epoch (UTC), floored to a precision and formatted.

Calendar fields come from numpy datetime arithmetic, not ``strftime`` per event; formats are
strftime-like (%Y %m %d %H %M %S) or ``epoch_s`` / ``epoch_ms`` / ``epoch_us``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import SchemaError
from .value_text import BLOCK_ROWS, digits, factorize, merge_equal_texts, put_digits

if TYPE_CHECKING:  # pragma: no cover
    pass


US_PER_MS = 1_000
US_PER_S = 1_000_000
US_PER_DAY = 86_400 * US_PER_S


# ----------------------------------------------------------------------------- time

PRECISIONS = ("month", "week", "day", "hour", "minute", "second", "ms", "us")
_FIXED_US = {
    "day": US_PER_DAY,
    "hour": 3600 * US_PER_S,
    "minute": 60 * US_PER_S,
    "second": US_PER_S,
    "ms": US_PER_MS,
    "us": 1,
}
# one text of a time segment lasts this long: the shortest bucket of each precision (stepping
# by it visits every bucket of a range), and the longest (a row's time bound: 31-day months)
SHORTEST_US = {**_FIXED_US, "week": 7 * US_PER_DAY, "month": 28 * US_PER_DAY}
LONGEST_US = {**SHORTEST_US, "month": 31 * US_PER_DAY}
DEFAULT_FORMATS = {
    "month": "%Y%m%d",
    "week": "%Y%m%d",
    "day": "%Y%m%d",
    "hour": "%Y%m%d%H",
    "minute": "%Y%m%d%H%M",
    "second": "%Y%m%d%H%M%S",
    "ms": "%Y%m%d%H%M%S",
    "us": "%Y%m%d%H%M%S",
}
_TOKEN_WIDTH = {"Y": 4, "m": 2, "d": 2, "H": 2, "M": 2, "S": 2}
TOKEN_RX = re.compile(r"%([YmdHMS%])|([^%]+)")


def time_us(series: pd.Series) -> np.ndarray:
    """A tz-aware time column → int64 µs since the epoch (refuses sub-µs parts, naive times)."""
    if not isinstance(series.dtype, pd.DatetimeTZDtype):
        raise SchemaError(
            f"Time column {series.name!r} must be tz-aware UTC datetimes, got {series.dtype}."
        )
    if series.isna().any():
        raise SchemaError(
            f"Time column {series.name!r} has missing times (rows {series[series.isna()].index[:3].tolist()})."
        )
    # the values are held as UTC: dropping the zone relabels them (tz_localize(None) twice
    # converted every value, 5 ms per 516,000)
    naive = series.dt.tz_convert(None).to_numpy()
    unit = np.datetime_data(naive.dtype)[0]
    raw = naive.view("int64")
    if unit == "ns":
        if (raw % 1000).any():
            bad = series[(raw % 1000) != 0].iloc[0]
            raise SchemaError(
                f"Time column {series.name!r} has nanosecond parts (e.g. {bad}); "
                "Bigtable keys and cells go down to microseconds at most."
            )
        return raw // 1000
    if unit == "us":
        return raw.copy()  # the frame's own values: a caller's array of its own
    if unit == "ms":
        return raw * 1000
    if unit == "s":
        return raw * US_PER_S
    return naive.astype("datetime64[us]").astype("int64")


def floor_us(t: np.ndarray, precision: str) -> np.ndarray:
    """Floor µs times to a precision (weeks start on Monday, months on the 1st)."""
    if precision in _FIXED_US:
        step = _FIXED_US[precision]
        return t - np.mod(t, step)
    days = np.floor_divide(t, US_PER_DAY)
    if precision == "week":
        days = days - np.mod(days + 3, 7)  # 1970-01-05 was a Monday
        return days * US_PER_DAY
    if precision == "month":
        m = days.astype("datetime64[D]").astype("datetime64[M]")
        return m.astype("datetime64[D]").astype("int64") * US_PER_DAY
    raise SchemaError(f"Unknown precision {precision!r}; use one of {', '.join(PRECISIONS)}.")


def time_fields(t: np.ndarray) -> dict[str, np.ndarray]:
    days = np.floor_divide(t, US_PER_DAY)
    tod = t - days * US_PER_DAY
    if len(days) > 64:  # calendar fields once per day of the span (events are many, days few)
        lo, hi = int(days.min()), int(days.max())
        if hi - lo < len(days):
            cal = _calendar(np.arange(lo, hi + 1, dtype=np.int64))
            return {**{k: v[days - lo] for k, v in cal.items()}, **_clock(tod)}
    return {**_calendar(days), **_clock(tod)}


def _calendar(days: np.ndarray) -> dict[str, np.ndarray]:
    d64 = days.astype("datetime64[D]")
    m64 = d64.astype("datetime64[M]")
    y64 = d64.astype("datetime64[Y]")
    return {
        "Y": y64.astype("int64") + 1970,
        "m": m64.astype("int64") % 12 + 1,
        "d": (d64 - m64.astype("datetime64[D]")).astype("int64") + 1,
    }


def _clock(tod: np.ndarray) -> dict[str, np.ndarray]:
    return {
        "H": tod // (3600 * US_PER_S),
        "M": (tod // (60 * US_PER_S)) % 60,
        "S": (tod // US_PER_S) % 60,
        "ms": (tod // US_PER_MS) % 1000,
        "us": tod % US_PER_S,
    }


def format_time(t: np.ndarray, precision: str, fmt: str | None = None) -> np.ndarray:
    """Floor to ``precision`` and format: strftime-like (%Y%m%d%H%M%S, fractional digits appended
    for ms/us) or ``epoch_s`` / ``epoch_ms`` / ``epoch_us`` (zero-padded to 10/13/16 digits)."""
    codes, texts = format_time_coded(t, precision, fmt)
    return texts[codes]


_NEEDS = {
    "month": "Ym",
    "week": "Ymd",
    "day": "Ymd",
    "hour": "YmdH",
    "minute": "YmdHM",
    "second": "YmdHMS",
    "ms": "YmdHMS",
    "us": "YmdHMS",
}


def format_time_coded(
    t: np.ndarray, precision: str, fmt: str | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`format_time` as (codes, distinct texts): each distinct floored time is formatted once."""
    fmt = fmt or DEFAULT_FORMATS[precision]
    ft = floor_us(np.asarray(t, dtype=np.int64), precision)
    codes, uniq = _step_codes(ft, _FIXED_US.get(precision, 0))
    try:
        texts = _format_floored(uniq, precision, fmt)
    except SchemaError:  # name the first offending event, as formatting in event order would
        codes, uniq = pd.factorize(ft)
        texts = _format_floored(np.asarray(uniq, dtype=np.int64), precision, fmt)
    if fmt.startswith("epoch_"):
        exact = epoch_unit(fmt)[0] <= _FIXED_US.get(precision, US_PER_DAY)
    else:
        exact = all(f"%{c}" in fmt for c in _NEEDS[precision])
    return (codes, texts) if exact else merge_equal_texts(codes, texts)


def _step_codes(v: np.ndarray, step: int) -> tuple[np.ndarray, np.ndarray]:
    """Codes and distinct values of multiples of ``step``: by direct addressing (a presence
    table and its running count) when their span is small, else by hashing."""
    if step > 0 and len(v) > 1:
        lo = int(v.min())
        q = (v - lo) // step
        span = int(q.max()) + 1
        if span <= 4 * len(v):
            present = np.zeros(span, dtype=bool)
            present[q] = True
            rank = np.cumsum(present, dtype=np.int64) - 1
            return rank[q], lo + np.flatnonzero(present).astype(np.int64) * step
    codes, uniq = factorize(v)
    return codes, np.asarray(uniq, dtype=np.int64)


_FIELD_WIDTH = {**_TOKEN_WIDTH, "ms": 3, "us": 6}


def _format_floored(ft: np.ndarray, precision: str, fmt: str) -> np.ndarray:
    if fmt.startswith("epoch_"):
        unit, width = epoch_unit(fmt)
        return digits(ft // unit, width, "epoch time")
    pieces: list[str] = []  # field names (Y m d H M S ms us) or literal text as "=…"
    for tok, lit in TOKEN_RX.findall(fmt):
        pieces.append("=" + ("%" if tok == "%" else lit) if (lit or tok == "%") else tok)
    if precision in ("ms", "us"):
        pieces.append(precision)
    f = time_fields(ft)
    if (
        not pieces
        or any("\x00" in p for p in pieces)
        or (len(ft) and (f["Y"].min() < 0 or f["Y"].max() > 9999))
    ):
        return _format_joined(ft, precision, fmt, f)  # (raises for years beyond 4 digits)
    # A fixed-width unicode matrix per block of rows: literals as code points, fields as digits.
    width = sum(len(p) - 1 if p[0] == "=" else _FIELD_WIDTH[p] for p in pieces)
    out = np.empty(len(ft), dtype=object)
    for a in range(0, len(ft), BLOCK_ROWS):
        b = min(a + BLOCK_ROWS, len(ft))
        m = np.empty((b - a, width), dtype=np.uint32)
        pos = 0
        for p in pieces:
            if p[0] == "=":
                for c in p[1:]:
                    m[:, pos] = ord(c)
                    pos += 1
            else:
                put_digits(m, pos, f[p][a:b], _FIELD_WIDTH[p])
                pos += _FIELD_WIDTH[p]
        out[a:b] = m.view(f"<U{width}").ravel().astype(object)
    return out


def _format_joined(
    ft: np.ndarray, precision: str, fmt: str, f: dict[str, np.ndarray]
) -> np.ndarray:
    """The general path: numeric runs as zero-padded ints, literals joined as numpy str scalars."""
    t = ft
    tokens = TOKEN_RX.findall(fmt)
    out: np.ndarray | None = None
    pending: list[tuple[np.ndarray, int]] = []  # consecutive numeric tokens composed as one int

    def flush() -> None:
        nonlocal out, pending
        if not pending:
            return
        total = sum(w for _, w in pending)
        acc = np.zeros(len(t), dtype=np.int64)
        for v, w in pending:
            acc = acc * (10**w) + v
        piece = digits(acc, total, "time")
        out = piece if out is None else out + piece
        pending = []

    def add(v: np.ndarray, w: int) -> None:
        if sum(x for _, x in pending) + w > 18:
            flush()
        pending.append((v, w))

    for tok, lit in tokens:
        if tok == "%":
            lit = "%"
        if lit:
            flush()
            # a 1-element object array: a bare str operand (and np.full's fill) becomes a numpy
            # str, which drops trailing NULs, and NULs are why a format takes this path
            piece = np.empty(1, dtype=object)
            piece[0] = lit
            out = np.repeat(piece, len(t)) if out is None else out + piece
        else:
            add(f[tok], _TOKEN_WIDTH[tok])
    if precision == "ms":
        add(f["ms"], 3)
    elif precision == "us":
        add(f["us"], 6)
    flush()
    return out if out is not None else np.full(len(t), "", dtype=object)


def epoch_unit(fmt: str) -> tuple[int, int]:
    table = {"epoch_s": (US_PER_S, 10), "epoch_ms": (US_PER_MS, 13), "epoch_us": (1, 16)}
    if fmt not in table:
        raise SchemaError(f"Unknown epoch format {fmt!r}; use epoch_s, epoch_ms or epoch_us.")
    return table[fmt]


def check_format(fmt: str | None) -> None:
    if fmt is None or fmt.startswith("epoch_"):
        if fmt is not None:
            epoch_unit(fmt)
        return
    for m in re.finditer(r"%(.)", fmt):
        if m.group(1) not in _TOKEN_WIDTH and m.group(1) != "%":
            raise SchemaError(
                f"Time format {fmt!r} uses %{m.group(1)}; supported: %Y %m %d %H %M %S "
                "(fractional digits are added for ms/us precision) or epoch_s/epoch_ms/epoch_us."
            )
