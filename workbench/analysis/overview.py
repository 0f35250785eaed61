"""Every analysis of one design on one dataset: ``analyze`` → :class:`Analysis`.

One ``to_cells`` (chunked for large datasets), one shared :class:`CellIndex`, then each
analysis in turn, timed; the result shows itself in a notebook.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..cells import CellFrame
from ..datasets.model import Dataset, require_dataset
from ..datasets.workload import Workload, require_workload, spread_of, workload_only
from ..errors import WorkbenchError
from ..memory import release_freed_memory
from ..reprs import html_of
from ..schema.keys import RowKey
from ..schema.schema import Schema
from ._index import CellIndex
from .capacity import Capacity, capacity, compression_ratio
from .file_writes import replayed
from .keyspace import KeyDistribution, Writes, key_distribution, writes_from_index
from .production import Production, production, stated_query_rates
from .querycost import QueryCosts, plans_for, query_costs, with_production
from .rowsizes import RowSizes, file_largest_row, row_sizes, row_time_bound_s
from .series import SeriesRates, series_rates
from .settings import DEFAULT, Settings

CHUNK_EVENTS = 250_000  # above this, cells are built and indexed chunk by chunk (bounded memory)
COMPRESSION_SAMPLE_EVENTS = 20_000  # events whose cells are compressed to measure the ratio


def schema_name(schema: Schema) -> str:
    """The design's name as results label it (an unnamed Schema is "Schema")."""
    return schema.name or type(schema).__name__


def _chunks(ds: Dataset, chunk_events: int) -> Iterator[Dataset]:
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


def query_node_seconds(qc: QueryCosts) -> dict[str, float]:
    """Modelled node-seconds per run of each planned query (the query-cost table's ``node_ms``):
    the load model spends exactly this CPU on the rows each query sees."""
    t = qc.table
    if "node_ms" not in t.columns:
        return {}
    return {str(q): float(v) / 1e3 for q, v in t["node_ms"].items() if v == v}


def _sample(ds: Dataset, n: int) -> Dataset:
    """About ``n`` events from the middle of the dataset, for measurements on real cells."""
    f = ds.frame
    a = max(0, (len(f) - n) // 2)
    return dataclasses.replace(ds, frame=f.iloc[a : a + n])


def _compression_cells(
    ds: Dataset, schema: Schema, cells: CellFrame | None, st: Settings, bytes_per_event: float
) -> CellFrame:
    """Cells to measure compression on: the sample's (about ``compression_sample_bytes`` from
    its middle), or, when the sample holds less than that, cells shaped like its own: more
    series like the sample's (production has more of them), each copy's values shuffled (a
    seeded draw), until they fill the sample bytes; a file of one series is repeated later in
    time instead. A ratio measured on less than a block moves with how much of a file was
    loaded; production's blocks are full."""
    import pandas as pd

    part = _sample(ds, COMPRESSION_SAMPLE_EVENTS)
    have = len(part) * bytes_per_event
    # as many copies as fill the sample bytes (24 stock prices need ~270): a cap below that
    # measured a small sample on less than the bytes it asks for; this one bounds only a
    # degenerate sample of a few bytes
    copies = min(math.ceil(float(st.compression_sample_bytes) / max(have, 1.0)), 1 << 16)
    if copies <= 1 or not len(part):
        return cells if cells is not None else schema.to_cells(part)
    f0, t = part.frame, part.frame[part.time]
    # entity text may be object or pandas' string dtype (from_csv's): both take a "~i" suffix
    ints = [c for c in part.entity if pd.api.types.is_integer_dtype(f0[c])]
    ents = [c for c in part.entity if c in ints or pd.api.types.is_string_dtype(f0[c])]
    if not ents:  # one series: later in time, as far as pandas' timestamps reach
        span = max(t.max() - t.min(), pd.Timedelta(seconds=1)) * 1.001
        room = (pd.Timestamp("2200-01-01", tz="UTC") - t.max()) / span
        copies = max(1, min(copies, int(room)))
    rng = np.random.default_rng(0)
    frames = [f0]
    for i in range(1, copies):
        f = f0.copy()
        if ents:
            c = ents[0]
            f[c] = f[c] + i * (int(f0[c].max()) + 1) if c in ints else f[c] + f"~{i}"
        else:
            f[part.time] = t + span * i
        for m in part.measures:
            f[m] = rng.permutation(f[m].to_numpy())
        frames.append(f)
    filled = dataclasses.replace(part, frame=pd.concat(frames, ignore_index=True))
    try:
        return schema.to_cells(filled, accept_loss=True)
    except WorkbenchError:  # a design that cannot take the copies: the sample as it is
        return cells if cells is not None else schema.to_cells(part)


def build_index(
    ds: Dataset, schema: Schema, *, cells: CellFrame | None = None, chunk_events: int = CHUNK_EVENTS
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
            "busiest_tablet_share": self.keyspace.mean_tablet_share,
            "write_frontier": self.keyspace.frontier,
            "hot_rows": ", ".join(self.keyspace.hot_rows),
            "events_per_s": self.capacity.events_per_s,
            "mutations_per_event": self.capacity.mutations_per_event,
            "ceiling_events_per_s": self.capacity.ceiling_events_per_s,
            "hotspot_limited": self.capacity.hotspot_limited,
            "nodes_for_cpu": self.capacity.cpu.nodes,
            "nodes_for_storage": self.capacity.storage_nodes,
            "nodes_needed": self.capacity.nodes_needed,
            "stored_gib_compressed": self.capacity.stored_gib,
            "monthly_cost_usd": self.capacity.monthly_cost,
        }
        t = self.queries.table
        for q in t.index:
            if t.loc[q, "kind"] == "cannot plan":
                continue
            out[f"{q}: rows seen"] = int(t.loc[q, "rows_seen"])
            out[f"{q}: rows returned"] = int(t.loc[q, "rows_returned"])
            out[f"{q}: waste"] = float(t.loc[q, "waste"])  # the query-cost model's figure
            out[f"{q}: scans"] = int(t.loc[q, "scans"])
            # at the production entity counts when they were given (one number to rank by)
            ms = "production_node_ms" if "production_node_ms" in t.columns else "node_ms"
            out[f"{q}: node ms"] = float(t.loc[q, ms])
            # the same plan as the emulator runs it (no reverse scans): a different figure only
            # for a reverse scan, which the emulator reads forward
            out[f"{q}: emulator rows seen"] = int(t.loc[q, "emulator_rows_seen"])
        return out

    def _repr_html_(self) -> str:
        return html_of(self)

    def __repr__(self) -> str:
        return (
            f"<Analysis {self.schema} on {self.dataset}: {self.keyspace.verdict()}; {self.rowsizes.verdict()}; "
            f"{self.capacity.verdict()}>"
        )


@contextmanager
def _timed(timings_ms: dict[str, float], step: str) -> Iterator[None]:
    """Record how long the block took, in ms, as ``timings_ms[step]`` (shown with the result)."""
    t0 = time.perf_counter()
    try:
        yield
    finally:
        timings_ms[step] = (time.perf_counter() - t0) * 1e3


def costed_queries(
    ds: Dataset,
    schema: Schema,
    index: CellIndex,
    st: Settings,
    measured: Mapping[str, Any] | None,
    name: str,
    scale: PlanScale | None,
) -> QueryCosts:
    """The dataset's queries planned (compared at the settings' read costs) and costed.

    ``scale``: production as the planner weighs its plans (:func:`plan_scale`; None: the
    sample): plans that list one range per known value plan for the production count, and
    each alternative is priced at production's rows (every series at its rate, over the
    query's window or, bounding no time, over retention)."""
    planned = schema.bind(
        ds,
        costs=st.read_costs(),
        entities=scale.entities if scale is not None else None,
        rate_factor=scale.rate_factor if scale is not None else None,
        retention_s=scale.retention_s if scale is not None else None,
        own_skew=scale.own_skew if scale is not None else None,
    )
    plans, errors = plans_for(planned, ds.queries)
    qc = query_costs(
        index,
        plans,
        weights={q.name: q.weight for q in ds.queries},
        measured=measured,
        settings=st,
        errors=errors,
        schema_name=name,
    )
    return qc


def at_workload(
    ds: Dataset,
    schema: Schema,
    index: CellIndex,
    qc: QueryCosts,
    kd: KeyDistribution,
    wl: Workload,
    writes: tuple[int, float],
    st: Settings,
    rates: SeriesRates | None = None,
) -> tuple[Production, QueryCosts]:
    """The design at the workload (``analysis/production.py``) and the query costs with its
    production columns; the load model's views state its ceiling from then on (one number).
    ``writes``: the sample's mutations and their cost in planning rows; ``rates``: the series
    rates the planner weighed its plans at (counted again when not given)."""
    prod = production(
        ds,
        index,
        qc,
        kd.ceiling,
        workload=wl,
        mutations=writes[0],
        write_units=writes[1],
        salt_buckets=next((len(b) for s in schema.key.segments if (b := s.buckets())), None),
        bucket_s=row_time_bound_s(schema.key),
        lead_columns=leading_entities(schema, ds, st.rebalance_minutes * 60),
        settings=st,
        counted=rates,
    )
    kd.ceiling = kd.inputs["ceiling"] = prod.ceiling()
    return prod, with_production(qc, prod)


@dataclass(frozen=True)
class PlanScale:
    """Production as the planner weighs its plans: the entity counts (None: the sample's own,
    when the workload states none and does not grow them; a shape sample's file's, so a plan
    lists as many ranges as the whole file has series), each series' events per second over
    the sample's, and the retention a read bounding no time reads (the same figures the
    production view scales each query's reads with)."""

    entities: dict[str, int] | None
    rate_factor: float
    retention_s: float
    own_skew: bool = True  # a named series writes its own share (the spread is the sample's)


def plan_scale(
    ds: Dataset, wl: Workload, st: Settings, rates: SeriesRates | None = None
) -> PlanScale:
    """The :class:`PlanScale` of ``ds`` at ``wl`` (``st``: its retention; ``rates``: its
    :func:`~workbench.analysis.series.series_rates`, counted here when not given)."""
    sr = rates or series_rates(ds, wl)
    counts = sr.counts
    ents = None
    if counts.stated or sr.workload.entities or wl.growth == "grow":
        ents = {
            c: max(1, round(v)) for c, v in counts.production_by_column.items() if c in ds.entity
        }
    own_skew = spread_of(wl, bool(counts.stated)).kind == "sample"
    kept_s = wl.retention_months * st.hours_per_month * 3600
    return PlanScale(ents or None, sr.rate_factor, kept_s, own_skew)


def leading_entities(schema: Schema, ds: Dataset, settle_s: float) -> tuple[str, ...]:
    """The entity columns whose values each write their own rows at any moment: those the key
    puts before its first time segment (a salt or a literal before them changes nothing), or
    after a time bucket at least ``settle_s`` wide (the load model's rebalance time: within
    the current bucket the tablets split and spread the series' rows, a frontier only at the
    bucket's turn)."""
    out: list[str] = []
    times = schema.key.time_segments
    for seg in schema.key.segments:
        if any(seg is t for t in times):
            width = row_time_bound_s(RowKey((seg,)))
            if out or width is None or width < settle_s:
                break
            continue
        out += [c for c in seg.sources() if c in ds.entity and c not in out]
    return tuple(out)


def load_model(
    ds: Dataset,
    index: CellIndex,
    qc: QueryCosts | None,
    wl: Workload,
    st: Settings,
    *,
    nodes: int | None,
    name: str,
    writes: Writes | None = None,
    schema: Schema | None = None,
) -> KeyDistribution:
    """``analyze``'s key distribution (the load model) of the design's cells ``index`` at the
    workload ``wl``: the writes at its peak rate in this design's mutations, each query's reads
    at its stated rate at the peak (``qc``: the costed queries; None draws no reads, which is
    what the costs give when ``wl`` states no query rate: :func:`draws_reads`). A shape sample
    of Parquet files with ``schema`` given replays every event of the files, keyed by DuckDB
    (``analysis/file_writes.py``), where the design's key is written in SQL; else the sample's
    writes, and the model's ``source_note`` says which."""
    w = writes if writes is not None else writes_from_index(index)
    q_rates: dict[str, float] = {}
    if qc is not None:
        # the reads capacity sizes for: each query at its stated rate at the peak, none where
        # nobody stated one (weights here are runs/s, split exactly)
        stated, _ = stated_query_rates(ds, qc.plans, wl)
        q_rates = {q: r * wl.peak_factor for q, r in stated.items()}
    seen = qc.seen_rows if qc is not None else None
    node_s = query_node_seconds(qc) if qc is not None else None
    reads = (seen, {**dict.fromkeys(seen or (), 0.0), **q_rates}, node_s)
    rp = replayed(ds, schema, (index, w), reads, sum(q_rates.values()), st)
    w = rp.writes
    mpe = w.n / max(rp.events, 1) if w.n else 1.0
    write_rate = None if wl.events_per_s is None else wl.events_per_s * wl.peak_factor * mpe
    return key_distribution(
        rp.index,
        seen_rows=rp.seen,
        weights=reads[1],
        query_node_s=reads[2],
        nodes=nodes,
        settings=st,
        write_rate_per_s=write_rate,
        queries_per_s=sum(q_rates.values()),
        writes=w,
        schema_name=name,
        events=rp.events,
        ceiling=rp.ceiling,
        source_note=rp.note,
    )


def draws_reads(ds: Dataset, wl: Workload) -> bool:
    """Whether the load model draws any read load for ``ds``'s queries at ``wl``: only a stated
    query rate does (:func:`~workbench.analysis.production.stated_query_rates`)."""
    stated = wl.queries_per_s is not None or any(q.per_s is not None for q in wl.queries.values())
    return bool(ds.queries) and stated


def keyspace(
    ds: Dataset,
    schema: Schema,
    *,
    nodes: int | None = None,
    workload: Workload | None = None,
    settings: Settings | None = None,
    chunk_events: int = CHUNK_EVENTS,
    engine: bool = True,
) -> KeyDistribution:
    """``analyze(ds, schema, nodes=, workload=, settings=).keyspace`` on its own: the same
    index and the same load model (:func:`load_model`), without compression, row sizes and
    capacity, and without the query costs when the workload draws no reads (:func:`draws_reads`).
    Its tablets, rates and split keys are analyze's; its ceiling is the sample's own
    (``design_ceiling``), where ``analyze`` goes on to state production's (``at_workload``).
    What a bulk load's split points need (``beam/splits.py``, G06). ``engine=False``: replay
    ``ds``'s own events even when they are a shape sample of files (a bulk load's bounded
    share), not every event of the files (``analysis/file_writes.py``)."""
    require_dataset(ds, "keyspace")
    st = settings or DEFAULT
    wl = require_workload(workload)
    name = schema_name(schema)
    index = build_index(ds, schema, chunk_events=chunk_events)
    qc = None
    if draws_reads(ds, wl):
        scale = plan_scale(ds, wl, st, series_rates(ds, wl))
        qc = costed_queries(ds, schema, index, st, None, name, scale)
    keyed = schema if engine else None
    return load_model(ds, index, qc, wl, st, nodes=nodes, name=name, schema=keyed)


@workload_only  # events_per_s=, entities=, ... refused with the Workload line to write instead
def analyze(
    ds: Dataset,
    schema: Schema,
    *,
    nodes: int | None = None,
    measured: Mapping[str, Any] | None = None,
    settings: Settings | None = None,
    cells: CellFrame | None = None,
    chunk_events: int = CHUNK_EVENTS,
    tiered_after_days: float | None = None,
    workload: Workload | None = None,
) -> Analysis:
    """Run every analysis of ``schema`` on ``ds``: key distribution over time (the load model),
    row sizes, query costs and capacity, each timed.

    Parameters
    ----------
    ds : Dataset
        The events (``wb.load_dataset``, ``wb.from_csv``, ...); the sample gives the design's
        shape.
    schema : Schema
        The design (``wb.preset(ds, pattern)`` or your own).
    nodes : int, optional
        Cluster size of the key-distribution model (default 3).
    measured : Mapping[str, Any], optional
        Emulator results per query name (``TableHandle.run`` results), shown beside the model.
    settings : Settings, optional
        Every modelling constant (``analysis/settings.py``); default ``DEFAULT``.
    cells : CellFrame, optional
        A CellFrame already built for this schema (skips ``to_cells``).
    chunk_events : int, default 250000
        Events turned into cells at a time (bounds memory on large data).
    tiered_after_days : float, optional
        Tiered storage (Preview): cells older than this many days (by cell timestamp, at
        least 30) in the infrequent-access tier (``settings.tiered_after_days``).
    workload : Workload, optional
        The production a team states, the one place it is stated (:class:`~workbench.Workload`:
        the event rate and its peak, retention, series counts and growth, spread, query rates;
        default: the sample's own rate, no query rate). Nodes, ceilings, storage, each query's
        production cost and row growth are computed at it (``analysis/production.py``); a
        design writing every event to two tables needs twice the mutations.

    Returns
    -------
    Analysis
        ``.keyspace`` (key distribution), ``.rowsizes``, ``.queries``, ``.capacity``,
        ``.index`` and ``.timings``; a notebook shows it with its figures.

    Why one function: it is the sequence of timed steps, each already its own function
    (``build_index``, ``compression_ratio``, ``costed_queries``,
    ``key_distribution``, ``at_workload``, ``row_sizes``, ``capacity``); what remains is
    passing one step's result to the next.
    """
    require_dataset(ds, "analyze")
    st = settings or DEFAULT
    if tiered_after_days is not None:
        st = st.replace(tiered_after_days=float(tiered_after_days))
    wl = require_workload(workload)
    name = schema_name(schema)
    tm: dict[str, float] = {}
    with _timed(tm, "index"):
        if cells is None and len(ds) <= chunk_events:
            cells = schema.to_cells(ds)
        index = build_index(ds, schema, cells=cells, chunk_events=chunk_events)
    with _timed(tm, "compression"):
        per_cell = float(index.nbytes.sum()) / max(index.n_cells, 1)
        sample = _compression_cells(
            ds, schema, cells, st, float(index.nbytes.sum()) / max(len(ds), 1)
        )
        ratio = compression_ratio(sample, st, bytes_per_cell=per_cell)
        del sample
        release_freed_memory()  # the sample's cells and their serialization: back to the OS
    writes = writes_from_index(index)
    n_writes = len(writes.row)
    write_units = float(
        np.maximum(writes.nbytes / float(st.planning_row_bytes), 1.0).sum(dtype=np.float64)
    )
    with _timed(tm, "queries"):
        rates = series_rates(ds, wl)  # one count: the planner and production() read it
        qc = costed_queries(ds, schema, index, st, measured, name, plan_scale(ds, wl, st, rates))
    with _timed(tm, "keyspace"):
        kd = load_model(ds, index, qc, wl, st, nodes=nodes, name=name, writes=writes, schema=schema)
        del writes  # one entry per mutation: the model keeps what it needs (10M: ~190 MB)
    bound = row_time_bound_s(schema.key)
    with _timed(tm, "production"):
        prod, qc = at_workload(ds, schema, index, qc, kd, wl, (n_writes, write_units), st, rates)
    with _timed(tm, "rowsizes"):
        rs = row_sizes(
            index,
            settings=st,
            schema_name=name,
            row_bound_s=bound,
            rate_factor=prod.rate_factor if prod.bucketed else 1.0,
            retention_months=wl.retention_months,
        )
        rs = file_largest_row(ds, schema.key, rs)  # a shape sample: the file's largest row
    with _timed(tm, "capacity"):
        cap = capacity(
            index,
            len(ds),
            prod,
            schema_name=name,
            compression=ratio,
            families=schema.table_families(),
            seen_rows=qc.seen_rows,
        )
    return Analysis(
        dataset=ds.name,
        schema=name,
        keyspace=kd,
        rowsizes=rs,
        queries=qc,
        capacity=cap,
        index=index,
        timings_ms=tm,
    )
