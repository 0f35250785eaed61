"""A load into a table that holds data already: what it finds under its own keys before it writes.

A rerun, or ``append=True`` (new data added to one's own table), writes into rows that may hold
earlier cells. Two things must stay true there:

* **Overwritten events are said.** The stored rows this load writes are read first (by key, in
  requests of :data:`READ_KEYS` keys), decoded, and the stored events at this load's entity and
  time counted: how many it writes again, how many of those with other values
  (:class:`Overwrites`, on ``table.overwritten`` and in the handle's notes).
* **Summary rows describe every event of their bucket.** An aggregate row
  (``agg#hourly#<entity>#<bucket>``, G29) that exists already summarises events stored
  earlier; writing this load's summary of the same bucket would replace it with a summary of
  this load's events only. Those buckets' stored events are read (one read per entity, through
  the design's own plan for a range query) and the rows recomputed over the stored events and
  this load's (this load's winning where both have an event), exactly as ``to_cells`` of all
  the data computes them. A row whose stored ``<measure>_count`` equals the count of this
  load's events already stored in its bucket holds nothing else (a rerun): it keeps this
  load's own summary, and nothing is read for it.

Verification then reads the same rows back (:func:`stored_rows`): what *this* load wrote, not
the whole table, whose other rows belong to earlier loads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..cells import CellFrame
from ..schema.shape import Shape
from .connection import Connection
from .reader import read_plan

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset
    from ..schema.schema import Schema

READ_KEYS = 5_000  # row keys per ReadRows request (a few hundred KB of keys)
# the widest aggregate bucket is a month: a read from a bucket's start this long covers it
_MONTH_US = 32 * 86_400 * 1_000_000


def stored_rows(conn: Connection, tables: Mapping[str, str], cells: CellFrame) -> CellFrame:
    """Every stored cell of the rows ``cells`` writes, per logical table (read by row key)."""
    from ..schema.plan import ReadPlan

    f = cells.frame
    parts = []
    for logical, physical in tables.items():
        keys = sorted(pd.unique(f.loc[f["table"] == logical, "row_key"].to_numpy(dtype=object)))
        for i in range(0, len(keys), READ_KEYS):
            plan = ReadPlan("stored rows", table=logical, keys=tuple(keys[i : i + READ_KEYS]))
            parts.append(read_plan(conn, physical, plan).cells)
    return CellFrame.concat(parts)


@dataclass
class Overwrites:
    """Stored events this load wrote again: ``events`` in all, ``changed`` of them with other
    values; ``examples``: up to 10 changed ones, stored and new values side by side."""

    events: int
    changed: int
    examples: pd.DataFrame

    def summary(self) -> str:
        same = self.events - self.changed
        if not self.changed:
            return (
                f"This load wrote {self.events:,} events that the table already held, with the "
                "same values (a rerun of them: nothing changed)."
            )
        return (
            f"This load wrote {self.events:,} events over events stored earlier at the same "
            f"entity and time: {self.changed:,} with other values (the stored values are "
            f"replaced), {same:,} with the same values."
        )


def overwrites(schema: Schema, dataset: Dataset, stored: CellFrame) -> Overwrites:
    """The stored events (decoded from ``stored``: the design record, or the sampled rows on a
    real instance, says they are this design's) that share entity and time with ``dataset``."""
    new = dataset.canonical()
    keys = [*dataset.entity, dataset.time]
    if not len(stored):
        return Overwrites(0, 0, new.iloc[0:0])
    old = schema.from_cells(stored).reindex(columns=new.columns)
    both = old.merge(new, on=keys, how="inner", suffixes=(" (stored)", ""))
    diff = np.zeros(len(both), dtype=bool)
    for c in new.columns:
        if c not in keys:
            a, b = both[f"{c} (stored)"], both[c]
            diff |= ~((a == b) | (a.isna() & b.isna())).to_numpy(dtype=bool)
    return Overwrites(
        events=len(both),
        changed=int(diff.sum()),
        examples=both[diff].head(10).reset_index(drop=True),
    )


def _stored_events(
    conn: Connection,
    schema: Schema,
    dataset: Dataset,
    tables: Mapping[str, str],
    buckets: pd.DataFrame,
    ents: list[str],
) -> pd.DataFrame:
    """The stored events of each entity over its touched buckets' span (one range read each,
    planned by the design itself, so any key layout reads only what it must)."""
    from ..datasets.model import QueryIntent

    time_col = dataset.time
    out = []
    for vals, g in buckets.groupby(ents, sort=True):
        vals = vals if isinstance(vals, tuple) else (vals,)
        start = pd.Timestamp(int(g["_b"].min()), unit="us", tz="UTC")
        end = pd.Timestamp(int(g["_b"].max()) + _MONTH_US, unit="us", tz="UTC")
        entity = {
            c: (v.item() if hasattr(v, "item") else v) for c, v in zip(ents, vals, strict=True)
        }
        intent = QueryIntent("stored events", "range", "", entity=entity, start=start, end=end)
        plan = schema.plan(intent)
        got = read_plan(conn, tables[plan.table], plan).cells
        if len(got):
            ev = schema.from_cells(got)
            out.append(ev[intent.matches(ev, time_col)])
    return pd.concat(out, ignore_index=True) if out else dataset.canonical().iloc[0:0]


def _summary_rows(schema: Schema, frame: pd.DataFrame, shape: Any) -> pd.DataFrame:
    """One line per summary row of ``frame`` (cells of summary rows): its ``row_key``, entity
    values, bucket start ``_b`` (µs: its cells' timestamp) and every ``<measure>_count`` text."""
    from ..schema.value_text import decode_text

    agg = schema.aggregates
    assert agg is not None
    akey = agg.key(schema.key)
    rows = frame.groupby("row_key", sort=True)["timestamp_us"].first()
    parsed = akey.parse(pd.Series(rows.index, dtype=object))
    out = pd.DataFrame({"row_key": rows.index, "_b": rows.to_numpy(dtype=np.int64)})
    for c in akey.columns():
        out[c] = decode_text(parsed[c].to_numpy(), shape.dtype(c)).to_numpy()
    counts = frame[frame["qualifier"].str.endswith("_count")]
    counts = counts.drop_duplicates(["row_key", "qualifier"])  # the newest version of each
    if len(counts):
        n = pd.to_numeric([v.decode() if isinstance(v, bytes) else v for v in counts["value"]])
        wide = counts.assign(_n=n).pivot(index="row_key", columns="qualifier", values="_n")
        out = out.merge(wide.reset_index(), on="row_key", how="left")
    return out


def _rewritten_only(
    schema: Schema, stored: CellFrame, rows: pd.DataFrame, new: pd.DataFrame, keys: list[str]
) -> set[str]:
    """Summary rows whose stored events are all events this load writes again (a rerun): their
    stored ``<measure>_count`` equals the count of this load's events stored in the bucket, so
    the bucket holds nothing else (an event with no measure value has no cell to be stored), and
    this load's own summary of the bucket is the truth. Only with the ``count`` statistic."""
    from ..schema.time_text import floor_us, time_us

    agg = schema.aggregates
    assert agg is not None
    ents = list(agg.key(schema.key).columns())
    measures = [m for m in schema.measure_names() if f"{m}_count" in rows.columns]
    if "count" not in agg.stats or not measures:
        return set()
    mine = schema.from_cells(stored).merge(new[keys], on=keys, how="inner")
    mine = mine.assign(_b=floor_us(time_us(mine[keys[-1]]), agg.bucket))
    have = mine.groupby([*ents, "_b"])[measures].count().reset_index()
    m = rows.merge(have, on=[*ents, "_b"], how="left")
    same = np.ones(len(m), dtype=bool)
    for c in measures:
        same &= m[f"{c}_count"].to_numpy() == m[c].fillna(-1).to_numpy()
    return set(m.loc[same, "row_key"])


def combine_summaries(
    conn: Connection,
    schema: Schema,
    dataset: Dataset,
    tables: Mapping[str, str],
    cells: CellFrame,
    stored: CellFrame,
) -> tuple[CellFrame, int]:
    """``cells`` with each summary row that is stored already recomputed over the stored events
    of its bucket and this load's; and how many rows were recomputed. A row whose stored events
    are all events this load writes again (a rerun) keeps this load's own summary, unread."""
    from ..schema.time_text import floor_us, time_us

    agg = schema.aggregates
    if agg is None or not len(stored):
        return cells, 0
    lead = agg.lead(schema.key.delimiter) + schema.key.delimiter
    f, s = cells.frame, stored.frame
    held = s[(s["table"] == schema.table) & s["row_key"].str.startswith(lead)]
    touched = (
        (f["table"] == schema.table)
        & f["row_key"].str.startswith(lead)
        & f["row_key"].isin(set(held["row_key"]))
    )
    if not touched.any():
        return cells, 0
    ents = list(agg.key(schema.key).columns())
    time_col = dataset.time
    new = dataset.canonical()
    rows = _summary_rows(schema, held, Shape.of(dataset))
    keys = [*dataset.entity, time_col]
    skip = _rewritten_only(schema, stored, rows, new, keys)
    touched &= ~f["row_key"].isin(skip)
    if not touched.any():
        return cells, 0
    buckets = rows.loc[~rows["row_key"].isin(skip), [*ents, "_b"]]

    def in_touched(events: pd.DataFrame) -> pd.DataFrame:
        b = floor_us(time_us(events[time_col]), agg.bucket)
        hit = events[ents].assign(_b=b).merge(buckets, how="left", indicator=True)["_merge"]
        return events[(hit == "both").to_numpy()]

    new = in_touched(new)
    old = in_touched(_stored_events(conn, schema, dataset, tables, buckets, ents))
    old = old.merge(new[keys], on=keys, how="left", indicator=True)
    old = old[old.pop("_merge") == "left_only"]
    both = pd.concat([old.reindex(columns=new.columns), new], ignore_index=True)
    both = both.astype(new.dtypes.to_dict()).sort_values(keys, kind="stable")
    redo = schema.to_cells(replace(dataset, frame=both.reset_index(drop=True), queries=[])).frame
    redone = set(f.loc[touched, "row_key"])
    redo = redo[(redo["table"] == schema.table) & redo["row_key"].isin(redone)]
    parts = [f[~touched], redo]
    for part in parts:
        part.attrs = {}  # pandas compares the parts' attrs (frames inside): set them after
    out = CellFrame(pd.concat(parts, ignore_index=True))
    out.frame.attrs.update(f.attrs)
    return out, len(redone)


def describe(summaries: int, over: Any) -> list[str]:
    """The notes a load into a table holding data adds to its handle."""
    notes = []
    if over is not None and over.events:
        notes.append(over.summary())
    if summaries:
        notes.append(
            f"{summaries:,} summary row(s) already stored were recomputed over their bucket's "
            "stored events and this load's, so each describes every event of its bucket."
        )
    return notes
