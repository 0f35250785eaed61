"""Paced writes for ``workbench bulk-load --max-mutations-per-s N``: a limit on the row
mutations (MutateRows entries, one per row a request writes) the whole job sends per second.

Beam's Python Bigtable sink (``WriteToBigTable``) has no rate limit, flow control or app
profile (Beam 2.77; its users meet overload errors, apache/beam#34760), and its one rate
limiter (``apache_beam.io.components.rate_limiter.EnvoyRateLimiter``) needs an Envoy rate-limit
service. What Beam does have is used here: the limiter is a
:class:`~apache_beam.io.components.rate_limiter.RateLimiter` (so its requests, the ones it
held back and ``cumulativeThrottlingSeconds`` — the counter Dataflow's autoscaler reads as
throttling — are Beam's own metrics), and one limiter per worker process is shared by every
thread's DoFn through :class:`apache_beam.utils.shared.Shared`.

Each process gets ``N / writers`` (:func:`writer_processes`: the processes that write at once)
as a token bucket with a burst of 1/20 s of its rate, so any one-second window holds at most
5 % more than the limit; requests are cut to at most that burst (``request_rows``) so the
pace is smooth. Every ``PROGRESS_S`` the limiter prints what it sent and how long it waited.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from typing import Any

from apache_beam.io.components.rate_limiter import RateLimiter
from apache_beam.metrics import Metrics

from ..errors import WorkbenchError
from .sources import NAMESPACE

BURST_S = 0.05  # the bucket holds 1/20 s of the rate: a one-second window holds ≤ 1.05 × it
PROGRESS_S = 5.0  # seconds between two progress lines of a paced writer


def writer_processes(options: Any) -> int:
    """How many processes write at once, each with its own limiter (``N`` is divided by it).

    DirectRunner: ``--direct_num_workers`` processes in ``multi_processing`` mode (0: one per
    core), else one process whose threads share one limiter. Any other runner (Dataflow): the
    largest worker count (``--max_num_workers``, else ``--num_workers``) times the vCPUs of
    ``--worker_machine_type`` — Dataflow runs one Python SDK process per vCPU of a worker —
    both needed, else the limit cannot be divided and the command says so."""
    from apache_beam.options.pipeline_options import (
        DirectOptions,
        StandardOptions,
        WorkerOptions,
    )

    runner = str(options.view_as(StandardOptions).runner or "DirectRunner")
    if "direct" in runner.lower():
        d = options.view_as(DirectOptions)
        if d.direct_running_mode != "multi_processing":
            return 1
        return int(d.direct_num_workers or os.cpu_count() or 1)
    w = options.view_as(WorkerOptions)
    workers = w.max_num_workers or w.num_workers
    m = re.search(r"-(\d+)$", str(w.machine_type or ""))
    if not workers or not m:
        raise WorkbenchError(
            f"--max-mutations-per-s on {runner} is divided among the processes that write: "
            "give --max_num_workers (the most workers the job may use) and "
            "--worker_machine_type (e.g. n2-standard-4: one Python process per vCPU), so that "
            "each gets its share. Nothing was written."
        )
    return int(workers) * int(m.group(1))


def request_rows(per_process: float) -> int:
    """The most rows one request may carry under a limit of ``per_process`` row mutations/s:
    the bucket's burst (a larger request would go out as a burst over the limit)."""
    return max(1, int(per_process * BURST_S))


class TokenBucket(RateLimiter):
    """A token bucket in row mutations per second, shared by the threads of one process.

    ``allow(hits_added=n)`` blocks until ``n`` tokens are there (at most ``rate × BURST_S``
    accumulate while idle). It runs on the writer's request threads, where Beam records no
    metric, so :meth:`report` (called by the DoFn on its own thread after each write) adds
    what happened since the last report to Beam's counters: requests, those held back, and the
    wait as throttling (``cumulativeThrottlingSeconds``, whole seconds, and ``throttled_ms``)."""

    def __init__(self, rate: float, limit: float, writers: int, out: Any = None):
        super().__init__(namespace=NAMESPACE)
        if not rate > 0:
            raise WorkbenchError(f"A rate limit must be above 0 row mutations/s, got {rate!r}.")
        self.rate, self.limit, self.writers = float(rate), float(limit), int(writers)
        self.capacity = max(1.0, self.rate * BURST_S)
        self.tokens = self.capacity
        self.stamp = time.monotonic()
        self.lock = threading.Lock()
        self.sent = 0  # row mutations let through
        self.requests = 0
        self.held = 0  # requests that waited
        self.waited_s = 0.0  # time requests were held back
        self._reported = (0, 0, 0.0)  # (requests, held, waited_s) already in Beam's counters
        self._signalled = 0  # whole throttled seconds already signalled
        self.started: float | None = None
        self.last_line = 0.0
        self.out = out

    def allow(self, hits_added: int = 1, **_: Any) -> bool:
        n = float(hits_added)
        with self.lock:  # one request at a time takes its tokens: the order is the send order
            now = time.monotonic()
            if self.started is None:
                self.started = self.last_line = now
            self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now
            self.tokens -= n  # a request larger than the burst waits for its whole size
            wait = -self.tokens / self.rate if self.tokens < 0 else 0.0
            if wait > 0:
                time.sleep(wait)  # holding the lock: the next request waits behind this one
                self.held += 1
                self.waited_s += wait
            self.requests += 1
            self.sent += int(n)
            self._progress(time.monotonic())
        return True

    def report(self) -> None:
        """Beam's counters for what happened since the last report (call on a DoFn's thread)."""
        with self.lock:
            req, held, waited = self.requests, self.held, self.waited_s
            r0, h0, w0 = self._reported
            self._reported = (req, held, waited)
            whole = int(waited) - self._signalled
            self._signalled += whole
        self.requests_counter.inc(req - r0)
        self.requests_throttled.inc(held - h0)
        self.requests_allowed.inc((req - r0) - (held - h0))
        if whole:
            self.throttling_signaler.signal_throttled(whole)
        Metrics.counter(NAMESPACE, "throttled_ms").inc(int(round((waited - w0) * 1000)))

    def _progress(self, now: float) -> None:
        if now - self.last_line < PROGRESS_S or self.started is None:
            return
        self.last_line = now
        print(self.line(now), file=self.out or sys.stderr, flush=True)

    def line(self, now: float | None = None) -> str:
        """What the limiter did so far, as a progress line."""
        span = (now or time.monotonic()) - (self.started or time.monotonic())
        share = f"{self.limit:,.0f}/s ÷ {self.writers} writing process(es)"
        got = self.sent / span if span > 0 else 0.0
        return (
            f"paced writes: {self.sent:,} row mutations in {span:.1f} s ({got:,.0f}/s; limit "
            f"{self.rate:,.0f}/s here = {share}), held back {self.waited_s:.1f} s"
        )
