"""Executed notebooks as self-contained HTML reports that open offline.

``build_reports`` runs each notebook top to bottom with nbclient against the
real emulator (one it starts or reuses), keeps the widget state, and exports
HTML with nbconvert's ``lab`` template through three preprocessors:

1. :class:`ScrubPreprocessor` removes tokens, credentials, emulator addresses
   and local paths from sources, outputs, metadata and widget state;
2. :class:`StaticWidgetsPreprocessor` draws every widget from its saved state
   as plain HTML (no JavaScript, no CDN);
3. :class:`FindingsPreprocessor` collects the marked findings and guideline IDs
   for the index page.

The template drops everything that would load from the network (require.js,
the widget renderer, MathJax, Mermaid) and adds a header with the date, the
versions and the emulator used. The result is checked before it is written:
no secret or local path left, no ``src``/``href`` that would leave the file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import lazy_loader

from ..errors import ReportError, require_lab

if TYPE_CHECKING:  # pragma: no cover - the names below, as mypy and IDEs see them
    from ._findings import finding
    from ._scrub import Scrubber
    from ._widgets import StaticWidgets
    from .build import Report, build_report, build_reports, main_report
    from .execute import execute_notebook, report_notebooks, workshop_notebooks
    from .export import export_html, offline_problems

# Resolved on first use: a runtime-only install (no [lab] extra) has no nbformat, nbclient or
# nbconvert, yet the command line scrubs its error lines with the Scrubber (detect-secrets only).
_resolve = lazy_loader.attach(
    __name__,
    submod_attrs={
        "_findings": ["finding"],
        "_scrub": ["Scrubber"],
        "_widgets": ["StaticWidgets"],
        "build": ["Report", "build_report", "build_reports", "main_report"],
        "execute": ["execute_notebook", "report_notebooks", "workshop_notebooks"],
        "export": ["export_html", "offline_problems"],
    },
)[0]


def __getattr__(name: str) -> Any:
    if name != "Scrubber" and name in __all__:
        require_lab("Reports (workbench report)", "nbformat", "nbclient", "nbconvert", "ipykernel")
    return _resolve(name)


__all__ = [
    "build_reports",
    "build_report",
    "export_html",
    "execute_notebook",
    "main_report",
    "finding",
    "Scrubber",
    "StaticWidgets",
    "ReportError",
    "Report",
    "workshop_notebooks",
    "report_notebooks",
    "offline_problems",
]
