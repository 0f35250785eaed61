"""This process's own peak resident memory.

``getrusage(RUSAGE_SELF).ru_maxrss`` is not it for a child: Linux carries the high-water mark
across ``execve``, and Python's subprocess starts children with vfork, so a child of a 5 GB
pytest process reports 5 GB before it has allocated anything. ``VmHWM`` in
``/proc/self/status`` is the high-water mark of this process's own address space.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any


def peak_rss_mb() -> float:
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # not Linux: kB too


def _pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:  # the process ended between the listing and the read
        pass
    return 0


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (``/proc/<pid>/task/*/children``)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").glob("*/children"):
            try:
                todo += [int(c) for c in task.read_text().split()]
            except OSError:
                pass
    return out


class TreePeak:
    """The peak of this process and its worker processes together, in MB, sampled every
    ``every_s`` in a thread: the sum of each one's proportional set size (PSS: a page shared
    by n processes counts 1/n in each), so a forked worker's pages it shares with this
    process are not counted twice, as summing each one's VmHWM would. Linux only (0 elsewhere).
    A sample can miss a peak shorter than ``every_s``; this process's own VmHWM is exact.
    Each sample walks every process's page tables and holds their memory map's lock while it
    does: every 50 ms made a 100 M-event compare 0.8 s slower (6.2 s to 7.0 s), every 0.5 s
    not measurably."""

    def __init__(self, every_s: float = 0.5) -> None:
        import threading

        self.every_s, self.peak_kb = every_s, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        import os

        while not self._stop.is_set():
            if Path("/proc/self/smaps_rollup").exists():
                kb = sum(_pss_kb(p) for p in _tree(os.getpid()))
                self.peak_kb = max(self.peak_kb, kb)
            self._stop.wait(self.every_s)

    def __enter__(self) -> TreePeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def mb(self) -> float:
        return self.peak_kb / 1024


def run_step(script: str, step: str, path: str, args: list[str]) -> dict[str, Any]:
    """Run ``script --child step --path path *args`` in a fresh process (so its VmHWM is its
    own) and return the JSON its last line prints; stop the bench, showing its stderr, if it
    fails."""
    cmd = [sys.executable, script, "--child", step, "--path", path, *args]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        print(res.stderr[-3000:])
        raise SystemExit(f"{step} failed (exit {res.returncode})")
    out: dict[str, Any] = json.loads(res.stdout.strip().splitlines()[-1])
    return out
