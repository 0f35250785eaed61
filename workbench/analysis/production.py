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
  share under the workload's spread (:attr:`Production.spread`: unless stated, the sample's
  own skew while production has the data's series, ``1/S'`` once more are stated) — at the
  CPU target of one node;
* **reads**: each query's rows, cells and bytes seen in the sample, split into its own answer,
  other series' rows in its time window and rows outside its window, scaled by the series
  factor, the rate factor (rows that hold one event each; bucket rows grow in cells instead)
  and, for rows outside the window, by retention ÷ the sample's span (production keeps that
  much more history); node-seconds from the read cost model; CPU at each query's rate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..datasets.workload import Spread, Workload, spread_of
from ..formatting import number, rate
from .production_reads import DataBoost, ProductionQueries, production_queries, query_rates
from .series import (
    SeriesCounts,
    SeriesRates,
    sample_span_s,
    series_rates,
)
from .settings import DEFAULT, Settings

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset
    from ._index import CellIndex
    from .ceiling import Ceiling
    from .querycost import QueryCosts

_BUCKET_EVENTS_PER_ROW = 1.5  # rows holding more events than this gather events (time buckets)


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
    file_events: int = 0  # a shape sample's whole file: its events (0: the events are all here)
    file_counted_by: str = "DuckDB"  # what counted them (FileAggregates.counted_by)

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
    def own_series(self) -> bool:
        """Production has the data's own series: no count stated and none grown with a stated
        rate (a shape sample's file counts are the data's own)."""
        wl = self.workload
        return not self.series.stated and not (wl.growth == "grow" and wl.events_per_s is not None)

    @property
    def spread(self) -> Spread:
        """The spread every production figure is at: the user's, else :func:`default_spread`
        (the sample's own skew while production has the data's series, uniform once more are
        stated or grown)."""
        return spread_of(self.workload, bool(self.series.stated))

    def spread_text(self) -> str:
        """The spread as the inputs line and the ceiling say it, with why when it is a default."""
        text = self.spread.text()
        if self.workload.spread is not None:
            return text
        if self.own_series:
            return f"{text} (the default while production has the data's series)"
        return f"{text} (the default once more series are stated than the data's)"

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
            busiest = self.spread.busiest_share(self.series.production, w.busiest_series_ratio)
            if self.series.production >= 10 * w.units:
                return max(even, busiest)
            return max(w.unit_share, busiest)
        if w.unit_kind == "per series":
            busiest = self.spread.busiest_share(self.lead_production, w.busiest_series_ratio)
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

    def rows_read_per_s(self) -> dict[str, float]:
        """Each query's rows read a second at the peak: its stated rate × the rows its plan
        passes at production (0 for a query whose rate nobody stated)."""
        t = self.queries.table
        per_s = t["production_per_s"] * self.workload.peak_factor * t["production_rows_seen"]
        return {str(q): float(v) for q, v in per_s.fillna(0.0).items()}

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
            spread=self.spread.at() if w.unit_kind == "per series" else "",
        )

    # -- what was stated ---------------------------------------------------------------------
    def inputs(self) -> list[tuple[str, str, bool]]:
        """(input, value, the user's?) for every input the production figures used."""
        wl = self.workload
        said = set(wl.stated())
        retention = wl.retention_months
        rows = [
            (
                "events/s",
                rate(self.events_per_s, "events")
                if "events_per_s" in said
                else f"{rate(self.events_per_s, 'events')} (the file's: {self.file_events:,} "
                f"events over its span, counted by {self.file_counted_by})"
                if self.file_events
                else f"{rate(self.events_per_s, 'events')} (the sample's own rate"
                + (" per series)" if self.series.stated else ")"),
                "events_per_s" in said,
            ),
            ("peak", f"{wl.peak_factor:g}× the mean", "peak_factor" in said),
            ("retention", f"{retention:g} months", "retention_months" in said),
        ]
        counts = ", ".join(f"{c} {_count(n)}" for c, n in self.series.production_by_column.items())
        rows.append(
            (
                "series",
                f"{_count(self.series.production)} ({counts}; {wl.growth}"
                + (
                    f"; the file's, counted by {self.file_counted_by})"
                    if self.file_events and not self.series.stated
                    else ")"
                ),
                bool(self.series.stated) or "growth" in said,
            )
        )
        rows.append(("spread", self.spread_text(), "spread" in said))
        own = {
            str(q): wl.query_load(str(q)).per_s
            for q in self.queries.table.index
            if wl.query_load(str(q)).per_s is not None
        }
        if not self.queries_default:
            rows.append(("queries", rate(self.queries_per_s, "queries"), True))
            return rows
        if own:  # one query's own rate stated: the user's; the others' note is a default's
            stated = "; ".join(f"{q} {rate(float(v or 0.0), 'queries')}" for q, v in own.items())
            rows.append(("queries", stated, True))
        rest = "the other queries: none stated" if own else "none stated"
        rows.append(
            (
                "queries",
                f"{rest}: no query sizes the nodes unless its rate is stated (each query's cost "
                "per run is in the query table; Workload(queries_per_s=…) or Workload(queries=…))",
                False,
            )
        )
        return rows

    def servable_per_s(self, query: str, nodes: int) -> float:
        """Runs per second of ``query`` (at the workload's peak) that the CPU ``nodes`` have
        left under the target, after the writes and the stated query rates: how often a query
        whose rate nobody stated can run on the cluster sized for the rest."""
        t = self.queries.table
        if query not in t.index:
            return math.nan
        run_s = float(t.loc[query, "production_node_ms"]) / 1e3
        spare = max(nodes, 1) * self.cpu_target - self.peak_cpu
        if not run_s > 0:
            return math.inf
        return max(spare, 0.0) / run_s / self.workload.peak_factor

    def inputs_line(self) -> str:
        """One line under a figure: the workload it is at, the user's inputs apart from the
        defaults."""
        mine, default = self.input_texts()
        out = "Workload — yours: " + ("; ".join(mine) if mine else "nothing stated")
        return out + " · defaults: " + "; ".join(default)

    def input_texts(self) -> tuple[list[str], list[str]]:
        """The user's inputs and the defaults as read: an input whose value names its unit reads
        as the value ("4.17 events/h", not "events/s 4.17 events/h", whose label and value
        disagree on the unit)."""
        rows = [(v if k.split("/")[0] in v else f"{k} {v}", own) for k, v, own in self.inputs()]
        return [t for t, own in rows if own], [t for t, own in rows if not own]


def _count(n: float) -> str:
    """A series count as read: whole numbers with separators."""
    return f"{n:,.0f}" if n >= 10 or abs(n - round(n)) < 1e-9 else number(n)


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
    counted: SeriesRates | None = None,
) -> Production:
    """The design at ``workload``: see the module docstring for each step.

    ``mutations`` and ``write_units``: the sample's writes and their cost in planning rows;
    ``ceiling``: the load model's busiest unsplittable unit in the sample (its kind and share);
    ``bucket_s``: the key's time bound (rows close after it), None without one;
    ``lead_columns``: the entity columns the key puts before any time (each of their values
    writes its own frontier, even in a sample of one series); ``counted``: the
    :func:`~workbench.analysis.series.series_rates` of ``ds`` at ``workload`` when the caller
    has them (the planner weighed its plans at them), else counted here."""
    st = settings
    wl = workload
    n = len(ds)
    span = sample_span_s(ds)
    said = wl  # what the user stated; a shape sample's file fills in the rest
    sr = counted or series_rates(ds, said)
    wl = sr.workload
    counts, sample_rate, mean = sr.counts, sr.sample_events_per_s, sr.events_per_s
    rho_s, rho_p = sr.sample_per_series, sr.production_per_series
    retention_s = wl.retention_months * st.hours_per_month * 3600
    time_factor = retention_s / span  # < 1 when the sample spans more than production keeps
    lead = [c for c in lead_columns if c in ds.entity]
    agg = ds.aggregates
    if lead and n:
        sizes = ds.frame.groupby(lead, sort=False, observed=True).size()
        busiest_ratio, lead_series = float(sizes.max() / sizes.mean()), len(sizes)
        # the file's busiest lead group, counted over every event: the sample may lack it
        filed = agg.busiest_ratio([c for c in ds.entity if c in lead]) if agg else None
        if filed is not None:
            busiest_ratio = filed
        elif agg is not None and agg.lead_sizes[0] and set(lead) == set(ds.entity):
            busiest_ratio = agg.lead_sizes[1]  # the file's busiest series, not the sample's
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
    rates, default = stated_query_rates(ds, qc.plans, wl)
    qps = sum(rates.values())
    planned = {q.name: q for q in ds.queries if q.name in qc.plans}
    hits = {k: wl.query_load(k).hit_share(counts.production) for k in planned}
    boost = DataBoost(
        frozenset(k for k in planned if wl.query_load(k).data_boost),
        st.data_boost_spu_per_node,
        st.data_boost_min_spu_s_per_request,
        st.hours_per_month * 3600,
    )
    pq = production_queries(
        qc, planned, rates=rates, hits=hits, peak_factor=wl.peak_factor, data_boost=boost
    )
    return Production(
        workload=said,
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
        file_events=agg.events if agg is not None else 0,
        file_counted_by=agg.counted_by if agg is not None else "DuckDB",
    )


def stated_query_rates(
    ds: Dataset, plans: Mapping[str, object], wl: Workload
) -> tuple[dict[str, float], bool]:
    """Each planned query's mean runs per second as stated (the workload's total split by
    weight, or the query's own rate), and whether no rate was stated at all: then every query runs 0 times a second, sizes no node and draws no read load, and
    shows its cost per run. The load model's heat map and capacity read these same rates."""
    if wl.queries_per_s is not None:
        qps, default = float(wl.queries_per_s), False
    else:
        qps, default = 0.0, True
    planned = {q.name: q for q in ds.queries if q.name in plans}
    return query_rates(planned, wl, qps), default


__all__ = ["Production", "WriteUnits", "production", "stated_query_rates"]
