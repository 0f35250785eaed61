"""Numbers as an attendee reads them (the raw values below were seen in workshop notebooks)."""

from __future__ import annotations

import html

import pandas as pd

import workbench as wb
from workbench.formatting import (
    MEASURED_LEGEND,
    count,
    duration,
    fair_factor,
    formatter_for,
    nbytes,
    number,
    percent,
    ratio,
    styled,
)


def test_each_kind_of_number_reads():
    assert count(10000000) == "10,000,000"
    assert nbytes(2.407907e10) == "24.1 GB"  # 24,079,070,000 B ÷ 10^9
    assert nbytes(516_200_000) == "516.2 MB" and nbytes(90) == "90 B"
    assert percent(0.501523) == "50%" and percent(1 / 6) == "17%" and percent(0.004) == "0.4%"
    assert ratio(40.384615) == "40.4×" and ratio(28629) == "28,629×"
    assert number(40.384615) == "40.4" and number(0.501523) == "0.502" and number(29991) == "29,991"
    assert duration(2**32 / 1000) == "49.7 days" and duration(90) == "1.5 min"
    assert count(pd.NA) == "—"


def test_a_fair_share_factor_reads_the_same_in_every_view():
    """1.25× fair is "even" (≤ 1.5×): two decimals keep it from reading 1.3× in one view and
    1.25× in the verdict above it; past 1.5× one decimal is enough (2.4×)."""
    assert fair_factor(1.25) == "1.25×" and fair_factor(1.5) == "1.50×"
    assert fair_factor(2.4) == "2.4×" and fair_factor(1.51) == "1.5×"
    for col in (
        "hotspot_factor",
        "busiest node ÷ fair share",
        "hotspot factor (busiest node ÷ fair)",
    ):
        assert formatter_for(col) is fair_factor, col
    assert formatter_for("busiest_node_share") is percent  # a share, not a factor


def test_a_comparison_view_formats_by_column_and_explains_absent_values():
    ds = wb.load_dataset("fx_prices", size="tiny")
    cmp = wb.compare(
        ds, [wb.preset("fx_prices", "pair_microseconds"), wb.preset("fx_prices", "salted")]
    )
    html = cmp.view(
        [
            "busiest_node_share",
            "hotspot_factor",
            "bytes_per_event",
            "latest_quote: rows seen",
            "latest_quote: waste",
        ]
    ).to_html()
    share = cmp.table["busiest_node_share"].iloc[0]
    assert f"{share * 100:.0f}%" in html and "×" in html and " B<" in html
    assert "e+" not in html and "0000<" not in html
    # a query named after a currency pair is not money (seen: "usdjpy_day: rows seen" as "$1,026")
    assert "$" not in cmp.view(["usdjpy_day: rows seen", "usdjpy_day: scans"]).to_html()
    frame = pd.DataFrame({"rows seen": [10, 20], "measured rows": [pd.NA, 3]})
    assert MEASURED_LEGEND in styled(frame).to_html()


def test_hot_tablets_read_as_percentages_and_times():
    """ListHotTablets' node_cpu_usage_percent is already in percent: 42 → "42%", 2.345 → "2.3%",
    0.000055 (what the table printed raw) → "<0.01%"; times to the minute in UTC."""
    import re

    import pandas as pd

    import workbench as wb
    from workbench.analysis import analyze
    from workbench.formatting import formatter_for, percent_points, timestamp

    assert formatter_for("node_cpu_usage_percent") is percent_points
    assert [percent_points(v) for v in (42.0, 2.345, 0.25, 0.000055, 0)] == [
        "42%",
        "2.3%",
        "0.25%",
        "<0.01%",
        "0%",
    ]
    assert timestamp(pd.Timestamp("2024-03-01 14:05", tz="UTC")) == "2024-03-01 14:05 UTC"
    kd = analyze(
        wb.load_dataset("fx_prices", size="tiny"), wb.preset("fx_prices", "timestamp_first")
    ).keyspace
    assert len(kd.hot_tablets)
    page = kd._repr_html_()
    hot = page.split("Hot tablets")[1]
    # no raw float with four or more decimals, no "+00:00" offsets: percentages and minutes
    assert not re.search(r"\d\.\d{4,}", hot) and "+00:00" not in hot
    first = kd.hot_tablets.iloc[0]
    assert percent_points(first["node_cpu_usage_percent"]) in hot


def test_rankings_read_in_full_after_setup():
    """``c.rankings`` (the README's advice) shows each ranking and reason whole, not cut to "…"."""
    import pandas as pd

    ds = wb.load_dataset("fx_prices", size="tiny")
    cmp = wb.compare(
        ds, [wb.preset("fx_prices", "pair_microseconds"), wb.preset("fx_prices", "salted")]
    )
    long = [
        t for t in cmp.rankings["reason"].tolist() + cmp.rankings["ranking"].tolist() if len(t) > 50
    ]
    assert long, "no text long enough to be cut: the test would prove nothing"
    with pd.option_context("display.max_colwidth", 50):
        wb.setup(emulator=False)
        page = cmp.rankings._repr_html_()
        assert all(html.escape(t, quote=False) in page for t in long), long


def test_workshop_scale_numbers_read_without_exponents_or_long_decimals():
    from workbench.formatting import rate

    # at most three decimals; below 0.001 "<0.001", never 8.27e-08 or 0.0000000827
    assert number(0.0961) == "0.096" and number(0.00116) == "0.001"
    assert number(8.27e-08) == "<0.001" and number(16809.501267) == "16,810"
    assert number(6.0) == "6.00"
    # a rate in the first unit it reaches 1 in: 0.00116/s × 3600 = 4.18 an hour,
    # 8.29e-06/s × 86,400 = 0.716 a day
    assert rate(2500, "events") == "2,500 events/s" and rate(0.5) == "30.0/min"
    assert rate(0.00116, "events") == "4.18 events/h" and rate(8.29e-06) == "0.716/day"
    assert percent(0.0000024) == "<0.1%" and percent(0.5) == "50%"


def test_a_figure_and_its_unit_stay_on_one_line():
    """04's query table at 1440 px broke "0.625 ms" into "0.625" over "ms" (and "0.056 ms",
    "0.362 ms"): every formatted column's cells are nowrap, so only the headers (and text
    columns) wrap. The cell's CSS rule is read from the HTML the notebook shows."""
    import re

    frame = pd.DataFrame({"kind": ["multi-range"], "node_ms": [0.625], "bytes_seen": [15_300]},
                         index=["all_pairs_minute"])  # fmt: skip
    page = wb.styled(frame).to_html()
    rules: dict[str, str] = {}  # "#T_1_row0_col1, #T_1_row0_col2 { white-space: nowrap; }"
    for selectors, body in re.findall(r"([^{}]+)\{([^}]*)\}", page):
        for sel in selectors.split(","):
            rules[sel.strip().lstrip("#")] = rules.get(sel.strip().lstrip("#"), "") + body
    cells = dict(re.findall(r'<td id="(T_\w+?)" class="[^"]*"\s*>([^<]*)</td>', page))
    by_text = {text.strip(): rules.get(cid, "") for cid, text in cells.items()}
    assert "0.625 ms" in by_text and "15.3 kB" in by_text, by_text
    assert "white-space: nowrap" in by_text["0.625 ms"]
    assert "white-space: nowrap" in by_text["15.3 kB"]
    assert "nowrap" not in by_text["multi-range"]  # a text column may wrap
    # a time may wrap before "UTC": 04's hot tablets (start and end time a row) ran 974 px in the
    # 828 px output at 1280 px with every formatted cell nowrap
    times = pd.DataFrame({"start time": [pd.Timestamp("2015-03-11 08:23:53", tz="UTC")]})
    page = wb.styled(times).to_html()
    assert "2015-03-11 08:23:53 UTC" in page and "nowrap" not in page
