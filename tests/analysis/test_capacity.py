"""Capacity a team can budget with: event rates, compressed storage over each family's GC rule,
a CPU need that does not run away on a short sample, ceilings, tiered storage (G13, G18, G30).

Expectations are derived by hand from Google's documented figures (SSD: 14,000 1 KB writes/s
and 5 TB per node; 70 % CPU and storage utilisation targets; infrequent-access tier after a
cell-timestamp age) and from the designs' own bytes.
"""

from __future__ import annotations

import math
import re

import pytest
from hand_production import hand_production

import workbench as wb
from workbench.analysis import CellIndex, analyze, capacity, compare
from workbench.analysis import retention as retention_module
from workbench.analysis.retention import limits
from workbench.analysis.settings import DEFAULT
from workbench.cells import CellFrame
from workbench.errors import RemovedKeyword, WorkbenchError
from workbench.schema import Family, max_age, max_versions
from workbench.schema.families import intersection, union

pytestmark = pytest.mark.slow  # 100,000-event samples

T0 = 1_425_168_000_000_000  # 2015-03-01 UTC in µs
SECONDS_PER_MONTH = 730 * 3600
MONTHS_90D = 90 * 24 / 730  # 90 days in 730-hour months: 2.9589
MONTHS_30D = 30 * 24 / 730


def test_gc_rules_set_an_age_and_a_versions_limit():
    assert limits(max_age("90D")) == (90 * 86400, None)
    assert limits(max_versions(3)) == (None, 3)
    assert limits(None) == (None, None)
    # union: garbage when any rule says so, so the tighter of each limit counts
    assert limits(union(max_age("30D"), max_age("90D"), max_versions(2))) == (30 * 86400, 2)
    # intersection: kept while any rule keeps it; a limit counts only if every rule sets it
    assert limits(intersection(max_age("30D"), max_versions(1))) == (None, None)
    assert limits(intersection(max_age("30D"), max_age("90D"))) == (90 * 86400, None)


def _families_cells() -> CellFrame:
    """Family a: 100 rows × 1 cell; b, c, d, e: 10 rows × 3 versions of one column. Every cell is
    15 bytes: a 3-byte key, a 1-byte family and qualifier, 8 timestamp bytes, a 2-byte value."""
    keys, fams, ts = [], [], []
    for i in range(100):
        keys.append(f"r{i:02d}")
        fams.append("a")
        ts.append(T0 + i * 1_000_000)
    for fam in "bcde":
        for i in range(10):
            for v in range(3):
                keys.append(f"r{i:02d}")
                fams.append(fam)
                ts.append(T0 + v * 1_000_000)
    return CellFrame.from_columns(
        row_key=keys, family=fams, qualifier="q", timestamp_us=ts, value=[b"vv"] * len(keys)
    )


@pytest.mark.parametrize("slice_cells", [None, 7])
def test_each_family_is_kept_as_its_gc_rule_says(slice_cells, monkeypatch):
    if slice_cells:  # the index read in slices of whole rows (as at 10M cells): same figures
        monkeypatch.setattr(retention_module, "CHUNK_CELLS", slice_cells)
    idx = CellIndex.build(_families_cells())
    families = {
        "main": (
            Family("a", gc=max_age("90D")),
            Family("b", gc=max_versions(1)),
            Family("c", gc=union(max_age("30D"), max_versions(2))),
            Family("d", gc=intersection(max_age("30D"), max_versions(1))),
            Family("e"),
        )
    }
    cap = capacity(idx, 100, hand_production(1000), families=families)
    per_month = 1000 / 100 * SECONDS_PER_MONTH  # sample bytes → bytes per month at 1,000 ev/s
    expected = {
        "main/a": 100 * 15 * per_month * MONTHS_90D,  # 90 days, every cell
        "main/b": 10 * 15 * per_month * 12,  # 12 months, the newest of 3 versions
        "main/c": 20 * 15 * per_month * MONTHS_30D,  # 30 days, the newest 2 of 3
        "main/d": 30 * 15 * per_month * 12,  # an intersection that keeps new columns for ever
        "main/e": 30 * 15 * per_month * 12,  # no rule
    }
    assert cap.family_stored_bytes == pytest.approx(expected, rel=1e-9)
    assert cap.stored_bytes == pytest.approx(sum(expected.values()), rel=1e-9)
    table = cap.retention_table()
    assert list(table.columns) == [
        "table",
        "family",
        "gc rule",
        "months kept",
        "share of cells kept (versions)",
        "kept (TB, logical)",
    ]
    assert table["table"].tolist() == ["main"] * 5
    assert table["months kept"].tolist() == pytest.approx([MONTHS_90D, 12, MONTHS_30D, 12, 12])
    # the bytes above in decimal TB, as the table's header says
    assert table["kept (TB, logical)"].tolist() == pytest.approx(
        [expected[f"main/{f}"] / 1e12 for f in "abcde"], rel=1e-9
    )
    t = table.set_index("family")
    assert t.loc["a", "gc rule"] == "maxage=90d" and t.loc["e", "gc rule"] == "none"
    assert t.loc["b", "share of cells kept (versions)"] == pytest.approx(1 / 3)
    # no compression given: ratio 1; 5 TB per SSD node at 70 %
    assert cap.storage_nodes == max(1, math.ceil(cap.stored_bytes / 3.5e12))
    # billed in binary GB (Bigtable pricing: "1 GB is 2^30 bytes", a GiB): 116.64e9 + 47.304e9
    # + 7.776e9 + 2 × 141.912e9 = 455.544e9 bytes kept (ratio 1, one cluster) = 424.26 GiB, at
    # $0.17 per GiB-month $72.12 (in 10^9-byte GB it would read 455.54 and $77.44)
    assert sum(expected.values()) == pytest.approx(455.544e9, rel=1e-12)
    assert cap.stored_gib == pytest.approx(455.544e9 / 2**30, rel=1e-9)
    assert cap.stored_gib == pytest.approx(424.258, abs=1e-3)
    assert cap.bill.usd("storage") == pytest.approx(72.124, abs=1e-3)


def test_backups_bill_a_days_dropped_bytes_in_binary_gb():
    idx = CellIndex.build(_families_cells())
    families = {
        "main": (
            Family("a", gc=max_age("90D")),
            Family("b", gc=max_versions(1)),
            Family("c", gc=union(max_age("30D"), max_versions(2))),
            Family("d", gc=intersection(max_age("30D"), max_versions(1))),
            Family("e"),
        )
    }
    st = DEFAULT.replace(backup_retention_days=7.0)
    cap = capacity(idx, 100, hand_production(1000, settings=st), families=families)
    # by hand: at its horizon each family drops a day of what it keeps: the cells kept of a
    # 100-event sample, 100 (a) + 10 (b) + 20 (c) + 30 (d) + 30 (e) = 190 × 15 bytes = 2,850
    # bytes; 1,000 events/s is 10 samples a second, 864,000 a day: 2.4624e9 bytes a day
    assert 190 * 15 * 10 * 86_400 == 2_462_400_000
    # billed in binary GB (pricing: "1 GB is 2^30 bytes"): 2.4624e9 / 2^30 = 2.29329 GiB a day
    assert cap.dropped_gib_per_day == pytest.approx(2_462_400_000 / 2**30, rel=1e-9)
    assert cap.dropped_gib_per_day == pytest.approx(2.29329, abs=1e-5)
    # 7 days of incremental backups hold 16.0530 GiB, under one copy of the table (424 GiB);
    # at the HDD price $0.026 per GiB-month: $0.41738 (in 10^9-byte GB, $0.44816)
    assert cap.backup_gib == pytest.approx(16.0530, abs=1e-4)
    assert cap.bill.usd("backups") == pytest.approx(0.41738, abs=1e-5)
    # 2 clusters, compressed 2:1, backups kept 365 days: a day's drop is 2.4624e9 / 2 bytes
    # (one copy: a backup belongs to one cluster); 365 of them (418.5 GiB) are more than the
    # table holds, so the backups hold one compressed copy, 455.544e9 / 2 bytes = 212.129 GiB
    st2 = DEFAULT.replace(clusters=2, backup_retention_days=365.0)
    two = capacity(idx, 100, hand_production(1000, settings=st2), families=families, compression=2)
    assert two.dropped_gib_per_day == pytest.approx(2_462_400_000 / 2 / 2**30, rel=1e-9)
    assert two.stored_gib == pytest.approx(2 * 455.544e9 / 2 / 2**30, rel=1e-9)
    assert two.backup_gib == pytest.approx(455.544e9 / 2 / 2**30, rel=1e-9)
    assert two.backup_gib == pytest.approx(212.129, abs=1e-3)


@pytest.fixture(scope="module")
def heroic():
    return {
        n: analyze(
            wb.load_dataset("server_metrics", size=n),
            wb.preset("server_metrics", "heroic"),
            workload=wb.Workload(events_per_s=100_000, queries_per_s=0),
        ).capacity
        for n in (30_000, 300_000)
    }


def test_heroic_at_100000_events_is_within_twice_an_experts_count_on_any_sample(heroic):
    # writes alone (no queries stated): the expert's 100,000 ÷ 14,000 ÷ 0.7 ≈ 11 CPU nodes;
    # 11–17 nodes with storage
    for cap in heroic.values():
        assert cap.mutations_per_event == 1.0 and cap.writes_per_s == pytest.approx(100_000)
        assert 11 / 2 <= cap.cpu.nodes <= 17 * 2, cap.cpu
        assert 11 / 2 <= cap.nodes_needed <= 17 * 2
        assert not cap.hotspot_limited
    # the 40-minute sample's warm-up (a busiest node that more nodes do not move) is not
    # extrapolated: ten times the sample gives the same cluster within 10 %
    small, large = heroic[30_000].nodes_needed, heroic[300_000].nodes_needed
    assert abs(small - large) <= 0.1 * max(small, large)


def test_a_salted_design_over_its_ceiling_is_hotspot_limited_with_the_bucket_count_that_serves_it():
    ds = wb.load_dataset("fx_prices")
    cap = analyze(
        ds, wb.preset("fx_prices", "salted"), workload=wb.Workload(events_per_s=100_000)
    ).capacity
    c = cap.ceiling
    # 4 salt buckets: at most 4 × 14,000 × 70 % = 39,200 writes/s of 1 KB rows; the sample's
    # buckets are not exactly even, so the busiest one caps it a little lower
    assert c.kind == "salt bucket" and c.units == 4 and c.fixed
    assert 0.8 * 39_200 <= cap.ceiling_events_per_s <= 1.02 * 39_200
    assert cap.hotspot_limited and cap.bound_by == "hotspot"
    buckets = math.ceil(4 * 100_000 / cap.ceiling_events_per_s)
    # 100,000 ÷ 9,800 per bucket = 10.2: 11 buckets at perfectly even buckets, and here too
    assert buckets == math.ceil(100_000 / 9_800) == 11
    v = cap.verdict()
    assert "Hotspot-limited" in v and c.name and c.name in v
    assert f"Salt(n={buckets})" in v and f"{cap.ceiling_events_per_s:,.0f} events/s" in v
    assert any(re.search(r"fixed: 4 salt", a) for a in cap.assumptions())
    # under the ceiling the same design is sized, not flagged
    ok = analyze(
        ds, wb.preset("fx_prices", "salted"), workload=wb.Workload(events_per_s=20_000)
    ).capacity
    assert not ok.hotspot_limited and ok.fix() == ""


def test_gc_max_age_sizes_bucket_new_cells_on_90_days():
    ds = wb.load_dataset("weather_balloons")
    cap = analyze(
        ds,
        wb.preset("weather_balloons", "bucket_new_cells"),
        workload=wb.Workload(events_per_s=100_000),
    )
    cap = cap.capacity
    (fam,) = cap.families
    assert fam.rule == "maxage=90d" and fam.months == pytest.approx(MONTHS_90D)
    written = cap.bytes_per_event * 100_000 * SECONDS_PER_MONTH  # one month, logical
    assert cap.stored_bytes == pytest.approx(written * MONTHS_90D, rel=1e-9)
    # 12 months would be ~797 TB; 90 days is a quarter of that: ~197 TB
    assert 190e12 < cap.stored_bytes < 205e12
    assert cap.storage_nodes == math.ceil(cap.stored_bytes / cap.compression_ratio / 3.5e12)


def test_designs_are_compared_at_the_same_event_rate():
    ds = wb.load_dataset("game_scores")
    designs = [wb.preset("game_scores", p) for p in ("two_tables", "game_player_time")]
    cmp = compare(ds, designs, workload=wb.Workload(events_per_s=20_000))
    two, one = (cmp.analyses[n].capacity for n in ("two_tables", "game_player_time"))
    # each event is written to two tables: twice the mutations, about twice the bytes kept
    assert two.mutations_per_event == 2.0 and one.mutations_per_event == 1.0
    assert two.writes_per_s == pytest.approx(40_000) and one.writes_per_s == pytest.approx(20_000)
    assert two.events_per_s == pytest.approx(one.events_per_s) == pytest.approx(20_000)
    assert two.stored_gib / one.stored_gib == pytest.approx(2.0, rel=0.1)
    assert list(cmp.table["events_per_s"]) == pytest.approx([20_000, 20_000])
    assert "20,000 events/s (production;" in two.verdict()  # a stated rate, not the sample's
    # the old mutation rate is refused, naming the event rate to state instead (a Workload)
    with pytest.raises(RemovedKeyword, match=r"workload=wb\.Workload\(events_per_s=\.\.\.\)"):
        compare(ds, designs, target_writes_per_s=20_000)
    for bad in ("fast", -1, float("nan")):
        with pytest.raises(WorkbenchError, match="events_per_s .*finite number ≥ 0"):
            analyze(ds, designs[0], workload=wb.Workload(events_per_s=bad))


def test_tiered_storage_splits_storage_and_cost_into_hot_and_cold():
    ds = wb.load_dataset("weather_balloons")
    s = wb.preset("weather_balloons", "single_timestamp")
    flat = analyze(ds, s, workload=wb.Workload(events_per_s=100_000)).capacity
    cap = analyze(ds, s, tiered_after_days=90, workload=wb.Workload(events_per_s=100_000)).capacity
    # the sample spans 6 days, all younger than 90: on the 12-month projection a cell is hot
    # for 90 days (2.96 months) and cold for the other 9.04 months
    cold_share = (12 - MONTHS_90D) / 12
    assert cap.stored_gib == pytest.approx(flat.stored_gib)
    assert cap.cold_gib == pytest.approx(flat.stored_gib * cold_share, rel=1e-9)
    assert cap.hot_gib == pytest.approx(flat.stored_gib * (1 - cold_share), rel=1e-9)
    assert cap.storage_cost_month == pytest.approx(
        cap.hot_gib * DEFAULT.ssd_gb_month_usd + cap.cold_gib * DEFAULT.cold_gb_month_usd
    )
    # hot: 186.7 TB × 0.2466 = 46.0 TB over 3.5 TB; all: 186.7 TB over 32 TB × 70 %
    hot_tb = flat.stored_bytes / flat.compression_ratio * (1 - cold_share) / 1e12
    all_tb = flat.stored_bytes / flat.compression_ratio / 1e12
    assert cap.storage_nodes == max(math.ceil(hot_tb / 3.5), math.ceil(all_tb / 22.4)) == 14
    assert flat.storage_nodes == 54
    # every query reads rows of the last days: hot
    assert set(cap.query_tiers.values()) == {0.0} and cap.cold_read_nodes == 0
    assert any("silently drops tiered_storage_config" in a for a in cap.assumptions())
    assert f"{cold_share:.0%} of the storage" in cap.verdict() and "cold" in cap.verdict()
    assert cap.table().loc["…cold tier, older than 90 days (GiB)", "value"] == cap.cold_gib


def test_queries_of_old_rows_read_from_the_cold_tier_at_its_rate():
    ds = wb.load_dataset("garden_temperature")
    s = wb.preset("garden_temperature", wb.pattern_names("garden_temperature")[0])
    a = analyze(ds, s, tiered_after_days=90, workload=wb.Workload(events_per_s=1000))
    cap = a.capacity
    assert cap.query_tiers["latest_reading"] == 0.0
    cold = {q for q, share in cap.query_tiers.items() if share > 0}
    assert cold, cap.query_tiers  # the dataset's history: months-old rows are cold
    weights = {q.name: q.weight for q in ds.queries}
    per_query = cap.queries_per_s / sum(weights[q] for q in cap.query_tiers)
    expected = sum(
        per_query * weights[q] * len(a.queries.seen_rows[q]) * cap.query_tiers[q] / 100
        for q in cap.query_tiers
    )
    assert cap.cold_read_nodes == pytest.approx(expected)  # 100 rows/s per node in that tier
    assert "hot (SSD)" in cap._repr_html_() and "cold (infrequent access)" in cap._repr_html_()


def test_tiering_and_editions_refuse_what_bigtable_refuses():
    with pytest.raises(WorkbenchError, match="at least 30 days"):
        DEFAULT.replace(tiered_after_days=7)
    with pytest.raises(WorkbenchError, match="SSD"):
        DEFAULT.replace(tiered_after_days=90, storage="HDD")
    with pytest.raises(WorkbenchError, match="enterprise-plus"):
        DEFAULT.replace(in_memory_tier=True)
    with pytest.raises(WorkbenchError, match="routing must be"):
        DEFAULT.replace(routing="nearest")
    # Enterprise Plus' in-memory tier: 40,000 reads/s per node, writes 10,000
    plus = DEFAULT.replace(edition="enterprise-plus", in_memory_tier=True)
    assert plus.node_rates()[:2] == (40_000, 10_000)


def test_small_rates_read_as_numbers():
    ds = wb.load_dataset("garden_temperature", freq="1h")
    s = wb.preset("garden_temperature", wb.pattern_names("garden_temperature")[0])
    cap = analyze(ds, s).capacity
    assert cap.events_per_s < 0.01  # one reading an hour in each of a few gardens
    text = cap.verdict() + re.sub(r"data:[^\"']*", "", cap._repr_html_())  # not the images
    text += cap.view().to_html()
    assert "e-0" not in text and "e+0" not in text
    # 0.00333 events/s is 12 an hour: the rate reads in the first unit it reaches 1 in, and
    # says it is the sample's own (no production rate was given)
    assert "12.0 events/h" in cap.rate_text() and "sample's own" in cap.rate_text()


def test_a_row_every_query_reads_caps_the_query_rate():
    idx = CellIndex.build(_families_cells())
    # one query reads one row and costs 10 ms of a node per run: at 100 queries/s that row
    # alone needs 0.01 × 100 = 1.0 node of CPU, so at 70 % it serves 70 queries/s, at any
    # node count (a row cannot split)
    hot = hand_production(1, queries_per_s=100, read_cpu=1.0, busiest_row_cpu=1.0, read_query="one")
    cap = capacity(idx, 100, hot)
    assert cap.query_ceiling_per_s == pytest.approx(70.0)
    assert cap.hotspot_limited and not cap.write_limited and cap.read_row == "one"
    assert "at 70.0 queries/s" in cap.verdict() and "(G05)" in cap.verdict()
    # at 50 queries/s the row needs 0.5 of a node: served. CPU 0.5 + 1 / 14,000 (the writes)
    # at 70 % is 0.714 of a node: one node
    calm = hand_production(1, queries_per_s=50, read_cpu=0.5, busiest_row_cpu=0.5, read_query="one")
    assert not capacity(idx, 100, calm).hotspot_limited
    assert capacity(idx, 100, calm).nodes_needed == 1


def test_nodes_spread_the_peak_evenly_and_pack_units_that_cannot_split_whole():
    idx = CellIndex.build(_families_cells())
    # 100,000 events/s, each one 1 KB planning row: 100,000 / 14,000 = 7.143 nodes of write
    # CPU; spread evenly at 70 %: ceil(7.143 / 0.7) = ceil(10.20) = 11 nodes
    even = capacity(idx, 100, hand_production(100_000))
    assert even.write_cpu == pytest.approx(100_000 / 14_000)
    assert even.cpu.nodes == even.nodes_fair == 11 and not even.hotspot_limited
    # 20 salt buckets over 1,000 uniform series: each bucket 1/20 of the writes, 0.357 nodes;
    # two on one node would be 0.714 > 0.7, so one bucket per node: 20 nodes, not 11
    salted = hand_production(
        100_000, unit_kind="salt bucket", units=20, unit_share=0.05, series=1000
    )
    cap = capacity(idx, 100, salted)
    assert cap.cpu.nodes == 20 and cap.nodes_fair == 11 and not cap.hotspot_limited
    assert cap.cpu.busiest_cpu == pytest.approx(100_000 / 14_000 / 20)
    # 4 buckets: each 1/4 of the writes, 1.786 nodes, over one node's 70 %: no node count
    # serves it. Ceiling: 0.7 × 14,000 / (1/4) = 39,200 events/s; the fix, ceil(4 × 100,000 /
    # 39,200) = 11 buckets; the node count stays the even 11
    four = hand_production(100_000, unit_kind="salt bucket", units=4, unit_share=0.25, series=1000)
    cap = capacity(idx, 100, four)
    assert cap.hotspot_limited and cap.bound_by == "hotspot" and cap.cpu.nodes == 11
    assert cap.ceiling_events_per_s == pytest.approx(39_200)
    assert "Salt(n=11)" in cap.verdict()


def test_each_unsplittable_unit_gets_its_own_fix():
    idx = CellIndex.build(_families_cells())

    def fix(events_per_s: float, kind: str, units: int, share: float) -> str:
        p = hand_production(
            events_per_s, unit_kind=kind, units=units, unit_share=share, series=1000
        )
        cap = capacity(idx, 100, p)
        assert cap.hotspot_limited and cap.write_limited
        return cap.fix()

    # a salt bucket takes 0.7 × 14,000 = 9,800 events/s; 4 buckets, 39,200. At 40,000: 4 ×
    # 40,000 / 39,200 = 4.08, so 5 buckets (one more than there are, not two)
    assert fix(40_000, "salt bucket", 4, 0.25) == "5 salt buckets (Salt(n=5)) would serve it (G08)"
    # at exactly twice the ceiling, 78,400: 4 × 2 = 8 buckets serve it, not 9
    assert fix(78_400, "salt bucket", 4, 0.25).startswith("8 salt buckets (Salt(n=8))")
    # a write frontier of 2 busy values: 19,600 events/s; 100,000 needs 2 × 100,000 / 19,600 =
    # 10.2, so 11 values ahead of the timestamp, or 11 salt buckets
    assert fix(100_000, "write frontier", 2, 0.5) == (
        "put a field with at least 11 busy values ahead of the timestamp (G07), or salt the "
        "key into at least 11 buckets (G08)"
    )
    # one row takes every write: no count of anything fixes it, new rows do
    assert fix(20_000, "hot row", 1, 1.0) == (
        "spread this row's writes over new rows, e.g. a time bucket in the key (G09, G16)"
    )
    # the busiest entity (series): split it, or say production adds series (G08)
    entity = fix(100_000, "per series", 1, 0.5)
    assert "the busiest entity takes " in entity
    assert "split it with a field after it or a salt (G08)" in entity
    assert entity.endswith("state growth='grow' or the series count (wb.Workload)")
    # a row every query reads: the fix is for its reads (G05)
    hot = hand_production(1, queries_per_s=100, read_cpu=1.0, busiest_row_cpu=1.0, read_query="one")
    assert capacity(idx, 100, hot).fix() == (
        "serve that row's reads from a cache or a copy per reader, or split what it holds over "
        "rows (G05)"
    )


def test_shown_rows_carry_their_unit_in_the_value_and_say_when_they_price_a_fix():
    idx = CellIndex.build(_families_cells())
    # no GC rules: every family keeps 12 months at 100,000 events/s, 1,000 samples a second:
    # (100 + 4 × 30) cells × 15 B × 1,000 × 730 h × 3,600 s × 12 = 104.0688e12 bytes, 104.1 TB
    # on ceil(104.0688 / 3.5) = 30 SSD nodes (more than the 11 of CPU)
    even = capacity(idx, 100, hand_production(100_000))
    assert even.stored_bytes == pytest.approx(220 * 15 * 1000 * 730 * 3600 * 12)
    shown = even.shown_table(["nodes in total", "billed storage (GiB compressed, 1 cluster(s))"])
    assert shown.index.tolist() == ["nodes in total", "billed storage (compressed, 1 cluster(s))"]
    assert shown["value"].tolist() == ["30", "104.1 TB"]
    # 4 salt buckets at 100,000 events/s: hotspot-limited, so the node count is the fix's
    four = hand_production(100_000, unit_kind="salt bucket", units=4, unit_share=0.25, series=1000)
    cost = f"node cost per month (USD, prices of {DEFAULT.prices_date})"
    fixed = capacity(idx, 100, four).shown_table(["nodes in total", cost])
    assert fixed.index.tolist() == [
        "nodes in total once the hotspot is fixed",
        f"node cost per month once the hotspot is fixed (prices of {DEFAULT.prices_date})",
    ]


def test_the_capacity_table_names_each_figure_and_derives_it_by_hand():
    idx = CellIndex.build(_families_cells())
    two = DEFAULT.replace(clusters=2)
    cap = capacity(idx, 100, hand_production(1000, settings=two))
    t = cap.table()["value"]
    date = DEFAULT.prices_date
    assert t.index.tolist() == [
        "bytes per event",
        "…with 1-byte family/qualifier names (G01)",
        "names share of bytes",
        "events per second (production)",
        "mutations per event (this design)",
        "writes per second (production)",
        "queries per second (production)",
        "CPU of writes (nodes)",
        "CPU of reads (nodes)",
        "CPU at the peak (nodes, reads + writes)",
        "ceiling (events/s, busiest unit at 70% CPU)",
        "ceiling (queries/s, most-read row)",
        "busiest node CPU at 1 node",
        "hotspot factor (busiest node ÷ fair)",
        "nodes for CPU (busiest ≤ 70%)",
        "growth per month (GB, logical)",
        "kept under the GC rules, ≤ 12 months (TB, logical)",
        "compression (snappy, measured on the cells)",
        "kept, compressed (TB, one cluster)",
        "nodes for storage (5 TB per SSD node at 70%)",
        "billed storage (GiB compressed, 2 cluster(s))",
        "nodes per cluster",
        "clusters (replication)",
        "nodes in total",
        "replication traffic (GiB per month)",
        f"node cost per month (USD, prices of {date})",
        f"storage cost per month (USD, prices of {date})",
        "replication network, backups, Data Boost per month (USD)",
        "total per month (USD)",
    ]
    # by hand: 220 cells of 15 bytes per 100 events = 33 bytes an event, of which the 1-byte
    # family and qualifier are 2 / 15; 1,000 events/s, one mutation each = 1,000 / 14,000 nodes
    assert t["bytes per event"] == 33 and t["…with 1-byte family/qualifier names (G01)"] == 33
    assert t["names share of bytes"] == pytest.approx(2 / 15)
    assert t["mutations per event (this design)"] == 1.0
    assert t["CPU of writes (nodes)"] == pytest.approx(1 / 14)
    assert t["CPU of reads (nodes)"] == 0 and t["ceiling (queries/s, most-read row)"] == math.inf
    assert t["CPU at the peak (nodes, reads + writes)"] == pytest.approx(1 / 14)
    assert t["hotspot factor (busiest node ÷ fair)"] == 1.0
    # 33 B × 1,000/s × 730 h × 3,600 s = 86.724e9 bytes a month; 12 months, 1.040688e12
    assert t["growth per month (GB, logical)"] == pytest.approx(86.724)
    assert t["kept under the GC rules, ≤ 12 months (TB, logical)"] == pytest.approx(1.040688)
    assert t["kept, compressed (TB, one cluster)"] == pytest.approx(1.040688)
    assert t["clusters (replication)"] == 2
    # one node per cluster (the minimum), two in all: 2 × 730 h × $0.65 = $949; each cluster
    # stores its copy: 2 × 1.040688e12 / 2^30 GiB × $0.17
    assert t["nodes per cluster"] == 1 and t["nodes in total"] == 2
    assert t[f"node cost per month (USD, prices of {date})"] == pytest.approx(949.0)
    assert t[f"storage cost per month (USD, prices of {date})"] == pytest.approx(
        2 * 1.040688e12 / 2**30 * 0.17
    )
    # the month's 86.724e9 bytes copied once to the other cluster: 80.768 GiB × $0.02
    assert t["replication network, backups, Data Boost per month (USD)"] == pytest.approx(
        86.724e9 / 2**30 * 0.02
    )
    # tiered after 30 days: 30 days of writes stay hot, 30 × 86,400 s × 33 kB/s = 85.536e9
    # bytes (79.662 GiB) on each of 2 clusters; no query reads cold rows, so no CPU for them
    tiered_st = DEFAULT.replace(tiered_after_days=30, clusters=2)
    tiered = capacity(idx, 100, hand_production(1000, settings=tiered_st))
    cold = tiered.table()["value"]
    assert cold["…hot tier, SSD (GiB)"] == pytest.approx(2 * 30 * 86_400 * 33_000 / 2**30)
    assert cold["…cold tier, older than 30 days (GiB)"] == pytest.approx(
        2 * (1.040688e12 - 30 * 86_400 * 33_000) / 2**30
    )
    assert cold["CPU of cold-tier reads (nodes)"] == 0.0
    # the rate as a line: events, then mutations per second and per event
    assert cap.rate_text() == "1,000 events/s (production; 1,000 mutations/s, 1.00 per event)"
    # what the figures assume: the routing, then a second cluster's traffic; autoscaling and
    # tiers said when set (the cold tier's 36e6 bytes/s scans as 36 MB/s)
    said = cap.assumptions()
    assert said[0].endswith("; 2 clusters, single-cluster routing")
    assert said[-1].startswith("replication: every cluster applies every write; 81 GiB/month")
    one = capacity(idx, 100, hand_production(1000)).assumptions()
    assert not any(a.startswith("replication") for a in one)
    auto = capacity(
        idx,
        100,
        hand_production(1000, settings=DEFAULT.replace(autoscaling=True, tiered_after_days=30)),
    ).assumptions()
    assert auto[0].endswith("; 1 cluster, single-cluster routing, autoscaling")
    assert auto[-1].endswith(
        "36 MB/s scans per node; the emulator cannot run tiers (it silently drops "
        "tiered_storage_config): modelled"
    )


def test_the_verdict_says_what_bounds_the_design_in_one_line():
    idx = CellIndex.build(_families_cells())
    # a row every query reads, 10 ms each: at 70 % of a node it serves 70 queries/s, not 100
    hot = hand_production(1, queries_per_s=100, read_cpu=1.0, busiest_row_cpu=1.0, read_query="one")
    assert capacity(idx, 100, hot).verdict() == (
        "Hotspot-limited at 100 queries/s: the rows query 'one' reads are the most read and "
        "cannot split, so reads stop scaling at 70.0 queries/s (70% CPU), whatever the node "
        "count; fix: serve that row's reads from a cache or a copy per reader, or split what it "
        "holds over rows (G05)"
    )
    # 4 salt buckets, each 25 % of the writes: 39,200 events/s at most
    four = hand_production(100_000, unit_kind="salt bucket", units=4, unit_share=0.25, series=1000)
    assert capacity(idx, 100, four).verdict() == (
        "Hotspot-limited at 100,000 events/s (production; 100,000 mutations/s, 1.00 per event): "
        "salt bucket BATTERY# takes 25% of the writes, so this design stops scaling at 39,200 "
        "events/s (70% CPU), whatever the node count; fix: 11 salt buckets (Salt(n=11)) would "
        "serve it (G08)"
    )
    # neither limited nor tiered: one node, 730 h × $0.65 = $474.50, and 1.040688e12 bytes
    # (969.2 GiB) × $0.17 = $164.77: $639
    assert 474.5 + 1.040688e12 / 2**30 * 0.17 == pytest.approx(639.27, abs=0.01)
    assert capacity(idx, 100, hand_production(1000)).verdict() == (
        "33 B per event, 1 SSD node (the 1-node minimum) at 1,000 events/s (production; "
        f"1,000 mutations/s, 1.00 per event), ≈ $639 per month (prices of {DEFAULT.prices_date})"
    )
    # tiered after 30 days: 85.536e9 of 1.040688e12 bytes hot, so 91.8 % cold; the bill: one
    # node 730 h × $0.65 = $474.50, 79.66 GiB SSD × $0.17 = $13.54, 889.55 GiB cold × $0.026
    # = $23.13: $511
    st = DEFAULT.replace(tiered_after_days=30)
    assert 1 - 85.536e9 / 1.040688e12 == pytest.approx(0.9178, abs=1e-4)
    assert 474.5 + 79.6616 * 0.17 + 889.5546 * 0.026 == pytest.approx(511.17, abs=0.01)
    assert capacity(idx, 100, hand_production(1000, settings=st)).verdict() == (
        "33 B per event, 1 SSD node (the 1-node minimum) at 1,000 events/s (production; "
        "1,000 mutations/s, 1.00 per event), 92% of the storage cold (after 30 days; modelled: "
        f"the emulator cannot run tiers), ≈ $511 per month (prices of {DEFAULT.prices_date})"
    )


def test_capacity_steps_on_hand_made_figures():
    """Each step of the capacity model on its own (hand-derived)."""
    from dataclasses import replace

    from workbench.analysis.capacity import bytes_by_part, short_names_total, storage_nodes_needed

    # SSD: 5 TB per node filled to 70 % → 3.5e12 bytes each; 7e12 hot bytes need exactly 2
    assert storage_nodes_needed(7e12, 0.0, DEFAULT) == 2
    assert storage_nodes_needed(7e12 + 1e9, 0.0, DEFAULT) == 3
    assert storage_nodes_needed(0.0, 0.0, DEFAULT) == DEFAULT.min_nodes
    # tiered (Enterprise): hot at 3.5e12 per node, hot + cold at 32 TB · 0.7 = 22.4e12 per node
    tiered = replace(DEFAULT, tiered_after_days=90)
    assert storage_nodes_needed(1e12, 60e12, tiered) == math.ceil(61e12 / 22.4e12)  # 3
    plus = replace(tiered, edition="enterprise-plus")  # 64 TB: 44.8e12 per node
    assert storage_nodes_needed(1e12, 60e12, plus) == 2
    # two cells: key "ab" (2 B) each, family "cf" (2 B), qualifiers "x" and "yy", values 3 and 1 B
    cells = CellFrame.from_columns(
        table=["main", "main"],
        row_key=["ab", "ab"],
        family=["cf", "cf"],
        qualifier=["x", "yy"],
        timestamp_us=[T0, T0],
        value=[b"abc", b"d"],
    )
    idx = CellIndex.build(cells)
    parts = bytes_by_part(idx)
    assert parts == {"row key": 4, "family": 4, "qualifier": 3, "timestamp": 16, "value": 4}
    no_cells = CellFrame.from_columns(
        row_key=[], family=[], qualifier=[], timestamp_us=[], value=[]
    )
    assert set(bytes_by_part(CellIndex.build(no_cells)).values()) == {0}  # nothing stored
    # one-byte names: family 2 B, qualifiers 2 B (two distinct: name-like) → 31 - 7 + 4 = 28
    assert short_names_total(idx, parts, 1) == 28


def test_a_count_of_one_node_or_cluster_reads_in_the_singular():
    """02's capacity table said "busiest node CPU at 1 nodes" and its verdict "1 SSD node(s)";
    the figure's title "1 node(s) per cluster × 1 cluster(s)". A count of one is singular, more
    is plural, in every line that states the node count."""
    from workbench.plots.capacity import plot_node_need

    ds = wb.load_dataset("game_scores")
    one = analyze(ds, wb.preset("game_scores", "game_player_time")).capacity
    # the sample's own rate (4.17 events/h) needs no more than the 1-node minimum
    assert one.nodes_needed == 1 and one.cpu.nodes == 1 and one.clusters == 1
    assert "1 SSD node (" in one.verdict() and "node(s)" not in one.verdict()
    assert "busiest node CPU at 1 node" in one.table().index
    assert "1 cluster," in " ".join(one.assumptions())
    ax = plot_node_need(one)
    assert ax.get_title("left").startswith("1 node per cluster × 1 cluster:"), ax.get_title("left")
    # 50,000 events/s is past one node's writes and under the busiest unit's ceiling: plural
    many = analyze(
        ds, wb.preset("game_scores", "game_player_time"),
        workload=wb.Workload(events_per_s=50_000),
    ).capacity  # fmt: skip
    assert many.nodes_needed > 1
    assert f"{many.nodes_needed:,} SSD nodes (" in many.verdict()
    assert f"busiest node CPU at {many.cpu.nodes:,} nodes" in many.table().index
