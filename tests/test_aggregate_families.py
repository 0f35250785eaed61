"""Aggregate families beyond sum (min, max, hll) and the counters pattern, on the real emulator.

What the emulator does was measured (SDK 528 cbtemulator) and is pinned here, so a newer
emulator that changes it makes these tests say so: it creates every aggregate type, combines
only ``sum``, keeps the *last* AddToCell/MergeToCell input for min/max/hll, and refuses
MergeToCell with an int value. The writer therefore combines each cell's inputs itself."""

from __future__ import annotations

import struct

import numpy as np
import pandas as pd
import pytest
from google.cloud.bigtable_v2.types import MutateRowRequest, Mutation, ReadRowsRequest

import workbench as wb
from workbench.bigtable import admin, writer
from workbench.cells import CellFrame
from workbench.errors import SchemaError, WriteError
from workbench.schema.counters import Counters
from workbench.schema.families import Family


def _i64(v: int) -> bytes:
    return struct.pack(">q", v)


def _read(conn, table_id) -> dict[tuple[bytes, str, bytes], int]:
    """(row, family, qualifier) → the int64 the emulator returns (newest cell per column)."""
    out: dict[tuple[bytes, str, bytes], int] = {}
    row, fam, qual = b"", "", b""
    for resp in conn.data.read_rows(request=ReadRowsRequest(table_name=conn.table_path(table_id))):
        for ch in resp.chunks:
            # a chunk repeats row, family and qualifier only when they change
            row = ch.row_key or row
            fam = ch.family_name or fam
            qual = ch.qualifier or qual
            out.setdefault((row, fam, qual), struct.unpack(">q", ch.value)[0])
    return out


def _add(family, qualifier, value, merge=False):
    if merge:
        return Mutation(
            merge_to_cell=Mutation.MergeToCell(
                family_name=family,
                column_qualifier={"raw_value": qualifier},
                timestamp={"raw_timestamp_micros": 0},
                input={"raw_value": _i64(value)},
            )
        )
    return Mutation(
        add_to_cell=Mutation.AddToCell(
            family_name=family,
            column_qualifier={"raw_value": qualifier},
            timestamp={"raw_timestamp_micros": 0},
            input={"int_value": value},
        )
    )


def test_family_accepts_min_max_hll_and_names_the_choices():
    for kind in ("sum", "min", "max", "hll"):
        assert Family("a", aggregate=kind).aggregate == kind
        pb = admin.column_family_pb(Family("a", aggregate=kind))
        assert admin.aggregate_kind(pb) == kind
        assert pb.value_type.aggregate_type.input_type.int64_type is not None
    with pytest.raises(SchemaError, match="one of 'sum', 'min', 'max', 'hll'.*got 'avg'"):
        Family("a", aggregate="avg")  # type: ignore[arg-type]


def test_emulator_keeps_the_last_input_for_min_max_and_hll(conn, table_factory):
    """Measured: several AddToCell into one cell — sum adds, min/max/hll keep the last input."""
    fams = [Family(k, aggregate=k) for k in ("sum", "min", "max", "hll")]
    tid = table_factory(fams)
    stored = admin.get_families(conn, tid)
    assert {n: admin.aggregate_kind(cf) for n, cf in stored.items()} == {
        "sum": "sum", "min": "min", "max": "max", "hll": "hll"
    }  # fmt: skip
    muts = [_add(k, b"q", v) for k in ("sum", "min", "max", "hll") for v in (5, 3, 9, 4)]
    conn.data.mutate_row(
        request=MutateRowRequest(table_name=conn.table_path(tid), row_key=b"r", mutations=muts)
    )
    got = _read(conn, tid)
    # Cloud Bigtable would keep 21, 3, 9 and a sketch of 4 distinct values
    assert got == {(b"r", "sum", b"q"): 21, (b"r", "min", b"q"): 4, (b"r", "max", b"q"): 4,
                   (b"r", "hll", b"q"): 4}  # fmt: skip
    conn.data.mutate_row(
        request=MutateRowRequest(
            table_name=conn.table_path(tid),
            row_key=b"m",
            mutations=[_add("min", b"q", v) for v in (3, 9, 5)],
        )
    )
    conn.data.mutate_row(
        request=MutateRowRequest(
            table_name=conn.table_path(tid),
            row_key=b"x",
            mutations=[_add("max", b"q", v) for v in (9, 3)],
        )
    )
    got = _read(conn, tid)
    assert got[(b"m", "min", b"q")] == 5  # min of 3, 9, 5 is 3: the emulator keeps the last
    assert got[(b"x", "max", b"q")] == 3  # max of 9, 3 is 9: the emulator keeps the last


def test_emulator_merge_to_cell_refuses_int_and_adds_raw_bytes_for_sum(conn, table_factory):
    tid = table_factory([Family("sum", aggregate="sum"), Family("max", aggregate="max")])
    bad = Mutation(
        merge_to_cell=Mutation.MergeToCell(
            family_name="sum",
            column_qualifier={"raw_value": b"q"},
            timestamp={"raw_timestamp_micros": 0},
            input={"int_value": 4},
        )
    )
    with pytest.raises(Exception, match="only \\[\\]bytes values are supported"):
        conn.data.mutate_row(
            request=MutateRowRequest(table_name=conn.table_path(tid), row_key=b"r", mutations=[bad])
        )
    conn.data.mutate_row(
        request=MutateRowRequest(
            table_name=conn.table_path(tid),
            row_key=b"r",
            mutations=[_add(f, b"q", v, merge=True) for f in ("sum", "max") for v in (4, 6, 2)],
        )
    )
    # sum: 4 + 6 + 2; max of 4, 6, 2 is 6, the emulator keeps the last, 2
    assert _read(conn, tid) == {(b"r", "sum", b"q"): 12, (b"r", "max", b"q"): 2}


def test_writer_round_trips_min_max_sum_by_combining_each_cell(conn, table_factory):
    fams = [
        Family("s", aggregate="sum"),
        Family("lo", aggregate="min"),
        Family("hi", aggregate="max"),
    ]
    tid = table_factory(fams)
    rows = []
    for fam in ("s", "lo", "hi"):
        for v in (5, 3, 9):
            rows.append(("r1", fam, "q", 0, _i64(v)))
        rows.append(("r2", fam, "q", 0, _i64(-7)))
    cells = CellFrame.from_columns(
        row_key=[r[0] for r in rows],
        family=[r[1] for r in rows],
        qualifier=[r[2] for r in rows],
        timestamp_us=[r[3] for r in rows],
        value=[r[4] for r in rows],
    )
    writer.write_cells(conn, cells, tid, progress=False)
    got = _read(conn, tid)
    assert got == {
        (b"r1", "s", b"q"): 17, (b"r1", "lo", b"q"): 3, (b"r1", "hi", b"q"): 9,
        (b"r2", "s", b"q"): -7, (b"r2", "lo", b"q"): -7, (b"r2", "hi", b"q"): -7,
    }  # fmt: skip
    writer.write_cells(conn, cells, tid, progress=False)  # a rerun replaces, never adds twice
    assert _read(conn, tid) == got


def test_hll_is_refused_on_the_emulator_before_any_request(conn, table_factory):
    tid = table_factory([Family("u", aggregate="hll"), Family("p")])
    cells = CellFrame.from_columns(
        row_key=["r", "r", "r"],
        family=["p", "u", "u"],
        qualifier=["x", "players", "players"],
        timestamp_us=[0, 0, 0],
        value=[b"plain", _i64(11), _i64(12)],
    )
    with pytest.raises(
        WriteError, match="'u' of table 'main' is an HLL aggregate.*Nothing was written"
    ):
        writer.write_cells(conn, cells, tid, progress=False)
    assert _read_rows_count(conn, tid) == 0  # not even the plain cell


def _read_rows_count(conn, tid) -> int:
    rows = set()
    for resp in conn.data.read_rows(request=ReadRowsRequest(table_name=conn.table_path(tid))):
        rows |= {ch.row_key for ch in resp.chunks if ch.row_key}
    return len(rows)


def test_counters_round_trip_on_the_emulator(conn, table_factory):
    """Energy meters, events per hour in a row per meter and day: every cell is 4 (15-min data)."""
    ds = wb.load_dataset("energy_meters", size="workshop")
    c = Counters(("meter_id",), bucket="hour", row_bucket="day")
    expected = c.expected(ds)
    # by hand: readings every 15 minutes → 4 per hour, one cell per meter, day and hour
    per_meter_hours = ds.frame.groupby("meter_id")["time"].apply(
        lambda t: t.dt.floor("h").nunique()
    )
    assert len(expected) == int(per_meter_hours.sum())
    assert set(expected["value"]) == {4}
    tid = table_factory(list(c.families()))
    writer.write_cells(conn, c.to_cells(ds), tid, progress=False)
    got = _read(conn, tid)
    assert len(got) == len(expected)
    first = expected.iloc[0]
    assert got[(first["row_key"].encode(), "c", first["qualifier"].encode())] == 4
    assert sorted(set(got.values())) == [4]


def test_counters_min_max_of_a_whole_number_measure(conn, table_factory):
    t = pd.date_range("2024-01-01 10:00", periods=6, freq="10min", tz="UTC")
    frame = pd.DataFrame({"player": ["a"] * 6, "time": t, "score": [5, 3, 9, 1, 8, 2]})
    ds = wb.from_dataframe(frame, name="scores", entity=["player"], time="time", measures=["score"])
    hi = Counters(("player",), measure="score", family=Family("hi", aggregate="max"))
    assert hi.expected(ds)["value"].tolist() == [9]
    tid = table_factory(list(hi.families()))
    writer.write_cells(conn, hi.to_cells(ds), tid, progress=False)
    assert _read(conn, tid) == {(b"a#20240101", "hi", b"10"): 9}
    with pytest.raises(SchemaError, match="fractional values"):
        Counters(("player",), measure="score").to_cells(
            wb.from_dataframe(
                frame.assign(score=frame["score"] / 2),
                name="s",
                entity=["player"],
                time="time",
                measures=["score"],
            )
        )
    with pytest.raises(SchemaError, match="needs a 'sum' family"):
        Counters(("player",), family=Family("x", aggregate="max"))
    assert np.all(
        hi.to_cells(ds).frame["timestamp_us"] == pd.Timestamp("2024-01-01", tz="UTC").value // 1000
    )
