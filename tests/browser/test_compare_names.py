"""The designer's Compare tab breaks a design name only at its underscores, at 1280 and 1440 px.

Its bars sit in 100 %-wide tables, and JupyterLab's output CSS gives such tables
``table-layout: fixed`` (``.jp-RenderedHTMLCommon table`` in jlab_core): the width is split evenly
among the cells that state none and their ``min-width`` is ignored, so the name cells shrank to a
few characters and "pair_microseconds" read "pair_micr|osecond|s". The page below holds the same
HTML under that rule, in the designer's figure pane at each window width.
"""

from __future__ import annotations

import re

import pytest

import workbench as wb
from browser import chromium_context
from workbench.analysis.comparison import compare_analyses
from workbench.plots.compare import comparison_html

pytestmark = [pytest.mark.slow, pytest.mark.browser]

# JupyterLab 4's rule for tables in rendered HTML output (what the designer's Output widgets show)
JUPYTERLAB_TABLES = ".jp-RenderedHTMLCommon table{border-collapse:collapse;table-layout:fixed}"

# each name cell: its text's line boxes (a Range per character, grouped by top) joined back
_LINES = """els => els.map(td => {
  const lines = new Map();
  const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
  let node; while ((node = walker.nextNode())) {
    for (let i = 0; i < node.length; i++) {
      const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1);
      const box = r.getClientRects()[0]; if (!box) continue;
      const top = Math.round(box.top); lines.set(top, (lines.get(top) || '') + node.data[i]);
    }
  }
  return [...lines.entries()].sort((a, b) => a[0] - b[0]).map(e => e[1]);
})"""


@pytest.mark.parametrize("width", [1280, 1440])
def test_compare_tab_names_break_only_at_underscores(browser, width):
    fx = wb.load_dataset("fx_prices", size="workshop")
    analyses = {
        f"{role}: {name}": wb.analyze(fx, wb.preset("fx_prices", name))
        for role, name in (("pinned", "pair_microseconds"), ("current", "timestamp_first"))
    }
    page_html = comparison_html(compare_analyses(fx, analyses))
    # the designer's figure pane: the window less JupyterLab's file browser, the prompt and the
    # designer's margins (about 840 px at 1280, 1000 at 1440: the switch test's screenshots)
    body = (
        f"<style>{JUPYTERLAB_TABLES}</style><div class='jp-RenderedHTMLCommon' "
        f"style='width:{width - 440}px'>{page_html}</div>"
    )
    with chromium_context(browser, viewport={"width": width, "height": 900}) as ctx:
        page = ctx.new_page()
        page.set_content(f"<html><body style='font-family:sans-serif'>{body}</body></html>")
        cells = page.eval_on_selector_all("td.wb-b-name", _LINES)
    names = list(analyses)
    assert len(cells) >= 2 * 4, cells  # both designs in every panel
    for lines in cells:
        joined = "".join(lines)
        assert joined in names, (joined, names)
        # a line ends at a space or just after an underscore, never inside a word
        for line in lines[:-1]:
            assert re.search(r"[_ ]$", line), (width, lines)
