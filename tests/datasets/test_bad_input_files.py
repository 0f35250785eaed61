"""Files and query lines that were read wrong without a word, or ended in a raw exception: padded
entity text, windows outside the data, times past pandas' range, nested/binary/duplicate Parquet
columns, compressed bytes named .csv, a header too wide to parse, Unicode normal forms. Each is
accepted correctly (and says so in ``ds.notes``) or refused naming the file, column, line or
limit and the fix; nothing is half-loaded."""

from __future__ import annotations

import gzip
import re
import unicodedata
import warnings

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import workbench as wb
from workbench.datasets.csv_file import MAX_CSV_COLUMNS
from workbench.datasets.model import QueryIntent
from workbench.datasets.queries import with_queries
from workbench.datasets.validate import check_intent
from workbench.errors import DatasetError

T0 = pd.Timestamp("2024-01-01", tz="UTC")


def _csv(tmp_path, name: str, text: str):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_padded_entity_text_is_one_series_and_the_note_says_so(tmp_path):
    p = _csv(
        tmp_path,
        "pad.csv",
        "sensor,time,v\n a ,2024-01-01T00:00:00Z, 1 \na,2024-01-01T01:00:00Z,2\n",
    )
    ds = wb.from_csv(p, entity="sensor", time="time", measures="v", progress=False)
    # ' a ' (line 2) and 'a' (line 3) are one sensor: one series of two events
    assert ds.frame["sensor"].tolist() == ["a", "a"] and ds.n_entities() == 1
    assert ds.frame["v"].tolist() == [1, 2]
    note = next(n for n in ds.notes if "spaces" in n)
    assert "' a ' → 'a'" in note and "line 2" in note and "series ['a']" in note


def _span_ds():
    times = pd.date_range("2025-01-01", periods=24, freq="1h", tz="UTC")
    df = pd.DataFrame({"s": ["x"] * 24 + ["y"] * 24, "time": list(times) * 2, "v": 1.0})
    return wb.from_dataframe(df, entity="s", time="time", measures="v", name="span")


@pytest.mark.parametrize("line", ["all at 2030-01-01", "from 2030-01-01 to 2030-02-01"])
def test_a_query_outside_the_data_warns_naming_the_span(line):
    ds = _span_ds()
    with pytest.warns(UserWarning) as rec:
        out = with_queries(ds, [line])
    msg = str(rec[0].message)
    # the data: 2025-01-01 00:00 to 2025-01-01 23:00 (24 hourly events)
    assert line in msg and re.search(
        r"2025-01-01 00:00:00\+00:00\D+2025-01-01 23:00:00\+00:00", msg
    )
    assert "0 events" in msg
    q = out.queries[0]
    assert q.kind == "slice" and q.entity == {}  # a bare window reads every series, as 'all'


def test_a_query_intent_outside_the_data_warns_where_it_is_run():
    ds = _span_ds()
    q = QueryIntent("late", "range", "", {"s": "x"}, start="2030-01-01", end="2030-02-01")
    with pytest.warns(UserWarning, match=r"'late'.*outside the data, which spans 2025-01-01"):
        check_intent(q, ds)  # what table.run calls before planning
    with warnings.catch_warnings():  # inside the span: no word
        warnings.simplefilter("error")
        check_intent(QueryIntent("in", "range", "", {"s": "x"}, start="2025-01-01"), ds)


def test_times_past_2262_refused_naming_column_row_and_limit(tmp_path):
    p = _csv(tmp_path, "far.csv", "s,time,v\na,2024-01-01T00:00:00Z,1\na,9999-12-31T00:00:00Z,2\n")
    with pytest.raises(
        DatasetError,
        match=r"'time'.*2262-04-11 23:47:16 UTC.*\(line 3: 9999-12-31 00:00:00\)"
        r".*pandas.Timestamp.min/max.*'no end'.*Nothing was loaded",
    ):
        wb.from_csv(p, entity="s", time="time", measures="v", progress=False)
    t = pa.array([pd.Timestamp("3000-01-01").to_pydatetime()], pa.timestamp("us", tz="UTC"))
    pq.write_table(pa.table({"s": ["a"], "time": t, "v": [1.0]}), tmp_path / "y3000.parquet")
    with pytest.raises(DatasetError, match=r"'time'.*\(row 0: 3000-01-01 00:00:00\)"):
        wb.from_parquet(tmp_path / "y3000.parquet", entity="s", time="time", measures="v")


def _events(n: int = 2) -> dict:
    t = pa.array([T0.to_pydatetime()] * n, pa.timestamp("us", tz="UTC"))
    return {"s": [f"m{i}" for i in range(n)], "time": t, "v": [1.0] * n}


@pytest.mark.parametrize(
    "kind,column",
    [
        ("struct", pa.array([{"x": 1}, {"x": 2}])),
        ("list", pa.array([[1], [2, 3]])),
        ("map", pa.array([[("k", 1)], [("k", 2)]], pa.map_(pa.string(), pa.int64()))),
    ],
)
def test_nested_parquet_columns_refused_naming_column_type_and_fix(tmp_path, kind, column):
    p = tmp_path / f"{kind}.parquet"
    pq.write_table(pa.table({**_events(), "nest": column}), p)
    with pytest.raises(
        DatasetError,
        match=rf"'nest' of '{kind}.parquet'.*Parquet {kind}.*attributes=\[\.\.\.\] "
        r"without 'nest'.*flatten.*Nothing was loaded",
    ):
        wb.from_parquet(p, entity="s", time="time", measures="v", progress=False)
    # the fix the message names: name the columns to keep, and the nested one is never read
    ds = wb.from_parquet(p, entity="s", time="time", measures="v", attributes=[], progress=False)
    assert list(ds.frame.columns) == ["s", "time", "v"]


def test_duplicate_parquet_column_names_refused_naming_positions(tmp_path):
    ev = _events()
    table = pa.Table.from_arrays(
        [pa.array(ev["s"]), ev["time"], pa.array(ev["v"]), pa.array([2.0, 3.0])],
        names=["s", "time", "v", "v"],
    )
    pq.write_table(table, tmp_path / "dup.parquet")
    with pytest.raises(
        DatasetError, match=r"'dup.parquet'.*two columns.*'v' \(columns 3 and 4 of 4\)"
    ):
        wb.from_parquet(tmp_path / "dup.parquet", entity="s", time="time", measures="v")


def test_binary_entities_are_text_or_refused(tmp_path):
    ev = _events()
    pq.write_table(
        pa.table({**ev, "s": pa.array([b"m0", b"m1"], pa.binary())}), tmp_path / "b.parquet"
    )
    ds = wb.from_parquet(tmp_path / "b.parquet", entity="s", time="time", measures="v")
    assert ds.frame["s"].tolist() == ["m0", "m1"]  # text, so the key reads m0, not b'm0'
    assert any(re.search(r"binary .*\['s'\] .*UTF-8", n) for n in ds.notes)
    pq.write_table(
        pa.table({**ev, "s": pa.array([b"\xff", b"m1"], pa.binary())}), tmp_path / "bad.parquet"
    )
    with pytest.raises(DatasetError, match=r"'s' .*Parquet binary.*not UTF-8"):
        wb.from_parquet(tmp_path / "bad.parquet", entity="s", time="time", measures="v")
    df = pd.DataFrame({"s": [b"m0", b"m1"], "time": [T0, T0], "v": [1.0, 2.0]})
    with pytest.raises(DatasetError, match=r"'s' holds bytes.*\(b'm0', row 0\).*str.decode"):
        wb.from_dataframe(df, entity="s", time="time", measures="v")


@pytest.mark.slow
def test_binary_parquet_entity_loads_and_verifies_on_the_emulator(tmp_path, emulator):
    ev = _events(3)
    pq.write_table(
        pa.table({**ev, "s": pa.array([b"m0", b"m1", b"m2"], pa.binary())}),
        tmp_path / "b.parquet",
    )
    ds = wb.from_parquet(tmp_path / "b.parquet", entity="s", time="time", measures="v")
    table = emulator.load(ds, wb.preset(ds, "entity_first"), table_id="t-binary-ent")
    try:
        assert table.verification is not None and table.verification.equal
        keys = set(table.read_all().frame["row_key"])
        assert {k.split("#")[0] for k in keys} == {"m0", "m1", "m2"}
    finally:
        table.drop()


def test_gzip_bytes_named_csv_are_named_compressed(tmp_path):
    body = b"s,time,v\na,2024-01-01T00:00:00Z,1\n"
    (tmp_path / "data.csv").write_bytes(gzip.compress(body))
    with pytest.raises(
        DatasetError,
        match=r"'data.csv' is gzip-compressed.*1f 8b.*"
        r"`gunzip -c data.csv > data_plain.csv`.*compression='gzip'",
    ):
        wb.from_csv(tmp_path / "data.csv", entity="s", time="time", measures="v")
    (tmp_path / "data.csv.gz").write_bytes(gzip.compress(body))  # named for what it is: read
    ds = wb.from_csv(tmp_path / "data.csv.gz", entity="s", time="time", measures="v")
    assert len(ds) == 1


def test_a_header_wider_than_the_limit_is_refused_before_pandas_reads_it(tmp_path):
    n = MAX_CSV_COLUMNS + 1  # three named columns and the rest: one over the limit
    names = ["s", "time", "v", *(f"c{i}" for i in range(n - 3))]
    p = _csv(tmp_path, "wide.csv", ",".join(names) + "\n")
    with pytest.raises(
        DatasetError,
        match=rf"'wide.csv' \(line 1\).*{n:,} columns.*limit of {MAX_CSV_COLUMNS:,}.*melt",
    ):
        wb.from_csv(p, entity="s", time="time", measures="v", progress=False)


def test_an_nfd_query_value_matches_the_nfc_data():
    nfc, nfd = unicodedata.normalize("NFC", "Zürich"), unicodedata.normalize("NFD", "Zürich")
    assert nfc != nfd
    df = pd.DataFrame({"city": [nfc, "Bern"], "time": [T0, T0], "v": [1.0, 2.0]})
    ds = wb.from_dataframe(df, entity="city", time="time", measures="v")
    q = with_queries(ds, [f"city={nfd} over 1 day"]).queries[0]
    assert q.entity == {"city": nfc}  # the data's own value: the read finds its rows
    assert len(q.answer(ds.frame, "time")) == 1
    # data holding one name in two byte forms (NFC "Hệ", NFD e + dot below + circumflex) is two
    # series; a third spelling (the marks in the other order) equals both once normalised
    forms = ["H\u1ec7", "He\u0323\u0302"]
    both = pd.DataFrame({"city": forms, "time": [T0, T0], "v": [1.0, 2.0]})
    two = wb.from_dataframe(both, entity="city", time="time", measures="v")
    with pytest.raises(DatasetError, match=r"Unicode normalisation.*'NFC'"):
        with_queries(two, ["city=He\u0302\u0323 over 1 day"])
