"""Quantities as people read them; the bottom layer, so every view prints a figure the same way."""

from __future__ import annotations


def human_bytes(n: float) -> str:
    """``1234567`` → ``"1.2 MB"`` (decimal units, as Cloud Bigtable's limits and prices are stated)."""
    for unit, f in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(n) >= f:
            return f"{n / f:,.1f} {unit}"
    return f"{n:,.0f} B"
