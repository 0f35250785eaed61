"""The production sheet in JupyterLab (Chromium, file browser open) at 1280×800 and 1440×900: the
designer's "Production sheet" tab and the sheet a notebook cell shows fit their width (no
sideways scroll), every word of a line stays whole (a name wraps between words, never inside
one), and the tab titles stay on one row. Screenshots: ``test-artifacts/sheet_<width>_*.png``.
"""

from __future__ import annotations

import pytest

from browser import artifact, chromium_context
from browser.test_lab import _open_and_run_all, _wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CELLS = [
    'import workbench as wb\nd = wb.designer("fx_prices", size="tiny")\nd',
    (
        'ds = wb.load_dataset("fx_prices", size="tiny")\n'
        "wl = wb.Workload(events_per_s=2_000, queries={'latest_quote': 50.0,\n"
        "    'usdjpy_day': wb.QueryLoad(per_s=1 / 3600, data_boost=True)})\n"
        'wb.production_sheet(ds, wb.preset(ds, "pair_microseconds"), wl)'
    ),
]

# each sheet on the page: its table wider than its box (a sideways scroll) or than the page, a
# cell whose text runs past its column (over the next one), and every word of a cell drawn on
# more than one line (broken inside the word)
_MEASURE = """() => [...document.querySelectorAll('.wb-production-sheet')]
  .filter(s => s.offsetParent !== null).map(s => {
  const table = s.querySelector('table');
  const broken = [], over = [];
  for (const td of s.querySelectorAll('td')) {
    if (td.scrollWidth > td.clientWidth + 1) over.push(td.innerText.slice(0, 40));
    const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const re = /\\S+/g; let m;
      while ((m = re.exec(n.data)) !== null) {
        const r = document.createRange(); r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
        const tops = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
        if (tops.size > 1) broken.push(m[0]);
      }
    }
  }
  return {wide: table.scrollWidth > s.clientWidth + 1,
          past: Math.round(s.getBoundingClientRect().right) > window.innerWidth,
          widths: [table.scrollWidth, s.clientWidth], broken, over, rows: table.rows.length};
})"""

_TAB_ROWS = """root => new Set([...root.querySelectorAll('.lm-TabBar-tab')]
  .filter(t => t.offsetParent !== null).map(t => Math.round(t.getBoundingClientRect().top))).size"""


@pytest.mark.parametrize("width,height", [(1280, 800), (1440, 900)])
def test_the_sheet_fits_the_page_and_keeps_its_words_whole(lab, browser, width, height):
    path = lab.notebook("sheet.ipynb", CELLS)
    with chromium_context(browser, viewport={"width": width, "height": height}) as ctx:
        page = ctx.new_page()
        _open_and_run_all(page, lab, path)
        if not page.locator("#filebrowser").is_visible():  # as an attendee has it: open
            page.locator(".jp-SideBar [data-id='filebrowser']").first.click()
        _wait_idle(page)
        designer = page.locator(".wb-designer").first
        designer.get_by_role("tab", name="Production sheet").click()
        _wait_idle(page)
        page.locator(".wb-designer .wb-production-sheet").first.wait_for(state="visible")
        assert designer.evaluate(_TAB_ROWS) == 1  # the new title did not wrap the tab bar
        designer.locator(".wb-production-sheet").first.scroll_into_view_if_needed()
        page.screenshot(path=str(artifact(f"sheet_{width}_designer.png")))
        cell = page.locator(".jp-OutputArea-output .wb-production-sheet").last
        cell.scroll_into_view_if_needed()
        page.screenshot(path=str(artifact(f"sheet_{width}_cell.png")))
        sheets = page.evaluate(_MEASURE)
        assert len(sheets) == 2, sheets  # the tab's and the cell's
        # the bill's formulas print their prices as written: JupyterLab typesets "$…$" in a
        # notebook's HTML output as LaTeX, and 06's sheet read "11 nodes × 730 h × 0.65 =5,220"
        # in italics, "546,940 SPU-hours × 0.845per1,000 =462" (a line with two prices)
        math = page.locator(".wb-production-sheet mjx-container, .wb-production-sheet .MathJax")
        assert math.count() == 0, math.first.inner_text()
        bill = cell.locator("tr", has_text="total").last.inner_text()
        assert bill.count("$") >= 3, bill  # "$a + $b … = $total"
        for s in sheets:
            assert s["rows"] > 12
            assert not s["wide"] and not s["past"], s  # no sideways scroll
            assert not s["over"], s["over"]  # no cell running over the next one
            assert not s["broken"], s["broken"]  # no word broken across lines
