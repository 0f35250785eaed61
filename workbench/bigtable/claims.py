"""Who may write into a table ID: an atomic claim in a small registry table of the instance.

Checking an existing table before writing (``ownership.check_existing``) cannot see a loader of
another design that created the same table a moment ago and has not written yet: the empty
table passes and both loads write, mixing their cells. So a load also *claims* each table
between creating it and its first write: one registry row per table ID in
:data:`~.connection.OWNERS_TABLE`, written with CheckAndMutateRow (one conditional mutation,
applied atomically by the server), so of two loaders exactly one writes the row. The row names
the dataset, a fingerprint of the design (its key template and families) and the kernel's tag;
a load of the same design and dataset re-claims the table (a rerun, from any kernel), any other
is refused before it writes. ``wb.cleanup()`` releases this kernel's claims with its tables.
Claims are made on the emulator only (the one a lab shares): a load into a real instance
creates no registry table there.
"""

from __future__ import annotations

import hashlib
import re
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from google.api_core import exceptions as api_exceptions
from google.cloud.bigtable_v2 import types as data_types

from ..errors import WriteError
from ..schema.families import Family, max_versions
from . import admin
from .connection import OWNERS_TABLE, Connection

FAMILY = "o"
FIELDS = ("dataset", "design", "session", "nonce")


def fingerprint(schema: Any, families: Mapping[str, Sequence[Any]]) -> str:
    """A short hash naming a design: its row-key template and its tables' families."""
    text = repr((getattr(schema, "key", None), sorted((k, repr(v)) for k, v in families.items())))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _ensure_registry(conn: Connection) -> None:
    # one GC rule: a claim row keeps its newest cells only
    admin.ensure_table(conn, OWNERS_TABLE, [Family(FAMILY, gc=max_versions(1))])


def read_claim(conn: Connection, table_id: str) -> dict[str, str] | None:
    """The registry row of ``table_id`` (field → value, plus ``at``: its write time in µs)."""
    request = data_types.ReadRowsRequest(
        table_name=conn.table_path(OWNERS_TABLE),
        rows=data_types.RowSet(row_keys=[table_id.encode("utf-8")]),
        filter=data_types.RowFilter(cells_per_column_limit_filter=1),
    )
    try:
        stream = conn.call(
            f"Reading the claim on {table_id!r}", conn.data.read_rows, request=request
        )
        got: dict[str, str] = {}
        qualifier = ""
        for response in stream:
            for chunk in response.chunks:
                if chunk.qualifier is not None:  # unset: the same column as the last chunk
                    qualifier = chunk.qualifier.decode("utf-8")
                got[qualifier] = got.get(qualifier, "") + chunk.value.decode("utf-8")
                if chunk.timestamp_micros:
                    got["at"] = str(chunk.timestamp_micros)
    except api_exceptions.NotFound:
        return None
    return got or None


def _sets(record: Mapping[str, str], at_us: int) -> list[data_types.Mutation]:
    return [
        data_types.Mutation(
            set_cell=data_types.Mutation.SetCell(
                family_name=FAMILY,
                column_qualifier=k.encode("utf-8"),
                timestamp_micros=at_us,
                value=record[k].encode("utf-8"),
            )
        )
        for k in FIELDS
    ]


def _check_and_mutate(
    conn: Connection,
    table_id: str,
    predicate: data_types.RowFilter | None,
    true_mutations: list[data_types.Mutation],
    false_mutations: list[data_types.Mutation],
) -> bool:
    """One CheckAndMutateRow on the registry row of ``table_id``; True when the predicate matched."""
    request = data_types.CheckAndMutateRowRequest(
        table_name=conn.table_path(OWNERS_TABLE),
        row_key=table_id.encode("utf-8"),
        predicate_filter=predicate,
        true_mutations=true_mutations,
        false_mutations=false_mutations,
    )
    # not retried: a lost answer to a conditional write must not be replayed as a second one
    response = conn.call(
        f"Claiming table {table_id!r}", conn.data.check_and_mutate_row, request=request, retry=None
    )
    return bool(response.predicate_matched)


def _nonce_is(nonce: str) -> data_types.RowFilter:
    """Matches the registry row while it still holds the claim with this nonce."""
    return data_types.RowFilter(
        chain=data_types.RowFilter.Chain(
            filters=[
                data_types.RowFilter(column_qualifier_regex_filter=b"nonce"),
                data_types.RowFilter(value_regex_filter=re.escape(nonce).encode("utf-8")),
            ]
        )
    )


def claim(
    conn: Connection,
    table_id: str,
    *,
    dataset: str,
    design: str,
    session: str,
    design_name: str,
    created_after_us: int | None = None,
) -> None:
    """Claim ``table_id`` for this design and dataset, or raise :class:`WriteError`.

    ``created_after_us``: this load created the table after that time, so a claim written
    before it belongs to a table of that ID that was dropped since (stale) and is taken over,
    again conditionally (only if nobody replaced it meanwhile)."""
    _ensure_registry(conn)
    record = {"dataset": dataset, "design": design, "session": session}
    for _ in range(5):
        at = int(time.time() * 1000) * 1000  # Bigtable takes millisecond timestamps (in µs)
        mine = {**record, "nonce": uuid.uuid4().hex}
        # no predicate: "does the row hold any cell"; only when it does not is the claim written
        if not _check_and_mutate(conn, table_id, None, [], _sets(mine, at)):
            return
        held = read_claim(conn, table_id)
        if held is None:
            continue  # released between the two calls: try again
        if held.get("dataset") == dataset and held.get("design") == design:
            return  # the same design and dataset: a rerun, from this kernel or another
        # compared at the millisecond granularity the claims are written at
        stale = created_after_us is not None and int(held.get("at", "0")) < (
            created_after_us // 1000 * 1000
        )
        if stale:
            swap = [data_types.Mutation(delete_from_row=data_types.Mutation.DeleteFromRow())]
            if _check_and_mutate(
                conn, table_id, _nonce_is(held.get("nonce", "")), swap + _sets(mine, at), []
            ):
                return
            continue  # someone else replaced it first: look again
        env = "" if conn.is_production else f"BIGTABLE_EMULATOR_HOST={conn.host} "
        raise WriteError(
            f"Table {table_id!r} on the {conn.target} is claimed by another load: design "
            f"{held.get('design')} of dataset {held.get('dataset')!r} (kernel {held.get('session')}), "
            f"while this load is design {design_name!r} ({design}) of dataset {dataset!r}. Two "
            "designs in one table would mix their cells. Nothing was written. Load under another "
            f"table_id (e.g. table_id='{table_id}-2'), or leave it unset (each kernel gets its "
            "own). If that load is gone and its table is not needed, drop the table and its claim: "
            f"`{env}cbt -project {conn.project} -instance {conn.instance} deletetable {table_id}` "
            f"and `... deleterow {OWNERS_TABLE} {table_id}`."
        )
    raise WriteError(
        f"Could not claim table {table_id!r}: the claim kept changing. Nothing was written."
    )


def release(conn: Connection, table_ids: Iterable[str], session: str | None = None) -> None:
    """Delete the claims on ``table_ids`` (only those kernel ``session`` holds, when given)."""
    if OWNERS_TABLE not in conn.list_tables(hidden=True):
        return
    for table_id in table_ids:
        held = read_claim(conn, table_id)
        if held is None or (session is not None and held.get("session") != session):
            continue
        _check_and_mutate(
            conn,
            table_id,
            _nonce_is(held.get("nonce", "")),
            [data_types.Mutation(delete_from_row=data_types.Mutation.DeleteFromRow())],
            [],
        )
