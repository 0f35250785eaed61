"""What a design does, before production: key distribution, row sizes, query costs, capacity, comparison.

``wb.analyze(ds, schema)`` runs every analysis of one schema on one dataset
(one ``to_cells``, one shared :class:`CellIndex`, then numpy); the result shows
itself in a notebook. ``wb.compare(ds, [a, b, ...])`` ranks designs side by side.

Everything is computed from the CellFrame and the read plans, so it runs
without the emulator; measured emulator figures can be passed in to be shown
beside the model.
"""

from __future__ import annotations

from ..notes import EMULATOR_NOTES
from ._index import CellIndex
from .capacity import Capacity, capacity, compression_ratio
from .comparison import Comparison, compare
from .keyspace import KeyDistribution, key_distribution, writes_from_index
from .overview import Analysis, analyze, build_index, schema_name
from .querycost import QueryCosts, evaluate, plans_for, query_costs
from .rowsizes import RowSizes, bucket_width_sweep, row_sizes
from .settings import DEFAULT, Settings

__all__ = [
    "Analysis",
    "Comparison",
    "schema_name",
    "plans_for",
    "analyze",
    "compare",
    "Settings",
    "DEFAULT",
    "EMULATOR_NOTES",
    "CellIndex",
    "KeyDistribution",
    "RowSizes",
    "QueryCosts",
    "Capacity",
    "key_distribution",
    "row_sizes",
    "query_costs",
    "capacity",
    "compression_ratio",
    "evaluate",
    "writes_from_index",
    "bucket_width_sweep",
    "build_index",
]
