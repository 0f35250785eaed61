"""Bring your own data: a DataFrame or a CSV file of events becomes a validated Dataset.

Why one module: ``from_dataframe`` and ``from_csv`` share the steps before validation
(``_prepare``: one series, entity text stripped, numeric and day-month times) and the CRC-32
sample; a CSV's shape-sample counts (``_chunk_events``) run those same steps chunk by chunk, so
they sit beside them: split apart, the counts could drift from what the load itself does.
"""

from __future__ import annotations

import csv
import functools
import math
import os
import re
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pandas._libs.parsers import STR_NA_VALUES as _DEFAULT_NA
from pandas.api import types as ptypes

from workbench.datasets.csv_file import (
    bom_encoding,
    check_first_line,
    check_header_width,
    check_not_compressed,
    check_not_json,
    check_unchanged,
    codec_of,
    decode_error,
    file_lines,
    file_state,
    open_text,
    read_chunks,
)
from workbench.datasets.entity_text import check_key_collisions, strip_entities
from workbench.datasets.model import Dataset, QueryIntent, QueryList
from workbench.datasets.validate import Duplicates, build_dataset, check_exact_integers
from workbench.errors import DatasetError

SERIES_COLUMN = "series"
"""The entity column added to a file of one series (no entity column named)."""

TIME_UNITS = ("s", "ms", "us", "ns", "date", "year")
"""``time_unit=`` choices for numeric times: epoch seconds/ms/µs/ns, ``YYYYMMDD`` dates, bare years."""

# epoch magnitudes that are unambiguous for times between 1973 and 2286
_EPOCH_BANDS = (("s", 1e8, 1e10), ("ms", 1e11, 1e13), ("us", 1e14, 1e16), ("ns", 1e17, 1e19))
_DMY = re.compile(r"^\s*(\d{1,2})([/.-])(\d{1,2})\2(\d{4}|\d{2})(.*)$")


def _numeric_times(col: pd.Series, name: str, time_unit: str | None, word: str) -> pd.Series | None:
    """Integer-like times (numbers, or text of digits) as UTC datetimes; None if not numeric."""
    if isinstance(col.dtype, pd.DatetimeTZDtype) or ptypes.is_datetime64_dtype(col.dtype):
        return None
    if ptypes.is_bool_dtype(col.dtype) or len(col) == 0:
        return None
    if ptypes.is_numeric_dtype(col.dtype):
        if col.isna().any():
            return None  # validation names the missing rows
        num = col.to_numpy()
    else:
        text = col.astype(str).str.strip()
        if not text.str.fullmatch(r"-?\d+(\.\d+)?").all():
            if time_unit is not None:
                bad = ~text.str.fullmatch(r"-?\d+(\.\d+)?")
                i = int(np.flatnonzero(bad.to_numpy())[0])
                raise DatasetError(
                    f"time_unit={time_unit!r} needs numbers in column {name!r}, but {word} "
                    f"{col.index[i]} holds {text.iloc[i]!r}. Drop time_unit for text times."
                )
            return None
        num = pd.to_numeric(text).to_numpy()
    if num.dtype.kind == "f" and time_unit in (None, "date", "year"):
        frac = np.flatnonzero(num != np.round(num))
        if len(frac):  # a date or a year is a whole number: only an epoch unit fits
            i = int(frac[0])
            raise DatasetError(
                f"Time column {name!r} holds fractional numbers ({word} {col.index[i]}: "
                f"{num[i].item()!r}); pass time_unit='s', 'ms', 'us' or 'ns' if they are epoch "
                "times."
            )
    if time_unit is None:
        ints = num.astype("int64")
        if (ints == num).all():
            ymd = pd.to_datetime(pd.Series(ints).astype(str), format="%Y%m%d", errors="coerce")
            if (ints >= 10_000_101).all() and (ints <= 99_991_231).all() and ymd.notna().all():
                time_unit = "date"
            elif (ints >= 1000).all() and (ints <= 2999).all():
                time_unit = "year"
        if time_unit is None:
            lo, hi = float(np.min(np.abs(num))), float(np.max(np.abs(num)))
            for unit, a, b in _EPOCH_BANDS:
                if a <= lo and hi < b:
                    time_unit = unit
                    break
        if time_unit is None:
            raise DatasetError(
                f"Time column {name!r} holds numbers from {num.min()} to {num.max()} whose unit "
                "cannot be told apart: pass time_unit='s', 'ms', 'us' or 'ns' (epoch times), "
                "'date' (YYYYMMDD) or 'year', or convert it first, e.g. "
                f"df[{name!r}] = pd.to_datetime(df[{name!r}], unit='s', utc=True)."
            )
    if time_unit not in TIME_UNITS:
        raise DatasetError(f"time_unit={time_unit!r} is not one of {list(TIME_UNITS)}.")
    if time_unit in ("date", "year"):
        ints = num.astype("int64")
        fmt = "%Y%m%d" if time_unit == "date" else "%Y"
        out = pd.to_datetime(
            pd.Series(ints, index=col.index).astype(str), format=fmt, errors="coerce"
        )
        bad = out.isna().to_numpy()
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise DatasetError(
                f"Time column {name!r}: {word} {col.index[i]} holds {int(ints[i])}, not a "
                f"{'YYYYMMDD date' if time_unit == 'date' else 'year'} (time_unit={time_unit!r})."
            )
        return out.dt.tz_localize("UTC")
    return pd.Series(pd.to_datetime(num, unit=time_unit, utc=True), index=col.index)


def _day_month(col: pd.Series, name: str, dayfirst: bool | None, word: str) -> pd.Series:
    """``D/M/Y`` or ``M/D/Y`` text rewritten as ISO dates, one order for the whole column."""
    if col.dtype != object and not ptypes.is_string_dtype(col.dtype):
        return col
    text = col.astype(str)
    parts = text.str.extract(_DMY)
    hit = parts[0].notna().to_numpy()
    if not hit.any():
        return col
    a, b = parts[0][hit].astype(int), parts[2][hit].astype(int)
    if dayfirst is None:
        day_a, day_b = (a > 12).to_numpy(), (b > 12).to_numpy()
        if day_a.any() and day_b.any():
            i, j = np.flatnonzero(day_a)[0], np.flatnonzero(day_b)[0]
            raise DatasetError(
                f"Time column {name!r} mixes day-first ({text[hit].iloc[i]!r}) and month-first "
                f"({text[hit].iloc[j]!r}) dates; make them one order."
            )
        if not day_a.any() and not day_b.any():
            raise DatasetError(
                f"Time column {name!r} has dates like {text[hit].iloc[0]!r} where the day and the month "
                "can both be the first number: pass dayfirst=True (31/12/2024) or dayfirst=False "
                "(12/31/2024)."
            )
        dayfirst = bool(day_a.any())
    day, month = (a, b) if dayfirst else (b, a)
    year = parts[3][hit]
    short = (year.str.len() != 4).to_numpy()
    if short.any():  # 99: 1999 or 2099? no rule guesses that right for every file
        i = np.flatnonzero(short)[0]
        raise DatasetError(
            f"Time column {name!r} has dates with a two-digit year ({int(short.sum()):,} "
            f"{word}s, e.g. {word} {col.index[hit][i]}: {text[hit].iloc[i]!r}): the century is "
            "not written, and 19xx or 20xx would be a guess. Write four-digit years "
            "(31/12/1999), or convert the column first: pd.to_datetime(df[col], format="
            "'%d/%m/%y') reads 69-99 as 19xx and 00-68 as 20xx."
        )
    iso = year + "-" + month.map("{:02d}".format) + "-" + day.map("{:02d}".format)
    iso = iso + parts[4][hit].str.replace(r"^[ T]", "T", regex=True)
    out = text.copy()
    out[hit] = iso
    return out


def _prepare(
    df: pd.DataFrame,
    entity: str | Sequence[str] | None,
    time: str,
    name: str,
    time_unit: str | None,
    dayfirst: bool | None,
    word: str,
) -> tuple[pd.DataFrame, list[str], list[str]]:
    """The frame with a series column for one series and numeric/day-month times read."""
    notes: list[str] = []
    if entity is None:
        if SERIES_COLUMN in df.columns:
            raise DatasetError(
                f"No entity named, and the frame already has a column {SERIES_COLUMN!r}: name the "
                "entity column(s), e.g. entity='series'."
            )
        df = df.assign(**{SERIES_COLUMN: name})
        entity_l = [SERIES_COLUMN]
        notes.append(
            f"one series: no entity column named, every event has {SERIES_COLUMN}={name!r}."
        )
    else:
        if not isinstance(entity, (str, list, tuple)):  # entity=0: a column's position?
            raise DatasetError(
                f"entity must be a column name or a list of column names, not {entity!r}: "
                f"name the column (columns: {list(map(str, df.columns))[:10]})."
            )
        entity_l = [entity] if isinstance(entity, str) else list(entity)
        df, strip_notes = strip_entities(df, [c for c in entity_l if c in df.columns], word)
        notes += strip_notes
        check_key_collisions(df, [c for c in entity_l if c in df.columns], word)
    if isinstance(time, str) and time in df.columns:
        col = df[time]
        num = _numeric_times(col, time, time_unit, word)
        if num is not None:
            df = df.assign(**{time: num})
            if time_unit is None:
                notes.append(
                    f"time column {time!r} held numbers; read as {_unit_word(col)} in UTC."
                )
        else:
            fixed = _day_month(col, time, dayfirst, word)
            if fixed is not col:
                df = df.assign(**{time: fixed})
    return df, entity_l, notes


def _unit_word(col: pd.Series) -> str:
    v = str(col.iloc[0]).strip()
    return "YYYYMMDD dates" if len(v) == 8 else "years" if len(v) == 4 else "epoch times"


def _finish(ds: Dataset, queries: Sequence[str | QueryIntent] | None, notes: list[str]) -> Dataset:
    ds.notes[:0] = notes
    from .queries import default_queries, parse_queries

    if queries is None:
        # derived, not noted: the dataset's display lists its queries, marked as derived
        ds.queries = QueryList(default_queries(ds))
    else:
        qs = parse_queries(queries, ds)
        check = [q for q in qs]
        from .validate import check_queries

        ds.queries = QueryList(check_queries(check, ds.entity, ds.measures))
    return ds


def from_dataframe(
    df: pd.DataFrame,
    *,
    entity: str | Sequence[str] | None = None,
    time: str,
    measures: str | Sequence[str],
    attributes: str | Sequence[str] | None = None,
    units: dict[str, str] | None = None,
    name: str = "custom",
    duplicates: Duplicates = "error",
    naive_tz: str | None = None,
    queries: Sequence[str | QueryIntent] | str | None = None,
    description: str = "",
    empty_ok: Sequence[str] = (),
    time_unit: str | None = None,
    dayfirst: bool | None = None,
) -> Dataset:
    """Your events as a Dataset (the caller's frame is not modified).

    Parameters
    ----------
    df : pandas.DataFrame
        One row per event.
    entity : str or sequence of str, optional
        The columns that identify a series, in key order (None: the frame is one series).
    time : str
        One column of times: tz-aware, or naive with ``naive_tz`` naming their zone; integer
        ``YYYYMMDD`` dates, bare years and epoch times are detected when unambiguous.
    measures : str or sequence of str
        Numeric or boolean columns.
    attributes : str or sequence of str, optional
        Other columns to keep (None: every remaining column).
    units : dict, optional
        A unit per measure (``{"kwh": "kWh"}``).
    name : str, default "custom"
        The dataset's name (in table IDs and reports).
    duplicates : {"error", "first", "last"}, default "error"
        What to do with repeated (entity, time) events.
    naive_tz : str, optional
        The zone of naive times (e.g. ``"UTC"``).
    queries : sequence of str or QueryIntent, or str, optional
        Lines such as ``"latest 1 per sensor"`` or ``"sensor=S1 over 1 day"`` (see
        :mod:`workbench.datasets.queries`) or QueryIntents; None derives a default set
        (``print(ds.queries)``).
    description : str, optional
        A line shown with the dataset.
    empty_ok : sequence of str, optional
        Entity columns where ``""`` means "absent" (Heroic tags).
    time_unit : str, optional
        ``"s"``/``"ms"``/``"us"``/``"ns"``/``"date"``/``"year"`` when the time column's
        numbers cannot tell.
    dayfirst : bool, optional
        For ``D/M/Y`` text when no value tells.

    Returns
    -------
    Dataset

    Raises
    ------
    DatasetError
        Naming the column and rows of any problem.
    """
    if not isinstance(df, pd.DataFrame):
        raise DatasetError(f"Expected a pandas DataFrame of events, got {type(df).__name__}.")
    df, entity_l, notes = _prepare(df, entity, time, name, time_unit, dayfirst, "row")
    ds = build_dataset(
        df,
        entity=entity_l,
        time=time,
        measures=measures,
        attributes=attributes,
        units=units,
        name=name,
        duplicates=duplicates,
        naive_tz=naive_tz,
        description=description,
        empty_ok=empty_ok,
    )
    return _finish(ds, queries, notes)


def _sniff_sep(p: Path, encoding: str, codec: str | None = None) -> str:
    with open_text(p, encoding, codec) as f:
        head = f.read(65536)
    try:
        return csv.Sniffer().sniff(head, delimiters=",;\t|").delimiter
    except csv.Error:
        return ","


def csv_columns(path: str | os.PathLike[str]) -> list[str]:
    """The header of a CSV file as :func:`from_csv` reads it (separator detected, BOM skipped,
    a ``.gz``/``.bz2``/``.xz``/``.zip``/``.zst`` name decompressed)."""
    p = Path(path)
    codec = codec_of(p)
    if codec is None:
        check_not_compressed(p)
    check_not_json(p, "utf-8-sig", codec)
    sep = _sniff_sep(p, "utf-8-sig", codec)
    check_header_width(p, sep, "utf-8-sig", codec)
    try:
        return [str(c) for c in pd.read_csv(p, nrows=0, sep=sep, encoding="utf-8-sig").columns]
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        raise DatasetError(f"Cannot read {str(p)!r} as CSV: {str(exc).strip()}") from None


def _check_big_integers(
    p: Path,
    df: pd.DataFrame,
    measures: list[str],
    sep: str,
    encoding: str,
    word: str,
    compression: Any = "infer",
) -> None:
    """pandas reads a 22-digit integer as the nearest float64: where a measure holds whole
    numbers past 2^53, its text is read again and compared, so rounding is refused, not kept."""
    for m in measures:
        if m not in df.columns or not ptypes.is_float_dtype(df[m].dtype):
            continue
        v = df[m].to_numpy(dtype=float, na_value=np.nan)
        big = np.isfinite(v) & (np.abs(v) >= 2.0**53)
        if not (big & (v == np.floor(np.where(big, v, 0)))).any():
            continue
        raw = pd.read_csv(
            p,
            sep=sep,
            encoding=encoding,
            usecols=[m],
            dtype=str,
            keep_default_na=False,
            compression=compression,
        )
        if len(raw) == len(df):  # same rows (no skiprows= or comment= in between)
            raw.index = df.index
            check_exact_integers(raw[m], df[m], m, word)


def read_options(
    columns: pd.Index,
    entity_l: list[str],
    time: str,
    measures: str | Sequence[str],
    attributes: str | Sequence[str] | None,
    empty_ok: Sequence[str],
    dtype: Any,
    read_csv_kwargs: dict[str, Any],
) -> dict[str, Any]:
    """``pandas.read_csv`` options from the header's ``columns``: entity and time columns read
    as text (``00123`` keeps its zeros), ``NA``/``None``/``null`` names in entity columns but
    missing elsewhere, and only the named columns when ``attributes`` is given. Takes the
    options it sets out of ``read_csv_kwargs``."""
    if dtype is None:
        dtype = {c: str for c in [*entity_l, time]}
    if isinstance(dtype, dict):  # only the columns the file has; validation names the missing
        dtype = {c: t for c, t in dtype.items() if c in columns}
    text_cols = [c for c in [*entity_l, *empty_ok] if c in columns]
    na = read_csv_kwargs.pop("na_values", None)
    if "keep_default_na" not in read_csv_kwargs and na is None:
        # NA (Namibia), None, null are names in an entity column; missing elsewhere
        na = {c: sorted(_DEFAULT_NA) for c in columns if c not in text_cols}
        read_csv_kwargs["keep_default_na"] = False
    usecols = read_csv_kwargs.pop("usecols", None)
    if usecols is None and attributes is not None:
        wanted = {*entity_l, time, *as_names(measures), *as_names(attributes)}
        usecols = [c for c in columns if c in wanted] or None
    return {"dtype": dtype, "na_values": na, "usecols": usecols}


def _index_by_line(df: pd.DataFrame, lines: np.ndarray | None) -> str:
    """Index ``df`` by each row's line in the file when the lines are known (errors then name
    the line an editor shows); the word errors use for a row: "line" or "data row"."""
    if lines is None or not ptypes.is_integer_dtype(df.index.dtype):
        return "data row"
    df.index = pd.Index(lines[df.index.to_numpy()], name="line")
    return "line"


def from_csv(
    path: str | os.PathLike[str],
    *,
    entity: str | Sequence[str] | None = None,
    time: str,
    measures: str | Sequence[str],
    attributes: str | Sequence[str] | None = None,
    units: dict[str, str] | None = None,
    name: str | None = None,
    duplicates: Duplicates = "error",
    naive_tz: str | None = None,
    queries: Sequence[str | QueryIntent] | str | None = None,
    description: str = "",
    empty_ok: Sequence[str] = (),
    time_unit: str | None = None,
    dayfirst: bool | None = None,
    chunksize: int = 1_000_000,
    progress: bool = True,
    sample: float | None = None,
    shape_events: int | None = None,
    **read_csv_kwargs: Any,
) -> Dataset:
    """A CSV file of events as a Dataset.

    The separator (``,`` ``;`` tab ``|``) is detected unless ``sep=`` is given, a UTF-8 BOM is
    skipped, and only the named columns are kept when ``attributes`` is given. Entity
    columns are read as text (``00123`` keeps its zeros, ``NA``/``None``/``null`` are names,
    not missing); the time column as text, then parsed. A line with more fields than the
    header is refused naming the line. Rows in other messages are the file's lines (header:
    line 1); with ``comment=``, ``header=`` or a list of ``skiprows=``, 0-based data rows.
    A ``.gz``, ``.bz2``, ``.xz``, ``.zip`` (one member) or ``.zst`` file, or one given
    ``compression=``, is read and checked as its decompressed text; compressed bytes under a
    plain name are refused, saying how to read them. The steps: encoding and separator, read options (:func:`read_options`), the chunks
    (:func:`_read_chunks`; a shape sample's counts in :func:`_shape_counts`), line numbers for
    later messages, then from_dataframe's checks. Why one function: each step is a named helper
    already; what stays here is the open file's state they share (encoding, separator, options,
    the rows seen) and the one ``try`` that turns pandas' parse errors into the file's line.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file.
    entity, time, measures, attributes, units, duplicates, naive_tz, queries, description, empty_ok, time_unit, dayfirst
        As in :func:`from_dataframe`.
    name : str, optional
        The dataset's name (default: the file's stem).
    chunksize, progress : int, bool
        Lines read at a time (default 1,000,000), and whether a progress bar shows them.
    sample : float, optional
        Keep this share of the series, whole (for a first look at a large file).
    shape_events : int, optional
        Keep a *shape sample* of about this many events (whole series, chosen by CRC-32 as
        ``sample`` does, the share set from the file's estimated lines) and count every event
        in the same chunked read (:class:`~workbench.datasets.shape_sample.ChunkCounts`: events,
        span, series per entity column, the busiest series, parsed as the kept events are):
        ``Dataset.aggregates``, which the analyses take the production workload's unstated
        rate and series from, as for :func:`~workbench.datasets.parquet.from_parquet`. None:
        ``SHAPE_EVENTS`` for a file over ``SHAPE_CSV_BYTES`` bytes (unless ``sample`` is
        given), else every event. Events dropped as duplicates (``duplicates="first"`` or
        ``"last"``) are counted in the file's figures; a duplicate outside the sample is not
        refused.
    **read_csv_kwargs
        Passed to ``pandas.read_csv``.

    Returns
    -------
    Dataset
    """
    p = Path(path)
    if not p.is_file():
        raise DatasetError(
            f"No CSV file at {str(p)!r}" + (" (it is a directory)." if p.is_dir() else ".")
        )
    before = file_state(p)
    compression = read_csv_kwargs.get("compression", "infer")
    codec = codec_of(p, compression)
    if codec is None:
        check_not_compressed(p)
    encoding = read_csv_kwargs.pop("encoding", None) or bom_encoding(p, codec) or "utf-8-sig"
    check_not_json(p, encoding, codec)
    sep = read_csv_kwargs.pop("sep", read_csv_kwargs.pop("delimiter", None)) or _sniff_sep(
        p, encoding, codec
    )
    check_header_width(p, sep, encoding, codec)
    entity_l = [] if entity is None else [entity] if isinstance(entity, str) else list(entity)
    dtype = read_csv_kwargs.pop("dtype", None)
    try:
        header = pd.read_csv(p, nrows=0, sep=sep, encoding=encoding, compression=compression)
        check_first_line(p, sep, encoding, codec)
        options = read_options(
            header.columns, entity_l, time, measures, attributes, empty_ok, dtype, read_csv_kwargs
        )
        check_sample(sample)
        reader = pd.read_csv(
            p, sep=sep, encoding=encoding, chunksize=chunksize, **options, **read_csv_kwargs
        )
        keep = None if sample is None else (lambda c: _sampled(c, entity_l, sample))
        counts, keep = _shape_counts(
            p,
            shape_events,
            sample,
            entity_l,
            time,
            header.columns,
            keep,
            time_unit,
            dayfirst,
            naive_tz,
            empty_ok,
            codec,
        )
        df, seen = read_chunks(reader, p, keep=keep, progress=progress)
    except pd.errors.ParserError as exc:
        raise DatasetError(
            f"Cannot read {p.name!r} as CSV: {str(exc).strip()}. Fix that line (a stray {sep!r} or a field "
            f"that needs quotes), or pass sep= if {sep!r} is not the separator."
        ) from None
    except UnicodeDecodeError as exc:
        raise decode_error(p, encoding, exc, codec) from None
    except (pd.errors.EmptyDataError, ValueError) as exc:
        raise DatasetError(f"Cannot read {str(p)!r} as CSV: {exc}") from None
    check_unchanged(p, before)
    if counts is not None:
        share = sample if sample is not None else counts.share
        check_kept(len(df), share, counts, entity_l, None if sample is not None else shape_events)
    word = _index_by_line(df, file_lines(p, encoding, sep, read_csv_kwargs, seen, codec))
    if sample is None:
        _check_big_integers(p, df, as_names(measures), sep, encoding, word, compression)
    for col in empty_ok:
        if col in df.columns:
            df[col] = df[col].fillna("")
    nm = name or p.stem
    df, entity_l, notes = _prepare(df, entity, time, nm, time_unit, dayfirst, word)
    if sample is not None and counts is None:
        notes.append(sample_note(sample, entity_l, len(df), seen))
    ds = build_dataset(
        df,
        entity=entity_l,
        time=time,
        measures=measures,
        attributes=attributes,
        units=units,
        name=nm,
        empty_ok=empty_ok,
        duplicates=duplicates,
        naive_tz=naive_tz,
        description=description or f"Loaded from {p.name}.",
        row_word=word,
    )
    if counts is not None:
        from workbench.datasets.shape_sample import shape_note

        ds.aggregates = counts.aggregates()
        counted = "every event, counted in the same chunked read"
        notes.insert(0, shape_note(ds, seen, counted, share=sample))
    return _finish(ds, queries, notes)


def _shape_counts(
    p: Path,
    shape_events: int | None,
    sample: float | None,
    entity: list[str],
    time: str,
    columns: pd.Index,
    keep: Any,
    time_unit: str | None,
    dayfirst: bool | None,
    naive_tz: str | None,
    empty_ok: Sequence[str],
    codec: str | None = None,
) -> tuple[Any, Any]:
    """The counter of a shape-sampled read of ``p`` and the chunk filter that counts every chunk
    and keeps its sampled series (``(None, keep)`` when every event is kept). ``sample=`` is a
    shape sample too: production's series and rate are the whole file's, counted in the read
    that draws the sample, not the sample's own."""
    from workbench.datasets.shape_sample import shape_share

    if sample is not None and shape_events is None:
        named = set(entity) | {time}
        share = sample if entity and sample < 1 and named <= set(columns) else None
    else:
        share = shape_share(p, shape_events, sample, entity, [*entity, time], columns, codec)
    if share is None:
        return None, keep
    counts = chunk_counter(entity, time, time_unit, dayfirst, naive_tz, empty_ok)
    counts.share = share  # the draw's share: a read that keeps nothing names it

    def counted(chunk: pd.DataFrame) -> pd.DataFrame:
        keys = counts.count(chunk)  # stripped entity text: a series is chosen whole
        return chunk[sample_mask(keys, entity, share)]

    return counts, counted


def chunk_counter(
    entity: list[str],
    time: str,
    time_unit: str | None,
    dayfirst: bool | None,
    naive_tz: str | None,
    empty_ok: Sequence[str],
    counted_by: str | None = None,
) -> Any:
    """A :class:`~workbench.datasets.shape_sample.ChunkCounts` whose chunks' entity and time
    columns are parsed as the loaded events are (``counted_by``: what the inputs line says
    counted them; default from_csv's chunked read)."""
    from workbench.datasets.shape_sample import COUNTED_BY, ChunkCounts

    parse = functools.partial(
        _chunk_events,
        entity=entity,
        time=time,
        time_unit=time_unit,
        dayfirst=dayfirst,
        naive_tz=naive_tz,
        empty_ok=empty_ok,
    )
    return ChunkCounts(entity, parse, counted_by or COUNTED_BY)


def _chunk_events(
    chunk: pd.DataFrame,
    *,
    entity: list[str],
    time: str,
    time_unit: str | None,
    dayfirst: bool | None,
    naive_tz: str | None,
    empty_ok: Sequence[str],
) -> tuple[pd.DataFrame, pd.Series]:
    """A raw chunk's entity columns and UTC times as the loaded events hold them (the same
    steps as :func:`from_csv` after its read: blanks of ``empty_ok``, stripping, time parsing)."""
    from workbench.datasets.validate import parse_time

    keys = chunk[entity].copy()
    for col in empty_ok:
        if col in keys.columns:
            keys[col] = keys[col].fillna("")
    frame = keys.assign(**{time: chunk[time]})
    frame, _, _ = _prepare(frame, entity, time, "", time_unit, dayfirst, "data row")
    times, _ = parse_time(frame[time], time, naive_tz, "data row")
    return frame[entity], times


def check_sample(sample: float | None) -> None:
    if sample is not None and not (isinstance(sample, float | int) and 0 < sample <= 1):
        raise DatasetError(
            f"sample={sample!r} must be the share of series to keep, 0 < sample <= 1 (e.g. 0.1)."
        )


def series_draws(frame: pd.DataFrame, entity: list[str]) -> tuple[np.ndarray, np.ndarray, Any]:
    """(each event's series code, each series' CRC-32 of its entity text ÷ 2^32, the series'
    texts): a series is in a ``sample=`` share when its draw is under the share."""
    # the values are factorized first and only each distinct tuple made text (a Parquet
    # batch of 1 M events holds a few thousand series: str() of every event was most of it)
    combo = np.zeros(len(frame), dtype=np.int64)
    parts = []
    for c in entity:
        col_codes, col_uniques = pd.factorize(frame[c], use_na_sentinel=False)
        combo = combo * max(len(col_uniques), 1) + col_codes
        parts.append((col_codes, pd.Series(col_uniques, dtype=frame[c].dtype).astype(str)))
    combo_codes = combo if len(entity) == 1 else pd.factorize(combo)[0]
    at = np.empty(int(combo_codes.max()) + 1 if len(combo_codes) else 0, dtype=np.int64)
    at[combo_codes[::-1]] = np.arange(len(combo_codes) - 1, -1, -1)  # each tuple's first event
    text = pd.Series(parts[0][1].to_numpy()[parts[0][0][at]], dtype=object)
    for col_codes, col_text in parts[1:]:
        text = text + "\x1f" + col_text.to_numpy()[col_codes[at]]
    text_codes, uniques = pd.factorize(pd.Index(text, dtype=object))
    draws = np.array([zlib.crc32(u.encode()) / 2**32 for u in uniques], dtype=float)
    return text_codes[combo_codes], draws, uniques


def sample_mask(frame: pd.DataFrame, entity: list[str], sample: float) -> np.ndarray:
    """True for the events of the series whose CRC-32 of their entity text falls under
    ``sample`` (every event when there is one series: nothing to choose between)."""
    if not entity or not len(frame):
        return np.ones(len(frame), dtype=bool)
    codes, draws, _ = series_draws(frame, entity)
    return (draws < sample)[codes]


def check_kept(
    kept: int, sample: float, series: Any, entity: list[str], shape_events: int | None = None
) -> None:
    """A ``sample=`` share (or a ``shape_events=`` count, drawn as the share ``sample``) that
    kept no event is refused, naming it, the file's series and the smallest share (of two
    decimals) or count that keeps one of them (its CRC-32 draw is the lowest), instead of an
    empty frame's error later. ``series``: the file's distinct entity tuples (a frame), or a
    chunked read's counts (their ``sizes`` index)."""
    if kept or series is None:
        return
    if not isinstance(series, pd.DataFrame):
        if series.sizes is None or not len(series.sizes):
            return
        series = series.sizes.index.to_frame(index=False)
    keys = series.reset_index(drop=True)
    keys.columns = entity
    _, draws, texts = series_draws(keys, entity)
    i = int(np.argmin(draws))
    need = min(1.0, (math.floor(draws[i] * 100) + 1) / 100)
    name = str(texts[i]).replace("\x1f", "/")
    asked, give, alt = f"sample={sample!r}", f"sample={need:g}", "leave sample= out"
    if shape_events is not None:  # the share is shape_events ÷ the file's events
        least = math.ceil(draws[i] * shape_events / sample) + 1
        asked, give = f"shape_events={shape_events:,}", f"shape_events={least:,}"
        alt = "pass sample=1 instead"
    raise DatasetError(
        f"{asked} keeps none of the file's {len(keys):,} series: a series is kept "
        f"whole when the CRC-32 of its {'/'.join(entity)} ÷ 2^32 is under the share, and the "
        f"lowest is {draws[i]:.4f} ({name}). Give {give} or more to keep at least one "
        f"series, or {alt} to load every series."
    )


def _sampled(frame: pd.DataFrame, entity: list[str], sample: float) -> pd.DataFrame:
    """The events of the series whose CRC-32 of their entity text falls under ``sample``."""
    if not entity:
        return frame
    return frame[sample_mask(frame, entity, sample)]


def sample_note(sample: float, entity: list[str], kept: int, seen: int) -> str:
    return (
        f"sampled: the series whose CRC-32 of {'/'.join(entity)} falls in the lowest {sample:.0%} "
        f"were kept whole ({kept:,} of {seen:,} events read); every figure describes this sample."
    )


def as_names(v: str | Sequence[str] | None) -> list[str]:
    return [] if v is None else [v] if isinstance(v, str) else list(v)
