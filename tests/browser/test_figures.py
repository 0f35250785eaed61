"""Figures that fit, measured in JupyterLab at 1280×800 and 1440×900 with the file browser open.

Two designers, the workshop's worst case and an attendee's own data: fx_prices on
``timestamp_first`` (the longest key labels, a diagonal) and Seattle weather read from its CSV
(vega_datasets' ``seattle-weather.csv``, four years of days). For each, in the DOM:

* the heat map's last row-key label and last date label lie within the picture's extent (the
  labels move with the picture when it shrinks; they used to keep full size and run past it);
* no legend box overlaps a bar or line: on the node-load, hotspot, row-size and query-cost tabs
  the key (legend) sits outside the plotting area.

Screenshots of each tab are kept in ``test-artifacts/figures_<width>_<dataset>_<tab>.png``.
"""

from __future__ import annotations

import pytest

from browser import BROWSER_WAIT_MS, artifact, chromium_context
from browser.test_lab import _open_and_run_all, _wait_idle

pytestmark = pytest.mark.browser

CELLS = [
    "import workbench as wb\n"
    'fx = wb.designer("fx_prices", wb.preset("fx_prices", "timestamp_first"))\n'
    "fx",
    "from vega_datasets import local_data\n"
    "weather = wb.from_csv(local_data.seattle_weather.filepath, time='date',\n"
    "    measures=['precipitation', 'temp_max', 'temp_min', 'wind'], naive_tz='UTC')\n"
    "mine = wb.designer(weather)\n"
    "mine",
]

# the heat map's picture, its last key label and last date label (rectangles in page pixels)
_HEATMAP = """root => { const r = e => { const b = e.getBoundingClientRect();
    return {left: b.left, right: b.right, top: b.top, bottom: b.bottom,
            cx: (b.left + b.right) / 2, cy: (b.top + b.bottom) / 2, text: e.innerText}; };
  const img = [...root.querySelectorAll('.wb-hm-img')].find(e => e.offsetParent !== null);
  if (!img) return null;
  const hm = img.closest('.wb-hm');
  const ys = [...hm.querySelectorAll('.wb-hm-y span')], xs = [...hm.querySelectorAll('.wb-hm-x span')];
  const scale = [...hm.querySelectorAll('.wb-hm-scale span')];
  return {img: r(img), y: r(ys[ys.length - 1]), x: r(xs[xs.length - 1]),
          scale: scale.map(r), bar: r(hm.querySelector('.wb-hm-bar'))}; }"""

# each visible legend (key) against the plotting areas of its picture: how many legends were
# measured, and every overlap
_LEGENDS = """root => { const boxes = [...root.querySelectorAll('.wb-b')]
    .filter(e => e.offsetParent !== null && e.querySelector('.wb-b-key'));
  const overlaps = boxes.flatMap(box => {
    const k = box.querySelector('.wb-b-key').getBoundingClientRect();
    return [...box.querySelectorAll('.wb-b-plot, svg, table')].map(p => p.getBoundingClientRect())
      .filter(p => p.width > 0 && k.left < p.right && p.left < k.right && k.top < p.bottom && p.top < k.bottom)
      .map(p => `legend ${Math.round(k.left)},${Math.round(k.top)}-${Math.round(k.right)},${Math.round(k.bottom)}`
        + ` overlaps ${Math.round(p.left)},${Math.round(p.top)}-${Math.round(p.right)},${Math.round(p.bottom)}`); });
  return {legends: boxes.length, overlaps}; }"""


def _panel(designer):
    """The visible tab's panel, scrolled into the notebook's view (what the screenshot keeps)."""
    panel = designer.locator(".widget-tab > .widget-tab-contents > :visible").first
    panel.scroll_into_view_if_needed()
    return panel


@pytest.mark.parametrize("width,height", [(1280, 800), (1440, 900)])
def test_heat_map_labels_stay_on_the_picture_and_no_legend_covers_data(lab, browser, width, height):
    path = lab.notebook("figures.ipynb", CELLS)
    problems: list[str] = []
    with chromium_context(browser, viewport={"width": width, "height": height}) as ctx:
        page = ctx.new_page()
        _open_and_run_all(page, lab, path)
        if not page.locator("#filebrowser").is_visible():  # as an attendee works: browser open
            page.locator(".jp-SideBar [data-id='filebrowser']").first.click()
        page.locator("#filebrowser").wait_for(state="visible")
        _wait_idle(page)
        for i, name in enumerate(("fx_timestamp_first", "seattle_weather")):
            designer = page.locator(".wb-designer").nth(i)
            designer.scroll_into_view_if_needed()
            hm = designer.evaluate(_HEATMAP)
            assert hm is not None, f"{name}: no heat map on screen"
            img, y, x = hm["img"], hm["y"], hm["x"]
            if not img["top"] - 1 <= y["cy"] <= img["bottom"] + 1:
                problems.append(
                    f"{name} {width}px: last key label {y['text']!r} at y={y['cy']:.0f}, "
                    f"picture {img['top']:.0f}-{img['bottom']:.0f}"
                )
            if not img["left"] - 1 <= x["cx"] <= img["right"] + 1:
                problems.append(
                    f"{name} {width}px: last date label {x['text']!r} at x={x['cx']:.0f}, "
                    f"picture {img['left']:.0f}-{img['right']:.0f}"
                )
            # the colour bar beside the picture, as tall as it, its labels on it
            bar = hm["bar"]
            if abs(bar["top"] - img["top"]) > 2 or abs(bar["bottom"] - img["bottom"]) > 2:
                problems.append(
                    f"{name} {width}px: colour bar {bar['top']:.0f}-{bar['bottom']:.0f} "
                    f"beside a picture {img['top']:.0f}-{img['bottom']:.0f}"
                )
            for tick in hm["scale"]:
                if not bar["top"] - 8 <= tick["cy"] <= bar["bottom"] + 8:
                    problems.append(f"{name} {width}px: scale label {tick['text']!r} off its bar")
            if img["right"] > width:
                problems.append(f"{name} {width}px: heat map past the window ({img['right']:.0f})")
            _panel(designer).screenshot(path=str(artifact(f"figures_{width}_{name}_heatmap.png")))
            for tab in ("Node load", "Hotspot", "Row sizes", "Query costs"):
                designer.get_by_role("tab", name=tab).click()
                designer.locator(".wb-b-key >> visible=true").first.wait_for(
                    timeout=BROWSER_WAIT_MS
                )
                _wait_idle(page)
                found = designer.evaluate(_LEGENDS)
                assert found["legends"] == 1, f"{name} {tab}: {found}"  # the picture is drawn
                problems += [f"{name} {width}px {tab}: {o}" for o in found["overlaps"]]
                tag = tab.lower().replace(" ", "_")
                _panel(designer).screenshot(path=str(artifact(f"figures_{width}_{name}_{tag}.png")))
            designer.get_by_role("tab", name="Key heat map").click()
    assert not problems, "\n".join(problems)
