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
#   title: Start here
# ---

# %% [markdown]
# # 00 · Start here: the Bigtable time-series schema workbench
#
# **Learning objectives**
#
# * Know what the workbench is for: *seeing* what a Bigtable row key and table layout do to
#   time-series data — hotspots, row sizes, query costs — before anything reaches production.
# * Check that your set-up works: the package, the real Bigtable emulator, plotting.
# * Know the agenda of the workshop and the one pattern every notebook follows.

# %% [markdown]
# ## Set-up (one cell, every notebook)
#
# Every notebook starts with the same cell. It prints the versions that matter and the
# emulator in use; it starts an emulator when none is running. If it reports **no emulator**,
# read the message: it says how to install one, and everything except writing to Bigtable still works.

# %% tags=["setup"]
import workbench as wb

wb.setup()

# %% [markdown]
# ## How the workbench works
#
# Data flows in one direction, and every step is a plain function you can call yourself:
#
# | step | what it is | call |
# |---|---|---|
# | **Dataset** | events (a pandas DataFrame) + which columns are entities, time, measures + the typical queries | `wb.load_dataset(name)` · `wb.from_csv(...)` |
# | **Schema** | a row key (ordered segments), a layout, column families with GC rules | `wb.preset(dataset, pattern)` |
# | **Cells** | exactly the cells Bigtable would store, and back again without loss | `schema.to_cells(ds)` · `schema.from_cells(cells)` |
# | **Emulator** | the real `cbtemulator`: create the table, write, read back, verify, run queries | `emu.load(ds, schema)` · `table.run(query)` |
# | **Analysis** | key distribution over time (hotspots), row sizes, query costs, capacity; side by side | `wb.analyze(ds, schema)` · `wb.compare(ds, [a, b])` |
# | **Advice** | what is wrong with a design, which guideline (G01–G31) it breaks, a better schema | `wb.advise(ds, schema)` |
# | **Designer** | all of the above behind widgets | `wb.designer(ds)` |

# %% [markdown]
# ## Set-up check
#
# The cell below asks the emulator for its tables over gRPC — a real request, no mock. When the
# set-up works it prints a ✔ line with the emulator's address and the tables it holds: none yet on a
# fresh emulator (`[]`), since no notebook has written one. When something is wrong (no emulator
# installed, one that cannot start), the cell stops at `wb.emulator()` with a one-line error that
# says what is wrong and how to fix it, instead of printing the ✔ line.

# %%
emu = wb.emulator()  # the emulator wb.setup() found or started; stops here if there is none
tables = emu.connection().list_tables()  # a real ListTables request over gRPC
print(f"✔ the emulator at {emu.host} answered: {len(tables)} table(s) in it so far:", tables)

# %% [markdown]
# ## Agenda
#
# | notebook | topic | guidelines |
# |---|---|---|
# | `01_garden_temperature` | tall-and-narrow vs short-and-wide, bounded rows, padded numbers, versions vs new rows | G02, G03, G10, G21 |
# | `02_game_scores` | design the key for the queries; two tables vs query-and-filter; short names, readable keys, no personal data | G01, G04, G05, G11, G22, G26 |
# | `03_weather_balloons` | time buckets: new columns vs new cells; serialized vs unserialized rows; families and GC | G12–G15, G18, G19, G28, G30 |
# | `04_fx_prices` | hotspots: timestamp-first, field promotion, salting, reversed timestamps; key length | G06–G09, G20, G31 |
# | `05_server_metrics` | Heroic's base + offset design, tags in the key; tenants by prefix, reversed domains | G16, G17, G20, G25, G27 |
# | `06_energy_meters` | sequential IDs, frequently updated rows, pre-aggregation | G03, G10, G23, G24, G29 |
# | `07_design_lab` | any dataset or your own CSV, any design, side by side | all |
# | `08_bigtable_today` | structured row keys, continuous materialized views instead of aggregate rows and second tables, counters | G05, G07, G08, G12, G20, G29 |

# %% [markdown] tags=["summary"]
# ## Summary
#
# * The workbench turns a dataset and a schema into the exact cells Bigtable would store,
#   writes them to the real emulator, and measures what the design does.
# * Every notebook starts with `wb.setup()` and ends with `wb.cleanup()`.
#
# ## Cleanup
#
# Drops the tables this notebook created (none here) and closes figures.

# %% tags=["cleanup"]
wb.cleanup()
