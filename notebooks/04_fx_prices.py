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
#   title: 'FX prices: hotspots, salting and reversed timestamps'
# ---

# %% [markdown]
# # 04 · FX prices: hotspots, field promotion, salting and reversed timestamps
#
# **Learning objectives**
#
# * See why a row key that starts with a timestamp sends every write to one node (G06), and
#   what moving the currency pair in front of the time does (field promotion, G07) — and where it stops helping.
# * Measure the price of salting: writes spread over more nodes, but every time-range read needs one scan
#   per salt bucket (G08). Pick a salt count for a cluster yourself (exercise).
# * See how "the latest quote" is read with and without reversed timestamps — a reverse scan on Cloud
#   Bigtable, a forward read on the emulator — and when reversing is worth it (G09).
# * Keep microseconds in the key for quotes that arrive many times a second (G31), and watch how many
#   bytes the key adds to every cell (G20).
# * Write the design to the real emulator, read USD/JPY back and compute its 5-, 10- and 30-day moving averages.

# %% tags=["setup"]
import workbench as wb
from workbench.exercises.ex04 import ____, fx_salt, key_bytes, latest_emulator_rows

wb.setup()

# %% [markdown]
# ## The data: bid/ask quotes in sub-second bursts
#
# A trader plotting the 5, 10 and 30 day moving averages of USD/JPY is looking at a time series. The
# workshop dataset holds quotes for several currency pairs over six trading weeks; quotes arrive in bursts
# tens to hundreds of milliseconds apart, with microsecond timestamps. The dataset also lists the queries
# its users run — the table under the dataset shows them.

# %%
ds = wb.load_dataset("fx_prices", size="workshop")
ds

# %% [markdown]
# The pairs are not equally busy. Keep this table in mind: it decides how far field promotion can go.

# %%
ds.frame["pair"].value_counts(normalize=True).rename("share of quotes").to_frame().style.format(
    "{:.1%}"
)

# %% [markdown]
# ## 1 · The timestamp-first key (G06)
#
# The obvious key for "all pairs at one minute" starts with the time: `20150302045507958019#AUD/USD`.
# Bigtable keeps rows sorted by key in tablets, so the newest quote always lands after every older one —
# at the end of the key space, in one tablet, on one node. The workbench replays the writes in time order
# over a model of tablets and nodes (a simulated Key Visualizer, 3 nodes by default): reads and writes count
# as node CPU, a busy tablet splits by load, and tablets move between nodes a few minutes after the load
# shows (the settle time Google's performance page asks a load test to allow). No split helps a write
# frontier — the next write lands past any cut — so the heat map draws one diagonal line that never
# leaves one node.

# %% [markdown]
# Under the figures: Key Visualizer's own diagnostics, the hottest tablets as `ListHotTablets` reports
# them, and the same load on 1, 3, 10 and 30 nodes. Adding nodes does not move the frontier.

# %% tags=["G06"]
ts_first = wb.preset("fx_prices", "timestamp_first")
print("example key:", ts_first.example_key(ds))
wb.analyze(ds, ts_first).keyspace

# %% [markdown]
# ## 2 · Field promotion: the pair before the time (G07)
#
# Promoting the pair into the front of the key (`EUR/USD#20150302…`) gives every pair its own key range
# and its own write frontier: the writes now spread over the tablets at the end of each pair's range.
# Compare the busiest node's share below with the timestamp-first figure above.

# %% tags=["G07"]
promoted = wb.preset("fx_prices", "pair_microseconds")
print("example key:", promoted.example_key(ds))
wb.analyze(ds, promoted).keyspace

# %% [markdown]
# The spread is much better, but not perfect: with only a handful of pairs there are only a handful of
# write frontiers, and each one sits on one node. The busiest pair alone (its share is in the table at the
# top) puts at least that share of all writes on one node, whatever the cluster size. The table below
# sets the two designs side by side, with what each costs three of the four queries (rows the server
# reads to answer a query once); the fourth, the moving averages over USD/JPY's whole history, comes
# back in section 7.

# %% tags=["finding"]
cmp = wb.compare(ds, [ts_first, promoted])
cols = [
    "busiest_node_share",
    "hotspot_factor",
    "usdjpy_day: rows seen",
    "latest_quote: rows seen",
    "all_pairs_minute: rows seen",
]
cmp.view(cols)

# %% [markdown]
# Field promotion also makes the pair's queries cheap: one contiguous range per pair. "All pairs at one
# minute" has no single range any more, but the pairs are a small set the client knows, so one request
# lists a range per pair (eight ranges, G11) and reads exactly the 170 quotes of that minute, as the
# timestamp-first key did. The trade-off the paper warns about bites when the promoted field is
# open-ended — hundreds of players in notebook 02 — and the slice turns into query-and-filter.
#
# ## 3 · Salting: spread writes, pay on every read (G08)
#
# Salting keeps the time-first key and puts `crc32(time) mod N` in front of it: `1#20150302045507958019#AUD/USD`.
# The writes now advance on N frontiers instead of one. The price is on the read side: a time range exists
# once per bucket, so every range read becomes N scans whose results the client merges. The table measures
# both sides as N grows on the default 3-node cluster.

# %% tags=["G08"]
import pandas as pd

sweep = []
for n in (1, 2, 3, 4, 6, 8, 12):
    a = wb.analyze(ds, wb.preset("fx_prices", "salted", n=n))
    sweep.append(
        {
            "salt buckets": n,
            "busiest node share": a.keyspace.mean_write_share,
            "scans per USD/JPY day": a.queries["usdjpy_day"]["scans"],
            "rows seen per USD/JPY day": a.queries["usdjpy_day"]["rows_seen"],
            "node-ms per USD/JPY day": a.queries["usdjpy_day"]["node_ms"],
        }
    )
sweep = pd.DataFrame(sweep).set_index("salt buckets")
wb.styled(sweep)

# %% [markdown]
# Two things to read in that table. First, the read side grows steadily with N: the scans column is N,
# and every scan starts and merges. Second, the write side does not improve smoothly: the busiest node's
# share depends on how the N frontiers divide among the nodes — N a multiple of the node count spreads
# best, and an N that leaves one node with two frontiers while others have one does worse than a smaller
# N: with four buckets the busiest of the 3 nodes takes about half the writes, as with two, where three
# buckets gave it a third. That is why the paper finds it hard to pick a salt count that keeps working as
# a cluster grows or shrinks. Here is what three buckets look like: three parallel frontiers, one per node.

# %%
wb.analyze(ds, wb.preset("fx_prices", "salted", n=3)).keyspace

# %% [markdown]
# ### What no node count fixes
#
# Adding nodes spreads tablets, but a single salt bucket is one write frontier: it lives on one node
# whatever the cluster size. So a salted design has a **ceiling**: about N × one node's write rate × the
# 70 % CPU target (4 × 14,000 × 70 % ≈ 39,000 writes/s for 1 KB rows). The same holds for pair-first
# keys, where the busiest pair is the unit. Sized for 100,000 quotes a second, both designs are
# *hotspot-limited*: the capacity result names the unit, the ceiling, and what would serve the rate.

# %% tags=["G08", "finding"]
for design in (wb.preset("fx_prices", "salted", n=4), promoted):
    cap = wb.analyze(ds, design, workload=wb.Workload(events_per_s=100_000)).capacity
    print(cap.verdict(), end="\n\n")
print(cap.production.inputs_line())  # what the verdicts assumed: yours, then the defaults

# %% [markdown]
# ### Exercise: make no node take more than 20% of the writes
#
# Your FX feed has grown and the cluster now has **8 nodes** (a fair share is 12.5%). With the pair-first
# key the busiest pair alone takes more than 20%, so field promotion cannot get there. Choose a salt count
# for the salted design so that, on average over time, the busiest node takes at most 20% of the writes,
# and every node holds as many buckets as the others (section 3 showed what an uneven count costs). The
# goal is a share of the writes; the answer is a count of buckets. Replace `____` with a whole number and
# run the check; then try other values (4, 10, 12, 16…) and watch the scans a USD/JPY range read needs.
# `fx_salt.hint()` gives a hint and `fx_salt.solution()` the answer.

# %%
SALT_BUCKETS = ____   # ← your answer: a whole number of salt buckets

# %% tags=["finding"]
fx_salt.check(SALT_BUCKETS, ds)

# %% [markdown]
# ## 4 · Reversed timestamps for "the latest quote" (G09)
#
# The most frequent query of this dataset is "the latest USD/JPY quote". With the time increasing in the
# key, the newest quote is the *last* row of the pair's range. Cloud Bigtable reads it with a reverse scan
# and a row limit of 1: one row. The emulator refuses reverse scans, so on the emulator the same query
# reads the pair's whole range forward and keeps the last row — the table shows both figures.
# Writing `MAX − time` instead (`USD/JPY#8574727892041980`) puts the newest quote first, so a plain
# forward read with a row limit of 1 finds it anywhere. Time ranges still work (read backwards in time).
# Putting the reversed time *first* in the key would bring back the single write frontier of section 1,
# only at the start of the key space — the third design below does that.
#
# ### Exercise: predict the emulator's rows for the latest quote
#
# With the pair-first key (`pair_microseconds`, time increasing), how many rows will the emulator read to
# answer `latest_quote`? Replace `____` with a number (±10 % is accepted) and run the check before the table
# below shows it. `latest_emulator_rows.hint()` gives a hint and `latest_emulator_rows.solution()` the
# answer.

# %%
LATEST_ROWS = ____   # ← your answer: a number of rows

# %%
latest_emulator_rows.check(LATEST_ROWS, ds)

# %% tags=["G09", "finding"]
reversed_ts = wb.preset("fx_prices", "reversed_timestamp")
reversed_first = wb.Schema(
    "reversed_first",
    wb.RowKey((wb.ReversedTimestamp("us", 9_999_999_999_999_999, 16), wb.Field("pair"))),
    wb.Tall(wb.Family("q"), {"bid": "b", "ask": "a"}),
)
cmp9 = wb.compare(ds, [promoted, reversed_ts, reversed_first])
# the workload the node-ms are at
print(cmp9.analyses[promoted.name].capacity.production.inputs_line())
cmp9.view(
    [
        "latest_quote: rows seen",
        "latest_quote: emulator rows seen",
        "latest_quote: node ms",
        "usdjpy_day: rows seen",
        "usdjpy_day: scans",
        "busiest_node_share",
    ]
)

# %% [markdown]
# On Cloud Bigtable, reversal gains the latest-quote query nothing: a reverse scan already reads one row.
# It changes the emulator's figure (one row instead of the whole pair) and helps any client that cannot
# scan backwards. First in the key it is as bad a hotspot as a plain timestamp. That is G09: reverse only
# when you need to — when the newest rows must come first in a forward read — and never put it first.
#
# ## 5 · Microseconds in the key (G31)
#
# Quotes in a burst are milliseconds apart, sometimes less. A key with second precision maps every quote
# of the same pair and second to the same row and column, so Bigtable would keep only one of them; even
# millisecond precision merges some. The workbench refuses such a schema unless you accept the loss
# explicitly, and then it says exactly what was lost. The table counts it for three precisions: events
# lost to collisions, and surviving events whose microseconds were cut to the millisecond a cell timestamp
# keeps (fewer survive at second precision, so fewer are left to cut; a `us` key keeps every digit).

# %% tags=["G31"]
loss = {}
for precision in ("second", "ms", "us"):
    schema = wb.Schema(
        f"pair_{precision}",
        wb.RowKey((wb.Field("pair"), wb.Timestamp(precision))),
        wb.Tall(wb.Family("q"), {"bid": "b", "ask": "a"}),
    )
    report = wb.loss_report(schema.to_cells(ds, accept_loss=True))
    loss[precision] = {
        "events lost to collisions": report.n_lost,
        "share of events lost": report.n_lost / len(ds),
        "surviving events cut to the millisecond": report.n_truncated,
    }
wb.styled(pd.DataFrame(loss).T)

# %% [markdown]
# The `second_precision` preset of the gallery is exactly that mistake. What it would lose, with the
# first colliding events:

# %% tags=["finding"]
wb.loss_report(wb.preset("fx_prices", "second_precision").to_cells(ds, accept_loss=True))

# %% [markdown]
# ## 6 · How long is the key? (G20)
#
# Bigtable stores the row key with every cell, so a long key costs on every cell, every read and every
# byte of memory the server spends on it. The limit is 4 KiB; these keys are far below it, yet the key is
# the largest part of each stored cell of these designs. An epoch number instead of a formatted date is a
# few bytes shorter, and a serialized layout (one cell per quote) stores the key once per quote.
#
# ### Exercise: predict the key bytes of a quote
#
# How many bytes of row key does the pair-first design (`pair_microseconds`) store for one quote, over all
# the cells the quote becomes? Replace `____` with a number (±10 % is accepted) and run the check before the
# table below shows it. `key_bytes.hint()` gives a hint and `key_bytes.solution()` the answer.

# %%
KEY_BYTES = ____   # ← your answer: a number of bytes

# %%
key_bytes.check(KEY_BYTES, ds)

# %% tags=["G20"]
designs = {
    "pair_microseconds": promoted,
    "pair + epoch µs": wb.Schema(
        "pair_epoch_us",
        wb.RowKey((wb.Field("pair"), wb.Timestamp("us", "epoch_us"))),
        wb.Tall(wb.Family("q"), {"bid": "b", "ask": "a"}),
    ),
    "reversed_timestamp": reversed_ts,
    "serialized_protobuf": wb.preset("fx_prices", "serialized_protobuf"),
}
rows = {}
for name, schema in designs.items():
    a = wb.analyze(ds, schema)
    rows[name] = {
        "example key": schema.example_key(ds),
        "longest key (B)": a.rowsizes.max_key_bytes,
        "key bytes per event": a.capacity.breakdown["row key"] / len(ds),
        "bytes per event": a.capacity.bytes_per_event,
        "key share of bytes": a.capacity.breakdown["row key"] / a.capacity.total_bytes,
    }
wb.styled(pd.DataFrame(rows).T)

# %% [markdown]
# ## 7 · Write it, read it back, and compute the moving averages
#
# Now the recommended design goes to the real emulator: the workbench creates the table, writes every
# cell, reads everything back and compares it with the source events.

# %%
table = wb.emulator().load(ds, promoted)
table

# %%
table.verification

# %% [markdown]
# The trader's query: six weeks of USD/JPY. The table below puts what the emulator returned (measured)
# next to what the model predicted; they must agree.

# %%
run = table.run(ds.query("usdjpy_moving_averages"))
run

# %% [markdown]
# The moving averages are plain pandas on the quotes that came back: the daily closing mid price, then
# rolling 5, 10 and 30 day means (calendar days; weekends have no quotes).

# %%
quotes = run.answer.set_index("time")
close = ((quotes["bid"] + quotes["ask"]) / 2).resample("1D").last().dropna().rename("daily close")
averages = pd.concat(
    [close] + [close.rolling(w).mean().rename(f"{w} moving average") for w in ("5D", "10D", "30D")],
    axis=1,
)
averages.plot(
    title="USD/JPY mid price: daily close and moving averages (read back from the emulator)",
    ylabel="JPY per USD",
    figsize=(10, 4),
)
averages.dropna().tail(3).round(3)

# %% [markdown]
# Every query of the dataset, measured on the emulator beside the model: rows and bytes returned must
# match, and the model adds what the server had to read to find them.

# %%
measured = {q.name: table.run(q).result for q in ds.queries}
wb.analyze(ds, promoted, measured=measured).queries

# %% [markdown] tags=["summary"]
# ## Summary
#
# * **G06** — a timestamp-first key put every write on one node in the key-distribution model (see the
#   first heat map and its busiest-node share).
# * **G07** — promoting the pair spread the writes over one frontier per pair; the busiest pair's share of
#   the quotes is a floor no cluster size can lower.
# * **G08** — salting with N buckets spread the writes best when N was a multiple of the node count, and
#   every range read paid N scans; the exercise found a salt count for 8 nodes.
# * **G09** — Cloud Bigtable reads "latest quote" as one row with a reverse scan either way; a reversed
#   timestamp makes it one row for forward-only readers (the emulator) too; first in the key it was a hotspot again.
# * **G31** — second precision would have lost most of the quotes, milliseconds still some, microseconds none.
# * **G20** — the key is the largest part of every cell here; shorter formats and fewer cells per event save bytes.
# * The design was written to the emulator, read back identical, and its queries measured equal to the model.
#
# ## Cleanup
#
# Drops the tables this notebook created and closes the figures.

# %% tags=["cleanup"]
wb.cleanup()
