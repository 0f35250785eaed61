"""Values as the short human-readable text Bigtable cells and keys hold, for whole columns at once.

Floats are their shortest round-trip repr (``60.4``), so ``float(text) == value`` exactly;
integers become zero-padded digits where order matters (G21). Nothing here runs Python code
per event: ``to_cells`` on a million events must stay vectorized (``bench/bench_to_cells.py``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import SchemaError

if TYPE_CHECKING:  # pragma: no cover
    pass


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


def int_text(values: np.ndarray, pad: int = 0) -> np.ndarray:
    """Whole numbers (a numpy integer array) as text, zero-padded to ``pad`` digits, each
    distinct one formatted once: numpy's ``astype(str)`` per value took 36–70 ms per 250,000
    (a day's minutes, a series' ids repeat)."""
    codes, uniq = factorize(values)
    texts = np.array([str(v).zfill(pad) if pad else str(v) for v in uniq.tolist()], dtype=object)
    return texts[codes]


def encode_text(values: pd.Series) -> np.ndarray:
    """Column → object array of text: floats as shortest repr, bools as true/false."""
    kind = values.dtype.kind
    arr = values.to_numpy()
    if kind == "b":
        return np.where(arr, "true", "false").astype(object)
    if kind == "f":
        return _float_text(arr)
    if kind in "iu":
        return int_text(arr) if arr.dtype.kind in "iu" else arr.astype(str).astype(object)
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
    """Inverse of :func:`encode_text` for a dtype name like ``float64``, ``bool``, ``str``.
    A missing text (None, NaN: an event with no cell for the column) is a missing value: NaN in
    a float column, NaT in a time column, NA in a nullable one."""
    s = pd.Series(np.asarray(texts, dtype=object), dtype=object)
    if dtype is None:
        return s
    absent = s.isna()
    if absent.any():
        if dtype == "object":  # text: None, as a DataFrame built from Python values holds it
            return decode_text(s.where(~absent, "").to_numpy(), dtype).where(~absent, None)
        if absent.all():
            return pd.Series(np.nan, index=s.index).astype(_holding_missing(dtype))
        present = decode_text(s[~absent].to_numpy(), dtype)
        present.index = s.index[~absent]
        return present.reindex(s.index).astype(_holding_missing(dtype))
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


def _holding_missing(dtype: str) -> str:
    """The dtype a column of ``dtype`` takes when some values are missing (what validation
    gives a measure with gaps: float64)."""
    if dtype in ("bool",) or dtype.startswith(("int", "uint")):
        return "float64"
    return dtype


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
        put_digits(m, sg, ip[sel], ni)
        m[:, sg + ni] = 46  # "."
        if dd:
            put_digits(m, sg + ni + 1, fp[sel], dd)
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
BLOCK_ROWS = (
    1 << 16
)  # rows per block when building text matrices (small buffers stay in cache and get reused)


def put_digits(m: np.ndarray, pos: int, v: np.ndarray, w: int) -> None:
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
    put_digits(out, 0, v, width)
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
    for a in range(0, len(values), BLOCK_ROWS):
        b = min(a + BLOCK_ROWS, len(values))
        out[a:b] = _digit_matrix(values[a:b], width).view(f"<U{width}").ravel().astype(object)
    return out


# ----------------------------------------------------------------------------- fast value bytes


def _float_bytes(x: np.ndarray) -> np.ndarray:
    """Floats → their shortest round-trip text (``repr``) as bytes, computed once per distinct
    bit pattern (sensor data repeats values a lot; -0.0 and NaN keep their identity)."""
    return _float_bytes_len(x)[0]


def _float_bytes_len(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    codes, texts, lens = float_bytes_coded(x)
    return texts[codes], lens[codes]


def float_bytes_coded(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
        return merge_equal_texts(codes, texts)  # NaNs with different payloads share the text "nan"
    if kind in "biuM":
        codes, uniq = pd.factorize(arr, use_na_sentinel=False)
        return codes, encode_text(pd.Series(uniq, dtype=values.dtype))
    codes, uniq = factorize(np.asarray(arr, dtype=object))
    if len(codes) and codes.min() < 0:  # missing values
        encode_text(values)  # raises the error naming the rows
    return merge_equal_texts(codes, np.asarray([str(u) for u in uniq], dtype=object))


def merge_equal_texts(codes: np.ndarray, texts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
