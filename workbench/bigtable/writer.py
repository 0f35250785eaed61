"""CellFrame → MutateRows, fast, idempotent for plain cells and honest about failures.

``batches.prepare`` cuts the cells into requests (sorted, limits checked, encoded once); this
module checks the target tables, sends the requests and says what happened. Why it is built
this way (each point measured against the emulator and the client):

* Each request is the package's own raw protobuf message sent on the connection's gRPC
  channel, so the same code reaches a real Cloud Bigtable instance with its credentials and
  channel options.
* MutateRows answers per entry: transient per-entry errors (and broken streams) are
  retried under the connection's one retry policy (``Connection.retry``, google.api_core's
  ``Retry``: backoff within a budget counted from the last entry written); anything else stops the write
  with a :class:`WriteError` saying how many rows were written and how to resume. A refused
  connection to the emulator stops it at once (its process is gone). Resuming is offered only
  while the table and its rows survive: after a stopped or restarted emulator, or a table
  dropped mid-write, the message says so and asks for the full reload. Ctrl-C cancels the
  requests in flight and raises KeyboardInterrupt with the count written and the rerun.
* grpc releases the GIL while waiting, so ``threads=2`` overlaps building one request
  with sending another (bench/bench_write.py measures it).

Why one module: the checks of the target tables, the requests in flight, their retries, the
pacing and lease guard, and the failure messages share one count of what was written; a message
that says how to resume must see all of it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import grpc
import numpy as np
from google.cloud.bigtable_v2.types import bigtable as _bt

from ..cells import CellFrame
from ..errors import WorkbenchError, WriteError
from .batches import (
    MAX_REQUEST_BYTES,
    MutateRowsRequest,
    Prepared,
    build_request,
    prepare,
    schedule,
)
from .checks import EMULATOR_CELL_DEPTH_S, check_target_tables, refuse_emulator_hll
from .connection import TRANSIENT_CODES, Connection, Transient
from .net import port_is_open

MutateRowsResponse = _bt.MutateRowsResponse.pb()

MUTATE_ROWS = "/google.bigtable.v2.Bigtable/MutateRows"
MIN_CALL_TIMEOUT = 10.0  # s per request: a busy 2-core machine must not time out healthy writes
# a deep row's request (batches.DEEP_REQUEST_S of estimated emulator time) gets this factor
# over its estimate as its deadline
DEEP_DEADLINE_FACTOR = 4.0
# a per-entry status (an int) retried like the same gRPC status of the whole call
_TRANSIENT_ENTRY = frozenset(c.value[0] for c in TRANSIENT_CODES)
_CODE_NAMES = {c.value[0]: c.name for c in grpc.StatusCode}


@dataclass
class WriteReport:
    """What one write did: rows, cells, requests, bytes, time, retries."""

    rows: int
    cells: int
    requests: int
    bytes: int
    elapsed_s: float
    retries: int = 0
    tables: dict[str, str] = field(default_factory=dict)

    @property
    def rows_per_s(self) -> float:
        return self.rows / self.elapsed_s if self.elapsed_s > 0 else float("inf")

    def __repr__(self) -> str:
        return (
            f"<WriteReport {self.rows:,} rows, {self.cells:,} cells in {self.requests} requests, "
            f"{self.elapsed_s:.2f} s ({self.rows_per_s:,.0f} rows/s), {self.retries} retries>"
        )


def routing_metadata(table_path: str) -> tuple[tuple[str, str], ...]:
    """Cloud Bigtable routes by table; the emulator ignores it."""
    return (("x-goog-request-params", f"table_name={quote(table_path, safe='')}"),)


# ----------------------------------------------------------------------------- sending


class _Permanent(Exception):
    """``kind``: "gone" (nothing listens), "not_found" (the table vanished), "" (anything else)."""

    def __init__(self, message: str, entry: int | None = None, kind: str = ""):
        super().__init__(message)
        self.entry = entry
        self.kind = kind


def _refused_entry(status: Any, key: str, table_id: str, orig: int) -> _Permanent:
    """A MutateRows entry the server refused for good: a missing family, or the row named."""
    msg = status.message
    if "unknown family" in msg or (
        status.code == grpc.StatusCode.NOT_FOUND.value[0] and "family" in msg
    ):
        return _Permanent(
            f"table {table_id!r} has no such column family ({msg}). Create it first: "
            "admin.ensure_tables(conn, schema, table_id) or emu.load(ds, schema).",
            orig,
        )
    return _Permanent(
        f"row {key!r} of table {table_id!r} was refused: "
        f"{_CODE_NAMES.get(status.code, status.code)} {msg}",
        orig,
    )


def _never_resent(
    entries: list[int], once: Sequence[bool], key_text: list[str], table_id: str, why: str
) -> None:
    """Raise when an entry about to be resent adds to aggregate cells (``once``): its first
    attempt may have been applied, and AddToCell is not idempotent."""
    unsure = [e for e in entries if once and once[e]]
    if unsure:
        raise _Permanent(
            f"{len(unsure):,} row entr{'y' if len(unsure) == 1 else 'ies'} adding to aggregate "
            f"cells of table {table_id!r} (the first: row {key_text[unsure[0]]!r}) failed "
            f"without a clear answer ({why}). AddToCell is not idempotent: a resend could add its "
            "inputs twice (the official client does not retry it either), so it was not resent, "
            "and whether those rows were added is unknown: read them to see",
            unsure[0],
        )


def send_request(
    conn: Connection,
    req: Any,
    table_id: str,
    key_text: list[str],
    budget_s: float,
    stop: threading.Event,
    expected_s: float = 0.0,
    what: str = "",
    inflight: set[Any] | None = None,
    once: Sequence[bool] = (),
) -> int:
    """Send one request; transient per-entry errors and broken streams are retried under the
    connection's one policy (:meth:`Connection.retry`), resending only the entries not yet
    written. Returns the retries. An entry marked in ``once`` (it adds to aggregate cells) is
    never resent: AddToCell is not idempotent (:func:`_never_resent`).

    ``expected_s``: the request's estimated server time (a deep row); its deadline is
    ``DEEP_DEADLINE_FACTOR`` times that when longer than the usual one. The retry budget is the
    longer of ``budget_s`` and that deadline, counted from the last attempt that wrote an entry
    (so "no answer for N s" is the time the caller really waited). ``what`` describes the
    request in a timeout message. Each attempt's stream is put in ``inflight`` while it runs, so
    that a write that fails elsewhere cancels it at once instead of waiting out its deadline."""
    call = conn.stream_call(MUTATE_ROWS, MutateRowsRequest, MutateRowsResponse)
    md = routing_metadata(req.table_name)
    call_timeout = max(conn.timeout, MIN_CALL_TIMEOUT, DEEP_DEADLINE_FACTOR * expected_s)
    budget = max(budget_s, call_timeout)
    started = time.monotonic()
    progress = [started]  # when an entry was last written
    pending = [req]
    index_map: list[list[int] | None] = [None]  # entry in pending → entry in req
    last = [""]

    def retry_only(failed: list[int], written: bool) -> None:
        """The next attempt sends only the entries in ``failed`` (never one marked ``once``)."""
        if written:
            progress[0] = time.monotonic()
        nxt = MutateRowsRequest(table_name=req.table_name)
        failed = sorted(set(failed))
        im = index_map[0]
        orig = [im[i] if im is not None else i for i in failed]
        _never_resent(orig, once, key_text, table_id, last[0])
        index_map[0] = orig
        nxt.entries.extend(pending[0].entries[i] for i in failed)
        pending[0] = nxt

    def attempt() -> None:
        entries = pending[0].entries
        acked = np.zeros(len(entries), dtype=bool)
        failed: list[int] = []
        remaining = max(0.5, progress[0] + budget - time.monotonic())
        stream = None
        try:
            stream = call(pending[0], timeout=min(call_timeout, remaining), metadata=md)
            if inflight is not None:
                inflight.add(stream)
                if stop.is_set():  # the write failed while this attempt was being set up
                    stream.cancel()
            for resp in stream:
                for e in resp.entries:
                    acked[e.index] = True
                    code = e.status.code
                    if code == 0:
                        continue
                    if code in _TRANSIENT_ENTRY:
                        failed.append(e.index)
                        continue
                    im = index_map[0]
                    orig = im[e.index] if im is not None else e.index
                    raise _refused_entry(e.status, key_text[orig], table_id, orig)
        except grpc.RpcError as exc:
            code = exc.code()
            if code == grpc.StatusCode.CANCELLED and stop.is_set():
                raise _Permanent("stopped") from None
            if code == grpc.StatusCode.NOT_FOUND:
                raise _Permanent(
                    f"table {table_id!r} does not exist on the {conn.target}: {exc.details()}",
                    kind="not_found",
                ) from None
            if code not in TRANSIENT_CODES:
                raise _Permanent(
                    f"MutateRows on table {table_id!r} failed: {code.name} {exc.details()}"
                ) from None
            failed = [i for i in range(len(entries)) if not acked[i]] + failed
            if not failed:
                return
            last[0] = f"{code.name}: {exc.details()}"
            retry_only(failed, len(failed) < len(entries))
            raise  # the policy decides: transient, within the budget, the emulator still there
        finally:
            if inflight is not None and stream is not None:
                inflight.discard(stream)
        if failed:
            last[0] = "per-entry transient errors"
            retry_only(failed, len(failed) < len(entries))
            raise Transient(last[0])

    retries = [0]

    def count(_: Exception) -> None:
        retries[0] += 1

    try:
        conn.retry(budget, last_progress=lambda: progress[0], stop=stop, on_error=count)(attempt)()
    except (grpc.RpcError, Transient) as exc:  # a transient error the policy gave up on
        if stop.is_set():
            raise _Permanent("stopped") from None
        if conn.refused(exc):
            raise _Permanent(
                f"the {conn.target} refused the connection ({last[0]})", kind="gone"
            ) from None
        raise _Permanent(
            f"no answer from the {conn.target} for {time.monotonic() - started:.1f} s ({last[0]}"
            + (f"; {what}, deadline {call_timeout:.0f} s" if what else "")
            + "). "
            + conn.diagnose()
        ) from None
    return retries[0]


def write_cells(
    conn: Connection,
    cells: CellFrame,
    tables: Mapping[str, str] | str,
    *,
    progress: bool = True,
    threads: int = 2,
    batch_mutations: int = 20_000,
    batch_bytes: int = 32 * 1024 * 1024,
    check_families: bool = True,
    sum_families: Mapping[str, Sequence[str]] | None = None,
    reducers: Mapping[str, Mapping[str, str]] | None = None,
    resume_from: tuple[str, str] | None = None,
    retry_budget_s: float | None = None,
    max_row_bytes: int = MAX_REQUEST_BYTES,
    app_profile_id: str | None = None,
    pace: Callable[[int], Any] | None = None,
    guard: Callable[[], None] | None = None,
) -> WriteReport:
    """Write every cell; returns a :class:`WriteReport` or raises :class:`WriteError`.

    ``tables`` maps logical table → physical table ID (a string is the ID of the only
    logical table, or the base ID for several: ``<id>--<logical>``). Rerunning plain cells is
    safe: explicit timestamps rewrite the same cells. ``resume_from=(logical_table, row_key)``
    skips rows before that key (what a WriteError suggests). ``reducers``: logical table →
    {family: "sum"|"min"|"max"|"hll"} for aggregate families (read from the stored tables
    too): each cell's inputs are combined here and sent as one ``AddToCell``, never after a
    delete, so Bigtable merges them with what the cell holds: a later write (another batch)
    adds to it, and so does a rerun (aggregate entries are never resent after an unclear
    failure: the error says so). ``app_profile_id``: the app profile every request names (its
    routing and priority on a real instance; the official client's ``app_profile_id``).
    ``pace(entries)``: called before each request with its row mutations, blocks as a rate
    limit needs (``workbench bulk-load --max-mutations-per-s``). ``guard``, called before each
    request, stops the write by raising (a load's lease lost to another writer:
    ``lease.Lease.check``).

    Why one function: the thread pool, the progress bar, Ctrl-C and every error path share the
    same requests in flight and the same counts, and a failure's message must see all of them.
    """
    from . import admin

    t0 = time.perf_counter()
    if isinstance(tables, str):
        names = cells.tables or [admin.MAIN]
        tables = (
            {names[0]: admin.check_table_id(tables)}
            if len(names) == 1
            else admin.table_ids(tables, names)
        )
    tables = dict(tables)
    kinds: dict[str, dict[str, str]] = {k: dict(v) for k, v in (reducers or {}).items()}
    for k, fams in (sum_families or {}).items():
        kinds.setdefault(k, {}).update({fam: "sum" for fam in fams})
    # the tables there at the start (asked only along with the families, so that a write told
    # not to check sends nothing first): all of them gone later means a restart, not a drop
    before = set(conn.list_tables()) if check_families and not conn.is_production else set()
    if check_families:
        check_target_tables(conn, cells, tables, kinds)
    refuse_emulator_hll(conn, cells, kinds)
    p = prepare(
        cells,
        tables,
        reducers=kinds,
        batch_mutations=batch_mutations,
        batch_bytes=batch_bytes,
        max_row_bytes=max_row_bytes,
        resume_from=resume_from,
        cell_depth_s=None if conn.is_production else EMULATOR_CELL_DEPTH_S,
    )
    budget = conn.timeout if retry_budget_s is None else retry_budget_s
    plan = schedule(p, paced=not conn.is_production)
    expected, after, row_total = plan.expected_s, plan.after, plan.row_cells
    rows_in, cells_in = plan.rows, plan.cells
    finished_ev = [threading.Event() for _ in p.batches]
    done = np.zeros(len(p.batches), dtype=bool)
    stop = threading.Event()
    retries = 0
    from tqdm.auto import tqdm

    # Cells, not rows: one deep row is one "row" for the whole write. The ETA is the pace per
    # estimated second of emulator work times the work left: later requests into a deep row
    # cost more per cell, so cells/s alone would promise the end too soon.
    total_est = float(sum(expected))
    bar = tqdm(
        total=int(sum(cells_in)),
        unit="cell",
        desc="writing",
        disable=not progress,
        leave=False,
        bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} cells [{elapsed}{postfix}]"
        if total_est > 0
        else None,
    )
    est_done = 0.0
    inflight: set[Any] = set()  # streams of the requests being sent: cancelled on a failure

    def halt() -> None:
        stop.set()
        for stream in list(inflight):
            stream.cancel()

    def job(i: int) -> int:
        prev = after[i]
        if prev is not None:
            while not finished_ev[prev].wait(0.2):
                if stop.is_set():
                    raise _Permanent("stopped")
        if stop.is_set():
            raise _Permanent("stopped")
        if guard is not None:
            guard()
        lo, hi = p.batches[i]
        table_id = p.tables[lo]
        req = build_request(p, conn.table_path(table_id), lo, hi)
        if app_profile_id:
            req.app_profile_id = app_profile_id
        if pace is not None:
            pace(hi - lo)  # one entry per row piece: the row mutations this request sends
        what = ""
        if row_total[lo] > p.ends[lo] - p.starts[lo]:  # a row written over several requests
            d, m = p.depth[lo], p.ends[hi - 1] - p.starts[lo]
            what = (
                f"{m:,} cells into row {p.key_text[lo]!r} (its cells {d:,}–{d + m:,} of "
                f"{row_total[lo]:,}; the emulator slows down on rows with very many versions, G24)"
            )
        retried = send_request(
            conn,
            req,
            table_id,
            p.key_text[lo:hi],
            budget,
            stop,
            expected[i],
            what,
            inflight,
            once=p.is_sum[lo:hi] if any(p.is_sum[lo:hi]) else (),
        )
        finished_ev[i].set()  # only on success: after a failure the row's next batch stops
        return retried

    errors: dict[int, _Permanent] = {}
    interrupted = False
    try:
        with ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="wb-write") as pool:
            it: Iterator[int] = iter(range(len(p.batches)))
            running: dict[Future[int], int] = {}
            # A Ctrl-C (KeyboardInterrupt in wait, or while the first requests are handed to
            # the pool, which may already be sending one) or any other exception cancels the
            # requests in flight: leaving the pool would otherwise wait out their deadlines.
            try:
                for i in it:
                    running[pool.submit(job, i)] = i
                    if len(running) >= max(1, threads) * 2:
                        break
                while running:
                    finished, _ = wait(running, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        i = running.pop(fut)
                        try:
                            retries += fut.result()
                            done[i] = True
                            bar.update(cells_in[i])
                            est_done += expected[i]
                            if total_est > 0 and est_done > 0:
                                per_est = (time.perf_counter() - t0) / est_done
                                bar.set_postfix_str(
                                    f"ETA {per_est * (total_est - est_done):.0f} s", refresh=False
                                )
                        except _Permanent as exc:
                            halt()
                            if str(exc) != "stopped":
                                errors[i] = exc
                    if not stop.is_set():
                        for i in it:
                            running[pool.submit(job, i)] = i
                            if len(running) >= max(1, threads) * 2:
                                break
            except KeyboardInterrupt:
                halt()  # the pool then waits only for cancelled requests
                interrupted = True
            except BaseException:
                halt()
                raise
    finally:
        bar.close()
    elapsed = time.perf_counter() - t0
    if not (errors or interrupted):
        return WriteReport(
            rows=p.n_rows,
            cells=p.n_cells,
            requests=len(p.batches),
            bytes=int(p.piece_bytes.sum()),
            elapsed_s=elapsed,
            retries=retries,
            tables=tables,
        )
    raise _stopped(conn, p, tables, done, rows_in, cells_in, errors, interrupted, before) from None


def _stopped(
    conn: Connection,
    p: Prepared,
    tables: Mapping[str, str],
    done: np.ndarray,
    rows_in: list[int],
    cells_in: list[int],
    errors: dict[int, _Permanent],
    interrupted: bool,
    before: set[str],
) -> BaseException:
    """What a write that stopped says: the rows acknowledged, where to resume (only while its
    rows survive), or why they are gone. KeyboardInterrupt after Ctrl-C, else WriteError."""
    open_batches = np.flatnonzero(~done)
    lo = p.batches[int(open_batches[0])][0] if len(open_batches) else 0
    rows_done = int(sum(r for r, d in zip(rows_in, done, strict=True) if d))
    cells_done = int(sum(c for c, d in zip(cells_in, done, strict=True) if d))
    resume = (p.logical[lo], p.key_text[lo])  # a write that stopped had batches
    counted = (
        f"{rows_done:,} of {p.n_rows:,} rows ({cells_done:,} of {p.n_cells:,} cells) acknowledged"
    )
    rerun = (
        "run the same write again: it is idempotent (explicit cell timestamps rewrite the same "
        f"cells), or pass resume_from={resume!r} to skip the rows before {resume[1]!r} "
        f"(logical table {resume[0]!r}), which are written"
    )
    if any(p.is_sum):  # AddToCell adds: what was acknowledged must not be sent again
        rerun = (
            "write only what is missing: this write adds to aggregate cells (AddToCell), so "
            "running it again or resuming it would add the inputs already acknowledged twice. "
            f"Every row before {resume[1]!r} (logical table {resume[0]!r}) is written; from there "
            "on some rows may be: read them to see which hold their inputs"
        )
    if interrupted:
        stopped = KeyboardInterrupt(
            f"Write interrupted (Ctrl-C) after {counted}; the requests in flight were cancelled "
            f"and may have written part of their rows. To finish: {rerun}."
        )
        stopped.rows_written = rows_done  # type: ignore[attr-defined]
        stopped.resume_from = resume  # type: ignore[attr-defined]
        return stopped
    first_error = errors[min(errors)]
    lost = _lost(conn, list(tables.values()), {e.kind for e in errors.values()}, before)
    if lost:
        err = WriteError(
            f"Writing stopped: {first_error}\n{lost} The {counted} before the failure are not "
            "there any more: resume_from would skip rows that are missing, so do not use it.\n"
            "Reload everything: run the whole load again (in a notebook: wb.setup(), which starts "
            "a new emulator if the old one stopped, then emu.load(ds, schema))."
        )
    else:
        err = WriteError(
            f"Writing stopped: {first_error}\nWritten so far: {counted}; every row before "
            f"{resume[1]!r} (logical table {resume[0]!r}) is written.\nTo resume: fix the cause "
            f"and {rerun}."
        )
    err.rows_written = rows_done  # type: ignore[attr-defined]
    err.cells_written = cells_done  # type: ignore[attr-defined]
    err.resume_from = None if lost or any(p.is_sum) else resume  # type: ignore[attr-defined]
    return err


def _lost(conn: Connection, table_ids: list[str], kinds: set[str], before: set[str]) -> str | None:
    """Why the rows a failed write had written are gone (None: its tables and rows are there).

    Asked only after a refused connection or a vanished table: a silent emulator (frozen,
    overloaded) still holds what it was given, and asking it would wait out another deadline."""
    if not kinds & {"gone", "not_found"}:
        return None
    if not conn.is_production and not port_is_open(conn.host, timeout=0.5):
        return (
            f"Nothing listens at {conn.host} any more: the emulator has stopped, and an emulator "
            "keeps its tables in memory, so they went with it (a new emulator starts empty)."
        )
    try:
        present = set(conn.list_tables())
    except WorkbenchError:
        return None
    gone = [t for t in table_ids if t not in present]
    if not gone:
        return None
    if not present and before - set(table_ids):
        return (
            f"The emulator at {conn.host} holds no tables at all, not even the "
            f"{len(before - set(table_ids))} other(s) it held when the write began: it was "
            "restarted while writing (a restarted emulator starts empty), so the table and its "
            "rows are gone."
        )
    if not present and not conn.is_production:
        return (
            f"Table(s) {gone} no longer exist and the emulator at {conn.host} holds no tables at "
            "all: the table was deleted while writing, or the emulator was restarted (it then "
            "starts empty). Either way the rows written into it are gone."
        )
    return (
        f"Table(s) {gone} no longer exist on the {conn.target}: deleted while writing, with the "
        "rows written into them."
    )
