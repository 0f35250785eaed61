"""Notebook 04's exercises (fx_prices): problem objects the notebook's answer cells check."""

from __future__ import annotations

from typing import Any

from .core import Problem, ____

__all__ = ["____", "fx_salt"]


FX_NODES = 8


def _fx_salt(buckets: int, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze
    from workbench.schema import preset

    if isinstance(buckets, str) and buckets.strip().isdigit():
        return False, f"{buckets!r} is text: did you mean {int(buckets)}, without the quotes?", {}
    if not isinstance(buckets, int) or isinstance(buckets, bool) or buckets < 1:
        return False, f"the salt count must be a whole number ≥ 1, got {buckets!r}.", {}
    mine = analyze(ds, preset("fx_prices", "salted", n=buckets), nodes=FX_NODES)
    share, scans = mine.keyspace.mean_write_share, mine.queries["usdjpy_day"]["scans"]
    return (
        share <= 0.20,
        f"with {buckets:,} salt buckets the busiest of {FX_NODES} nodes takes {share:.1%} of the "
        f"writes (goal ≤ 20%); every USD/JPY range read now needs {int(scans):,} scans.",
        {"analysis": mine},
    )


fx_salt = Problem(
    "fx_salt",
    "a whole number of salt buckets",
    _fx_salt,
    "salt counts that are a multiple of the node count spread best.",
    8,
    "8 (a multiple of the 8 nodes): each node gets about one bucket of every pair (G08).",
)
