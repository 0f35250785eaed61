"""Run a workshop notebook top to bottom in a fresh kernel against a given emulator (nbclient)."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

import nbformat

from ..errors import ReportError
from .provenance import REPO_ROOT


# -- execution ------------------------------------------------------------------------------
def workshop_notebooks(root: Path = REPO_ROOT) -> list[Path]:
    """The numbered workshop notebooks, in order (``notebooks/00_start_here.ipynb`` …)."""
    return sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def report_notebooks(root: Path = REPO_ROOT) -> list[Path]:
    """What ``make report`` reports on: the workshop notebooks, then every other notebook an
    attendee saved in ``notebooks/`` (their own design work is what they take home)."""
    ours = workshop_notebooks(root)
    theirs = sorted(p for p in (root / "notebooks").glob("*.ipynb") if p not in ours)
    return ours + theirs


def execute_notebook(
    path: Path,
    *,
    emulator_host: str | None,
    timeout: int = 600,
    allow_errors: bool = False,
    env: dict[str, str] | None = None,
) -> tuple[Any, float, bool]:
    """Run ``path`` top to bottom in a fresh ``python3`` kernel (cwd = its folder), keeping widget state.

    Returns the executed notebook, the seconds it took, and whether execution
    stopped at a failing cell (its error is in that cell's outputs).
    """
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    nb = nbformat.read(path, as_version=4)
    kernel_env = {**os.environ, **(env or {})}
    if emulator_host:
        kernel_env["BIGTABLE_EMULATOR_HOST"] = emulator_host
    kernel_env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    # nobody fills the exercise blanks in a headless run: the problems use their solutions
    # (and fail the run if a solution stops passing); see workbench.exercises
    kernel_env.setdefault("WORKBENCH_SOLUTIONS", "1")
    from .kernel_wait import notebook_client

    client = notebook_client(
        nb,
        timeout=timeout,
        startup_timeout=120,
        kernel_name="python3",
        store_widget_state=True,
        allow_errors=allow_errors,
        resources={"metadata": {"path": str(path.resolve().parent)}},
    )
    started: list[int] = []
    client.on_cell_execute = lambda cell, cell_index: started.append(cell_index)
    t0 = time.perf_counter()
    stopped = False
    with tempfile.TemporaryFile() as kernel_log:
        try:
            client.execute(env=kernel_env, stderr=kernel_log)
        except CellExecutionError:
            stopped = (
                True  # the failing cell's error output is in the notebook; the report shows it
            )
        except CellTimeoutError:
            stopped = True
            if started:
                nb.cells[started[-1]].outputs.append(
                    nbformat.v4.new_output(
                        "error",
                        ename="CellTimeoutError",
                        evalue=f"the cell did not finish within {timeout} s",
                        traceback=[f"CellTimeoutError: the cell did not finish within {timeout} s"],
                    )
                )
        except DeadKernelError as exc:
            kernel_log.seek(0)
            tail = kernel_log.read().decode(errors="replace")[-2000:]
            raise ReportError(
                f"The kernel running {path.name} died: {exc}\nKernel log:\n{tail}"
            ) from exc
    return nb, time.perf_counter() - t0, stopped
