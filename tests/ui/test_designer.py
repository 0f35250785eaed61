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
from workbench.formatting import counted
from workbench.schema import ReversedTimestamp, Salt, Timestamp
from workbench.schema.gallery import pattern_names, patterns_for, schema_for, time_precision
from workbench.ui import _render as R
from workbench.ui.app import CSV, TABS, Designer
from workbench.ui.model import Workspace
from workbench.ui.state import (
    FamilyEdit,
    applicable,
    designer_state_to_schema,
    segment_labels,
    state_from_schema,
)

REPO_DATASETS = __import__("pathlib").Path(__file__).resolve().parents[2] / "datasets"


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


def _html(out) -> str:
    data = [o["data"]["text/html"] for o in out.outputs if "text/html" in o.get("data", {})]
    assert data, f"no picture in {out.outputs!r}"
    return data[-1]


def _text(html_text: str) -> str:
    """What a reader sees: tags and styles gone, whitespace collapsed."""
    no_style = re.sub(r"<style>.*?</style>", "", html_text, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", no_style))


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
    with pytest.raises(wb.SchemaError, match="key segment 'player'"):
        designer_state_to_schema(base, replace(st, segments=("player", "time")))


def test_an_edited_design_lists_the_guidelines_its_own_key_shows():
    """garden's `tall` (garden#time, one cell per measure) shows G02, G07 and G15. Time moved
    first, it shows G06 in G07's place; salted, G08; reversed, G09 beside G07; the layout's G02
    and G15 stay, since the key's shape does not decide them."""
    base = wb.preset("garden_temperature", "tall")
    assert base.guidelines == ("G02", "G07", "G15")
    st = state_from_schema(base)
    first = designer_state_to_schema(base, replace(st, segments=("time", "garden")))
    assert first.guidelines == ("G06", "G02", "G15")
    salted = designer_state_to_schema(base, replace(st, salt_buckets=4))
    assert salted.guidelines == ("G08", "G02", "G15")
    rev = designer_state_to_schema(base, replace(st, reversed=True))
    assert rev.guidelines == ("G07", "G09", "G02", "G15")
    assert designer_state_to_schema(base, st).guidelines == base.guidelines  # unedited


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
    assert patterns_for(ds) == pattern_names(ds) and patterns_for(ds)[0] == "entity_first"
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
    hot = _html(d.figures["hotspot"])
    # the picture's title is the analysis' busiest share: ≥ 90 % for one hot node
    assert f"Busiest node: {d.analysis.keyspace.mean_share:.0%} of the load" in hot
    _tab(d, "advisor")
    g06 = [f for f in d.findings if "G06" in f.guidelines]
    assert g06 and g06[0].suggestion is not None
    assert "G06" in "".join(
        getattr(w, "value", "") for box in d.advisor_panel.children for w in box.children
    )
    d.apply_suggestion(d.findings.index(g06[0]))
    # the same design (key, layout, families), named as the gallery names it
    same = ("name", "description", "guidelines")
    assert replace(d.schema, **dict.fromkeys(same, "")) == replace(
        g06[0].suggestion, **dict.fromkeys(same, "")
    )
    assert not [f for f in d.findings if "G06" in f.guidelines]
    assert d.analysis.keyspace.mean_share < shown
    _tab(d, "hotspot")
    assert _html(d.figures["hotspot"]) != hot


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


def test_an_edited_design_is_named_edited_wherever_its_name_shows(ws):
    """07 after its first exercise: the key's segments swapped to time#pair on fx_prices. The
    title and headline read "pair_microseconds: key time#pair" — as if the gallery's
    pair_microseconds (key pair#time) had that key — where the picker said "(edited)"."""
    d = _designer(ws)
    d.controls.segments.value = ["time", "pair"]
    name = "pair_microseconds (edited): key time#pair"
    assert d.schema.name == name
    assert d.controls.pattern.value == "✎ pair_microseconds (edited)"
    for shown in (_text(d.title.value), _text(d.headline.value)):
        assert name in shown and "pair_microseconds: key" not in shown, shown[:300]
    d.controls.segments.value = ["pair", "time"]  # the edit undone: the gallery name again
    assert d.schema.name == "pair_microseconds" and "(edited)" not in _text(d.title.value)


def test_07s_fixed_designer_keeps_one_note_and_no_warning(ws):
    """07: `fix` on timestamp_first, its first suggestion applied. The prose said its Advisor tab
    had "no findings left" over a tab showing one note (every pair name holds a "/", outside
    [a-zA-Z0-9-_#], G20/G22): no warning is left, one note is, as the prose now says."""
    d = _designer(ws, "fx_prices", "workshop", schema=wb.preset("fx_prices", "timestamp_first"))
    d.show_tab("advisor")
    d.apply_suggestion(0)
    _tab(d, "advisor")
    assert d.schema.name == "pair_microseconds"
    assert [f.severity for f in d.findings] == ["info"], [(f.severity, f.title) for f in d.findings]
    assert {"G20", "G22"} <= set(d.findings[0].guidelines), d.findings[0].guidelines
    # the sentence: tests/notebooks/test_notebooks.py::test_the_prose_of_07_states_its_outputs


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
    assert d.ds.name == "my_garden" and list(d.controls.pattern.options) == pattern_names(d.ds)
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
    # two heat maps (one raster each) and the ranking as HTML bars, one panel per criterion
    assert shown.count("data:image/png;base64,") == 2
    assert all(label in shown for _, label in d.comparison.criteria)
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
    assert "last design" in d.headline.value
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
    from workbench.plots.heatmap import HEIGHT_PX, WIDTH_PX, key_heatmap_html

    ds = wb.load_dataset("fx_prices", size="tiny")
    hot = analyze(ds, wb.preset("fx_prices", "timestamp_first")).keyspace
    spread = analyze(ds, wb.preset("fx_prices", "pair_microseconds")).keyspace
    page = key_heatmap_html(hot)
    # the tiny sample's own rate is far under a frontier's ceiling: named as a write frontier
    assert (
        html.escape(hot.verdict()) in page and "Write frontier" in page and "SampleRowKeys" in page
    )
    spread_page = key_heatmap_html(spread)
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
    assert "Reads by the query workload" in key_heatmap_html(hot, "reads")
    with pytest.raises(ValueError, match="writes' or 'reads'"):
        key_heatmap_html(hot, "both")


def test_every_view_of_one_design_shows_the_same_figures(ws):
    """Headline, heat map tab, advisor, Compare (heat maps, table, ranking) and the analysis a
    notebook tabulates all read one analysis: at 6 nodes the fair share is 1/6 ≈ 17% everywhere.
    """
    d = _designer(ws)
    d.controls.nodes.value = 6
    d.pin()
    d.controls.pattern.value = "timestamp_first"
    a = d.analysis
    assert a.keyspace.nodes == 6 and abs(a.keyspace.fair_share - 1 / 6) < 1e-9
    # the notebook's view: wb.analyze with the same settings gives the same numbers
    nb = wb.analyze(d.ds, d.schema, nodes=6)
    assert nb.keyspace.hotspot_factor == a.keyspace.hotspot_factor
    pd_eq = nb.queries.table[["rows_seen", "rows_returned", "waste"]]
    assert pd_eq.equals(a.queries.table[["rows_seen", "rows_returned", "waste"]])
    assert nb.rowsizes.projected_max_bytes == a.rowsizes.projected_max_bytes
    # headline and heat map tab: one fair share, one hotspot factor
    _tab(d, "heatmap")
    factor = f"{a.keyspace.hotspot_factor:.1f}× its fair share of 17%, 6 nodes"
    assert factor in _text(d.headline.value)
    # compare: heat maps, table and ranking on the same 6 nodes
    _tab(d, "compare")
    shown = _text("".join(o["data"].get("text/html", "") for o in d.compare_out.outputs))
    pinned = d.comparison.analyses["pinned: pair_microseconds"]
    # the heat maps, the table and the ranking are the designer's own 6-node analyses
    assert pinned is ws.analysis(d.ds, d.pinned, nodes=6)
    assert d.comparison.analyses["current: timestamp_first"] is a
    f = pinned.keyspace.hotspot_factor
    assert f"{f:.1f}× its fair" in shown and f"{f:.1f}× fair" in shown, shown
    t = d.comparison.table
    assert list(t["nodes"]) == [6, 6]
    cur = t.loc["current: timestamp_first"]
    assert cur["hotspot_factor"] == a.keyspace.hotspot_factor
    for q in a.queries.table.index:
        row = a.queries.table.loc[q]
        if row["kind"] == "cannot plan":
            continue
        assert cur[f"{q}: rows seen"] == row["rows_seen"]
        assert cur[f"{q}: rows returned"] == row["rows_returned"]
        assert cur[f"{q}: waste"] == row["waste"]
    assert cur["projected_max_row_bytes"] == a.rowsizes.projected_max_bytes
    # capacity: one node count in the analysis, the headline, the comparison and the advisor
    nodes = counted(a.capacity.nodes_needed, "SSD node")
    assert nb.capacity.nodes_needed == a.capacity.nodes_needed
    assert nodes in _text(d.headline.value)
    assert cur["nodes_needed"] == a.capacity.nodes_needed
    assert cur["events_per_s"] == a.capacity.events_per_s
    # advisor: its hotspot evidence and each full-scan waste are the analysis' numbers
    _tab(d, "advisor")
    text = " ".join(" ".join(f.evidence) for f in d.findings)
    assert nodes in text and a.capacity.rate_text() in text
    assert f"hotspot factor {a.keyspace.hotspot_factor:.1f}×" in text
    assert "fair 17%" in text  # 1 of 6 nodes
    # ceiling: the keyspace summary's line in the headline and the advisor's evidence, and
    # the same figure (per event: one mutation each here) in the capacity and compare rows
    line = a.keyspace.ceiling.text()
    assert line in _text(d.headline.value) and f"ceiling: {line}" in text
    assert line in str(a.keyspace)
    assert a.capacity.ceiling_events_per_s == a.keyspace.ceiling.writes_per_s
    assert cur["ceiling_events_per_s"] == a.keyspace.ceiling.writes_per_s
    for f in d.findings:
        if f.rule == "full_scan":
            q = f.title.split(" ")[0].rstrip(":")
            assert f"({a.queries.table.loc[q, 'waste']:,.0f}× waste)" in text


def test_the_description_follows_the_key_and_a_suggestion_keeps_its_gallery_name(ws):
    d = _designer(ws)
    assert d.schema.name == "pair_microseconds" and "Pair first" in d.schema.description
    # drop `pair`: the key is just the time; the description must say so, not "Pair first"
    d.controls.segments.value = [s for s in d.controls.segments.value if s != "pair"]
    assert d.schema.key.template().startswith("{time")
    assert "Pair first" not in d.schema.description
    assert d.schema.description.startswith("Row key {time") and "time first" in d.schema.description
    assert "Row key {time" in _text(R.design_html(d.ds, d.schema))
    # timestamp_first's G06 fix puts the pair back in front: that is the gallery's
    # pair_microseconds, and the designer names and selects it as such
    d.controls.pattern.value = "timestamp_first"
    _tab(d, "advisor")
    g06 = [f for f in d.findings if "G06" in f.guidelines][0]
    assert d.controls.apply[d.findings.index(g06)].tooltip == "Switch to pair_microseconds"
    d.apply_suggestion(d.findings.index(g06))
    assert d.controls.pattern.value == "pair_microseconds" == d.schema.name
    assert not any(o.startswith("★") for o in d.controls.pattern.options)


def test_an_error_reads_as_one_sentence_with_the_evidence_folded():
    from workbench.errors import WorkbenchError

    exc = WorkbenchError(
        "3 events collide: they map to the same cell.\n"
        "  row 'a' cell m:v ← key=...\n"
        "  row 'b' cell m:v ← key=...\n"
        "Use a finer time precision in the key (G31)."
    )
    head, detail = R.error_parts(exc)
    assert head == (
        "3 events collide: they map to the same cell. Use a finer time precision in the key (G31)."
    )
    assert detail.count("row '") == 2
    shown = R.error_html(exc)
    assert shown.index("Use a finer") < shown.index("<details>") < shown.index("row &#x27;a")
    # a one-line error stays whole, with nothing folded
    assert "<details>" not in R.error_html(WorkbenchError("Unknown column 'x'."))


def test_csv_panel_reads_semicolons_bom_and_one_series_with_default_queries(ws, tmp_path):
    d = _designer(ws, size="tiny")
    d.controls.dataset.value = CSV
    f = tmp_path / "co2.csv"
    # ';' separated with a BOM, YYYYMMDD dates, no entity column: one series
    f.write_bytes("\ufeffdate;co2\n19580329;316.1\n19580405;317.3\n19580412;317.6\n".encode())
    d.controls.csv_path.value = str(f)
    d.controls.csv_read.click()
    assert list(d.controls.csv_time.options) == ["date", "co2"]  # BOM gone, ';' split
    d.controls.csv_time.value = "date"
    d.controls.csv_measures.value = ("co2",)
    d.controls.csv_load.click()
    assert d.ds is not None and d.ds.entity == ["series"] and len(d.ds) == 3
    # the default queries are shown where the file was loaded
    assert "latest 1 per series" in d.csv_status.value
    assert list(d.controls.pattern.options) == pattern_names(d.ds)


def test_html_row_sizes_and_query_costs_carry_the_analysis_numbers():
    """The designer's HTML pictures read the analysis' own numbers: one bar per non-empty size
    bin, every query's rows seen / returned / waste as the headline prints them."""
    import html

    from workbench.analysis import analyze
    from workbench.formatting import ratio
    from workbench.plots.queries import query_costs_html
    from workbench.plots.sizes import row_sizes_html

    ds = wb.load_dataset("fx_prices", size="tiny")
    a = analyze(ds, wb.preset("fx_prices", "timestamp_first"))
    page = row_sizes_html(a.rowsizes)
    assert html.escape(a.rowsizes.verdict()) in page
    assert "100 MB guideline" in page and "256 MB hard limit" in page
    # 80 log bins from 1 B up to max(projection, 1.6 × 256 MB); a bar per non-empty bin
    hi = max(float(a.rowsizes.projected_max_bytes), a.rowsizes.settings.row_hard_bytes * 1.6)
    counts = np.histogram(
        np.maximum(a.rowsizes.bytes.astype(float), 1.0), np.logspace(0, np.log10(hi), 81)
    )[0]
    assert page.count("(now)'") == int((counts > 0).sum())
    q = query_costs_html(a.queries)
    for name, r in a.queries.table.iterrows():
        if r["kind"] == "cannot plan":
            continue
        row = q.split(f"data-query='{html.escape(str(name))}'")[1].split("</tr>")[0]
        assert (
            f"{int(r['rows_seen']):,} seen" in row
            and f"{int(r['rows_returned']):,} returned" in row
        )
        assert f"{ratio(float(r['waste']))} waste" in row


def test_advice_at_another_cluster_size_reuses_the_cells_and_says_the_same():
    """The nodes slider re-advises from the cells already built (Context.at_nodes): the findings
    must be exactly those of a fresh advise at that node count."""
    from workbench.advisor import advise
    from workbench.analysis import analyze

    ds = wb.load_dataset("fx_prices", size="tiny")
    s = wb.preset("fx_prices", "timestamp_first")
    first = advise(ds, s, nodes=3, analysis=analyze(ds, s, nodes=3))
    a6 = analyze(ds, s, nodes=6)
    reused = advise(ds, s, nodes=6, analysis=a6, context=first.context)
    fresh = advise(ds, s, nodes=6, analysis=a6)
    assert reused.context.cells is first.context.cells  # no second to_cells
    assert [(f.rule, f.message, f.evidence) for f in reused] == [
        (f.rule, f.message, f.evidence) for f in fresh
    ]


def test_a_segment_typed_back_returns_to_its_place_in_the_key():
    from workbench.ui.state import place_added

    base = ("pair", "time")
    # dropped pair, typed it back (the editor appends): it goes before time, as in the design
    assert place_added(("time",), ("time", "pair"), base) == ("pair", "time")
    # the attendee moved the cursor (arrow keys) and typed it somewhere else than last: kept
    assert place_added(("time",), ("pair", "time"), base) == ("pair", "time")
    # a three-segment key: md5 dropped from the middle comes back between its neighbours
    three = ("host", "md5(what)", "time")
    assert place_added(("host", "time"), ("host", "time", "md5(what)"), three) == three
    # a reorder (nothing added) is left alone
    assert place_added(("pair", "time"), ("time", "pair"), base) == ("time", "pair")


def test_key_editor_has_no_datalist_and_names_what_can_be_typed_back(ws):
    d = _designer(ws, size="tiny")
    assert d.controls.segments.allowed_tags == []  # a datalist swallows Enter in Chromium
    d.controls.segments.value = ["time"]
    assert "add back: pair" in d.segment_hint.value
    d.controls.segments.value = ["time", "pair"]  # what the editor sends after Enter
    assert list(d.controls.segments.value) == ["pair", "time"]
    assert d.schema.name == "pair_microseconds"  # the gallery design again, by name
    d.controls.segments.value = ["time", "nope"]
    import html

    assert "key segment 'nope'" in html.unescape(d.status.value)


def test_your_queries_box_costs_the_lines_you_type(ws, tmp_path):
    d = _designer(ws, size="tiny")
    assert d.queries_box.layout.display == "none"  # a named dataset has its own queries
    d.controls.dataset.value = CSV
    assert d.queries_box.layout.display == "flex" and d.controls.queries.value == ""
    f = tmp_path / "meters.csv"
    f.write_text(
        "meter,time,kwh\n"
        + "".join(f"m{i % 3},2024-01-0{1 + i // 24}T{i % 24:02d}:00:00Z,{i}\n" for i in range(48)),
        encoding="utf-8",
    )
    d.controls.csv_path.value = str(f)
    d.controls.csv_read.click()
    d.controls.csv_entity.value = ("meter",)
    d.controls.csv_time.value = "time"
    d.controls.csv_measures.value = ("kwh",)
    # queries typed before loading are the ones the file is loaded with
    d.controls.queries.value = "latest 1 for meter=m1\n\nmeter=m2 over 6 hours"
    d.controls.csv_load.click()
    assert [q.text for q in d.ds.queries] == ["latest 1 for meter=m1", "meter=m2 over 6 hours"]
    assert d.queries_box.layout.display == "flex"
    # edited after loading: the design is re-costed on them, one row per line
    d.controls.queries.value = "latest 2 for meter=m0\nall over 1 hour"
    d.controls.queries_apply.click()
    t = d.analysis.queries.table
    assert len(t) == 2 and re.search(r"\b2 queries", d.queries_status.value)
    assert d.ds.queries[0].limit == 2
    # a misspelled column is an error under the box; the queries in use stay as they were
    d.controls.queries.value = "latest 1 for metre=m0"
    d.controls.queries_apply.click()
    assert "metre" in d.queries_status.value and "meter" in d.queries_status.value
    assert len(d.analysis.queries.table) == 2
