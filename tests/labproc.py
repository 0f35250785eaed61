"""Start ``workbench lab`` as a person would, and make sure nothing it started outlives the test.

    with running_lab(tmp_path) as lab:          # waits for "JupyterLab is ready"
        lab.url, lab.token, lab.emulator_host, lab.port
        lab.tree()                              # pids of the lab and everything below it now
    # leaving the block: whatever is still alive of every tree seen is SIGTERMed, then SIGKILLed

The lab runs in its own session (a terminal's foreground job); its token is passed through
the environment (``WORKBENCH_LAB_TOKEN``), as ``make lab`` users are told to.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from workbench import _watchdog
from workbench.bigtable import emulator as emu_mod

REPO = Path(__file__).resolve().parent.parent


@dataclass
class LabProcess:
    proc: subprocess.Popen
    token: str
    port: int
    runtime: Path
    lines: list[str] = field(default_factory=list)
    emulator_host: str = ""
    url: str = ""
    seen: set[int] = field(default_factory=set)
    _checked: int = 0

    def tree(self) -> list[int]:
        """The lab and all its descendants now (remembered, so the test's cleanup finds them)."""
        pids = [self.proc.pid, *_watchdog.descendants(self.proc.pid)]
        self.seen.update(pids)
        return pids

    def read_until(self, pattern: str, timeout: float = 300.0) -> re.Match[str]:
        """Wait until a line of the lab's output matches ``pattern`` (fails on exit or timeout)."""
        deadline = time.monotonic() + timeout
        while True:
            while self._checked < len(self.lines):
                m = re.search(pattern, self.lines[self._checked])
                self._checked += 1
                if m:
                    return m
            if time.monotonic() > deadline or (
                self.proc.poll() is not None and not self._reader.is_alive()
            ):
                raise AssertionError(f"workbench lab never printed {pattern!r}:\n" + self.output())
            time.sleep(0.05)

    def output(self) -> str:
        """Everything printed so far (all of it once the lab has exited)."""
        if self.proc.poll() is not None:
            self._reader.join(timeout=5)
        return "".join(self.lines)

    def __post_init__(self) -> None:
        def _read() -> None:  # a thread: the pipe never fills, and reads never block the test
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.append(line)

        self._reader = threading.Thread(target=_read, daemon=True)
        self._reader.start()


def lab_env(tmp_path: Path, token: str) -> dict[str, str]:
    """A private Jupyter config/data/runtime and state dir; no emulator named (lab starts one)."""
    env = {
        k: v for k, v in os.environ.items() if k not in (emu_mod.ENV_HOST, "JUPYTER_CONFIG_PATH")
    }
    env.update(
        XDG_STATE_HOME=str(tmp_path / "state"),
        JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
        JUPYTER_CONFIG_DIR=str(tmp_path / "config"),  # a new user: JupyterLab's defaults
        JUPYTER_DATA_DIR=str(tmp_path / "data"),
        PYTHONUNBUFFERED="1",
        WORKBENCH_LAB_TOKEN=token,
    )
    return env


def _ignore_sigint() -> None:
    # what a background job of a non-interactive shell inherits (SigIgn bit of SIGINT set)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _make_lab_command(tmp_path: Path) -> list[str]:
    """``make lab`` on this repository, with this test's Python as the installed environment.

    VENV names a directory whose ``bin/python`` is the interpreter running the tests and whose
    install stamp is fresh, so make goes straight to ``workbench lab`` (no install: the suite
    must not re-install the environment it runs in).
    """
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"  # a script: a symlink would lose the real venv's packages
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    (venv / ".installed-bigtable-workbench").touch()
    make = shutil.which("make")
    assert make, "GNU make is a requirement of the README"
    return [make, "--no-print-directory", "lab", f"VENV={venv}"]


def start_lab(
    tmp_path: Path, port: int, *, sigint_ignored: bool = False, via_make: bool = False
) -> LabProcess:
    """``workbench lab --no-browser --port PORT``, or ``make lab`` (port 8888, else a free one)."""
    token = "wb-lab-" + os.urandom(6).hex()
    tmp_path.mkdir(parents=True, exist_ok=True)
    if via_make:
        command = _make_lab_command(tmp_path)
    else:
        command = [sys.executable, "-m", "workbench", "lab", "--no-browser", "--port", str(port)]
    env = lab_env(tmp_path, token)
    env.pop("DISPLAY", None)  # headless: make lab must not try to open a browser here
    env.pop("WAYLAND_DISPLAY", None)
    proc = subprocess.Popen(
        command,
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        preexec_fn=_ignore_sigint if sigint_ignored else None,
    )
    return LabProcess(proc=proc, token=token, port=port, runtime=tmp_path / "runtime")


def wait_ready(lab: LabProcess) -> None:
    lab.emulator_host = lab.read_until(r"Bigtable emulator: (127\.0\.0\.1:\d+)").group(1)
    m = lab.read_until(r"JupyterLab is ready: (http://127\.0\.0\.1:(\d+)/\S+)")
    lab.url, lab.port = m.group(1), int(m.group(2))
    lab.tree()


def kill_leftovers(lab: LabProcess) -> list[int]:
    """The last resort: stop every process of the lab's tree that is still alive; returns them."""
    if lab.proc.poll() is None:
        lab.tree()  # processes started since the last look
    left = [pid for pid in lab.seen if _watchdog.alive(pid)]
    if left:
        _watchdog.stop_tree(left, grace=3.0)
    if lab.proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(lab.proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        lab.proc.wait(timeout=10)
    if lab.emulator_host and emu_mod.port_is_open(lab.emulator_host):
        left.append(-1)  # an emulator nobody could name by pid: the assertion will say so
    return left


@contextlib.contextmanager
def running_lab(tmp_path: Path, port: int | None = None, **kwargs) -> Iterator[LabProcess]:
    lab = start_lab(tmp_path, port or emu_mod.free_port(), **kwargs)
    try:
        wait_ready(lab)
        yield lab
    finally:
        kill_leftovers(lab)
