"""Does every key a design writes conform to its row-key schema? Checked before data exists.

In production, if any key of a table does not conform to the table's row-key schema, every
SQL query that selects key fields fails (docs: "Manage row key schemas"). A ``DelimitedBytes``
key conforms when it splits into exactly the schema's fields at the delimiter: a field value
must not contain the delimiter (admin API reference, ``Type.Struct.Encoding.DelimitedBytes``).
Every field is a UTF-8 STRING, which any of the workbench's key texts decodes as. This module checks every distinct
key a design generates for a dataset and names the first one (in key order) that does not,
and why. The emulator cannot: it drops the schema and has no SQL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import SchemaError
from .keys import RowKey
from .rowkey_schema import RowKeySchema, row_key_schema, row_key_schemas
from .segments import RenderContext

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping

    from ..datasets.model import Dataset
    from .schema import Schema


@dataclass(frozen=True)
class Conformance:
    """The result for one table: how many distinct keys, how many do not conform, the first."""

    schema: RowKeySchema
    keys: int
    bad: int
    first_bad: str | None = None
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.bad == 0

    @property
    def table(self) -> str:
        return self.schema.table

    def __str__(self) -> str:
        head = f"table {self.table!r}: {self.keys:,} distinct keys"
        if self.ok:
            return f"{head}, all conform to ({', '.join(self.schema.names)})."
        return f"{head}, {self.bad:,} do not conform. First: {self.first_bad!r}: {self.reason}"

    def __repr__(self) -> str:
        return f"<Conformance {self}>"

    def _repr_html_(self) -> str:
        from ..reprs import html_of

        return html_of(self)


def check_keys(keys: pd.Series | list[str], rks: RowKeySchema, hint: str = "") -> Conformance:
    """Check distinct ``keys`` against ``rks``; ``hint`` explains where odd keys come from."""
    k = pd.Series(pd.unique(pd.Series(keys, dtype=object)), dtype=object)
    d = rks.delimiter
    n = len(rks.fields)
    parts = k.str.count(re.escape(d)) + 1
    wrong = parts != n
    bad = k[wrong.to_numpy()]
    if bad.empty:
        return Conformance(rks, len(k), 0)
    first = min(bad)  # key order (code point order is UTF-8 byte order)
    got = int(first.count(d)) + 1
    names = ", ".join(rks.names)
    why = f"it splits into {got} fields at {d!r}, the schema declares {n} ({names}). " + (
        hint or _count_hint(rks, first, got)
    )
    return Conformance(rks, len(k), int(wrong.sum()), first, why)


def _count_hint(rks: RowKeySchema, key: str, got: int) -> str:
    n = len(rks.fields)
    if any(s.n_parts(rks.delimiter) is None for s in rks.key.segments) and got < n:
        return (
            "Tags leaves an empty tag out of the key, so series without every tag have fewer "
            "fields; a row-key schema needs every key to have every field (G16)."
        )
    if got > n:
        return (
            f"A value inside the key contains the delimiter {rks.delimiter!r}: the schema "
            "cannot tell it from a field boundary. Choose another delimiter or clean the values."
        )
    return "The key has fewer parts than the design's segments."


def design_keys(schema: Schema, ds: Dataset) -> dict[str, pd.Series]:
    """Every distinct key each table of ``schema`` gets for ``ds`` (aggregate rows included).

    When the design refuses to render (a value holds the delimiter), the keys are built the
    way a client that does not check would write them, so the check can name one."""
    try:
        cells = schema.to_cells(ds, accept_loss=True)
    except SchemaError as exc:
        if "delimiter" not in str(exc):
            raise
        return {name: _raw_keys(key, ds) for name, key in schema.all_tables()}
    f = cells.frame
    return {
        str(t): pd.Series(pd.unique(g["row_key"]), dtype=object)
        for t, g in f.groupby("table", sort=False)
    }


def _raw_keys(key: RowKey, ds: Dataset) -> pd.Series:
    """Keys joined without the delimiter check (what an unchecked writer would produce)."""
    from .time_text import time_us

    frame = ds.frame.reset_index(drop=True)
    ctx = RenderContext({c: frame[c] for c in frame.columns}, time_us(frame[ds.time]), "")
    metric = key.metric
    measures = (metric.measures or tuple(ds.measures)) if metric is not None else (None,)
    out = []
    for m in measures:
        ctx.metric = m
        ctx.time_coded = None
        texts = []
        for s in key.segments:
            if s.renders_last or s.self_delimited:  # a salt of the key, or Tags' delimiters
                raise SchemaError(
                    f"Cannot build the keys of {key.template()!r}: a value holds the delimiter "
                    f"{key.delimiter!r}."
                )
            codes, distinct = s.coded(ctx)
            texts.append(distinct[codes].astype(object))
            if ctx.time_coded is None and s.time_order != 0:
                ctx.time_coded = (codes, distinct)
        joined = texts[0]
        for t in texts[1:]:
            joined = joined + key.delimiter + t
        out.append(pd.Series(np.asarray(joined, dtype=object)))
    return pd.Series(pd.unique(pd.concat(out, ignore_index=True)), dtype=object)


def key_conformance(
    schema: Schema, ds: Dataset, keys: Mapping[str, pd.Series] | None = None
) -> dict[str, Conformance]:
    """Table → whether every key the design writes for ``ds`` conforms to its schema
    (``keys``: the distinct keys per table when already known, e.g. from an analysis)."""
    schemas = {n: r.for_table(n) for n, r in row_key_schemas(schema).items()}  # by design name
    keys = design_keys(schema, ds) if keys is None else keys
    out = {}
    for name, rks in schemas.items():
        hint = ""
        agg = schema.aggregates if name == schema.table else None
        if agg is not None:
            lead = agg.lead(schema.key.delimiter) + schema.key.delimiter
            hint = (
                f"It is an aggregate row ({lead}…): aggregate rows share this table under "
                "another key shape, and a table has one row-key schema. Move them to their own "
                "table, or let a continuous materialized view keep them (G29)."
            )
            ks = keys.get(name, pd.Series([], dtype=object))
            raw = check_keys(ks[~ks.str.startswith(lead)], rks)
            if not raw.ok:  # a problem of the event rows themselves comes first
                out[name] = replace(
                    raw, keys=len(ks), bad=raw.bad + int(ks.str.startswith(lead).sum())
                )
                continue
        out[name] = check_keys(keys.get(name, pd.Series([], dtype=object)), rks, hint)
    return out


conformance = key_conformance

__all__ = [
    "Conformance",
    "check_keys",
    "conformance",
    "key_conformance",
    "design_keys",
    "row_key_schema",
]
