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
#   title: 'Game scores: design the row key for the queries'
# ---

# %% [markdown]
# # 02 · Game scores: design the row key for the queries
#
# **Learning objectives**
#
# * Start from the questions, not the data: see how the order of `game`, `player` and time in the key
#   decides what each query scans (`LoL#Corrie#20150301…` vs `LoL#20150301…`, G04).
# * Decide between one table that *queries and filters* and two tables keyed for two queries (G05).
# * Keep what is read together in one contiguous range of rows (G11).
# * Measure what long names, hashed key segments and personal data in keys cost (G01, G22, G26).

# %% tags=["setup"]
import workbench as wb
from workbench.exercises.ex02 import ____, game_both, measure_scans, name_bytes

wb.setup()

# %% [markdown]
# ## The data and its questions
#
# Each event is one game played: which game, which player, when, whether they won and their
# kill/death/assist ratio. A few players play a lot, most play a little. The two questions from
# the paper are `corrie_lol_march` (*how many games of LoL did Corrie win in March?*) and
# `lol_march` (*all LoL games in March*).

# %%
ds = wb.load_dataset("game_scores", size="workshop")
ds

# %%
games = ds.frame
print("games per title:", games["game"].value_counts().to_dict())
print("most active players:", games["player"].value_counts().head(5).to_dict())

# %% [markdown]
# ## Two keys, two questions (G04)
#
# * `game_player_time`: `LoL#Corrie#20150301…` — the paper's key for Corrie's question.
# * `game_time_player`: `LoL#20150301…#Corrie` — the key for *all LoL games in a month*.
#
# For every query, the workbench compiles the design's read plan and counts rows **seen** (scanned)
# against rows **returned**. Their ratio is the waste: 1.0 means the key fits the query.

# %% tags=["G04", "finding"]
import pandas as pd

by_player = wb.preset("game_scores", "game_player_time")
by_time = wb.preset("game_scores", "game_time_player")
print("by player:", by_player.example_key(ds))
print("by time  :", by_time.example_key(ds))
keys = wb.compare(ds, [by_player, by_time])
waste = {
    name: a.queries.table.loc[
        ["corrie_lol_march", "lol_march"], ["scans", "rows_seen", "rows_returned", "waste"]
    ]
    for name, a in keys.analyses.items()
}
wb.styled(pd.concat(waste, names=["design"]))  # counts with separators, waste as 9.8×

# %% [markdown]
# Each key serves its own question with no waste and the other one badly: with the player in second
# place, *all LoL games in March* must scan every LoL game ever played and filter by time; with time
# in second place, Corrie's question scans every LoL game of March and filters by player. The table
# above gives the factor for each.
#
# ### Exercise: serve both questions without filtering
#
# Neither key serves both questions. Pick a design from the gallery (the names are printed below) so
# that **both** `corrie_lol_march` and `lol_march` scan at most 1.5 rows per row they return. Replace
# `____` with a design name, run the check, and try the others to see which question each one fails.
# `game_both.hint()` gives a hint and `game_both.solution()` the answer; a section below comes back to it.

# %%
print(wb.pattern_names("game_scores"))
choice = ____   # ← your design, e.g. "game_time_player"

# %%
game_both.check(choice, ds)

# %% [markdown]
# ## The answer, from the real emulator
#
# Write the paper's design to the emulator, verify it, and ask Corrie's question. The result shows
# the measured rows, cells and bytes beside the model's prediction.

# %%
table = wb.emulator().load(ds, by_player)
table

# %%
corrie = table.run(ds.query("corrie_lol_march"))
corrie

# %%
march_games = corrie.answer  # the events decoded from the cells the emulator returned
wins = int(march_games["win"].sum())
print(f"Corrie played {len(march_games)} games of LoL in March 2015 and won {wins}.")

# %% [markdown]
# ## One table and a filter, or two tables? (G05)
#
# When no single key serves both questions, the recommendation is a second table keyed for the
# second query rather than query-and-filter. The `two_tables` design writes each game twice: once
# under `game#player#time`, once under `game#time#player`; each query is planned against the table
# whose key fits it.

# %% tags=["G05", "finding"]
two = wb.preset("game_scores", "two_tables")
designs = wb.compare(ds, [by_player, two])
# the workload the node-ms are at
print(designs.analyses["two_tables"].capacity.production.inputs_line())
cols = [
    "bytes_per_event",
    "corrie_lol_march: rows seen",
    "lol_march: rows seen",
    "lol_march: node ms",
]
designs.view(cols)

# %% [markdown]
# The second table doubles the bytes written per event and removes the filtered scan: `lol_march`
# now reads only the month's LoL games. Storage is cheap next to a scan repeated by every dashboard
# refresh; writes double, so the trade is worth it when the second query is frequent.
# Both tables on the emulator, and the plan the month query gets:

# %%
two_table = wb.emulator().load(ds, two)
print(two_table.verification.summary())
two_table.run(ds.query("lol_march"))

# %% [markdown]
# ## Read together, stored together (G11)
#
# Putting the measure into the key (`LoL#Corrie#win#…` and `LoL#Corrie#kda#…`) splits what one game
# produced into two rows far apart in key order. What does that do to a question that wants both
# measures of the same games? The two keys side by side:

# %%
split = wb.Schema(
    "row_per_measure",
    wb.RowKey(
        (wb.Field("game"), wb.Field("player"), wb.Metric(("win", "kda")), wb.Timestamp("ms"))
    ),
    wb.Tall(wb.Family("GAME")),
)
print("paper's key      :", by_player.example_key(ds))
print("row per measure  :", split.example_key(ds))

# %% [markdown]
# ### Exercise: predict the scans
#
# `corrie_latest` asks for Corrie's latest LoL games with both their win and their KDA ratio. A
# *scan* reads one contiguous range of row keys. How many scans will `row_per_measure` need to
# answer it? The answer is a whole number and must be exact. `measure_scans.hint()` helps.

# %%
predicted_scans = ____   # ← your prediction: scans for corrie_latest with row_per_measure

# %%
measure_scans.check(predicted_scans, ds, split)

# %% tags=["G11", "finding"]
together = wb.compare(ds, [by_player, split])
together.view(["rows", "corrie_latest: scans", "corrie_latest: rows seen"])

# %% [markdown]
# Each measure's rows form a range of their own, so a question that needs both measures reads one range
# per measure; keeping the game's measures in one row halves the rows and the scans.
#
# ## Short names (G01)
#
# Every cell stores its family and qualifier names again. The paper's design uses `GAME:WIN` and
# `GAME:KDA`; the same design with descriptive names (`game_results:did_the_player_win` and
# `game_results:kill_death_assist_ratio`) stores the same data in more bytes.

# %%
long_names = wb.Schema(
    "long_names",
    by_player.key,
    wb.Tall(
        wb.Family("game_results"), {"win": "did_the_player_win", "kda": "kill_death_assist_ratio"}
    ),
)
print(long_names.describe(ds))

# %% [markdown]
# ### Exercise: predict the price of long names
#
# How many **more bytes per event** will `long_names` store than the paper's design? Everything
# you need is in the names above; a prediction within ±5 bytes passes. `name_bytes.hint()` helps.

# %%
extra_bytes = ____   # ← your prediction: extra bytes per event with long names

# %%
name_bytes.check(extra_bytes, ds, by_player, long_names)

# %% [markdown]
# The measurement: bytes per event of both designs, and the capacity view of the long names, whose
# bar splits an event's bytes into key, names, timestamp and value.

# %% tags=["G01", "finding"]
names = wb.compare(ds, [by_player, long_names])
print(names.table["bytes_per_event"].round(1).to_string())
names.analyses["long_names"].capacity

# %% [markdown]
# ## Readable keys, not hashes (G22)
#
# Hashing the player (`LoL#afa7f888#…`) is sometimes suggested to spread writes. Here the player
# already spreads them, so the hash buys nothing: compare the hotspot factor (busiest node ÷ its fair
# share). It costs readability — nobody can tell whose row `afa7f888` is, and the player has to be
# stored again in a cell to be recovered — and bytes.

# %% tags=["G22", "finding"]
hashed = wb.preset("game_scores", "hashed_player")
print("readable:", by_player.example_key(ds))
print("hashed  :", hashed.example_key(ds))
spread = wb.compare(ds, [by_player, hashed])
spread.view(["hotspot_factor", "bytes_per_event", "max_row_cells"])

# %% [markdown]
# ## Personal data in row keys (G26)
#
# Row keys and family names show up in logs, monitoring, Key Visualizer and split points, where nobody
# can delete them later: personal data does not belong there. The advisor checks
# key values mechanically for what it can recognise — e-mail addresses and phone numbers. Suppose the
# game identified players by their e-mail address instead of a nickname (same events, plain pandas):

# %% tags=["G26", "finding"]
emails = ds.frame.assign(player=ds.frame["player"].str.lower() + "@example.com")
email_ds = wb.from_dataframe(
    emails,
    entity=["game", "player"],
    time="time",
    measures=["win", "kda"],
    name="game_scores_by_email",
)
advice = wb.advise(email_ds, by_player)
advice

# %% [markdown]
# The suggested fix is a hash of the address in the key, with the address itself in a cell (or better,
# in another system): the one case where an unreadable key segment is the point (compare G22 above).


# %% [markdown] tags=["summary"]
# ## Summary
#
# * The order of the key segments decided each query's cost: `game#player#time` answered Corrie's month
#   without waste but scanned every LoL game for the all-LoL month, and `game#time#player` the reverse (G04).
# * A second table keyed for the second query removed the filtered scan at the cost of writing each game twice (G05).
# * A row per measure split each game into two rows and doubled the scans for a query needing both (G11).
# * Descriptive family and qualifier names raised the bytes per event; the paper's short names keep them down (G01).
# * Hashing the player did not spread writes any better here, cost bytes and made keys unreadable (G22);
#   with players keyed by e-mail address the advisor raised a personal-data warning and suggested exactly
#   such a hash (G26).

# %% [markdown]
# ## Cleanup
#
# Drops the tables this notebook created and closes the figures.

# %% tags=["cleanup"]
wb.cleanup()
