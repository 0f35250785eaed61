"""The production sheet (issue #48's done-when): for every built-in dataset × every preset at a
stated workload, each printed line's formula is recomputed by hand from the line's own inputs
and equals the printed value; the sheet's figures are the analysis's (one number); and
hand-derived tests pin the hottest-node target, the autoscaling recommendation, Data Boost's
SPU-hours, the incremental backup bill and the in-memory tier's increments, each from the
documented figures (G04, G06, G08, G11)."""

from __future__ import annotations

import math
import re

import pytest

import workbench as wb
from workbench.analysis.settings import DEFAULT
from workbench.analysis.sheet import ProductionSheet, SheetLine, autoscaling_recommendation
from workbench.datasets.registry import dataset_names

SOURCES = ("yours", "default", "Google: ", "measured: ", "line: ")
BACKUP_DAYS = 7.0
SETTINGS = DEFAULT.replace(backup_retention_days=BACKUP_DAYS)


def _workload(ds: wb.Dataset, events_per_s: float = 20_000) -> wb.Workload:
    """20,000 events/s (or ``events_per_s``) at a 2× peak over 12 months; the first query
    stated at 36 runs/h, the last one sent to Data Boost once an hour; the others' rates not
    stated."""
    first, last = ds.queries[0].name, ds.queries[-1].name
    return wb.Workload(
        events_per_s=events_per_s,
        peak_factor=2.0,
        retention_months=12,
        queries={
            first: wb.QueryLoad(per_s=0.01),
            last: wb.QueryLoad(per_s=1 / 3600, data_boost=True),
        },
    )


# two stated workloads: at 20,000 events/s several designs are hotspot-limited (no price, the
# fix named); at 2,000 the salted and time-first ones pack their unsplittable units whole
RATES = (20_000, 2_000)
CASES = [
    (name, pattern, r)
    for name in dataset_names()
    for pattern in wb.pattern_names(name)
    for r in RATES
]
_CACHE: dict[tuple[str, str, float], tuple[ProductionSheet, wb.analysis.Analysis]] = {}


def _sheet(
    name: str, pattern: str, events_per_s: float = 20_000
) -> tuple[ProductionSheet, wb.analysis.Analysis]:
    """One analysis and its sheet per preset and rate, shared by the tests of this module."""
    key = (name, pattern, events_per_s)
    if key not in _CACHE:
        ds = wb.load_dataset(name, size="tiny")
        schema = wb.preset(ds, pattern)
        cells = schema.to_cells(ds, accept_loss=True)  # second_precision collides on purpose
        wl = _workload(ds, events_per_s)
        a = wb.analyze(ds, schema, workload=wl, settings=SETTINGS, cells=cells)
        _CACHE[key] = (wb.production_sheet(ds, schema, wl, analysis=a), a)
    return _CACHE[key]


def _v(line: SheetLine, name: str) -> float:
    return float(line.inputs[name][0])


def _by_hand(line: SheetLine, sheet: ProductionSheet) -> float:
    """The line's value recomputed from its printed inputs, one formula per kind of line."""
    n, v = line.name, lambda k: _v(line, k)
    if n == "write CPU at the peak":
        return (
            v("events/s") * v("peak factor") * v("write units per event") / v("writes/s per node")
        )
    if n == "stored, compressed (one cluster)":
        return v("kept (logical TB)") / v("compression ratio")
    if n == "nodes for storage":
        need = v("hot TB (compressed)") / (v("TB per node") * v("storage utilization target"))
        if "tiered TB per node" in line.inputs:
            both = v("hot TB (compressed)") + v("cold TB (compressed)")
            need = max(need, both / (v("tiered TB per node") * v("storage utilization target")))
        return max(math.ceil(need - 1e-9), v("minimum nodes"))
    if n.endswith(": one run"):
        pairs = (("requests", "request"), ("seeks", "seek"), ("rows", "row"), ("cells", "cell"))
        total = sum(v(k) * v(f"node-s per {one}") for k, one in pairs)
        return total + v("bytes") * v("node-s per byte")
    if n.endswith(": CPU at the peak"):
        return v("runs/s") * v("peak factor") * v("node-s per run")
    if n.endswith(": servable on these nodes"):
        spare = max(v("nodes (one cluster)") * v("CPU target") - v("CPU at the peak"), 0.0)
        return spare / v("node-s per run") / v("peak factor")
    if n.endswith(": on Data Boost"):
        spu_s = max(
            v("node-s per run") * v("SPUs per node"),
            v("minimum SPU-s per request") * max(v("requests per run"), 1.0),
        )
        return v("runs/s") * v("seconds per month") * spu_s / 3600
    if n == "CPU at the peak":
        return v("write CPU") + v("read CPU") + v("cold-tier read CPU")
    if n == "nodes for CPU":
        peak, t = v("CPU at the peak"), v("CPU target")
        nodes = max(math.ceil(peak / t - 1e-9), v("minimum nodes")) if peak > 0 else 1
        if "unsplittable units" in line.inputs:
            units, unit = v("unsplittable units"), v("CPU of one unit")
            per_node = max(1, math.floor(t / unit + 1e-9))
            nodes = max(nodes, min(math.ceil(units / per_node - 1e-9), math.ceil(units)))
        if "cold-tier read CPU" in line.inputs:
            nodes = max(nodes, math.ceil((peak + v("cold-tier read CPU")) / t - 1e-9))
        return nodes
    if n == "nodes per cluster":
        return max(v("nodes for CPU"), v("nodes for storage"))
    if n == "average CPU at the peak":
        return v("CPU at the peak") / v("nodes (one cluster)")
    if n == "hottest node CPU at the peak":
        return max(
            v("CPU at the peak") / v("nodes (one cluster)"),
            v("CPU of the busiest unit"),
            v("CPU of the most-read row"),
        )
    if n == "autoscaling CPU target":
        return min(max(v("CPU target"), v("lowest target accepted")), v("highest target accepted"))
    if n == "autoscaling maximum nodes":
        return v("nodes per cluster")
    if n == "autoscaling minimum nodes":
        mean = v("CPU at the peak") / v("peak factor") + v("cold-tier read CPU")
        low = max(
            math.ceil(mean / v("autoscaling CPU target") - 1e-9),
            v("nodes for storage"),
            v("minimum nodes"),
            math.ceil(v("maximum nodes") / v("maximum ÷ minimum at most") - 1e-9),
        )
        return min(low, v("maximum nodes"))
    if n == "in-memory reads per node":
        return v("reads/s per increment") * v("increments")
    if n.startswith("total"):  # "total", or "total once the hotspot is fixed"
        return sum(float(x) for x, _ in line.inputs.values())
    if n == "no price":
        return math.nan
    if line.section == "bill":
        price = v("unit price (USD)")
        if n.startswith("nodes"):
            return v("nodes (all clusters)") * v("hours per month") * price
        if n.startswith("backups"):
            return v("GiB dropped per day") * v("days the backups are kept") * price
        (qty,) = [x for k, (x, _) in line.inputs.items() if k != "unit price (USD)"]
        return float(qty) * price
    raise AssertionError(f"no hand formula for line {n!r}")


@pytest.mark.parametrize(("name", "pattern", "events_per_s"), CASES)
def test_every_line_of_every_preset_recomputes_from_its_printed_inputs(name, pattern, events_per_s):
    sheet, a = _sheet(name, pattern, events_per_s)
    table = sheet.table()
    assert len(table) == len(sheet.lines) >= 12
    for line, (_, printed) in zip(sheet.lines, table.iterrows(), strict=True):
        # every input is printed, and says whose it is
        for key, (_, source) in line.inputs.items():
            assert key in printed["inputs"], (line.name, key)
            assert source.startswith(SOURCES), (line.name, key, source)
        hand = _by_hand(line, sheet)
        if math.isnan(hand):
            assert math.isnan(line.value) and not sheet.served
            continue
        assert line.value == pytest.approx(hand, rel=1e-9, abs=1e-12), (line.name, line.formula)
        assert line.formula  # a formula with its numbers, printed beside the value


@pytest.mark.parametrize(("name", "pattern", "events_per_s"), CASES)
def test_the_sheet_reads_the_analysis_one_number(name, pattern, events_per_s):
    sheet, a = _sheet(name, pattern, events_per_s)
    cap = a.capacity
    assert sheet.line("nodes per cluster").value == cap.nodes_per_cluster
    assert sheet.line("write CPU at the peak").value == cap.write_cpu
    assert sheet.line("nodes for storage").value == cap.storage_nodes
    t = a.queries.table
    for q in t.index:
        if t.loc[q, "production_node_ms"] == t.loc[q, "production_node_ms"]:
            # the planner's one figure: the plan's cost, as the query table shows it
            run = sheet.line(f"{q}: one run").value
            assert run == float(t.loc[q, "production_node_ms"]) / 1e3
            assert run == pytest.approx(a.queries.plans[q].cost.node_s, rel=1e-12)
    # the queries' CPU lines add up to the read CPU capacity sized with
    cpu_lines = [ln.value for ln in sheet.section("queries") if ln.name.endswith("CPU at the peak")]
    assert sum(cpu_lines) == pytest.approx(cap.read_cpu, rel=1e-9, abs=1e-12)
    if sheet.served:
        assert sheet.line("total").value == pytest.approx(cap.monthly_cost, rel=1e-12)
    else:  # no price as designed: the fix is named and the bill is the fixed design's, as
        # the capacity table labels it
        assert "fix: " + cap.fix() in sheet.line("no price").formula
        assert not [ln for ln in sheet.lines if ln.name == "total"]
        total = sheet.line("total once the hotspot is fixed").value
        assert total == pytest.approx(cap.monthly_cost, rel=1e-12)
        assert "total per month once the hotspot is fixed (USD)" in cap.table().index


def test_the_cases_cover_every_kind_of_line():
    # the recomputation above is only as good as the lines it meets: each kind occurs
    lines = [ln for case in CASES for ln in _sheet(*case)[0].lines]
    names = {ln.name.split(": ")[-1] for ln in lines}
    for kind in ("one run", "CPU at the peak", "servable on these nodes", "on Data Boost"):
        assert kind in names
    packed = [
        ln for ln in lines if ln.name == "nodes for CPU" and "unsplittable units" in ln.inputs
    ]
    assert packed  # units packed whole (salt buckets, one frontier)
    assert {"no price", "total", "backups (incremental, kept 7 days)", "Data Boost"} <= names


def test_the_sheet_says_whose_each_input_is():
    sheet, _ = _sheet("fx_prices", "pair_microseconds")
    writes = sheet.line("write CPU at the peak")
    assert writes.inputs["events/s"] == (20_000.0, "yours")
    assert writes.inputs["peak factor"] == (2.0, "yours")
    assert writes.inputs["writes/s per node"] == (14_000.0, "Google: Understand performance")
    stated = sheet.line("usdjpy_moving_averages: CPU at the peak")
    assert stated.inputs["runs/s"] == (0.01, "yours")
    # a query nobody gave a rate sizes no node and says how often it can run
    idle = sheet.line("all_pairs_minute: servable on these nodes")
    assert idle.formula.startswith("no rate stated: sizes no node")
    html = sheet.html()
    assert "Production sheet" in html and "usdjpy_moving_averages: one run" in html
    assert "yours" in html and "Google: Understand performance" in html


def test_the_hottest_node_is_shown_beside_the_average_target():
    sheet, a = _sheet("game_scores", "salted")
    p = a.capacity.production
    avg, hot = sheet.line("average CPU at the peak"), sheet.line("hottest node CPU at the peak")
    n = a.capacity.nodes_per_cluster
    # by hand: the average is the peak's CPU over the nodes; the hottest node is at least that
    assert avg.value == pytest.approx(a.capacity.peak_cpu / n)
    assert hot.value == pytest.approx(
        max(p.peak_cpu / n, p.busiest_unit_cpu, p.queries.busiest_row_cpu)
    )
    assert hot.inputs["hottest-node target"][0] == 0.90  # the hottest-node guidance
    assert "90 %" in hot.formula and "70 %" in avg.formula
    # a hottest node over its target is flagged on its line
    low = DEFAULT.replace(hottest_node_cpu_target=0.01)
    ds = wb.load_dataset("game_scores", size="tiny")
    s2 = wb.production_sheet(ds, wb.preset(ds, "salted"), _workload(ds), settings=low)
    assert "> 1 % hottest-node target" in s2.line("hottest node CPU at the peak").formula
    assert s2.line("hottest node CPU at the peak").note.startswith("over:")


def test_autoscaling_min_and_max_from_mean_and_peak_by_hand():
    # sensors at 100,000 events/s, a 4× peak: the peak's writes 100,000 × 4 = 400,000 events/s
    ds = wb.load_dataset("weather_balloons", size="tiny")
    schema = wb.preset(ds, "single_timestamp")
    wl = wb.Workload(events_per_s=100_000, peak_factor=4.0, retention_months=1)
    a = wb.analyze(ds, schema, workload=wl)
    cap = a.capacity
    upe = cap.production.units_per_event
    # by hand: write CPU at the peak = 400,000 × upe ÷ 14,000; no query rate stated: no reads
    peak_cpu = 400_000 * upe / 14_000
    assert cap.peak_cpu == pytest.approx(peak_cpu)
    high = max(math.ceil(peak_cpu / 0.70 - 1e-9), cap.storage_nodes)
    mean_nodes = math.ceil(peak_cpu / 4 / 0.70 - 1e-9)
    low = max(mean_nodes, cap.storage_nodes, 1, math.ceil(high / 10 - 1e-9))
    assert autoscaling_recommendation(a) == (low, high, 0.70)
    assert high == cap.nodes_per_cluster
    sheet = wb.production_sheet(ds, schema, wl, analysis=a)
    assert sheet.line("autoscaling minimum nodes").value == low
    assert sheet.line("autoscaling maximum nodes").value == high
    # a 20× peak: the minimum is lifted to a tenth of the maximum (max ≤ 10 × min)
    a20 = wb.analyze(ds, schema, workload=wl.replace(peak_factor=20.0))
    low20, high20, _ = autoscaling_recommendation(a20)
    assert high20 >= 10 and low20 == max(
        math.ceil(high20 / 10 - 1e-9), a20.capacity.storage_nodes, 1
    )
    # a target outside AutoscalingTargets' 10-80 % is brought inside it
    plus = wb.analyze(ds, schema, workload=wl, settings=DEFAULT.replace(cpu_target=0.9))
    assert autoscaling_recommendation(plus)[2] == 0.80


def test_data_boost_is_billed_in_spu_hours_from_the_queries_node_seconds():
    ds = wb.load_dataset("energy_meters", size="tiny")
    schema = wb.preset(ds, wb.pattern_names("energy_meters")[0])
    name = ds.queries[0].name
    plain = wb.Workload(events_per_s=5_000, queries={name: wb.QueryLoad(per_s=0.5)})
    boosted = plain.replace(queries={name: wb.QueryLoad(per_s=0.5, data_boost=True)})
    a0, a1 = wb.analyze(ds, schema, workload=plain), wb.analyze(ds, schema, workload=boosted)
    t0 = a0.queries.table
    node_s = float(t0.loc[name, "production_node_ms"]) / 1e3
    requests = float(t0.loc[name, "production_requests"])
    # by hand ("Data Boost overview": 1,000 SPUs ≈ one node, at least 60 SPU-s per request):
    spu_s = max(node_s * 1000, 60 * requests)
    hours = 0.5 * 730 * 3600 * spu_s / 3600
    assert a1.capacity.data_boost_spu_hours == pytest.approx(hours)
    assert a1.capacity.bill.usd("Data Boost") == pytest.approx(hours * 0.000845)
    # the query leaves the nodes: its CPU is off the cluster, the writes' stays
    assert a1.capacity.read_cpu == pytest.approx(a0.capacity.read_cpu - 0.5 * node_s)
    assert a1.capacity.write_cpu == a0.capacity.write_cpu
    assert a0.capacity.data_boost_spu_hours == 0 and not a0.capacity.bill.usd("Data Boost")
    # a point read still bills the 60 SPU-second minimum (why Google advises scans there)
    assert max(55.9e-6 * 1000, 60 * 1) == 60
    line = wb.production_sheet(ds, schema, boosted, analysis=a1).line(f"{name}: on Data Boost")
    assert line.value == pytest.approx(hours) and "takes no node CPU" in line.note
    with pytest.raises(wb.WorkbenchError, match="data_boost must be True"):
        wb.QueryLoad(data_boost="yes")  # type: ignore[arg-type]


def test_backups_bill_only_the_data_the_table_dropped_while_they_were_kept():
    ds = wb.load_dataset("garden_temperature", size="tiny")
    schema = wb.preset(ds, "tall")
    wl = wb.Workload(events_per_s=1_000, retention_months=6)
    a = wb.analyze(ds, schema, workload=wl, settings=DEFAULT.replace(backup_retention_days=30))
    cap = a.capacity
    # by hand: at the 6-month horizon the table drops one day of its 6 × (730 ÷ 24) days a day
    days = 6 * 730 / 24
    one_copy_gib = cap.stored_gib / cap.clusters
    assert cap.dropped_gib_per_day == pytest.approx(one_copy_gib / days)
    # 30 days of backups hold 30 such days beyond what they share with the table (incremental)
    assert cap.backup_gib == pytest.approx(30 * one_copy_gib / days)
    assert cap.bill.usd("backups") == pytest.approx(30 * one_copy_gib / days * 0.026)
    # not a full copy per backup: 30 daily full copies would bill 30 × the table
    assert cap.backup_gib < one_copy_gib
    # kept longer than the table keeps data, the backups hold at most one table's worth
    long = wb.analyze(ds, schema, workload=wl, settings=DEFAULT.replace(backup_retention_days=365))
    assert long.capacity.backup_gib == pytest.approx(long.capacity.stored_gib)
    line = wb.production_sheet(ds, schema, wl, analysis=a).line(
        "backups (incremental, kept 30 days)"
    )
    assert "incremental" in line.note and line.inputs["days the backups are kept"][0] == 30


def test_the_in_memory_tier_reads_in_increments_of_40000():
    ds = wb.load_dataset("game_scores", size="tiny")
    schema = wb.preset(ds, "game_player_time")
    plus = DEFAULT.replace(edition="enterprise-plus", in_memory_tier=True)
    # "Understand performance": a node includes 40,000 rows/s, up to 120,000 by 40,000
    assert plus.node_rates()[0] == 40_000
    assert plus.replace(in_memory_increments=3).node_rates()[0] == 120_000
    with pytest.raises(wb.SettingsError, match="in_memory_increments must be in"):
        plus.replace(in_memory_increments=4)
    wl = wb.Workload(events_per_s=2_000, queries={"corrie_latest": 500.0})
    one = wb.production_sheet(ds, schema, wl, settings=plus)
    three = wb.production_sheet(ds, schema, wl, settings=plus.replace(in_memory_increments=3))
    assert one.line("in-memory reads per node").value == 40_000
    assert three.line("in-memory reads per node").value == 120_000
    # a point read's lookup costs 1 ÷ reads/s less its row's scan: three increments cut it
    run1 = one.line("corrie_latest: one run").value
    run3 = three.line("corrie_latest: one run").value
    assert run3 < run1
    # no stored page prices an increment: left off the bill, and the line says so
    assert "not documented" in three.line("in-memory reads per node").note
    assert not [ln for ln in three.section("bill") if ln.name.startswith("in-memory")]
    priced = plus.replace(in_memory_increments=3, in_memory_increment_node_hour_usd=0.1)
    s = wb.production_sheet(ds, schema, wl, settings=priced)
    nodes = s.line("nodes per cluster").value
    # by hand: 2 extra increments × nodes × 730 h × $0.10
    (inc,) = [ln for ln in s.section("bill") if ln.name.startswith("in-memory")]
    assert inc.value == pytest.approx(2 * nodes * 730 * 0.1)


def test_an_analysis_at_another_workload_is_refused():
    ds = wb.load_dataset("fx_prices", size="tiny")
    schema = wb.preset(ds, "pair_microseconds")
    a = wb.analyze(ds, schema, workload=wb.Workload(events_per_s=100))
    with pytest.raises(wb.WorkbenchError, match="another workload"):
        wb.production_sheet(ds, schema, wb.Workload(events_per_s=200), analysis=a)


def test_the_designer_shows_the_sheet_of_the_analysis_it_shows():
    ds = wb.load_dataset("garden_temperature", size="tiny")
    d = wb.designer(ds)
    d.show_tab("sheet")
    # the tab's sheet is the designer's own analysis, line by line (one number)
    assert d.sheet.line("nodes per cluster").value == d.analysis.capacity.nodes_per_cluster
    assert "Production sheet" in d.sheet_panel.value
    assert f"{d.analysis.schema} on garden_temperature" in d.sheet_panel.value


def test_a_query_on_data_boost_is_not_judged_by_what_the_nodes_can_serve():
    # the advisor warns of a query the sized nodes could run less than once a minute; one sent
    # to Data Boost runs on no node, so no such warning (its SPU-hours are on the bill)
    ds = wb.load_dataset("energy_meters", size="tiny")
    schema = wb.preset(ds, "sequential_id")
    wl = wb.Workload(events_per_s=50_000, growth="grow")
    boosted = wl.replace(queries={"all_meters_hour": wb.QueryLoad(data_boost=True)})

    def warned(w: wb.Workload) -> set[str]:
        return {f.data["query"] for f in wb.advise(ds, schema, workload=w).by_rule("query_cost")}

    assert "all_meters_hour" in warned(wl)  # on the nodes it could not run once a minute
    assert "all_meters_hour" not in warned(boosted)


def test_a_count_of_one_node_reads_in_the_singular():
    from workbench.analysis.sheet_lines import shown_value

    assert shown_value(1, "nodes") == "1 node"
    assert shown_value(3, "nodes") == "3 nodes"


def test_a_query_run_of_one_request_and_one_seek_reads_in_the_singular():
    """06's sheet read "1 requests × 10.9 µs + 1 seeks × 43.4 µs + 1 rows × …" for the latest
    reading: a count of one is singular in a formula's terms too, more stays plural."""
    ds = wb.load_dataset("energy_meters")
    sheet = wb.production_sheet(ds, wb.preset("energy_meters", "sequential_id"))
    runs = {ln.name: ln.formula for ln in sheet.lines if ln.name.endswith(": one run")}
    # latest_reading: one request, one range, one row (the newest reading of one meter)
    latest = runs["latest_reading: one run"]
    assert latest.startswith("1 request × ") and "+ 1 seek × " in latest, latest
    assert "+ 1 row × " in latest, latest
    assert not re.search(
        r"(?<![\d.,])1 (requests|seeks|rows|cells|bytes) ×", " ".join(runs.values())
    )
    # the sample's rate needs the 1-node minimum: every formula counting nodes says "1 node"
    formulas = " ".join(ln.formula for ln in sheet.lines)
    assert sheet.line("nodes per cluster").value == 1
    assert not re.search(r"(?<![\d.,<])1 nodes", formulas), formulas  # "<0.001 nodes" is fine
    assert "(1 node × 70 %" in formulas and "1 node × 730 h" in formulas, formulas
    # a Data Boost run of one request: "60 SPU-s × 1 request", not "1 requests"
    boosted = wb.production_sheet(
        ds,
        wb.preset("energy_meters", "sequential_id"),
        wb.Workload(queries={"meter_day": wb.QueryLoad(per_s=1 / 3600, data_boost=True)}),
    )
    boost = boosted.line("meter_day: on Data Boost").formula
    assert re.search(r"SPU-s × 1 request\)", boost), boost
    # meter_day: one meter's 96 readings of a day are 96 rows (plural)
    assert re.search(r"\+ 96(\.\d+)? rows × ", runs["meter_day: one run"]), runs[
        "meter_day: one run"
    ]
