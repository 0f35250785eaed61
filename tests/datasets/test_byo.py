"""Bring your own data: from_dataframe / from_csv accept good data and name every problem.

Each bad input gets a DatasetError naming the column, example rows and what to do;
nothing is dropped or changed silently, and the caller's DataFrame is never modified.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from vega_datasets import local_data

import workbench as wb
from workbench.errors import DatasetError
from workbench.schema import Field, RowKey, Schema, Tall, Timestamp


def events() -> pd.DataFrame:
    """Six readings of two sensors, deliberately out of order, times as ISO text with offsets."""
    return pd.DataFrame(
        {
            "sensor": ["s2", "s1", "s1", "s2", "s1", "s2"],
            "ts": [
                "2015-03-01T08:00:00Z",
                "2015-03-01T07:00:00Z",
                "2015-03-01T08:00:00+00:00",
                "2015-03-01T07:00:00Z",
                "2015-03-01T10:00:00+01:00",
                "2015-03-01T09:00:00Z",
            ],
            "temp": [20.5, 18.0, 19.0, 19.5, 21.0, 22.5],
            "ok": [True, True, False, True, True, True],
            "note": ["a", "b", "c", "d", "e", "f"],
        }
    )


def build(df: pd.DataFrame, **kw):
    args = dict(entity=["sensor"], time="ts", measures=["temp"])
    args.update(kw)
    return wb.from_dataframe(df, **args)


def unchanged(df: pd.DataFrame, before: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(df, before)
    assert list(df.dtypes) == list(before.dtypes) and df.index.equals(before.index)


def test_good_frame_becomes_a_sorted_utc_dataset_and_the_caller_frame_is_untouched() -> None:
    df = events()
    before = df.copy(deep=True)
    ds = build(df, measures=["temp", "ok"], units={"temp": "°C"}, name="sensors")
    unchanged(df, before)
    f = ds.frame
    assert ds.name == "sensors" and ds.entity == ["sensor"] and ds.time == "ts"
    assert ds.attributes == ["note"]  # remaining columns ride along
    assert list(f.columns) == ["sensor", "ts", "temp", "ok", "note"]
    assert str(f["ts"].dt.tz) == "UTC"
    assert list(f["sensor"]) == ["s1", "s1", "s1", "s2", "s2", "s2"]
    # +01:00 converted: 10:00+01:00 is 09:00 UTC
    assert list(f.loc[f["sensor"] == "s1", "ts"].dt.hour) == [7, 8, 9]
    assert f["ok"].dtype == bool
    # the only note: default queries were derived (none given)
    assert [n for n in ds.notes if "default set" not in n] == [] and ds.dropped_duplicates == 0
    assert f.equals(ds.canonical())
    q = wb.QueryIntent(
        "s1_morning",
        "range",
        "s1 07:00–09:00",
        entity={"sensor": "s1"},
        start="2015-03-01T07:00Z",
        end="2015-03-01T09:00Z",
    )
    ds2 = build(df, queries=[q])
    assert len(ds2.query("s1_morning").answer(ds2.frame, "ts")) == 2


def test_tz_aware_datetime_column_in_another_zone_is_converted_to_utc() -> None:
    df = events()
    df["ts"] = pd.to_datetime(df["ts"], utc=True).dt.tz_convert("Asia/Tokyo")
    ds = build(df)
    assert str(ds.frame["ts"].dt.tz) == "UTC"
    assert ds.frame["ts"].min() == pd.Timestamp("2015-03-01T07:00Z")


@pytest.mark.parametrize(
    "kw, words",
    [
        (dict(entity=["sensr"]), ["entity column 'sensr'", "Did you mean 'sensor'", "columns are"]),
        (dict(time="TS"), ["time column 'TS'", "Did you mean 'ts'"]),
        (dict(measures=["temperature"]), ["measure column 'temperature'", "Did you mean 'temp'"]),
        (dict(attributes=["nte"]), ["attribute column 'nte'", "Did you mean 'note'"]),
        (dict(measures=["temp", "sensor"]), ["'sensor'", "both as entity and as measure"]),
        (dict(entity=[]), ["entity is empty", "constant column"]),
        (dict(measures=[]), ["measures is empty"]),
        (dict(duplicates="newest"), ["duplicates='newest'", "first", "last"]),
        (dict(units={"tmp": "°C"}), ["units names 'tmp'", "Did you mean 'temp'"]),
        (dict(empty_ok=["snsor"]), ["empty_ok names 'snsor'", "Did you mean 'sensor'"]),
    ],
)
def test_wrong_column_names_and_arguments(kw: dict, words: list[str]) -> None:
    df = events()
    before = df.copy(deep=True)
    with pytest.raises(DatasetError) as err:
        build(df, **kw)
    for w in words:
        assert w in str(err.value), (w, str(err.value))
    unchanged(df, before)


def test_missing_and_empty_entity_values_name_the_rows() -> None:
    df = events()
    df.loc[2, "sensor"] = None
    df.loc[4, "sensor"] = "  "
    before = df.copy(deep=True)
    with pytest.raises(DatasetError) as err:
        build(df)
    msg = str(err.value)
    assert re.search(r"'sensor'.*\b2 of 6\b.*rows 2, 4", msg), msg
    unchanged(df, before)
    # a float entity (what NaN turns integer IDs into) is refused with a fix
    df = events().assign(sensor=[1.0, 2.0, 2.0, 1.0, 2.0, 1.0])
    with pytest.raises(DatasetError, match="floating-point.*astype"):
        build(df)


def test_missing_and_empty_times_name_the_rows() -> None:
    df = events()
    df.loc[1, "ts"] = None
    df.loc[3, "ts"] = ""
    with pytest.raises(DatasetError) as err:
        build(df)
    assert "Time column 'ts'" in str(err.value) and "rows 1, 3" in str(err.value)


def test_unparseable_times_name_rows_and_strings() -> None:
    df = events()
    df.loc[2, "ts"] = "yesterday-ish"
    df.loc[5, "ts"] = "2015-13-45T99:00Z"
    with pytest.raises(DatasetError) as err:
        build(df)
    msg = str(err.value)
    assert re.search(r"\b2 values.*rows 2, 5", msg), msg
    assert "'yesterday-ish'" in msg and "'2015-13-45T99:00Z'" in msg


def test_naive_times_need_an_explicit_zone() -> None:
    df = events().assign(
        ts=[
            "2015-03-01 08:00",
            "2015-03-01 07:00",
            "2015-03-01 08:00",
            "2015-03-01 07:00",
            "2015-03-01 09:00",
            "2015-03-01 09:00",
        ]
    )
    with pytest.raises(DatasetError) as err:
        build(df)
    assert "time zone" in str(err.value) and "naive_tz='UTC'" in str(err.value)
    ds = build(df, naive_tz="UTC")
    assert ds.frame["ts"].min() == pd.Timestamp("2015-03-01T07:00Z")
    assert any("naive_tz='UTC'" in n for n in ds.notes)  # recorded, not silent
    paris = build(df, naive_tz="Europe/Paris")
    assert paris.frame["ts"].min() == pd.Timestamp("2015-03-01T06:00Z")  # CET = UTC+1 in March
    # naive datetime64 columns follow the same rule
    df2 = df.assign(ts=pd.to_datetime(df["ts"]))
    with pytest.raises(DatasetError, match=r"time zone.*naive_tz="):
        build(df2)
    assert build(df2, naive_tz="UTC").frame["ts"].equals(ds.frame["ts"])
    with pytest.raises(DatasetError, match="Mars/Olympus"):
        build(df, naive_tz="Mars/Olympus")


def test_a_daylight_saving_gap_is_named() -> None:
    df = pd.DataFrame(
        {"sensor": ["s1", "s1"], "ts": ["2015-03-29 01:30", "2015-03-29 02:30"], "temp": [1.0, 2.0]}
    )
    with pytest.raises(DatasetError) as err:
        build(df, naive_tz="Europe/Paris")
    assert "row 1" in str(err.value) and "daylight-saving" in str(err.value)


def test_naive_and_aware_mixture_is_always_an_error() -> None:
    df = events()
    df.loc[3, "ts"] = "2015-03-01 07:00:00"  # no zone, among zoned times
    for naive_tz in (None, "UTC"):
        with pytest.raises(DatasetError) as err:
            build(df, naive_tz=naive_tz)
        msg = str(err.value)
        assert re.search(r"\(5 rows.*\(1 rows.*row 3: '2015-03-01 07:00:00'", msg), msg


def test_duplicate_events_are_reported_or_resolved_on_request() -> None:
    df = events()
    extra = pd.DataFrame(
        {
            "sensor": ["s1", "s1"],
            "ts": ["2015-03-01T07:00:00Z", "2015-03-01T07:00:00+00:00"],
            "temp": [99.0, 77.0],
            "ok": [True, True],
            "note": ["x", "y"],
        },
        index=[10, 11],
    )
    df = pd.concat([df, extra])
    before = df.copy(deep=True)
    with pytest.raises(DatasetError) as err:
        build(df)
    msg = str(err.value)
    assert re.search(r"\b2 events.*sensor='s1'", msg) and "rows 1, 10, 11" in msg, msg
    assert "duplicates='first'" in msg
    first = build(df, duplicates="first")
    last = build(df, duplicates="last")
    unchanged(df, before)
    at7 = pd.Timestamp("2015-03-01T07:00Z")

    def pick(d):
        return d.frame.loc[(d.frame["sensor"] == "s1") & (d.frame["ts"] == at7), "temp"].tolist()

    assert pick(first) == [18.0] and pick(last) == [77.0]
    for d in (first, last):
        assert d.dropped_duplicates == 2 and len(d) == len(df) - 2
        assert any(re.search(r"\b2 duplicate", n) for n in d.notes)
        assert "duplicate events dropped" in d._repr_html_()


def test_non_numeric_measures_name_column_and_values() -> None:
    df = events()
    df["temp"] = ["20.5", "18.0", "warm", "19.5", "n/a", "22.5"]
    with pytest.raises(DatasetError) as err:
        build(df)
    msg = str(err.value)
    assert (
        "Measure column 'temp'" in msg and "rows 2, 4" in msg and "'warm'" in msg and "'n/a'" in msg
    )
    # numbers written as text are converted, and the conversion is noted
    df["temp"] = ["20.5", "18.0", "19", "19.5", "21", "22.5"]
    ds = build(df)
    assert ds.frame["temp"].dtype.kind == "f" and any("converted" in n for n in ds.notes)
    # times are not measures (they would silently become nanosecond counts)
    with pytest.raises(DatasetError, match=r"'temp' holds times"):
        build(events().assign(temp=pd.date_range("2015-03-01", periods=6, tz="UTC")))
    # booleans are measures too
    assert build(events(), measures=["ok"]).frame["ok"].dtype == bool


def test_numeric_time_and_empty_frame_and_not_a_frame() -> None:
    df = events().assign(ts=np.arange(6) * 1000)
    with pytest.raises(DatasetError, match=r"holds numbers.*pd.to_datetime"):
        build(df)
    with pytest.raises(DatasetError, match="empty"):
        build(events().iloc[0:0])
    with pytest.raises(DatasetError, match="empty"):
        wb.from_dataframe(pd.DataFrame(), entity="sensor", time="ts", measures="temp")
    with pytest.raises(DatasetError, match="DataFrame"):
        wb.from_dataframe([{"sensor": "s1"}], entity="sensor", time="ts", measures="temp")  # type: ignore[arg-type]


def test_explicit_attributes_note_the_columns_left_out() -> None:
    ds = build(events(), attributes=[])
    assert ds.attributes == [] and "note" not in ds.frame.columns
    assert any("left out" in n and "'ok'" in n and "'note'" in n for n in ds.notes)


def test_queries_must_use_the_datasets_columns() -> None:
    q = wb.QueryIntent("bad", "range", "x", entity={"sensr": "s1"})
    with pytest.raises(DatasetError, match=r"'sensr'.*mean 'sensor'"):
        build(events(), queries=[q])


def test_empty_ok_lets_empty_strings_mean_absent_tags() -> None:
    df = pd.DataFrame(
        {
            "what": ["cpu", "mem"],
            "cpu-type": ["idle", ""],
            "ts": ["2011-03-13T07:06:40Z"] * 2,
            "value": [42.0, 1e9],
        }
    )
    with pytest.raises(DatasetError, match="empty_ok=\\['cpu-type'\\]"):
        wb.from_dataframe(df, entity=["what", "cpu-type"], time="ts", measures="value")
    ds = wb.from_dataframe(
        df, entity=["what", "cpu-type"], time="ts", measures="value", empty_ok=["cpu-type"]
    )
    assert list(ds.frame["cpu-type"]) == ["idle", ""]


# -- CSV files ---------------------------------------------------------------------------------
def test_csv_problems_name_the_file_and_its_lines(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="No CSV file"):
        wb.from_csv(tmp_path / "nope.csv", entity="sensor", time="ts", measures="temp")
    p = tmp_path / "readings.csv"
    p.write_text(
        "sensor,ts,temp\n007,2015-03-01T07:00Z,1.5\n007,not a time,2.5\n008,2015-03-01T07:00Z,3\n"
    )
    with pytest.raises(DatasetError) as err:
        wb.from_csv(p, entity="sensor", time="ts", measures="temp")
    assert "line 3:" in str(err.value) and "'not a time'" in str(err.value)
    p.write_text("sensor,ts,temp\n007,2015-03-01T07:00Z,1.5\n008,2015-03-01T07:00Z,3\n")
    ds = wb.from_csv(p, entity="sensor", time="ts", measures="temp")
    assert list(ds.frame["sensor"]) == ["007", "008"], "identifiers keep their leading zeros"
    assert ds.name == "readings"
    with pytest.raises(DatasetError, match="mean 'temp'"):
        wb.from_csv(p, entity="sensor", time="ts", measures="tmp")


def test_a_real_csv_nobody_here_wrote_loads_and_works_with_the_workbench() -> None:
    """vega_datasets' stocks.csv (symbol, date 'Jan 1 2000', price): monthly closes of five stocks."""
    path = local_data.stocks.filepath
    with pytest.raises(DatasetError, match=r"time zone.*naive_tz="):
        wb.from_csv(path, entity=["symbol"], time="date", measures=["price"])
    ds = wb.from_csv(
        path,
        entity=["symbol"],
        time="date",
        measures=["price"],
        naive_tz="UTC",
        units={"price": "USD"},
    )
    raw = pd.read_csv(path)
    assert len(ds) == len(raw) and ds.dropped_duplicates == 0
    assert set(ds.frame["symbol"]) == set(raw["symbol"]) >= {"MSFT", "AAPL", "IBM"}
    assert ds.frame["date"].min() == pd.Timestamp("2000-01-01T00:00Z")
    assert np.isclose(ds.frame["price"].sum(), raw["price"].sum())
    assert ds.frame.equals(ds.canonical())
    # the rest of the workbench: a schema's cells round-trip, a read plan answers an intent, analysis runs
    schema = Schema(
        name="symbol_day",
        key=RowKey((Field("symbol"), Timestamp("day", fmt="%Y%m%d"))),
        layout=Tall(),
    )
    cells = schema.to_cells(ds)
    assert cells.frame["row_key"].iloc[0].startswith("AAPL#2000")
    pd.testing.assert_frame_equal(schema.bind(ds).from_cells(cells), ds.canonical())
    q = wb.QueryIntent(
        "msft_2005",
        "range",
        "MSFT in 2005",
        entity={"symbol": "MSFT"},
        start="2005-01-01",
        end="2006-01-01",
    )
    assert schema.plan(q).evaluate(cells).rows_returned == len(q.answer(ds.frame, "date")) == 12
    assert "symbol_day" in repr(wb.analyze(ds, schema))
    # and a second real file with several measures and a text attribute
    weather = wb.from_csv(
        local_data.seattle_weather.filepath,
        entity=["weather"],
        time="date",
        measures=["precipitation", "temp_max", "temp_min", "wind"],
        naive_tz="UTC",
    )
    assert len(weather) == len(pd.read_csv(local_data.seattle_weather.filepath))


def test_nullable_and_arrow_measures_round_trip_through_the_schema() -> None:
    # df.convert_dtypes() gives boolean / Int64 / Float64 columns; missing values become NaN, noted
    df = events().convert_dtypes()
    df.loc[3, "temp"] = pd.NA
    df["count"] = pd.array([1, 2, 3, None, 5, 6], dtype="Int64")
    df["big"] = pd.array([2**53 + 1] * 6, dtype="Int64")
    ds = build(df, measures=["temp", "ok", "count", "big"])
    frame = ds.frame
    assert (
        frame["ok"].dtype == bool
        and frame["big"].dtype == np.int64
        and int(frame["big"].iloc[0]) == 2**53 + 1
    )
    assert frame["count"].dtype == np.float64 and frame["count"].isna().sum() == 1
    assert any("'count'" in n and "Int64" in n for n in ds.notes)
    schema = Schema("s", RowKey((Field("sensor"), Timestamp("second"))), Tall(wb.Family("m")))
    pd.testing.assert_frame_equal(schema.from_cells(schema.to_cells(ds)), ds.canonical())
