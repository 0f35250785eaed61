"""Nothing the test suite starts outlives it.

At the start of the session the pytest process puts a marker in its own environment
(``WORKBENCH_TEST_SESSION=<random id>``). Every process the suite starts inherits it (the
helpers build children's environments from ``os.environ``), and keeps it when orphaned: a
JupyterLab whose ``workbench lab`` was killed, a kernel, an emulator, a watchdog. At the end of
the session every live process carrying this session's marker, and every live descendant of
pytest, is stopped (SIGTERM, SIGKILL after 3 s); the caller names them in a warning. Each test
still stops what it starts in its own ``finally``: this is the net under it. (Reading another
process's environment needs Linux's /proc; elsewhere only descendants are found.)
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from workbench import _watchdog

MARKER = "WORKBENCH_TEST_SESSION"


def mark_session() -> str:
    """Give this process (and so everything it starts from now on) the session's marker."""
    os.environ[MARKER] = secrets.token_hex(8)
    return os.environ[MARKER]


def _marked(marker: str) -> list[int]:
    needle = f"{MARKER}={marker}".encode()
    found: list[int] = []
    proc = Path("/proc")
    if not proc.is_dir():
        return found
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone already, or another user's
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def _describe(pid: int) -> str:
    try:
        cmd = (
            Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        )
    except OSError:
        cmd = "?"
    return f"{pid} {cmd.strip()[:160]}"


def stop_leftovers(marker: str) -> list[str]:
    """Stop every live process of this session; returns what was left running."""
    pids = set(_marked(marker)) | set(_watchdog.descendants(os.getpid()))
    alive = sorted(pid for pid in pids if _watchdog.alive(pid))
    described = [_describe(pid) for pid in alive]
    if alive:
        _watchdog.stop_tree(alive, grace=3.0)
    return described
