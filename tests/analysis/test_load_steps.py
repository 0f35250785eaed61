"""Each step of the load model on a hand-made case (the composition is pinned in
tests/analysis/test_keyspace.py and tests/analysis/test_load.py).

Every expectation below is worked out by hand from the step's documented rule.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from workbench.analysis import CellIndex
from workbench.analysis.keylabels import bucket_labels, common_prefix, key_delimiter, range_label
from workbench.analysis.load_metrics import (
    bucket_node,
    diagnostics,
    hot_table,
    loaded_extent,
    pressure,
    pressure_kinds,
    tablet_load,
    tablet_shares,
    window_shares,
)
from workbench.analysis.load_windows import (
    Writes,
    first_writes,
    production_rates,
    query_rates,
    read_load,
    time_ids,
    window_grid,
    write_matrices,
)
from workbench.analysis.replay import assign_by_load, balancer_steps, needs_rebalance, replay
from workbench.analysis.settings import DEFAULT
from workbench.analysis.tablets import (
    apply_cuts,
    frontier_allowed,
    initial_tablets,
    load_split_cuts,
    load_split_points,
    sample_split_bytes,
    size_split_cuts,
    step_rows,
)
from workbench.cells import CellFrame

MIN = 60_000_000  # µs


# -- writes and reads per window ------------------------------------------------------------


def test_window_grid_is_whole_minutes_with_at_least_min_windows():
    # 30 minutes, 10 writes: 24 windows wanted → 75 s each, rounded up to 2 whole minutes;
    # 30 min + 1 µs in 2-minute windows is 16 windows
    ts = np.linspace(0, 30 * MIN, 10).astype(np.int64)
    assert window_grid(ts[0], ts[-1], 10, DEFAULT) == (0, 2 * MIN, 16)
    # 480,000 writes over 8 hours want 480 windows of 1,000 writes, capped by max_windows = 240:
    # 2-minute windows
    ts = np.linspace(0, 480 * MIN - 1, 480_000).astype(np.int64)
    assert window_grid(ts[0], ts[-1], len(ts), DEFAULT) == (0, 2 * MIN, 240)


def test_time_ids_cut_each_window_into_equal_slots():
    ts = np.array([0, 29_999_999, 30_000_000, 59_999_999, 60_000_000], dtype=np.int64)
    assert time_ids(ts.copy(), 0, MIN, 1).tolist() == [0, 0, 0, 0, 1]
    assert time_ids(ts.copy(), 0, MIN, 2).tolist() == [0, 0, 1, 1, 2]


def test_first_write_of_each_row():
    # writes in time order to rows 2, 0, 2, 1, 0: row 0 first at write 1, row 1 at 3, row 2 at 0
    assert first_writes(np.array([2, 0, 2, 1, 0]), 3).tolist() == [1, 3, 0]


def _four_rows_two_windows():
    """4 rows in 2 buckets (rows 0-1, rows 2-3), 2 windows: the writes, each one's window, each
    row's first write and its bytes."""
    w = Writes(
        row=np.array([0, 2, 3, 0, 3, 1]),
        ts=np.array([0, 1, 2, MIN, MIN + 1, MIN + 2]),
        nbytes=np.array([10, 20, 60, 10, 50, 5]),
        cells=np.ones(6, dtype=np.int32),
    )
    row_bytes = np.bincount(w.row, weights=w.nbytes, minlength=4)
    return w, np.array([0, 0, 0, 1, 1, 1]), first_writes(w.row, 4), row_bytes


def test_write_matrices_count_writes_bytes_rows_and_large_rows():
    # 4 rows in 2 buckets (rows 0-1, rows 2-3), 2 windows; row 3 crosses a 100-byte limit in
    # window 1
    w, win, first, row_bytes = _four_rows_two_windows()
    km = write_matrices(w, win, first, row_bytes, (2, 2), 100)
    assert km.writes.tolist() == [[1, 2], [2, 1]]
    assert km.write_bytes.tolist() == [[10, 80], [15, 50]]
    assert km.rows.tolist() == [[1, 2], [2, 2]]  # row 1 exists from window 1
    assert km.data_bytes.tolist() == [[10, 80], [25, 130]]
    assert km.large_rows.tolist() == [[0, 0], [0, 1]]


def test_write_matrices_count_the_rows_of_ranges_and_no_range_of_rows_as_large():
    """The same writes with each key a range of consecutive rows (the engine path past
    ``rows_max``): key 0 holds 3 rows, key 1 one, key 2 two, key 3 five. A range's rows count
    from its first write: window 0 has keys 0 (3 rows) and 2, 3 (2 + 5 rows); key 1's one row
    joins in window 1. Key 3's 110 bytes are five rows': no single row is known over the
    100-byte limit, so nothing is large; the same bytes in a range of one row are large."""
    w, win, first, row_bytes = _four_rows_two_windows()
    km = write_matrices(w, win, first, row_bytes, (2, 2), 100, np.array([3, 1, 2, 5]))
    assert km.rows.tolist() == [[3, 2 + 5], [3 + 1, 7]]
    assert km.writes.tolist() == [[1, 2], [2, 1]]  # writes are the entries' own
    assert km.large_rows.tolist() == [[0, 0], [0, 0]]
    km = write_matrices(w, win, first, row_bytes, (2, 2), 100, np.array([3, 1, 2, 1]))
    assert km.large_rows.tolist() == [[0, 0], [0, 1]]


def test_reads_share_a_querys_node_time_by_planning_row_plus_bytes():
    # one query at 2/s seeing rows 0 and 1 (1,000 and 3,000 bytes), 0.01 node-s per run:
    # 0.02 node-s/s shared as (1000 + 1000) : (1000 + 3000) = 1 : 2
    row_bytes = np.array([1000.0, 3000.0, 5.0])
    rates = query_rates({"q": np.array([0, 1])}, {"q": 3.0}, 2.0)
    assert rates == {"q": 2.0}
    cpu, ops, nbytes = read_load(
        row_bytes,
        {"q": np.array([0, 1])},
        rates,
        {"q": 0.01},
        DEFAULT,
        lambda rows: rows,  # a cell per row
        3,
    )
    assert cpu.tolist() == pytest.approx([0.02 / 3, 0.04 / 3, 0.0])
    assert ops.tolist() == [2.0, 2.0, 0.0]  # rows read per second
    assert nbytes.tolist() == [2000.0, 6000.0, 0.0]


def test_production_rates_scale_the_sample():
    # 100 writes over 50 s: 2 writes/s of its own; at 20 writes/s each sample write stands for 10
    r = production_rates(100, 50.0, 60.0, None, None)  # shorter than a window: 60 s
    assert r["data"] == pytest.approx(100 / 60) and r["scale"] == pytest.approx(1.0)
    r = production_rates(100, 50.0, 1.0, 20.0, None)
    assert r["data"] == 2.0 and r["scale"] == 10.0
    assert r["qps"] == 0.0  # no query rate stated: no read load drawn
    assert production_rates(100, 50.0, 1.0, 20.0, 3.0)["qps"] == 3.0


# -- tablets ---------------------------------------------------------------------------------


def test_initial_tablets_one_per_table_plus_pre_splits_round_the_nodes():
    starts, node = initial_tablets(np.array([0, 0, 0, 1, 1]), 5, 0, 2)
    assert starts.tolist() == [0, 3] and node.tolist() == [0, 1]
    starts, node = initial_tablets(np.zeros(10, dtype=int), 10, 1, 3)
    assert starts.tolist() == [0, 5] and node.tolist() == [0, 1]


def test_no_cut_inside_a_write_frontier():
    # rows 3, 4, 5 new and first written in key order (a frontier); row 8 new but after a gap:
    # a cut may fall before row 3 and before row 8, not before 4 or 5
    lrows = np.array([3, 4, 5, 8])
    allowed = frontier_allowed(lrows, np.ones(4, dtype=bool), np.array([10, 20, 30, 40]))
    assert allowed.tolist() == [True, False, False, True]
    # the same rows written in reverse key order (a reversed timestamp): still one frontier
    allowed = frontier_allowed(lrows, np.ones(4, dtype=bool), np.array([40, 30, 20, 10]))
    assert allowed.tolist() == [True, False, False, True]
    # rows written before this window are not a frontier: every cut is allowed
    allowed = frontier_allowed(lrows, np.zeros(4, dtype=bool), np.array([10, 20, 30, 40]))
    assert allowed.all()


def test_load_split_points_halve_the_load_recursively():
    # tablet [0, 4): four rows of load 1 each; above a threshold of 3 it splits at the median
    # (row 2); above 1.5 each half splits again (rows 1 and 3)
    lrows, wcum = step_rows(np.array([0, 1, 2, 3]), np.ones(4))
    live = np.zeros(4)
    assert load_split_points(0, 4, lrows, wcum, np.ones(4, bool), live, 3.0, {}) == [2]
    found: dict = {}
    cuts = load_split_points(0, 4, lrows, wcum, np.ones(4, bool), live, 1.5, found)
    assert sorted(cuts) == [1, 2, 3] and found == {}


def test_a_row_with_half_the_load_is_cut_out_and_then_named():
    # row 2 carries 10 of 13: cut before and after it; alone, it cannot split
    lrows, wcum = step_rows(np.array([0, 1, 2, 3]), np.array([1.0, 1.0, 10.0, 1.0]))
    found: dict = {}
    cuts = load_split_points(0, 4, lrows, wcum, np.ones(4, bool), np.zeros(4), 5.0, found)
    assert sorted(cuts) == [2, 3]
    assert found == {"row": {2: 10.0}}


def test_a_frontier_is_not_split_and_is_named():
    lrows, wcum = step_rows(np.array([0, 1, 2, 3]), np.ones(4))
    allowed = np.array([True, False, False, False])
    found: dict = {}
    assert load_split_points(0, 4, lrows, wcum, allowed, np.zeros(4), 1.0, found) == []
    assert found == {"frontier": 4.0}
    # the same through load_split_cuts: the stuck tablet is not even searched
    found = {}
    cuts = load_split_cuts(
        np.array([0]),
        np.array([4.0]),
        np.zeros(1),
        1.0,
        4,
        (lrows, wcum, allowed),
        np.zeros(4),
        found,
    )
    assert cuts == [] and found == {"frontier": 4.0}


def test_size_splits_at_the_byte_median_never_inside_a_row():
    # six rows of 1 byte: the median falls after row 2 (cut before row 3)
    assert size_split_cuts(np.array([0]), np.array([6.0]), 4.0, np.ones(6)) == [3]
    # a 5-byte row first: the cut isolates it (before row 1)
    assert size_split_cuts(np.array([0]), np.array([8.0]), 4.0, np.array([5.0, 1, 1, 1])) == [1]
    # under the split size: no cut
    assert size_split_cuts(np.array([0]), np.array([8.0]), 10.0, np.ones(8)) == []
    # the split size in sample bytes: 200 MB at 1,000 production bytes per sample byte
    assert sample_split_bytes(200e6, 1000.0, np.ones(10), 5) == 200e3
    # ... but never below a key bucket's share of the sample
    assert sample_split_bytes(200e6, 1e9, np.full(1000, 10.0), 5) == 2000.0


def test_both_halves_of_a_split_stay_on_the_parents_node():
    starts, node = apply_cuts(np.array([0, 4]), np.array([1, 0]), [2, 6])
    assert starts.tolist() == [0, 2, 4, 6] and node.tolist() == [1, 1, 0, 0]


# -- rebalancing -------------------------------------------------------------------------------


def test_balancer_steps_and_the_lag_follow_rebalance_minutes():
    st = DEFAULT.replace(rebalance_minutes=5.0, min_writes_per_step=1)
    # 10-minute windows, plenty of writes: two 5-minute steps per window, a move lands 1 step on
    assert balancer_steps(600.0, 10_000, 10, st) == (2, 1)
    # 1-minute windows: one step each, a move takes 5 steps
    assert balancer_steps(60.0, 10_000, 10, st) == (1, 5)


def test_moves_put_the_heaviest_tablets_on_the_least_loaded_nodes():
    # loads 5, 3, 2, 2 on 2 nodes: 5 → n0, 3 → n1, 2 → n1 (3 < 5), 2 → n0 (5 = 5: lower id);
    # the idle tablet stays where it was (n1)
    out = assign_by_load(np.array([5.0, 3, 2, 2, 0]), np.array([0, 0, 0, 0, 1]), 2)
    assert out.tolist() == [0, 1, 1, 0, 1]


def test_a_move_is_needed_only_past_the_tolerance_and_when_busy():
    load = np.array([4.0, 4.0])
    assert needs_rebalance(load, np.array([0, 0]), 2, (8.0, 8.0), 0.1)  # 8 vs best 4
    assert not needs_rebalance(load, np.array([0, 1]), 2, (8.0, 8.0), 0.1)  # already even
    # one tablet carries it all: no placement beats it
    assert not needs_rebalance(np.array([8.0, 0.0]), np.array([0, 0]), 2, (8.0, 8.0), 0.1)
    # near idle against the typical step: not worth moving
    assert not needs_rebalance(load * 1e-6, np.array([0, 0]), 2, (8e-6, 8.0), 0.1)


def test_replay_of_two_equal_rows_on_one_node_moves_one_of_them():
    # two rows written alternately for 10 minutes, both starting on node 0 of 2 (one tablet),
    # one write each 0.6 s; the tablet splits between the rows by load and the balancer moves
    # one half to node 1: after the move each node carries half
    n = 1000
    ts = np.arange(n, dtype=np.int64) * 600_000
    w = Writes(row=np.arange(n) % 2, ts=ts, nbytes=np.full(n, 100), cells=np.ones(n, np.int32))
    st = DEFAULT.replace(rebalance_minutes=1.0, min_writes_per_step=1)
    grid = window_grid(ts[0], ts[-1], n, st)
    rp = replay(
        w,
        grid=grid,
        first=first_writes(w.row, 2),
        rcpu=np.zeros(2),
        tablets=(np.array([0]), np.array([0])),
        nodes=2,
        buckets=2,
        scale=1.0,
        split_bytes=float("inf"),
        st=st,
    )
    assert rp.starts.tolist() == [0, 1]
    late = rp.node_cpu[rp.warmup_windows + 1 :]
    assert late[:, 0] == pytest.approx(late[:, 1], rel=0.05)
    assert rp.node_writes.sum() == n


# -- metrics -----------------------------------------------------------------------------------


def test_tablet_load_and_the_worst_node_per_bucket():
    starts = np.array([0, 2])
    tab, load = tablet_load(
        starts, np.array([0, 1, 3]), np.array([1.0, 1.0, 5.0]), np.array([0.5, 0])
    )
    assert tab.tolist() == [0, 0, 1] and load.tolist() == [2.5, 5.0]
    # buckets of rows 0-1 and 2-3; tablets on nodes 1 and 0 with node loads 5 and 2.5
    node_load = np.array([5.0, 2.5])
    serving = bucket_node(starts, np.array([1, 0]), node_load, np.array([0, 2]), np.array([1, 3]))
    assert node_load[serving].tolist() == [2.5, 5.0]


def test_shares_are_of_one_windows_total_and_pressure_is_against_the_cpu_target():
    shares = window_shares(np.array([3.0, 0.0]), np.array([4.0, 0.0]))
    assert shares[0] == 0.75 and np.isnan(shares[1])
    p = pressure(np.array([[0.35, 0.7]]), 0.7, np.array([[1, 0]]), np.array([[0, 0]]))
    assert p.tolist() == [[50.0, 0.0]]  # no operations in the second bucket


def test_the_serving_node_of_a_bucket_is_its_busiest():
    # tablets [0,2) on node 1, [2,3) on node 0, [3,4) on node 2; node loads 1, 5, 3:
    # bucket rows 0-1 is served only by node 1; bucket rows 2-3 by nodes 0 and 2 → node 2 (3 > 1)
    starts, node = np.array([0, 2, 3]), np.array([1, 0, 2])
    bn = bucket_node(starts, node, np.array([1.0, 5.0, 3.0]), np.array([0, 2]), np.array([1, 3]))
    assert bn.tolist() == [1, 2]


def test_pressure_is_the_kind_of_operation_that_loads_the_serving_node():
    # indexes 150 (node over the target) or 50; read share of the node's CPU per cell
    idx = np.array([[150.0, 150.0, 150.0, 50.0, 250.0]])
    share = np.array([[0.05, 0.9, 0.5, 1.0, 0.45]])
    k = pressure_kinds(idx, share, 100.0)
    # 0.05: writes are the larger part (reads' own index 7.5) → write only
    # 0.9: reads 135 ≥ 100 → read only; 0.5: a tie goes to writes (neither is the larger part,
    # neither alone at 100: reads 75, writes 75); 50: no pressure at all;
    # 0.45 of 250: reads 112.5 and writes 137.5 each over → both
    assert k["read"].tolist() == [[False, True, False, False, True]]
    assert k["write"].tolist() == [[True, False, True, False, True]]


def _one_node_replay(write_cpu: float, read_cpu: float):
    """Four rows in two buckets (rows 0-1, rows 2-3) on ONE node, 10 minutes: row 0 written once
    at the start and then read at ``read_cpu`` (in nodes); row 3 written every 0.6 s, a write
    frontier, at ``write_cpu`` nodes (scale picked so the windows' writes cost that)."""
    n = 1000
    ts = np.arange(n, dtype=np.int64) * 600_000
    row = np.full(n, 3)
    row[0] = 0
    w = Writes(row=row, ts=ts, nbytes=np.full(n, 100), cells=np.ones(n, np.int32))
    st = DEFAULT.replace(min_writes_per_step=1)
    grid = window_grid(ts[0], ts[-1], n, st)
    win_s = grid[1] / 1e6
    scale = write_cpu * st.node_rates()[1] * win_s * grid[2] / n
    rcpu = np.array([read_cpu, 0.0, 0.0, 0.0], dtype=np.float32)
    rp = replay(
        w,
        grid=grid,
        first=first_writes(w.row, 4),
        rcpu=rcpu,
        tablets=(np.array([0]), np.array([0])),
        nodes=1,
        buckets=2,
        scale=scale,
        split_bytes=float("inf"),
        st=st,
    )
    ops = np.ones_like(rp.bucket_cpu)  # both buckets had operations in every window
    idx = pressure(rp.bucket_cpu, st.cpu_target, ops, ops)
    share = window_shares(rp.bucket_read, rp.bucket_cpu)
    return rp, idx, share, pressure_kinds(idx, share, st.pressure_poor)


def test_a_write_frontier_on_a_node_with_light_reads_is_write_pressure_only():
    # per window the node carries writes ≈ 1.0 node and row 0's reads 0.05: index
    # 100 × 1.05 / 0.70 = 150 in BOTH buckets (one node serves them); the reads' part is
    # 0.05 / 1.05 ≈ 4.8 % (index 7): bucket 0 is read, not written, and still not read pressure
    rp, idx, share, k = _one_node_replay(write_cpu=1.0, read_cpu=0.05)
    assert idx[1:] == pytest.approx(150.0, rel=0.02)
    assert share[1:] == pytest.approx(0.05 / 1.05, rel=0.02)
    assert rp.bucket_read[1:] == pytest.approx(0.05, rel=1e-4)
    assert k["write"][1:].all()
    assert not k["read"].any()


def test_a_read_heavy_workload_is_read_pressure_only():
    # reads of row 0 at 1.0 node, writes 0.05: index 150, reads' part 1.0 / 1.05 (index 143)
    rp, idx, share, k = _one_node_replay(write_cpu=0.05, read_cpu=1.0)
    assert idx[1:] == pytest.approx(150.0, rel=0.02)
    assert share[1:] == pytest.approx(1.0 / 1.05, rel=0.02)
    assert k["read"][1:].all()
    assert not k["write"].any()


def test_diagnostics_name_the_kind_that_loads_the_node():
    from types import SimpleNamespace

    # the write-frontier case above, as Key Visualizer's messages: bucket 0 only read (lightly),
    # bucket 1 written; both on the one node at index 150. Before the read/write split, bucket 0's
    # reads on the saturated node raised "High read pressure" too
    rp, idx, share, _ = _one_node_replay(write_cpu=1.0, read_cpu=0.05)
    W = len(idx)
    reads = np.zeros((W, 2))
    reads[:, 0] = 10.0
    writes = np.zeros((W, 2))
    writes[:, 1] = 100
    kd = SimpleNamespace(
        settings=DEFAULT,
        n_writes=1000,
        n_rows=DEFAULT.key_buckets,
        reads=reads,
        writes=writes,
        pressure=idx,
        read_share=np.nan_to_num(share),
        hot_rows={},
        rows=np.zeros((W, 2)),
        data_bytes=np.zeros((W, 2)),
        large_rows=np.zeros((W, 2)),
    )
    names = {d["message"] for d in diagnostics(kd)}  # type: ignore[arg-type]
    assert "High write pressure" in names and "High read pressure" not in names
    # the read-heavy case: read pressure only
    rp, idx, share, _ = _one_node_replay(write_cpu=0.05, read_cpu=1.0)
    kd.pressure, kd.read_share = idx, np.nan_to_num(share)
    names = {d["message"] for d in diagnostics(kd)}  # type: ignore[arg-type]
    assert "High read pressure" in names and "High write pressure" not in names


def test_a_tablets_share_is_never_above_its_nodes():
    # window 0: the busiest tablet carried 3 in each of two steps but moved between the two
    # nodes in between (each node 3 of the window's 6): capped at the busiest node's 3
    assert tablet_shares(
        np.array([6.0, 1.0]), np.array([3.0, 2.0]), np.array([6.0, 4.0])
    ).tolist() == [
        0.5,
        0.25,
    ]


def test_shares_hold_on_the_composed_model():
    from analysis.test_keyspace import battery
    from workbench.analysis import key_distribution

    for design in ("timestamp_first", "field_promotion", "salted3"):
        for nodes in (1, 3, 10):
            kd = key_distribution(CellIndex.build(battery(design, n=4000)), nodes=nodes)
            ok = ~np.isnan(kd.busiest_share)
            assert (kd.busiest_share[ok] <= 1 + 1e-9).all()
            assert (kd.tablet_share[ok] <= kd.busiest_share[ok] + 1e-9).all(), (design, nodes)
            assert 0 < kd.busiest_range["window_share"] <= 1 + 1e-9


def test_hot_tablets_read_like_list_hot_tablets():
    cf = CellFrame.from_columns(
        row_key=["a", "b", "c"], family="F", qualifier="q", timestamp_us=[0, 0, 0], value=b"v"
    )
    idx = CellIndex.build(cf)
    df = hot_table(idx, [(0, 0.4, 1, 2), (1, 2.0, 0, 3)], 0, 60e6)
    assert df["node_cpu_usage_percent"].tolist() == [100.0, 40.0]  # capped at one node
    assert df["start_key"].tolist() == ["a", "b"] and df["end_key"].tolist() == ["", "b\x00"]
    # keys that are ranges of 2, 1 and 4 rows (the engine path past rows_max): the whole table
    # holds 2 + 1 + 4 = 7 rows, and "b"'s tablet one row; "a".."b" is a range of two, no row
    ranges = dataclasses.replace(idx, key_rows=np.array([2, 1, 4]))
    df = hot_table(ranges, [(0, 0.4, 1, 2), (1, 2.0, 0, 3), (2, 0.2, 0, 1)], 0, 60e6)
    assert df["rows"].tolist() == [7, 1, 2]
    # only "b"'s range is one row: the model may name it a hot row, not the others
    assert [ranges.one_row(i) for i in range(3)] == [False, True, False]
    assert all(idx.one_row(i) for i in range(3))
    assert df["end_key"].tolist() == ["", "b\x00", "b"]
    assert loaded_extent(np.array([1, 2]), np.zeros(3), 0, 3) == (1, 2)
    assert loaded_extent(np.array([], dtype=int), np.array([0, 0, 1.0]), 0, 3) == (2, 2)
    assert loaded_extent(np.array([], dtype=int), np.zeros(3), 0, 3) is None


def test_key_labels():
    assert key_delimiter(np.array(["a|b|c", "a|b#c"], dtype=object)) == "|"
    assert common_prefix("BATTERY#Jo#1", "BATTERY#Jo#2") == "BATTERY#Jo#"
    cf = CellFrame.from_columns(
        row_key=["BATTERY#Jo#1", "BATTERY#Jo#2", "X#1"],
        family="F",
        qualifier="q",
        timestamp_us=[0, 0, 0],
        value=b"v",
    )
    idx = CellIndex.build(cf)
    assert range_label(idx, 0, 1) == "BATTERY#Jo#…"
    assert range_label(idx, 0, 0) == "BATTERY#Jo#1"
    assert range_label(idx, 0, 2) == "BATTERY#Jo#1 … X#1"
    keys, delim, labels = bucket_labels(idx, np.array([0, 2]))
    assert keys.tolist() == ["BATTERY#Jo#1", "X#1"] and delim == "#"
    # the deepest depth whose groups fit the labels: here the whole keys
    assert labels == [(0, "BATTERY#Jo#1"), (1, "X#1")]


@pytest.mark.slow  # the load model on every workshop design (~4 s of CPU)
def test_no_tablet_share_above_its_nodes_on_any_workshop_design():
    """What the notebooks draw (the Hotspot chart's busiest node and, below it, the busiest
    tablet as the floor): on every preset of every workshop dataset, at the node counts the
    notebooks show, a tablet never carries more of a window than the node serving it."""
    import workbench as wb

    seen = 0
    for name in wb.dataset_names():
        ds = wb.load_dataset(name, size="tiny")
        for schema in wb.presets(ds).values():
            try:
                a = wb.analyze(ds, schema, nodes=3)
            except wb.CollisionError:  # fx second_precision: refused, nothing drawn
                continue
            seen += 1
            for nodes in (1, 3, 6):
                kd = a.keyspace.at_nodes(nodes)
                ok = ~np.isnan(kd.busiest_share)
                assert (kd.busiest_share[ok] <= 1 + 1e-9).all(), (name, schema.name, nodes)
                assert (kd.tablet_share[ok] <= kd.busiest_share[ok] + 1e-9).all(), (
                    name,
                    schema.name,
                    nodes,
                )
                assert kd.mean_tablet_share <= kd.mean_share + 1e-9, (name, schema.name, nodes)
    assert seen >= 35  # every preset but the ones whose keys collide
