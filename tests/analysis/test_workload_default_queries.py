"""A query rate nobody stated never sizes nodes (G06, G07).

With only an event rate stated, the nodes are what the writes and the storage need; each query
shows its cost per run and how many runs per second the CPU left on those nodes serves. A stated
rate (all queries together, split by weight, or one query's own) adds exactly its rate × its cost
per run × the peak to the CPU. Every expectation is derived by hand from the documented figures
(14,000 1 KB writes/s per SSD node, 70 % CPU target)."""

from __future__ import annotations

import math

import pytest

import workbench as wb
from workbench.analysis import analyze


def _garden():
    ds = wb.load_dataset("garden_temperature")
    return ds, wb.preset(ds, "tall")


def test_only_a_rate_stated_no_query_sizes_the_nodes():
    ds, design = _garden()
    cap = analyze(ds, design, workload=wb.Workload(events_per_s=100_000)).capacity
    p = cap.production
    assert p.queries_default and p.queries_per_s == 0 and p.read_cpu == 0
    # by hand: writes alone are 100,000 ÷ 14,000 = 7.14 nodes of CPU, at least 11 nodes at a
    # 70 % target, at most one garden (a unit that does not split, 39 of them) per node
    assert cap.write_cpu == pytest.approx(100_000 / 14_000)
    assert math.ceil(100_000 / 14_000 / 0.7) <= cap.nodes_needed <= 39
    no_reads = analyze(
        ds, design, workload=wb.Workload(events_per_s=100_000, queries_per_s=0)
    ).capacity
    assert no_reads.nodes_needed == cap.nodes_needed
    defaults = p.inputs_line().split(" · defaults: ")[1]
    assert "none stated: no query sizes the nodes" in defaults
    t = p.queries.table
    nodes = cap.nodes_needed
    for q in t.index:
        run_s = float(t.loc[q, "production_node_ms"]) / 1e3
        assert run_s > 0, q
        # by hand: the CPU the nodes have under the target, less the writes', per run
        spare = nodes * 0.7 - 100_000 / 14_000
        assert p.servable_per_s(q, nodes) == pytest.approx(spare / run_s), q


def test_heroic_at_100k_writes_per_second_sizes_for_its_writes():
    """server_metrics ``heroic`` at 100,000 events/s with no query rate: 11–20 nodes (writes:
    100,000 ÷ 14,000 ÷ 0.7 = 10.2 → 11 nodes, a few more for what does not split), not the
    millions a default query rate over every derived query made of it."""
    ds = wb.load_dataset("server_metrics")
    cap = analyze(ds, wb.preset(ds, "heroic"), workload=wb.Workload(events_per_s=100_000)).capacity
    assert cap.read_cpu == 0
    assert 11 <= cap.nodes_needed <= 20


def test_stated_query_rates_add_their_cpu_exactly():
    ds, design = _garden()
    base = analyze(
        ds, design, workload=wb.Workload(events_per_s=100_000)
    ).capacity.production.queries.table
    ms = {q: float(base.loc[q, "production_node_ms"]) for q in base.index}
    weights = {q.name: q.weight for q in ds.queries if q.name in ms}
    total_w = sum(weights.values())
    # 10 queries/s over every query, split by weight: Σ 10 × w/W × node-s a run
    stated = analyze(
        ds, design, workload=wb.Workload(events_per_s=100_000, queries_per_s=10)
    ).capacity
    want = sum(10 * weights[q] / total_w * ms[q] / 1e3 for q in ms)
    assert stated.read_cpu == pytest.approx(want, rel=1e-9)
    assert "none stated" not in stated.production.inputs_line()
    # one query's own rate, at a peak of 2: 5 runs/s × 2 × its node-seconds, the others none
    one = next(iter(ms))
    wl = wb.Workload(events_per_s=100_000, peak_factor=2, queries={one: wb.QueryLoad(per_s=5)})
    own = analyze(ds, design, workload=wl).capacity
    assert own.read_cpu == pytest.approx(5 * 2 * ms[one] / 1e3, rel=1e-9)


def test_the_designer_and_notebook_line_carries_the_same_note():
    ds, design = _garden()
    cap = analyze(ds, design, workload=wb.Workload(events_per_s=100_000)).capacity
    html = wb.display.workload_line(cap)
    assert "no query sizes the nodes" in html
