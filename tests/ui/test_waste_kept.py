"""Waste is rows seen ÷ rows the query keeps, and every view that shows it says what it divides
by: a latest-N read whose client drops rows showed "14 seen / 4 returned / 14.0× waste", which
02's definition (seen ÷ returned) denies (G04, G08, G09)."""

from __future__ import annotations

import re

import matplotlib
import pytest

import workbench as wb
from workbench.plots.queries import plot_query_costs, query_costs_html
from workbench.ui._render import headline_html

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def salted():
    # fx_prices salted into 4 buckets: "the latest USD/JPY quote" (limit 1) is one reverse scan
    # per bucket with rows limit 1, so 4 rows come back and the client keeps the newest 1
    ds = wb.load_dataset("fx_prices", size="workshop")
    return wb.analyze(ds, wb.preset("fx_prices", "salted", n=4))


def test_the_table_names_the_rows_kept_that_waste_divides_by(salted):
    r = salted.queries.table.loc["latest_quote"]
    assert int(r["scans"]) == 4 and int(r["rows_returned"]) == 4  # one row from each bucket
    assert int(r["rows_kept"]) == 1  # the query's limit
    assert float(r["waste"]) == pytest.approx(int(r["rows_seen"]) / 1)
    # where nothing is dropped, kept is returned
    day = salted.queries.table.loc["usdjpy_day"]
    assert int(day["rows_kept"]) == int(day["rows_returned"])


def test_the_designer_and_the_figures_say_returned_and_kept(salted):
    r = salted.queries.table.loc["latest_quote"]
    seen = int(r["rows_seen"])
    head = headline_html(salted)
    row = re.search(r"<tr data-query='latest_quote'>(.*?)</tr>", head).group(1)
    cells = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
    # query, plan, scans, rows seen, returned, waste
    assert cells[4] == "4 (keeps 1)" and cells[5] == f"{seen / 1:.1f}×", cells
    assert "rows seen per row the query keeps" in head
    bars = query_costs_html(salted.queries)
    assert f"{seen:,} seen<br>4 returned<br>1 kept" in bars
    ax = plot_query_costs(salted.queries)
    texts = [t.get_text() for t in ax.texts]
    assert f"{seen / 1:.1f}× waste (client keeps 1 of 4)" in texts, texts


def test_the_notebook_table_shows_rows_kept_only_where_it_differs(salted):
    from workbench.display import query_costs_result_html

    assert "rows kept" in query_costs_result_html(salted.queries)  # latest_quote keeps 1 of 4
    ds = wb.load_dataset("fx_prices", size="workshop")
    plain = wb.analyze(ds, wb.preset("fx_prices", "pair_microseconds")).queries
    assert (plain.table["rows_kept"] == plain.table["rows_returned"]).all()
    assert "rows kept" not in query_costs_result_html(plain)  # a copy of rows returned


def test_the_advisors_waste_line_says_a_byte_unit_once():
    # 07's advisor read "24.0 kB bytes read for 2.3 kB returned"
    from workbench.advisor.rules import _waste_line
    from workbench.units import human_bytes

    ds = wb.load_dataset("fx_prices", size="workshop")
    t = wb.analyze(ds, wb.preset("fx_prices", "timestamp_first")).queries.table
    line = _waste_line(t, "usdjpy_day")
    seen, ret = (
        human_bytes(t.loc["usdjpy_day", "bytes_seen"]),
        human_bytes(t.loc["usdjpy_day", "bytes_returned"]),
    )
    assert f"{seen} read for {ret} returned" in line and " bytes read" not in line, line
