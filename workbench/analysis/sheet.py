"""The production sheet: one design at one workload, line by line, so a reviewer can check
every figure in the meeting (G04, G06, G08, G11).

``production_sheet(ds, schema, workload)`` reads the figures ``analyze`` already computed —
capacity's write CPU, stored bytes and node counts, each query's ``production_*`` columns (the
planner's one read cost, ``ReadPlan.cost``) and the bill — and never computes a second model.
Each :class:`SheetLine` is a value, its unit, the formula with its numbers, its inputs (each
marked as the user's, a default, measured on the sample or one of Google's documents) and the
documented figure it rests on with its source; ``tests/analysis/test_production_sheet.py`` recomputes
every line of every preset from its printed inputs.

Beside the sized nodes the sheet shows the average CPU against its target (70 %, Monitoring)
and the hottest node against ``hottest_node_cpu_target`` (90 %, an assumption: see
docs/architecture.md), an autoscaling recommendation (the mean load's nodes as the minimum,
the peak's as the maximum, the CPU target within the 10-80 % AutoscalingTargets accepts), the
queries sent to Data Boost in SPU-hours, incremental backups and the in-memory tier's
increments. A design no node count serves (a hotspot ceiling under the rate) gets no price:
the sheet names the fix instead.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from ..formatting import rate as fmt_rate
from .sheet_lines import (
    SheetLine,
    autoscaling_recommendation,
    fmt_share,
    fmt_usd,
    sheet_lines,
    shown_input,
    shown_value,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..cells import CellFrame
    from ..datasets.model import Dataset
    from ..datasets.workload import Workload
    from ..schema.schema import Schema
    from .overview import Analysis
    from .settings import Settings


@dataclass(frozen=True)
class ProductionSheet:
    """A design's production sheet: its lines, the workload it is at and its verdict."""

    dataset: str
    schema: str
    lines: tuple[SheetLine, ...]
    workload_line: str  # the user's inputs apart from the defaults
    verdict: str
    prices_date: str
    served: bool  # False: no node count serves the rate (no price; the fix is named)

    def line(self, name: str) -> SheetLine:
        """The line called ``name`` (a KeyError naming the lines otherwise)."""
        for ln in self.lines:
            if ln.name == name:
                return ln
        raise KeyError(f"no line {name!r}; the lines: {[ln.name for ln in self.lines]}")

    def section(self, section: str) -> list[SheetLine]:
        return [ln for ln in self.lines if ln.section == section]

    def table(self) -> pd.DataFrame:
        """One row per line: section, line, value, unit, formula, inputs and the figure."""
        return pd.DataFrame(
            [
                {
                    "section": ln.section,
                    "line": ln.name,
                    "value": ln.value,
                    "unit": ln.unit,
                    "formula": ln.formula,
                    "inputs": ln.inputs_text(),
                    "documented figure": ln.figure,
                    "note": ln.note,
                }
                for ln in self.lines
            ]
        )

    def html(self) -> str:
        """The sheet as an HTML table that fits a 1280-px page (no sideways scroll): the line,
        its value, the formula with its inputs under it, the documented figure."""
        return sheet_html(self)

    def _repr_html_(self) -> str:
        return self.html()

    def __repr__(self) -> str:
        return f"<ProductionSheet {self.schema} on {self.dataset}: {len(self.lines)} lines>"


# -- the sheet ----------------------------------------------------------------------------------


def production_sheet(
    ds: Dataset,
    schema: Schema,
    workload: Workload | None = None,
    *,
    analysis: Analysis | None = None,
    settings: Settings | None = None,
    cells: CellFrame | None = None,
) -> ProductionSheet:
    """The production sheet of ``schema`` on ``ds`` at ``workload``: every figure on its own
    line with its formula, its inputs and the documented figure it uses.

    Parameters
    ----------
    ds : Dataset
        The events (the sample gives the design's shape).
    schema : Schema
        The design.
    workload : Workload, optional
        The production a team states (``wb.Workload``: rates, peak, retention, series, query
        rates; ``QueryLoad(data_boost=True)`` sends a query to Data Boost). None: the defaults.
    analysis : Analysis, optional
        ``wb.analyze(ds, schema, workload=workload)`` when it is already at hand (the designer's,
        a report's): the sheet reads it and computes nothing again.
    settings : Settings, optional
        Every modelling constant (``analysis/settings.py``); passed to ``analyze``.
    cells : CellFrame, optional
        The design's cells when already built (``schema.to_cells(ds, accept_loss=True)`` for a
        design whose events collide).

    Returns
    -------
    ProductionSheet
        ``.lines`` (each a :class:`SheetLine`), ``.table()`` and an HTML view.
    """
    from .overview import analyze

    if analysis is None:
        analysis = analyze(ds, schema, workload=workload, settings=settings, cells=cells)
    elif workload is not None and analysis.capacity.production.workload != workload:
        from ..errors import WorkbenchError

        raise WorkbenchError(
            "The analysis passed to production_sheet was computed at another workload: pass "
            "the workload it was analysed at, or no analysis (the sheet then analyses at yours)."
        )
    return sheet_of(analysis)


def sheet_of(a: Analysis) -> ProductionSheet:
    """The sheet of an analysis: its figures, line by line (nothing computed again)."""
    cap = a.capacity
    served = not cap.hotspot_limited
    return ProductionSheet(
        dataset=a.dataset,
        schema=a.schema,
        lines=tuple(sheet_lines(a, served)),
        workload_line=cap.production.inputs_line(),
        verdict=cap.verdict(),
        prices_date=cap.settings.prices_date,
        served=served,
    )


# -- the view -----------------------------------------------------------------------------------

# a 1280-px page: fixed columns that wrap between words, never inside one (a name too long for
# its column is the only word allowed to break); the inputs sit under their formula
_TABLE_STYLE = (
    "table-layout:fixed;width:100%;border-collapse:collapse;font-size:12.5px;"
    "word-break:normal;overflow-wrap:break-word;hyphens:none"
)
# JupyterLab's rendered-HTML styles right-align and middle-align cells and stripe rows: a
# sheet's cells say how they read
_TD = "padding:3px;text-align:left;vertical-align:top"
_COLS = (("line", "21%"), ("value", "13%"), ("formula and inputs", "46%"), ("documented", "20%"))


def _value_text(ln: SheetLine) -> str:
    v = ln.value
    if v != v:
        return "—"
    if ln.unit.startswith("USD"):
        return fmt_usd(v)
    if ln.unit == "share of a node":
        return fmt_share(v)
    if ln.unit == "runs/s":
        return fmt_rate(v, "runs")
    return shown_value(v, ln.unit)


def _whole(text: str) -> str:
    """``text`` escaped, each hyphenated word kept on one line ("cold-tier", "read-cost": a
    browser breaks a line after a hyphen, which splits the word as read)."""
    return re.sub(
        r"\S*-\S*",
        lambda m: f"<span style='white-space:nowrap'>{m.group(0)}</span>",
        html.escape(text),
    )


def sheet_html(sheet: ProductionSheet) -> str:
    """The sheet as HTML (notebooks, the designer's tab, reports): one row per line."""
    e = _whole  # text only: every use below is an element's content
    head = (
        "".join(f"<col style='width:{w}'>" for _, w in _COLS)
        + "<tr>"
        + "".join(
            f"<th style='text-align:left;border-bottom:1px solid #999;padding:3px'>{e(c)}</th>"
            for c, _ in _COLS
        )
        + "</tr>"
    )
    rows = []
    section = ""
    for ln in sheet.lines:
        if ln.section != section:
            section = ln.section
            rows.append(
                f"<tr><td colspan='4' style='padding:6px 3px 2px;font-weight:bold;text-align:left;"
                f"border-bottom:1px solid #ddd'>{e(section)}</td></tr>"
            )
        by_source: dict[str, list[str]] = {}  # one bullet per source: "rows = 57.6 M, …"
        for k, (v, src) in ln.inputs.items():
            by_source.setdefault(src, []).append(f"{k} = {shown_input(k, v)}")
        inputs = "".join(
            f"<li>{e(', '.join(items))} <span style='color:#666'>({e(src)})</span></li>"
            for src, items in by_source.items()
        )
        note = f"<div style='color:#8a5a00'>{e(ln.note)}</div>" if ln.note else ""
        rows.append(
            "<tr style='vertical-align:top;border-bottom:1px solid #eee;background:none'>"
            f"<td style='{_TD}'>{e(ln.name)}</td>"
            f"<td style='{_TD}' data-sheet-value>{e(_value_text(ln))}"
            "</td>"
            f"<td style='{_TD}'><div>{e(ln.formula)}</div>"
            + (
                f"<ul style='margin:2px 0 0 14px;padding:0;color:#333;font-size:11.5px;text-align:left'>{inputs}"
                "</ul>"
                if inputs
                else ""
            )
            + f"{note}</td>"
            f"<td style='{_TD};font-size:11.5px;color:#444'>{e(ln.figure)}</td></tr>"
        )
    # mathjax_ignore (MathJax 3, JupyterLab 4) and tex2jax_ignore (MathJax 2): the typesetter
    # leaves the sheet alone; it set the text between two prices of one formula ("× $0.65 =
    # $5,220") as LaTeX
    return (
        "<div class='wb-production-sheet mathjax_ignore tex2jax_ignore' "
        "style='max-width:100%;overflow-x:hidden'>"
        f"<b>Production sheet</b> {e(sheet.schema)} on {e(sheet.dataset)}"
        f"<div style='font-size:12px;margin:2px 0'>{e(sheet.workload_line)}</div>"
        f"<div style='font-size:12px;margin:2px 0 6px'>{e(sheet.verdict)}</div>"
        f"<table style='{_TABLE_STYLE}'>{head}{''.join(rows)}</table></div>"
    )


__all__ = [
    "ProductionSheet",
    "SheetLine",
    "autoscaling_recommendation",
    "production_sheet",
    "sheet_html",
    "sheet_of",
]
