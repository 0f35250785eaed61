"""The load model behind the simulated Key Visualizer and capacity, on constructed workloads.

Each expectation is derived by hand from how Cloud Bigtable behaves (docs/architecture.md,
"Load model"): rows live in key-ordered tablets; a busy tablet splits by load, except inside
one row and inside a write frontier (new keys arriving in key order); tablets move between
nodes by load, a move landing ``rebalance_minutes`` after it is decided.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from hand_production import hand_production

from workbench.analysis import CellIndex, capacity, compression_ratio, key_distribution
from workbench.analysis.keyspace import at_nodes
from workbench.analysis.settings import DEFAULT
from workbench.cells import CellFrame
from workbench.datasets.workload import Workload

T0_US = 1_425_168_000_000_000  # 2015-03-01 UTC


def frontiers(k: int, n: int = 24_000, hours: float = 48.0, hot_row: float = 0.0) -> CellFrame:
    """``n`` writes spread evenly over ``hours``, dealt round-robin to ``k`` entities keyed
    ``F<i>#<time>`` (each entity a write frontier: its new keys arrive in key order). With
    ``hot_row``, that share of the writes go to the single row ``HOT`` instead (new versions)."""
    ts = T0_US + (np.arange(n) * (hours * 3600e6 / n)).astype(np.int64)
    ent = np.arange(n) % k
    keys = np.array(
        [f"F{e:02d}#{t // 1_000_000:012d}" for e, t in zip(ent, ts, strict=True)], dtype=object
    )
    if hot_row:
        hot = (np.arange(n) % int(round(1 / hot_row))) == 0
        keys[hot] = "HOT"
    return CellFrame.from_columns(
        row_key=keys, family="m", qualifier="v", timestamp_us=ts, value=[b"12.5"] * n
    )


@pytest.mark.parametrize("nodes", [1, 3, 10, 30])
def test_timestamp_first_keeps_the_writes_on_one_tablet_at_any_node_count(nodes):
    from analysis.test_keyspace import battery

    kd = key_distribution(CellIndex.build(battery("timestamp_first")), nodes=nodes)
    # every write's key is above every key written before: it lands past the last split, in the
    # last tablet, and no split inside that run of new keys relieves it (a write frontier)
    assert kd.mean_tablet_write_share >= 0.95, kd.summary()
    assert kd.frontier and kd.spread == "hotspot"
    assert "write frontier" in kd.verdict()
    if nodes > 1:
        assert kd.mean_write_share >= 0.95
        assert "one node" in kd.verdict()
    else:  # one node: no busiest node to speak of, the tablet is the hotspot
        assert "one tablet" in kd.verdict() and "node takes" not in kd.verdict()


@pytest.mark.parametrize(("k", "nodes"), [(4, 4), (5, 12), (6, 30)])
def test_equal_write_frontiers_spread_to_the_floor_the_busiest_sets(k, nodes):
    kd = key_distribution(CellIndex.build(frontiers(k)), nodes=nodes)
    # k equally busy frontiers: the busiest carries 1/k of every window; a frontier is one
    # tablet's load (it cannot split), so the best a cluster of N >= k nodes can do is 1/k on
    # the busiest node: floor = N/k times the fair share 1/N
    floor = nodes / k
    assert kd.hotspot_factor <= 1.3 * floor, kd.summary()
    assert kd.hotspot_factor >= 0.99 * floor  # and the floor holds: nothing beats it
    assert kd.mean_tablet_write_share == pytest.approx(1 / k, rel=0.05)


def test_a_single_hot_row_is_never_split_and_is_named():
    cf = frontiers(30, hot_row=0.5)
    idx = CellIndex.build(cf)
    kd = key_distribution(idx, nodes=3)
    # half of all writes go to the row HOT: it is cut out as a tablet of its own, [HOT, HOT\0),
    # and stays one tablet whatever its load (a row is never split)
    r = int(np.searchsorted(idx.row_keys, b"HOT"))
    ends = np.r_[kd.tablet_starts[1:], idx.n_rows]
    assert r in kd.tablet_starts and ends[list(kd.tablet_starts).index(r)] == r + 1
    assert list(kd.hot_rows) == ["HOT"]
    assert "'HOT'" in kd.verdict()
    # ListHotTablets shows a single-row tablet as [key, key + "\x00")
    hot = kd.hot_tablets[kd.hot_tablets["start_key"] == "HOT"]
    assert len(hot) and (hot["end_key"] == "HOT\x00").all() and (hot["rows"] == 1).all()
    # the hot row's tablet carries half the load: on 3 nodes its node has >= 1/2 (1.5x fair)
    assert kd.mean_tablet_share == pytest.approx(0.5, abs=0.03)
    assert kd.hotspot_factor >= 1.5 - 0.05
    # at 30,000 writes/s the row alone takes 15,000/s: 1.07 nodes, over the 70 % target. Key
    # Visualizer flags high write pressure, as danger when single rows cause it
    fast = kd.rerun(write_rate_per_s=30_000)
    d = {x["message"]: x["severity"] for x in fast.diagnostics()}
    assert d.get("High write pressure") == "danger"
    assert "High write pressure" not in {x["message"] for x in kd.diagnostics()}


def test_a_read_heavy_range_is_hot_while_writes_spread_evenly():
    from analysis.test_keyspace import battery

    idx = CellIndex.build(battery("field_promotion"))
    lo, hi = np.searchsorted(idx.row_keys, [b"BATTERY#Corrie#", b"BATTERY#Corrie$"])
    rows = np.arange(lo, hi)
    # 1,000 writes/s cost 1000 / 14,000 = 0.07 nodes; 120 queries/s reading Corrie's ~120 rows
    # (1 KB planning rows: 120 / 17,000 s each) cost 120 × 0.007 = 0.85 nodes: reads are 92 % of
    # the load, all of it in Corrie's key range
    kd = key_distribution(
        idx, seen_rows={"corrie": rows}, nodes=4, write_rate_per_s=1000, queries_per_s=120
    )
    assert kd.read_cpu == pytest.approx(120 * len(rows) / 17_000, rel=0.01)
    assert kd.busiest_range["name"].startswith("BATTERY#Corrie")
    # Corrie's range is split by load (reads of existing rows can be split) and its pieces lead
    # the hot-tablet list
    top = kd.hot_tablets.head(10)
    inside = (top["start_key"] >= "BATTERY#Corrie") & (top["start_key"] < "BATTERY#Corrie$")
    assert inside.mean() >= 0.8, top
    # the writes are spread: 100 users over 4 nodes, the busiest node near 1/4 of the writes
    assert kd.mean_write_share * 4 <= 1.5
    # and the reads show where Key Visualizer would: in Corrie's buckets only
    hit = np.flatnonzero(kd.metric("reads")[-1])
    assert idx.key(int(lo)).startswith("BATTERY#Corrie#") and len(hit) <= 0.02 * kd.reads.shape[1]


def test_one_node_speaks_of_the_busiest_tablet_not_a_busiest_node():
    from analysis.test_keyspace import battery

    kd = key_distribution(CellIndex.build(battery("field_promotion")), nodes=1)
    # one node serves everything by definition: that is not a hotspot
    assert kd.spread == "even" and kd.hotspot_factor == pytest.approx(1.0)
    assert kd.verdict().startswith("One node serves everything")


def test_balloons_promoted_key_reaches_the_floor_the_busiest_balloon_sets():
    import workbench as wb
    from workbench.analysis import analyze
    from workbench.schema import Field, RowKey, Timestamp

    ds = wb.load_dataset("weather_balloons", size="workshop")
    promoted = wb.preset("weather_balloons", "single_timestamp")  # location#balloon#time
    time_mid = dataclasses.replace(
        promoted,
        key=RowKey((Field("location"), Timestamp("second"), Field("balloon_id")), "#"),
        name="location#time#balloon",
    )
    a = analyze(ds, promoted, nodes=24)
    kd = a.keyspace
    # the floor: in each window the busiest balloon's share of the writes (each balloon is one
    # write frontier, one tablet's load), weighted by the window's writes, at least 1/24
    f = ds.frame
    us = ((f["time"] - pd.Timestamp(0, tz="UTC")) // pd.Timedelta(1, "us")).to_numpy()
    win = (us - kd.window_edges_us[0]) // (kd.window_edges_us[1] - kd.window_edges_us[0])
    per = pd.DataFrame({"w": win, "b": f["location"] + f["balloon_id"]}).groupby(["w", "b"]).size()
    tot, top = per.groupby("w").sum(), per.groupby("w").max()
    settled = tot.index[tot.index >= kd.warmup_windows]
    floor = float(
        (np.maximum(top / tot, 1 / 24)[settled] * tot[settled]).sum() / tot[settled].sum()
    )
    assert 1.4 <= floor * 24 <= 1.8  # about 7 % of a window's writes: ~1.6-1.7x fair
    assert kd.mean_share <= 1.5 * floor, kd.summary()
    worse = analyze(ds, time_mid, nodes=24).keyspace
    # location#time#balloon: the ~18 balloons aloft at a location share one frontier per location
    assert worse.hotspot_factor >= 1.25 * kd.hotspot_factor, worse.summary()


def test_the_picture_at_several_node_counts_from_an_empty_table():
    from analysis.test_keyspace import battery

    kd = key_distribution(CellIndex.build(battery("salted5")), nodes=3)
    runs = at_nodes(kd, (1, 3, 10, 30))
    assert [r.nodes for r in runs.values()] == [1, 3, 10, 30] and runs[3] is kd
    # five frontiers: over 10 or 30 nodes the busiest node keeps 1/5 of the load at best
    assert runs[10].mean_share == pytest.approx(0.2, abs=0.05)
    assert runs[30].mean_share == pytest.approx(0.2, abs=0.05)
    # the table starts as one tablet on one node: the first window, with its first steps on one
    # node until the load splits and moves land, is busier than the settled mean, and is warm-up
    assert runs[10].busiest_share[0] > runs[10].mean_share + 0.05
    assert runs[10].warmup_windows >= 1


def test_key_visualizer_metrics_and_diagnostics():
    cf = frontiers(3, n=2_000, hours=6)
    idx = CellIndex.build(cf)
    kd = key_distribution(idx, nodes=1, write_rate_per_s=100_000)
    W, B = kd.writes.shape
    assert B == DEFAULT.key_buckets  # 2,000 rows in 1,000 buckets of 2 rows
    # ops: 100,000 writes/s over the span, reported per minute of each window
    total_ops = (kd.metric("ops") * kd.window_minutes).sum()
    assert total_ops == pytest.approx(100_000 * kd.n_writes / kd.data_writes_per_s, rel=1e-6)
    assert kd.metric("rows")[-1].sum() == idx.n_rows  # every row exists at the end
    assert kd.metric("data")[-1].sum() == cf.total_bytes
    names = [d["message"] for d in kd.diagnostics()]
    # 100,000 writes/s need 7 nodes' CPU: on one node every written bucket is over 70 %
    assert "High write pressure" in names
    assert "Key space not to scale" not in names  # 2,000 rows fill 1,000 buckets
    small = key_distribution(CellIndex.build(frontiers(3, n=300, hours=1)))
    assert "Key space not to scale" in [d["message"] for d in small.diagnostics()]


def test_compression_is_measured_on_the_cells():
    n = 4_000
    rep = CellFrame.from_columns(
        row_key=[f"sensor#{i:06d}" for i in range(n)],
        family="m",
        qualifier="temperature",
        timestamp_us=np.full(n, T0_US),
        value=[b"21.5"] * n,
    )
    rnd = np.random.default_rng(1)
    noise = CellFrame.from_columns(
        row_key=[rnd.bytes(8).hex() for _ in range(n)],
        family="m",
        qualifier="q",
        timestamp_us=rnd.integers(0, 2**62, n),
        value=[rnd.bytes(200) for _ in range(n)],
    )
    # sorted keys that share 7 of 13 characters, one qualifier and one value repeat: Snappy
    # finds long matches; random 200-byte values give it nothing (ratio about 1)
    assert compression_ratio(rep) > 3
    assert compression_ratio(noise) == pytest.approx(1.0, abs=0.1)


@pytest.mark.slow
def test_capacity_counts_storage_and_does_not_depend_on_the_model_node_count():
    import workbench as wb
    from workbench.analysis import analyze

    ds = wb.load_dataset("weather_balloons", size="workshop")
    s = wb.preset("weather_balloons", "single_timestamp")
    # writes alone (no queries stated): what each query costs at production size is
    # test_workload's; here storage against CPU
    w = wb.Workload(events_per_s=100_000, queries_per_s=0)
    caps = [analyze(ds, s, nodes=n, workload=w).capacity for n in (3, 10)]
    c = caps[0]
    # 100,000 events/s × 201.85 B × 730 h × 3600 s × 12 months = 636.6 TB logical
    assert c.stored_bytes / 1e12 == pytest.approx(636.6, abs=0.1)
    # Bigtable counts compressed bytes against a node (3.41× measured on the cells): 186.7 TB,
    # over 5 TB per SSD node kept ≤ 70 % full: ceil(186.7 / 3.5) = 54 nodes
    assert c.compression_ratio == pytest.approx(3.41, abs=0.01)
    assert c.storage_nodes == 54 and c.nodes_needed >= 54 and c.bound_by == "storage"
    assert caps[1].nodes_needed == c.nodes_needed and caps[1].cpu.nodes == c.cpu.nodes
    # CPU: 100,000 / 14,000 = 7.1 nodes of writes; at 70 % at least 11 nodes
    assert c.cpu.nodes >= 11
    # billed: compressed GiB × $/GiB-month; replication doubles nodes and storage
    assert c.storage_cost_month == pytest.approx(c.stored_gib * DEFAULT.ssd_gb_month_usd)
    a = analyze(ds, s, workload=Workload(events_per_s=100_000))

    def at(**changes):  # the same 100,000 events/s, sustained, under other settings
        return capacity(
            a.index,
            len(ds),
            hand_production(100_000, settings=DEFAULT.replace(**changes)),
            compression=c.compression_ratio,
        )

    two = at(clusters=2)
    assert two.clusters == 2 and two.nodes_needed == 2 * two.nodes_per_cluster
    assert two.stored_gib == pytest.approx(2 * c.stored_gib)
    # Monitoring: 70 % with single-cluster routing whatever the cluster count, and with
    # multi-cluster routing and autoscaling; 35 % only for multi-cluster without autoscaling
    assert two.cpu_target == 0.70
    assert at(clusters=2, routing="multi-cluster", autoscaling=True).cpu_target == 0.70
    assert at(clusters=2, routing="multi-cluster").cpu_target == 0.35
    assert at(clusters=1, routing="multi-cluster").cpu_target == 0.70
    # every write is applied by the other cluster too: the month's writes cross once
    assert two.replication_gib_month == pytest.approx(c.bytes_per_month / 2**30)
    assert "GiB/month copied between clusters" in " ".join(two.assumptions())
    # HDD: 16 TB per node at 70 %: ceil(186.7 / 11.2) = 17
    assert at(storage="HDD").storage_nodes == 17


def test_a_read_only_workload_needs_nodes_too():
    from analysis.test_keyspace import battery

    idx = CellIndex.build(battery("field_promotion"))
    every = np.arange(idx.n_rows)
    # no writes; one query reading all 12,000 rows, 1 KB planning rows: 12,000 / 17,000 s of a
    # node per run; 10 runs/s = 7.06 nodes of CPU, 10.1 at 70 %: at least 11 nodes
    kd = key_distribution(
        idx, seen_rows={"all": every}, write_rate_per_s=0, queries_per_s=10, nodes=3
    )
    assert kd.write_cpu == 0 and kd.read_cpu == pytest.approx(10 * 12_000 / 17_000, rel=0.01)
    # capacity at that workload: no writes, 7.06 nodes of reads spread evenly at 70 %:
    # ceil(7.06 / 0.7) = ceil(10.08) = 11 nodes, though nothing is written
    reads = hand_production(0, queries_per_s=10, read_cpu=10 * 12_000 / 17_000)
    cap = capacity(idx, 12_000, reads)
    assert cap.write_cpu == 0 and cap.cpu.nodes == cap.nodes_needed == 11


def test_figures_draw_every_key_visualizer_metric_and_the_node_sweep():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from analysis.test_keyspace import battery
    from workbench.plots.heatmap import METRICS, key_heatmap_html, plot_key_heatmap
    from workbench.plots.keyspace import plot_hotspot, plot_node_sweep

    kd = key_distribution(CellIndex.build(battery("timestamp_first")), nodes=3)
    for what in METRICS:
        ax = plot_key_heatmap(kd, what=what)
        assert ax.get_title(loc="left") or ax.get_title()
        plt.close(ax.figure)
        assert METRICS[what][0] in key_heatmap_html(kd, what)
    # the caption's parts are joined by " · ": without the emulator note (04's keyspace view) it
    # ended "busiest key range: <code>2015…</code> ·" over nothing
    import re

    for note in (True, False):
        caption = re.search(
            r"<div class='wb-hm-note'>row key .*?</div>", key_heatmap_html(kd, emulator_note=note)
        ).group(0)
        assert "busiest key range: <code>" in caption
        assert not re.search(r"·\s*</div>$", caption), caption[-80:]
        assert ("SampleRowKeys" in caption) == note
    ax = plot_node_sweep(kd)
    # timestamp first: one frontier, so every cluster size shows the busiest node near 100 %
    heights = [p.get_height() for p in ax.patches]
    assert len(heights) == 4 and min(heights) >= 0.9
    plt.close(ax.figure)
    ax = plot_hotspot(kd)
    assert "busiest tablet" in ax.get_title() or "busiest tablet" in ax.get_title(loc="left")
    plt.close(ax.figure)
