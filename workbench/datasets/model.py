"""Dataset and QueryIntent: the tidy events plus what a schema designer needs to know.

A Dataset is a pandas DataFrame of events (one row per event) and metadata:
which columns identify a series (entities), which is the time (UTC, tz-aware),
which are the measures (with units) and which other columns ride along
(attributes). Its typical queries are *intents* ("latest reading for sensor X"),
which each schema compiles to its own read plan.
"""

from __future__ import annotations

import difflib
import html
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd

from ..errors import DatasetError
from ..formatting import EVENTS_CLASS, value
from .file_aggregates import FileAggregates

LIMIT_MAX = 2**31 - 1
"""The largest ``limit`` a query may state: a newest-N read sends it as
``RowFilter.cells_per_column_limit_filter``, an ``int32`` in Bigtable's ReadRows API
(google/bigtable/v2/data.proto); the client refuses a larger one with a bare "Value out of
range"."""

QueryKind = Literal["range", "latest", "slice", "point", "scan"]
"""
* ``range``  – events of one entity (or an entity prefix) between ``start`` and ``end``.
* ``latest`` – the newest ``limit`` events of one entity.
* ``slice``  – every entity between ``start`` and ``end`` (e.g. "all pairs at one minute").
* ``point``  – one entity at one exact ``start`` time.
* ``scan``   – everything (a whole-table export); every design pays a full scan.
"""


@dataclass(frozen=True)
class QueryIntent:
    """A query the dataset's users run, independent of any schema.

    ``entity`` fixes some entity columns (in the dataset's entity order, a prefix
    or any subset); ``start``/``end`` bound the time (end exclusive; a time without a zone,
    such as ``"2015-03-01"``, is read as UTC, the zone every dataset's times are kept in;
    a bare number is refused); ``measures``
    names the measures the answer needs (None: all). ``aggregate`` names a
    post-processing step that the workbench applies after the read (e.g.
    ``"moving_average:5D,10D,30D"``, ``"count_where:win"``), and ``weight`` is the
    query's relative frequency in the workload (used by the read heat map and cost model).
    """

    name: str
    kind: QueryKind
    description: str
    entity: Mapping[str, Any] = field(default_factory=dict)
    start: pd.Timestamp | None = None
    end: pd.Timestamp | None = None
    limit: int | None = None
    measures: tuple[str, ...] | None = None
    aggregate: str | None = None
    weight: float = 1.0
    text: str | None = None
    """The line this intent was read from (``wb.from_csv(..., queries=["latest 1 per sensor"])``)."""

    def __post_init__(self) -> None:
        kinds = get_args(QueryKind)
        if self.kind not in kinds:
            raise DatasetError(
                f"Query {self.name!r}: kind {self.kind!r} is not one of {', '.join(kinds)}."
            )
        if self.limit is not None and (
            isinstance(self.limit, bool) or not isinstance(self.limit, int) or self.limit < 1
        ):
            raise DatasetError(
                f"Query {self.name!r}: limit must be a whole number >= 1 (or None), "
                f"got {self.limit!r}."
            )
        if self.limit is not None and self.limit > LIMIT_MAX:
            raise DatasetError(
                f"Query {self.text or self.name!r}: a limit of {self.limit:,} is over "
                f"{LIMIT_MAX:,} (2^31 - 1), the most a Bigtable read takes: the newest-N filter "
                "(RowFilter.cells_per_column_limit_filter) is a 32-bit integer. Write a smaller "
                "N, or read the whole series (e.g. 'sensor=S1 over 30 days') for every event."
            )
        if not isinstance(self.entity, Mapping):
            raise DatasetError(
                f"Query {self.name!r}: entity must map columns to values, e.g. "
                f"{{'sensor': 'a'}}, got {self.entity!r}."
            )
        object.__setattr__(self, "entity", dict(self.entity))
        for attr in ("start", "end"):
            v = getattr(self, attr)
            if isinstance(v, (int, float, np.integer, np.floating)):
                # pandas reads a bare number as nanoseconds since 1970: a silent wrong range.
                raise DatasetError(
                    f"Query {self.name!r}: {attr}={v!r} is a number, not a time. Give a time: "
                    f"{attr}='2015-03-01' or pd.Timestamp('2015-03-01', tz='UTC') "
                    f"(seconds since 1970: pd.Timestamp({v!r}, unit='s', tz='UTC'))."
                )
            if v is not None:
                try:
                    ts = pd.Timestamp(v)
                except (ValueError, TypeError) as exc:
                    raise DatasetError(
                        f"Query {self.name!r}: {attr}={v!r} is not a time ({exc})."
                    ) from None
                ts = ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")
                object.__setattr__(self, attr, ts)
        if self.measures is not None:
            object.__setattr__(self, "measures", tuple(self.measures))

    def __hash__(self) -> int:  # entity is a dict
        return hash((self.name, self.kind))

    def matches(self, events: pd.DataFrame, time_column: str) -> pd.Series:
        """Which events answer this intent (before ``limit``/``aggregate``): the ground truth."""
        mask = pd.Series(True, index=events.index)
        for col, val in self.entity.items():
            mask &= events[col] == val
        t = events[time_column]
        if self.start is not None:
            mask &= (t >= self.start) if self.kind != "point" else (t == self.start)
        if self.end is not None and self.kind != "point":
            mask &= t < self.end
        return mask

    def answer(self, events: pd.DataFrame, time_column: str) -> pd.DataFrame:
        """The events this intent returns (limit applied: newest first for ``latest``)."""
        hit = events[self.matches(events, time_column)]
        if self.kind == "latest":
            hit = hit.sort_values(time_column, ascending=False, kind="stable").head(self.limit or 1)
        return hit

    def describe(self) -> str:
        parts = [f"{k}={v}" for k, v in self.entity.items()]
        if self.start is not None:
            parts.append(f"from {self.start:%Y-%m-%d %H:%M:%S}")
        if self.end is not None:
            parts.append(f"to {self.end:%Y-%m-%d %H:%M:%S}")
        if self.limit:
            parts.append(f"limit {self.limit}")
        return f"{self.name} [{self.kind}] " + ", ".join(parts)


def warn_outside(
    ds: Dataset,
    line: str,
    start: pd.Timestamp | None,
    end: pd.Timestamp | None,
    stacklevel: int = 3,
) -> None:
    """A window that misses every event reads 0 rows: say so, naming the data's span."""
    if not len(ds.frame) or (start is None and end is None):
        return
    lo, hi = ds.time_span
    if not ((end is not None and end <= lo) or (start is not None and start > hi)):
        return
    window = f"{start} to {end}" if start is not None else f"up to {end}"
    warnings.warn(
        f"Query {line!r}: {window} lies outside the data, which spans {lo} to {hi}; it will "
        "return 0 events. Give a time within that span (or 'over 1 day', which ends at the "
        "last event).",
        UserWarning,
        stacklevel=stacklevel,
    )


def warn_intent_outside(q: QueryIntent, ds: Dataset) -> None:
    """:func:`warn_outside` for a QueryIntent given as an object (``table.run(intent)``,
    ``queries=[QueryIntent(...)]``); a point query is the instant it names."""
    if q.kind == "point":
        if q.start is not None:
            warn_outside(ds, q.text or q.name, q.start, q.start + pd.Timedelta(1, "us"), 4)
        return
    warn_outside(ds, q.text or q.name, q.start, q.end, 4)


def valueless_events(frame: pd.DataFrame, columns: list[str]) -> np.ndarray | None:
    """Events whose every value column is missing (None when there are none): with a missing
    value stored as no cell, such an event has no cell at all."""
    empty: np.ndarray | None = None
    for c in columns:  # column by column: no copy of the events, stop at a column never missing
        if c not in frame.columns:
            continue
        col = frame[c]
        if col.dtype.kind in "iub":  # NumPy integers and bools cannot be missing
            return None
        gap = col.isna().to_numpy(dtype=bool)
        empty = gap if empty is None else empty & gap
        if not empty.any():
            return None
    return empty


def require_dataset(ds: Any, where: str) -> None:
    """A clear error when ``ds`` is not a Dataset (a DataFrame is the usual mistake)."""
    if isinstance(ds, Dataset):
        return
    if isinstance(ds, pd.DataFrame):
        raise DatasetError(
            f"{where} takes a Dataset, not a DataFrame: make one with wb.from_dataframe(df, "
            "entity=..., time=..., measures=...) or wb.load_dataset(name)."
        )
    raise DatasetError(
        f"{where} takes a Dataset (wb.load_dataset(name) or wb.from_dataframe(...)), got "
        f"{type(ds).__name__}."
    )


class QueryList(list):
    """A dataset's queries; printed one readable line each, so you see what is costed."""

    def __repr__(self) -> str:
        if not self:
            return "QueryList([])  # no queries: pass queries=['latest 1 per <entity>', ...]"
        lines = [
            f"  {q.name}: {q.text or q.describe().split('] ', 1)[-1]}  [{q.kind}]" for q in self
        ]
        return f"{len(self)} queries (edit with queries=[...]):\n" + "\n".join(lines)


@dataclass
class Dataset:
    """Events plus the metadata a schema needs. ``frame`` is sorted by entity, then time."""

    name: str
    frame: pd.DataFrame
    entity: list[str]
    time: str
    measures: list[str]
    attributes: list[str] = field(default_factory=list)
    units: dict[str, str] = field(default_factory=dict)
    queries: list[QueryIntent] = field(default_factory=list)
    description: str = ""
    size: str = "custom"
    seed: int | None = None
    dropped_duplicates: int = 0
    """Events removed by ``duplicates="first"|"last"`` when the dataset was built (never silent)."""
    notes: list[str] = field(default_factory=list)
    """What validation did to the caller's data (duplicates kept/dropped, time zone assumed, columns left out)."""
    aggregates: FileAggregates | None = None
    """Set when ``frame`` is a *shape sample* of larger data (``from_parquet(shape_events=)``,
    ``from_csv(shape_events=)``): the whole data's counts (DuckDB over every event of the Parquet
    files; a CSV's in from_csv's chunked read, ``datasets/shape_sample.py``), which the production model takes for what
    the workload leaves unstated (``analysis/series.with_file_counts``)."""

    @property
    def columns(self) -> list[str]:
        return [*self.entity, self.time, *self.measures, *self.attributes]

    def __post_init__(self) -> None:
        if not isinstance(self.queries, QueryList):
            self.queries = QueryList(self.queries)

    def __len__(self) -> int:
        return len(self.frame)

    def query(self, name: str) -> QueryIntent:
        for q in self.queries:
            if q.name == name:
                return q
        names = [q.name for q in self.queries]
        close = difflib.get_close_matches(name, names, n=1) if isinstance(name, str) else []
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise DatasetError(
            f"Dataset {self.name!r} has no query {name!r}.{hint} "
            f"Its queries are: {', '.join(names) or 'none'}."
        )

    def canonical(
        self, frame: pd.DataFrame | None = None, *, valueless: bool = False
    ) -> pd.DataFrame:
        """Events in a canonical order and column order, for exact comparisons (round trips).

        A missing value is stored as no cell (Bigtable is sparse), so an event whose every
        measure and attribute is missing has no cell and no row: a read-back cannot return it,
        and it is left out here unless ``valueless=True`` (a schema writing a ``missing`` text
        stores it: ``Schema.expected_events``)."""
        f = self.frame if frame is None else frame
        f = f[self.columns].sort_values([*self.entity, self.time], kind="stable")
        if not valueless:
            empty = valueless_events(f, [*self.measures, *self.attributes])
            if empty is not None:
                f = f[~empty]
        return f.reset_index(drop=True)

    @property
    def time_span(self) -> tuple[pd.Timestamp, pd.Timestamp]:
        t = self.frame[self.time]
        return t.min(), t.max()

    def shifted(self, to: str | pd.Timestamp = "1970-01-01") -> Dataset:
        """A copy whose events (and queries) are moved forward by whole weeks so the first
        falls on or after ``to``: Bigtable cell timestamps cannot be before 1970, so older data
        (a 1958 CO2 series) is shifted to be written. Whole weeks keep the weekday and the time
        of day, and the same shift everywhere keeps every gap, order and bucket width; the
        note records it. Nothing moves when the data already starts on or after ``to``."""
        from dataclasses import replace as _replace

        target = pd.Timestamp(to)
        if target.tzinfo is None:
            target = target.tz_localize("UTC")
        if not len(self.frame) or self.time_span[0] >= target:
            return self
        week = pd.Timedelta(days=7)
        weeks = -((self.time_span[0] - target) // week)  # ceil: the first event lands >= target
        delta = weeks * week
        frame = self.frame.copy()
        frame[self.time] = frame[self.time] + delta

        def move(q: QueryIntent) -> QueryIntent:
            return _replace(
                q,
                start=None if q.start is None else q.start + delta,
                end=None if q.end is None else q.end + delta,
            )

        return _replace(
            self,
            frame=frame,
            queries=QueryList([move(q) for q in self.queries]),
            notes=[
                *self.notes,
                f"times shifted forward by {weeks:,} weeks ({delta.days:,} days) so the first "
                f"event is on or after {target:%Y-%m-%d} (Bigtable timestamps start in 1970)",
            ],
        )

    def n_entities(self) -> int:
        return int(self.frame[self.entity].drop_duplicates().shape[0]) if self.entity else 1

    def _repr_html_(self) -> str:
        start, end = self.time_span if len(self.frame) else (None, None)
        measures = ", ".join(
            f"{m} ({self.units[m]})" if m in self.units else m for m in self.measures
        )
        rows = "".join(
            f"<tr><td><code>{html.escape(q.name)}</code></td><td>{html.escape(q.kind)}</td>"
            f"<td>{html.escape(q.description)}</td>"
            f"<td><small>{html.escape(q.describe().split('] ', 1)[-1])}"
            f"{html.escape(f'; {q.aggregate}') if q.aggregate else ''}</small></td></tr>"
            for q in self.queries
        )
        series = self.frame[self.entity].drop_duplicates() if self.entity else self.frame.iloc[:0]
        examples = ", ".join(
            "/".join(str(v) for v in row) for row in series.head(3).itertuples(index=False)
        )
        return (
            f"<div><b>Dataset {html.escape(self.name)}</b> ({html.escape(self.size)}): "
            f"{len(self.frame):,} events, {len(series):,} series"
            + (
                f" (e.g. {html.escape(examples)}{', …' if len(series) > 3 else ''})"
                if examples
                else ""
            )
            + f", {start} → {end}<br>"
            f"entity: <code>{html.escape(', '.join(self.entity))}</code>; time: <code>{html.escape(self.time)}</code>; "
            f"measures: {html.escape(measures)}"
            + (
                f"; attributes: <code>{html.escape(', '.join(self.attributes))}</code>"
                if self.attributes
                else ""
            )
            + (f"<br><i>{html.escape(self.description)}</i>" if self.description else "")
            + "".join(f"<br>⚠ {html.escape(n)}" for n in self.notes)
            + (
                f"<table><tr><th>query</th><th>kind</th><th>what</th><th>parameters</th></tr>{rows}</table>"
                if rows
                else ""
            )
            + self.frame.head(5).to_html(index=False, float_format=value, classes=EVENTS_CLASS)
            + "</div>"
        )

    def __repr__(self) -> str:
        return (
            f"<Dataset {self.name} ({self.size}): {len(self.frame):,} events, "
            f"entity={self.entity}, time={self.time!r}, measures={self.measures}>"
        )
