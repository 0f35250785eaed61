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
#   title: 'Weather balloons: single-timestamp rows vs time buckets'
# ---

# %% [markdown]
# # 03 · Weather balloons: one row per reading, or time buckets?
#
# **Learning objectives**
#
# * Compare single-timestamp rows stored as one cell per measure (G15) and as one serialized cell
#   (JSON or protobuf, G14), and when one serialized column suits queries nobody can predict yet (G28).
# * Build time-bucket rows two ways: a new *column* per reading with the value in the qualifier (G12, G19),
#   and a new *cell version* per reading, which needs a garbage-collection rule (G13).
# * Split column families by retention and by access tier — raw readings, hourly stats — each with its
#   own GC rule, and measure what GC keeps and what a query reads (G18, G30).

# %% tags=["setup"]
import workbench as wb
from workbench.exercises.ex03 import ____, balloon_format, column_versions, week_hour_rows

wb.setup()

# %% [markdown]
# ## The data
#
# Balloons launched from several cloud regions report pressure, temperature, humidity and altitude
# once a minute for a couple of hours as they climb. The dataset lists the questions asked of it.

# %%
ds = wb.load_dataset("weather_balloons", size="workshop")
ds

# %% [markdown]
# ## Single-timestamp rows: a cell per measure (G15)
#
# The simplest design: one row per reading (`location#balloon#time`), one cell per measure, with
# one-letter qualifiers. Easy to read and to filter by measure. The bar shows what one reading
# costs to store and what part of it is the row key, which every cell repeats.

# %% tags=["G15"]
single = wb.preset("weather_balloons", "single_timestamp")
print(single.describe(ds))
formats = wb.compare(
    ds,
    [
        single,
        wb.preset("weather_balloons", "serialized_json"),
        wb.preset("weather_balloons", "serialized_protobuf"),
    ],
)
formats.analyses["single_timestamp"].capacity

# %% [markdown]
# ### Exercise: a smaller reading, for queries nobody has written yet
#
# The analysts cannot say which measures they will query next, and a cell per measure repeats the key
# for each of them. Pick a single-timestamp design from the gallery (the names are printed below) that
# stores **at most 100 bytes per reading** and whose weekly pressure query scans **at most 400 kB**
# (400,000 bytes).
# Replace `____` with a design name and run the check; try the others too. `balloon_format.hint()`
# gives a hint and `balloon_format.solution()` the answer; the next two sections come back to it.

# %%
print(wb.pattern_names("weather_balloons"))
choice = ____   # ← your design, e.g. "single_timestamp"

# %%
balloon_format.check(choice, ds)

# %% [markdown]
# ## The same rows, serialized (G14)
#
# Serializing the reading into one cell (JSON or protobuf) writes the row key, family, qualifier and
# timestamp once per reading instead of four times. The catch: a filter cannot pick one measure out
# of a serialized cell. The table puts both sides together — bytes per event, and what the weekly
# pressure query (`location_pressure_week`, one measure) scans and returns:

# %% tags=["G14", "finding"]
import pandas as pd

one_measure = pd.DataFrame(
    {
        name: a.queries.table.loc["location_pressure_week", ["bytes_seen", "bytes_returned"]]
        for name, a in formats.analyses.items()
    }
).T
one_measure.insert(0, "bytes_per_event", formats.table["bytes_per_event"].round(1))
wb.styled(one_measure)

# %% [markdown]
# With a cell per measure, the pressure query returns only pressure cells but still scans whole rows;
# the serialized designs return every measure but, being smaller, scan fewer bytes in total. Measured on the
# emulator — both designs written (the first one verified by reading it back), and the pressure query run
# on each:

# %%
single_table = wb.emulator().load(ds, single)
single_table

# %%
proto = wb.preset("weather_balloons", "serialized_protobuf")
# read-back check shown above for the first design; skipped to save time
proto_table = wb.emulator().load(ds, proto, verify=False)
runs = {
    t.schema.name: t.run(ds.query("location_pressure_week")).result
    for t in (single_table, proto_table)
}
measured = pd.DataFrame(
    {
        name: {
            "rows returned": r.rows_returned,
            "bytes returned": r.bytes_returned,
            "bytes returned (model)": r.modelled.bytes_returned,
            "bytes seen (model only)": r.modelled.bytes_seen,
            "emulator agrees with the model": r.agrees,
        }
        for name, r in runs.items()
    }
).T
print("returns fewer bytes:", measured["bytes returned"].astype(int).idxmin())
wb.styled(measured)

# %% [markdown]
# The emulator measures what a read *returns* — rows, cells, bytes — and the last column compares those
# with the model. It does not report what it scanned, so "bytes seen" is the model's figure alone.
# The design printed above returns fewer bytes: with a cell per measure Bigtable drops the other measures
# before sending, while protobuf returns whole readings — the flip side of scanning less.

# %% [markdown]
# ## When the queries are not known yet (G28)
#
# If nobody can say which measures tomorrow's queries will need, one serialized column per row is the
# flexible choice: a new measure is a new field in the message, not a schema change, and every query
# reads the same compact cell. Here is what every query of the dataset scans under each format:

# %% tags=["G28", "finding"]
scanned = pd.DataFrame(
    {f"{name}: bytes seen": a.queries.table["bytes_seen"] for name, a in formats.analyses.items()}
)
scanned["protobuf ÷ single"] = (
    scanned["serialized_protobuf: bytes seen"] / scanned["single_timestamp: bytes seen"]
)
wb.styled(scanned)

# %% [markdown]
# Every query scans fewer bytes with protobuf (the last column is below 1× for each). What is lost is
# filtering *inside* Bigtable: each reader decodes whole readings, and a value cannot be changed without
# rewriting the cell.
#
# ## Time buckets, a new column per reading (G12)
#
# The time-series patterns page's other family of designs keeps many readings per row: here one row per
# balloon, measure and week (`us-west2#b00001#pressure#20150223`), and each reading becomes a **new
# column whose qualifier is the value itself**; the cell is empty. The first cells:

# %%
columns = wb.preset("weather_balloons", "bucket_new_columns")
# the cells as stored: qualifier, timestamp in µs
wb.as_written(columns.to_cells(ds).frame.head(4))

# %% [markdown]
# Row size follows the bucket width. The same design with hour and week buckets — the rows,
# their largest size, and what one hour of a balloon costs to read.
#
# ### Exercise: predict the rows of one balloon's hour
#
# With **week** buckets, how many rows will `balloon_hour` (every measure of balloon b00001 over the
# first hour of its flight) read? Replace `____` with a whole number (exact) and run the check before
# the table below shows it. `week_hour_rows.hint()` gives a hint and `week_hour_rows.solution()` the
# answer.

# %%
WEEK_HOUR_ROWS = ____   # ← your answer: a number of rows

# %%
week_hour_rows.check(WEEK_HOUR_ROWS, ds)

# %% tags=["G12", "finding"]
widths = wb.compare(
    ds,
    [wb.preset("weather_balloons", "bucket_new_columns", bucket=w) for w in ("hour", "week")],
    names=["hour buckets", "week buckets"],
)
widths.view(
    ["rows", "max_row_cells", "max_row_bytes", "bytes_per_event", "balloon_hour: rows seen"]
)

# %% [markdown]
# A balloon flies for a couple of hours, so a week bucket holds a whole flight of one measure in one row
# and an hour of the flight is read from one row per measure; hour buckets cut flights into more, smaller
# rows and the same hour touches more of them.
#
# ## Qualifiers carry data (G19)
#
# A qualifier can hold data (up to 16 KiB). Compare the bucket design with `tall_per_metric`, which
# keeps the same measure-in-the-key idea but one row per reading with the value in the cell: putting the
# value into the qualifier, under a short bucket key, saves bytes on every reading. The limits table
# confirms the qualifiers stay far below 16 KiB.

# %% tags=["G19", "finding"]
value_cells = wb.analyze(ds, wb.preset("weather_balloons", "tall_per_metric"))
in_bucket = widths.analyses["week buckets"]
in_qualifier, in_cell = in_bucket.capacity.bytes_per_event, value_cells.capacity.bytes_per_event
print(f"value in the qualifier (bucket_new_columns): {in_qualifier:.1f} bytes per reading")
print(f"value in a cell (tall_per_metric):           {in_cell:.1f} bytes per reading")
in_bucket.rowsizes  # its limits table (largest against each limit), then the row sizes

# %% [markdown]
# ## Time buckets, a new cell per reading — and garbage collection (G13)
#
# The patterns page's `week#location#balloon` rows keep one column per measure, and every reading
# adds a new **version** (cell) to it. Versions pile up until a GC rule removes them, so this design
# always comes with one; here raw readings are kept for two days (`maxage`). The emulator stores GC
# rules but collects lazily, so the workbench applies the rule when it reads, judged as of the end of
# the data (the data is from 2015: against today's clock, everything would be gone).

# %%
versioned = wb.preset("weather_balloons", "bucket_new_cells", retention="2D")
print(versioned.describe(ds))
versioned_table = wb.emulator().load(ds, versioned)
versioned_table

# %% [markdown]
# ### Exercise: predict the versions in a column
#
# How many versions (cells) does one column of this design hold, as the median over its columns, before
# GC? Replace `____` with a number (±10 % is accepted) and run the check before the next cell prints it.
# `column_versions.hint()` gives a hint and `column_versions.solution()` the answer.

# %%
COLUMN_VERSIONS = ____   # ← your answer: a number of versions

# %%
column_versions.check(COLUMN_VERSIONS, ds)

# %% tags=["G13", "finding"]
stored = versioned_table.read_all()  # what the server holds
live = versioned_table.read(wb.ReadPlan("every live cell")).cells  # what GC leaves readable
per_column = stored.frame.groupby(["row_key", "qualifier"]).size()
print(f"versions per column: median {per_column.median():.0f}, max {per_column.max()}")
kept_share = len(live) / len(stored)
print(f"cells stored {len(stored):,}; left by the 2-day GC rule {len(live):,} ({kept_share:.0%})")

# %% [markdown]
# Every column holds a whole flight as versions; the rule leaves only the readings of the last two days
# readable. Note the other price of the patterns page's key: the week leads it, so every write of a week
# lands in one part of the key space (notebook 04 measures that).
#
# ## Families by retention and by access tier (G18, G30)
#
# GC is configured per column family, so data with different lifetimes belongs in different families.
# The design below keeps the single-timestamp raw readings in family `raw` for two days, and writes
# hourly summary rows (`agg#hourly#…`: count, min, max, mean) to family `stats`, kept for two years —
# the blog's raw/stats split, each tier with its own rule.

# %%
tiers = wb.Schema(
    "access_tiers",
    single.key,
    wb.Tall(
        wb.Family("raw", gc=wb.max_age("2D")),
        {"pressure": "p", "temperature": "t", "humidity": "h", "altitude": "a"},
    ),
    aggregates=wb.Aggregates(
        "hour",
        "hourly",
        "agg",
        ("count", "min", "max", "mean"),
        wb.Family("stats", gc=wb.max_age("730D")),
    ),
)
tiers_table = wb.emulator().load(ds, tiers)
print(tiers.describe(ds))
tiers_table

# %% tags=["G18", "finding"]
written = tiers_table.cells
kept = tiers_table.read(wb.ReadPlan("every live cell")).cells
by_family = pd.DataFrame(
    {
        "bytes written": written.frame.assign(b=written.cell_bytes()).groupby("family")["b"].sum(),
        "bytes kept after GC": kept.frame.assign(b=kept.cell_bytes()).groupby("family")["b"].sum(),
    }
)
by_family["kept (share)"] = by_family["bytes kept after GC"] / by_family["bytes written"]
wb.styled(by_family)

# %% [markdown]
# Raw readings older than two days are gone; every hourly summary is still there. A dashboard that
# wants one balloon's week touches only the `stats` family, and reads a fraction of the bytes the raw
# readings of the same week cost (modelled on everything written, before GC):

# %% tags=["G30", "finding"]
week = dict(
    entity={"location": "us-west2", "balloon_id": "b00001"}, start="2015-03-01", end="2015-03-08"
)
raw_week = wb.QueryIntent("raw_week", "range", "one balloon's raw readings for the week", **week)
stats_week = wb.QueryIntent(
    "stats_week", "range", "the same balloon's hourly summaries", aggregate="hourly:mean", **week
)
tier_cost = pd.DataFrame(
    {
        q.name: {
            "families read": ", ".join(tiers.plan(q).filter.families or ("all",)),
            "rows": tiers.plan(q).evaluate(written).rows_seen,
            "bytes read": tiers.plan(q).evaluate(written).bytes_seen,
        }
        for q in (raw_week, stats_week)
    }
).T
wb.styled(tier_cost)

# %% [markdown]
# And on the emulator, with GC applied as of the end of the data: this balloon flew on 1 March, so its
# raw readings are past the two-day rule and the raw query finds nothing, while its hourly stats are
# still served:

# %%
wb.styled_rows(
    pd.DataFrame({q.name: tiers_table.run(q).figures()["measured"] for q in (raw_week, stats_week)})
)

# %% [markdown] tags=["summary"]
# ## Summary
#
# * A cell per measure repeated the row key four times per reading; serialized cells stored each reading
#   in fewer bytes and, for the one-measure weekly query, scanned fewer bytes although they could not filter (G15, G14).
# * Protobuf scanned fewer bytes than the cell-per-measure design for every query of the dataset: the
#   flexible choice when queries are uncertain (G28).
# * Time buckets with a new column per reading held a whole flight of one measure in one row; the value in
#   the qualifier saved bytes per reading against a value cell, with qualifiers far below 16 KiB (G12, G19).
# * Time buckets with a new cell per reading piled up versions per column; a two-day GC rule left only part
#   of them readable (G13).
# * Raw and stats families with their own GC rules: raw readings expired after two days while every hourly
#   summary stayed, and a dashboard reading only `stats` touched a fraction of the bytes (G18, G30).

# %% [markdown]
# ## Cleanup
#
# Drops the tables this notebook created and closes the figures.

# %% tags=["cleanup"]
wb.cleanup()
