"""The Advisor tab: each finding with its guideline and evidence, and a button that applies its fix."""

from __future__ import annotations

import functools
import html
from typing import TYPE_CHECKING, Any

import ipywidgets as W

from . import _render as R
from .handlers import gallery_name
from .layout import button, lay
from .tabs import Tab

if TYPE_CHECKING:  # pragma: no cover
    from ..advisor.findings import Finding
    from .app import Designer


def finding_fields(f: Finding) -> dict[str, Any]:
    """The parts of an advisor finding the panel shows."""
    return {
        "guideline": f.ids or f.guideline,
        "severity": f.severity,
        "message": f.message or f.title or str(f),
        "evidence": str(f.evidence or ""),
        "suggestion": f.suggestion,
    }


def render(d: Designer) -> None:
    c = d.controls
    d.findings = d.ws.advice(d.ds, d.schema, int(d.controls.nodes.value))
    rows: list[W.Widget] = []
    c.apply = []
    if not d.findings:
        rows.append(
            W.HTML(
                R.note_html(
                    "No findings: the advisor has nothing to improve in this design.", "good"
                )
            )
        )
    for f in d.findings:
        ff = finding_fields(f)
        text = (
            f._repr_html_()
            if hasattr(f, "_repr_html_")
            else R.panel_box(
                f"<b>{html.escape(ff['guideline'])}</b> {html.escape(ff['severity'])} {html.escape(ff['message'])}"
            )
        )
        item: list[W.Widget] = [W.HTML(text, layout=lay(flex="1 1 auto"))]
        if ff["suggestion"] is not None:
            b = button(
                description="Apply suggestion",
                icon="magic",
                button_style="info",
                tooltip="Switch to "
                + str(
                    gallery_name(d.ds, ff["suggestion"])
                    or getattr(ff["suggestion"], "name", "the suggested design")
                ),
            )
            b.on_click(d.with_log(functools.partial(apply, d, ff["suggestion"])))
            c.apply.append(b)
            item.append(b)
        rows.append(W.HBox(item, layout=lay(border_bottom="1px solid #eee", align_items="center")))
    d.advisor_panel.children = rows


def apply(d: Designer, suggestion: Any, _button: Any = None) -> None:
    """Make a finding's suggested design the current one, and show what the advisor says of it."""
    d.set_schema(suggestion)
    d.render_tab("advisor")


def panel(d: Designer) -> W.VBox:
    d.advisor_panel = W.VBox()
    return d.advisor_panel


DESIGNER_TABS = (Tab("advisor", "Advisor", order=60, panel=panel, render=render),)
