"""Bring your own data: a DataFrame or a CSV file of events becomes a validated Dataset."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from workbench.datasets.model import Dataset, QueryIntent
from workbench.datasets.validate import Duplicates, build_dataset
from workbench.errors import DatasetError


def from_dataframe(
    df: pd.DataFrame,
    *,
    entity: str | Sequence[str],
    time: str,
    measures: str | Sequence[str],
    attributes: str | Sequence[str] | None = None,
    units: dict[str, str] | None = None,
    name: str = "custom",
    duplicates: Duplicates = "error",
    naive_tz: str | None = None,
    queries: Sequence[QueryIntent] | None = None,
    description: str = "",
    empty_ok: Sequence[str] = (),
) -> Dataset:
    """Your events as a Dataset (the caller's frame is not modified).

    ``entity``: the columns that identify a series (in key order); ``time``: one column of
    times (tz-aware, or naive with ``naive_tz`` naming their zone, e.g. ``"UTC"``);
    ``measures``: numeric or boolean columns; ``attributes``: other columns to keep
    (None: every remaining column). ``duplicates``: what to do with several events of one
    entity at one time: ``"error"`` (default), ``"first"`` or ``"last"`` (the count dropped
    is kept in ``ds.dropped_duplicates`` and ``ds.notes``). ``empty_ok``: entity columns where
    ``""`` means "absent" (Heroic tags). Raises DatasetError naming the column and rows of
    any problem.
    """
    return build_dataset(
        df,
        entity=entity,
        time=time,
        measures=measures,
        attributes=attributes,
        units=units,
        name=name,
        duplicates=duplicates,
        naive_tz=naive_tz,
        queries=queries,
        description=description,
        empty_ok=empty_ok,
    )


def from_csv(
    path: str | os.PathLike[str],
    *,
    entity: str | Sequence[str],
    time: str,
    measures: str | Sequence[str],
    attributes: str | Sequence[str] | None = None,
    units: dict[str, str] | None = None,
    name: str | None = None,
    duplicates: Duplicates = "error",
    naive_tz: str | None = None,
    queries: Sequence[QueryIntent] | None = None,
    description: str = "",
    empty_ok: Sequence[str] = (),
    **read_csv_kwargs: Any,
) -> Dataset:
    """A CSV file of events as a Dataset (see :func:`from_dataframe` for the arguments).

    Entity columns are read as text unless ``dtype`` says otherwise, so identifiers such
    as ``00123`` keep their leading zeros; the time column is read as text and parsed by
    the validation (which names unparseable rows). Rows in error messages are 0-based
    data rows (the header is not counted). An empty field in an ``empty_ok`` column is read
    as ``""`` (a CSV cannot tell it from missing). ``read_csv_kwargs`` go to ``pandas.read_csv``.
    """
    p = Path(path)
    if not p.is_file():
        raise DatasetError(
            f"No CSV file at {str(p)!r}" + (" (it is a directory)." if p.is_dir() else ".")
        )
    entity_l = [entity] if isinstance(entity, str) else list(entity)
    dtype = read_csv_kwargs.pop("dtype", None)
    if dtype is None:
        dtype = {c: str for c in [*entity_l, time]}
    try:
        header = pd.read_csv(
            p,
            nrows=0,
            **{
                k: v
                for k, v in read_csv_kwargs.items()
                if k in ("sep", "delimiter", "encoding", "header")
            },
        )
        if isinstance(
            dtype, dict
        ):  # only the columns the file has; validation names the missing ones
            dtype = {c: t for c, t in dtype.items() if c in header.columns}
        df = pd.read_csv(p, dtype=dtype, **read_csv_kwargs)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        raise DatasetError(f"Cannot read {str(p)!r} as CSV: {exc}") from None
    for col in empty_ok:
        if col in df.columns:
            df[col] = df[col].fillna("")
    return build_dataset(
        df,
        entity=entity,
        time=time,
        measures=measures,
        attributes=attributes,
        units=units,
        name=name or p.stem,
        empty_ok=empty_ok,
        duplicates=duplicates,
        naive_tz=naive_tz,
        queries=queries,
        description=description or f"Loaded from {p.name}.",
        row_word="data row",
    )
