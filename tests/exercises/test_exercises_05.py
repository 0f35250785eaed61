"""Notebook 05: the dashboard-key exercise explains why a common-to-granular key that puts the
host before the time is refused, and the tenant section's "one scan per tenant" claim holds.

Hand-derived: the site dashboard fixes site=gew and what=cpu-idle-percentage and leaves host
open; with the key site, what, host, time the rows of one site and metric are ordered by host
first, so a 15-minute window is one short range per host of gew (4 hosts in the workshop data),
and one range over site+what would read that metric's readings of every time.
"""

from __future__ import annotations

import pytest

import workbench as wb
from workbench.exercises.ex05 import dashboard_key

F, T = wb.Field, wb.Timestamp


@pytest.fixture(scope="module")
def ds():
    return wb.load_dataset("server_metrics", size="workshop")


def test_host_before_time_is_refused_with_the_reason(ds):
    passed, message, _ = dashboard_key.judge(
        [F("site"), F("what"), F("host"), T("ms", "epoch_ms")], ds
    )
    frame = ds.frame
    gew_hosts = frame.loc[frame["site"] == "gew", "host"].nunique()
    every_time = int(((frame["site"] == "gew") & (frame["what"] == "cpu-idle-percentage")).sum())
    assert not passed
    assert f"in {gew_hosts} key range(s)" in message
    assert "host comes before the time" in message and f"all {every_time:,} of its" in message


def test_the_solution_order_passes_without_the_reason(ds):
    passed, message, _ = dashboard_key.judge(
        [F("site"), F("what"), T("ms", "epoch_ms"), F("host")], ds
    )
    assert passed and "in 1 key range(s)" in message and "Why several" not in message


def test_each_tenant_is_one_scan_that_reads_only_its_rows(ds):
    # §4's claim, with §4's fleet: a tenant prefix is one contiguous range, so each tenant's query
    # is one scan whose rows seen equal its rows returned (hand-derived: a prefix read, no filter)
    owner = {"gew": "altostrat", "lon": "altostrat", "sto": "altostrat"}
    frame = ds.frame.assign(tenant=ds.frame["site"].map(owner).fillna("examplepetstore"))
    fleet = wb.from_dataframe(
        frame[["tenant", "host", "what", "time", "value"]],
        entity=["tenant", "host", "what"], time="time", measures=["value"], name="fleet",
        queries=[
            wb.QueryIntent(f"{t}_everything", "range", f"every row of {t}", entity={"tenant": t})
            for t in ("altostrat", "examplepetstore")
        ],
    )  # fmt: skip
    key = (F("tenant"), F("host"), F("what"), T("ms", "epoch_ms"))
    table = wb.analyze(fleet, wb.Schema("tenant_prefix", wb.RowKey(key), wb.Tall(wb.Family("m"))))
    for tenant in ("altostrat", "examplepetstore"):
        q = table.queries[f"{tenant}_everything"]
        assert int(q["scans"]) == 1
        assert (
            int(q["rows_seen"]) == int(q["rows_returned"]) == int((frame["tenant"] == tenant).sum())
        )
