"""Tables, column families and GC rules from a schema: idempotent, so a re-run notebook is safe.

A schema names *logical* tables ("main", plus one per extra query table, G05).
On the instance they live under one user-chosen table ID: the main table is
``<table_id>``, every other logical table ``<table_id>--<logical>``.

Families come from ``schema.table_families()`` (:class:`~workbench.schema.families.Family`
with its GC rule, G13/G18/G30). They are converted to the official client's admin
protobufs (``google.cloud.bigtable_admin_v2.types``): ``GcRule`` and ``ColumnFamily``.
A ``Family(aggregate="sum"|"min"|"max"|"hll")`` becomes an aggregate family with an int64
``Sum``/``Min``/``Max``/``HyperLogLogPlusPlusUniqueCount`` value type. The emulator creates all
four but combines only ``sum`` (measured: for min/max/hll it keeps the last input), which is why
the writer combines each cell's values itself and sends one ``AddToCell`` per cell.

Deleting or truncating on a real instance needs ``confirm=<table id>``
(``Connection.check_delete_allowed``).
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from google.api_core import exceptions as api_exceptions
from google.cloud.bigtable_admin_v2 import types as admin_types

from ..errors import ConfirmationRequired, SchemaError, WorkbenchError
from ..schema.families import Family, GcRule, Intersection, MaxAge, MaxVersions, Union_
from .connection import Connection

if TYPE_CHECKING:  # pragma: no cover
    from ..schema.schema import Schema

MAIN = "main"
SEPARATOR = "--"
_TABLE_ID = re.compile(r"^[_a-zA-Z0-9][-_.a-zA-Z0-9]{0,49}$")

__all__ = [
    "physical_table_id",
    "table_ids",
    "gc_rule_pb",
    "column_family_pb",
    "ensure_table",
    "ensure_tables",
    "table_families",
    "drop_table",
    "truncate_table",
    "unique_table_id",
    "throwaway_table",
    "TableSpec",
]


# ----------------------------------------------------------------------------- names


def check_table_id(table_id: str) -> str:
    if not _TABLE_ID.match(table_id or ""):
        raise SchemaError(
            f"Table ID {table_id!r} is not valid for Bigtable: use 1-50 characters from "
            "letters, digits, '_', '-' and '.', not starting with '-' or '.'."
        )
    return table_id


def physical_table_id(table_id: str, logical: str, main: str = MAIN) -> str:
    """``<table_id>`` for the main logical table, ``<table_id>--<logical>`` for the others."""
    return check_table_id(table_id if logical == main else f"{table_id}{SEPARATOR}{logical}")


def table_ids(table_id: str, logical_tables: Sequence[str], main: str = MAIN) -> dict[str, str]:
    """Logical table name → physical table ID, for every logical table of a schema."""
    return {t: physical_table_id(table_id, t, main) for t in logical_tables}


# Bigtable table IDs (CreateTableRequest.table_id): at most 50 characters of
# ``[_a-zA-Z0-9][-_.a-zA-Z0-9]*``. A default ID keeps ``DEFAULT_ID_WIDTH`` of them, so that a
# session tag and a second table's ``--<logical>`` still fit.
DEFAULT_ID_WIDTH = 40
NAME_HASH_CHARS = 6  # the suffix that keeps a shortened or rewritten name's ID its own


def default_table_id(dataset_name: str, schema_name: str, width: int = DEFAULT_ID_WIDTH) -> str:
    """A readable table ID for a dataset+schema pair (``fx_prices-salted``), unique per pair.

    When the names must change to fit — characters a table ID cannot hold replaced, or cut to
    ``width`` — the ID ends in a short hash of both names (``-`` and :data:`NAME_HASH_CHARS`
    characters, a letter first), so two designs of one long-named dataset never share an ID."""
    whole = f"{dataset_name}-{schema_name}"
    raw = re.sub(r"[^-_.a-zA-Z0-9]+", "_", whole).strip("-.")
    if raw == whole and len(raw) <= width:
        return raw
    digest = hashlib.sha256(f"{dataset_name}\x00{schema_name}".encode("utf-8", "surrogatepass"))
    head = raw[: width - NAME_HASH_CHARS - 1].rstrip("-.")
    return f"{head or 'workbench'}-{readable_tag(NAME_HASH_CHARS, digest.digest())}"


# A tag in a table ID is read by people (in listings, notebooks, reports): no vowels (no 'e' to
# read as an exponent, as in 969e80, and no accidental words), no 0/1 (O and l look-alikes),
# and a letter first, so that no tag reads as a number.
TAG_LETTERS = "bcdfghjkmnpqrstvwxz"
TAG_CHARS = TAG_LETTERS + "23456789"


def readable_tag(n: int, seed: bytes | None = None) -> str:
    """``n`` characters for a table ID that never read as a number or a word: random, or drawn
    from ``seed`` (the same seed, the same tag)."""
    raw = seed if seed is not None else uuid.uuid4().bytes
    while len(raw) < n:
        raw += raw
    return TAG_LETTERS[raw[0] % len(TAG_LETTERS)] + "".join(
        TAG_CHARS[b % len(TAG_CHARS)] for b in raw[1:n]
    )


def unique_table_id(prefix: str = "wbtmp") -> str:
    """A fresh table ID nobody else uses (throwaway tables in tests and benchmarks)."""
    return check_table_id(f"{prefix}-{readable_tag(12)}")


# ----------------------------------------------------------------------------- protobufs


def gc_rule_pb(rule: GcRule | None) -> admin_types.GcRule | None:
    """Our GC rule dataclasses → the admin API's ``GcRule`` (None: keep every cell)."""
    if rule is None:
        return None
    if isinstance(rule, MaxVersions):
        return admin_types.GcRule(max_num_versions=rule.n)
    if isinstance(rule, MaxAge):
        return admin_types.GcRule(max_age={"seconds": int(rule.seconds)})
    if isinstance(rule, Union_):
        return admin_types.GcRule(
            union=admin_types.GcRule.Union(rules=[gc_rule_pb(r) for r in rule.rules])
        )
    if isinstance(rule, Intersection):
        return admin_types.GcRule(
            intersection=admin_types.GcRule.Intersection(rules=[gc_rule_pb(r) for r in rule.rules])
        )
    raise SchemaError(
        f"Unknown GC rule {rule!r}: use max_age, max_versions, union or intersection."
    )


def aggregate_type_pb(kind: str) -> admin_types.Type:
    """An int64 aggregate value type: ``sum``, ``min``, ``max`` or ``hll`` (HLL++ unique count)."""
    agg = admin_types.Type.Aggregate
    one: dict[str, dict[str, Any]] = {
        "sum": {"sum": agg.Sum()},
        "min": {"min_": agg.Min()},
        "max": {"max_": agg.Max()},
        "hll": {"hllpp_unique_count": agg.HyperLogLogPlusPlusUniqueCount()},
    }
    if kind not in one:
        raise SchemaError(f"Unknown aggregate {kind!r}: use sum, min, max or hll.")
    return admin_types.Type(
        aggregate_type=agg(
            input_type=admin_types.Type(int64_type=admin_types.Type.Int64()), **one[kind]
        )
    )


def aggregate_kind(cf: admin_types.ColumnFamily) -> str | None:
    """The aggregate a stored family keeps (``sum``/``min``/``max``/``hll``), None if plain."""
    agg = cf.value_type.aggregate_type
    for kind, field in (("sum", "sum"), ("min", "min_"), ("max", "max_")):
        if field in agg:
            return kind
    return "hll" if "hllpp_unique_count" in agg else None


def column_family_pb(family: Family) -> admin_types.ColumnFamily:
    """A ``Family`` → the admin API's ``ColumnFamily`` (GC rule, and its int64 aggregate type)."""
    kw: dict[str, Any] = {}
    gc = gc_rule_pb(family.gc)
    if gc is not None:
        kw["gc_rule"] = gc
    if family.aggregate is not None:
        kw["value_type"] = aggregate_type_pb(family.aggregate)
    return admin_types.ColumnFamily(**kw)


# ----------------------------------------------------------------------------- historical data


def without_max_age(rule: GcRule | None) -> GcRule | None:
    """The rule minus its max-age parts, never collecting more than the full rule would."""
    if rule is None or isinstance(rule, MaxAge):
        return None
    if isinstance(rule, MaxVersions):
        return rule
    if isinstance(rule, Union_):  # fewer alternatives: collects a subset
        kept = [r for r in (without_max_age(x) for x in rule.rules) if r is not None]
        return None if not kept else kept[0] if len(kept) == 1 else Union_(tuple(kept))
    if isinstance(rule, Intersection):  # dropping a condition would collect *more*: keep everything
        return None if any(_has_max_age(r) for r in rule.rules) else rule
    return rule


def _has_max_age(rule: GcRule | None) -> bool:
    if isinstance(rule, MaxAge):
        return True
    if isinstance(rule, (Union_, Intersection)):
        return any(_has_max_age(r) for r in rule.rules)
    return False


def storable_families(
    families: Sequence[Family], oldest_us: int | None, now_us: int
) -> tuple[tuple[Family, ...], list[str]]:
    """Families safe to store for data as old as ``oldest_us``, and notes on what changed.

    The emulator really runs GC about once a minute (by the wall clock), so a sample from
    2015 under ``max_age("90D")`` would vanish a minute after loading. For such data the
    stored rule keeps only its max-versions part; reads still apply the whole rule as of
    the data's clock (``gc_now``)."""
    out, changed = [], []
    for f in families:
        age = [r for r in _ages(f.gc)]
        if (
            age
            and oldest_us is not None
            and oldest_us < now_us - min(a.seconds for a in age) * 1_000_000
        ):
            stored = without_max_age(f.gc)
            out.append(Family(f.name, gc=stored, aggregate=f.aggregate))
            before = f.gc.cbt() if f.gc else "no rule"  # a max-age part means there is a rule
            changed.append(f"{f.name} ({before} → {stored.cbt() if stored else 'no rule'})")
        else:
            out.append(f)
    notes = (
        []
        if not changed
        else [
            "The sample data is older than these families' max-age rules allow by today's clock, and the emulator "
            "collects by the wall clock within a minute, so the table stores the rules without their age part: "
            + ", ".join(changed)
            + ". Reads still apply each full rule as of the end of the data (GC on read)."
        ]
    )
    return tuple(out), notes


def _ages(rule: GcRule | None) -> list[MaxAge]:
    if isinstance(rule, MaxAge):
        return [rule]
    if isinstance(rule, (Union_, Intersection)):
        return [a for r in rule.rules for a in _ages(r)]
    return []


# ----------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class TableSpec:
    """What ``ensure_table`` did to one table: created it, or which families it added/updated."""

    table_id: str
    created: bool
    added: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()


def get_families(conn: Connection, table_id: str) -> dict[str, admin_types.ColumnFamily] | None:
    """The table's families as stored (None when the table does not exist)."""
    req = admin_types.GetTableRequest(
        name=conn.table_path(table_id), view=admin_types.Table.View.SCHEMA_VIEW
    )
    try:
        table = conn.call(f"Reading table {table_id!r}", conn.admin.get_table, request=req)
    except api_exceptions.NotFound:
        return None
    return dict(table.column_families)


def describe_gc_pb(rule: admin_types.GcRule | None) -> str:
    """A stored GC rule in words: "no GC rule", "max age 1 day", "max 3 versions", "A or B"."""
    if rule is None:
        return "no GC rule (keep every cell)"
    pb = admin_types.GcRule.pb(rule)
    kind = pb.WhichOneof("rule")
    if kind is None:
        return "no GC rule (keep every cell)"
    if kind == "max_num_versions":
        return f"max {pb.max_num_versions} version(s)"
    if kind == "max_age":
        secs = pb.max_age.seconds + pb.max_age.nanos / 1e9
        for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
            if secs >= size and secs % size == 0:
                n = int(secs // size)
                return f"max age {n} {unit}{'s' if n != 1 else ''}"
        return f"max age {secs:g} s"
    parts = [
        describe_gc_pb(admin_types.GcRule.wrap(r))
        for r in getattr(pb, kind).rules  # union / intersection
    ]
    return "(" + (" or " if kind == "union" else " and ").join(parts) + ")"


def gc_rule_changes(
    current: Mapping[str, admin_types.ColumnFamily], wanted: Mapping[str, admin_types.ColumnFamily]
) -> list[tuple[str, str, str]]:
    """(family, old rule, new rule) for every existing family whose GC rule would change."""
    out = []
    for name, cf in wanted.items():
        have = current.get(name)
        if have is not None and admin_types.GcRule.pb(have.gc_rule) != admin_types.GcRule.pb(
            cf.gc_rule
        ):
            out.append((name, describe_gc_pb(have.gc_rule), describe_gc_pb(cf.gc_rule)))
    return out


def check_gc_change_allowed(
    conn: Connection, table_id: str, changes: Sequence[tuple[str, str, str]], confirm: str | None
) -> None:
    """Changing retention on a real instance deletes data at the next compaction: like a delete,
    it needs ``confirm=<table_id>``. The emulator's tables are the workbench's own: no question."""
    if conn.is_production and changes and confirm != table_id:
        what = "; ".join(f"family {f!r}: {old} → {new}" for f, old, new in changes)
        raise ConfirmationRequired(
            f"Loading would change the GC rules of the existing table {table_id!r} on the real "
            f"{conn.target}: {what}. A shorter rule deletes stored cells for good. To apply it, "
            f"pass confirm={table_id!r}. Nothing was changed or written."
        )


def ensure_table(
    conn: Connection,
    table_id: str,
    families: Sequence[Family],
    *,
    confirm: str | None = None,
    create_only: bool = False,
    initial_splits: Sequence[str] = (),
) -> TableSpec:
    """Create the table with its families, or bring an existing one up to date.

    Idempotent: missing families are added and GC rules that differ are updated; families
    the schema does not name are left alone (they may hold someone's data). An existing
    family whose aggregate type differs cannot be changed in place: a clear error.
    ``create_only``: a table that exists (another loader made it a moment ago) is left exactly
    as it is (``created=False``): a load that did not check it must not change it.
    ``initial_splits``: row keys the new table starts split at (``CreateTableRequest``'s
    ``initial_splits``, G06); a table that exists keeps the tablets it has."""
    check_table_id(table_id)
    wanted = {f.name: column_family_pb(f) for f in families}
    if len(wanted) != len(families):
        raise SchemaError(
            f"Table {table_id!r}: family names repeat in {[f.name for f in families]}."
        )
    current = get_families(conn, table_id)
    if current is None:
        try:
            conn.call(
                f"Creating table {table_id!r}",
                conn.admin.create_table,
                request=admin_types.CreateTableRequest(
                    parent=conn.instance_path,
                    table_id=table_id,
                    table=admin_types.Table(column_families=wanted),
                    initial_splits=[
                        admin_types.CreateTableRequest.Split(
                            key=k.encode("utf-8", "surrogateescape")
                        )
                        for k in initial_splits
                    ],
                ),
            )
            return TableSpec(table_id, created=True, added=tuple(wanted))
        except api_exceptions.AlreadyExists:  # created concurrently: fall through to the update
            if create_only:
                return TableSpec(table_id, created=False)
            current = get_families(conn, table_id) or {}
    elif create_only:
        return TableSpec(table_id, created=False)
    check_gc_change_allowed(conn, table_id, gc_rule_changes(current, wanted), confirm)
    mods: list[admin_types.ModifyColumnFamiliesRequest.Modification] = []
    added, updated = [], []
    for name, cf in wanted.items():
        have = current.get(name)
        if have is None:
            mods.append(admin_types.ModifyColumnFamiliesRequest.Modification(id=name, create=cf))
            added.append(name)
            continue
        if admin_types.Type.pb(have.value_type) != admin_types.Type.pb(cf.value_type):
            raise SchemaError(
                f"Table {table_id!r}: family {name!r} exists with another value type "
                f"({'aggregate' if have.value_type.aggregate_type else 'plain'}) than the schema asks for. "
                "A family's type cannot change: drop the table (or use another table_id) and load again."
            )
        if admin_types.GcRule.pb(have.gc_rule) != admin_types.GcRule.pb(cf.gc_rule):
            mods.append(
                admin_types.ModifyColumnFamiliesRequest.Modification(
                    id=name, update=admin_types.ColumnFamily(gc_rule=cf.gc_rule)
                )
            )
            updated.append(name)
    if mods:
        conn.call(
            f"Updating the families of table {table_id!r}",
            conn.admin.modify_column_families,
            request=admin_types.ModifyColumnFamiliesRequest(
                name=conn.table_path(table_id), modifications=mods
            ),
        )
    return TableSpec(table_id, created=False, added=tuple(added), updated=tuple(updated))


def table_families(
    schema: Schema | Mapping[str, Sequence[Family]],
) -> dict[str, tuple[Family, ...]]:
    """``schema.table_families()``, or a plain mapping of logical table → families given directly."""
    from ..schema.schema import Schema

    fams = schema.table_families() if isinstance(schema, Schema) else schema
    return {str(k): tuple(v) for k, v in dict(fams).items()}


def main_table(schema: Schema | Mapping[str, Sequence[Family]]) -> str:
    from ..schema.schema import Schema

    return (schema.table or MAIN) if isinstance(schema, Schema) else MAIN


def ensure_tables(
    conn: Connection,
    schema: Schema | Mapping[str, Sequence[Family]],
    table_id: str,
    families: Mapping[str, Sequence[Family]] | None = None,
    *,
    confirm: str | None = None,
    specs: list[TableSpec] | None = None,
    create_only: Collection[str] = (),
    splits: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, str]:
    """Create/update every table of a schema (or the given families); returns logical → physical IDs.

    On a real instance a GC-rule change of an existing table needs ``confirm=<table_id>``
    (the physical ID of the table that changes). ``specs``, when given, receives what was done
    to each table (which ones this call created). ``create_only``: physical IDs that are only
    created, never changed if they exist (a load checked them absent). ``splits``: logical
    table → the row keys a table this call creates starts split at."""
    fams = (
        table_families(schema) if families is None else {k: tuple(v) for k, v in families.items()}
    )
    ids = table_ids(table_id, list(fams), main_table(schema))
    for logical, physical in ids.items():
        spec = ensure_table(
            conn,
            physical,
            fams[logical],
            confirm=physical if confirm == table_id else confirm,
            create_only=physical in create_only,
            initial_splits=(splits or {}).get(logical, ()),
        )
        if specs is not None:
            specs.append(spec)
    return ids


def drop_table(
    conn: Connection, table_id: str, *, confirm: str | None = None, missing_ok: bool = True
) -> bool:
    """Delete a table (True if it existed). On a real instance ``confirm`` must repeat the ID."""
    conn.check_delete_allowed(table_id, confirm)
    try:
        conn.call(
            f"Deleting table {table_id!r}",
            conn.admin.delete_table,
            request=admin_types.DeleteTableRequest(name=conn.table_path(table_id)),
        )
        return True
    except api_exceptions.NotFound:
        if missing_ok:
            return False
        raise WorkbenchError(f"Table {table_id!r} does not exist on the {conn.target}.") from None


def truncate_table(
    conn: Connection,
    table_id: str,
    *,
    confirm: str | None = None,
    row_key_prefix: str | None = None,
) -> None:
    """Delete every row (or every row under a prefix) but keep the table and its families."""
    conn.check_delete_allowed(table_id, confirm)
    kw: dict[str, Any] = (
        {"row_key_prefix": row_key_prefix.encode("utf-8")}
        if row_key_prefix
        else {"delete_all_data_from_table": True}
    )
    conn.call(
        f"Truncating table {table_id!r}",
        conn.admin.drop_row_range,
        request=admin_types.DropRowRangeRequest(name=conn.table_path(table_id), **kw),
    )


@contextmanager
def throwaway_table(
    conn: Connection,
    families: Sequence[Family] | Mapping[str, Sequence[Family]] | Schema = (),
    *,
    prefix: str = "wbtmp",
) -> Iterator[str]:
    """A uniquely named table (or a schema's set of tables) that is deleted afterwards.

    ``families`` is a list of families (one table), a schema, or a mapping logical → families;
    yields the main table's ID (others are ``<id>--<logical>``)."""
    table_id = unique_table_id(prefix)
    from ..schema.schema import Schema

    if isinstance(families, (Schema, Mapping)):
        specs = table_families(families)
        main = main_table(families)
    else:
        specs = {MAIN: tuple(families)}
        main = MAIN
    ids = table_ids(table_id, list(specs) or [main], main)
    try:
        for logical, physical in ids.items():
            ensure_table(conn, physical, specs.get(logical, ()))
        yield table_id
    finally:
        for physical in ids.values():
            try:
                drop_table(conn, physical, confirm=physical)
            except WorkbenchError:
                pass  # the emulator is gone (a fault test): nothing left to clean
