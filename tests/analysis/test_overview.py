"""``keyspace``: analyze's key distribution on its own (G06), for a bulk load's split points.

``keyspace(ds, schema, nodes=, workload=)`` runs the index and the load model ``analyze``
runs (``load_model``, one code path) and skips the rest: compression, row sizes, capacity and,
where the workload states no query rate, the query costs (they draw no read load then). Its
tablets and split keys must be analyze's, design by design.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import workbench as wb
from workbench.analysis.overview import draws_reads, keyspace
from workbench.datasets.registry import dataset_names
from workbench.errors import WorkbenchError
from workbench.schema.gallery import patterns_for

EVENTS = 4_000  # per dataset: every preset of the six datasets in a few seconds


@pytest.mark.parametrize("name", dataset_names())
def test_keyspace_is_analyzes_keyspace_for_every_preset(name):
    ds = wb.load_dataset(name, size=EVENTS)
    # a rate well above the sample's own: load and size splits both happen (G06)
    wl = wb.Workload(events_per_s=20_000)
    assert not draws_reads(ds, wl)  # no query rate stated: the query costs are skipped
    split_designs = 0
    for pattern in patterns_for(ds):
        schema = wb.preset(ds, pattern)
        try:
            full = wb.analyze(ds, schema, nodes=4, workload=wl).keyspace
        except WorkbenchError as exc:  # fx_prices' second_precision collides (G31): both refuse
            with pytest.raises(type(exc), match="collide"):
                keyspace(ds, schema, nodes=4, workload=wl)
            continue
        alone = keyspace(ds, schema, nodes=4, workload=wl)
        assert alone.split_keys() == full.split_keys(), pattern
        np.testing.assert_array_equal(alone.tablet_starts, full.tablet_starts, err_msg=pattern)
        np.testing.assert_array_equal(alone.node_cpu, full.node_cpu, err_msg=pattern)
        assert (alone.write_rate_per_s, alone.nodes) == (full.write_rate_per_s, 4), pattern
        split_designs += any(alone.split_keys().values())
    # the comparison bites: most designs end split at this rate (a frontier design may not)
    assert split_designs >= 2, name


def test_a_stated_query_rate_costs_the_queries_and_draws_the_same_reads():
    ds = wb.load_dataset("server_metrics", size=EVENTS)
    wl = wb.Workload(events_per_s=20_000, queries_per_s=500)
    assert draws_reads(ds, wl)
    schema = wb.preset(ds, "host_metric_time")
    full = wb.analyze(ds, schema, workload=wl).keyspace
    alone = keyspace(ds, schema, workload=wl)
    assert alone.queries_per_s == full.queries_per_s == 500  # every query planned: all 500/s
    np.testing.assert_array_equal(alone.reads, full.reads)
    np.testing.assert_array_equal(alone.tablet_starts, full.tablet_starts)
    assert alone.split_keys() == full.split_keys()


def test_no_queries_or_no_stated_rate_draws_no_reads():
    ds = wb.load_dataset("fx_prices", size=1_000)
    assert not draws_reads(ds, wb.Workload(queries_per_s=None))
    assert draws_reads(ds, wb.Workload(queries={ds.queries[0].name: wb.QueryLoad(per_s=2.0)}))
    assert not draws_reads(dataclasses.replace(ds, queries=[]), wb.Workload(queries_per_s=10))
