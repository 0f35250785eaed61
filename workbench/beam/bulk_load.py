"""A design's cells written by an Apache Beam pipeline: ``workbench bulk-load`` (G17, G29).

The same code runs on the DirectRunner (tests, one machine) and on Dataflow (options only):

1. **Target** (:class:`Target`): ``BIGTABLE_EMULATOR_HOST`` names an emulator (as the official
   client and Beam's own Bigtable sink read it); otherwise Cloud Bigtable, reached only with the
   production opt-in (``WORKBENCH_ALLOW_PRODUCTION=1`` or ``--allow-production``), checked by
   :class:`~workbench.bigtable.connection.Connection` before any socket, exactly as ``load``.
2. **Design** (:func:`design`): ``wb.preset(sample, PATTERN)`` on the whole input's shape
   sample (``sources.shape_sample``: whole series, as ``from_parquet`` / ``from_csv`` take it),
   after ``preflight`` checked the runner, every file's columns and types, times before 1970
   and duplicates: a named dataset's preset when ``name`` and the columns are that dataset's,
   else the design built from the data's shape (time precision, gaps). Every batch's columns
   are then held to the sample's dtypes (an integer measure stays written as ``5``, not
   ``5.0``); a batch that cannot be stops the pipeline naming the column, or with
   ``--max-bad-records`` sends its refused rows to the dead-letter file.
3. **Tables** (:func:`prepare_tables`): the same admin path and checks as ``load`` —
   ``admin.table_families``, the emulator's storable GC rules, the design record,
   ``ownership.check_existing`` (a table that exists must be empty, or hold this design's
   record: the rerun of a failed or killed bulk load, which it finishes — SetCell is
   idempotent), ``admin.ensure_tables(create_only=)`` and the race check.
4. **Pipeline** (:func:`build`): the files read in parallel by Beam (``sources.read_events``) —
   Parquet by row groups (``ReadFromParquetBatched``, converted as ``from_parquet`` does), CSV
   by byte ranges any worker takes (pandas, with ``from_csv``'s read options; the quotes before
   each range tell a quoted field's line break from a row's end; a compressed file is one
   range); a file with duplicates left out (``--duplicates``) is read whole, as its rows'
   numbers in the file say which to leave out → ``from_dataframe`` → ``Schema.to_cells`` →
   ``write_cells`` (the workbench's writer, not Beam's ``WriteToBigTable``, whose ``DirectRow``
   path measured 3.4–9.4× slower). A design with summary rows (G29) writes its events' cells
   straight from the batches read and builds each summary row from the events of one (entity,
   group of whole buckets) key (``CombinePerKey``): no element holds an entity's whole history.
   A design with aggregate families groups each entity's events (``GroupByKey``), so the writer
   combines every cell from all of its events.
5. **Counts** (:class:`BulkReport`): Beam counters of events read, events, cells built and
   cells written, compared at the end (equal, or the run fails).

Why one module: the pipeline's steps share the one ``Plan`` a run is launched with (the design,
the tables, the dropped duplicates, the dead-letter limit, the pacing) and count into the same
Beam counters the report compares; the readers live in ``sources.py`` and a batch's checks
and keys in ``batches.py``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from ..cells import CellFrame
from ..errors import WorkbenchError, WriteError
from ..schema.families import Family

try:
    import apache_beam as beam
    from apache_beam.metrics import Metrics
    from apache_beam.metrics.metric import MetricsFilter
except ImportError as exc:  # pragma: no cover - the extra is installed by make test
    raise WorkbenchError(
        "workbench bulk-load needs Apache Beam: pip install 'bigtable-ts-workbench[beam]' "
        f"(or pip install apache-beam). ({exc})"
    ) from None

from .batches import (  # noqa: E402 (after the check above)
    BatchChecks,
    BucketEvents,
    KeyByBucket,
    ParseEvents,
    by_entity,
)
from .sources import NAMESPACE, Source, count, read_events  # noqa: E402

BATCH_EVENTS = 200_000  # events per batch turned into cells and written (one write_cells call)
_COUNTERS = (
    "events_read",
    "duplicates_dropped",
    "bad_records",
    "events",
    "cells_built",
    "cells_written",
    "rows_written",
    "requests",
)


# ----------------------------------------------------------------------------- target


@dataclass(frozen=True)
class Target:
    """Where the cells go, as every worker reconnects to it. ``allow_production`` is the
    launcher's decision (a worker's environment does not carry the opt-in)."""

    project: str
    instance: str
    emulator_host: str | None = None
    allow_production: bool = False

    @classmethod
    def open(
        cls, project: str, instance: str, allow_production: bool | None = None
    ) -> tuple[Target, Any]:
        """The target named on the command line and the launcher's connection to it; refused
        (ProductionNotAllowed) before any request when it is Cloud Bigtable, or an emulator off
        this machine, without the opt-in."""
        from ..bigtable.emulator import ENV_HOST
        from ..bigtable.net import is_loopback

        host = os.environ.get(ENV_HOST) or None
        conn = cls(project, instance, host).connect(allow_production)  # the checks come first
        # past the checks, Cloud Bigtable or an emulator off this machine was opted in to
        return cls(project, instance, host, host is None or not is_loopback(host)), conn

    def connect(self, allow_production: bool | None = None) -> Any:
        from ..bigtable.connection import Connection

        opt = self.allow_production or allow_production
        if self.emulator_host:
            return Connection.emulator(
                self.emulator_host,
                project=self.project,
                instance=self.instance,
                allow_production=opt,
            )
        return Connection.cloud(self.project, self.instance, allow_production=opt)


# ----------------------------------------------------------------------------- plan


@dataclass(frozen=True)
class Plan:
    """Everything a worker needs, pickled with the pipeline."""

    source: Source
    schema: Any  # the bound Schema
    tables: Mapping[str, str]  # logical → physical table ID
    reducers: Mapping[str, Mapping[str, str]]
    target: Target
    batch_events: int = BATCH_EVENTS
    # the time precision a design for one's own data keys (G31), from the first events; None
    # for a named dataset's preset (its precision is the preset's own)
    precision: str | None = None
    app_profile: str | None = None  # the app profile every write request names
    # the job's limit in row mutations per second, and the processes that write at once (each
    # gets its share: pacing.writer_processes); None: no limit
    max_mutations_per_s: float | None = None
    writers: int = 1
    # summary buckets per group (batches.group_span): consecutive whole buckets of one entity
    group_span: int = 1
    # rows left out as duplicates (--duplicates first|last): file → data row numbers, from 0
    drop: Mapping[str, np.ndarray] = field(default_factory=dict)
    # --max-bad-records: rows a batch's input checks refuse are written to CSV files named
    # dead_letter-<id>.csv instead of stopping the run, up to this many (None: none allowed)
    max_bad_records: int | None = None
    dead_letter: str | None = None

    @property
    def per_process_rate(self) -> float | None:
        """Row mutations per second one writing process may send (the job's limit ÷ writers)."""
        if self.max_mutations_per_s is None:
            return None
        return self.max_mutations_per_s / max(1, self.writers)

    @property
    def grouped(self) -> bool:
        """Summary rows or aggregate families: each entity's events must meet in one batch."""
        return self.schema.aggregates is not None or any(self.reducers.values())


def design(sample: Any, pattern: str, params: Mapping[str, Any]) -> tuple[Any, str | None]:
    """``wb.preset(sample, pattern, **params)`` bound to the sample (its columns and dtypes),
    and the time precision it keys when it is built from the data's shape (else None)."""
    from ..schema.gallery import has_presets, preset, time_precision

    schema = preset(sample, pattern, **dict(params)).bind(sample)
    return schema, None if has_presets(sample) else time_precision(sample)


def prepare_tables(
    conn: Any,
    schema: Any,
    dataset_name: str,
    table_id: str,
    confirm: str | None = None,
    splits: Mapping[str, Sequence[str]] | None = None,
) -> tuple[dict[str, str], dict[str, tuple[Family, ...]], list[str]]:
    """Create the design's tables and families as ``load`` does, before the pipeline starts:
    (logical → physical IDs, the designed families, notes). A table that exists must be empty
    and hold this design (its record, or none with the same families); anything else is refused
    before anything is created, changed or written. ``splits`` (logical table → row keys): the
    split points a table created here starts with (G06); a table that exists keeps its own."""
    from ..bigtable import admin, ownership

    table_id = admin.check_table_id(table_id)
    fams = admin.table_families(schema)
    stored, notes = dict(fams), []
    if not conn.is_production:
        # The emulator collects by the wall clock within a minute, and a bulk load does not
        # read its data before creating the tables: every max-age part is left out of the
        # stored rules (never collecting more than the full rule), as load does for old data.
        now = int(time.time() * 1_000_000)
        for t, fs in fams.items():
            stored[t], n = admin.storable_families(fs, -(2**62), now)
            if n:
                notes.append(
                    f"Table {t!r}: on the emulator the max-age parts of the GC rules are not "
                    "stored (the emulator collects by today's clock); a real instance gets the "
                    "designed rules."
                )
    record = None if conn.is_production else ownership.record_family(schema, dataset_name)
    ids = admin.table_ids(table_id, list(stored), admin.main_table(schema))
    # append only into a table whose design record is this load's: a rerun after a failed or
    # killed bulk load (the record is on the emulator only; a real instance's table must be empty)
    existing = ownership.check_existing(
        conn,
        ids,
        stored,
        CellFrame.empty(),
        schema,
        table_id,
        append=record is not None,
        record=record,
        dataset=dataset_name,
    )
    notes += _resumed(conn, ids, existing, fams)
    tables, specs = ownership.create_claimed(
        conn, schema, table_id, stored, ids, existing, record, confirm, "bulk load", splits
    )
    for spec in specs:
        logical = next(t for t, p in tables.items() if p == spec.table_id)
        if not spec.created and (splits or {}).get(logical):
            notes.append(
                f"Table {spec.table_id!r} existed: it keeps the tablets it has; the split "
                "points are given only to a table this load creates."
            )
    return tables, fams, notes


def _resumed(
    conn: Any, ids: Mapping[str, str], existing: set[str], fams: Mapping[str, Iterable[Family]]
) -> list[str]:
    """What a rerun found: tables of this design (their record) that hold rows already, which
    the load finishes (SetCell is idempotent: a cell written again with the same timestamp and
    value is the same cell). An aggregate family's AddToCell is not: such a table is refused."""
    from ..bigtable.ownership import foreign_row

    notes = []
    for logical, physical in ids.items():
        if (
            physical not in existing
            or not foreign_row(conn, physical, logical, CellFrame.empty())[2]
        ):
            continue
        agg = [f.name for f in fams.get(logical, ()) if f.aggregate]
        if agg:
            raise WriteError(
                f"Table {physical!r} holds rows of this design already (an earlier bulk load), "
                f"and its aggregate families {agg} add every event again (AddToCell is not "
                "idempotent), so it cannot be finished by a rerun. Drop it (cbt deletetable "
                f"{physical}) and run the command again. Nothing was written."
            )
        notes.append(
            f"Table {physical!r} exists with this design's record and holds rows (an earlier "
            "bulk load that failed or was stopped): finishing it — every event is written "
            "again, and a cell written again is the same cell (SetCell is idempotent)."
        )
    return notes


def reducers_of(fams: Mapping[str, Iterable[Family]]) -> dict[str, dict[str, str]]:
    """Logical table → {aggregate family: its aggregate} (the writer combines each cell so)."""
    return {t: {f.name: f.aggregate for f in fs if f.aggregate} for t, fs in fams.items()}


# ----------------------------------------------------------------------------- batches


class WriteEvents(beam.DoFn):
    """A batch of events → Dataset → cells → the workbench's writer; counts what it did."""

    counts_events = True  # the events' own cells come from here (each event counted once)

    def __init__(self, plan: Plan):
        from apache_beam.utils.shared import Shared

        self.plan = plan
        self.conn: Any = None
        self.limiter: Any = None
        self.shared = Shared()  # one rate limiter per worker process, for all its threads

    def setup(self) -> None:
        self.checks = BatchChecks(self.plan)
        self.conn = self.plan.target.connect()
        rate = self.plan.per_process_rate
        if rate is not None:
            from .pacing import TokenBucket

            limit, writers = float(self.plan.max_mutations_per_s or rate), self.plan.writers
            self.limiter = self.shared.acquire(
                lambda: TokenBucket(rate, limit, writers), tag=("pace", rate)
            )

    def teardown(self) -> None:
        if self.conn is not None:
            self.conn.close()

    def process(self, frame: pd.DataFrame) -> None:
        self.write(frame)

    def cells_of(self, ds: Any) -> CellFrame:
        """The cells this step writes for a batch (every cell of the design here)."""
        return self.plan.schema.to_cells(ds)

    def write(self, frame: pd.DataFrame) -> None:
        from ..bigtable.checks import EMULATOR_MAX_ROW_CELLS, check_row_depth
        from ..bigtable.writer import write_cells

        if not len(frame):
            return
        plan, schema = self.plan, self.plan.schema
        ds = self.checks.checked(frame)
        if ds is None:
            return
        cells = self.cells_of(ds)
        if not self.conn.is_production and self.counts_events:
            check_row_depth(cells, ds, schema, EMULATOR_MAX_ROW_CELLS)
        paced: dict[str, Any] = {}
        if self.limiter is not None:
            from .pacing import request_rows

            rate = float(plan.per_process_rate or 0)
            # requests no larger than the bucket's burst, so the pace stays smooth
            paced = {"pace": self.limiter.allow, "batch_mutations": request_rows(rate)}
        report = write_cells(
            self.conn,
            cells,
            dict(plan.tables),
            progress=False,
            reducers={k: dict(v) for k, v in plan.reducers.items()},
            check_families=False,  # created and checked once, before the pipeline
            app_profile_id=plan.app_profile,
            **paced,
        )
        if self.limiter is not None:
            self.limiter.report()
        if self.counts_events:
            count("events", len(ds.frame))
        count("cells_built", len(cells))
        count("cells_written", report.cells)
        count("rows_written", report.rows)
        count("requests", report.requests)


class WriteGroups(WriteEvents):
    """Whole groups (every event of each, after a GroupByKey or a CombinePerKey) gathered into
    batches of about ``batch_events``: every summary cell sees all of its events."""

    def start_bundle(self) -> None:
        self.parts: list[pd.DataFrame] = []
        self.held = 0

    def process(self, keyed: tuple[Any, Any]) -> None:
        parts = [keyed[1]] if isinstance(keyed[1], pd.DataFrame) else keyed[1]
        for part in parts:
            self.parts.append(part)
            self.held += len(part)
        if self.held >= self.plan.batch_events:
            self.flush()

    def finish_bundle(self) -> None:
        self.flush()

    def flush(self) -> None:
        if self.parts:
            frame = pd.concat(self.parts, ignore_index=True)
            self.parts, self.held = [], 0
            self.write(frame)


class WriteSummaries(WriteGroups):
    """The summary rows of whole (entity, buckets) groups (G29): the events' own cells are
    written by the event path, so only the aggregates' cells are kept here, and the events are
    not counted twice."""

    counts_events = False

    def process(self, keyed: tuple[Any, Any]) -> None:
        Metrics.distribution(NAMESPACE, "group_events").update(len(keyed[1]))
        super().process(keyed)

    def cells_of(self, ds: Any) -> CellFrame:
        schema = self.plan.schema
        f = schema.to_cells(ds).frame
        agg = schema.aggregates
        lead = agg.lead(schema.key.delimiter) + schema.key.delimiter
        keep = (f["family"] == agg.family.name) & f["row_key"].str.startswith(lead)
        return CellFrame(f[keep.to_numpy()].reset_index(drop=True))


def build(pipeline: Any, plan: Plan) -> None:
    """The pipeline's steps: read → (events keyed by entity and bucket) → cells → write."""
    src = plan.source
    frames = read_events(pipeline, src, plan.batch_events, plan.drop)
    if plan.schema.aggregates is not None and not any(plan.reducers.values()):
        # summary rows (G29): the events' own cells need no grouping; the summaries are built
        # per (entity, a few whole buckets), so no element holds an entity's whole history
        events_only = replace(plan, schema=replace(plan.schema, aggregates=None))
        events = frames | "Parse events" >> beam.ParDo(ParseEvents(plan))
        _ = events | "Event cells to Bigtable" >> beam.ParDo(WriteEvents(events_only))
        _ = (
            events
            | "Key by entity and bucket" >> beam.ParDo(KeyByBucket(plan))
            | "Events per bucket" >> beam.CombinePerKey(BucketEvents())
            | "Summary cells to Bigtable" >> beam.ParDo(WriteSummaries(plan))
        )
    elif plan.grouped:
        # aggregate families (cells combined by the writer): each entity's events in one batch
        _ = (
            frames
            | "Key by entity" >> beam.FlatMap(by_entity, src.entity)
            | "Whole entities" >> beam.GroupByKey()
            | "Cells to Bigtable" >> beam.ParDo(WriteGroups(plan))
        )
    else:
        _ = frames | "Cells to Bigtable" >> beam.ParDo(WriteEvents(plan))


# ----------------------------------------------------------------------------- counts


@dataclass(frozen=True)
class BulkReport:
    """The Beam counters at the end of a run, and whether they agree."""

    counts: Mapping[str, int]
    elapsed_s: float
    tables: Mapping[str, str]
    # Beam distributions (name → (count, sum, min, max)): ``group_events``, the events of each
    # (entity, buckets) group summary rows are built from; ``part_events``, of each part of a
    # batch sent to a group
    sizes: Mapping[str, tuple[int, int, int, int]] = field(default_factory=dict)
    dead_letter: str | None = None

    @property
    def rows_per_s(self) -> float:
        return self.counts.get("rows_written", 0) / self.elapsed_s if self.elapsed_s else 0.0

    def mismatches(self) -> list[str]:
        c = self.counts
        out = []
        kept = c.get("events_read", 0) - c.get("duplicates_dropped", 0) - c.get("bad_records", 0)
        if c.get("events", 0) != kept:
            out.append(f"events: {kept:,} read and kept, {c.get('events', 0):,} turned into cells")
        if c.get("cells_written", 0) != c.get("cells_built", 0):
            out.append(
                f"cells: {c.get('cells_built', 0):,} built, {c.get('cells_written', 0):,} written"
            )
        return out

    def lines(self) -> list[str]:
        c = self.counts
        ok = "✔ equal" if not self.mismatches() else "✘ differ"
        dropped = c.get("duplicates_dropped", 0)
        kept = [f"duplicates left out{dropped:>14,}   (--duplicates: one event kept of each pair)"]
        bad = c.get("bad_records", 0)
        dead = [f"bad records        {bad:>14,}   refused, written to {self.dead_letter}-*.csv"]
        return [
            f"events read        {c.get('events_read', 0):>14,}   expected (turned into cells) "
            f"{c.get('events', 0):>14,}",
            *(kept if dropped else []),
            *(dead if bad else []),
            f"cells written      {c.get('cells_written', 0):>14,}   expected (built) "
            f"{c.get('cells_built', 0):>26,}   {ok}",
            f"row mutations      {c.get('rows_written', 0):>14,}   in {c.get('requests', 0):,} "
            f"requests, {self.elapsed_s:.1f} s ({self.rows_per_s:,.0f} rows/s)",
            *self.group_lines(),
            *self.paced_lines(),
        ]

    def group_lines(self) -> list[str]:
        """How large the summary rows' groups were: one (entity, bucket) each, G29."""
        if "group_events" not in self.sizes:
            return []
        n, total, _, most = self.sizes["group_events"]
        return [
            f"summary groups     {n:>14,}   (entity, buckets) groups of {total:,} events, "
            f"at most {most:,} in one"
        ]

    def paced_lines(self) -> list[str]:
        """The rate limit's part (``--max-mutations-per-s``): requests it held back and for how
        long, from Beam's rate-limiter counters."""
        c = self.counts
        if not c.get("RatelimitRequestsTotal"):
            return []
        return [
            f"paced writes       {c.get('RatelimitRequestsThrottled', 0):>14,}   requests of "
            f"{c['RatelimitRequestsTotal']:,} held back by the rate limit, "
            f"{c.get('throttled_ms', 0) / 1000:,.1f} s in all"
        ]


def counters(result: Any) -> dict[str, int]:
    """The run's counters (committed where the runner commits them, else attempted)."""
    got = result.metrics().query(MetricsFilter().with_namespace(NAMESPACE))["counters"]
    out = dict.fromkeys(_COUNTERS, 0)
    for m in got:
        value = m.committed if m.committed is not None else m.attempted
        out[m.key.metric.name] = out.get(m.key.metric.name, 0) + int(value or 0)
    return out


def distributions(result: Any) -> dict[str, tuple[int, int, int, int]]:
    """The run's distributions: name → (count, sum, min, max), over every step reporting it."""
    got = result.metrics().query(MetricsFilter().with_namespace(NAMESPACE))["distributions"]
    out: dict[str, tuple[int, int, int, int]] = {}
    for m in got:
        d = m.committed if m.committed is not None else m.attempted
        if d is None or not d.count:
            continue
        n, total, lo, hi = out.get(m.key.metric.name, (0, 0, d.min, d.max))
        out[m.key.metric.name] = (n + d.count, total + d.sum, min(lo, d.min), max(hi, d.max))
    return out


def run(plan: Plan, options: Any, wait: bool = True) -> BulkReport | None:
    """Run the pipeline to its end and return its counts (raises WriteError when they differ).
    ``wait=False`` (a Flex Template's launcher): submit it and return None at once."""
    t0 = time.perf_counter()
    pipeline = beam.Pipeline(options=options)
    build(pipeline, plan)
    result = pipeline.run()
    if not wait:
        return None
    result.wait_until_finish()
    report = BulkReport(
        counters(result),
        time.perf_counter() - t0,
        dict(plan.tables),
        sizes=distributions(result),
        dead_letter=plan.dead_letter,
    )
    bad = report.counts.get("bad_records", 0)
    if plan.max_bad_records is not None and bad > plan.max_bad_records:
        raise WriteError(
            f"{bad:,} rows were refused, more than --max-bad-records {plan.max_bad_records:,} "
            f"(each writing process kept to the limit alone): they are in "
            f"{plan.dead_letter}-*.csv. Fix the files and run the command again: the rerun "
            "finishes the table."
        )
    if report.mismatches():
        raise WriteError(
            "The bulk load's counts differ from what was expected: "
            + "; ".join(report.mismatches())
            + ". Run it again (writes are idempotent) and compare the table with wb.load."
        )
    return report
