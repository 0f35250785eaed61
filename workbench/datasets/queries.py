"""Your queries, in a line each: readable text that becomes the QueryIntents a design is costed on.

The query is what a row key is designed around (G04), so stating it must be easy::

    "latest 1 per sensor"                      newest event of one sensor (the busiest, as example)
    "latest 10 for sensor=S1"                  newest 10 events of sensor S1
    "sensor=S1 over 1 day"                     one series over the last day of the data
    "sensor=S1 from 2024-01-01 to 2024-02-01"  one series between two times (end exclusive)
    "sensor=S1 at 2024-01-01T12:00"            one event at one exact time
    "all at 2024-01-01T12:00"                  every series at one time
    "all over 1 hour"                          every series over the last hour
    "mean temp for sensor=S1 over 30 days"     an aggregate (mean/min/max/sum/count) over a range
    "everything"                               a whole-table scan
    "daily: sensor=S1 over 1 day"              a name before a colon names the query

Durations are pandas durations ("1 day", "7 days", "1h", "30min"); "week", "month" (30 days)
and "year" (365 days) are accepted too. Relative ranges ("over …") end at the data's last event.
Every column and value is checked against the dataset: a misspelled column or a value the
data lacks is a DatasetError that names it and suggests the nearest.

Why one module: the line forms (``FORMS``), their windows and the messages for lines that fit
no form share one vocabulary; split, a new form would touch several files.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import DatasetError
from .model import QueryIntent, QueryList, warn_intent_outside, warn_outside

if TYPE_CHECKING:
    from .model import Dataset

AGGREGATES = ("mean", "min", "max", "sum", "count")

_EXAMPLES = (
    "'latest 1 per sensor', 'sensor=S1 over 1 day', 'all at 2024-01-01T12:00', "
    "'mean temp for sensor=S1 over 30 days', 'everything'"
)
_NAME = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*:\s+(.*)$")
_WORD_DURATIONS = {"week": "7D", "weeks": "7D", "month": "30D", "months": "30D"}
_WORD_DURATIONS.update({"year": "365D", "years": "365D"})


class QuerySyntaxError(DatasetError):
    """A query line the mini-language cannot read (the message shows the forms it knows)."""


def _duration(text: str, line: str) -> pd.Timedelta:
    t = text.strip()
    m = re.fullmatch(r"(\d+(?:\.\d+)?)?\s*([A-Za-z]+)", t)
    if m and m.group(2).lower() in _WORD_DURATIONS:
        n = float(m.group(1) or 1)
        return n * pd.Timedelta(_WORD_DURATIONS[m.group(2).lower()])
    try:
        d = pd.Timedelta(t if (m is None or m.group(1)) else f"1 {t}")
    except (ValueError, TypeError):
        raise QuerySyntaxError(
            f"Query {line!r}: {text!r} is not a duration; write e.g. '1 day', '7 days', '1h', "
            "'30min', '1 month'."
        ) from None
    if d <= pd.Timedelta(0):
        raise QuerySyntaxError(f"Query {line!r}: the duration {text!r} must be positive.")
    return d


_ISO_8601 = re.compile(
    r"-?\d{4,}(-\d{2}(-\d{2}([T ]\d{2}(:\d{2}(:\d{2}(\.\d+)?)?)?)?)?)?(Z|[+-]\d{2}(:?\d{2})?)?",
    re.I,
)
_TIME_OF_DAY = re.compile(r"\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:Z|[+-]\d{2}:?\d{2})?", re.I)
# what pandas can hold (ns since 1970): a time beyond is refused as a range, not a crash
_TIME_RANGE = f"{pd.Timestamp.min:%Y-%m-%d} to {pd.Timestamp.max:%Y-%m-%d}"


def _when(ts: pd.Timestamp | None) -> str:
    """A time as a person writes it: 2015-03-01 14:45 UTC (seconds only when there are)."""
    from ..formatting import timestamp

    return timestamp(ts)


def _between(start: pd.Timestamp | None, end: pd.Timestamp | None) -> str:
    """ "from … to …" in words; an end one microsecond past an event (an 'over' window, which
    keeps its last event) reads as "through" that event, not as 14:45:00.000001."""
    if end is not None and end.microsecond == 1 and end.nanosecond == 0:
        return f"from {_when(start)} through {_when(end - pd.Timedelta(1, 'us'))}"
    return f"from {_when(start)} to {_when(end)}"


def _span(ds: Dataset) -> str:
    lo, hi = ds.time_span
    return f"{lo} to {hi}"


def _time(text: str, line: str, ds: Dataset | None = None) -> pd.Timestamp:
    if _TIME_OF_DAY.fullmatch(text.strip()):  # pandas would put it on today's date
        span = f" The data spans {_span(ds)}." if ds is not None and len(ds.frame) else ""
        raise QuerySyntaxError(
            f"Query {line!r}: {text.strip()!r} is a time of day without a date, which would be "
            f"read as today.{span} Write the date too, e.g. '2024-01-01T{text.strip()}'."
        )
    try:
        # only ISO 8601, as the message says: pandas would read 31/12/2005 (or 01/02/2005,
        # day or month first?) by guessing
        if not _ISO_8601.fullmatch(text.strip()):
            raise ValueError(text)
        ts = pd.Timestamp(text.strip())
    except (OverflowError, pd.errors.OutOfBoundsDatetime):
        raise QuerySyntaxError(
            f"Query {line!r}: {text.strip()!r} is outside the times the workbench can hold "
            f"({_TIME_RANGE}). Give a time within the data."
        ) from None
    except (ValueError, TypeError):
        raise QuerySyntaxError(
            f"Query {line!r}: {text!r} is not a time; write ISO 8601, e.g. '2024-01-01' or "
            "'2024-01-01T12:00Z' (a time without a zone is read as UTC)."
        ) from None
    ts = ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")
    _check_holdable(ts, text.strip(), line)
    return ts


def _check_holdable(ts: pd.Timestamp, what: str, line: str) -> None:
    """pandas parses years up to 9999, but the data's nanosecond times end in 2262: a time
    beyond would overflow later, in a plan or a comparison."""
    if not pd.Timestamp.min.tz_localize("UTC") <= ts <= pd.Timestamp.max.tz_localize("UTC"):
        raise QuerySyntaxError(
            f"Query {line!r}: {what!r} is outside the times the workbench can hold "
            f"({_TIME_RANGE}). Give a time within the data."
        )


def _value(ds: Dataset, col: str, raw: str, line: str) -> Any:
    """``raw`` as a value of entity column ``col``, refused (with examples) if the data lacks it."""
    from .validate import suggestion

    if col not in ds.entity:
        raise DatasetError(
            f"Query {line!r} names {col!r}, which is not an entity column of {ds.name!r} "
            f"{ds.entity}.{suggestion(col, ds.entity)}"
        )
    raw = raw.strip().strip("'\"")
    uniques = pd.unique(ds.frame[col])
    by_text = {str(v): v for v in uniques}
    if raw in by_text:
        return by_text[raw]
    # "Zürich" typed as one code point (NFC) or as u + combining diaeresis (NFD, as macOS file
    # names and some keyboards give it) is the same name: match in one normal form
    nfc = unicodedata.normalize("NFC", raw)
    same = [v for t, v in by_text.items() if unicodedata.normalize("NFC", t) == nfc]
    if len(same) == 1:
        return same[0]
    if len(same) > 1:
        raise DatasetError(
            f"Query {line!r}: {col}={raw!r} matches {len(same)} values of the data that differ "
            f"only in Unicode normalisation ({', '.join(ascii(str(v)) for v in same[:3])}): the "
            "data holds the same name in more than one byte form, so each is a series of its "
            f"own. Normalise the column first (df[{col!r}] = df[{col!r}].str.normalize('NFC'))."
        )
    from .validate import closest_name

    close = closest_name(raw, list(by_text))
    examples = ", ".join(repr(str(v)) for v in uniques[:5])
    raise DatasetError(
        f"Query {line!r}: {col}={raw!r} is not in the data (it has {len(uniques):,} values, e.g. "
        f"{examples})." + (f" Did you mean {close!r}?" if close else "")
    )


def _filters(ds: Dataset, text: str, line: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for part in re.split(r"\s*(?:,|\band\b)\s*", text.strip()):
        if not part:
            continue
        if "=" not in part:
            raise QuerySyntaxError(
                f"Query {line!r}: {part!r} should be column=value (e.g. "
                f"{ds.entity[0] if ds.entity else 'sensor'}=S1)."
            )
        col, val = (s.strip() for s in part.split("=", 1))
        value = _value(ds, col, val, line)
        if col in out and out[col] != value:
            raise QuerySyntaxError(
                f"Query {line!r} gives {col} twice ({out[col]!r} and {value!r}): a query reads one "
                f"value of each column, and the last would silently win. Write one query per "
                f"value ('{col}={out[col]}' and '{col}={value}'), or 'latest N per {col}'."
            )
        out[col] = value
    return out


def _file_busiest(ds: Dataset, cols: Sequence[str]) -> dict[str, Any] | None:
    """A shape sample's file's busiest series (``FileAggregates.series_events``), when ``cols``
    are every entity column and the sample holds it (a heavy series always is, thinned): the
    example both paths name (one number), not the sample's busiest of the series it drew."""
    agg = ds.aggregates
    if agg is None or not agg.series_events or list(cols) != list(ds.entity):
        return None
    top = dict(zip(cols, agg.series_events[0][0], strict=True))
    held = np.ones(len(ds.frame), dtype=bool)
    for c, v in top.items():
        held &= (ds.frame[c] == v).to_numpy(dtype=bool)
    return top if held.any() else None


def busiest(ds: Dataset, cols: Sequence[str]) -> dict[str, Any]:
    """The values of ``cols`` with the most events: the example a 'per' query reads (the
    file's, for a shape sample that holds it)."""
    if not cols:
        return {}
    filed = _file_busiest(ds, cols)
    if filed is not None:
        return filed
    counts = ds.frame.groupby(list(cols), sort=True, observed=True).size()
    top = counts.idxmax()
    top = top if isinstance(top, tuple) else (top,)
    return dict(zip(cols, top, strict=True))


def _slug(text: str) -> str:
    return re.sub(r"[^0-9A-Za-z]+", "_", text).strip("_").lower()[:48] or "query"


def _window(
    ds: Dataset, rest: str, line: str
) -> tuple[str, pd.Timestamp | None, pd.Timestamp | None]:
    """('range'|'point', start, end) from 'over D' / 'from T to T' / 'at T' / ''."""
    rest = rest.strip()
    if not rest:
        return "range", None, None
    m = re.fullmatch(r"over\s+(?:the\s+last\s+)?(.+)", rest)
    if m:
        # the last D of the data, both ends in: [last − D, last]. A start one microsecond after
        # last − D read as 13:45:00.000001 and left out the readings at 13:45 that a key of
        # second or minute precision still returns (rows returned 25 beside 20 events)
        last = ds.time_span[1]
        end = last + pd.Timedelta(1, "us")
        span = _duration(m.group(1), line)
        try:
            start = last - span
            if start < pd.Timestamp.min.tz_localize("UTC"):
                raise OverflowError
            return "range", start, end
        except (OverflowError, pd.errors.OutOfBoundsDatetime):
            raise QuerySyntaxError(
                f"Query {line!r}: {m.group(1)!r} reaches before {pd.Timestamp.min:%Y-%m-%d}, the "
                f"earliest time the workbench can hold. The data spans {_span(ds)}: a shorter "
                "duration covers it."
            ) from None
    m = re.fullmatch(r"from\s+(.+?)\s+to\s+(.+)", rest)
    if m:
        start, end = _time(m.group(1), line, ds), _time(m.group(2), line, ds)
        if end <= start:
            raise QuerySyntaxError(f"Query {line!r}: 'to' {end} is not after 'from' {start}.")
        _warn_outside(ds, line, start, end)
        return "range", start, end
    m = re.fullmatch(r"at\s+(.+)", rest)
    if m:
        at = _time(m.group(1), line, ds)
        _warn_outside(ds, line, at, at + pd.Timedelta(1, "us"))
        return "point", at, None
    raise QuerySyntaxError(
        f"Query {line!r}: cannot read {rest!r}; after the entity write 'over 1 day', "
        "'from 2024-01-01 to 2024-02-01' or 'at 2024-01-01T12:00'."
    )


def _warn_outside(
    ds: Dataset, line: str, start: pd.Timestamp | None, end: pd.Timestamp | None
) -> None:
    warn_outside(ds, line, start, end, stacklevel=5)


_WINDOW_WORDS = ("over", "from", "at")


def _misspelled_window(line: str) -> tuple[str, str] | None:
    """``(typo, keyword)`` when a word of ``line`` is a near miss of 'over'/'from'/'at' followed
    by a duration or a time ('ovr 1 day', 'form 2024-01-01'), else None."""
    words = line.split()
    for i, word in enumerate(words[1:-1], start=1):
        low = word.lower()
        if low in (*_WINDOW_WORDS, "to", "for", "per", "and", "all"):
            continue
        close = difflib.get_close_matches(low, _WINDOW_WORDS, n=1, cutoff=0.6)
        following = " ".join(words[i + 1 :])
        if close and (following[:1].isdigit() or following.split()[0].lower() in _WORD_DURATIONS):
            return word, close[0]
    return None


def parse_query(text: str | QueryIntent, ds: Dataset) -> QueryIntent:
    """One line of the mini-language (see the module docstring) as a QueryIntent for ``ds``.

    A line that fails because a window word is misspelled ('pair=USD/JPY ovr 1 day' read as the
    value 'USD/JPY ovr 1 day') is blamed on the word, not on the value it swallowed."""
    try:
        return _parse_query(text, ds)
    except DatasetError as exc:
        if not isinstance(text, str) or (typo := _misspelled_window(text)) is None:
            raise
        raise QuerySyntaxError(
            f"Query {text.strip()!r}: {typo[0]!r} is not a word the query language knows; did you "
            f"mean {typo[1]!r}? (A window is written 'over 1 day', 'from T to T' or 'at T'.)"
        ) from exc


def _scan(m: re.Match[str], ds: Dataset, line: str) -> dict[str, Any]:
    return {"kind": "scan", "description": "Every event (a whole-table scan)."}


def _latest(m: re.Match[str], ds: Dataset, line: str) -> dict[str, Any]:
    n, how, what = int(m.group(1)), m.group(2).lower(), m.group(3)
    if how == "per":
        cols = [c.strip() for c in re.split(r"\s*,\s*|\s+and\s+", what) if c.strip()]
        for c in cols:
            _value_col_check(ds, c, line)
        ent = busiest(ds, cols)
        ex = ", ".join(f"{k}={v}" for k, v in ent.items())
        desc = f"The newest {n} event(s) of one {'/'.join(cols)} (costed on {ex}, the busiest)"
    else:
        window = re.search(r"\s+(?:over|from|at)\s", what)
        if window:
            raise QuerySyntaxError(
                f"Query {line!r}: 'latest N' takes no time window ({what[window.start() :].strip()!r}): "
                f"write 'latest {n} for {what[: window.start()].strip()}' for the newest "
                f"events, or '{what.strip()}' for every event in that window."
            )
        ent = _filters(ds, what, line)
        desc = f"The newest {n} event(s) of " + ", ".join(f"{k}={v}" for k, v in ent.items())
    return {"kind": "latest", "entity": ent, "limit": n, "description": desc + "."}


def _latest_without_count(m: re.Match[str], ds: Dataset, line: str) -> dict[str, Any]:
    raise QuerySyntaxError(
        f"Query {line!r}: write 'latest N per COLUMN' (e.g. 'latest 1 per "
        f"{ds.entity[0] if ds.entity else 'sensor'}') or 'latest N for COLUMN=VALUE'."
    )


def _slice(m: re.Match[str], ds: Dataset, line: str) -> dict[str, Any]:
    kind, start, end = _window(ds, m.group(1), line)
    if kind == "point":  # one instant: a slice one microsecond wide
        end = start + pd.Timedelta(1, "us")
        desc = f"Every series at {_when(start)}."
    else:
        desc = f"Every series {_between(start, end)}."
    return {"kind": "slice", "start": start, "end": end, "description": desc}


def _aggregate(m: re.Match[str], ds: Dataset, line: str) -> dict[str, Any]:
    agg, measure = m.group(1).lower(), m.group(2)
    if measure not in ds.measures:
        from .validate import suggestion

        raise DatasetError(
            f"Query {line!r}: {measure!r} is not a measure of {ds.name!r} {ds.measures}."
            f"{suggestion(measure, ds.measures)}"
        )
    ent = _filters(ds, m.group(3), line)
    kind, start, end = _window(ds, m.group(4) or "", line)
    if kind == "point":
        raise QuerySyntaxError(
            f"Query {line!r}: an aggregate needs a range ('over …' or 'from … to …')."
        )
    return {
        "kind": "range",
        "entity": ent,
        "start": start,
        "end": end,
        "measures": (measure,),
        "aggregate": f"{agg}:{measure}",
        "description": f"The {agg} of {measure} for "
        + ", ".join(f"{k}={v}" for k, v in ent.items())
        + (f" {_between(start, end)}." if start is not None else "."),
    }


def _series(m: re.Match[str], ds: Dataset, line: str) -> dict[str, Any]:
    ent = _filters(ds, m.group(1), line)
    kind, start, end = _window(ds, m.group(2) or "", line)
    who = ", ".join(f"{k}={v}" for k, v in ent.items())
    desc = (
        f"{who} at {_when(start)}."
        if kind == "point"
        else f"{who} {_between(start, end)}."
        if start is not None
        else f"Every event of {who}."
    )
    return {"kind": kind, "entity": ent, "start": start, "end": end, "description": desc}


#: The mini-language's forms, tried in order: the first whose pattern matches the whole line
#: (without its ``name:``) builds the intent's fields. A new form is one row here and one function.
FORMS: tuple[
    tuple[re.Pattern[str], Callable[[re.Match[str], Dataset, str], dict[str, Any]]], ...
] = (
    (re.compile(r"everything|scan|all events", re.I), _scan),
    (re.compile(r"latest\s+(\d+)\s+(per|for)\s+(.+)", re.I), _latest),
    (re.compile(r"latest\s*(.*)", re.I), _latest_without_count),
    # a bare window ("from 2024-01-01 to 2024-02-01") reads every series, as "all …"
    (re.compile(r"(?:all(?:\s+\w+)?\s+)?((?:at|over|from)\s+.+)", re.I), _slice),
    (
        re.compile(
            rf"({'|'.join(AGGREGATES)})\s+(\S+)\s+for\s+(.+?)(\s+(?:over|from|at)\s.+)?", re.I
        ),
        _aggregate,
    ),
    (re.compile(r"(.+?=.+?)(\s+(?:over|from|at)\s.+)?", re.I), _series),
)


def _parse_query(text: str | QueryIntent, ds: Dataset) -> QueryIntent:
    if isinstance(text, QueryIntent):
        return text
    if not isinstance(text, str) or not text.strip():
        raise QuerySyntaxError(f"A query is a line of text such as {_EXAMPLES}; got {text!r}.")
    line = text.strip()
    name = None
    m = _NAME.match(line)
    if m:
        name, body = m.group(1), m.group(2).strip()
    else:
        body = line
    for pattern, build in FORMS:
        if match := pattern.fullmatch(body):
            return QueryIntent(name=name or _slug(body), text=line, **build(match, ds, line))
    raise QuerySyntaxError(
        f"Query {line!r} is not a form the workbench reads; write e.g. {_EXAMPLES}."
    )


def _value_col_check(ds: Dataset, col: str, line: str) -> None:
    from .validate import suggestion

    if col not in ds.entity:
        raise DatasetError(
            f"Query {line!r} names {col!r}, which is not an entity column of {ds.name!r} "
            f"{ds.entity}.{suggestion(col, ds.entity)}"
        )


def parse_queries(items: Sequence[str | QueryIntent], ds: Dataset) -> list[QueryIntent]:
    """Each line (or ready QueryIntent) for ``ds``; names made unique by a suffix."""
    if isinstance(items, str | QueryIntent):
        items = [items]
    out: list[QueryIntent] = []
    seen: set[str] = set()
    for item in items:
        q = parse_query(item, ds)
        if isinstance(item, QueryIntent):  # a line's window was checked as it was read
            warn_intent_outside(q, ds)
        if q.name in seen and isinstance(item, str) and not _NAME.match(item):
            i = 2
            while f"{q.name}_{i}" in seen:
                i += 1
            from dataclasses import replace

            q = replace(q, name=f"{q.name}_{i}")
        seen.add(q.name)
        out.append(q)
    return out


_NICE = [
    ("1 minute", pd.Timedelta("1min")),
    ("1 hour", pd.Timedelta("1h")),
    ("1 day", pd.Timedelta("1D")),
    ("7 days", pd.Timedelta("7D")),
    ("30 days", pd.Timedelta("30D")),
    ("365 days", pd.Timedelta("365D")),
]


def _nice(target: pd.Timedelta) -> str:
    """The largest round duration not above ``target`` (the smallest if none is)."""
    best = _NICE[0][0]
    for label, d in _NICE:
        if d <= target:
            best = label
    return best


def default_query_lines(ds: Dataset) -> list[str]:
    """A sensible default workload for ``ds``, as editable lines: latest, a range of one series,
    an aggregate over it, and (with several series) every series over one step of the data."""
    if not len(ds.frame):
        return []
    lines = []
    ent = _writable_busiest(ds)
    who = ", ".join(f"{k}={v}" for k, v in ent.items())
    if ds.entity:
        lines.append(f"latest 1 per {', '.join(ds.entity)}")
    # the whole file's shape when the read counted it (a sample of its series keeps the file's
    # span and series count): the queries do not change with the share drawn
    agg = ds.aggregates
    start, end = ds.time_span
    if agg is not None and agg.first is not None and agg.last is not None:
        start, end = agg.first, agg.last
    span = end - start
    rng = _nice(span / 10) if span > pd.Timedelta(0) else "1 day"
    if ds.entity:
        # a series whose values a line cannot carry (commas, newlines, "over") is not named;
        # nor a measure whose name has spaces ("temp (°C)"): no default query the user never
        # wrote may fail to parse
        if ent:
            lines.append(f"{who} over {rng}")
            measure = next((m for m in ds.measures if re.fullmatch(r"\S+", m)), None)
            if measure is not None:
                lines.append(f"mean {measure} for {who} over {rng}")
    else:
        lines.append(f"everything over {rng}")
    series = agg.series if agg is not None and agg.series else ds.n_entities()
    if ds.entity and series > 1:
        t = np.sort(ds.frame[ds.time].unique())
        step = pd.Timedelta(np.median(np.diff(t))) if len(t) > 1 else pd.Timedelta("1h")
        lines.append(f"all over {_nice(max(step, pd.Timedelta('1min')))}")
    return lines


_AWKWARD = re.compile(r"[,=\n\r'\"]|^\s|\s$|\s(?:and|over|from|to|at|per|for)(?:\s|$)", re.I)


def _writable_busiest(ds: Dataset) -> dict[str, Any]:
    """The busiest series whose entity values a query line carries as they are (text without
    separators or keywords); {} when there is none."""
    if not ds.entity:
        return {}
    frame = ds.frame
    ok: np.ndarray | None = None
    for col in ds.entity:  # judged once per distinct value: 10M events, a few thousand series
        bad = [v for v in pd.unique(frame[col]) if not str(v) or _AWKWARD.search(str(v))]
        if bad:
            keep = ~frame[col].isin(bad).to_numpy(dtype=bool)
            ok = keep if ok is None else ok & keep
    if ok is None:
        return busiest(ds, ds.entity)
    if not ok.any():
        return {}
    filed = _file_busiest(ds, ds.entity)
    if filed is not None and not any(_AWKWARD.search(str(v)) or not str(v) for v in filed.values()):
        return filed
    cols = list(ds.entity)
    counts = frame.loc[ok, cols].groupby(cols, sort=True, observed=True).size()
    top = counts.idxmax()
    return dict(zip(ds.entity, top if isinstance(top, tuple) else (top,), strict=True))


def default_queries(ds: Dataset) -> list[QueryIntent]:
    return parse_queries(_fix_single(default_query_lines(ds)), ds)


def _fix_single(lines: list[str]) -> list[str]:
    # one series has no entity to name: its range is a slice over the whole (one-series) table
    return [ln.replace("everything over", "all over") for ln in lines]


def with_queries(ds: Dataset, queries: Any) -> Dataset:
    """A copy of ``ds`` costed on ``queries`` (lines such as ``"latest 1 per sensor"`` or
    QueryIntents) instead of its own; the events are shared, not copied."""
    from dataclasses import replace

    from .validate import check_queries

    qs = check_queries(parse_queries(queries, ds), list(ds.entity), list(ds.measures))
    return replace(ds, queries=QueryList(qs))


__all__ = [
    "with_queries",
    "parse_query",
    "parse_queries",
    "default_queries",
    "default_query_lines",
    "AGGREGATES",
]
