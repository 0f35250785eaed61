"""The designer's tabs: one registry, filled by the tab modules themselves.

A tab is a module of this package named ``<name>_tab.py`` (``figure_tabs.py`` holds the five
figures) that defines ``DESIGNER_TABS``: its :class:`Tab` entries, each with its place in the
tab bar, its title, the panel it makes once and how it draws the current design. The widget
tree (``layout.tab_panels``), the tab bar, drawing a tab when it is opened
(``Designer.render_tab``) and ``Designer.show_tab`` all read :func:`registry`, so a new tab is
its own module (and a test): no list elsewhere names the tabs.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .app import Designer


@dataclass(frozen=True)
class Tab:
    """One tab of the designer.

    Parameters
    ----------
    name
        The tab's key (``Designer.show_tab(name)``, ``Designer.stale``).
    title
        What the tab bar shows.
    order
        Its place in the tab bar, left to right (the figures 10–50, then 60, 70, …).
    panel
        Makes the tab's widgets once, when the designer is built, and returns the panel; it
        keeps on the designer what the tab's handlers and drawing need.
    render
        Draws the tab for the current design when the tab is opened after a change; ``None``
        for a tab drawn only by its own button.
    """

    name: str
    title: str
    order: int
    panel: Callable[[Designer], Any]
    render: Callable[[Designer], None] | None = None


@functools.cache
def registry() -> tuple[Tab, ...]:
    """Every tab the modules ``*_tab`` / ``*_tabs`` of this package define, in tab-bar order."""
    found: list[Tab] = []
    package = importlib.import_module(__package__ or "workbench.ui")
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.endswith(("_tab", "_tabs")):
            module = importlib.import_module(f"{__package__}.{info.name}")
            found.extend(getattr(module, "DESIGNER_TABS", ()))
    names = [t.name for t in found]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise RuntimeError(f"designer tabs defined twice: {twice}")
    return tuple(sorted(found, key=lambda t: t.order))
