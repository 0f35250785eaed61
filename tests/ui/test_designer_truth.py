"""The designer says what it shows: every tab follows a dataset switch, titles follow their
verdicts, and the Schema, Views and own-data panels name what is known (driven from Python;
the same in Chromium at 1280 and 1440 px: tests/browser/test_designer_switch.py).
"""

from __future__ import annotations

import re

import pandas as pd
import pytest

import workbench as wb
from workbench.plots.keyspace import node_load_title, window_spread
from workbench.plots.sizes import count_ticks, row_sizes_html
from workbench.plots.style import BAD
from workbench.ui.app import TABS, Designer
from workbench.ui.model import Workspace


@pytest.fixture(scope="module")
def ws() -> Workspace:
    return Workspace()


def _designer(ws: Workspace, name: str = "fx_prices", size: str = "tiny") -> Designer:
    return wb.designer(ws.dataset(name, size), workspace=ws)


def _open(d: Designer, name: str) -> None:
    d.tabs.selected_index = TABS.index(name)


def _text(html_text: str) -> str:
    no_style = re.sub(r"<style>.*?</style>", "", html_text, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", no_style))


def _outputs_html(out) -> str:
    return "".join(o["data"].get("text/html", "") for o in out.outputs)


def test_a_dataset_switch_unpins_the_last_datasets_design_and_drops_its_write(ws):
    """Pinned on fx_prices, the Compare tab kept fx heat maps under server_metrics (its render
    failed on the other data and left them). After the switch nothing of fx_prices is shown:
    the pin is gone with a note naming both datasets, the Emulator tab's last write is
    named as another dataset's, not shown as this one's."""
    d = _designer(ws)
    _open(d, "compare")
    d.pin()
    d.controls.pattern.value = d.controls.pattern.options[1]
    assert "pinned: " in _outputs_html(d.compare_out)
    d.written, d.table = ("fx_prices", d.schema), object()  # as a write on fx_prices leaves them
    d.emulator_panel.value = "<p data-verified='true'>Verified</p>"
    d.controls.dataset.value = "server_metrics"
    assert d.pinned is None and d.comparison is None
    note = _text(d.pinned_panel.value)
    assert "pinned on fx_prices" in note and "server_metrics design" in note
    shown = _text(_outputs_html(d.compare_out))
    assert "fx_prices" not in shown and "Pin a design" in shown
    _open(d, "emulator")
    panel = _text(d.emulator_panel.value)
    assert "data-verified" not in d.emulator_panel.value
    assert re.search(r"Nothing written .*server_metrics.*last write .*fx_prices", panel)


def test_a_size_switch_keeps_the_pin(ws):
    """Another size of the same dataset: the pinned design still applies and stays."""
    d = _designer(ws)
    d.pin()
    d.controls.size.value = "small"
    assert d.pinned is not None and d.pinned_for == "fx_prices"


@pytest.mark.slow  # a small dataset's analysis, several seconds
def test_node_load_title_follows_a_hotspot_verdict_when_the_load_is_spread(ws):
    """fx_prices' pair_microseconds (small) on 3 nodes spreads its writes ("even") and stops
    scaling where its busiest pair's frontier needs 70 % of a node's 14,000 writes/s: EUR/USD
    writes 31.8 % of the small sample's quotes (counted below; production has the sample's 6
    pairs, so the sample's own skew), 9,800 ÷ 0.318 ≈ 30,814 writes/s, the headline's ceiling
    row. At 200,000 events/s, over that ceiling, the verdict is "Hotspot": the node-load title
    said "Every node shares the load evenly" over it."""
    d = _designer(ws, size="small")
    quotes = d.ds.frame.groupby("pair", observed=True).size()
    ceiling = f"{0.70 * 14_000 / (quotes.max() / quotes.sum()):,.0f} writes/s"
    assert len(quotes) == 6 and ceiling == "30,814 writes/s"
    assert f"stops scaling at {ceiling}" in d.headline.value
    d.controls.rate.value = 200_000
    kd = d.analysis.keyspace
    assert kd.spread == "even" and kd.verdict().startswith("Hotspot")
    title, colour = node_load_title(kd)
    assert title.startswith("Hotspot at this rate") and ceiling in title
    assert colour == BAD and "evenly" in title
    assert "class='bad' data-metric='busiest_node_share'" in d.headline.value
    d.controls.rate.value = 0  # the sample's own rate: under the ceiling, no hotspot
    kd = d.analysis.keyspace
    title, colour = node_load_title(kd)
    # no hotspot verdict: the title says what the node-load figure draws, window by window
    assert not title.startswith("Hotspot") and colour != BAD, title
    assert title.startswith(window_spread(kd).words()), title


@pytest.mark.slow  # a small dataset's analysis, several seconds
def test_row_sizes_draw_the_bars_the_title_names_and_label_the_counts(ws):
    """server_metrics' heroic rows close when their 2^32 ms (49.7-day) bucket fills: the title
    says "largest … when full". A bar for those full rows must hold that largest size, and the
    row-count axis has labels."""
    d = _designer(ws, "server_metrics", "tiny")
    d.controls.pattern.value = "heroic"
    rs = d.analysis.rowsizes
    assert "when full" in rs.verdict() and rs.open_rows == 0 and rs.growing_rows > 0
    page = row_sizes_html(rs)
    full = re.findall(r"title='([\d,]+) rows of ([^–]+)–([^ ]+ [^ ]+) \(when full", page)
    assert full, "no bar for the rows when full"
    # the largest projected row lies in one drawn bin: its size is between the bin's edges
    assert any(_bytes(lo) <= rs.projected_max_bytes <= _bytes(hi) * 1.001 for _, lo, hi in full), (
        full,
        rs.projected_max_bytes,
    )
    ticks = re.findall(r"data-y-tick [^>]*>([\d,]+)</span>", page)
    assert len(ticks) >= 2 and ticks[0] in ("0", "1"), ticks


def _bytes(text: str) -> float:
    number, unit = text.split()
    scale = {"B": 1, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}
    scale.update({"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40})
    return float(number.replace(",", "")) * scale[unit]


@pytest.mark.parametrize(
    "top,log_y,expected",
    [
        (4, False, [0, 1, 2, 3, 4]),  # 4 steps of 1
        (31, False, [0, 10, 20, 30]),  # 31/5 > 4, 31/10 ≤ 4
        (124, False, [0, 50, 100]),  # 124/20 > 4, 124/50 ≤ 4
        (28_629, True, [1, 10, 100, 1_000, 10_000]),  # powers of ten up to the top
    ],
)
def test_count_axis_ticks(top, log_y, expected):
    assert count_ticks(top, log_y) == expected


def test_cbt_commands_name_the_known_emulator_and_gcloud_keeps_its_flags_whole(ws, monkeypatch):
    from workbench.session import SESSION

    monkeypatch.setattr(SESSION, "emulator", None)
    monkeypatch.delenv("BIGTABLE_EMULATOR_HOST", raising=False)
    d = _designer(ws)
    _open(d, "schema")
    assert "BIGTABLE_EMULATOR_HOST=127.0.0.1:&lt;port&gt;" in d.cbt_panel.value  # none known
    monkeypatch.setenv("BIGTABLE_EMULATOR_HOST", "127.0.0.1:8086")  # as `workbench lab` sets it
    d = _designer(ws)
    _open(d, "schema")
    assert "BIGTABLE_EMULATOR_HOST=127.0.0.1:8086 first" in d.cbt_panel.value
    assert "&lt;port&gt;" not in d.cbt_panel.value
    gcloud = re.search(r"<pre data-rowkey-gcloud [^>]*>(.*?)</pre>", d.cbt_panel.value, re.S)
    assert gcloud is not None
    lines = gcloud.group(1).splitlines()
    # one flag a line after the command, each continued with a backslash (it still pastes)
    assert lines[0].startswith("gcloud beta bigtable tables update") and lines[0].endswith("\\")
    assert [ln.split("=")[0].strip(" \\") for ln in lines[1:]] == [
        "--instance",
        "--row-key-schema-definition-file",
        "--row-key-schema-pre-encoded-bytes",
    ]
    assert "white-space:pre'" in gcloud.group(0)  # no wrapping inside a flag


def test_every_bad_query_line_is_reported_with_its_number(ws):
    """Four lines, the 1st (misspelled column), 3rd (unknown value) and 4th (no form) bad:
    all three are named with their line numbers, the good 2nd is not."""
    d = _designer(ws)
    assert d.set_queries(
        "latest 1 per pairr\npair=USD/JPY over 1 day\npair=XXX over 1 day\nbogus words"
    ) is None  # fmt: skip
    shown = d.queries_status.value
    assert re.search(r"\b3 of 4 query lines", _text(shown))
    assert re.findall(r"data-bad-line='(\d+)'", shown) == ["1", "3", "4"]
    assert "mean &#x27;pair&#x27;" in shown


def test_an_upload_keeps_its_file_and_reads_its_columns(ws):
    """After an upload the button counted "(0)": the upload now keeps its one file, its saved
    copy's path is typed in and its columns are read."""
    d = _designer(ws)
    d.controls.dataset.value = "your CSV…"
    content = b"sensor,time,temp\nS1,2024-01-01T00:00:00Z,1.5\nS1,2024-02-01T00:00:00Z,2.5\n"
    d.controls.csv_upload.value = (
        {"name": "mine.csv", "type": "text/csv", "size": len(content), "content": content,
         "last_modified": pd.Timestamp("2024-03-01", tz="UTC").to_pydatetime()},
    )  # fmt: skip
    assert len(d.controls.csv_upload.value) == 1
    assert d.controls.csv_path.value.endswith("mine.csv")
    assert list(d.controls.csv_time.options) == ["sensor", "time", "temp"]
    assert d.controls.csv_time.value == "time"


def _monthly(tmp_path) -> object:
    """Two meters read once a month for two years: a series' events are ~30 days apart."""
    times = pd.date_range("2022-01-01", periods=24, freq="MS", tz="UTC")
    rows = [(m, t.isoformat(), float(i)) for m in ("M1", "M2") for i, t in enumerate(times)]
    path = tmp_path / "monthly.csv"
    pd.DataFrame(rows, columns=["meter", "time", "kwh"]).to_csv(path, index=False)
    return wb.from_csv(path, entity="meter", time="time", measures=["kwh"])


@pytest.mark.slow  # a small dataset's analysis, several seconds
def test_views_rollup_starts_at_a_bucket_that_summarises_or_says_none_does(ws, tmp_path):
    """energy_meters reads every 15 minutes: an hour holds 4 readings of a meter, the finest
    bucket with at least two (a minute holds 1/15). Monthly readings: even a month (30 days)
    holds about one, so no bucket helps, and the tab says so instead of an hour bucket."""
    from workbench.ui import views_tab

    d = _designer(ws, "energy_meters", "tiny")
    _open(d, "views")
    d.controls.view_kind.value = views_tab.ROLLUP
    assert d.controls.view_bucket.value == "hour"
    assert re.search(r"hour bucket .*about 4 events", _text(d.views_panel.value))
    d.controls.view_bucket.value = "minute"  # by hand: kept, and called what it is
    assert "copies the rows" in _text(d.views_panel.value)
    # which queries it helps is computed from the two query tables, not assumed: the four
    # energy_meters queries ask for raw readings (meter_day, latest_reading, all_meters_hour,
    # meter_billing_period), none reads a rollup's rows, so none reads fewer rows with it
    helps = _text(d.views_panel.value)
    assert "Helps none" in helps, helps
    assert "per_minute_kwh_mean" in helps  # the query the view answers instead

    m = wb.designer(_monthly(tmp_path), workspace=ws)
    _open(m, "views")
    m.controls.view_kind.value = views_tab.ROLLUP
    assert m.controls.view_bucket.value == "month"
    note = _text(m.views_panel.value)
    assert "No bucket summarises" in note and "copies the rows" in note


def test_the_families_row_is_labelled_and_size_is_labelled_like_dataset(ws):
    d = _designer(ws)
    assert d.controls.size.description == "size"
    assert d.controls.size.style.description_width == d.controls.dataset.style.description_width
    grid = d.children[2]
    families = next(g for g in grid.children if "Families" in g.children[0].value)
    header = families.children[1]
    assert [_text(w.value).strip() for w in header.children] == [
        "column family",
        "max age (days)",
        "max versions",
    ]


def test_a_rollup_says_which_queries_it_helps_from_the_rows_they_read():
    """helped() names a query only when it reads the view AND reads fewer rows than the design
    does now. By hand: q_day reads 96 rows now and 1 from the view (helped, 96 → 1); q_latest
    reads the table (not the view's doing); q_same reads the view but as many rows as now (4);
    q_new is the view's own query, absent from the design's table."""
    from types import SimpleNamespace

    from workbench.ui import views_tab

    now = pd.DataFrame(
        {"kind": ["range", "prefix", "range"], "rows_seen": [96, 1, 4]},
        index=["q_day", "q_latest", "q_same"],
    )
    with_view = pd.DataFrame(
        {
            "kind": ["range", "prefix", "range", "range"],
            "rows_seen": [1, 1, 4, 24],
            "reads": ["the view", "the table", "the view", "the view"],
        },
        index=["q_day", "q_latest", "q_same", "q_new"],
    )
    e = SimpleNamespace(queries=with_view, query="q_new")
    assert views_tab.helped(e, now) == [("q_day", 96, 1)]
    assert re.search(r"q_day</b> \(96 → 1 rows\)", views_tab.helps_html(e, now))
    none = SimpleNamespace(queries=with_view.drop("q_day"), query="q_new")
    assert views_tab.helped(none, now) == []
    assert "Helps none" in views_tab.helps_html(none, now)
