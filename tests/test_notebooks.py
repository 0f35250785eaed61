"""Every workshop notebook runs top to bottom, headless, against the real emulator (issue 7)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from workbench.report import execute_notebook, workshop_notebooks

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = workshop_notebooks(REPO)


def test_there_are_workshop_notebooks():
    assert NOTEBOOKS and NOTEBOOKS[0].name == "00_start_here.ipynb"


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(path: Path, emulator):
    t0 = time.perf_counter()
    nb, _, stopped = execute_notebook(path, emulator_host=emulator.host, timeout=300)
    assert not stopped, f"{path.name} stopped at a failing cell"
    elapsed = time.perf_counter() - t0
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors, errors
    code = [c for c in nb.cells if c.cell_type == "code"]
    # one setup cell, first; a summary and cleanup at the end; learning objectives up front
    assert "wb.setup()" in code[0].source and "setup" in code[0].metadata.get("tags", [])
    assert "wb.cleanup()" in code[-1].source
    assert "Learning objectives" in nb.cells[0].source
    assert any("## Summary" in c.source for c in nb.cells if c.cell_type == "markdown")
    setup_out = str(code[0].outputs)
    assert f"live Bigtable emulator at {emulator.host}" in setup_out, setup_out
    print(f"{path.name}: {elapsed:.1f} s")
