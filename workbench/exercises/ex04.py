"""Notebook 04's exercises (fx_prices): problem objects the notebook's answer cells check."""

from __future__ import annotations

from typing import Any

from .core import Problem, ____
from .predict import judge_count

__all__ = ["____", "fx_salt", "key_bytes", "latest_emulator_rows"]


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


def _latest_emulator_rows(predicted: Any, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze
    from workbench.schema import preset

    q = analyze(ds, preset("fx_prices", "pair_microseconds")).queries["latest_quote"]
    # ±10 %: the attendee estimates it as USD/JPY's share of the quotes times the events
    return judge_count(
        predicted, float(q["emulator_rows_seen"]), "rows the emulator reads for latest_quote"
    )


latest_emulator_rows = Problem(
    "latest_emulator_rows",
    "a number of rows (±10 %)",
    _latest_emulator_rows,
    "without a reverse scan the emulator reads the pair's range from its start to keep the last "
    "row. The share table at the top and the dataset's event count tell you how long that is.",
    6255,
    "about 6,255: every USD/JPY quote (its share of the 28,629 events), read forward to keep the "
    "last one; Cloud Bigtable's reverse scan reads one (G09).",
)


def _key_bytes(predicted: Any, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze
    from workbench.schema import preset

    a = analyze(ds, preset("fx_prices", "pair_microseconds"))
    per_event = a.capacity.breakdown["row key"] / len(ds)
    # ±10 %: counted by hand from the example key and the cells per quote
    return judge_count(predicted, float(per_event), "key bytes stored per quote")


key_bytes = Problem(
    "key_bytes",
    "a number of bytes (±10 %)",
    _key_bytes,
    "count the characters of the example key printed in section 2, then count how many cells "
    "one quote becomes (each cell stores the key again).",
    56,
    "56: the key USD/JPY#20150302045507958019 is 28 bytes, stored with each of a quote's two "
    "cells (bid and ask) (G20).",
)
