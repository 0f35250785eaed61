"""Aggregate families beyond sum (min, max, hll) and the counters pattern, on the real emulator.

What the emulator does was measured (SDK 528 cbtemulator) and is pinned here, so a newer
emulator that changes it makes these tests say so: it creates every aggregate type, combines
only ``sum``, keeps the *last* AddToCell/MergeToCell input for min/max/hll, and refuses
MergeToCell with an int value. The writer combines each cell's inputs of one write itself and
sends them with AddToCell only (never a delete first), so batches add up: the sum of every
event on the emulator too; for min/max the emulator's figure (the last batch's) is modelled
beside Cloud Bigtable's by ``Counters.expected``."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest
from google.cloud.bigtable_v2.types import MutateRowRequest, Mutation, ReadRowsRequest
from injected_faults import Unavailable, Wrapped

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
    with pytest.raises(SchemaError, match="'sum',.*'min',.*'max',.*'hll'.*got 'avg'"):
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
    # a second write of the same inputs is merged with the cells, as on Cloud Bigtable (no
    # delete first): the sums double (2 × 17, 2 × -7); min and max of the same values again
    # stay 3, 9, -7 (the emulator keeps the last input, which here is the same figure)
    writer.write_cells(conn, cells, tid, progress=False)
    assert _read(conn, tid) == {
        (b"r1", "s", b"q"): 34, (b"r1", "lo", b"q"): 3, (b"r1", "hi", b"q"): 9,
        (b"r2", "s", b"q"): -14, (b"r2", "lo", b"q"): -7, (b"r2", "hi", b"q"): -7,
    }  # fmt: skip


def test_hll_is_refused_on_the_emulator_before_any_request(conn, table_factory):
    tid = table_factory([Family("u", aggregate="hll"), Family("p")])
    cells = CellFrame.from_columns(
        row_key=["r", "r", "r"],
        family=["p", "u", "u"],
        qualifier=["x", "players", "players"],
        timestamp_us=[0, 0, 0],
        value=[b"plain", _i64(11), _i64(12)],
    )
    with pytest.raises(WriteError, match="'u' of table 'main'.*HLL.*Nothing was written"):
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
    with pytest.raises(SchemaError, match="'sum' family"):
        Counters(("player",), family=Family("x", aggregate="max"))
    assert np.all(
        hi.to_cells(ds).frame["timestamp_us"] == pd.Timestamp("2024-01-01", tz="UTC").value // 1000
    )


# ------------------------------------------------------------------ data arriving in batches


def _scores(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """``n`` whole-number scores of two players over two days, at distinct random minutes."""
    slot = rng.choice(2 * 2 * 24 * 60, size=n, replace=False)  # (player, minute) pairs
    minutes = slot // 2
    return pd.DataFrame(
        {
            "player": np.where(slot % 2 == 0, "ann", "bo"),
            "time": pd.Timestamp("2024-03-01", tz="UTC") + pd.to_timedelta(minutes, unit="min"),
            "score": rng.integers(-50, 51, size=n),
        }
    )


def _batch(frame: pd.DataFrame, i: int):
    return wb.from_dataframe(
        frame.reset_index(drop=True),
        name=f"scores_{i}",
        entity=["player"],
        time="time",
        measures=["score"],
    )


_FAMILIES = {"s": "sum", "lo": "min", "hi": "max"}


def _by_hand(batches: list[pd.DataFrame]) -> dict[str, dict[tuple[str, str], tuple[int, int]]]:
    """Per family, (row key, hour) → (what Cloud Bigtable keeps, what the emulator keeps).

    Cloud Bigtable merges every input into the cell: the sum, min or max of every event in it.
    The emulator (measured) adds sums but keeps the last input of a min/max cell; the writer
    sends one input per cell and write, so it keeps the min/max of the last batch in the cell.
    """
    inputs: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for b, frame in enumerate(batches):
        for player, t, v in frame[["player", "time", "score"]].itertuples(index=False):
            key = (f"{player}#{t:%Y%m%d}", f"{t:%H}")
            inputs.setdefault(key, []).append((b, int(v)))
    out: dict[str, dict[tuple[str, str], tuple[int, int]]] = {f: {} for f in _FAMILIES}
    for key, got in inputs.items():
        values = [v for _, v in got]
        last = [v for b, v in got if b == max(b for b, _ in got)]
        out["s"][key] = (sum(values), sum(values))
        out["lo"][key] = (min(values), min(last))
        out["hi"][key] = (max(values), max(last))
    return out


def test_the_issue_s_two_loads_add_up_sum_and_max(conn, table_factory):
    """Scores 5, 3, 9 then (a second write) 1, 8, 2 in one hour: the sum cell holds 28; Cloud
    Bigtable's max cell holds 9, the emulator's 8 (the max of the last write: measured)."""
    t = pd.date_range("2024-01-01 10:00", periods=6, freq="5min", tz="UTC")
    frame = pd.DataFrame({"player": ["p"] * 6, "time": t, "score": [5, 3, 9, 1, 8, 2]})
    first, second = _batch(frame.iloc[:3], 0), _batch(frame.iloc[3:], 1)
    total = Counters(("player",), measure="score", family=Family("x", aggregate="sum"))
    top = Counters(("player",), measure="score", family=Family("m", aggregate="max"))
    tid = table_factory([total.family, top.family])
    for ds in (first, second):
        writer.write_cells(conn, total.to_cells(ds), tid, progress=False)
        writer.write_cells(conn, top.to_cells(ds), tid, progress=False)
    assert _read(conn, tid) == {(b"p#20240101", "x", b"10"): 28, (b"p#20240101", "m", b"10"): 8}
    assert top.expected(first, second).to_dict("records") == [
        {"row_key": "p#20240101", "qualifier": "10", "value": 9, "emulator": 8}
    ]
    assert total.expected(first, second)[["value", "emulator"]].values.tolist() == [[28, 28]]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_counters_written_in_batches_hold_every_event_in_any_order(conn, table_factory, seed):
    """2–10 batches of one event set, shuffled and cut at random (seeded): every sum cell ends
    at the sum of all its events, on the emulator too; min/max as the emulator keeps them."""
    rng = np.random.default_rng(seed)
    events = _scores(120, rng)
    n_batches = int(rng.integers(2, 11))
    shuffled = events.iloc[rng.permutation(len(events))]
    cuts = np.sort(rng.choice(np.arange(1, len(events)), size=n_batches - 1, replace=False))
    bounds = [0, *cuts.tolist(), len(events)]
    frames = [shuffled.iloc[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    batches = [_batch(f, i) for i, f in enumerate(frames)]
    counters = {
        name: Counters(("player",), measure="score", family=Family(name, aggregate=kind))
        for name, kind in _FAMILIES.items()
    }
    tid = table_factory([c.family for c in counters.values()])
    for ds in batches:
        for c in counters.values():
            writer.write_cells(conn, c.to_cells(ds), tid, progress=False)
    want = _by_hand(frames)
    got = _read(conn, tid)
    assert len(got) == 3 * len(want["s"])
    for name, c in counters.items():
        stored = {(k.decode(), q.decode()): v for (k, fam, q), v in got.items() if fam == name}
        assert stored == {key: emu for key, (_, emu) in want[name].items()}, name
        model = c.expected(*batches)
        assert {
            (r.row_key, r.qualifier): (r.value, r.emulator) for r in model.itertuples()
        } == want[name], name
    # the sum is the sum of every event, however the batches were cut and ordered
    assert sum(got[k] for k in got if k[1] == "s") == int(events["score"].sum())


def test_an_aggregate_entry_is_never_resent_after_an_unclear_failure(
    own_conn, table_factory, monkeypatch
):
    """The first MutateRows is applied, then its stream breaks before any answer: resending
    would add 7 again (14). The write stops, names the row and why, and the cell holds 7."""
    real = own_conn.stream_call
    sent: list[int] = []

    def stream_call(method: str, req_t: Any, resp_t: Any) -> Any:
        inner = real(method, req_t, resp_t)
        if method != writer.MUTATE_ROWS:
            return inner

        def call(req: Any, **kw: Any) -> Any:
            stream = inner(req, **kw)
            sent.append(len(req.entries))

            def applied_then_lost() -> Iterator[Any]:
                list(stream)  # every entry applied, every answer lost
                raise Unavailable()
                yield  # a generator

            return Wrapped(stream, applied_then_lost()) if len(sent) == 1 else stream

        return call

    monkeypatch.setattr(own_conn, "stream_call", stream_call)
    tid = table_factory([Family("s", aggregate="sum")])
    cells = CellFrame.from_columns(
        row_key=["r"], family=["s"], qualifier=["q"], timestamp_us=[0], value=[_i64(7)]
    )
    with pytest.raises(WriteError, match="row 'r'.*AddToCell.*not idempotent.*not resent"):
        writer.write_cells(own_conn, cells, tid, progress=False)
    assert sent == [1]
    assert _read(own_conn, tid) == {(b"r", "s", b"q"): 7}
