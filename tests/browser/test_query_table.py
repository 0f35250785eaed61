"""Notebook 04's last table in JupyterLab at 1280×900 and 1440×900, file browser open: every
query of fx_prices measured on the emulator beside the model (``wb.analyze(ds, promoted,
measured=...).queries``). Side by side the model's and the emulator's columns made one table
1,198 px wide in an output column of 828 px (1280) and 988 px (1440): the measured half
scrolled inside its box, out of sight. Every table of the output fits its box at both widths,
no figure breaks from its unit ("0.625" over "ms" at 1440 px), and the emulator's figures are
on screen. Screenshots: ``test-artifacts/query_table_*.png``."""

from __future__ import annotations

import pytest

from browser import artifact, chromium_context
from browser.test_lab import _open_and_run_all, _wait_idle

pytestmark = pytest.mark.browser

# notebook 04's cells that make the table (its dataset, its promoted design, every query run)
CELLS = [
    "import workbench as wb\n"
    'ds = wb.load_dataset("fx_prices", size="workshop")\n'
    'promoted = wb.preset("fx_prices", "pair_microseconds")\n'
    "table = wb.emulator().load(ds, promoted)",
    "measured = {q.name: table.run(q).result for q in ds.queries}\n"
    "wb.analyze(ds, promoted, measured=measured).queries",
    "wb.cleanup()",
]

# a table wider than its box: what scrolls sideways (or is cut) in the output
_WIDE = """root => [...root.querySelectorAll('table')]
  .filter(t => t.offsetParent !== null && t.scrollWidth > t.clientWidth + 1)
  .map(t => `${t.innerText.trim().slice(0, 40).replace(/\\s+/g, ' ')} (${t.scrollWidth} > ${t.clientWidth})`)"""

# a figure broken over two lines ("0.625" over "ms" at 1440 px): a cell whose text lays out as
# more than one line box, for the cells that hold a number and its unit
_BROKEN = """root => [...root.querySelectorAll('td')]
  .filter(td => /^[\\d.,<]+ ?(ms|s|kB|MB|B|×|%)$/.test(td.innerText.trim()))
  .filter(td => { const r = document.createRange(); r.selectNodeContents(td);
                  return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size > 1; })
  .map(td => td.innerText.trim().replace(/\\s+/g, ' '))"""


def test_04s_measured_query_table_fits_without_a_sideways_scroll(lab, browser):
    path = lab.notebook("queries.ipynb", CELLS)
    with chromium_context(browser, viewport={"width": 1280, "height": 900}) as ctx:
        page = ctx.new_page()
        _open_and_run_all(page, lab, path)
        if not page.locator("#filebrowser").is_visible():  # as an attendee has it: open
            page.locator(".jp-SideBar [data-id='filebrowser']").first.click()
        output = page.locator(".jp-OutputArea-output", has_text="Query costs").first
        wide: dict[int, list[str]] = {}
        texts: dict[int, str] = {}
        for width in (1280, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            _wait_idle(page)
            output.scroll_into_view_if_needed()
            wide[width] = output.evaluate(_WIDE) + output.evaluate(_BROKEN)
            output.screenshot(path=str(artifact(f"query_table_{width}.png")))
            texts[width] = output.inner_text()
    assert wide == {1280: [], 1440: []}, wide
    for text in texts.values():
        # the model's columns and the emulator's, each query once in each table
        assert "rows seen" in text and "measured rows returned" in text, text[:400]
        assert text.count("usdjpy_moving_averages") >= 2, text[:400]
