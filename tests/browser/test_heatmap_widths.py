"""Heat maps of several designs on one page are pictures of one size (notebook 04 showed three
at 606, 695 and 720 px, so their time axes could not be compared by eye)."""

from __future__ import annotations

import pytest

import workbench as wb
from browser import chromium_context
from workbench.plots.heatmap import key_heatmap_html

pytestmark = [pytest.mark.slow, pytest.mark.browser]


@pytest.mark.parametrize("width", [1280, 1440])
def test_three_designs_heat_maps_are_one_width(browser, width):
    fx = wb.load_dataset("fx_prices", size="workshop")
    pages = []
    for design in ("timestamp_first", "pair_microseconds", "salted"):
        kd = wb.analyze(fx, wb.preset("fx_prices", design)).keyspace
        pages.append(key_heatmap_html(kd))
    # a notebook output column at this window width with JupyterLab's file browser open: the page
    # less the sidebars and the prompt (about 800 px at 1280, 960 at 1440), too narrow for the
    # full 720-px picture beside its labels and scale, so the grid shrinks the picture
    body = f"<div style='width:{width - 480}px'>" + "".join(pages) + "</div>"
    with chromium_context(browser, viewport={"width": width, "height": 800}) as ctx:
        page = ctx.new_page()
        page.set_content(f"<html><body>{body}</body></html>")
        widths = page.eval_on_selector_all(
            "img.wb-hm-img", "els => els.map(e => e.getBoundingClientRect().width)"
        )
    assert len(widths) == 3
    assert max(widths) - min(widths) < 1, widths
    assert min(widths) >= 240, widths  # the grid's smallest picture: never squeezed below it
