"""Notebook 04's exercises (fx_prices): problem objects the notebook's answer cells check."""

from __future__ import annotations

from typing import Any

from .core import Problem, ____, short_repr
from .predict import judge_count, number_form

__all__ = ["____", "fx_salt", "key_bytes", "latest_emulator_rows"]


FX_NODES = 8
#: the exercise's goal: the busiest node takes at most this share of the writes
FX_GOAL = 0.20


def _salt_form(buckets: Any) -> str | None:
    """Why ``buckets`` is not a salt count (a whole number ≥ 1), or None; 20, the goal's percentage
    typed as a count, is told so."""
    if (why := number_form(buckets)) is not None:
        return why
    if not float(buckets).is_integer() or buckets < 1:
        return f"the salt count is a whole number of buckets ≥ 1, got {short_repr(buckets)}."
    if int(buckets) == round(FX_GOAL * 100):
        return (
            f"{int(buckets)} is the goal, {FX_GOAL:.0%} of the writes on the busiest node, not a "
            "salt count: the answer is N, the number of buckets crc32(time) mod N spreads the "
            "writes over."
        )
    return None


def _fx_salt(buckets: int, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze
    from workbench.schema import preset

    n = int(buckets)  # the form let only whole numbers through: 8.0 is 8
    mine = analyze(ds, preset("fx_prices", "salted", n=n), nodes=FX_NODES)
    share, scans = mine.keyspace.mean_write_share, mine.queries["usdjpy_day"]["scans"]
    said = (
        f"with {n:,} salt buckets the busiest of {FX_NODES} nodes takes {share:.1%} of the "
        f"writes (goal ≤ {FX_GOAL:.0%}); every USD/JPY range read now needs {int(scans):,} scans."
    )
    if share <= FX_GOAL and n % FX_NODES:
        # 6 or 7 buckets meet the goal on this sample, but some nodes hold a frontier and others
        # none: the spread rests on where the hashes fall, not on the count (section 3's 4 on 3)
        return (
            False,
            f"{said} But {n:,} buckets do not divide evenly among {FX_NODES} nodes: some nodes "
            "hold more write frontiers than others (goal: as many on every node).",
            {},
        )
    return share <= FX_GOAL, said, {"analysis": mine}


fx_salt = Problem(
    "fx_salt",
    "a whole number of salt buckets",
    _fx_salt,
    "salt counts that are a multiple of the node count spread best.",
    8,
    "8 (a multiple of the 8 nodes): each node gets about one bucket of every pair (G08); 16 "
    "passes too, at twice the scans per range read.",
    form=_salt_form,
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
    form=number_form,
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
    form=number_form,
)
