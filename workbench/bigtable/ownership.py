"""Whose table is it: table IDs of this kernel's own, and the check a load makes before it writes
into a table that already exists.

One emulator serves every notebook of a lab (``make lab``), so two kernels that load the same
dataset with the same design must not share a table: the default table ID carries a tag drawn
once per process (a notebook kernel is one process), and ``wb.cleanup()`` drops only the
tables a load of this kernel *created*.

A table that exists already (an explicit ``table_id=``, a rerun, a second loader) is looked at
before the first MutateRows: its column families, and a few rows read at the start, between
and after the keys this load writes. A row this load would not write, or a family its design
does not have, means the table holds another design or dataset: the load is refused, with the
command to drop it or the argument to pick another ID, and nothing is written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..cells import CellFrame
from ..errors import WriteError
from . import admin
from .connection import Connection

if TYPE_CHECKING:  # pragma: no cover
    from ..schema.families import Family

# Drawn once per process: two notebook kernels never draw the same default table ID.
SESSION_TAG = admin.readable_tag(6)
PROBES = 8  # rows sampled between the first and last key this load writes


def session_table_id(dataset_name: str, schema_name: str) -> str:
    """The default table ID of a load: ``<dataset>-<design>-<tag>``, the tag this process's own."""
    base = admin.default_table_id(dataset_name, schema_name)[:33].rstrip("-.")
    return admin.check_table_id(f"{base}-{SESSION_TAG}")


def _probe(conn: Connection, physical: str, logical: str, start: str | None) -> CellFrame:
    """The first row at or after ``start`` (the table's first row when None)."""
    from ..schema.plan import KeyRange, ReadPlan
    from .reader import read_plan

    ranges = () if start is None else (KeyRange(start=start),)
    plan = ReadPlan("ownership probe", table=logical, ranges=ranges, rows_limit=1)
    return read_plan(conn, physical, plan).cells


def _probe_starts(keys: np.ndarray) -> list[str | None]:
    """Where to look: the table's start, keys spread over this load's range, just after its last."""
    if not len(keys):
        return [None]
    picks = np.unique(np.linspace(0, len(keys) - 1, num=min(PROBES, len(keys))).astype(int))
    return [None, *(str(keys[i]) for i in picks), str(keys[-1]) + "\x00"]


def foreign_row(
    conn: Connection, physical: str, logical: str, cells: CellFrame
) -> pd.DataFrame | None:
    """The cells of a row in ``physical`` that this load would not write (None: none found)."""
    mine = cells.frame[cells.frame["table"] == logical]
    keys = np.sort(pd.unique(mine["row_key"].to_numpy(dtype=object)).astype(str))
    cols = ["row_key", "family", "qualifier", "timestamp_us"]
    seen: set[str] = set()
    for start in _probe_starts(keys):
        got = _probe(conn, physical, logical, start).frame
        if not len(got) or got["row_key"].iloc[0] in seen:
            continue
        seen.add(got["row_key"].iloc[0])
        ours = mine[mine["row_key"].isin(set(got["row_key"]))][cols]
        m = got[cols].merge(ours.drop_duplicates(), on=cols, how="left", indicator=True)
        if (m["_merge"] == "left_only").any():
            return got
    return None


def _events(schema: Any, row: pd.DataFrame) -> pd.DataFrame | str:
    """The foreign row's events as this design reads them, or why it cannot read them."""
    try:
        events = schema.from_cells(CellFrame(row.reset_index(drop=True)))
    except Exception as exc:  # another design's cells need not decode with this one
        return f"this design cannot decode it ({type(exc).__name__})"
    if not len(events):
        return "this design decodes no event from it"
    return events


def _decoded(schema: Any, row: pd.DataFrame) -> str:
    """The foreign row's first event as this design would read it, or why it cannot be read."""
    events = _events(schema, row)
    if isinstance(events, str):
        return events
    first = {k: (v.item() if hasattr(v, "item") else v) for k, v in events.iloc[0].items()}
    return f"decoded with this design it reads as {first}"


def _way_out(conn: Connection, physical: str, table_id: str) -> str:
    env = "" if conn.is_production else f"BIGTABLE_EMULATOR_HOST={conn.host} "
    return (
        "Nothing was written. If that table is yours and no longer needed, drop it — "
        f"`{env}cbt -project {conn.project} -instance {conn.instance} deletetable {physical}` "
        f"(or table.drop() on its handle) — and load again; otherwise load under another ID: "
        f"emu.load(ds, schema, table_id='{table_id}-2'), or leave table_id unset (each "
        "notebook kernel gets a table of its own)."
    )


def check_existing(
    conn: Connection,
    tables: Mapping[str, str],
    families: Mapping[str, Sequence[Family]],
    cells: CellFrame,
    schema: Any,
    table_id: str,
    append: bool = False,
) -> set[str]:
    """Refuse, before anything is created or written, to load into a table that holds another
    design or dataset; returns the physical IDs that exist already (a rerun writes into them).

    With ``append=True`` the table may also hold rows this load does not write, as long as this
    design reads them back as events (new data added to one's own table, e.g. the next day's
    readings): rows this design cannot read still refuse the load. Rows of another design with
    the same families whose keys this design happens to parse cannot be told apart from one's
    own: ``append`` is the caller's word that the table is theirs."""
    existing: set[str] = set()
    name = getattr(schema, "name", "") or "this design"
    for logical, physical in tables.items():
        stored = admin.get_families(conn, physical)
        if stored is None:
            continue
        existing.add(physical)
        wanted = {f.name for f in families.get(logical, ())}
        other = sorted(set(stored) - wanted)
        if other:
            raise WriteError(
                f"Table {physical!r} already exists on the {conn.target} with column families "
                f"{sorted(stored)}; design {name!r} has {sorted(wanted)}, not {other}: the table "
                "holds another design. " + _way_out(conn, physical, table_id)
            )
        row = foreign_row(conn, physical, logical, cells)
        if row is not None and append and not isinstance(_events(schema, row), str):
            continue  # the same design's earlier data: appending to it was asked for
        if row is not None:
            key = row["row_key"].iloc[0]
            cell = row.iloc[0]
            raise WriteError(
                f"Table {physical!r} already exists on the {conn.target} and holds row {key!r} "
                f"({len(row)} cell(s), e.g. {cell['family']}:{cell['qualifier']} at "
                f"{int(cell['timestamp_us'])} µs), which this load of design {name!r} does not "
                f"write; {_decoded(schema, row)}. The table holds another design or dataset"
                + (
                    ""
                    if append or isinstance(_events(schema, row), str)
                    else " (or earlier data of this one: to add to it, pass append=True)"
                )
                + ". "
                + _way_out(conn, physical, table_id)
            )
    return existing
