"""Deadlines on progress, one retry policy: reads and writes against the real emulator.

* A read has no deadline for the whole scan: a scan that takes longer than every deadline in
  play (the workbench pauses between responses, as a busy machine does) reads every row.
* A frozen emulator (SIGSTOP) in the middle of a scan still ends the read with the clear error.
* A stream broken by a transient error is resumed after its last committed row (the official
  clients' resumption), under the connection's one retry policy; so is a write's transient
  per-entry failure, resending only that entry.

Expectations come from the cells each test writes (keys and values built here), never from the
reader's output. No assertion bounds a duration: the tests wait for the state they check.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import grpc
import psutil
import pytest
from injected_faults import Unavailable, Wrapped

import workbench as wb
from workbench.bigtable import reader, writer
from workbench.bigtable.admin import ensure_table
from workbench.bigtable.connection import Connection
from workbench.bigtable.reader import READ_ROWS, ReadRowsRequest, ReadRowsResponse, read_table
from workbench.cells import CellFrame
from workbench.schema.families import Family
from workbench.schema.plan import KeyRange, ReadPlan

pytestmark = pytest.mark.slow


def _cells(n_rows: int, value_bytes: int = 8) -> CellFrame:
    """``n_rows`` rows ``r000``, ``r001``, … of two cells each (qualifiers ``a`` and ``b``)."""
    keys = [f"r{i:03d}" for i in range(n_rows) for _ in range(2)]
    quals = ["a", "b"] * n_rows
    values = [f"{k}{q}".encode().ljust(value_bytes, b".") for k, q in zip(keys, quals, strict=True)]
    return CellFrame.from_columns(
        row_key=keys, family="cf", qualifier=quals, timestamp_us=[1000] * len(keys), value=values
    )


def _as_set(cells: CellFrame) -> set[tuple[str, str, str, int, bytes]]:
    f = cells.frame
    rows = zip(
        f["row_key"], f["family"], f["qualifier"], f["timestamp_us"], f["value"], strict=True
    )
    return {(k, fam, q, int(t), bytes(v)) for k, fam, q, t, v in rows}


def test_a_scan_slower_than_every_deadline_reads_every_row(
    own_conn: Connection, table_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 10 rows, then a read that holds each response 0.6 s per chunk (20 chunks: 12 s in all,
    # at least 1.2 s per row), with the idle deadline at 0.5 s, the silent limit at 1 s and the
    # connection's deadline at 1 s: any deadline on the whole scan, or one counting the time
    # the workbench holds a response, would end it early.
    cells = _cells(10)
    tid = table_factory([Family("cf")])
    writer.write_cells(own_conn, cells, tid, progress=False)
    monkeypatch.setattr(reader, "READ_IDLE_TIMEOUT", 0.5)
    monkeypatch.setattr(reader, "READ_SILENT_LIMIT", 1.0)
    own_conn.timeout = 1.0
    held: list[float] = []
    decode = reader.decode

    def slow_decode(responses: Any, cols: Any, **kw: Any) -> Any:
        def slowly() -> Iterator[Any]:
            for resp in responses:
                pause = 0.6 * len(resp.chunks)
                time.sleep(pause)  # a busy machine: the workbench is slow to take each response
                held.append(pause)
                yield resp

        return decode(slowly(), cols, **kw)

    monkeypatch.setattr(reader, "decode", slow_decode)
    real = own_conn.stream_call(READ_ROWS, ReadRowsRequest, ReadRowsResponse)
    requests: list[Any] = []

    def call(req: Any, **kw: Any) -> Any:
        requests.append(req)
        return real(req, **kw)

    monkeypatch.setitem(own_conn._calls, READ_ROWS, call)
    got = read_table(own_conn, tid)
    assert _as_set(got) == _as_set(cells) and len(got) == 20
    assert len(requests) == 1  # one stream, never cut short and resumed
    # the read was held far longer than every deadline above (by construction, not by a clock)
    assert len(held) >= 10 and min(held) >= 1.2 > reader.READ_SILENT_LIMIT
    assert sum(held) > 10 * reader.READ_SILENT_LIMIT


def _stopped(pid: int) -> bool:
    return psutil.Process(pid).status() == psutil.STATUS_STOPPED


def test_an_emulator_frozen_mid_scan_is_named_with_the_rows_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 200 rows of 2 × 160 KiB (64 MiB, more than gRPC's and the sockets' buffers hold): the
    # emulator is frozen (SIGSTOP) once the first response has arrived, so the read stalls
    # part-way; the error says the process is alive but silent and how far the read got.
    emu = wb.Emulator(reuse=False).start()
    try:
        conn = emu.connection()
        ensure_table(conn, "frozen-scan", [Family("cf")])
        writer.write_cells(conn, _cells(200, 160 * 1024), "frozen-scan", progress=False)
        monkeypatch.setattr(reader, "READ_IDLE_TIMEOUT", 2.0)
        decode = reader.decode

        def freezing_decode(responses: Any, cols: Any, **kw: Any) -> Any:
            def freeze_after_first() -> Iterator[Any]:
                for i, resp in enumerate(responses):
                    if i == 0:
                        os.kill(emu.pid, signal.SIGSTOP)
                        while not _stopped(emu.pid):
                            time.sleep(0.01)
                    yield resp

            return decode(freeze_after_first(), cols, **kw)

        monkeypatch.setattr(reader, "decode", freezing_decode)
        try:
            with pytest.raises(wb.EmulatorUnavailable) as ei:
                read_table(conn, "frozen-scan")
        finally:
            os.kill(emu.pid, signal.SIGCONT)
        msg = str(ei.value)
        assert "sent nothing for" in msg and "not answering" in msg, msg
        got = int(msg.split(" rows received before")[0].rsplit("(", 1)[1].replace(",", ""))
        assert 1 <= got < 200, msg
    finally:
        emu.stop()


def test_a_broken_read_resumes_after_its_last_committed_row(
    own_conn: Connection, table_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first stream breaks (UNAVAILABLE) after 5 committed rows and the first cell of the
    # 6th: the read is sent again for the rows after r004 and returns each cell once.
    cells = _cells(30)
    tid = table_factory([Family("cf")])
    writer.write_cells(own_conn, cells, tid, progress=False)
    real = own_conn.stream_call(READ_ROWS, ReadRowsRequest, ReadRowsResponse)
    requests: list[Any] = []

    def breaking(stream: Any) -> Iterator[Any]:
        commits = 0
        for resp in stream:
            for chunk in resp.chunks:  # one chunk per response, to break inside a row
                yield ReadRowsResponse(chunks=[chunk])
                commits += chunk.commit_row
                if commits == 5 and not chunk.commit_row:
                    stream.cancel()
                    raise Unavailable()

    def call(req: Any, **kw: Any) -> Any:
        requests.append(req)
        stream = real(req, **kw)
        return Wrapped(stream, breaking(stream) if len(requests) == 1 else iter(stream))

    monkeypatch.setitem(own_conn._calls, READ_ROWS, call)
    got = read_table(own_conn, tid)
    assert len(got) == 60 and _as_set(got) == _as_set(cells)
    assert len(requests) == 2
    assert not requests[0].rows.row_ranges and not requests[0].rows.row_keys  # whole table
    (resumed,) = requests[1].rows.row_ranges
    assert resumed.start_key_open == b"r004" and not resumed.WhichOneof("end_key")


def test_a_resumed_read_keeps_its_rows_limit_and_ranges(
    own_conn: Connection, table_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Rows r005..r024 with a limit of 12 rows: the first stream breaks right after committing
    # r005..r007, so the second asks for the rest of the range after r007 and 12 - 3 = 9 rows;
    # the read returns r005..r016, each once.
    cells = _cells(30)
    tid = table_factory([Family("cf")])
    writer.write_cells(own_conn, cells, tid, progress=False)
    real = own_conn.stream_call(READ_ROWS, ReadRowsRequest, ReadRowsResponse)
    requests: list[Any] = []

    def breaking(stream: Any) -> Iterator[Any]:
        commits = 0
        for resp in stream:
            for chunk in resp.chunks:
                yield ReadRowsResponse(chunks=[chunk])
                commits += chunk.commit_row
                if commits == 3:
                    stream.cancel()
                    raise Unavailable()

    def call(req: Any, **kw: Any) -> Any:
        requests.append(req)
        stream = real(req, **kw)
        return Wrapped(stream, breaking(stream) if len(requests) == 1 else iter(stream))

    monkeypatch.setitem(own_conn._calls, READ_ROWS, call)
    plan = ReadPlan(intent="r005..r024", ranges=(KeyRange("r005", "r025"),), rows_limit=12)
    res = reader.read_plan(own_conn, tid, plan)
    want = {c for c in _as_set(cells) if "r005" <= c[0] <= "r016"}
    assert len(requests) == 2 and requests[0].rows_limit == 12
    assert requests[1].rows_limit == 12 - 3
    (rng,) = requests[1].rows.row_ranges
    assert (rng.start_key_open, rng.end_key_open) == (b"r007", b"r025")
    assert _as_set(res.cells) == want and res.rows_returned == 12


def test_a_read_that_never_gets_through_gives_up_naming_the_emulator(
    own_conn: Connection, table_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every attempt fails at once with UNAVAILABLE while the emulator's port is open: the policy
    # retries (more than one attempt), then gives up after the connection's budget without
    # progress and says what it got and what the emulator's port says.
    tid = table_factory([Family("cf")])
    own_conn.timeout = 1.0
    attempts: list[Any] = []

    class Failing:
        def __iter__(self) -> Iterator[Any]:
            raise Unavailable()

        def cancel(self) -> None:
            pass

    def call(req: Any, **kw: Any) -> Any:
        attempts.append(req)
        return Failing()

    monkeypatch.setitem(own_conn._calls, READ_ROWS, call)
    with pytest.raises(wb.EmulatorUnavailable, match=r"no answer from the emulator .*UNAVAILABLE"):
        read_table(own_conn, tid)
    assert len(attempts) > 1
    assert all(a == attempts[0] for a in attempts)  # nothing was read: the same request


def test_a_write_resends_only_the_entry_that_failed_transiently(
    own_conn: Connection, table_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first answer reports row r001's entry UNAVAILABLE (as Bigtable may, per entry) after
    # the emulator wrote the others: the second request holds only that entry, and the table
    # ends with every cell; the report counts the one retry.
    cells = _cells(3)
    tid = table_factory([Family("cf")])
    real = own_conn.stream_call(
        writer.MUTATE_ROWS, writer.MutateRowsRequest, writer.MutateRowsResponse
    )
    sent: list[list[bytes]] = []

    def call(req: Any, **kw: Any) -> Any:
        sent.append([e.row_key for e in req.entries])
        if len(sent) > 1:
            return real(req, **kw)
        first = writer.MutateRowsRequest(table_name=req.table_name)
        first.entries.extend(e for e in req.entries if e.row_key != b"r001")
        stream = real(first, **kw)

        def answers() -> Iterator[Any]:
            for _ in stream:
                pass  # the emulator wrote every entry but r001's
            resp = writer.MutateRowsResponse()
            for i, e in enumerate(req.entries):
                entry = resp.entries.add(index=i)
                if e.row_key == b"r001":
                    entry.status.code = grpc.StatusCode.UNAVAILABLE.value[0]
            yield resp

        return Wrapped(stream, answers())

    monkeypatch.setitem(own_conn._calls, writer.MUTATE_ROWS, call)
    report = writer.write_cells(own_conn, cells, tid, progress=False, check_families=False)
    assert sent == [[b"r000", b"r001", b"r002"], [b"r001"]]
    assert report.retries == 1
    monkeypatch.delitem(own_conn._calls, writer.MUTATE_ROWS)
    assert _as_set(read_table(own_conn, tid)) == _as_set(cells)


def test_a_read_the_server_never_answers_is_cancelled_at_the_silent_limit(
    own_conn: Connection, table_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The emulator answers every knock on its port, but this read's stream sends nothing (a
    # stand-in stream that waits until it is cancelled): the read is cancelled once it has
    # waited READ_SILENT_LIMIT (patched to 1 s), and the message tells it from a frozen server.
    tid = table_factory([Family("cf")])
    monkeypatch.setattr(reader, "READ_IDLE_TIMEOUT", 0.3)
    monkeypatch.setattr(reader, "READ_SILENT_LIMIT", 1.0)
    cancelled = threading.Event()

    class Cancelled(grpc.RpcError):
        def code(self) -> grpc.StatusCode:
            return grpc.StatusCode.CANCELLED

    class Silent:
        def __iter__(self) -> Iterator[Any]:  # a generator, as a gRPC stream: waits in next()
            cancelled.wait()
            raise Cancelled()
            yield

        def cancel(self) -> None:
            cancelled.set()

    monkeypatch.setitem(own_conn._calls, READ_ROWS, lambda req, **kw: Silent())
    with pytest.raises(wb.EmulatorUnavailable, match=r"still answers.*sent nothing"):
        read_table(own_conn, tid)
    assert cancelled.is_set()
