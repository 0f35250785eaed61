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


def test_a_large_sample_is_split_from_a_bounded_share_of_its_whole_series(monkeypatch):
    # 64 sensors × 500 events = 32,000 events, over a bound of 8,000: the load model replays
    # the sensors whose CRC-32 draw falls under 8,000 / 32,000 = 1/4, whole, at the whole
    # sample's rate. The tablets halve as above until each holds at most 1/6 of the load
    # (3 nodes): 1 → 1/2 → 1/4 → 1/8, so 8 tablets and 7 split points, as for all 64 sensors;
    # each split point is the first key (minute 0) of a kept sensor.
    from workbench.beam import splits
    from workbench.datasets.byo import sample_mask

    monkeypatch.setattr(splits, "SPLIT_EVENTS", 8_000)
    n, per = 64, PER_SENSOR
    t = pd.date_range("2015-06-01", periods=per, freq="1min", tz="UTC")
    frame = pd.DataFrame(
        {
            "sensor": np.repeat([f"s{i:02d}" for i in range(n)], per),
            "time": np.tile(t, n),
            "temp": (np.arange(n * per) % 97) * 0.5,
        }
    )
    ds = wb.from_dataframe(frame, entity="sensor", time="time", measures="temp")
    schema = wb.preset(ds, "entity_first")
    kept = sorted(set(ds.frame["sensor"][sample_mask(ds.frame, ["sensor"], 8_000 / 32_000)]))
    assert 0 < len(kept) < n
    cuts, where = split_points(ds, schema, 100.0, 3)
    assert len(cuts["main"]) == 7
    assert {k.split("#")[0] for k in cuts["main"]} <= set(kept)
    assert all(k.endswith("#20150601000000") for k in cuts["main"])
    assert f"over {len(kept) * per:,} events of {len(kept)} whole series" in where
    assert "from the 32,000 the design was derived from" in where
    # the whole sample's load model agrees on the count: the bound changes where, not how many
    full = wb.analyze(ds, schema, nodes=3, workload=wb.Workload(events_per_s=100.0))
    assert len(full.keyspace.split_keys()["main"]) == 7
