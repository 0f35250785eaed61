"""Every symbol the workbench writes has a glyph in the report page itself: an offline report read
on a machine whose fonts lack ☐, ✎ or ⏳ showed empty boxes. The page embeds DejaVu Sans cut to
``SYMBOLS`` (report/_symbols.py) for exactly those code points."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import nbformat
import pytest
from fontTools.ttLib import TTFont

from workbench.report import export_html
from workbench.report._symbols import FAMILY, SYMBOLS, symbol_font

PACKAGE = Path(__file__).resolve().parents[2] / "workbench"


def _literal_chars() -> dict[str, str]:
    """Each character above Latin-1 in the package's string literals, and a file using it."""
    found: dict[str, str] = {}
    strings = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    for path in sorted(PACKAGE.rglob("*.py")):
        for tok in tokenize.generate_tokens(io.StringIO(path.read_text("utf-8")).readline):
            if tok.type in strings:
                for ch in tok.string:
                    if ord(ch) > 0xFF:
                        found.setdefault(ch, path.name)
    return found


def test_every_symbol_the_package_writes_is_in_the_embedded_font():
    data, kept = symbol_font()
    cmap = TTFont(io.BytesIO(data)).getBestCmap()
    missing = {ch: where for ch, where in _literal_chars().items() if ord(ch) not in cmap}
    assert not missing, f"symbols with no glyph in the report's font: {missing}"
    assert kept == SYMBOLS  # DejaVu Sans has every one listed


def test_the_exported_page_carries_the_font_for_those_code_points_only():
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print('✔ ☐ ✎')")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="✔ Well done ☐ ✎\n")]
    nb.cells = [cell]
    page, _ = export_html(nb, stem="symbols", notebook="symbols.ipynb")
    face = re.search(r"@font-face \{ font-family: \"" + FAMILY + r"\";(.*?)\}", page, re.S)
    assert face and "data:font/ttf;base64," in face.group(1)
    ranges = re.search(r"unicode-range: ([^;]+);", face.group(1)).group(1)
    assert {int(r[2:], 16) for r in ranges.split(", ")} == {ord(c) for c in SYMBOLS}
    # first in the page's font stacks; other characters fall through to the usual fonts
    assert f'--jp-ui-font-family: "{FAMILY}",' in page
    assert f'--jp-code-font-family: "{FAMILY}",' in page


@pytest.mark.browser
def test_chromium_draws_the_symbols_from_the_embedded_font(tmp_path, browser):
    from browser import chromium_context

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="☐ ✎ ✔ ▲ ≈ ↻\n")]
    nb.cells = [cell]
    page_html, _ = export_html(nb, stem="symbols", notebook="symbols.ipynb")
    path = tmp_path / "symbols.html"
    path.write_text(page_html, encoding="utf-8")
    with chromium_context(browser) as ctx:
        page = ctx.new_page()
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
        status = page.evaluate(
            f"""async () => {{ await document.fonts.ready;
              const faces = [...document.fonts].filter(f => f.family.replace(/"/g, '') === '{FAMILY}');
              await Promise.all(faces.map(f => f.load()));
              return faces.map(f => f.status); }}"""
        )
        assert status == ["loaded"], status
