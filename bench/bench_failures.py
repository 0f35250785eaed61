"""How long failing takes: each refusal against the deadline or the request it stands for.

The functional tests check *that* each failure happens the right way (tests/bigtable/test_emulator.py,
tests/bigtable/test_write_failures.py, tests/bigtable/test_gc_confirm.py); this measures how fast, in one run:

* a listener that accepts and never answers: ``Emulator(host).start()`` refused, against its
  one 5 s gRPC probe (ratio ≈ 1; it once took 65 s, ×13, retrying ListTables);
* an emulator killed while in use: ``list_tables`` failing, against the connection's deadline
  (never past it: ratio ≤ 1; a refused connection is not retried, so ≈ 0);
* a production GC-rule change refused for confirmation, against one plain GetTable of the
  same table on the same emulator (ratio ≈ 1: one read, no retries);
* an emulator frozen (SIGSTOP) under a write: the write giving up, against its one
  ``MIN_CALL_TIMEOUT`` (ratio ≈ 1, retries included), and Ctrl-C during such a write returning,
  against the same deadline (its requests are cancelled: ratio well under 1; it was ~0.8).

    .venv/bin/python bench/bench_failures.py
"""

from __future__ import annotations

import os
import signal
import socket
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench as wb  # noqa: E402
from workbench.bigtable import admin  # noqa: E402
from workbench.bigtable.connection import Connection  # noqa: E402
from workbench.errors import ConfirmationRequired, EmulatorError, EmulatorUnavailable  # noqa: E402
from workbench.schema.families import Family, max_age  # noqa: E402

PROBE_S = 5.0  # workbench/bigtable/emulator.py: speaks_grpc(host, timeout=5.0)
DEADLINE_S = 3.0


def _seconds(fn, expected: type[BaseException]) -> float:
    t0 = time.perf_counter()
    try:
        fn()
    except expected:
        return time.perf_counter() - t0
    raise SystemExit(f"{fn} did not fail with {expected.__name__}")


def silent_listener() -> float:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    try:
        host = f"127.0.0.1:{srv.getsockname()[1]}"
        return _seconds(lambda: wb.Emulator(host).start(), EmulatorError)
    finally:
        srv.close()


def killed_emulator() -> float:
    emu = wb.Emulator(reuse=False).start()
    conn = Connection.emulator(emu.host, timeout=DEADLINE_S)
    try:
        conn.list_tables()
        os.killpg(emu.pid, signal.SIGKILL)
        emu._proc.wait(timeout=30)
        return _seconds(conn.list_tables, EmulatorUnavailable)
    finally:
        conn.close()
        emu.stop()


def gc_confirmation(rounds: int = 5) -> tuple[float, float]:
    """(median refusal, median plain GetTable) in seconds, on one emulator."""
    emu = wb.Emulator(reuse=False).start()
    try:
        conn = emu.connection()
        prod = Connection(
            project=conn.project,
            instance=conn.instance,
            host=conn.host,
            is_production=True,
            timeout=conn.timeout,
            channel=conn.channel,
            admin_channel=conn.admin_channel,
        )
        with admin.throwaway_table(conn, [Family("m")]) as tid:
            refuse = [
                _seconds(
                    lambda: admin.ensure_table(prod, tid, [Family("m", gc=max_age("1D"))]),
                    ConfirmationRequired,
                )
                for _ in range(rounds)
            ]
            plain = []
            for _ in range(rounds):
                t0 = time.perf_counter()
                admin.get_families(conn, tid)
                plain.append(time.perf_counter() - t0)
        return statistics.median(refuse), statistics.median(plain)
    finally:
        emu.stop()


def _frozen(pid: int) -> None:
    os.kill(pid, signal.SIGSTOP)
    while Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "T":
        time.sleep(0.01)


def frozen_write() -> tuple[float, float]:
    """(seconds until a write on a frozen emulator gives up, seconds from Ctrl-C to its return)."""
    import threading

    import pandas as pd

    from workbench.bigtable import writer

    emu = wb.Emulator(reuse=False).start()
    try:
        df = pd.DataFrame(
            {
                "meter_id": [1, 2] * 10,
                "time": pd.date_range("2024-01-01", periods=20, freq="1min", tz="UTC"),
                "kwh": 1.0,
                "voltage": 230.0,
            }
        )
        ds = wb.from_dataframe(df, entity=["meter_id"], time="time", measures=["kwh", "voltage"])
        h = emu.load(ds, wb.preset("energy_meters", "sequential_id"), progress=False)
        conn = emu.connection()
        _frozen(emu.pid)
        try:

            def write() -> None:
                writer.write_cells(conn, h.cells, h.table_id, progress=False, check_families=False)

            gave_up = _seconds(write, wb.WorkbenchError)
            sent: list[float] = []

            def interrupt() -> None:
                sent.append(time.perf_counter())
                os.kill(os.getpid(), signal.SIGINT)

            timer = threading.Timer(2.0, interrupt)
            timer.start()
            try:
                write()
            except KeyboardInterrupt:
                returned = time.perf_counter() - sent[0]
            finally:
                timer.cancel()
        finally:
            os.kill(emu.pid, signal.SIGCONT)
        return gave_up, returned
    finally:
        emu.stop()


def main() -> int:
    s = silent_listener()
    print(
        f"silent listener refused:     {s:6.2f} s  = {s / PROBE_S:5.2f} × its {PROBE_S:.0f} s probe"
    )
    k = killed_emulator()
    print(
        f"killed emulator call failed: {k:6.2f} s  = {k / DEADLINE_S:5.2f} × the connection's "
        f"{DEADLINE_S:.0f} s deadline"
    )
    refuse, plain = gc_confirmation()
    print(
        f"GC change refused:           {refuse * 1e3:6.1f} ms = {refuse / plain:5.2f} × one GetTable "
        f"({plain * 1e3:.1f} ms)"
    )
    from workbench.bigtable.writer import MIN_CALL_TIMEOUT

    gave_up, returned = frozen_write()
    print(
        f"frozen emulator, write gave up: {gave_up:6.2f} s  = {gave_up / MIN_CALL_TIMEOUT:5.2f} × "
        f"its {MIN_CALL_TIMEOUT:.0f} s deadline"
    )
    print(
        f"frozen emulator, Ctrl-C back:   {returned:6.2f} s  = "
        f"{returned / MIN_CALL_TIMEOUT:5.2f} × that deadline"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
