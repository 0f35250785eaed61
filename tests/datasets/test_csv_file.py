"""Reading a CSV file truthfully: a file rewritten while it is read, a header naming a column
twice, and another encoding are each refused with the file's line and what to do; UTF-16 with
its byte-order mark is read as such."""

from __future__ import annotations

import os
import threading

import pytest

import workbench as wb
from workbench.errors import DatasetError

HEADER = "sensor,time,v\n"


def _lines(n: int, sensor: str = "S1") -> str:
    return "".join(
        f"{sensor},2024-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z,{i}\n" for i in range(n)
    )


def test_a_header_naming_a_column_twice_is_refused(tmp_path):
    p = tmp_path / "dup.csv"
    p.write_text("sensor,time,v,v\nS1,2024-01-01T00:00:00Z,1,2\n")
    with pytest.raises(
        DatasetError,
        match=r"line 1 \(the header\).*'v' twice \(columns 3 and 4\).*'v.1'",
    ):
        wb.from_csv(p, entity="sensor", time="time", measures="v")


def test_latin_1_text_is_refused_with_its_line_and_the_encoding_hint(tmp_path):
    p = tmp_path / "umlaut.csv"
    p.write_bytes(
        (HEADER + "S1,2024-01-01T00:00:00Z,1\nM\xfcnchen,2024-01-01T00:01:00Z,2\n").encode(
            "latin-1"
        )
    )
    with pytest.raises(DatasetError) as ei:
        wb.from_csv(p, entity="sensor", time="time", measures="v")
    msg = str(ei.value)
    assert "line 3, byte 0xfc in 'M\ufffdnchen,2024-01-01T00:01:00Z,2'" in msg
    assert "encoding='latin-1'" in msg
    # the hint works: the same file with encoding='latin-1'
    ds = wb.from_csv(p, entity="sensor", time="time", measures="v", encoding="latin-1")
    assert sorted(ds.frame["sensor"]) == ["München", "S1"]


def test_utf_16_with_its_byte_order_mark_is_read(tmp_path):
    p = tmp_path / "excel.csv"
    p.write_text(HEADER + "Zürich,2024-01-01T00:00:00Z,1\n", encoding="utf-16")
    ds = wb.from_csv(p, entity="sensor", time="time", measures="v")
    assert ds.frame["sensor"].tolist() == ["Zürich"] and ds.frame["v"].tolist() == [1]


def test_a_file_rewritten_while_it_is_read_is_refused(tmp_path):
    p = tmp_path / "live.csv"
    versions = [HEADER + _lines(3000), HEADER + _lines(2000)]
    p.write_text(versions[0])
    stop = threading.Event()

    def keep_rewriting() -> None:  # another program saving the file again and again
        i = 0
        while not stop.is_set():
            tmp = tmp_path / "live.tmp"
            tmp.write_text(versions[i % 2])
            os.replace(tmp, p)
            i += 1

    th = threading.Thread(target=keep_rewriting, daemon=True)
    th.start()
    try:
        with pytest.raises(DatasetError) as ei:
            for _ in range(50):  # each read spans many rewrites: the first one refuses
                wb.from_csv(p, entity="sensor", time="time", measures="v", chunksize=100)
    finally:
        stop.set()
        th.join(10)
    msg = str(ei.value)
    assert "'live.csv' changed while" in msg
    assert "Nothing was loaded" in msg


def test_a_file_truncated_in_place_while_it_is_read_is_refused(tmp_path):
    p = tmp_path / "cut.csv"
    versions = [(HEADER + _lines(3000)).encode(), (HEADER + _lines(1500)).encode()]
    p.write_bytes(versions[0])
    stop = threading.Event()

    def keep_truncating() -> None:  # the same file (inode) written shorter and longer again
        i = 0
        while not stop.is_set():
            with open(p, "r+b") as f:
                f.truncate(0)
                f.write(versions[i % 2])
            i += 1

    th = threading.Thread(target=keep_truncating, daemon=True)
    th.start()
    try:
        with pytest.raises(DatasetError) as ei:
            for _ in range(50):
                wb.from_csv(p, entity="sensor", time="time", measures="v", chunksize=100)
    finally:
        stop.set()
        th.join(10)
    # refused as changed, or (caught mid-write) as a file that does not parse: never accepted
    assert "changed while" in str(ei.value) or "Cannot read" in str(ei.value)
