"""Independent jobs run side by side in forked worker processes: ``compare``'s designs on a
large dataset, one design a job.

Why processes: a compare of a shape sample analyses every design on the same ~500,000 events,
0.4–1.3 s each of single-threaded numpy and pandas, so on a 100 M-event file twelve designs
took 2.4× the file's whole DuckDB scan. Two workers on the 2-core machine halve that
(``bench/bench_engine.py``). Why fork: a worker inherits the dataset, the designs and the
DuckDB pass's fetched groups (``file_writes.one_pass``) without pickling them, and starts in
milliseconds where a fresh interpreter would import pandas and the workbench first (~1–2 s).
Fork is Linux's default and the only start method used here; elsewhere, or with one CPU, the
jobs run one after another in this process, with the same results.

A job returns what its caller sends back (``compare`` writes a design's large arrays to files
first, ``spill.saved``). Warnings a job raises are raised again here, in the job's order.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..errors import WorkbenchError
from ..memory import keep_freed_memory

_JOBS: Sequence[Callable[[], Any]] = ()  # set while a pool runs: forked workers inherit it


def workers_for(n_jobs: int, workers: int | None) -> int:
    """How many worker processes ``n_jobs`` get: ``workers`` when given (1: none, in this
    process), else one per CPU this process may use, where fork is available (Linux)."""
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise WorkbenchError(
                f"workers must be a whole number of processes, 1 or more (1: no worker "
                f"processes); got {workers!r}."
            )
        return max(1, min(workers, n_jobs))
    if (
        not sys.platform.startswith("linux")
        or "fork" not in multiprocessing.get_all_start_methods()
    ):
        return 1
    return max(1, min(n_jobs, len(os.sched_getaffinity(0))))


def _run(i: int) -> tuple[Any, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = _JOBS[i]()
    for w in caught:
        w.source = None  # the object a ResourceWarning names: not for another process
    return out, caught


def run_jobs(jobs: Sequence[Callable[[], Any]], workers: int) -> Iterator[Any]:
    """Each job's result, in the jobs' order, as soon as it and those before it are done:
    ``workers`` forked processes, each taking the next job as it finishes one (``workers`` <= 1:
    every job here, in turn). The caller works on a result while the workers go on. A job's
    exception is raised here, as if it had run here."""
    global _JOBS
    if workers <= 1 or len(jobs) <= 1:
        yield from (job() for job in jobs)
        return
    _JOBS = jobs
    try:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(min(workers, len(jobs)), initializer=keep_freed_memory) as pool:
            for result, caught in pool.imap(_run, range(len(jobs)), chunksize=1):
                for w in caught:
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
                yield result
    finally:
        _JOBS = ()


__all__ = ["run_jobs", "workers_for"]
