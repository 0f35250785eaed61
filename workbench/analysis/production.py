"""A design at production scale: the workload's rates and counts applied to the sample's shape.

The sample says what one event costs a design (mutations, bytes, write units), how its writes
gather into units that cannot split (one write frontier, salt buckets, a frontier per series)
and which of its rows each query reads. The workload (``datasets/workload.py``) says how busy
production is. Every production figure here is one product of the two, so it does not move
with how much of a file was loaded (the sample's series are kept whole, G06–G08, G04):

* **series**: the sample's ``S`` distinct entity tuples become ``S'``: the stated counts
  (column by column, ``entities=``), or with ``growth="grow"`` as many as the rate needs at
  the sample's own per-series rate, or (``"fixed"``, the default) the sample's own;
* **rates**: per series ``ρ' = rate / S'`` against the sample's ``ρ = events / span / S``; the
  rate factor ``r = ρ' / ρ`` is how much denser one series' events are in production;
* **writes**: CPU = peak events/s × write units per event ÷ a node's writes/s (a write costs
  one 1 KB planning row or its bytes' worth, as in the load model);
* **ceiling**: the busiest unsplittable unit's share of the writes at production — a single
  frontier keeps all of it, a salt bucket ``1/N``, a frontier per series the busiest series'
  share under the workload's spread (``1/S'`` when uniform) — at the CPU target of one node;
* **reads**: each query's rows, cells and bytes seen in the sample, split into its own answer,
  other series' rows in its time window and rows outside its window, scaled by the series
  factor, the rate factor (rows that hold one event each; bucket rows grow in cells instead)
  and, for rows outside the window, by retention ÷ the sample's span (production keeps that
  much more history); node-seconds from the read cost model; CPU at each query's rate.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..datasets.workload import Workload
from ..errors import WorkbenchError
from ..formatting import number, rate
from .settings import DEFAULT, Settings

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset, QueryIntent
    from ..schema.plan import ReadPlan
    from ._index import CellIndex
    from .ceiling import Ceiling
    from .querycost import QueryCosts

SERIES = "series"  # the name a file of one series is given counts by ("N series like this")
_BUCKET_EVENTS_PER_ROW = 1.5  # rows holding more events than this gather events (time buckets)


@dataclass(frozen=True)
class SeriesCounts:
    """Distinct series in the sample and in production, per entity column and in all."""

    sample: int
    production: float
    sample_by_column: dict[str, int]
    production_by_column: dict[str, float]
    stated: tuple[str, ...]  # the columns whose production count the user gave
    nested: bool = False  # one column (the finest) names every series: the others group it

    @property
    def factor(self) -> float:
        return self.production / max(self.sample, 1)

    def count(self, columns: Iterable[str]) -> tuple[float, float]:
        """(sample, production) distinct values of ``columns`` together. Nested columns (a
        balloon belongs to one location) count as their finest; independent ones multiply."""
        cols = [c for c in columns if c in self.sample_by_column]
        if not cols:
            return 1.0, 1.0
        if self.nested:
            fine = max(cols, key=lambda c: self.sample_by_column[c])
            return float(self.sample_by_column[fine]), float(self.production_by_column[fine])
        return (
            float(math.prod(self.sample_by_column[c] for c in cols)),
            float(math.prod(self.production_by_column[c] for c in cols)),
        )

    def split(self, fixed: Iterable[str]) -> tuple[float, float]:
        """(k_fixed, k_open) for a query that names the ``fixed`` columns: how many more values
        of them production has (other series the plan may pass), and how many more series each
        named value groups (its answer grows by that); their product is ``factor``."""
        fixed = [c for c in fixed if c in self.sample_by_column]
        s, p = self.count(fixed)
        k_fixed = p / s if fixed else 1.0
        return k_fixed, self.factor / k_fixed


def sample_span_s(ds: Dataset) -> float:
    """The sample's time span in seconds (at least one: a single instant is one second)."""
    if not len(ds):
        return 1.0
    t0, t1 = ds.time_span
    return max(float((t1 - t0).total_seconds()), 1.0)


def sample_rate_factor(ds: Dataset, wl: Workload) -> float:
    """Production's mean event rate over the sample's own (1 when no rate is stated)."""
    if wl.events_per_s is None or not len(ds):
        return 1.0
    return float(wl.events_per_s) * sample_span_s(ds) / len(ds)


def series_counts(ds: Dataset, wl: Workload, rate_factor_if_grow: float) -> SeriesCounts:
    """The sample's series and production's: stated column counts, else grown or fixed."""
    f = ds.frame
    cols = list(ds.entity)
    by_col = {c: max(int(f[c].nunique()), 1) for c in cols}
    sample = max(int(len(f[cols].drop_duplicates())), 1) if cols and len(f) else 1
    stated = dict(wl.entities or {})
    if not cols:
        unknown = sorted(set(stated) - {SERIES})
        if unknown:
            raise WorkbenchError(
                f"entities names {unknown}, but {ds.name!r} is one series (no entity column): "
                f"say how many series like it production has with entities={{'{SERIES}': N}}."
            )
        n = float(stated.get(SERIES, 1))
        if SERIES not in stated and wl.growth == "grow":
            n = max(1.0, rate_factor_if_grow)
        return SeriesCounts(1, n, {}, {SERIES: n}, tuple(stated))
    unknown = sorted(set(stated) - set(cols))
    if unknown:
        raise WorkbenchError(
            f"entities names {unknown}, which are not entity columns of {ds.name!r}; entity "
            f"columns: {cols}."
        )
    prod = {c: float(stated.get(c, by_col[c])) for c in cols}
    fine = max(cols, key=lambda c: by_col[c])
    nested = len(cols) > 1 and sample == by_col[fine]  # the finest column names every series
    if not stated and wl.growth == "grow":
        prod[fine] = by_col[fine] * max(rate_factor_if_grow, 1e-12)  # new series: new values
    if nested:
        factor = prod[fine] / by_col[fine]
    else:
        factor = math.prod(prod[c] / by_col[c] for c in cols)
    return SeriesCounts(sample, sample * factor, by_col, prod, tuple(stated), nested)


@dataclass(frozen=True)
class WriteUnits:
    """What the sample says about a design's writes, per event and per unsplittable unit."""

    events: int
    mutations: int
    write_units: float  # Σ max(bytes / planning row, 1) over the mutations
    unit_kind: str  # "write frontier", "salt bucket", "per series" or "" (nothing unsplittable)
    unit_name: str
    units: int  # in the sample
    unit_share: float  # the sample's busiest unit's share of the write units
    per_series: float  # units per leading series when units follow them (else 0)
    busiest_series_ratio: float  # the sample's busiest leading series' events over the mean
    lead_columns: tuple[str, ...] = ()  # the entity columns the key puts before any time
    lead_series: int = 0  # their distinct values (tuples) in the sample


def write_units_of(
    ceiling: Ceiling | None,
    *,
    events: int,
    mutations: int,
    write_units: float,
    salt_buckets: int | None,
    busiest_series_ratio: float,
    lead_columns: tuple[str, ...] = (),
    lead_series: int = 0,
    series: int = 0,
) -> WriteUnits:
    """Classify the sample's busiest unsplittable unit: one (or a few) per *leading series* —
    a value of the entity columns the key puts before any time, each writing its own frontier,
    which production multiplies — or a fixed unit (one frontier or row, salt buckets)."""
    base: dict[str, Any] = {
        "events": events,
        "mutations": mutations,
        "write_units": write_units,
        "busiest_series_ratio": busiest_series_ratio,
        "lead_columns": tuple(lead_columns),
        "lead_series": int(lead_series),
    }
    if ceiling is None or not ceiling.unit or not math.isfinite(ceiling.writes_per_s):
        return WriteUnits(
            unit_kind="", unit_name="", units=0, unit_share=0.0, per_series=0.0, **base
        )
    units, share = int(ceiling.units), float(ceiling.unit_share)
    if salt_buckets:
        kind, per = "salt bucket", 0.0
        units = int(salt_buckets)
    elif lead_series:  # each leading series writes its own frontier(s); the sample may chain
        # series that wrote one after the other into one frontier, production writes them at once
        kind, per = "per series", max(1.0, units / lead_series)
    elif series and units >= series:
        # a coarse time bucket first: within the current bucket every series writes its own row
        # (one unit each, one at a time), so the units are the series
        kind, per = "per series", 1.0
        base["lead_series"] = int(series)
    elif units <= 1 or share >= 0.999:
        kind, per = ("hot row" if ceiling.unit == "row" else "write frontier"), 0.0
    else:  # a few ranges the sample's writes happen to fall into: kept as they are
        kind, per = "shared range", 0.0
    return WriteUnits(
        unit_kind=kind,
        unit_name=ceiling.unit_name,
        units=units,
        unit_share=share,
        per_series=per,
        **base,
    )


@dataclass
class ProductionQueries:
    """Each query at production scale: rows, cells, bytes, ranges, node time, rate and CPU."""

    table: pd.DataFrame  # one row per query (the columns of ``COLUMNS``)
    read_cpu: float  # nodes of CPU at the peak, all queries
    busiest_row_cpu: float  # the most-read row's CPU at the peak (a row cannot split)
    busiest_row_query: str

    COLUMNS = (
        "production_per_s",
        "production_rows_seen",
        "production_rows_returned",
        "production_cells_seen",
        "production_bytes_seen",
        "production_ranges",
        "production_node_ms",
        "production_cpu",
    )


@dataclass
class Production:
    """One design at the stated workload: every production figure the views read."""

    workload: Workload
    settings: Settings
    series: SeriesCounts
    sample_events_per_s: float
    events_per_s: float  # mean
    peak_events_per_s: float
    rate_factor: float  # one series' events per second, production ÷ sample
    time_factor: float  # production's history (retention) ÷ the sample's span
    writes: WriteUnits
    queries_per_s: float  # all queries, mean
    queries_default: bool  # the query rate is the default share of the writes
    queries: ProductionQueries
    cpu_target: float
    bucketed: bool  # rows gather several events (bucket rows grow in cells, not rows)
    notes: list[str] = field(default_factory=list)

    # -- writes ------------------------------------------------------------------------------
    @property
    def mutations_per_event(self) -> float:
        w = self.writes
        return w.mutations / w.events if w.events and w.mutations else 1.0

    @property
    def units_per_event(self) -> float:
        w = self.writes
        return w.write_units / w.events if w.events and w.mutations else 1.0

    @property
    def writes_per_s(self) -> float:
        """Mutations per second at the peak."""
        return self.peak_events_per_s * self.mutations_per_event

    @property
    def write_cpu(self) -> float:
        """Nodes of CPU the writes take at the peak."""
        return self.peak_events_per_s * self.units_per_event / self.settings.node_rates()[1]

    @property
    def lead_production(self) -> float:
        """Leading series (see :class:`WriteUnits`) in production: the sample's, times each
        leading column's production ÷ sample count (all series when every column leads)."""
        w, c = self.writes, self.series
        if not w.lead_columns:
            return 0.0
        if set(w.lead_columns) >= set(c.sample_by_column) and c.sample_by_column:
            return c.production * w.lead_series / max(c.sample, 1)
        s, p = c.count(w.lead_columns)
        return w.lead_series * p / s

    @property
    def unit_share(self) -> float:
        """The busiest unsplittable unit's share of the writes in production (0: none)."""
        w = self.writes
        if not w.unit_kind:
            return 0.0
        if w.unit_kind == "salt bucket":
            # hashed buckets even out as series are added; a bucket holds at least its busiest
            # series, and a few series leave the sample's unevenness
            even = 1.0 / max(w.units, 1)
            busiest = self.workload.spread.busiest_share(
                self.series.production, w.busiest_series_ratio
            )
            if self.series.production >= 10 * w.units:
                return max(even, busiest)
            return max(w.unit_share, busiest)
        if w.unit_kind == "per series":
            busiest = self.workload.spread.busiest_share(
                self.lead_production, w.busiest_series_ratio
            )
            return busiest / max(w.per_series, 1.0)
        return w.unit_share  # one frontier, one row or a fixed set of ranges

    @property
    def units(self) -> float:
        """How many such units production has."""
        w = self.writes
        if w.unit_kind == "per series":
            return w.per_series * self.lead_production
        return float(w.units)

    @property
    def unit_fixed(self) -> bool:
        """Whether the unit count stays when the rate grows (a salt, one frontier, a fixed set
        of series): then a rate past the ceiling is served by no node count."""
        w = self.writes
        if w.unit_kind != "per series":
            return True
        return self.workload.growth == "fixed" or bool(self.series.stated)

    @property
    def busiest_unit_cpu(self) -> float:
        return self.unit_share * self.write_cpu

    @property
    def ceiling_events_per_s(self) -> float:
        """The event rate (peak) at which the busiest unit needs the CPU target of one node
        (``math.inf``: nothing unsplittable, or the units grow with the rate)."""
        share = self.unit_share
        if share <= 0:
            return math.inf
        if not self.unit_fixed:
            # more series at the same per-series rate: only one series past a node stops it
            if self.busiest_unit_cpu > self.cpu_target:
                return self.peak_events_per_s * self.cpu_target / self.busiest_unit_cpu
            return math.inf
        node = self.settings.node_rates()[1]
        return self.cpu_target * node / (share * self.units_per_event)

    @property
    def write_limited(self) -> bool:
        return self.peak_events_per_s > self.ceiling_events_per_s * (1 + 1e-9)

    # -- reads -------------------------------------------------------------------------------
    @property
    def read_cpu(self) -> float:
        return self.queries.read_cpu

    @property
    def query_ceiling_per_s(self) -> float:
        """All queries per second (mean, at the mix) at which the most-read row needs the CPU
        target of a node."""
        q = self.queries
        if q.busiest_row_cpu <= 0 or self.queries_per_s <= 0:
            return math.inf
        return self.queries_per_s * self.cpu_target / q.busiest_row_cpu

    @property
    def read_limited(self) -> bool:
        return self.queries.busiest_row_cpu > self.cpu_target * (1 + 1e-9)

    @property
    def limited(self) -> bool:
        return self.write_limited or self.read_limited

    @property
    def peak_cpu(self) -> float:
        return self.write_cpu + self.read_cpu

    def nodes_for_cpu(self, min_nodes: int = 1) -> int:
        """Nodes whose CPU stays under the target at the peak: the total spread evenly, and
        units that cannot split packed whole (each node takes ⌊target ÷ unit⌋ of them)."""
        t = self.cpu_target
        fair = max(min_nodes, math.ceil(self.peak_cpu / t - 1e-9)) if self.peak_cpu > 0 else 1
        u = self.busiest_unit_cpu
        if self.limited or u <= 0 or self.writes.unit_kind == "per series":
            return fair
        per_node = max(1, math.floor(t / u + 1e-9))
        packed = math.ceil(self.units / per_node - 1e-9)
        return max(fair, min(packed, math.ceil(self.units)))

    def busiest_node_cpu(self, nodes: int) -> float:
        """The busiest node's CPU at ``nodes``: an even share, or a unit or a row that does not
        split, whichever is more."""
        return max(
            self.peak_cpu / max(nodes, 1), self.busiest_unit_cpu, self.queries.busiest_row_cpu
        )

    def ceiling(self) -> Ceiling:
        """The design's ceiling at this workload, as the load model and its views state it
        (in mutations/s; one number with capacity's)."""
        from .ceiling import Ceiling

        w = self.writes
        unit = "" if not w.unit_kind else ("row" if w.unit_kind == "hot row" else "write frontier")
        return Ceiling(
            writes_per_s=self.ceiling_events_per_s * self.mutations_per_event,
            queries_per_s=self.query_ceiling_per_s,
            unit=unit,
            unit_name=w.unit_name,
            unit_share=self.unit_share,
            units=max(1, round(self.units)) if unit else 0,
            cpu_target=self.cpu_target,
            node_writes_per_s=self.settings.node_rates()[1],
            units_grow=not self.unit_fixed,
            read_row=self.queries.busiest_row_query,
        )

    # -- what was stated ---------------------------------------------------------------------
    def inputs(self) -> list[tuple[str, str, bool]]:
        """(input, value, the user's?) for every input the production figures used."""
        wl, st = self.workload, self.settings
        said = set(wl.stated())
        retention = wl.retention_months or st.retention_months
        rows = [
            (
                "events/s",
                rate(self.events_per_s, "events")
                if "events_per_s" in said
                else f"{rate(self.events_per_s, 'events')} (the sample's own rate)",
                "events_per_s" in said,
            ),
            ("peak", f"{wl.peak_factor:g}× the mean", "peak_factor" in said),
            ("retention", f"{retention:g} months", "retention_months" in said),
        ]
        counts = ", ".join(f"{c} {_count(n)}" for c, n in self.series.production_by_column.items())
        rows.append(
            (
                "series",
                f"{_count(self.series.production)} ({counts}; {wl.growth})",
                bool(self.series.stated) or "growth" in said,
            )
        )
        rows.append(("spread", wl.spread.text(), "spread" in said))
        qtext = rate(self.queries_per_s, "queries")
        if self.queries_default:
            qtext += f" (one per {1 / st.queries_per_write:,.0f} writes)"
        rows.append(("queries", qtext, not self.queries_default or "queries" in said))
        return rows

    def inputs_line(self) -> str:
        """One line under a figure: the workload it is at, the user's inputs apart from the
        defaults."""
        mine = [f"{k} {v}" for k, v, own in self.inputs() if own]
        default = [f"{k} {v}" for k, v, own in self.inputs() if not own]
        out = "Workload — yours: " + ("; ".join(mine) if mine else "nothing stated")
        return out + " · defaults: " + "; ".join(default)


def _count(n: float) -> str:
    """A series count as read: whole numbers with separators."""
    return f"{n:,.0f}" if n >= 10 or abs(n - round(n)) < 1e-9 else number(n)


def _window_s(q: QueryIntent) -> float | None:
    if q.start is None or q.end is None:
        return None
    return max((q.end - q.start).total_seconds(), 0.0)


@dataclass(frozen=True)
class _SeenSplit:
    """The sample's seen rows and cells of one query, by where they sit against its window."""

    rows_in: float  # rows with at least one cell in the window (every row without a window)
    rows_out: float  # rows wholly outside it: history, which production holds more of
    cells_in: float  # cells in the window
    cells_edge: float  # cells outside the window in rows that also have cells inside it
    cells_out: float  # cells of the rows wholly outside
    bytes_in: float
    bytes_edge: float
    bytes_out: float


def _seen_split(
    index: CellIndex, rows: np.ndarray, q: QueryIntent, bucket_s: float | None = 0.0
) -> _SeenSplit:
    """Split what a plan saw in the sample by the query's time window. ``bucket_s``: how long
    one row gathers events (0: an event each; None: for ever): a row whose bucket could hold
    the window is a row of that time (another series), not history."""
    if not len(rows):
        return _SeenSplit(0, 0, 0, 0, 0, 0, 0, 0)
    off = index.row_offsets()
    starts, counts = off[rows], off[rows + 1] - off[rows]
    first = np.r_[0, np.cumsum(counts)[:-1]]
    sel = np.repeat(starts - first, counts) + np.arange(int(counts.sum()))
    ts, nb = index.ts[sel], index.nbytes[sel].astype(np.float64)
    row_of = np.repeat(np.arange(len(rows)), counts)
    inside = np.ones(len(ts), dtype=bool)
    end = q.end
    if q.kind == "point" and q.start is not None and end is None:
        end = q.start + pd.Timedelta(milliseconds=1)  # the one instant it asks for
    if q.start is not None:
        inside &= ts >= q.start.value // 1000
    if end is not None:
        inside &= ts < end.value // 1000
    # a row is in the window when its time span overlaps it (a bucket row of a series that wrote
    # before and after the window, even with no cell inside it), else it is history
    lo = np.minimum.reduceat(ts, np.r_[0, np.cumsum(counts)[:-1]]) if len(ts) else ts
    hi = np.maximum.reduceat(ts, np.r_[0, np.cumsum(counts)[:-1]]) if len(ts) else ts
    row_in = np.ones(len(rows), dtype=bool)
    if bucket_s is not None:
        b_us = int(bucket_s * 1e6)
        if q.start is not None:
            row_in &= hi + b_us >= q.start.value // 1000
        if end is not None:
            row_in &= lo - b_us < end.value // 1000
    row_in[row_of[inside]] = True
    edge = ~inside & row_in[row_of]
    out = ~inside & ~row_in[row_of]
    return _SeenSplit(
        rows_in=float(row_in.sum()),
        rows_out=float((~row_in).sum()),
        cells_in=float(inside.sum()),
        cells_edge=float(edge.sum()),
        cells_out=float(out.sum()),
        bytes_in=float(nb[inside].sum()),
        bytes_edge=float(nb[edge].sum()),
        bytes_out=float(nb[out].sum()),
    )


@dataclass(frozen=True)
class Growth:
    """One series of one design in production against the sample: how much more of it there is.

    ``rate`` (r): its events per second, production ÷ sample; ``time`` (T): retention ÷ the
    sample's span; ``rows``: rows it holds over retention ÷ over the sample; ``per_row``:
    events one row holds, production ÷ sample."""

    rate: float
    time: float
    rows: float
    per_row: float
    bucketed: bool = False  # rows gather events: a window spans as many rows as before
    bucket_s: float | None = 0.0  # how long a row gathers events (None: for ever)


def growth_of(r: float, t: float, bucketed: bool, bound_s: float | None, span_s: float) -> Growth:
    """Rows of one event each multiply with the events (r·T); rows that gather a time bucket
    of ``bound_s`` multiply with time only and hold r× the events each; a row without a time
    bound is one row holding everything."""
    if not bucketed:
        return Growth(r, t, r * t, 1.0)
    if bound_s is None:
        return Growth(r, t, 1.0, r * t, True, None)
    retention_s = t * span_s
    rows = max(1.0, retention_s / bound_s) / max(1.0, span_s / bound_s)
    per_row = r * min(bound_s, retention_s) / min(bound_s, span_s)
    return Growth(r, t, rows, per_row, True, bound_s)


@dataclass(frozen=True)
class _Scales:
    """How much more production holds of each part of what a query's plan saw."""

    answer_rows: float  # the answer's rows in its window
    answer_cells: float  # … and cells
    other_rows: float  # other series' rows in the window
    other_cells: float  # … and cells
    answer_series: float  # production series per sample series in the answer (its rows' edges)
    other_series: float  # … for the other series
    history: float  # rows outside the window: the series a plan passes there


@dataclass(frozen=True)
class WindowCounts:
    """The sample's series and events in a query's window: the answer's and the others'.
    ``active``: series with a row of that time (a bucket row around the window counts)."""

    answer_active: float
    answer_events: float
    other_active: float
    other_events: float


def window_counts(ds: Dataset, q: QueryIntent, bucket_s: float | None) -> WindowCounts | None:
    """Count, in the sample, the series and events in the query's window (None: no window)."""
    if q.start is None or q.end is None or not len(ds):
        return None
    f = ds.frame
    t = f[ds.time]
    inside = ((t >= q.start) & (t < q.end)).to_numpy()
    pad = pd.Timedelta(seconds=bucket_s) if bucket_s else pd.Timedelta(0)
    near = ((t >= q.start - pad) & (t < q.end + pad)).to_numpy() if bucket_s is not None else None
    ans = np.ones(len(f), dtype=bool)
    for c in ds.entity:
        if c in q.entity:
            ans &= (f[c] == q.entity[c]).to_numpy()
    ent = list(ds.entity)

    def active(m: np.ndarray) -> float:
        return float(len(f.loc[m, ent].drop_duplicates())) if ent else float(m.any())

    around = near if near is not None else np.ones(len(f), dtype=bool)
    return WindowCounts(
        answer_active=active(ans & around),
        answer_events=float((ans & inside).sum()),
        other_active=active(~ans & around),
        other_events=float((~ans & inside).sum()),
    )


def _query_scales(
    q: QueryIntent,
    plan: ReadPlan,
    series: SeriesCounts,
    g: Growth,
    rho: tuple[float, float],
    n_answer: float,
    counts: WindowCounts | None = None,
) -> _Scales:
    """The scale factors of one query (module docstring). ``n_answer``: the sample's series
    its named values select (all, when it names none). Production has the average share of
    its series under each named value, each writing at the workload's per-series rate all
    the time; ``counts`` (the sample's series and events in the window) turn what the plan saw
    into that, whatever the sample's draw of series or their bursts."""
    _, p_fixed = series.count(q.entity)
    prod_answer = series.production / max(p_fixed, 1.0)  # series under the named values
    prod_other = series.production - prod_answer
    k_answer = prod_answer / max(n_answer, 1.0)
    others_s = max(series.sample - n_answer, 0.0)
    k_other = prod_other / others_s if others_s else 0.0
    # history outside the window: the query's own series when its plan stays in them (a
    # prefix), every series when the plan scans across them
    own = bool(q.entity) and not plan.full_scan
    k_hist = k_answer if own else series.factor
    w = _window_s(q)
    if counts is not None and w is not None and q.kind != "latest":
        per_series = rho[1] * w  # production events of one series in the window

        def scale(prod_n: float, active: float, events: float, fallback: float) -> tuple:
            if active <= 0 or events <= 0:
                return fallback, fallback, fallback
            k_series = prod_n / active
            k_events = prod_n * per_series / events
            return (k_series if g.bucketed else k_events), k_events, k_series

        a_rows, a_cells, a_series = scale(
            prod_answer, counts.answer_active, counts.answer_events, k_answer
        )
        o_rows, o_cells, o_series = scale(
            prod_other, counts.other_active, counts.other_events, k_other
        )
        return _Scales(a_rows, a_cells, o_rows, o_cells, a_series, o_series, k_hist)
    if q.kind == "latest" or w is None:
        ev = 1.0
    else:  # events one series has in the window: at least the one a point query returns
        ev = max(1.0, rho[1] * w) / max(1.0, rho[0] * w)
    ev_rows = 1.0 if g.bucketed else ev  # bucket rows: the window spans as many rows
    return _Scales(
        k_answer * ev_rows,
        k_answer * ev,
        k_other * ev_rows,
        k_other * ev,
        k_answer,
        k_other,
        k_hist,
    )


def production_queries(
    qc: QueryCosts,
    index: CellIndex,
    intents: Mapping[str, QueryIntent],
    *,
    series: SeriesCounts,
    growth: Growth,
    per_series_rate: tuple[float, float],
    rates: Mapping[str, float],
    hits: Mapping[str, float],
    peak_factor: float,
    settings: Settings,
    answer_series: Mapping[str, float] | None = None,
    windows: Mapping[str, WindowCounts | None] | None = None,
    cells_per_event: float = 1.0,
) -> ProductionQueries:
    """Every planned query at production: what the sample's plan saw, split into the answer in
    the window, other series in it, the edges of rows the window cuts and history outside it,
    each scaled by how much more production holds of it (module docstring)."""
    rc = settings.read_costs()
    t = qc.table
    out: dict[str, list[float]] = {c: [] for c in ProductionQueries.COLUMNS}
    busiest, busiest_q, read_cpu = 0.0, "", 0.0
    g = growth
    answer_series = answer_series or {}
    for name in t.index:
        plan: ReadPlan | None = qc.plans.get(name)
        q = intents.get(str(name))
        if plan is None or q is None or t.loc[name, "kind"] == "cannot plan":
            for c in out:
                out[c].append(float("nan"))
            continue
        r = t.loc[name]
        sc = _query_scales(
            q,
            plan,
            series,
            g,
            per_series_rate,
            answer_series.get(str(name), series.sample),
            (windows or {}).get(str(name)),
        )
        ret_rows, ret_cells = float(r["rows_returned"]), float(r["cells_returned"])
        ret_bytes = float(r["bytes_returned"])
        if q.kind == "latest":  # every row but the answer is older: history
            sp = _SeenSplit(
                ret_rows,
                max(float(r["rows_seen"]) - ret_rows, 0.0),
                ret_cells,
                0.0,
                max(float(r["cells_seen"]) - ret_cells, 0.0),
                ret_bytes,
                0.0,
                max(float(r["bytes_seen"]) - ret_bytes, 0.0),
            )
        else:
            sp = _seen_split(index, qc.seen_rows.get(name, np.zeros(0, np.int64)), q, g.bucket_s)
        # in the window: the answer's rows (all their cells, kept or filtered out), then other
        # series' rows the plan passes, each with its own series factor; the window's rows per
        # series grow with the events (tall rows) or stay (bucket rows), its cells with the events
        oth_rows = max(sp.rows_in - ret_rows, 0.0)
        own = min(ret_rows / sp.rows_in, 1.0) if sp.rows_in else 0.0
        rows = ret_rows * sc.answer_rows + oth_rows * sc.other_rows
        mix = own * sc.answer_cells + (1 - own) * sc.other_cells
        cells, nbytes = sp.cells_in * mix, sp.bytes_in * mix
        # a row the window cuts holds more events outside it in production; rows wholly
        # outside it are history: more rows of it, each fuller
        k_edge = own * sc.answer_series + (1 - own) * sc.other_series
        win = (windows or {}).get(str(name))
        if win is not None and g.bucketed and g.bucket_s and sp.cells_edge:
            # production's bucket rows are full (each series writes all the time): a row holds
            # a bucket's events, less those in the window
            full = cells_per_event * per_series_rate[1] * g.bucket_s
            edge = max(rows * full - cells, 0.0)
            cells, nbytes = cells + edge, nbytes + edge * sp.bytes_edge / sp.cells_edge
        else:
            cells += sp.cells_edge * g.per_row * k_edge
            nbytes += sp.bytes_edge * g.per_row * k_edge
        rows += sp.rows_out * g.rows * sc.history
        cells += sp.cells_out * g.rows * g.per_row * sc.history
        nbytes += sp.bytes_out * g.rows * g.per_row * sc.history
        rows_ret = ret_rows * sc.answer_rows
        limit = float(plan.rows_limit or 0) * max(plan.requests, 1)
        if limit and float(r["rows_seen"]) <= limit:
            # the rows limit stopped the scan (every row it saw was kept): it stops it there in
            # production too; a scan whose filter dropped rows ran on through the history
            cap = limit * sc.answer_series
            if rows > cap:
                f = cap / rows
                rows, cells, nbytes = cap, cells * f, nbytes * f
            rows_ret = min(rows_ret, cap)
        ranges = float(r["ranges"]) * (sc.answer_series if plan.assumes else 1.0)
        ns = rc.node_seconds(
            requests=int(r["requests"]),
            seeks=int(round(ranges)),
            rows=int(round(rows)),
            cells=int(round(cells)),
            nbytes=int(round(nbytes)),
        )
        per_s = float(rates.get(str(name), 0.0))
        cpu = per_s * peak_factor * ns
        read_cpu += cpu
        # the most-read row: a run's CPU spread over the rows it reads, times the share of runs
        # that ask for the same series (every run, when the query names no series)
        hit = hits.get(str(name), 1.0) if q.entity else 1.0
        row_cpu = per_s * peak_factor * hit * ns / max(rows, 1.0)
        if row_cpu > busiest:
            busiest, busiest_q = row_cpu, str(name)
        for c, v in zip(
            ProductionQueries.COLUMNS,
            (per_s, rows, rows_ret, cells, nbytes, ranges, ns * 1e3, cpu),
            strict=True,
        ):
            out[c].append(v)
    table = pd.DataFrame(out, index=t.index)
    return ProductionQueries(table, read_cpu, busiest, busiest_q)


def _answer_series(ds: Dataset, q: QueryIntent) -> float:
    """The sample's series under the values the query names (every series when it names
    none; at least one)."""
    f = ds.frame
    cols = [c for c in ds.entity if c in q.entity]
    if not cols or not len(f):
        return float(max(len(f[list(ds.entity)].drop_duplicates()), 1)) if ds.entity else 1.0
    m = np.ones(len(f), dtype=bool)
    for c in cols:
        m &= (f[c] == q.entity[c]).to_numpy()
    return float(max(len(f.loc[m, list(ds.entity)].drop_duplicates()), 1))


def query_rates(intents: Mapping[str, QueryIntent], wl: Workload, total: float) -> dict[str, float]:
    """Each query's runs per second: its own stated rate, else its weight's share of what the
    stated ones leave of ``total``."""
    own = {n: wl.query_load(n).per_s for n in intents}
    fixed = sum(v for v in own.values() if v is not None)
    rest = [n for n, v in own.items() if v is None]
    weight = sum(intents[n].weight for n in rest) or 1.0
    left = max(total - fixed, 0.0)
    return {n: (v if v is not None else left * intents[n].weight / weight) for n, v in own.items()}


def production(
    ds: Dataset,
    index: CellIndex,
    qc: QueryCosts,
    ceiling: Ceiling | None,
    *,
    workload: Workload,
    mutations: int,
    write_units: float,
    salt_buckets: int | None = None,
    bucket_s: float | None = None,
    lead_columns: tuple[str, ...] = (),
    settings: Settings = DEFAULT,
) -> Production:
    """The design at ``workload``: see the module docstring for each step.

    ``mutations`` and ``write_units``: the sample's writes and their cost in planning rows;
    ``ceiling``: the load model's busiest unsplittable unit in the sample (its kind and share);
    ``bucket_s``: the key's time bound (rows close after it), None without one;
    ``lead_columns``: the entity columns the key puts before any time (each of their values
    writes its own frontier, even in a sample of one series)."""
    st = settings
    wl = workload
    n = len(ds)
    span = sample_span_s(ds)
    sample_rate = n / span
    mean = float(wl.events_per_s) if wl.events_per_s is not None else sample_rate
    counts = series_counts(ds, wl, sample_rate_factor(ds, wl))
    rho_s = sample_rate / counts.sample
    rho_p = mean / max(counts.production, 1e-300)
    retention_s = (wl.retention_months or st.retention_months) * st.hours_per_month * 3600
    time_factor = retention_s / span  # < 1 when the sample spans more than production keeps
    lead = [c for c in lead_columns if c in ds.entity]
    if lead and n:
        sizes = ds.frame.groupby(lead, sort=False, observed=True).size()
        busiest_ratio, lead_series = float(sizes.max() / sizes.mean()), len(sizes)
    else:
        busiest_ratio, lead_series = 1.0, 0
    units = write_units_of(
        ceiling,
        events=n,
        mutations=mutations,
        write_units=write_units,
        salt_buckets=salt_buckets,
        busiest_series_ratio=busiest_ratio,
        lead_columns=tuple(lead) if lead_series else tuple(ds.entity),
        lead_series=lead_series,  # the series themselves when a time bucket leads the key
        series=counts.sample if ds.entity else 0,
    )
    events_per_row = n / max(index.n_rows, 1)
    bucketed = events_per_row > _BUCKET_EVENTS_PER_ROW or (
        bucket_s is not None and bucket_s * rho_s > _BUCKET_EVENTS_PER_ROW
    )
    mpe = mutations / n if n and mutations else 1.0
    if wl.queries_per_s is not None:
        qps, default = float(wl.queries_per_s), False
    elif st.queries_per_s is not None:
        qps, default = float(st.queries_per_s), False
    else:
        qps, default = st.queries_per_write * mean * mpe, True
    intents = {q.name: q for q in ds.queries}
    planned = {k: v for k, v in intents.items() if k in qc.plans}
    rates = query_rates(planned, wl, qps)
    if not default or any(wl.query_load(k).per_s is not None for k in planned):
        qps = sum(rates.values())
    hits = {k: wl.query_load(k).hit_share(counts.production) for k in planned}
    pq = production_queries(
        qc,
        index,
        planned,
        series=counts,
        growth=growth_of(rho_p / max(rho_s, 1e-300), time_factor, bucketed, bucket_s, span),
        per_series_rate=(rho_s, rho_p),
        rates=rates,
        hits=hits,
        peak_factor=wl.peak_factor,
        settings=st,
        answer_series={k: _answer_series(ds, q) for k, q in planned.items()},
        windows={
            k: window_counts(ds, q, bucket_s if bucketed else 0.0) for k, q in planned.items()
        },
        cells_per_event=index.n_cells / max(n, 1),
    )
    return Production(
        workload=wl,
        settings=st,
        series=counts,
        sample_events_per_s=sample_rate,
        events_per_s=mean,
        peak_events_per_s=mean * wl.peak_factor,
        rate_factor=rho_p / max(rho_s, 1e-300),
        time_factor=time_factor,
        writes=units,
        queries_per_s=qps,
        queries_default=default,
        queries=pq,
        cpu_target=st.replication_cpu_target,
        bucketed=bucketed,
    )


__all__ = [
    "Production",
    "ProductionQueries",
    "SeriesCounts",
    "WriteUnits",
    "production",
    "sample_rate_factor",
    "sample_span_s",
    "series_counts",
]
