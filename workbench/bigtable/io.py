"""``load(conn, dataset, schema)`` → a TableHandle: create, write, verify, run queries.

What a notebook does with a design, in one call (``emu.load(ds, schema)``):
create the schema's tables/families/GC rules (idempotent), write its cells (fast,
rerun-safe), read everything back and compare with the source events. The handle
then runs the dataset's query intents with measured figures next to the model's.

GC clock: the sample datasets are historical (2015), so a ``max_age("90D")`` rule
judged against today's clock would hide every cell. By default GC-on-read is judged
as of the end of the data (``gc_now="data"``: 1 ms after the newest cell); pass
``gc_now="wall"`` for the real clock (what Cloud Bigtable will eventually do), or µs.

Why one module: the load's up-front checks (input, GC-rule changes, rows too deep for the
emulator), the write, the verification and the handle's query runs share one table contract
(table IDs, the bound schema, the written cells); splitting them would pass that state around.
"""

from __future__ import annotations

import contextlib
import html
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..cells import CellFrame
from ..errors import WorkbenchError, WriteError
from . import admin, appends, lease, ownership
from .appends import Overwrites
from .batches import CELL_KEYS
from .checks import (
    EMULATOR_MAX_ROW_CELLS,
    check_loadable,
    check_row_depth,
    check_run_intent,
)
from .checks import (
    check_memory as check_memory_need,
)
from .connection import Connection
from .lease import LEASE_WAIT_S
from .net import is_loopback
from .reader import ReadResult, figures_html, read_plan, read_table
from .writer import WriteReport, write_cells

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset, QueryIntent
    from ..schema.plan import ReadCosts, ReadPlan
    from ..schema.schema import Schema


def _gc_now(cells: CellFrame, gc_now: str | int | None) -> int | None:
    if gc_now is None or gc_now == "wall":
        return None
    if gc_now == "data":
        return int(cells.frame["timestamp_us"].max()) + 1000 if len(cells) else None
    if isinstance(gc_now, bool) or not isinstance(gc_now, (int, np.integer)):
        raise WorkbenchError(
            f"gc_now must be 'data', 'wall', None or a time in µs since the epoch, got {gc_now!r}."
        )
    return int(gc_now)


def _reducers(fams: dict[str, tuple[Any, ...]]) -> dict[str, dict[str, str]]:
    """Logical table → {aggregate family: its aggregate} (the writer combines each cell so)."""
    return {t: {f.name: f.aggregate for f in fs if f.aggregate} for t, fs in fams.items()}


# ----------------------------------------------------------------------------- results

_OTHER_DESIGN_HINT = (
    "The table holds cells this load did not write: another design or dataset was loaded under "
    "the same table ID (e.g. a schema edited but not renamed). Drop it (table.drop(), or "
    "wb.cleanup() in a notebook) or pass another table_id=, and load again."
)
# A table that held data before the load: its earlier data must never be advised away
_EARLIER_DATA_HINT = (
    "The table held data before this load, and that data is still there: do not drop the table "
    "to fix this (it would delete the earlier data too). To see this load's data alone, load it "
    "under another table_id= and compare."
)


@dataclass
class QueryRun:
    """One intent run on the table: the answer, the ground truth and the figures."""

    intent: QueryIntent
    result: ReadResult
    answer: pd.DataFrame | None
    expected: pd.DataFrame | None
    decode_s: float
    answer_kind: str = "events"  # or "summary rows" when the plan read pre-aggregated rows (G29)
    # after append=True the table holds earlier loads' events too: the answer is compared on
    # this load's events (these entity + time keys) only
    compared_on: pd.DataFrame | None = None

    @property
    def correct(self) -> bool | None:
        """The answer equals ``intent.answer`` on the source events (None: not comparable)."""
        if self.answer is None or self.expected is None:
            return None
        answer = self.answer
        if self.compared_on is not None:
            answer = answer.merge(self.compared_on, on=list(self.compared_on.columns))
        cols = [c for c in self.expected.columns if c in answer.columns]
        a = answer[cols].sort_values(cols, kind="stable").reset_index(drop=True)
        e = self.expected[cols].sort_values(cols, kind="stable").reset_index(drop=True)
        return a.shape == e.shape and a.equals(e)

    @property
    def latency_ms(self) -> float:
        return self.result.elapsed_s * 1000

    def figures(self) -> pd.DataFrame:
        return self.result.figures()

    def _repr_html_(self) -> str:
        truth = (
            "the source events"
            if self.answer_kind == "events"
            else "the same statistics of the source events"
        )
        ok = {True: f"✔ matches {truth}", False: f"✘ differs from {truth}", None: "not compared"}[
            self.correct
        ]
        head = (
            f"<p><b>{html.escape(self.intent.name)}</b>: "
            f"{html.escape(self.result.plan.describe())}<br>read {self.latency_ms:.1f} ms, decode "
            f"{self.decode_s * 1000:.1f} ms; {len(self.answer) if self.answer is not None else 0:,} {self.answer_kind}; {ok}</p>"
        )
        notes = "".join(f"<i>{html.escape(n)}</i><br>" for n in self.result.notes)
        return head + figures_html(self.figures()) + notes

    def __repr__(self) -> str:
        return (
            f"<QueryRun {self.intent.name}: {self.result.rows_returned:,} rows, "
            f"{self.latency_ms:.1f} ms, correct={self.correct}>"
        )


@dataclass
class VerifyReport:
    """Read-back compared with the source: equal, or exactly which events differ."""

    equal: bool
    cells_written: int
    cells_read: int
    cells_equal: bool
    missing: pd.DataFrame  # source events not read back
    extra: pd.DataFrame  # events read back that the source does not have
    changed: pd.DataFrame  # same entity+time, other values (source and read-back side by side)
    elapsed_s: float
    # cells in the rows this load wrote that earlier loads stored (not compared: not this load's)
    earlier_cells: int = 0

    def summary(self) -> str:
        earlier = (
            f" The same rows hold {self.earlier_cells:,} cells stored by earlier loads (kept)."
            if self.earlier_cells
            else ""
        )
        if self.equal:
            return (
                f"Read back {self.cells_read:,} cells: identical to the {self.cells_written:,} cells written "
                "and to the source events." + earlier
            )
        return (
            f"Read back {self.cells_read:,} of {self.cells_written:,} cells written; events: "
            f"{len(self.missing):,} missing, {len(self.extra):,} extra, {len(self.changed):,} changed."
            + earlier
        )

    def _repr_html_(self) -> str:
        out = f"<p><b>verify</b>: {'✔ ' if self.equal else '✘ '}{html.escape(self.summary())}</p>"
        for name in ("missing", "extra", "changed"):
            df = getattr(self, name)
            if len(df):
                out += f"<p>{name} ({len(df):,}):</p>" + df.head(10).to_html(index=False)
        return out

    def __repr__(self) -> str:
        return f"<VerifyReport {self.summary()}>"

    def __bool__(self) -> bool:
        return self.equal


def compare_events(
    source: pd.DataFrame, read: pd.DataFrame, keys: list[str]
) -> tuple[pd.DataFrame, ...]:
    """(missing, extra, changed) between two event frames keyed by entity + time."""
    cols = list(source.columns)
    read = read.reindex(columns=cols)
    m = source.merge(read, on=keys, how="outer", suffixes=("", " (read)"), indicator=True)
    missing = m[m["_merge"] == "left_only"][cols].reset_index(drop=True)
    extra = m[m["_merge"] == "right_only"][[*keys, *(f"{c} (read)" for c in cols if c not in keys)]]
    extra = extra.rename(columns=lambda c: c.replace(" (read)", "")).reset_index(drop=True)
    both = m[m["_merge"] == "both"]
    diff = np.zeros(len(both), dtype=bool)
    for c in cols:
        if c in keys:
            continue
        a, b = both[c], both[f"{c} (read)"]
        diff |= ~((a == b) | (a.isna() & b.isna())).to_numpy(dtype=bool)
    changed = both[diff].drop(columns="_merge").reset_index(drop=True)
    return missing, extra, changed


# ----------------------------------------------------------------------------- the handle


@dataclass
class TableHandle:
    """A schema's table(s) on an instance, with the cells written to them."""

    conn: Connection
    schema: Schema
    dataset: Dataset
    table_id: str
    tables: dict[str, str]  # logical → physical
    cells: CellFrame
    families: dict[str, tuple[Any, ...]]
    gc_now_us: int | None = None
    write_report: WriteReport | None = None
    verification: VerifyReport | None = None
    runs: list[QueryRun] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # the tables this load created (not ones it found): the only ones wb.cleanup() may drop
    created: tuple[str, ...] = ()
    # stored events this load wrote again (a load into a table that held data), else None
    overwritten: Overwrites | None = None
    appended: bool = False  # loaded with append=True: the table may hold earlier loads' data

    @property
    def project(self) -> str:
        return self.conn.project

    @property
    def instance(self) -> str:
        return self.conn.instance

    @property
    def table_ids(self) -> list[str]:
        return list(self.tables.values())

    def cbt_args(self) -> list[str]:
        """Arguments that point ``cbt`` at this instance: ``cbt <these> read <table_id>``."""
        return ["-project", self.project, "-instance", self.instance]

    def cbt_env(self) -> dict[str, str]:
        """Environment for ``cbt`` (the emulator's host; empty for a real instance)."""
        return {} if self.conn.is_production else {"BIGTABLE_EMULATOR_HOST": self.conn.host}

    def cbt_command(self, *args: str) -> str:
        env = " ".join(f"{k}={v}" for k, v in self.cbt_env().items())
        return " ".join(
            [
                *([env] if env else []),
                "cbt",
                *self.cbt_args(),
                *args,
                *([] if args else ["read", self.table_id]),
            ]
        )

    # -- reading --------------------------------------------------------------------------
    def read_all(self) -> CellFrame:
        """Every stored cell of every logical table (no GC filter: what the server holds)."""
        return CellFrame.concat(
            read_table(self.conn, physical, table=logical)
            for logical, physical in self.tables.items()
        )

    def read(self, plan: ReadPlan, *, apply_gc: bool = True) -> ReadResult:
        """Run a ReadPlan (measured, with the model's figures next to it)."""
        return read_plan(
            self.conn,
            self.tables[plan.table],
            plan,
            families=self.families.get(plan.table, ()),
            apply_gc=apply_gc,
            gc_now_us=self.gc_now_us,
            model_cells=self.cells,
        )

    def run(self, intent: QueryIntent | str) -> QueryRun:
        """Plan the intent, read it, decode it and check the answer.

        Parameters
        ----------
        intent : QueryIntent or str
            A QueryIntent or the name of one of the dataset's queries.

        Returns
        -------
        QueryRun
            The plan, the rows read with the measured figures (rows and cells seen and
            returned, bytes, time) and whether the answer equals the intent's ground truth.
        """
        from ..datasets.validate import check_intent

        intent = check_run_intent(intent, self.dataset)
        check_intent(intent, self.dataset)
        plan = self.schema.plan(intent)
        result = self.read(plan)
        t0 = time.perf_counter()
        answer = expected = None
        summary = self.schema.aggregates is not None and self.schema.aggregates.applies_to(intent)
        time_col = self.dataset.time
        try:
            if (
                summary
            ):  # the plan read the summary rows: compare them with the same stats of the source
                answer = self.schema.aggregates_from_cells(result.cells)
                truth = self.schema.summarize(self.dataset.canonical())
                expected = truth[intent.matches(truth, time_col)].reset_index(drop=True)
                # the plan reads only the statistics the query names: compare those
                agg = self.schema.aggregates
                assert agg is not None
                ms = self.schema.measure_names()
                quals = agg.qualifiers(intent, ms)
                if quals is not None:
                    stat_cols = {f"{m}_{s}" for m in ms for s in agg.stats}
                    expected = expected[
                        [c for c in expected.columns if c not in stat_cols or c in quals]
                    ]
            else:
                answer = intent.answer(self.schema.from_cells(result.cells), time_col)
                expected = intent.answer(self.dataset.canonical(), time_col)
        except Exception as exc:  # partial columns and the like: keep the figures, say why
            result.notes.append(f"answer not decoded: {type(exc).__name__}: {exc}")
        compared_on = None
        if self.appended and expected is not None:  # the table holds earlier loads' data too
            if summary or intent.kind == "latest" or intent.limit is not None:
                expected = None
                result.notes.append(
                    "not compared: this load was appended to earlier data, so its events alone "
                    "are not the truth for a summary or a latest/limited read"
                )
            else:
                compared_on = self.dataset.canonical()[[*self.dataset.entity, time_col]]
                result.notes.append(
                    "compared on this load's events: the table holds earlier loads' events too"
                )
        run = QueryRun(
            intent=intent,
            result=result,
            answer=answer,
            expected=expected,
            decode_s=time.perf_counter() - t0,
            answer_kind="summary rows" if summary else "events",
            compared_on=compared_on,
        )
        self.runs.append(run)
        return run

    @property
    def fresh(self) -> bool:
        """Every table was created by this load (none held data before it)."""
        return set(self.tables.values()) <= set(self.created)

    def verify(self) -> VerifyReport:
        """Read back what this load wrote, decode, compare with the source events and the cells
        written. A table this load created is read whole (anything else in it is foreign); a
        table that held data before is read at this load's rows only, and the cells and events
        of earlier loads there are not this load's to compare (they are counted, and kept)."""
        t0 = time.perf_counter()
        source = self.dataset.canonical()
        keys = [*self.dataset.entity, self.dataset.time]
        if self.fresh:
            got = self.read_all()
            mine, earlier = got, 0
        else:
            got = appends.stored_rows(self.conn, self.tables, self.cells)
            at = got.frame.merge(
                self.cells.frame[CELL_KEYS].drop_duplicates(),
                on=CELL_KEYS,
                how="left",
                indicator=True,
            )["_merge"].to_numpy()
            mine = CellFrame(got.frame[at == "both"].reset_index(drop=True))
            earlier = int((at == "left_only").sum())
        cells_equal = mine.equals(self.cells) if len(mine) == len(self.cells) else False
        try:
            events = self.schema.from_cells(got) if len(got) else source.iloc[0:0]
            events = events.reindex(columns=source.columns)
            if not self.fresh:  # earlier loads' events in the same rows are not this load's
                events = events.merge(source[keys], on=keys, how="inner")
            missing, extra, changed = compare_events(source, events, keys)
        except Exception as exc:
            raise WriteError(
                f"The cells read back from {self.table_id!r} could not be decoded: {exc}. "
                + (_OTHER_DESIGN_HINT if self.fresh else _EARLIER_DATA_HINT)
            ) from exc
        equal = cells_equal and not (len(missing) or len(extra) or len(changed))
        self.verification = VerifyReport(
            equal=equal,
            cells_written=len(self.cells),
            cells_read=len(mine),
            cells_equal=cells_equal,
            missing=missing,
            extra=extra,
            changed=changed,
            elapsed_s=time.perf_counter() - t0,
            earlier_cells=earlier,
        )
        return self.verification

    def check_verified(self) -> VerifyReport:
        """:meth:`verify`, raising :class:`WriteError` (the report on ``err.report``, the handle
        on ``err.table``) when it finds differences. The advice never drops a table that held
        data before this load: that would delete the earlier data too."""
        rep = self.verify()
        if rep.equal:
            return rep
        if not self.fresh:
            hint = " " + _EARLIER_DATA_HINT
        elif len(rep.extra) or rep.cells_read > rep.cells_written:
            hint = " " + _OTHER_DESIGN_HINT
        else:
            hint = ""
        err = WriteError(f"Verification of {self.table_id!r} failed: {rep.summary()}{hint}")
        err.report = rep  # type: ignore[attr-defined]
        err.table = self  # type: ignore[attr-defined]
        raise err

    def drop_prefix(self, prefix: str, *, confirm: str | None = None) -> None:
        """Delete every row whose key starts with ``prefix`` (one DropRowRange per table): how a
        tenant or a dataset stored under its own key prefix leaves a shared table (G25, G17).
        On a real instance ``confirm`` must repeat the main table ID."""
        if not prefix:
            raise WriteError(
                "drop_prefix needs a non-empty key prefix; use drop() to delete the whole table."
            )
        self.conn.check_delete_allowed(self.table_id, confirm)
        for physical in self.tables.values():
            admin.truncate_table(self.conn, physical, confirm=physical, row_key_prefix=prefix)

    def drop(self, *, confirm: str | None = None) -> None:
        """Delete the table(s). On a real instance ``confirm`` must repeat the main table ID."""
        self.conn.check_delete_allowed(self.table_id, confirm)
        for physical in self.tables.values():
            admin.drop_table(self.conn, physical, confirm=physical)

    def _repr_html_(self) -> str:
        rep = self.write_report
        w = (
            (
                f"{rep.rows:,} rows, {rep.cells:,} cells written in {rep.elapsed_s:.2f} s "
                f"({rep.rows_per_s:,.0f} rows/s)"
            )
            if rep
            else f"{len(self.cells):,} cells"
        )
        v = self.verification.summary() if self.verification else "not verified"
        tables = ", ".join(f"<code>{html.escape(p)}</code>" for p in self.tables.values())
        notes = "".join(f"<br><i>{html.escape(n)}</i>" for n in self.notes)
        return (
            f"<p><b>Table</b> {tables} on {html.escape(self.conn.target)}<br>{w}<br>{html.escape(v)}<br>"
            f"<code>{html.escape(self.cbt_command('count', self.table_id))}</code>{notes}</p>"
        )

    def __repr__(self) -> str:
        return f"<TableHandle {self.table_ids} on {self.conn.target}, {len(self.cells):,} cells>"


def _require_schema(schema: object, dataset: Dataset) -> None:
    """Refuse a pattern name (or anything else) given where the design belongs."""
    from ..schema.schema import Schema

    if not isinstance(schema, Schema):
        from ..errors import SchemaError

        raise SchemaError(
            f"load() needs a Schema as its second argument, got {type(schema).__name__} "
            f"{schema!r}. Get one with wb.preset({dataset.name!r}, NAME) "
            f"(names: wb.pattern_names({dataset.name!r})) or build a "
            "wb.Schema. Nothing was written."
        )


def _storable(
    conn: Connection, fams: dict[str, Any], cells: CellFrame
) -> tuple[dict[str, Any], list[str]]:
    """The families each table is created with, and what was changed and why: on the emulator
    a GC rule that would drop the sample's own cells at once is stored so it keeps them
    (``admin.storable_families``); a real instance gets exactly the designed rules."""
    if conn.is_production:
        return fams, []
    oldest = (
        {t: int(g.min()) for t, g in cells.frame.groupby("table")["timestamp_us"]}
        if len(cells)
        else {}
    )
    now = int(time.time() * 1_000_000)
    stored: dict[str, Any] = {}
    notes: list[str] = []
    for t, fs in fams.items():
        stored[t], n = admin.storable_families(fs, oldest.get(t), now)
        notes += n
    return stored, notes


def load(
    conn: Connection,
    dataset: Dataset,
    schema: Schema,
    *,
    table_id: str | None = None,
    verify: bool = True,
    progress: bool = True,
    threads: int = 2,
    gc_now: str | int | None = "data",
    cells: CellFrame | None = None,
    resume_from: tuple[str, str] | None = None,
    confirm: str | None = None,
    max_row_cells: int | None = EMULATOR_MAX_ROW_CELLS,
    check_memory: bool = True,
    costs: ReadCosts | None = None,
    append: bool = False,
    retention_s: float | None = None,
    lease_wait_s: float = LEASE_WAIT_S,
) -> TableHandle:
    """Create the schema's tables, write the dataset's cells, verify (unless ``verify=False``).

    A table that exists already must hold this design and dataset (a rerun); ``append=True``
    also lets it hold other rows this design reads (new data added to one's own table).

    Re-running is safe: tables are updated in place and cells rewritten with the same
    timestamps. A verification that finds differences raises :class:`WriteError` with the
    report attached (``err.report``, ``err.table``). A load whose estimated memory (emulator
    and kernel) exceeds what is available is refused before any request (``check_memory``).

    On the emulator the load holds each table's lease (``lease.py``) from its checks to its
    verification: while another load writes the table, this one waits up to ``lease_wait_s``
    seconds (default 60; 0: refused at once) and is then refused before any write, naming
    that load (host, pid, started at, design and dataset).

    Why one function: it is the order of a load (checks, tables, write, verify, register) with
    each step's failure handling in one place; the steps themselves are functions of their own
    (ensure_tables, write_cells, verify).
    """
    from ..datasets.model import require_dataset

    require_dataset(dataset, "load")
    check_loadable(dataset)
    _require_schema(schema, dataset)
    # TableHandle.run plans at the read costs and retention the analysis weighs candidates at
    # (``costs``, ``retention_s``: the notebook session's emulator passes the settings' own), so
    # it reads the plans ``analyze`` shows when no other workload is stated
    schema = schema.bind(dataset, costs=costs or schema.costs, retention_s=retention_s)
    table_id = admin.check_table_id(
        table_id
        if table_id is not None
        else ownership.session_table_id(dataset.name, schema.name or "schema")
    )
    here = not conn.is_production and is_loopback(conn.host)
    if check_memory and cells is None:  # at least one cell per event: before building them
        check_memory_need(
            len(dataset.frame), dataset, emulator_here=here, cells_built=False, schema=schema
        )
    cells = schema.to_cells(dataset) if cells is None else cells
    memory_note = (
        check_memory_need(len(cells), dataset, emulator_here=here, cells_built=True)
        if check_memory
        else None
    )
    if memory_note:
        warnings.warn(memory_note, ResourceWarning, stacklevel=2)
    if max_row_cells is not None and not conn.is_production:
        check_row_depth(cells, dataset, schema, max_row_cells)
    fams = admin.table_families(schema)
    stored, notes = _storable(conn, fams, cells)
    # A table that exists already must hold this design and dataset (a rerun, or append=True),
    # nothing else: refused here, before anything is created. On the emulator a lab shares, each
    # table is created with its design record and its lease family (empty families, made
    # atomically with the table): of two loaders racing to create one table ID, the one whose
    # CreateTable loses finds the table made and changes nothing.
    record = None if conn.is_production else ownership.record_family(schema, dataset.name)
    ids = admin.table_ids(table_id, list(stored), admin.main_table(schema))
    existing = ownership.check_existing(
        conn, ids, stored, cells, schema, table_id, append, record=record, dataset=dataset.name
    )
    created: tuple[str, ...] = ()
    held: contextlib.AbstractContextManager[lease.Lease | None] = contextlib.nullcontext()
    if record is not None:
        new = {t: p for t, p in ids.items() if p not in existing}
        if new:
            _, specs = ownership.create_claimed(
                conn,
                schema,
                table_id,
                {t: stored[t] for t in new},
                new,
                set(),
                record,
                None,
                "load",
            )
            created = tuple(s.table_id for s in specs if s.created)
        # From its checks to its verification the load holds each table's lease (lease.py): a
        # second writer waits or is refused, so two loads never interleave their reads and writes
        held = lease.hold(
            conn,
            list(ids.values()),
            design=schema.name or "schema",
            dataset=dataset.name,
            wait_s=lease_wait_s,
        )
    try:
        with held as holding:
            if holding is not None:  # checked again: another load may have written meanwhile
                try:
                    existing = ownership.check_existing(
                        conn,
                        ids,
                        stored,
                        cells,
                        schema,
                        table_id,
                        append,
                        record=record,
                        dataset=dataset.name,
                        fresh=set(created),
                    )
                except WriteError as exc:
                    raise WriteError(lease.only_change(str(exc), holding.added)) from None
                notes += holding.notes
            handle = _write_held(
                conn,
                dataset,
                schema,
                table_id,
                cells,
                stored,
                fams,
                ids,
                existing,
                record,
                created,
                notes=[*notes, *([memory_note] if memory_note else [])],
                confirm=confirm,
                append=append,
                progress=progress,
                threads=threads,
                resume_from=resume_from,
                gc_now=gc_now,
                guard=holding.check if holding is not None else None,
            )
            if verify:
                handle.check_verified()
    except BaseException as exc:  # the tables it created stay this kernel's to drop (wb.cleanup())
        exc.created_tables = tuple(  # type: ignore[attr-defined]
            dict.fromkeys((*created, *getattr(exc, "created_tables", ())))
        )
        raise
    return handle


def _write_held(
    conn: Connection,
    dataset: Dataset,
    schema: Schema,
    table_id: str,
    cells: CellFrame,
    stored: dict[str, tuple[Any, ...]],
    fams: dict[str, tuple[Any, ...]],
    ids: dict[str, str],
    existing: set[str],
    record: str | None,
    created: tuple[str, ...],
    *,
    notes: list[str],
    confirm: str | None,
    append: bool,
    progress: bool,
    threads: int,
    resume_from: tuple[str, str] | None,
    gc_now: str | int | None,
    guard: Callable[[], None] | None,
) -> TableHandle:
    """The part of a load its lease covers: what it finds under its own keys, the tables brought
    up to date, the write."""
    # What the load finds under its own keys: the events it overwrites, summary rows (G29) to
    # combine with stored events (read under the lease: no other load writes them meanwhile), aggregate
    # cells it must not replace (all before anything is changed)
    over, summaries = None, 0
    if existing:
        held = {t: p for t, p in ids.items() if p in existing}
        found = appends.stored_rows(conn, held, cells)
        cells, summaries = appends.combine_summaries(conn, schema, dataset, ids, cells, found)
        over = appends.overwrites(schema, dataset, found)
    # On a real instance, a changed GC rule of an existing table needs confirm=table_id.
    tables, specs = ownership.create_claimed(
        conn, schema, table_id, stored, ids, existing | set(created), record, confirm, "load"
    )
    created = (*created, *(s.table_id for s in specs if s.created))
    try:
        report = write_cells(
            conn,
            cells,
            tables,
            progress=progress,
            threads=threads,
            reducers=_reducers(fams),
            resume_from=resume_from,
            guard=guard,
        )
    except BaseException as exc:  # the tables stay this kernel's to drop (wb.cleanup())
        exc.created_tables = created  # type: ignore[attr-defined]
        raise
    return TableHandle(
        conn=conn,
        schema=schema,
        dataset=dataset,
        table_id=tables[admin.main_table(schema)],
        tables=tables,
        cells=cells,
        families=fams,
        gc_now_us=_gc_now(cells, gc_now),
        write_report=report,
        notes=[*notes, *appends.describe(summaries, over)],
        created=created,
        overwritten=over,
        appended=append and bool(existing),
    )
