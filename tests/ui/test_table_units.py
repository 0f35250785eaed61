"""Every table the notebooks and the designer show says each unit once: in its label or in its
values, never both, and never two different ones ("growth per month (GB, logical)" over
"329.3 kB", "events per second" over "4.17/h", "(GiB)" over "9.2 TB" were all shown).

The tables are built for the six workshop datasets by the functions the notebooks' displays and
the designer call (``display.analysis_html``, ``display.comparison_result_html``,
``plots.compare.comparison_html``, ``ui._render.headline_html``, ``Comparison.view``), parsed back
from their HTML, and every number cell is held to: no unit its label already names, whole numbers
with thousands separators and without ".0", no "-0" / "$-0", no exponent.

The rules are read off the page as an attendee would (a unit is a word next to a number or in a
label's parentheses), not from the formatter, so a new table or label that contradicts its
values fails here whichever formatter made it.
"""

from __future__ import annotations

import re
from functools import cache
from html.parser import HTMLParser
from unittest import mock

import pytest

import workbench as wb
from workbench.analysis import analyze
from workbench.analysis.comparison import compare_analyses
from workbench.display import analysis_html, comparison_result_html
from workbench.errors import WorkbenchError
from workbench.formatting import money, percent, shown, unit_free
from workbench.plots.compare import comparison_html
from workbench.ui._render import headline_html

DATASETS = (
    "garden_temperature",
    "game_scores",
    "weather_balloons",
    "fx_prices",
    "server_metrics",
    "energy_meters",
)

BYTE_UNITS = ("B", "kB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "PiB")
_BYTE_WORD = r"(?:B|kB|MB|GB|TB|PB|KiB|MiB|GiB|TiB|PiB)"
# a number cell: an optional "<", sign, "$", the number, then what follows it (its unit, if any)
# (not a date, a time or a row key: "2015-03-01 00:00 UTC", "100001#2015…" are text)
_CELL = re.compile(r"([<>]?)(-?)(\$?)(-?)(\d[\d,]*(?:\.\d+)?)(?=$|\s|%|×|/)\s*(.*)")


class _Tables(HTMLParser):
    """Each <table>'s cells as (label, text): the label is the table's title (the last <b> before
    it), its column header and its row header, joined; "<td>" cells only."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[tuple[str, str]] = []
        self._stack: list[dict] = []  # open tables
        self._title = ""
        self._text: list[str] | None = None
        self._tag = ""
        self._in_b = False
        self._b: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "b":
            self._in_b, self._b = True, []
        if tag == "table":
            self._stack.append({"title": self._title, "head": [], "row": [], "in_head": False})
        elif self._stack and tag == "thead":
            self._stack[-1]["in_head"] = True
        elif self._stack and tag == "tr":
            self._stack[-1]["row"] = []
        elif self._stack and tag in ("td", "th"):
            self._text, self._tag = [], tag

    def handle_endtag(self, tag):
        if tag == "b":
            self._in_b = False
            self._title = "".join(self._b)
        if not self._stack:
            return
        t = self._stack[-1]
        if tag in ("td", "th") and self._text is not None:
            t["row"].append((self._tag, " ".join("".join(self._text).split())))
            self._text = None
        elif tag == "thead":
            t["in_head"] = False
        elif tag == "tr":
            if t["in_head"] or all(kind == "th" for kind, _ in t["row"]):
                t["head"] = [text for _, text in t["row"]]
            else:
                row_head = " ".join(text for kind, text in t["row"] if kind == "th")
                for i, (kind, text) in enumerate(t["row"]):
                    if kind == "td":
                        col = t["head"][i] if i < len(t["head"]) else ""
                        self.cells.append((f"{t['title']} | {col} | {row_head}", text))
        elif tag == "table":
            self._stack.pop()

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)
        if self._in_b:
            self._b.append(data)


def table_cells(page: str) -> list[tuple[str, str]]:
    p = _Tables()
    p.feed(page)
    return p.cells


def _not_after_a_number(label: str, pattern: str) -> bool:
    """``pattern`` in ``label`` as the value's unit: "(GB, logical)", "per second", but not the
    stated parameter in "5 TB per SSD node" or "at 70% CPU"."""
    return any(not re.search(r"\d\s*$", label[: m.start()]) for m in re.finditer(pattern, label))


def label_units(label: str) -> set[str]:
    """The kinds of unit a label names for its values."""
    kinds = set()
    if _not_after_a_number(label, rf"(?<![\w]){_BYTE_WORD}\b") or "(bytes" in label:
        kinds.add("bytes")
    if _not_after_a_number(label, r"per (?:second|minute|hour|day)\b|\w/(?:s|min|h|day)\b"):
        kinds.add("rate")
    if "USD" in label or "$" in label:
        kinds.add("money")
    if _not_after_a_number(label, r"%|\bpercent\b"):
        kinds.add("percent")
    return kinds


def cell_problems(label: str, text: str) -> list[str]:
    """What is wrong with one number cell under its label (nothing for a cell of words)."""
    bad = []
    if re.search(r"\de[+-]\d", text):
        bad.append("exponent")
    m = _CELL.fullmatch(text)
    if m is None:
        return bad
    _, sign, dollar, sign2, num, unit = m.groups()
    value_kinds = set()
    if unit in BYTE_UNITS:
        value_kinds.add("bytes")
    if re.search(r"/(?:s|min|h|day)$", unit):
        value_kinds.add("rate")
    if dollar:
        value_kinds.add("money")
    if unit == "%":
        value_kinds.add("percent")
    both = value_kinds & label_units(label)
    if both:
        bad.append(f"unit named in the label and the value ({', '.join(sorted(both))})")
    if (sign or sign2) and float(num.replace(",", "")) == 0:
        bad.append('"-0"')
    whole = num.split(".")[0]
    if "," not in whole and len(whole) > 3:
        bad.append("no thousands separator")
    # ".0" on a figure of 100 or more is a count printed as a float (29760.0): a measurement
    # rounds to whole numbers there; below 100, "14.0" node-ms is 14.03 rounded to 3 figures
    if not unit and not dollar and re.fullmatch(r"\d{3}\.0|\d[\d,]{3,}\.0", num):
        bad.append('a whole number with ".0"')
    return bad


# --- the checker itself, on cells derived by hand (each was seen in a workshop notebook) -------


@pytest.mark.parametrize(
    ("label", "text", "problem"),
    [
        ("growth per month (GB, logical)", "329.3 kB", "bytes"),
        ("billed storage (GiB compressed, 1 cluster(s))", "1.7 MB", "bytes"),
        ("events per second (production)", "4.17/h", "rate"),
        ("queries per second (the sample's own rate)", "0.100/day", "rate"),
        ("replication traffic (GiB per month)", "0 B", "bytes"),
        ("total per month (USD)", "$-0", "-0"),
        ("cells written", "29760.0", ".0"),
        ("maintenance writes", "744.0", ".0"),
        ("rows", "403525", "separator"),
        ("ceiling", "3.82e+05", "exponent"),
    ],
)
def test_the_checker_finds_what_an_attendee_saw(label, text, problem):
    assert any(problem in p for p in cell_problems(label, text)), (label, text)


@pytest.mark.parametrize(
    ("label", "text"),
    [
        ("growth per month (logical)", "329.3 kB"),
        ("nodes for storage (5 TB per SSD node at 70%)", "3"),  # 5 TB is a parameter
        ("storage (bytes per event)", "89.8"),
        ("busiest node CPU at 16,277,550 nodes", "<0.1%"),
        ("ceiling (events/s no node count lifts)", "382,200"),
        ("total per month", "$0"),
        ("query (node-ms per run)", "14.0"),  # 14.03 to three figures
    ],
)
def test_the_checker_passes_a_unit_said_once(label, text):
    assert cell_problems(label, text) == []


def test_a_label_gives_its_unit_to_the_value():
    # 329,300 B a month is 3.293e-4 GB: the value says kB, so the label says no unit
    assert shown("growth per month (GB, logical)", 3.293e-4) == (
        "growth per month (logical)",
        "329.3 kB",
    )
    # 1.7e6 B / 2**30 GiB: decimal MB in the value, the cluster count kept in the label
    assert shown("billed storage (GiB compressed, 1 cluster(s))", 1.7e6 / 2**30) == (
        "billed storage (compressed, 1 cluster(s))",
        "1.7 MB",
    )
    # 1 event every 864 s: 100 a day, 4.17 an hour
    assert shown("events per second (production)", 1 / 864) == (
        "rate of events (production)",
        "4.17/h",
    )
    assert shown("ceiling (events/s, busiest unit at 70% CPU)", 382_200) == (
        "ceiling (busiest unit at 70% CPU)",
        "382,200 events/s",
    )
    assert unit_free("nodes for storage (5 TB per SSD node at 70%)") == (
        "nodes for storage (5 TB per SSD node at 70%)"
    )
    assert money(-0.3) == "$0" and money(-12.4) == "-$12" and money(1234.5) == "$1,234"
    assert percent(1 / 800) != "0%"  # one node of 800 takes 0.125 %


# --- every table the notebooks and the designer show ---------------------------------------


def _two_designs(ds: wb.Dataset) -> dict:
    """The first two of the dataset's patterns that build on it (a pattern whose keys collide on
    this sample is refused, as the designer refuses it)."""
    out = {}
    for p in wb.pattern_names(ds):
        try:
            out[p] = analyze(ds, wb.preset(ds, p))
        except WorkbenchError:
            continue
        if len(out) == 2:
            return out
    raise AssertionError(f"fewer than two designs build on {ds.name}")


@cache
def _pages(name: str) -> tuple[str, ...]:
    ds = wb.load_dataset(name, size="tiny")
    analyses = _two_designs(ds)
    cmp = compare_analyses(ds, analyses)
    first = next(iter(analyses.values()))
    # the pages as shown, without their matplotlib pictures (tables are what is checked here;
    # drawing them took most of two minutes)
    with mock.patch("workbench.plots.figure_html", lambda *a, **k: ""):
        return (
            analysis_html(first),
            comparison_result_html(cmp),
            comparison_html(cmp),
            headline_html(first),
            cmp.view().to_html(),
        )


@pytest.mark.parametrize("name", DATASETS)
def test_no_table_says_a_unit_twice_or_prints_a_raw_number(name):
    cells = [c for page in _pages(name) for c in table_cells(page)]
    numbers = [(label, text) for label, text in cells if _CELL.fullmatch(text)]
    # the walk reached the tables: the capacity table's bytes, rates and dollars among them
    assert any(t.endswith((" kB", " B", " MB")) for _, t in numbers), cells[:20]
    assert any(t.startswith("$") for _, t in numbers) and any("/" in t for _, t in numbers)
    bad = [(label, text, p) for label, text in cells for p in cell_problems(label, text)]
    assert bad == [], bad
