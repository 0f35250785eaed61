"""Each query at production: the cost of one run of its plan, as the planner priced it, at the
workload's rate (G04, G05, G11).

The planner ranks every alternative plan with one function (``schema.plan_choice.estimate``)
at the production it is bound with: requests, seeks, rows, cells and bytes at the workload's
series, rate and retention. That figure is the plan's cost everywhere: this module only
multiplies it by each query's rate and peak (its CPU), and finds the most-read row. The sample
supplies the plan's shape (which rows a range touches, how series interleave), never its size.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..datasets.workload import Workload

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset, QueryIntent
    from ..schema.plan import ReadPlan
    from .querycost import QueryCosts


@dataclass
class ProductionQueries:
    """Each query at production scale: requests, ranges, rows, cells, bytes, node time, rate
    and CPU (one row per query), all from the plan's :class:`~workbench.schema.plan.PlanCost`."""

    table: pd.DataFrame  # one row per query (the columns of ``COLUMNS``)
    read_cpu: float  # nodes of CPU at the peak, the queries whose rate was stated
    busiest_row_cpu: float  # the most-read row's CPU at the peak (a row cannot split)
    busiest_row_query: str
    data_boost_spu_hours: float = 0.0  # a month of the queries sent to Data Boost

    COLUMNS = (
        "production_per_s",
        "production_rows_seen",
        "production_rows_returned",
        "production_cells_seen",
        "production_bytes_seen",
        "production_ranges",
        "production_requests",
        "production_node_ms",
        "production_cpu",
        "production_spu_s",
        "production_data_boost",
    )


@dataclass(frozen=True)
class DataBoost:
    """How Data Boost bills a query sent there ("Data Boost overview"): ``spu_per_node`` SPUs do
    one node's work, each request is billed at least ``min_spu_s_per_request`` SPU-seconds;
    ``queries``: the queries sent there; ``seconds_per_month`` of runs at the mean rate."""

    queries: frozenset[str] = frozenset()
    spu_per_node: float = 1000.0
    min_spu_s_per_request: float = 60.0
    seconds_per_month: float = 730.0 * 3600

    def spu_s(self, node_s: float, requests: float) -> float:
        """SPU-seconds one run is billed: its node-seconds in SPUs, at least the minimum per
        request."""
        return max(node_s * self.spu_per_node, self.min_spu_s_per_request * max(requests, 1.0))


@dataclass(frozen=True)
class WindowCounts:
    """The sample's series and events in a query's window: the answer's and the others'.
    ``active``: series with a row of that time (a bucket row around the window counts)."""

    answer_active: float
    answer_events: float
    other_active: float
    other_events: float


def window_counts(
    ds: Dataset, q: QueryIntent, bucket_s: float | None, codes: np.ndarray
) -> WindowCounts | None:
    """Count, in the sample, the series and events in the query's window (None: no window);
    ``codes``: each event's series (:func:`series_codes`)."""
    if q.start is None or q.end is None or not len(ds):
        return None
    t = ds.frame[ds.time]
    inside = ((t >= q.start) & (t < q.end)).to_numpy()
    pad = pd.Timedelta(seconds=bucket_s) if bucket_s else pd.Timedelta(0)
    around = ((t >= q.start - pad) & (t < q.end + pad)).to_numpy() if bucket_s is not None else None
    named = _named(ds, q)
    ans = named if named is not None else np.ones(len(ds), dtype=bool)
    near = around if around is not None else np.ones(len(ds), dtype=bool)
    return WindowCounts(
        answer_active=_distinct(codes, ans & near),
        answer_events=float((ans & inside).sum()),
        other_active=_distinct(codes, ~ans & near),
        other_events=float((~ans & inside).sum()),
    )


def production_queries(
    qc: QueryCosts,
    intents: Mapping[str, QueryIntent],
    *,
    rates: Mapping[str, float],
    hits: Mapping[str, float],
    peak_factor: float,
    data_boost: DataBoost | None = None,
) -> ProductionQueries:
    """Every planned query at production: its plan's cost (``ReadPlan.cost``, the planner's
    one estimate at the workload), its CPU at its rate and the workload's peak, and the CPU
    its most-read row takes (a run's CPU spread over the rows it reads, times the share of runs
    asking for the same series: every run when the query names none). A query sent to Data
    Boost (``data_boost``) takes no node CPU: its runs are billed in SPU-seconds
    (``production_spu_s``, what a run would be billed there, is shown for every query)."""
    t = qc.table
    boost = data_boost or DataBoost()
    out: dict[str, list[float]] = {c: [] for c in ProductionQueries.COLUMNS}
    busiest, busiest_q, read_cpu, spu_hours = 0.0, "", 0.0, 0.0
    for name in t.index:
        plan: ReadPlan | None = qc.plans.get(name)
        q = intents.get(str(name))
        cost = plan.cost if plan is not None else None
        if cost is None or q is None or t.loc[name, "kind"] == "cannot plan":
            for c in out:
                out[c].append(float("nan"))
            continue
        per_s = float(rates.get(str(name), 0.0))
        spu_s = boost.spu_s(cost.node_s, float(cost.requests))
        on_boost = str(name) in boost.queries
        cpu = 0.0 if on_boost else per_s * peak_factor * cost.node_s
        read_cpu += cpu
        if on_boost:  # billed by use, at the mean rate
            spu_hours += per_s * boost.seconds_per_month * spu_s / 3600
        hit = hits.get(str(name), 1.0) if q.entity else 1.0
        row_cpu = 0.0 if on_boost else per_s * peak_factor * hit * cost.node_s / max(cost.rows, 1.0)
        if row_cpu > busiest:
            busiest, busiest_q = row_cpu, str(name)
        values = (
            per_s,
            cost.rows,
            cost.returned,
            cost.cells,
            cost.nbytes,
            cost.seeks,
            float(cost.requests),
            cost.node_s * 1e3,
            cpu,
            spu_s,
            float(on_boost),
        )
        for c, v in zip(ProductionQueries.COLUMNS, values, strict=True):
            out[c].append(v)
    table = pd.DataFrame(out, index=t.index)
    return ProductionQueries(table, read_cpu, busiest, busiest_q, spu_hours)


def series_codes(ds: Dataset) -> np.ndarray:
    """Each event's series as a small integer (one pass over the entity columns; the 10M-event
    path keeps 40 MB, not a copy of the columns per query)."""
    if not ds.entity or not len(ds):
        return np.zeros(len(ds), dtype=np.int32)
    if len(ds.entity) == 1:
        codes, _ = pd.factorize(ds.frame[ds.entity[0]], use_na_sentinel=False)
        return codes.astype(np.int32, copy=False)
    grouped = ds.frame.groupby(list(ds.entity), sort=False, observed=True).ngroup()
    return grouped.to_numpy(dtype=np.int32)


def _named(ds: Dataset, q: QueryIntent) -> np.ndarray | None:
    """The events of the series the query names (None: it names none)."""
    cols = [c for c in ds.entity if c in q.entity]
    if not cols:
        return None
    m = np.ones(len(ds), dtype=bool)
    for c in cols:
        m &= (ds.frame[c] == q.entity[c]).to_numpy()
    return m


def _distinct(codes: np.ndarray, m: np.ndarray | None = None) -> float:
    picked = codes if m is None else codes[m]
    return float(np.count_nonzero(np.bincount(picked))) if len(picked) else 0.0


def query_rates(intents: Mapping[str, QueryIntent], wl: Workload, total: float) -> dict[str, float]:
    """Each query's runs per second: its own stated rate, else its weight's share of what the
    stated ones leave of ``total``."""
    own = {n: wl.query_load(n).per_s for n in intents}
    fixed = sum(v for v in own.values() if v is not None)
    rest = [n for n, v in own.items() if v is None]
    weight = sum(intents[n].weight for n in rest) or 1.0
    left = max(total - fixed, 0.0)
    return {n: (v if v is not None else left * intents[n].weight / weight) for n, v in own.items()}


__all__ = [
    "DataBoost",
    "ProductionQueries",
    "WindowCounts",
    "series_codes",
    "production_queries",
    "query_rates",
    "window_counts",
]
