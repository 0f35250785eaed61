"""Tiny helper to write workshop notebooks from Python lists of cells.

Notebooks are committed as .ipynb (what attendees open); this keeps their
source reviewable: ``python tools/nbbuild.py`` is not needed to use them.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook


def md(text: str, *tags: str):
    cell = new_markdown_cell(text.strip())
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


def code(text: str, *tags: str):
    cell = new_code_cell(text.strip())
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


def write(path: str | Path, cells: list, title: str) -> Path:
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata["title"] = title
    path = Path(path)
    nbformat.write(nb, path)
    return path
