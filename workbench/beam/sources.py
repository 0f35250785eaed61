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
