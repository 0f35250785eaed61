"""What ``workbench bulk-load`` checks before it creates a table (issue 45, item 4).

Every refusal here comes before the first admin or data request, so a refused bulk load leaves
no table behind and its rerun is the same command:

* **the runner** (:func:`check_runner`): Beam's own lookup (``create_runner``) for a typo,
  Dataflow's client module for ``DataflowRunner`` without ``apache-beam[gcp]``, and the Prism
  binary (``PrismJobServer.path_to_binary``: the cached one, ``--prism_location``, or its
  download) for ``PrismRunner``; Beam options it cannot parse are refused too (Beam itself only
  logs "Discarding unparseable args" and runs on, e.g. with ``--runer`` on the DirectRunner);
* **every file's columns and types** (:func:`file_columns`, :func:`check_same_columns`): a
  Parquet file's schema from its footer (pyarrow, no rows read), a CSV's header and the kinds
  of its first ``SNIFF_ROWS`` rows as ``from_csv``'s options parse them (number, text,
  true/false; a column empty there matches any kind); a column missing, added or of another
  type than in the first file is refused naming the file, the column and both types;
* **times before 1970 and duplicates** (:func:`scan`): DuckDB over the local files (out of
  core: only the entity and time columns, in a database file in a temporary folder), so the
  same entity and time twice — within one file or across files — is refused with the counts
  and an example, or resolved by ``--duplicates first|last`` (like ``from_csv(duplicates=)``:
  the first or last in file order, files sorted) into the rows the pipeline leaves out.
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import DatasetError, WorkbenchError

SNIFF_ROWS = 1_000
"""A CSV's first data rows whose parsed kinds stand for the file's column types."""


# ----------------------------------------------------------------------------- runner


def check_runner(options: Any, argv: Sequence[str]) -> str:
    """The runner's name, once Beam can build it and run there; else a one-line refusal."""
    from apache_beam.options.pipeline_options import PipelineOptions, StandardOptions
    from apache_beam.runners.runner import create_runner

    unknown = _unparseable(argv)
    if unknown:
        raise WorkbenchError(
            f"workbench bulk-load does not know the option(s) {', '.join(unknown)}: neither its "
            "own (workbench bulk-load -h) nor a Beam pipeline option. Nothing was created."
        )
    name = options.view_as(StandardOptions).runner or "DirectRunner"
    if not isinstance(name, str):
        return type(name).__name__
    try:
        create_runner(name)
    except (ValueError, ImportError) as exc:
        raise WorkbenchError(
            f"--runner {name}: {str(exc).splitlines()[0]} Nothing was created."
        ) from None
    short = name.rsplit(".", 1)[-1]
    if short in ("DataflowRunner", "TestDataflowRunner"):
        try:
            from apache_beam.runners.dataflow.internal import apiclient  # noqa: F401
        except ImportError:
            raise WorkbenchError(
                "--runner DataflowRunner needs Beam's GCP extra where the job is launched: pip "
                "install 'bigtable-ts-workbench[dataflow]' (or 'apache-beam[gcp]'). Nothing was "
                "created."
            ) from None
    if short == "PrismRunner":
        from apache_beam.runners.portability.prism_runner import PrismJobServer

        try:
            # the step its run starts with: the cached binary, --prism_location, or a download
            PrismJobServer(PipelineOptions(list(argv)))._get_executable_path()
        except Exception as exc:  # noqa: BLE001 - offline, a bad --prism_location: one line
            raise WorkbenchError(
                f"--runner PrismRunner: its binary cannot be had ({type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else 'no detail'}). Offline, download "
                "it once where you can and pass --prism_location=PATH, or use --runner "
                "DirectRunner. Nothing was created."
            ) from None
    return short


def _unparseable(argv: Sequence[str]) -> list[str]:
    """Options no Beam options class parses (those ``get_all_options`` discards), each with
    Beam's closest option when there is one."""
    import difflib

    from apache_beam.options.pipeline_options import PipelineOptions

    seen: list[Any] = []
    PipelineOptions(list(argv)).get_all_options(add_extra_args_fn=seen.append)
    parser = seen[0]
    _, rest = parser.parse_known_args(list(argv))
    known = [o for a in parser._actions for o in a.option_strings]
    out = []
    for arg in (a for a in rest if a.startswith("-")):
        near = difflib.get_close_matches(arg.split("=", 1)[0], known, n=1)
        out.append(arg + (f" (did you mean {near[0]}?)" if near else ""))
    return out


# ----------------------------------------------------------------------------- columns


def file_columns(path: str, kind: str, csv_options: Mapping[str, Any]) -> dict[str, str | None]:
    """A file's columns → their type: a Parquet footer's Arrow types, or a CSV's header with the
    kinds of its first ``SNIFF_ROWS`` rows (None: empty there, so any kind)."""
    from apache_beam.io.filesystems import FileSystems

    if kind == "parquet":
        import pyarrow.parquet as pq

        from ..datasets.parquet import PANDAS_INDEX

        with FileSystems.open(path) as fh:
            schema = pq.ParquetFile(fh).schema_arrow
        return {
            n: str(t)
            for n, t in zip(schema.names, schema.types, strict=True)
            if not PANDAS_INDEX.fullmatch(n)
        }
    import pandas as pd

    with FileSystems.open(path) as fh:
        head = fh.read(1 << 20)
    text = head.decode("utf-8-sig", errors="replace")
    if len(head) == 1 << 20:  # cut at the last whole line
        text = text[: text.rfind("\n") + 1]
    opts = {k: v for k, v in csv_options.items() if k not in ("usecols", "encoding")}
    try:
        frame = pd.read_csv(io.StringIO(text), nrows=SNIFF_ROWS, **opts)
    except (pd.errors.ParserError, ValueError) as exc:
        raise DatasetError(f"Cannot read {path!r} as CSV: {str(exc).strip()}") from None
    return {str(c): _kind(frame[c]) for c in frame.columns}


def _kind(col: Any) -> str | None:
    if col.isna().all():
        return None
    k = col.dtype.kind
    return "number" if k in "iuf" else "true/false" if k == "b" else "time" if k == "M" else "text"


def check_same_columns(
    columns: Mapping[str, Mapping[str, str | None]], wanted: set[str] | None
) -> None:
    """Every file has the first file's columns (``wanted``: only those when attributes were
    named) in the same types; refused naming the file, the column and both types."""
    files = list(columns)
    first, ref = files[0], columns[files[0]]
    for path in files[1:]:
        have = columns[path]
        for col, want in ref.items():
            if wanted is not None and col not in wanted:
                continue
            if col not in have:
                raise DatasetError(
                    f"{path!r} has no column {col!r}, which {first!r} (the first file) has as "
                    f"{want or 'an empty column'}. Every file must hold the same columns: add it, "
                    "or leave the file out. Nothing was created."
                )
            got = have[col]
            if want is not None and got is not None and got != want:
                raise DatasetError(
                    f"Column {col!r} is {got} in {path!r} but {want} in {first!r} (the first "
                    "file): one load writes one type per column. Write it as one type in every "
                    "file. Nothing was created."
                )
        extra = [c for c in have if c not in ref and (wanted is None or c in wanted)]
        if extra:
            raise DatasetError(
                f"{path!r} has column {extra[0]!r} ({have[extra[0]] or 'empty'}), which "
                f"{first!r} (the first file) has not. Every file must hold the same columns: "
                "name the ones to keep with --attributes, or leave the file out. Nothing was "
                "created."
            )


# ----------------------------------------------------------------------------- scan


@dataclass(frozen=True)
class Scan:
    """What DuckDB found over every file: the rows left out as duplicates (file → data row
    numbers, from 0) and lines for the user."""

    drop: Mapping[str, np.ndarray] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def dropped(self) -> int:
        return int(sum(len(v) for v in self.drop.values()))


def scan(
    files: Sequence[str],
    kind: str,
    entity: Sequence[str],
    time: str,
    naive_tz: str | None,
    sep: str | None,
    duplicates: str,
) -> Scan:
    """Times before 1970 and duplicate (entity, time) events over all of ``files`` (local),
    before anything is created: refused naming file, column and row, or duplicates resolved by
    ``duplicates`` ("first" / "last")."""
    import duckdb

    if any("://" in f for f in files):
        return Scan(
            notes=(
                "Remote files: duplicates and times before 1970 are checked batch by batch as "
                "they are written, not before (DuckDB reads local files here).",
            )
        )
    with tempfile.TemporaryDirectory(prefix="wb-bulk-scan-") as tmp:
        db = duckdb.connect(f"{tmp}/scan.duckdb")
        try:
            db.execute(f"SET temp_directory='{tmp}'")
            db.execute("SET TimeZone=?", [naive_tz or "UTC"])
            _load_keys(db, files, kind, entity, time, sep)
            _check_epoch(db, files, time)
            return _duplicates(db, files, entity, time, duplicates)
        finally:
            db.close()


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _load_keys(
    db: Any, files: Sequence[str], kind: str, entity: Sequence[str], time: str, sep: str | None
) -> None:
    """Table ``ev``: file index, data row, entity texts, the time as DuckDB parses it and its
    text (the key when it does not parse)."""
    ents = [f"e{i}" for i in range(len(entity))]
    cols = ", ".join([*(f"{e} VARCHAR" for e in ents), "ts TIMESTAMPTZ", "traw VARCHAR"])
    db.execute(f"CREATE TABLE ev (f INTEGER, r BIGINT, {cols})")
    ent_sql = "".join(f"trim(CAST({_q(c)} AS VARCHAR)), " for c in entity)
    t = _q(time)
    if kind == "parquet":
        for i, path in enumerate(files):
            db.execute(
                f"INSERT INTO ev SELECT {i}, file_row_number, {ent_sql}"
                f"TRY_CAST({t} AS TIMESTAMPTZ), CAST({t} AS VARCHAR) "
                "FROM read_parquet(?, file_row_number=true)",
                [path],
            )
        return
    db.execute("SET threads=1")  # one reader: rows numbered in the file's order
    for i, path in enumerate(files):
        db.execute(
            f"INSERT INTO ev SELECT {i}, row_number() OVER () - 1, {ent_sql}"
            f"TRY_CAST({t} AS TIMESTAMPTZ), {t} "
            "FROM read_csv(?, all_varchar=true, header=true, delim=?)",
            [path, sep or ","],
        )


def _check_epoch(db: Any, files: Sequence[str], time: str) -> None:
    row = db.execute(
        "SELECT f, r, traw, count(*) OVER () FROM ev "
        "WHERE ts < TIMESTAMPTZ '1970-01-01 00:00:00+00' ORDER BY f, r LIMIT 1"
    ).fetchone()
    if row is not None:
        f, r, raw, n = row
        raise DatasetError(
            f"{files[f]!r}, data row {r + 1:,}: column {time!r} holds {raw}, before "
            f"1970-01-01 ({n:,} such event(s) in all). Bigtable cell timestamps are "
            "microseconds since 1970 and cannot be negative: leave those events out of the "
            "files. Nothing was created."
        )


def _duplicates(
    db: Any, files: Sequence[str], entity: Sequence[str], time: str, duplicates: str
) -> Scan:
    ents = [f"e{i}" for i in range(len(entity))]
    # an event's time is its parsed time, or its text where it does not parse (grouped as
    # values: the text of every parsed time, cast per row, took half the scan)
    sel = ", ".join([*ents, "ts", "CASE WHEN ts IS NULL THEN traw END AS tk"])
    db.execute(f"CREATE TABLE dk AS SELECT {sel}, count(*) AS n FROM ev GROUP BY ALL HAVING n > 1")
    tk = "ts, dk.tk"
    keys, extra = db.execute("SELECT count(*), coalesce(sum(n - 1), 0) FROM dk").fetchone()
    if not keys:
        return Scan()
    on = " AND ".join(
        [
            *(f"ev.{e} = dk.{e}" for e in ents),
            "ev.ts IS NOT DISTINCT FROM dk.ts",
            "(CASE WHEN ev.ts IS NULL THEN ev.traw END) IS NOT DISTINCT FROM dk.tk",
        ]
    )
    if duplicates == "error":
        ex = db.execute(
            f"SELECT ev.f, ev.r, {', '.join(f'ev.{e}' for e in ents) or 'NULL'}, ev.traw "
            f"FROM ev JOIN dk ON {on} "
            f"ORDER BY {', '.join(f'dk.{e}' for e in ents) or '1'}, dk.{tk}, ev.f, ev.r LIMIT 3"
        ).fetchall()
        where = "; ".join(f"{files[f]!r} data row {r + 1:,}" for f, r, *_ in ex)
        what = (
            ", ".join(f"{c}={v!r}" for c, v in zip(entity, ex[0][2:-1], strict=True))
            if entity
            else ""
        )
        raise DatasetError(
            f"{keys:,} (entity, time) pair(s) occur more than once in the input: {extra:,} "
            f"event(s) beyond one per pair, which would overwrite each other's cells. E.g. "
            f"{what + ', ' if what else ''}{time}={ex[0][-1]!r} at {where}. Pass --duplicates "
            "first or --duplicates last to keep one of each (in file order, files sorted), or "
            "remove them from the files. Nothing was created."
        )
    order = "ev.f, ev.r" if duplicates == "first" else "ev.f DESC, ev.r DESC"
    part = ", ".join([*(f"ev.{e}" for e in ents), f"dk.{tk}"])
    losers = db.execute(
        f"SELECT f, r FROM (SELECT ev.f, ev.r, row_number() OVER (PARTITION BY {part} "
        f"ORDER BY {order}) AS k FROM ev JOIN dk ON {on}) WHERE k > 1 ORDER BY f, r"
    ).fetchnumpy()
    drop: dict[str, np.ndarray] = {}
    for i in np.unique(losers["f"]):
        drop[files[int(i)]] = np.asarray(losers["r"][losers["f"] == i], dtype=np.int64)
    note = (
        f"Duplicates: {keys:,} (entity, time) pair(s) occur more than once; the {duplicates} of "
        f"each kept (--duplicates {duplicates}, file order), {extra:,} event(s) left out."
    )
    return Scan(drop=drop, notes=(note,))


def drop_rows(frame: Any, drop: np.ndarray | None, offset: int) -> Any:
    """``frame`` (data rows ``offset`` …) without the rows ``drop`` names."""
    if drop is None or not len(drop):
        return frame
    pos = np.arange(offset, offset + len(frame))
    keep = ~np.isin(pos, drop)
    return frame if keep.all() else frame.loc[keep].reset_index(drop=True)
