"""The files of a bulk load: which ones, CSV or Parquet, and how a batch of their rows becomes
events exactly as ``from_csv`` / ``from_parquet`` read them (through Beam's filesystems, so a
``gs://`` path reads as a local one where ``apache-beam[gcp]`` is installed)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from apache_beam.io.filesystems import FileSystems

from ..errors import DatasetError


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


def csv_frames(fh: Any, options: Mapping[str, Any], batch: int) -> Iterator[pd.DataFrame]:
    """A CSV file's events, ``batch`` lines at a time."""
    try:
        yield from pd.read_csv(fh, chunksize=batch, **options)
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise DatasetError(f"Cannot read CSV: {str(exc).strip()}") from None


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
            if n is None or not str(exc).startswith("The frame is empty"):
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
