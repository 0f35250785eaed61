"""Hand freed memory back to the OS, so a process's peak is what it holds, not what it once held.

glibc keeps freed heap pages, and raises its mmap threshold after big arrays are freed, so the
memory of freed chunks would stay in the heap; pyarrow's allocator keeps freed pages for reuse.
The 10-million-event paths (a Parquet file read, an index built chunk by chunk) call these so
their peak RSS stays under the 2 GB budget (``bench/bench_parquet.py``, ``bench_analysis.py``).
"""

from __future__ import annotations

import sys

_KEEP_FREED = False  # set in a short-lived worker process (``keep_freed_memory``)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)


def _glibc(name: str, *args: int) -> None:
    """Call glibc's allocator function ``name``; nothing where the C library is not glibc."""
    try:
        import ctypes

        getattr(ctypes.CDLL("libc.so.6"), name)(*args)
    except (OSError, AttributeError):
        pass


def keep_freed_memory() -> None:
    """For the rest of this process, keep freed memory for reuse instead of handing it back:
    glibc serves allocations up to 256 MiB from its heap and trims nothing, and the two
    functions below do nothing. For a worker process that analyses one design after another
    and then ends (``analysis/workers.py``): every large array taken from a fresh mmap and
    given back had cost a page fault per 4 KiB touched, 40 % of an analysis's time (2.2 M
    faults, 3.1 s of the 7.7 s twelve designs took on a 516,000-event sample)."""
    global _KEEP_FREED
    _KEEP_FREED = True
    _glibc("mallopt", M_MMAP_THRESHOLD, 256 << 20)
    # never trim the heap's top (a C int: a larger Python int is cut to its low 32 bits, 0)
    _glibc("mallopt", M_TRIM_THRESHOLD, (1 << 31) - 1)


def large_arrays_from_mmap() -> None:
    """Make glibc serve (and return) every allocation over 1 MiB with mmap."""
    if not _KEEP_FREED:
        _glibc("mallopt", M_MMAP_THRESHOLD, 1 << 20)


def release_freed_memory() -> None:
    """Hand freed heap pages back to the OS (glibc's, and pyarrow's pool if it is loaded)."""
    if _KEEP_FREED:
        return
    _glibc("malloc_trim", 0)
    pa = sys.modules.get("pyarrow")
    if pa is not None:
        pa.default_memory_pool().release_unused()


ENV_MEMORY_LIMIT = "WORKBENCH_MEMORY_LIMIT"
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def _cgroup_headroom() -> int | None:
    """Bytes this container may still take under its cgroup (v2) limit; None: no limit."""
    try:
        limit = open("/sys/fs/cgroup/memory.max").read().strip()
        used = int(open("/sys/fs/cgroup/memory.current").read().strip())
    except (OSError, ValueError):
        return None
    return None if limit == "max" else max(0, int(limit) - used)


def parse_bytes(text: str) -> int:
    """``"1.5G"``, ``"800M"``, ``"123456"`` → bytes (binary units)."""
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = t[-1:] if t[-1:] in _UNITS else ""
    try:
        return int(float(t[: len(t) - len(unit)]) * _UNITS[unit])
    except ValueError:
        raise ValueError(
            f"{ENV_MEMORY_LIMIT}={text!r} is not a size: write bytes or a number with K, M or G "
            "(e.g. 8G)."
        ) from None


def available_memory() -> tuple[int | None, str]:
    """Bytes the machine can still give (psutil's available memory — MemAvailable on Linux —,
    the cgroup's headroom and the ``WORKBENCH_MEMORY_LIMIT`` cap an instructor may set,
    whichever is least) and where that figure comes from. (The type keeps ``None`` for
    callers that pass a figure of their own: ``checks.check_memory(available=)``.)"""
    import os

    import psutil

    # psutil's `available` is MemAvailable on Linux, the OS's own estimate elsewhere
    found: list[tuple[int, str]] = [(psutil.virtual_memory().available, "available memory")]
    cg = _cgroup_headroom()
    if cg is not None:
        found.append((cg, "the container's cgroup memory limit"))
    cap = os.environ.get(ENV_MEMORY_LIMIT)
    if cap:
        found.append((parse_bytes(cap), f"{ENV_MEMORY_LIMIT}={cap}"))
    return min(found)
