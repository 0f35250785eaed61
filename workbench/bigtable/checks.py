"""Input checks run before the first request of a load or a query, so bad input is refused
with a clear message and nothing is half-written: event times Bigtable cannot store, text
UTF-8 cannot encode, rows the emulator cannot take in reasonable time (G24), query names,
ranges and entity values the dataset does not have; and, for a write, target tables that lack
a family the cells use, or an HLL family the emulator cannot store."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..cells import CellFrame
from ..errors import DatasetError, WriteError
from ..units import human_bytes

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset, QueryIntent
    from ..schema.schema import Schema
    from .connection import Connection


def check_run_intent(intent: QueryIntent | str, dataset: Dataset) -> QueryIntent:
    """The intent to run, checked before any request: a known name, a time range that is a
    range, entity values the dataset has (else 0 rows and no hint), text that UTF-8 can encode."""
    from ..datasets.model import QueryIntent
    from ..datasets.validate import suggestion

    if isinstance(intent, str):
        known = [q.name for q in dataset.queries]
        if intent not in known:
            raise DatasetError(
                f"Dataset {dataset.name!r} has no query {intent!r}.{suggestion(intent, known)} "
                f"Its queries are: {', '.join(known) or 'none'} (or pass a wb.QueryIntent). "
                "Nothing was read."
            )
        intent = dataset.query(intent)
    if not isinstance(intent, QueryIntent):
        raise DatasetError(
            f"run() takes a query name or a wb.QueryIntent, got {type(intent).__name__} "
            f"{intent!r}. Nothing was read."
        )
    if intent.start is not None and intent.end is not None and intent.end <= intent.start:
        raise DatasetError(
            f"Query {intent.name!r}: end {intent.end} is not after start {intent.start} "
            "(end is exclusive: it must be later than start). Nothing was read."
        )
    for col, val in intent.entity.items():
        if isinstance(val, str):
            _check_utf8(val, f"Query {intent.name!r}: {col}")
        if col in dataset.frame.columns and not (dataset.frame[col] == val).any():
            values = pd.unique(dataset.frame[col])
            shown = ", ".join(repr(getattr(v, "item", lambda v=v: v)()) for v in values[:10]) + (
                " ..." if len(values) > 10 else ""
            )
            raise DatasetError(
                f"Query {intent.name!r}: {col}={val!r} is not in dataset {dataset.name!r}, so it "
                f"would return 0 rows. Known values of {col!r} ({len(values):,}): {shown}. "
                "Nothing was read."
            )
    return intent


def _check_utf8(value: str, where: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise DatasetError(
            f"{where}={value!r} cannot be stored: character {exc.start} "
            f"({value[exc.start]!r}) is a lone surrogate, which UTF-8 cannot encode (row keys "
            "and values are UTF-8 bytes). Fix or drop that value. Nothing was written."
        ) from None


# Bigtable cell timestamps are microseconds since 1970 and cannot be negative (the emulator
# answers "INTERNAL invalid timestamp" mid-write); pandas' nanosecond times end in 2262.
_EPOCH = pd.Timestamp("1970-01-01", tz="UTC")


def check_loadable(dataset: Dataset) -> None:
    """Checks run before the first request of a load: nothing is half-written by bad input."""

    t = dataset.frame[dataset.time]
    if len(t):
        lo, hi = t.min(), t.max()
        if lo < _EPOCH:
            row = int(np.flatnonzero((t < _EPOCH).to_numpy())[0])
            raise DatasetError(
                f"Column {dataset.time!r} holds {lo} (row {row}), before 1970-01-01: Bigtable cell "
                "timestamps are microseconds since 1970 and cannot be negative. Nothing was "
                "written. The analyses need no table: wb.analyze, wb.compare and wb.advise work "
                "on these events as they are. To write them, drop those events, or write a "
                "shifted copy: ds.shifted() moves every time and query forward by whole weeks."
            )
        if hi > pd.Timestamp.max.tz_localize("UTC"):
            raise DatasetError(
                f"Column {dataset.time!r} holds {hi}, after {pd.Timestamp.max:%Y-%m-%d}: the "
                "workbench keeps times in nanoseconds, which end there. Drop or fix those "
                "events. Nothing was written."
            )
    for col in dataset.entity:
        c = dataset.frame[col]
        if c.dtype == object or pd.api.types.is_string_dtype(c):
            for v in pd.unique(c):
                if isinstance(v, str):
                    _check_utf8(v, f"Column {col!r} value")


# The emulator slows down quadratically on writes into one row with very many versions
# (measured, cbtemulator of SDK 528: 25k events 8.4 s, 50k events = 100k cells 40 s; see
# docs/architecture.md). Above this many cells in one row a load on the emulator is refused
# up front (G24) instead of ending in a deadline error half-way.
EMULATOR_MAX_ROW_CELLS = 50_000
_QUADRATIC_REF = (100_000, 40.0)  # cells, seconds
# what one more cell costs the emulator per cell already in its row: t(n) = c·n²/2 for n cells
# written into one row, so c = 2 · 40 s / 100,000² = 8 ns (the writer paces deep rows with it)
EMULATOR_CELL_DEPTH_S = 2 * _QUADRATIC_REF[1] / _QUADRATIC_REF[0] ** 2


def check_row_depth(cells: CellFrame, dataset: Dataset, schema: Schema, max_row_cells: int) -> None:
    """Refuse, before any request, a load whose deepest row holds over ``max_row_cells`` cells."""
    if not len(cells):
        return
    counts = cells.frame.groupby(["table", "row_key"], sort=False, observed=True).size()
    deepest = int(counts.max())
    if deepest <= max_row_cells:
        return
    (logical, key) = counts.idxmax()
    n_deep = int((counts > max_row_cells).sum())
    ref_cells, ref_s = _QUADRATIC_REF
    est = ref_s * (deepest / ref_cells) ** 2
    name = dataset.name
    raise WriteError(
        f"Row {key!r} (table {logical!r}) would hold {deepest:,} cells "
        f"({n_deep:,} row(s) over {max_row_cells:,}; {len(cells):,} cells in all): design "
        f"{schema.name!r} keeps adding to one ever-growing row, which G24 "
        "advises against (write a new row per reading or per time bucket). On the emulator, "
        "writes into one row slow down quadratically with its versions (measured: 100,000 "
        f"cells in 40 s; this row ≈ {est:,.0f} s), and on Cloud Bigtable such a row heads for "
        "the 100 MB row limit. Nothing was written.\n"
        f"Use a design with time in the row key (wb.pattern_names({name!r})), or fewer events; "
        "to write it anyway, pass max_row_cells=None."
    )


# Memory a load needs, measured (docs/architecture.md): the emulator holds ≈ 460 bytes per cell
# (1M energy-meter events = 4.1M cells: 1.88 GB resident); the kernel ≈ 200 bytes per cell for
# the CellFrame and ≈ 250 for the writer's encoded requests (energy_meters workshop, 134k cells).
EMULATOR_BYTES_PER_CELL = 460
CELLFRAME_BYTES_PER_CELL = 200
WRITER_BYTES_PER_CELL = 250
MEMORY_WARN_SHARE = 0.5  # a load taking over half of what is free gets a warning


def _size(n: int) -> str:
    """Memory in binary units (KiB, MiB, GiB), as the machine and ``WORKBENCH_MEMORY_LIMIT`` count it."""
    return human_bytes(n, binary=True)


def memory_need(n_cells: int, *, emulator_here: bool, cells_built: bool) -> tuple[int, int]:
    """(emulator bytes, kernel bytes) a load of ``n_cells`` still needs on this machine."""
    emulator = n_cells * EMULATOR_BYTES_PER_CELL if emulator_here else 0
    kernel = n_cells * (WRITER_BYTES_PER_CELL + (0 if cells_built else CELLFRAME_BYTES_PER_CELL))
    return emulator, kernel


ESTIMATE_SAMPLE_EVENTS = 2_000  # events whose cells estimate a large load's, before building


def estimate_cells(dataset: Dataset, schema: Schema) -> tuple[int, str]:
    """The cells a load of ``dataset`` will write, before they are built: the design's cells
    for the first ``ESTIMATE_SAMPLE_EVENTS`` events, scaled to every event (never under one
    per event), and how it was estimated. Building 10M events' cells took 216 s and 5.9 GB
    before the real count refused them; the sample takes a fraction of a second."""
    import math
    import warnings
    from dataclasses import replace

    n = len(dataset.frame)
    if n <= ESTIMATE_SAMPLE_EVENTS:
        return n, ""  # the real count follows at once
    part = replace(dataset, frame=dataset.frame.iloc[:ESTIMATE_SAMPLE_EVENTS])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sampled = len(schema.to_cells(part, accept_loss=True))
    except Exception:  # the full build says what is wrong, in its own words
        return n, ""
    per_event = sampled / ESTIMATE_SAMPLE_EVENTS
    if per_event <= 1:
        return n, ""
    return math.ceil(per_event * n), (
        f" ({per_event:.2f} per event in the first {ESTIMATE_SAMPLE_EVENTS:,} events)"
    )


def check_memory(
    n_cells: int,
    dataset: Dataset,
    *,
    emulator_here: bool,
    cells_built: bool,
    available: tuple[int | None, str] | None = None,
    schema: Schema | None = None,
) -> str | None:
    """Refuse, before the first request, a load whose estimated need exceeds the memory
    available; a warning text when it takes over ``MEMORY_WARN_SHARE`` of it (else None).
    Before the cells exist, ``schema`` estimates their count from a sample of events
    (:func:`estimate_cells`), so a load too big is refused before it builds them."""
    from ..memory import available_memory

    free, source = available or available_memory()
    how = ""
    if schema is not None and not cells_built:
        estimate, how = estimate_cells(dataset, schema)
        n_cells = max(n_cells, estimate)
    emu, kernel = memory_need(n_cells, emulator_here=emulator_here, cells_built=cells_built)
    if free is None or not n_cells:
        return None
    at_least = "" if cells_built else "an estimated " if how else "at least "
    figures = (
        f"{at_least}{n_cells:,} cells{how} need about {_size(emu + kernel)}: "
        + (
            f"{_size(emu)} in the emulator ({EMULATOR_BYTES_PER_CELL} bytes per cell, "
            "measured) and "
            if emulator_here
            else ""
        )
        + f"{_size(kernel)} in this kernel; {_size(free)} is available ({source})"
    )
    if emu + kernel <= free:
        if emu + kernel > MEMORY_WARN_SHARE * free:
            return (
                f"Memory: loading {figures}. Over half of it: other notebooks on this machine may "
                "run short."
            )
        return None
    raise WriteError(
        f"Loading {dataset.name!r} would not fit in memory: {figures}. Nothing was written.\n"
        "Ways out: load a sample (wb.from_csv(..., sample=0.1) or wb.from_parquet(..., "
        "sample=0.1) keep a share of the series whole), fewer days (a smaller size= of a sample "
        "dataset, or the events of a shorter span through wb.from_dataframe), or no emulator at "
        "all: wb.analyze, wb.compare and wb.advise work on the events as they are, and "
        "wb.from_parquet reads large files in bounded memory. To load anyway, pass "
        "check_memory=False."
    )


def check_target_tables(
    conn: Connection,
    cells: CellFrame,
    tables: Mapping[str, str],
    kinds: dict[str, dict[str, str]],
) -> None:
    """Each target table exists and has every family the cells use (WriteError naming the one
    missing, nothing written); the stored aggregate families are added to ``kinds``."""
    from . import admin

    present = {t: set(g) for t, g in cells.frame.groupby("table", sort=False)["family"]}
    for logical, physical in tables.items():
        stored = admin.get_families(conn, physical)
        if stored is None:
            restarted = ""
            if not conn.is_production and not conn.list_tables():
                restarted = (
                    " The emulator holds no tables at all: it was most likely restarted, "
                    "and a restarted emulator holds nothing. Load the data again "
                    "(emu.load(dataset, schema))."
                )
            raise WriteError(
                f"Table {physical!r} does not exist on the {conn.target}.{restarted} Create it "
                "first (admin.ensure_tables or emu.load). Nothing was written."
            )
        missing = sorted(present.get(logical, set()) - set(stored))
        if missing:
            raise WriteError(
                f"Table {physical!r} has no column family {', '.join(map(repr, missing))} "
                f"(it has {sorted(stored)}). Add it with admin.ensure_tables(conn, schema, "
                "table_id). Nothing was written."
            )
        for name, cf in stored.items():
            kind = admin.aggregate_kind(cf)
            if kind is not None:
                kinds.setdefault(logical, {})[name] = kind


def refuse_emulator_hll(
    conn: Connection, cells: CellFrame, kinds: Mapping[str, Mapping[str, str]]
) -> None:
    """HLL families on the emulator: refused before the first request (measured, SDK 528: the
    emulator keeps the last AddToCell input as a plain int64, not a sketch, so what it returns
    would not be what Cloud Bigtable stores)."""
    if conn.is_production:
        return
    f = cells.frame
    for logical, kind_of in kinds.items():
        hll = [fam for fam, kind in kind_of.items() if kind == "hll"]
        hit = f[(f["table"] == logical) & f["family"].isin(hll)] if hll else f.iloc[:0]
        if len(hit):
            raise WriteError(
                f"Family {hit['family'].iloc[0]!r} of table {logical!r} is an HLL aggregate "
                "(HyperLogLogPlusPlusUniqueCount): the emulator accepts AddToCell on it but "
                "keeps only the last input as a plain int64, not a sketch of distinct values "
                "(measured), so the cells read back would be wrong. Nothing was written. Write "
                "it to Cloud Bigtable, or model distinct counts without the emulator."
            )
