"""What a design does, before production: key distribution, row sizes, query costs, capacity, comparison.

``wb.analyze(ds, schema)`` runs every analysis of one schema on one dataset
(one ``to_cells``, one shared :class:`CellIndex`, then numpy); the result shows
itself in a notebook. ``wb.compare(ds, [a, b, ...])`` ranks designs side by side.

Everything is computed from the CellFrame and the read plans, so it runs
without the emulator; measured emulator figures can be passed in to be shown
beside the model.
"""

from __future__ import annotations

import dataclasses
import html
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..cells import CellFrame
from ._index import CellIndex
from .capacity import Capacity, capacity
from .keyspace import KeyDistribution, key_distribution, writes_from_index
from .querycost import QueryCosts, evaluate, plans_for, query_costs
from .rowsizes import RowSizes, bucket_width_sweep, row_sizes, row_time_bound_s
from .settings import DEFAULT, EMULATOR_NOTES, Settings

CHUNK_EVENTS = 250_000  # above this, cells are built and indexed chunk by chunk (bounded memory)


def schema_name(schema: Any) -> str:
    for attr in ("name", "label"):
        v = getattr(schema, attr, None)
        if isinstance(v, str) and v:
            return v
    return type(schema).__name__


def _chunks(ds: Any, chunk_events: int) -> Iterator[Any]:
    """The dataset in slices of about ``chunk_events``, cut where an entity ends when possible."""
    f = ds.frame
    n = len(f)
    a = 0
    ent = f[ds.entity] if ds.entity else None
    while a < n:
        b = min(a + chunk_events, n)
        if ent is not None and b < n:
            # move the cut forward to the next entity change (at most one more chunk)
            stop = min(b + chunk_events, n)
            e = ent.iloc[b - 1 : stop]
            same = (
                (e.iloc[1:].to_numpy() == e.iloc[:-1].to_numpy()).all(axis=1)
                if len(e) > 1
                else np.zeros(0, bool)
            )
            change = np.flatnonzero(~same)
            b = b + int(change[0]) if len(change) else stop
        yield dataclasses.replace(ds, frame=f.iloc[a:b])
        a = b


def build_index(
    ds: Any, schema: Any, *, cells: CellFrame | None = None, chunk_events: int = CHUNK_EVENTS
) -> CellIndex:
    """The shared index of a design's cells; large datasets are converted chunk by chunk."""
    if cells is not None:
        return CellIndex.build(cells)
    if len(ds) <= chunk_events:
        return CellIndex.build(schema.to_cells(ds))
    return CellIndex.from_parts(schema.to_cells(part) for part in _chunks(ds, chunk_events))


@dataclass
class Analysis:
    """Every analysis of one schema on one dataset."""

    dataset: str
    schema: str
    keyspace: KeyDistribution
    rowsizes: RowSizes
    queries: QueryCosts
    capacity: Capacity
    index: CellIndex = field(repr=False)
    timings_ms: dict[str, float] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """The headline figures, one value each (a row of the comparison table)."""
        out: dict[str, Any] = {
            "rows": self.index.n_rows,
            "cells": self.index.n_cells,
            "tablets": self.keyspace.n_tablets,
            "nodes": self.keyspace.nodes,
            "fair_share": self.keyspace.fair_share,
            "busiest_node_share": self.keyspace.mean_share,
            "hotspot_factor": self.keyspace.hotspot_factor,
            "busiest_range": self.keyspace.busiest_range.get("name", ""),
            "bytes_per_event": self.capacity.bytes_per_event,
            "total_bytes": self.capacity.total_bytes,
            "max_row_bytes": self.rowsizes.max_bytes,
            "projected_max_row_bytes": self.rowsizes.projected_max_bytes,
            "max_row_cells": int(self.rowsizes.cells.max()) if self.rowsizes.n_rows else 0,
            "nodes_needed": self.capacity.nodes_needed,
            "monthly_cost_usd": self.capacity.monthly_cost,
        }
        t = self.queries.table
        for q in t.index:
            if t.loc[q, "kind"] == "cannot plan":
                continue
            out[f"{q}: rows seen"] = int(t.loc[q, "rows_seen"])
            out[f"{q}: rows returned"] = int(t.loc[q, "rows_returned"])
            out[f"{q}: waste"] = float(
                t.loc[q, "waste"]
            )  # the query-cost model's figure, not re-derived
            out[f"{q}: scans"] = int(t.loc[q, "scans"])
            out[f"{q}: node ms"] = float(t.loc[q, "node_ms"])
        return out

    def _repr_html_(self) -> str:
        total = sum(self.timings_ms.values())
        return (
            f"<div><h3>{html.escape(self.schema)} on {html.escape(self.dataset)}</h3>"
            f"<p>{self.index.n_cells:,} cells in {self.index.n_rows:,} rows · analysed in {total:,.0f} ms</p>"
            + self.keyspace._repr_html_()
            + self.rowsizes._repr_html_()
            + self.queries._repr_html_()
            + self.capacity._repr_html_()
            + "</div>"
        )

    def __repr__(self) -> str:
        return (
            f"<Analysis {self.schema} on {self.dataset}: {self.keyspace.verdict()}; {self.rowsizes.verdict()}; "
            f"{self.capacity.verdict()}>"
        )


def analyze(
    ds: Any,
    schema: Any,
    *,
    nodes: int | None = None,
    measured: Mapping[str, Any] | None = None,
    settings: Settings | None = None,
    target_writes_per_s: float | None = None,
    cells: CellFrame | None = None,
    runs_per_window: float = 1.0,
    chunk_events: int = CHUNK_EVENTS,
) -> Analysis:
    """Run every analysis of ``schema`` on ``ds``.

    ``nodes``: cluster size of the key-distribution model (default 3);
    ``measured``: emulator results per query name (``TableHandle.run`` results) shown beside the model;
    ``target_writes_per_s``: the production write rate to size nodes for (default: the data's own rate);
    ``cells``: a CellFrame already built for this schema (skips ``to_cells``).
    """
    from ..datasets.model import require_dataset

    require_dataset(ds, "analyze")
    st = settings or DEFAULT
    name = schema_name(schema)
    tm: dict[str, float] = {}
    t0 = time.perf_counter()
    index = build_index(ds, schema, cells=cells, chunk_events=chunk_events)
    tm["index"] = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    plans, errors = plans_for(schema, ds.queries)
    weights = {q.name: q.weight for q in ds.queries}
    qc = query_costs(
        index,
        plans,
        weights=weights,
        measured=measured,
        settings=st,
        errors=errors,
        schema_name=name,
    )
    tm["queries"] = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    kd = key_distribution(
        index,
        seen_rows=qc.seen_rows,
        weights=weights,
        nodes=nodes,
        settings=st,
        runs_per_window=runs_per_window,
        schema_name=name,
    )
    tm["keyspace"] = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    key = getattr(schema, "key", None)  # a set of tables has no single key: no bound
    bound = row_time_bound_s(key) if key is not None else None
    rs = row_sizes(index, settings=st, schema_name=name, row_bound_s=bound)
    tm["rowsizes"] = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    cap = capacity(
        index, len(ds), kd, settings=st, target_writes_per_s=target_writes_per_s, schema_name=name
    )
    tm["capacity"] = (time.perf_counter() - t0) * 1e3
    return Analysis(
        dataset=getattr(ds, "name", "dataset"),
        schema=name,
        keyspace=kd,
        rowsizes=rs,
        queries=qc,
        capacity=cap,
        index=index,
        timings_ms=tm,
    )


def compare(ds: Any, schemas: Sequence[Any], **kwargs: Any):
    """Analyse every schema on ``ds`` and rank them side by side (see :class:`Comparison`)."""
    from .compare import compare as _compare

    return _compare(ds, schemas, **kwargs)


__all__ = [
    "Analysis",
    "analyze",
    "compare",
    "Settings",
    "DEFAULT",
    "EMULATOR_NOTES",
    "CellIndex",
    "KeyDistribution",
    "RowSizes",
    "QueryCosts",
    "Capacity",
    "key_distribution",
    "row_sizes",
    "query_costs",
    "capacity",
    "evaluate",
    "writes_from_index",
    "bucket_width_sweep",
    "build_index",
]
