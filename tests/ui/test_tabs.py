"""A new designer tab is one module (and a test): a module ``<name>_tab.py`` of the ui package
that defines ``DESIGNER_TABS`` appears in the tab bar at its place, and is drawn when opened."""

from __future__ import annotations

import pytest

import workbench as wb
import workbench.ui as ui
from workbench.ui import tabs

NEW_TAB = """
import ipywidgets as W

from workbench.ui.tabs import Tab


def panel(d):
    d.notes_panel = W.HTML("not drawn yet")
    return d.notes_panel


def render(d):
    d.notes_panel.value = f"notes on {d.schema.name}"


DESIGNER_TABS = (Tab("notes", "Notes", order=65, panel=panel, render=render),)
"""


@pytest.fixture
def extra_tab_module(tmp_path, monkeypatch):
    """``notes_tab.py`` in a folder added to the ui package's path: no file of the package
    changes."""
    (tmp_path / "notes_tab.py").write_text(NEW_TAB)
    monkeypatch.setattr(ui, "__path__", [*ui.__path__, str(tmp_path)])
    tabs.registry.cache_clear()
    yield
    tabs.registry.cache_clear()


def test_a_tab_module_is_all_a_new_tab_needs(extra_tab_module):
    d = wb.designer(wb.load_dataset("garden_temperature", size="tiny"))
    # order 65: after the Advisor (60), before Schema & cbt (70)
    names = d.tab_names
    assert names.index("notes") == names.index("advisor") + 1
    assert names.index("notes") == names.index("schema") - 1
    assert d.tabs.get_title(names.index("notes")) == "Notes"
    assert d.notes_panel.value == "not drawn yet"
    d.show_tab("notes")
    assert d.notes_panel.value == f"notes on {d.schema.name}"


def test_the_designers_own_tabs_in_order():
    # the tab bar as the workshop notebooks describe it, left to right
    assert [t.name for t in tabs.registry()] == [
        "heatmap", "nodes", "hotspot", "rowsizes", "queries", "sheet",
        "advisor", "schema", "views", "emulator", "compare",
    ]  # fmt: skip
