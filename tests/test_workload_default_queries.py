"""A node count that follows the default query rate says so (G06, G07).

With only an event rate stated, every query line is a template asked at its weight's share of
one query per 1,000 writes: at 100,000 events/s that is 100 queries/s, and a query whose answer
grows with the rate (a day of every garden) then takes nearly all the CPU. The inputs line under
each figure names that default as the one setting the node count, and the note goes away when
the user states the query rate or when the default's reads need less than a node."""

from __future__ import annotations

import math

import pytest

import workbench as wb
from workbench.analysis import analyze


def _garden():
    ds = wb.load_dataset("garden_temperature")
    return ds, wb.preset(ds, "tall")


def test_only_a_rate_stated_the_line_says_the_default_queries_set_the_nodes():
    ds, design = _garden()
    cap = analyze(ds, design, events_per_s=100_000).capacity
    p = cap.production
    # by hand: 100,000 writes/s (one per event) ÷ 1,000 = 100 queries/s
    assert p.queries_default and p.queries_per_s == 100.0
    line = p.inputs_line()
    defaults = line.split(" · defaults: ")[1]
    assert "100 queries/s (one per 1,000 writes) — a default that sets the node count" in defaults
    assert "state each query's rate" in defaults
    top = str(p.queries.table["production_cpu"].idxmax())
    assert f"({top}: " in defaults
    assert p.read_cpu > 100 * p.write_cpu  # what the note is about: reads dwarf the writes


def test_stated_query_rates_or_cheap_default_reads_carry_no_note():
    ds, design = _garden()
    # by hand: writes alone are 100,000 ÷ 14,000 = 7.14 nodes of CPU, at least 11 nodes at a 70 %
    # target, at most one garden (a unit that does not split, 39 of them) per node
    no_reads = analyze(ds, design, events_per_s=100_000, queries_per_s=0).capacity
    assert no_reads.read_cpu == 0
    assert no_reads.write_cpu == pytest.approx(100_000 / 14_000)
    assert math.ceil(100_000 / 14_000 / 0.7) <= no_reads.nodes_needed <= 39
    assert "a default that sets" not in no_reads.production.inputs_line()
    stated = analyze(ds, design, events_per_s=100_000, queries_per_s=10).capacity
    assert "a default that sets" not in stated.production.inputs_line()
    # the sample's own rate: the default reads are far under a node, nothing to say
    own = analyze(ds, design).capacity
    assert own.production.queries_default
    assert "a default that sets" not in own.production.inputs_line()
    assert "(one per 1,000 writes)" in own.production.inputs_line()


def test_the_designer_and_notebook_line_carries_the_same_note():
    ds, design = _garden()
    cap = analyze(ds, design, events_per_s=100_000).capacity
    html = wb.display.workload_line(cap)
    assert "a default that sets the node count" in html
