"""Every from_csv message that names a row names the file's line (the header is line 1), the
number an editor shows: blank lines and line breaks inside quoted fields are counted, sorting
by entity and time does not change it, and neither do chunked reading or sample=.

Each file below has a blank line (line 3) and a quoted two-line field (lines 4-5) before the
record under test, which is always on line 6; line 7 follows it."""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import pytest

import workbench as wb
from workbench.errors import DatasetError

HEAD = 'sensor,time,v,note\nS1,2024-01-01T00:00:00Z,1,a\n\nS1,2024-01-01T00:01:00Z,2,"two\nlines"\n'
TAIL = "S1,2024-01-01T00:03:00Z,4,d\n"


def _load(tmp_path: Path, bad: str, chunksize: int = 1_000_000, **kw):
    p = tmp_path / "d.csv"
    p.write_text(HEAD + bad + "\n" + TAIL)
    kw = {"entity": "sensor", "time": "time", "measures": "v", **kw}
    return wb.from_csv(p, chunksize=chunksize, progress=False, **kw)


def _refusal(tmp_path: Path, bad: str, chunksize: int = 1_000_000, **kw) -> str:
    with pytest.raises(DatasetError) as ei:
        _load(tmp_path, bad, chunksize, **kw)
    return str(ei.value)


@pytest.mark.parametrize("chunksize", [1_000_000, 2])
def test_a_repeated_event_names_both_file_lines_after_sorting(tmp_path, chunksize):
    # line 6 repeats line 2's (S1, 00:00) after a later time (line 4): sorting puts it second
    msg = _refusal(tmp_path, "S1,2024-01-01T00:00:00Z,9,x", chunksize)
    assert "lines 2, 6" in msg


def test_dropped_duplicates_are_noted_with_their_file_lines(tmp_path):
    ds = _load(tmp_path, "S1,2024-01-01T00:00:00Z,9,x", duplicates="first")
    assert any("lines 2, 6" in n for n in ds.notes)


@pytest.mark.parametrize("chunksize", [1_000_000, 2])
def test_a_value_that_is_not_a_time_names_its_line(tmp_path, chunksize):
    msg = _refusal(tmp_path, "S1,not a time,3,c", chunksize)
    assert "line 6: ['not a time']" in msg


def test_a_time_without_zone_names_its_line(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text(
        HEAD.replace("00:00Z", "00:00").replace("01:00Z", "01:00") + "S1,2024-01-01T00:02:00,3,c\n"
    )
    with pytest.raises(DatasetError, match=r"line 2: '2024-01-01T00:00:00'"):
        wb.from_csv(p, entity="sensor", time="time", measures="v", progress=False)


def test_an_infinite_measure_names_its_line(tmp_path):
    assert "(line 6: ['inf'])" in _refusal(tmp_path, "S1,2024-01-01T00:02:00Z,1e400,c")


def test_a_text_measure_names_its_line(tmp_path):
    assert "line 6" in _refusal(tmp_path, "S1,2024-01-01T00:02:00Z,warm,c")


def test_an_integer_float64_would_round_names_its_line(tmp_path):
    msg = _refusal(tmp_path, "S1,2024-01-01T00:02:00Z,1234567890123456789012,c")
    assert re.search(r"\(1 rows, line 6: '1234567890123456789012'", msg), msg


def test_a_missing_entity_names_its_line(tmp_path):
    assert "line 6" in _refusal(tmp_path, ",2024-01-01T00:02:00Z,3,c")


def test_a_two_digit_year_and_a_bad_date_name_their_lines(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text(
        'sensor,time,v,note\nS1,30/12/1999,1,a\n\nS1,30/12/1999,2,"x\ny"\nS2,31/12/99,3,c\n'
    )
    with pytest.raises(DatasetError, match=r"line 6: '31/12/99'"):
        wb.from_csv(p, entity="sensor", time="time", measures="v", naive_tz="UTC", progress=False)
    p.write_text('sensor,time,v,note\nS1,20240101,1,a\n\nS1,20240102,2,"x\ny"\nS1,20240231,3,c\n')
    with pytest.raises(DatasetError, match=r"'time': line 6.*20240231"):
        wb.from_csv(p, entity="sensor", time="time", measures="v", time_unit="date", progress=False)


def test_sample_keeps_the_file_lines(tmp_path):
    # a series before the kept one is sampled away; the kept series' lines stay the file's
    a, b = (zlib.crc32(s.encode()) / 2**32 for s in ("S1", "S9"))
    keep, drop = ("S1", "S9") if a < b else ("S9", "S1")
    share = (min(a, b) + max(a, b)) / 2
    p = tmp_path / "d.csv"
    p.write_text(
        f"sensor,time,v,note\n{drop},2024-01-01T00:00:00Z,1,a\n\n"
        f'{keep},2024-01-01T00:01:00Z,2,"two\nlines"\n{keep},2024-01-01T00:01:00Z,5,c\n'
    )
    with pytest.raises(DatasetError, match="lines 4, 6"):
        wb.from_csv(
            p,
            entity="sensor",
            time="time",
            measures="v",
            sample=share,
            chunksize=2,
            progress=False,
        )


def test_a_plain_file_numbers_data_from_line_2(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("sensor,time,v\nS1,2024-01-01T00:00:00Z,1\nS1,nope,2\n")
    with pytest.raises(DatasetError, match=r"\(line 3: \['nope'\]\)"):
        wb.from_csv(p, entity="sensor", time="time", measures="v", progress=False)


def test_from_dataframe_keeps_the_frames_own_labels(tmp_path):
    import pandas as pd

    df = pd.DataFrame(
        {"sensor": ["S1", "S1"], "time": ["2024-01-01T00:00:00Z", "bad"], "v": [1, 2]},
        index=[10, 20],
    )
    with pytest.raises(DatasetError, match=r"\(row 20: \['bad'\]\)"):
        wb.from_dataframe(df, entity="sensor", time="time", measures="v")
