"""CellFrame → MutateRows, fast, idempotent and honest about failures.

Why it is built this way (each point measured against the emulator and the client):

* The client's per-mutation Python objects cost ~5 s per 100k rows. Here each request
  is the package's own raw protobuf message (``MutateRowsRequest.pb()``, filled in
  place) sent on the connection's gRPC channel, so the same code reaches a real Cloud
  Bigtable instance with its credentials and channel options.
* Every cell carries its explicit ``timestamp_us``: a rerun rewrites the same cells
  instead of adding versions (no duplicates). Sum-aggregate families (``AddToCell``)
  would add twice, so each aggregate cell is first deleted at its timestamp and then
  added once, in the same atomic row entry.
* Requests hold ≤ ``batch_mutations`` mutations and ≤ ``batch_bytes`` (far below the
  100,000-mutation and 256 MiB server limits); a row over 256 MiB is refused before
  anything is sent, naming the row (the emulator does not enforce it, G01/G16).
* MutateRows answers per entry: transient per-entry errors (and broken streams) are
  retried with backoff within the connection's deadline; anything else stops the write
  with a :class:`WriteError` saying how many rows were written and how to resume.
* Deep rows are sized and timed by their depth. The emulator stores a column's versions in
  one sorted list, so a SetCell costs time in proportion to the cells already in that
  column: a request of ``b`` cells into a row of ``d`` costs ≈ ``EMULATOR_DEPTH_COST_S``·b·d
  (measured below). On the emulator each request is cut to ≈ ``BATCH_COST_S`` of that work
  and its deadline is ``DEADLINE_SLACK`` × its estimate (never under ``MIN_CALL_TIMEOUT``),
  so a row of 100,000 versions is written whole in ~2 s requests instead of 20,000-cell
  ones that outlive a 10 s deadline; the progress bar counts cells and its ETA follows the
  same estimate. Cloud Bigtable has no such cost (G24 is about the row, not the write).
* grpc releases the GIL while waiting, so ``threads=2`` overlaps building one request
  with sending another (bench/bench_write.py measures it).

Why one module: ``prepare`` (the batches), ``_send`` (retries) and ``write_cells`` (the resume
point a WriteError names) share one ``_Prepared`` plan of row pieces; each reads its indices.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import grpc
import numpy as np
import pandas as pd
from google.cloud.bigtable_v2.types import bigtable as _bt
from google.cloud.bigtable_v2.types import data as _data

from ..cells import CellFrame
from ..errors import LimitError, WriteError
from .connection import Connection

MutateRowsRequest = _bt.MutateRowsRequest.pb()
MutateRowsResponse = _bt.MutateRowsResponse.pb()
Mutation = _data.Mutation.pb()
Value = _data.Value.pb()
TimestampRange = _data.TimestampRange.pb()

MUTATE_ROWS = "/google.bigtable.v2.Bigtable/MutateRows"
MAX_REQUEST_BYTES = 256 * 1024 * 1024  # Cloud Bigtable's request limit
MAX_MUTATIONS = 100_000  # per MutateRows request
MIN_CALL_TIMEOUT = 10.0  # s per request: a busy 2-core machine must not time out healthy writes
# Emulator cost of a SetCell per cell already in its row (bench/bench_deep_row.py prints it:
# 3,000 cells into a column of 12,000 took 0.45 s → 1.1e-8 s), and the cost of a cell in a
# shallow row (the same bench's first request: 3,000 cells in 0.05 s, 1e-5 s; half of it is
# building the request here, hence 5e-6 s).
EMULATOR_DEPTH_COST_S = 1.1e-8
EMULATOR_CELL_COST_S = 5e-6
BATCH_COST_S = 2.0  # s of estimated emulator work per request on deep rows
DEADLINE_SLACK = 5.0  # deadline = slack × estimate: a shared 2-core machine ran 3x slower (bench)
MIN_DEEP_PIECE = 200  # cells: below this, request overhead outweighs the depth cost
_ENTRY_OVERHEAD = 16  # bytes of framing per entry (generous)
_CELL_OVERHEAD = 24  # bytes of framing per SetCell (tags, lengths, timestamp)
TRANSIENT = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE.value[0],
        grpc.StatusCode.DEADLINE_EXCEEDED.value[0],
        grpc.StatusCode.ABORTED.value[0],
    }
)
_CODE_NAMES = {c.value[0]: c.name for c in grpc.StatusCode}
_TRANSIENT_RPC = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.ABORTED}
)


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


def _mutate_rows_call(conn: Connection) -> Any:
    """MutateRows on the connection's own channel (cached per channel)."""
    cache = conn.__dict__.setdefault("_wb_rpc_cache", {})
    call = cache.get("MutateRows")
    if call is None:
        call = conn.channel.unary_stream(
            MUTATE_ROWS,
            request_serializer=MutateRowsRequest.SerializeToString,
            response_deserializer=MutateRowsResponse.FromString,
        )
        cache["MutateRows"] = call
    return call


def routing_metadata(table_path: str) -> tuple[tuple[str, str], ...]:
    """Cloud Bigtable routes by table; the emulator ignores it."""
    return (("x-goog-request-params", f"table_name={quote(table_path, safe='')}"),)


# ----------------------------------------------------------------------------- preparation


@dataclass
class _Prepared:
    """The sorted cells as plain Python lists plus the pieces (row slices) and batches."""

    tables: list[str]  # physical table per piece
    logical: list[str]  # logical table per piece
    keys: list[bytes]  # row key per piece
    key_text: list[str]
    starts: list[int]  # first cell of each piece
    ends: list[int]
    is_sum: list[bool]  # piece holds sum-aggregate cells
    ends_row: np.ndarray  # piece is the last of its row
    fam: list[str]
    qual: list[bytes]
    ts: list[int]
    val: list[Any]  # bytes, or int for sum cells
    batches: list[tuple[int, int]]  # piece ranges
    piece_bytes: np.ndarray
    batch_cost: list[float]  # estimated emulator seconds per batch (0 when not estimated)
    batch_depth: list[int]  # cells in the deepest row a batch writes into
    n_rows: int
    n_cells: int


def _sum_cells(f: pd.DataFrame) -> pd.DataFrame:
    """Sum-family cells: one per (table, row, family, qualifier, timestamp), values added as int64."""
    bad = f["value"].map(lambda v: not isinstance(v, (bytes, bytearray)) or len(v) != 8)
    if bad.any():
        row = f[bad].iloc[0]
        raise WriteError(
            f"Family {row['family']!r} is a sum aggregate: its cell values must be 8-byte big-endian "
            f"int64, but row {row['row_key']!r} qualifier {row['qualifier']!r} has "
            f"{len(row['value']) if isinstance(row['value'], (bytes, bytearray)) else type(row['value']).__name__}"
            " bytes. Nothing was written."
        )
    ints = np.frombuffer(b"".join(f["value"].tolist()), dtype=">i8").astype(np.int64)
    g = (
        f.assign(_v=ints)
        .groupby(["table", "row_key", "family", "qualifier", "timestamp_us"], sort=False)["_v"]
        .sum()
    )
    out = g.reset_index()
    out["value"] = out.pop("_v").astype(object).map(int)
    return out


def prepare(
    cells: CellFrame,
    tables: Mapping[str, str],
    *,
    sum_families: Mapping[str, set[str]] | None = None,
    batch_mutations: int = 20_000,
    batch_bytes: int = 32 * 1024 * 1024,
    max_row_bytes: int = MAX_REQUEST_BYTES,
    resume_from: tuple[str, str] | None = None,
    depth_cost_s: float = 0.0,
    cell_cost_s: float = 0.0,
    batch_cost_s: float = BATCH_COST_S,
) -> _Prepared:
    """Sort, check limits, encode and cut the cells into requests (nothing is sent here).

    With ``depth_cost_s`` > 0 (the emulator) a request of ``b`` cells into a row of ``d``
    cells is estimated at ``b·(cell_cost_s + depth_cost_s·d)`` seconds, and pieces and
    batches are cut to about ``batch_cost_s`` of it. ``d`` is the row's cells in this write:
    a rerun finds them all already stored, a first write fewer, so it bounds both."""
    f = cells.frame
    unknown = sorted(set(f["table"].unique()) - set(tables))
    if unknown:
        raise WriteError(
            f"Cells for logical table(s) {unknown} have no target table; known: {sorted(tables)}. "
            "Nothing was written."
        )
    if resume_from is not None:
        t0, k0 = resume_from
        f = f[(f["table"] > t0) | ((f["table"] == t0) & (f["row_key"] >= k0))]
    is_sum = np.zeros(len(f), dtype=bool)
    if sum_families:
        for logical, fams in sum_families.items():
            if fams:
                is_sum |= ((f["table"] == logical) & f["family"].isin(list(fams))).to_numpy()
    if is_sum.any():
        f = pd.concat(
            [f[~is_sum].assign(_sum=False), _sum_cells(f[is_sum]).assign(_sum=True)],
            ignore_index=True,
        )
    else:
        f = f.assign(_sum=False)
    n = len(f)
    # one sorted factorization gives the key order *and* each distinct key encoded once
    kcodes, kuniq = pd.factorize(f["row_key"].to_numpy(dtype=object), sort=True)
    tcodes, tuniq = pd.factorize(f["table"].to_numpy(dtype=object), sort=True)
    sum_arr = f["_sum"].to_numpy(dtype=bool)
    if n and not (
        len(tuniq) == 1 and not sum_arr.any() and bool(np.all(kcodes[1:] >= kcodes[:-1]))
    ):
        order = np.lexsort((sum_arr, kcodes, tcodes))
        f = f.iloc[order].reset_index(drop=True)
        kcodes, tcodes, sum_arr = kcodes[order], tcodes[order], sum_arr[order]
    kenc = [u.encode("utf-8", "surrogateescape") for u in kuniq]
    klen = np.fromiter(map(len, kenc), dtype=np.int64, count=len(kenc))
    qcodes, quniq = pd.factorize(f["qualifier"].to_numpy(dtype=object))
    qenc = [u.encode("utf-8", "surrogateescape") for u in quniq]
    qlen = (
        np.fromiter(map(len, qenc), dtype=np.int64, count=len(qenc))[qcodes]
        if n
        else np.zeros(0, np.int64)
    )
    qual = [qenc[c] for c in qcodes.tolist()]
    fcodes, funiq = pd.factorize(f["family"].to_numpy(dtype=object))
    flen = np.array([len(x) for x in funiq], dtype=np.int64)[fcodes] if n else np.zeros(0, np.int64)
    val = f["value"].tolist()
    vlen = (
        np.fromiter(map(len, val), dtype=np.int64, count=n)
        if not sum_arr.any()
        else np.fromiter(
            (8 if isinstance(v, int) else len(v) for v in val), dtype=np.int64, count=n
        )
    )
    cell_bytes = qlen + vlen + flen + _CELL_OVERHEAD

    # pieces: a new piece where the table, key or kind changes, or a row exceeds the batch size
    change = np.ones(n, dtype=bool)
    row_change = np.ones(n, dtype=bool)
    if n:
        row_change[1:] = (kcodes[1:] != kcodes[:-1]) | (tcodes[1:] != tcodes[:-1])
        change[1:] = row_change[1:] | (sum_arr[1:] != sum_arr[:-1])
    row_starts = np.flatnonzero(row_change)
    row_ends = np.append(row_starts[1:], n)
    cum = np.concatenate([[0], np.cumsum(cell_bytes)])
    row_sizes = cum[row_ends] - cum[row_starts] + klen[kcodes[row_starts]]
    over = np.flatnonzero(row_sizes > max_row_bytes)
    if len(over):
        i = row_starts[over[0]]
        raise LimitError(
            f"Row {kuniq[kcodes[i]]!r} of table {tuniq[tcodes[i]]!r} needs {row_sizes[over[0]]:,} bytes in one "
            f"write, over the {max_row_bytes:,}-byte MutateRows request limit of Cloud Bigtable ({len(over)} such "
            "row(s)). Nothing was written: split the row with a time bucket in the key (G10/G16)."
        )
    starts = np.flatnonzero(change)
    # each cell's row depth (cells of its row in this write) and the longest piece for it
    row_len = (row_ends - row_starts).astype(np.int64)
    depth_of = np.repeat(row_len, row_len) if n else np.zeros(0, np.int64)
    cap = np.full(len(starts), batch_mutations, dtype=np.int64)
    if depth_cost_s > 0 and len(starts):
        d = depth_of[starts].astype(np.float64)
        fit = batch_cost_s / (cell_cost_s + depth_cost_s * d)
        cap = np.minimum(cap, np.maximum(MIN_DEEP_PIECE, fit.astype(np.int64)))
    # split pieces longer than their cap (a row with very many cells: several entries)
    lengths = np.diff(np.append(starts, n))
    if len(lengths) and (lengths > cap).any():
        extra = [
            np.arange(s, s + ln, c)
            for s, ln, c in zip(starts, lengths, cap.tolist(), strict=True)
            if ln > c
        ]
        starts = np.union1d(starts, np.concatenate(extra))
    ends = np.append(starts[1:], n).astype(np.int64)
    ends_row = np.isin(ends, np.append(row_starts[1:], n)) if n else np.zeros(0, dtype=bool)
    pk = kcodes[starts]
    piece_bytes = cum[ends] - cum[starts] + _ENTRY_OVERHEAD + klen[pk]
    piece_muts = (ends - starts) * np.where(sum_arr[starts], 2, 1)
    piece_depth = depth_of[starts] if n else np.zeros(0, np.int64)
    piece_cost = (ends - starts) * (cell_cost_s + depth_cost_s * piece_depth)
    cost_cap = batch_cost_s if depth_cost_s > 0 else float("inf")

    batches: list[tuple[int, int]] = []
    batch_cost: list[float] = []
    b0, m, b, c = 0, 0, 0, 0.0
    ptab = np.asarray(tuniq, dtype=object)[tcodes[starts]] if n else np.zeros(0, dtype=object)
    ptc = tcodes[starts].tolist()
    for i, (pm, pb, pc) in enumerate(
        zip(piece_muts.tolist(), piece_bytes.tolist(), piece_cost.tolist(), strict=True)
    ):
        if i > b0 and (
            m + pm > batch_mutations
            or b + pb > batch_bytes
            or c + pc > cost_cap
            or ptc[i] != ptc[i - 1]
        ):
            batches.append((b0, i))
            batch_cost.append(c)
            b0, m, b, c = i, 0, 0, 0.0
        m += pm
        b += pb
        c += pc
    if len(starts):
        batches.append((b0, len(starts)))
        batch_cost.append(c)
    fam = f["family"].tolist()
    ts = f["timestamp_us"].to_numpy(dtype=np.int64).tolist()
    return _Prepared(
        tables=[tables[t] for t in ptab],
        logical=list(ptab),
        keys=[kenc[c] for c in pk.tolist()],
        key_text=[kuniq[c] for c in pk.tolist()],
        starts=starts.tolist(),
        ends=ends.tolist(),
        is_sum=sum_arr[starts].tolist(),
        ends_row=ends_row,
        fam=fam,
        qual=qual,
        ts=ts,
        val=val,
        batches=batches,
        piece_bytes=piece_bytes,
        batch_cost=batch_cost if depth_cost_s > 0 else [0.0] * len(batches),
        batch_depth=[int(piece_depth[lo:hi].max()) for lo, hi in batches],
        n_rows=len(row_starts),
        n_cells=int(len(cells.frame)),
    )


def _build(p: _Prepared, table_path: str, lo: int, hi: int) -> Any:
    """One MutateRowsRequest for pieces [lo, hi): raw protobuf, filled in place (the fast path)."""
    req = MutateRowsRequest(table_name=table_path)
    add = req.entries.add
    fam, qual, ts, val = p.fam, p.qual, p.ts, p.val
    for i in range(lo, hi):
        s, e = p.starts[i], p.ends[i]
        madd = add(row_key=p.keys[i]).mutations.add
        if not p.is_sum[i]:
            for fa, q, t, v in zip(fam[s:e], qual[s:e], ts[s:e], val[s:e], strict=True):
                sc = madd().set_cell
                sc.family_name = fa
                sc.column_qualifier = q
                sc.timestamp_micros = t
                sc.value = v
        else:  # delete the aggregate cell at its timestamp, then add once: reruns do not double
            for fa, q, t, v in zip(fam[s:e], qual[s:e], ts[s:e], val[s:e], strict=True):
                d = madd().delete_from_column
                d.family_name = fa
                d.column_qualifier = q
                d.time_range.start_timestamp_micros = t
                d.time_range.end_timestamp_micros = t + 1000
                a = madd().add_to_cell
                a.family_name = fa
                a.column_qualifier.raw_value = q
                a.timestamp.raw_timestamp_micros = t
                a.input.int_value = v
    return req


# ----------------------------------------------------------------------------- sending


class _Permanent(Exception):
    def __init__(self, message: str, entry: int | None = None):
        super().__init__(message)
        self.entry = entry


def _send(
    conn: Connection,
    req: Any,
    table_id: str,
    key_text: list[str],
    budget_s: float,
    stop: threading.Event,
    call_timeout_s: float | None = None,
    sizing: str = "",
    inflight: set[Any] | None = None,
) -> int:
    """Send one request; retry transient per-entry errors and broken streams. Returns retries.

    ``call_timeout_s`` is the request's own deadline (a deep row's, from its depth);
    ``sizing`` says in a failure message what the request held and why that deadline.
    Streams are put in ``inflight`` so that a failed write cancels its other requests at once
    instead of waiting out their deadlines."""
    call = _mutate_rows_call(conn)
    md = routing_metadata(req.table_name)
    pending = req
    index_map: list[int] | None = None  # entry in pending → entry in req
    # One deadline for the request and its retries, counted from the first attempt, so
    # "no answer for N s" is the time the caller really waited.
    call_timeout = max(conn.timeout, MIN_CALL_TIMEOUT, call_timeout_s or 0.0)
    started = time.monotonic()
    deadline = started + max(budget_s, call_timeout)
    delay = 0.05
    retries = 0
    while True:
        failed: list[int] = []
        acked = np.zeros(len(pending.entries), dtype=bool)
        remaining = max(0.5, deadline - time.monotonic())
        stream = None
        try:
            stream = call(pending, timeout=min(call_timeout, remaining), metadata=md)
            if inflight is not None:
                inflight.add(stream)
                if stop.is_set():  # stopped while this attempt was being set up
                    stream.cancel()
            for resp in stream:
                for e in resp.entries:
                    acked[e.index] = True
                    code = e.status.code
                    if code == 0:
                        continue
                    orig = index_map[e.index] if index_map is not None else e.index
                    if code in TRANSIENT:
                        failed.append(e.index)
                        continue
                    msg = e.status.message
                    if "unknown family" in msg or (
                        code == grpc.StatusCode.NOT_FOUND.value[0] and "family" in msg
                    ):
                        raise _Permanent(
                            f"table {table_id!r} has no such column family ({msg}). Create it first: "
                            "admin.ensure_tables(conn, schema, table_id) or emu.load(ds, schema).",
                            orig,
                        )
                    raise _Permanent(
                        f"row {key_text[orig]!r} of table {table_id!r} was refused: "
                        f"{_CODE_NAMES.get(code, code)} "
                        f"{msg}",
                        orig,
                    )
        except grpc.RpcError as exc:
            code = exc.code()
            if code == grpc.StatusCode.CANCELLED and stop.is_set():
                raise _Permanent("stopped") from None
            if code == grpc.StatusCode.NOT_FOUND:
                raise _Permanent(
                    f"table {table_id!r} does not exist on the {conn.target} (was it deleted while "
                    f"writing?): {exc.details()}"
                ) from None
            if code not in _TRANSIENT_RPC:
                raise _Permanent(
                    f"MutateRows on table {table_id!r} failed: {code.name} {exc.details()}"
                ) from None
            failed = [i for i in range(len(pending.entries)) if not acked[i]] + failed
            if not failed:
                return retries
            last = f"{code.name}: {exc.details()}"
        else:
            if not failed:
                return retries
            last = "per-entry transient errors"
        finally:
            if inflight is not None and stream is not None:
                inflight.discard(stream)
        now = time.monotonic()
        if now >= deadline or stop.is_set():
            raise _Permanent(
                f"no answer from the {conn.target} for {now - started:.1f} s ({last}; this "
                f"request's deadline was {call_timeout:.0f} s{sizing}). " + conn.diagnose()
            )
        time.sleep(min(delay, max(0.0, deadline - now)))
        delay = min(delay * 2, 1.0)
        retries += 1
        nxt = MutateRowsRequest(table_name=req.table_name)
        failed = sorted(set(failed))
        nxt.entries.extend(pending.entries[i] for i in failed)
        index_map = [index_map[i] if index_map is not None else i for i in failed]
        pending = nxt


def _partial_row(p: _Prepared, lo: int, done: np.ndarray) -> str:
    """A row split over several requests (each atomic, the row as a whole not): how much of
    the row at piece ``lo`` is stored, from the requests that were acknowledged."""
    key = (p.tables[lo], p.keys[lo])
    pieces = [j for j in range(len(p.keys)) if (p.tables[j], p.keys[j]) == key]
    if len(pieces) < 2:
        return ""
    batch_of = np.searchsorted([b[0] for b in p.batches], pieces, side="right") - 1
    total = sum(p.ends[j] - p.starts[j] for j in pieces)
    stored = sum(p.ends[j] - p.starts[j] for j, b in zip(pieces, batch_of, strict=True) if done[b])
    return (
        f" Row {p.key_text[lo]!r} is split over {len(pieces)} requests for its depth: "
        f"{stored:,} of its {total:,} cells were acknowledged (a request cut off in flight may "
        "still land); the rerun below rewrites the row whole."
    )


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
    resume_from: tuple[str, str] | None = None,
    retry_budget_s: float | None = None,
    max_row_bytes: int = MAX_REQUEST_BYTES,
) -> WriteReport:
    """Write every cell; returns a :class:`WriteReport` or raises :class:`WriteError`.

    ``tables`` maps logical table → physical table ID (a string is the ID of the only
    logical table, or the base ID for several: ``<id>--<logical>``). Rerunning is safe:
    explicit timestamps rewrite the same cells. ``resume_from=(logical_table, row_key)``
    skips rows before that key (what a WriteError suggests)."""
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
    sums: dict[str, set[str]] = {k: set(v) for k, v in (sum_families or {}).items()}
    if check_families:
        present = {t: set(g) for t, g in cells.frame.groupby("table", sort=False)["family"]}
        for logical, physical in tables.items():
            stored = admin.get_families(conn, physical)
            if stored is None:
                restarted = ""
                if not conn.is_production and not conn.list_tables():
                    restarted = (
                        " The emulator holds no tables at all: it was most likely restarted, "
                        "and a restarted emulator holds nothing. Load the data again "
                        "(emu.load(dataset, schema))."
                    )
                raise WriteError(
                    f"Table {physical!r} does not exist on the {conn.target}.{restarted} Create it "
                    "first (admin.ensure_tables or emu.load). Nothing was written."
                )
            missing = sorted(present.get(logical, set()) - set(stored))
            if missing:
                raise WriteError(
                    f"Table {physical!r} has no column family {', '.join(map(repr, missing))} "
                    f"(it has {sorted(stored)}). Add it with admin.ensure_tables(conn, schema, "
                    "table_id). Nothing was written."
                )
            sums.setdefault(logical, set()).update(
                name for name, cf in stored.items() if "sum" in cf.value_type.aggregate_type
            )
    emulated = not conn.is_production
    p = prepare(
        cells,
        tables,
        sum_families=sums,
        batch_mutations=batch_mutations,
        batch_bytes=batch_bytes,
        max_row_bytes=max_row_bytes,
        resume_from=resume_from,
        depth_cost_s=EMULATOR_DEPTH_COST_S if emulated else 0.0,
        cell_cost_s=EMULATOR_CELL_COST_S if emulated else 0.0,
    )
    budget = conn.timeout if retry_budget_s is None else retry_budget_s
    done = np.zeros(len(p.batches), dtype=bool)
    rows_in = [int(p.ends_row[lo:hi].sum()) for lo, hi in p.batches]
    cells_in = [p.ends[hi - 1] - p.starts[lo] for lo, hi in p.batches]
    stop = threading.Event()
    retries = 0
    from tqdm.auto import tqdm

    # Cells, not rows: one deep row is one "row" for the whole write. The ETA is the measured
    # pace per estimated second of emulator work times the work left (later requests into a
    # deep row cost more per cell than earlier ones, so cells/s alone would promise too soon).
    total_cost = float(sum(p.batch_cost))
    bar = tqdm(
        total=int(sum(cells_in)),
        unit="cell",
        desc="writing",
        disable=not progress,
        leave=False,
        bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} cells [{elapsed}{postfix}]",
    )
    cost_done = 0.0
    inflight: set[Any] = set()  # streams of the requests being sent, cancelled on a failure

    def halt() -> None:
        stop.set()
        for stream in list(inflight):
            stream.cancel()

    def deadline_of(i: int) -> tuple[float, str]:
        est = p.batch_cost[i]
        lo, hi = p.batches[i]
        if est <= 0 or p.batch_depth[i] < 2 * MIN_DEEP_PIECE:
            return 0.0, ""
        return DEADLINE_SLACK * est, (
            f": {cells_in[i]:,} cells into a row of {p.batch_depth[i]:,} cells "
            f"({p.key_text[lo]!r}), estimated {est:.1f} s on the emulator"
        )

    def job(i: int) -> int:
        if stop.is_set():
            raise _Permanent("stopped")
        lo, hi = p.batches[i]
        table_id = p.tables[lo]
        req = _build(p, conn.table_path(table_id), lo, hi)
        timeout_s, sizing = deadline_of(i)
        return _send(
            conn, req, table_id, p.key_text[lo:hi], budget, stop, timeout_s, sizing, inflight
        )

    errors: dict[int, _Permanent] = {}
    try:
        with ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="wb-write") as pool:
            it: Iterator[int] = iter(range(len(p.batches)))
            running: dict[Future[int], int] = {}
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
                        cost_done += p.batch_cost[i]
                        if total_cost > 0 and cost_done > 0:
                            pace = (time.perf_counter() - t0) / cost_done
                            bar.set_postfix_str(
                                f"ETA {pace * (total_cost - cost_done):.0f} s", refresh=False
                            )
                    except _Permanent as exc:
                        halt()
                        if str(exc) != "stopped":
                            errors[i] = exc
                    except BaseException:
                        halt()
                        raise
                if not stop.is_set():
                    for i in it:
                        running[pool.submit(job, i)] = i
                        if len(running) >= max(1, threads) * 2:
                            break
    finally:
        bar.close()
    elapsed = time.perf_counter() - t0
    if errors:
        first_open = int(np.flatnonzero(~done)[0])
        lo = p.batches[first_open][0]
        rows_done = int(sum(r for r, d in zip(rows_in, done, strict=True) if d))
        cells_done = int(sum(c for c, d in zip(cells_in, done, strict=True) if d))
        first_error = errors[min(errors)]
        resume = (p.logical[lo], p.key_text[lo])
        err = WriteError(
            f"Writing stopped: {first_error}\n"
            f"Written so far: {rows_done:,} of {p.n_rows:,} rows ({cells_done:,} of {p.n_cells:,} cells); "
            f"every row before {resume[1]!r} (logical table {resume[0]!r}) is written."
            f"{_partial_row(p, lo, done)}\n"
            "To resume: fix the cause and run the same write again: it is idempotent (explicit cell "
            "timestamps rewrite the same cells), or pass resume_from="
            f"{resume!r} to skip what is already written."
        )
        err.rows_written = rows_done  # type: ignore[attr-defined]
        err.cells_written = cells_done  # type: ignore[attr-defined]
        err.resume_from = resume  # type: ignore[attr-defined]
        raise err from None
    return WriteReport(
        rows=p.n_rows,
        cells=p.n_cells,
        requests=len(p.batches),
        bytes=int(p.piece_bytes.sum()),
        elapsed_s=elapsed,
        retries=retries,
        tables=tables,
    )
