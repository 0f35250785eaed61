"""Command line: ``workbench lab | emulator start|stop|status|find | report | bulk-load | bench``."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from .bigtable import emulator as _emu
from .errors import WorkbenchError

REPO_ROOT = Path(__file__).resolve().parent.parent


def _cmd_emulator(args: argparse.Namespace) -> int:
    if args.action == "start":
        info = _emu.start_background(port=args.port)
        verb = "Reusing" if info.get("reused") else "Started"
        print(
            f"{verb} the Bigtable emulator at {info['host']} (pid {info['pid']}; {info['source']})."
        )
        print(f"Use it from a shell with:  export {_emu.ENV_HOST}={info['host']}")
        return 0
    if args.action == "find":  # `make test` asks this before running the suite
        try:
            cmd = _emu.find_emulator_command()
            _emu.check_is_emulator(cmd)  # a path that is something else is no emulator found
        except WorkbenchError as exc:
            print(
                f"The test suite and the notebooks' tables need the Bigtable emulator.\n{exc}",
                file=sys.stderr,
            )
            return 1
        if cmd.source == _emu.GCLOUD_UNVERIFIED:
            print(
                f"Found gcloud ({cmd.argv[0]}) but not its Bigtable emulator component (the SDK "
                "root is unknown). Install it with `gcloud components install bigtable`, or set "
                f"{_emu.ENV_BINARY}=/path/to/cbtemulator.",
                file=sys.stderr,
            )
            return 1
        print(f"Emulator binary: {cmd.argv[0]} ({cmd.source})")
        return 0
    if args.action == "stop":
        state = _emu.stop_background()
        if state is None:
            print("No emulator started by `workbench emulator start` is recorded; nothing stopped.")
        else:
            print(f"Stopped the emulator at {state['host']} (pid {state['pid']}).")
        return 0
    # status
    env = os.environ.get(_emu.ENV_HOST)
    state = _emu.read_state()
    found = False
    bad = False
    if env:
        from .bigtable.connection import check_emulator_host

        check_emulator_host(env)  # refused (exit 2, one line) before any socket
        # answering means a Bigtable call came back, not just an open port (a frozen or
        # foreign listener accepts connections too): each step has a deadline
        p = _emu.probe(env)
        if p.state == "not_grpc":
            print(f"{_emu.ENV_HOST}={env}: answering, but this is not a Bigtable emulator")
            print(_emu.not_grpc_message(env, f"{_emu.ENV_HOST}={env}"))
            bad = True
        elif p.state == "silent":
            print(f"{_emu.ENV_HOST}={env}: NOT answering — {p.detail}.")
            bad = True
        else:
            print(
                f"{_emu.ENV_HOST}={env}: "
                + (f"answering ({p.detail})" if p.ok else "NOT answering (nothing listens there)")
            )
        found = p.ok
    if state:
        p = _emu.probe(state["host"])
        verdict = {
            "answering": f"running, answering ({p.detail})",
            "closed": "not running",
        }.get(p.state, f"NOT answering — {p.detail}")
        print(f"workbench emulator (pid {state['pid']}) at {state['host']}: {verdict}")
        found = found or p.ok
    if not env and not state:
        print("No emulator is running for the workbench.")
    try:
        cmd = _emu.find_emulator_command(search_gcloud=False)
        print(f"Emulator binary: {cmd.argv[0]} ({cmd.source})")
    except WorkbenchError as exc:
        print(str(exc))
    return 0 if found and not bad else 1


def _cmd_lab(args: argparse.Namespace) -> int:
    from . import lab

    if args.token is not None:
        print(
            "error: --token would show the token to every local user (ps lists command lines).\n"
            "Set it in the environment instead:  WORKBENCH_LAB_TOKEN=... workbench lab",
            file=sys.stderr,
        )
        return 2
    return lab.run(port=args.port, open_browser=args.browser)


def _cmd_bench(args: argparse.Namespace) -> int:
    bench_dir = REPO_ROOT / "bench"
    scripts = sorted(bench_dir.glob("bench_*.py"))
    if args.names:
        scripts = [s for s in scripts if any(n in s.stem for n in args.names)]
    if not scripts:
        print(f"No benchmark matches {args.names} in {bench_dir}.")
        return 1
    failed = 0
    for script in scripts:
        print(f"== {script.name}", flush=True)
        t0 = time.perf_counter()
        rc = subprocess.call([sys.executable, str(script)], cwd=REPO_ROOT)
        print(f"== {script.name}: exit {rc} in {time.perf_counter() - t0:.1f} s", flush=True)
        failed += rc != 0
    return 1 if failed else 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="workbench", description="Bigtable time-series schema workbench"
    )
    sub = p.add_subparsers(dest="command", required=True)

    lab = sub.add_parser(
        "lab",
        help="start the emulator and JupyterLab at the start-here notebook"
        " (token: $WORKBENCH_LAB_TOKEN, else random)",
    )
    lab.add_argument("--port", type=int, default=None)
    # refused with an explanation (see _cmd_lab): a token on a command line is public
    lab.add_argument("--token", default=None, help=argparse.SUPPRESS)
    lab.add_argument("--no-browser", dest="browser", action="store_false")
    lab.set_defaults(func=_cmd_lab)

    emu = sub.add_parser("emulator", help="start, stop or inspect a background Bigtable emulator")
    emu.add_argument("action", choices=["start", "stop", "status", "find"])
    emu.add_argument("--port", type=int, default=None)
    emu.set_defaults(func=_cmd_emulator)

    # listed for --help; its arguments are parsed by workbench.report.main_report (see main)
    sub.add_parser(
        "report", help="execute notebooks and write offline HTML reports (see: workbench report -h)"
    )

    # listed for --help; its arguments are parsed by workbench.beam.command (see main)
    sub.add_parser(
        "bulk-load",
        help="write a design's cells for CSV/Parquet files with Apache Beam (the [beam] extra;"
        " see: workbench bulk-load -h)",
    )

    bench = sub.add_parser(
        "bench", help="run the benchmarks in bench/ (ratios against same-run baselines)"
    )
    bench.add_argument("names", nargs="*")
    bench.set_defaults(func=_cmd_bench)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv[:1] == ["report"]:  # one parser for the report command: its own
            from .report import main_report

            return main_report(argv[1:])
        if argv[:1] == ["bulk-load"]:  # its own options, and Beam's pipeline options
            from .beam.command import main_bulk_load

            return main_bulk_load(argv[1:])
        args = build_parser().parse_args(argv)
        return int(args.func(args) or 0)
    except WorkbenchError as exc:
        from .report import Scrubber  # what the CLI prints is scrubbed as a report is

        print(f"error: {Scrubber.for_environment().secrets(str(exc))}", file=sys.stderr)
        return 2
