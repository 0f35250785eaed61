"""A worker's install: ``pip install bigtable-ts-workbench`` without extras, in a fresh venv.

A Dataflow worker (or any batch job) needs the cell, analysis and Bigtable paths, not the lab:
the package's core dependencies must bring none of JupyterLab, matplotlib, ipywidgets, ipykernel
or the notebook tools (they are the ``[lab]`` extra), and those paths must run without them. Here
a venv is made from nothing (no ``--system-site-packages``), the package is pip-installed into
it from a copy of this checkout, and a script there loads a named dataset, builds two designs'
cells, analyses one, writes it into a private emulator and reads it back; the lab's features
say which extra they need.

Speed: the venv is made ``--without-pip`` and filled by this interpreter's pip (``pip
--python``), with ``--no-compile``; wheels come from pip's cache after the first run. The
package is built with build isolation: ``--no-build-isolation`` would need setuptools >= 77
(``project.license`` as an SPDX string) in the target, which a fresh venv does not have.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from waits import HANG_S

pytestmark = pytest.mark.slow  # a venv and a pip install (about 30-90 s, from pip's cache)

REPO = Path(__file__).resolve().parents[2]
LAB_INSTALL = 'pip install "bigtable-ts-workbench[lab]"'
# what a worker must not get (the [lab] extra and what only it pulls in)
LAB_ONLY = (
    "jupyterlab",
    "jupyter-server",
    "notebook",
    "matplotlib",
    "ipywidgets",
    "ipykernel",
    "ipython",
    "nbformat",
    "nbclient",
    "nbconvert",
)

# Runs inside the runtime-only venv; prints one JSON line of what it found.
SCRIPT = r"""
import importlib
import json
import sys

import workbench as wb
from workbench.errors import ExtraMissing

out = {}
ds = wb.load_dataset("garden_temperature", size="tiny")
ev = ds.frame
out["events"] = len(ev)
out["gardens"] = int(ev["garden"].nunique())
out["first"], out["last"] = str(ev["time"].min()), str(ev["time"].max())
for name in ("tall", "month_rows"):
    cells = wb.preset(ds, name).to_cells(ds)
    out[name] = {"cells": len(cells.frame), "rows": cells.n_rows}
month_rows = wb.preset(ds, "month_rows")
a = wb.analyze(ds, month_rows)
out["analysis"] = {"cells": a.index.n_cells, "rows": a.index.n_rows}
with wb.Emulator(reuse=False) as emu:  # the writer, the admin path and the reader
    table = emu.load(ds, month_rows)
    run = table.run("garden_month")
    answer = run.answer
    out["read"] = {
        "rows": run.result.rows_returned,
        "cells": run.result.cells_returned,
        "correct": bool(run.correct),
        "temps": {str(t.day): float(v) for t, v in zip(answer["time"], answer["temp_f"])},
    }
refused = {}
for what, use in (
    ("designer", lambda: wb.designer(ds)),
    ("figures", lambda: a._repr_html_()),
    ("report", lambda: importlib.import_module("workbench.report").build_reports),
):
    try:
        use()
        refused[what] = None
    except ExtraMissing as exc:
        refused[what] = str(exc)
out["refused"] = refused
from workbench.report import Scrubber  # the command line's error lines: no [lab] needed
out["scrubbed"] = Scrubber.for_environment({"MY_TOKEN": "s3cr3t-value"}).secrets("x s3cr3t-value")
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def runtime_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding ``bigtable-ts-workbench`` and its core dependencies only."""
    root = tmp_path_factory.mktemp("runtime")
    # pip builds a local project in its own tree (build/, *.egg-info): build from a copy, so
    # the checkout gets neither
    src = root / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    shutil.copytree(
        REPO / "workbench", src / "workbench", ignore=shutil.ignore_patterns("__pycache__")
    )
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check"]
    done = subprocess.run(
        [*pip, "install", "--quiet", "--no-compile", str(src)],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return python


def _installed(python: Path) -> dict[str, list[str]]:
    """{distribution name (canonical): its Requires-Dist} of the venv, read by its own Python."""
    code = (
        "import importlib.metadata as md, json, re\n"
        "print(json.dumps({re.sub(r'[-_.]+', '-', d.metadata['Name']).lower(): d.requires or []"
        " for d in md.distributions()}))"
    )
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_the_runtime_install_holds_no_lab_package(runtime_python: Path):
    installed = _installed(runtime_python)
    assert not set(LAB_ONLY) & set(installed), sorted(set(LAB_ONLY) & set(installed))
    # the runtime the cell, analysis and Bigtable paths import is there
    runtime = {"google-cloud-bigtable", "grpcio", "protobuf", "pandas", "numpy", "pyarrow"}
    assert runtime <= set(installed), sorted(runtime - set(installed))
    # the package's own metadata: every lab package is behind `extra == "lab"`
    requires = installed["bigtable-ts-workbench"]
    for name in ("jupyterlab", "matplotlib", "ipywidgets", "ipykernel", "nbconvert"):
        lines = [r for r in requires if r.lower().startswith(name)]
        assert lines and all('extra == "lab"' in r for r in lines), (name, lines)


def test_cells_analysis_and_bigtable_work_without_the_lab(runtime_python: Path):
    done = subprocess.run(
        [str(runtime_python), "-c", SCRIPT],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        cwd=runtime_python.parent,  # not the checkout: the installed package is imported
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    # The tiny sample: one reading each morning per garden from 1 March 2015 (data card), so
    # events = gardens × mornings; 1 Mar – 20 Jul is 31 + 30 + 31 + 30 + 20 = 142 mornings.
    assert out["gardens"] == 7
    assert out["first"].startswith("2015-03-01 07:00") and out["last"].startswith("2015-07-20")
    assert out["events"] == 7 * 142 == 994
    # tall: a row and a cell per reading; month_rows: a row per garden and month (Mar–Jul: 5),
    # a cell per reading (qualifier = day of month)
    assert out["tall"] == {"cells": 994, "rows": 994}
    assert out["month_rows"] == {"cells": 994, "rows": 7 * 5}
    assert out["analysis"] == {"cells": 994, "rows": 35}
    # written, read back: VEGGIEGARDEN's March row, the paper's numbers on days 1–5 and 31
    read = out["read"]
    assert (read["rows"], read["cells"], read["correct"]) == (1, 31, True)
    paper = {"1": 60.4, "2": 61.2, "3": 61.0, "4": 65.1, "5": 62.2, "31": 60.4}
    assert {d: read["temps"][d] for d in paper} == paper
    # the lab's features name the extra they need
    for what, message in out["refused"].items():
        assert message is not None and LAB_INSTALL in message, (what, message)
    assert out["scrubbed"] == "x [redacted]"


def test_the_command_line_names_the_lab_extra(runtime_python: Path):
    """`workbench report` and `workbench lab` stop with one line naming the extra, start nothing."""
    env = {k: v for k, v in os.environ.items() if k != "BIGTABLE_EMULATOR_HOST"}
    for command in ("report", "lab"):
        done = subprocess.run(
            [str(runtime_python), "-m", "workbench", command],
            capture_output=True,
            text=True,
            timeout=HANG_S,
            env=env,
            cwd=runtime_python.parent,
        )
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        assert LAB_INSTALL in done.stderr and "Traceback" not in done.stderr, done.stderr
