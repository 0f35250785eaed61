"""Exact values or a refusal: what a file holds is stored as it is, or refused up front with a
message naming the column, the row (or line, or query) and what to do; never rounded, written
and then blamed on something else, or answered with a raw pandas or protobuf error."""

from __future__ import annotations

import decimal
import re
import zipfile

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import workbench as wb
from workbench import cli
from workbench.bigtable import emulator as emu_mod
from workbench.datasets.model import LIMIT_MAX
from workbench.errors import DatasetError

TIMES = ["2024-01-01T00:00:00Z", "2024-01-01T01:00:00Z", "2024-01-01T02:00:00Z"]


def _events(**columns) -> pd.DataFrame:
    n = len(next(iter(columns.values())))
    return pd.DataFrame({"sensor": ["a"] * n, "time": pd.to_datetime(TIMES[:n]), **columns})


# -- Parquet decimals -------------------------------------------------------------------------
DECIMAL_38_2 = pa.decimal128(38, 2)


def _decimal_file(tmp_path, values, type_=DECIMAL_38_2):
    path = tmp_path / "prices.parquet"
    t = pa.table(
        {
            "sensor": ["a"] * len(values),
            "time": pa.array(pd.to_datetime(TIMES[: len(values)]).to_pydatetime()),
            "price": pa.array([decimal.Decimal(v) for v in values], type_),
        }
    )
    pq.write_table(t, path)
    return path


def test_parquet_decimals_beyond_float_precision_are_refused_naming_the_row(tmp_path):
    # 12345678901234567.89 has 19 significant digits; float64 keeps 17 at most: the nearest
    # float64 prints as 1.2345678901234568e+16, another number.
    path = _decimal_file(tmp_path, ["12.50", "12345678901234567.89"])
    with pytest.raises(DatasetError) as err:
        wb.from_parquet(path, entity="sensor", time="time", measures="price", progress=False)
    msg = str(err.value)
    assert "'price'" in msg and "row 1" in msg
    assert re.search(r"12345678901234567\.89\D+1\.2345678901234568e\+16", msg), msg
    assert "attributes=" in msg  # what to do


def test_parquet_decimals_float_holds_are_stored_exactly_and_said_so(tmp_path):
    # 12.50, 0.10 and 10^37 (decimal(38,0)) each read back as the same number from float64:
    # repr(12.5) = '12.5', repr(0.1) = '0.1', repr(1e37) = '1e+37' = 10^37.
    path = _decimal_file(tmp_path, ["12.50", "0.10"])
    ds = wb.from_parquet(path, entity="sensor", time="time", measures="price", progress=False)
    assert ds.frame["price"].tolist() == [12.5, 0.1]
    assert any("decimals (2)" in n and "same number" in n for n in ds.notes)
    big = _decimal_file(tmp_path, [str(10**37)], pa.decimal128(38, 0))
    ds = wb.from_parquet(big, entity="sensor", time="time", measures="price", progress=False)
    assert decimal.Decimal(repr(float(ds.frame["price"].iloc[0]))) == 10**37


def test_an_arrow_decimal_column_of_a_dataframe_is_checked_too():
    frame = _events(
        price=pd.array(
            [decimal.Decimal("1.5"), decimal.Decimal("0.12345678901234567891")],
            dtype=pd.ArrowDtype(pa.decimal128(38, 20)),
        )
    )
    with pytest.raises(DatasetError, match=r"'price'.*row 1: 0\.12345678901234567891\b"):
        wb.from_dataframe(frame, entity="sensor", time="time", measures="price")


# -- entities that do not round trip ----------------------------------------------------------
def test_an_entity_integer_beyond_64_bits_is_refused_before_anything_is_written():
    frame = pd.DataFrame(
        {
            "player": [5, 2**70],  # 2^70 = 1,180,591,620,717,411,303,424: no int64/uint64
            "time": pd.to_datetime(TIMES[:2]),
            "score": [1.0, 2.0],
        }
    )
    with pytest.raises(DatasetError) as err:
        wb.from_dataframe(frame, entity="player", time="time", measures="score")
    msg = str(err.value)
    assert re.search(r"'player' .*1180591620717411303424 \(row 1\)", msg), msg  # 2^70
    assert "astype(str)" in msg and "another design" not in msg
    # the largest uint64, 2^64 - 1, fits its column's dtype: kept
    ok = frame.assign(player=[5, 2**64 - 1])
    ds = wb.from_dataframe(ok, entity="player", time="time", measures="score")
    assert sorted(ds.frame["player"].tolist()) == [5, 18446744073709551615]


# -- year 0000 ----------------------------------------------------------------------------------
def test_year_0000_is_a_clear_error_naming_the_column_and_line(tmp_path):
    path = tmp_path / "y0.csv"
    path.write_text("sensor,time,v\na,2024-01-01T00:00:00Z,1\na,0000-01-01T00:00:00Z,2\n")
    with pytest.raises(DatasetError) as err:
        wb.from_csv(path, entity="sensor", time="time", measures="v", progress=False)
    msg = str(err.value)
    assert "'time'" in msg and re.search(r"line 3: 0000-01-01 00:00:00", msg), msg
    assert "strftime" not in msg


# -- a query's limit ----------------------------------------------------------------------------
def test_a_latest_limit_over_int32_names_the_query():
    frame = _events(v=[1.0, 2.0])
    line = "latest 99999999999999999999 per sensor"
    with pytest.raises(DatasetError) as err:
        wb.from_dataframe(frame, entity="sensor", time="time", measures="v", queries=[line])
    msg = str(err.value)
    assert f"Query {line!r}" in msg and "2,147,483,647" in msg
    # the edge: 2^31 - 1 = 2,147,483,647 is the int32 filter's largest value
    assert LIMIT_MAX == 2_147_483_647
    ds = wb.from_dataframe(
        frame, entity="sensor", time="time", measures="v", queries=["latest 2147483647 per sensor"]
    )
    assert ds.queries[0].limit == 2_147_483_647
    with pytest.raises(DatasetError, match="'latest 2147483648 for sensor=a'"):
        wb.from_dataframe(
            frame,
            entity="sensor",
            time="time",
            measures="v",
            queries=["latest 2147483648 for sensor=a"],
        )


# -- other formats under a .csv name ------------------------------------------------------------
def _xlsx(path) -> None:
    """The parts that make a zip an Excel workbook (ECMA-376: [Content_Types].xml, xl/workbook.xml)."""
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.xml", "<workbook/>")
        z.writestr("xl/worksheets/sheet1.xml", "<worksheet/>")


@pytest.mark.parametrize(
    ("kind", "make", "said", "not_said"),
    [
        ("xlsx", _xlsx, ["an Excel workbook (.xlsx", "pd.read_excel('events.csv')"], "unzip -p"),
        (
            "xls",
            lambda p: p.write_bytes(bytes.fromhex("d0cf11e0a1b11ae1") + bytes(504)),
            ["a legacy Excel workbook (.xls", "xlrd"],
            "encoding='latin-1'",
        ),
        (
            "json lines",
            lambda p: p.write_text(
                '{"sensor": "a", "time": "2024-01-01T00:00:00Z", "v": 1}\n'
                '{"sensor": "a", "time": "2024-01-01T01:00:00Z", "v": 2}\n'
            ),
            [
                "JSON lines",
                "keys ['sensor', 'time', 'v']",
                "pd.read_json('events.csv', lines=True)",
            ],
            "not in the frame",
        ),
        (
            "one json line",
            lambda p: p.write_text('{"sensor": "a", "time": "2024-01-01T00:00:00Z", "v": 1}\n'),
            ["JSON lines", "pd.read_json"],
            "empty",
        ),
        (
            "parquet",
            lambda p: pq.write_table(pa.table({"v": [1]}), p),
            ["a Parquet file", "wb.from_parquet('events.csv'"],
            "encoding=",
        ),
    ],
)
def test_another_format_named_csv_is_told_what_it_is(tmp_path, kind, make, said, not_said):
    path = tmp_path / "events.csv"
    make(path)
    with pytest.raises(DatasetError) as err:
        wb.from_csv(path, entity="sensor", time="time", measures="v", progress=False)
    msg = str(err.value)
    assert all(s in msg for s in said), msg
    assert not_said not in msg and "Nothing was loaded" in msg


def test_a_real_zipped_csv_still_gets_the_unzip_advice(tmp_path):
    path = tmp_path / "events.csv"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("events.csv", "sensor,time,v\na,2024-01-01T00:00:00Z,1\n")
    with pytest.raises(DatasetError, match=r"zip-compressed.*unzip -p events.csv"):
        wb.from_csv(path, entity="sensor", time="time", measures="v", progress=False)


# -- `workbench emulator find` ------------------------------------------------------------------
@pytest.mark.parametrize("binary", ["/bin/false", "/bin/true", "/bin/echo"])
def test_emulator_find_refuses_a_path_that_is_not_the_emulator(monkeypatch, capsys, binary):
    monkeypatch.setenv(emu_mod.ENV_BINARY, binary)
    assert cli.main(["emulator", "find"]) == 1
    err = capsys.readouterr().err
    assert re.search(rf"{re.escape(str(binary))} \(WORKBENCH_CBTEMULATOR\).*not the Bigtable", err)
    assert "-host and -port" in err


def test_emulator_find_accepts_a_binary_that_answers_as_the_emulator(tmp_path, monkeypatch, capsys):
    # Go's flag package prints the usage of cbtemulator's flags on -help
    fake = tmp_path / "cbtemulator"
    fake.write_text(
        "#!/bin/sh\necho 'Usage of cbtemulator:' >&2\n"
        "echo '  -host string' >&2\necho '  -port int' >&2\nexit 0\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv(emu_mod.ENV_BINARY, str(fake))
    assert cli.main(["emulator", "find"]) == 0
    assert capsys.readouterr().out.startswith(f"Emulator binary: {fake}")
