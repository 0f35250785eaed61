"""Designs side by side: one table, small-multiple figures, a ranking per criterion with its reason.

Criteria (lower is better for each): hotspot factor (G06–G08), bytes per event
(G01, G14), largest row after the retention period (G10), and every query's
modelled node cost (G04, G05, G11); and the ceiling (events/s no node count lifts), where
higher is better.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import pairwise
from typing import Any

import pandas as pd

from ..datasets.model import Dataset, QueryIntent, require_dataset
from ..datasets.workload import Workload, require_workload, workload_only
from ..errors import WorkbenchError
from ..formatting import fair_factor, number
from ..reprs import html_of
from ..schema.schema import Schema
from ..schema.views import ViewDesign
from ..units import human_bytes
from .capacity import ONCE_FIXED
from .file_writes import one_pass
from .overview import CHUNK_EVENTS, Analysis, analyze, schema_name
from .rate_verdict import rate_text
from .settings import Settings
from .spill import SPILL_EVENTS, restored, saved, spill
from .workers import run_jobs, workers_for

WORKER_EVENTS = 1_000_000
"""``compare`` analyses designs side by side in worker processes (``analysis/workers.py``) on a
dataset of more than ``SPILL_EVENTS`` events and at most this many (a shape sample of a large
file is ~500,000): two at once of 981,000 events held 1,376 MB against 1,213 MB one at a time;
a larger dataset held in memory is analysed one design at a time, within its 2 GB."""

# the table's columns that price a design; a hotspot-limited design's are "once fixed"
_FIX_PRICED_COLUMNS = ("nodes_for_cpu", "nodes_needed", "monthly_cost_usd")


@dataclass
class Comparison:
    """``table``: one row per design; ``rankings``: one row per criterion (order best→worst and why)."""

    dataset: str
    analyses: dict[str, Analysis]
    table: pd.DataFrame
    rankings: pd.DataFrame
    criteria: list[tuple[str, str]] = field(default_factory=list)  # (column, label)
    # designs that could not be built for this dataset, with the reason (a row each in ``table``)
    not_built: dict[str, str] = field(default_factory=dict)

    def with_rows_not_built(
        self, not_built: Mapping[str, str], notes: Mapping[str, str]
    ) -> Comparison:
        """This comparison with a row per design that could not be built (its reason as the
        verdict, no figures) and a ``note`` column (e.g. a column a layout left out)."""
        t = self.table.copy()
        if notes or not_built:
            t["note"] = [notes.get(d, "") for d in t.index]
        if not_built:
            extra = pd.DataFrame(
                {
                    "verdict": ["not built: " + why.split("\n")[0] for why in not_built.values()],
                    "note": list(not_built.values()),
                },
                index=pd.Index(list(not_built), name=t.index.name),
            )
            t = pd.concat([t, extra.reindex(columns=t.columns)])
        return replace(self, table=t, not_built=dict(not_built))

    def view(self, columns: Sequence[str] | None = None) -> Any:
        """``table`` (or some of its columns) formatted for reading: separators, bytes in kB/MB,
        shares as percentages, ratios with ×, "—" with a legend where a value is absent."""
        from ..formatting import count, money, styled

        t = self.table if columns is None else self.table[list(columns)]
        st = styled(t)
        # a hotspot-limited design has no price at the stated rate: its node count and bill are
        # what it costs once the hotspot is fixed, as its capacity table labels them (G07)
        limited = t.index[self.table["hotspot_limited"].eq(True)].tolist()
        priced = [c for c in _FIX_PRICED_COLUMNS if c in t.columns]
        for col in priced if limited else []:
            fmt = money if col == "monthly_cost_usd" else count
            st = st.format(
                lambda v, fmt=fmt: f"{fmt(v)}{ONCE_FIXED}",
                subset=pd.IndexSlice[limited, [col]],
            )
        return st

    def _repr_html_(self) -> str:
        return html_of(self)


def _ordered(s: pd.Series, *, higher_is_better: bool) -> tuple[list[str], str, bool]:
    """The designs best first, the ranking text ("≈" within 5 %, "<" or ">" where the next one
    is really worse) and whether the best and the worst are within 5 % (a tie)."""
    order = s.sort_values(ascending=not higher_is_better, kind="stable").index.tolist()

    def near(a: str, b: str) -> bool:  # b, ranked after a, is within 5 % of it
        return bool(s[a] <= s[b] * 1.05 if higher_is_better else s[b] <= s[a] * 1.05)

    worse = " > " if higher_is_better else " < "
    ranking = order[0] + "".join(
        (" ≈ " if near(prev, nxt) else worse) + nxt for prev, nxt in pairwise(order)
    )
    return order, ranking, len(order) > 1 and near(order[0], order[-1])


def _rank(table: pd.DataFrame, col: str, label: str, fmt) -> dict[str, str]:
    s = table[col].astype(float)
    order, ranking, tie = _ordered(s, higher_is_better=False)
    best, worst = order[0], order[-1]
    if len(order) == 1:
        reason = f"{best}: {fmt(s[best])}"
    elif tie:
        reason = f"all about equal ({fmt(s[best])})"
        best = worst = ""  # a tie has no winner to colour
    else:
        reason = (
            f"{best} is best with {fmt(s[best])}; {worst} is worst with {fmt(s[worst])} "
            f"({s[worst] / max(s[best], 1e-12):,.1f}× more)"
        )
    return {"criterion": label, "ranking": ranking, "best": best, "worst": worst, "reason": reason}


def _designs_and_labels(
    schemas: Sequence[Schema | ViewDesign] | Mapping[str, Schema], names: Sequence[str] | None
) -> tuple[list[Schema | ViewDesign], list[str]]:
    """``compare``'s designs as a checked list and a label each (``names`` or the designs' own;
    two designs with one name get numbered, never merged)."""
    if isinstance(schemas, Mapping):  # wb.presets(ds): the whole gallery
        schemas = list(schemas.values())
    if isinstance(schemas, Schema):
        raise WorkbenchError(
            "compare takes a list of schemas, e.g. wb.compare(ds, [a, b]); for one design "
            "use wb.analyze(ds, schema)."
        )
    if isinstance(schemas, (str, bytes, dict)) or not hasattr(schemas, "__iter__"):
        raise WorkbenchError(f"compare takes a list of schemas, got {type(schemas).__name__}.")
    designs = list(schemas)
    bad = [s for s in designs if not isinstance(s, (Schema, ViewDesign))]
    if bad:
        raise WorkbenchError(
            f"compare takes workbench Schemas (wb.preset(...), wb.Schema(...)) or ViewDesigns "
            f"(wb.view_designs(ds)); got {bad[0]!r}."
        )
    if not designs:
        raise WorkbenchError("compare needs at least one schema.")
    if isinstance(names, str):
        raise WorkbenchError(
            f"names must be a list with one name per schema, got the string {names!r}."
        )
    labels = (
        list(names)
        if names is not None
        else [s.name if isinstance(s, ViewDesign) else schema_name(s) for s in designs]
    )
    if len(labels) != len(designs):
        raise WorkbenchError(f"compare got {len(designs)} schemas but {len(labels)} names.")
    seen: dict[str, int] = {}
    for i, lab in enumerate(labels):
        if lab in seen:
            labels[i] = f"{lab} ({seen[lab] + 1})"
        seen[lab] = seen.get(lab, 0) + 1
    return designs, labels


@workload_only  # events_per_s=, entities=, ... refused with the Workload line to write instead
def compare(
    ds: Dataset,
    schemas: Sequence[Schema | ViewDesign] | Mapping[str, Schema],
    *,
    names: Sequence[str] | None = None,
    queries: Sequence[str | QueryIntent] | str | None = None,
    nodes: int | None = None,
    measured: Mapping[str, Any] | None = None,
    settings: Settings | None = None,
    chunk_events: int = CHUNK_EVENTS,
    tiered_after_days: float | None = None,
    workload: Workload | None = None,
    workers: int | None = None,
) -> Comparison:
    """Analyse each schema on ``ds`` and rank them.

    Every design is sized for the same workload (the same **events** per second), each turning
    it into its own mutations: a design that writes every event twice needs twice the writes.

    Parameters
    ----------
    ds : Dataset
        The events every design is analysed on.
    schemas : Sequence[Schema]
        The designs to compare (``[wb.preset(ds, p) for p in wb.pattern_names(ds)]``).
    names : Sequence[str], optional
        A name per design (default: each schema's ``name``).
    queries : Sequence[str | QueryIntent] or str, optional
        Your queries, a line each (``"latest 1 per sensor"``) or QueryIntents, instead of the
        dataset's.
    nodes, measured, settings, chunk_events, tiered_after_days : optional
        Passed to :func:`analyze` for every design, as it documents them.
    workload : Workload, optional
        The production every design is sized for (:class:`~workbench.Workload`), as in
        :func:`analyze`.
    workers : int, optional
        Worker processes analysing designs side by side on a dataset of more than
        ``SPILL_EVENTS`` and at most ``WORKER_EVENTS`` events (a shape sample of a large
        file): by default one per CPU where Linux can fork, else none; ``1`` analyses them one
        after another here. The figures are the same either way (``analysis/workers.py``).

    Returns
    -------
    Comparison
        The analyses side by side with their rankings (cost, ceiling, hotspots);
        ``.view(columns)`` formats a table of them.
    """

    require_dataset(ds, "compare")
    wl = require_workload(workload)
    if queries is not None:  # your queries, in a line each, instead of the dataset's
        from ..datasets.queries import with_queries

        ds = with_queries(ds, queries)
    schemas, labels = _designs_and_labels(schemas, names)
    analyses: dict[str, Analysis] = {}
    notes: dict[str, str] = {}
    not_built: dict[str, str] = {}
    summaries: dict[str, dict[str, Any]] = {}  # made before a design's arrays are spilled
    side_by_side = SPILL_EVENTS < len(ds) <= WORKER_EVENTS
    n_workers = workers_for(len(schemas), workers) if side_by_side else 1
    # every design the engine path keys on a shape sample's files: one DuckDB pass for all
    equivalents = [s.equivalent if isinstance(s, ViewDesign) else s for s in schemas]
    with one_pass(ds, equivalents, settings), tempfile.TemporaryDirectory() as saved_dir:

        def job(s: Schema | ViewDesign) -> tuple[Analysis | None, dict[str, Any], str]:
            # one design that cannot be built for this dataset (a collision, a layout that
            # cannot hold a column) is a row with its reason; the others are still compared
            try:
                # a CMV's rows are the rows its client-maintained equivalent stores (analysis/views.py)
                schema = s.equivalent if isinstance(s, ViewDesign) else s
                used, note = carried_or_left_out(ds, schema)
                a = analyze(
                    used,
                    schema,
                    nodes=nodes,
                    measured=measured,
                    settings=settings,
                    chunk_events=chunk_events,
                    tiered_after_days=tiered_after_days,
                    workload=wl,
                )
            except WorkbenchError as e:
                return None, {}, str(e)
            if len(used) <= SPILL_EVENTS:
                return a, {}, note
            summary = {"verdict": a.keyspace.verdict(), **a.summary()}
            # a worker's arrays go to files its parent maps; here, straight to mapped files
            return (saved(a, saved_dir) if n_workers > 1 else spill(a)), summary, note

        jobs = [partial(job, s) for s in schemas]
        for lab, (a, summary, note) in zip(labels, run_jobs(jobs, n_workers), strict=True):
            if a is None:
                not_built[lab] = note
                continue
            analyses[lab] = restored(a)
            if summary:
                summaries[lab] = summary
            if note:
                notes[lab] = note
    if not analyses:
        raise WorkbenchError(
            "No design could be built for this dataset: "
            + "; ".join(f"{lab}: {why}" for lab, why in not_built.items())
        )
    c = compare_analyses(ds, analyses, summaries)
    if any(
        isinstance(s, ViewDesign) for s in schemas
    ):  # who keeps the derived rows, and at what cost
        c = with_view_costs(c, ds, dict(zip(labels, schemas, strict=True)), settings)
    return c.with_rows_not_built(not_built, notes)


def with_view_costs(
    c: Comparison, ds: Dataset, designs: Mapping[str, Schema | ViewDesign], settings: Any = None
) -> Comparison:
    """``c`` with the derived rows' columns (maintained by, client writes per event, Bigtable's
    maintenance writes, write node-s, staleness) for every design it compares."""
    from .views import view_cost

    extra = {
        lab: view_cost(ds, designs[lab], **({"settings": settings} if settings else {})).as_row()
        for lab in c.table.index
        if lab in designs
    }
    t = c.table.join(pd.DataFrame.from_dict(extra, orient="index"))
    return replace(c, table=t)


def carried_or_left_out(ds: Dataset, schema: Schema) -> tuple[Dataset, str]:
    """The dataset a design can hold: all of it, or without the attribute columns (text the
    user did not name as entity or measure) its layout cannot carry, with a note saying so.

    A value-in-the-qualifier layout (new columns, G12) holds one measure per cell and nothing
    else beside the key; an unnamed ``weather`` text column has no place there."""
    if not ds.attributes:
        return ds, ""
    from ..schema.shape import Shape

    bound = schema.bind(ds)
    try:
        schema.layout.check(schema.key, bound.carried_columns(schema.key))
        return ds, ""
    except WorkbenchError:
        pass
    keep = set(schema.key.recovers())
    drop = [c for c in ds.attributes if c not in keep]
    less = replace(
        ds,
        frame=ds.frame.drop(columns=drop),
        attributes=[c for c in ds.attributes if c not in drop],
    )
    # the layout's own error stands when leaving the attributes out does not help
    schema.layout.check(schema.key, schema.carried_columns(schema.key, Shape.of(less)))
    what = ", ".join(repr(c) for c in drop)
    return less, (
        f"{what} left out: the {schema.layout.label} layout cannot carry a column that is "
        "neither in the key nor a measure (name it as a measure or an entity to keep it)"
    )


def _rank_ceiling(s: pd.Series, label: str) -> dict[str, str]:
    """The designs by ceiling, highest first ("a > b": a takes more; "≈" within 5 %)."""
    order, ranking, tie = _ordered(s, higher_is_better=True)
    best, worst = order[0], order[-1]
    if len(order) == 1:
        reason = f"{best}: {number(s[best])} events/s"
    elif tie:
        reason = f"all about equal ({number(s[best])} events/s)"
        best = worst = ""
    else:
        reason = (
            f"{best} takes up to {number(s[best])} events/s at any node count; {worst} stops at "
            f"{number(s[worst])} events/s"
        )
    return {"criterion": label, "ranking": ranking, "best": best, "worst": worst, "reason": reason}


def _ties_under_the_ceilings(
    rec: dict[str, str], table: pd.DataFrame, analyses: Mapping[str, Analysis]
) -> dict[str, str]:
    """The hotspot ranking when every design's ceiling is far above the rate judged
    (``Settings.ceiling_headroom`` ×) and no busiest node is over the CPU target: the shapes
    keep their order ("<" where one is really worse: "≈" means within 5 %, and a 3.0× hotspot
    is not within 5 % of 1.3×, G06), but no design is coloured best or worst, and the reason
    says that at this rate none of them costs anything yet."""
    rate = float(table["events_per_s"].max())
    ceilings = table["ceiling_events_per_s"].astype(float)
    headroom = min(a.keyspace.settings.ceiling_headroom for a in analyses.values())
    busy = any(a.keyspace.hotspot for a in analyses.values())
    if busy or not (ceilings >= headroom * rate).all() or not rec["best"]:
        return rec
    return {
        **rec,
        "best": "",
        "worst": "",
        "reason": (
            f"the shapes differ ({rec['reason']}), but none costs anything at "
            f"{rate_text(rate, 'events')}: every design's ceiling is over {headroom:,.0f}× that "
            f"(lowest {number(ceilings.min())} events/s) and no node is near its CPU target"
        ),
    }


def compare_analyses(
    ds: Dataset,
    analyses: dict[str, Analysis],
    summaries: Mapping[str, Mapping[str, Any]] | None = None,
) -> Comparison:
    """Rank analyses already made (one per label) without recomputing them.

    The designer passes the very analyses its tabs show (at the slider's node count), so the
    comparison table, its ranking and the heat maps above it read one set of numbers.
    ``summaries``: a design's verdict and ``summary()`` made already (``compare`` makes them
    before it spills the design's arrays to mapped files: reading them back is not needed).
    """
    nodes = {a.keyspace.nodes for a in analyses.values()}
    if len(nodes) > 1:
        raise WorkbenchError(
            f"compare_analyses got analyses on different cluster sizes ({sorted(nodes)} nodes); "
            "a fair share is only comparable on one cluster size."
        )
    recs = []
    for lab, a in analyses.items():
        made = (summaries or {}).get(lab)
        r = {"design": lab, **(made or {"verdict": a.keyspace.verdict(), **a.summary()})}
        recs.append(r)
    table = pd.DataFrame.from_records(recs).set_index("design")
    criteria = [
        ("hotspot_factor", "hotspot (busiest node ÷ fair share)"),
        ("ceiling_events_per_s", "ceiling (events/s no node count lifts)"),
        ("bytes_per_event", "storage (bytes per event)"),
        ("projected_max_row_bytes", "largest row (after retention)"),
    ]
    fmts = {
        "hotspot_factor": lambda v: f"{fair_factor(v)} fair",
        "bytes_per_event": lambda v: f"{v:,.0f} B/event",
        "projected_max_row_bytes": lambda v: human_bytes(v),
    }
    for q in ds.queries:
        col = f"{q.name}: node ms"
        if col in table.columns:
            criteria.append((col, f"query {q.name} (node-ms per run)"))
            fmts[col] = lambda v: f"{v:,.3f} node-ms"
    missing = [c for c, _ in criteria if c not in table.columns or table[c].isna().any()]
    rank_recs = []
    for col, lab in criteria:
        if col in missing:
            cant = (
                table.index[table[col].isna()].tolist()
                if col in table.columns
                else list(table.index)
            )
            rank_recs.append(
                {
                    "criterion": lab,
                    "ranking": "—",
                    "best": "",
                    "worst": "",
                    "reason": f"cannot be planned by {', '.join(cant)}",
                }
            )
            continue
        if col == "ceiling_events_per_s":  # higher is better
            rec = _rank_ceiling(table[col].astype(float), lab)
        else:
            rec = _rank(table, col, lab, fmts[col])
        if col == "hotspot_factor":
            rec = _ties_under_the_ceilings(rec, table, analyses)
        query = col.split(": node ms")[0] if col.endswith(": node ms") else None
        if query is not None:  # say why: rows seen and scans of best and worst
            b, w = rec["best"], rec["worst"]
            if b != w:
                rec["reason"] += (
                    f"; rows seen {int(table.loc[b, query + ': rows seen']):,} vs "
                    f"{int(table.loc[w, query + ': rows seen']):,}, scans {int(table.loc[b, query + ': scans'])} "
                    f"vs {int(table.loc[w, query + ': scans'])} on the sample"
                )
        rank_recs.append(rec)
    rankings = pd.DataFrame.from_records(rank_recs).set_index("criterion")
    return Comparison(
        dataset=ds.name,
        analyses=analyses,
        table=table,
        rankings=rankings,
        criteria=criteria,
    )
