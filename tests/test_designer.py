"""The schema designer driven from Python: set widget values, check what is shown.

Uses ``tiny``/``small`` datasets so the file stays fast; the real emulator for "Write to emulator".
"""

from __future__ import annotations

import base64
import re
from dataclasses import replace

import numpy as np
import pytest

import workbench as wb
from workbench.schema import ReversedTimestamp, Salt, Timestamp
from workbench.ui.app import CSV, TABS, Designer
from workbench.ui.gallery import GENERIC, patterns_for, schema_for, time_precision
from workbench.ui.model import Workspace
from workbench.ui.state import (
    FamilyEdit,
    applicable,
    designer_state_to_schema,
    segment_labels,
    state_from_schema,
)

REPO_DATASETS = __import__("pathlib").Path(__file__).resolve().parent.parent / "datasets"


@pytest.fixture(scope="module")
def ws() -> Workspace:
    return Workspace()  # one cache for the module: datasets are generated once


def _designer(ws: Workspace, name: str = "fx_prices", size: str = "small", **kw) -> Designer:
    return wb.designer(ws.dataset(name, size), workspace=ws, **kw)


def _tab(d: Designer, name: str) -> None:
    d.tabs.selected_index = TABS.index(name)


def _png(out) -> bytes:
    data = [o["data"]["image/png"] for o in out.outputs if "image/png" in o.get("data", {})]
    assert data, f"no figure in {out.outputs!r}"
    return base64.b64decode(data[-1])


def _share(html_text: str) -> float:
    m = re.search(r"busiest node takes <b>(\d+)%</b>", html_text)
    assert m, html_text
    return int(m.group(1)) / 100


# ----------------------------------------------------------------------------- plain functions


def test_state_round_trips_every_preset():
    for ds_name in wb.dataset_names():
        for p in wb.pattern_names(ds_name):
            s = wb.preset(ds_name, p)
            assert designer_state_to_schema(s, state_from_schema(s)) == s, (ds_name, p)


def test_state_edits_change_the_schema_as_asked():
    base = wb.preset("fx_prices", "pair_microseconds")
    st = state_from_schema(base)
    assert st.segments == ("pair", "time") and st.precision == "us" and not st.reversed
    first = designer_state_to_schema(base, replace(st, segments=("time", "pair")))
    assert first.key.segments[0] == Timestamp("us") and first.name != base.name  # G06 design
    rev = designer_state_to_schema(base, replace(st, reversed=True))
    assert (
        isinstance(rev.key.segments[1], ReversedTimestamp) and rev.key.segments[1].unit == "us"
    )  # G09
    salted = designer_state_to_schema(base, replace(st, salt_buckets=6))
    assert salted.key.segments[0] == Salt(6, ("time",))  # salting any key (G08)
    fam = designer_state_to_schema(
        base, replace(st, families=(FamilyEdit("layout", "quotes", 30, 2),))
    )
    assert (
        fam.layout.family.name == "quotes"
        and fam.layout.family.cbt_gc() == "maxage=30d or maxversions=2"
    )
    with pytest.raises(wb.SchemaError, match="cannot be reversed"):
        designer_state_to_schema(base, replace(st, reversed=True, precision="hour"))
    with pytest.raises(wb.SchemaError, match="Unknown key segment 'player'"):
        designer_state_to_schema(base, replace(st, segments=("player", "time")))


def test_only_applicable_controls_are_enabled():
    heroic = applicable(wb.preset("server_metrics", "heroic"))
    assert not heroic.precision and heroic.bucket and not heroic.layout  # base time in the key, G16
    tall = applicable(wb.preset("fx_prices", "pair_microseconds"))
    assert tall.precision and tall.reversed and tall.layout and not tall.bucket
    assert segment_labels(wb.preset("energy_meters", "reversed_id_hourly").key) == (
        "reversed(meter_id)",
        "time",
    )


def test_generic_gallery_for_your_own_data():
    ds = wb.from_csv(
        REPO_DATASETS / "energy_meters.csv",
        entity=["meter_id"],
        time="time",
        measures=["kwh", "voltage"],
        name="my_meters",
    )
    assert patterns_for(ds) == list(GENERIC)
    assert time_precision(ds) == "second"
    s = schema_for(ds, "entity_first")
    assert s.example_key(ds).startswith("100001#20150301")


# ----------------------------------------------------------------------------- the widget


def test_timestamp_first_shows_the_hotspot_and_the_advisor_fix_removes_it(ws):
    d = _designer(ws)
    good = _share(d.headline.value)
    d.controls.pattern.value = "timestamp_first"
    assert d.schema.name == "timestamp_first"
    shown = _share(d.headline.value)
    assert (
        shown >= 0.9 and d.analysis.keyspace.mean_share >= 0.9 > good
    )  # one node takes ~all writes (G06)
    _tab(d, "hotspot")
    hot = _png(d.figures["hotspot"])
    assert hot[:8] == b"\x89PNG\r\n\x1a\n"
    _tab(d, "advisor")
    g06 = [f for f in d.findings if "G06" in f.guidelines]
    assert g06 and g06[0].suggestion is not None
    assert "G06" in "".join(
        getattr(w, "value", "") for box in d.advisor_panel.children for w in box.children
    )
    d.apply_suggestion(d.findings.index(g06[0]))
    assert d.schema == g06[0].suggestion
    assert not [f for f in d.findings if "G06" in f.guidelines]
    assert d.analysis.keyspace.mean_share < shown
    _tab(d, "hotspot")
    assert _png(d.figures["hotspot"]) != hot


def test_salt_buckets_change_the_scans_shown(ws):
    d = _designer(ws)
    d.controls.pattern.value = "salted"
    assert not d.controls.salt_buckets.disabled
    scans = {}
    for n in (2, 8):
        d.controls.salt_buckets.value = n
        t = d.analysis.queries.table
        scans[n] = int(t.loc["usdjpy_day", "scans"])
        row = re.search(r"data-query='usdjpy_day'>.*?data-metric='scans'>(\d+)<", d.headline.value)
        assert row and int(row.group(1)) == scans[n]
    assert scans == {2: 2, 8: 8}  # every range read fans out to one scan per bucket (G08)
    d.controls.salt_buckets.value = 1  # no salt: the salt segment leaves the key
    assert "salt" not in d.controls.segments.value and not any(
        isinstance(s, Salt) for s in d.schema.key.segments
    )


def test_segment_order_precision_and_families_drive_the_design(ws):
    d = _designer(ws)
    c = d.controls
    c.segments.value = ["time", "pair"]
    assert d.schema.key.segments[0] == Timestamp("us") and d.analysis.keyspace.mean_share >= 0.9
    c.segments.value = ["pair", "time"]
    c.precision.value = (
        "second"  # quotes in the same second collide: the error is shown, not raised (G31)
    )
    assert "CollisionError" in d.status.value and "collide" in d.status.value
    c.precision.value = "us"
    assert d.status.value == "" and d.error is None
    c.families[0][0].value = "quotes"
    c.families[0][2].value = 1
    _tab(d, "schema")
    assert "quotes gc: maxversions=1" in d.design_panel.value
    assert "data-example-key>" in d.design_panel.value
    cbt = d.cbt_panel.value
    assert (
        "createtable" in cbt and "createfamily" in cbt and "setgcpolicy" in cbt and "quotes" in cbt
    )
    assert c.bucket.disabled and not c.precision.disabled


def test_layout_switch_and_nodes_reuse_the_cells(ws):
    d = _designer(ws, "weather_balloons")
    c = d.controls
    c.layout.value = "serialized JSON (G14)"
    assert d.schema.layout.format == "json"
    misses = ws.misses
    c.nodes.value = 6  # the model's cluster size: re-runs the key model, not to_cells
    assert d.analysis.keyspace.nodes == 6 and ws.misses == misses + 1
    c.nodes.value = 3
    assert ws.misses == misses + 1  # cached
    c.pattern.value = "bucket_new_columns"
    assert c.layout.disabled and not c.bucket.disabled and c.precision.disabled
    rows_week = d.analysis.index.n_rows
    c.bucket.value = "day"
    assert d.analysis.index.n_rows > rows_week  # narrower buckets, more rows (G12)


def test_bad_csv_shows_its_error_in_the_ui(ws, tmp_path):
    d = _designer(ws, size="tiny")
    d.controls.dataset.value = CSV
    assert d.csv_box.layout.display == "flex"
    bad = tmp_path / "readings.csv"
    bad.write_text("sensor,when,temp\ns1,2015-03-01 00:00,1.0\ns1,not a time,2.0\n")
    d.controls.csv_path.value = str(bad)
    d.controls.csv_read.click()
    assert list(d.controls.csv_time.options) == ["sensor", "when", "temp"]
    d.controls.csv_entity.value = ("sensor",)
    d.controls.csv_time.value = "when"
    d.controls.csv_measures.value = ("temp",)
    d.controls.csv_load.click()
    assert "DatasetError" in d.csv_status.value and "when" in d.csv_status.value
    assert "DatasetError" in d.status.value
    assert d.ds.name == "fx_prices"  # the previous dataset is still shown
    # a good CSV loads and gets the generic gallery
    d.load_csv(
        REPO_DATASETS / "garden_temperature.csv",
        entity=["garden"],
        time="time",
        measures=["temp_f"],
        name="my_garden",
    )
    assert d.ds.name == "my_garden" and list(d.controls.pattern.options) == list(GENERIC)
    assert d.controls.size.disabled and "my_garden (yours)" in d.controls.dataset.options


def test_pin_and_compare_show_both_designs(ws):
    d = _designer(ws, size="tiny")
    d.pin()
    d.controls.pattern.value = "timestamp_first"
    _tab(d, "compare")
    assert d.comparison is not None
    assert list(d.comparison.table.index) == [
        "pinned: pair_microseconds",
        "current: timestamp_first",
    ]
    shown = "".join(o["data"].get("text/html", "") for o in d.compare_out.outputs)
    assert "pinned: pair_microseconds" in shown and "current: timestamp_first" in shown
    assert (
        shown.count("data:image/png;base64,") >= 3
    )  # two heat maps side by side + the ranking figure
    d.unpin()
    assert d.pinned is None and not d.compare_out.outputs


def test_write_to_emulator_shows_the_verification(ws, emulator, monkeypatch):
    # the notebook path: no emulator passed, the designer uses wb.emulator() (here: the session's)
    monkeypatch.setenv("BIGTABLE_EMULATOR_HOST", emulator.host)
    assert wb.emulator().host == emulator.host
    d = _designer(ws, "garden_temperature", size="tiny")
    _tab(d, "emulator")
    d.controls.write.click()
    assert d.verification is not None and d.verification.equal
    assert "data-verified='true'" in d.emulator_panel.value
    assert d.table.table_id in emulator.connection().list_tables()
    assert d.verification.cells_read == len(d.table.cells) > 0
    wb.cleanup()  # the designer registered its table: cleanup drops it
    assert d.table.table_id not in emulator.connection().list_tables()


def test_every_callback_error_is_visible(ws):
    d = _designer(ws, "garden_temperature", size="tiny")
    d.controls.segments.value = [
        "garden"
    ]  # drop the time: a garden's readings all land in one cell
    assert "CollisionError" in d.status.value and "collide" in d.status.value
    assert d.schema.name == "tall"  # the last design that worked stays on screen
    assert "last design that worked" in d.headline.value
    d.controls.segments.value = ["garden", "time"]
    assert d.status.value == "" and d.schema.name == "tall"


def test_html_heat_map_shows_what_the_figure_shows():
    """The designer's heat map (HTML around a raster) carries the verdict, key labels, dates and the note."""
    import base64
    import html
    import io
    import re

    from PIL import Image

    from workbench.analysis import analyze
    from workbench.ui.heatmap import HEIGHT_PX, WIDTH_PX, heatmap_html

    ds = wb.load_dataset("fx_prices", size="tiny")
    hot = analyze(ds, wb.preset("fx_prices", "timestamp_first")).keyspace
    spread = analyze(ds, wb.preset("fx_prices", "pair_microseconds")).keyspace
    page = heatmap_html(hot)
    assert html.escape(hot.verdict()) in page and "Hotspot" in page and "SampleRowKeys" in page
    spread_page = heatmap_html(spread)
    assert (
        all(html.escape(label) in spread_page for _, label in spread.labels)
        and "USD/JPY" in spread_page
    )
    png = base64.b64decode(re.search(r"data:image/png;base64,([^']+)'", page).group(1))
    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    assert img.shape[:2] == (HEIGHT_PX, WIDTH_PX)
    # timestamp first: the writes sit on one diagonal, most of the picture stays white
    white = float((img == 255).all(axis=2).mean())
    assert white > 0.8
    assert "Reads by the query workload" in heatmap_html(hot, "reads")
    with pytest.raises(ValueError, match="writes' or 'reads'"):
        heatmap_html(hot, "both")
