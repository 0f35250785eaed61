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
    def of(cls, ds: "Dataset") -> "Shape":
        f = ds.frame
        cols = [*ds.entity, ds.time, *ds.measures, *ds.attributes]
        return cls(tuple(ds.entity), ds.time, tuple(ds.measures), tuple(ds.attributes),
                   tuple((c, str(f[c].dtype)) for c in cols if c in f.columns))

    @property
    def columns(self) -> list[str]:
        return [*self.entity, self.time, *self.measures, *self.attributes]

    def dtype(self, col: str) -> str | None:
        return dict(self.dtypes).get(col)

    def __deepcopy__(self, memo: dict) -> "Shape":  # immutable: pandas attrs copy it on every op
        return self


# ----------------------------------------------------------------------------- values


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
        raise SchemaError(f"Column {values.name!r} has missing values (rows {bad}); "
                          "a schema can only store text, fill them first.")
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
        return s.astype(dtype) if dtype.startswith(("float", "Float")) else pd.to_numeric(s).astype(dtype)
    if dtype.startswith("datetime64"):
        return pd.to_datetime(s.astype("int64"), unit="us", utc=True).astype(dtype)
    return s.astype(dtype)


def _float_text(x: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(x, dtype=np.float64)
    codes, uniq_bits = pd.factorize(x.view(np.int64))
    texts = np.empty(len(uniq_bits), dtype=object)
    texts[:] = list(map(repr, np.asarray(uniq_bits, dtype=np.int64).view(np.float64).tolist()))
    return texts[codes]


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
    raw = np.array([u.encode("utf-8") for u in uniques], dtype=object) if len(uniques) < 64 else None
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
_FIXED_US = {"day": US_PER_DAY, "hour": 3600 * US_PER_S, "minute": 60 * US_PER_S,
             "second": US_PER_S, "ms": US_PER_MS, "us": 1}
DEFAULT_FORMATS = {"month": "%Y%m%d", "week": "%Y%m%d", "day": "%Y%m%d", "hour": "%Y%m%d%H",
                   "minute": "%Y%m%d%H%M", "second": "%Y%m%d%H%M%S", "ms": "%Y%m%d%H%M%S",
                   "us": "%Y%m%d%H%M%S"}
_TOKEN_WIDTH = {"Y": 4, "m": 2, "d": 2, "H": 2, "M": 2, "S": 2}
_TOKEN_RX = re.compile(r"%([YmdHMS%])|([^%]+)")


def time_us(series: pd.Series) -> np.ndarray:
    """A tz-aware time column → int64 µs since the epoch (refuses sub-µs parts, naive times)."""
    if not isinstance(series.dtype, pd.DatetimeTZDtype):
        raise SchemaError(f"Time column {series.name!r} must be tz-aware UTC datetimes, got {series.dtype}.")
    if series.isna().any():
        raise SchemaError(f"Time column {series.name!r} has missing times (rows {series[series.isna()].index[:3].tolist()}).")
    s = series.dt.tz_convert("UTC")
    unit = np.datetime_data(s.dt.tz_localize(None).to_numpy().dtype)[0]
    raw = s.dt.tz_localize(None).to_numpy().astype("int64")
    if unit == "ns":
        if (raw % 1000).any():
            bad = series[(raw % 1000) != 0].iloc[0]
            raise SchemaError(f"Time column {series.name!r} has nanosecond parts (e.g. {bad}); "
                              "Bigtable keys and cells go down to microseconds at most.")
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
    d64 = days.astype("datetime64[D]")
    m64 = d64.astype("datetime64[M]")
    y64 = d64.astype("datetime64[Y]")
    return {
        "Y": y64.astype("int64") + 1970,
        "m": m64.astype("int64") % 12 + 1,
        "d": (d64 - m64.astype("datetime64[D]")).astype("int64") + 1,
        "H": tod // (3600 * US_PER_S),
        "M": (tod // (60 * US_PER_S)) % 60,
        "S": (tod // US_PER_S) % 60,
        "ms": (tod // US_PER_MS) % 1000,
        "us": tod % US_PER_S,
    }


def digits(values: np.ndarray, width: int, what: str = "value") -> np.ndarray:
    """Non-negative ints → zero-padded text of ``width`` digits (object array)."""
    values = np.asarray(values, dtype=np.int64)
    if len(values) and (values.min() < 0 or values.max() >= 10 ** width):
        bad = values[(values < 0) | (values >= 10 ** width)][0]
        raise SchemaError(f"{what} {bad} does not fit in {width} zero-padded digits (G21); "
                          "widen the segment.")
    return np.char.zfill(values.astype(str), width).astype(object)


def format_time(t: np.ndarray, precision: str, fmt: str | None = None) -> np.ndarray:
    """Floor to ``precision`` and format: strftime-like (%Y%m%d%H%M%S, fractional digits appended
    for ms/us) or ``epoch_s`` / ``epoch_ms`` / ``epoch_us`` (zero-padded to 10/13/16 digits)."""
    fmt = fmt or DEFAULT_FORMATS[precision]
    ft = floor_us(np.asarray(t, dtype=np.int64), precision)
    codes, uniq = pd.factorize(ft)
    if len(uniq) < len(ft):  # many events share a second/day: format each distinct value once
        return _format_floored(np.asarray(uniq, dtype=np.int64), precision, fmt)[codes]
    return _format_floored(ft, precision, fmt)


def _format_floored(ft: np.ndarray, precision: str, fmt: str) -> np.ndarray:
    t = ft
    if fmt.startswith("epoch_"):
        unit, width = _epoch_unit(fmt)
        return digits(ft // unit, width, "epoch time")
    tokens = _TOKEN_RX.findall(fmt)
    f = _fields(ft)
    out: np.ndarray | None = None
    pending: list[tuple[np.ndarray, int]] = []  # consecutive numeric tokens composed as one int

    def flush() -> None:
        nonlocal out, pending
        if not pending:
            return
        total = sum(w for _, w in pending)
        acc = np.zeros(len(t), dtype=np.int64)
        for v, w in pending:
            acc = acc * (10 ** w) + v
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
            raise SchemaError(f"Time format {fmt!r} uses %{m.group(1)}; supported: %Y %m %d %H %M %S "
                              "(fractional digits are added for ms/us precision) or epoch_s/epoch_ms/epoch_us.")


# ----------------------------------------------------------------------------- fast value bytes


def _repr_join(values: list) -> list:
    """``repr`` of each value as bytes through C-level map/join/split (no bytecode per value)."""
    if not values:
        return []
    return "\n".join(map(repr, values)).encode().split(b"\n")


def _float_bytes(x: np.ndarray) -> np.ndarray:
    """Floats → their shortest round-trip text (``repr``) as bytes, computed once per distinct
    bit pattern (sensor data repeats values a lot; -0.0 and NaN keep their identity)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    codes, uniq_bits = pd.factorize(x.view(np.int64))
    texts = np.empty(len(uniq_bits), dtype=object)
    texts[:] = _repr_join(np.asarray(uniq_bits, dtype=np.int64).view(np.float64).tolist())
    return texts[codes]


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
