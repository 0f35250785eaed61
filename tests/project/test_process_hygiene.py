"""Processes and resources the workbench starts or relies on, and their messages:

* ``workbench emulator status`` says "answering" only when a Bigtable call came back — a
  listener that accepts connections and never answers is NOT answering (exit 1), within its
  stated deadline;
* an emulator ``wb.setup()`` started for a kernel is stopped when that kernel is killed with
  SIGTERM (no atexit runs then) or SIGKILL: a watchdog stops it;
* a load too big for memory is refused on an estimate before its cells are built;
* a read-only ``XDG_STATE_HOME`` does not break ``wb.setup()``: the log goes to a temporary
  directory and the setup says so, naming the directory and what to do.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from waits import HANG_S

import workbench as wb
from workbench.bigtable import emulator as emu_mod
from workbench.memory import ENV_MEMORY_LIMIT

pytestmark = pytest.mark.slow  # emulator processes and kernels


def _status(host: str) -> subprocess.CompletedProcess:
    env = {**os.environ, emu_mod.ENV_HOST: host, "PYTHONPATH": os.getcwd()}
    return subprocess.run(
        [sys.executable, "-m", "workbench", "emulator", "status"],
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )


def _pid_alive(pid: int) -> bool:
    try:  # a zombie is gone
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _wait_gone(pid: int, limit_s: float = 60.0) -> bool:
    """Wait for the state the test checks (the process gone); the limit only ends a hang."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if not _pid_alive(pid):
            return True
        time.sleep(0.2)
    return False


# ----------------------------------------------------------------------------- status


def test_status_of_a_listener_that_never_answers_is_not_answering():
    with socket.socket() as s:  # accepts connections (the kernel's backlog), never reads
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        host = f"127.0.0.1:{s.getsockname()[1]}"
        out = _status(host)
    assert out.returncode == 1, out.stdout
    assert f"{emu_mod.ENV_HOST}={host}: NOT answering" in out.stdout
    assert re.search(rf"no Bigtable answer .*{emu_mod.PROBE_TIMEOUT:g} s\b", out.stdout)
    assert "unset BIGTABLE_EMULATOR_HOST" in out.stdout
    assert ": answering" not in out.stdout


def test_status_of_the_real_emulator_is_answering_with_its_tables(emulator):
    n = len(emulator.connection().list_tables())
    out = _status(emulator.host)
    assert out.returncode == 0, out.stdout
    assert f"{emu_mod.ENV_HOST}={emulator.host}: answering" in out.stdout
    # the probe's own count, on the instance the workbench uses
    assert re.search(rf"\b{n} table\(s\) .*workbench/workbench", out.stdout), out.stdout


def test_probe_names_each_state(emulator):
    assert emu_mod.probe(emulator.host).ok
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: nothing answers
        p = emu_mod.probe(f"127.0.0.1:{port}")
    assert p.state == "closed" and not p.ok


# ----------------------------------------------------------------------------- the kernel's emulator

_KERNEL = """
import os, sys, time
os.environ.pop("BIGTABLE_EMULATOR_HOST", None)
import workbench as wb
info = wb.setup()
print(info.emulator.pid if info.emulator_ok else "none: " + str(info.problem), flush=True)
print(info.note or "", flush=True)
time.sleep(600)
"""


def _kernel(tmp_path: Path, state_home: Path) -> tuple[subprocess.Popen, int, str]:
    env = {k: v for k, v in os.environ.items() if k != emu_mod.ENV_HOST}
    env.update(XDG_STATE_HOME=str(state_home), PYTHONPATH=os.getcwd())
    proc = subprocess.Popen(
        [sys.executable, "-c", _KERNEL],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    first = proc.stdout.readline().strip()
    note = proc.stdout.readline().strip()
    assert first.isdigit(), f"{first} {proc.stderr.read() if proc.poll() is not None else ''}"
    return proc, int(first), note


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_an_emulator_setup_started_dies_with_its_kernel(tmp_path, sig):
    proc, emu_pid, _ = _kernel(tmp_path, tmp_path / "state")
    try:
        assert _pid_alive(emu_pid)
        proc.send_signal(sig)  # SIGTERM runs no atexit in Python; SIGKILL runs nothing
        proc.wait(timeout=30)
        assert _wait_gone(emu_pid), f"emulator {emu_pid} outlived its kernel ({sig.name})"
    finally:
        if proc.poll() is None:
            proc.kill()
        if _pid_alive(emu_pid):
            os.killpg(emu_pid, signal.SIGKILL)


def test_a_read_only_state_home_is_said_and_setup_still_works(tmp_path):
    state = tmp_path / "ro-state"
    state.mkdir()
    state.chmod(stat.S_IRUSR | stat.S_IXUSR)  # read-only: no bigtable-workbench/ inside
    if os.access(state, os.W_OK):  # root ignores modes: a file where the directory must be
        state.chmod(0o700)
        state.rmdir()
        state.write_text("not a directory")
    proc, emu_pid, note = _kernel(tmp_path, state)
    try:
        assert f"{state / 'bigtable-workbench'} cannot be written" in note
        assert "emulator's log" in note and "XDG_STATE_HOME" in note
    finally:
        proc.kill()
        proc.wait(timeout=30)
        assert _wait_gone(emu_pid)
        if state.is_dir():
            state.chmod(0o700)


def test_start_background_with_an_unwritable_state_file_stops_what_it_started(
    tmp_path, monkeypatch
):
    state = tmp_path / "f"
    state.write_text("a file where the state directory must be")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.delenv(emu_mod.ENV_HOST, raising=False)
    with pytest.raises(wb.EmulatorError) as err:
        emu_mod.start_background()
    msg = str(err.value)
    assert re.search(rf"Cannot record .*{re.escape(str(emu_mod.state_file()))}", msg), msg
    assert "was stopped" in msg and "XDG_STATE_HOME" in msg


# ----------------------------------------------------------------------------- memory


def test_a_load_too_big_is_refused_on_an_estimate_before_its_cells_are_built(emulator, monkeypatch):
    ds = wb.load_dataset("energy_meters", size="workshop")  # 29,760 readings
    schema = wb.preset("energy_meters", "sequential_id")  # cells kwh (r:k) and voltage (r:v)
    n_cells = 2 * len(ds.frame)  # two measures, none missing: 59,520 cells
    # one cell per event would need 29,760 × (460 + 450) = 27.1 MB: under the 40 MiB cap;
    # the estimated 59,520 × 910 = 54.2 MB is over it
    monkeypatch.setenv(ENV_MEMORY_LIMIT, "40M")
    built: list[int] = []
    real = type(schema).to_cells

    def counting(self, dataset, *a, **k):
        built.append(len(dataset.frame))
        return real(self, dataset, *a, **k)

    monkeypatch.setattr(type(schema), "to_cells", counting)
    with pytest.raises(wb.WriteError) as err:
        emulator.load(ds, schema, table_id="estimated-too-big", progress=False)
    msg = str(err.value)
    # 59,520 × 910 bytes = 54,163,200 B = 51.7 MiB (memory in binary units)
    figures = rf"{n_cells:,} cells \(2\.00 per event .*2,000 events\).*51\.7 MiB"
    assert re.search(figures + r".*40\.0 MiB .*\(WORKBENCH_MEMORY_LIMIT=40M\)", msg), msg
    assert max(built) == 2_000  # only the sample's cells were built, never all 29,760 events'
    assert "estimated-too-big" not in emulator.connection().list_tables()
