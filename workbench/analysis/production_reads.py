"""Each query at production size: what the sample's plan saw, scaled by how much more of it
production holds (G04, G05, G11).

The plan's seen rows are split by the query's time window: the answer's rows in it, other
series' rows in it, cells of those rows outside it (a bucket row the window cuts) and rows
wholly outside it (history). Production runs every series at the workload's per-series rate
all the time, so what the plan saw in the window is normalised by the sample's own series and
events there; history multiplies with retention; node-seconds come from the read cost model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..datasets.workload import Workload
from .series import SeriesCounts
from .settings import Settings

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset, QueryIntent
    from ..schema.plan import ReadPlan
    from ._index import CellIndex
    from .querycost import QueryCosts


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


_SPLIT_ROWS = 250_000  # rows split at a time: a full scan of 10M rows keeps its temporaries small


def _seen_split(
    index: CellIndex, rows: np.ndarray, q: QueryIntent, bucket_s: float | None = 0.0
) -> _SeenSplit:
    """Split what a plan saw in the sample by the query's time window. ``bucket_s``: how long
    one row gathers events (0: an event each; None: for ever): a row whose bucket could hold
    the window is a row of that time (another series), not history. In slices of rows, summed
    (the cell offsets found once: a search of every row per slice cost seconds at 5M rows)."""
    off = index.row_offsets() if len(rows) else np.zeros(1, np.int64)
    parts = [
        _split_rows(index, off, rows[a : a + _SPLIT_ROWS], q, bucket_s)
        for a in range(0, len(rows), _SPLIT_ROWS)
    ]
    return _SeenSplit(*(float(sum(getattr(p, f.name) for p in parts)) for f in fields(_SeenSplit)))


def _split_rows(
    index: CellIndex, off: np.ndarray, rows: np.ndarray, q: QueryIntent, bucket_s: float | None
) -> _SeenSplit:
    """:func:`_seen_split` for one slice of the seen rows (global row ids, key order);
    ``off``: the index's cell offsets per row."""
    if not len(rows):
        return _SeenSplit(0, 0, 0, 0, 0, 0, 0, 0)
    counts = off[rows + 1] - off[rows]
    if int(rows[-1]) - int(rows[0]) + 1 == len(rows):  # one run of rows: views, no copies
        a, b = int(off[rows[0]]), int(off[rows[-1] + 1])
        ts, nb = index.ts[a:b], index.nbytes[a:b]
    else:
        first = np.r_[0, np.cumsum(counts)[:-1]]
        sel = np.repeat(off[rows] - first, counts) + np.arange(int(counts.sum()))
        ts, nb = index.ts[sel], index.nbytes[sel]
        del sel
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    end = q.end
    if q.kind == "point" and q.start is not None and end is None:
        end = q.start + pd.Timedelta(milliseconds=1)  # the one instant it asks for
    inside = np.ones(len(ts), dtype=bool)
    if q.start is not None:
        inside &= ts >= q.start.value // 1000
    if end is not None:
        inside &= ts < end.value // 1000
    # a row is in the window when its time span overlaps it (a bucket row of a series that wrote
    # before and after the window, even with no cell inside it), else it is history
    row_in = np.ones(len(rows), dtype=bool)
    if bucket_s is not None:
        b_us = int(bucket_s * 1e6)
        if q.start is not None:
            row_in &= np.maximum.reduceat(ts, starts) + b_us >= q.start.value // 1000
        if end is not None:
            row_in &= np.minimum.reduceat(ts, starts) - b_us < end.value // 1000
    in_cells = np.add.reduceat(inside, starts, dtype=np.int64)  # per row
    row_in |= in_cells > 0
    row_bytes = np.add.reduceat(nb, starts, dtype=np.float64)
    in_bytes = np.add.reduceat(np.where(inside, nb, 0), starts, dtype=np.float64)
    cells_in, bytes_in = float(in_cells.sum()), float(in_bytes.sum())
    return _SeenSplit(
        rows_in=float(row_in.sum()),
        rows_out=float((~row_in).sum()),
        cells_in=cells_in,
        cells_edge=float((counts - in_cells)[row_in].sum()),
        cells_out=float(counts[~row_in].sum()),
        bytes_in=bytes_in,
        bytes_edge=float((row_bytes - in_bytes)[row_in].sum()),
        bytes_out=float(row_bytes[~row_in].sum()),
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
    retention_s: float = math.inf  # how long production keeps events


def growth_of(r: float, t: float, bucketed: bool, bound_s: float | None, span_s: float) -> Growth:
    """Rows of one event each multiply with the events (r·T); rows that gather a time bucket
    of ``bound_s`` multiply with time only and hold r× the events each; a row without a time
    bound is one row holding everything."""
    retention_s = t * span_s
    if not bucketed:
        return Growth(r, t, r * t, 1.0, retention_s=retention_s)
    if bound_s is None:
        return Growth(r, t, 1.0, r * t, True, None, retention_s)
    rows = max(1.0, retention_s / bound_s) / max(1.0, span_s / bound_s)
    per_row = r * min(bound_s, retention_s) / min(bound_s, span_s)
    return Growth(r, t, rows, per_row, True, bound_s, retention_s)


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
        per_series = rho[1] * min(w, g.retention_s)  # what production still keeps of it

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
        ev = max(1.0, rho[1] * min(w, g.retention_s)) / max(1.0, rho[0] * w)
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


def answer_series(ds: Dataset, q: QueryIntent, codes: np.ndarray) -> float:
    """The sample's series under the values the query names (every series when it names
    none; at least one)."""
    return max(_distinct(codes, _named(ds, q)), 1.0)


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
    "Growth",
    "ProductionQueries",
    "WindowCounts",
    "answer_series",
    "growth_of",
    "series_codes",
    "production_queries",
    "query_rates",
    "window_counts",
]
