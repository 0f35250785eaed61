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
4. **Pipeline** (:func:`build`): CSV files (``fileio``; pandas in chunks, with ``from_csv``'s
   read options) or Parquet (``ReadFromParquetBatched``, converted as ``from_parquet`` does) →
   ``from_dataframe`` → ``Schema.to_cells`` → ``write_cells`` (the workbench's writer, not
   Beam's ``WriteToBigTable``, whose ``DirectRow`` path measured 3.4–9.4× slower). A design with
   summary rows or aggregate families groups each entity's events (``GroupByKey``) so every
   summary row and every aggregate cell is built from all of its events in one batch.
5. **Counts** (:class:`BulkReport`): Beam counters of events read, events, cells built and
   cells written, compared at the end (equal, or the run fails).

Why one module: the pipeline's steps share the one ``Plan`` a run is launched with (the design,
the tables, the dropped duplicates, the dead-letter limit, the pacing) and count into the same
Beam counters the report compares; the readers are the part that can leave, to ``sources.py``
(a branch that moves them and keys summary rows by entity and bucket waits to be merged).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..cells import CellFrame
from ..errors import DatasetError, WorkbenchError, WriteError
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

from .sources import Source, arrow_frame, csv_frames  # noqa: E402 (after the check above)

NAMESPACE = "workbench.bulk_load"
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


_PRECISIONS = ("second", "ms", "us")


def check_precision(ds: Any, precision: str | None, where: str) -> None:
    """A design built from the first events keys their time precision (G31); a batch needing
    a finer one would be written under coarser keys than one load of all the events chooses."""
    from ..schema.gallery import time_precision

    if precision is None:
        return
    need = time_precision(ds)
    if _PRECISIONS.index(need) > _PRECISIONS.index(precision):
        raise DatasetError(
            f"{where} holds times with {need} precision, but the first events the design was "
            f"derived from need only {precision}s, so its keys keep {precision}s (G31) and one "
            f"load of all the events would key {need}. Derive the design from more events "
            "(--sample-events, so that they include such a time) or put a file with such "
            "times first. Nothing more was written."
        )


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


def conform(frame: pd.DataFrame, dtypes: Iterable[tuple[str, str]], where: str) -> pd.DataFrame:
    """The batch's columns in the design's dtypes where only their kind differs (integers read
    as floats in one batch, floats in another): a value's text follows its dtype (``5`` or
    ``5.0``), so every batch must write what one load of all the events writes."""
    out = frame
    for col, want in dtypes:
        if col not in out.columns or str(out[col].dtype) == want:
            continue
        have_kind, want_kind = out[col].dtype.kind, np.dtype(want).kind if want[0] in "fiub" else ""
        if (have_kind, want_kind) not in {("i", "f"), ("f", "i"), ("u", "f"), ("f", "u")}:
            continue
        v = out[col].to_numpy()
        with np.errstate(invalid="ignore"):
            cast = v.astype(want)
        if not np.array_equal(cast.astype(v.dtype), v):  # NaN, fractions or beyond 2^53
            raise DatasetError(
                f"Column {col!r} is {want} in the first events the design was derived from, "
                f"but {where} holds values that are not ({out[col].dtype}: a missing value or a "
                f"fraction). One load of all the events would write every {col!r} value as a "
                "float: derive the design from more events (--sample-events, so that they "
                "include such a value) or write the column as floats in every file."
            )
        out = out.assign(**{col: cast})
    return out


def _count(name: str, n: int) -> None:
    Metrics.counter(NAMESPACE, name).inc(int(n))


class WriteEvents(beam.DoFn):
    """A batch of events → Dataset → cells → the workbench's writer; counts what it did."""

    def __init__(self, plan: Plan):
        from apache_beam.utils.shared import Shared

        self.plan = plan
        self.conn: Any = None
        self.limiter: Any = None
        self.shared = Shared()  # one rate limiter per worker process, for all its threads

    def setup(self) -> None:
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

    def events(self, frame: pd.DataFrame) -> Any:
        """A batch as a Dataset held to the design (``from_dataframe``'s checks, the design's
        dtypes and time precision, ``check_loadable``): the input checks of one batch."""
        from ..bigtable.checks import check_loadable

        plan, schema = self.plan, self.plan.schema
        ds = plan.source.dataset(frame)
        where = f"a batch of {len(frame):,} events"
        ds.frame = conform(ds.frame, schema.shape.dtypes, where)
        check_precision(ds, plan.precision, where)
        check_loadable(ds)
        return ds

    def checked(self, frame: pd.DataFrame) -> Any:
        """The batch's events; with ``--max-bad-records``, the rows the input checks refuse are
        found by halving the batch (a row refused on its own is bad), written to the
        dead-letter file with the reason and counted, and the rest go on as one batch."""
        if self.plan.max_bad_records is None:
            return self.events(frame)
        try:
            return self.events(frame)
        except DatasetError:
            good, bad = self._split(frame.reset_index(drop=True))
        if bad:
            self._dead_letter(bad)
        return self.events(pd.concat(good, ignore_index=True)) if good else None

    def _split(
        self, frame: pd.DataFrame
    ) -> tuple[list[pd.DataFrame], list[tuple[pd.DataFrame, str]]]:
        try:
            self.events(frame)
            return [frame], []
        except DatasetError as exc:
            if len(frame) == 1:
                return [], [(frame, str(exc).splitlines()[0])]
        half = len(frame) // 2
        g1, b1 = self._split(frame.iloc[:half])
        g2, b2 = self._split(frame.iloc[half:])
        return g1 + g2, b1 + b2

    def _dead_letter(self, bad: list[tuple[pd.DataFrame, str]]) -> None:
        import uuid

        from apache_beam.io.filesystems import FileSystems

        self.bad = getattr(self, "bad", 0) + len(bad)
        limit = int(self.plan.max_bad_records or 0)
        if self.bad > limit:
            raise DatasetError(
                f"More than --max-bad-records {limit} rows were refused ({bad[-1][1]}). "
                "Fix the files (the rows refused so far are in the dead-letter files "
                f"{self.plan.dead_letter}-*.csv) and run the command again: the rerun finishes "
                "the table."
            )
        rows = pd.concat([f.assign(_error=why) for f, why in bad], ignore_index=True)
        path = f"{self.plan.dead_letter}-{uuid.uuid4().hex[:12]}.csv"
        with FileSystems.create(path) as fh:
            fh.write(rows.to_csv(index=False).encode())
        _count("bad_records", len(bad))

    def write(self, frame: pd.DataFrame) -> None:
        from ..bigtable.checks import EMULATOR_MAX_ROW_CELLS, check_row_depth
        from ..bigtable.writer import write_cells

        if not len(frame):
            return
        plan, schema = self.plan, self.plan.schema
        ds = self.checked(frame)
        if ds is None:
            return
        cells = schema.to_cells(ds)
        if not self.conn.is_production:
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
        _count("events", len(ds.frame))
        _count("cells_built", len(cells))
        _count("cells_written", report.cells)
        _count("rows_written", report.rows)
        _count("requests", report.requests)


class WriteGroups(WriteEvents):
    """Whole entities (every event of each, after a GroupByKey) gathered into batches of about
    ``batch_events``: every summary row and aggregate cell sees all of its events."""

    def start_bundle(self) -> None:
        self.parts: list[pd.DataFrame] = []
        self.held = 0

    def process(self, keyed: tuple[Any, Iterable[pd.DataFrame]]) -> None:
        for part in keyed[1]:
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


def by_entity(frame: pd.DataFrame, entity: tuple[str, ...]) -> Iterator[tuple[Any, pd.DataFrame]]:
    """(entity values as text, that entity's events in this batch)."""
    if not entity:
        yield ("",), frame
        return
    for key, part in frame.groupby(list(entity), sort=False, dropna=False):
        values = key if isinstance(key, tuple) else (key,)
        yield tuple(str(v) for v in values), part


def _kept(frame: pd.DataFrame, drop: np.ndarray | None, offset: int) -> pd.DataFrame:
    """A batch read (counted) without the rows left out as duplicates (counted)."""
    from .preflight import drop_rows

    _count("events_read", len(frame))
    kept = drop_rows(frame, drop, offset)
    if len(kept) != len(frame):
        _count("duplicates_dropped", len(frame) - len(kept))
    return kept


class ReadCsv(beam.DoFn):
    """A matched CSV file → its events, ``batch`` lines at a time (pandas, from_csv's options),
    without the rows ``drop`` leaves out (file → data row numbers)."""

    def __init__(
        self, options: Mapping[str, Any], batch: int, drop: Mapping[str, np.ndarray] | None = None
    ):
        self.options, self.batch, self.drop = dict(options), batch, dict(drop or {})

    def process(self, readable: Any) -> Iterator[pd.DataFrame]:
        drop, offset = self.drop.get(readable.metadata.path), 0
        with readable.open() as fh:
            for frame in csv_frames(fh, self.options, self.batch):
                yield _kept(frame, drop, offset)
                offset += len(frame)


class ReadParquet(beam.DoFn):
    """A matched Parquet file → its events in batches, converted as ``from_parquet`` does,
    without the rows ``drop`` leaves out: used only when duplicates are left out, as it needs
    each row's place in its file (the file is the unit of parallel work here)."""

    def __init__(self, columns: Sequence[str], batch: int, drop: Mapping[str, np.ndarray]):
        self.columns, self.batch, self.drop = list(columns), batch, dict(drop)

    def process(self, readable: Any) -> Iterator[pd.DataFrame]:
        import pyarrow as pa
        import pyarrow.parquet as pq

        drop, offset = self.drop.get(readable.metadata.path), 0
        with readable.open() as fh:
            for b in pq.ParquetFile(fh).iter_batches(batch_size=self.batch, columns=self.columns):
                frame = arrow_frame(pa.Table.from_batches([b]))
                yield _kept(frame, drop, offset)
                offset += len(frame)


def _parquet_frame(table: Any) -> pd.DataFrame:
    frame = arrow_frame(table)
    _count("events_read", len(frame))
    return frame


def build(pipeline: Any, plan: Plan) -> None:
    """The pipeline's steps: read → (group by entity) → cells → write."""
    src = plan.source
    if src.kind == "parquet" and plan.drop:
        from apache_beam.io import fileio

        frames = (
            pipeline
            | "Match Parquet" >> fileio.MatchFiles(src.pattern)
            | "Open Parquet" >> fileio.ReadMatches()
            | "Read Parquet"
            >> beam.ParDo(ReadParquet(src.columns or (), plan.batch_events, plan.drop))
        )
    elif src.kind == "parquet":
        from apache_beam.io.parquetio import ReadFromParquetBatched

        frames = (
            pipeline
            | "Read Parquet" >> ReadFromParquetBatched(src.pattern, columns=list(src.columns or ()))
            | "Arrow to pandas" >> beam.Map(_parquet_frame)
        )
    else:
        from apache_beam.io import fileio

        frames = (
            pipeline
            | "Match CSV" >> fileio.MatchFiles(src.pattern)
            | "Open CSV" >> fileio.ReadMatches()
            | "Read CSV" >> beam.ParDo(ReadCsv(src.csv_options, plan.batch_events, plan.drop))
        )
    if plan.grouped:
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
        ] + self.paced_lines()

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
        counters(result), time.perf_counter() - t0, dict(plan.tables), plan.dead_letter
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
