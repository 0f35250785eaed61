"""Bad input refused before the first request: nothing is written, nothing read, the error names
the value and what to do."""

from __future__ import annotations

import pandas as pd
import pytest

import workbench as wb
from workbench.errors import DatasetError, SchemaError


def _meters(times, ids=None):
    n = len(times)
    df = pd.DataFrame(
        {
            "meter_id": ids if ids is not None else [1] * n,
            "time": times,
            "kwh": [1.0] * n,
            "voltage": [230.0] * n,
        }
    )
    return wb.from_dataframe(
        df,
        entity=["meter_id"],
        time="time",
        measures=["kwh", "voltage"],
        name="badin",
        queries=[wb.QueryIntent("latest", "latest", "newest reading", entity={"meter_id": 1})],
    )


def _tables(emulator):
    return set(emulator.connection().list_tables())


def test_1969_event_refused_before_any_table_is_created(emulator):
    times = pd.to_datetime(["1969-12-31 23:59:59", "2024-01-01 00:00:00"], utc=True)
    ds = _meters(times)
    before = _tables(emulator)
    with pytest.raises(DatasetError, match=r"1969-12-31 23:59:59.*row 0.*before 1970.*Nothing was"):
        emulator.load(ds, wb.preset("energy_meters", "sequential_id"), progress=False)
    assert _tables(emulator) == before


def test_times_after_2262_refused_before_any_write(emulator):
    times = pd.Series(
        pd.array(["2024-01-01", "2300-01-01"], dtype="datetime64[us]")
    ).dt.tz_localize("UTC")
    # pandas parses it (microsecond times reach year 294,247), but the workbench computes in
    # nanoseconds, which end on 2262-04-11: a dataset holding it crashed later with a raw
    # OverflowError (wb.preset, wb.analyze), so the dataset itself refuses it, naming the
    # column, the row (1) and pandas' limit; nothing exists to be written
    before = _tables(emulator)
    with pytest.raises(
        DatasetError,
        match=r"'time'.*outside 1677-09-21.*2262-04-11 23:47:16 UTC.*\(row 1: 2300-01-01.*"
        r"pandas.Timestamp.min/max.*Nothing was loaded",
    ):
        _meters(times)
    assert _tables(emulator) == before


def test_lone_surrogate_in_an_entity_refused_before_any_write(emulator):
    times = pd.to_datetime(["2024-01-01", "2024-01-02"], utc=True)
    # object dtype: pandas' Arrow strings cannot even hold a lone surrogate.
    sites = pd.Series(["ok", "bad\ud800x"], dtype=object)
    df = pd.DataFrame({"meter_id": sites, "time": times, "kwh": [1.0, 2.0], "voltage": 1.0})
    before = _tables(emulator)
    with pytest.raises(DatasetError, match=r"'meter_id'.*lone surrogate.*Nothing was written"):
        ds = wb.from_dataframe(
            df, entity=["meter_id"], time="time", measures=["kwh", "voltage"], name="sur"
        )
        emulator.load(ds, wb.preset("energy_meters", "sequential_id"), progress=False)
    assert _tables(emulator) == before


def test_query_start_as_int_is_refused_not_read_as_nanoseconds():
    # 1_425_168_000 would be read by pandas as 1.4 s after 1970 (nanoseconds).
    with pytest.raises(DatasetError, match=r"start=1425168000 is a number.*unit='s'"):
        wb.QueryIntent("q", "range", "d", start=1_425_168_000)


def test_naive_query_time_is_read_as_utc_as_documented():
    q = wb.QueryIntent("q", "range", "d", start="2015-03-01", end="2015-03-02")
    assert q.start == pd.Timestamp("2015-03-01", tz="UTC")
    assert "read as UTC" in wb.QueryIntent.__doc__


@pytest.fixture(scope="module")
def table(emulator):
    times = pd.date_range("2024-01-01", periods=6, freq="1h", tz="UTC")
    ds = _meters(times, ids=[1, 2, 3, 1, 2, 3])
    h = emulator.load(
        ds, wb.preset("energy_meters", "sequential_id"), table_id="badin-q", progress=False
    )
    yield h
    emulator.connection().admin.delete_table(name=emulator.connection().table_path("badin-q"))


def test_unknown_query_name_names_the_known_ones(table):
    n = len(table.runs)
    with pytest.raises(DatasetError, match=r"no query 'latst'.*latest"):
        table.run("latst")
    assert len(table.runs) == n


def test_unknown_entity_value_names_known_values(table):
    q = wb.QueryIntent("m9", "latest", "d", entity={"meter_id": 9})
    with pytest.raises(DatasetError, match=r"meter_id=9 .*0 rows.*\(3\): 1, 2, 3"):
        table.run(q)


def test_end_not_after_start_is_refused_before_reading(table):
    q = wb.QueryIntent(
        "r", "range", "d", entity={"meter_id": 1}, start="2024-01-02", end="2024-01-01"
    )
    with pytest.raises(DatasetError, match=r"end 2024-01-01.*not after.*start 2024-01-02"):
        table.run(q)


def test_lone_surrogate_in_a_query_entity(table):
    q = wb.QueryIntent("s", "latest", "d", entity={"meter_id": "x\udc00"})
    with pytest.raises(DatasetError, match="lone surrogate"):
        table.run(q)


def test_load_with_a_preset_name_instead_of_a_schema(emulator):
    ds = _meters(pd.date_range("2024-01-01", periods=2, freq="1h", tz="UTC"))
    before = _tables(emulator)
    with pytest.raises(SchemaError, match=r"got str 'tall'.*wb\.preset\('badin', NAME\)"):
        emulator.load(ds, "tall", progress=False)
    assert _tables(emulator) == before
