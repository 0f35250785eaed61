"""No price under a verdict that no node count serves the rate (G06, G07, G08): a
hotspot-limited design's node count and bill are labelled as what it costs once the hotspot is
fixed, the fix the verdict names; a design that serves the rate keeps its plain labels."""

from __future__ import annotations

import math
import warnings

import pytest

import workbench as wb

PRICE_ROWS = ("nodes per cluster", "nodes in total", "total per month (USD)")


def _capacity(pattern: str, events_per_s: float):
    ds = wb.load_dataset("fx_prices")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return wb.analyze(
            ds, wb.preset(ds, pattern), workload=wb.Workload(events_per_s=events_per_s)
        ).capacity


def test_a_time_first_key_past_its_ceiling_prices_the_fix_not_the_rate():
    # one write frontier at 70 % of 14,000 writes/s: 9,800 events/s, far under 100,000
    cap = _capacity("timestamp_first", 100_000)
    assert cap.hotspot_limited and cap.ceiling_events_per_s == pytest.approx(9_800)
    labels = list(cap.table().index)
    for plain in PRICE_ROWS:
        assert plain not in labels
    fixed = [k for k in labels if "once the hotspot is fixed" in k]
    assert len(fixed) == 4, fixed  # nodes per cluster, in total, node cost, total
    # the fix the verdict names is what the labels refer to
    need = math.ceil(100_000 / 9_800)  # 11 busy values or salt buckets
    assert f"at least {need}" in cap.verdict()
    # the plain labels still find the rows
    shown = cap.view(["nodes in total", "total per month (USD)"])
    assert all("once the hotspot is fixed" in k for k in shown.index)


def test_a_design_that_serves_the_rate_keeps_its_plain_price_labels():
    cap = _capacity("pair_microseconds", 1_000)
    assert not cap.hotspot_limited
    labels = list(cap.table().index)
    assert all(p in labels for p in PRICE_ROWS)
    assert not any("once the hotspot is fixed" in k for k in labels)


def test_the_comparison_table_prices_a_hotspot_limited_design_once_fixed():
    # at 20,000 events/s one write frontier (9,800/s) cannot keep up; salting's four buckets can
    ds = wb.load_dataset("fx_prices")
    designs = [wb.preset(ds, "timestamp_first"), wb.preset(ds, "salted")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cmp = wb.compare(ds, designs, workload=wb.Workload(events_per_s=20_000))
    assert list(cmp.table["hotspot_limited"]) == [True, False]
    html = cmp.view(["nodes_needed", "monthly_cost_usd"]).to_html()
    cells = [c for c in html.split("<td") if "</td>" in c]
    limited, served = cells[:2], cells[2:4]
    nodes = cmp.analyses["timestamp_first"].capacity.nodes_needed
    assert f">{nodes:,} once the hotspot is fixed</td>" in limited[0]
    assert "once the hotspot is fixed" in limited[1] and "$" in limited[1]
    assert not any("once" in c for c in served)  # salting serves the rate: a plain price


def test_the_advisors_hotspot_evidence_prices_the_fix_not_the_rate():
    ds = wb.load_dataset("fx_prices")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = wb.analyze(
            ds, wb.preset(ds, "timestamp_first"), workload=wb.Workload(events_per_s=20_000)
        )
        report = wb.advise(ds, wb.preset(ds, "timestamp_first"), analysis=a)
    hot = next(f for f in report.errors if "G07" in f.guidelines)
    line = next(e for e in hot.evidence if e.startswith("capacity"))
    nodes = a.capacity.nodes_needed
    # the verdict (no node count serves 20,000/s past a 9,800/s ceiling) comes first, and the
    # node count is the fixed design's, never a price at the rate
    assert "9,800 events/s" in line and "whatever the node count" in line
    assert line.endswith(f"; {nodes:,} SSD nodes once the hotspot is fixed"), line
