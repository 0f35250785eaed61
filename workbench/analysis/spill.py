"""A finished analysis's large arrays moved out of memory into memory-mapped files.

``compare`` on millions of events keeps one :class:`Analysis` per design; each holds its
design's cells as an index (per cell: row, family, qualifier, timestamp, bytes; per row: the
key) and its per-row sizes: ~700 MB per design at 5 M events, so twelve designs held 10 GB.
Once a design's figures are made, ``spill`` writes those arrays to files and maps them back
read-only (``numpy.load(mmap_mode="r")``): every value is the same array, read from the page
cache when something asks for it, and resident memory stays that of the design being analysed.
Each file is unlinked as soon as it is mapped, so the disk is freed when the mapping goes (no
file to clean up, even if the process dies).
"""

from __future__ import annotations

import os
import tempfile
from typing import TYPE_CHECKING

import numpy as np

from ..memory import release_freed_memory

if TYPE_CHECKING:  # pragma: no cover
    from .overview import Analysis

SPILL_EVENTS = 250_000
"""``compare`` spills each design's arrays when the dataset has more events than this (the
chunked path of ``analyze``); below it everything stays in memory, as before."""

_INDEX_ARRAYS = ("row_keys", "row_table", "row", "family", "qualifier", "ts", "nbytes", "key_bytes")
_ROWSIZE_ARRAYS = ("bytes", "cells", "span_s", "projected_bytes")
_MIN_BYTES = 1 << 20  # smaller arrays stay in memory: a file each would cost more than they do


def _mapped(a: np.ndarray, directory: str) -> np.ndarray:
    """``a`` as a read-only memory-mapped copy (the same dtype, shape and values)."""
    if not isinstance(a, np.ndarray) or a.dtype == object or a.nbytes < _MIN_BYTES:
        return a
    fd, path = tempfile.mkstemp(suffix=".npy", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            np.save(f, a, allow_pickle=False)
        return np.load(path, mmap_mode="r")
    finally:
        os.unlink(path)  # the mapping keeps the data; the name goes at once


def spill(a: Analysis, directory: str | None = None) -> Analysis:
    """Move ``a``'s per-cell and per-row arrays (its index, its row sizes, each query's seen
    rows) into memory-mapped files in ``directory`` (default: the system's temporary folder).
    ``a`` is changed in place and returned; its figures and methods give the same results."""
    d = directory or tempfile.gettempdir()
    idx = a.index
    idx._key_matches.clear()  # a cache: rebuilt when asked
    for name in _INDEX_ARRAYS:
        setattr(idx, name, _mapped(getattr(idx, name), d))
    for name in _ROWSIZE_ARRAYS:
        setattr(a.rowsizes, name, _mapped(getattr(a.rowsizes, name), d))
    seen = a.queries.seen_rows
    for q in list(seen):
        seen[q] = _mapped(seen[q], d)
    release_freed_memory()
    return a


__all__ = ["SPILL_EVENTS", "spill"]
