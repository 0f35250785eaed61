"""A finding's title and its evidence say one count, in the right number (07 printed "the whole
table through many ranges" over "its 1 ranges" in one finding)."""

from __future__ import annotations

import pytest

import workbench as wb
from workbench.formatting import counted


def test_counted_agrees_in_number():
    assert counted(1, "range") == "1 range"
    assert counted(0, "range") == "0 ranges"
    assert counted(1_200, "range") == "1,200 ranges"
    assert counted(2, "query", "queries") == "2 queries"


@pytest.fixture(scope="module")
def time_first():
    ds = wb.load_dataset("fx_prices", size="workshop")
    schema = wb.preset(ds, "timestamp_first")
    return ds, schema, wb.analyze(ds, schema), wb.advise(ds, schema)


def test_a_whole_table_read_names_its_one_range_once(time_first):
    ds, schema, a, advice = time_first
    # USD/JPY's moving averages on a time-first key: one time range over the 40 days, which
    # holds every pair's quotes, so the one range reads every row of the table
    plan = a.queries.plans["usdjpy_moving_averages"]
    rows = a.index.n_rows
    assert plan.n_ranges == 1 and not plan.full_scan
    (f,) = [f for f in advice if f.rule == "query_filter" and "usdjpy_moving_averages" in f.title]
    assert f.title.endswith("(the whole table through 1 range)"), f.title
    assert f"its 1 range covers {rows:,} of the table's {rows:,} rows" in " ".join(f.evidence)
    text = f.title + " ".join(f.evidence)
    assert "many ranges" not in text and "1 ranges" not in text


def test_the_advice_headline_counts_each_severity_in_its_number(time_first):
    ds, schema, a, advice = time_first
    n = {s: len(advice.of(s)) for s in ("error", "warning", "info")}
    assert sum(n.values()) == len(advice) and n["warning"] >= 2  # the reads that scan (G04)
    head = advice.headline()
    assert "(s)" not in head
    for sev, noun in (("error", "error"), ("warning", "warning"), ("info", "note")):
        k = n[sev]
        assert f"{k:,} {noun}{'' if k == 1 else 's'}" in head, head
