"""A Parquet file of events as a Dataset, read with pyarrow in bounded memory.

The file is read batch by batch (``ParquetFile.iter_batches``, a progress bar counting events),
only the named columns when ``attributes`` is given, and kept as Arrow until every batch is in:
Arrow's columns are as compact as the file's own. Each column is then turned into pandas on its
own and its Arrow buffers dropped and handed back at once, so the peak is the events once plus
one column, not twice the table. pyarrow's allocator keeps freed pages for reuse; they are
released after each column, or a 10-million-event file would hold ~300 MB of dead Arrow memory
through the whole analysis (measured with ``bench/bench_parquet.py``).
"""

from __future__ import annotations

import dataclasses
import glob
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from workbench.datasets.byo import (
    as_names,
    check_kept,
    check_sample,
    chunk_counter,
    from_dataframe,
    sample_mask,
    sample_note,
)
from workbench.datasets.model import Dataset
from workbench.datasets.shape_sample import (
    SHAPE_EVENTS,
    check_shape_events,
    heavy_series,
    shape_note,
    thin_mask,
)
from workbench.errors import DatasetError
from workbench.memory import large_arrays_from_mmap, release_freed_memory

PANDAS_INDEX = re.compile(r"__index_level_\d+__")
BATCH_ROWS = 1 << 20
"""Events per Arrow record batch read (the progress bar advances by one batch)."""
READAHEAD_BATCHES = 2
"""Record batches pyarrow's scanner decodes ahead while reading a shape sample's kept series."""
SHAPE_ABOVE = 2 * SHAPE_EVENTS
"""Files with more events than this (1,000,000) are loaded as a shape sample of
``SHAPE_EVENTS`` unless ``shape_events`` or ``sample`` says otherwise (``sample=1`` loads every
event). Memory is not what sets it: ``compare`` of every preset analyses each design on the
loaded events, so its time grows with them (a 5 M-event compare of the 12 presets loaded whole
took 1,127 s and 2.44 GB; from the default shape sample of ~500,000 events, measured in
docs/architecture.md, "A file larger than memory"). Twice the sample keeps the full load's
compare near the shape sample's time, and one design and a comparison read the same sample
(one number everywhere)."""


def to_frame(batches: list[Any], schema: Any) -> pd.DataFrame:
    """The batches as one DataFrame, a column at a time: each column's Arrow buffers are freed as
    soon as its pandas copy exists. ``batches`` is emptied (this owns the only references)."""
    import pyarrow as pa

    table = pa.Table.from_batches(batches, schema=schema)
    batches.clear()
    cols: dict[str, pd.Series] = {}
    for name in list(table.column_names):
        col = table.column(0)
        table = table.remove_column(0)  # the table no longer holds this column's buffers
        if _is_binary(col.type):  # bytes as UTF-8 text: a row key, qualifier or value is text
            try:
                col = col.cast(
                    pa.large_string() if pa.types.is_large_binary(col.type) else pa.string()
                )
            except pa.ArrowInvalid:
                raise DatasetError(
                    f"Column {name!r} is Parquet binary and holds bytes that are not UTF-8 text; "
                    "the workbench keeps keys and values as text. Decode it where the file is "
                    "written (e.g. to hex or base64 text), or leave it out (attributes=[...] "
                    "without it). Nothing was loaded."
                ) from None
        cols[name] = col.to_pandas()
        del col
        release_freed_memory()
    # copy=False: each column stays the one array just made (a dict input is copied by default)
    return pd.DataFrame(cols, copy=False)


def _check_names(p: Path, names: list[str]) -> None:
    """A name twice in the file's schema (Parquet allows it; pandas and pyarrow's column lookups
    do not): refused, naming the positions."""
    seen: dict[str, int] = {}
    for i, n in enumerate(names, start=1):
        if n in seen:
            raise DatasetError(
                f"{p.name!r} has two columns named {n!r} (columns {seen[n]} and {i} of "
                f"{len(names)}): a column is picked by its name, so which one is meant cannot be "
                "told. Rename one where the file is written (e.g. pyarrow.Table.rename_columns). "
                "Nothing was loaded."
            )
        seen[n] = i


def _is_binary(t: Any) -> bool:
    import pyarrow as pa

    return bool(
        pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t)
    )


def _check_types(p: Path, schema: Any, cols: list[str], all_kept: bool) -> None:
    """Nested columns (struct, list, map) hold no one value a cell or a key can take: refused
    before the read, naming the column, its type and the fix. (Binary columns are read as UTF-8
    text in :func:`to_frame`, refused there when they are not.)"""
    import pyarrow as pa

    for c in cols:
        t = schema.field(c).type
        if pa.types.is_nested(t):
            kind = "struct" if pa.types.is_struct(t) else "map" if pa.types.is_map(t) else "list"
            flatten = (
                "flatten it into plain columns (pyarrow.Table.flatten() for a struct, "
                "pyarrow.compute.list_element or explode for a list) and save the file again"
            )
            fix = (
                f"Leave it out by naming the columns to keep (attributes=[...] without {c!r}), "
                f"or {flatten}"
                if all_kept
                else flatten[0].upper() + flatten[1:]
            )
            raise DatasetError(
                f"Column {c!r} of {p.name!r} is a Parquet {kind} ({t}): a nested value is not one "
                f"value a Bigtable cell or row key holds here. {fix}. "
                "Nothing was loaded."
            )


def parquet_files(path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The files ``path`` names: one path, a list of paths, or a glob (``*``, ``?``, ``[``) in
    sorted order. A glob that matches nothing, or a path that is no file, is refused."""
    if isinstance(path, str | os.PathLike):
        text = os.fspath(path)
        if not any(ch in text for ch in "*?[") or Path(text).is_file():
            return [Path(text)]
        found = sorted(Path(m) for m in glob.glob(text))
        if not found:
            raise DatasetError(
                f"No file matches {text!r}: check the folder and the pattern (e.g. "
                "'exports/part-*.parquet'). Nothing was loaded."
            )
        return found
    files = [Path(os.fspath(f)) for f in path]
    if not files:
        raise DatasetError("from_parquet was given an empty list of files: name at least one.")
    return files


def _check_same_columns(files: list[Path], schemas: list[Any]) -> None:
    """Every file has the first file's columns, of the same types (they are read as one table):
    else refused, naming the file and the column."""
    first = files[0].name
    want = {f.name: f.type for f in schemas[0] if not PANDAS_INDEX.fullmatch(f.name)}
    for p, sch in zip(files[1:], schemas[1:], strict=True):
        have = {f.name: f.type for f in sch if not PANDAS_INDEX.fullmatch(f.name)}
        for c in [*want, *have]:
            if c not in have or c not in want:
                lacks, holder = (p.name, first) if c not in have else (first, p.name)
                raise DatasetError(
                    f"Column {c!r} is in {holder!r} but not in {lacks!r}: the files are read as "
                    "one dataset and need the same columns. Write them with one schema, or "
                    "load them apart. Nothing was loaded."
                )
            if have[c] != want[c]:
                raise DatasetError(
                    f"Column {c!r} is {have[c]} in {p.name!r} but {want[c]} in {first!r}: the "
                    "files are read as one dataset and need the same types. Cast it where the "
                    "files are written. Nothing was loaded."
                )


def _open(p: Path) -> Any:
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not p.is_file():
        raise DatasetError(f"No Parquet file at {str(p)!r}.")
    try:
        return pq.ParquetFile(p)
    except (pa.ArrowInvalid, OSError) as exc:
        raise DatasetError(f"Cannot read {str(p)!r} as Parquet: {exc}") from None


def _files_name(files: list[Path]) -> str:
    """One file's stem; several files' common stem (``part-0``, ``part-1`` → ``part``)."""
    if len(files) == 1:
        return files[0].stem
    common = os.path.commonprefix([f.stem for f in files]).rstrip("-_. ")
    return common or files[0].stem


def _files_description(files: list[Path]) -> str:
    more = f" and {len(files) - 3} more files" if len(files) > 3 else ""
    return f"Loaded from {', '.join(q.name for q in files[:3])}{more}."


def _file_counts(
    ds: Dataset,
    files: list[Path],
    total: int,
    shaped: bool,
    counts: Any,
    sample: float | None,
    agg: Any = None,
    naive_tz: str | None = None,
) -> None:
    """The files' counts on ``ds`` and its first note: DuckDB's over every file for a shape
    sample (``agg`` when the read was driven by them), the batched read's for a ``sample=``
    (``counts``), else what the sample kept."""
    if shaped:
        driven = agg is not None  # read by the scan's series: its heavy ones thinned in
        if agg is None:
            agg = _engine_counts(files, list(ds.entity), ds.time, keys=False, naive_tz=naive_tz)
        ds.aggregates = dataclasses.replace(agg, series_keys=None)  # the tuples: read, not kept
        heavy = len(heavy_series(agg)) if driven else 0
        ds.notes.insert(0, shape_note(ds, total, heavy=heavy, drawn=sample if heavy else None))
    elif counts is not None:
        ds.aggregates = counts.aggregates()
        counted = "every event, counted in the same batched read"
        ds.notes.insert(0, shape_note(ds, total, counted, sample))
    elif sample is not None:
        ds.notes.insert(0, sample_note(sample, ds.entity, len(ds), total))


def _check_kept(
    batches: list[Any],
    files: list[Path],
    entity: list[str],
    time: str,
    sample: float | None,
    counts: Any,
    agg: Any,
    shape_events: int | None,
    kwargs: dict[str, Any],
) -> None:
    """A ``sample=`` share, or a shape sample far below one series' events, that kept nothing
    is refused naming the least share or count that keeps a series (``byo.check_kept``)."""
    kept = sum(b.num_rows for b in batches)
    if kept or sample is None:
        return
    if counts is not None:
        check_kept(kept, sample, counts, entity)
    elif shape_events is not None:  # the file's series: DuckDB's list, or one scan for it
        naive_tz = kwargs.get("naive_tz")
        listed = agg if agg is not None else _engine_counts(files, entity, time, naive_tz=naive_tz)
        check_kept(0, sample, listed.series_keys, entity, shape_events)


def _engine_counts(
    files: list[Path], entity: list[str], time: str, keys: bool = True, naive_tz: str | None = None
) -> Any:
    """DuckDB's one scan of every file (``file_aggregates``), with the distinct series."""
    from workbench.datasets.file_aggregates import file_aggregates

    paths = [str(q) for q in files]
    return file_aggregates(
        paths, entity=entity, time=time, lead=entity, keys=keys, naive_tz=naive_tz
    )


def _keyed(schema: Any, entity: list[str], time: str) -> bool:
    """Whether a shape sample can be read by its series' values: entity columns of whole
    numbers or text (their values compare as the draws' texts name them) and a timestamp."""
    import pyarrow as pa

    names = schema.names
    if not entity or time not in names or not pa.types.is_timestamp(schema.field(time).type):
        return False
    kinds = (pa.types.is_integer, pa.types.is_string, pa.types.is_large_string)
    return all(c in names and any(k(schema.field(c).type) for k in kinds) for c in entity)


def _kept_batches(
    files: list[Path],
    cols: list[str],
    entity: list[str],
    agg: Any,
    sample: float | None,
    batch_rows: int,
    bar: Any,
    total: int,
) -> Any:
    """The record batches of the series a shape sample keeps, read by pyarrow's dataset
    scanner with the kept values as its filter (row groups whose statistics exclude them are
    skipped; the rest filtered on read, on both cores), after DuckDB's scan counted every
    event and listed the series (``agg.series_keys``): the draws of ``sample_mask`` made once
    per series, not per event. Several entity columns: each column's kept values (a superset:
    ``_sampled_batch`` keeps the exact tuples). The file's heavy series
    (``shape_sample.HEAVY_TIMES``) are read whatever their draw, for ``_sampled_batch`` to
    thin."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.dataset as pads

    keys = agg.series_keys
    kept = keys[sample_mask(keys, entity, float(sample or 1.0))]
    heavy = pd.DataFrame(heavy_series(agg), columns=entity)  # read too, thinned per batch
    schema = _open(files[0]).schema_arrow
    where = None
    for c in entity:
        both = pd.concat([kept[c], heavy[c]], ignore_index=True) if len(heavy) else kept[c]
        values = pa.array(pd.unique(both), type=schema.field(c).type)
        term = pc.field(c).isin(values)
        where = term if where is None else where & term
    dset = pads.dataset([str(q) for q in files], format="parquet", schema=schema)
    # one file and a few batches ahead: pyarrow's defaults (4 files, 16 batches each) held
    # 2.6 GB decoding four 25 M-event files before the filter kept 2 % of them
    yield from dset.to_batches(
        columns=cols,
        filter=where,
        batch_size=batch_rows,
        batch_readahead=READAHEAD_BATCHES,
        fragment_readahead=1,
    )
    bar.update(total - bar.n)  # every event was counted by DuckDB; the kept ones read here


def _counter(entity: list[str], time: str, kwargs: dict[str, Any]) -> Any:
    """The counter of a ``sample=`` read: every event's series and time, parsed with the
    options ``from_dataframe`` gets."""
    return chunk_counter(
        entity,
        time,
        kwargs.get("time_unit"),
        kwargs.get("dayfirst"),
        kwargs.get("naive_tz"),
        kwargs.get("empty_ok", ()),
        "pandas in from_parquet's batched read",
    )


def _times_us(column: Any, kind: Any) -> np.ndarray:
    """A Parquet timestamp column's times in whole µs (floored; a missing time as 0), whatever
    its unit."""
    import pyarrow as pa
    import pyarrow.compute as pc

    raw = pc.fill_null(column.cast(pa.int64()), 0).to_numpy(zero_copy_only=False)
    if kind.unit == "ns":
        return raw // 1000
    return raw * {"s": 1_000_000, "ms": 1000}.get(kind.unit, 1)


def _sampled_batch(
    batch: Any,
    entity: list[str],
    time: str,
    sample: float | None,
    counts: Any,
    bar: Any,
    heavy: tuple[list[tuple[object, ...]], float] | None = None,
) -> Any:
    """The batch's events of the series ``sample`` keeps (all without a sample), chosen on the
    entity columns alone before its other columns are touched; ``counts`` (a ``sample=``
    read) counts every event of it first, parsed as the kept events are; ``heavy``: (the
    file's heavy series, the share of their events kept, ``thin_mask``), whatever the draw."""
    import pyarrow as pa

    bar.update(batch.num_rows)
    thinned = bool(heavy and heavy[0])  # no heavy series: nothing to thin, the batch as read
    if not all(c in batch.schema.names for c in entity) or (sample is None and not thinned):
        return batch
    if counts is not None:
        keys = counts.count(batch.select([*entity, time]).to_pandas())
    else:
        keys = batch.select(entity).to_pandas()
    keep = np.ones(len(keys), dtype=bool) if sample is None else sample_mask(keys, entity, sample)
    if heavy and thinned:  # both: mypy reads heavy below
        index = pd.MultiIndex.from_frame(keys[entity]) if len(entity) > 1 else keys[entity[0]]
        is_heavy = np.asarray(index.isin(heavy[0] if len(entity) > 1 else [h[0] for h in heavy[0]]))
        if is_heavy.any():
            us = _times_us(batch.column(time), batch.schema.field(time).type)
            keep = (keep & ~is_heavy) | (is_heavy & thin_mask(us, heavy[1]))
    return batch.filter(pa.array(keep))


def from_parquet(
    path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    entity: str | Sequence[str] | None = None,
    time: str,
    measures: str | Sequence[str],
    attributes: str | Sequence[str] | None = None,
    name: str | None = None,
    progress: bool = True,
    sample: float | None = None,
    batch_rows: int = BATCH_ROWS,
    shape_events: int | None = None,
    **kwargs: Any,
) -> Dataset:
    """Parquet files of events as one Dataset, read with pyarrow ``batch_rows`` events at a time.

    Parameters
    ----------
    path : str, os.PathLike or sequence of them
        The Parquet file, a list of files, or a glob (``"exports/part-*.parquet"``, sorted):
        several files are read file after file as one dataset and must have the same columns
        and types (else :class:`~workbench.errors.DatasetError` names the file and the column).
    entity, time, measures
        As in :func:`~workbench.datasets.byo.from_dataframe`.
    attributes : str or sequence of str, optional
        Only these other columns are read (None: all).
    name : str, optional
        The dataset's name (default: the file's stem; several files: their common stem).
    progress : bool, default True
        A progress bar counts the events read.
    sample : float, optional
        Keep that share of the series whole, as in :func:`~workbench.datasets.byo.from_csv`,
        chosen batch by batch so the rest is never held.
    batch_rows : int, default 1048576
        Events per record batch.
    shape_events : int, optional
        Keep a *shape sample* of about this many events (whole series, chosen by CRC-32 as
        ``sample`` does, the same series in every file) when the files have more, and count
        every file with DuckDB
        (:func:`~workbench.datasets.file_aggregates.file_aggregates`: events, span, series per
        entity column, the busiest series): ``Dataset.aggregates``. The analyses take the
        production workload's unstated rate and series from those counts, so their production
        figures are the whole files' while only the sample is in memory. None: ``SHAPE_EVENTS``
        for files over ``SHAPE_ABOVE`` events (unless ``sample`` is given), else every event.
    **kwargs
        Other arguments of :func:`~workbench.datasets.byo.from_dataframe`.

    Returns
    -------
    Dataset
    """
    import pyarrow as pa

    files = parquet_files(path)
    opened = [_open(p) for p in files]
    p, f = files[0], opened[0]
    check_sample(sample)
    large_arrays_from_mmap()  # a column's temporaries go back to the OS when freed
    entity_l = as_names(entity)
    for q, g in zip(files, opened, strict=True):
        _check_names(q, g.schema_arrow.names)
    _check_same_columns(files, [g.schema_arrow for g in opened])
    # a pandas index written without a name (__index_level_0__) is no column of the events
    cols = [c for c in f.schema_arrow.names if not PANDAS_INDEX.fullmatch(c)]
    if attributes is not None:
        wanted = {*entity_l, time, *as_names(measures), *as_names(attributes)}
        cols = [c for c in cols if c in wanted]
    _check_types(p, f.schema_arrow, cols, attributes is None)
    total = sum(g.metadata.num_rows for g in opened)
    if shape_events is None and sample is None and total > SHAPE_ABOVE:
        shape_events = SHAPE_EVENTS
    shaped = shape_events is not None and bool(entity_l) and total > shape_events
    if shape_events is not None:
        check_shape_events(shape_events, sample)
    if shaped:
        sample = float(shape_events) / total  # type: ignore[arg-type]
    # sample=: production's series and rate are the files', counted batch by batch (the
    # named columns present: else from_dataframe refuses the missing one)
    counted = sample is not None and not shaped and sample < 1 and {*entity_l, time} <= set(cols)
    counts = _counter(entity_l, time, kwargs) if counted and entity_l else None
    label = _files_name(files) + (f" ({len(files)} files)" if len(files) > 1 else "")
    agg = None
    if shaped and _keyed(f.schema_arrow, entity_l, time):  # DuckDB first, then only the kept
        agg = _engine_counts(files, entity_l, time, naive_tz=kwargs.get("naive_tz"))
    with tqdm(
        total=total, desc=f"reading {label}", unit=" events", unit_scale=True, disable=not progress
    ) as bar:
        if agg is not None:
            source = _kept_batches(files, cols, entity_l, agg, sample, batch_rows, bar, total)
        else:  # file after file; a series' CRC-32 picks it in every file alike
            source = (
                b for g in opened for b in g.iter_batches(batch_size=batch_rows, columns=cols)
            )
        # one entity column: the scanner's filter is the draw itself, nothing left to choose
        draw = None if agg is not None and len(entity_l) == 1 else sample
        heavy = (heavy_series(agg), float(sample or 1.0)) if agg is not None else None
        batches = [_sampled_batch(b, entity_l, time, draw, counts, bar, heavy) for b in source]
    _check_kept(batches, files, entity_l, time, sample, counts, agg, shape_events, kwargs)
    schema = pa.schema([f.schema_arrow.field(c) for c in cols])
    df = to_frame(batches, batches[0].schema if batches else schema)
    naive_tz = kwargs.get("naive_tz")  # DuckDB reads naive times in the zone from_dataframe does
    ds = from_dataframe(
        df,
        entity=entity,
        time=time,
        measures=measures,
        attributes=attributes,
        name=name or _files_name(files),
        description=kwargs.pop("description", "") or _files_description(files),
        **kwargs,
    )
    _file_counts(ds, files, total, shaped, counts, sample, agg, naive_tz)
    binary = [c for c in cols if _is_binary(f.schema_arrow.field(c).type)]
    if binary:
        ds.notes.append(
            f"Parquet binary column(s) {binary} read as UTF-8 text (keys and values are text)."
        )
    release_freed_memory()  # validation's temporaries: the analysis starts from the events alone
    return ds
