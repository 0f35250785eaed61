"""The public surface of ``workbench`` for type checkers and IDEs, and the one list of it.

``workbench/__init__.py`` hands this file to ``lazy_loader.attach_stub``: each
``from .module import name`` below is resolved on first use (so ``import workbench`` stays
fast), and mypy and IDEs read the same lines as the real signatures. A new public name is one
line here. (Grouped by topic, not sorted: the groups are the documentation.)
"""

# ruff: noqa: I001

from . import display as display

# errors
from .errors import (
    WorkbenchError as WorkbenchError,
    DatasetError as DatasetError,
    SchemaError as SchemaError,
    SettingsError as SettingsError,
    RemovedKeyword as RemovedKeyword,
    CollisionError as CollisionError,
    LimitError as LimitError,
    EmulatorError as EmulatorError,
    EmulatorNotFound as EmulatorNotFound,
    EmulatorUnavailable as EmulatorUnavailable,
    ProductionNotAllowed as ProductionNotAllowed,
    ConfirmationRequired as ConfirmationRequired,
    WriteError as WriteError,
    ExtraMissing as ExtraMissing,
    full_tracebacks as full_tracebacks,
)

# data model
from .cells import CellFrame as CellFrame
from .datasets.model import Dataset as Dataset, QueryIntent as QueryIntent

# the production a team states: every figure is computed at it (the sample gives the shape)
from .datasets.workload import Workload as Workload, QueryLoad as QueryLoad, Spread as Spread
from .schema.plan import ReadPlan as ReadPlan

# datasets
from .datasets import (
    dataset_names as dataset_names,
    load_dataset as load_dataset,
    from_dataframe as from_dataframe,
    from_csv as from_csv,
    from_parquet as from_parquet,
)

# schemas
from .schema import (
    Schema as Schema,
    pattern_names as pattern_names,
    preset as preset,
    presets as presets,
)

# building blocks for designs beyond the presets (notebooks 04–06: tenant prefixes G25,
# reversed domains G27, a row per reading G24, reversed IDs G23)
from .schema import (
    RowKey as RowKey,
    Literal as Literal,
    Field as Field,
    PaddedInt as PaddedInt,
    ReversedId as ReversedId,
    ReversedDomain as ReversedDomain,
    Metric as Metric,
    Timestamp as Timestamp,
    ReversedTimestamp as ReversedTimestamp,
    Salt as Salt,
    Family as Family,
    Tall as Tall,
    NewCells as NewCells,
)

# families by retention / access tier with their own GC, pre-aggregated rows (notebook 03: G18, G30)
from .schema import (
    Aggregates as Aggregates,
    max_age as max_age,
    max_versions as max_versions,
    loss_report as loss_report,
)

# Bigtable today: row-key schemas, continuous materialized views, counters (G29, G05)
from .schema.rowkey_schema import row_key_schemas as row_key_schemas
from .schema.key_conformance import key_conformance as key_conformance
from .schema.views import (
    ViewDesign as ViewDesign,
    Rollup as Rollup,
    AsyncIndex as AsyncIndex,
    view_designs as view_designs,
    view_queries as view_queries,
)
from .analysis.views import view_cost as view_cost
from .schema.counters import Counters as Counters

# Bigtable
from .bigtable.emulator import Emulator as Emulator
from .bigtable.connection import Connection as Connection
from .bigtable import connect as connect

# notebook conveniences
from .session import setup as setup, cleanup as cleanup, emulator as emulator
from .exercises import check as check
from .exercises import ____ as ____  # the blank an exercise's answer cell starts with
from .guidelines import GUIDELINES as GUIDELINES

# a table a notebook builds, shown as the workbench's own are: each column (or row, for a table
# of figures) in its unit, a unit in the label or the value, never both; data as written
from .formatting import styled as styled, styled_rows as styled_rows, as_written as as_written

# analysis, advice, UI
from .analysis import analyze as analyze, compare as compare
from .analysis.sheet import production_sheet as production_sheet
from .analysis.settings import Settings as Settings  # every modelling constant, with its rule
from .advisor import advise as advise
from .advisor.export import export as export
from .ui import designer as designer

__version__: str
