"""The row-size histogram's count axis and its bars use one scale: a bar of n rows stands as high
as the axis puts n (the axis once used the labels' pixel offset, 22, as its top: 8 rows of
server_metrics' tiny heroic drew under ticks 0/10/20, reading as 16)."""

from __future__ import annotations

import re

import pytest

import workbench as wb
from workbench.plots.sizes import row_sizes_html


@pytest.mark.parametrize(
    ("dataset", "pattern"), [("server_metrics", "heroic"), ("garden_temperature", "month_rows")]
)
def test_a_bar_of_n_rows_is_as_high_as_the_axis_puts_n(dataset, pattern):
    ds = wb.load_dataset(dataset, size="tiny")
    rs = wb.analyze(ds, wb.preset(ds, pattern)).rowsizes
    page = row_sizes_html(rs)
    ticks = {
        int(v.replace(",", "")): float(b)
        for b, v in re.findall(r"data-y-tick style='[^']*bottom:([\d.]+)%[^']*'>([\d,]+)<", page)
    }
    bars = [
        (int(n.replace(",", "")), float(h))
        for n, h in re.findall(r"title='([\d,]+) rows of [^']*'[^>]*height:([\d.]+)%", page)
    ]
    assert bars and len(ticks) >= 2
    # every row of the sample is in a "now" bar
    assert sum(n for n, _ in bars) >= rs.n_rows
    log = "(log scale)" in page
    assert not log  # a handful of rows of similar counts: a linear axis
    # linear: height ∝ count, with the same factor as the ticks (0 at 0)
    per_row = [b / v for v, b in ticks.items() if v > 0]
    for n, h in bars:
        assert all(abs(h / n - p) < 0.05 for p in per_row), (n, h, ticks)
