"""This process's own peak resident memory.

``getrusage(RUSAGE_SELF).ru_maxrss`` is not it for a child: Linux carries the high-water mark
across ``execve``, and Python's subprocess starts children with vfork, so a child of a 5 GB
pytest process reports 5 GB before it has allocated anything. ``VmHWM`` in
``/proc/self/status`` is the high-water mark of this process's own address space.
"""

from __future__ import annotations

import resource
from pathlib import Path


def peak_rss_mb() -> float:
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # not Linux: kB too
