"""What every rule looks at: the design's cells, what they lost, and the analysis of them.

Built once per ``advise`` call. The cells come from ``schema.to_cells(ds,
accept_loss=True)``, so a design that collides (G31) or rounds times is still
analysed — its loss report is the evidence. A hard Cloud Bigtable limit
(``LimitError``, G10/G19/G20) leaves no cells; rules that need them stay silent and
the limit rule reports the error. Attribute columns the layout cannot carry are left out of
the events as ``wb.compare`` leaves them out, and the ``left_out`` rule says so.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from ..analysis import Analysis, Settings, analyze
from ..analysis.comparison import carried_or_left_out
from ..analysis.settings import DEFAULT
from ..cells import CellFrame
from ..datasets.model import Dataset
from ..datasets.workload import Workload
from ..errors import LimitError
from ..schema import LossReport, RowKey, Schema, loss_report
from ..schema import findings as limit_findings


@dataclass
class Context:
    ds: Dataset
    schema: Schema
    settings: Settings = DEFAULT
    nodes: int | None = None
    cells: CellFrame | None = None
    loss: LossReport = field(default_factory=LossReport)
    limit_error: LimitError | None = None
    workload: Workload | None = None
    # attribute columns the design's layout cannot carry, left out of ``ds`` as ``wb.compare``
    # leaves them out (its note; "" when none), and the dataset as it was given
    left_out: str = ""
    source: Dataset | None = None

    @classmethod
    def build(
        cls,
        ds: Dataset,
        schema: Schema,
        *,
        settings: Settings | None = None,
        nodes: int | None = None,
        analysis: Analysis | None = None,
        workload: Workload | None = None,
    ) -> Context:
        # a text column the user named neither entity nor measure, which the layout cannot
        # carry (new columns, wide rows), is left out as compare leaves it out: a finding says so
        used, left_out = carried_or_left_out(ds, schema)
        c = cls(
            ds=used,
            schema=schema,
            settings=settings or DEFAULT,
            nodes=nodes,
            workload=workload,
            left_out=left_out,
            source=ds,
        )
        if analysis is not None:  # the caller's analysis: findings quote the numbers it shows
            c.__dict__["analysis"] = analysis
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # advisory limits become findings, not warnings
                c.cells = schema.to_cells(used, accept_loss=True)
            c.loss = loss_report(c.cells)
        except LimitError as e:
            c.limit_error = e
        return c

    def at_nodes(self, nodes: int | None, analysis: Analysis | None = None) -> Context:
        """The same design on another cluster size: the cells, loss report and every cached
        node-independent figure (cell bytes, raw mask, families) are kept, only the analysis
        changes (the designer's nodes slider re-advises without rebuilding the cells)."""
        import dataclasses

        c = dataclasses.replace(self, nodes=nodes)
        keep = ("cell_bytes", "raw_mask", "table_families")
        c.__dict__.update({k: self.__dict__[k] for k in keep if k in self.__dict__})
        if analysis is not None:
            c.__dict__["analysis"] = analysis
        return c

    @cached_property
    def analysis(self) -> Analysis | None:
        if self.cells is None or len(self.cells.frame) == 0:
            return None
        return analyze(
            self.ds,
            self.schema,
            cells=self.cells,
            settings=self.settings,
            nodes=self.nodes,
            workload=self.workload,
        )

    @cached_property
    def table_families(self) -> dict:
        """Families per logical table, with the dataset's measures known (Wide layouts need them)."""
        return self.schema.bind(self.ds).table_families()

    @property
    def tables(self) -> list[tuple[str, RowKey]]:
        return self.schema.all_tables()

    @property
    def frame(self) -> pd.DataFrame:
        """The design's cells; rules check ``cells is not None`` (a refused design has none) first."""
        if self.cells is None:
            raise ValueError(
                "This design produced no cells (a limit refused it); check .cells first."
            )
        return self.cells.frame

    @property
    def limit_findings(self) -> tuple:
        return limit_findings(self.cells) if self.cells is not None else ()

    @cached_property
    def cell_bytes(self) -> np.ndarray:
        """Bytes of each cell as the size model counts them: key + family + qualifier + 8 + value."""
        f = self.frame
        return (
            f["row_key"].str.len().to_numpy()
            + f["family"].str.len().to_numpy()
            + f["qualifier"].str.len().to_numpy()
            + 8
            + np.fromiter((len(v) for v in f["value"]), np.int64, len(f))
        )

    @cached_property
    def raw_mask(self) -> np.ndarray:
        """Cells that are events (not pre-aggregated summary rows)."""
        f = self.frame
        if self.schema.aggregates is None:
            return np.ones(len(f), dtype=bool)
        lead = self.schema.aggregates.lead(self.schema.key.delimiter) + self.schema.key.delimiter
        return ~f["row_key"].str.startswith(lead).to_numpy()

    def weight(self, query: str) -> float:
        return next((q.weight for q in self.ds.queries if q.name == query), 1.0)

    def example_keys(self, table: str, n: int = 2) -> list[str]:
        """Up to ``n`` row keys of ``table`` ([] when a limit refused the design: no cells)."""
        if self.cells is None:
            return []
        f = self.frame
        return list(pd.unique(f.loc[f["table"] == table, "row_key"])[:n])
