"""The dataset's columns and dtypes as the schema engine sees them (what ``from_cells`` rebuilds)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset


# series (distinct entity tuples) kept for planning; above this the planner works per column
SERIES_MAX = 10_000


@dataclass(frozen=True)
class Shape:
    """The dataset's columns and dtypes: what ``from_cells`` must rebuild exactly."""

    entity: tuple[str, ...]
    time: str
    measures: tuple[str, ...]
    attributes: tuple[str, ...] = ()
    dtypes: tuple[tuple[str, str], ...] = ()
    # entity columns whose distinct values form a small, known set (currency pairs, sites): the
    # planner may read one row range per value instead of scanning (``plan.ENUMERATE_VALUES_MAX``)
    values: tuple[tuple[str, tuple[object, ...]], ...] = field(default=(), compare=False)
    # the distinct entity tuples (one per series), when there are at most ``SERIES_MAX``: which
    # values go together (the hosts of one site), so a query's fixed fields narrow the values
    # the planner lists and tell when the key's fields determine the rest
    series: tuple[tuple[object, ...], ...] | None = field(default=None, compare=False)
    # events and their time span (µs, first and last): the planner's cost estimates, and "now"
    # for a latest read (the newest time bucket is the one holding the dataset's last event)
    events: int = field(default=0, compare=False)
    span_us: tuple[int, int] | None = field(default=None, compare=False)
    # entity counts expected in production (``Workload(entities={"meter_id": 10_000})``):
    # a known-value read lists that many ranges, or scans when they are too many
    production: tuple[tuple[str, int], ...] = field(default=(), compare=False)
    # production's events per series per second over the sample's, and how long production
    # keeps events (µs; None: the sample's span): a plan that bounds no time reads retention's
    # worth of every series it passes, one that bounds its window reads the window
    rate_factor: float = field(default=1.0, compare=False)
    retention_us: int | None = field(default=None, compare=False)
    # the sample's series and each entity column's distinct values, however many: a read's
    # share of the series when ``series`` is not kept (uniform and independent columns)
    n_series: int = field(default=0, compare=False)
    value_counts: tuple[tuple[str, int], ...] = field(default=(), compare=False)
    # the busiest series' own events (entity tuple, events; at most SERIES_COUNTED) out of
    # ``counted`` (events, series): the whole file's when a shape sample carries its counts
    # (``Dataset.aggregates``), else the sample's; a query naming a series reads its own events
    series_events: tuple[tuple[tuple[object, ...], int], ...] = field(default=(), compare=False)
    counted: tuple[int, int] = field(default=(0, 0), compare=False)
    # a shape sample's file: each entity column's distinct values there (empty: the sample is
    # the data), so production's series are the file's, grown by the stated counts over these
    counted_by_column: tuple[tuple[str, int], ...] = field(default=(), compare=False)
    # production's spread is the sample's own skew (the default while production has the data's
    # series): a named series writes its own share; False (uniform, Zipf, hot set): the mean's
    own_skew: bool = field(default=True, compare=False)

    @classmethod
    def of(cls, ds: Dataset) -> Shape:
        from ..datasets.file_aggregates import busiest_series
        from .plan import ENUMERATE_VALUES_MAX

        f = ds.frame
        ents = [c for c in ds.entity if c in f.columns]
        series = None
        n_series = 1 if len(f) else 0  # no entity column: the events are one series
        top: tuple[tuple[tuple[object, ...], int], ...] = ()
        if ents and len(f):  # the series and their events, hashed once (first seen first)
            sizes = f.groupby(ents, sort=False, observed=True, dropna=False).size()
            n_series = len(sizes)
            if n_series <= SERIES_MAX:
                series = tuple(k if isinstance(k, tuple) else (k,) for k in sizes.index.tolist())
            top = busiest_series(sizes)
        elif len(f):
            series = ((),)
        counted = (len(f), n_series)
        by_file: tuple[tuple[str, int], ...] = ()
        agg = ds.aggregates
        if agg is not None and agg.series_events:  # a shape sample: the file's own counts
            top, counted = agg.series_events, (agg.events, agg.series)
            by_file = tuple((c, int(agg.by_column[c])) for c in ds.entity if c in agg.by_column)
        cols = [*ds.entity, ds.time, *ds.measures, *ds.attributes]
        values = []
        counts = []
        for c in ds.entity:
            if c not in f.columns:
                continue
            u = pd.unique(f[c].to_numpy())
            counts.append((c, len(u)))
            if 0 < len(u) <= ENUMERATE_VALUES_MAX:
                values.append((c, tuple(u.tolist())))
        span = None
        if len(f) and ds.time in f.columns:
            t = f[ds.time]
            span = (int(t.min().value // 1000), int(t.max().value // 1000))
        return cls(
            tuple(ds.entity),
            ds.time,
            tuple(ds.measures),
            tuple(ds.attributes),
            tuple((c, str(f[c].dtype)) for c in cols if c in f.columns),
            tuple(values),
            series,
            len(f),
            span,
            n_series=n_series,
            value_counts=tuple(counts),
            series_events=top,
            counted=counted,
            counted_by_column=by_file,
        )

    @property
    def columns(self) -> list[str]:
        return [*self.entity, self.time, *self.measures, *self.attributes]

    def known_values(
        self, col: str, given: Mapping[str, object] | None = None
    ) -> tuple[object, ...] | None:
        """The column's distinct values when they form a small known set, else None; with
        ``given`` (fixed entity values), only the values that occur with them."""
        from .plan import ENUMERATE_VALUES_MAX

        fixed = {c: v for c, v in (given or {}).items() if c in self.entity and c != col}
        if self.series is None or col not in self.entity or not fixed:
            return dict(self.values).get(col)
        i = self.entity.index(col)
        vals = tuple(dict.fromkeys(s[i] for s in self._series_with(fixed)))
        return vals if 0 < len(vals) <= ENUMERATE_VALUES_MAX else None

    def _series_with(self, fixed: Mapping[str, object]) -> list[tuple[object, ...]]:
        """The series whose entity values include ``fixed`` (columns of ``entity``)."""
        idx = [(self.entity.index(c), v) for c, v in fixed.items()]
        return [s for s in self.series or () if all(s[j] == v for j, v in idx)]

    def series_share(self, fixed: Mapping[str, object]) -> float | None:
        """The share of the series whose entity values include ``fixed`` (1.0 with nothing
        fixed), or None when the series are not known."""
        fixed = {c: v for c, v in fixed.items() if c in self.entity}
        if not fixed:
            return 1.0
        if not self.series:
            counts = dict(self.value_counts)
            if not self.n_series or any(not counts.get(c) for c in fixed):
                return None
            share = 1.0
            for c in fixed:
                share /= counts[c]
            return max(share, 1.0 / self.n_series)
        return len(self._series_with(fixed)) / len(self.series)

    @cached_property
    def _events_of(self) -> dict[tuple[object, ...], int]:
        """``series_events`` by series (a frozen Shape caches it in its own ``__dict__``)."""
        return dict(self.series_events)

    @cached_property
    def _events_counted(self) -> int:
        """The events of the busiest series counted (``series_events``), summed once."""
        return sum(self._events_of.values())

    def events_skew(self, fixed: Mapping[str, object]) -> float:
        """The events of the series holding the ``fixed`` entity values over as many mean
        series' events (``series_events`` out of ``counted``): 2.0 for a series writing twice
        the mean. 1.0 when nothing is fixed, the workload's spread is not the sample's own
        (``own_skew``) or the counts do not say (a series past the counted busiest ones writes
        the mean of the rest; a partial one past them, unknown)."""
        fixed = {c: v for c, v in fixed.items() if c in self.entity}
        events, series = self.counted
        if not self.own_skew or not fixed or not self.series_events or not events or not series:
            return 1.0
        if len(fixed) == len(self.entity):  # one series: looked up, not scanned (a plan asks often)
            got = self._events_of.get(tuple(fixed[c] for c in self.entity))
            hit = [] if got is None else [got]
        else:
            idx = [(self.entity.index(c), v) for c, v in fixed.items()]
            hit = [k for s, k in self.series_events if all(s[j] == v for j, v in idx)]
        mean = events / series
        if len(self.series_events) >= series:  # every series counted
            return sum(hit) / (len(hit) * mean) if hit else 1.0
        if len(fixed) < len(self.entity):
            return 1.0
        if hit:
            return hit[0] / mean
        rest = events - self._events_counted
        return rest / (series - len(self.series_events)) / mean

    def determines(self, known: Mapping[str, object], others: Mapping[str, object]) -> bool:
        """Do the series with the ``known`` entity values all carry the ``others`` values (so a
        server that checks only ``known`` finds exactly the query's rows)?"""
        if self.series is None or any(c not in self.entity for c in (*known, *others)):
            return False
        oi = [(self.entity.index(c), v) for c, v in others.items()]
        match = self._series_with(known)
        return bool(match) and all(s[j] == v for s in match for j, v in oi)

    @property
    def span_len_us(self) -> int | None:
        """The sample's span in µs (at least one), None when unknown."""
        return None if self.span_us is None else max(self.span_us[1] - self.span_us[0] + 1, 1)

    def time_factor(self, window_us: int | None = None, counted_us: int | None = None) -> float:
        """How many times the sample's events in a read production holds for time: retention ÷
        the sample's span for a read bounding no time (``window_us`` None), else the part of
        the window production keeps (at most retention) ÷ the part the sample's estimate
        counted (``counted_us``, default the window within the span); 1 without a retention."""
        span = self.span_len_us
        if self.retention_us is None or span is None:
            return 1.0
        if window_us is None:
            return self.retention_us / span
        w = max(window_us, 1)
        counted = min(w, span) if counted_us is None else max(counted_us, 1)
        return min(w, self.retention_us) / counted

    def production_count(self, col: str) -> int | None:
        """The column's distinct values expected in production, when given."""
        return dict(self.production).get(col)

    def dtype(self, col: str) -> str | None:
        return dict(self.dtypes).get(col)

    def __deepcopy__(self, memo: dict) -> Shape:  # immutable: pandas attrs copy it on every op
        return self
