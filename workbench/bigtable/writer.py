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
  with a :class:`WriteError` saying how many rows were written and how to resume. A refused
  connection to the emulator stops it at once (its process is gone). Resuming is offered only
  while the table and its rows survive: after a stopped or restarted emulator, or a table
  dropped mid-write, the message says so and asks for the full reload. Ctrl-C cancels the
  requests in flight and raises KeyboardInterrupt with the count written and the rerun.
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
from ..errors import LimitError, WorkbenchError, WriteError
from .checks import EMULATOR_CELL_DEPTH_S
from .connection import Connection
from .net import port_is_open

MutateRowsRequest = _bt.MutateRowsRequest.pb()
MutateRowsResponse = _bt.MutateRowsResponse.pb()
Mutation = _data.Mutation.pb()
Value = _data.Value.pb()
TimestampRange = _data.TimestampRange.pb()

MUTATE_ROWS = "/google.bigtable.v2.Bigtable/MutateRows"
MAX_REQUEST_BYTES = 256 * 1024 * 1024  # Cloud Bigtable's request limit
MAX_MUTATIONS = 100_000  # per MutateRows request
MIN_CALL_TIMEOUT = 10.0  # s per request: a busy 2-core machine must not time out healthy writes
# A deep row (one row with very many cells, written over several requests) on the emulator: each
# request is cut so its estimated time stays near this, its deadline is this factor over the
# estimate, and the row's requests go one after another (never two into one row at once)
DEEP_REQUEST_S = 2.0
DEEP_DEADLINE_FACTOR = 4.0
MIN_DEEP_PIECE = 500
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
    n_rows: int
    n_cells: int
    # cells of the same row written by earlier pieces (0 for a row's first piece)
    depth: list[int] = field(default_factory=list)
    # estimated server seconds per piece (a deep row on the emulator; 0 when not paced)
    piece_s: list[float] = field(default_factory=list)
    # per cell: an aggregate input added without deleting the cell first (hll); [] when none
    add_only: list[bool] = field(default_factory=list)


CELL_KEYS = ["table", "row_key", "family", "qualifier", "timestamp_us"]


def _aggregate_cells(f: pd.DataFrame, kinds: np.ndarray) -> pd.DataFrame:
    """Aggregate-family cells combined per cell by the family's aggregate, as Bigtable would.

    ``sum``/``min``/``max``: one value per (table, row, family, qualifier, timestamp), sent as
    one ``AddToCell`` after deleting the cell, so a rerun does not add twice — and so the
    emulator, which combines only sums (measured: for min/max it keeps the last input), stores
    the right value. ``hll``: each distinct input stays (a sketch of distinct values: adding one
    twice changes nothing, so no delete); ``_add_only`` marks them."""
    bad = f["value"].map(lambda v: not isinstance(v, (bytes, bytearray)) or len(v) != 8)
    if bad.any():
        row = f[bad].iloc[0]
        raise WriteError(
            f"Family {row['family']!r} is an aggregate ({kinds[bad.to_numpy()][0]}): its cell "
            f"values must be 8-byte big-endian int64, but row {row['row_key']!r} qualifier "
            f"{row['qualifier']!r} has "
            f"{len(row['value']) if isinstance(row['value'], (bytes, bytearray)) else type(row['value']).__name__}"
            " bytes. Nothing was written."
        )
    ints = np.frombuffer(b"".join(f["value"].tolist()), dtype=">i8").astype(np.int64)
    f = f.assign(_v=ints, _kind=kinds)
    parts = []
    for kind, g in f.groupby("_kind", sort=False):
        if kind == "hll":
            out = g.drop_duplicates(CELL_KEYS + ["_v"]).assign(_add_only=True)
        else:
            out = (g.groupby(CELL_KEYS, sort=False)["_v"].agg(str(kind)).reset_index()).assign(
                _add_only=False
            )
        parts.append(out[CELL_KEYS + ["_v", "_add_only"]])
    out = pd.concat(parts, ignore_index=True)
    out["value"] = out.pop("_v").astype(object).map(int)
    return out


def prepare(
    cells: CellFrame,
    tables: Mapping[str, str],
    *,
    sum_families: Mapping[str, set[str]] | None = None,
    reducers: Mapping[str, Mapping[str, str]] | None = None,
    batch_mutations: int = 20_000,
    batch_bytes: int = 32 * 1024 * 1024,
    max_row_bytes: int = MAX_REQUEST_BYTES,
    resume_from: tuple[str, str] | None = None,
    cell_depth_s: float | None = None,
) -> _Prepared:
    """Sort, check limits, encode and cut the cells into requests (nothing is sent here).

    ``cell_depth_s``: what a cell costs the server per cell already in its row (the emulator's
    quadratic slowdown); a long row is then cut into pieces that shrink as the row deepens.
    ``reducers``: logical table → {family: "sum"|"min"|"max"|"hll"} (aggregate families);
    ``sum_families`` names sum families the same way.

    Why one function: it is one vectorised pass over the sorted cells (factorise keys, cut
    pieces, split long rows, estimate each request) whose arrays feed each other; each cut is a
    few NumPy lines with its reason in a comment.
    """
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
    kinds = np.full(len(f), None, dtype=object)
    by_table: dict[str, dict[str, str]] = {}
    for logical, fams in (sum_families or {}).items():
        by_table.setdefault(logical, {}).update({fam: "sum" for fam in fams})
    for logical, kind_of in (reducers or {}).items():
        by_table.setdefault(logical, {}).update(kind_of)
    for logical, kind_of in by_table.items():
        for fam, kind in kind_of.items():
            kinds[((f["table"] == logical) & (f["family"] == fam)).to_numpy()] = kind
    is_sum = kinds != None  # noqa: E711 - elementwise on an object array
    if is_sum.any():
        f = pd.concat(
            [
                f[~is_sum].assign(_sum=False, _add_only=False),
                _aggregate_cells(f[is_sum], kinds[is_sum]).assign(_sum=True),
            ],
            ignore_index=True,
        )
    else:
        f = f.assign(_sum=False, _add_only=False)
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
    # split pieces longer than batch_mutations (a row with very many cells: several entries)
    lengths = np.diff(np.append(starts, n))
    if len(lengths) and lengths.max() > batch_mutations:
        extra = [
            _row_cuts(int(s), int(ln), batch_mutations, cell_depth_s)
            for s, ln in zip(starts, lengths, strict=True)
            if ln > batch_mutations
        ]
        starts = np.union1d(starts, np.concatenate(extra))
    ends = np.append(starts[1:], n).astype(np.int64)
    ends_row = np.isin(ends, np.append(row_starts[1:], n)) if n else np.zeros(0, dtype=bool)
    pk = kcodes[starts]
    piece_bytes = cum[ends] - cum[starts] + _ENTRY_OVERHEAD + klen[pk]
    piece_muts = (ends - starts) * np.where(sum_arr[starts], 2, 1)

    # the row each piece belongs to starts at the last row start at or before it
    first_of_row = (
        row_starts[np.searchsorted(row_starts, starts, side="right") - 1] if n else starts
    )
    depth = (starts - first_of_row).astype(np.int64)
    piece_s = (
        cell_depth_s * piece_muts * (depth + piece_muts / 2)
        if cell_depth_s
        else np.zeros(len(starts))
    )

    batches: list[tuple[int, int]] = []
    b0, m, b, est = 0, 0, 0, 0.0
    ptab = np.asarray(tuniq, dtype=object)[tcodes[starts]] if n else np.zeros(0, dtype=object)
    ptc = tcodes[starts].tolist()
    for i, (pm, pb, ps) in enumerate(
        zip(piece_muts.tolist(), piece_bytes.tolist(), piece_s.tolist(), strict=True)
    ):
        if i > b0 and (
            m + pm > batch_mutations
            or b + pb > batch_bytes
            or ptc[i] != ptc[i - 1]
            or (ps > 0 and est + ps > DEEP_REQUEST_S)  # a deep row: one paced piece per request
        ):
            batches.append((b0, i))
            b0, m, b, est = i, 0, 0, 0.0
        m += pm
        b += pb
        est += ps
    if len(starts):
        batches.append((b0, len(starts)))
    fam = f["family"].tolist()
    ts = f["timestamp_us"].to_numpy(dtype=np.int64).tolist()
    add_only = f["_add_only"].to_numpy(dtype=bool)
    return _Prepared(
        add_only=add_only.tolist() if add_only.any() else [],
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
        n_rows=len(row_starts),
        n_cells=int(len(cells.frame)),
        depth=depth.tolist(),
        piece_s=piece_s.tolist(),
    )


def _row_cuts(start: int, length: int, most: int, cell_depth_s: float | None) -> np.ndarray:
    """Where one long row is cut into pieces: every ``most`` cells, or (``cell_depth_s``) in
    pieces whose estimated time at the row's depth stays near ``DEEP_REQUEST_S``."""
    if not cell_depth_s:
        return np.arange(start, start + length, most)
    cuts, d = [], 0
    while d < length:
        cuts.append(start + d)
        d += int(min(most, max(MIN_DEEP_PIECE, DEEP_REQUEST_S / (cell_depth_s * max(d, 1)))))
    return np.asarray(cuts, dtype=np.int64)


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
            keep = p.add_only[s:e] if p.add_only else [False] * (e - s)
            for fa, q, t, v, k in zip(fam[s:e], qual[s:e], ts[s:e], val[s:e], keep, strict=True):
                if not k:
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


def _refuse_emulator_hll(
    conn: Connection, cells: CellFrame, kinds: Mapping[str, Mapping[str, str]]
) -> None:
    """HLL families on the emulator: refused before the first request (measured, SDK 528: the
    emulator keeps the last AddToCell input as a plain int64, not a sketch, so what it returns
    would not be what Cloud Bigtable stores)."""
    if conn.is_production:
        return
    f = cells.frame
    for logical, kind_of in kinds.items():
        hll = [fam for fam, kind in kind_of.items() if kind == "hll"]
        hit = f[(f["table"] == logical) & f["family"].isin(hll)] if hll else f.iloc[:0]
        if len(hit):
            raise WriteError(
                f"Family {hit['family'].iloc[0]!r} of table {logical!r} is an HLL aggregate "
                "(HyperLogLogPlusPlusUniqueCount): the emulator accepts AddToCell on it but "
                "keeps only the last input as a plain int64, not a sketch of distinct values "
                "(measured), so the cells read back would be wrong. Nothing was written. Write "
                "it to Cloud Bigtable, or model distinct counts without the emulator."
            )


# ----------------------------------------------------------------------------- sending


class _Permanent(Exception):
    """``kind``: "gone" (nothing listens), "not_found" (the table vanished), "" (anything else)."""

    def __init__(self, message: str, entry: int | None = None, kind: str = ""):
        super().__init__(message)
        self.entry = entry
        self.kind = kind


def _send(
    conn: Connection,
    req: Any,
    table_id: str,
    key_text: list[str],
    budget_s: float,
    stop: threading.Event,
    expected_s: float = 0.0,
    what: str = "",
    inflight: set[Any] | None = None,
) -> int:
    """Send one request; retry transient per-entry errors and broken streams. Returns retries.

    ``expected_s``: the request's estimated server time (a deep row); its deadline is
    ``DEEP_DEADLINE_FACTOR`` times that when longer than the usual one. ``what`` describes the
    request in a timeout message. Each attempt's stream is put in ``inflight`` while it runs, so
    that a write that fails elsewhere cancels it at once instead of waiting out its deadline."""
    call = _mutate_rows_call(conn)
    md = routing_metadata(req.table_name)
    pending = req
    index_map: list[int] | None = None  # entry in pending → entry in req
    # One deadline for the request and its retries, counted from the first attempt, so
    # "no answer for N s" is the time the caller really waited.
    call_timeout = max(conn.timeout, MIN_CALL_TIMEOUT, DEEP_DEADLINE_FACTOR * expected_s)
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
                if stop.is_set():  # the write failed while this attempt was being set up
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
                    f"table {table_id!r} does not exist on the {conn.target}: {exc.details()}",
                    kind="not_found",
                ) from None
            # A refused connection is not transient on the emulator: its process is gone, and
            # retrying for the whole deadline only delays saying so.
            if (
                code == grpc.StatusCode.UNAVAILABLE
                and not conn.is_production
                and not port_is_open(conn.host, timeout=0.3)
            ):
                raise _Permanent(
                    f"the {conn.target} refused the connection ({exc.details()})", kind="gone"
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
                f"no answer from the {conn.target} for {now - started:.1f} s ({last}"
                + (f"; {what}, deadline {call_timeout:.0f} s" if what else "")
                + "). "
                + conn.diagnose()
            )
        time.sleep(min(delay, max(0.0, deadline - now)))
        delay = min(delay * 2, 1.0)
        retries += 1
        nxt = MutateRowsRequest(table_name=req.table_name)
        failed = sorted(set(failed))
        nxt.entries.extend(pending.entries[i] for i in failed)
        index_map = [index_map[i] if index_map is not None else i for i in failed]
        pending = nxt


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
) -> WriteReport:
    """Write every cell; returns a :class:`WriteReport` or raises :class:`WriteError`.

    ``tables`` maps logical table → physical table ID (a string is the ID of the only
    logical table, or the base ID for several: ``<id>--<logical>``). Rerunning is safe:
    explicit timestamps rewrite the same cells. ``resume_from=(logical_table, row_key)``
    skips rows before that key (what a WriteError suggests). ``reducers``: logical table →
    {family: "sum"|"min"|"max"|"hll"} for aggregate families (read from the stored tables
    too): each cell's inputs are combined here and sent as one ``AddToCell``.

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
            for name, cf in stored.items():
                kind = admin.aggregate_kind(cf)
                if kind is not None:
                    kinds.setdefault(logical, {})[name] = kind
    _refuse_emulator_hll(conn, cells, kinds)
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
    # deep rows: each batch's estimated emulator time (a cell costs its row's depth so far) and
    # the batch before it in the same row, which must finish first (one writer per row)
    expected = [0.0] * len(p.batches)
    after: list[int | None] = [None] * len(p.batches)
    if not conn.is_production:
        for i, (lo, hi) in enumerate(p.batches):
            expected[i] = float(sum(p.piece_s[lo:hi]))
            if p.depth[lo] > 0 and i > 0:
                after[i] = i - 1  # the row's earlier cells are in the batch just before
    finished_ev = [threading.Event() for _ in p.batches]
    # cells in each piece's whole row (a deep row spans several pieces)
    row_total = [0] * len(p.starts)
    first = 0
    for j in range(len(p.starts)):
        if p.ends_row[j]:
            total = p.depth[j] + p.ends[j] - p.starts[j]
            row_total[first : j + 1] = [total] * (j + 1 - first)
            first = j + 1
    done = np.zeros(len(p.batches), dtype=bool)
    rows_in = [int(p.ends_row[lo:hi].sum()) for lo, hi in p.batches]
    cells_in = [p.ends[hi - 1] - p.starts[lo] for lo, hi in p.batches]
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
        lo, hi = p.batches[i]
        table_id = p.tables[lo]
        req = _build(p, conn.table_path(table_id), lo, hi)
        what = ""
        if row_total[lo] > p.ends[lo] - p.starts[lo]:  # a row written over several requests
            d, m = p.depth[lo], p.ends[hi - 1] - p.starts[lo]
            what = (
                f"{m:,} cells into row {p.key_text[lo]!r} (its cells {d:,}–{d + m:,} of "
                f"{row_total[lo]:,}; the emulator slows down on rows with very many versions, G24)"
            )
        retried = _send(
            conn, req, table_id, p.key_text[lo:hi], budget, stop, expected[i], what, inflight
        )
        finished_ev[i].set()  # only on success: after a failure the row's next batch stops
        return retried

    errors: dict[int, _Permanent] = {}
    interrupted = False
    try:
        with ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="wb-write") as pool:
            it: Iterator[int] = iter(range(len(p.batches)))
            running: dict[Future[int], int] = {}
            for i in it:
                running[pool.submit(job, i)] = i
                if len(running) >= max(1, threads) * 2:
                    break
            # A Ctrl-C (KeyboardInterrupt in wait) or any other exception cancels the requests
            # in flight: leaving the pool would otherwise wait out their deadlines.
            try:
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
                                pace = (time.perf_counter() - t0) / est_done
                                bar.set_postfix_str(
                                    f"ETA {pace * (total_est - est_done):.0f} s", refresh=False
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
    if interrupted:
        stopped = KeyboardInterrupt(
            f"Write interrupted (Ctrl-C) after {counted}; the requests in flight were cancelled "
            f"and may have written part of their rows. To finish: {rerun}."
        )
        stopped.rows_written = rows_done  # type: ignore[attr-defined]
        stopped.resume_from = resume  # type: ignore[attr-defined]
        raise stopped from None
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
    err.resume_from = None if lost else resume  # type: ignore[attr-defined]
    raise err from None


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
