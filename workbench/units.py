"""Quantities as people read them; the bottom layer, so every view prints a figure the same way.

One byte formatter for the package: decimal units (kB, MB, GB, TB, PB: Cloud Bigtable states
its limits, node storage and prices that way) or, for figures that are binary by nature (memory,
a ``WORKBENCH_MEMORY_LIMIT`` of ``8G``), binary units with their own names (KiB, MiB, GiB, TiB,
PiB). A binary figure is never labelled with a decimal unit's name.
"""

from __future__ import annotations

_DECIMAL = (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3))
_BINARY = (("PiB", 2.0**50), ("TiB", 2.0**40), ("GiB", 2.0**30), ("MiB", 2.0**20), ("KiB", 2.0**10))


def human_bytes(n: float, *, binary: bool = False) -> str:
    """``1234567`` → ``"1.2 MB"``; ``2e12`` → ``"2.0 TB"``; ``binary=True``: ``2**31`` →
    ``"2.0 GiB"``. The largest unit the figure reaches, one decimal; under 1 kB (1 KiB) whole
    bytes."""
    for unit, f in _BINARY if binary else _DECIMAL:
        if abs(n) >= f:
            return f"{n / f:,.1f} {unit}"
    return f"{n:,.0f} B"
