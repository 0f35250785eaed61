"""``workbench bulk-load`` prepares the table and paces its writes (issue 46; G06, G07).

What reaches the emulator is recorded by a gRPC interceptor on the real channels the command
opens (the official admin client's CreateTable, the writer's MutateRows): nothing of Bigtable
is mocked, every request is answered by the emulator.

* **Split points.** The emulator cannot show a table's tablets: the admin API has no view of
  splits (``GetTable`` returns families, never split keys; on a real instance the tablets are
  read back with the data API's ``SampleRowKeys``), and the emulator's ``SampleRowKeys``
  returns random keys (BIGTABLE_FACTS.md), its ``CreateTable`` ignores ``initial_splits``
  (measured: ``test_the_emulator_keeps_no_split_points_to_read_back``). So
  the test reads the ``CreateTableRequest`` the command sent through the official client's
  admin call path and holds its ``initial_splits`` to the load model's split points.
* **Pacing.** Row mutations (MutateRows entries) counted per second at the channel, from the
  requests' send times, stay within 10 % of ``--max-mutations-per-s``; every request names
  the ``--app-profile``.
"""

from __future__ import annotations

import os
import re
import subprocess
import time

import grpc
import numpy as np
import pandas as pd
import pytest

import workbench as wb
from workbench.analysis._index import CellIndex
from workbench.analysis.keyspace import key_distribution
from workbench.beam import pacing
from workbench.beam.bulk_load import BulkReport
from workbench.beam.pacing import TokenBucket, writer_processes
from workbench.beam.splits import create_lines, split_lines
from workbench.bigtable import admin
from workbench.bigtable.emulator import ENV_HOST
from workbench.bigtable.reader import read_table
from workbench.cells import CellFrame
from workbench.cli import main
from workbench.errors import WorkbenchError
from workbench.schema import Family, max_age, max_versions, union

SENSORS, PER_SENSOR = 20, 500  # 10,000 events → 10,000 rows of entity_first
LIMIT = 2_000  # row mutations per second: the 10,000 rows take about 5 s


class Recorder(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    """Every request sent on a channel, with its method and send time (monotonic)."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, str, object]] = []

    def _record(self, continuation, details, request):
        self.calls.append((time.monotonic(), details.method, request))
        return continuation(details, request)

    intercept_unary_unary = _record
    intercept_unary_stream = _record

    def requests(self, method: str) -> list[tuple[float, object]]:
        return [(t, r) for t, m, r in self.calls if m.endswith("/" + method)]


@pytest.fixture
def recorder(monkeypatch) -> Recorder:
    rec = Recorder()
    real = grpc.insecure_channel
    monkeypatch.setattr(
        grpc, "insecure_channel", lambda *a, **k: grpc.intercept_channel(real(*a, **k), rec)
    )
    return rec


@pytest.fixture(scope="module")
def csv_path(tmp_path_factory) -> str:
    t = pd.date_range("2015-06-01", periods=PER_SENSOR, freq="1min", tz="UTC")
    n = SENSORS * PER_SENSOR
    frame = pd.DataFrame(
        {
            "sensor": np.repeat([f"s{i:02d}" for i in range(SENSORS)], PER_SENSOR),
            "time": np.tile(t, SENSORS).astype(str),
            "temp": (np.arange(n) % 97) * 0.5,
        }
    )
    path = tmp_path_factory.mktemp("presplit") / "meters.csv"
    frame.sort_values(["time", "sensor"]).to_csv(path, index=False)
    return str(path)


@pytest.mark.slow
def test_a_bulk_load_is_pre_split_paced_and_names_its_app_profile(
    conn, csv_path, recorder, monkeypatch, capsys
):
    monkeypatch.setenv(ENV_HOST, conn.host)
    monkeypatch.setattr(pacing, "PROGRESS_S", 1.0)  # a progress line a second (default 5 s)
    table_id = admin.unique_table_id("split")
    args = ["bulk-load", csv_path, "--entity=sensor", "--time=time", "--measures=temp"]
    args += ["--design=entity_first", f"--project={conn.project}", f"--instance={conn.instance}"]
    args += [f"--table={table_id}", "--batch-events=10000", "--events-per-s=1000"]
    args += ["--app-profile=bulk-writer", f"--max-mutations-per-s={LIMIT}"]
    try:
        assert main(args) == 0
        out = capsys.readouterr()
        rows = read_table(conn, table_id)
        assert rows.frame["row_key"].nunique() == SENSORS * PER_SENSOR  # every event, one row
    finally:
        admin.drop_table(conn, table_id)

    # -- split points: what the CreateTable request carried, against the load model -----------
    created = [r for _, r in recorder.requests("CreateTable") if r.table_id == table_id]
    assert len(created) == 1
    sent = [s.key.decode() for s in created[0].initial_splits]
    ds = wb.from_csv(csv_path, entity="sensor", time="time", measures="temp", progress=False)
    model = wb.analyze(
        ds, wb.preset(ds, "entity_first"), workload=wb.Workload(events_per_s=1000)
    ).keyspace
    assert sent == model.split_keys()["main"]  # one figure: the analysis's, sent as it is
    # by hand: each sensor appends at its own end of the key space (a write frontier, G07),
    # which no split cuts, so every split is a sensor's first row (its first minute)
    assert 1 <= len(sent) < SENSORS and sent == sorted(sent)
    assert all(k.endswith("#20150601000000") for k in sent), sent
    assert f"{len(sent)} split point(s) → {len(sent) + 1} tablets" in out.out
    assert f"splits={','.join(sent)}" in out.out and f"--splits={','.join(sent)}" in out.out

    # -- paced writes: row mutations per second at the channel ------------------------------
    writes = recorder.requests("MutateRows")
    assert writes and all(r.app_profile_id == "bulk-writer" for _, r in writes)
    t = np.array([w[0] for w in writes])
    n = np.array([len(w[1].entries) for w in writes])
    assert n.sum() == SENSORS * PER_SENSOR  # 10,000 row mutations, each sent once
    assert n.max() <= LIMIT // 20  # requests no larger than 1/20 s of the limit
    full = int((t[-1] - t[0]) // 1)  # whole seconds from the first request
    per_second = np.bincount(((t - t[0]) // 1).astype(int), weights=n)[:full]
    assert full >= 3, per_second
    assert np.all(np.abs(per_second - LIMIT) <= 0.10 * LIMIT), per_second
    assert "Paced: at most 2,000 row mutations/s in all, 2,000/s in each of 1" in out.out
    assert "held back by the rate limit" in out.out  # the report's line
    # progress while it runs: each line's rate within 10 % of the limit
    progress = re.findall(r"paced writes: ([\d,]+) row mutations in [\d.]+ s \(([\d,]+)/s", out.err)
    assert len(progress) >= 3, out.err
    assert all(abs(int(r.replace(",", "")) - LIMIT) <= 0.10 * LIMIT for _, r in progress)


def test_the_emulator_keeps_no_split_points_to_read_back(conn):
    # Why the test above holds the CreateTable request, not the table: a table created with
    # initial_splits (admin.ensure_table, the call a bulk load's prepare_tables ends in) is read
    # back through SampleRowKeys, the data API's view of a table's tablets (Google's "Retrieve
    # sample keys" sample; the admin API's Table has no field for splits, in any GetTable
    # view). The emulator answers an empty table with the end-of-table key alone: no split
    # point. If this fails, the emulator keeps tablets now: read the bulk-loaded table's splits
    # back in the test above instead of its request.
    table_id = admin.unique_table_id("nosplit")
    splits = ["d", "m", "t"]  # 3 split points: 4 tablets on Cloud Bigtable
    try:
        spec = admin.ensure_table(conn, table_id, [Family("f")], initial_splits=splits)
        assert spec.created
        got = conn.data.sample_row_keys(table_name=conn.table_path(table_id))
        assert [(r.row_key, r.offset_bytes) for r in got] == [(b"", 0)]
    finally:
        admin.drop_table(conn, table_id)


def test_split_keys_are_the_tablets_first_keys_past_each_tables_first():
    # two tables, 10 and 5 rows; the model's final tablets start at rows 0, 3, 7 (main) and
    # 10 (the second table's first row: no split), 12 → splits main: rows 3, 7; second: row 12
    keys = [f"m{i}" for i in range(10)] + [f"x{i}" for i in range(5)]
    cells = CellFrame.from_columns(
        table=["main"] * 10 + ["second"] * 5,
        row_key=keys,
        family="f",
        qualifier="q",
        timestamp_us=np.arange(15, dtype=np.int64) * 60_000_000,
        value=b"v",
    )
    kd = key_distribution(CellIndex.build(cells))
    kd.tablet_starts = np.array([0, 3, 7, 10, 12])
    assert kd.split_keys() == {"main": ["m3", "m7"], "second": ["x2"]}


def test_the_printed_lines_make_the_designed_tables(conn, monkeypatch):
    fams = {"main": (Family("m", union(max_age("7d"), max_versions(1))), Family("s"))}
    splits = {"main": ["a#1", "b#2"]}
    table_id = admin.unique_table_id("cbt")
    lines = create_lines("p1", "i1", {"main": table_id}, fams, splits)
    assert lines == [
        f"cbt -project p1 -instance i1 createtable {table_id} "
        "'families=m:maxage=7d||maxversions=1,s:never' 'splits=a#1,b#2'",
        f"gcloud bigtable instances tables create {table_id} --instance=i1 --project=p1 "
        "'--column-families=m:maxage=7d||maxversions=1,s' '--splits=a#1,b#2'",
    ]
    assert split_lines(splits, {"main": table_id}) == [
        f"  {table_id}: 2 split point(s) → 3 tablets: 'a#1', 'b#2'"
    ]
    # the cbt line, run against the emulator, makes the table with those families and rules
    argv = create_lines(conn.project, conn.instance, {"main": table_id}, fams, splits)[0]
    env = {**os.environ, ENV_HOST: conn.host}
    try:
        subprocess.run(argv, shell=True, check=True, env=env, capture_output=True, timeout=60)
        got = admin.get_families(conn, table_id)
        assert set(got) == {"m", "s"}
        assert admin.describe_gc_pb(got["m"].gc_rule) == admin.describe_gc_pb(
            admin.gc_rule_pb(fams["main"][0].gc)
        )
    finally:
        admin.drop_table(conn, table_id)


def test_the_limit_is_divided_among_the_processes_that_write():
    from apache_beam.options.pipeline_options import PipelineOptions

    assert writer_processes(PipelineOptions([])) == 1  # DirectRunner, one process
    threads = ["--direct_num_workers=4", "--direct_running_mode=multi_threading"]
    assert writer_processes(PipelineOptions(threads)) == 1  # threads share one limiter
    procs = ["--direct_num_workers=4", "--direct_running_mode=multi_processing"]
    assert writer_processes(PipelineOptions(procs)) == 4
    flow = ["--runner=DataflowRunner", "--max_num_workers=10"]
    # 10 workers × 4 vCPUs (one Python SDK process per vCPU) = 40 shares
    assert writer_processes(PipelineOptions([*flow, "--worker_machine_type=n2-standard-4"])) == 40
    with pytest.raises(WorkbenchError, match="--worker_machine_type"):
        writer_processes(PipelineOptions(flow))


def test_the_token_bucket_holds_requests_to_the_rate(monkeypatch):
    # a fake clock: sleeping advances it, so the waits are exact arithmetic
    clock = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(time, "sleep", lambda s: clock.__setitem__(0, clock[0] + s))
    bucket = TokenBucket(2000, 2000, 1, out=open(os.devnull, "w"))
    for _ in range(50):  # 50 requests of 100 row mutations, back to back
        bucket.allow(hits_added=100)
    # the bucket starts full (2,000 × 0.05 = 100 tokens): the first request goes at once, the
    # other 49 × 100 = 4,900 mutations wait for 4,900 / 2,000 = 2.45 s
    assert clock[0] - 100.0 == pytest.approx(2.45)
    assert bucket.waited_s == pytest.approx(2.45) and bucket.held == 49 and bucket.sent == 5000
    with pytest.raises(WorkbenchError, match="above 0"):
        TokenBucket(0, 0, 1)


def test_the_report_shows_the_pacing():
    counts = {"events_read": 4, "events": 4, "cells_built": 8, "cells_written": 8}
    counts |= {"RatelimitRequestsTotal": 40, "RatelimitRequestsThrottled": 39}
    counts |= {"throttled_ms": 4_800}
    lines = BulkReport(counts, 5.0, {}).lines()
    assert re.fullmatch(
        r"paced writes +39   requests of 40 held back by the rate limit, 4\.8 s in all", lines[-1]
    ), lines[-1]
    assert not BulkReport({"events": 1}, 1.0, {}).paced_lines()
