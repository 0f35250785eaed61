"""``workbench bulk-load SOURCE ...``: the command line of :mod:`workbench.beam.bulk_load`.

Its own options are parsed here; every other option is Beam's (``--runner``, ``--region``,
``--temp_location``, ``--extra_package``, ...) and goes to ``PipelineOptions`` unchanged.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any

from ..errors import WorkbenchError
from . import bulk_load as bl
from . import sources


def _names(text: str | None) -> tuple[str, ...]:
    return tuple(s.strip() for s in (text or "").split(",") if s.strip())


def _param(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(
            f"--param takes NAME=VALUE (e.g. bucket=day), got {text!r}"
        )
    return key, int(value) if value.lstrip("-").isdigit() else value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="workbench bulk-load",
        description="Write a design's cells for CSV or Parquet files with an Apache Beam "
        "pipeline (DirectRunner here, DataflowRunner in production). Options not listed "
        "here are Beam's pipeline options (--runner, --project is shared, --region, "
        "--temp_location, --extra_package, ...).",
    )
    p.add_argument("source", help="a CSV or Parquet file or glob, local or gs:// (quote globs)")
    p.add_argument("--entity", help="entity columns, comma-separated, in key order")
    p.add_argument("--time", required=True, help="the time column")
    p.add_argument("--measures", required=True, help="measure columns, comma-separated")
    p.add_argument("--attributes", help="other columns to keep (default: every other column)")
    p.add_argument("--naive-tz", help="the zone of naive times (e.g. UTC)")
    p.add_argument("--name", help="the dataset's name (default: the first file's stem)")
    p.add_argument("--design", required=True, help="a design name (wb.pattern_names)")
    p.add_argument("--param", action="append", type=_param, default=[], help="NAME=VALUE")
    p.add_argument("--format", choices=["csv", "parquet"], help="default: from the file name")
    p.add_argument("--sep", help="CSV separator (default: detected)")
    p.add_argument("--project", required=True)
    p.add_argument("--instance", required=True)
    p.add_argument("--table", required=True, help="the table ID (extra tables: ID--name)")
    p.add_argument("--confirm", help="repeat the table ID to change an existing table's GC rules")
    p.add_argument(
        "--allow-production",
        action="store_true",
        default=None,
        help="the production opt-in (or WORKBENCH_ALLOW_PRODUCTION=1)",
    )
    p.add_argument("--batch-events", type=int, default=bl.BATCH_EVENTS)
    p.add_argument("--sample-events", type=int, default=bl.SAMPLE_EVENTS)
    return p


def plan(args: argparse.Namespace) -> tuple[bl.Plan, str, list[str]]:
    """Target checks, the design from the first events, the tables: (plan, target, notes).
    The production opt-in is checked first, before the files are read or any request is sent."""
    target, conn = bl.Target.open(args.project, args.instance, args.allow_production)
    try:
        return _plan(args, target, conn)
    finally:
        conn.close()


def _plan(args: argparse.Namespace, target: bl.Target, conn: Any) -> tuple[bl.Plan, str, list[str]]:
    files = sources.match(args.source)
    kind = sources.kind_of(files[0], args.format)
    name = args.name or PurePosixPath(files[0]).name.split(".")[0]
    source = sources.Source(
        pattern=args.source,
        kind=kind,
        time=args.time,
        measures=_names(args.measures),
        entity=_names(args.entity),
        attributes=None if args.attributes is None else _names(args.attributes),
        naive_tz=args.naive_tz,
        name=name,
    )
    if kind == "csv":
        source = _replace(source, csv_options=sources.csv_options(files[0], source, args.sep))
    else:
        source = _replace(source, columns=sources.parquet_columns(files[0], source))
    sample = source.dataset(sources.first_events(source, files[0], args.sample_events))
    schema, precision = bl.design(sample, args.design, dict(args.param))
    tables, fams, notes = bl.prepare_tables(conn, schema, name, args.table, args.confirm)
    reducers = bl.reducers_of(fams)
    p = bl.Plan(source, schema, tables, reducers, target, args.batch_events, precision)
    return p, conn.target, [f"{len(files)} file(s) ({kind}), design {schema.name!r}", *notes]


def _replace(source: sources.Source, **changes: Any) -> sources.Source:
    from dataclasses import replace

    return replace(source, **changes)


def main_bulk_load(argv: Sequence[str]) -> int:
    """``workbench bulk-load``: 0 when every count matched, 2 on a refusal or bad input."""
    from apache_beam.options.pipeline_options import PipelineOptions

    args, beam_args = parser().parse_known_args(list(argv))
    if args.batch_events < 1 or args.sample_events < 1:
        raise WorkbenchError("--batch-events and --sample-events must be at least 1.")
    p, where, notes = plan(args)
    for line in notes:
        print(line)
    print(f"Writing to {', '.join(p.tables.values())} on the {where} ...", flush=True)
    beam_args.append(f"--project={args.project}")  # Dataflow's job runs in that project too
    report = bl.run(p, PipelineOptions(beam_args))
    for line in report.lines():
        print(line)
    return 0
