"""Tables and titles the notebooks build say what their figures show: a read's figures in their
units (bytes as kB, counts with separators), stored cells as written, and a row-size title that
names how its rows split into bars (06: "62 rows never close" over two bars of 31 looked wrong)."""

from __future__ import annotations

import pandas as pd

import workbench as wb
from workbench.formatting import EVENTS_CLASS
from workbench.plots.sizes import plot_row_sizes


def test_a_table_of_figures_formats_each_row_by_its_label():
    # 03's emulator read: 3,533 rows, 164,782 bytes returned (164.8 kB decimal), rows seen unknown
    frame = pd.DataFrame(
        {"measured": [3533, 164782, None, 1], "modelled": [3533, 164782, 643769, 1]},
        index=["rows returned", "bytes returned", "bytes seen", "scans"],
    ).astype("Int64")
    page = wb.styled_rows(frame).to_html()
    for shown in (">3,533<", ">164.8 kB<", ">643.8 kB<", ">—<", ">1<"):
        assert shown in page, shown
    assert "164782" not in page and "3533<" not in page


def test_stored_cells_are_shown_as_written_and_marked_as_data():
    # a qualifier holding the value and a µs timestamp are data: no separators, no rounding
    frame = pd.DataFrame({"qualifier": ["100893.7"], "timestamp_us": [1425208700000000]})
    page = wb.as_written(frame).to_html()
    assert f'class="{EVENTS_CLASS}"' in page
    assert ">100893.7<" in page and ">1425208700000000<" in page


def test_the_row_size_title_says_how_the_never_closing_rows_split_into_bars():
    # energy_meters: one row per meter and measure (kwh, voltage) that every reading updates:
    # 2 rows per meter never close; a year of voltage versions and of kwh versions differ in
    # size, so the projected rows draw as two bars, one row per meter in each
    ds = wb.load_dataset("energy_meters", size="tiny")
    meters = ds.frame["meter_id"].nunique()
    updated = wb.Schema(
        "row_per_meter",
        wb.RowKey((wb.Field("meter_id"), wb.Metric(("kwh", "voltage")))),
        wb.NewCells(wb.Family("r")),
    )
    rs = wb.analyze(ds, updated).rowsizes
    title = plot_row_sizes(rs).get_title("left")
    assert f"{2 * meters:,} rows never close" in title
    assert f"they fall in bars of {meters:,} + {meters:,} rows" in title, title


def test_a_share_of_bytes_is_a_percentage():
    # 04's "key share of bytes" (28 of 90 bytes) read "0 B": the share, not the bytes, is shown
    page = wb.styled(pd.DataFrame({"key share of bytes": [28 / 90]})).to_html()
    assert ">31%<" in page
