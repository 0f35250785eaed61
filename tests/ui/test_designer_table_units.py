"""Every table every designer tab renders says each unit once, prints counts without ".0" and
numbers without an exponent, for two datasets (a quotes series and a metrics fleet).

The designer is driven in-process (no browser): each tab is opened with ``show_tab`` (the
Compare tab with a pinned design beside another, the Views tab with a rollup and an async
index), and the HTML of every widget in its tree (HTML widgets and Output areas) is parsed back
with the same reader and rules as ``test_table_units`` (a unit is a word next to a number or in
a label's parentheses, read off the page as an attendee reads it), so a tab's table that
bypasses the formatter and contradicts its label fails here.
"""

from __future__ import annotations

import ipywidgets as W
import pytest

from ui.test_table_units import _CELL, cell_problems, table_cells
from workbench.ui import views_tab
from workbench.ui.app import TABS, Designer

pytestmark = pytest.mark.slow  # two tiny datasets analysed, advised, compared and viewed

DATASETS = ("fx_prices", "server_metrics")


def _html(w) -> list[str]:
    """The HTML a widget tree shows: HTML widgets' values and Output areas' text/html."""
    out: list[str] = []
    if isinstance(w, W.HTML):
        out.append(w.value)
    if isinstance(w, W.Output):
        out += [o.get("data", {}).get("text/html", "") for o in w.outputs]
    for child in getattr(w, "children", ()):
        out += _html(child)
    return out


def _every_tab(name: str) -> dict[str, list[str]]:
    """Each tab's HTML after opening it (and the headline above the tabs)."""
    d = Designer(name, size="tiny")
    shown: dict[str, list[str]] = {"headline": [d.headline.value]}
    for tab in TABS:
        if tab == "compare":
            d.pin()
            d.controls.pattern.value = d.controls.pattern.options[1]
        d.show_tab(tab)
        panel = d.tabs.children[d.tab_names.index(tab)]
        shown[tab] = _html(panel)
        if tab == "views":
            for kind in (views_tab.ROLLUP, views_tab.INDEX):
                d.controls.view_kind.value = kind
                shown[f"views {kind}"] = _html(panel)
    return shown


@pytest.mark.parametrize("name", DATASETS)
def test_every_designer_tab_table_says_a_unit_once(name):
    pages = _every_tab(name)
    cells = {
        tab: [c for page in html_list for c in table_cells(page)]
        for tab, html_list in pages.items()
    }
    # the walk reached tables on the tabs that have them: the headline's query table, the
    # Compare tab's ranking and a Views cost table (derived bytes in B/kB; server_metrics'
    # Heroic design refuses a rollup, a SchemaError shown in red, so its index view's)
    for tab in ("headline", "compare"):
        assert any(_CELL.fullmatch(t) for _, t in cells[tab]), (tab, cells[tab][:10])
    views = cells[f"views {views_tab.ROLLUP}"] + cells[f"views {views_tab.INDEX}"]
    assert any(t.endswith((" B", " kB", " MB")) for _, t in views), views[:10]
    bad = [
        (tab, label, text, p)
        for tab, tab_cells in cells.items()
        for label, text in tab_cells
        for p in cell_problems(label, text)
    ]
    assert bad == [], bad
