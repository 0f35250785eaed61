"""The figure tabs: heat map, node load, hotspot, row sizes, query costs.

The heat map and the bar/line pictures are HTML (milliseconds, see :mod:`workbench.plots`);
any other figure is a matplotlib PNG from the workspace's cache.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import ipywidgets as W

from . import _render as R
from .tabs import Tab

if TYPE_CHECKING:  # pragma: no cover
    from .app import Designer

HTML_FIGURES = ("rowsizes", "queries", "nodes", "hotspot")


def render(d: Designer, which: str) -> None:
    """Draw figure tab ``which`` for the designer's current analysis."""
    a = d.analysis
    if which == "heatmap":  # HTML around a raster: milliseconds instead of a matplotlib draw
        what = d.controls.heatmap_what.value
        d.figures[which].outputs = (
            R.html_bundle(d.ws.heatmap(a, what), f"<key heat map of {a.schema}>"),
        )
    elif which in HTML_FIGURES:  # HTML: as fast as the heat map
        d.figures[which].outputs = (R.html_bundle(d.ws.html(a, which), f"<{which} of {a.schema}>"),)
    else:
        png = d.ws.figure(a, which)
        d.figures[which].outputs = (R.png_bundle(png, f"{which} of {a.schema}"),)


def placeholder(d: Designer, which: str) -> None:
    """A figure tab not drawn yet: drawn when opened. Its words hold whether or not the tab is
    open when they show (a busy kernel draws an opened tab a moment later)."""
    d.figures[which].outputs = (
        R.html_bundle(
            "<i data-placeholder>Drawn for the current design when this tab is open…</i>"
        ),
    )


def panel(d: Designer, which: str) -> Any:
    """Figure tab ``which``'s output area (the heat map's with its metric picker above it)."""
    d.figures[which] = W.Output(layout=W.Layout(min_height="120px"))
    if which == "heatmap":
        return W.VBox([d.controls.heatmap_what, d.figures[which]])
    return d.figures[which]


DESIGNER_TABS = tuple(
    Tab(
        name,
        title,
        order=10 * (i + 1),
        panel=functools.partial(panel, which=name),
        render=functools.partial(render, which=name),
    )
    for i, (name, (title, *_)) in enumerate(R.FIGURES.items())
)
