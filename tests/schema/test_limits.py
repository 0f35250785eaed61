"""One number per Cloud Bigtable size limit: what ``to_cells`` refuses (schema/limits.py) and
what the row-size table calls over the hard limit (Settings) were 256 MiB and 256 MB for one
row limit, so a row between the two passed the write path yet showed as over the limit (G10)."""

from __future__ import annotations

import pandas as pd
import pytest

from workbench.analysis.settings import DEFAULT
from workbench.cells import CellFrame
from workbench.display import limits_html
from workbench.errors import LimitError
from workbench.schema import limits


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
