"""One number per Cloud Bigtable size limit: what ``to_cells`` refuses (schema/limits.py) and
what the row-size table calls over the hard limit (Settings) were 256 MiB and 256 MB for one
row limit, so a row between the two passed the write path yet showed as over the limit (G10)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.analysis.settings import DEFAULT
from workbench.cells import CellFrame
from workbench.datasets.model import Dataset
from workbench.display import limits_html
from workbench.errors import CollisionError, LimitError
from workbench.schema import Field, RowKey, Schema, Timestamp, limits
from workbench.schema.layouts import CellParts


def test_the_settings_are_the_limits_to_cells_enforces():
    assert DEFAULT.row_hard_bytes == limits.ROW_MAX == 256 * 1_000_000  # 256 MB, decimal
    assert DEFAULT.cell_hard_bytes == limits.CELL_MAX == 100 * 1_000_000
    assert DEFAULT.row_advisory_bytes == limits.ROW_ADVISORY == 100 * 1_000_000
    assert DEFAULT.cell_advisory_bytes == limits.CELL_ADVISORY == 10 * 1_000_000
    assert DEFAULT.key_hard_bytes == limits.ROW_KEY_MAX == 4 * 1024  # 4 KiB, as the API says
    assert DEFAULT.qualifier_hard_bytes == limits.QUALIFIER_MAX == 16 * 1024


def test_a_row_over_256_mb_but_under_256_mib_is_refused_and_named_in_mb():
    # 257 cells of 1,000,000 bytes in row "r", family "f", qualifiers "q000"…"q256": each cell
    # is 1 + 1 + 4 + 8 + 1,000,000 = 1,000,014 bytes, the row 257 × 1,000,014 = 257,003,598:
    # over 256,000,000 (256 MB) and under 268,435,456 (256 MiB)
    value = b"x" * 1_000_000  # one object, 257 references
    n = 257
    frame = pd.DataFrame(
        {
            "table": ["main"] * n,
            "row_key": ["r"] * n,
            "family": ["f"] * n,
            "qualifier": [f"q{i:03d}" for i in range(n)],
            "timestamp_us": [1000] * n,
            "value": [value] * n,
        }
    )
    with pytest.raises(LimitError, match=r"257,003,598 bytes, over the 256 MB hard limit") as err:
        limits.check_limits(CellFrame(frame), warn=False)
    # the message names the row and its table, so the user knows which key to bound
    assert "'r'" in str(err.value) and "'main'" in str(err.value)


def test_a_row_over_100_mb_gets_the_advice_naming_its_row():
    # 101 cells of 1,000,000 bytes in row "r" (qualifiers "q000"…"q100"): each cell is
    # 1 + 1 + 4 + 8 + 1,000,000 = 1,000,014 bytes, the row 101 × 1,000,014 = 101,001,414:
    # over the 100 MB advice, under the 256 MB limit (G10); row "s", one cell, is not named
    value = b"x" * 1_000_000
    n = 101
    frame = pd.DataFrame(
        {
            "table": ["main"] * (n + 1),
            "row_key": ["r"] * n + ["s"],
            "family": ["f"] * (n + 1),
            "qualifier": [f"q{i:03d}" for i in range(n + 1)],
            "timestamp_us": [1000] * (n + 1),
            "value": [value] * (n + 1),
        }
    )
    findings = limits.check_limits(CellFrame(frame), warn=False)
    rows = [(f.message, f.row_key, f.table) for f in findings if f.message.startswith("row of")]
    assert rows == [("row of 101,001,414 bytes is over the 100 MB advice", "r", "main")]


def test_the_limits_table_labels_each_limit_in_its_own_unit():
    df = pd.DataFrame(
        {
            "largest_bytes": [10, 10, 10, 10],
            "advisory_bytes": [
                DEFAULT.cell_advisory_bytes,
                DEFAULT.row_advisory_bytes,
                DEFAULT.key_hard_bytes,
                DEFAULT.qualifier_hard_bytes,
            ],
            "hard_bytes": [
                DEFAULT.cell_hard_bytes,
                DEFAULT.row_hard_bytes,
                DEFAULT.key_hard_bytes,
                DEFAULT.qualifier_hard_bytes,
            ],
            "ok": [True] * 4,
            "rows_over_advisory": [0] * 4,
        },
        index=["cell", "row", "row key", "qualifier"],
    )
    page = limits_html(df)
    for text in ("10 MB", "100 MB", "256 MB", "4 KiB", "16 KiB"):
        assert f"<td>{text}</td>" in page, text
    assert "MiB" not in page


def _parts(keys, qualifiers, value_len):
    """Cells under construction for check_parts: one add over the events ``keys`` in family
    "f", the byte lengths stated (no values held: check_parts sums lengths, G10)."""
    n = len(keys)
    parts = CellParts()
    parts.add(
        np.array(keys, dtype=object),
        "f",
        np.array(qualifiers, dtype=object),
        np.arange(n, dtype=np.int64),
        np.array([b""] * n, dtype=object),
        np.arange(n),
        value_len=np.array(value_len, dtype=np.int64),
    )
    return parts


def test_a_row_of_exactly_256_mb_is_kept_and_one_byte_more_is_refused():
    # three cells in row "r", family "f", qualifiers "a", "b", "c": each cell is key 1 +
    # timestamp 8 + family 1 + qualifier 1 = 11 bytes plus its value, so the row is
    # 3 × 11 + 100,000,000 + 100,000,000 + 55,999,967 = 256,000,000 bytes: at the hard limit,
    # not over it (G10), so kept with the 100 MB advice
    parts = _parts(["r"] * 3, ["a", "b", "c"], [100_000_000, 100_000_000, 55_999_967])
    _, findings = limits.check_parts(parts, "main", versioned=False)
    rows = [f for f in findings if f.message.startswith("row of")]
    assert [(f.message, f.row_key) for f in rows] == [
        ("row of 256,000,000 bytes is over the 100 MB advice", "r")
    ]
    # one value byte more: 256,000,001 bytes, over the limit, named with its row and table
    parts = _parts(["r"] * 3, ["a", "b", "c"], [100_000_000, 100_000_000, 55_999_968])
    with pytest.raises(
        LimitError, match=r"'r' in table 'main' would hold 256,000,001 bytes, over the 256 MB"
    ):
        limits.check_parts(parts, "main", versioned=False)


def test_a_cell_over_100_mb_names_its_own_row():
    # the second event's value is 100,000,001 bytes, one over the cell limit: the error names
    # row "b" and that size, not the first event's row "a"
    parts = _parts(["a", "b"], ["q", "q"], [1, 100_000_001])
    with pytest.raises(LimitError, match=r"100,000,001 bytes in row 'b'"):
        limits.check_parts(parts, "main", versioned=False)


def test_each_collision_example_is_a_line_of_its_own():
    # Corrie twice and Jo twice in the same second: two rows, each with two events mapping
    # to one cell, so 4 events collide and the message lists one line per row
    df = pd.DataFrame(
        {
            "player": ["Corrie", "Corrie", "Jo", "Jo"],
            "time": pd.to_datetime(
                ["2015-03-01 12:00:00.1", "2015-03-01 12:00:00.2"] * 2, utc=True
            ).astype("datetime64[us, UTC]"),
            "score": [1.0, 2.0, 3.0, 4.0],
        }
    )
    ds = Dataset(name="t", frame=df, entity=["player"], time="time", measures=["score"])
    schema = Schema("s", RowKey((Field("player"), Timestamp("second"))))
    with pytest.raises(CollisionError, match="4 events collide") as err:
        schema.to_cells(ds)
    lines = str(err.value).splitlines()
    assert lines[1].startswith("  row 'Corrie#20150301120000' cell ")
    assert lines[2].startswith("  row 'Jo#20150301120000' cell ")
