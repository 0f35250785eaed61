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
#   title: 'Energy meters: sequential IDs, updated rows, pre-aggregation'
# ---

# %% [markdown]
# # 06 · Energy meters: sequential IDs, frequently updated rows, pre-aggregation
#
# **Learning objectives**
#
# * See when sequential numeric IDs at the front of a key concentrate writes, and what reversing them
#   does (G23).
# * Compare one row per meter updated with every reading (`100001#kwh`, like `4c410523#memusage`) with a
#   new row per reading (`100001#kwh#1425168000000`): writes per row, row growth against Bigtable's limits,
#   and read cost (G24, G10, G03).
# * Serve dashboards from pre-aggregated rows (`agg#hourly#…`, `agg#daily#…`) and measure the rows a
#   summary reads, raw against pre-aggregated (G29) — on the real emulator.

# %% tags=["setup"]
import workbench as wb
from workbench.exercises.ex06 import (
    ____,
    daily_panel,
    hourly_day_dataset,
    hourly_day_rows,
    latest_rows,
)

wb.setup()

# %% [markdown]
# ## The data
#
# Smart electricity meters with sequential numeric IDs (100001, 100002, …) report the energy used and the
# line voltage every 15 minutes.

# %%
ds = wb.load_dataset("energy_meters", size="workshop")
ds

# %% [markdown]
# ## 1 · Sequential IDs: harmless until new IDs are the busy ones (G23)
#
# Two designs put the meter first, then the time: the padded ID as it is (`00100001#201503010000`) and the
# ID written backwards (`100001#…`, `200001#…` for 100002). In the workshop data every meter reports from
# day one, so each meter's newest rows land at the end of its own range and both designs spread the writes
# alike. The guideline is about a different situation: IDs are handed out in order, and *new* meters (or
# users) are where new traffic comes from. Below, the same readings as if the meters had been installed one
# after another over the period (each meter's readings start on its installation day): with sequential IDs
# the newest meters sit next to each other at the end of the key space.

# %% tags=["G23", "finding"]
import pandas as pd

sequential = wb.preset("energy_meters", "sequential_id")
reversed_id = wb.Schema(
    "reversed_id",
    wb.RowKey((wb.ReversedId("meter_id"), wb.Timestamp("minute"))),
    wb.Tall(wb.Family("r"), {"kwh": "k", "voltage": "v"}),
)
f = ds.frame
order = f["meter_id"].rank(method="dense") - 1
installed = f["time"].min() + (f["time"].max() - f["time"].min()) * 0.8 * order / order.max()
rollout = wb.from_dataframe(
    f[f["time"] >= installed],
    entity=["meter_id"],
    time="time",
    measures=["kwh", "voltage"],
    name="energy_rollout",
)
spread = {}
for data in (ds, rollout):
    for schema in (sequential, reversed_id):
        for nodes in (3, 6):
            a = wb.analyze(data, schema, nodes=nodes)
            spread[(data.name, schema.name, nodes)] = {
                "example key": schema.example_key(data),
                "busiest node ÷ fair share": a.keyspace.hotspot_factor,
            }
pd.DataFrame(spread).T.rename_axis(["data", "design", "nodes"]).style.format(
    {"busiest node ÷ fair share": "{:.2f}×"}
)

# %% [markdown]
# The model splits a busy tablet by load and moves tablets between nodes a few minutes after the load
# shows (the settle time Google's performance page asks a load test to allow). New meters with neighbouring sequential IDs do
# start in one tablet, at the end of the key space — but each meter is its own write frontier, so the
# first load split separates them and the next rebalance spreads them. Here that leaves the two designs
# close, in the roll-out as with every meter reporting from the start: sequential IDs cost a burst on one
# node each time a batch of meters starts, not a lasting hotspot. The heat map of the sequential roll-out
# shows the new meters starting at the bottom of the key space, one after another; the hot-tablets list
# and the 1/3/10/30-node sweep under it show how far adding nodes helps.

# %%
wb.analyze(rollout, sequential, nodes=6).keyspace

# %% [markdown]
# ### What a production cluster needs
#
# At 50,000 readings a second the same design needs nodes for two things: CPU for the reads and writes
# (the busiest node under the 70 % CPU target, its hotspot included) and room for the readings its
# family's GC rule keeps. Bigtable counts *compressed* bytes against a node (the ratio comes from
# compressing this design's own cells), and a node is best kept at most 70 % full (5 TB per SSD node).
# The rate is in **events** per second: a design that wrote every reading twice would need twice the
# writes. The ceiling is the highest rate the design's busiest unsplittable unit (a write frontier, a
# salt bucket, one hot row) takes, whatever the node count; here no unit limits it.
#
# Production is stated once, as a `wb.Workload`, and the sample gives only its shape. Two statements
# matter here. The 50,000 readings a second come from *more meters like these* (`growth="grow"`: each
# still reports every 15 minutes, so about 45 million meters). The default, `"fixed"`, is right for a
# fixed set such as currency pairs; here it would have the 31 sample meters each send 1,613 readings a
# second, and one meter's day would be 139 million readings, about 230 node-seconds a run. And with 45
# million meters the fleet-wide hour (`all_meters_hour`) lists one key range per meter: 45 million
# ranges, sent as 44,954 requests of at most 1,000 side by side, about 2,250 node-seconds a run, still
# far cheaper than scanning the year kept. It is an export, so it runs as a Data Boost batch, off the
# serving nodes (`per_s=0`). A query whose rate you do not state sizes no node: its cost per run is
# in the query table (the last table below). The line under the figures says which inputs are yours and
# which are defaults.

# %% tags=["finding"]
production = wb.Workload(
    events_per_s=50_000,  # readings a second across the fleet
    growth="grow",  # more meters like the sample's, each one reading per 15 minutes
    queries={"all_meters_hour": wb.QueryLoad(per_s=0)},  # the fleet export runs on Data Boost
)
at_production = wb.analyze(ds, sequential, workload=production)
cap = at_production.capacity
print(cap.verdict())
print(cap.production.inputs_line())  # what the figures assumed: yours, then the defaults
display(
    cap.view(
        [
            "CPU at the peak (nodes, reads + writes)",
            "nodes for CPU (busiest ≤ 70%)",
            "ceiling (events/s, busiest unit at 70% CPU)",
            "kept, compressed (TB, one cluster)",
            "nodes for storage (5 TB per SSD node at 70%)",
            "compression (snappy, measured on the cells)",
            "total per month (USD)",
        ]
    )
)
# each query's one run at production: the ranges and requests its plan sends, and its node time
wb.styled(
    at_production.queries.table[
        ["production_ranges", "production_requests", "production_rows_seen", "production_node_ms"]
    ]
)

# %% [markdown]
# ### The production sheet
#
# The same figures, one line each, as a reviewer checks them in a meeting: each line's formula with
# its numbers, its inputs (yours, a default, measured on the sample, or one of Google's documents)
# and the documented figure it rests on. Here the fleet export is sent to **Data Boost** once an
# hour (`data_boost=True`): it takes no node CPU and is billed in serverless processing unit hours
# from its node time (1,000 SPUs do one node's work, at least 60 SPU-seconds a request), and
# backups are kept 7 days, billed incrementally (a backup shares storage with its table, so only
# what the table dropped while they were kept is billed). Beside the 70 % average CPU target the
# sheet shows the hottest node against 90 %, and an autoscaling minimum, maximum and CPU target.

# %%
exported = production.replace(
    queries={"all_meters_hour": wb.QueryLoad(per_s=1 / 3600, data_boost=True)}
)
sheet = wb.production_sheet(ds, sequential, exported, settings=wb.Settings(backup_retention_days=7))
sheet

# %% [markdown]
# A year of readings is mostly old readings. With **tiered storage** (Preview) cells older than an age
# you choose (at least 30 days, by *cell timestamp*) move to an infrequent-access tier that stores more
# per node for less, but serves only about 100 reads/s per node. The same design with readings older
# than 90 days tiered: storage and its bill split into hot and cold, and each query is told which tier
# its rows come from (here every query asks for recent days: hot). The emulator cannot run tiers (it
# silently drops the table's tiering rule), so these are the model's figures only.

# %% tags=["finding"]
tiered = wb.analyze(ds, sequential, workload=production, tiered_after_days=90).capacity
print(tiered.verdict())
print(tiered.production.inputs_line())  # the same workload, the cold tier added
print(tiered.query_tier_texts())
tiered.view(
    [
        "…hot tier, SSD (GiB)",
        "…cold tier, older than 90 days (GiB)",
        "nodes for storage (5 TB per SSD node at 70%)",
        "total per month (USD)",
    ]
)

# %% [markdown]
# ## 2 · One row per meter, updated with every reading (G24, G10, G03)
#
# The tempting design keeps one row per meter and measure, `100001#kwh`, and writes every reading into it as
# a new version of the same cell. The best-practices page warns against exactly this (`4c410523#memusage`):
# one row takes every write of its device, and it keeps growing, because old versions take space until
# garbage collection removes them. The alternative adds the time, `100001#kwh#1425168000000`, so every reading
# is a new row. The table compares them on the workshop data.

# %% tags=["G24", "finding"]
measures = ("kwh", "voltage")
updated = wb.Schema(
    "row_per_meter",
    wb.RowKey((wb.Field("meter_id"), wb.Metric(measures))),
    wb.NewCells(wb.Family("r")),
)
per_reading = wb.Schema(
    "row_per_reading",
    wb.RowKey((wb.Field("meter_id"), wb.Metric(measures), wb.Timestamp("ms", "epoch_ms"))),
    wb.Tall(wb.Family("r")),
)
growth = {}
analyses = {}
for schema in (updated, per_reading):
    a = analyses[schema.name] = wb.analyze(ds, schema)
    growth[schema.name] = {
        "example key": schema.example_key(ds),
        "rows": a.rowsizes.n_rows,
        "writes to the busiest row": int(a.rowsizes.cells.max()),
        "largest row now (B)": a.rowsizes.max_bytes,
        "largest row after 12 months (B)": a.rowsizes.projected_max_bytes,
        "rows that never stop growing": a.rowsizes.open_rows,
    }
wb.styled(pd.DataFrame(growth).T)

# %% [markdown]
# At one reading every 15 minutes a meter's row stays small even after a year. The page's example writes
# once per *second*: 900 times as many versions in the same row. The row-size figure shows the updated
# design's rows now and projected over a year (its 62 rows that never close are the `kwh` row and the
# `voltage` row of each of the 31 meters); the line below scales the projection to one reading a second
# and sets it against the limits (100 MB advisory, 256 MB hard).

# %% tags=["G10"]
rows = analyses["row_per_meter"].rowsizes
display(rows)
per_second = rows.projected_max_bytes * 900
print(
    f"largest row after 12 months at one reading per second: {per_second / 1e6:,.0f} MB "
    f"({per_second / 256e6:.1f}× the 256 MB hard limit)"
)

# %% [markdown]
# Versions also cost on the read side. To answer "meter 100001 on 1 March" the updated design reads few
# rows but every version of every column in them, while the row-per-reading design reads just the cells
# of that day. For "its latest reading" the versioned row is read whole, because the newest version sits
# in one row with all the old ones. The row-per-reading design keys the measure before the time
# (`100001#kwh#1425168000000`), and Cloud Bigtable can scan a range backwards with a row limit of 1.
#
# ### Exercise: rows read for the latest reading
#
# Predict how many rows `row_per_reading` reads for `latest_reading` (meter 100001's latest reading of
# both measures) on Cloud Bigtable, before the table below shows it. Replace `____` with a whole number
# and run the check; `latest_rows.hint()` helps.

# %%
LATEST_ROWS = ____   # ← your answer: a number of rows

# %%
latest_rows.check(LATEST_ROWS, ds, per_reading)

# %% [markdown]
# The table compares cells seen with cells returned for both designs.

# %% tags=["G03"]
costs = pd.concat(
    {
        name: a.queries.table[
            [
                "kind",
                "rows_seen",
                "cells_seen",
                "cells_returned",
                "bytes_seen",
                "emulator_rows_seen",
            ]
        ]
        for name, a in analyses.items()
    }
)
wb.styled(costs.loc[(slice(None), ["meter_day", "latest_reading"]), :])

# %% [markdown]
# The versioned row is scanned whole for one cell back (cells seen against cells returned). The
# row-per-reading design reads one row per measure — one reverse scan with a row limit of 1 for `kwh`,
# one for `voltage`; on the emulator, which cannot scan backwards, it reads each range forward
# (`emulator_rows_seen`). Versions are for amended values whose history matters, not for a stream of new
# readings.

# %% [markdown]
# ## 3 · Pre-aggregated rows for dashboards (G29)
#
# A dashboard rarely wants raw readings: it shows hourly or daily totals. Computing them at write time and
# storing them under their own prefix (`agg#hourly#00100001#2015030118`) in their own family turns "a day of
# readings" into fewer rows. The gallery's `hourly_aggregates` design does that; the query below
# (`meter_day_hourly`) asks for one meter's hourly sums on 1 March, beside the raw readings of that day
# (`meter_day`).
#
# ### Exercise: rows for a day of hourly totals
#
# Predict how many rows `meter_day_hourly` reads with `hourly_aggregates`. Replace `____` with a whole
# number and run the check; `hourly_day_rows.hint()` helps.

# %%
HOURLY_ROWS = ____   # ← your answer: a number of rows

# %%
hourly_day_rows.check(HOURLY_ROWS, ds, wb.preset("energy_meters", "hourly_aggregates"))

# %% tags=["G29", "finding"]
hourly = wb.preset("energy_meters", "hourly_aggregates")
day = ds.query("meter_day")
side = pd.DataFrame(
    {
        "raw readings (meter_day)": wb.analyze(ds, hourly).queries["meter_day"],
        "hourly rows (meter_day_hourly)": wb.analyze(hourly_day_dataset(ds), hourly).queries[
            "meter_day_hourly"
        ],
    }
)
wb.styled_rows(side.loc[["plan", "rows_seen", "rows_returned", "cells_returned", "bytes_seen"]])

# %% [markdown]
# Rows read drop by the number of readings per hour (four); bytes do not, because each summary row holds
# several statistics of two measures. The win grows with the bucket.
#
# ### Exercise: a daily-usage panel in at most one row per day
#
# The billing page shows meter 100001's total energy per day over all ten days. Choose the summary bucket
# so that the panel reads no more rows than there are days and still has a total for each day. Replace
# `____` with a bucket and run the check; try `"hour"` to see it fail. `daily_panel.hint()` gives a hint and `daily_panel.solution()` the answer.

# %%
BUCKET = ____   # ← your answer: a bucket such as "hour" or "week"

# %% tags=["finding"]
result = daily_panel.check(BUCKET, ds, hourly)
# section 4 goes on with your design once it passes, and with the solution's until then
found = result.found if result.passed else daily_panel.reference(ds, hourly)
design, billing = found["design"], found["billing"]
panel = billing.query("meter_daily_usage")
print("plan:", found["cost"]["plan"] if result.passed else "shown once the check passes")
result

# %% [markdown]
# ## 4 · On the emulator: raw rows and summaries side by side
#
# The design from the exercise goes to the real emulator: raw readings and summary rows in one table,
# families `r` and `s`. Loading verifies the raw events read back identical; then the panel is run and
# measured beside the model, and the summary cells that came back are shown next to the same totals computed
# from the raw events with pandas.

# %%
table = wb.emulator().load(billing, design)
table

# %%
run = table.run(panel)
run

# %%
read = run.result.cells.frame
read = read[read["qualifier"] == "kwh_sum"].assign(kwh_sum=lambda d: d["value"].map(float))
truth = (
    ds.frame[ds.frame["meter_id"] == day.entity["meter_id"]]
    .set_index("time")["kwh"]
    .resample("1D")
    .sum()
)
pd.DataFrame(
    {
        "row key read back": read["row_key"].to_numpy(),
        "kWh (summary row)": read["kwh_sum"].to_numpy(),
        "kWh (sum of raw readings)": truth.round(3).to_numpy(),
    }
)

# %% [markdown] tags=["summary"]
# ## Summary
#
# * **G23** — with meters installed one after another, the newest sequential IDs start in one tablet at the
#   end of the key space; load splits and rebalancing (a few minutes) spread them, so sequential and
#   reversed IDs ended close. The cost of sequential IDs is the burst before the split lands.
# * **G24** — one row per meter took every one of its readings as a new version and never stopped growing;
#   a row per reading kept every row to one write.
# * **G10** — that row stays small at one reading per 15 minutes, but at one reading per second it would pass
#   the 256 MB hard limit within a year.
# * **G03** — reading a day or the latest value from the versioned row scanned every version.
# * **G29** — hourly summary rows cut the rows a day's panel reads by four; daily rows read one per day
#   (a wider bucket loses the days the page shows). On the emulator the summary totals matched the raw
#   readings.
#
# ## Cleanup
#
# Drops the tables this notebook created and closes the figures.

# %% tags=["cleanup"]
wb.cleanup()
