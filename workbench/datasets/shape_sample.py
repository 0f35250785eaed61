"""The shape sample's shared pieces, and a CSV's whole-file counts from ``from_csv``'s one read.

``SHAPE_EVENTS`` and :func:`shape_note` serve ``from_parquet`` and ``from_csv`` alike.

A CSV's event count is unknown until it is read, so the shape sample's share of series is set
from an estimate (the file's bytes over the bytes per line of its first MiB), and the counts
the production model reads (:class:`~workbench.datasets.file_aggregates.FileAggregates`:
events, span, series, distinct values per entity column, the busiest series) are taken in the
same pass, chunk by chunk, from the entity and time columns parsed exactly as ``from_csv``
parses them for the events it keeps (entity text stripped, numeric and day-month times,
``naive_tz``): what the in-memory path would count on the whole file, with no second engine to
agree with. (DuckDB's ``read_csv`` parses times by its own rules, e.g. no ``naive_tz`` zone,
no ``dayfirst`` inference; counting in the pandas pass avoids a second parser.) Only the per-
series event counts are held between chunks (one integer per series).

``from_csv`` chooses the share on the stripped entity text by the same CRC-32 as ``sample=``
(``byo.sample_mask``), so a series is kept whole or not at all.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.datasets.csv_file import text_head
from workbench.datasets.file_aggregates import FileAggregates, busiest_series, column_sets
from workbench.datasets.model import Dataset
from workbench.errors import DatasetError

SHAPE_EVENTS = 500_000
"""The shape sample's size a file above ``SHAPE_ABOVE`` events (Parquet) or ``SHAPE_CSV_BYTES``
(CSV) is loaded to by default: whole series, a seeded (CRC-32) subset of them, about this many
events. At 5 M events (5,000 sensors) a shape sample of 507,000 gave the full load's nodes,
ceiling and storage (within 0.4 %) and compared every design in 46 s, one of 981,000 in 231 s
(bench/bench_shape_sample.py). ``parquet.SHAPE_ABOVE`` is twice this."""
SHAPE_CSV_BYTES = 100_000_000
"""CSV files larger than this (bytes of text, a compressed file's estimated) are loaded as a shape sample of ``SHAPE_EVENTS`` unless
``shape_events`` or ``sample`` says otherwise: a CSV's row count is unknown up front, and at
~50-100 bytes a line 100 MB is 1-2 M events, where ``parquet.SHAPE_ABOVE`` (1 M) puts Parquet
files."""

COUNTED_BY = "pandas in from_csv's chunked read"
"""What the inputs line says counted a CSV's events."""
HEAD_BYTES = 1 << 20
"""Bytes read from the start of a CSV to estimate its bytes per line."""


def estimate_events(p: Path, codec: str | None = None) -> int:
    """About how many data lines ``p`` holds: its text's size over the bytes per line of its
    first MiB (the header counted out; a compressed file's text size estimated by
    :func:`~workbench.datasets.csv_file.text_head`)."""
    return _events_in(*text_head(p, codec, HEAD_BYTES))


def _events_in(head: bytes, size: int) -> int:
    """Data lines in a text of ``size`` bytes that starts with ``head`` (counted when ``head`` is
    all of it, else scaled by ``head``'s bytes per line)."""
    lines = head.count(b"\n") + (0 if head.endswith(b"\n") else 1)
    if len(head) >= size:  # the whole file was read: count, not estimate
        return max(lines - 1, 0)
    return max(round(size * lines / max(len(head), 1)) - 1, 0)


def shape_share(
    p: Path,
    shape_events: int | None,
    sample: float | None,
    entity: list[str],
    named: list[str],
    columns: pd.Index,
    codec: str | None = None,
) -> float | None:
    """The share of series a shape-sampled read of the CSV ``p`` keeps, about ``shape_events``
    of its estimated events (None: every event is kept: no shape sample asked for or due, one
    series, the file not larger than ``shape_events``, or a ``named`` column missing, which
    ``build_dataset`` then refuses by name). A compressed file is measured by its text."""
    head = None  # a compressed file's head, decompressed once for both its size and its lines
    if shape_events is None and sample is None:
        if codec is not None:
            head = text_head(p, codec, HEAD_BYTES)
        if (p.stat().st_size if head is None else head[1]) > SHAPE_CSV_BYTES:
            shape_events = SHAPE_EVENTS
    if shape_events is None:
        return None
    check_shape_events(shape_events, sample)
    est = _events_in(*(head or text_head(p, codec, HEAD_BYTES)))
    if not entity or est <= shape_events or not set(named) <= set(columns):
        return None
    return shape_events / est


def check_shape_events(shape_events: int, sample: float | None) -> None:
    """A positive count, not together with ``sample=``; else refused."""
    if sample is not None or shape_events < 1:
        raise DatasetError(
            f"shape_events={shape_events!r}: give a positive number of events to keep, and not "
            "together with sample= (the shape sample chooses its own share of series)."
        )


class ChunkCounts:
    """Counts the events of every chunk of a CSV read.

    Parameters
    ----------
    entity : list of str
        The entity columns.
    parse : callable
        A chunk → (its entity columns as the events will hold them, its times in UTC).
    """

    def __init__(
        self,
        entity: list[str],
        parse: Callable[[pd.DataFrame], tuple[pd.DataFrame, pd.Series]],
        counted_by: str = COUNTED_BY,
    ) -> None:
        self.entity, self.parse, self.counted_by = entity, parse, counted_by
        self.events = 0
        self.first: pd.Timestamp | None = None
        self.last: pd.Timestamp | None = None
        self.sizes: pd.Series | None = None
        self.share: float | None = None  # the share of series a shape-sampled read draws

    def count(self, chunk: pd.DataFrame) -> pd.DataFrame:
        """Counts the chunk's events; returns its entity columns as parsed (stripped)."""
        keys, times = self.parse(chunk)
        self.events += len(keys)
        if len(times):
            lo, hi = times.min(), times.max()
            self.first = lo if self.first is None else min(self.first, lo)
            self.last = hi if self.last is None else max(self.last, hi)
        sizes = keys.groupby(self.entity, sort=False, observed=True).size()
        self.sizes = sizes if self.sizes is None else self.sizes.add(sizes, fill_value=0)
        return keys

    def aggregates(self) -> FileAggregates:
        """The counts of every chunk seen, as DuckDB's ``file_aggregates`` gives them."""
        sizes = self.sizes
        if sizes is None or not self.events:
            return FileAggregates(
                0,
                None,
                None,
                1,
                dict.fromkeys(self.entity, 1),
                (0, 1.0),
                counted_by=self.counted_by,
            )
        idx = sizes.index
        by_column = {c: max(int(idx.get_level_values(c).nunique()), 1) for c in self.entity}
        busiest = {}  # each combination of columns' groups and busiest, from the series' counts
        for cols in column_sets(self.entity):
            per = sizes if len(cols) == len(self.entity) else sizes.groupby(level=list(cols)).sum()
            busiest[cols] = (len(per), int(per.max()), float(per.mean()))
        return FileAggregates(
            self.events,
            self.first,
            self.last,
            max(len(sizes), 1),
            by_column,
            (len(sizes), float(sizes.max()) / float(sizes.mean())),
            counted_by=self.counted_by,
            busiest=busiest,
            series_events=busiest_series(sizes),
        )


HEAVY_TIMES = 10.0
"""A series writing at least this many times the mean series' events is *heavy*: a shape sample
read after DuckDB's scan holds it whatever its CRC-32 draw, thinned to the sample's share of its
events (``thin_mask``), so the sample's writes fall on the keys in the file's proportions (the
load model replays them: a series writing a tenth of the file is a tenth of the sample's writes,
not absent, nor half of them when drawn whole). A modelling choice: at 10× the mean a series
left out, or kept whole, moves the busiest tablet's share by more than the draw's own noise."""


def heavy_series(agg: FileAggregates) -> list[tuple[object, ...]]:
    """The file's heavy series (``HEAVY_TIMES`` the mean series' events or more), busiest
    first, from the busiest series the scan counted (``FileAggregates.series_events``)."""
    if not agg.series or not agg.events:
        return []
    floor = HEAVY_TIMES * agg.events / agg.series
    return [s for s, k in agg.series_events if k >= floor]


def thin_mask(times_us: np.ndarray, share: float) -> np.ndarray:
    """True for about ``share`` of the events, chosen by a hash of each event's time in µs
    (splitmix64's finaliser, the same pick in every file and batch, in no particular order)."""
    z = times_us.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return (z >> np.uint64(11)).astype(np.float64) < share * float(1 << 53)


def shape_note(
    ds: Dataset,
    total: int,
    counted: str = "DuckDB over every event",
    share: float | None = None,
    heavy: int = 0,
    drawn: float | None = None,
) -> str:
    """What a shape sample holds and where its counts come from (``counted``: by what;
    ``share``: the ``sample=`` a user gave, else the share of events kept is said; ``heavy``:
    the heavy series it holds thinned, ``HEAVY_TIMES``; ``drawn``: the share of series the
    CRC-32 draw keeps, said instead of the share of events when they differ)."""
    agg = ds.aggregates
    assert agg is not None
    what = "shape sample" if share is None else "sampled"
    kept = (
        f"{len(ds) / max(total, 1) if drawn is None else drawn:.1%}"
        if share is None
        else f"{share * 100:g}% (sample={share:g})"
    )
    return (
        f"{what}: {len(ds):,} of {total:,} events ({agg.series:,} series in the file; the "
        f"series whose CRC-32 of {'/'.join(ds.entity)} falls in the lowest "
        f"{kept} kept whole"
        + (
            f", and the {heavy:,} series writing {HEAVY_TIMES:g}× the mean series' events or "
            f"more each thinned to that share of its events, so the load model's writes fall "
            f"where the file's do"
            if heavy
            else ""
        )
        + "). The production figures take the file's "
        f"event rate and series ({counted}) for what the workload leaves unstated"
        + (
            ", and its busiest series and largest bucket rows; "
            if agg.rows
            else (", and its busiest series; " if agg.busiest else "; ")
        )
        + "the key layout, bytes, cells per event and each query's rows per series come from the "
        "sample, and the sample's own figures (rows, tables, pictures) describe the sample."
    )


__all__ = [
    "SHAPE_CSV_BYTES",
    "SHAPE_EVENTS",
    "HEAVY_TIMES",
    "ChunkCounts",
    "check_shape_events",
    "estimate_events",
    "heavy_series",
    "shape_note",
    "shape_share",
    "thin_mask",
]
