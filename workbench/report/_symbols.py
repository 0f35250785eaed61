"""The symbols the workbench writes, embedded in every report page as a font of their own.

A report is read offline on any machine: a check box (☐ ☑), an exercise's ✔ / ✘ / ✎, a finding's
▲ / ●, ≈ and ≤ in rankings, → in plans are missing from some systems' fonts, and a missing glyph
shows as an empty box. The page carries the few glyphs it uses, cut from DejaVu Sans (the font
matplotlib ships, so no new dependency; fontTools, matplotlib's own dependency, cuts it), as a
``@font-face`` whose ``unicode-range`` names only those code points: the browser takes every
other character from the page's usual fonts.
"""

from __future__ import annotations

import base64
import functools
import io
from pathlib import Path

# every symbol outside Latin-1 the workbench's texts and widgets use (Latin-1's × ÷ · ± µ are in
# every font); tests/report/test_symbols.py holds the package's string literals to this list
SYMBOLS = "☐☑✔✘✖✎▾▶▲●★≈≤≥∝∞−‑→←↑↓↔⇔↻⌈⌉⌊⌋…—–•⚠ρΣ"
FAMILY = "wb-symbols"


def _source() -> Path:
    import matplotlib

    return Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"


def _range(chars: str) -> str:
    return ", ".join(f"U+{ord(c):04X}" for c in sorted(set(chars)))


@functools.lru_cache(maxsize=1)
def symbol_font() -> tuple[bytes, str]:
    """DejaVu Sans cut to the :data:`SYMBOLS` it has: the TTF bytes and the characters in it."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(str(_source()))
    cmap = font.getBestCmap()
    kept = "".join(c for c in SYMBOLS if ord(c) in cmap)
    options = subset.Options()
    options.layout_features = []
    options.name_IDs = ["*"]  # keep the licence and the name: DejaVu's licence travels with it
    options.hinting = False
    options.drop_tables += ["FFTM"]  # FontForge's timestamps: nothing a browser reads
    sub = subset.Subsetter(options)
    sub.populate(unicodes=[ord(c) for c in kept])
    sub.subset(font)
    out = io.BytesIO()
    font.save(out)
    return out.getvalue(), kept


@functools.lru_cache(maxsize=1)
def symbol_font_css() -> str:
    """The ``@font-face`` and the page's font stacks with it first (only its code points)."""
    data, kept = symbol_font()
    b64 = base64.b64encode(data).decode("ascii")
    ui = 'system-ui, -apple-system, blinkmacsystemfont, "Segoe UI", helvetica, arial, sans-serif'
    code = 'menlo, consolas, "DejaVu Sans Mono", monospace'
    return (
        f'@font-face {{ font-family: "{FAMILY}"; src: url(data:font/ttf;base64,{b64}) '
        f'format("truetype"); unicode-range: {_range(kept)}; }}\n'
        f':root {{ --jp-ui-font-family: "{FAMILY}", {ui}; '
        f'--jp-content-font-family: "{FAMILY}", {ui}; --jp-code-font-family: "{FAMILY}", {code}; }}\n'
        f'body {{ font-family: "{FAMILY}", {ui}; }}\n'
    )
