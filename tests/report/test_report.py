"""Reports: executed notebooks as self-contained HTML that opens offline.

The fixture notebook (tests/fixtures/notebooks/report_widgets.ipynb) has a
matplotlib figure, a pandas table, ipywidgets driving an Output widget's
figure, a Tab and an Accordion, a tqdm.auto bar, a ``_repr_html_`` object, a
marked finding and planted secrets. It is executed against the real emulator,
exported, and opened in headless Chromium with every network request aborted.
"""

from __future__ import annotations

import base64
import importlib.metadata as md
import json
import platform
import re
import shutil
from pathlib import Path

import ipywidgets as widgets
import nbformat
import pytest
from browser import open_offline
from ipywidgets.embed import embed_data
from waits import HANG_S

from workbench.report import ReportError, Scrubber, StaticWidgets, build_reports, offline_problems
from workbench.report._findings import collect
from workbench.report._widgets import StaticWidgetsPreprocessor

pytestmark = pytest.mark.slow  # executes notebooks into reports

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "notebooks"
REPO = Path(__file__).resolve().parents[2]
PLANTED_KEY = "sk-planted-" + "f00dcafe" * 3
PLANTED_TOKEN = "0123456789abcdef" * 3  # 48 hex characters, like a Jupyter token


@pytest.fixture(scope="module")
def built(emulator, tmp_path_factory):
    """The fixture notebook, with secrets planted in its metadata too, built into a report folder."""
    work = tmp_path_factory.mktemp("report")
    nb = nbformat.read(FIXTURES / "report_widgets.ipynb", as_version=4)
    nb.metadata["planted"] = {
        "token": PLANTED_TOKEN,
        "where": "/root/private/notes.txt",
        "home": str(Path.home()),
    }
    nb.cells[2].metadata["planted_path"] = str(work / "secret-dir" / "data.csv")
    nb.cells.insert(
        1,
        nbformat.v4.new_markdown_cell(
            "A picture on the web: ![remote chart](https://example.com/chart.png)"
        ),
    )
    src = work / "notebooks" / "report_widgets.ipynb"
    src.parent.mkdir()
    nbformat.write(nb, src)
    out = work / "reports"
    mp = pytest.MonkeyPatch()
    mp.setenv("WORKBENCH_FIXTURE_API_KEY", PLANTED_KEY)  # the kernel inherits it and prints it
    try:
        paths = build_reports([src], out, emulator=emulator, timeout=HANG_S)
    finally:
        mp.undo()
    return {
        "paths": paths,
        "out": out,
        "work": work,
        "html": (out / "report_widgets.html").read_text(),
    }


def test_build_writes_one_page_per_notebook_and_an_index(built):
    names = [p.name for p in built["paths"]]
    assert names == ["report_widgets.html", "index.html"]
    assert all(p.stat().st_size > 0 for p in built["paths"])


def test_report_has_no_secrets_or_local_paths(built, emulator):
    html = built["html"]
    for secret in (
        PLANTED_KEY,
        PLANTED_TOKEN,
        emulator.host,
        "ya29.a0AfH6SMBfixture",
        "/root/",
        "/home/alice",
        str(built["work"]),
        str(REPO),
        str(Path.home()) + "/",
        "/tmp/",
    ):
        assert secret not in html, f"{secret!r} leaked into the report"
    # planted values were replaced where they were, not dropped with their context
    assert "api key: [redacted]" in html
    assert "emulator: [emulator-host]" in html
    assert "token=[redacted]" in html
    assert "live Bigtable emulator at [emulator-host]" in html
    assert Scrubber.for_environment(hosts=[emulator.host]).leaks(html) == []


def test_report_states_when_and_with_what_it_was_made(built):
    html = built["html"]
    head = html[html.index('id="wb-report-head"') : html.index("</header>")]
    assert re.search(r"Report made <b>\d{4}-\d\d-\d\d \d\d:\d\d UTC</b>", head)
    for name, version in [
        ("python", platform.python_version()),
        ("pandas", md.version("pandas")),
        ("google-cloud-bigtable", md.version("google-cloud-bigtable")),
        ("workbench", md.version("bigtable-ts-workbench")),
    ]:
        assert f"<span>{name} <code>{version}</code></span>" in head, name
    assert (
        "cbtemulator" in head and "reused" in head
    )  # the test's emulator, not one the report started
    assert "top to bottom" in head


def test_report_loads_nothing_from_the_network(built):
    html = built["html"]
    assert offline_problems(html) == []
    for marker in (
        "require.min.js",
        "cdn.jsdelivr",
        "unpkg.com",
        "mathjax",
        "embed-amd.js",
        "application/vnd.jupyter.widget-view+json",
    ):
        assert marker.lower() not in html.lower(), marker
    assert "not embedded" in html  # the remote markdown image became a link


def test_report_opens_offline_with_every_figure_and_widget_visible(built, browser):
    path = built["out"] / "report_widgets.html"
    attempts, images, texts = open_offline(browser, path, "report_fixture.png")
    assert attempts == [path.resolve().as_uri()], f"requests beyond the file: {attempts[1:]}"
    assert len(images) >= 2 and all(i["ok"] for i in images), images
    # the Output widget's figure is an image that loaded and is on screen
    output_images = [i for i in images if i["output"]]
    assert len(output_images) == 1 and output_images[0]["h"] > 100, images
    # controls show their LAST state: the slider was moved to 7 after it was displayed
    assert any(re.search(r"frequency\s+7\b", s) for s in texts["slider"]), texts["slider"]
    assert any("wave" in s and "cosine" in s for s in texts["dropdown"]), texts["dropdown"]
    assert any("hello report" in s for s in texts["text"]), texts["text"]
    assert any(
        "writing rows: 100%" in s.replace("\u2007", " ") and "200/200" in s.replace("\u2007", " ")
        for s in texts["progress"]
    ), texts["progress"]
    assert texts["tab"] == ["first panel of the tab"], texts["tab"]
    assert "design OK: no node above 20%" in texts["body"]
    assert "Widgets appear in their last state." in texts["body"]


def test_index_links_reports_with_findings_and_guidelines(built, browser):
    index = built["out"] / "index.html"
    attempts, images, texts = open_offline(browser, index, "report_index.png")
    assert attempts == [index.resolve().as_uri()], attempts[1:]
    html = index.read_text()
    assert 'href="report_widgets.html"' in html
    body = texts["body"]
    assert "Fixture: everything a report must show" in body
    for gid in ("G03", "G06", "G12"):
        assert gid in body
    assert "field promotion spreads the writes over every node" in body  # display metadata marker
    assert "busiest node share" in body  # cell tagged `finding`
    assert "Nothing in this report needs the network." in body  # cell tagged `summary`
    assert "ran clean" in body
    meta = json.loads((built["out"] / ".report-meta" / "report_widgets.json").read_text())
    assert meta["guidelines"] == ["G03", "G06", "G12"] and meta["errors"] == []


def test_failing_cell_is_reported_not_hidden(emulator, tmp_path):
    src = tmp_path / "report_error.ipynb"
    shutil.copy(FIXTURES / "report_error.ipynb", src)
    with pytest.raises(
        ReportError, match=r"report_error\.ipynb: cell 3.*ValueError: fixture failure"
    ):
        build_reports([src], tmp_path / "out", emulator=emulator, timeout=HANG_S)
    html = (tmp_path / "out" / "report_error.html").read_text()
    assert "1 cell(s) failed" in html and "first failure" in html
    assert "before the failure" in html and "column price is missing" in html  # the fixture's
    assert "after the failure" in html  # the source is shown ...
    assert html.count("after the failure") == 1  # ... but it never ran
    index = (tmp_path / "out" / "index.html").read_text()
    assert "1 failed cell(s)" in index


def test_missing_notebook_is_a_clear_error(tmp_path):
    with pytest.raises(ReportError, match="No notebook at: .*nope.ipynb"):
        build_reports([tmp_path / "nope.ipynb"], tmp_path / "out", execute=False)


# -- pieces, without a kernel ---------------------------------------------------------------
def test_scrubber_replaces_secrets_paths_and_hosts_but_not_images():
    png = base64.b64encode(b"/tmp/x /root/y " + bytes(range(256)) * 4).decode()
    env = {
        "MY_API_KEY": "abcdef123456",
        "BIGTABLE_EMULATOR_HOST": "127.0.0.1:40123",
        "PATH": "/usr/bin",
    }
    s = Scrubber.for_environment(env, roots=[("/work/main", "[repo]")])
    text = (
        "key abcdef123456 at 127.0.0.1:40123; open /work/main/notebooks/a.ipynb and /root/.ssh/id "
        "/home/bob/x.csv /tmp/pytest-1/y password=hunter22 http://localhost:8888/?token="
        + "ab" * 24
        + f" AIza{'B' * 35} <img src='data:image/png;base64,{png}'>"
    )
    out = s.text(text)
    assert "abcdef123456" not in out and "40123" not in out and "hunter22" not in out
    assert (
        "[repo]/notebooks/a.ipynb" in out
        and "~/.ssh/id" in out
        and "~/x.csv" in out
        and "[tmp]" in out
    )
    assert "password=[redacted]" in out and "token=[redacted]" in out and "AIza" not in out
    assert png in out, "image data must not be rewritten"
    assert s.leaks(out) == [] and s.leaks(text) != []
    nb = {"cells": [{"outputs": [{"data": {"image/png": "/tmp/abc", "text/plain": "/tmp/abc"}}]}]}
    s.obj(nb)
    assert nb["cells"][0]["outputs"][0]["data"] == {"image/png": "/tmp/abc", "text/plain": "[tmp]"}


def _render(*ws) -> tuple[StaticWidgets, list[str]]:
    data = embed_data(views=list(ws))
    state = data["manager_state"]
    renderer = StaticWidgets(state)
    return renderer, [renderer.render(v["model_id"]) for v in data["view_specs"]]


def test_static_widgets_render_last_state_of_every_common_control():
    rng = widgets.FloatRangeSlider(value=(2.0, 6.5), min=0, max=10, description="window")
    sel = widgets.SelectMultiple(options=["a", "b", "c"], value=("a", "c"), description="keys")
    radio = widgets.RadioButtons(options=["tall", "wide"], value="wide", description="layout")
    pw = widgets.Password(value="hunter2", description="pw")
    hidden = widgets.Label("never shown", layout=widgets.Layout(display="none"))
    img = widgets.Image(value=b"\x89PNG fake", format="png")
    toggle = widgets.ToggleButtons(options=["x", "y"], value="y")
    box = widgets.HBox(
        [rng, sel, radio, pw, hidden, img, toggle], layout=widgets.Layout(width="90%")
    )
    _, (page,) = _render(box)
    assert "window" in page and "2 – 6.5" in page
    assert (
        "wb-w-choice wb-w-on'>a<" in page
        and "wb-w-choice wb-w-on'>c<" in page
        and "wb-w-choice'>b<" in page
    )
    assert "wb-w-on'>wide<" in page and "wb-w-on'>y<" in page
    assert "hunter2" not in page and "••••" in page
    assert "never shown" not in page
    fake_png = base64.b64encode(b"\x89PNG fake").decode()
    assert f"data:image/png;base64,{fake_png}" in page
    assert "width:90%" in page
    for w in (rng, sel, radio, pw, hidden, img, toggle, box):
        w.close()


def test_unknown_or_unsaved_widgets_are_labelled_not_dropped():
    renderer = StaticWidgets(
        {
            "state": {
                "m1": {
                    "model_name": "FancyPlotModel",
                    "model_module": "fancy",
                    "state": {"_model_module": "fancy", "value": 3},
                }
            }
        }
    )
    fancy = renderer.render("m1")
    assert "FancyPlot (fancy)" in fancy and "cannot draw" in fancy, fancy
    missing = renderer.render("nope", "IntSlider(value=4)")
    assert "not saved" in missing and "IntSlider(value=4)" in missing


def test_not_a_notebook_is_refused_before_anything_runs(tmp_path):
    text = tmp_path / "notes.ipynb"
    text.write_text("# not JSON")
    with pytest.raises(ReportError, match=r"notes.ipynb .*Jupyter notebook.*\(NotJSONError"):
        build_reports([text], tmp_path / "out")
    assert not (tmp_path / "out").exists(), "nothing may be written for a bad input"


def test_hidden_widgets_leave_no_empty_output_or_finding():
    # tqdm.auto with leave=False hides its finished bar with visibility:hidden: the report drops it
    bar = widgets.HBox(
        [widgets.HTML("writing: 100%"), widgets.FloatProgress(value=1, max=1)],
        layout=widgets.Layout(visibility="hidden"),
    )
    table = widgets.HTML("<b>busiest node 27%</b>")
    data = embed_data(views=[bar, table])
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("# T\n\n## 2 · Field promotion"),
            nbformat.v4.new_code_cell(
                "load()",
                outputs=[
                    nbformat.v4.new_output(
                        "display_data", data={"application/vnd.jupyter.widget-view+json": v}
                    )
                    for v in data["view_specs"]
                ],
                metadata={"tags": ["finding"]},
            ),
        ]
    )
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": data["manager_state"]}
    facts = collect(nb, "t", "t.ipynb")
    assert [f.label for f in facts.findings] == ["2 · Field promotion"]  # captioned by its section
    assert "busiest node 27%" in facts.findings[0].html and "writing" not in facts.findings[0].html
    done, _ = StaticWidgetsPreprocessor().preprocess(nb, {})
    assert (
        len(done.cells[1].outputs) == 1
        and "busiest node 27%" in done.cells[1].outputs[0]["data"]["text/html"]
    )
    for w in (bar, table):
        w.close()
