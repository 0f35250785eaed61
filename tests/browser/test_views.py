"""The designer's Views (CMV) and Schema & cbt tabs in JupyterLab at 1280×800, file browser open.

energy_meters on ``hourly_aggregates`` (hand-written hourly rows): open Views (CMV), pick a
rollup: the view's SQL shows first, then what keeping it costs against the client writing the
same rows; then an async index. Nothing in the panel runs past the window, the SQL wraps or
scrolls inside its own box. Screenshots: ``test-artifacts/views_1280_*.png``.
"""

from __future__ import annotations

import time

import pytest

from browser import BROWSER_WAIT_MS, artifact, chromium_context
from browser.test_lab import _open_and_run_all, _wait_idle

pytestmark = pytest.mark.browser

CELLS = [
    "import workbench as wb\n"
    'd = wb.designer("energy_meters", wb.preset("energy_meters", "hourly_aggregates"))\n'
    "d",
]

# every element of the visible panel that reaches past the window's right edge
_PAST = """(root, width) => [...root.querySelectorAll('*')]
  .filter(e => e.offsetParent !== null && e.getBoundingClientRect().right > width + 1
               && !e.closest('pre'))
  .map(e => `${e.tagName}.${e.className} right=${Math.round(e.getBoundingClientRect().right)}`)
  .slice(0, 5)"""


def test_views_and_row_key_schema_tabs_fit_at_1280(lab, browser):
    path = lab.notebook("views.ipynb", CELLS)
    width = 1280
    with chromium_context(browser, viewport={"width": width, "height": 800}) as ctx:
        page = ctx.new_page()
        _open_and_run_all(page, lab, path)
        if not page.locator("#filebrowser").is_visible():
            page.locator(".jp-SideBar [data-id='filebrowser']").first.click()
        _wait_idle(page)
        designer = page.locator(".wb-designer").first
        designer.get_by_role("tab", name="Views (CMV)").click()
        designer.get_by_role("button", name="rollup (G29)").click()
        t0 = time.monotonic()
        designer.locator("[data-view-sql] >> visible=true").first.wait_for(timeout=BROWSER_WAIT_MS)
        sql_s = time.monotonic() - t0
        designer.locator("[data-view-row] >> visible=true").first.wait_for(timeout=BROWSER_WAIT_MS)
        costs_s = time.monotonic() - t0
        _wait_idle(page)
        panel = designer.locator(".widget-tab > .widget-tab-contents > :visible").first
        panel.scroll_into_view_if_needed()
        text = panel.inner_text()
        assert "CREATE MATERIALIZED VIEW `hourly` AS" in text
        assert "Bigtable keeps the view" in text and "the client writes the aggregate rows" in text
        assert "29,760" in text and "7,440" in text  # maintenance writes; derived rows
        assert "emulator has no SQL" in text
        past = panel.evaluate(_PAST, width)
        assert not past, past
        panel.screenshot(path=str(artifact("views_1280_rollup.png")))
        print(f"SQL shown {sql_s * 1e3:.0f} ms after the click, costs {costs_s * 1e3:.0f} ms")

        designer.get_by_role("button", name="async index (G05)").click()
        designer.get_by_text("the client writes the second table").wait_for(timeout=BROWSER_WAIT_MS)
        _wait_idle(page)
        assert "ORDER BY" in panel.inner_text()
        panel.screenshot(path=str(artifact("views_1280_index.png")))

        designer.get_by_role("tab", name="Schema & cbt").click()
        designer.locator("[data-rowkey-yaml] >> visible=true").first.wait_for(
            timeout=BROWSER_WAIT_MS
        )
        _wait_idle(page)
        panel = designer.locator(".widget-tab > .widget-tab-contents > :visible").first
        text = panel.inner_text()
        assert "7,440 do not conform" in text and "fieldName" in text
        assert not panel.evaluate(_PAST, width)
        panel.screenshot(path=str(artifact("views_1280_rowkey_schema.png")))
