"""The vectorized shortcuts behind ``Schema.to_cells`` give exactly what the obvious per-value
code gives (the fast paths must not change a single byte of the cells).

Each test compares a fast path with Python's own answer on values chosen to hit the edges:
shortest-repr floats, zero-padded digits (G21), times formatted per second/ms/µs (G31),
run-based factorizing, and row keys built per distinct key from segment codes.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from workbench.schema import (
    BaseTimestamp,
    Field,
    Hashed,
    Literal,
    PaddedInt,
    ReversedTimestamp,
    RowKey,
    Salt,
    Tags,
    Timestamp,
)
from workbench.schema.segments import RenderContext
from workbench.schema.time_text import format_time
from workbench.schema.value_text import _float_reprs, digits, factorize

RNG = np.random.default_rng(20240501)

EDGE_FLOATS = [
    0.0,
    -0.0,
    np.nan,
    np.inf,
    -np.inf,
    1e-4,
    -1e-4,
    9.999999999999999e-05,
    1e15,
    -1e15,
    999999999999999.0,
    99999999999999.9,
    0.1,
    0.3,
    1 / 3,
    2 / 3,
    5e-324,
    1.7976931348623157e308,
    2.5,
    0.5,
    123456789012.345,
    1e14 + 0.5,
    0.00012,
    1e-3,
    9.5,
    99.99,
    1e16,
    12345678901234.56,
]


def _floats() -> np.ndarray:
    return np.concatenate(
        [
            np.array(EDGE_FLOATS),
            RNG.normal(size=20_000) * 10.0 ** RNG.integers(-6, 17, 20_000),  # any magnitude
            np.concatenate(
                [
                    np.round(RNG.normal(size=2_000) * 10.0**e, k)  # sensor-like decimals
                    for e in range(-3, 15)
                    for k in (0, 1, 2, 5)
                ]
            ),
            RNG.integers(-(10**15), 10**15, 5_000).astype(float),
            RNG.integers(0, 2**63, 20_000, dtype=np.int64).view(np.float64),  # random bit patterns
        ]
    )


def test_vectorized_float_text_is_python_repr():
    x = _floats()
    want = list(map(repr, x.tolist()))
    text = _float_reprs(x, str)
    raw, size = _float_reprs(x, bytes, lengths=True)
    assert text.tolist() == want
    assert raw.tolist() == [w.encode() for w in want]
    assert size.tolist() == [len(w) for w in want]


@pytest.mark.parametrize("width", [1, 2, 3, 4, 5, 10, 14, 16, 19])
def test_zero_padded_digits_match_zfill(width):
    v = RNG.integers(0, 2**62, 5_000) % (10**width if width < 19 else 2**62)
    assert digits(v, width).tolist() == [str(int(i)).zfill(width) for i in v]


def test_digits_refuse_values_wider_than_the_segment():
    with pytest.raises(Exception, match="does not fit in 3 zero-padded digits"):
        digits(np.array([5, 1000]), 3)


@pytest.mark.parametrize(
    "precision,fmt,py",
    [
        ("second", None, "%Y%m%d%H%M%S"),
        ("day", "%Y-%m-%d", "%Y-%m-%d"),
        ("hour", "%Y%m%d%H", "%Y%m%d%H"),
        ("minute", "T%H:%M %%", "T%H:%M %%"),
        ("ms", None, "%Y%m%d%H%M%S.ms"),
        ("us", "%Y%m%d %H%M%S", "%Y%m%d %H%M%S.us"),
    ],
)
def test_time_text_matches_strftime(precision, fmt, py):
    t = np.concatenate(
        [
            RNG.integers(-2 * 10**15, 4 * 10**15, 20_000),  # 1906 … 2096
            1_425_168_000_000_000 + RNG.integers(0, 10**9, 20_000),
        ]
    )  # many per second
    got = format_time(t, precision, fmt)
    step = {
        "second": 10**6,
        "day": 86_400 * 10**6,
        "hour": 3_600 * 10**6,
        "minute": 60 * 10**6,
        "ms": 1_000,
        "us": 1,
    }[precision]
    epoch = dt.datetime(1970, 1, 1)
    want = []
    for us in (t // step * step).tolist():
        when = epoch + dt.timedelta(microseconds=us)
        text = when.strftime(py.removesuffix(".ms").removesuffix(".us"))
        if py.endswith(".ms"):
            text += f"{when.microsecond // 1000:03d}"
        elif py.endswith(".us"):
            text += f"{when.microsecond:06d}"
        want.append(text)
    assert got.tolist() == want


@pytest.mark.parametrize(
    "values",
    [
        np.sort(RNG.integers(0, 50, 3_000)),
        RNG.integers(0, 50, 3_000),
        np.arange(3_000),
        np.repeat(RNG.integers(0, 10**12, 500), RNG.integers(1, 5, 500)),
        np.array(["b", "b", "a", None, None, "b", np.nan, "c"], dtype=object),
        np.repeat(np.array(["x", 1, "1", "x"], dtype=object), 3),
    ],
)
def test_run_factorize_equals_pandas(values):
    for na in (True, False):
        want_codes, want_uniq = pd.factorize(values, use_na_sentinel=na)
        codes, uniq = factorize(values, use_na_sentinel=na)
        assert codes.tolist() == want_codes.tolist()
        assert pd.Series(uniq, dtype=object).equals(pd.Series(want_uniq, dtype=object))


def _events(n: int) -> dict[str, pd.Series]:
    sites = np.array(["gew", "lon-1", "é-site", "ams"], dtype=object)
    return {
        "site": pd.Series(sites[RNG.integers(0, 4, n)], dtype="str"),
        "dev": pd.Series([f"d{i}" for i in RNG.integers(0, 30, n)], dtype=object),
        "num": pd.Series(RNG.integers(0, 10**6, n)),
        "host": pd.Series(
            np.array(["", "a.example.com"], dtype=object)[RNG.integers(0, 2, n)], dtype=object
        ),
    }


@pytest.mark.parametrize(
    "key",
    [
        RowKey((Field("site"), Field("dev"), Timestamp("second"))),
        RowKey((Literal("BATTERY"), Salt(3), Timestamp("ms"))),
        RowKey(
            (Hashed("dev", 4), PaddedInt("num", 8), ReversedTimestamp("us", 10**16 - 1, 16)), "|"
        ),
        RowKey((Timestamp("day", "%Y-%m-%d"), Field("site"), Salt(5, ("site", "dev"))), ":"),
        RowKey((Field("site"), BaseTimestamp(), Field("dev")), ","),
        RowKey((Field("site"), Tags(("dev", "host")), BaseTimestamp()), ","),  # per-event text path
        RowKey((Field("site"), Field("dev")), "##"),  # multi-character delimiter
    ],
)
def test_keys_built_per_distinct_key_equal_keys_joined_per_event(key):
    n = 5_000
    t = 1_425_168_000_000_000 + np.sort(RNG.integers(0, 10**11, n))
    events = _events(n)
    fast = key.render(RenderContext(events, t))
    slow = key._render_text(RenderContext(events, t))
    assert fast.dtype == object and slow.dtype == object
    assert fast.tolist() == slow.tolist()
