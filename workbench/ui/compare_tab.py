"""The Compare tab: pin a design, change it, and see both side by side (heat maps, table, ranking)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

import ipywidgets as W

from . import _render as R
from .tabs import Tab

if TYPE_CHECKING:  # pragma: no cover
    from .app import Designer


def pin(d: Designer) -> None:
    """Pin the current design; the Compare tab shows it beside whatever is designed next."""
    if d.schema is None:
        return
    d.pinned = d.schema
    d.pinned_for = d.ds.name
    d.controls.unpin.disabled = False
    d.pinned_panel.value = R.note_html(
        f"Pinned: {d.schema.name}. Change the design; the comparison below follows."
    )
    d.stale.add("compare")
    if d.visible_tab() == "compare":
        d.render_tab("compare")


def unpin(d: Designer) -> None:
    d.pinned = None
    d.comparison = None
    d.controls.unpin.disabled = True
    d.pinned_panel.value = ""
    d.compare_out.outputs = ()


def dataset_changed(d: Designer) -> None:
    """Another dataset is shown: a design pinned on the last one is unpinned (its heat maps and
    numbers belong to that data, and kept on screen they read as this one's), saying so."""
    if d.pinned is None or d.pinned_for == d.ds.name:
        return
    was, on = d.pinned.name, d.pinned_for
    unpin(d)
    d.pinned_panel.value = R.note_html(
        f"{was} was pinned on {on}; pin a {d.ds.name} design to compare it with the next one."
    )


def render(d: Designer) -> None:
    from ..analysis.comparison import compare_analyses
    from ..plots.compare import comparison_html

    if d.pinned is None:
        d.compare_out.outputs = (
            R.html_bundle(
                R.note_html("Pin a design, change it, and compare the two here side by side.")
            ),
        )
        return
    # the same analyses (same node count) feed the heat maps, the table and the ranking
    nodes = int(d.controls.nodes.value)
    analyses = {
        "pinned: " + d.pinned.name: d.ws.analysis(d.ds, d.pinned, nodes=nodes),
        "current: " + d.schema.name: d.ws.analysis(d.ds, d.schema, nodes=nodes),
    }
    cmp = compare_analyses(d.ds, analyses)
    d.comparison = cmp
    maps = []  # one above the other at full size: side by side they shrink to unreadable thumbnails
    for lab, a in analyses.items():
        maps.append(f"<h4>{html.escape(lab)}</h4>" + d.ws.heatmap(a, "writes"))
    d.compare_out.outputs = (
        R.html_bundle(R.panel_box("".join(maps)), "pinned vs current heat maps"),
        R.html_bundle(comparison_html(cmp), repr(cmp.table)),
    )


def panel(d: Designer) -> W.VBox:
    d.pinned_panel = W.HTML()
    d.compare_out = W.Output()
    c = d.controls
    return W.VBox([W.HBox([c.pin, c.unpin]), d.pinned_panel, d.compare_out])


DESIGNER_TABS = (Tab("compare", "Compare", order=100, panel=panel, render=render),)
