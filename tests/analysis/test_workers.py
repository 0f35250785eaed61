"""compare's designs analysed in forked worker processes (``analysis/workers.py``): a worker's
result comes back in the jobs' order, with its warnings and its exceptions, and a design it
cannot build is a row with its reason. Their figures and arrays equal to one process's:
``tests/analysis/test_spill.py``."""

from __future__ import annotations

import os
import warnings

import pandas as pd
import pytest

import workbench as wb
from workbench.analysis import comparison
from workbench.analysis.workers import run_jobs, workers_for
from workbench.errors import WorkbenchError


@pytest.fixture(scope="module")
def small():
    return wb.load_dataset("energy_meters", size=4_000)


def test_a_design_a_worker_cannot_build_is_a_row_with_its_reason(small, monkeypatch):
    monkeypatch.setattr(comparison, "SPILL_EVENTS", 0)
    good = wb.preset(small, "timestamp_first")
    # a key without the time: a meter's readings collide in one cell (G31), the same
    # WorkbenchError whichever process raises it
    bad = wb.Schema("no_time", wb.RowKey((wb.Field("meter_id"),)))
    here = wb.compare(small, [good, bad], workers=1)
    there = wb.compare(small, [good, bad], workers=2)
    assert there.not_built == here.not_built and "no_time" in there.not_built
    pd.testing.assert_frame_equal(there.table, here.table)


def _pid() -> int:
    return os.getpid()


def _warns(i: int) -> int:
    warnings.warn(f"job {i} warns", UserWarning, stacklevel=1)
    return i * i


def _fails() -> None:
    raise WorkbenchError("this design cannot be analysed")


def test_jobs_run_in_other_processes_and_come_back_in_order():
    jobs = [_pid] * 6
    pids = list(run_jobs(jobs, 2))
    assert len(pids) == 6 and os.getpid() not in pids
    assert list(run_jobs(jobs, 1)) == [os.getpid()] * 6  # one worker: here


def test_a_workers_warnings_and_exceptions_reach_the_caller():
    from functools import partial

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = list(run_jobs([partial(_warns, i) for i in range(4)], 2))
    assert out == [0, 1, 4, 9]
    assert [str(w.message) for w in caught] == [f"job {i} warns" for i in range(4)]
    with pytest.raises(WorkbenchError, match="cannot be analysed"):
        list(run_jobs([_pid, _fails, _pid], 2))


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_workers_must_be_a_whole_number_from_one(bad):
    with pytest.raises(WorkbenchError, match="workers must be a whole number"):
        workers_for(4, bad)


def test_workers_are_capped_by_the_jobs_and_the_cpus():
    assert workers_for(3, 8) == 3
    assert workers_for(5, 1) == 1
    assert 1 <= workers_for(12, None) <= len(os.sched_getaffinity(0))
    assert workers_for(1, None) == 1


def test_a_dataset_past_worker_events_is_analysed_here(small, monkeypatch):
    asked = []

    def recorded(jobs, n):
        asked.append(n)
        return run_jobs(jobs, n)

    monkeypatch.setattr(comparison, "SPILL_EVENTS", 0)
    monkeypatch.setattr(comparison, "run_jobs", recorded)
    designs = [wb.preset(small, p) for p in ("reversed_id_hourly", "timestamp_first")]
    wb.compare(small, designs, workers=2)
    monkeypatch.setattr(comparison, "WORKER_EVENTS", len(small) - 1)  # two at once would not fit
    wb.compare(small, designs, workers=2)
    assert asked == [2, 1]


def _keeps_freed() -> bool:
    from workbench import memory

    return memory._KEEP_FREED


def test_workers_keep_freed_memory_and_this_process_gives_it_back():
    # a worker ends when the comparison does: page faults of returned memory cost it 40 %
    assert list(run_jobs([_keeps_freed] * 2, 2)) == [True, True]
    assert _keeps_freed() is False
