"""The planner chooses the cheapest plan under a production workload, not under the sample.

The workload: ten times the sample's values of one entity column, each series writing
``R = 3`` times the sample's events per second, kept for 12 months (the default retention).
For every named dataset × preset × query, every alternative the planner weighs
(``planner.alternatives``) is evaluated on the real cells (``analysis.querycost._evaluate``:
the rows it visits) and re-costed by hand at that workload, independently of the planner's
own estimate (which never sees the cells):

* a cell inside the query's time window is one of production's window: there are ``R`` times
  as many of it (every series writes R times as fast) and ``k`` times as many series of an
  entity column the query leaves open (``k = 10`` for the grown column, 1 when it names it);
* a cell outside the window is history: production keeps ``H = retention ÷ the sample's
  span`` times as much of it, also ``R·k`` times as dense; a query with no window (a latest
  read) has only history;
* a row of one event grows as its cells do; a row gathering a time bucket keeps its count in
  the window (R times fuller) and grows by ``H·k`` in history; a row gathering everything (no
  time in the key) is one row per series (``k``) holding every cell;
* a plan stopped by its rows limit (it saw no more rows than the limit allows) reads the same
  rows in production, each R times fuller when rows gather events;
* one range per listed value is ``k`` ranges when the plan lists the grown column's values.

The plan the planner returns must cost at most 1.15 × the cheapest alternative by that hand
re-cost (15 %: the planner prices from the dataset's shape, the re-cost from the cells) and
name the runner-up whenever there is one.
"""

from __future__ import annotations

import warnings
from functools import cache

import numpy as np
import pytest
from preset_matrix import analysed_presets

import workbench as wb
from workbench.analysis import CellIndex
from workbench.analysis.querycost import _evaluate
from workbench.analysis.settings import DEFAULT
from workbench.schema.plan import ReadPlan
from workbench.schema.planner import alternatives

pytestmark = pytest.mark.slow  # every preset's cells, every alternative evaluated

COSTS = DEFAULT.read_costs()
R = 3.0  # production's events per series per second ÷ the sample's
GROW = 10  # production's values of the grown column ÷ the sample's
RETENTION_S = 12 * 730 * 3600  # 12 months of 730 h (Settings.hours_per_month)
TOLERANCE = 1.15


@cache
def _ds(name: str):
    return wb.load_dataset(name, size="workshop")


def _grown(name: str) -> tuple[str, int] | None:
    """The column production has ten times the sample's values of (the first entity column)."""
    ds = _ds(name)
    if not ds.entity:
        return None
    col = ds.entity[0]
    return col, GROW * int(ds.frame[col].nunique())


def _span_s(name: str) -> float:
    t = _ds(name).frame[_ds(name).time]
    return max((t.max() - t.min()).total_seconds(), 1.0)


@cache
def _bound(name: str, pattern: str):
    grown = _grown(name)
    return wb.preset(name, pattern).bind(
        _ds(name),
        costs=COSTS,
        entities=dict([grown]) if grown else None,
        rate_factor=R,
        retention_s=RETENTION_S,
    )


@cache
def _index(name: str, pattern: str) -> CellIndex:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cells = wb.preset(name, pattern).bind(_ds(name)).to_cells(_ds(name), accept_loss=True)
        return CellIndex.build(cells)


def _production_ms(plan: ReadPlan, name: str, pattern: str, q, multi_event: bool, timed: bool):
    """The plan's node-ms at the workload, re-costed by hand from the cells it visits (module
    docstring). ``timed``: the table's rows gather one time bucket each (else everything)."""
    index = _index(name, pattern)
    seen = _evaluate(index, plan).seen_rows
    grown = _grown(name)
    k = float(GROW) if grown and grown[0] not in q.entity else 1.0
    h = RETENTION_S / _span_s(name)
    mask = np.isin(index.row, seen)
    ts, nb, rows = index.ts[mask], index.nbytes[mask], index.row[mask]
    inside = np.zeros(len(ts), dtype=bool)
    if q.start is not None and q.end is not None and q.kind != "latest":
        inside = (ts >= q.start.value // 1000) & (ts < q.end.value // 1000)
    in_rows = np.unique(rows[inside])
    cells = R * k * (inside.sum() + h * (~inside).sum())
    nbytes = R * k * (nb[inside].sum() + h * nb[~inside].sum())
    n_in, n_out = len(in_rows), len(seen) - len(in_rows)
    if not multi_event:
        n_rows = R * k * (n_in + h * n_out)
    elif timed:
        n_rows = k * (n_in + h * n_out)
    else:
        n_rows = k * len(seen)
    limit = (plan.rows_limit or 0) * max(plan.requests, 1)
    if limit and len(seen) <= limit:  # the limit stopped the read: the same rows in production
        fill = R if multi_event else 1.0
        n_rows = len(seen)
        cells = fill * mask.sum()
        nbytes = fill * nb.sum()
    lists = grown is not None and grown[0] in dict(plan.assumes)
    return 1e3 * COSTS.node_seconds(
        requests=plan.requests,
        seeks=round(plan.n_ranges * (k if lists else 1.0)),
        rows=round(n_rows),
        cells=round(cells),
        nbytes=round(nbytes),
    )


@pytest.mark.parametrize("combo", analysed_presets(), ids=lambda c: "/".join(c))
def test_the_chosen_plan_is_the_cheapest_at_production(combo):
    name, pattern = combo
    schema = _bound(name, pattern)
    multi = schema.layout.multi_event
    for q in _ds(name).queries:
        alts = alternatives(schema, q)
        chosen = schema.plan(q)
        timed = bool(schema.key.time_segments)
        if len(schema.all_tables()) > 1:
            timed = bool(dict(schema.all_tables())[chosen.table].time_segments)
        costs = {
            a.label: _production_ms(
                a.plan,
                name,
                pattern,
                q,
                multi,
                bool(dict(schema.all_tables()).get(a.plan.table, schema.key).time_segments),
            )
            for a in alts
        }
        mine = _production_ms(chosen, name, pattern, q, multi, timed)
        assert mine <= min(costs.values()) * TOLERANCE, (q.name, chosen.note, mine, costs)
        if len(alts) > 1:
            assert chosen.runner_up and "runner-up: " + chosen.runner_up in chosen.note, q.name


def test_analyze_weighs_plans_at_the_workloads_rate_and_retention():
    """game_scores ``game_player_time`` at 5,000 events/s, series fixed at the sample's: by
    hand each series writes R = (5,000 ÷ S) ÷ (the sample's events/s ÷ S) = 5,000 ÷ the
    sample's events/s times as fast, kept for the default 12 months; the plan the analysis
    shows for every query is the one bind() gives at those figures (not the sample's)."""
    name, pattern = "game_scores", "game_player_time"
    ds = _ds(name)
    a = wb.analyze(ds, wb.preset(name, pattern), workload=wb.Workload(events_per_s=5000))
    rate_factor = 5000 / (len(ds) / _span_s(name))
    at_sample = wb.preset(name, pattern).bind(ds, costs=COSTS)
    bound = wb.preset(name, pattern).bind(
        ds, costs=COSTS, rate_factor=rate_factor, retention_s=RETENTION_S
    )
    moved = 0
    for q in ds.queries:
        want, got = bound.plan(q), a.queries.plans[q.name]
        assert (got.ranges, got.filter, got.n_ranges) == (want.ranges, want.filter, want.n_ranges)
        assert got.est_node_ms == pytest.approx(want.est_node_ms, rel=1e-6), q.name
        if q.kind != "latest":  # a latest read stops at its row however much is kept
            moved += at_sample.plan(q).est_node_ms != pytest.approx(got.est_node_ms, rel=1e-3)
    assert moved == sum(q.kind != "latest" for q in ds.queries)  # production's, not the sample's
