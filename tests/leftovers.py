"""Nothing the test suite starts outlives it.

At the start of the session the pytest process puts a marker in its own environment
(``WORKBENCH_TEST_SESSION=<random id>``). Every process the suite starts inherits it (the
helpers build children's environments from ``os.environ``), and keeps it when orphaned: a
JupyterLab whose ``workbench lab`` was killed, a kernel, an emulator, a watchdog. At the end of
the session every live process carrying this session's marker, and every live descendant of
pytest, is stopped (SIGTERM, SIGKILL after 3 s); the caller names them in a warning. Each test
still stops what it starts in its own ``finally``: this is the net under it. (psutil reads another
process's environment where the system allows it; elsewhere only descendants are found.)
"""

from __future__ import annotations

import os
import secrets

import psutil

from workbench import _watchdog

MARKER = "WORKBENCH_TEST_SESSION"


def mark_session() -> str:
    """Give this process (and so everything it starts from now on) the session's marker."""
    os.environ[MARKER] = secrets.token_hex(8)
    return os.environ[MARKER]


def _marked(marker: str) -> list[int]:
    found: list[int] = []
    for proc in psutil.process_iter():
        if proc.pid == os.getpid():
            continue
        try:
            if proc.environ().get(MARKER) == marker:
                found.append(proc.pid)
        except psutil.Error:  # gone already, or another user's
            continue
    return found


def _describe(pid: int) -> str:
    try:
        cmd = " ".join(psutil.Process(pid).cmdline())
    except psutil.Error:
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
