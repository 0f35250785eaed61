"""Stops what ``workbench lab`` started if ``workbench lab`` itself dies without stopping it.

Run as a script (``python _watchdog.py``), never imported by the package's import of
``workbench``: it must start in a few milliseconds and import nothing heavy (psutil only, so it
runs with site-packages: ``python _watchdog.py``, not ``python -S``). It reads
lines from its standard input, a pipe whose writing end only ``workbench lab`` holds:

    watch PID    a process (its own process group) to stop if the pipe breaks
    done         ``workbench lab`` stopped everything itself: exit quietly

On end of input without ``done`` (``workbench lab`` was killed with SIGKILL, or crashed),
every watched process and all its descendants (JupyterLab's kernels) get SIGTERM, and
SIGKILL after ``GRACE`` seconds. It runs in its own session, so a signal sent to
``workbench lab``'s process group does not take the watchdog with it.
"""

from __future__ import annotations

import os
import signal
import sys
import time

import psutil  # light (a C extension, ~10 ms): the process table on every system

GRACE = 4.0


def descendants(pid: int) -> list[int]:
    """All processes below ``pid`` (children, grandchildren, ...); none when it is gone."""
    try:
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def alive(pid: int) -> bool:
    """The process exists and is not a zombie (dead, not yet reaped by its parent)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except psutil.Error:  # another user's: it exists
        return True


def _signal_tree(pids: list[int], sig: int) -> None:
    for pid in pids:
        for kill in (os.killpg, os.kill):  # its group (a server's own children) and the process
            try:
                kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass


def stop_tree(roots: list[int], grace: float = GRACE) -> list[int]:
    """SIGTERM ``roots`` and their descendants, SIGKILL whatever is left after ``grace`` s.

    Returns the processes that were still alive when SIGKILL was sent (for the caller's log).
    """
    pids = [p for root in roots for p in [root, *descendants(root)]]
    _signal_tree(pids, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.1)
    left = [p for p in pids if alive(p)]
    _signal_tree(left, signal.SIGKILL)
    return left


def main() -> int:
    # the terminal's Ctrl-C or hang-up is for workbench lab, which stops things in order
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    watched: list[int] = []
    for line in sys.stdin:
        word, _, arg = line.strip().partition(" ")
        if word == "watch" and arg.isdigit():
            watched.append(int(arg))
        elif word == "done":
            return 0
    stop_tree(watched)
    return 0


if __name__ == "__main__":
    sys.exit(main())
