"""A design's row key as a Bigtable row-key schema (structured row keys, Preview).

Bigtable can declare a table's key segments: ``Table.row_key_schema`` is a ``Type.Struct`` of
named, typed fields with a ``DelimitedBytes(delimiter)`` encoding; GoogleSQL then reads the
segments as columns by name (docs: "Manage row key schemas", "Structured row key queries").
The workbench's :class:`~.keys.RowKey` knows every segment, so it can write that schema — as
the client's protobuf, as the YAML/JSON file ``gcloud beta bigtable tables update
--row-key-schema-definition-file`` reads, and as SQL that filters the segments by name.

Every segment becomes one STRING field (UTF-8): the workbench writes keys as text, and the
schema's INT64 and TIMESTAMP encodings are binary (big-endian or ordered code), not decimal
text. What the schema cannot express (a salt the writer computes, a hash, a reversed time) is
said in each field's ``note``. The emulator drops ``row_key_schema`` from a created table and
has no SQL: everything here is a model of production (docs/architecture.md).
"""

from __future__ import annotations

import base64
import json
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from ..errors import SchemaError
from ..notes import EMULATOR_NOTES
from .keys import RowKey
from .segments import KeyQuery, Segment

MAX_DELIMITER = 50  # DelimitedBytes: "at least 1 character and at most 50" (admin API reference)
EMULATOR_NOTE = EMULATOR_NOTES["rowkey_schema"]


@dataclass(frozen=True)
class KeyField:
    """One field of the row-key schema: its SQL name, type and the segment it comes from."""

    name: str
    segment: Segment | None  # None: a part of a Literal that holds the delimiter
    sql_type: str = "STRING"
    note: str = ""
    column: str = ""  # the dataset column a Tags field holds


@dataclass(frozen=True)
class RowKeySchema:
    """A table's row-key schema: ``fields`` joined by ``delimiter`` (``DelimitedBytes``)."""

    table: str
    key: RowKey
    fields: tuple[KeyField, ...]
    families: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def delimiter(self) -> str:
        return self.key.delimiter

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    # -- exports ---------------------------------------------------------------------
    def to_proto(self) -> Any:
        """The official client's ``google.cloud.bigtable_admin_v2.types.Type.Struct``."""
        from google.cloud.bigtable_admin_v2 import types as t  # heavy: only when asked

        utf8 = t.Type.String(encoding=t.Type.String.Encoding(utf8_bytes={}))
        return t.Type.Struct(
            fields=[
                t.Type.Struct.Field(field_name=f.name, type_=t.Type(string_type=utf8))
                for f in self.fields
            ],
            encoding=t.Type.Struct.Encoding(
                delimited_bytes=t.Type.Struct.Encoding.DelimitedBytes(
                    delimiter=self.delimiter.encode("utf-8")
                )
            ),
        )

    def to_dict(self) -> dict[str, Any]:
        """The schema as the REST/JSON form (camelCase; the delimiter base64, as
        ``--row-key-schema-pre-encoded-bytes`` expects)."""
        delim = base64.b64encode(self.delimiter.encode("utf-8")).decode("ascii")
        return {
            "encoding": {"delimitedBytes": {"delimiter": delim}},
            "fields": [
                {"fieldName": f.name, "type": {"stringType": {"encoding": {"utf8Bytes": {}}}}}
                for f in self.fields
            ],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def to_yaml(self) -> str:
        """The definition file ``gcloud beta bigtable tables update`` reads (YAML). The
        delimiter line carries a comment saying which character its base64 is: ``Iw==`` alone
        reads as a typo to anyone who has not met pre-encoded bytes."""
        shown = json.dumps(self.delimiter, ensure_ascii=False)
        return (
            "\n".join(
                f"{line}  # {shown} as base64 (gcloud's --row-key-schema-pre-encoded-bytes)"
                if line.lstrip().startswith("delimiter:")
                else line
                for line in _yaml(self.to_dict(), 0)
            )
            + "\n"
        )

    def for_table(self, table_id: str) -> RowKeySchema:
        """This schema naming the table ``table_id`` (its gcloud line and its SQL alike)."""
        return replace(self, table=table_id)

    def gcloud_command(
        self, instance: str = "INSTANCE_ID", path: str = "row_key_schema.yaml"
    ) -> str:
        """The command that sets this schema on the table it names (``path`` holds
        :meth:`to_yaml`). The table is :attr:`table`, the one :meth:`sql` reads: give the
        table's ID with ``row_key_schemas(design, table_id=…)`` or :meth:`for_table`; without
        one it is the placeholder ``TABLE_ID``, never a design's logical name such as ``main``."""
        return (
            f"gcloud beta bigtable tables update {shlex.quote(self.table)} "
            f"--instance={shlex.quote(instance)} "
            f"--row-key-schema-definition-file={shlex.quote(path)} "
            "--row-key-schema-pre-encoded-bytes"
        )

    # -- SQL -------------------------------------------------------------------------
    def where(
        self,
        values: Mapping[str, Any] | None = None,
        start: Any = None,
        end: Any = None,
        measure: str | None = None,
    ) -> list[str]:
        """Conditions on the key fields: entity ``values`` by dataset column, the time range
        ``[start, end)`` (each written as the key's own text, so the comparison is exact)."""
        values = dict(values or {})
        used: set[str] = set()
        out: list[str] = []
        t0 = _us(start) if start is not None else None
        t1 = _us(end) - 1 if end is not None else None
        ask = KeyQuery(values, t0, t1, measure, self.delimiter)
        for f in self.fields:
            if f.segment is None:
                continue  # a part of a Literal: the same text in every row
            conds, cols = f.segment.sql_where(ask, f.column)
            used.update(cols)
            out += [
                f"{f.name} IN ({', '.join(_sql_str(b) for b in v)})"
                if op == "IN"
                else f"{f.name} {op} {_sql_str(v)}"
                for op, v in conds
            ]
        unknown = sorted(set(values) - used)
        if unknown:
            raise SchemaError(
                f"{unknown[0]!r} is not a segment of {self.table!r}'s key {self.key.template()!r}: "
                f"SQL can filter only the key's fields {list(self.names)} by name."
            )
        return out

    def sql(
        self,
        values: Mapping[str, Any] | None = None,
        start: Any = None,
        end: Any = None,
        measure: str | None = None,
    ) -> str:
        """GoogleSQL reading the key's fields by name: ``SELECT pair, ts, q FROM `prices`
        WHERE pair = 'EUR/USD' AND ts >= … AND ts <= …`` (works once the schema is set)."""
        cols = ", ".join([*self.names, *self.families])
        cond = self.where(values, start, end, measure)
        sql = f"SELECT {cols}\nFROM `{self.table}`"
        if cond:
            sql += "\nWHERE " + "\n  AND ".join(cond)
        return sql

    # -- display ---------------------------------------------------------------------
    def explain(self) -> str:
        """What each field holds and what the schema cannot express."""
        named = "" if self.table == TABLE_PLACEHOLDER else f" of {self.table!r}"
        lines = [f"Row-key schema{named} (delimiter {self.delimiter!r}):"]
        for f in self.fields:
            lines.append(f"  {f.name}: {f.sql_type}" + (f" — {f.note}" if f.note else ""))
        lines += [f"  • {n}" for n in self.notes]
        lines.append(f"  ({EMULATOR_NOTE})")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.explain()

    def _repr_html_(self) -> str:
        from ..reprs import html_of

        return html_of(self)


def _us(when: Any) -> int:
    """A time (naive = UTC) as µs since the epoch."""
    ts = pd.Timestamp(when)
    ts = ts.tz_localize("UTC") if ts.tz is None else ts.tz_convert("UTC")
    return int(ts.value // 1000)


def _sql_str(text: str) -> str:
    """A GoogleSQL string literal (backslash escapes)."""
    return "'" + str(text).replace("\\", "\\\\").replace("'", "\\'") + "'"


def _yaml(value: Any, indent: int) -> list[str]:
    pad = "  " * indent
    out: list[str] = []
    if isinstance(value, Mapping):
        for k, v in value.items():
            if isinstance(v, Mapping) and v:
                out.append(f"{pad}{k}:")
                out += _yaml(v, indent + 1)
            elif isinstance(v, list):
                out.append(f"{pad}{k}:")
                for item in v:
                    sub = _yaml(item, indent + 2)
                    out.append(f"{pad}- {sub[0].strip()}")
                    out += [f"{pad}  {line[len('  ' * (indent + 2)) :]}" for line in sub[1:]]
            else:
                out.append(f"{pad}{k}: {json.dumps(v)}")
    return out


_IDENT = re.compile(r"[^A-Za-z0-9_]")


def _field_name(base: str, taken: set[str]) -> str:
    name = _IDENT.sub("_", base) or "field"
    if name[0].isdigit():
        name = "f_" + name
    out, i = name, 2
    while out.lower() in taken or out.lower() == "_key":
        out, i = f"{name}_{i}", i + 1
    taken.add(out.lower())
    return out


def _fields_of(seg: Segment, delimiter: str, taken: set[str]) -> tuple[list[KeyField], list[str]]:
    """The schema fields one segment contributes (its ``key_fields``, each given a unique SQL
    name), and notes on what the schema cannot say."""
    parts, notes = seg.key_fields(delimiter)
    fields = [
        KeyField(
            _field_name(p.name, taken), seg if p.of_segment else None, note=p.note, column=p.column
        )
        for p in parts
    ]
    first = fields[0].name if fields else ""
    return fields, [n.replace("{name}", first) for n in notes]


TABLE_PLACEHOLDER = "TABLE_ID"  # what a schema names until it is given its table's ID
TABLE_ID_SEPARATOR = "--"  # bigtable.admin.physical_table_id: <id>--<name> for a second table


def physical_name(table_id: str, logical: str, main: str) -> str:
    """The table ID the workbench gives logical table ``logical`` of a design loaded as
    ``table_id`` (as ``bigtable.admin.physical_table_id``: the main table is ``table_id``)."""
    return table_id if logical == main else f"{table_id}{TABLE_ID_SEPARATOR}{logical}"


def row_key_schema(
    key: RowKey, table: str = TABLE_PLACEHOLDER, families: tuple[str, ...] = ()
) -> RowKeySchema:
    """The row-key schema of ``key`` (one STRING field per delimited part)."""
    if not isinstance(key, RowKey):
        raise SchemaError(f"row_key_schema takes a RowKey, got {type(key).__name__}.")
    if len(key.delimiter.encode("utf-8")) > MAX_DELIMITER:
        raise SchemaError(
            f"Delimiter {key.delimiter!r} is over {MAX_DELIMITER} bytes, the longest a "
            "DelimitedBytes encoding takes."
        )
    taken: set[str] = set()
    fields: list[KeyField] = []
    notes: list[str] = []
    for seg in key.segments:
        fs, ns = _fields_of(seg, key.delimiter, taken)
        fields += fs
        notes += ns
    return RowKeySchema(table, key, tuple(fields), tuple(families), tuple(notes))


def row_key_schemas(schema: Any, table_id: str | None = None) -> dict[str, RowKeySchema]:
    """Every logical table of a design → its row-key schema (the main key for the main table),
    each naming its table's ID: ``table_id`` for the main table, ``<table_id>--<name>`` for a
    second one (the IDs ``load``/``export`` give them); ``TABLE_ID`` when no ID is given.

    Aggregate rows (``agg#hourly#…``) share the main table under another key shape: they are
    checked against the main table's schema by :mod:`.key_conformance` and do not conform."""
    fams = schema.table_families()
    base = table_id or TABLE_PLACEHOLDER
    return {
        name: row_key_schema(
            key, physical_name(base, name, schema.table), tuple(f.name for f in fams.get(name, ()))
        )
        for name, key in schema.all_tables()
    }
