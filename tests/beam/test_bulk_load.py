"""``workbench bulk-load`` (Apache Beam, DirectRunner) against the real emulator: the cells it
leaves are exactly the cells ``load`` writes for the same events, read back from both tables
and compared cell by cell; a production target without the opt-in is refused before any
request. The expectation is ``load`` itself (the workbench's one definition of a design's
cells) plus a hand count for the plainest design."""

from __future__ import annotations

from pathlib import Path

import grpc
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import workbench as wb
from workbench.beam import sources
from workbench.beam.batches import check_precision, conform
from workbench.bigtable import admin
from workbench.bigtable import connection as conn_mod
from workbench.bigtable.emulator import ENV_HOST
from workbench.bigtable.io import load
from workbench.bigtable.reader import read_table
from workbench.cells import CellFrame
from workbench.cli import main
from workbench.errors import DatasetError

SENSORS = 6
PER_SENSOR = 250  # 1,500 events: three batches of 500, every sensor in each of three files
DESIGNS = ("entity_first", "bucket_new_cells", "pre_aggregated")  # the last has summary rows


def _events() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    t = pd.date_range("2015-06-01", periods=PER_SENSOR, freq="7min", tz="UTC")
    n = SENSORS * PER_SENSOR
    frame = pd.DataFrame(
        {
            "sensor": np.repeat([f"s{i:02d}" for i in range(SENSORS)], PER_SENSOR),
            "time": np.tile(t, SENSORS),
            "temp": rng.normal(20, 3, n).round(2),
            "count": rng.integers(0, 50, n),
        }
    )
    return frame.sort_values(["time", "sensor"], kind="stable").reset_index(drop=True)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("bulk")
    frame = _events()
    frame.assign(time=frame["time"].astype(str)).to_csv(d / "own.csv", index=False)
    parts = d / "parts"
    parts.mkdir()
    # three files split by time (each holds every sensor), row groups of 200 events
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), 3)):
        part = frame.iloc[rows]
        pq.write_table(
            _arrow(part),
            parts / f"own-{i}.parquet",
            row_group_size=200,
        )
    pq.write_table(_arrow(frame), d / "own.parquet")
    return {
        "csv": str(d / "own.csv"),
        "glob": str(parts / "own-*.parquet"),
        "whole": str(d / "own.parquet"),
    }


def _arrow(frame: pd.DataFrame) -> pa.Table:
    """Column by column (pyarrow 25's from_pandas reads Series.values, deprecated for tz-aware
    times by pandas 3.1)."""
    utc = frame["time"].dt.tz_convert(None).to_numpy()
    return pa.table(
        {
            "sensor": pa.array(frame["sensor"].to_numpy(dtype=object), pa.string()),
            "time": pa.array(utc, pa.timestamp("us", tz="UTC")),
            "temp": pa.array(frame["temp"].to_numpy()),
            "count": pa.array(frame["count"].to_numpy()),
        }
    )


def _tables(conn, table_id: str, schema) -> CellFrame:
    ids = admin.table_ids(table_id, list(schema.table_families()), admin.main_table(schema))
    return CellFrame.concat(read_table(conn, p, table=logical) for logical, p in ids.items())


def _bulk(conn, source: str, design: str, table_id: str) -> int:
    return main(
        [
            "bulk-load",
            source,
            "--entity=sensor",
            "--time=time",
            "--measures=temp,count",
            "--name=own",
            f"--design={design}",
            f"--project={conn.project}",
            f"--instance={conn.instance}",
            f"--table={table_id}",
            "--batch-events=500",
            "--runner=DirectRunner",
        ]
    )


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["csv", "csv-ranges", "glob"])
def test_bulk_load_writes_exactly_the_cells_load_writes(conn, files, kind, monkeypatch, capsys):
    monkeypatch.setenv(ENV_HOST, conn.host)
    if kind == "csv-ranges":  # the file (about 50 kB) read in ranges of 5,000 bytes
        monkeypatch.setattr(sources, "CSV_RANGE_BYTES", 5000)
        assert Path(files["csv"]).stat().st_size > 8 * 5000  # read by more than 8 ranges
        kind = "csv"
    if kind == "csv":
        ds = wb.from_csv(
            files["csv"],
            entity="sensor",
            time="time",
            measures=["temp", "count"],
            name="own",
            progress=False,
        )
    else:
        ds = wb.from_parquet(
            files["whole"],
            entity="sensor",
            time="time",
            measures=["temp", "count"],
            name="own",
            progress=False,
        )
    for design in DESIGNS:
        schema = wb.preset(ds, design)
        bulk_id, ref_id = admin.unique_table_id("bulk"), admin.unique_table_id("ref")
        try:
            assert _bulk(conn, files[kind], design, bulk_id) == 0
            out = capsys.readouterr().out
            assert "✔ equal" in out, out
            ref = load(conn, ds, schema, table_id=ref_id, progress=False)
            got, want = _tables(conn, bulk_id, schema), ref.read_all()
            assert len(want) > 0
            assert got.equals(want), (design, len(got), len(want))
            if design == "entity_first":  # by hand: one row per event, a cell per measure
                assert len(got) == SENSORS * PER_SENSOR * 2
                assert got.frame["row_key"].nunique() == SENSORS * PER_SENSOR
            if design == "pre_aggregated":  # by hand: 250 × 7 min = 29 h 10 min → 30 hours
                summary = got.frame[got.frame["row_key"].str.startswith("agg#")]
                assert summary["row_key"].nunique() == SENSORS * 30
        finally:
            for t in (bulk_id, ref_id):
                for p in admin.table_ids(
                    t, list(schema.table_families()), admin.main_table(schema)
                ).values():
                    admin.drop_table(conn, p)


@pytest.mark.slow
def test_a_rerun_finishes_its_own_table_and_another_design_is_refused(
    conn, files, monkeypatch, capsys
):
    # a rerun into the table its own design made finishes it (SetCell is idempotent: the same
    # cells, said so); another design is refused before it writes (item 4 of issue 45)
    monkeypatch.setenv(ENV_HOST, conn.host)
    table_id = admin.unique_table_id("bulk")
    try:
        assert _bulk(conn, files["csv"], "entity_first", table_id) == 0
        before = read_table(conn, table_id)
        assert len(before) == SENSORS * PER_SENSOR * 2  # by hand: a cell per measure
        capsys.readouterr()
        assert _bulk(conn, files["csv"], "entity_first", table_id) == 0
        out = capsys.readouterr().out
        assert "exists with this design's record and holds rows" in out, out
        assert read_table(conn, table_id).equals(before)
        assert _bulk(conn, files["csv"], "timestamp_first", table_id) == 2
        err = capsys.readouterr().err
        assert "holds design 'entity_first'" in err and "Nothing was written" in err, err
        assert f"--table {table_id}-2" in err and "table_id" not in err, err  # flags, not Python
        assert read_table(conn, table_id).equals(before)
    finally:
        admin.drop_table(conn, table_id)


@pytest.mark.parametrize("host", [None, "10.1.2.3:8086"])
def test_production_without_the_opt_in_is_refused_before_any_request(
    files, host, monkeypatch, capsys
):
    monkeypatch.delenv(conn_mod.ENV_ALLOW_PRODUCTION, raising=False)
    if host is None:
        monkeypatch.delenv(ENV_HOST, raising=False)
    else:  # an emulator off this machine: the same opt-in
        monkeypatch.setenv(ENV_HOST, host)
    opened = []
    monkeypatch.setattr(grpc, "secure_channel", lambda *a, **k: opened.append(a))
    monkeypatch.setattr(grpc, "insecure_channel", lambda *a, **k: opened.append(a))
    rc = main(
        [
            "bulk-load",
            files["csv"],
            "--entity=sensor",
            "--time=time",
            "--measures=temp,count",
            "--design=entity_first",
            "--project=my-prod",
            "--instance=serving",
            "--table=events",
        ]
    )
    err = capsys.readouterr().err
    assert rc == 2
    assert "WORKBENCH_ALLOW_PRODUCTION=1" in err, err
    assert opened == [], "no channel may be opened without the opt-in"


def test_a_batch_is_held_to_the_designs_dtypes():
    # integers read as floats in one batch go back to integers (5.0 → 5: the text a load of all
    # the events writes); a missing value cannot, and is refused naming the column
    batch = pd.DataFrame({"count": [5.0, 7.0], "temp": [1.5, 2.0]})
    out = conform(batch, (("count", "int64"), ("temp", "float64")), "batch 1")
    assert out["count"].dtype == np.int64 and out["count"].tolist() == [5, 7]
    with pytest.raises(DatasetError, match="'count'.*--sample-events"):
        conform(pd.DataFrame({"count": [5.0, np.nan]}), (("count", "int64"),), "batch 2")


def test_a_batch_needing_finer_times_than_the_design_keys_is_refused():
    # the design for one's own data keys the precision of the first events (G31): whole
    # seconds there, a batch with milliseconds would be keyed coarser than one load of all
    # the events (which would key ms)
    frame = pd.DataFrame(
        {
            "sensor": ["a", "a"],
            "time": pd.to_datetime([1_704_067_200_000, 1_704_067_201_250], unit="ms", utc=True),
            "v": [1.0, 2.0],
        }
    )
    ds = wb.from_dataframe(frame, entity="sensor", time="time", measures="v")
    check_precision(ds, "ms", "batch 1")  # ms keys keep .250
    check_precision(ds, None, "batch 1")  # a named dataset's preset: its own precision
    with pytest.raises(
        DatasetError, match=r"batch 2 holds times with ms precision.*--sample-events"
    ):
        check_precision(ds, "second", "batch 2")


@pytest.mark.slow
def test_the_design_comes_from_the_whole_input_not_its_first_events(
    conn, tmp_path, monkeypatch, capsys
):
    # 20 events a minute apart, then 40 half a minute apart (the rate doubles), the last one at
    # .500 s (milliseconds, G31): the first 20 events alone ask for whole seconds; the design
    # must be the one load chooses for every event (issue 45, item 4; before, the rerun was
    # refused with "holds times with ms precision")
    design = "entity_first"
    monkeypatch.setenv(ENV_HOST, conn.host)
    t0 = pd.Timestamp("2024-01-01", tz="UTC")
    times = [t0 + pd.Timedelta(minutes=i) for i in range(20)]
    times += [times[-1] + pd.Timedelta(seconds=30 * (i + 1)) for i in range(40)]
    times[-1] += pd.Timedelta(milliseconds=500)
    path = tmp_path / "doubling.csv"
    rows = [f"a,{t.isoformat().replace('+00:00', 'Z')},{i}" for i, t in enumerate(times)]
    path.write_text("sensor,time,v\n" + "\n".join(rows) + "\n")
    bulk_id, ref_id = admin.unique_table_id("bulk"), admin.unique_table_id("ref")
    args = ["bulk-load", str(path), "--entity=sensor", "--time=time", "--measures=v"]
    args += [f"--design={design}", f"--project={conn.project}", f"--instance={conn.instance}"]
    ds = wb.from_csv(path, entity="sensor", time="time", measures="v", progress=False)
    schema = wb.preset(ds, design)
    try:
        assert main([*args, f"--table={bulk_id}", "--sample-events=20", "--batch-events=7"]) == 0
        assert "✔ equal" in capsys.readouterr().out
        ref = load(conn, ds, schema, table_id=ref_id, progress=False)
        got, want = _tables(conn, bulk_id, schema), ref.read_all()
        assert len(want) > 0 and got.equals(want), (len(got), len(want))
        # one row per event, the last keyed to the millisecond
        assert got.frame["row_key"].nunique() == 60
        # the last: 19 min + 40 × 30 s = 00:39:00, plus 500 ms
        assert "a#20240101003900500" in set(got.frame["row_key"])
    finally:
        for t in (bulk_id, ref_id):
            for p in admin.table_ids(
                t, list(schema.table_families()), admin.main_table(schema)
            ).values():
                admin.drop_table(conn, p)
