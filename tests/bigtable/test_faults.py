"""Write faults against the real emulator: killed mid-write, missing family, table deleted, oversized row."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time

import numpy as np
import pytest
from waits import HANG_S

import workbench as wb
from workbench.bigtable import admin, writer
from workbench.bigtable.connection import Connection
from workbench.bigtable.reader import ReadPlan, read_plan, read_table
from workbench.cells import CellFrame
from workbench.errors import LimitError, WriteError
from workbench.schema.families import Family

pytestmark = pytest.mark.slow  # emulators killed and restarted mid-write


def _many(n_rows: int) -> CellFrame:
    keys = np.repeat(np.array([f"k{i:07d}" for i in range(n_rows)], dtype=object), 4)
    return CellFrame.from_columns(
        row_key=keys,
        family="m",
        qualifier=np.tile(np.array(["a", "b", "c", "d"], dtype=object), n_rows),
        timestamp_us=np.full(4 * n_rows, 1_425_168_000_000_000),
        value=[b"12.5"] * (4 * n_rows),
    )


def _write_in_thread(conn, cells, tid, **kw):
    box: dict = {}

    def run():
        try:
            box["report"] = writer.write_cells(conn, cells, tid, progress=False, **kw)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    th = threading.Thread(target=run, daemon=True)
    th.start()
    return th, box


def _wait_for_rows(conn, tid, timeout=120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if read_plan(conn, tid, ReadPlan("probe", rows_limit=1)).rows_returned:
            return
        time.sleep(0.01)
    raise AssertionError("the writer wrote nothing")


def test_missing_family_is_named_before_anything_is_written(conn, table_factory):
    tid = table_factory([Family("m")])
    cells = CellFrame.from_columns(
        row_key=["a", "b"],
        family=["m", "zz"],
        qualifier="q",
        timestamp_us=[1000, 1000],
        value=[b"1", b"2"],
    )
    with pytest.raises(WriteError, match=r"no column family 'zz'.*Nothing was written"):
        writer.write_cells(conn, cells, tid, progress=False)
    assert len(read_table(conn, tid)) == 0
    # without the pre-check, the server's per-entry refusal is reported with the family
    with pytest.raises(WriteError, match=r"no such.*column family.*zz"):
        writer.write_cells(conn, cells, tid, progress=False, check_families=False)


def test_table_deleted_under_the_writer(conn):
    tid = admin.unique_table_id("wbtest")
    admin.ensure_table(conn, tid, [Family("m")])
    cells = _many(40_000)
    th, box = _write_in_thread(conn, cells, tid, batch_mutations=400, threads=1)
    _wait_for_rows(conn, tid)
    admin.drop_table(conn, tid)
    th.join(30)
    err = box.get("error")
    assert isinstance(err, WriteError), box
    msg = str(err)
    assert tid in msg and "does not exist" in msg and "deleted while writing" in msg
    # the rows written went with the table: no resume advice, the full reload instead
    assert 0 < err.rows_written < 40_000 and err.resume_from is None
    assert "so far" not in msg and "do not use" in msg and "Reload everything" in msg


def test_oversized_row_is_refused_before_sending(conn, table_factory):
    tid = table_factory([Family("m")])
    blob = b"x" * (
        130 * 1024 * 1024
    )  # two of them: one 260 MiB row, over the 256 MiB request limit
    cells = CellFrame.from_columns(
        row_key=["fine", "huge", "huge"],
        family="m",
        qualifier=["q", "a", "b"],
        timestamp_us=[1000, 1000, 1000],
        value=[b"1", blob, blob],
    )
    with pytest.raises(
        LimitError,
        match=r"Row 'huge' of table 'main'.*272,6\d\d,\d\d\d bytes.*Nothing was written",
    ):
        writer.write_cells(conn, cells, tid, progress=False)
    assert len(read_table(conn, tid)) == 0


def test_emulator_killed_mid_write_then_rerun_on_a_restarted_one():
    cells = _many(60_000)
    with wb.Emulator(reuse=False) as emu:
        conn = Connection.emulator(emu.host, timeout=3.0)
        admin.ensure_table(conn, "victim", [Family("m")])
        th, box = _write_in_thread(conn, cells, "victim", batch_mutations=400, threads=2)
        _wait_for_rows(conn, "victim")
        os.killpg(emu.pid, signal.SIGKILL)  # no goodbye: the port closes, connections are refused
        th.join(120)
        conn.close()
    err = box.get("error")
    assert isinstance(err, WriteError), box
    # a refused connection is reported as refused, not retried until the 3 s deadline ran out
    # (that would read "no answer ... after 3.0 s"); how soon: bench/bench_failures.py
    msg = str(err)
    assert "no answer" not in msg
    assert "refused the connection" in msg and "emulator has stopped" in msg
    # the rows went with the process: no "written so far", no resume_from, the full reload
    assert "so far" not in msg and "do not use" in msg and "Reload everything" in msg
    assert err.resume_from is None and 0 < err.rows_written < 60_000
    with wb.Emulator(reuse=False) as emu2:  # a restarted emulator is empty: rerun everything
        conn2 = Connection.emulator(emu2.host)
        assert conn2.list_tables() == []
        admin.ensure_table(conn2, "victim", [Family("m")])
        rep = writer.write_cells(conn2, cells, "victim", progress=False)
        assert rep.rows == 60_000
        assert read_table(conn2, "victim").equals(cells)
        out = subprocess.run(
            ["cbt", "-project", "workbench", "-instance", "workbench", "count", "victim"],
            env={**os.environ, "BIGTABLE_EMULATOR_HOST": emu2.host},
            capture_output=True,
            text=True,
            timeout=HANG_S,
        )
        assert out.stdout.strip() == "60000", out  # 60,000 rows written, each once
        conn2.close()
