"""Key findings and guideline IDs collected from a notebook, for the report index.

The convention (documented in docs/architecture.md, "Reports"):

* a cell tagged ``finding`` contributes its outputs (code cell) or its text
  (markdown cell) as findings;
* a cell tagged ``summary`` is the notebook's summary on the index page;
* any display output whose metadata holds ``{"workbench": {"finding": "<label>"}}``
  is a finding with that label (``workbench.report.finding(obj, label)`` makes one);
* cell tags ``G01`` … ``G31`` name the guidelines the notebook demonstrates.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from nbconvert.filters.markdown_mistune import markdown2html_mistune
from nbconvert.preprocessors import Preprocessor

from ._widgets import StaticWidgets, render_output_bundle

FINDING_TAG = "finding"
SUMMARY_TAG = "summary"
METADATA_KEY = "workbench"
_GUIDELINE = re.compile(r"^G(\d{2})$")


@dataclass
class Finding:
    label: str
    html: str


@dataclass
class CellError:
    cell: int  # 1-based position among all cells
    anchor: str  # HTML id of the cell in the report
    text: str  # "ValueError: fixture failure ..."


@dataclass
class NotebookFacts:
    """What the index page says about one notebook's report."""

    stem: str
    notebook: str
    title: str
    guidelines: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    summary: str = ""
    errors: list[CellError] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def guideline_tags(nb: Any) -> list[str]:
    """Sorted guideline IDs (``G01``…) found in cell tags."""
    found = {
        tag
        for cell in nb.cells
        for tag in cell.get("metadata", {}).get("tags", []) or []
        if _GUIDELINE.match(str(tag))
    }
    return sorted(found)


def notebook_title(nb: Any, default: str) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            m = re.search(r"^\s*#\s+(.+?)\s*#*\s*$", cell.source, re.M)
            if m:
                return m.group(1)
    return default


def _render(output: dict[str, Any], widgets: StaticWidgets) -> str:
    static = output.get("metadata", {}).get("workbench_static_html")
    if static:  # live mode keeps the widget view; its static twin is in the metadata
        return static
    return render_output_bundle(output, widgets.render)


def cell_errors(nb: Any) -> list[CellError]:
    errors = []
    for i, cell in enumerate(nb.cells, start=1):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                anchor = f"cell-id={cell.get('id')}" if cell.get("id") else ""
                errors.append(CellError(i, anchor, f"{out.get('ename')}: {out.get('evalue')}"))
    return errors


def collect(nb: Any, stem: str, notebook: str) -> NotebookFacts:
    """Findings, summary, guideline IDs and failed cells of an executed (and scrubbed) notebook."""
    widgets = StaticWidgets(
        nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json")
    )
    facts = NotebookFacts(
        stem=stem,
        notebook=notebook,
        title=notebook_title(nb, stem),
        guidelines=guideline_tags(nb),
        errors=cell_errors(nb),
    )
    summaries = []
    heading = ""  # the section a finding comes from: its caption on the index when it has no label
    for cell in nb.cells:
        tags = set(cell.get("metadata", {}).get("tags", []) or [])
        if cell.cell_type == "markdown":
            found = re.findall(r"^\s*#{2,3}\s+(.+?)\s*#*\s*$", cell.source, re.M)
            heading = found[-1] if found else heading
        if cell.cell_type == "markdown" and tags & {FINDING_TAG, SUMMARY_TAG}:
            rendered = markdown2html_mistune(cell.source)
            if SUMMARY_TAG in tags:
                summaries.append(rendered)
            else:
                facts.findings.append(Finding("", rendered))
            continue
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            marker = (out.get("metadata") or {}).get(METADATA_KEY) or {}
            label = marker.get("finding") if isinstance(marker, dict) else None
            if out.get("output_type") == "error":
                continue
            if label or tags & {FINDING_TAG, SUMMARY_TAG}:
                html = _render(out, widgets)
                if not html.strip():  # a hidden widget (a finished progress bar): nothing to show
                    continue
                if SUMMARY_TAG in tags and not label:
                    summaries.append(html)
                else:
                    facts.findings.append(
                        Finding(label if isinstance(label, str) and label else heading, html)
                    )
    facts.summary = "".join(summaries)
    return facts


class FindingsPreprocessor(Preprocessor):
    """Stores the notebook's :class:`NotebookFacts` in ``resources['workbench']['facts']``."""

    def preprocess(self, nb, resources):
        wb = resources.setdefault("workbench", {})
        wb["facts"] = collect(nb, wb.get("stem", "notebook"), wb.get("notebook", ""))
        return nb, resources


def finding(obj: Any, label: str = "finding") -> None:
    """Display ``obj`` in a notebook and mark it as a key finding for the report index."""
    from IPython.display import display

    display(obj, metadata={METADATA_KEY: {"finding": label}})
