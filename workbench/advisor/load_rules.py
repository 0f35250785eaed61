"""Advisor rules about the load at the stated workload: what capacity says no node count serves
(G06, G07, G08, G05). They read the capacity view's own verdict, so the advisor and capacity
never disagree: a hotspot-limited design always has a finding that quotes that verdict."""

from __future__ import annotations

from collections.abc import Iterable

from .context import Context
from .findings import Finding
from .rule_base import make_finding, rule
from .suggest import is_time, lead_index


def _time_first_covers(c: Context) -> bool:
    """The time-first rule already reports a write frontier of a time-led key."""
    for _, key in c.tables:
        i = lead_index(key)
        if i is not None and is_time(key.segments[i]):
            return True
    return False


@rule("hotspot_limited", "G06", "G07", "G08", "G05")
def hotspot_limited(c: Context) -> Iterable[Finding]:
    a = c.analysis
    if a is None or not a.capacity.hotspot_limited:
        return
    cap = a.capacity
    prod = cap.production
    kind = cap.ceiling.kind
    if cap.write_limited and kind == "write frontier" and _time_first_covers(c):
        return
    ev = [cap.verdict()]
    if prod is not None:
        ev.append(prod.inputs_line())
    if cap.write_limited:
        ids: tuple[str, ...] = ("G08", "G06") if kind == "salt bucket" else ("G06", "G07")
        title = f"No node count serves the stated rate: one {kind or 'unit'} takes it"
    else:
        ids = ("G05", "G06")
        title = "No node count serves the stated query rate: the most-read rows cannot split"
    yield make_finding(
        "hotspot_limited",
        "error",
        ids,
        title,
        ev,
        fix=cap.fix(),
        ceiling_events_per_s=cap.ceiling_events_per_s,
        events_per_s=cap.events_per_s,
        query_ceiling_per_s=cap.query_ceiling_per_s,
    )


__all__ = ["hotspot_limited"]
