"""A workbench error in a notebook reads as its message, in the line the designer shows; the
full traceback is one command (``%tb``) or one flag (``wb.full_tracebacks()``) away."""

from __future__ import annotations

import html
import re

import nbformat
import pytest
from waits import HANG_S

import workbench as wb
from workbench.errors import SchemaError, error_line
from workbench.report.kernel_wait import notebook_client
from workbench.ui._render import error_html

pytestmark = pytest.mark.slow  # IPython kernels

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _run(*sources: str):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    notebook_client(nb, kernel_name="python3", allow_errors=True, timeout=HANG_S).execute()
    return [[o for o in c.outputs if o.output_type == "error"] for c in nb.cells]


def test_a_workbench_error_shows_its_message_not_the_internals():
    bad = 'wb.preset("garden_temperature", "day_rows")'
    errors = _run(
        "import workbench as wb\nwb.setup(emulator=False)",
        bad,
        "%tb",
        "wb.full_tracebacks()",
        bad,
    )
    brief, tb, _, full = errors[1], errors[2], errors[3], errors[4]
    # still an error output: the cell is marked failed and "Run All" stops there
    assert len(brief) == 1 and brief[0]["ename"] == "SchemaError"
    lines = [ANSI.sub("", ln) for ln in brief[0]["traceback"]]
    try:
        wb.preset("garden_temperature", "day_rows")
    except SchemaError as exc:
        expected = error_line(exc)
        designer = error_html(exc)
    # the same line the designer shows under its box, then how to see the rest
    assert lines[0] == f"SchemaError: {expected}"
    assert "Did you mean 'daily_rows'?" in lines[0] and html.escape(expected) in designer
    assert len(lines) == 2 and "%tb" in lines[1] and "wb.full_tracebacks()" in lines[1]
    assert not any("File " in ln or "workbench/" in ln for ln in lines)
    # %tb prints the whole traceback of that error; the flag brings it back for every error
    assert tb and "presets.py" in ANSI.sub("", "".join(tb[0]["traceback"]))
    text = ANSI.sub("", "".join(full[0]["traceback"]))
    assert "Traceback" in text and "presets.py" in text


def test_a_collision_shows_one_line_and_its_evidence_underneath():
    errors = _run(
        "import workbench as wb\nwb.setup(emulator=False)\n"
        'ds = wb.load_dataset("server_metrics", size="workshop")',
        'wb.analyze(ds, wb.Schema("k", wb.RowKey((wb.Field("host"), wb.Timestamp("ms", "epoch_ms"))),'
        ' wb.Tall(wb.Family("m"))))',
    )
    lines = [ANSI.sub("", ln) for ln in errors[1][0]["traceback"]]
    assert lines[0].startswith("CollisionError: 29,884 events collide")
    assert "finer time precision in the key (G31)" in lines[0]  # the advice stays on the first line
    assert lines[1].startswith("  row ") and len(lines) <= 6  # a few colliding rows, no frames
