"""Query costs: what each query intent's read plan touches, returns and costs (G04, G05, G08, G11).

The fast evaluator here gives exactly the figures of :meth:`ReadPlan.evaluate`
(the contract model, which the emulator's measured reads must equal) but works
on the shared :class:`CellIndex`, so a dozen plans cost milliseconds instead of
one full sort of the CellFrame each. ``tests/analysis/test_querycost.py`` pins
the agreement.

The node cost is a planning model of Cloud Bigtable nodes: one request, one seek
per row range or key, and each row, cell and byte visited, with unit costs
calibrated on the documented ~17,000 1 KB-row reads/s and ~220 MB/s scans per SSD
node (:meth:`Settings.read_costs`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import WorkbenchError
from ..reprs import html_of
from ..schema.plan import PlanResult, ReadPlan
from ._index import CellIndex
from .settings import DEFAULT, Settings

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import QueryIntent
    from ..schema.schema import Schema
    from .production import Production


@dataclass(frozen=True)
class _Eval:
    result: PlanResult
    seen_rows: np.ndarray  # global row ids, key order
    returned_rows: np.ndarray


def _regex_ok(strings: np.ndarray, codes: np.ndarray, pattern: str) -> np.ndarray:
    """Boolean per code in ``codes`` (unique): does the string fully match?"""
    rx = re.compile(pattern, re.DOTALL)
    return np.fromiter(
        (rx.fullmatch(strings[c]) is not None for c in codes), dtype=bool, count=len(codes)
    )


def _enc(key: str) -> bytes:
    return key.encode("utf-8", "surrogateescape")


def _unique_sorted(a: np.ndarray) -> np.ndarray:
    """np.unique for an already sorted array (cells are in row order)."""
    if len(a) == 0:
        return a
    keep = np.ones(len(a), dtype=bool)
    keep[1:] = a[1:] != a[:-1]
    return a[keep]


def _inside_rows(index: CellIndex, plan: ReadPlan) -> np.ndarray:
    lo, hi = index.table_rows(plan.table)
    if plan.full_scan:
        return np.arange(lo, hi)
    keys = index.row_keys[lo:hi]
    m = np.zeros(hi - lo, dtype=bool)
    for r in plan.ranges:
        s = int(np.searchsorted(keys, _enc(r.start), "left")) if r.start is not None else 0
        e = int(np.searchsorted(keys, _enc(r.end), "left")) if r.end is not None else hi - lo
        if e > s:
            m[s:e] = True
    if plan.keys:
        want = np.array(sorted({_enc(k) for k in plan.keys}), dtype=bytes)
        pos = np.searchsorted(keys, want, "left")
        ok = pos < len(keys)
        pos, want = pos[ok], want[ok]
        pos = pos[keys[pos] == want]
        m[pos] = True
    return lo + np.flatnonzero(m)


def evaluate(index: CellIndex, plan: ReadPlan) -> PlanResult:
    """The plan's rows/cells/bytes seen and returned on the indexed cells (``cells`` is None)."""
    return _evaluate(index, plan).result


def _union(n_rows: int, parts: list[np.ndarray]) -> np.ndarray:
    """The sorted row ids in any of ``parts`` (a mask over the rows: O(rows), where
    ``np.unique`` of the concatenation sorted them, ~40 ms a plan at 516,000 rows)."""
    m = np.zeros(n_rows, dtype=bool)
    for p in parts:
        m[p] = True
    return np.flatnonzero(m).astype(parts[0].dtype if parts else np.int64, copy=False)


def _evaluate(index: CellIndex, plan: ReadPlan) -> _Eval:
    if plan.requests > 1:
        # one request per range, each with its own rows limit: the sum of the parts
        evs = [_evaluate_one(index, p) for p in plan.parts()]
        return _Eval(
            PlanResult.total([e.result for e in evs], plan.scans),
            _union(index.n_rows, [e.seen_rows for e in evs]),
            _union(index.n_rows, [e.returned_rows for e in evs]),
        )
    return _evaluate_one(index, plan)


def _evaluate_one(index: CellIndex, plan: ReadPlan) -> _Eval:
    rows_in = _inside_rows(index, plan)
    if len(rows_in) == 0 or rows_in[-1] - rows_in[0] + 1 == len(rows_in):
        # one contiguous run of rows (prefix, range, full scan): its cells are one slice, no copy
        a, b = np.searchsorted(index.row, [rows_in[0], rows_in[-1] + 1]) if len(rows_in) else (0, 0)
        cidx: slice | np.ndarray = slice(int(a), int(b))
    else:
        row_in_mask = np.zeros(index.n_rows, dtype=bool)
        row_in_mask[rows_in] = True
        cidx = np.flatnonzero(row_in_mask[index.row])  # cells inside, Bigtable order
    crow = index.row[cidx]
    flt = plan.filter
    n_in = len(crow)
    passed = np.ones(n_in, dtype=bool)
    if flt.families is not None:
        fam_ok = np.isin(index.families, np.array(list(flt.families), dtype=object))
        passed &= fam_ok[index.family[cidx]]
    if flt.qualifier_regex is not None and n_in:
        q = index.qualifier[cidx]
        uq = np.unique(q)
        ok = np.zeros(len(index.qualifiers), dtype=bool)
        ok[uq] = _regex_ok(index.qualifiers, uq, flt.qualifier_regex)
        passed &= ok[q]
    if flt.row_key_regex is not None and n_in:
        passed &= index.key_matches(flt.row_key_regex, rows_in)[crow]
    if flt.time_range_us is not None:
        lo, hi = flt.time_range_us
        ts = index.ts[cidx]
        if lo is not None:
            passed &= ts >= lo
        if hi is not None:
            passed &= ts < hi
    if flt.latest_versions is not None and passed.any():
        r, f, q = crow[passed], index.family[cidx][passed], index.qualifier[cidx][passed]
        new = np.ones(len(r), dtype=bool)
        new[1:] = (r[1:] != r[:-1]) | (f[1:] != f[:-1]) | (q[1:] != q[:-1])
        pos = np.arange(len(r))
        rank = pos - np.maximum.accumulate(np.where(new, pos, 0))
        keep = np.zeros(n_in, dtype=bool)
        keep[np.flatnonzero(passed)[rank < flt.latest_versions]] = True
        passed = keep
    passed_rows = _unique_sorted(crow[passed])
    seen: np.ndarray | slice = slice(
        None
    )  # every cell inside is seen unless a rows limit stops the scan
    ret = passed
    if plan.rows_limit is not None and len(passed_rows) >= plan.rows_limit:
        if plan.reversed:
            last = passed_rows[::-1][plan.rows_limit - 1]
            seen = crow >= last
        else:
            last = passed_rows[plan.rows_limit - 1]
            seen = crow <= last
        ret = passed & seen
    sizes = index.nbytes[cidx]
    seen_rows = _unique_sorted(crow[seen])
    returned_rows = _unique_sorted(crow[ret])
    cells_seen = n_in if isinstance(seen, slice) else int(seen.sum())
    res = PlanResult(
        scans=plan.scans,
        rows_seen=len(seen_rows),
        cells_seen=cells_seen,
        bytes_seen=int(sizes[seen].sum(dtype=np.int64)),
        rows_returned=len(returned_rows),
        cells_returned=int(ret.sum()),
        bytes_returned=int(sizes[ret].sum(dtype=np.int64)),
    )
    return _Eval(res, seen_rows, returned_rows)


def node_seconds(plan: ReadPlan, result: PlanResult, settings: Settings = DEFAULT) -> float:
    """Modelled node time of one run on Cloud Bigtable: its requests (one, or one per range when
    the rows limit applies per range), one seek per row range or key, and every row, cell and
    byte the server visits (``Settings.read_costs``)."""
    return settings.read_costs().node_seconds(
        requests=plan.requests,
        seeks=plan.n_ranges,
        rows=result.rows_seen,
        cells=result.cells_seen,
        nbytes=result.bytes_seen,
    )


def _measured_get(m: Any, name: str) -> Any:
    """A figure from a mapping, a ReadResult, or a QueryRun (``TableHandle.run``) via its ``result``."""
    if isinstance(m, Mapping):
        return m.get(name)
    if not hasattr(m, name) and hasattr(m, "result"):
        m = m.result
    return getattr(m, name, None)


@dataclass
class QueryCosts:
    """One row per query intent: plan kind, scans, seen vs returned, waste and modelled cost."""

    table: pd.DataFrame
    plans: dict[str, ReadPlan] = field(repr=False, default_factory=dict)
    seen_rows: dict[str, np.ndarray] = field(repr=False, default_factory=dict)
    schema_name: str = ""

    def __getitem__(self, query: str) -> pd.Series:
        if query not in self.table.index:
            raise KeyError(f"No query {query!r}; queries: {', '.join(self.table.index)}.")
        return self.table.loc[query]

    def _repr_html_(self) -> str:
        return html_of(self)


def query_costs(
    index: CellIndex,
    plans: Mapping[str, ReadPlan],
    *,
    weights: Mapping[str, float] | None = None,
    measured: Mapping[str, Any] | None = None,
    settings: Settings = DEFAULT,
    errors: Mapping[str, str] | None = None,
    schema_name: str = "",
) -> QueryCosts:
    """Cost table for named plans; ``measured`` maps a query name to the emulator's figures
    (anything with ``rows_returned``, ``cells_returned``, ``bytes_returned``, ``elapsed_s``)."""
    recs, seen = [], {}
    for name, plan in plans.items():
        ev = _evaluate(index, plan)
        r = ev.result
        ns = node_seconds(plan, r, settings)
        # the same plan as the emulator runs it (no reverse scans): its own figures, side by side
        emu_plan = plan.on_emulator()
        er = r if emu_plan is plan else _evaluate(index, emu_plan).result
        rec = {
            "query": name,
            "kind": plan.kind,
            "plan": plan.describe(),
            "scans": r.scans,
            "ranges": plan.n_ranges,
            "requests": plan.requests,
            "rows_seen": r.rows_seen,
            "rows_returned": r.rows_returned,
            "cells_seen": r.cells_seen,
            "cells_returned": r.cells_returned,
            "bytes_seen": r.bytes_seen,
            "bytes_returned": r.bytes_returned,
            # the rows the query keeps: a latest-N read forward returns its whole range and the
            # client keeps the newest N; waste is rows seen per row kept (every view says which)
            "rows_kept": min(r.rows_returned, plan.client_keeps or r.rows_returned),
            "waste": r.rows_seen
            / max(min(r.rows_returned, plan.client_keeps or r.rows_returned), 1),
            "byte_waste": r.bytes_seen / max(r.bytes_returned, 1),
            "emulator_rows_seen": er.rows_seen,
            "emulator_cells_seen": er.cells_seen,
            "emulator_bytes_seen": er.bytes_seen,
            "emulator_waste": er.rows_seen
            / max(min(er.rows_returned, emu_plan.client_keeps or er.rows_returned), 1),
            "emulator_note": (
                ""
                if emu_plan is plan
                else "the emulator refuses reverse scans: it reads "
                + ("each range" if plan.requests > 1 else "the range")
                + f" forward and the client keeps the newest {emu_plan.client_keeps:,} row(s)"
            ),
            "node_ms": ns * 1e3,
            # the cheapest other plan the planner weighed, with its estimated node-ms at the
            # entity counts it was given (schema.planner.alternatives; "" when none answers)
            "runner_up": plan.runner_up,
            "runner_up_node_ms": (
                float("nan") if plan.runner_up_node_ms is None else plan.runner_up_node_ms
            ),
            "queries_per_s_per_node": 1.0 / ns if ns > 0 else float("inf"),
            "weight": float((weights or {}).get(name, 1.0)),
            "error": "",
        }
        if measured and name in measured:
            m = measured[name]
            for a in ("rows_returned", "cells_returned", "bytes_returned"):
                rec[f"measured_{a}"] = _measured_get(m, a)
            el = _measured_get(m, "elapsed_s")
            rec["measured_ms"] = None if el is None else float(el) * 1e3
            rec["measured_agrees"] = all(
                rec[f"measured_{a}"] == rec[a] for a in ("rows_returned", "cells_returned")
            )
        recs.append(rec)
        seen[name] = ev.seen_rows
    for name, msg in (errors or {}).items():
        recs.append({"query": name, "kind": "cannot plan", "plan": msg, "error": msg})
    if measured:
        unknown = set(measured) - set(plans) - set(errors or {})
        if unknown:
            raise WorkbenchError(
                f"Measured figures given for unknown queries {sorted(unknown)}; "
                f"queries: {sorted(plans)}."
            )
    table = pd.DataFrame.from_records(recs).set_index("query") if recs else pd.DataFrame()
    return QueryCosts(table=table, plans=dict(plans), seen_rows=seen, schema_name=schema_name)


def plans_for(
    schema: Schema, intents: Sequence[QueryIntent]
) -> tuple[dict[str, ReadPlan], dict[str, str]]:
    """Compile every intent; an intent the schema cannot serve is reported, not dropped."""
    from ..errors import SchemaError

    plans, errors = {}, {}
    for it in intents:
        try:
            plans[it.name] = schema.plan(it)
        except SchemaError as e:
            errors[it.name] = str(e)
    return plans, errors


def with_production(qc: QueryCosts, prod: Production) -> QueryCosts:
    """The query costs with each query's production figures beside the sample's (the
    ``production_*`` columns of :class:`~workbench.analysis.production_reads.ProductionQueries`:
    rows, cells and bytes seen at production size, ranges, node-ms, runs per second and CPU)."""
    t = qc.table.copy()
    if t.empty:
        return qc
    p = prod.queries.table
    for c in p.columns:
        t[c] = p[c].reindex(t.index)
    return dataclasses.replace(qc, table=t)
