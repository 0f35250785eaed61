"""Failures that tell the truth, against the real emulator with ``cbt count`` as the counter:
Ctrl-C names what was written and the rerun, a read after a restart names the restart, a
non-gRPC or silent listener is named as such on every path, and ``emulator find`` fails when
the emulator component is missing."""

from __future__ import annotations

import http.server
import os
import re
import signal
import socket
import subprocess
import threading
import time

import numpy as np
import pytest
from waits import HANG_S

import workbench as wb
from workbench import cli
from workbench.bigtable import admin, writer
from workbench.bigtable import emulator as emu_mod
from workbench.bigtable.connection import Connection
from workbench.bigtable.reader import ReadPlan, read_plan
from workbench.cells import CellFrame
from workbench.errors import EmulatorError, WorkbenchError
from workbench.schema.families import Family

pytestmark = pytest.mark.slow  # Ctrl-C and silent listeners mid-write


def cbt_count(host: str, table: str) -> str:
    out = subprocess.run(
        ["cbt", "-project", "workbench", "-instance", "workbench", "count", table],
        env={**os.environ, "BIGTABLE_EMULATOR_HOST": host},
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    return out.stdout.strip() if out.returncode == 0 else f"error: {out.stderr.strip()}"


def _rows(n: int) -> CellFrame:
    return CellFrame.from_columns(
        row_key=np.array([f"k{i:07d}" for i in range(n)], dtype=object),
        family="m",
        qualifier="q",
        timestamp_us=np.full(n, 1_425_168_000_000_000),
        value=[b"1.5"] * n,
    )


def test_ctrl_c_mid_write_reports_the_count_and_the_rerun(emulator):
    conn = emulator.connection()
    tid = admin.unique_table_id("ctrlc")
    admin.ensure_table(conn, tid, [Family("m")])
    cells = _rows(120_000)
    sent: list[float] = []

    def interrupt_once_rows_arrive() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # wait for a state, not a time
            if read_plan(conn, tid, ReadPlan("probe", rows_limit=1)).rows_returned:
                break
            time.sleep(0.01)
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    try:
        threading.Thread(target=interrupt_once_rows_arrive, daemon=True).start()
        with pytest.raises(KeyboardInterrupt) as ei:
            writer.write_cells(conn, cells, tid, progress=False, batch_mutations=500, threads=2)
        msg = str(ei.value)
        assert msg.startswith("Write interrupted (Ctrl-C) after ")
        assert re.search(r"\d of 120,000 rows \(.*acknowledged", msg), msg
        assert "same write again" in msg and "resume_from=('main', 'k" in msg
        written = ei.value.rows_written
        stored = int(cbt_count(emulator.host, tid))
        # acknowledged rows are stored; requests sent but not yet counted, or cancelled, may
        # have stored more (the interrupt can come before the first answer is counted)
        assert 0 <= written <= stored < 120_000
        assert f"after {written:,} of 120,000 rows" in msg
        # the rerun the message gives finishes the table exactly
        writer.write_cells(conn, cells, tid, progress=False, resume_from=ei.value.resume_from)
        assert cbt_count(emulator.host, tid) == "120000"
    finally:
        admin.drop_table(conn, tid)


def test_a_read_after_an_emulator_restart_names_the_restart():
    emu = wb.Emulator(reuse=False).start()
    try:
        ds = wb.load_dataset("garden_temperature", size="tiny")
        h = emu.load(ds, wb.preset("garden_temperature", "tall"), progress=False)
        port = int(emu.host.rsplit(":", 1)[1])
        os.killpg(emu.pid, signal.SIGKILL)  # restarted behind the session's back
        emu._proc.wait(timeout=10)
        again = wb.Emulator(port=port, reuse=False).start()  # same address, empty
        try:
            with pytest.raises(WorkbenchError) as ei:
                h.run(ds.queries[0])
            msg = str(ei.value)
            assert "does not exist" in msg and "restarted" in msg and "Load the data" in msg
            assert cbt_count(again.host, h.table_id).startswith("error:")
        finally:
            again.stop()
    finally:
        emu.stop()


@pytest.fixture
def http_server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def test_connection_to_an_http_server_is_named_not_grpc_not_frozen(http_server):
    conn = Connection.emulator(http_server, timeout=2.0)
    try:
        with pytest.raises(wb.EmulatorUnavailable) as ei:
            conn.list_tables()
    finally:
        conn.close()
    msg = str(ei.value)
    assert "not a Bigtable" in msg and "gRPC" in msg
    assert "SIGSTOP" not in msg


def test_a_listener_that_never_answers_is_refused_after_one_probe(monkeypatch):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)  # accepts (the kernel's backlog) and never answers
    host = f"127.0.0.1:{srv.getsockname()[1]}"
    calls: list[str] = []
    monkeypatch.setattr(  # the 65 s it once took were ListTables retries after the probe
        Connection, "call", lambda self, what, *a, **k: calls.append(what)
    )
    try:
        with pytest.raises(EmulatorError, match=r"answered nothing within 5 s.*SIGSTOP"):
            wb.Emulator(host).start()
        # refused on the one 5 s gRPC probe, before any call with the 30 s start deadline;
        # how long that takes is measured in bench/bench_failures.py
        assert calls == []
    finally:
        srv.close()


def test_emulator_find_fails_when_gcloud_lacks_the_component(tmp_path, monkeypatch, capsys):
    # a gcloud whose SDK root has no platform/bigtable-emulator/cbtemulator
    sdk = tmp_path / "sdk"
    (sdk / "bin").mkdir(parents=True)
    gcloud = sdk / "bin" / "gcloud"
    gcloud.write_text(f"#!/bin/sh\necho {sdk}\n")
    gcloud.chmod(0o755)
    monkeypatch.setenv("PATH", str(sdk / "bin"))
    monkeypatch.delenv(emu_mod.ENV_BINARY, raising=False)
    monkeypatch.delenv("CLOUDSDK_ROOT_DIR", raising=False)
    monkeypatch.setattr(emu_mod, "_SDK_GUESSES", ())
    assert cli.main(["emulator", "find"]) == 1
    err = capsys.readouterr().err
    assert "no Bigtable emulator" in err and "gcloud components install bigtable" in err
    # gcloud with an unknown SDK root: not verified, so not reported as found either
    bare = tmp_path / "bare"  # not in a bin/ folder, and `gcloud info` fails
    bare.mkdir()
    (bare / "gcloud").write_text("#!/bin/sh\nexit 1\n")
    (bare / "gcloud").chmod(0o755)
    monkeypatch.setenv("PATH", str(bare))
    assert cli.main(["emulator", "find"]) == 1
    assert "not its Bigtable" in capsys.readouterr().err
