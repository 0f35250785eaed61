"""Details an attendee reads: the designer's cbt commands point where the notebooks' do, its
Emulator tab says what was written and read back, and in how long."""

from __future__ import annotations

import re

import workbench as wb
from workbench.ui.app import TABS


def test_the_schema_tab_names_the_emulators_project_and_instance(emulator):
    # the notebooks' cbt lines name the emulator connection's project and instance; so does the tab
    conn = emulator.connection()
    d = wb.designer(wb.load_dataset("fx_prices", size="tiny"), emulator=emulator)
    d.tabs.selected_index = TABS.index("schema")
    cbt = d.cbt_panel.value
    assert f"-project {conn.project} -instance {conn.instance} createtable" in cbt, cbt[:400]
    assert "my-project" not in cbt and "my-instance" not in cbt


def test_the_emulator_tab_says_what_was_verified_with_counts_and_time(emulator):
    ds = wb.load_dataset("garden_temperature", size="tiny")
    d = wb.designer(ds, emulator=emulator)
    d.tabs.selected_index = TABS.index("emulator")
    d.controls.write.click()
    panel = re.sub(r"<[^>]+>", " ", d.emulator_panel.value)
    cells = d.verification.cells_read
    assert cells > 0 and d.verification.equal
    assert re.search(rf"Verified\s*:\s*Read back {cells:,} cells: identical", panel), panel[:500]
    rep = d.table.write_report
    assert f"{rep.cells:,} cells written in {rep.elapsed_s:.2f} s" in panel, panel[:500]
    assert "cbt" in panel and "count" in panel
    d.table.drop()  # this designer's emulator is the fixture's, not the session's: drop it here


def test_make_report_includes_the_attendees_own_notebooks(tmp_path, monkeypatch):
    import functools

    import nbformat

    from workbench.report import build, build_reports, report_notebooks

    folder = tmp_path / "notebooks"
    (folder / ".ipynb_checkpoints").mkdir(parents=True)
    for name in ("01_b.ipynb", "00_a.ipynb", "my_design.ipynb", ".ipynb_checkpoints/x.ipynb"):
        nbformat.write(nbformat.v4.new_notebook(), folder / name)
    assert [p.name for p in report_notebooks(tmp_path)] == [
        "00_a.ipynb",
        "01_b.ipynb",
        "my_design.ipynb",
    ]
    # `make report` (workbench report, no arguments) writes a report for each of them, in that
    # order, and the index: run on a checkout whose notebooks/ is this folder
    monkeypatch.setattr(build, "report_notebooks", functools.partial(report_notebooks, tmp_path))
    paths = build_reports(out=tmp_path / "out", execute=False)
    assert [p.name for p in paths] == [
        "00_a.html",
        "01_b.html",
        "my_design.html",
        "index.html",
    ]


def test_a_query_time_must_be_iso_8601_as_its_message_says():
    import pytest

    from workbench.errors import DatasetError

    ds = wb.load_dataset("energy_meters", size="tiny")
    kw = dict(entity=["meter_id"], time="time", measures=["kwh", "voltage"])
    # 31/12/2005 was read (day first, by guessing) although the error for bad times says ISO 8601
    with pytest.raises(DatasetError, match=r"'31/12/2005' is not a time; write ISO 8601"):
        wb.from_dataframe(ds.frame, **kw, queries=["all at 31/12/2005"])
    # ISO times are read; these lie outside the data (2015), which is said, not refused
    with pytest.warns(UserWarning, match="lies outside the data") as said:
        ok = wb.from_dataframe(
            ds.frame, **kw, queries=["all at 2005-12-31", "a: all from 2005 to 2006"]
        )
    assert len(said) == 2
    assert str(ok.queries[0].start).startswith("2005-12-31")


def test_query_texts_end_with_one_full_stop():
    ds = wb.load_dataset("energy_meters", size="tiny")
    kw = dict(entity=["meter_id"], time="time", measures=["kwh", "voltage"])
    mine = wb.from_dataframe(
        ds.frame, **kw, queries=["latest 1 per meter_id", "latest 2 for meter_id=100001"]
    )
    for q in mine.queries:
        assert q.description.endswith(")." if "busiest" in q.description else ".")
        assert ".." not in q.description, q.description


def test_the_personal_data_finding_spells_its_plural():
    ds = wb.load_dataset("game_scores", size="tiny")
    emails = ds.frame.assign(player=ds.frame["player"].str.lower() + "@example.com")
    email_ds = wb.from_dataframe(
        emails, entity=["game", "player"], time="time", measures=["win", "kda"], name="by_email"
    )
    advice = wb.advise(email_ds, wb.preset("game_scores", "game_player_time"))
    found = [f for f in advice if f.rule == "personal_data"]
    assert found, [f.rule for f in advice]
    text = " ".join(found[0].evidence)
    assert "look like e-mail addresses," in text and "addresss" not in text


def test_the_design_picker_says_when_the_key_was_edited():
    d = wb.designer(wb.load_dataset("fx_prices", size="tiny"))
    assert d.controls.pattern.value == "pair_microseconds"
    d.controls.segments.value = ["time", "pair"]  # the pair behind the time: not that preset now
    assert d.schema.key.template().startswith("{time")
    assert d.controls.pattern.value == "✎ pair_microseconds (edited)"
    d.controls.segments.value = ["pair", "time"]  # undone: the preset's own name again
    assert d.controls.pattern.value == "pair_microseconds" and d.schema == d.base
    assert not [o for o in d.controls.pattern.options if o.startswith("✎")]
    d.controls.segments.value = ["time", "pair"]
    d.controls.pattern.value = "salted"
    d.controls.pattern.value = "✎ pair_microseconds (edited)"  # the edit can be picked again
    assert d.schema.key.template().startswith("{time")


def test_a_sample_rate_pays_the_one_node_minimum_not_a_cpu_bound():
    # game_scores' workshop sample writes about 4 events an hour: one node's 70 % of CPU is
    # millions of times that, and its few MB are far under a node's storage, so the node count is
    # the smallest cluster's, not set by CPU
    ds = wb.load_dataset("game_scores", size="workshop")
    cap = wb.analyze(ds, wb.preset("game_scores", "game_player_time")).capacity
    assert cap.nodes_needed == cap.settings.min_nodes == 1 and cap.bound_by == "minimum"
    assert "(the 1-node minimum)" in cap.verdict() and "cpu-bound" not in cap.verdict()
