"""The planner's figure is the figure every view shows, for every built-in plan (G04, G11).

Every built-in dataset × preset × query at three stated workloads (1,000, 20,000 and 100,000
events/s over 12 months, with 10³, 10⁴ and 10⁶ series of the finest entity column): the plan
the planner keeps is priced by one function (``plan_choice.estimate``), and that number is the
query table's ``production_node_ms`` and the ``…: node ms`` a comparison ranks designs by.
The planner's own alternatives are enumerated again here, independently of the choice it made:
none is more than 1.2× cheaper than the kept plan, and the kept plan names its runner-up with
the runner-up's figure.
"""

from __future__ import annotations

import warnings
from functools import cache

import pytest

import workbench as wb
from workbench.analysis.overview import plan_scale
from workbench.analysis.settings import DEFAULT
from workbench.datasets.registry import dataset_names
from workbench.schema.planner import alternatives

pytestmark = pytest.mark.slow

WORKLOADS = ((1_000, 1_000), (20_000, 10_000), (100_000, 1_000_000))


@cache
def _dataset(name: str) -> wb.Dataset:
    return wb.load_dataset(name)


def _workload(ds: wb.Dataset, events_per_s: int, series: int) -> wb.Workload:
    # the finest entity column (player, balloon_id, host, …) carries the stated count
    return wb.Workload(
        events_per_s=events_per_s, retention_months=12, entities={ds.entity[-1]: series}
    )


def _cases():
    for name in dataset_names():
        for pattern in wb.presets(_dataset(name)):
            yield name, pattern


@pytest.mark.parametrize(("name", "pattern"), list(_cases()))
def test_every_plan_is_priced_once_and_is_the_cheapest_alternative(name, pattern):
    ds = _dataset(name)
    schema = wb.preset(ds, pattern)
    checked = 0
    for events_per_s, series in WORKLOADS:
        wl = _workload(ds, events_per_s, series)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                a = wb.analyze(ds, schema, workload=wl)
            except wb.CollisionError:
                # a design that cannot hold the sample (fx second_precision) is refused,
                # not priced: nothing to rank
                return
        table = a.queries.table
        summary = a.summary()
        scale = plan_scale(ds, wl, DEFAULT)
        bound = schema.bind(
            ds,
            costs=DEFAULT.read_costs(),
            entities=scale.entities,
            rate_factor=scale.rate_factor,
            retention_s=scale.retention_s,
            own_skew=scale.own_skew,  # a stated series count: every series alike (uniform)
        )
        for intent in ds.queries:
            q = intent.name
            plan = a.queries.plans.get(q)
            if plan is None or table.loc[q, "kind"] == "cannot plan":
                continue
            checked += 1
            where = f"{name} {pattern} {q} at {events_per_s:,}/s, {series:,} series"
            # one function: the planner's figure is the table's and the comparison's
            assert plan.est_node_ms is not None, where
            assert table.loc[q, "production_node_ms"] == pytest.approx(plan.est_node_ms), where
            assert summary[f"{q}: node ms"] == pytest.approx(plan.est_node_ms), where
            # no alternative the planner could have sent is more than 1.2× cheaper
            priced = [x.est_s for x in alternatives(bound, intent) if x.est_s is not None]
            assert priced, where
            assert plan.est_node_ms <= 1.2 * min(priced) * 1e3, where
            # and it names its runner-up with that plan's figure, never cheaper than its own
            # (every built-in query has at least the full scan beside its ranged plan)
            assert len(priced) > 1, where
            assert plan.runner_up, where
            assert plan.runner_up_node_ms is not None, where
            assert plan.runner_up_node_ms >= 0.995 * plan.est_node_ms, where
    assert checked, f"{name} {pattern}: no query priced"
