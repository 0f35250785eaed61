"""A design's ceiling on constructed datasets, each expectation derived by hand.

One node takes 14,000 1 KB writes/s (SSD, "Understand performance") and is planned at a 70 % CPU
target, so one unsplittable unit carrying every write stops the design at 0.7 × 14,000 = 9,800
writes/s; a unit with a share p of the writes at 9,800 / p.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.analysis import CellIndex, key_distribution
from workbench.analysis.ceiling import frontier_units
from workbench.analysis.settings import DEFAULT
from workbench.cells import CellFrame

ONE_NODE = DEFAULT.cpu_target * DEFAULT.writes_per_s_per_node  # 9,800
assert ONE_NODE == pytest.approx(9_800)
T0 = 1_425_168_000_000_000  # 2015-03-01, µs


def frame(keys, ts_s, value=b"42") -> CellFrame:
    ts = T0 + np.asarray(ts_s, dtype=np.int64) * 1_000_000
    return CellFrame.from_columns(
        row_key=np.asarray(keys, dtype=object),
        family="m",
        qualifier="v",
        timestamp_us=ts,
        value=value,
    )


def ceiling_of(cf: CellFrame, **kw):
    return key_distribution(CellIndex.build(cf), **kw).ceiling


def stamps(n: int) -> np.ndarray:
    return np.arange(n)  # one write a second


def test_timestamp_first_is_one_nodes_write_rate_at_the_cpu_target():
    t = stamps(3000)
    c = ceiling_of(frame([f"T#{T0 // 10**6 + s:012d}" for s in t], t))
    assert c.writes_per_s == pytest.approx(ONE_NODE, rel=0.01)
    assert (c.unit, c.units, c.unit_share) == ("write frontier", 1, 1.0)
    assert c.unit_name.startswith("T#")
    assert "one write frontier" in c.text() and "9,800 writes/s" in c.text()


@pytest.mark.parametrize("k", [2, 5])
def test_k_equally_busy_frontiers_take_k_times(k):
    # entity e writes at seconds e, e + k, e + 2k, ...: each entity's keys follow its writes
    t = stamps(3000)
    keys = [f"E{s % k}#{s:08d}" for s in t]
    c = ceiling_of(frame(keys, t))
    assert c.units == k
    assert c.writes_per_s == pytest.approx(k * ONE_NODE, rel=0.01)


def test_the_busiest_entity_with_share_p_sets_it_at_one_over_p():
    # 10 writes in each 10 s: 4 from entity A, one from each of B..G: A's share is 0.4
    t = stamps(5000)
    who = np.array(list("AAAABCDEFG"))[t % 10]
    c = ceiling_of(frame([f"{w}#{s:08d}" for w, s in zip(who, t, strict=True)], t))
    assert c.unit_share == pytest.approx(0.4)
    assert c.unit_name.startswith("A#")
    assert c.writes_per_s == pytest.approx(ONE_NODE / 0.4, rel=0.01)  # 24,500
    assert not c.units_grow and "fixed" in c.assumption


def test_n_salt_buckets_take_n_times():
    t = stamps(4000)
    keys = [f"{s % 4}#T#{s:08d}" for s in t]  # a salt of 4 before a timestamp
    c = ceiling_of(frame(keys, t))
    assert c.units == 4 and c.unit_share == pytest.approx(0.25)
    assert c.writes_per_s == pytest.approx(4 * ONE_NODE, rel=0.01)  # 39,200


def test_a_single_hot_row_is_named():
    # half the writes update one row, first and last of all; the rest each create a row with a
    # random key (no frontier: their keys do not follow their order)
    rng = np.random.default_rng(1)
    n = 4000
    t = stamps(n)
    keys = np.array([f"{h:016x}" for h in rng.integers(0, 2**62, n)], dtype=object)
    keys[::2] = "sensor#hot"
    keys[-1] = "sensor#hot"
    c = ceiling_of(frame(keys, t))
    assert c.unit == "row" and c.unit_name == "sensor#hot"
    share = (n // 2 + 1) / n
    assert c.unit_share == pytest.approx(share)
    assert c.writes_per_s == pytest.approx(ONE_NODE / share, rel=0.01)
    assert "one row, 'sensor#hot'" in c.text()


def test_a_write_of_two_planning_rows_costs_twice():
    t = stamps(2000)
    c = ceiling_of(frame([f"T#{s:08d}" for s in t], t, value=b"x" * 2000))
    # a write of ~2 KB costs its bytes over 1 KB: about two planning rows
    nbytes = 2000 + len("T#00000000") + 1 + 1 + 8
    assert c.writes_per_s == pytest.approx(ONE_NODE * 1000 / nbytes, rel=0.01)


def test_whether_units_grow_is_a_stated_assumption():
    t = stamps(3000)
    idx = CellIndex.build(frame([f"E{s % 3}#{s:08d}" for s in t], t))
    kd = key_distribution(idx)
    from workbench.analysis.ceiling import design_ceiling
    from workbench.analysis.keyspace import writes_from_index
    from workbench.analysis.load_windows import first_writes

    w = writes_from_index(idx)
    grow = design_ceiling(
        idx, w, first_writes(w.row, idx.n_rows), np.zeros(idx.n_rows), 0.0, DEFAULT, units_grow=True
    )
    assert math.isinf(grow.writes_per_s) and "adds keys" in grow.assumption
    assert kd.ceiling.writes_per_s == pytest.approx(3 * ONE_NODE, rel=0.01)
    # one frontier keeps its ceiling however many entities production adds
    idx1 = CellIndex.build(frame([f"T#{s:08d}" for s in t], t))
    w1 = writes_from_index(idx1)
    one = design_ceiling(
        idx1,
        w1,
        first_writes(w1.row, idx1.n_rows),
        np.zeros(idx1.n_rows),
        0.0,
        DEFAULT,
        units_grow=True,
    )
    assert one.writes_per_s == pytest.approx(ONE_NODE, rel=0.01)


def test_the_query_ceiling_is_the_busiest_read_row_at_the_cpu_target():
    # one query a second reading one row, 1 ms of node time a run: the row carries 0.001 of a
    # node, so 0.7 / 0.001 = 700 queries/s fill one node to the target
    t = stamps(100)
    idx = CellIndex.build(frame([f"E{s % 5}#{s:08d}" for s in t], t))
    kd = key_distribution(
        idx, seen_rows={"q": np.array([7])}, query_node_s={"q": 0.001}, queries_per_s=1.0
    )
    assert kd.ceiling.queries_per_s == pytest.approx(700)
    assert kd.ceiling.read_row == idx.key(7)


def test_frontier_units_link_rows_written_one_after_another():
    # rows 0-2 written one after the other (a frontier), row 3 open over the same time as row 2
    first = np.array([0, 10, 20, 15])
    last = np.array([9, 19, 29, 40])
    units, way = frontier_units(first, last)
    assert units.tolist() == [0, 0, 0, 1] and way == "forward"
    # reversed timestamps: later rows sort first
    units, way = frontier_units(np.array([30, 20, 10, 0]), np.array([39, 29, 19, 9]))
    assert units.tolist() == [0, 0, 0, 0] and way == "backward"
