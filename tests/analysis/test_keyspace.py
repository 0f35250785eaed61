"""The simulated Key Visualizer: hotspots, field promotion and salting on the paper's BATTERY keys (G06–G08).

These use crafted CellFrames in the paper's notation (``BATTERY#Corrie#20150301124501001``,
family METRIC, qualifier PERCENTAGE); tests/analysis/test_teaching.py pins the same
behaviour on the real dataset presets.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.analysis import CellIndex, key_distribution
from workbench.analysis.keyspace import prefix_labels, writes_from_index
from workbench.analysis.settings import DEFAULT
from workbench.cells import CellFrame
from workbench.errors import WorkbenchError

N = 12_000
USERS = np.array(
    ["Corrie", "Jo", "Sam", "Eriko"] + [f"user{i:03d}" for i in range(96)], dtype=object
)


def battery(design: str, n: int = N, seed: int = 3) -> CellFrame:
    """Phone battery readings over March 2015 under one of the paper's key designs."""
    rng = np.random.default_rng(seed)
    ts_ms = (
        np.sort(rng.choice(31 * 86_400_000, size=n, replace=False)) + 1_425_168_000_000
    )  # from 2015-03-01
    t = pd.to_datetime(ts_ms, unit="ms", utc=True)
    stamp = (t.strftime("%Y%m%d%H%M%S") + pd.Index(ts_ms % 1000).astype(str).str.zfill(3)).to_numpy(
        dtype=object
    )
    user = USERS[rng.integers(0, len(USERS), n)]
    if design == "timestamp_first":
        keys = "BATTERY#" + stamp
    elif design == "field_promotion":
        keys = "BATTERY#" + user + "#" + stamp
    elif design.startswith("salted"):
        k = int(design[len("salted") :])
        keys = "BATTERY#" + (ts_ms % k).astype(str).astype(object) + "#" + stamp
    else:
        raise AssertionError(design)
    pct = rng.integers(1, 100, n).astype(str)
    return CellFrame.from_columns(
        row_key=keys,
        family="METRIC",
        qualifier="PERCENTAGE",
        timestamp_us=ts_ms * 1000,
        value=[p.encode() for p in pct],
    )


@pytest.fixture(scope="module")
def dists():
    return {
        d: key_distribution(CellIndex.build(battery(d)))
        for d in ("timestamp_first", "field_promotion", "salted3", "salted5")
    }


def test_timestamp_first_puts_each_windows_writes_on_one_node(dists):
    kd = dists["timestamp_first"]
    assert kd.mean_share >= 0.95, kd.summary()
    assert kd.hotspot_factor > 2.8  # 3 nodes: ~3× the fair share
    # at the data's own rate the table holds ~0.5 MB, far under a tablet's 200 MB, and a load
    # split never cuts a write frontier: the table stays one tablet
    assert kd.n_tablets == 1
    assert kd.busiest_range["name"].startswith("BATTERY#201503")
    # at the data's own rate (12,000 writes over March, 0.0045/s) a frontier costs a few
    # millionths of a node: the shape is named, not a hotspot; at 100,000 writes/s it is one,
    # past the design's 9,800 writes/s ceiling
    assert kd.verdict().startswith("Write frontier:") and "Hotspot" not in kd.verdict()
    assert kd.verdict(100_000).startswith("Hotspot:") and "9,800 writes/s" in kd.verdict(100_000)


def test_timestamp_first_draws_a_diagonal_write_frontier(dists):
    kd = dists["timestamp_first"]
    busy = kd.writes.sum(axis=1) > 0
    centre = (kd.writes[busy] * np.arange(kd.writes.shape[1])).sum(axis=1) / kd.writes[busy].sum(
        axis=1
    )
    assert (np.diff(centre) > 0).all(), "the frontier moves forward through the key space"
    # each window touches a narrow band: the keys written in 1/W of the time, in key order, are
    # 1/W of the key space (W windows of equal length, writes uniform over March)
    W, B = kd.writes.shape
    touched = (kd.writes[busy] > 0).sum(axis=1)
    assert np.median(touched) <= 1.2 * B / W


def test_field_promotion_spreads_writes_within_a_small_factor_of_fair(dists):
    kd = dists["field_promotion"]
    assert kd.hotspot_factor <= 1.5, kd.summary()
    assert kd.mean_share < 0.5
    # even bands: cut the key space in ten bands; nearly every window writes to all of them
    bands = kd.writes.reshape(kd.writes.shape[0], 10, -1).sum(axis=2)
    assert ((bands > 0).all(axis=1)).mean() >= 0.9
    assert "spread" in kd.verdict()


@pytest.mark.parametrize("n_salt", [3, 5])
def test_salting_n_draws_n_stripes(dists, n_salt):
    kd = dists[f"salted{n_salt}"]
    labels = [t for _, t in kd.labels]
    assert labels == [f"BATTERY#{i}" for i in range(n_salt)]
    # in each window the writes form n separate runs of buckets (one frontier per salt value)
    mid = kd.writes[kd.writes.shape[0] // 2] > 0
    runs = int(mid[0]) + int(((mid[1:]) & ~mid[:-1]).sum())
    assert runs == n_salt
    assert kd.hotspot_factor <= 1.6


def test_nodes_setting_changes_the_fair_share():
    idx = CellIndex.build(battery("field_promotion", n=4000))
    kd5 = key_distribution(idx, nodes=5)
    assert kd5.node_writes.shape[1] == 5 and kd5.fair_share == pytest.approx(0.2)
    assert kd5.node_writes.sum() == kd5.n_writes == 4000
    with pytest.raises(WorkbenchError, match="nodes must be at least 1"):
        key_distribution(idx, nodes=0)


def test_cells_of_one_event_form_one_write():
    cf = CellFrame.from_columns(
        row_key=["a#1", "a#1", "a#1", "b#1"],
        family="F",
        qualifier=["x", "y", "x", "x"],
        timestamp_us=[1000, 1000, 2000, 1000],
        value=[b"1", b"2", b"3", b"4"],
    )
    w = writes_from_index(CellIndex.build(cf))
    assert len(w.row) == 3  # (a#1, t=1000) with two cells, (a#1, t=2000), (b#1, t=1000)
    assert sorted(w.cells.tolist()) == [1, 1, 2]
    assert w.nbytes.sum() == cf.total_bytes
    assert (np.diff(w.ts) >= 0).all()


def test_reads_follow_the_rows_each_query_sees():
    idx = CellIndex.build(battery("field_promotion", n=3000))
    lo, hi = np.searchsorted(idx.row_keys, [b"BATTERY#Corrie#", b"BATTERY#Corrie$"])
    rows = np.arange(lo, hi)
    kd = key_distribution(idx, seen_rows={"corrie": rows}, queries_per_s=2.0)
    # 2 queries/s, each reading every Corrie row, over a window of window_minutes × 60 s: once
    # every row exists (the last window), each window reads 2 × 60 × minutes × rows rows
    per_bucket = kd.reads[-1]
    assert per_bucket.sum() == pytest.approx(2.0 * 60 * kd.window_minutes * len(rows))
    assert (np.diff(kd.reads.sum(axis=1)) >= 0).all()  # rows are read once they exist
    hit = np.flatnonzero(per_bucket)
    assert idx.key(lo).startswith("BATTERY#Corrie#") and len(hit) < 0.1 * len(per_bucket)


def test_prefix_labels_follow_the_key_hierarchy():
    keys = np.array(
        [
            f"{g}#{p}#2015030{d}"
            for g in ("LoL", "Starcraft")
            for p in ("Corrie", "Jo", "Sam")
            for d in (1, 2, 3)
        ],
        dtype=object,
    )
    # 18 keys: depth 3 has too many groups for 14 labels, depth 2 (game#player) fits
    assert prefix_labels(keys) == [
        (0, "LoL#Corrie"),
        (3, "LoL#Jo"),
        (6, "LoL#Sam"),
        (9, "Starcraft#Corrie"),
        (12, "Starcraft#Jo"),
        (15, "Starcraft#Sam"),
    ]
    many = np.array([f"{i:05d}#x" for i in range(500)], dtype=object)
    labs = prefix_labels(many, max_labels=10)
    assert 2 <= len(labs) <= 10 and labs[0] == (0, "00000")


def test_key_buckets_are_about_a_thousand_and_cover_every_write(dists):
    kd = dists["field_promotion"]
    # 12,000 writes at >= 1,000 per window would be 12 windows; a picture has at least 24 (whole
    # minutes over March: 31 days / 24 rounded up to a minute gives 24 windows)
    assert kd.writes.shape == (DEFAULT.min_windows, DEFAULT.key_buckets)
    assert kd.writes.sum() == N
    assert kd.window_minutes == int(kd.window_minutes)
