"""Caches behind the designer: datasets, per-design analyses, figures and advice.

A widget change must re-render in a quarter of a second on workshop-size data,
so nothing is computed twice: a dataset is generated once per (name, size); a
design's analysis once per (dataset, schema) — schemas are frozen dataclasses,
so equal designs hit the same entry; changing only the cluster size re-runs the
key-distribution model on the cached cell index instead of rebuilding cells; a
figure is drawn once per (analysis, picture).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

from cachetools import LRUCache

from ..analysis import Analysis, analyze
from ..analysis.settings import DEFAULT
from ..datasets.workload import Workload

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset
    from ..schema.schema import Schema


class _LRU(LRUCache[Hashable, Any]):
    """cachetools' least-recently-used cache, ``size`` entries, with get-or-make."""

    def __init__(self, size: int) -> None:
        super().__init__(maxsize=size)

    def get_or(self, key: Hashable, make: Callable[[], Any]) -> Any:
        try:
            return self[key]  # a hit is the most recently used entry now
        except KeyError:
            value = make()
            self[key] = value  # over ``size``, the least recently used entry goes
            return value


def with_nodes(a: Analysis, ds: Dataset, nodes: int) -> Analysis:
    """The same analysis on a cluster of ``nodes`` nodes, reusing its cell index (no new cells)."""
    if a.keyspace.nodes == nodes:
        return a
    # capacity sizes the cluster itself (it does not depend on the modelled node count): kept
    return dataclasses.replace(a, keyspace=a.keyspace.at_nodes(nodes))


class Workspace:
    """The designer's memory: everything it computed, keyed by what it depends on."""

    def __init__(self, size: int = 24) -> None:
        self._datasets: dict[tuple[str, str], Any] = {}
        self._analyses = _LRU(size)
        self._figures = _LRU(size * 6)
        self._advice = _LRU(size)
        self._views = _LRU(size)  # a view added to a design: its SQL, costs and query rows
        self._contexts = _LRU(4)  # the advisor's cells per design (a cell frame each: kept few)
        self.hits = 0
        self.misses = 0
        self.workload = Workload()  # the production every analysis is at (wb.Workload)

    def set_workload(self, workload: Workload) -> bool:
        """Analyse at ``workload`` from now on; True when it changed (everything computed at
        the old one is dropped: no figure may mix two workloads)."""
        if workload == self.workload:
            return False
        self.workload = workload
        self.clear()
        return True

    # -- datasets ---------------------------------------------------------------------------
    def dataset(self, name: str, size: str = "workshop") -> Any:
        from ..datasets import load_dataset

        key = (name, size)
        if key not in self._datasets:
            self._datasets[key] = load_dataset(name, size=size)
        return self._datasets[key]

    # -- analyses ---------------------------------------------------------------------------
    def analysis(self, ds: Dataset, schema: Schema, nodes: int = DEFAULT.nodes) -> Analysis:
        """The analysis of ``schema`` on ``ds`` on ``nodes`` nodes (cached)."""
        # entries hold the dataset too, so an id() in a key is never reused while the entry lives
        base_key = (id(ds), schema, None)
        hit = base_key in self._analyses
        _, base = self._analyses.get_or(
            base_key, lambda: (ds, analyze(ds, schema, workload=self.workload))
        )
        if nodes == base.keyspace.nodes:
            self._count(hit)
            return base
        key = (id(ds), schema, nodes)
        self._count(key in self._analyses)
        return self._analyses.get_or(key, lambda: (ds, with_nodes(base, ds, nodes)))[1]

    def _count(self, hit: bool) -> None:
        if hit:
            self.hits += 1
        else:
            self.misses += 1

    def cached(self, ds: Dataset, schema: Schema) -> bool:
        return (id(ds), schema, None) in self._analyses

    # -- figures ----------------------------------------------------------------------------
    def figure(self, a: Analysis, which: str, **opts: Any) -> bytes:
        from ._render import figure_png

        key = (id(a), which, tuple(sorted(opts.items())))
        return self._figures.get_or(key, lambda: (a, figure_png(a, which, **opts)))[1]

    def heatmap(self, a: Analysis, what: str = "writes") -> str:
        """The designer's HTML heat map of ``a`` (cached like the figures)."""
        from ..plots.heatmap import key_heatmap_html

        key = (id(a), "heatmap-html", what)
        return self._figures.get_or(key, lambda: (a, key_heatmap_html(a.keyspace, what)))[1]

    def html(self, a: Analysis, which: str) -> str:
        """The designer's HTML picture ``which`` (rowsizes or queries) of ``a`` (cached)."""
        from ..plots.keyspace import hotspot_html, node_load_html
        from ..plots.queries import query_costs_html
        from ..plots.sizes import row_sizes_html

        draw = {
            "rowsizes": lambda: row_sizes_html(a.rowsizes),
            "queries": lambda: query_costs_html(a.queries),
            "nodes": lambda: node_load_html(a.keyspace),
            "hotspot": lambda: hotspot_html(a.keyspace),
        }
        if which not in draw:
            raise ValueError(f"No HTML picture {which!r}; choose one of {', '.join(draw)}.")
        return self._figures.get_or((id(a), "html", which), lambda: (a, draw[which]()))[1]

    # -- views ----------------------------------------------------------------------------
    def view_effect(self, ds: Dataset, schema: Schema, view: Any, table_id: str) -> Any:
        """``view_effect(ds, schema, view)``: a view added to the design (cached per dataset,
        design, view and table id)."""
        from ..analysis.views import view_effect

        return self._views.get_or(
            (id(ds), schema, view, table_id),
            lambda: (ds, view_effect(ds, schema, view, table_id=table_id)),
        )[1]

    def view_effect_cached(self, ds: Dataset, schema: Schema, view: Any, table_id: str) -> Any:
        hit = self._views.get((id(ds), schema, view, table_id))
        return hit[1] if hit is not None else None

    # -- advice -----------------------------------------------------------------------------
    def advice(self, ds: Dataset, schema: Schema, nodes: int | None = None) -> list[Any]:
        """``wb.advise(ds, schema)`` findings, worst first (cached per dataset, design and cluster size).

        The advisor reads the designer's cached analysis at this node count, so a finding's
        numbers are the headline's and the tabs'."""

        def make() -> list[Any]:
            from ..advisor import advise

            a = self.analysis(ds, schema, nodes=nodes or DEFAULT.nodes)
            # another cluster size of a design already advised: its cells are reused
            ctx = self._contexts.get((id(ds), schema))
            advice = advise(
                ds,
                schema,
                nodes=nodes,
                analysis=a,
                context=ctx[1] if ctx else None,
                workload=self.workload,
            )
            self._contexts.get_or((id(ds), schema), lambda: (ds, advice.context))
            return list(advice)

        return self._advice.get_or((id(ds), schema, nodes), lambda: (ds, make()))[1]

    def clear(self) -> None:
        self._analyses.clear()
        self._figures.clear()
        self._advice.clear()
        self._views.clear()
        self._contexts.clear()


__all__ = ["Workspace", "with_nodes"]
