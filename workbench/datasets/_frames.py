"""Small vectorised helpers the generators share (times, string columns, seeds)."""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd

from workbench.errors import DatasetError

US_PER_S = 1_000_000
US_PER_MIN = 60 * US_PER_S
US_PER_H = 60 * US_PER_MIN
US_PER_DAY = 24 * US_PER_H


def us(ts: str | pd.Timestamp) -> int:
    """Microseconds since the epoch of a UTC time."""
    t = pd.Timestamp(ts)
    t = t.tz_localize("UTC") if t.tzinfo is None else t.tz_convert("UTC")
    return int(t.value // 1000)


def utc(us_values: np.ndarray) -> pd.Series:
    """int64 µs since the epoch → a datetime64[us, UTC] column."""
    arr = np.asarray(us_values, dtype=np.int64).astype("datetime64[us]")
    return pd.Series(pd.DatetimeIndex(arr).tz_localize("UTC"))


def ts(us_value: int) -> pd.Timestamp:
    return pd.Timestamp(int(us_value) * 1000, tz="UTC")


def strings(values: np.ndarray) -> pd.Series:
    """An object array of Python str → a pandas ``str`` column (pandas' default string dtype)."""
    return pd.Series(np.asarray(values, dtype=object), dtype="str")


def rng_for(name: str, seed: int) -> np.random.Generator:
    """A Generator that depends on the seed and on the dataset (two datasets never share a stream)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise DatasetError(
            f"seed={seed!r} must be a non-negative int (the same seed gives the same data)."
        )
    return np.random.default_rng([int(seed), zlib.crc32(name.encode())])


def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], window: int) -> np.ndarray:
    """Standard-normal-ish noise correlated over ``window`` steps along axis 1 (moving average, vectorised)."""
    rows, n = shape
    white = rng.standard_normal((rows, n + window))
    c = np.cumsum(white, axis=1)
    out = (c[:, window:] - c[:, :-window]) / np.sqrt(window)
    return out


def split(
    n_events: int, *, entities: float, lo_t: int, hi_t: int, lo_e: int = 1
) -> tuple[int, int]:
    """(n_entities, n_times) with n_entities ≈ ``entities`` and n_times clipped to [lo_t, hi_t]."""
    e = max(lo_e, int(round(entities)))
    t = int(np.clip(n_events // e, lo_t, hi_t))
    e = max(lo_e, int(round(n_events / t)))
    return e, t
