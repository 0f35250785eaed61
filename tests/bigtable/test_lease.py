"""Loads that cannot interleave (issue 45, items 2 and 3), on the real emulator: a load holds
each table's lease, taken with CheckAndMutateRow on the record row (``bigtable/lease.py``).

A pause stands for a slow machine between what a load reads and what it writes (the writer is
wrapped: it sleeps, then writes). Without the lease, two appends into one hour both read the
hour before either writes and the hour keeps one load's count; two designs into an existing
empty table both pass the check and both write. With it, one load waits for the other (or is
refused, naming it) and the data is exact, round after round. ``cbt`` is the independent
reader of the summary rows and of the row counts."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest
from waits import HANG_S

import workbench as wb
from bigtable.test_appends import _cbt, _lookup
from workbench.bigtable import admin, lease, ownership
from workbench.bigtable import io as io_mod
from workbench.bigtable.io import load
from workbench.bigtable.reader import read_table

PAUSE_S = 0.5  # between a load's reads and its first write: a slow machine
ROUNDS = 10


def meters(minutes: np.ndarray, *, start: str = "2024-01-01 04:00") -> wb.Dataset:
    """One meter; an event at each of ``minutes`` past ``start``, kwh = 60 + the minute (the
    minutes of the hour before: kwh = the minute), so every hour's sum is hand-derived."""
    t0 = pd.Timestamp(start, tz="UTC")
    frame = pd.DataFrame(
        {
            "meter": "m1",
            "time": t0 + pd.to_timedelta(minutes, unit="min"),
            "kwh": (minutes + (60 if t0.hour == 4 else 0)).astype(float),
        }
    )
    return wb.from_dataframe(frame, entity=["meter"], time="time", measures=["kwh"], name="meters")


@pytest.fixture
def table_id(conn: Any) -> Iterator[str]:
    tid = f"lease-{uuid.uuid4().hex[:8]}"
    yield tid
    admin.drop_table(conn, tid)


@pytest.fixture
def paused(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, float, float]]:
    """Every load's write waits PAUSE_S after its reads; returns (thread, start, end) of each
    write (``time.monotonic``): two loads interleave when two of these overlap."""
    spans: list[tuple[str, float, float]] = []
    real = io_mod.write_cells

    def slow_write(*args: Any, **kwargs: Any) -> Any:
        time.sleep(PAUSE_S)
        t0 = time.monotonic()
        try:
            return real(*args, **kwargs)
        finally:
            spans.append((threading.current_thread().name, t0, time.monotonic()))

    monkeypatch.setattr(io_mod, "write_cells", slow_write)
    return spans


def race(*jobs: Callable[[], Any]) -> list[Any]:
    """Run the jobs in threads released at one instant; each one's result or exception."""
    barrier = threading.Barrier(len(jobs))
    out: list[Any] = [None] * len(jobs)

    def run(i: int, job: Callable[[], Any]) -> None:
        barrier.wait()
        try:
            out[i] = job()
        except Exception as exc:  # the loser's refusal is a result here
            out[i] = exc

    threads = [
        threading.Thread(target=run, args=(i, j), name=f"loader-{i}") for i, j in enumerate(jobs)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(HANG_S)
    return out


def overlapping(spans: list[tuple[str, float, float]]) -> bool:
    spans = sorted(spans, key=lambda s: s[1])
    return any(b[1] < a[2] for a, b in zip(spans, spans[1:], strict=False))


def records(conn: Any, table: str) -> list[str]:
    """The table's design records (not the lease family)."""
    fams = admin.get_families(conn, table) or {}
    return sorted(f for f in fams if f.startswith("_wb.") and f != lease.LEASE_FAMILY)


@pytest.mark.slow  # ten rounds of two loads, each paused
def test_two_appends_into_one_hour_never_lose_a_count(emulator, conn, paused):
    """Pre-aggregated hourly rows (G29). Hour 03 loaded first; then two appends at once, the even and the odd minutes of hour 04
    (30 events each), ten rounds. Each round the hour holds all 60 events: count 60, sum
    Σ(60 + m, m = 0..59) = 3,600 + 1,770 = 5,370, min 60, max 119; hour 03 keeps count 60, sum
    Σ m = 1,770; the two writes never overlap, and one of the loads says it waited."""
    design = wb.preset(meters(np.arange(2)), "pre_aggregated")
    even, odd = meters(np.arange(0, 60, 2)), meters(np.arange(1, 60, 2))
    for round_ in range(ROUNDS):
        tid = f"lease-app-{round_}-{uuid.uuid4().hex[:6]}"
        try:
            load(conn, meters(np.arange(60), start="2024-01-01 03:00"), design, table_id=tid)
            paused.clear()
            got = race(
                *(
                    lambda part=part, tid=tid: load(
                        conn, part, design, table_id=tid, append=True, progress=False
                    )
                    for part in (even, odd)
                )
            )
            assert all(isinstance(g, io_mod.TableHandle) for g in got), (round_, got)
            hour = _lookup(emulator, tid, "agg#hourly#m1#2024010104")
            assert hour["kwh_count"] == "60", (round_, hour)
            assert float(hour["kwh_sum"]) == 3600 + 1770
            assert (float(hour["kwh_min"]), float(hour["kwh_max"])) == (60.0, 119.0)
            before = _lookup(emulator, tid, "agg#hourly#m1#2024010103")
            assert (before["kwh_count"], float(before["kwh_sum"])) == ("60", 1770.0)
            # 120 event rows and 2 summary rows; no lease row left behind
            assert _cbt(emulator, "count", tid).strip() == "122"
            assert all(g.verification.equal for g in got)
            assert not overlapping(paused), (round_, paused)
            waited = [g for g in got if any("Waited" in n and tid in n for n in g.notes)]
            assert len(waited) == 1, (round_, [g.notes for g in got])
        finally:
            admin.drop_table(conn, tid)


@pytest.mark.slow  # ten rounds of two loads, each paused
def test_two_designs_racing_into_an_existing_empty_table_one_wins(emulator, conn, paused):
    """A table made outside a load with the designs' families (as the export's printed
    ``cbt createtable`` lines make it), and serialized_json and serialized_protobuf (one key,
    one family, two value encodings) loading into it at once, ten rounds: exactly one writes;
    the other is refused before writing (after waiting for the lease, or at once when the
    winner's record is there already), naming the winner's design; the table holds one design record (the winner's) and the winner's 30 rows."""
    ds = meters(np.arange(0, 60, 2))  # 30 events: 30 rows in both designs
    designs = {n: wb.preset(ds, n) for n in ("serialized_json", "serialized_protobuf")}
    for round_ in range(ROUNDS):
        tid = f"lease-race-{round_}-{uuid.uuid4().hex[:6]}"
        admin.ensure_tables(conn, designs["serialized_json"].bind(ds), tid)
        try:
            paused.clear()
            got = dict(
                zip(
                    designs,
                    race(
                        *(
                            lambda d=d, tid=tid: load(conn, ds, d, table_id=tid, progress=False)
                            for d in designs.values()
                        )
                    ),
                    strict=True,
                )
            )
            won = [n for n, g in got.items() if isinstance(g, io_mod.TableHandle)]
            lost = [n for n, g in got.items() if isinstance(g, wb.WriteError)]
            assert len(won) == 1 and len(lost) == 1, (round_, got)
            winner, loser = won[0], lost[0]
            msg = str(got[loser])
            assert re.search(rf"design {winner!r} .*'meters'", msg), msg
            # the loser may be the one that gave the table its (shared) lease family: said so
            assert "Nothing was written, created or changed" in msg or (
                "Nothing was written or created; the one change is the empty lease family "
                f"'_wb.lease' this load added to table(s) ['{tid}']" in msg
            ), msg
            assert got[winner].verification.equal
            assert len(paused) == 1  # the loser never reached its write
            assert records(conn, tid) == [
                ownership.record_family(designs[winner].bind(ds), "meters")
            ]
            assert _cbt(emulator, "count", tid).strip() == "30"
            value = _cbt(emulator, "lookup", tid, "m1#20240101040000")
            assert ("kwh" in value) == (winner == "serialized_json"), value  # JSON names fields
        finally:
            admin.drop_table(conn, tid)


def test_a_load_into_a_table_another_load_writes_is_refused_naming_it(conn, table_id):
    """A lease held (as a running load holds it) and a load with lease_wait_s=0: refused at
    once, before any write, naming the holder's design, dataset, process, host and start; the
    table is left as it was (no row, no record added) and loads once the lease is released."""
    ds = meters(np.arange(0, 60, 2))
    design = wb.preset(ds, "entity_first")
    admin.ensure_tables(conn, design.bind(ds), table_id)
    before = admin.get_families(conn, table_id)
    tables = conn.list_tables()
    with lease.hold(conn, [table_id], design="theirs", dataset="other_data") as held:
        with pytest.raises(wb.WriteError) as err:
            load(conn, ds, design, table_id=table_id, progress=False, lease_wait_s=0)
        holder = lease.read_holder(conn, table_id)
        assert holder is not None and holder.token == held.token
    msg = str(err.value)
    assert re.search(r"being written .*design 'theirs' .*dataset 'other_data'", msg), msg
    assert f"by process {os.getpid()} on host" in msg and f"started at {holder.started}" in msg
    assert "lease_wait_s=0" in msg and "Nothing was written" in msg
    assert set(admin.get_families(conn, table_id) or {}) == {*before, lease.LEASE_FAMILY}
    assert len(read_table(conn, table_id)) == 0 and conn.list_tables() == tables
    assert lease.read_holder(conn, table_id) is None  # released with the with-block
    table = load(conn, ds, design, table_id=table_id, progress=False, lease_wait_s=0)
    assert table.verification.equal


def test_the_lease_row_is_taken_once_and_never_read_as_data(conn, table_id):
    """Two writers asking at once: the second finds the first's lease (CheckAndMutateRow's
    predicate yields a cell). While held, the record row is in the table but no workbench read
    returns it; released, it is gone."""
    ds = meters(np.arange(0, 60, 2))
    table = load(conn, ds, wb.preset(ds, "entity_first"), table_id=table_id, progress=False)
    with lease.hold(conn, [table_id], design="a", dataset="b", wait_s=0) as first:
        with pytest.raises(wb.WriteError, match="being written .*design 'a'"):
            with lease.hold(conn, [table_id], design="c", dataset="d", wait_s=0):
                pass  # never reached
        assert lease.read_holder(conn, table_id).token == first.token  # type: ignore[union-attr]
        assert len(table.read_all()) == len(table.cells)  # 30 rows × 1 cell: no lease cell
    assert lease.read_holder(conn, table_id) is None


STALE_HOLDER = """
import sys, time
from workbench.bigtable import lease
from workbench.bigtable.connection import Connection
lease.LEASE_TTL_S = float(sys.argv[3])
conn = Connection.emulator(sys.argv[1])
with lease.hold(conn, [sys.argv[2]], design="killed_design", dataset="meters"):
    print("HELD", flush=True)
    time.sleep(600)
"""


def test_a_killed_writers_lease_is_taken_over_after_its_expiry(
    emulator, conn, table_id, monkeypatch
):
    """A writer holding the lease is SIGKILLed (a 2 s expiry, for the test). The next load
    waits for the expiry, takes the lease over, says so naming the killed process, loads
    exactly, and leaves no lease row."""
    monkeypatch.setattr(lease, "LEASE_TTL_S", 2.0)
    ds = meters(np.arange(0, 60, 2))
    design = wb.preset(ds, "entity_first")
    load(conn, ds, design, table_id=table_id, progress=False)
    proc = subprocess.Popen(
        [sys.executable, "-c", STALE_HOLDER, emulator.host, table_id, "2.0"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "HELD"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(HANG_S)
        held = lease.read_holder(conn, table_id)
        assert held is not None and held.pid == proc.pid
        table = load(conn, ds, design, table_id=table_id, progress=False)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(HANG_S)
    took = [n for n in table.notes if n.startswith("Took over the lease")]
    assert len(took) == 1, table.notes
    assert re.search(rf"'killed_design' .*'meters' .*process {proc.pid}\b", took[0]), took
    assert "2 s expiry" in took[0]
    assert table.verification.equal
    assert lease.read_holder(conn, table_id) is None
    assert _cbt(emulator, "count", table_id).strip() == "30"


def test_a_writer_whose_lease_was_taken_over_stops_before_its_next_request(
    conn, table_id, monkeypatch
):
    """A writer stopped past the expiry (its renewals stopped, as under SIGSTOP) has its lease
    taken over; its next renewal fails naming the new holder (the renewal thread keeps that
    error for the write guard, ``Lease.check``, to raise before the next request)."""
    monkeypatch.setattr(lease, "LEASE_TTL_S", 1.0)
    ds = meters(np.arange(0, 60, 2))
    load(conn, ds, wb.preset(ds, "entity_first"), table_id=table_id, progress=False)
    said: list[str] = []
    with lease.hold(conn, [table_id], design="slow", dataset="meters") as stopped:
        stopped._stop.set()  # its renewals stop
        assert stopped._thread is not None
        stopped._thread.join(HANG_S)
        with lease.hold(
            conn, [table_id], design="next", dataset="meters", wait_s=HANG_S, say=said.append
        ) as second:
            assert any("Took over" in n for n in second.notes), second.notes
            with pytest.raises(wb.WriteError, match="lost the lease .* design 'next'"):
                stopped.renew()
            assert lease.read_holder(conn, table_id).token == second.token  # type: ignore[union-attr]
    assert said and "waits" in said[0] and "lease" in said[0]
    assert lease.read_holder(conn, table_id) is None  # the second released; the first had none
