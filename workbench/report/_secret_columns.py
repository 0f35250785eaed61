"""The values of table columns named like secrets, as a notebook shows a DataFrame.

A frame with a ``password`` or ``api_key`` column prints its values without any format a plugin
knows (``hunter2``, ``k1``): the column's name is the only sign. Each value found here becomes a
secret the scrubber replaces wherever it appears (the HTML table, the plain-text repr, a print),
so a table's masked cell and the same value elsewhere read ``[redacted]`` alike.

Two renderings are read: pandas' HTML (``_repr_html_``, a Styler: header cells ``<th>``, data
cells aligned from the row's right end, so a sparse MultiIndex's missing ``<th>`` does not shift
them) and its plain text (``repr``, ``to_string``, ``print``: every column right-justified, its
header ending where its values end, all lines of one width).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser

# A column holds secrets when a part of its name is one of these (``db_password``, ``apiKey``,
# ``Auth-Token``) ...
_SECRET_PARTS = frozenset(
    {
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "passcode",
        "secret",
        "secrets",
        "token",
        "tokens",
        "apikey",
        "credential",
        "credentials",
        "auth",
        "authorization",
        "cookie",
    }
)
_SECRET_PAIRS = frozenset(
    {("api", "key"), ("access", "key"), ("private", "key"), ("secret", "key"), ("signing", "key")}
)
# ... unless another part says it holds something about the secret, not the secret itself.
_ABOUT_PARTS = frozenset(
    {
        "count",
        "counts",
        "len",
        "length",
        "size",
        "type",
        "kind",
        "name",
        "expiry",
        "expires",
        "expired",
        "valid",
        "url",
        "uri",
        "endpoint",
        "used",
        "n",
        "num",
    }
)
_MISSING = frozenset({"", "None", "NaN", "nan", "<NA>", "NaT", "...", "True", "False"})


def secret_column(name: str) -> bool:
    """Whether a column called ``name`` holds secrets (``password``, ``api_key``, ``authToken``;
    not ``token_count`` or ``passengers``)."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()
    parts = [p for p in re.split(r"[^a-z0-9]+", words) if p]
    if any(p in _ABOUT_PARTS for p in parts):
        return False
    return any(p in _SECRET_PARTS for p in parts) or any(
        pair in _SECRET_PAIRS for pair in zip(parts, parts[1:], strict=False)
    )


class _Tables(HTMLParser):
    """Every ``<table>``'s rows as ``(in <thead>, header-cell flags, cell texts)``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[list[tuple[bool, list[str]]]] = []
        self._head = False
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._span = 1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "thead":
            self._head = True
        elif tag == "tbody":
            self._head = False
        elif tag == "tr" and self.tables:
            self._row = []
        elif tag in ("th", "td") and self._row is not None:
            self._cell = []
            span = dict(attrs).get("colspan") or "1"
            self._span = int(span) if span.isdigit() else 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td") and self._row is not None and self._cell is not None:
            self._row.extend(["".join(self._cell).strip()] * max(self._span, 1))
            self._cell = None
        elif tag == "tr" and self._row is not None and self.tables:
            self.tables[-1].append((self._head, self._row))
            self._row = None
        elif tag == "thead":
            self._head = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _html_values(page: str) -> Iterator[tuple[str, str]]:
    parser = _Tables()
    parser.feed(page)
    parser.close()
    for rows in parser.tables:
        head = [cells for in_head, cells in rows if in_head]
        if not head:
            continue
        header = head[-1]  # the leaf names of a MultiIndex's columns
        if not any(secret_column(name) for name in header):
            header = head[0]
        wanted = [(len(header) - i, name) for i, name in enumerate(header) if secret_column(name)]
        for in_head, cells in rows:
            if in_head:
                continue
            for from_end, name in wanted:
                if from_end <= len(cells):
                    yield name, cells[len(cells) - from_end]


def _text_values(text: str) -> Iterator[tuple[str, str]]:
    lines = text.splitlines()
    for top, header in enumerate(lines):
        width = len(header.rstrip())
        names = list(re.finditer(r"\S+", header))
        wanted = [i for i, m in enumerate(names) if secret_column(m.group())]
        if not wanted or width == 0:
            continue
        for n, line in enumerate(lines[top + 1 :]):
            if n == 0 and len(line.split()) == 1 and line[:1].strip():
                continue  # the index's name, under the header
            if len(line.rstrip()) != width:
                break  # not a row of this table: a frame's rows are as wide as its header
            for i in wanted:
                start = names[i - 1].end() if i else 0
                segment = line[start : names[i].end()].strip()
                if not i:  # the first column: the index is in front of it
                    segment = re.split(r"\s{2,}", segment)[-1]
                if segment:
                    yield names[i].group(), segment


def column_values(text: str, *, html: bool) -> list[tuple[str, str]]:
    """``(column, value)`` for every value of a secret-named column in ``text`` (a table as
    pandas renders it: HTML when ``html``, else plain text); missing values left out."""
    found = _html_values(text) if html else _text_values(text)
    return [(name, value) for name, value in found if value not in _MISSING]
