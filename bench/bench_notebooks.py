"""Benchmark: the whole workshop notebook set executed headless (target: under 3 minutes).

Each notebook runs top to bottom with nbclient in a fresh kernel against one
emulator, as `make report` and the test suite do. The baseline, run in the same
process, is a notebook holding only the setup cell (kernel start + imports +
emulator check): the ratio says how much of each notebook's time is its story
rather than fixed start-up cost.

    .venv/bin/python bench/bench_notebooks.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import nbformat

from workbench import Emulator
from workbench.report import execute_notebook, workshop_notebooks

TARGET_S = 180.0


def main() -> int:
    notebooks = workshop_notebooks()
    with Emulator(reuse=False) as emu, tempfile.TemporaryDirectory() as tmp:
        baseline_nb = nbformat.v4.new_notebook(
            cells=[nbformat.v4.new_code_cell("import workbench as wb\nwb.setup()")]
        )
        baseline_path = Path(tmp) / "baseline.ipynb"
        nbformat.write(baseline_nb, baseline_path)
        _, base_s, _ = execute_notebook(baseline_path, emulator_host=emu.host)
        print(f"baseline (setup cell only): {base_s:.2f} s")
        total = 0.0
        for path in notebooks:
            _, secs, stopped = execute_notebook(path, emulator_host=emu.host)
            total += secs
            flag = "  FAILED" if stopped else ""
            print(
                f"{path.name:<28} {secs:6.2f} s  = {secs / base_s:5.1f}× the setup-only notebook{flag}"
            )
    print(
        f"whole set: {total:.1f} s for {len(notebooks)} notebooks "
        f"(target < {TARGET_S:.0f} s: {'met' if total < TARGET_S else 'NOT met'}); "
        f"{total / (base_s * len(notebooks)):.1f}× the setup-only cost"
    )
    return 0 if total < TARGET_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
