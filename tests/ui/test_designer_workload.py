"""The designer states production once (events/s, series, queries/s) and every view is
computed at it: the headline, capacity, the advisor, with the line saying which inputs are the
user's (G06, G08)."""

from __future__ import annotations

import workbench as wb
from workbench.ui.model import Workspace


def test_the_production_controls_set_the_workload_every_view_reads():
    ws = Workspace()
    d = wb.designer(ws.dataset("fx_prices", "small"), workspace=ws)
    d.set_schema(wb.preset("fx_prices", "salted", n=4))
    c = d.controls
    before = d.analysis
    assert "own rate)" in d.headline.value  # (HTML-escaped apostrophe)
    c.rate.value = 100_000  # 4 buckets take at most 4 × 9,800 = 39,200 events/s
    assert ws.workload.events_per_s == 100_000
    a = d.analysis
    assert a is not before and a.capacity.hotspot_limited
    assert "100,000 events/s" in d.headline.value and "Workload — yours" in d.headline.value
    assert "Salt(n=11)" in a.capacity.fix()
    findings = ws.advice(d.ds, d.schema, nodes=int(c.nodes.value))
    assert any(f.rule == "hotspot_limited" and f.severity == "error" for f in findings)
    # production's series, stated: the busiest of 800 pairs takes 1/800 of the writes
    c.series.value = 800
    assert ws.workload.entities == {"pair": 800}
    assert "pair 800" in d.headline.value
    # back to nothing stated: the sample's own rate again, nothing kept from the stated one
    c.rate.value, c.series.value = 0, 0
    assert ws.workload == wb.Workload()
    assert "own rate)" in d.headline.value  # (HTML-escaped apostrophe)
