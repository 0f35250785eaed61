"""Bind a number a notebook's prose states to the figure its output shows.

``stated(nb, pattern)`` reads the number a sentence of the markdown (or a printed line) states;
``shown(nb, pattern)`` the number an output shows (printed text, HTML table cells as text,
saved widget views); ``bound(nb, sentence, figure)`` asserts they are one figure. A pattern is a
regular expression with one group ``(?P<n>…)`` around the number; whitespace in the text is
collapsed to single spaces first, so a sentence may span lines. Numbers read as written: "29,760",
"33%", "3.0×", and the words one to twelve.
"""

from __future__ import annotations

import html
import re
from typing import Any

WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
}


def number(text: str) -> float:
    """ "29,760" → 29760, "33%" → 33, "3.0×" → 3.0, "two" → 2."""
    t = text.strip().lower()
    if t in WORDS:
        return float(WORDS[t])
    return float(re.sub(r"[,\s%×$]", "", t))


def _flat(text: str) -> str:
    return " ".join(text.split())


def prose(nb: Any) -> str:
    """Every markdown cell, whitespace collapsed."""
    return " ".join(_flat(c.source) for c in nb.cells if c.cell_type == "markdown")


def outputs(nb: Any, cell: int | None = None) -> str:
    """What the code cells show (or one cell's): printed text, results as text (tags dropped,
    table cells kept apart), whitespace collapsed."""
    parts = []
    for i, c in enumerate(nb.cells):
        if c.cell_type != "code" or (cell is not None and i != cell):
            continue
        for o in c.get("outputs", []):
            data = o.get("data", {})
            page = data.get("text/html", "")
            page = re.sub(r"<style.*?</style>", " ", page, flags=re.S)
            parts.append(html.unescape(re.sub(r"<[^>]+>", " ", page)))
            if not page:
                parts.append(data.get("text/plain", ""))
            parts.append(o.get("text", ""))
    return _flat(" ".join(parts))


def _one(text: str, pattern: str, where: str) -> float:
    found = [m.group("n") for m in re.finditer(pattern, text)]
    assert found, f"{where}: nothing matches {pattern!r}"
    values = {number(f) for f in found}
    assert len(values) == 1, f"{where}: {pattern!r} matches different numbers {sorted(values)}"
    return values.pop()


def stated(nb: Any, pattern: str) -> float:
    """The number the prose states (the same wherever the pattern matches)."""
    return _one(prose(nb), pattern, "prose")


def shown(nb: Any, pattern: str, cell: int | None = None) -> float:
    """The number the outputs show (the same wherever the pattern matches)."""
    return _one(outputs(nb, cell), pattern, "outputs")


def bound(nb: Any, sentence: str, figure: str, *, rel: float = 0.0) -> float:
    """The prose's number and the output's are one figure (within ``rel``, for a sentence that
    says "about"); returns it."""
    said, drawn = stated(nb, sentence), shown(nb, figure)
    assert abs(said - drawn) <= rel * abs(drawn), (
        f"the prose says {said:g} ({sentence!r}) but the output shows {drawn:g} ({figure!r})"
    )
    return drawn
