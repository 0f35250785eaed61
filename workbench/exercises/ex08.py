"""Notebook 08's exercises (Bigtable today: row-key schemas, aggregates, materialized views).

* ``slash_bad_keys`` — predict how many keys a ``/``-delimited fx design writes that do not conform
  to its row-key schema.
* ``cmv_maintenance`` — predict the writes Bigtable makes to keep the hourly CMV current.
* ``counter_cells`` — predict the counter cells an hourly aggregate family holds for the sample.
"""

from __future__ import annotations

from typing import Any

from .core import Problem, ____
from .predict import judge_count, number_form

__all__ = ["____", "cmv_maintenance", "counter_cells", "slash_bad_keys"]


def slash_design():
    """The fx design 08 sets against the recommended one: pair and time joined by ``/``."""
    from workbench.schema import Field, RowKey, Schema, Timestamp

    return Schema("slash", RowKey((Field("pair"), Timestamp("us")), "/"))


def _slash_bad_keys(predicted: Any, fx) -> tuple[bool, str, dict[str, Any]]:
    from workbench.schema.key_conformance import key_conformance

    bad = key_conformance(slash_design(), fx)["main"].bad
    # ±1 %: the attendee reasons from the pairs' spelling (EUR/USD), not a count to the key
    return judge_count(predicted, float(bad), "keys that do not conform", relative=0.01)


slash_bad_keys = Problem(
    "slash_bad_keys",
    "a number of keys (±1 %)",
    _slash_bad_keys,
    "the schema splits a key at every delimiter and expects exactly two fields. Look at how the "
    "dataset spells a currency pair.",
    28_629,
    "28,629, every key: each pair is written with a slash (AUD/USD), so each key splits into three "
    "fields where the schema declares two (G20).",
    form=number_form,
)


def _cmv_maintenance(predicted: Any, energy, designs) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import compare
    from workbench.schema.views import view_queries

    table = compare(energy, list(designs.values()), queries=view_queries(energy)).table
    writes = float(table.loc["cmv_rollup", "maintenance_writes"])
    # ±10 %: derived from the events in the dataset's header, one view update per source write
    return judge_count(predicted, writes, "maintenance writes for the CMV", relative=0.10)


cmv_maintenance = Problem(
    "cmv_maintenance",
    "a number of writes (±10 %)",
    _cmv_maintenance,
    "Bigtable updates the view incrementally: every write to the source table changes one "
    "hour's group. How many source writes does the sample make?",
    29_760,
    "29,760: one view update per reading (the sample's events), where hand-written rows write "
    "one summary per meter and hour (G29).",
    form=number_form,
)


def _counter_cells(predicted: Any, energy, counters) -> tuple[bool, str, dict[str, Any]]:
    cells = len(counters.expected(energy))
    # exact: meters × days × hours, each countable from the dataset's header and time span
    return judge_count(predicted, float(cells), "counter cells", relative=0.0)


counter_cells = Problem(
    "counter_cells",
    "a whole number of cells (exact)",
    _counter_cells,
    "one row per meter and day, one qualifier per hour in it: the header gives the meters, the "
    "time span the days.",
    7_440,
    "7,440: 31 meters × 10 days × 24 hours; the 29,760 readings add into them, four per cell "
    "(G12).",
    form=number_form,
)
