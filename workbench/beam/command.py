"""``workbench bulk-load SOURCE ...``: the command line of :mod:`workbench.beam.bulk_load`.

Its own options are parsed here; every other option is Beam's (``--runner``, ``--region``,
``--temp_location``, ``--extra_package``, ...) and goes to ``PipelineOptions`` unchanged.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any

from ..errors import WorkbenchError
from . import batches, preflight, sources, splits
from . import bulk_load as bl
from .template import LAUNCH_MARK, command_argv


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
    p.add_argument(
        "--sample-events",
        type=int,
        help="events of the whole input's shape sample the design is derived from (whole "
        "series; default: from_parquet's / from_csv's)",
    )
    p.add_argument(
        "--duplicates",
        choices=["error", "first", "last"],
        default="error",
        help="the same entity and time more than once in the input: refuse (default), or keep "
        "the first or last of each in file order",
    )
    p.add_argument(
        "--pre-split",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="create new tables split where the load model's tablets start (default: on)",
    )
    p.add_argument(
        "--events-per-s",
        type=float,
        help="the production rate the split points are computed at (default: the data's own)",
    )
    p.add_argument(
        "--nodes",
        type=int,
        help="the cluster's nodes the split points are computed for (default 3)",
    )
    p.add_argument(
        "--max-bad-records",
        type=int,
        help="rows the input checks refuse mid-run (a missing time, a fraction in an integer "
        "column, ...) written to the dead-letter file instead of stopping the run, up to N "
        "(default: none, the first stops it)",
    )
    p.add_argument(
        "--dead-letter",
        help="the dead-letter files' path prefix, local or gs:// (PREFIX-<id>.csv; default: "
        "the table ID + '.dead-letter' in the current folder)",
    )
    p.add_argument("--app-profile", help="the app profile every write request names")
    p.add_argument(
        "--max-mutations-per-s",
        type=float,
        help="the job's limit in row mutations per second, divided among its writing processes",
    )
    p.add_argument(
        "--template-out",
        help="write a Dataflow Flex Template (metadata.json, launcher, Dockerfile) to this "
        "folder instead of loading",
    )
    return p


def plan(
    args: argparse.Namespace, writers: int = 1, options: Any = None, beam_argv: Sequence[str] = ()
) -> tuple[bl.Plan, str, list[str]]:
    """Target checks, the runner, every file, the design from the whole input, the tables:
    (plan, target, notes). The production opt-in is checked first, before the files are read
    or any request is sent; everything else that can refuse comes before the first table is
    created. ``writers``: the processes that write at once (the rate limit is divided among
    them)."""
    target, conn = bl.Target.open(args.project, args.instance, args.allow_production)
    try:
        if options is not None:
            preflight.check_runner(options, beam_argv)
        return _plan(args, target, conn, writers)
    finally:
        conn.close()


def _plan(
    args: argparse.Namespace, target: bl.Target, conn: Any, writers: int
) -> tuple[bl.Plan, str, list[str]]:
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
        range_bytes=sources.CSV_RANGE_BYTES,
    )
    if kind == "csv":
        source = _replace(source, csv_options=sources.csv_options(files[0], source, args.sep))
    else:
        source = _replace(source, columns=sources.parquet_columns(files[0], source))
    columns = {f: preflight.file_columns(f, kind, source.csv_options) for f in files}
    wanted = None
    if args.attributes is not None:
        wanted = {*source.entity, source.time, *source.measures, *(source.attributes or ())}
    preflight.check_same_columns(columns, wanted)
    found = preflight.scan(
        files,
        kind,
        source.entity,
        source.time,
        source.naive_tz,
        source.csv_options.get("sep"),
        args.duplicates,
    )
    sample = sources.shape_sample(source, files, args.duplicates, args.sample_events)
    schema, precision = bl.design(sample, args.design, dict(args.param))
    head = [
        f"{len(files)} file(s) ({kind}), design {schema.name!r}, derived from "
        f"{len(sample.frame):,} events of the whole input's shape",
        *found.notes,
    ]
    cuts: dict[str, list[str]] = {}
    if args.pre_split:
        cuts, where = splits.split_points(sample, schema, args.events_per_s, args.nodes)
        head.append(f"Split points, from {where} (G06):")
    tables, fams, notes = bl.prepare_tables(conn, schema, name, args.table, args.confirm, cuts)
    if args.pre_split:
        head += splits.split_lines(cuts, tables)
        head.append("The same tables by hand:")
        head += [
            "  " + line
            for line in splits.create_lines(args.project, args.instance, tables, fams, cuts)
        ]
    reducers = bl.reducers_of(fams)
    p = bl.Plan(
        source,
        schema,
        tables,
        reducers,
        target,
        args.batch_events,
        precision,
        app_profile=args.app_profile,
        max_mutations_per_s=args.max_mutations_per_s,
        writers=writers,
        group_span=_span(sample, schema, args.batch_events),
        drop=found.drop,
        max_bad_records=args.max_bad_records,
        dead_letter=args.dead_letter or f"{args.table}.dead-letter",
    )
    return p, conn.target, [*head, *notes]


def _span(sample: Any, schema: Any, batch_events: int) -> int:
    """Summary buckets per group for a design with summary rows (1 for any other)."""
    if schema.aggregates is None:
        return 1
    return batches.group_span(sample, schema, min(batches.GROUP_EVENTS, batch_events))


def _replace(source: sources.Source, **changes: Any) -> sources.Source:
    from dataclasses import replace

    return replace(source, **changes)


def main_bulk_load(argv: Sequence[str], launched: bool = False) -> int:
    """``workbench bulk-load``: 0 when every count matched, 2 on a refusal or bad input.
    ``launched``: run by a Flex Template's launcher, which must return once the job is
    submitted (Dataflow's rule), so the counts are not waited for."""
    try:
        return _main(list(argv), launched)
    except WorkbenchError as exc:  # the command's flags, never Python arguments
        exc.args = (as_flags(str(exc)), *exc.args[1:])
        raise


# Python arguments a shared check's message names → this command's flags
_FLAGS = (
    (re.compile(r"\bnaive_tz=(['\"]?)([^'\"\s,)]*)\1"), r"--naive-tz \2"),
    (re.compile(r"\bduplicates='first' or 'last'"), "--duplicates first or --duplicates last"),
    (re.compile(r"\bduplicates=(['\"])(\w+)\1"), r"--duplicates \2"),
    (
        re.compile(r"\b(pass )?accept_loss=True[^.;]*"),
        "choose a design that keys every event apart (a bulk load writes every event: it has "
        "no --accept-loss)",
    ),
    (
        re.compile(r"\bpass append=True"),
        "load them into a table of their own, or from Python with wb.load's append option (a "
        "bulk load adds only to an unfinished table of its own design)",
    ),
    (re.compile(r"\bsample_events=|\bshape_events="), "--sample-events "),
    (re.compile(r" \(or table\.drop\(\) on its handle\)"), ""),
    (
        re.compile(
            r"load again; otherwise load under another ID: emu\.load\([^)]*table_id='"
            r"([^']*)'\), or leave table_id unset \([^)]*\)"
        ),
        r"run the command again; otherwise load under another ID: --table \1",
    ),
)


def as_flags(message: str) -> str:
    """A message as the command line says it: ``naive_tz='UTC'`` → ``--naive-tz UTC``, ..."""
    for pattern, flag in _FLAGS:
        message = pattern.sub(flag, message)
    return message


def _main(argv: list[str], launched: bool) -> int:
    from apache_beam.options.pipeline_options import PipelineOptions

    launched = launched or LAUNCH_MARK in argv
    if LAUNCH_MARK in argv:  # a Flex Template's parameters, back into this command line
        argv = command_argv(parser(), [a for a in argv if a != LAUNCH_MARK])
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--template-out")
    out = early.parse_known_args(argv)[0].template_out
    if out and launched:
        raise WorkbenchError("A Flex Template launch cannot write a template (--template-out).")
    if out:  # the template needs none of a load's arguments
        from .template import write_template

        for line in write_template(out, parser()):
            print(line)
        return 0
    args, beam_args = parser().parse_known_args(argv)
    check_numbers(args)
    beam_args.append(f"--project={args.project}")  # Dataflow's job runs in that project too
    options = PipelineOptions(beam_args)
    writers = 1
    if args.max_mutations_per_s is not None:
        from .pacing import writer_processes

        writers = writer_processes(options)
    p, where, notes = plan(args, writers, options, beam_args)
    for line in notes:
        print(line)
    if p.per_process_rate is not None:
        print(
            f"Paced: at most {args.max_mutations_per_s:,.0f} row mutations/s in all, "
            f"{p.per_process_rate:,.0f}/s in each of {writers} writing process(es).",
            flush=True,
        )
    print(f"Writing to {', '.join(p.tables.values())} on the {where} ...", flush=True)
    report = bl.run(p, options, wait=not launched)
    if report is None:  # a Flex Template's launch: the job goes on without this process
        print("Launched: the job's counts are in its Dataflow metrics (workbench.bulk_load).")
        return 0
    for line in report.lines():
        print(line)
    return 0


def check_numbers(args: argparse.Namespace) -> None:
    """Counts and rates that must be positive, refused before anything is read or sent."""
    for flag, value in (
        ("--batch-events", args.batch_events),
        ("--sample-events", args.sample_events),
        ("--nodes", args.nodes),
        ("--events-per-s", args.events_per_s),
        ("--max-mutations-per-s", args.max_mutations_per_s),
    ):
        if value is not None and not value > 0:
            raise WorkbenchError(f"{flag} must be above 0, got {value}. Nothing was written.")
    if args.max_bad_records is not None and args.max_bad_records < 0:
        raise WorkbenchError(
            f"--max-bad-records must be 0 or more, got {args.max_bad_records}. Nothing was written."
        )
