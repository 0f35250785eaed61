"""A real browser in JupyterLab: run all cells, move a widget, see the figure change.

JupyterLab runs headless on 127.0.0.1 (tests/browser/__init__.py: the worker's lab, each test
in a workspace of its own), Debian chromium is driven by Python playwright. The notebook is
run with "Run All Cells" (``runmenu:run-all``); the slider is moved with the keyboard like a
person would; the Output widget's figure must be a different image afterwards. Once on
a small fixture notebook (an ``interactive_output`` slider), once on the
workshop's design lab (the designer's cluster-size slider and its heat map).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from labproc import running_lab

from browser import BROWSER_WAIT_MS, artifact, chromium_context

pytestmark = pytest.mark.browser

NOTEBOOK = Path("tests/fixtures/notebooks/lab_slider.ipynb")
DESIGN_LAB = Path("notebooks/07_design_lab.ipynb")


def _wait_idle(page, timeout_ms: int = 120_000) -> None:
    """The kernel status in the status bar reads "Idle" (and stays so briefly: no cell still queued)."""
    deadline = time.monotonic() + timeout_ms / 1000
    calm = 0
    while time.monotonic() < deadline:
        busy = page.locator(".jp-Notebook .jp-InputArea-prompt", has_text="[*]").count()
        idle = page.locator("#jp-main-statusbar", has_text="Idle").count()
        calm = calm + 1 if (idle and not busy) else 0
        if calm >= 3:
            return
        page.wait_for_timeout(200)
    raise AssertionError("the kernel did not become idle in time")


def _image_src(page) -> str:
    img = page.locator(".widget-output img").last
    img.wait_for(state="visible", timeout=BROWSER_WAIT_MS)
    return img.get_attribute("src") or ""


def _open_and_run_all(page, lab, notebook: Path) -> None:
    """Open ``notebook`` in the test's workspace (``lab``: a ``LabVisit``), wait for its kernel,
    Run All Cells, wait until every cell has run, and find no traceback."""
    page.set_default_timeout(BROWSER_WAIT_MS)
    page.goto(lab.tree(notebook))
    page.locator(".jp-Notebook").first.wait_for(state="visible")
    # kernel ready before running (the status bar names the kernel state)
    page.locator("#jp-main-statusbar", has_text="Idle").wait_for(timeout=BROWSER_WAIT_MS)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name=re.compile(r"^Run All Cells")).click()
    _wait_idle(page)
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    tracebacks = [t for t in errors.all_inner_texts() if "Traceback" in t or "Error" in t]
    assert not tracebacks, tracebacks


def test_run_all_move_slider_and_the_figure_changes(lab, browser):
    with chromium_context(browser) as ctx:
        page = ctx.new_page()
        _open_and_run_all(page, lab, NOTEBOOK)

        before = _image_src(page)
        assert before.startswith("data:image/png;base64,")
        handle = page.locator(".widget-slider .noUi-handle").first
        readout = page.locator(".widget-slider .widget-readout").first
        value_before = readout.inner_text()
        handle.click()
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "before => { const i = [...document.querySelectorAll('.widget-output img')].pop();"
            " return i && i.src !== before && i.naturalWidth > 0; }",
            arg=before,
            timeout=BROWSER_WAIT_MS,
        )
        _wait_idle(
            page
        )  # the last redraw has finished: the screenshot shows the figure for the new value
        after = _image_src(page)
        value_after = readout.inner_text()
        page.screenshot(path=str(artifact("browser_lab.png")), full_page=False)

    assert value_after != value_before, (value_before, value_after)
    assert after != before, "the figure did not change when the slider moved"


def test_design_lab_nodes_slider_redraws_the_node_load_figure(lab, browser):
    """The workshop's designer in a real browser: one more node in the model, a new node-load figure."""
    with chromium_context(browser) as ctx:
        page = ctx.new_page()
        _open_and_run_all(page, lab, DESIGN_LAB)
        designer = page.locator(".wb-designer").first
        designer.scroll_into_view_if_needed()
        designer.get_by_role(
            "tab", name="Key heat map"
        ).click()  # the notebook left the Advisor tab open
        heat_title = designer.locator(".wb-hm-title").first.inner_text()
        designer.get_by_role("tab", name="Node load").click()
        # the open tab's picture: the node-load chart is an SVG step line drawn in the page
        pic = designer.locator(".widget-tab .widget-output svg >> visible=true").first
        pic.wait_for(state="visible")
        before = pic.evaluate("e => e.outerHTML")
        assert "<path" in before, before[:300]
        slider = designer.locator(".widget-slider", has_text="nodes (model)")
        readout = slider.locator(".widget-readout")
        value_before = readout.inner_text()
        slider.locator(".noUi-handle").click()
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "before => [...document.querySelector('.wb-designer')"
            ".querySelectorAll('.widget-tab .widget-output svg')]"
            ".some(e => e.getBoundingClientRect().width > 0 && e.outerHTML !== before)",
            arg=before,
            timeout=BROWSER_WAIT_MS,
        )
        _wait_idle(page)
        after = designer.locator(".widget-tab .widget-output svg >> visible=true").first.evaluate(
            "e => e.outerHTML"
        )
        value_after = readout.inner_text()
        designer.screenshot(path=str(artifact("browser_design_lab.png")))
        shown_errors = designer.locator(".widget-output", has_text="Traceback").count()
        designer.get_by_role("tab", name="Key heat map").click()
        heat_after = designer.locator(".wb-hm-title").first.inner_text()

    assert int(value_after) == int(value_before) + 1, (value_before, value_after)
    assert after != before, "the node-load figure did not change when the nodes slider moved"
    assert heat_after != heat_title or "fair share" not in heat_title, (heat_title, heat_after)
    assert shown_errors == 0


def test_make_lab_opens_a_quiet_lab_at_the_start_here_notebook(tmp_path, browser):
    """`make lab`'s URL as `workbench lab` prints it, for a user JupyterLab has never seen
    (fresh Jupyter config dir): the start-here notebook in front, no notification pop-up (a
    new JupyterLab asks "Would you like to get notified about official Jupyter news?"), and
    no request for news or updates."""
    # its own `workbench lab` (the test is about it); a new context: no state of other tests
    with running_lab(tmp_path) as lab, chromium_context(browser) as ctx:
        page = ctx.new_page()
        requests: list[str] = []
        page.on("request", lambda req: requests.append(req.url))
        page.goto(lab.url)
        page.locator(".jp-Notebook").first.wait_for(state="visible", timeout=BROWSER_WAIT_MS)
        page.locator("#jp-main-statusbar", has_text="Idle").wait_for(timeout=BROWSER_WAIT_MS)
        # without the settings the question pops up within a second of the notebook showing;
        # watch for five
        toasts = page.locator(".jp-toastContainer .Toastify__toast")
        seen = 0
        for _ in range(25):
            seen = max(seen, toasts.count())
            page.wait_for_timeout(200)
        current = page.locator(
            ".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current"
        ).all_inner_texts()
        page.screenshot(path=str(artifact("browser_make_lab.png")))
    assert seen == 0, "a notification popped up over the start-here notebook"
    assert current == ["00_start_here.ipynb"], current
    asked = [u for u in requests if "/lab/api/news" in u or "/lab/api/update" in u]
    assert asked == [], asked
    assert all(u.startswith(f"http://127.0.0.1:{lab.port}/") for u in requests), [
        u for u in requests if not u.startswith(f"http://127.0.0.1:{lab.port}/")
    ]
