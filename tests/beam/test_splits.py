"""A bulk load's split points (``beam/splits.py``, G06, G07), checked by hand on a design's keys.

``split_points`` runs only the key distribution (``analysis.overview.keyspace``), not the
whole ``wb.analyze``; tests/analysis/test_overview.py holds that model equal to analyze's on
every preset of six datasets, and this file derives one split list from the keys by hand.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import workbench as wb
from workbench.beam.splits import split_points

SENSORS, PER_SENSOR = 16, 500


@pytest.fixture(scope="module")
def meters():
    t = pd.date_range("2015-06-01", periods=PER_SENSOR, freq="1min", tz="UTC")
    frame = pd.DataFrame(
        {
            "sensor": np.repeat([f"s{i:02d}" for i in range(SENSORS)], PER_SENSOR),
            "time": np.tile(t, SENSORS),
            "temp": (np.arange(SENSORS * PER_SENSOR) % 97) * 0.5,
        }
    )
    ds = wb.from_dataframe(frame, entity="sensor", time="time", measures="temp")
    return ds, wb.preset(ds, "entity_first")


@pytest.mark.parametrize(("nodes", "every"), [(3, 2), (6, 1)])
def test_split_points_halve_the_load_to_half_a_nodes_fair_share(meters, nodes, every):
    # By hand. entity_first keys are sensor#time: each of the 16 sensors appends its own run of
    # new keys (a write frontier no split cuts, G07) and they all write at the same rate, so
    # from the first step a tablet's load is its sensors' share of the cluster's. A tablet
    # splits while it carries more than load_split_share (1/2) of a node's fair share (1/nodes),
    # at the sensor boundary nearest its load median (the halves are exact: 16 is a power of 2):
    #   3 nodes: threshold 1/6 of the load; 16 → 8 → 4 → 2 sensors (1/8 ≤ 1/6): every 2nd sensor
    #   6 nodes: threshold 1/12; 16 → 8 → 4 → 2 → 1 sensor (1/16 ≤ 1/12): every sensor
    # each split point is the sensor's first key (its first minute). At 100 events/s the
    # 200 MB split size is far above the sample's bytes × the rate's scale: no size split.
    ds, schema = meters
    cuts, where = split_points(ds, schema, 100.0, nodes)
    want = [f"s{i:02d}#20150601000000" for i in range(every, SENSORS, every)]
    assert cuts == {"main": want}
    assert len(want) == {3: 7, 6: 15}[nodes]
    assert f"on {nodes} nodes, over the 8,000 events" in where
    assert "at 100 events/s (100 row mutations/s at the peak)" in where
    # the same figure analyze shows for that sample and workload (one number)
    full = wb.analyze(ds, schema, nodes=nodes, workload=wb.Workload(events_per_s=100.0))
    assert full.keyspace.split_keys() == cuts


def test_one_node_is_said_in_the_singular(meters):
    ds, schema = meters
    _, where = split_points(ds, schema, None, 1)
    assert "on 1 node," in where and "the data's own rate" in where
