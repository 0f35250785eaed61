"""Hand freed memory back to the OS, so a process's peak is what it holds, not what it once held.

glibc keeps freed heap pages, and raises its mmap threshold after big arrays are freed, so the
memory of freed chunks would stay in the heap; pyarrow's allocator keeps freed pages for reuse.
The 10-million-event paths (a Parquet file read, an index built chunk by chunk) call these so
their peak RSS stays under the 2 GB budget (``bench/bench_parquet.py``, ``bench_analysis.py``).
"""

from __future__ import annotations

import sys


def large_arrays_from_mmap() -> None:
    """Make glibc serve (and return) every allocation over 1 MiB with mmap."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD
    except (OSError, AttributeError):  # not glibc
        pass


def release_freed_memory() -> None:
    """Hand freed heap pages back to the OS (glibc's, and pyarrow's pool if it is loaded)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to do
        pass
    pa = sys.modules.get("pyarrow")
    if pa is not None:
        pa.default_memory_pool().release_unused()
