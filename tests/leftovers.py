"""Nothing the test suite starts outlives it.

At the start of the session the pytest process becomes a *child subreaper* (Linux
``prctl(PR_SET_CHILD_SUBREAPER)``): a process orphaned by a test (a JupyterLab whose parent was
killed, a kernel, an emulator, a watchdog) is re-parented to pytest instead of init, so at the
end of the session every process the suite ever started is still a descendant of pytest. Those
still alive then are stopped (SIGTERM, SIGKILL after 3 s), and the zombies reaped; the caller
reports them. Each test still stops what it starts in its own ``finally``: this is the net.
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

from workbench import _watchdog

PR_SET_CHILD_SUBREAPER = 36


def adopt_orphans() -> bool:
    """Make this process the subreaper of its descendants (Linux only; False elsewhere)."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def _describe(pid: int) -> str:
    try:
        cmd = (
            Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        )
    except OSError:
        cmd = "?"
    return f"{pid} {cmd.strip()[:160]}"


def stop_leftovers() -> list[str]:
    """Stop every live descendant of this process; returns what was left running."""
    alive = [pid for pid in _watchdog.descendants(os.getpid()) if _watchdog.alive(pid)]
    described = [_describe(pid) for pid in alive]
    if alive:
        _watchdog.stop_tree(alive, grace=3.0)
    while True:  # reap the orphans that were re-parented here and have exited
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
    return described
