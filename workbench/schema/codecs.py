"""Value and time encodings shared by row-key segments and layouts.

Everything here works on whole numpy/pandas columns at once: ``to_cells`` on a
million events must not run Python code per event (issue 4's benchmark).

* Values are stored as short human-readable text (``60.4``, ``true``): floats
  as their shortest round-trip repr, so ``float(text) == value`` exactly.
* Times are int64 microseconds since the epoch (UTC); calendar fields are
  computed with numpy datetime arithmetic, not ``strftime`` per event.
* :func:`crc32` is zlib's CRC-32, vectorized, so salts are stable across
  processes and machines (Python's ``hash()`` is randomized per process).
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import SchemaError

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset

US_PER_MS = 1_000
US_PER_S = 1_000_000
US_PER_DAY = 86_400 * US_PER_S

# ----------------------------------------------------------------------------- shape


@dataclass(frozen=True)
class Shape:
    """The dataset's columns and dtypes: what ``from_cells`` must rebuild exactly."""

    entity: tuple[str, ...]
    time: str
    measures: tuple[str, ...]
    attributes: tuple[str, ...] = ()
    dtypes: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, ds: Dataset) -> Shape:
        f = ds.frame
        cols = [*ds.entity, ds.time, *ds.measures, *ds.attributes]
        return cls(
            tuple(ds.entity),
            ds.time,
            tuple(ds.measures),
            tuple(ds.attributes),
            tuple((c, str(f[c].dtype)) for c in cols if c in f.columns),
        )

    @property
    def columns(self) -> list[str]:
        return [*self.entity, self.time, *self.measures, *self.attributes]

    def dtype(self, col: str) -> str | None:
        return dict(self.dtypes).get(col)

    def __deepcopy__(self, memo: dict) -> Shape:  # immutable: pandas attrs copy it on every op
        return self


# ----------------------------------------------------------------------------- values


def factorize(values: np.ndarray, use_na_sentinel: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize`` (codes in first-seen order, same output) that uses the input's runs.

    Events usually arrive grouped by entity and ordered by time, so equal values sit next
    to each other: only the first value of each run is hashed (sorted integers need no
    hashing at all). Unordered input costs one extra comparison pass."""
    v = np.asarray(values)
    n = len(v)
    if n > 1 and v.dtype != object or n > 1 and use_na_sentinel:
        try:
            change = np.asarray(v[1:] != v[:-1])
        except (TypeError, ValueError):  # pd.NA and friends do not compare to bool
            change = None
        if change is not None and change.dtype == bool:
            starts = np.flatnonzero(change) + 1
            if len(starts) < n // 2 or v.dtype.kind in "iu" and bool((v[1:] >= v[:-1]).all()):
                starts = np.concatenate(([0], starts))
                runs = np.diff(np.append(starts, n))
                heads = v[starts]
                if v.dtype.kind in "iu" and bool((heads[1:] > heads[:-1]).all()):
                    return np.repeat(np.arange(len(starts)), runs), heads
                hc, uniq = pd.factorize(heads, use_na_sentinel=use_na_sentinel)
                return np.repeat(hc, runs), np.asarray(uniq)
    codes, uniq = pd.factorize(v, use_na_sentinel=use_na_sentinel)
    return codes, np.asarray(uniq)


def to_object(a: np.ndarray | pd.Series) -> np.ndarray:
    """A numpy object array of Python str (what CellFrame columns hold)."""
    a = a.to_numpy() if isinstance(a, pd.Series) else np.asarray(a)
    if a.dtype == object:
        return a
    return a.astype(object)


def encode_text(values: pd.Series) -> np.ndarray:
    """Column → object array of text: floats as shortest repr, bools as true/false."""
    kind = values.dtype.kind
    arr = values.to_numpy()
    if kind == "b":
        return np.where(arr, "true", "false").astype(object)
    if kind == "f":
        return _float_text(arr)
    if kind in "iu":
        return arr.astype(str).astype(object)
    if kind == "M":
        return pd.Series(values).astype("int64").to_numpy().astype(str).astype(object)
    if values.isna().any():
        bad = values[values.isna()].index[:3].tolist()
        raise SchemaError(
            f"Column {values.name!r} has missing values (rows {bad}); "
            "a schema can only store text, fill them first."
        )
    codes, uniq = pd.factorize(pd.Series(arr, dtype=object))
    texts = np.asarray([str(u) for u in uniq], dtype=object)
    return texts[codes] if len(uniq) else np.asarray([], dtype=object)


def decode_text(texts: pd.Series | np.ndarray, dtype: str | None) -> pd.Series:
    """Inverse of :func:`encode_text` for a dtype name like ``float64``, ``bool``, ``str``."""
    s = pd.Series(np.asarray(texts, dtype=object), dtype=object)
    if dtype is None:
        return s
    if dtype == "bool":
        ok = s.isin(["true", "false"])
        if not ok.all():
            raise SchemaError(f"Cannot read {s[~ok].iloc[0]!r} as a bool (expected true/false).")
        return (s == "true").astype(bool)
    if dtype.startswith(("float", "int", "uint", "Int", "Float")):
        return (
            s.astype(dtype)
            if dtype.startswith(("float", "Float"))
            else pd.to_numeric(s).astype(dtype)
        )
    if dtype.startswith("datetime64"):
        return pd.to_datetime(s.astype("int64"), unit="us", utc=True).astype(dtype)
    return s.astype(dtype)


def _float_text(x: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(x, dtype=np.float64)
    codes, uniq_bits = factorize(x.view(np.int64))
    return _float_reprs(np.asarray(uniq_bits, dtype=np.int64).view(np.float64), str)[codes]


_P10 = [float(10**d) for d in range(16)]  # exact doubles (10**d < 2**53 · 2**d)
_I10 = np.array([10**d for d in range(16)], dtype=np.int64)


def _float_reprs(u: np.ndarray, kind: type, lengths: bool = False):
    """``repr(x)`` of each float (as ``str`` or UTF-8 ``bytes``), vectorized where it provably agrees.

    Python's repr is the shortest decimal that reads back as the same double, written
    positionally for 1e-4 <= |x| < 1e16. For |x| in [1e-4, 1e15) the shortest decimal with
    d fraction digits is found as r = rint(x·10^d), accepted when r / 10^d == x exactly
    (IEEE division is correctly rounded, like float() parsing) and r < 10^15: below 10^15
    the rounding error of x·10^d is < 0.25, so rint finds the round-tripping r if any
    exists, and two d-digit candidates cannot both round-trip, so the first d that works
    is repr's answer. Digits are then laid out per (sign, integer digits, d) group.
    Everything else (0, ±0.0, nan, inf, tiny, huge, 16–17 significant digits) uses repr."""
    u = np.asarray(u, dtype=np.float64)
    n = len(u)
    out = np.empty(n, dtype=object)
    size = np.zeros(n, dtype=np.int64)
    if n == 0:
        return (out, size) if lengths else out
    a = np.abs(u)
    with np.errstate(invalid="ignore"):
        pending = np.flatnonzero((a >= 1e-4) & (a < 1e15))
    dec = np.full(n, -1, dtype=np.int64)
    rr = np.zeros(n, dtype=np.int64)
    for places in range(16):
        if len(pending) == 0:
            break
        x = a[pending]
        r = np.rint(x * _P10[places])
        big = r >= 1e15
        hit = (r / _P10[places] == x) & ~big
        dec[pending[hit]] = places
        rr[pending[hit]] = r[hit].astype(np.int64)
        pending = pending[~(hit | big)]
    done = dec >= 0
    slow = np.flatnonzero(~done)
    if len(slow):
        texts = list(map(repr, u[slow].tolist()))
        out[slow] = texts if kind is str else [t.encode() for t in texts]
        size[slow] = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))  # ASCII
    idx = np.flatnonzero(done)
    if len(idx) == 0:
        return (out, size) if lengths else out
    d = dec[idx]
    ip, fp = np.divmod(rr[idx], _I10[d])
    n_int = 1 + np.searchsorted(_I10[1:], ip, side="right")
    neg = (u[idx] < 0).astype(np.int64)
    group = ((neg * 32 + n_int) * 32 + d).astype(np.int16)  # < 2048: a 16-bit radix sort
    order = np.argsort(group, kind="stable")
    gs = group[order]
    cuts = np.flatnonzero(np.diff(gs)) + 1
    dtype = np.uint32 if kind is str else np.uint8
    for sel in np.split(order, cuts):
        g = int(group[sel[0]])
        dd, ni, sg = g % 32, (g // 32) % 32, g // 1024
        nf = max(dd, 1)
        w = sg + ni + 1 + nf
        m = np.empty((len(sel), w), dtype=dtype)
        if sg:
            m[:, 0] = 45  # "-"
        _put_digits(m, sg, ip[sel], ni)
        m[:, sg + ni] = 46  # "."
        if dd:
            _put_digits(m, sg + ni + 1, fp[sel], dd)
        else:
            m[:, sg + ni + 1] = 48
        view = m.view(f"<U{w}" if kind is str else f"S{w}").ravel()
        out[idx[sel]] = view.astype(object)
        size[idx[sel]] = w
    return (out, size) if lengths else out


_JSON_SPECIAL = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def json_fragment(values: pd.Series) -> np.ndarray:
    """Each value as a JSON literal (text), vectorized; strings escaped per unique value."""
    kind = values.dtype.kind
    if kind in "biuf":
        t = encode_text(values)
        if kind == "f":
            s = pd.Series(t, dtype=object)
            t = s.where(~s.isin(list(_JSON_SPECIAL)), s.map(_JSON_SPECIAL)).to_numpy(dtype=object)
        return t
    codes, uniques = pd.factorize(pd.Series(encode_text(values), dtype=object))
    return np.asarray([json.dumps(u) for u in uniques], dtype=object)[codes]


# ----------------------------------------------------------------------------- hashing


def _crc_table() -> np.ndarray:
    table = np.zeros(256, dtype=np.uint32)
    for i in range(256):
        c = i
        for _ in range(8):
            c = (0xEDB88320 ^ (c >> 1)) if (c & 1) else (c >> 1)
        table[i] = c
    return table


_CRC_TABLE = _crc_table()


def crc32(texts: np.ndarray | pd.Series) -> np.ndarray:
    """zlib.crc32 of each string's UTF-8 bytes, computed column-wise (vectorized over events)."""
    codes, uniques = pd.factorize(pd.Series(np.asarray(texts, dtype=object), dtype=object))
    if len(uniques) == 0:
        return np.zeros(0, dtype=np.uint32)
    raw = (
        np.array([u.encode("utf-8") for u in uniques], dtype=object) if len(uniques) < 64 else None
    )
    if raw is not None:  # few distinct values: zlib directly
        out = np.array([zlib.crc32(b) for b in raw], dtype=np.uint32)
        return out[codes]
    b = np.char.encode(np.asarray(uniques, dtype=str), "utf-8")
    lengths = np.char.str_len(b)
    width = b.dtype.itemsize
    mat = np.frombuffer(b.tobytes(), dtype=np.uint8).reshape(len(b), width)
    crc = np.full(len(b), 0xFFFFFFFF, dtype=np.uint32)
    for j in range(width):
        live = lengths > j
        nxt = _CRC_TABLE[(crc ^ mat[:, j]) & 0xFF] ^ (crc >> np.uint32(8))
        crc = np.where(live, nxt, crc)
    return (crc ^ np.uint32(0xFFFFFFFF))[codes]


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
_TOKEN_RX = re.compile(r"%([YmdHMS%])|([^%]+)")


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
    s = series.dt.tz_convert("UTC")
    unit = np.datetime_data(s.dt.tz_localize(None).to_numpy().dtype)[0]
    raw = s.dt.tz_localize(None).to_numpy().astype("int64")
    if unit == "ns":
        if (raw % 1000).any():
            bad = series[(raw % 1000) != 0].iloc[0]
            raise SchemaError(
                f"Time column {series.name!r} has nanosecond parts (e.g. {bad}); "
                "Bigtable keys and cells go down to microseconds at most."
            )
        return raw // 1000
    if unit == "us":
        return raw
    if unit == "ms":
        return raw * 1000
    if unit == "s":
        return raw * US_PER_S
    return s.dt.tz_localize(None).to_numpy().astype("datetime64[us]").astype("int64")


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


def _fields(t: np.ndarray) -> dict[str, np.ndarray]:
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


def digits(values: np.ndarray, width: int, what: str = "value") -> np.ndarray:
    """Non-negative ints → zero-padded text of ``width`` digits (object array)."""
    values = np.asarray(values, dtype=np.int64)
    if len(values) and (values.min() < 0 or values.max() >= 10**width):
        bad = values[(values < 0) | (values >= 10**width)][0]
        raise SchemaError(
            f"{what} {bad} does not fit in {width} zero-padded digits (G21); widen the segment."
        )
    return _zero_padded(values, width)


_QUADS = {
    t: (np.arange(10_000)[:, None] // np.array([1000, 100, 10, 1]) % 10 + 48).astype(t)
    for t in (np.uint8, np.uint32)
}  # the 4 ASCII digits of 0000 … 9999


_PAIRS64 = (
    np.ascontiguousarray(_QUADS[np.uint32][:100, 2:]).view(np.uint64).ravel()
)  # "00" … "99" (UCS-4)
_QUAD32 = np.ascontiguousarray(_QUADS[np.uint8]).view(np.uint32).ravel()  # "0000" … "9999" (bytes)
_BLOCK = (
    1 << 16
)  # rows per block when building text matrices (small buffers stay in cache and get reused)


def _put_digits(m: np.ndarray, pos: int, v: np.ndarray, w: int) -> None:
    """Write ``v`` (non-negative ints < 10**w) zero-padded into columns ``pos:pos+w`` of the
    character matrix ``m`` (uint8 bytes or uint32 UCS-4): several characters per store, as one
    machine word looked up in a table (unaligned strided views; numpy handles the alignment)."""
    n, width = m.shape
    item = m.itemsize
    per, table, div, word = (
        (4, _QUAD32, 10_000, np.uint32) if item == 1 else (2, _PAIRS64, 100, np.uint64)
    )
    v = np.array(v, dtype=np.int64)
    end = pos + w
    while end - pos >= per:
        end -= per
        np.ndarray((n,), word, buffer=m, offset=item * end, strides=(item * width,))[:] = table[
            v % div
        ]
        v //= div
    while end > pos:
        end -= 1
        m[:, end] = v % 10 + 48
        v //= 10


def _digit_matrix(v: np.ndarray, width: int, dtype: type = np.uint32) -> np.ndarray:
    """Non-negative ints → an (n, width) matrix of ASCII digit codes, zero-padded on the left."""
    out: np.ndarray = np.empty((len(v), width), dtype=dtype)
    _put_digits(out, 0, v, width)
    return out


def _zero_padded(values: np.ndarray, width: int) -> np.ndarray:
    """Zero-padded text without per-value Python: digits are computed column by column into a
    fixed-width unicode array, then turned into ``str`` objects once (same text as
    ``str(v).zfill(width)``)."""
    if len(values) == 0:
        return np.asarray([], dtype=object)
    if width < 1 or width > 19:  # 10**19 does not fit an int64 divisor; zfill(…, 0) keeps one digit
        return np.char.zfill(values.astype(str), width).astype(object)
    out = np.empty(len(values), dtype=object)
    for a in range(0, len(values), _BLOCK):
        b = min(a + _BLOCK, len(values))
        out[a:b] = _digit_matrix(values[a:b], width).view(f"<U{width}").ravel().astype(object)
    return out


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
        exact = _epoch_unit(fmt)[0] <= _FIXED_US.get(precision, US_PER_DAY)
    else:
        exact = all(f"%{c}" in fmt for c in _NEEDS[precision])
    return (codes, texts) if exact else _distinct(codes, texts)


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
        unit, width = _epoch_unit(fmt)
        return digits(ft // unit, width, "epoch time")
    pieces: list[str] = []  # field names (Y m d H M S ms us) or literal text as "=…"
    for tok, lit in _TOKEN_RX.findall(fmt):
        pieces.append("=" + ("%" if tok == "%" else lit) if (lit or tok == "%") else tok)
    if precision in ("ms", "us"):
        pieces.append(precision)
    f = _fields(ft)
    if (
        not pieces
        or any("\x00" in p for p in pieces)
        or (len(ft) and (f["Y"].min() < 0 or f["Y"].max() > 9999))
    ):
        return _format_joined(ft, precision, fmt, f)  # (raises for years beyond 4 digits)
    # A fixed-width unicode matrix per block of rows: literals as code points, fields as digits.
    width = sum(len(p) - 1 if p[0] == "=" else _FIELD_WIDTH[p] for p in pieces)
    out = np.empty(len(ft), dtype=object)
    for a in range(0, len(ft), _BLOCK):
        b = min(a + _BLOCK, len(ft))
        m = np.empty((b - a, width), dtype=np.uint32)
        pos = 0
        for p in pieces:
            if p[0] == "=":
                for c in p[1:]:
                    m[:, pos] = ord(c)
                    pos += 1
            else:
                _put_digits(m, pos, f[p][a:b], _FIELD_WIDTH[p])
                pos += _FIELD_WIDTH[p]
        out[a:b] = m.view(f"<U{width}").ravel().astype(object)
    return out


def _format_joined(
    ft: np.ndarray, precision: str, fmt: str, f: dict[str, np.ndarray]
) -> np.ndarray:
    """The general path: numeric runs as zero-padded ints, literals joined as numpy str scalars."""
    t = ft
    tokens = _TOKEN_RX.findall(fmt)
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
            out = np.full(len(t), lit, dtype=object) if out is None else out + lit
        else:
            add(f[tok], _TOKEN_WIDTH[tok])
    if precision == "ms":
        add(f["ms"], 3)
    elif precision == "us":
        add(f["us"], 6)
    flush()
    return out if out is not None else np.full(len(t), "", dtype=object)


def _epoch_unit(fmt: str) -> tuple[int, int]:
    table = {"epoch_s": (US_PER_S, 10), "epoch_ms": (US_PER_MS, 13), "epoch_us": (1, 16)}
    if fmt not in table:
        raise SchemaError(f"Unknown epoch format {fmt!r}; use epoch_s, epoch_ms or epoch_us.")
    return table[fmt]


def check_format(fmt: str | None) -> None:
    if fmt is None or fmt.startswith("epoch_"):
        if fmt is not None:
            _epoch_unit(fmt)
        return
    for m in re.finditer(r"%(.)", fmt):
        if m.group(1) not in _TOKEN_WIDTH and m.group(1) != "%":
            raise SchemaError(
                f"Time format {fmt!r} uses %{m.group(1)}; supported: %Y %m %d %H %M %S "
                "(fractional digits are added for ms/us precision) or epoch_s/epoch_ms/epoch_us."
            )


# ----------------------------------------------------------------------------- fast value bytes


def _repr_join(values: list) -> list:
    """``repr`` of each value as bytes through C-level map/join/split (no bytecode per value)."""
    if not values:
        return []
    return "\n".join(map(repr, values)).encode().split(b"\n")


def _float_bytes(x: np.ndarray) -> np.ndarray:
    """Floats → their shortest round-trip text (``repr``) as bytes, computed once per distinct
    bit pattern (sensor data repeats values a lot; -0.0 and NaN keep their identity)."""
    return _float_bytes_len(x)[0]


def _float_bytes_len(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    codes, texts, lens = _float_bytes_coded(x)
    return texts[codes], lens[codes]


def _float_bytes_coded(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Floats as (codes, distinct value bytes, their lengths)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    codes, uniq_bits = factorize(x.view(np.int64))
    texts, lens = _float_reprs(
        np.asarray(uniq_bits, dtype=np.int64).view(np.float64), bytes, lengths=True
    )
    return codes, texts, lens


def encode_bytes_len(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """:func:`encode_bytes` plus each value's byte length (known per distinct value, so the
    limit checks need not measure millions of cells again)."""
    kind = values.dtype.kind
    if kind == "f":
        return _float_bytes_len(values.to_numpy())
    if kind == "b":
        arr = values.to_numpy()
        return np.where(arr, b"true", b"false").astype(object), np.where(arr, 4, 5).astype(np.int64)
    if kind in "iu":
        s = values.to_numpy().astype("S")
        return s.astype(object), np.strings.str_len(s).astype(np.int64)
    out = encode_bytes(values)
    return out, np.fromiter(map(len, out), dtype=np.int64, count=len(out))


def encode_coded(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """:func:`encode_text` as (codes, distinct texts): ``texts[codes]`` is the encoded column and
    equal codes ⇔ equal texts. Key segments compose codes, so key text is built and hashed
    once per distinct key instead of once per event."""
    kind = values.dtype.kind
    arr = values.to_numpy()
    if kind == "f":
        codes, uniq = factorize(np.ascontiguousarray(arr, dtype=np.float64).view(np.int64))
        texts = _float_reprs(np.asarray(uniq, dtype=np.int64).view(np.float64), str)
        return _distinct(codes, texts)  # NaNs with different payloads share the text "nan"
    if kind in "biuM":
        codes, uniq = pd.factorize(arr, use_na_sentinel=False)
        return codes, encode_text(pd.Series(uniq, dtype=values.dtype))
    codes, uniq = factorize(np.asarray(arr, dtype=object))
    if len(codes) and codes.min() < 0:  # missing values
        encode_text(values)  # raises the error naming the rows
    return _distinct(codes, np.asarray([str(u) for u in uniq], dtype=object))


def _distinct(codes: np.ndarray, texts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge codes whose texts are equal (``str(1) == str("1")``), keeping first-seen order."""
    if len(texts) < 2:
        return codes, texts
    c2, t2 = pd.factorize(texts)
    if len(t2) == len(texts):
        return codes, texts
    return c2[codes], np.asarray(t2, dtype=object)


def encode_bytes(values: pd.Series) -> np.ndarray:
    """Column → object array of UTF-8 bytes, the same text as :func:`encode_text` (floats may
    differ from ``repr`` only in notation, never in value)."""
    kind = values.dtype.kind
    arr = values.to_numpy()
    if kind == "f":
        return _float_bytes(arr)
    if kind == "b":
        return np.where(arr, b"true", b"false").astype(object)
    if kind in "iu":
        return arr.astype("S").astype(object)
    t = encode_text(values)
    try:
        return np.asarray(t, dtype=str).astype("S").astype(object)  # ASCII fast path
    except UnicodeEncodeError:
        return np.asarray([s.encode("utf-8") for s in t], dtype=object)
