"""One executed notebook → one self-contained HTML page that opens offline.

nbconvert's ``lab`` template through three preprocessors (scrub secrets and local paths, draw
widgets from their saved state, collect findings), minus everything that would load from the
network; the page is checked for leaks and remote references before it is returned.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

import jinja2
import nbformat
from nbconvert import HTMLExporter
from nbconvert.preprocessors import Preprocessor

from ..errors import ReportError
from . import _templates
from ._findings import FindingsPreprocessor, NotebookFacts, collect
from ._scrub import Scrubber, strip_ansi
from ._symbols import symbol_font_css
from ._widgets import StaticWidgetsPreprocessor
from .provenance import REPO_ROOT, emulator_description, git_commit, now_utc, report_versions


# -- export ---------------------------------------------------------------------------------
class ScrubPreprocessor(Preprocessor):
    """Removes secrets and local paths from every cell and from the notebook metadata (see ``_scrub``)."""

    def __init__(self, scrubber: Scrubber, **kw: Any):
        super().__init__(**kw)
        self.scrubber = scrubber

    def preprocess(self, nb, resources):
        for cell in nb.cells:  # secrets the notebook sets itself (%env, os.environ[...] = ...)
            if cell.get("cell_type") == "code":  # and tables' secret-named columns show
                self.scrubber.learn_source(cell.source)
                self.scrubber.learn_outputs(cell.get("outputs", []))
        self.scrubber.obj(nb.metadata)
        for cell in nb.cells:
            cell.source = self.scrubber.text(cell.source)
            self.scrubber.obj(cell.metadata)
            if "outputs" in cell:
                self.scrubber.obj(cell.outputs)
        return nb, resources


def _exporter(live: bool) -> HTMLExporter:
    exporter = HTMLExporter(
        template_name="lab",
        theme="light",
        embed_images=True,
        extra_loaders=[
            jinja2.DictLoader({"workbench_report.html.j2": _templates.NOTEBOOK_TEMPLATE})
        ],
        template_file="workbench_report.html.j2",
    )
    exporter.register_preprocessor(StaticWidgetsPreprocessor(keep_state=live), enabled=True)
    exporter.register_preprocessor(FindingsPreprocessor(), enabled=True)
    return exporter


_REMOTE = re.compile(
    r"""(?:\b(?:src|href|srcset|poster|data|action)\s*=\s*["']?\s*|url\(\s*["']?|@import\s+["']?)"""
    r"""((?:https?:|ftp:|wss?:)?//[^\s"'<>)]+)""",
    re.I,
)


def offline_problems(page: str) -> list[str]:
    """References in ``page`` a browser would fetch from the network (links a reader clicks are fine)."""
    page = re.sub(r"data:[\w/+.\-]+;base64,[A-Za-z0-9+/=\s]+", "data:", page)
    problems = []
    for m in _REMOTE.finditer(page):
        start = page.rfind("<", 0, m.start())
        tag = page[start : start + 3].lower()
        if tag.startswith("<a ") or tag.startswith("<a\n"):
            continue  # an ordinary link: nothing is loaded until a reader clicks it
        problems.append(m.group(1))
    return problems


def _neutralise_remote(nb: Any) -> None:
    """Markdown images that point at the internet become links: the page must not fetch them."""
    pattern = re.compile(r"!\[([^\]]*)\]\(((?:https?:)?//[^)\s]+)[^)]*\)")
    html_img = re.compile(r"<img\b[^>]*\bsrc\s*=\s*[\"']((?:https?:)?//[^\"']+)[\"'][^>]*>", re.I)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = pattern.sub(r"[\1 (image on the web, not embedded)](\2)", cell.source)
            cell.source = html_img.sub(
                r"<a href='\1'>(image on the web, not embedded)</a>", cell.source
            )
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "text/html" in data:
                text = (
                    "".join(data["text/html"])
                    if isinstance(data["text/html"], list)
                    else data["text/html"]
                )
                data["text/html"] = html_img.sub(
                    r"<a href='\1'>(image on the web, not embedded)</a>", text
                )


def export_html(
    nb: Any,
    *,
    stem: str,
    notebook: str,
    scrubber: Scrubber | None = None,
    live: bool = False,
    header: dict[str, Any] | None = None,
) -> tuple[str, NotebookFacts]:
    """An executed notebook as one self-contained HTML page, and the facts for the index."""
    scrubber = scrubber or Scrubber.for_environment(roots=[(REPO_ROOT, "[repo]")])
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))  # never modify the caller's notebook
    _neutralise_remote(nb)
    ScrubPreprocessor(scrubber).preprocess(nb, {})
    wb: dict[str, Any] = {
        # the symbols' own font first (offline, on any machine: no empty boxes), then the widgets'
        "css": symbol_font_css() + _templates.WIDGET_CSS,
        "versions": report_versions(),
        "made": now_utc(),
        "executed": False,
        "seconds": 0.0,
        "emulator": emulator_description(None),
        "commit": git_commit(),
        "title": stem,
        "stem": stem,
        "notebook": notebook,
        "index_href": "",
        "errors": [],
        "stopped": False,
        "guidelines": [],
        "live_bundle": _live_bundle() if live else "",
    }
    wb.update(header or {})
    # The header is built before the preprocessors run, so titles/IDs/errors come from a first pass.
    facts = collect(nb, stem, notebook)
    wb.update(
        title=scrubber.text(facts.title),
        guidelines=facts.guidelines,
        errors=[e.__dict__ for e in facts.errors],
    )
    wb["emulator"] = scrubber.text(wb["emulator"])
    body, resources = _exporter(live).from_notebook_node(nb, resources={"workbench": wb})
    facts = resources["workbench"]["facts"]
    leaks = scrubber.leak_kinds(_strip_bundle(body, wb["live_bundle"]))
    if leaks:  # named by kind and cell, never by value: the error must not carry the secret
        places = sorted({f"{kind} in {_cell_of(nb, value)}" for value, kind in leaks.items()})
        raise ReportError(
            f"The report of {notebook} would still contain {len(leaks)} secret(s) or local path(s) "
            f"after scrubbing: {'; '.join(places[:5])}"
            f"{f' and {len(places) - 5} more' if len(places) > 5 else ''}. Nothing was written: "
            "remove the value from that cell (or clear its output) and build the report again."
        )
    remote = offline_problems(_strip_bundle(body, wb["live_bundle"]))
    if remote:
        raise ReportError(
            f"The report of {notebook} would load {len(remote)} resource(s) from the network: "
            f"{', '.join(remote[:5])}. Nothing was written."
        )
    return body, facts


def _cell_of(nb: Any, value: str) -> str:
    """Where ``value`` is in the scrubbed notebook: "cell 3 (its output)", "cell 1 (its source)"."""
    forms = {value, html.escape(value), html.escape(value, quote=False), unquote(value)}
    for number, cell in enumerate(nb.cells, 1):
        for part, texts in (
            ("its source", [cell.get("source", "")]),
            ("its output", list(_strings(cell.get("outputs", [])))),
            ("its metadata", list(_strings(cell.get("metadata", {})))),
        ):
            if any(form in strip_ansi(text) for text in texts for form in forms):
                return f"cell {number} ({cell.get('cell_type', 'cell')}, {part})"
    return "the page around the cells (its title, header or metadata)"


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _strip_bundle(body: str, bundle: str) -> str:
    return body.replace(bundle, "") if bundle else body


def _live_bundle() -> str:
    from ._live import bundle_script

    return bundle_script()
