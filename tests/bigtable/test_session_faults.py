"""Session and emulator faults against the real emulator: probe deadline, `wb.setup` after the
module rename, recovery from a dead emulator, a non-gRPC server behind BIGTABLE_EMULATOR_HOST."""

from __future__ import annotations

import http.server
import os
import re
import signal
import subprocess
import sys
import threading
import time

import grpc
import pandas as pd
import psutil
import pytest
from waits import HANG_S

import workbench as wb
from workbench.bigtable import emulator as emu_mod
from workbench.bigtable.connection import DEFAULT_TIMEOUT
from workbench.bigtable.reader import READ_IDLE_TIMEOUT
from workbench.errors import EmulatorError, SchemaError, WriteError

pytestmark = pytest.mark.slow  # frozen emulators: 10-15 s deadlines waited out

CBT = "cbt"


def cbt_count(host: str, table: str, project: str = "workbench", instance: str = "workbench"):
    out = subprocess.run(
        [CBT, "-project", project, "-instance", instance, "count", table],
        env={**os.environ, "BIGTABLE_EMULATOR_HOST": host},
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    return out.returncode, (out.stdout.strip() if out.returncode == 0 else out.stderr.strip())


def _stopped(pid: int) -> bool:
    """The process is stopped (SIGSTOP delivered), as the kernel reports its state."""
    return psutil.Process(pid).status() == psutil.STATUS_STOPPED


def _cpu_seconds(pid: int) -> float:
    """User + system CPU the process has used so far."""
    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def _freeze(pid: int, timeout: float = 10.0) -> None:
    """SIGSTOP the emulator and return once the kernel shows it stopped (a signal is delivered
    asynchronously: a request sent at once could still be answered)."""
    os.kill(pid, signal.SIGSTOP)
    deadline = time.monotonic() + timeout
    while not _stopped(pid):
        assert time.monotonic() < deadline, f"the emulator ({pid}) did not stop"
        time.sleep(0.01)


def _wait_until_busy(pid: int, cpu_s: float = 0.2, timeout: float = 30.0) -> None:
    """Return once the emulator has spent ``cpu_s`` more CPU seconds: a request is being served."""
    start, deadline = _cpu_seconds(pid), time.monotonic() + timeout
    while _cpu_seconds(pid) - start < cpu_s:
        assert time.monotonic() < deadline, "the emulator never got busy with the write"
        time.sleep(0.01)


def _stated_wait(msg: str) -> float:
    """The wait an error message states ("... for 10.0 s", "after 10.0 s", "nothing for 15.0 s")."""
    m = re.search(r"(?:for|after) (\d+\.\d) s", msg)
    assert m, msg
    return float(m.group(1))


def _no_calls(monkeypatch) -> list[str]:
    """Record (and answer nothing to) every ``Connection.call``: a fault named on its probe
    makes none (each would wait out the connection's deadline)."""
    from workbench.bigtable.connection import Connection

    calls: list[str] = []
    monkeypatch.setattr(Connection, "call", lambda self, what, *a, **k: calls.append(what))
    return calls


def _small_dataset(n: int = 20):
    """``n`` readings of two meters, one a minute each, in energy_meters' columns."""
    df = pd.DataFrame(
        {
            "meter_id": [1, 2] * (n // 2),
            "time": pd.date_range("2024-01-01", periods=n, freq="1min", tz="UTC"),
            "kwh": [float(i) for i in range(n)],
            "voltage": [230.0] * n,
        }
    )
    return wb.from_dataframe(
        df, entity=["meter_id"], time="time", measures=["kwh", "voltage"], name="m"
    )


def _design(ds):
    # A row per meter and reading (key meter#timestamp): 20 readings → 20 rows.
    return wb.preset("energy_meters", "sequential_id")


@pytest.fixture
def http_server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


@pytest.fixture
def fresh_session(monkeypatch):
    """A new session object for the test (the kernel's one is module state)."""
    from workbench import session

    s = session.Session()
    monkeypatch.setattr(session, "SESSION", s)
    monkeypatch.delenv(emu_mod.ENV_HOST, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(os.environ.get("TMPDIR", "/tmp")) + "/wb-faults-state")
    yield s
    s.cleanup(stop_emulator=True)


# -- item 2: timeouts are what the messages say ------------------------------------------------
def test_connection_keeps_the_documented_deadline_not_the_probe_one(emulator):
    # _wait_ready probes with a 2 s deadline; the connection users get must have the
    # documented 10 s (DEFAULT_TIMEOUT) so "within 10 s" in a message is the truth.
    assert DEFAULT_TIMEOUT == 10.0
    assert emulator.connection().timeout == DEFAULT_TIMEOUT
    fresh = wb.Emulator(reuse=False).start()
    try:
        assert fresh.connection().timeout == 10.0
    finally:
        fresh.stop()


# -- item 3: wb.setup is always the function -------------------------------------------------
def test_setup_after_emulator_and_after_load_is_still_callable(fresh_session):
    # The session module used to be workbench/setup.py: importing it bound the submodule to
    # `workbench.setup`, shadowing the function ("'module' object is not callable").
    import workbench.session  # noqa: F401  (the import that used to shadow it)

    emu = wb.emulator()
    info = wb.setup()
    assert callable(wb.setup) and info.emulator_ok and info.emulator is emu
    ds = _small_dataset()
    h = emu.load(ds, _design(ds), table_id="after-load", progress=False)
    info2 = wb.setup()
    assert info2.emulator_ok and "after-load" in info2.tables
    # 20 events → 20 rows (one per meter and minute); cbt counts them in the real table.
    rc, out = cbt_count(emu.host, h.table_id)
    assert rc == 0 and out == "20", out
    assert wb.cleanup() == ["after-load"]


# -- item 7: recovery after the emulator dies --------------------------------------------------
def test_setup_replaces_a_dead_emulator_even_with_the_env_var_pointing_at_it(fresh_session):
    first = wb.setup().emulator
    dead_host = first.host
    assert os.environ[emu_mod.ENV_HOST] == dead_host
    ds = _small_dataset()
    first.load(ds, _design(ds), table_id="lost", progress=False)
    os.killpg(first.pid, signal.SIGKILL)
    first._proc.wait(timeout=10)
    info = wb.setup()
    assert info.emulator_ok, info.problem
    assert info.emulator.host != dead_host and os.environ[emu_mod.ENV_HOST] == info.emulator.host
    assert "stopped answering" in info.note and "holds no tables" in info.note
    assert "stopped answering" in repr(info)
    assert info.tables == []
    # The new emulator is empty, as the note says: cbt finds no table "lost" there, and a
    # reload of the 20 events gives 20 rows again.
    rc, out = cbt_count(info.emulator.host, "lost")
    assert rc != 0 and "not found" in out.lower(), out
    info.emulator.load(ds, _design(ds), table_id="lost", progress=False)
    rc, out = cbt_count(info.emulator.host, "lost")
    assert rc == 0 and out == "20", out


def test_stale_env_var_from_another_kernel_does_not_trap_setup(fresh_session, monkeypatch):
    # A port nobody listens on (bound, then closed).
    monkeypatch.setenv(emu_mod.ENV_HOST, f"127.0.0.1:{emu_mod.free_port()}")
    info = wb.setup()
    assert info.emulator_ok and "no running emulator" in info.note


def test_restarted_emulator_is_reported_as_empty_not_just_missing_table():
    emu = wb.Emulator(reuse=False).start()
    try:
        ds = _small_dataset()
        h = emu.load(ds, _design(ds), table_id="restart-me", progress=False)
        port = int(emu.host.rsplit(":", 1)[1])
        emu.stop()
        again = wb.Emulator(port=port, reuse=False).start()  # same address, empty
        try:
            from workbench.bigtable import writer

            with pytest.raises(WriteError) as ei:
                writer.write_cells(again.connection(), h.cells, "restart-me", progress=False)
            msg = str(ei.value)
            assert "restarted" in msg and "holds nothing" in msg
            assert "Nothing was written" in msg
            rc, out = cbt_count(again.host, "restart-me")
            assert rc != 0 and "not found" in out.lower(), out
        finally:
            again.stop()
    finally:
        emu.stop()


def test_load_accepts_resume_from(emulator):
    ds = _small_dataset()
    schema = _design(ds)
    h = emulator.load(ds, schema, table_id="resume-ok", progress=False, verify=False)
    first_key = sorted(h.cells.frame["row_key"].unique())[10]
    # Resuming from the 11th of 20 rows writes 10 rows (and the table still holds all 20).
    h2 = emulator.load(
        ds,
        schema,
        table_id="resume-ok",
        progress=False,
        verify=False,
        resume_from=("main", first_key),
    )
    assert h2.write_report.rows == 10
    rc, out = cbt_count(emulator.host, "resume-ok")
    assert rc == 0 and out == "20", out
    emulator.connection().admin.delete_table(name=emulator.connection().table_path("resume-ok"))


# -- item 6 (load's schema argument) ---------------------------------------------------------
def test_load_with_a_string_instead_of_a_schema_says_how_to_get_one(emulator):
    ds = _small_dataset()
    before = emulator.connection().list_tables()
    with pytest.raises(SchemaError, match=r"needs a Schema.*wb\.preset\('m'.*Nothing was written"):
        emulator.load(ds, "tall", progress=False)
    assert emulator.connection().list_tables() == before


# -- item 8: a non-gRPC server behind BIGTABLE_EMULATOR_HOST ------------------------------------
def test_http_server_is_named_not_a_bigtable_emulator(http_server, monkeypatch):
    monkeypatch.setenv(emu_mod.ENV_HOST, http_server)
    calls = _no_calls(monkeypatch)
    with pytest.raises(EmulatorError, match="not a Bigtable"):
        wb.Emulator().start()
    assert calls == []  # named on its probe, before any call with a 30 s start deadline
    env = {**os.environ, "BIGTABLE_EMULATOR_HOST": http_server, "PYTHONPATH": os.getcwd()}
    out = subprocess.run(
        [sys.executable, "-m", "workbench", "emulator", "status"],
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert out.returncode == 1, out.stdout
    assert "not a Bigtable" in out.stdout  # the diagnosis: not "not running"
    # (cbt itself retries such a server without end: no `cbt count` here.)


def test_setup_with_an_http_server_in_the_env_var_says_so_and_its_fix_works(
    http_server, fresh_session, monkeypatch
):
    monkeypatch.setenv(emu_mod.ENV_HOST, http_server)
    with monkeypatch.context() as m:
        calls = _no_calls(m)
        info = wb.setup()
    # a port check, then one HTTP/2 preface answered by "HTTP/1.0 400": no call is made
    assert calls == []
    assert not info.emulator_ok and re.search(r"not a Bigtable.*unset it", info.problem, re.S)
    # The advised fix: unset it; wb.setup() starts a private emulator and a load lands there.
    monkeypatch.delenv(emu_mod.ENV_HOST)
    info = wb.setup()
    assert info.emulator_ok and info.emulator.host != http_server
    ds = _small_dataset()
    info.emulator.load(ds, _design(ds), table_id="after-http", progress=False)
    rc, out = cbt_count(info.emulator.host, "after-http")
    assert rc == 0 and out == "20", out  # 20 events → 20 rows


def test_the_real_emulator_speaks_grpc(emulator):
    assert emu_mod.speaks_grpc(emulator.host) is True


# -- item 1: one ever-growing row -------------------------------------------------------------
def test_unbounded_row_is_refused_up_front_citing_g24(emulator):
    # The gallery's energy_meters/unbounded_row on 100,000 readings of one meter, one a second:
    # one row, 2 measures → 200,000 cells in it. Written, it took the emulator minutes (quadratic:
    # 40 s per 100k cells × (200k/100k)² ≈ 160 s); refused, it costs one groupby.
    n = 100_000
    df = pd.DataFrame(
        {
            "meter_id": 1,
            "time": pd.date_range("2024-01-01", periods=n, freq="1s", tz="UTC"),
            "kwh": 1.0,
            "voltage": 230.0,
        }
    )
    ds = wb.from_dataframe(df, entity=["meter_id"], time="time", measures=["kwh", "voltage"])
    schema = wb.preset("energy_meters", "unbounded_row")
    before = set(emulator.connection().list_tables())
    with pytest.raises(WriteError) as ei:
        emulator.load(ds, schema, table_id="unbounded", progress=False)
    msg = str(ei.value)
    assert "200,000 cells" in msg and "G24" in msg and "≈ 160 s" in msg
    assert "Nothing was written" in msg and "max_row_cells=None" in msg
    assert "still running" not in msg  # never blames a live emulator
    assert set(emulator.connection().list_tables()) == before
    rc, out = cbt_count(emulator.host, "unbounded")
    assert rc != 0 and "not found" in out.lower()


def test_deep_row_under_the_limit_is_written_whole(emulator):
    # 5,000 readings of one meter → one row of 10,000 cells: below the limit, written and counted.
    n = 5_000
    df = pd.DataFrame(
        {
            "meter_id": 1,
            "time": pd.date_range("2024-01-01", periods=n, freq="1s", tz="UTC"),
            "kwh": 1.0,
            "voltage": 230.0,
        }
    )
    ds = wb.from_dataframe(df, entity=["meter_id"], time="time", measures=["kwh", "voltage"])
    h = emulator.load(
        ds, wb.preset("energy_meters", "unbounded_row"), table_id="deep5k", progress=False
    )
    assert h.write_report.cells == 10_000 and h.verification.equal
    rc, out = cbt_count(emulator.host, "deep5k")
    assert rc == 0 and out == "1", out
    emulator.connection().admin.delete_table(name=emulator.connection().table_path("deep5k"))


def _one_meter(n: int):
    df = pd.DataFrame(
        {
            "meter_id": 1,
            "time": pd.date_range("2024-01-01", periods=n, freq="1s", tz="UTC"),
            "kwh": 1.0,
            "voltage": 230.0,
        }
    )
    return wb.from_dataframe(df, entity=["meter_id"], time="time", measures=["kwh", "voltage"])


def test_a_deep_row_allowed_past_the_limit_is_paced_and_written_whole():
    # 30,000 readings of one meter → one row of 60,000 cells, written with max_row_cells=None.
    # The emulator pays ~8 ns per cell already in the row (t = c·n²/2, 100,000 cells in 40 s), so
    # the writer cuts the row where a request's estimate reaches 2 s: at depth d a piece of
    # min(20,000, 2 s / (8 ns · d)) cells: 20,000 · 12,500 · 7,692 · 6,220 · 5,386 · 4,826 ·
    # 3,376 = 7 requests, one after another, ~14 s in all (c · 60,000² / 2 = 14.4 s).
    from workbench.bigtable import writer

    ds = _one_meter(30_000)
    schema = wb.preset("energy_meters", "unbounded_row")
    emu = wb.Emulator(reuse=False).start()
    try:
        h = emu.load(ds, schema, table_id="deep60k", progress=False, max_row_cells=None)
        assert h.write_report.cells == 60_000 and h.write_report.requests == 7
        assert h.verification.equal
        rc, out = cbt_count(emu.host, "deep60k")
        assert rc == 0 and out == "1", out
        # frozen during a second write of the row: the error names the request, where it sits in
        # the row, the deadline it had, and the real wait
        conn = emu.connection()
        done = threading.Event()
        errors: list[BaseException] = []

        def rewrite() -> None:
            try:
                writer.write_cells(conn, h.cells, "deep60k", progress=False, check_families=False)
            except BaseException as exc:  # noqa: BLE001 - handed to the test
                errors.append(exc)
            done.set()

        th = threading.Thread(target=rewrite)
        th.start()
        _wait_until_busy(emu.pid)  # inside one of the row's requests
        _freeze(emu.pid)
        try:
            assert done.wait(40), "the write did not give up while the emulator was frozen"
        finally:
            os.kill(emu.pid, signal.SIGCONT)
        th.join()
        assert errors and isinstance(errors[0], WriteError)
        msg = str(errors[0])
        assert re.search(r"cells into row '[^']+' \(its cells [\d,]+–[\d,]+ of 60,000", msg), msg
        assert re.search(r"deadline 1\d s", msg) and "not answering" in msg, msg
        # thawed, the row still holds each of its cells once (rewrites are idempotent)
        rc, out = cbt_count(emu.host, "deep60k")
        assert rc == 0 and out == "1", out
    finally:
        emu.stop()


def test_frozen_emulator_is_reported_after_the_stated_deadline_as_alive_but_silent():
    # SIGSTOP keeps the listening socket (connections are accepted, nothing answers). A write
    # gives up after one 10 s deadline (MIN_CALL_TIMEOUT, retries included), listing tables
    # after the connection's 10 s; each message gives the real wait and says the process is alive.
    from workbench.bigtable import writer

    emu = wb.Emulator(reuse=False).start()
    try:
        ds = _small_dataset()
        h = emu.load(ds, _design(ds), table_id="frozen", progress=False)
        conn = emu.connection()
        _freeze(emu.pid)
        # each wait is at least its deadline (a loaded machine only adds to it), and the message
        # states the wait it had: at least that deadline, never more than the test saw; how
        # far past the deadline each gives up is measured in bench/bench_failures.py
        try:
            t = time.monotonic()
            with pytest.raises(WriteError) as ei:
                writer.write_cells(conn, h.cells, "frozen", progress=False, check_families=False)
            took = time.monotonic() - t
            msg = str(ei.value)
            assert writer.MIN_CALL_TIMEOUT - 0.5 <= _stated_wait(msg) <= took + 0.05, (took, msg)
            assert "not answering" in msg
            assert re.search(r"\b0 of 20 rows \(0 of 40 cells\)", msg), msg
            t = time.monotonic()
            with pytest.raises(
                wb.EmulatorUnavailable, match=r"after \d+\.\d s.*alive but not"
            ) as ei:
                conn.list_tables()
            took = time.monotonic() - t
            stated = _stated_wait(str(ei.value))
            assert DEFAULT_TIMEOUT - 0.5 <= stated <= took + 0.05, (took, str(ei.value))
            # a read is cancelled after READ_IDLE_TIMEOUT (15 s) without a response message
            t = time.monotonic()
            with pytest.raises(
                wb.EmulatorUnavailable, match=r"sent nothing for \d+\.\d s.*alive but not"
            ) as ei:
                h.read(h.schema.plan(ds.queries[0]))
            took = time.monotonic() - t
            stated = _stated_wait(str(ei.value))
            assert READ_IDLE_TIMEOUT - 0.5 <= stated <= took + 0.05, (took, str(ei.value))
        finally:
            os.kill(emu.pid, signal.SIGCONT)
        # Thawed, the table holds exactly what the first load wrote: 20 rows.
        rc, out = cbt_count(emu.host, "frozen")
        assert rc == 0 and out == "20", out
    finally:
        emu.stop()


def test_dead_emulator_is_called_stopped_not_frozen():
    emu = wb.Emulator(reuse=False).start()
    conn = emu.connection()
    os.killpg(emu.pid, signal.SIGKILL)
    emu._proc.wait(timeout=10)
    with pytest.raises(
        wb.EmulatorUnavailable, match="Nothing listens at .*emulator has stopped"
    ) as ei:
        conn.list_tables()
    assert f"(deadline {DEFAULT_TIMEOUT:.0f} s)" in str(ei.value)  # the connection's own
    emu.stop()


class _Streams(grpc.UnaryStreamClientInterceptor):
    """Every server-streaming call sent through a channel (MutateRows, ReadRows), kept to look
    at how it ended; ``first`` is set when the first one is sent."""

    def __init__(self) -> None:
        self.calls: list = []
        self.first = threading.Event()

    def intercept_unary_stream(self, continuation, details, request):
        call = continuation(details, request)
        self.calls.append(call)
        self.first.set()
        return call


def test_interrupting_a_write_on_a_frozen_emulator_cancels_its_requests():
    # Ctrl-C in a kernel is SIGINT: the KeyboardInterrupt must not wait for the requests in
    # flight to run out their 10 s deadline (MIN_CALL_TIMEOUT) on a frozen emulator; they are
    # cancelled. Waited for as a state: every request the write sent ends CANCELLED, none
    # DEADLINE_EXCEEDED (how soon the interrupt returns: bench/bench_failures.py).
    from workbench.bigtable import writer
    from workbench.bigtable.connection import Connection

    emu = wb.Emulator(reuse=False).start()
    try:
        ds = _small_dataset()
        h = emu.load(ds, _design(ds), table_id="interrupted", progress=False)
        plain = emu.connection()
        streams = _Streams()
        conn = Connection(
            project=plain.project,
            instance=plain.instance,
            host=plain.host,
            is_production=False,
            timeout=plain.timeout,
            channel=grpc.intercept_channel(plain.channel, streams),
            admin_channel=plain.admin_channel,
        )
        _freeze(emu.pid)

        def interrupt_once_a_request_is_out() -> None:
            if streams.first.wait(120):
                os.kill(os.getpid(), signal.SIGINT)

        th = threading.Thread(target=interrupt_once_a_request_is_out, daemon=True)
        try:
            th.start()
            with pytest.raises(KeyboardInterrupt):
                writer.write_cells(
                    conn, h.cells, "interrupted", progress=False, check_families=False
                )
            deadline = time.monotonic() + 120  # a request left running ends at its 10 s anyway
            while not all(c.done() for c in streams.calls):
                assert time.monotonic() < deadline, "requests still open two minutes on"
                time.sleep(0.05)
        finally:
            os.kill(emu.pid, signal.SIGCONT)
        codes = [c.code() for c in streams.calls]
        assert codes and set(codes) == {grpc.StatusCode.CANCELLED}, codes
        # Thawed, the table holds what the first load wrote: 20 rows.
        rc, out = cbt_count(emu.host, "interrupted")
        assert rc == 0 and out == "20", out
    finally:
        emu.stop()


def test_progress_of_a_deep_row_counts_cells_with_an_eta(emulator, capsys):
    # 15,000 readings → one row of 30,000 cells, cut at 20,000 and then 10,000 (at depth 20,000 a
    # piece may hold 2 s / (8 ns × 20,000) = 12,500): the bar counts those cells, and after the
    # first request shows an ETA from the estimates (one row would be "0/1 rows" until the end).
    import re as _re

    ds = _one_meter(15_000)
    emulator.load(
        ds,
        wb.preset("energy_meters", "unbounded_row"),
        table_id="deep-progress",
        progress=True,
        max_row_cells=None,
        verify=False,
    )
    err = capsys.readouterr().err
    assert "20,000/30,000 cells" in err or "20000/30000 cells" in err, err[-500:]
    assert _re.search(r"ETA \d+ s", err), err[-500:]
    emulator.connection().admin.delete_table(name=emulator.connection().table_path("deep-progress"))
