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
#   title: 'Bigtable today: structured keys, materialized views, aggregate families'
# ---

# %% [markdown]
# # 08 · Bigtable today: structured row keys, materialized views, aggregate families
#
# **Learning objectives**
#
# * Export a design's row key as a row-key schema (structured row keys, Preview) and the GoogleSQL that
#   reads the key's parts by name; check *before any data exists* that every key the design writes
#   conforms, and see which designs do not.
# * Replace hand-written hourly aggregate rows (`agg#hourly#…`, G29) with a continuous materialized view
#   (CMV) and see what each costs: client writes, Bigtable's maintenance writes, the rows a dashboard
#   reads, staleness.
# * Replace a dual-written second table (G05) with an asynchronous secondary index and compare them the
#   same way.
# * Keep per-hour counters in an aggregate column family (`AddToCell`), written to the real emulator.
#
# The emulator has no SQL (`ExecuteQuery` answers 501) and drops a table's row-key schema, so row-key
# schemas, their SQL and CMVs are *modelled* here; the aggregate family is written and read for real.

# %% tags=["setup"]
import workbench as wb
from workbench.exercises.ex08 import ____, cmv_maintenance, counter_cells, slash_bad_keys

wb.setup()

# %% [markdown]
# ## 1 · Structured row keys: the key's parts as columns
#
# The recommended fx design keys each quote by pair and microsecond time (`EUR/USD#20150302…`). Its
# row-key schema names those two parts; the YAML file is what `gcloud beta bigtable tables update
# --row-key-schema-definition-file` reads.

# %%
fx = wb.load_dataset("fx_prices", size="workshop")
rks = wb.row_key_schemas(wb.preset("fx_prices", "pair_microseconds"), table_id="prices")["main"]
print(rks.to_yaml())
print(rks.gcloud_command("my-instance"))

# %% [markdown]
# The delimiter reads `"Iw=="`: the YAML holds byte values in base64, and `Iw==` is the single byte `#`
# (`base64.b64decode("Iw==") == b"#"`). That is why the `gcloud` line passes
# `--row-key-schema-pre-encoded-bytes`: it tells `gcloud` the bytes in the file are already encoded.

# %% [markdown]
# With the schema set, SQL filters the key's parts by name (on the same table, `prices`, that the
# `gcloud` line sets the schema on). The workbench writes each bound as the key's
# own text, so the comparison is exact:

# %% tags=["G07"]
print(rks.sql({"pair": "EUR/USD"}, "2015-03-02 09:00", "2015-03-02 10:00"))

# %% [markdown]
# If any key in the table does not conform, every query that selects key columns fails. The check runs
# over every key the design writes for the dataset; for the recommended design:

# %% tags=["G20"]
recommended = wb.key_conformance(wb.preset("fx_prices", "pair_microseconds"), fx)
print(f"pair#time (recommended): {recommended['main']}")

# %% [markdown]
# ### Exercise: how many keys break with a `/` delimiter?
#
# The same design with `/` between the pair and the time (`wb.RowKey((wb.Field("pair"),
# wb.Timestamp("us")), "/")`) writes the same 28,629 distinct keys. Predict how many of them do *not*
# conform to its row-key schema. Replace `____` with a number and run the check; `slash_bad_keys.hint()`
# helps.

# %%
BAD_KEYS = ____   # ← your answer: a number of keys

# %%
slash_bad_keys.check(BAD_KEYS, fx)

# %% tags=["G20"]
slash = wb.Schema("slash", wb.RowKey((wb.Field("pair"), wb.Timestamp("us")), "/"))
print(f"pair/time: {wb.key_conformance(slash, fx)['main']}")

# %% [markdown]
# Some designs conform but leave the schema unable to say what the key means: a salt is a number the
# writer computes (SQL must list every bucket), a reversed time is text, not a `TIMESTAMP`.

# %% tags=["G08"]
print(wb.row_key_schemas(wb.preset("fx_prices", "salted"))["main"].explain())

# %% [markdown]
# ## 2 · Hand-written aggregate rows → a continuous materialized view
#
# The energy preset `hourly_aggregates` writes summary rows `agg#hourly#<meter>#<hour>` next to the raw
# readings (G29). A CMV keeps the same summaries from the raw rows alone: Bigtable runs the `GROUP BY`
# incrementally. Here is its SQL, checked against Google's restrictions (no `DESC`, no `LIMIT`,
# deterministic functions only):

# %%
energy = wb.load_dataset("energy_meters", size="workshop")
designs = wb.view_designs(energy)
print(designs["cmv_rollup"].create_sql("meters")["hourly"])

# %% [markdown]
# Both store the same summary rows and a dashboard's hourly query reads the same 24 rows a day. What
# differs is who writes them and what that costs (`wb.view_queries` adds the dashboard's hourly query):
# the table below counts the client's writes per event and the *maintenance writes* Bigtable makes on
# its own to keep the view current.
#
# ### Exercise: Bigtable's writes for the view
#
# Predict `maintenance_writes` for `cmv_rollup` over the workshop sample (`energy` in a cell of its own
# shows the sample's header). Replace `____` with a number and run the check; `cmv_maintenance.hint()` helps.

# %%
CMV_WRITES = ____   # ← your answer: a number of writes

# %%
cmv_maintenance.check(CMV_WRITES, energy, designs)

# %% tags=["G29"]
cmp = wb.compare(energy, list(designs.values()), queries=wb.view_queries(energy))
# the workload of the figures
print(next(iter(cmp.analyses.values())).capacity.production.inputs_line())
wb.styled(
    cmp.table[
        [
            "maintained_by",
            "client_writes_per_event",
            "maintenance_writes",
            "write_node_s",
            "derived_rows",
            "meter_hourly_kwh: rows seen",
            "meter_day: rows seen",
            "staleness",
        ]
    ]
)

# %% [markdown]
# The client sends fewer row writes (no summary rows), but Bigtable updates the view once per
# reading instead of once per hour, so total write work rises: the CMV wins when the aggregation job is the
# burden (or freshness matters), hand-written rows when write CPU is. Loading both on the emulator shows
# the client's side for real — the CMV's source is just the raw rows:

# %%
emu = wb.emulator()
pre_table = emu.load(energy, designs["pre_aggregated"])
raw_table = emu.load(energy, designs["cmv_rollup"].source)
{
    "hand-written aggregates": pre_table.write_report,
    "CMV source (raw rows only)": raw_table.write_report,
}

# %% [markdown]
# ## 3 · A dual-written second table → an asynchronous secondary index
#
# Game scores answer "Corrie's games" from `game#player#time` and "every LoL game in March" from a second
# table keyed `game#time#player` that the client writes twice (G05). An `ORDER BY` view gives the second
# order without the second write:

# %%
games = wb.load_dataset("game_scores", size="workshop")
gdesigns = wb.view_designs(games)
print(gdesigns["async_index"].create_sql("scores")["by_game"])

# %% tags=["G05"]
gcmp = wb.compare(games, list(gdesigns.values()))
# the workload of the figures
print(next(iter(gcmp.analyses.values())).capacity.production.inputs_line())
wb.styled(
    gcmp.table[
        [
            "maintained_by",
            "client_writes_per_event",
            "maintenance_writes",
            "write_node_s",
            "lol_march: rows seen",
            "staleness",
        ]
    ]
)

# %% [markdown]
# The total writes are the same — the client's second write becomes Bigtable's index update — and so are
# the rows "every LoL game in March" reads. The index wins on client simplicity (one write, no repair job
# when the second write fails); the second table wins when a reader must see a game the moment it is
# written, because the index is eventually consistent.

# %% [markdown]
# ## 4 · Counters in an aggregate family
#
# A counter row per meter and day, a qualifier per hour, and an aggregate family that adds each
# reading's 1 with `AddToCell`: "readings per hour" is a one-row read of at most 24 cells.
#
# ### Exercise: how many counter cells?
#
# `wb.Counters(("meter_id",), bucket="hour", row_bucket="day")` on the energy sample: predict how many
# counter cells the table holds once every reading is added. Replace `____` with a whole number and run
# the check; `counter_cells.hint()` helps.

# %%
counters = wb.Counters(("meter_id",), bucket="hour", row_bucket="day")
COUNTER_CELLS = ____   # ← your answer: a number of cells

# %%
counter_cells.check(COUNTER_CELLS, energy, counters)

# %% [markdown]
# Written to the emulator and read back, beside the same counts computed with pandas:

# %% tags=["G12"]
import pandas as pd
from workbench.bigtable import admin, reader, writer

conn = emu.connection()
with admin.throwaway_table(conn, list(counters.families())) as table_id:
    writer.write_cells(conn, counters.to_cells(energy), table_id, progress=False)
    back = reader.read_table(conn, table_id).frame
back = back.assign(count=back["value"].map(lambda v: int.from_bytes(v, "big", signed=True)))
expected = counters.expected(energy)
wb.styled(
    pd.DataFrame(
        {
            "cells written (one per reading)": [len(energy.frame)],
            "counter cells read back": [len(back)],
            "expected (pandas)": [len(expected)],
            "counts read back": [sorted(back["count"].unique().tolist())],  # [4], plain ints
            "equal to pandas": [
                back.set_index(["row_key", "qualifier"])["count"].sort_index().tolist()
                == expected.set_index(["row_key", "qualifier"])["value"].tolist()
            ],
        }
    )
)

# %% [markdown] tags=["summary"]
# ## Summary
#
# * A row-key schema names the key's parts for SQL; the conformance check caught a delimiter inside a value
#   before any data existed, and the salted design's schema said what SQL cannot do with a salt.
# * **G29** — a CMV rollup stores and reads exactly what hand-written `agg#hourly#` rows do; the client writes
#   only raw rows, Bigtable spends a maintenance write per reading, and the view is eventually consistent.
# * **G05** — an asynchronous index reads like a second table at the same total writes, moving the second
#   write from the client to Bigtable, eventually consistent.
# * Counters in an aggregate family keep per-hour totals as the data arrives.
# * Modelled, not run: the emulator drops row-key schemas and has no SQL or CMVs.
#
# ## Cleanup
#
# Drops the two tables this notebook wrote (`pre_table.table_id` and `raw_table.table_id` name them;
# `cbt count <table ID>` counts their rows before this cell) and closes the figures. After it (or after
# *Run All*, which ends here) the tables are gone and `cbt` answers that the table is not found.

# %% tags=["cleanup"]
wb.cleanup()
