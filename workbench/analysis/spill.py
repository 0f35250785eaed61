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
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..memory import release_freed_memory

if TYPE_CHECKING:  # pragma: no cover
    from .overview import Analysis

SPILL_EVENTS = 250_000
"""``compare`` spills each design's arrays when the dataset has more events than this (the
chunked path of ``analyze``); below it everything stays in memory, as before."""

_INDEX_ARRAYS = ("row_keys", "row_table", "row", "family", "qualifier", "ts", "nbytes", "key_bytes")
_ROWSIZE_ARRAYS = ("bytes", "cells", "span_s", "projected_bytes")
_WRITES_ARRAYS = ("row", "ts", "nbytes", "cells", "count")
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


def _slots(a: Analysis) -> Iterator[tuple[Any, str | Any]]:
    """Where each spilled array lives: (object, attribute name) or (dict, key)."""
    for name in _INDEX_ARRAYS:
        yield a.index, name
    for name in _ROWSIZE_ARRAYS:
        yield a.rowsizes, name
    writes = a.keyspace.inputs.get("writes")  # kept to re-run the model at another node count
    if writes is not None:
        for name in _WRITES_ARRAYS:
            if getattr(writes, name) is not None:
                yield writes, name
    seen = a.queries.seen_rows
    for q in list(seen):
        yield seen, q


def _get(holder: Any, name: Any) -> Any:
    return holder[name] if isinstance(holder, dict) else getattr(holder, name)


def _put(holder: Any, name: Any, value: Any) -> None:
    if isinstance(holder, dict):
        holder[name] = value
    else:  # Writes is frozen; the same values in another place is not a change it guards
        object.__setattr__(holder, name, value)


def spill(a: Analysis, directory: str | None = None) -> Analysis:
    """Move ``a``'s per-cell and per-row arrays (its index, its row sizes, each query's seen
    rows) into memory-mapped files in ``directory`` (default: the system's temporary folder).
    ``a`` is changed in place and returned; its figures and methods give the same results."""
    d = directory or tempfile.gettempdir()
    a.index._key_matches.clear()  # a cache: rebuilt when asked
    for holder, name in _slots(a):
        _put(holder, name, _mapped(_get(holder, name), d))
    release_freed_memory()
    return a


@dataclass(frozen=True)
class _Saved:
    """An array written to ``path`` by a worker process (``saved``), mapped by its parent."""

    path: str


def saved(a: Analysis, directory: str) -> Analysis:
    """``spill`` for another process: ``a``'s large arrays written to files in ``directory``
    and left there, each replaced by a small ``_Saved`` note, so ``a`` pickles small and the
    process that receives it maps them (``restored``) rather than copying them through a pipe."""
    a.index._key_matches.clear()
    for holder, name in _slots(a):
        v = _get(holder, name)
        if isinstance(v, np.ndarray) and v.dtype != object and v.nbytes >= _MIN_BYTES:
            fd, path = tempfile.mkstemp(suffix=".npy", dir=directory)
            with os.fdopen(fd, "wb") as f:
                np.save(f, v, allow_pickle=False)
            _put(holder, name, _Saved(path))
    release_freed_memory()
    return a


def restored(a: Analysis) -> Analysis:
    """``a`` (from ``saved``) with each saved array mapped read-only, its file's name removed at
    once as ``spill`` does: the very arrays ``spill`` would have left."""
    for holder, name in _slots(a):
        v = _get(holder, name)
        if isinstance(v, _Saved):
            try:
                _put(holder, name, np.load(v.path, mmap_mode="r"))
            finally:
                os.unlink(v.path)
    return a


__all__ = ["SPILL_EVENTS", "restored", "saved", "spill"]
