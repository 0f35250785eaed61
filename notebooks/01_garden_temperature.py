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
#   title: 'Garden temperature: tall and narrow vs short and wide'
# ---

# %% [markdown]
# # 01 · Garden temperature: tall and narrow, or short and wide?
#
# **Learning objectives**
#
# * Compare a *tall and narrow* table (one reading per row) with a *short and wide* one
#   (a month of readings per row, the paper's `VEGGIEGARDEN#20150301`) on rows, row sizes and query cost (G02).
# * Check row sizes against Cloud Bigtable's limits, and see what keeps a wide row bounded (G10).
# * See why numbers in qualifiers and keys must be zero-padded: Bigtable sorts bytes, not numbers (G21).
# * Prefer new rows to piling readings up as versions of one cell (G03).

# %% tags=["setup"]
import workbench as wb
from workbench.exercises.ex01 import ____, garden_month, gardens_day_rows, versions_cells

wb.setup()

# %% [markdown]
# ## The data
#
# One thermometer per garden, read every morning from 1 March 2015. `VEGGIEGARDEN`'s March
# readings are the paper's own numbers (60.4 °F on the 1st, 61.2 °F on the 2nd, …). The dataset
# also carries the questions people ask of it: these *query intents* are what every design
# below is judged on.

# %%
ds = wb.load_dataset("garden_temperature", size="workshop")
ds

# %% [markdown]
# ## Exercise 1: predict the design for a monthly dashboard
#
# Before anything is measured: a dashboard shows one garden's month at a time. The gallery has a
# few ready-made designs for this dataset (their names are printed below). Which one will read
# VEGGIEGARDEN's March (`garden_month`) as **exactly one row**, with **no row ever passing 10 kB**,
# even after a year of data? Guess from the names, replace `____` with one and run the check; the
# check measures it, and the sections below show why. Try the others too, to see which condition
# each one breaks. `garden_month.hint()` helps, `garden_month.solution()` tells.

# %%
print(wb.pattern_names("garden_temperature"))
choice = ____   # ← your design, e.g. "daily_rows"

# %%
garden_month.check(choice, ds)

# %% [markdown]
# ## Two designs
#
# * **tall**: one row per garden per reading, key `garden#timestamp`, one cell.
# * **month_rows**: one row per garden per month, key `garden#YYYYMM01`; the day of the month is
#   the column qualifier (`TEMP:1` … `TEMP:31`), exactly the paper's wide row.
#
# Each design turns the same events into the exact cells Bigtable would store. Below: the example
# key of each, and the cells of the paper's row `VEGGIEGARDEN#20150301` as the month design stores them.

# %%
tall = wb.preset("garden_temperature", "tall")
month = wb.preset("garden_temperature", "month_rows")
print("tall      :", tall.example_key(ds))
print("month_rows:", month.example_key(ds))

month_cells = month.to_cells(ds).frame
paper_row = month_cells[month_cells["row_key"] == "VEGGIEGARDEN#20150301"]
paper_row[["row_key", "family", "qualifier", "value"]].head(6)

# %% [markdown]
# The first cells are `TEMP:1 = 60.4`, `TEMP:2 = 61.2`, … as in the paper. How many rows and
# cells does each design produce, and what does a month of one garden cost to read?
# The comparison below measures every design on every query of the dataset.
#
# ### Exercise 2: predict a cross-garden read
#
# The dataset's query `all_gardens_day` asks for *every garden on 15 March 2015*. Before
# the comparison shows it: how many rows will the **month_rows** design read to answer it? The
# answer is a whole number and must be exact. `gardens_day_rows.hint()` helps.

# %%
day_rows = ____   # ← your prediction: rows read by month_rows for all_gardens_day

# %%
gardens_day_rows.check(day_rows, ds, month)

# %% tags=["G02", "finding"]
cmp = wb.compare(ds, [tall, month])
cmp.view(
    [
        "rows",
        "cells",
        "max_row_cells",
        "max_row_bytes",
        "bytes_per_event",
        "garden_month: rows seen",
        "all_gardens_day: rows seen",
    ]
)

# %% [markdown]
# Same cells, far fewer rows: the month design reads the paper's month as **one row**, where the
# tall design reads one row per day (see `garden_month: rows seen`). It also stores fewer bytes per
# event, because the row key is written once per cell and the month key is shorter than a
# timestamp. The price is flexibility: every question that cuts across months or gardens
# (`all_gardens_day`) still scans, and the design only works because a month has at most 31 mornings.
# The full side-by-side view:

# %%
cmp

# %% [markdown]
# ## Write it to the real emulator and read it back
#
# The workbench creates the table and its column families, writes every cell, reads the table
# back and checks it against the dataset. Then it runs the month query against the emulator and
# shows the measured answer beside the model's prediction. The table's summary ends with the `cbt`
# command that counts its rows: paste it into a terminal to check the table with another client
# (the cleanup cell at the end drops the table, so run it before that).

# %%
table = wb.emulator().load(ds, month)
table

# %%
march = table.run(ds.query("garden_month"))
march

# %% [markdown]
# ## Row sizes against the limits (G10)
#
# Cloud Bigtable accepts big rows, but not unbounded ones: keep a row under 100 MB (256 MB is a hard
# limit) and a cell under 10 MB. The emulator enforces none of these, so the workbench checks them.
# The month row is bounded by the calendar: at most 31 cells, whatever happens.

# %% tags=["G10"]
month_analysis = cmp.analyses["month_rows"]
month_analysis.rowsizes

# %% [markdown]
# *Bounded* is necessary but not sufficient: the row must also stay *small*. The table below takes the
# bytes one reading costs in the month row (measured above) and asks how big a month row would be if
# the gardens reported more often (an estimate: it reuses this row's measured bytes per reading). One reading
# a day is tiny; one a second brings the row close to the 100 MB guideline, and ten a second take it past the
# 256 MB hard limit — the same design, broken only by the data rate.

# %% tags=["G10", "finding"]
import pandas as pd

rs = month_analysis.rowsizes
bytes_per_cell = rs.bytes.sum() / rs.cells.sum()
limit = rs.settings.row_advisory_bytes
per_month = pd.Series(
    {
        "daily": 31,
        "hourly": 31 * 24,
        "every minute": 31 * 24 * 60,
        "every second": 31 * 24 * 3600,
        "10 per second": 31 * 24 * 36000,
    },
    name="readings per month row",
)
what_if = pd.DataFrame(
    {"readings per month row": per_month, "row bytes": per_month * bytes_per_cell}
)
what_if["under 100 MB guideline"] = what_if["row bytes"] < limit
what_if["under 256 MB hard limit"] = what_if["row bytes"] < rs.settings.row_hard_bytes
wb.styled(what_if)  # counts with separators, sizes in the unit that reads (kB, MB)

# %% [markdown]
# ## Unpadded numbers sort as text (G21)
#
# Bigtable keeps the cells of a row sorted by qualifier **bytes**. The paper's qualifiers are the
# day of the month without padding, so `10` sorts before `2`. The query result read back from the
# emulator above comes in the order Bigtable returns it:

# %% tags=["G21"]
returned = march.result.cells.frame["qualifier"].tolist()
print("order returned by the emulator:", returned[:14], "…")
first_week = [q for q in returned if "1" <= q <= "7"]
meant = "a qualifier range '1'…'7' (meant: the first week)"
print(f"{meant} matches {len(first_week)} days:", first_week)

# %% [markdown]
# A column range meant to return the first week returns most of the month. Padding the day to two
# digits (`01` … `31`) makes byte order and number order agree. Same data, same design, one parameter
# (written to a table of its own, named after the first with `-padded`: the first keeps the unpadded
# design, and each notebook kernel's table IDs carry its own tag, so two kernels never share one):

# %% tags=["G21", "finding"]
padded = wb.preset("garden_temperature", "month_rows", pad=2)
padded_table = wb.emulator().load(ds, padded, table_id=f"{table.table_id}-padded")
padded_march = padded_table.run(ds.query("garden_month"))
padded_order = padded_march.result.cells.frame["qualifier"].tolist()
print("order returned by the emulator:", padded_order[:14], "…")
padded_week = [q for q in padded_order if "01" <= q <= "07"]
print(f"a qualifier range '01'…'07' matches {len(padded_week)} days:", padded_week)

# %% [markdown]
# ## New rows, not new versions (G03)
#
# A tempting shortcut: one row per garden, and every reading written as a new *version* of the same
# cell `TEMP`. Bigtable allows it — each cell has a timestamp — but the row never closes and every
# read of that garden walks through all of its history. The design, as the gallery describes it:

# %%
versions = wb.preset("garden_temperature", "unbounded_row")
print(versions.describe(ds))

# %% [markdown]
# ### Exercise 3: predict the cells a month costs
#
# With this design, `garden_month` asks for VEGGIEGARDEN's 31 March readings. How many cells
# will Bigtable **scan** to return them? A prediction within ±10 % passes; the dataset's summary
# near the top has what you need. `versions_cells.hint()` helps.

# %%
scanned_cells = ____   # ← your prediction: cells scanned for garden_month

# %%
versions_cells.check(scanned_cells, ds, versions)

# %% [markdown]
# The comparison measures it against the two designs above: cells kept in one column, and cells
# scanned to answer one month.

# %% tags=["G03", "finding"]
by_design = wb.compare(ds, [tall, month, versions])
v = by_design.analyses["unbounded_row"].queries.table
max_versions = by_design.table.loc["unbounded_row", "max_row_cells"]
print(f"the unbounded row keeps up to {max_versions:,} versions of TEMP in one row")
wb.styled(v[["rows_seen", "cells_seen", "cells_returned", "bytes_seen", "bytes_returned"]])

# %% [markdown]
# To answer one month, the versioned design scans the garden's whole history (`cells_seen`) to return a
# month of it (`cells_returned`); the month and tall designs read only what they return. A garbage-collection
# rule (keep the newest *N* versions) would cap the row — by deleting the history the query needs.
# Versions are for amended values whose history matters, not for a time series. The measured read on the emulator:

# %%
versions_table = wb.emulator().load(ds, versions)
versions_table.run(ds.query("garden_month"))

# %% [markdown] tags=["summary"]
# ## Summary
#
# * The wide month row holds the paper's `TEMP:1` … `TEMP:31` cells: the month query read one row
#   instead of one per day, with fewer bytes per event (G02).
# * Its size is bounded by the calendar and far under the 100 MB guideline at one reading a day; the same
#   row at ten readings a second would pass the 256 MB hard limit: bounded rows must also be small (G10).
# * Read back from the emulator, unpadded day qualifiers came back as `1, 10, 11, …`; a range meant for the
#   first week matched most of the month. Two-digit qualifiers fixed it (G21).
# * Readings stored as versions of one cell made a month query scan the garden's whole history (G03).

# %% [markdown]
# ## Cleanup
#
# Drops the three tables this notebook created and closes the figures. The `cbt` command printed under
# the month table above (`cbt … count <table>`) names it; `padded_table.table_id` and
# `versions_table.table_id` name the other two. Run `cbt` before this cell — after it (or after
# *Run All*, which ends here) the tables are gone and `cbt` answers that the table is not found.

# %% tags=["cleanup"]
wb.cleanup()
