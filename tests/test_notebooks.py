"""Every workshop notebook runs top to bottom, headless, against the real emulator."""

from __future__ import annotations

import re
import time
from pathlib import Path

import nbformat
import pytest
from browser import open_offline

from workbench.formatting import EVENTS_CLASS
from workbench.report import execute_notebook, export_html, workshop_notebooks

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = workshop_notebooks(REPO)


GUIDELINE_TAG = re.compile(r"G\d\d")


def _guideline_tags(cell) -> set[str]:
    return {t for t in cell.metadata.get("tags", []) if GUIDELINE_TAG.fullmatch(t)}


def test_there_are_workshop_notebooks():
    assert NOTEBOOKS and NOTEBOOKS[0].name == "00_start_here.ipynb"


def test_every_guideline_is_demonstrated_in_a_tagged_code_cell():
    tagged: set[str] = set()
    for path in NOTEBOOKS:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                tagged |= _guideline_tags(cell)
    missing = [f"G{i:02d}" for i in range(1, 32) if f"G{i:02d}" not in tagged]
    assert not missing, f"guidelines with no tagged code cell in any notebook: {missing}"


# what an attendee must never read in a table: 8.27e-08, 2.407907e+10, 0.0000000827, 16809.501267
SCIENTIFIC = re.compile(r"(?<![\w.])\d+(?:\.\d+)?e[+-]?\d+\b", re.I)
LONG_DECIMALS = re.compile(r"(?<![\w.])\d+\.\d{4,}\b")
PERCENT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?%")
# a time of day with its fraction is data (04's microsecond keys), not a figure
TIME_OF_DAY = re.compile(r"\d{2}:\d{2}:\d{2}\.\d+")


def _shown_texts(nb) -> list[tuple[int, str, str]]:
    """(cell, "table" | "text", text) for what each output shows: every table cell of its HTML,
    or its plain text when it has no HTML; printed text too."""
    import html as H

    out = []
    for i, cell in enumerate(nb.cells):
        for o in cell.get("outputs", []) if cell.cell_type == "code" else []:
            data = o.get("data", {})
            page = data.get("text/html", "")
            for table in re.findall(r"<table.*?</table>", page, re.S):
                # source events (a preview, lost events) show their values as written
                kind = "events" if EVENTS_CLASS in table[: table.find(">")] else "table"
                for td in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", table, re.S):
                    out.append((i, kind, H.unescape(re.sub(r"<[^>]+>", "", td)).strip()))
            if not page and "text/plain" in data:
                out.append((i, "table", data["text/plain"]))
            text = H.unescape(re.sub(r"<[^>]+>", " ", page)) + o.get("text", "")
            out.append((i, "text", text))
    return out


def unreadable_numbers(nb) -> list[str]:
    """Numbers in scientific notation or with more than three decimals in a table, and shares
    above 100 % anywhere in the output."""
    bad = []
    for i, kind, text in _shown_texts(nb):
        text = TIME_OF_DAY.sub("", text)
        if kind in ("table", "events"):
            bad += [f"cell {i}: {n!r} in {text[:80]!r}" for n in SCIENTIFIC.findall(text)]
        if kind == "table":
            bad += [f"cell {i}: {n!r} in {text[:80]!r}" for n in LONG_DECIMALS.findall(text)]
        else:
            over = [m for m in PERCENT.finditer(text) if float(m.group(1)) > 100]
            bad += [f"cell {i}: {text[max(0, m.start() - 60) : m.end()]!r}" for m in over]
    return bad


def test_the_number_check_sees_what_it_must():
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("")
    cell.outputs = [
        nbformat.v4.new_output(
            "execute_result",
            {
                "text/html": "<table><tr><td>8.27e-08</td><td>16809.501267</td><td>0.096</td>"
                "<td>2015-03-02 04:55:07.958019</td></tr></table><p>a node takes 188 % of it</p>"
                # source events keep their own digits (an FX quote), never an exponent
                f"<table class='dataframe {EVENTS_CLASS}'><tr><td>0.78094</td>"
                "<td>2.407907e+10</td></tr></table>"
            },
        )
    ]
    nb.cells = [cell]
    found = unreadable_numbers(nb)
    assert len(found) == 4 and "8.27e-08" in found[0] and "16809.501267" in found[1]
    assert "2.407907e+10" in found[2] and "188 %" in found[3]


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(path: Path, emulator, tmp_path):
    t0 = time.perf_counter()
    nb, _, stopped = execute_notebook(path, emulator_host=emulator.host, timeout=300)
    assert not stopped, f"{path.name} stopped at a failing cell"
    elapsed = time.perf_counter() - t0
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors, errors
    code = [c for c in nb.cells if c.cell_type == "code"]
    # one setup cell, first; a summary and cleanup at the end; learning objectives up front
    assert "wb.setup()" in code[0].source and "setup" in code[0].metadata.get("tags", [])
    assert "wb.cleanup()" in code[-1].source
    assert "Learning objectives" in nb.cells[0].source
    assert any("## Summary" in c.source for c in nb.cells if c.cell_type == "markdown")
    setup_out = str(code[0].outputs)
    assert f"live Bigtable emulator at {emulator.host}" in setup_out, setup_out
    # a guideline's cell must show its measured effect: it has to produce output
    silent = [
        f"cell {i} ({', '.join(sorted(_guideline_tags(c)))})"
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and _guideline_tags(c) and not c.get("outputs")
    ]
    assert not silent, f"{path.name}: guideline cells without output: {silent}"
    # numbers read at workshop scale: formatted, never 8.27e-08, 0.0000000827 or 16809.501267
    unreadable = unreadable_numbers(nb)
    assert not unreadable, f"{path.name}: " + "; ".join(unreadable[:8])

    # its report: one self-contained page that opens offline with every figure and widget output
    body, facts = export_html(nb, stem=path.stem, notebook=f"notebooks/{path.name}")
    page = tmp_path / f"{path.stem}.html"
    page.write_text(body, encoding="utf-8")
    attempts, images, texts = open_offline(page, f"report_{path.stem}.png")
    assert attempts == [page.resolve().as_uri()], f"requests beyond the file: {attempts[1:]}"
    assert all(i["ok"] for i in images), [i for i in images if not i["ok"]]
    assert "widget not saved" not in texts["body"]
    if any(
        "wb.designer(" in c.source for c in nb.cells if c.cell_type == "code"
    ):  # the designer, figures drawn
        assert "Schema designer" in texts["body"] and any(
            i["output"] and i["h"] > 50 for i in images
        ), images
    if path.stem == "07_design_lab":
        # Run All leaves the first designer where the text says: timestamp first, heat map open,
        # the hotspot diagonal on screen (the advisor's fix happens in a designer of its own)
        first = texts["body"].split("Schema designer")[1]
        assert "key time#pair" in first and "Hotspot" in first, first[:600]
    assert not facts.errors
    print(f"{path.name}: {elapsed:.1f} s")


EXERCISE_NOTEBOOKS = [p for p in NOTEBOOKS if "____" in p.read_text(encoding="utf-8")]


@pytest.mark.notebook
@pytest.mark.parametrize("path", EXERCISE_NOTEBOOKS, ids=[p.stem for p in EXERCISE_NOTEBOOKS])
def test_notebook_runs_with_the_exercises_left_blank(path: Path, emulator):
    # an attendee who skips an exercise still gets every later cell: nothing after the check may
    # depend on the blank answer (the problem's reference stands in for it)
    nb, _, stopped = execute_notebook(
        path, emulator_host=emulator.host, timeout=300, env={"WORKBENCH_SOLUTIONS": "0"}
    )
    errors = [
        (i, o.get("ename"), o.get("evalue"))
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not stopped and not errors, errors
    # and the check said "your turn", not "well done"
    text = " ".join(
        str(o.get("data", {}).get("text/html", "")) + str(o.get("text", ""))
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
    )
    assert "Your turn" in text and "Well done" not in text
