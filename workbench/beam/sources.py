"""The files of a bulk load: which ones, CSV or Parquet, and how a batch of their rows becomes
events exactly as ``from_csv`` / ``from_parquet`` read them (through Beam's filesystems, so a
``gs://`` path reads as a local one where ``apache-beam[gcp]`` is installed)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import apache_beam as beam
import numpy as np
import pandas as pd
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics

from ..errors import DatasetError

NAMESPACE = "workbench.bulk_load"  # the Beam metrics of a bulk load

# Bytes of an uncompressed CSV file one worker reads (a range): Beam's text sources split
# files into bundles of tens of MB the same way; a compressed file is one range (it cannot be
# entered in the middle).
CSV_RANGE_BYTES = 64 * 2**20
_BLOCK = 2**20  # bytes read at a time when looking for a line's end


@dataclass(frozen=True)
class Source:
    """The files and how their columns become a Dataset (``from_dataframe``'s arguments)."""

    pattern: str
    kind: str  # "csv" or "parquet"
    time: str
    measures: tuple[str, ...]
    entity: tuple[str, ...] = ()
    attributes: tuple[str, ...] | None = None
    naive_tz: str | None = None
    name: str = "custom"
    columns: tuple[str, ...] | None = None  # Parquet: the columns read
    csv_options: Mapping[str, Any] = field(default_factory=dict)
    range_bytes: int = CSV_RANGE_BYTES  # CSV: bytes per range (0: every file whole)

    def dataset(self, frame: pd.DataFrame) -> Any:
        """One batch of events as a Dataset, checked as ``from_dataframe`` checks any frame."""
        from ..datasets.byo import from_dataframe

        return from_dataframe(
            frame,
            entity=list(self.entity) or None,
            time=self.time,
            measures=list(self.measures),
            attributes=None if self.attributes is None else list(self.attributes),
            name=self.name,
            naive_tz=self.naive_tz,
            queries=[],
        )


def match(pattern: str) -> list[str]:
    """The files a path or glob names (local or ``gs://``), sorted; DatasetError when none."""
    try:
        found = FileSystems.match([pattern])[0].metadata_list
    except ValueError as exc:  # no filesystem for the scheme: gs:// needs apache-beam[gcp]
        raise DatasetError(
            f"Cannot list {pattern!r}: {exc}. A gs:// path needs Beam's GCP extra where the job "
            "is launched: pip install 'apache-beam[gcp]'."
        ) from None
    paths = sorted(m.path for m in found)
    if not paths:
        raise DatasetError(
            f"No file matches {pattern!r}. Name a CSV or Parquet file, or a glob such as "
            "'exports/part-*.parquet' (quote it, so the shell leaves the * to the workbench)."
        )
    return paths


def kind_of(path: str, given: str | None = None) -> str:
    if given:
        return given
    low = path.lower()
    if low.endswith((".parquet", ".pq", ".parq")):
        return "parquet"
    if low.endswith((".csv", ".csv.gz", ".txt", ".tsv")):
        return "csv"
    raise DatasetError(
        f"Cannot tell whether {path!r} is CSV or Parquet from its name: pass --format csv or "
        "--format parquet."
    )


def csv_options(path: str, source: Source, sep: str | None = None) -> dict[str, Any]:
    """``pandas.read_csv`` options as ``from_csv`` sets them (separator sniffed, entity and time
    columns as text, NA names kept in entity columns), from the first file's header."""
    from ..datasets.byo import read_options

    with FileSystems.open(path) as fh:
        head = fh.read(65536).decode("utf-8-sig", errors="replace")
    if sep is None:
        try:
            sep = csv.Sniffer().sniff(head, delimiters=",;\t|").delimiter
        except csv.Error:
            sep = ","
    header = pd.read_csv(io.StringIO(head), nrows=0, sep=sep)
    extra: dict[str, Any] = {}
    opts = read_options(
        header.columns,
        list(source.entity),
        source.time,
        list(source.measures),
        None if source.attributes is None else list(source.attributes),
        (),
        None,
        extra,
    )
    return {"sep": sep, "encoding": "utf-8-sig", **opts, **extra}


def csv_frames(
    fh: Any, options: Mapping[str, Any], batch: int, where: str = ""
) -> Iterator[pd.DataFrame]:
    """A CSV file's events, ``batch`` lines at a time (``where``: the file and bytes, named in
    an error)."""
    try:
        yield from pd.read_csv(fh, chunksize=batch, **options)
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        at = f" {where}" if where else ""
        raise DatasetError(f"Cannot read CSV{at}: {str(exc).strip()}") from None


def parquet_columns(path: str, source: Source) -> tuple[str, ...]:
    """The columns read from every Parquet file (a pandas index written without a name is no
    column of the events; only the named ones when attributes are given)."""
    import pyarrow.parquet as pq

    from ..datasets.parquet import PANDAS_INDEX

    with FileSystems.open(path) as fh:
        names = pq.ParquetFile(fh).schema_arrow.names
    cols = [c for c in names if not PANDAS_INDEX.fullmatch(c)]
    if source.attributes is not None:
        wanted = {*source.entity, source.time, *source.measures, *source.attributes}
        cols = [c for c in cols if c in wanted]
    return tuple(cols)


def arrow_frame(table: Any) -> pd.DataFrame:
    """A pyarrow Table as ``from_parquet`` converts its batches (binary columns as UTF-8 text)."""
    from ..datasets.parquet import to_frame

    return to_frame(table.to_batches(), table.schema)


def first_events(source: Source, path: str, n: int) -> pd.DataFrame:
    """The first ``n`` events of ``path``: what the design is derived from."""
    with FileSystems.open(path) as fh:
        if source.kind == "csv":
            return next(iter(csv_frames(fh, source.csv_options, n)), pd.DataFrame())
        import pyarrow as pa
        import pyarrow.parquet as pq

        batches = pq.ParquetFile(fh).iter_batches(batch_size=n, columns=list(source.columns or ()))
        first = next(iter(batches), None)
        if first is None:
            return pd.DataFrame()
        return arrow_frame(pa.Table.from_batches([first]))


# ----------------------------------------------------------------------------- CSV ranges


@dataclass(frozen=True)
class CsvRange:
    """Bytes [start, end) of a CSV file: the rows that *start* there are this range's (a row
    crossing ``end`` is read to its end; one crossing ``start`` belongs to the range before).
    ``end`` -1: the whole file, read as one (compressed, or small)."""

    path: str
    start: int
    end: int


def csv_ranges(path: str, size: int, range_bytes: int) -> list[CsvRange]:
    """A file's ranges of ``range_bytes`` (the whole file when it is compressed or smaller)."""
    from apache_beam.io.filesystem import CompressionTypes

    plain = CompressionTypes.detect_compression_type(path) == CompressionTypes.UNCOMPRESSED
    if not plain or range_bytes <= 0 or size <= range_bytes:
        return [CsvRange(path, 0, -1)]
    return [CsvRange(path, s, min(s + range_bytes, size)) for s in range(0, size, range_bytes)]


def _open_plain(path: str) -> Any:
    from apache_beam.io.filesystem import CompressionTypes

    return FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED)


def quote_parity(r: CsvRange) -> int:
    """The parity of the ``"`` characters in a range's bytes. A CSV writes a quote inside a
    quoted field doubled (RFC 4180, pandas' default), so a position is inside a quoted field
    exactly when an odd number of quotes come before it: with the parities of the ranges before
    it, a range knows whether its first newline ends a row or sits inside a field."""
    if r.end < 0:
        return 0
    odd, left = 0, r.end - r.start
    with _open_plain(r.path) as fh:
        fh.seek(r.start)
        while left > 0:
            block = fh.read(min(_BLOCK, left))
            if not block:
                break
            odd ^= block.count(b'"') & 1
            left -= len(block)
    return odd


def parities_before(
    path_parities: tuple[str, Iterable[tuple[int, int]]],
) -> tuple[str, dict[int, tuple[int, int]]]:
    """(path, {range start: (odd quotes before it, odd quotes before its end)}) from each
    range's own parity."""
    path, got = path_parities
    out, odd = {}, 0
    for start, parity in sorted(got):
        out[start] = (odd, odd ^ parity)
        odd ^= parity
    return path, out


def _row_end(fh: Any, pos: int, odd: int) -> int:
    """The position after the first newline at or after ``pos`` outside a quoted field
    (``odd``: quotes before ``pos``, mod 2), or the file's end."""
    fh.seek(pos)
    while True:
        block = fh.read(_BLOCK)
        if not block:
            return pos
        i = 0
        while (nl := block.find(b"\n", i)) >= 0:
            odd ^= block.count(b'"', i, nl) & 1
            if not odd:
                return pos + nl + 1
            i = nl + 1
        odd ^= block.count(b'"', i) & 1
        pos += len(block)


def _row_start(fh: Any, pos: int, odd: int) -> int:
    """The first row start at or after ``pos``: ``pos`` itself when a newline outside quotes
    ends the byte before it."""
    if pos == 0:
        return 0
    fh.seek(pos - 1)
    if fh.read(1) == b"\n" and not odd:
        return pos
    return _row_end(fh, pos, odd)


def range_frames(
    r: CsvRange, odd: tuple[int, int], options: Mapping[str, Any], batch: int
) -> Iterator[pd.DataFrame]:
    """The events of the rows starting in a range (the file's header put before them), read
    with ``from_csv``'s options, ``batch`` rows at a time."""
    if r.end < 0:
        with FileSystems.open(r.path) as fh:
            yield from csv_frames(fh, options, batch, r.path)
        return
    with _open_plain(r.path) as fh:
        header_end = _row_end(fh, 0, 0)
        first = max(_row_start(fh, r.start, odd[0]), header_end)
        if first >= r.end:
            return  # no row starts here
        last = _row_start(fh, r.end, odd[1])
        fh.seek(0)
        text = fh.read(header_end)
        fh.seek(first)
        text += fh.read(last - first)
    # a line number in pandas' message counts from the header put first
    where = f"{r.path} (the rows in bytes {first:,}-{last:,}, after its header)"
    yield from csv_frames(io.BytesIO(text), options, batch, where)


def count(name: str, n: int) -> None:
    """Add to one of the bulk load's Beam counters."""
    Metrics.counter(NAMESPACE, name).inc(int(n))


# ----------------------------------------------------------------------------- reading


def kept(frame: pd.DataFrame, drop: np.ndarray | None, offset: int) -> pd.DataFrame:
    """A batch read (counted) without the rows ``drop`` leaves out as duplicates (counted):
    ``offset``, the file's data row the batch starts at."""
    from .preflight import drop_rows

    count("events_read", len(frame))
    out = drop_rows(frame, drop, offset)
    if len(out) != len(frame):
        count("duplicates_dropped", len(frame) - len(out))
    return out


class ReadCsvRange(beam.DoFn):
    """A range of a CSV file → its events, ``batch`` rows at a time (pandas, from_csv's options);
    ``parities``: path → {range start: quotes before it and before its end, mod 2}; ``drop``:
    file → the data rows left out as duplicates (such a file is one range, read whole, so each
    row's number in its file is known)."""

    def __init__(
        self, options: Mapping[str, Any], batch: int, drop: Mapping[str, np.ndarray] | None = None
    ):
        self.options, self.batch, self.drop = dict(options), batch, dict(drop or {})

    def process(self, r: CsvRange, parities: Mapping[str, Any]) -> Iterator[pd.DataFrame]:
        odd = parities.get(r.path, {}).get(r.start, (0, 0))
        drop = self.drop.get(r.path) if r.end < 0 else None
        offset = 0
        for frame in range_frames(r, odd, self.options, self.batch):
            yield kept(frame, drop, offset)
            offset += len(frame)


class ReadParquet(beam.DoFn):
    """A matched Parquet file → its events in batches, converted as ``from_parquet`` does,
    without the rows ``drop`` leaves out: used only when duplicates are left out, as it needs
    each row's place in its file (the file is the unit of parallel work here)."""

    def __init__(self, columns: Iterable[str], batch: int, drop: Mapping[str, np.ndarray]):
        self.columns, self.batch, self.drop = list(columns), batch, dict(drop)

    def process(self, readable: Any) -> Iterator[pd.DataFrame]:
        import pyarrow as pa
        import pyarrow.parquet as pq

        drop, offset = self.drop.get(readable.metadata.path), 0
        with readable.open() as fh:
            for b in pq.ParquetFile(fh).iter_batches(batch_size=self.batch, columns=self.columns):
                frame = arrow_frame(pa.Table.from_batches([b]))
                yield kept(frame, drop, offset)
                offset += len(frame)


def _ranges(match: Any, range_bytes: int, whole: frozenset[str]) -> list[CsvRange]:
    size = -1 if match.path in whole else range_bytes  # a file with rows to drop: one range
    return csv_ranges(match.path, match.size_in_bytes, size)


def _parity(r: CsvRange) -> tuple[str, tuple[int, int]]:
    return r.path, (r.start, quote_parity(r))


def _parquet_frame(table: Any) -> pd.DataFrame:
    frame = arrow_frame(table)
    count("events_read", len(frame))
    return frame


def read_events(
    pipeline: Any, src: Source, batch: int, drop: Mapping[str, np.ndarray] | None = None
) -> Any:
    """The files' events as a PCollection of frames, read in parallel: Parquet by row groups
    (``ReadFromParquetBatched``, Beam's splittable source), CSV by byte ranges; ``drop``: file →
    the data rows ``--duplicates`` leaves out (counted as read and as dropped)."""
    from apache_beam.io import fileio

    drop = dict(drop or {})
    if src.kind == "parquet" and drop:
        return (
            pipeline
            | "Match Parquet" >> fileio.MatchFiles(src.pattern)
            | "Open Parquet" >> fileio.ReadMatches()
            | "Read Parquet" >> beam.ParDo(ReadParquet(src.columns or (), batch, drop))
        )
    if src.kind == "parquet":
        from apache_beam.io.parquetio import ReadFromParquetBatched

        return (
            pipeline
            | "Read Parquet" >> ReadFromParquetBatched(src.pattern, columns=list(src.columns or ()))
            | "Arrow to pandas" >> beam.Map(_parquet_frame)
        )
    # splittable: each file cut into byte ranges any worker reads (after a reshuffle), a quoted
    # field's line breaks told apart by the quotes before each range
    ranges = (
        pipeline
        | "Match CSV" >> fileio.MatchFiles(src.pattern)
        | "CSV ranges" >> beam.FlatMap(_ranges, src.range_bytes, frozenset(drop))
    )
    parities = (
        ranges
        | "Quotes per range" >> beam.Map(_parity)
        | "Ranges per file" >> beam.GroupByKey()
        | "Quotes before ranges" >> beam.Map(parities_before)
    )
    return (
        ranges
        | "Spread ranges" >> beam.Reshuffle()
        | "Read CSV"
        >> beam.ParDo(ReadCsvRange(src.csv_options, batch, drop), beam.pvalue.AsDict(parities))
    )


def shape_sample(
    source: Source, files: list[str], duplicates: str, shape_events: int | None
) -> Any:
    """The events the design and split points are derived from: the whole input's shape
    sample, as ``from_parquet`` / ``from_csv`` take it (whole series, chosen by CRC-32, about
    ``shape_events`` events — their default when None — with the whole files' counts), so the
    design is the one ``load`` would choose for all the files. Remote files (``gs://``): the
    first ``shape_events`` (default ``SHAPE_EVENTS``) events of the first file."""
    from ..datasets.shape_sample import SHAPE_EVENTS

    common: dict[str, Any] = {
        "entity": list(source.entity) or None,
        "time": source.time,
        "measures": list(source.measures),
        "attributes": None if source.attributes is None else list(source.attributes),
        "name": source.name,
        "naive_tz": source.naive_tz,
        "duplicates": duplicates,
        "queries": [],
        "progress": False,
    }
    if any("://" in f for f in files):
        return source.dataset(first_events(source, files[0], shape_events or SHAPE_EVENTS))
    # a shape sample far smaller than the series' sizes can keep no series at all (the CRC-32
    # share picks none): ask for more, up to every event
    tries = [shape_events, *(shape_events * k for k in (10, 100)), None] if shape_events else [None]
    for n in tries:
        try:
            return _local_sample(source, files, n, common)
        except DatasetError as exc:
            if n is None or "keeps none of the file's" not in str(exc):
                raise
    raise AssertionError("unreachable: the last try keeps every event")


def _local_sample(
    source: Source, files: list[str], shape_events: int | None, common: dict[str, Any]
) -> Any:
    from ..datasets.shape_sample import SHAPE_EVENTS

    if source.kind == "parquet":
        from ..datasets.parquet import from_parquet

        return from_parquet(files, shape_events=shape_events, **common)
    from ..datasets.byo import from_csv

    opts: dict[str, Any] = {"sep": source.csv_options.get("sep")}
    if len(files) == 1:
        return from_csv(files[0], shape_events=shape_events, **common, **opts)
    return _csv_files_sample(files, shape_events or SHAPE_EVENTS, common, opts)


def _csv_files_sample(
    files: list[str], n: int, common: dict[str, Any], opts: dict[str, Any]
) -> Any:
    """Several CSV files: the same share of series (``from_csv(sample=)``, by CRC-32: the same
    series in every file) from each, about ``n`` events in all, as one Dataset."""
    from pathlib import Path

    from ..datasets.byo import from_csv, from_dataframe
    from ..datasets.shape_sample import estimate_events

    total = sum(estimate_events(Path(f)) for f in files)
    share = None if total <= n or not common["entity"] else n / total
    parts = [from_csv(f, sample=share, **common, **opts) for f in files]
    frame = pd.concat([p.frame for p in parts], ignore_index=True)
    keep = {k: v for k, v in common.items() if k not in ("progress", "naive_tz")}
    keep["attributes"] = list(parts[0].attributes)
    return from_dataframe(frame, **keep)
