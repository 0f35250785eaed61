"""Numbers as an attendee reads them: thousands separators, bytes in kB/MB/GB, times as times,
shares as percentages, ratios with ×, and a legend for anything absent.

``styled(frame)`` picks a format per column from its name (``bytes_per_event`` → bytes,
``busiest_node_share`` → percent, ``…: waste`` → ratio, ``…: node ms`` → milliseconds, counts → whole
numbers with separators) so a table shown in a notebook never prints ``40.384615``,
``2.407907e+10`` or a bare ``<NA>``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import pandas as pd

from .units import human_bytes

ABSENT = "—"
MEASURED_LEGEND = "— not measured: run the query on the emulator first (table.run(query))"
ABSENT_LEGEND = "— not applicable to this design"


def _missing(x: Any) -> bool:
    try:
        return x is None or bool(pd.isna(x))
    except (TypeError, ValueError):
        return False


def count(x: Any) -> str:
    """A whole number with thousands separators: 10000000 → 10,000,000."""
    return ABSENT if _missing(x) else f"{round(float(x)):,}"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """A count and its noun agreeing: ``counted(1, "range")`` → "1 range", 1,200 → "1,200
    ranges" (a sentence built from one count says it once, in the right number)."""
    return f"{int(n):,} {noun if int(n) == 1 else (plural or noun + 's')}"


SMALLEST = 0.001  # below this a measurement reads "<0.001": never e-06 nor six decimals


def number(x: Any) -> str:
    """A measurement: three significant figures below 1,000 but at most three decimals (below
    0.001: "<0.001"), whole numbers with separators above."""
    if _missing(x):
        return ABSENT
    v = float(x)
    if v == 0:
        return "0"
    if math.isinf(v):  # a ceiling no unit sets
        return "∞" if v > 0 else "-∞"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if abs(v) < SMALLEST:
        return "<0.001" if v > 0 else ">-0.001"
    digits = min(3, max(0, 2 - int(math.floor(math.log10(abs(v))))))
    return f"{v:,.{digits}f}"


def amount(x: Any) -> str:
    """A figure that may be whole: 12.0 months → "12" (never "12.0"), 14.03 node-ms →
    "14.0" (:func:`number`)."""
    if not _missing(x) and math.isfinite(float(x)) and float(x).is_integer():
        return count(x)
    return number(x)


_PER = (("s", 1.0), ("min", 60.0), ("h", 3600.0), ("day", 86_400.0))


def rate(per_second: Any, noun: str = "") -> str:
    """A rate in the first unit of time it reaches 1 in: 2,500 → 2,500/s, 0.00116 → 4.18/h,
    8.3e-06 → 0.717/day (a workshop sample's own rate reads as a rate, not as 8.3e-06)."""
    if _missing(per_second):
        return ABSENT
    v = float(per_second)
    what = f" {noun}" if noun else ""
    if v == 0 or math.isinf(v):
        return f"{number(v)}{what}/s"
    for unit, f in _PER:
        if abs(v * f) >= 1:
            return f"{number(v * f)}{what}/{unit}"
    return f"{number(v * 86_400)}{what}/day"


def nbytes(x: Any) -> str:
    """Bytes in B / kB / MB / GB / TB (decimal, as Bigtable's 100 MB and 256 MB limits are:
    :func:`workbench.units.human_bytes`); an absent value as "—"."""
    return ABSENT if _missing(x) else human_bytes(float(x))


def value(x: Any) -> str:
    """A source event's value as written, never in scientific notation: 24079071815.0 →
    24,079,071,815, 0.78094 → 0.78094 (an FX quote keeps its five decimals: it is data, not a
    figure, and rounding would make two events look the same)."""
    if _missing(x):
        return ABSENT
    v = float(x)
    if v.is_integer() and abs(v) < 1e15:
        return f"{int(v):,}"
    import numpy as np

    return np.format_float_positional(v, trim="-")


EVENTS_CLASS = "wb-events"  # tables of source events (previews, lost events): values as written


def percent(x: Any) -> str:
    """A share 0…1 as a percentage: 0.501523 → 50.2%, 0.0000024 → <0.1%."""
    if _missing(x):
        return ABSENT
    v = float(x) * 100
    if 0 < v < 0.1:
        return "<0.1%"
    return f"{v:.0f}%" if v >= 10 or v == 0 else f"{v:.1f}%"


def percent_points(x: Any) -> str:
    """A value already in percent (ListHotTablets' ``node_cpu_usage_percent``): 37.5 → 37.5%,
    0.000055 → <0.01% (a share that small is "almost nothing", not six decimals)."""
    if _missing(x):
        return ABSENT
    v = float(x)
    if v == 0:
        return "0%"
    if abs(v) < 0.01:
        return "<0.01%"
    return f"{v:.0f}%" if abs(v) >= 10 else (f"{v:.1f}%" if abs(v) >= 1 else f"{v:.2f}%")


def timestamp(x: Any) -> str:
    """A point in time to the minute, in UTC: 2024-03-01 14:05 UTC (no "+00:00", no seconds)."""
    if _missing(x):
        return ABSENT
    t = pd.Timestamp(x)
    t = t.tz_convert("UTC") if t.tzinfo is not None else t
    return f"{t:%Y-%m-%d %H:%M} UTC" if t.second == 0 else f"{t:%Y-%m-%d %H:%M:%S} UTC"


def ratio(x: Any) -> str:
    """A ratio with ×: 40.384615 → 40.4×, 28629 → 28,629×."""
    if _missing(x):
        return ABSENT
    v = float(x)
    return f"{v:,.0f}×" if v >= 100 else f"{v:,.1f}×"


# the load model's line between "even" and "uneven": the busiest node carries at most 1.5× its
# fair share (``KeyDistribution.spread``); the verdict, the node-load figure's title, the
# advisor's stand-down and the printed factor's precision all read this one value
EVEN_FACTOR = 1.5


def fair_factor(x: Any) -> str:
    """A busiest node ÷ its fair share, the same everywhere it is printed: two decimals up to
    1.5× (where "even" ends, so 1.04× and 1.25× stay apart), one above (2.4×, 10.0×)."""
    if _missing(x):
        return ABSENT
    v = float(x)
    return f"{v:,.2f}×" if v <= EVEN_FACTOR else f"{v:,.1f}×"


def milliseconds(x: Any) -> str:
    if _missing(x):
        return ABSENT
    v = float(x)
    if v >= 60_000:
        return duration(v / 1000)
    return f"{v:,.0f} ms" if v >= 100 else f"{number(v)} ms"


def duration(seconds: Any) -> str:
    """Seconds as a time: 90 → 1.5 min, 4,294,967 → 49.7 days."""
    if _missing(seconds):
        return ABSENT
    s = float(seconds)
    for unit, f in (("days", 86_400), ("h", 3600), ("min", 60)):
        if abs(s) >= f:
            return f"{s / f:,.1f} {unit}"
    return f"{s:,.3g} s"


def money(x: Any) -> str:
    """Whole dollars: 1234.4 → $1,234; -0.3 → $0 (never "$-0"); -12 → -$12."""
    if _missing(x):
        return ABSENT
    v = round(float(x))
    return f"-${-v:,}" if v < 0 else f"${v:,}"


def formatter_for(column: str) -> Callable[[Any], str] | None:
    """The format a column's name calls for (None: leave it as it is, e.g. text)."""
    c = str(column).lower()
    if c.endswith(("rows seen", "rows returned", "scans", "cells", "rows")):
        return count
    if c.endswith("_percent") or c.endswith(" percent"):
        return percent_points
    if "hotspot" in c and "factor" in c or "÷ fair" in c:  # "busiest node ÷ fair share"
        return fair_factor
    if "share" in c or "fraction" in c or c.endswith("%"):  # "key share of bytes" is a share
        return percent
    if "bytes" in c or c.endswith(" (b)") or c.endswith("_b"):
        return nbytes
    if "waste" in c or "factor" in c or "÷" in c or c.endswith("×"):
        return ratio
    if "cost" in c or c.endswith("_usd") or "$" in c:  # not "usdjpy_day: rows seen"
        return money
    if c.endswith("node ms") or c.endswith("_ms") or c.endswith(" ms"):
        return milliseconds
    if "per_s" in c or "/s" in c or "per second" in c:  # rates, not durations
        return rate
    if "per_event" in c:
        return number
    if c.endswith("_s") or c.endswith("seconds"):
        return duration
    return None


# a unit a label names for its value: in parentheses at the label's end ("(GB, logical)",
# "(USD, prices of …)", "(events/s, busiest …)") or a rate's "per second"; a unit after a number
# ("5 TB per node", "at 70% CPU") is a stated parameter, not the value's unit
_LABEL_UNIT = re.compile(r"\s*\((?:TB|GB|GiB|USD|(\w+)/s)\b[,\s]*(.*)\)$")
_PER_SECOND = re.compile(r"^(\w+) per second\b")


def unit_free(label: str) -> str:
    """``label`` without the unit :func:`labelled` moves into the value, so a unit lives in one
    place: "growth per month (GB, logical)" → "growth per month (logical)", "billed storage
    (GiB compressed, 1 cluster(s))" → "billed storage (compressed, 1 cluster(s))", "events per
    second (production)" → "rate of events (production)", "ceiling (events/s, busiest unit at
    70% CPU)" → "ceiling (busiest unit at 70% CPU)", "total per month (USD)" → "total per month"."""
    m = _LABEL_UNIT.search(label)
    if m is not None:
        rest = m.group(2).strip()
        label = label[: m.start()] + (f" ({rest})" if rest else "")
    return _PER_SECOND.sub(r"rate of \1", label)


def shown(label: str, value: Any) -> tuple[str, str]:
    """A (label, value) pair as a table shows it: the value in the unit that reads, the label
    without that unit (:func:`labelled`, :func:`unit_free`)."""
    m = _LABEL_UNIT.search(label)
    text = labelled(label, value)
    if m is not None and m.group(1) and not _missing(value):  # "(events/s, …)": "2,500 events/s"
        text = rate(value, m.group(1))
    return unit_free(label), text


def labelled(label: str, value: Any) -> str:
    """A figure formatted by what its label says it is: a rate ("per second"), a size stated in
    TB/GB/GiB (shown in the unit that reads: a sample's few kB as kB, not 0.00000581 TB),
    dollars ("USD"), a node's CPU or a share (%), else a number with at most three decimals."""
    if "per second" in label or "/s" in label:
        return rate(value)
    for unit, f in (("(TB", 1e12), ("(GB", 1e9), ("(GiB", 2**30)):
        if unit in label:
            return nbytes(float(value) * f) if not _missing(value) else ABSENT
    if "USD" in label:
        return money(value)
    if "node CPU at" in label or "share" in label:
        return percent(value)
    if label.startswith(("nodes ", "clusters")):  # a node count is whole: 3, not 3.00
        return count(value)
    return number(value)


# what a header says that its values now say: "node_cpu_usage_percent" over "37.5%"
_UNIT_IN_VALUES = {
    "percent_points": re.compile(r"[_ ]percent$"),
    "nbytes": re.compile(r" \(b\)$|_b$", re.IGNORECASE),
    # "latest_quote: node ms" over "0.056 ms": the header says what is timed, the value its unit
    "milliseconds": re.compile(r"[ _-]ms$"),
    "duration": re.compile(r"[ _]s$|[ _]seconds$"),  # "write_node_s" over "4.29 s"
}


def header(column: Any, f: Callable[[Any], str] | None = None) -> str:
    """A column's header as shown: spaced ("bytes_per_event" → "bytes per event", so it wraps)
    and without the unit its formatter ``f`` writes into every value ("node_cpu_usage_percent"
    → "node cpu usage": a unit lives in the label or in the values, never both)."""
    c = str(column)
    unit = _UNIT_IN_VALUES.get(getattr(f, "__name__", ""))
    if unit is not None:
        c = unit.sub("", c)
        # "node_ms" → "node time", "measured_ms" → "measured time": not a bare "node"/"measured"
        c = c + " time" if c.endswith(("node", "measured")) else c
    return c.replace("_", " ")


def _numbers_only(f: Callable[[Any], str]) -> Callable[[Any], str]:
    """``f`` for a column's numbers; its words ("", "not built: …") as they are."""
    return lambda x: x if isinstance(x, str) else f(x)


def styled(frame: pd.DataFrame, *, caption: str = "") -> Any:
    """``frame`` as a pandas Styler: each column formatted for reading, absent values as "—" with
    a legend saying why (not measured, or not applicable)."""
    fmts: dict[Any, Callable[[Any], str]] = {}
    frame = frame.infer_objects()  # a transposed table of figures holds numbers as objects
    for col in frame.columns:
        f = formatter_for(col)
        if f is None and pd.api.types.is_datetime64_any_dtype(frame[col].dtype):
            f = timestamp
        elif f is None and pd.api.types.is_integer_dtype(frame[col].dtype):
            f = count
        elif f is None and pd.api.types.is_float_dtype(frame[col].dtype):
            whole = frame[col].dropna()
            f = count if len(whole) and bool((whole == whole.round()).all()) else number
        if f is not None:
            fmts[col] = f
    notes = [caption] if caption else []
    if frame.isna().to_numpy().any():
        measured = [
            c for c in frame.columns if "measured" in str(c).lower() and frame[c].isna().any()
        ]
        notes.append(MEASURED_LEGEND if measured else ABSENT_LEGEND)
    st = frame.style.format({c: _numbers_only(f) for c, f in fmts.items()}, na_rep=ABSENT)
    # wide tables fit the page: headers are spaced so they wrap ("bytes_per_event" ran past a
    # 1280-px page), and what still does not fit scrolls inside the table's own box
    st = st.format_index(lambda c: header(c, fmts.get(c)), axis=1)
    st = st.set_table_styles(
        [{"selector": "th", "props": "white-space: normal; vertical-align: bottom"}],
        overwrite=False,
    )
    st = st.set_table_attributes('style="display: block; max-width: 100%; overflow-x: auto"')
    figures = [c for c, f in fmts.items() if f is not timestamp]
    if figures:
        # a figure and its unit stay on one line: 04's query table at 1440 px showed "0.625" over
        # "ms" (the headers above wrap instead); a time may still wrap before "UTC" (04's hot
        # tablets, two times a row, fit 1280 px only so)
        st = st.set_properties(subset=figures, **{"white-space": "nowrap"})
    if notes:
        st = st.set_caption(" · ".join(notes))
    return st


def styled_rows(frame: pd.DataFrame, *, caption: str = "") -> Any:
    """``frame`` as :func:`styled` does it, for a table whose *rows* are the quantities (a read's
    "rows returned", "bytes returned", "scans" down the side, measured and modelled across):
    each row formatted by its label, so bytes read 164.8 kB and counts 3,533."""
    st = frame.style.format(na_rep=ABSENT)
    for label in frame.index:
        row = frame.loc[[label]]
        f = formatter_for(label)
        if f is None:
            numbers = pd.to_numeric(row.stack(), errors="coerce").dropna()
            f = count if len(numbers) and bool((numbers == numbers.round()).all()) else number
        st = st.format(_numbers_only(f), subset=pd.IndexSlice[[label], :], na_rep=ABSENT)
    st = st.format_index(header, axis=1)
    return st.set_caption(caption) if caption else st


def as_written(frame: pd.DataFrame) -> Any:
    """``frame`` as data, not figures: cells, keys, qualifiers and timestamps exactly as they are
    stored (``timestamp_us`` 1425208700000000, a qualifier "100893.7"), floats never in
    scientific notation; marked :data:`EVENTS_CLASS` like a dataset's preview."""
    st = frame.style.format(lambda x: value(x) if isinstance(x, float) else x, na_rep=ABSENT)
    return st.set_table_attributes(f'class="{EVENTS_CLASS}"')


__all__ = [
    "count",
    "counted",
    "number",
    "amount",
    "rate",
    "value",
    "EVENTS_CLASS",
    "nbytes",
    "percent",
    "percent_points",
    "timestamp",
    "ratio",
    "milliseconds",
    "duration",
    "money",
    "formatter_for",
    "labelled",
    "header",
    "unit_free",
    "shown",
    "styled",
    "styled_rows",
    "as_written",
    "MEASURED_LEGEND",
]
