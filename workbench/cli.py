"""Command line: ``workbench lab | emulator start|stop|status | report | bench``."""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

from .bigtable import emulator as _emu
from .errors import WorkbenchError

REPO_ROOT = Path(__file__).resolve().parent.parent
START_NOTEBOOK = "notebooks/00_start_here.ipynb"


def _cmd_emulator(args: argparse.Namespace) -> int:
    if args.action == "start":
        info = _emu.start_background(port=args.port)
        verb = "Reusing" if info.get("reused") else "Started"
        print(
            f"{verb} the Bigtable emulator at {info['host']} (pid {info['pid']}; {info['source']})."
        )
        print(f"Use it from a shell with:  export {_emu.ENV_HOST}={info['host']}")
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
        ok = _emu.port_is_open(env)
        if ok and _emu.speaks_grpc(env) is False:
            print(f"{_emu.ENV_HOST}={env}: answering, but this is not a Bigtable emulator")
            print(_emu.not_grpc_message(env, f"{_emu.ENV_HOST}={env}"))
            ok, bad = False, True
        else:
            print(f"{_emu.ENV_HOST}={env}: {'answering' if ok else 'NOT answering'}")
        found = ok
    if state:
        ok = _emu.port_is_open(state["host"])
        print(
            f"workbench emulator (pid {state['pid']}) at {state['host']}: {'running' if ok else 'not running'}"
        )
        found = found or ok
    if not env and not state:
        print("No emulator is running for the workbench.")
    try:
        cmd = _emu.find_emulator_command(search_gcloud=False)
        print(f"Emulator binary: {cmd.argv[0]} ({cmd.source})")
    except WorkbenchError as exc:
        print(str(exc))
    return 0 if found and not bad else 1


def _browser_available() -> bool:
    if sys.platform == "darwin" or os.name == "nt":
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def lab_command(
    port: int, token: str, root: Path = REPO_ROOT, open_browser: bool = True
) -> list[str]:
    """The JupyterLab command line ``workbench lab`` runs (loopback only, token required)."""
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        # LabApp's default_url is the one JupyterLab honours (ServerApp's is overridden by it)
        f"--LabApp.default_url=/lab/tree/{START_NOTEBOOK}",
    ]
    if not open_browser:
        cmd.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    return cmd


class _Stop(Exception):
    """SIGTERM or SIGHUP (a closed terminal) arrived: clean up as for Ctrl-C."""


def _raise_stop(signum: int, _frame: object) -> None:
    raise _Stop(signal.Signals(signum).name)


def _wait_until_serving(proc: subprocess.Popen, port: int, timeout: float = 120.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if _emu.port_is_open(f"127.0.0.1:{port}"):
            return True
        time.sleep(0.25)
    return False


def _cmd_lab(args: argparse.Namespace) -> int:
    emulator = _emu.Emulator().start()
    owned = emulator.owned  # read now: stop() forgets the process
    token = args.token or os.environ.get("WORKBENCH_LAB_TOKEN") or secrets.token_hex(24)
    port = args.port or 8888
    if _emu.port_is_open(f"127.0.0.1:{port}"):
        busy, port = port, _emu.free_port()
        print(f"Port {busy} is in use (another JupyterLab?); using port {port}.")
    env = {**os.environ, **emulator.env()}
    url = f"http://127.0.0.1:{port}/lab/tree/{START_NOTEBOOK}?token={token}"
    print(f"Bigtable emulator: {emulator.host} ({emulator.source})")
    print(f"JupyterLab: {url}")
    print("Press Ctrl-C to stop JupyterLab" + (" and the emulator it started." if owned else "."))
    sys.stdout.flush()
    previous = {sig: signal.signal(sig, _raise_stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    proc = None
    try:
        # its own session: Ctrl-C reaches only this process, which stops JupyterLab without its
        # "Shut down this Jupyter server (y/[n])?" prompt, and then the emulator
        proc = subprocess.Popen(
            lab_command(port, token, open_browser=args.browser and _browser_available()),
            env=env,
            cwd=REPO_ROOT,
            start_new_session=True,
        )
        if _wait_until_serving(proc, port):
            print(f"\nJupyterLab is ready: {url}\n", flush=True)
        return proc.wait()
    except (KeyboardInterrupt, _Stop):
        return 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
        emulator.stop()
        print("JupyterLab stopped" + ("; emulator stopped." if owned else "."), flush=True)


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

    lab = sub.add_parser("lab", help="start the emulator and JupyterLab at the start-here notebook")
    lab.add_argument("--port", type=int, default=None)
    lab.add_argument("--token", default=None, help="fixed access token (default: random)")
    lab.add_argument("--no-browser", dest="browser", action="store_false")
    lab.set_defaults(func=_cmd_lab)

    emu = sub.add_parser("emulator", help="start, stop or inspect a background Bigtable emulator")
    emu.add_argument("action", choices=["start", "stop", "status"])
    emu.add_argument("--port", type=int, default=None)
    emu.set_defaults(func=_cmd_emulator)

    # listed for --help; its arguments are parsed by workbench.report.main_report (see main)
    sub.add_parser(
        "report", help="execute notebooks and write offline HTML reports (see: workbench report -h)"
    )

    bench = sub.add_parser(
        "bench", help="run the benchmarks in bench/ (ratios against same-run baselines)"
    )
    bench.add_argument("names", nargs="*")
    bench.set_defaults(func=_cmd_bench)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["report"]:  # one parser for the report command: its own
        from .report import main_report

        return main_report(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except WorkbenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
