"""Advisor rules about the load at the stated workload: what capacity says no node count serves
(G06, G07, G08, G05). They read the capacity view's own verdict, so the advisor and capacity
never disagree: a hotspot-limited design always has a finding that quotes that verdict."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..formatting import rate
from .context import Context
from .findings import Finding
from .rule_base import make_finding, rule
from .suggest import is_time, lead_index

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.overview import Analysis


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


@rule("query_cost", "G04", "G05")
def query_cost(c: Context) -> Iterable[Finding]:
    """A query whose production cost (its rows at production size, at its rate) takes a node
    or more of CPU: a warning; one that alone takes ten times the CPU of every write and at
    least ten nodes: an error (the reads, not the writes, set the cluster's size)."""
    a = c.analysis
    if a is None:
        return
    prod = a.capacity.production
    t = prod.queries.table
    writes = prod.write_cpu
    nodes = a.capacity.nodes_needed
    for q in t.index:
        cpu = float(t.loc[q, "production_cpu"])
        if t.loc[q, "production_data_boost"] == 1.0:  # on Data Boost: no node serves it
            continue
        if float(t.loc[q, "production_per_s"]) == 0.0:  # nobody stated its rate
            yield from _unstated_cost(a, q, nodes)
            continue
        if not cpu == cpu or cpu < 1.0:  # NaN (not planned) or under one node
            continue
        heavy = cpu >= 10.0 and cpu >= 10.0 * writes
        rows = float(t.loc[q, "production_rows_seen"])
        ms = float(t.loc[q, "production_node_ms"])
        per_s = float(t.loc[q, "production_per_s"])
        plan = a.queries.plans.get(q)
        ev = [
            f"at production size one run of {q!r} reads {rows:,.0f} rows "
            f"({ms / 1e3:,.3g} node-seconds); at {rate(per_s, 'queries')} it takes "
            f"{cpu:,.0f} nodes of CPU, the writes {writes:,.1f}",
            f"plan: {plan.describe()}" if plan is not None else "",
            prod.inputs_line(),
        ]
        yield make_finding(
            "query_cost",
            "error" if heavy else "warning",
            ("G04", "G05"),
            f"{q}: {cpu:,.0f} nodes of CPU at production size"
            + (", more than the writes need ten times over" if heavy else ""),
            ev,
            fix=(
                "key the table for this query (G04), serve it from a second table or "
                "pre-aggregated rows (G05, G29), or state its real rate in the workload "
                "(wb.QueryLoad(per_s=…)) if it runs less often than the default share"
            ),
            query=q,
            production_cpu=cpu,
            write_cpu=writes,
        )


def _unstated_cost(a: Analysis, q: str, nodes: int) -> Iterable[Finding]:
    """A query whose rate nobody stated sizes no node; when the nodes the rest needs serve it
    less than once a minute, say what one run costs and how often it can run."""
    prod = a.capacity.production
    assert prod is not None
    t = prod.queries.table
    ms = float(t.loc[q, "production_node_ms"])
    per_s = prod.servable_per_s(q, nodes)
    if not ms == ms or per_s >= 1 / 60:
        return
    plan = a.queries.plans.get(q)
    yield make_finding(
        "query_cost",
        "warning",
        ("G04", "G05"),
        f"{q}: {ms / 1e3:,.3g} node-seconds a run; the {nodes:,} nodes the rest needs serve it "
        f"{per_s * 3600:,.3g} times an hour",
        [
            f"at production size one run of {q!r} reads "
            f"{float(t.loc[q, 'production_rows_seen']):,.0f} rows; no rate was stated for it, so "
            "it sizes no node",
            f"plan: {plan.describe()}" if plan is not None else "",
            prod.inputs_line(),
        ],
        fix=(
            "key the table for this query (G04), serve it from a second table or pre-aggregated "
            "rows (G05, G29), or run it on Data Boost; state its rate (wb.QueryLoad(per_s=…)) "
            "to size the cluster for it"
        ),
        query=q,
        production_cpu=0.0,
        write_cpu=prod.write_cpu,
        servable_per_s=per_s,
    )


__all__ = ["hotspot_limited", "query_cost"]
