"""Each workshop notebook is edited as a jupytext percent-format ``.py`` next to its ``.ipynb``.

Attendees open the ``.ipynb``; reviewers and linters read the ``.py``. The pairing is declared
in ``notebooks/jupytext.toml``, and ``jupytext --sync notebooks/*.py`` rewrites the ``.ipynb``
from an edited source. These tests fail when someone edits one side and forgets the sync.
"""

from __future__ import annotations

from pathlib import Path

import jupytext
import nbformat
import pytest

from workbench.report import workshop_notebooks

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = workshop_notebooks(REPO)
SYNC = "run `jupytext --sync notebooks/*.py` (after editing the .py) to bring them back in step"


def _cells(nb) -> list[tuple[str, str, list[str]]]:
    return [(c.cell_type, c.source, list(c.metadata.get("tags", []))) for c in nb.cells]


def test_every_notebook_has_a_percent_format_source_and_no_orphans():
    sources = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.py"))
    assert [p.with_suffix(".py") for p in NOTEBOOKS] == sources
    for src in sources:
        head = src.read_text(encoding="utf-8")
        assert "format_name: percent" in head, f"{src.name} is not a jupytext percent file"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_matches_its_source(path: Path):
    committed = nbformat.read(path, as_version=4)
    source = jupytext.read(path.with_suffix(".py"))
    want, have = _cells(source), _cells(committed)
    for i, (w, h) in enumerate(zip(want, have, strict=False)):
        assert w == h, (
            f"{path.name} cell {i} differs from {path.with_suffix('.py').name}:\n"
            f"  source  : {w!r:.300}\n  notebook: {h!r:.300}\n{SYNC}"
        )
    assert len(want) == len(have), f"{path.name}: {len(have)} cells, source has {len(want)}; {SYNC}"
    # the title is what the report index shows; it lives in the source's header
    assert source.metadata.get("title") == committed.metadata.get("title"), SYNC
    assert committed.metadata["kernelspec"]["name"] == "python3"


def test_committed_notebooks_carry_no_outputs():
    # a committed notebook is a starting point for attendees; outputs would also make the
    # .ipynb differ from a fresh sync for reasons nobody can review
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        ran = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.get("outputs")]
        assert not ran, f"{path.name}: cells {ran} have outputs; clear them before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_follows_the_workshop_conventions(path: Path):
    """Learning objectives first; one setup cell, the first code cell, with every import an
    exercise needs (so a later cell never fails on a missing name); a summary tagged ``summary``
    (the report index shows it) after the last lesson; the cleanup cell last."""
    cells = jupytext.read(path.with_suffix(".py")).cells
    name = path.name
    assert cells[0].cell_type == "markdown" and "Learning objectives" in cells[0].source, name
    code = [i for i, c in enumerate(cells) if c.cell_type == "code"]
    tagged = [i for i, c in enumerate(cells) if "setup" in c.metadata.get("tags", [])]
    assert tagged == [code[0]], f"{name}: one setup cell, the first code cell (tagged: {tagged})"
    setup = cells[code[0]].source
    assert "import workbench as wb" in setup and "wb.setup()" in setup, name
    exercise_imports = [i for i in code[1:] if "from workbench.exercises" in cells[i].source]
    assert not exercise_imports, (
        f"{name}: exercise imports outside the setup cell: {exercise_imports}"
    )
    if any(".check(" in cells[i].source for i in code):
        assert "from workbench.exercises" in setup, f"{name}: the exercise's import"
    last = cells[-1]
    assert last.cell_type == "code" and "cleanup" in last.metadata.get("tags", []), name
    assert "wb.cleanup()" in last.source, name
    summaries = [i for i, c in enumerate(cells) if "summary" in c.metadata.get("tags", [])]
    headed = [
        i for i, c in enumerate(cells) if c.cell_type == "markdown" and "## Summary" in c.source
    ]
    assert summaries == headed and len(headed) == 1, (
        f"{name}: summary tagged {summaries}, headed {headed}"
    )
    assert all(i > summaries[0] for i in code[-1:]) and summaries[0] > code[-2], (
        f"{name}: the summary comes after the last lesson, before the cleanup"
    )


def test_a_new_notebook_gets_no_py_twin_and_the_workshop_ones_stay_paired(tmp_path):
    # JupyterLab saves through jupytext's contents manager: with the pairing in jupytext.toml every
    # new Untitled.ipynb got an Untitled.py; the pairing now lives in each workshop notebook
    import shutil

    from jupytext import TextFileContentsManager

    folder = tmp_path / "notebooks"
    folder.mkdir()
    shutil.copy(REPO / "notebooks" / "jupytext.toml", folder)
    shutil.copy(NOTEBOOKS[1], folder)
    cm = TextFileContentsManager(root_dir=str(tmp_path))
    made = cm.new_untitled(path="notebooks", type="notebook")
    cm.save(cm.get(made["path"]), made["path"])
    assert sorted(p.name for p in folder.glob("Untitled*")) == ["Untitled.ipynb"]
    # a workshop notebook saved from the lab still writes its .py
    name = f"notebooks/{NOTEBOOKS[1].name}"
    cm.save(cm.get(name), name)
    assert (folder / NOTEBOOKS[1].with_suffix(".py").name).is_file()
    for path in NOTEBOOKS:
        assert jupytext.read(path.with_suffix(".py")).metadata["jupytext"]["formats"] == (
            "ipynb,py:percent"
        ), path.name


# a code cell at 1280 px shows about 100 characters before it scrolls sideways
CODE_WIDTH = 100


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_code_lines_fit_a_cell_without_scrolling(path: Path):
    nb = jupytext.read(path.with_suffix(".py"))
    wide = [
        f"cell {i}: {line[:60]}…"
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
        for line in c.source.splitlines()
        if len(line) > CODE_WIDTH
    ]
    assert not wide, f"{path.name}: code lines over {CODE_WIDTH} characters scroll: {wide}"
