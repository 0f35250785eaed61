"""Whose table is it: table IDs of this kernel's own, the design a table records, and the check
a load makes before it writes into a table that already exists.

One emulator serves every notebook of a lab (``make lab``), so two kernels that load the same
dataset with the same design must not share a table: the default table ID carries a tag drawn
once per process (a notebook kernel is one process), and ``wb.cleanup()`` drops only the
tables a load of this kernel *created*.

**The design record.** On the emulator a load creates each table with one extra, empty column
family naming the design and dataset it holds: ``_wb.<design>.<dataset>.<digest>``, the digest
over the dataset's name and the design's identity (row key, layout with its value encoding,
extra tables, aggregates, and every family with its GC rule and aggregate type). CreateTable
makes the table and its families in one atomic step, so the record exists from the table's
first moment, cannot be lost apart from the table and is dropped with it; an empty family holds
no cell, so no read, count or analysis sees it. Of two loaders racing to create one table ID
only one CreateTable succeeds; the other finds the table made and is refused before it changes
or writes anything. (A claim row in a registry table of its own, the earlier way, changed
behaviour when the registry was deleted or a claim damaged.) A real instance's tables get no
record: the workbench adds nothing to them that the design does not name.

A table that exists already (an explicit ``table_id=``, a rerun, a second loader) is looked at
before the first MutateRows: its record, its column families, and a few rows read at the start,
between and after the keys this load writes (their values too). Another design's record, a
damaged one, a row this load would not write, a family its design does not have, or stored
values other than this load's mean the table holds another design or dataset (or earlier data:
``append=True``): the load is refused, with the command to drop it or the argument to pick
another ID, and nothing is created, changed or written.

**Who writes it now** is the lease's business (``lease.py``): a load takes each table's lease
after these checks and before it reads stored rows, then checks again under it
(``check_existing(fresh=)``), so a design racing another into a table made outside a load finds
the winner's record, and only then adds its own (``create_claimed`` on the existing tables).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..cells import CellFrame
from ..errors import WriteError
from . import admin
from .connection import Connection
from .lease import LEASE_FAMILY

if TYPE_CHECKING:  # pragma: no cover
    from ..schema.families import Family
    from ..schema.schema import Schema

# Drawn once per process: two notebook kernels never draw the same default table ID.
SESSION_TAG = admin.readable_tag(6)
PROBES = 8  # rows sampled between the first and last key this load writes
RECORD_PREFIX = "_wb."  # the design record's family: _wb.<design>.<dataset>.<digest>
_DIGEST = re.compile(r"[0-9a-f]{16}")


def session_table_id(dataset_name: str, schema_name: str) -> str:
    """The default table ID of a load: ``<dataset>-<design>-<tag>``, the tag this process's own."""
    base = admin.default_table_id(dataset_name, schema_name, width=33)
    return admin.check_table_id(f"{base}-{SESSION_TAG}")


# ----------------------------------------------------------------------------- the record


def design_identity(schema: Any) -> str:
    """What makes two designs one: the row key, the layout (with its value encoding: JSON and
    protobuf payloads differ), the extra tables, the aggregates, and every table's families with
    their GC rules and aggregate types. Not the name, description or read costs."""
    fams = admin.table_families(schema)
    return repr(
        (
            schema.table,
            schema.key,
            schema.layout,
            schema.tables,
            schema.aggregates,
            sorted((k, repr(v)) for k, v in fams.items()),
        )
    )


def _part(text: str) -> str:
    return re.sub(r"[^-_a-zA-Z0-9]+", "_", text)[:20] or "_"


def record_family(schema: Any, dataset_name: str) -> str:
    """The design record of ``schema`` loading dataset ``dataset_name``: a family name (≤ 62
    characters) whose digest changes with the dataset's name or anything in the design's
    identity (:func:`design_identity`)."""
    digest = hashlib.sha256(
        f"{dataset_name}\x00{design_identity(schema)}".encode("utf-8", "surrogatepass")
    ).hexdigest()[:16]
    return f"{RECORD_PREFIX}{_part(schema.name or 'schema')}.{_part(dataset_name)}.{digest}"


def _parse_record(family: str) -> tuple[str, str, str] | None:
    """(design, dataset, digest) of a record family, None when it is not one a load writes."""
    parts = family[len(RECORD_PREFIX) :].split(".")
    if len(parts) != 3 or not _DIGEST.fullmatch(parts[2]):
        return None
    return parts[0], parts[1], parts[2]


def _cbt(conn: Connection, *args: str) -> str:
    env = "" if conn.is_production else f"BIGTABLE_EMULATOR_HOST={conn.host} "
    return f"`{env}cbt -project {conn.project} -instance {conn.instance} {' '.join(args)}`"


def way_out(conn: Connection, physical: str, table_id: str) -> str:
    return (
        "Nothing was written, created or changed. If that table is yours and no longer needed, "
        f"drop it — {_cbt(conn, 'deletetable', physical)} (or table.drop() on its handle) — and "
        f"load again; otherwise load under another ID: emu.load(ds, schema, "
        f"table_id='{table_id}-2'), or leave table_id unset (each notebook kernel gets a table "
        "of its own)."
    )


def check_record(
    conn: Connection,
    physical: str,
    stored: Mapping[str, Any],
    record: str,
    *,
    table_id: str,
    design_name: str,
    dataset: str,
) -> bool:
    """True when ``physical`` records this design and dataset, False when it records none (made
    outside a load, or its record family was deleted); raises :class:`WriteError` when it
    records another design or dataset, or when its record is damaged."""
    marks = sorted(f for f in stored if f.startswith(RECORD_PREFIX) and f != LEASE_FAMILY)
    if marks == [record]:
        return True
    if not marks:
        return False
    parsed = [_parse_record(m) for m in marks]
    if len(marks) > 1 or parsed[0] is None:
        raise WriteError(
            f"Table {physical!r} on the {conn.target} has a damaged design record: its "
            f"families {marks} are not the one record a load writes (family "
            f"'{RECORD_PREFIX}<design>.<dataset>.<digest>'), so which design wrote its rows "
            "cannot be told, and this load will not add to them. "
            + way_out(conn, physical, table_id)
        )
    theirs = parsed[0]
    assert theirs is not None
    mine = _parse_record(record)
    assert mine is not None
    why = (
        "another dataset"
        if theirs[1] != mine[1]
        else "another design"
        if theirs[0] != mine[0]
        else "the same names, but other settings (row key, value encoding, families, GC "
        "rules or aggregates)"
    )
    raise WriteError(
        f"Table {physical!r} on the {conn.target} holds design {theirs[0]!r} of dataset "
        f"{theirs[1]!r} (its record: family {marks[0]}), while this load is design "
        f"{design_name!r} of dataset {dataset!r} (record {record}): {why}. Two designs in one "
        "table would mix their cells. " + way_out(conn, physical, table_id)
    )


# ----------------------------------------------------------------------------- sampled rows


def _probe(conn: Connection, physical: str, logical: str, start: str | None) -> CellFrame:
    """The first row at or after ``start`` (the table's first row when None). Two rows are
    asked for: the reader leaves out the lease row (``lease.py``), which may be one of them."""
    from ..schema.plan import KeyRange, ReadPlan
    from .reader import read_plan

    ranges = () if start is None else (KeyRange(start=start),)
    plan = ReadPlan("ownership probe", table=logical, ranges=ranges, rows_limit=2)
    got = read_plan(conn, physical, plan).cells.frame
    if len(got):
        got = got[got["row_key"] == got["row_key"].iloc[0]].reset_index(drop=True)
    return CellFrame(got)


def _probe_starts(keys: np.ndarray) -> list[str | None]:
    """Where to look: the table's start, keys spread over this load's range, just after its last."""
    if not len(keys):
        return [None]
    picks = np.unique(np.linspace(0, len(keys) - 1, num=min(PROBES, len(keys))).astype(int))
    return [None, *(str(keys[i]) for i in picks), str(keys[-1]) + "\x00"]


def foreign_row(
    conn: Connection, physical: str, logical: str, cells: CellFrame
) -> tuple[pd.DataFrame | None, str, bool]:
    """A sampled row of ``physical`` that differs from what this load writes, as (its cells,
    ``"unwritten"`` — it holds a cell this load does not write — or ``"changed"`` — a cell this
    load writes holds another value —, whether the table holds any row at all)."""
    mine = cells.frame[cells.frame["table"] == logical]
    keys = np.sort(pd.unique(mine["row_key"].to_numpy(dtype=object)).astype(str))
    cols = ["row_key", "family", "qualifier", "timestamp_us"]
    seen: set[str] = set()
    changed: pd.DataFrame | None = None
    for start in _probe_starts(keys):
        got = _probe(conn, physical, logical, start).frame
        if not len(got) or got["row_key"].iloc[0] in seen:
            continue
        seen.add(got["row_key"].iloc[0])
        ours = mine[mine["row_key"].isin(set(got["row_key"]))][[*cols, "value"]]
        m = got[[*cols, "value"]].merge(
            ours.drop_duplicates(cols), on=cols, how="left", indicator=True, suffixes=("", "_new")
        )
        if (m["_merge"] == "left_only").any():
            return got, "unwritten", True
        if changed is None and (m["value"] != m["value_new"]).any():
            changed = got
    return changed, "changed", bool(seen)


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


def _same_families(stored: Mapping[str, Any], families: Sequence[Family]) -> bool:
    """The stored families are exactly these, with the same GC rules and value types."""
    want = {f.name: admin.column_family_pb(f) for f in families}
    have = {k: v for k, v in stored.items() if not k.startswith(RECORD_PREFIX)}
    return set(have) == set(want) and all(
        type(w).pb(have[k]) == type(w).pb(w) for k, w in want.items()
    )


def check_existing(
    conn: Connection,
    tables: Mapping[str, str],
    families: Mapping[str, Sequence[Family]],
    cells: CellFrame,
    schema: Any,
    table_id: str,
    append: bool = False,
    *,
    record: str | None = None,
    dataset: str = "",
    fresh: Collection[str] = (),
) -> set[str]:
    """Refuse, before anything is created or written, to load into a table that holds another
    design or dataset; returns the physical IDs that exist already (a rerun writes into them).

    ``record``: this load's design record (the emulator; None on a real instance). A table
    recording another design is refused; one recording none (made outside a load, or its record
    deleted) is written only when it is empty, or when its families and every sampled row are
    exactly what this load writes (a rerun), and never appended to: which design wrote it cannot
    be told. ``families``: what this load stores (GC rules as stored).

    With ``append=True`` a table of this design may also hold rows this load does not write,
    and other values under its keys (new data added to one's own table, e.g. the next day's
    readings; the load reports what it overwrote). Without a record (a real instance), rows
    this design cannot read still refuse the load.

    ``fresh``: tables this load has just created (checked again under its lease): one still
    empty is not returned (nothing stored to read); one another load of this design wrote into
    meanwhile is checked as any existing table."""
    existing: set[str] = set()
    name = getattr(schema, "name", "") or "this design"
    for logical, physical in tables.items():
        stored = admin.get_families(conn, physical)
        if stored is None:
            continue
        ours = record is not None and check_record(
            conn, physical, stored, record, table_id=table_id, design_name=name, dataset=dataset
        )
        wanted = {f.name for f in families.get(logical, ())}
        other = sorted(f for f in set(stored) - wanted if not f.startswith(RECORD_PREFIX))
        if other:
            raise WriteError(
                f"Table {physical!r} already exists on the {conn.target} with column families "
                f"{sorted(stored)}; design {name!r} has {sorted(wanted)}, not {other}: the table "
                "holds another design. " + way_out(conn, physical, table_id)
            )
        row, kind, any_rows = foreign_row(conn, physical, logical, cells)
        if physical in fresh and not any_rows:
            continue
        existing.add(physical)
        if record is not None and not ours:
            if not any_rows or (
                row is None and not append and _same_families(stored, families.get(logical, ()))
            ):
                continue  # empty, or exactly this load's cells and families: nothing to mix
            raise WriteError(
                f"Table {physical!r} already exists on the {conn.target} and holds rows, but no "
                "design record (the family a load creates a table with: made outside a load, "
                "or its record was deleted), and "
                + (
                    "appending to it was asked for"
                    if append and row is None
                    else "its families differ from this design's"
                    if row is None
                    else f"its row {row['row_key'].iloc[0]!r} is not what this load writes"
                )
                + f": which design wrote it cannot be told, so design {name!r} will not write "
                "into it. " + way_out(conn, physical, table_id)
            )
        if row is None or (append and (ours or not isinstance(_events(schema, row), str))):
            continue  # this design's earlier data (or other values): appending was asked for
        key = row["row_key"].iloc[0]
        cell = row.iloc[0]
        what = (
            f"holds row {key!r} ({len(row)} cell(s), e.g. {cell['family']}:{cell['qualifier']} "
            f"at {int(cell['timestamp_us'])} µs), which this load of design {name!r} does not "
            f"write; {_decoded(schema, row)}"
            if kind == "unwritten"
            else f"holds other values than this load of design {name!r} writes in row {key!r}"
        )
        raise WriteError(
            f"Table {physical!r} already exists on the {conn.target} and {what}. The table holds "
            + (
                "earlier data of this design and dataset: to add to it (overwriting the "
                "events this load shares with it, which the load then reports), pass append=True"
                if ours
                else "another design or dataset"
                + (
                    ""
                    if append or isinstance(_events(schema, row), str)
                    else " (or earlier data of this one: to add to it, pass append=True)"
                )
            )
            + ". "
            + way_out(conn, physical, table_id)
        )
    return existing


def create_claimed(
    conn: Connection,
    schema: Schema,
    table_id: str,
    stored: Mapping[str, Sequence[Family]],
    ids: Mapping[str, str],
    existing: set[str],
    record: str | None,
    confirm: str | None,
    loader: str,
    splits: Mapping[str, Sequence[str]] | None = None,
) -> tuple[dict[str, str], list[admin.TableSpec]]:
    """Create the tables ``check_existing`` did not find, each with its design ``record`` and
    the lease family (empty families, atomic with the table), bring the ``existing`` ones up to
    date (a record added to a table made outside a load: under the load's lease), and refuse when another loader made one of them
    meanwhile: two loads into one table ID would mix their cells. ``loader`` names this one in
    the message ("load", "bulk load"); ``splits`` (logical table → row keys) the split points
    a table created here starts with. Returns the tables and what was done to each."""
    from ..schema.families import Family

    specs: list[admin.TableSpec] = []
    tables = admin.ensure_tables(
        conn,
        schema,
        table_id,
        families={
            t: (*fs, *([Family(record), Family(LEASE_FAMILY)] if record else []))
            for t, fs in stored.items()
        },
        confirm=confirm,
        specs=specs,
        create_only=set(ids.values()) - existing,
        splits=splits,
    )
    raced = [s.table_id for s in specs if not s.created and s.table_id not in existing]
    if raced:
        raise WriteError(
            f"Table(s) {raced} were created by another loader while this {loader} was creating "
            "them: two loads into one table ID at once would mix their cells, and this "
            f"{loader} left them as that loader made them. " + way_out(conn, raced[0], table_id)
        )
    return tables, specs
