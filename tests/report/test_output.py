"""``workbench report`` and its output folder: checked before any notebook runs, written through a
temporary file and a rename, every OS error one line (no traceback, no truncated page left)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import nbformat
import pytest

from workbench.report import main_report

pytestmark = pytest.mark.slow  # reports into unusable folders and full disks


def _notebook(path, marker=None, big=0):
    cells = [nbformat.v4.new_markdown_cell("# A report")]
    if marker is not None:  # executing the notebook would create this file
        cells.append(nbformat.v4.new_code_cell(f"open({str(marker)!r}, 'w').write('ran')"))
    if big:
        cells.append(
            nbformat.v4.new_code_cell(
                "print('x')",
                outputs=[nbformat.v4.new_output("stream", name="stdout", text="x" * big)],
            )
        )
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    return path


def test_an_unusable_output_folder_is_refused_before_anything_runs(tmp_path, capsys):
    marker = tmp_path / "ran"
    nb = _notebook(tmp_path / "a.ipynb", marker=marker)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the output folder would go")
    rc = main_report([str(nb), "--out", str(blocker / "reports")])
    err = capsys.readouterr().err
    assert rc == 1
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"error: Cannot write to {blocker / 'reports'}: Not a directory")
    assert "choose another --out folder" in err
    assert not marker.exists()  # the notebook never ran


FULL_DISK = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
resource.setrlimit(resource.RLIMIT_FSIZE, (300_000, 300_000))
from workbench.report import main_report
sys.exit(main_report([{nb!r}, "--out", {out!r}, "--no-execute"]))
"""


def test_a_disk_that_fills_up_leaves_one_line_and_no_truncated_page(tmp_path):
    # RLIMIT_FSIZE stands in for a full disk: every write past 300 kB fails, as on a full one.
    nb = _notebook(tmp_path / "big.ipynb", big=600_000)  # its page is over 600 kB
    out = tmp_path / "reports"
    out.mkdir()
    (out / "big.html").write_text("the previous report")
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(FULL_DISK.format(nb=str(nb), out=str(out)))],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1, run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr
    assert f"Cannot write to {out / 'big.html'}: File too large (EFBIG)" in run.stderr
    # the previous page is intact and no temporary file is left behind
    assert (out / "big.html").read_text() == "the previous report"
    assert sorted(p.name for p in out.iterdir()) == ["big.html"]
