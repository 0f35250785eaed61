"""Writer, reader and load() against the real emulator; round trips checked with `cbt` too; at
the end, what the reader sends and keeps, with ReadRows replaced by a stand-in (no emulator)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from datetime import datetime, timezone

import grpc
import numpy as np
import pandas as pd
import pytest
from waits import HANG_S

import workbench as wb
from workbench.bigtable import admin, reader, writer
from workbench.bigtable.connection import Connection
from workbench.bigtable.reader import gc_live_cells, read_plan, read_table
from workbench.cells import CellFrame
from workbench.schema.families import Family, intersection, max_age, max_versions, union
from workbench.schema.plan import CellFilter, KeyRange, ReadPlan, prefix_end


def _cells(n_rows: int = 300, seed: int = 1) -> CellFrame:
    """Hand-built cells: several families, qualifiers, versions, binary and non-ASCII values."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_rows):
        key = f"s{i % 7}#{i:05d}" + ("#é" if i % 50 == 0 else "")
        for q in ("t", "h"):
            for v in range(1 + i % 3):  # 1-3 versions per column
                rows.append(
                    (
                        key,
                        "m",
                        q,
                        (1_425_168_000_000 + i * 60_000 + v) * 1000,
                        rng.bytes(int(rng.integers(0, 12))),
                    )
                )
        if i % 4 == 0:
            rows.append((key, "x", "note", (1_425_168_000_000 + i) * 1000, "naïve ✓".encode()))
    f = pd.DataFrame(rows, columns=["row_key", "family", "qualifier", "timestamp_us", "value"])
    return CellFrame.from_columns(
        row_key=f["row_key"],
        family=f["family"],
        qualifier=f["qualifier"],
        timestamp_us=f["timestamp_us"].to_numpy(),
        value=f["value"],
    )


def _cbt(emulator, *args: str) -> str:
    assert shutil.which("cbt"), (
        "cbt is not on PATH (Google Cloud SDK: gcloud components install cbt)"
    )
    env = {**os.environ, **emulator.env(), "TZ": "UTC"}
    out = subprocess.run(
        ["cbt", "-project", emulator.project, "-instance", emulator.instance, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


_SIMPLE = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92, '"': 34, "'": 39}


def _go_unquote(s: str) -> bytes:
    """Undo Go's strconv.Quote (how `cbt read` prints values): \\xNN bytes, \\u/\\U runes, UTF-8 text."""
    out = bytearray()
    i = 0
    while i < len(s):
        ch = s[i]
        if ch != "\\":
            out += ch.encode("utf-8")
            i += 1
            continue
        e = s[i + 1]
        if e in _SIMPLE:
            out.append(_SIMPLE[e])
            i += 2
        elif e == "x":
            out.append(int(s[i + 2 : i + 4], 16))
            i += 4
        elif e in "uU":
            n = 4 if e == "u" else 8
            out += chr(int(s[i + 2 : i + 2 + n], 16)).encode("utf-8")
            i += 2 + n
        else:
            raise AssertionError(f"unexpected escape \\{e} in cbt output")
    return bytes(out)


def _parse_cbt_read(text: str) -> CellFrame:
    """`cbt read` output → CellFrame (values are Go-quoted strings; timestamps UTC µs)."""
    rows, key = [], None
    lines = text.splitlines()
    i = 0
    head = re.compile(
        r"^  (?P<fam>[^:]+):(?P<qual>.*?)\s+@ (?P<ts>\d{4}/\d\d/\d\d-\d\d:\d\d:\d\d\.\d{6})$"
    )
    while i < len(lines):
        line = lines[i]
        if line.startswith("-" * 40):
            key = lines[i + 1]
            i += 2
            continue
        m = head.match(line)
        if m:
            value = lines[i + 1].strip()
            assert value.startswith('"') and value.endswith('"'), value
            raw = _go_unquote(value[1:-1])
            ts = datetime.strptime(m["ts"], "%Y/%m/%d-%H:%M:%S.%f").replace(tzinfo=timezone.utc)
            us = int(ts.timestamp()) * 1_000_000 + ts.microsecond
            rows.append((key, m["fam"], m["qual"], us, raw))
            i += 2
            continue
        i += 1
    f = pd.DataFrame(rows, columns=["row_key", "family", "qualifier", "timestamp_us", "value"])
    return CellFrame.from_columns(
        row_key=f["row_key"],
        family=f["family"],
        qualifier=f["qualifier"],
        timestamp_us=f["timestamp_us"].to_numpy(dtype=np.int64),
        value=f["value"],
    )


@pytest.mark.slow
def test_round_trip_identical_via_workbench_and_cbt(emulator, conn, table_factory):
    cells = _cells()
    tid = table_factory([Family("m"), Family("x")])
    rep = writer.write_cells(conn, cells, tid, progress=False, batch_mutations=200)
    assert rep.rows == cells.n_rows and rep.cells == len(cells) and rep.requests > 3
    assert read_table(conn, tid).equals(cells)
    via_cbt = _parse_cbt_read(_cbt(emulator, "read", tid))
    assert via_cbt.equals(cells)
    assert int(_cbt(emulator, "count", tid).strip()) == cells.n_rows


def test_rerun_writes_no_duplicates(conn, table_factory):
    cells = _cells(120)
    tid = table_factory([Family("m"), Family("x")])
    for threads in (1, 2):
        writer.write_cells(conn, cells, tid, progress=False, threads=threads, batch_mutations=100)
        got = read_table(conn, tid)
        assert len(got) == len(cells) and got.equals(cells)


def test_resume_from_skips_rows_before_the_key(conn, table_factory):
    cells = _cells(40)
    tid = table_factory([Family("m"), Family("x")])
    keys = sorted(cells.frame["row_key"].unique())
    writer.write_cells(conn, cells, tid, progress=False, resume_from=("main", keys[20]))
    got = read_table(conn, tid)
    assert sorted(got.frame["row_key"].unique()) == keys[20:]


PLANS = [
    ReadPlan("all"),
    ReadPlan("prefix", ranges=(KeyRange.for_prefix("s3#"),)),
    ReadPlan(
        "range", ranges=(KeyRange("s1#00050", "s1#00200"),), filter=CellFilter(families=("m",))
    ),
    ReadPlan("keys", keys=("s0#00000#é", "s2#00002", "nope")),
    ReadPlan(
        "multi",
        ranges=(
            KeyRange.for_prefix("s1"),
            KeyRange.for_prefix("s1#001"),
            KeyRange.for_prefix("s5"),
        ),
        keys=("s0#00007",),
        rows_limit=9,
    ),
    ReadPlan(
        "filtered",
        filter=CellFilter(
            qualifier_regex="t|note",
            row_key_regex=r"s[24]#.*",
            time_range_us=(1_425_168_900_000_000, 1_425_170_000_000_000),
            latest_versions=1,
        ),
    ),
    ReadPlan(
        "latest",
        ranges=(KeyRange.for_prefix("s6#"),),
        filter=CellFilter(latest_versions=2),
        rows_limit=3,
        reversed=True,
    ),
    ReadPlan("none", filter=CellFilter(families=())),
]


class _ReadStats(grpc.UnaryStreamClientInterceptor):
    """Asks every ReadRows sent through a channel for the server's full request stats
    (``REQUEST_STATS_FULL``) and keeps each stream's (rows seen, rows returned, cells seen,
    cells returned) as the server counted them."""

    def __init__(self) -> None:
        self.streams: list[tuple[int, int, int, int]] = []

    def intercept_unary_stream(self, continuation, details, request):
        if not details.method.endswith("/ReadRows"):
            return continuation(details, request)
        req = type(request)()
        req.CopyFrom(request)
        req.request_stats_view = req.REQUEST_STATS_FULL
        return _KeepStats(continuation(details, req), self.streams)


class _KeepStats:
    def __init__(self, call, out: list) -> None:
        self._call, self._out = call, out

    def __iter__(self):
        return self

    def __next__(self):
        resp = next(self._call)
        if resp.HasField("request_stats"):
            s = resp.request_stats.full_read_stats_view.read_iteration_stats
            self._out.append(
                (
                    s.rows_seen_count,
                    s.rows_returned_count,
                    s.cells_seen_count,
                    s.cells_returned_count,
                )
            )
        return resp

    def __getattr__(self, name):  # cancel(), code(), ... of the real call
        return getattr(self._call, name)


@pytest.mark.parametrize("plan", PLANS, ids=[p.intent for p in PLANS])
def test_reader_agrees_exactly_with_the_plan_model(conn, table_factory, plan):
    cells = _cells()
    tid = table_factory([Family("m"), Family("x")])
    writer.write_cells(conn, cells, tid, progress=False)
    stats = _ReadStats()
    measured = Connection(
        project=conn.project,
        instance=conn.instance,
        host=conn.host,
        is_production=False,
        timeout=conn.timeout,
        channel=grpc.intercept_channel(conn.channel, stats),
        admin_channel=conn.admin_channel,
    )
    res = read_plan(measured, tid, plan, model_cells=cells)
    model = plan.evaluate(cells)
    assert (res.rows_returned, res.cells_returned, res.bytes_returned) == (
        model.rows_returned,
        model.cells_returned,
        model.bytes_returned,
    )
    assert res.cells.equals(model.cells)
    assert res.agrees and res.scans == plan.scans
    # What the emulator scanned, by its own count (request stats), is what the plan's model says
    # it scans: the plan as the emulator runs it (a reversed plan is read forward there).
    on_emulator = plan.on_emulator().evaluate(cells)
    assert len(stats.streams) == 1, stats.streams  # one ReadRows answered
    rows_seen, rows_sent, cells_seen, _ = stats.streams[0]
    assert (rows_seen, cells_seen) == (on_emulator.rows_seen, on_emulator.cells_seen)
    assert rows_sent == res.rows_streamed  # the rows it says it sent are the rows that came
    assert "measured" in res._repr_html_()
    # the measured "—" of rows/cells/bytes seen says why (the read never reports them)
    assert res.figures()["measured"].isna().sum() == 3  # rows, cells and bytes seen
    assert "— not reported: a read returns what it keeps" in res._repr_html_()


def test_gc_rules_are_applied_on_read(conn, table_factory):
    day = 86_400_000_000
    # in the future by the wall clock: the emulator's own GC loop (about once a minute) must
    # not race the test on ages; it may trim versions, which GC-on-read hides anyway
    now = (int(time.time()) // 86_400 + 100) * day
    rows = []
    for fam in ("v", "a", "u", "i", "p"):
        for k in range(4):  # versions 0, 10, 20, 30 days old
            rows.append(("r1", fam, "q", now - k * 10 * day, f"{fam}{k}".encode()))
    f = pd.DataFrame(rows, columns=["row_key", "family", "qualifier", "timestamp_us", "value"])
    cells = CellFrame.from_columns(
        row_key=f["row_key"],
        family=f["family"],
        qualifier=f["qualifier"],
        timestamp_us=f["timestamp_us"].to_numpy(),
        value=f["value"],
    )
    fams = (
        Family("v", gc=max_versions(2)),
        Family("a", gc=max_age("15D")),
        Family("u", gc=union(max_age("25D"), max_versions(1))),
        Family("i", gc=intersection(max_age("5D"), max_versions(3))),
        Family("p"),
    )
    tid = table_factory(list(fams))
    writer.write_cells(conn, cells, tid, progress=False)
    stored = read_table(conn, tid)
    assert len(stored) >= 12  # the emulator keeps garbage until its lazy GC runs
    res = read_plan(conn, tid, ReadPlan("all"), families=fams, gc_now_us=now, model_cells=cells)
    got = (
        res.cells.frame.groupby("family")["value"]
        .apply(lambda s: sorted(v.decode() for v in s))
        .to_dict()
    )
    assert got == {
        "v": ["v0", "v1"],
        "a": ["a0", "a1"],
        "u": ["u0"],
        "i": ["i0", "i1", "i2"],
        "p": ["p0", "p1", "p2", "p3"],
    }
    assert res.cells.equals(gc_live_cells(cells, fams, now)) and res.agrees
    # with a latest-1 plan filter on top, GC runs first
    res1 = read_plan(
        conn, tid, ReadPlan("l", filter=CellFilter(latest_versions=1)), families=fams, gc_now_us=now
    )
    assert len(res1.cells) == 5
    # without GC-on-read the reader returns what is stored; the emulator's own GC loop may
    # collect between two reads, so compare with a read taken right after (again if it raced)
    for _ in range(3):
        raw = read_plan(conn, tid, ReadPlan("all"), families=fams, apply_gc=False)
        stored_now = read_table(conn, tid)
        if len(raw.cells) == len(stored_now):
            break
    assert len(raw.cells) == len(stored_now) > len(res.cells)


def test_read_table_returns_what_is_stored_and_applies_gc_only_when_asked(conn, table_factory):
    day = 86_400_000_000
    # in the future by the wall clock, so the emulator's own GC (by age) never collects them
    now = (int(time.time()) // 86_400 + 100) * day
    fams = (Family("a", gc=max_age("15D")),)
    cells = CellFrame.from_columns(
        row_key=["r1"] * 4,
        family="a",
        qualifier="q",
        timestamp_us=np.array([now - k * 10 * day for k in range(4)]),  # 0, 10, 20, 30 days old
        value=[f"a{k}".encode() for k in range(4)],
    )
    tid = table_factory(list(fams))
    writer.write_cells(conn, cells, tid, progress=False)
    # by default every stored cell, even with the family's GC rule and a clock at hand
    assert len(read_table(conn, tid, families=fams, gc_now_us=now)) == 4
    # asked to, max_age 15 days at `now` keeps the cells 0 and 10 days old (G18)
    kept = read_table(conn, tid, families=fams, apply_gc=True, gc_now_us=now)
    assert sorted(kept.frame["value"]) == [b"a0", b"a1"]
    # what the server streamed: 1 row, 4 cells of key "r1" 2 + family 1 + qualifier 1 + 8
    # (timestamp) + value 2 = 14 bytes each, 56 bytes; with GC on the server, 2 cells, 28 bytes
    whole = read_plan(conn, tid, ReadPlan("all"))
    assert (whole.rows_streamed, whole.cells_streamed, whole.bytes_streamed) == (1, 4, 56)
    gc = read_plan(conn, tid, ReadPlan("all"), families=fams, gc_now_us=now)
    assert (gc.rows_streamed, gc.cells_streamed, gc.bytes_streamed) == (1, 2, 28)


def test_a_row_over_4_mib_is_readable(conn, table_factory):
    big = bytes(range(256)) * (6 * 4096)  # 6 MiB
    cells = CellFrame.from_columns(
        row_key=["big", "small"],
        family="m",
        qualifier=["blob", "q"],
        timestamp_us=[1000, 1000],
        value=[big, b"x"],
    )
    tid = table_factory([Family("m")])
    writer.write_cells(conn, cells, tid, progress=False)
    res = read_plan(conn, tid, ReadPlan("one", keys=("big",)))
    assert res.cells.frame["value"].tolist() == [big]


@pytest.mark.slow
def test_load_presets_verify_and_run_every_query(emulator):
    for name, pattern in [
        ("fx_prices", "salted"),
        ("game_scores", "two_tables"),
        ("energy_meters", "reversed_id_hourly"),
        ("weather_balloons", "bucket_new_cells"),
    ]:
        ds = wb.load_dataset(name, size="tiny")
        table = emulator.load(
            ds, wb.preset(name, pattern), table_id=f"t-{name}-{pattern}", progress=False
        )
        try:
            assert table.verification is not None and table.verification.equal, table.verification
            assert table.write_report.cells == len(table.cells)
            assert (table.project, table.instance) == ("workbench", "workbench")
            assert table.cbt_args() == ["-project", "workbench", "-instance", "workbench"]
            assert table.table_id in table.conn.list_tables()
            if (
                pattern == "reversed_id_hourly"
            ):  # 2015 data under max_age("90D"): stored rule keeps it
                stored = admin.get_families(table.conn, table.table_id)
                assert (
                    "max_age" not in stored["r"].gc_rule
                    and stored["s"].gc_rule.max_num_versions == 1
                )
                assert any("max-age rules" in n for n in table.notes)
            for q in ds.queries:
                run = table.run(q)
                assert run.result.agrees, (name, pattern, q.name, run.figures())
                assert run.correct in (True, None), (name, pattern, q.name)
                assert q.name in run._repr_html_()
            # rerunning the load is safe: same cells, still verified
            again = emulator.load(
                ds, wb.preset(name, pattern), table_id=table.table_id, progress=False
            )
            assert again.verification.equal and len(again.read_all()) == len(table.cells)
        finally:
            table.drop()
        assert table.table_id not in table.conn.list_tables()


def test_verify_reports_exact_differences(emulator):
    ds = wb.load_dataset("garden_temperature", size="tiny")
    schema = wb.preset("garden_temperature", "tall")
    table = emulator.load(ds, schema, table_id="t-verify-diff", progress=False)
    try:
        cells = table.cells.sorted().frame
        first_key = cells["row_key"].iloc[0]
        from workbench.bigtable.admin import truncate_table

        truncate_table(table.conn, table.table_id, row_key_prefix=first_key)
        extra = cells[cells["row_key"] == cells["row_key"].iloc[-1]].copy()
        changed_key = cells["row_key"].iloc[len(cells) // 2]
        mod = cells[cells["row_key"] == changed_key].copy()
        mod["value"] = [b"99.5"] * len(mod) if len(mod) else []
        writer.write_cells(
            table.conn, CellFrame(mod.reset_index(drop=True)), table.tables, progress=False
        )
        rep = table.verify()
        assert not rep.equal
        assert len(rep.missing) >= 1 and len(rep.changed) >= 1 and len(rep.extra) == 0
        assert "missing" in rep._repr_html_() and "changed" in rep.summary()
        del extra
    finally:
        table.drop()


def test_summary_row_queries_are_checked_against_the_same_stats_of_the_source(emulator):
    """A query served by pre-aggregated rows (G29) is compared with the source's statistics, not its events."""
    from google.cloud.bigtable_v2.types import MutateRowRequest, Mutation

    ds = wb.load_dataset("energy_meters", size="tiny")
    schema = wb.preset("energy_meters", "reversed_id_hourly")
    meter = ds.frame["meter_id"].iloc[0]
    day = ds.frame["time"].iloc[0].floor("D")
    intent = wb.QueryIntent(
        "meter_hours",
        "range",
        "one meter's hourly kWh on its first day",
        entity={"meter_id": meter},
        start=day,
        end=day + pd.Timedelta(days=1),
        aggregate="hourly:sum",
    )
    table = emulator.load(ds, schema, table_id="t-summary-check", progress=False)
    try:
        run = table.run(intent)
        assert run.answer_kind == "summary rows" and run.correct is True, run.answer
        hours = (
            ds.frame[
                (ds.frame["meter_id"] == meter)
                & (ds.frame["time"] >= day)
                & (ds.frame["time"] < day + pd.Timedelta(days=1))
            ]["time"]
            .dt.floor("h")
            .nunique()
        )
        assert len(run.answer) == hours and "kwh_sum" in run.answer.columns
        # hourly:sum of every measure needs 2 of the 10 statistic cells of each hour's row
        # (kwh and voltage x count, min, max, sum, mean): the emulator returns those two, as
        # the plan's model says
        assert run.result.plan.filter.qualifier_regex == "kwh_sum|voltage_sum"
        assert run.result.rows_returned == hours and run.result.cells_returned == 2 * hours
        assert set(run.result.cells.frame["qualifier"]) == {"kwh_sum", "voltage_sum"}
        model = run.result.plan.evaluate(schema.to_cells(ds))
        assert (model.rows_returned, model.cells_returned, model.bytes_returned) == (
            run.result.rows_returned,
            run.result.cells_returned,
            run.result.bytes_returned,
        )
        assert model.cells_seen == 10 * hours  # the server still visits the whole row
        assert list(run.answer.columns) == ["meter_id", "time", "kwh_sum", "voltage_sum"]
        page = run._repr_html_()
        assert "summary rows" in page and "✔ matches" in page
        # a wrong summary cell in the table is caught
        cell = run.result.cells.frame
        cell = cell[cell["qualifier"] == "kwh_sum"].iloc[0]
        table.conn.data.mutate_row(
            request=MutateRowRequest(
                table_name=table.conn.table_path(table.table_id),
                row_key=cell["row_key"].encode(),
                mutations=[
                    Mutation(
                        set_cell=Mutation.SetCell(
                            family_name=cell["family"],
                            column_qualifier=b"kwh_sum",
                            timestamp_micros=int(cell["timestamp_us"]),
                            value=b"999.0",
                        )
                    )
                ],
            )
        )
        assert table.run(intent).correct is False
    finally:
        table.drop()


def test_run_takes_a_query_name_and_refuses_columns_the_dataset_lacks(emulator):
    from workbench.errors import DatasetError

    ds = wb.load_dataset("fx_prices", size="tiny")
    table = emulator.load(
        ds, wb.preset("fx_prices", "pair_microseconds"), table_id="t-run-names", progress=False
    )
    try:
        assert table.run("latest_quote").correct is True
        typo = wb.QueryIntent(
            "typo", "latest", "newest quote", entity={"pairr": "USD/JPY"}, limit=1
        )
        with pytest.raises(DatasetError, match=r"fixes 'pairr'.*mean 'pair'"):
            table.run(typo)  # would otherwise plan a silent full-table scan
        with pytest.raises(DatasetError, match=r"has no query .latest.*mean .latest_quote."):
            table.run("latest")
    finally:
        table.drop()


def test_loading_another_design_under_the_same_table_id_says_what_to_do(emulator):
    import dataclasses

    ds = wb.load_dataset("garden_temperature", size="tiny")
    first = wb.preset("garden_temperature", "tall")
    table = emulator.load(ds, first, table_id="t-same-id", progress=False)
    try:
        edited = dataclasses.replace(
            first, key=wb.RowKey((wb.Field("garden"), wb.ReversedTimestamp("s")))
        )
        with pytest.raises(
            wb.WriteError,
            match=r"holds design 'tall'.*other settings.*Nothing was written.*table.drop\(\)",
        ):
            emulator.load(ds, edited, table_id="t-same-id", progress=False)
    finally:
        table.drop()


# rows "a" … "e", one cell each: a range's end key is a row that exists
_ABCDE = CellFrame.from_columns(
    row_key=list("abcde"),
    family="m",
    qualifier="q",
    timestamp_us=[1_425_168_000_000_000] * 5,
    value=[b"v"] * 5,
)
# Bigtable's RowRange as the workbench writes it: start_key_closed, end_key_open, so a range
# from "b" to "d" holds b and c, never d, though d exists; "b" to "c" holds b alone
_END_OPEN = [
    (KeyRange("b", "d"), ["b", "c"]),
    (KeyRange("b", "c"), ["b"]),
    (KeyRange(None, "b"), ["a"]),
    (KeyRange("d", None), ["d", "e"]),
]


@pytest.mark.parametrize(("rng", "rows"), _END_OPEN, ids=str)
def test_a_range_in_the_model_stops_before_its_end_key(rng, rows):
    got = ReadPlan("r", ranges=(rng,)).evaluate(_ABCDE)
    assert got.cells.frame["row_key"].tolist() == rows and got.rows_returned == len(rows)


def test_a_prefix_range_ends_at_the_next_key_after_every_key_with_the_prefix():
    # by hand: the last byte of the prefix raised by one ("ab" → "ac", "a" → "b"), so the
    # range [prefix, end) holds exactly the keys starting with the prefix
    assert prefix_end("ab") == "ac" and prefix_end("a") == "b"
    assert KeyRange.for_prefix("ab") == KeyRange("ab", "ac", "ab")
    assert KeyRange.for_prefix("") == KeyRange(None, None, "")  # the whole table
    keys = pd.Series(["a", "ab", "ab#1", "abz", "ac", "b"])
    assert keys[KeyRange.for_prefix("ab").mask(keys)].tolist() == ["ab", "ab#1", "abz"]


def test_a_key_range_prints_half_open_naming_an_open_side_or_its_prefix():
    assert str(KeyRange("b", "d")) == "[b .. d)"
    assert str(KeyRange(None, "b")) == "[(start) .. b)"
    assert str(KeyRange("d", None)) == "[d .. (end))"
    assert str(KeyRange.for_prefix("ab")) == "prefix 'ab'"


def test_a_range_read_on_the_emulator_stops_before_its_end_key(conn, table_factory):
    tid = table_factory([Family("m")])
    writer.write_cells(conn, _ABCDE, tid, progress=False)
    for rng, rows in _END_OPEN:
        res = read_plan(conn, tid, ReadPlan("r", ranges=(rng,)))
        assert res.cells.frame["row_key"].tolist() == rows, rng
    # two ranges in one request, the first ending where the second starts: each row once
    two = ReadPlan("two", ranges=(KeyRange("a", "c"), KeyRange("c", "e")))
    assert read_plan(conn, tid, two).cells.frame["row_key"].tolist() == ["a", "b", "c", "d"]


def test_a_prefix_range_past_a_multibyte_character_agrees_with_bigtables_byte_order(
    conn, table_factory
):
    # "¿" is C2 BF in UTF-8 and "À" is C3 80: in byte order (Bigtable's) every key starting
    # with "¿" sorts before "À", so the prefix range of "¿" ends at "À" (the next code point).
    # Raising the last byte gave the invalid C2 C0, held in Python as a surrogate sorting after
    # "À…", so the model kept "À" and "Àa" where Bigtable does not
    assert prefix_end("¿") == "À" and prefix_end("ÿ") == "Ā"
    assert prefix_end("\U0010ffff") is None and prefix_end("a\U0010ffff") == "b"
    keys = ["¾z", "¿", "¿x", "À", "Àa"]
    cells = CellFrame.from_columns(
        row_key=keys,
        family="m",
        qualifier="q",
        timestamp_us=[1_425_168_000_000_000] * len(keys),
        value=[b"v"] * len(keys),
    )
    plan = ReadPlan("r", ranges=(KeyRange.for_prefix("¿"),))
    assert plan.evaluate(cells).cells.frame["row_key"].tolist() == ["¿", "¿x"]
    tid = table_factory([Family("m")])
    writer.write_cells(conn, cells, tid, progress=False)
    assert read_plan(conn, tid, plan).cells.frame["row_key"].tolist() == ["¿", "¿x"]


# ----------------------------------------------------------------------------- reader, no emulator
# What read_plan sends and how it words a failure, with ReadRows replaced by a stand-in that
# records each request (milliseconds; the emulator tests above read the same paths for real).


class _StubConn:
    """The few Connection attributes read_plan touches."""

    def __init__(self, *, reverse_scans: bool) -> None:
        self.reverse_scans = reverse_scans
        self.is_production = False
        self.host = "localhost:1"
        self.target = "stub emulator"

    def table_path(self, table_id: str) -> str:
        return f"projects/p/instances/i/tables/{table_id}"

    def diagnose(self) -> str:
        return "(diagnosis)"

    def why_missing(self, table_id: str) -> str:
        return ""


def _recording(monkeypatch, sent: list, error: Exception | None = None) -> None:
    """Replace ReadRows: record (request, knock) and return no rows (or raise ``error``)."""

    def fake(conn, req, md, cols, knock):
        sent.append((req, knock))
        if error is not None:
            raise error

    monkeypatch.setattr(reader, "_read_stream", fake)


def _three_rows() -> CellFrame:
    return CellFrame.from_columns(
        row_key=["a", "b", "c"],
        family="m",
        qualifier="q",
        timestamp_us=[1_000_000] * 3,
        value=[b"v"] * 3,
    )


def test_a_reversed_read_with_a_rows_limit_sends_both_where_the_server_scans_in_reverse(
    monkeypatch,
):
    sent: list = []
    _recording(monkeypatch, sent)
    plan = ReadPlan("newest 2", ranges=(KeyRange("a", "z"),), reversed=True, rows_limit=2)
    read_plan(_StubConn(reverse_scans=True), "t", plan)
    ((req, knock),) = sent
    # Cloud Bigtable scans in reverse itself: one request, reversed, with the plan's limit
    assert req.reversed and req.rows_limit == 2
    assert req.rows.row_ranges[0].start_key_closed == b"a"
    assert req.rows.row_ranges[0].end_key_open == b"z"
    # an emulator's read knocks on its port with a 1 s handshake (reader.py: READ_IDLE_TIMEOUT)
    knocked: list = []
    monkeypatch.setattr(
        reader, "speaks_grpc", lambda host, timeout: knocked.append((host, timeout))
    )
    knock()
    assert knocked == [("localhost:1", 1.0)]


def test_a_reversed_read_the_emulator_runs_forward_carries_the_emulators_model(monkeypatch):
    sent: list = []
    _recording(monkeypatch, sent)
    plan = ReadPlan("newest 1", ranges=(KeyRange("a", "z"),), reversed=True, rows_limit=1)
    res = read_plan(_StubConn(reverse_scans=False), "t", plan, model_cells=_three_rows())
    ((req, _),) = sent
    # the emulator refuses reverse scans: the range is read forward without the limit
    assert not req.reversed and req.rows_limit == 0
    # the model: the newest 1 of rows a, b, c is c; the emulator streams all 3 rows forward
    assert res.modelled is not None and res.modelled.rows_returned == 1
    assert res.emulator_model is not None and res.emulator_model.rows_returned == 3
    assert any("reverse scans" in n for n in res.notes)


def test_a_per_range_limit_sends_one_request_a_range_each_with_the_gc_filter(monkeypatch):
    sent: list = []
    _recording(monkeypatch, sent)
    plan = ReadPlan(
        "1 per range",
        ranges=(KeyRange("a", "b"), KeyRange("c", "d")),
        rows_limit=1,
        limit_per_range=True,
    )
    res = read_plan(
        _StubConn(reverse_scans=False), "t", plan, families=[Family("m", max_versions(1))]
    )
    # 2 ranges -> 2 requests, each with rows_limit 1 and GC-on-read (max_versions(1) keeps the
    # newest cell per column: cells_per_column_limit_filter 1), apply_gc being the default
    assert [r.rows_limit for r, _ in sent] == [1, 1]
    assert [r.rows.row_ranges[0].start_key_closed for r, _ in sent] == [b"a", b"c"]
    # family m's branch of the filter: its name, then the newest 1 cell per column
    m_newest = [f.cells_per_column_limit_filter for r, _ in sent for f in r.filter.chain.filters]
    assert m_newest == [0, 1, 0, 1]  # (the family regex has no limit: 0)
    assert all(r.filter.chain.filters[0].family_name_regex_filter for r, _ in sent)
    assert "2 requests" in res.notes[-1]
    # without GC on read no filter is sent
    sent.clear()
    read_plan(
        _StubConn(reverse_scans=False),
        "t",
        plan,
        families=[Family("m", max_versions(1))],
        apply_gc=False,
    )
    assert [r.HasField("filter") for r, _ in sent] == [False, False]


class _Unavailable(grpc.RpcError):
    def code(self):
        return grpc.StatusCode.UNAVAILABLE

    def details(self):
        return "connection refused"


def test_a_read_the_retry_policy_gave_up_on_says_how_long_it_tried(monkeypatch):
    _recording(monkeypatch, [], error=_Unavailable())
    clock = iter([100.0, 102.5])  # perf_counter at the start of the read, then at the failure
    monkeypatch.setattr(reader.time, "perf_counter", lambda: next(clock))
    with pytest.raises(wb.EmulatorUnavailable, match="stub emulator") as err:
        read_plan(_StubConn(reverse_scans=False), "t", ReadPlan("all"))
    # 102.5 - 100.0 = 2.5 s; no row read before the failure
    assert "after 2.5 s" in str(err.value) and "UNAVAILABLE" in str(err.value)
    assert "0 rows read before" in str(err.value)


class _OneRowCall:
    """A ReadRows stream of one committed row, a/m:q@1000 = v."""

    def __init__(self) -> None:
        resp = reader.ReadRowsResponse()
        chunk = resp.chunks.add()
        chunk.row_key = b"a"
        chunk.family_name.value = "m"
        chunk.qualifier.value = b"q"
        chunk.timestamp_micros = 1000
        chunk.value = b"v"
        chunk.commit_row = True
        self.responses = [resp]

    def __iter__(self):
        return iter(self.responses)

    def cancel(self) -> None:  # the watchdog's; never reached here
        raise AssertionError("a stream that answers is not cancelled")


class _RetryRecorder(_StubConn):
    def __init__(self) -> None:
        super().__init__(reverse_scans=False)
        self.policies: list[dict] = []

    def stream_call(self, *args):
        return lambda req, metadata: _OneRowCall()

    def retry(self, **kw):
        self.policies.append(kw)
        return lambda fn: fn


def test_a_reads_retry_budget_runs_from_its_last_response(monkeypatch):
    # a long scan that keeps sending is not cut off by a transient error after the connection's
    # timeout: the one retry policy counts its budget from the stream's last response
    conn = _RetryRecorder()
    cols = reader.new_columns()
    before = time.monotonic()
    reader._read_stream(conn, reader.ReadRowsRequest(), (), cols, None)
    after = time.monotonic()
    assert cols["row_key"] == [b"a"] and cols["value"] == [b"v"]
    (policy,) = conn.policies
    assert policy["last_progress"] is not None
    assert before <= policy["last_progress"]() <= after  # when the one response arrived


def _result(**kw) -> reader.ReadResult:
    return reader.ReadResult(
        plan=ReadPlan("all"),
        cells=_three_rows(),
        rows_returned=1_234,
        cells_returned=5_678,
        bytes_returned=9_876_543,
        scans=2,
        elapsed_s=0.25,
        table_id="t",
        **kw,
    )


def test_a_read_result_prints_its_counts_and_milliseconds():
    # 0.25 s = 250.0 ms; counts with thousands separators
    shown = repr(_result())
    for fact in ("1,234 rows", "5,678 cells", "9,876,543 bytes", "2 scan(s)", "250.0 ms"):
        assert fact in shown, (fact, shown)


def test_a_read_results_figures_put_measured_beside_modelled():
    model = reader.PlanResult(
        scans=1,
        rows_seen=10,
        cells_seen=20,
        bytes_seen=300,
        rows_returned=4,
        cells_returned=8,
        bytes_returned=120,
    )
    fig = _result(modelled=model).figures()
    assert list(fig.columns) == ["measured", "modelled"] and fig.index.name == "figure"
    assert fig.loc["rows returned"].tolist() == [1_234, 4]
    assert fig.loc["bytes returned"].tolist() == [9_876_543, 120]
    assert fig.loc["scans"].tolist() == [2, 1]
    # the emulator does not report what it scanned: measured "seen" figures are missing
    assert fig["measured"].isna().tolist() == [False, False, False, True, True, True, False]
    assert fig.loc["cells seen", "modelled"] == 20


def test_an_empty_read_keeps_text_columns_text_and_timestamps_integers():
    f = reader._to_cellframe(reader.new_columns(), "main").frame
    assert len(f) == 0
    for col in ("table", "row_key", "family", "qualifier"):  # str in cells.py, even empty
        assert not pd.api.types.is_numeric_dtype(f[col]), (col, f[col].dtype)
    assert f["timestamp_us"].dtype == np.int64


def test_gc_on_read_of_an_age_and_two_version_counts_keeps_young_cells_or_the_larger_count():
    # intersection(max_age 1 day, max_versions 2, max_versions 3): garbage only when every rule
    # says so. now = 1,000,000,000,123 us; cutoff = now - 86,400,000,000 = 913,600,000,123,
    # floored to the ms: 913,600,000,000. Kept: cells at or after the cutoff, or older cells
    # among a column's newest max(2, 3) = 3.
    rule = intersection(max_age(86_400), max_versions(2), max_versions(3))
    got = reader._gc_keep_filter(rule, 1_000_000_000_123)
    young = reader.RowFilter()
    young.timestamp_range_filter.start_timestamp_micros = 913_600_000_000
    old = reader.RowFilter()
    old.timestamp_range_filter.end_timestamp_micros = 913_600_000_000
    old_kept = reader.RowFilter()
    old_kept.chain.filters.extend([reader.RowFilter(cells_per_column_limit_filter=3), old])
    want = reader.RowFilter()
    want.interleave.filters.extend([young, old_kept])
    assert got == want
