"""Bigtable time-series schema workbench.

One import for notebooks::

    import workbench as wb
    wb.setup()
    ds = wb.load_dataset("fx_prices", size="workshop")
    schema = wb.preset("fx_prices", wb.pattern_names("fx_prices")[0])

Names are resolved lazily so ``import workbench`` stays fast and a notebook's
setup cell does not pay for matplotlib or the Bigtable client until used.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# how each result shows itself in a notebook (its figures): registered once, here, so the
# analyses never import the figures (workbench/reprs.py); light, it imports no figure module
from . import display as display  # noqa: E402

_EXPORTS: dict[str, str] = {
    # errors
    "WorkbenchError": "workbench.errors",
    "DatasetError": "workbench.errors",
    "SchemaError": "workbench.errors",
    "CollisionError": "workbench.errors",
    "LimitError": "workbench.errors",
    "EmulatorError": "workbench.errors",
    "EmulatorNotFound": "workbench.errors",
    "EmulatorUnavailable": "workbench.errors",
    "ProductionNotAllowed": "workbench.errors",
    "ConfirmationRequired": "workbench.errors",
    "WriteError": "workbench.errors",
    "full_tracebacks": "workbench.errors",
    # data model
    "CellFrame": "workbench.cells",
    "Dataset": "workbench.datasets.model",
    "QueryIntent": "workbench.datasets.model",
    # the production a team states: every figure is computed at it (the sample gives the shape)
    "Workload": "workbench.datasets.workload",
    "QueryLoad": "workbench.datasets.workload",
    "Spread": "workbench.datasets.workload",
    "ReadPlan": "workbench.schema.plan",
    # datasets
    "dataset_names": "workbench.datasets",
    "load_dataset": "workbench.datasets",
    "from_dataframe": "workbench.datasets",
    "from_csv": "workbench.datasets",
    "from_parquet": "workbench.datasets",
    # schemas
    "Schema": "workbench.schema",
    "pattern_names": "workbench.schema",
    "preset": "workbench.schema",
    "presets": "workbench.schema",
    # building blocks for designs beyond the presets (notebooks 04–06: tenant prefixes G25,
    # reversed domains G27, a row per reading G24, reversed IDs G23)
    "RowKey": "workbench.schema",
    "Literal": "workbench.schema",
    "Field": "workbench.schema",
    "PaddedInt": "workbench.schema",
    "ReversedId": "workbench.schema",
    "ReversedDomain": "workbench.schema",
    "Metric": "workbench.schema",
    "Timestamp": "workbench.schema",
    "ReversedTimestamp": "workbench.schema",
    "Salt": "workbench.schema",
    "Family": "workbench.schema",
    "Tall": "workbench.schema",
    "NewCells": "workbench.schema",
    # families by retention / access tier with their own GC, pre-aggregated rows (notebook 03: G18, G30)
    "Aggregates": "workbench.schema",
    "max_age": "workbench.schema",
    "max_versions": "workbench.schema",
    "loss_report": "workbench.schema",
    # Bigtable today: row-key schemas, continuous materialized views, counters (G29, G05)
    "row_key_schemas": "workbench.schema.rowkey_schema",
    "key_conformance": "workbench.schema.key_conformance",
    "ViewDesign": "workbench.schema.views",
    "Rollup": "workbench.schema.views",
    "AsyncIndex": "workbench.schema.views",
    "view_designs": "workbench.schema.views",
    "view_queries": "workbench.schema.views",
    "view_cost": "workbench.analysis.views",
    "Counters": "workbench.schema.counters",
    # Bigtable
    "Emulator": "workbench.bigtable.emulator",
    "Connection": "workbench.bigtable.connection",
    "connect": "workbench.bigtable",
    # notebook conveniences
    "setup": "workbench.session",
    "cleanup": "workbench.session",
    "emulator": "workbench.session",
    "check": "workbench.exercises",
    "____": "workbench.exercises",  # the blank an exercise's answer cell starts with
    "GUIDELINES": "workbench.guidelines",
    # analysis, advice, UI
    "analyze": "workbench.analysis",
    "compare": "workbench.analysis",
    "advise": "workbench.advisor",
    "export": "workbench.advisor.export",
    "designer": "workbench.ui",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'workbench' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
