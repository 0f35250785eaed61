"""The bill as line items (analysis/pricing.py), each derived by hand from the unit prices in
settings: nodes by edition (Enterprise Plus and its in-memory tier at the Enterprise Plus
price), storage, replication network (intra- vs inter-region), backups and Data Boost; and
the CPU target for three or more clusters, stated as an assumption."""

from __future__ import annotations

import pytest

import workbench as wb
from workbench.analysis import analyze
from workbench.analysis.pricing import PRICE_SOURCES, monthly_bill
from workbench.analysis.settings import DEFAULT, Settings

H = 730.0  # hours in a billed month (settings.hours_per_month)


def test_an_enterprise_bill_is_nodes_and_storage():
    bill = monthly_bill(3, hot_gib=100.0)
    # by hand: 3 nodes × 730 h × $0.65 = $1,423.50; 100 GiB × $0.17 = $17.00
    assert [line.item for line in bill.lines] == ["nodes (Enterprise, SSD)", "storage (SSD)"]
    assert bill.usd("nodes") == pytest.approx(1423.50)
    assert bill.usd("storage") == pytest.approx(17.00)
    assert bill.total == pytest.approx(1440.50)
    assert bill.prices_date == DEFAULT.prices_date
    assert "1,440" in bill.text() and DEFAULT.prices_date in bill.text()


def test_enterprise_plus_nodes_and_the_in_memory_tier_are_priced_as_enterprise_plus():
    # the case: the in-memory tier's 36 nodes were billed at $0.65 (Enterprise)
    plus = Settings(edition="enterprise-plus", in_memory_tier=True)
    bill = monthly_bill(36, hot_gib=0.0, settings=plus)
    # by hand: 36 × 730 h × $0.845 = $22,206.60 (not 36 × 730 × $0.65 = $17,082)
    assert bill.usd("nodes") == pytest.approx(22_206.60)
    assert bill.lines[0].item == "nodes (Enterprise Plus (in-memory tier), SSD)"
    assert "assumption" in bill.lines[0].source  # the stored page has no figure for it
    # a user's own price for their region replaces the assumption
    own = plus.replace(enterprise_plus_node_hour_usd=1.0)
    assert monthly_bill(36, hot_gib=0.0, settings=own).usd("nodes") == pytest.approx(36 * H)


def test_replication_network_is_priced_by_where_the_clusters_are():
    # the case: 49,403 GiB/month copied between 2 clusters was not priced
    two = Settings(clusters=2)
    inter = monthly_bill(6, hot_gib=0.0, replication_gib=49_403.0, settings=two)
    intra = monthly_bill(
        6,
        hot_gib=0.0,
        replication_gib=49_403.0,
        settings=two.replace(replication_network="intra-region"),
    )
    # by hand: 49,403 GiB × $0.02 = $988.06 between regions; × $0.01 = $494.03 within one
    assert inter.usd("replication network") == pytest.approx(988.06)
    assert intra.usd("replication network") == pytest.approx(494.03)
    assert inter.total - intra.total == pytest.approx(494.03)
    # one cluster copies nothing: no network line
    assert not [x for x in monthly_bill(3, hot_gib=1.0).lines if "network" in x.item]


def test_backups_cold_tier_and_data_boost_are_optional_lines():
    st = Settings(clusters=2, backup_retention_days=7.0)
    bill = monthly_bill(
        4,
        hot_gib=200.0,
        cold_gib=50.0,
        replication_gib=0.0,
        backup_gib=35.0,
        data_boost_spu_hours=1000.0,
        settings=st,
    )
    items = [line.item for line in bill.lines]
    assert items == [
        "nodes (Enterprise, SSD)",
        "storage (SSD)",
        "storage (infrequent-access tier)",
        "backups (incremental, kept 7 days)",
        "Data Boost",
    ]
    # by hand: backups hold 35 GiB the table no longer shares: 35 × $0.026 = $0.91; cold
    # 50 GiB × $0.026 = $1.30; 1,000 SPU-h × $0.000845 = $0.845
    assert bill.usd("backups") == pytest.approx(0.91)
    assert bill.usd("storage (infrequent") == pytest.approx(1.30)
    assert bill.usd("Data Boost") == pytest.approx(0.845)
    # nodes 4 × 730 × 0.65 = 1,898; SSD 200 × 0.17 = 34
    assert bill.total == pytest.approx(1898.0 + 34.0 + 1.30 + 0.91 + 0.845)
    frame = bill.frame()
    assert list(frame["USD per month"].round(3)) == [1898.0, 34.0, 1.3, 0.91, 0.845]
    # no retention stated: backups are not on the bill, whatever the quantity
    assert "backups" not in str(monthly_bill(4, hot_gib=1.0, backup_gib=35.0).frame())


def test_every_price_setting_has_a_source_and_hdd_uses_its_own_price():
    prices = {f for f in Settings.__dataclass_fields__ if f.endswith("_usd")}
    assert prices == set(PRICE_SOURCES)
    hdd = monthly_bill(1, hot_gib=1000.0, settings=Settings(storage="HDD"))
    assert hdd.usd("storage") == pytest.approx(26.0)  # 1,000 GiB × $0.026


@pytest.mark.parametrize(
    ("clusters", "routing", "autoscaling", "target"),
    [
        (1, "multi-cluster", False, 0.70),
        (2, "single-cluster", False, 0.70),
        (2, "multi-cluster", True, 0.70),
        (2, "multi-cluster", False, 0.35),  # documented (Monitoring)
        (3, "multi-cluster", False, 0.70 * 2 / 3),  # assumption: N−1 clusters absorb one
        (4, "multi-cluster", False, 0.70 * 3 / 4),
    ],
)
def test_three_or_more_clusters_get_their_own_stated_target(clusters, routing, autoscaling, target):
    st = Settings(clusters=clusters, routing=routing, autoscaling=autoscaling)
    assert st.replication_cpu_target == pytest.approx(target)
    says_assumption = "assumption" in st.cpu_target_source
    assert says_assumption == (clusters >= 3 and routing == "multi-cluster" and not autoscaling)


def test_capacity_totals_the_bill_lines():
    ds = wb.load_dataset("garden_temperature", size="small")
    schema = wb.preset("garden_temperature", wb.pattern_names("garden_temperature")[0])
    st = Settings(clusters=2, edition="enterprise-plus")
    cap = analyze(ds, schema, settings=st, workload=wb.Workload(events_per_s=1000.0)).capacity
    # by hand from the capacity's own quantities and the unit prices
    nodes = cap.nodes_needed * H * 0.845
    storage = cap.stored_gib * 0.17
    network = cap.replication_gib_month * 0.02
    assert cap.replication_gib_month > 0
    assert cap.node_cost_month == pytest.approx(nodes)
    assert cap.storage_cost_month == pytest.approx(storage)
    assert cap.monthly_cost == pytest.approx(nodes + storage + network)
    assert "inter-region network" in " ".join(cap.assumptions())
    # three clusters, multi-cluster routing, no autoscaling: 70 % × 2/3, said to be assumed
    three = analyze(
        ds,
        schema,
        settings=Settings(clusters=3, routing="multi-cluster"),
        workload=wb.Workload(events_per_s=1000.0),
    ).capacity
    assert three.cpu_target == pytest.approx(0.70 * 2 / 3)
    assert "46.7%: assumption for 3 clusters" in three.assumptions()[0]
    # each cluster's writes cross to the two others: twice the 2-cluster traffic
    assert three.replication_gib_month == pytest.approx(2 * cap.replication_gib_month)


def test_storage_and_network_are_billed_in_binary_gigabytes_of_the_printed_bytes():
    """Bigtable pricing: "Storage and bandwidth usage are measured in binary gigabytes (GB),
    where 1 GB is 2^30 bytes" (a GiB). The capacity table prints the bytes in decimal units
    (TB, GB); each bill line is derived here from those printed figures: bytes ÷ 2^30 × price.
    A decimal GB (10^9 bytes) would bill 2^30 / 10^9 = 1.0737 × as much."""
    ds = wb.load_dataset("garden_temperature", size="small")
    schema = wb.preset("garden_temperature", wb.pattern_names("garden_temperature")[0])
    cap = analyze(
        ds, schema, settings=Settings(clusters=2), workload=wb.Workload(events_per_s=1000.0)
    ).capacity
    printed = cap.table()["value"]
    kept = printed["kept, compressed (TB, one cluster)"] * 1e12  # bytes, one cluster's copy
    month = printed["growth per month (GB, logical)"] * 1e9  # bytes written in a month
    assert kept > 2**30 and month > 2**30  # enough bytes that the unit shows
    gib = 2 * kept / 2**30  # each of the 2 clusters stores its copy
    assert printed["billed storage (GiB compressed, 2 cluster(s))"] == pytest.approx(gib)
    assert cap.bill.usd("storage") == pytest.approx(gib * 0.17)  # $ per GiB-month, SSD
    # 2 clusters: each write crosses to the one other cluster once, billed per GiB
    assert printed["replication traffic (GiB per month)"] == pytest.approx(month / 2**30)
    assert cap.bill.usd("replication network") == pytest.approx(month / 2**30 * 0.02)


def test_the_bill_reads_as_a_table_and_as_lines():
    bill = monthly_bill(3, hot_gib=100.0)
    # the table a notebook shows: one row per line, its inputs and its price's source
    frame = bill.frame()
    assert list(frame.columns) == [
        "item",
        "quantity",
        "unit",
        "unit price (USD)",
        "USD per month",
        "source",
    ]
    # by hand: 3 nodes × 730 h = 2,190 node-hours at $0.65 = $1,423.50
    assert frame.iloc[0].to_dict() == {
        "item": "nodes (Enterprise, SSD)",
        "quantity": 3 * H,
        "unit": "node-hours",
        "unit price (USD)": 0.65,
        "USD per month": pytest.approx(1423.5),
        "source": PRICE_SOURCES["node_hour_usd"],
    }
    assert frame["unit"].tolist() == ["node-hours", "GiB-months"]
    # the text: one line per item, then the total ($1,440.50, shown whole) and the prices' date
    assert bill.text().splitlines() == [
        "nodes (Enterprise, SSD): 2,190.0 node-hours × $0.65 = $1,424",
        "storage (SSD): 100.0 GiB-months × $0.17 = $17",
        f"total ≈ $1,440 per month (prices of {DEFAULT.prices_date})",
    ]


def test_enterprise_plus_without_the_in_memory_tier_is_named_so():
    st = Settings(edition="enterprise-plus")
    assert monthly_bill(2, hot_gib=0.0, settings=st).lines[0].item == (
        "nodes (Enterprise Plus, SSD)"
    )


def test_only_the_quantities_given_add_lines():
    # two clusters and kept backups make a network and a backups line possible, but nothing
    # was copied, held, tiered or sent to Data Boost: nodes and storage alone
    st = Settings(clusters=2, backup_retention_days=7.0)
    bill = monthly_bill(1, hot_gib=1.0, settings=st)
    assert [line.item for line in bill.lines] == ["nodes (Enterprise, SSD)", "storage (SSD)"]
    # by hand: 1 node × 730 h × $0.65 + 1 GiB × $0.17
    assert bill.total == pytest.approx(474.5 + 0.17)


def test_every_line_has_its_unit_price_and_source_even_for_fractions():
    # every optional line at once, each quantity under one unit, and one in-memory increment
    # past the included one (a price set for it: the stored page has none)
    st = Settings(
        clusters=2,
        edition="enterprise-plus",
        in_memory_tier=True,
        in_memory_increments=2,
        in_memory_increment_node_hour_usd=0.1,
        backup_retention_days=0.5,
    )
    bill = monthly_bill(
        2,
        hot_gib=10.0,
        cold_gib=0.5,
        replication_gib=0.5,
        backup_gib=0.5,
        data_boost_spu_hours=0.5,
        settings=st,
    )
    rows = bill.frame().drop(columns="USD per month").to_dict("records")
    src = PRICE_SOURCES
    assert rows == [
        {
            "item": "nodes (Enterprise Plus (in-memory tier), SSD)",
            "quantity": 2 * H,
            "unit": "node-hours",
            "unit price (USD)": 0.845,
            "source": src["enterprise_plus_node_hour_usd"],
        },
        {
            "item": "storage (SSD)",
            "quantity": 10.0,
            "unit": "GiB-months",
            "unit price (USD)": 0.17,
            "source": src["ssd_gb_month_usd"],
        },
        {
            "item": "storage (infrequent-access tier)",
            "quantity": 0.5,
            "unit": "GiB-months",
            "unit price (USD)": 0.026,
            "source": src["cold_gb_month_usd"],
        },
        {
            "item": "replication network (inter-region, 2 clusters)",
            "quantity": 0.5,
            "unit": "GiB",
            "unit price (USD)": 0.02,
            "source": src["inter_region_replication_gib_usd"],
        },
        {
            "item": "in-memory increments (1 past the included one, 40,000 reads/s each)",
            "quantity": 1 * 2 * H,  # 1 increment × 2 nodes × 730 h
            "unit": "increment node-hours",
            "unit price (USD)": 0.1,
            "source": src["in_memory_increment_node_hour_usd"],
        },
        {
            "item": "backups (incremental, kept 0.5 days)",
            "quantity": 0.5,
            "unit": "GiB-months",
            "unit price (USD)": 0.026,
            "source": src["backup_gb_month_usd"],
        },
        {
            "item": "Data Boost",
            "quantity": 0.5,
            "unit": "SPU-hours",
            "unit price (USD)": 0.000845,
            "source": src["data_boost_spu_hour_usd"],
        },
    ]
    # by hand: 1,460 × 0.845 + 10 × 0.17 + 0.5 × (0.026 + 0.02 + 0.026 + 0.000845) + 1,460 × 0.1
    assert bill.total == pytest.approx(1233.7 + 1.7 + 0.5 * 0.072845 + 146.0)


def test_in_memory_increments_are_billed_past_the_included_one_only():
    def increments(**kw: object) -> list[float]:
        st = Settings(edition="enterprise-plus", in_memory_increment_node_hour_usd=0.1, **kw)
        bill = monthly_bill(3, hot_gib=0.0, settings=st)
        return [line.quantity for line in bill.lines if line.item.startswith("in-memory")]

    # by hand: 3 increments is 2 past the included one: 2 × 3 nodes × 730 h = 4,380
    assert increments(in_memory_tier=True, in_memory_increments=3) == [2 * 3 * H]
    # the included one alone, or no in-memory tier: no line, though a price is set
    assert increments(in_memory_tier=True, in_memory_increments=1) == []
    assert increments(in_memory_tier=False) == []
