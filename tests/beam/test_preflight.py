"""``workbench bulk-load`` checks everything before it creates anything (issue 45, item 4):
files whose columns or types differ, a column missing in a later file, times before 1970,
duplicate (entity, time) events across files, a misspelled runner or option, DataflowRunner
without Beam's GCP extra and PrismRunner offline are each refused in one line naming the file,
column, row or flag, and leave no table (the emulator's table list is the witness). Duplicates
are resolved as asked (``--duplicates first|last``), and a killed bulk load's rerun ends with
exactly the source's cells (counted with the official client)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from workbench.beam import preflight
from workbench.beam.command import as_flags
from workbench.bigtable import admin
from workbench.bigtable.emulator import ENV_HOST
from workbench.bigtable.reader import read_table
from workbench.cli import main
from workbench.errors import WorkbenchError

ROOT = Path(__file__).resolve().parents[2]


def _parquet(path: Path, sensors: list[str], start: str, n: int, temp: pa.DataType) -> None:
    t = pd.date_range(start, periods=n, freq="1min", tz="UTC").tz_convert(None).to_numpy()
    pq.write_table(
        pa.table(
            {
                "sensor": pa.array(np.repeat(sensors, n), pa.string()),
                "time": pa.array(np.tile(t, len(sensors)), pa.timestamp("us", tz="UTC")),
                "temp": pa.array(np.arange(n * len(sensors)) % 7, temp),
            }
        ),
        path,
    )


def _args(conn, source: str, table_id: str, *extra: str) -> list[str]:
    return [
        "bulk-load",
        source,
        "--entity=sensor",
        "--time=time",
        "--measures=temp",
        "--name=pre",
        "--design=entity_first",
        f"--project={conn.project}",
        f"--instance={conn.instance}",
        f"--table={table_id}",
        "--no-pre-split",
        *extra,
    ]


def _refused(conn, capsys, argv: list[str], table_id: str) -> str:
    """rc 2, one line on stderr (no traceback), and no table made."""
    before = set(conn.list_tables())
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "Traceback" not in err, err
    assert len(err.splitlines()) == 1, err
    after = set(conn.list_tables())
    assert table_id not in after and after == before, sorted(after - before)
    return err


def test_every_refusal_comes_before_any_table(conn, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(ENV_HOST, conn.host)
    table_id = admin.unique_table_id("pre")
    d = tmp_path
    # two Parquet files whose temp column is int64 in one and double in the other
    (d / "types").mkdir()
    _parquet(d / "types/a-0.parquet", ["s1"], "2024-01-01", 5, pa.int64())
    _parquet(d / "types/a-1.parquet", ["s1"], "2024-01-02", 5, pa.float64())
    err = _refused(conn, capsys, _args(conn, str(d / "types/a-*.parquet"), table_id), table_id)
    assert re.search(r"'temp' is double in .*a-1\.parquet", err), err
    assert "but int64 in" in err and "a-0.parquet" in err, err
    # a column missing in the later file
    (d / "missing").mkdir()
    _parquet(d / "missing/b-0.parquet", ["s1"], "2024-01-01", 5, pa.int64())
    pq.write_table(
        pq.read_table(d / "missing/b-0.parquet").drop_columns(["temp"]),
        d / "missing/b-1.parquet",
    )
    err = _refused(conn, capsys, _args(conn, str(d / "missing/b-*.parquet"), table_id), table_id)
    assert re.search(r"b-1\.parquet' .*column 'temp'", err), err
    # CSV: a number column that holds text in the second file
    (d / "kinds").mkdir()
    (d / "kinds/c-0.csv").write_text("sensor,time,temp\ns1,2024-01-01T00:00:00Z,1.5\n")
    (d / "kinds/c-1.csv").write_text("sensor,time,temp\ns1,2024-01-02T00:00:00Z,warm\n")
    err = _refused(conn, capsys, _args(conn, str(d / "kinds/c-*.csv"), table_id), table_id)
    assert re.search(r"'temp' is text in .*but number in", err), err
    # a time before 1970 in the second file's third data row
    (d / "old").mkdir()
    (d / "old/e-0.csv").write_text("sensor,time,temp\ns1,2024-01-01T00:00:00Z,1\n")
    rows = ["s1,2024-01-02T00:00:00Z,1", "s1,2024-01-02T00:01:00Z,2", "s1,1969-12-31T23:59:00Z,3"]
    (d / "old/e-1.csv").write_text("sensor,time,temp\n" + "\n".join(rows) + "\n")
    err = _refused(conn, capsys, _args(conn, str(d / "old/e-*.csv"), table_id), table_id)
    assert re.search(r"e-1\.csv', data row 3: .*'time' .*1969-12-31T23:59:00Z", err), err
    # duplicates across files (s1 at 2024-01-01 00:02 in both): refused with counts and files
    (d / "dup").mkdir()
    _parquet(d / "dup/f-0.parquet", ["s1", "s2"], "2024-01-01", 5, pa.int64())
    _parquet(d / "dup/f-1.parquet", ["s1"], "2024-01-01 00:02", 5, pa.int64())
    err = _refused(conn, capsys, _args(conn, str(d / "dup/f-*.parquet"), table_id), table_id)
    # by hand: s1's minutes 00:02, 00:03, 00:04 are in both files → 3 pairs, 3 events beyond one
    assert re.search(r"\b3 \(entity, time\) pair.*\b3 event\(s\) beyond", err, re.S), err
    assert "--duplicates first" in err, err
    assert "f-0.parquet' data row 3" in err and "f-1.parquet' data row 1" in err, err
    good = str(d / "old/e-0.csv")
    # a runner typo, an option no one knows
    err = _refused(conn, capsys, [*_args(conn, good, table_id), "--runner=DirectRuner"], table_id)
    assert "--runner DirectRuner: Unexpected pipeline runner: DirectRuner" in err, err
    err = _refused(conn, capsys, [*_args(conn, good, table_id), "--runer=DirectRunner"], table_id)
    assert "--runer=DirectRunner (did you mean --runner?)" in err, err
    # DataflowRunner where Beam's GCP extra is not installed (its client module cannot import)
    monkeypatch.setitem(sys.modules, "apache_beam.runners.dataflow.internal.apiclient", None)
    err = _refused(
        conn, capsys, [*_args(conn, good, table_id), "--runner=DataflowRunner"], table_id
    )
    assert "pip install 'bigtable-ts-workbench[dataflow]'" in err, err
    # PrismRunner offline: no cached binary, and its download fails
    from urllib.error import URLError

    from apache_beam.runners.portability import prism_runner

    def offline(*a, **k):
        raise URLError("no network")

    monkeypatch.setattr(prism_runner, "urlopen", offline)
    monkeypatch.setattr(prism_runner.PrismJobServer, "BIN_CACHE", str(d / "prism-cache"))
    err = _refused(conn, capsys, [*_args(conn, good, table_id), "--runner=PrismRunner"], table_id)
    assert "--runner PrismRunner: its binary cannot be had" in err, err
    assert "--prism_location" in err, err


def _cells(conn, table_id: str) -> dict[tuple[str, str], bytes]:
    """(row key, qualifier) → value of every cell, read with the official client."""
    from google.cloud import bigtable

    client = bigtable.Client(project=conn.project, admin=True)
    out: dict[tuple[str, str], bytes] = {}
    n = 0
    for row in client.instance(conn.instance).table(table_id).read_rows():
        for fam, cols in row.cells.items():
            for q, cells in cols.items():
                for c in cells:
                    n += 1
                    out[(row.row_key.decode(), f"{fam}:{q.decode()}")] = c.value
    assert n == len(out), "one version per cell"
    return out


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["parquet", "csv"])
@pytest.mark.parametrize("keep", ["first", "last"])
def test_duplicates_across_files_are_resolved_as_asked(
    conn, tmp_path, monkeypatch, capsys, keep, kind
):
    from workbench.beam import sources

    monkeypatch.setenv(ENV_HOST, conn.host)
    monkeypatch.setenv("BIGTABLE_EMULATOR_HOST", conn.host)
    # f-0: s1 and s2 at 00:00 … 00:04, temp = 0 … 9 % 7 (s1: 0..4, s2: 5, 6, 0, 1, 2)
    # f-1: s1 at 00:02 … 00:06, temp 0 … 4: three of them repeat f-0's s1 at 00:02, 00:03, 00:04
    _parquet(tmp_path / "f-0.parquet", ["s1", "s2"], "2024-01-01", 5, pa.int64())
    _parquet(tmp_path / "f-1.parquet", ["s1"], "2024-01-01 00:02", 5, pa.int64())
    if kind == "csv":
        # the same rows as CSV read in ranges of 40 bytes (a row is about 35): the file with
        # rows to leave out is read whole (its rows' numbers say which), the other in ranges
        for p in tmp_path.glob("f-*.parquet"):
            pd.read_parquet(p).to_csv(p.with_suffix(".csv"), index=False)
            p.unlink()
        monkeypatch.setattr(sources, "CSV_RANGE_BYTES", 40)
    table_id = admin.unique_table_id("dup")
    try:
        argv = [*_args(conn, str(tmp_path / f"f-*.{kind}"), table_id), f"--duplicates={keep}"]
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert re.search(r"\b3 \(entity, time\) pair.*\b3 event\(s\) left out", out, re.S), out
        assert "✔ equal" in out, out
        # 15 events read, 3 left out, 12 kept: s1 at 00:00 … 00:06 (7) and s2 at 00:00 … 00:04
        assert re.search(r"events read +15 +expected \(turned into cells\) +12\n", out), out
        assert re.search(r"duplicates left out +3 ", out), out
        got = _cells(conn, table_id)
        assert len(got) == 12, len(got)  # one cell (temp) per kept event
        s1 = {k[0].split("#")[1]: v for k, v in got.items() if k[0].startswith("s1#")}
        # s1 at 00:03: f-0's temp 3 (first) or f-1's temp 1 (last: its second row)
        assert s1["20240101000300"] == (b"3" if keep == "first" else b"1"), s1
        assert s1["20240101000600"] == b"4", s1  # only in f-1 (its fifth row)
    finally:
        admin.drop_table(conn, table_id)


def _write_csv(path: Path, sensors: int, per: int) -> int:
    t = pd.date_range("2024-01-01", periods=per, freq="1min", tz="UTC").strftime(
        "%Y-%m-%dT%H:%M:%SZ"
    )
    frame = pd.DataFrame(
        {
            "sensor": np.repeat([f"s{i:02d}" for i in range(sensors)], per),
            "time": np.tile(t, sensors),
            "temp": np.arange(sensors * per) % 97,
        }
    )
    frame.to_csv(path, index=False)
    return len(frame)


@pytest.mark.slow
def test_a_killed_bulk_load_is_finished_by_its_rerun(conn, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(ENV_HOST, conn.host)
    monkeypatch.setenv("BIGTABLE_EMULATOR_HOST", conn.host)
    n = _write_csv(tmp_path / "k.csv", 4, 500)  # 2,000 events, one cell each
    table_id = admin.unique_table_id("kill")
    argv = _args(conn, str(tmp_path / "k.csv"), table_id, "--batch-events=500")
    env = {**os.environ, ENV_HOST: conn.host, "PYTHONPATH": str(ROOT)}
    # paced to 200 row mutations/s: 2,000 rows take ≈ 10 s, killed once some are stored
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", *argv, "--max-mutations-per-s=200"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        stored = 0
        for _ in range(600):
            if proc.poll() is not None:
                break
            if table_id in conn.list_tables():
                stored = len(read_table(conn, table_id))
                if stored >= 100:
                    break
            time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        assert 100 <= stored < n, f"killed after {stored} of {n} cells"
        partial = len(_cells(conn, table_id))
        assert partial < n, partial
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert re.search(r"design's record .*holds rows", out), out
        assert "✔ equal" in out, out
        got = _cells(conn, table_id)
        assert len(got) == n  # 4 sensors × 500 minutes, one temp cell each: 2,000
        # by hand: s02's 11th minute (00:10) is event 2 × 500 + 10 = 1,010: temp 1,010 % 97 = 40
        assert got[("s02#20240101001000", "m:temp")] == b"40"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        admin.drop_table(conn, table_id)


def test_cli_messages_name_flags_not_python_arguments():
    said = as_flags(
        "pass naive_tz='UTC' if these are UTC; duplicates='first' or 'last' to keep one; "
        "or pass accept_loss=True to keep the newest; to add to it, pass append=True"
    )
    assert "--naive-tz UTC" in said and "--duplicates first or --duplicates last" in said
    for python in ("naive_tz=", "duplicates=", "accept_loss=", "append=True"):
        assert python not in said, said


def test_an_unknown_runner_is_refused_by_beams_own_lookup():
    from apache_beam.options.pipeline_options import PipelineOptions

    assert preflight.check_runner(PipelineOptions(["--runner=DirectRunner"]), []) == "DirectRunner"
    with pytest.raises(WorkbenchError, match="Valid values are"):
        preflight.check_runner(PipelineOptions(["--runner=Dirct"]), ["--runner=Dirct"])


def _plan(tmp_path: Path, max_bad: int | None):
    from workbench.beam import bulk_load as bl
    from workbench.beam.sources import Source

    first = pd.DataFrame(
        {
            "sensor": ["a", "a", "b"],
            "time": pd.to_datetime(
                ["2024-01-01T00:00Z", "2024-01-01T00:01Z", "2024-01-01T00:00Z"], utc=True
            ),
            "count": [1, 2, 3],
        }
    )
    src = Source(pattern="x", kind="csv", time="time", measures=("count",), entity=("sensor",))
    schema, precision = bl.design(src.dataset(first), "entity_first", {})
    target = bl.Target("p", "i", "127.0.0.1:1")
    return bl.Plan(
        src,
        schema,
        {"main": "t"},
        {},
        target,
        precision=precision,
        max_bad_records=max_bad,
        dead_letter=str(tmp_path / "dead"),
    )


def test_rows_refused_mid_run_go_to_the_dead_letter_file(tmp_path):
    from workbench.beam.batches import BatchChecks
    from workbench.errors import DatasetError

    # the design keys whole seconds; a batch of 8 events holds two at .250 s (rows 3 and 6):
    # with --max-bad-records 2 those two are written to the dead-letter file with the reason,
    # and the other 6 go on; with 1, the run stops naming the flag
    times = pd.date_range("2024-01-02", periods=8, freq="1min", tz="UTC").to_series()
    times.iloc[[3, 6]] += pd.Timedelta(milliseconds=250)
    batch = pd.DataFrame(
        {"sensor": ["a"] * 8, "time": times.to_numpy(), "count": np.arange(8)}
    ).reset_index(drop=True)
    ds = BatchChecks(_plan(tmp_path, 2)).checked(batch)
    assert ds.frame["count"].tolist() == [0, 1, 2, 4, 5, 7]
    (dead,) = tmp_path.glob("dead-*.csv")
    got = pd.read_csv(dead)
    assert got["count"].tolist() == [3, 6]
    assert got["_error"].str.contains("ms precision").all(), got["_error"].tolist()
    with pytest.raises(DatasetError, match="--max-bad-records 1 rows"):
        BatchChecks(_plan(tmp_path / "b", 1)).checked(batch)
    with pytest.raises(DatasetError, match="ms precision"):  # no flag: the first bad row stops
        BatchChecks(_plan(tmp_path / "c", None)).checked(batch)


@pytest.mark.slow
@pytest.mark.parametrize("design", ["entity_first", "pre_aggregated"])
def test_a_bulk_load_writes_refused_rows_to_its_dead_letter_file(
    conn, tmp_path, monkeypatch, capsys, design
):
    monkeypatch.setenv(ENV_HOST, conn.host)
    monkeypatch.setenv("BIGTABLE_EMULATOR_HOST", conn.host)
    # 10 sensors × 20 minutes; s00's 6th reading at .250 s. A shape sample of about 40 events
    # keeps 3 whole series (60 events; s00 is not one of them, checked below), so the design keys
    # whole seconds and the batch holding s00's reading is refused mid-run: that one row goes to
    # the dead-letter file, the other 199 events are written
    t = pd.date_range("2024-01-01", periods=20, freq="1min", tz="UTC").strftime(
        "%Y-%m-%dT%H:%M:%S.000Z"
    )
    frame = pd.DataFrame(
        {
            "sensor": np.repeat([f"s{i:02d}" for i in range(10)], 20),
            "time": np.tile(t, 10),
            "temp": np.arange(200),
        }
    )
    frame.loc[5, "time"] = "2024-01-01T00:05:00.250Z"
    frame.to_csv(tmp_path / "ten.csv", index=False)
    table_id = admin.unique_table_id("dead")
    argv = _args(conn, str(tmp_path / "ten.csv"), table_id, "--sample-events=40")
    argv += ["--batch-events=50", f"--dead-letter={tmp_path / 'dead'}"]
    argv[argv.index("--design=entity_first")] = f"--design={design}"
    try:
        assert main([*argv, "--max-bad-records=1"]) == 0
        out = capsys.readouterr().out
        assert re.search(r"\b60 events", out), out
        assert re.search(r"bad records +1 +refused, written to .*dead-\*\.csv", out), out
        # 200 read, 1 refused: 199 turned into cells (summary rows: refused once, by the one
        # parse both the event and the summary paths read)
        assert re.search(r"events read +200 +expected \(turned into cells\) +199\n", out), out
        assert "✔ equal" in out, out
        if design == "pre_aggregated":
            # 10 sensors' events in hour 00: 10 summary rows, beside the 199 events' rows
            assert re.search(r"summary groups +10 .* groups of 199 events", out), out
        else:
            got = _cells(conn, table_id)
            assert len(got) == 199 and ("s00#20240101000500", "m:temp") not in got
        (dead,) = tmp_path.glob("dead-*.csv")
        bad = pd.read_csv(dead)
        assert bad["temp"].tolist() == [5] and bad["sensor"].tolist() == ["s00"]
        assert "ms precision" in bad["_error"].iloc[0]
    finally:
        admin.drop_table(conn, table_id)


def test_csv_duplicates_are_the_same_instant_and_entity_whatever_their_text(tmp_path):
    # " s1" is s1 (entity text stripped, as from_csv strips it) and 00:00:00Z is 00:00:00+00:00;
    # a blank line is no row (pandas and DuckDB both skip it), so rows keep their numbers
    (tmp_path / "a.csv").write_text(
        "sensor,time,temp\ns1,2024-01-01T00:00:00Z,1\n\ns2,2024-01-01T00:00:00Z,2\n"
    )
    (tmp_path / "b.csv").write_text(
        "sensor,time,temp\ns2,2024-01-01T00:01:00Z,3\n s1,2024-01-01 00:00:00+00:00,4\n"
    )
    files = [str(tmp_path / "a.csv"), str(tmp_path / "b.csv")]
    with pytest.raises(WorkbenchError, match=r"1 \(entity, time\) pair.*sensor='s1'"):
        preflight.scan(files, "csv", ["sensor"], "time", None, ",", "error")
    last = preflight.scan(files, "csv", ["sensor"], "time", None, ",", "last")
    first = preflight.scan(files, "csv", ["sensor"], "time", None, ",", "first")
    # last keeps b.csv's data row 2 (temp 4): a.csv's data row 1 (index 0) is left out
    assert {k: v.tolist() for k, v in last.drop.items()} == {files[0]: [0]}
    assert {k: v.tolist() for k, v in first.drop.items()} == {files[1]: [1]}
    frame = pd.DataFrame({"temp": [3, 4]})
    assert preflight.drop_rows(frame, first.drop[files[1]], 0)["temp"].tolist() == [3]


@pytest.mark.slow
def test_duplicates_resolved_in_a_grouped_design_match_load(conn, tmp_path, monkeypatch, capsys):
    # summary rows (pre_aggregated: GroupByKey) over two Parquet files sharing 3 (s1, time)
    # pairs, --duplicates last: the cells load writes for from_parquet(duplicates="last")
    import workbench as wb
    from workbench.bigtable.io import load

    monkeypatch.setenv(ENV_HOST, conn.host)
    _parquet(tmp_path / "f-0.parquet", ["s1", "s2"], "2024-01-01", 5, pa.int64())
    _parquet(tmp_path / "f-1.parquet", ["s1"], "2024-01-01 00:02", 5, pa.int64())
    files = sorted(str(p) for p in tmp_path.glob("f-*.parquet"))
    ds = wb.from_parquet(
        files, entity="sensor", time="time", measures="temp", name="pre", duplicates="last"
    )
    assert len(ds.frame) == 12  # 15 events, 3 repeated pairs
    schema = wb.preset(ds, "pre_aggregated")
    bulk_id, ref_id = admin.unique_table_id("dupg"), admin.unique_table_id("ref")
    argv = _args(conn, str(tmp_path / "f-*.parquet"), bulk_id, "--duplicates=last")
    argv[argv.index("--design=entity_first")] = "--design=pre_aggregated"
    try:
        assert main(argv) == 0
        assert "✔ equal" in capsys.readouterr().out
        ref = load(conn, ds, schema, table_id=ref_id, progress=False)
        ids = admin.table_ids(bulk_id, list(schema.table_families()), admin.main_table(schema))
        got = read_table(conn, ids[admin.main_table(schema)], table=admin.main_table(schema))
        want = ref.read_all()
        assert len(want) > 0 and got.equals(want), (len(got), len(want))
    finally:
        for t in (bulk_id, ref_id):
            for p in admin.table_ids(
                t, list(schema.table_families()), admin.main_table(schema)
            ).values():
                admin.drop_table(conn, p)
