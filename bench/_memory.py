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
