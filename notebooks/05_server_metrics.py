# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     notebook_metadata_filter: title,-jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
#   title: 'Server metrics: Heroic''s design, tags in the key, tenants by prefix'
# ---

# %% [markdown]
# # 05 · Server metrics: Heroic's base + offset design, tags in the key
#
# **Learning objectives**
#
# * Reproduce the row key and column qualifiers of Heroic (Spotify's metrics database) exactly: sorted tags
#   in the key, a base time `ts − ts mod 2^32` in the key, the offset in the qualifier (G16).
# * See why key segments go from common to granular, and what a long key costs on every cell (G20).
# * Keep similar datasets — or several customers — in one table under their own key prefixes (G17), and
#   remove a customer with a single prefix drop on the emulator (G25).
# * Reverse domain names so that related hosts sort next to each other (G27).

# %% tags=["setup"]
import workbench as wb
from workbench.exercises.ex05 import ____, dashboard_key, host_first_scans, row_cells

wb.setup()

# %% [markdown]
# ## The data: Heroic-shaped series
#
# Every series has a `key` (`system`), tags (`cpu-type`, `site`, `system-component`, `unit`, `what`) and
# resource identifiers (`host`, `podname`); an empty tag means the series does not have it. Hosts report
# every 10 seconds, starting at Heroic's own example time, and Heroic's documented example series is in the
# data with its two documented points.

# %%
ds = wb.load_dataset("server_metrics", size="workshop")
ds

# %% [markdown]
# ## 1 · Heroic's row key and offsets (G16)
#
# Heroic keeps about 50 days of one series in one row: the row key holds the series' key, its tags sorted by
# name, the *base* timestamp (the time rounded down to a multiple of 2^32 ms) and the resources; the
# qualifier holds the offset from that base, and the cell holds the value. The base bounds every row in
# time, so no row grows for ever. Below: the cells the workbench builds for Heroic's example series at its
# two documented times, next to the values printed on Heroic's page.

# %% tags=["G16", "finding"]
import pandas as pd

heroic = wb.preset("server_metrics", "heroic")
cells = heroic.to_cells(ds).frame
documented = pd.DataFrame(
    {
        "time (ms)": [1300000000000, 1300001000000],
        "Heroic's row key": [
            "system,cpu-type=idle,site=gew,system-component=cpu,unit=%,what=cpu-idle-percentage,"
            "1297080123392,database.example.com,pod-example-123-abc"
        ]
        * 2,
        "Heroic's offset": ["2919876608", "2920876608"],
        "Heroic's value": [42.0, 84.0],
    }
)
built = cells[
    cells["timestamp_us"].isin(documented["time (ms)"] * 1000)
    & cells["row_key"].isin(documented["Heroic's row key"])
]
documented["built row key"] = built["row_key"].to_numpy()
documented["built qualifier"] = built["qualifier"].to_numpy()
documented["built value"] = [float(v) for v in built["value"]]
documented["identical"] = (
    (documented["built row key"] == documented["Heroic's row key"])
    & (documented["built qualifier"] == documented["Heroic's offset"])
    & (documented["built value"] == documented["Heroic's value"])
)
# data as stored and as Heroic prints it
wb.as_written(
    documented[
        [
            "time (ms)",
            "built row key",
            "built qualifier",
            "Heroic's offset",
            "built value",
            "identical",
        ]
    ]
)

# %% [markdown]
# One row therefore holds every point of one series within a 2^32 ms window (about 49.7 days): at one point
# every 10 seconds that is up to the number of cells computed below. The workshop data is much shorter.
#
# ### Exercise: predict a row's cells in the sample
#
# How many cells does one Heroic row hold in the workshop data (the median over its rows)? The dataset's
# first and last times are in its header above. Replace `____` with a number (±10 % is accepted) and run
# the check before the table below shows it. `row_cells.hint()` gives a hint and `row_cells.solution()`
# the answer.

# %%
ROW_CELLS = ____   # ← your answer: a number of cells

# %%
row_cells.check(ROW_CELLS, ds)

# %%
per_row = cells.groupby("row_key").size()
pd.Series(
    {
        "window (days)": 2**32 / 1000 / 86400,
        "max cells per row at one point / 10 s": 2**32 // 10_000,
        "rows in the workshop data": len(per_row),
        "cells per row now (median)": per_row.median(),
    }
).to_frame("value").style.format(lambda v: f"{v:,.0f}" if float(v).is_integer() else f"{v:,.1f}")

# %% [markdown]
# ## 2 · Key order: common to granular, and short (G20)
#
# A dashboard panel asks for "CPU idle of every host in site `gew` over the last 15 minutes". Heroic's key
# starts with what the panel fixes (key and tags, from common to granular), so the panel reads one key
# range. The best-practices page's `machine#metric#time` key (`host_metric_time`) starts with the host, the
# most granular segment. A time-first key reads a time range across everything (and is a hotspot).
#
# ### Exercise: predict the host-first key's ranges
#
# How many key ranges (the `scans` column) will the dashboard panel need with `host_metric_time`?
# Replace `____` with a whole number (exact) and run the check before the table below shows it.
# `host_first_scans.hint()` gives a hint and `host_first_scans.solution()` the answer.

# %%
HOST_FIRST_SCANS = ____   # ← your answer: a number of key ranges

# %%
host_first_scans.check(HOST_FIRST_SCANS, ds)

# %% [markdown]
# The table compares the three keys. The workbench knows this sample's hosts, so with the host first it
# lists a range per host of the site in one request, at a seek per host — and a real fleet's host list is
# long and changes, which one range per site never minds.

# %% tags=["G20", "finding"]
host_first = wb.preset("server_metrics", "host_metric_time")
cmp = wb.compare(ds, [heroic, host_first, wb.preset("server_metrics", "timestamp_first")])
print(cmp.analyses["heroic"].capacity.production.inputs_line())  # the workload the node-ms are at
cmp.view(
    [
        "site_cpu_dashboard: scans",
        "site_cpu_dashboard: rows seen",
        "site_cpu_dashboard: node ms",
        "host_cpu_15min: rows seen",
        "busiest_node_share",
        "bytes_per_event",
    ]
)

# %% [markdown]
# Read the `node time` column too: it is the cost of one run at production size (the workload line
# above the table says what that is). Heroic's one range is also the cheapest read of the three: the
# 15-minute window is a timestamp filter inside the site's few rows, where the host-first key seeks once
# per host of the site and reads every row of those hosts' 15 minutes, and the time-first key reads
# every series of the window.
#
# The other half of G20 is length. Keys must stay under 4 KiB, and shorter is better because the key is
# stored with every cell. Heroic's key is long — tag names and values spelled out — so most of every
# stored byte is key. The host-first design stores fewer key bytes per cell but writes every tag as its
# own cell, so it stores more per point. Shorter tag names or values would shrink Heroic's share directly.

# %% tags=["G20"]
lengths = {}
for schema in (heroic, host_first):
    a = wb.analyze(ds, schema)
    lengths[schema.name] = {
        "example key": schema.example_key(ds),
        "longest key (B)": a.rowsizes.max_key_bytes,
        "key limit": "4 KiB",
        "key share of stored bytes": a.capacity.breakdown["row key"] / a.capacity.total_bytes,
        "bytes per point": a.capacity.bytes_per_event,
    }
wb.styled(pd.DataFrame(lengths).T)

# %% [markdown]
# ### Exercise: a key for the dashboard
#
# Order the key segments so that the site dashboard reads **one key range** (whatever hosts the site has)
# and no more than 1.5 rows for every row it returns, without creating a hotspot (busiest node at most
# 1.5× its fair share). The segments available are
# `wb.Field(column)` for any of the dataset's columns and `wb.Timestamp("ms", "epoch_ms")`. Then look at
# what your order does to `host_cpu_15min` (one host's panel). Every key needs `host`, `what` and the
# time, or two readings share a row. Replace `____` with a list of segments, e.g.
# `[wb.Timestamp("ms", "epoch_ms"), wb.Field("host"), wb.Field("what")]` (time first), run the check,
# and try other orders (host first, `site` added…). `dashboard_key.hint()` gives a hint and
# `dashboard_key.solution()` the answer.

# %%
KEY = ____   # ← your answer: a list of key segments

# %% tags=["finding"]
result = dashboard_key.check(KEY, ds)
if result.found:
    mine, a = result.found["schema"], result.found["analysis"]
    print("example key:", mine.example_key(ds))
    print(
        f"one host's panel reads {a.queries['host_cpu_15min']['waste']:,.1f} rows per row returned"
    )
result

# %% [markdown]
# ## 3 · Reversed domain names (G27)
#
# Host names end with their site: `web-0007.gew.example.com`. Sorted as written, the hosts of one site are
# scattered between the hosts of other sites, because the *start* of the name (the role and number) decides
# the order. Reversed (`com.example.gew.web-0007`) every site's hosts are contiguous: one key range per site.
# The count below is the number of separate key ranges needed to read each site's hosts.

# %% tags=["G27", "finding"]
reversed_domain = wb.Schema(
    "reversed_domain",
    wb.RowKey((wb.ReversedDomain("host"), wb.Field("what"), wb.Timestamp("ms", "epoch_ms"))),
    wb.Tall(wb.Family("m")),
)
sites = "|".join(ds.frame["site"].unique())
ranges = {}
for schema in (host_first, reversed_domain):
    keys = schema.to_cells(ds).frame["row_key"].drop_duplicates().sort_values()
    site = keys.str.extract(rf"\.({sites})\.", expand=False).dropna()
    ranges[schema.name] = {
        "example key": schema.example_key(ds),
        "key ranges to read every site, one site at a time": int((site != site.shift()).sum()),
        "sites": site.nunique(),
    }
pd.DataFrame(ranges).T

# %% [markdown]
# ## 4 · One table, many tenants, one prefix each (G17, G25)
#
# Suppose the fleet belongs to two customers: the European sites to *altostrat*, the others to
# *examplepetstore*. Rather than a table per customer (or per dataset), the best-practices page stores similar
# data in one table and gives each tenant its own key prefix: `altostrat#…`, `examplepetstore#…`. Each
# tenant's rows are then one contiguous range: the planner reads the tenant's prefix, one scan (the
# `scans` column; listing a range per host would read the same rows with more seeks, and the plan
# names that as the runner-up), and reads nothing of the other tenant (rows seen equal rows
# returned).

# %% tags=["G17"]
owner = {
    "gew": "altostrat",
    "lon": "altostrat",
    "sto": "altostrat",
    "ash": "examplepetstore",
    "sfo": "examplepetstore",
    "sin": "examplepetstore",
}
fleet = wb.from_dataframe(
    ds.frame.assign(tenant=ds.frame["site"].map(owner))[
        ["tenant", "host", "what", "time", "value"]
    ],
    entity=["tenant", "host", "what"],
    time="time",
    measures=["value"],
    name="fleet",
    queries=[
        wb.QueryIntent(f"{t}_everything", "range", f"every row of tenant {t}", entity={"tenant": t})
        for t in ("altostrat", "examplepetstore")
    ],
)
tenants = wb.Schema(
    "tenant_prefix",
    wb.RowKey(
        (wb.Field("tenant"), wb.Field("host"), wb.Field("what"), wb.Timestamp("ms", "epoch_ms"))
    ),
    wb.Tall(wb.Family("m")),
)
print("example key:", tenants.example_key(fleet))
wb.styled(wb.analyze(fleet, tenants).queries.table[["plan", "scans", "rows_seen", "rows_returned"]])

# %% [markdown]
# Now on the real emulator: both tenants go into one table, written and verified.

# %%
table = wb.emulator().load(fleet, tenants)
table

# %% [markdown]
# *examplepetstore* leaves. With its own prefix, deleting all its data is one `DropRowRange` request on the
# prefix — no scan, no row-by-row deletes. Reading the table back afterwards shows what the drop touched:
# exactly the departing tenant's events are missing, and nothing of the other tenant changed.

# %% tags=["G25", "finding"]
before = table.run(fleet.query("examplepetstore_everything")).result.rows_returned
table.drop_prefix("examplepetstore#")
after = table.verify()
wb.styled(
    pd.DataFrame(
        {
            "rows of examplepetstore before the drop": [before],
            "events missing after the drop": [len(after.missing)],
            "…of which examplepetstore": [
                int((after.missing["tenant"] == "examplepetstore").sum())
            ],
            "events of altostrat changed or lost": [
                len(after.changed) + int((after.missing["tenant"] == "altostrat").sum())
            ],
            "rows of altostrat still readable": [
                table.run(fleet.query("altostrat_everything")).result.rows_returned
            ],
        },
        index=["count"],
    ).T
)

# %% [markdown] tags=["summary"]
# ## Summary
#
# * **G16** — the workbench built Heroic's documented row key, offsets and values exactly; one row holds up
#   to ~50 days of a series, so rows are bounded in time.
# * **G20** — Heroic's common-to-granular key read the site dashboard from one range, the cheapest of
#   the three keys at production size; a host-first key needed a range per host of the site; Heroic's
#   long key is most of every stored byte, still far under 4 KiB.
# * **G27** — reversing domain names turned many scattered ranges per site into one.
# * **G17 / G25** — two tenants shared one table under their own prefixes, each read inside its prefix; a
#   single prefix drop removed exactly one tenant's rows on the emulator.
#
# ## Cleanup
#
# Drops the tables this notebook created and closes the figures.

# %% tags=["cleanup"]
wb.cleanup()
