"""Layout details an attendee reads: design names that wrap between words, whole-node ticks on a
node-count axis, and one unit per kind of limit in the limits table."""

from __future__ import annotations

import re

import matplotlib
import pytest

import workbench as wb

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def fx():
    return wb.load_dataset("fx_prices", size="workshop")


def test_compare_names_wrap_at_underscores_never_mid_word(fx):
    from workbench.plots.compare import comparison_html

    designs = [wb.preset("fx_prices", "pair_microseconds"), wb.preset("fx_prices", "salted")]
    page = comparison_html(wb.compare(fx, designs))
    cells = re.findall(r"<td class='wb-b-name'>(.*?)</td>", page)
    assert cells, page[:500]
    for cell in cells:
        # the only break chances are after a "_": the pieces between <wbr> are whole words
        # with their underscore ("pair_", "microseconds"), so no break falls inside a word
        pieces = cell.split("<wbr>")
        assert "".join(pieces) in {"pair_microseconds", "salted"}, cell
        assert all(p.endswith("_") for p in pieces[:-1]), cell
    assert "pair_<wbr>microseconds" in cells


def test_a_node_count_axis_has_whole_node_ticks(fx):
    from workbench.plots.capacity import plot_node_need

    # the workshop sample needs 1 node on every bar: the axis runs 0 to 2.2 nodes, where the
    # default locator put a tick every 0.25 node
    cap = wb.analyze(fx, wb.preset("fx_prices", "pair_microseconds")).capacity
    ax = plot_node_need(cap)
    ax.figure.canvas.draw()
    lo, hi = ax.get_xlim()
    ticks = [t for t in ax.get_xticks() if lo <= t <= hi]
    assert len(ticks) >= 2 and all(float(t).is_integer() for t in ticks), ticks


def test_the_limits_table_states_cell_and_row_sizes_in_one_unit(fx):
    from workbench.display import limits_html

    # Bigtable's quotas page: 10 MB advised and 100 MB hard per cell, 100 MB advised and 256 MB
    # hard per row (decimal, as the table's largest sizes are); keys 4 KiB, qualifiers 16 KiB
    table = limits_html(
        wb.analyze(fx, wb.preset("fx_prices", "pair_microseconds")).rowsizes.limits()
    )
    rows = dict(re.findall(r"<th>([^<]+)</th>\s*<td>[^<]*</td>\s*<td>([^<]*)</td>", table))
    hard = dict(
        re.findall(r"<th>([^<]+)</th>\s*<td>[^<]*</td>\s*<td>[^<]*</td>\s*<td>([^<]*)</td>", table)
    )
    assert (rows["cell"], hard["cell"]) == ("10 MB", "100 MB"), table
    assert (rows["row (now)"], hard["row (now)"]) == ("100 MB", "256 MB"), table
    assert (hard["row key"], hard["qualifier"]) == ("4 KiB", "16 KiB"), table
    assert "MiB" not in table
