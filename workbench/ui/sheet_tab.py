"""The Production sheet tab: the current design at the designer's workload, every figure on its
own line with its formula, whose inputs and the documented figure (``wb.production_sheet``),
read from the analysis the other tabs show (one number)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import ipywidgets as W

from . import _render as R
from .tabs import Tab

if TYPE_CHECKING:  # pragma: no cover
    from .app import Designer


def render(d: Designer) -> None:
    from ..analysis.sheet import sheet_of

    d.sheet = sheet_of(d.analysis)
    d.sheet_panel.value = R.panel_box(d.sheet.html())


def panel(d: Designer) -> W.HTML:
    d.sheet = None
    d.sheet_panel = W.HTML(layout=W.Layout(width="100%"))
    return d.sheet_panel


DESIGNER_TABS = (Tab("sheet", "Production sheet", order=55, panel=panel, render=render),)
