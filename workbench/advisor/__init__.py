"""The schema advisor: what is wrong with a design, why, measured on your data, and a better schema.

    advice = wb.advise(ds, schema)       # Advice: a list of Finding, worst first
    advice.problems                      # errors and warnings
    advice[0].suggestion                 # a better Schema, ready to apply (or None)

Each rule is a small function in :mod:`workbench.advisor.rules` (registered in
``RULES``) citing guideline IDs G01–G31; the evidence comes from the schema
engine (limits, collisions) and the analysis (hotspots, row sizes, query costs).
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from ..analysis import Analysis, Settings
from ..datasets.model import Dataset, require_dataset
from ..datasets.workload import Workload, require_workload, workload_only
from ..errors import WorkbenchError
from ..schema.schema import Schema
from . import (
    load_rules,  # noqa: F401  (importing it registers the stated-rate rules)
    view_rules,  # noqa: F401  (importing it registers the managed-alternative rules)
)
from .context import Context
from .findings import SEVERITIES, Advice, Finding
from .rules import RULES, Rule, pii_kind


@workload_only  # events_per_s=, entities=, ... refused with the Workload line to write instead
def advise(
    ds: Dataset,
    schema: Schema,
    *,
    settings: Settings | None = None,
    nodes: int | None = None,
    rules: Iterable[str] | None = None,
    analysis: Analysis | None = None,
    context: Context | None = None,
    workload: Workload | None = None,
) -> Advice:
    """Findings for ``schema`` on ``ds``: severity, guideline IDs, measured evidence, a fix and
    a better schema.

    Parameters
    ----------
    ds : Dataset
        The events the design is judged on.
    schema : Schema
        The design.
    settings : Settings, optional
        The analysis settings (limits, retention, nodes model).
    nodes : int, optional
        Cluster size of the load model (default 3).
    rules : Iterable[str], optional
        Only these rule names (default: every rule).
    analysis : Analysis, optional
        ``analyze(ds, schema, nodes=nodes)`` already made (the designer passes the one its tabs
        show, so every figure a finding quotes is the figure on screen).
    context : Context, optional
        A :class:`Context` of the same dataset and design from an earlier call
        (``Advice.context``), whose cells are reused when only the cluster size changed.
    workload : Workload, optional
        The production the findings are judged at, as in :func:`~workbench.analyze`:
        severities follow what a shape costs at that rate, a design capacity calls
        hotspot-limited always has a finding, and no suggestion is itself limited below the
        stated rate.

    Returns
    -------
    Advice
        The findings (most severe first) with their evidence and suggested schemas;
        ``.context`` for a later call.
    """
    require_dataset(ds, "advise")
    if not isinstance(schema, Schema):
        raise WorkbenchError(
            f"advise() needs a workbench Schema, got {type(schema).__name__}; "
            "build one with wb.preset(dataset, pattern) or wb.Schema(...)."
        )
    known = [r.name for r in RULES]
    if rules is not None:
        rules = [rules] if isinstance(rules, str) else list(rules)
        bad = [r for r in rules if r not in known]
        if bad:
            raise WorkbenchError(f"Unknown advisor rule(s) {bad}; rules: {', '.join(known)}.")
    t0 = time.perf_counter()
    wl = require_workload(workload)
    if analysis is not None and nodes is not None and analysis.keyspace.nodes != nodes:
        raise WorkbenchError(
            f"advise got an analysis on {analysis.keyspace.nodes} nodes but nodes={nodes}."
        )
    if (
        context is not None
        and (context.source if context.source is not None else context.ds) is ds
        and context.schema == schema
        and context.settings == (settings or context.settings)
        and context.workload == wl
    ):
        ctx = context.at_nodes(nodes, analysis)
    else:
        ctx = Context.build(
            ds, schema, settings=settings, nodes=nodes, analysis=analysis, workload=wl
        )
    found: list[Finding] = []
    for r in RULES:
        if rules is None or r.name in rules:
            found += r(ctx)
    if wl.events_per_s is not None:
        found = _unlimited_suggestions(ctx, found)
    out = Advice(
        found,
        dataset=ds.name,
        schema=schema.name,
        elapsed_ms=(time.perf_counter() - t0) * 1e3,
    )
    out.context = ctx
    return out


def _unlimited_suggestions(ctx: Context, found: list[Finding]) -> list[Finding]:
    """Every suggestion checked at the stated workload: one that would itself be
    hotspot-limited below the stated rate is withdrawn, and the finding says why."""
    from dataclasses import replace

    from ..analysis import analyze
    from ..formatting import rate

    verdicts: dict[int, str | None] = {}
    out: list[Finding] = []
    for f in found:
        s = f.suggestion
        if s is None:
            out.append(f)
            continue
        if id(s) not in verdicts:
            try:
                cap = analyze(
                    ctx.ds, s, settings=ctx.settings, nodes=ctx.nodes, workload=ctx.workload
                ).capacity
            except WorkbenchError:
                verdicts[id(s)] = None  # not buildable here: the rule's own check stands
            else:
                verdicts[id(s)] = (
                    f"the usual fix, {s.name!r}, is not suggested: at "
                    f"{rate(cap.events_per_s, 'events')} it would itself stop scaling at "
                    f"{rate(cap.ceiling_events_per_s, 'events')} ({cap.fix() or cap.verdict()})"
                    if cap.hotspot_limited
                    else None
                )
        why = verdicts[id(s)]
        out.append(f if why is None else replace(f, suggestion=None, evidence=(*f.evidence, why)))
    return out


def rule_names() -> list[str]:
    return [r.name for r in RULES]


__all__ = ["advise", "Advice", "Finding", "RULES", "Rule", "SEVERITIES", "rule_names", "pii_kind"]
