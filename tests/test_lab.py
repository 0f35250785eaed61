"""`workbench lab` (what `make lab` runs): emulator + JupyterLab on loopback with a token, and a
stop that always works.

Each test starts the real command in its own session, like a terminal's foreground job, and
stops what it started in a ``finally`` (``labproc.running_lab``: SIGTERM, then SIGKILL of every
process of the lab's tree it ever saw), pass or fail.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest
from jupyter_client import BlockingKernelClient
from labproc import (
    REPO,
    LabProcess,
    _ignore_sigint,
    kill_leftovers,
    running_lab,
    start_lab,
    wait_ready,
)
from waits import HANG_S

from workbench import _watchdog
from workbench.bigtable import emulator as emu_mod
from workbench.lab import KERNEL_SHUTDOWN_WAIT

pytestmark = pytest.mark.slow  # starts and signals JupyterLab

# A stop is waited for, not timed: the lab kills what is left after its own SERVER_STOP_WAIT, so
# everything is gone within seconds; a minute on a loaded machine is still a stop, and never is a
# failure. How fast it stops (under 10 s) is measured in bench/bench_lab.py.
STOP_TIMEOUT = 120.0  # s from the signal until JupyterLab, its kernels and the emulator are gone


def _get(url: str, token: str | None = None, data: bytes | None = None) -> tuple[int, bytes]:
    req = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
    if token:
        req.add_header("Authorization", f"token {token}")
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


KERNEL_START_TIMEOUT = (
    180.0  # s: fails only if the kernel never gets there (busy machines take long)
)


def _kernel_state(lab: LabProcess, kernel_id: str) -> str:
    code, body = _get(f"http://127.0.0.1:{lab.port}/api/kernels/{kernel_id}", lab.token)
    assert code == 200, (code, body)
    return json.loads(body)["execution_state"]


def _start_kernel(lab: LabProcess) -> tuple[str, BlockingKernelClient]:
    """A kernel started by the server (as opening a notebook does), and a client on it.

    Liveness is the server's word (``execution_state`` from ``/api/kernels/<id>``: its
    KernelManager watches the process), not a heartbeat: a client not made by a KernelManager
    judges a kernel dead after 1 s without a heartbeat reply (``HBChannel.time_to_dead``,
    jupyter_client/channels.py), which a kernel still starting on a loaded machine often is.
    So the client runs without the heartbeat channel and waits for its kernel_info reply.
    """
    base = f"http://127.0.0.1:{lab.port}"
    code, body = _get(
        f"{base}/api/kernels", lab.token, data=json.dumps({"name": "python3"}).encode()
    )
    assert code in (200, 201), body
    kernel_id = json.loads(body)["id"]
    conn_file = lab.runtime / f"kernel-{kernel_id}.json"
    deadline = time.monotonic() + KERNEL_START_TIMEOUT
    while not conn_file.exists():
        assert time.monotonic() < deadline, f"no connection file {conn_file}"
        assert _kernel_state(lab, kernel_id) != "dead", f"kernel {kernel_id} died while starting"
        time.sleep(0.1)
    client = BlockingKernelClient(connection_file=str(conn_file))
    client.load_connection_file()
    client.start_channels(hb=False)  # no heartbeat: is_alive() is then left to the server
    while True:  # kernel_info requests until one is answered; the server says if it died
        try:
            client.wait_for_ready(timeout=10)
            break
        except RuntimeError:
            state = _kernel_state(lab, kernel_id)
            assert state != "dead", f"kernel {kernel_id} died before replying to kernel_info"
            assert time.monotonic() < deadline, f"kernel {kernel_id} still {state!r}"
    # the IOPub subscription connects on its own time (a ZeroMQ subscriber gets nothing that
    # was published before it joined), and on a loaded machine it may not have yet: a cell's
    # output would be lost. Every request makes the kernel publish its busy/idle status there,
    # so ask until one of those arrives.
    while True:
        client.kernel_info()
        try:
            client.get_iopub_msg(timeout=1)
            break
        except queue.Empty:
            assert time.monotonic() < deadline, f"kernel {kernel_id}: nothing on IOPub"
    while True:  # what the requests left there, so the next cell's output is all that follows
        try:
            client.get_iopub_msg(timeout=0.2)
        except queue.Empty:
            break
    return kernel_id, client


def _busy_kernel(lab: LabProcess) -> None:
    """A kernel stuck in a cell that never ends and ignores the interrupt and SIGTERM the server
    sends before it gives up on a shutdown request: only SIGKILL ends it."""
    _, client = _start_kernel(lab)
    client.execute(
        "import signal\n"
        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "print('spinning', flush=True)\n"
        "while True:\n    pass"
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # the handlers are in place and the loop has begun
        msg = client.get_iopub_msg(timeout=30)
        if msg["msg_type"] == "stream" and "spinning" in msg["content"]["text"]:
            break
    else:
        raise AssertionError("the busy cell never started")
    client.stop_channels()


def _cmdline(pid: int) -> str:
    try:
        return " ".join(psutil.Process(pid).cmdline())
    except psutil.Error:  # gone, or another user's
        return ""


def _environ(pid: int) -> str:
    try:
        return "\n".join(f"{k}={v}" for k, v in psutil.Process(pid).environ().items())
    except psutil.Error:
        return ""


def _stop_and_time(lab: LabProcess, sig: int) -> tuple[float, list[int], str]:
    """Send ``sig`` to the lab's process group (what the terminal sends); wait until all is gone.

    Returns (seconds it took, pids still alive after STOP_TIMEOUT, everything the lab printed).
    """
    tree = lab.tree()  # the lab, JupyterLab, its kernels, the emulator, the watchdog
    assert len(tree) >= 4, [(_cmdline(p)) for p in tree]
    t0 = time.monotonic()
    os.killpg(lab.proc.pid, sig)
    deadline = t0 + STOP_TIMEOUT
    while time.monotonic() < deadline:
        if not any(_watchdog.alive(p) for p in tree) and not emu_mod.port_is_open(
            lab.emulator_host, timeout=0.1
        ):
            break
        time.sleep(0.05)
    elapsed = time.monotonic() - t0
    left = [p for p in tree if _watchdog.alive(p)]
    if not left:
        lab.proc.wait(timeout=5)
    return elapsed, left, lab.output()


def test_lab_serves_start_here_with_live_emulator_and_ctrl_c_stops_both(tmp_path):
    with running_lab(tmp_path) as lab:
        base = f"http://127.0.0.1:{lab.port}"
        assert _get(f"{base}/api/status", lab.token)[0] == 200
        # loopback + token: without the token the API refuses
        assert _get(f"{base}/api/status")[0] in (401, 403)
        code, body = _get(f"{base}/api/contents/notebooks/00_start_here.ipynb", lab.token)
        assert code == 200 and "wb.setup()" in body.decode()
        assert lab.url == f"{base}/lab/tree/notebooks/00_start_here.ipynb?token={lab.token}"
        assert _get(lab.url)[0] == 200

        # a kernel started by the server finds the emulator with no manual step
        kernel_id, client = _start_kernel(lab)
        out: list[str] = []
        client.execute_interactive(
            "import os, workbench as wb; print(repr(wb.setup())); print(os.getpid())",
            # printed text, or the error the cell raised (so a failure says what it was)
            output_hook=lambda msg: out.append(
                msg["content"].get("text") or msg["content"].get("evalue") or ""
            ),
            timeout=HANG_S,
        )
        client.stop_channels()
        text = "".join(out)
        assert f"live Bigtable emulator at {lab.emulator_host} (reused)" in text, text
        kernel_pid = int(text.split()[-1])

        # the token is in no process's command line (any local user can read those with ps),
        # not in the kernel's environment (a notebook's %env would print it), and its file is gone
        tree = lab.tree()
        assert kernel_pid in tree
        leaks = [(pid, _cmdline(pid)) for pid in psutil.pids() if lab.token in _cmdline(pid)]
        assert leaks == [], leaks
        kernel_env = _environ(kernel_pid)
        assert "JUPYTER_TOKEN_FILE=" in kernel_env and lab.token not in kernel_env
        token_file = next(
            line.split("=", 1)[1]
            for line in kernel_env.splitlines()
            if line.startswith("JUPYTER_TOKEN_FILE=")
        )
        assert not os.path.exists(token_file), "the token file stays only until the server read it"

        elapsed, left, output = _stop_and_time(lab, signal.SIGINT)  # what Ctrl-C sends
    assert left == [], (elapsed, left, output)
    assert not emu_mod.port_is_open(lab.emulator_host), "the emulator lab started must stop"
    assert "JupyterLab stopped; emulator stopped." in output, output
    assert "Shut down this Jupyter server" not in output, "Ctrl-C must not leave Jupyter asking"


# Five stops in a row, each a way a lab really ends; three of them with a kernel stuck in a
# busy cell, one started as a background job of a non-interactive shell (SIGINT ignored),
# one on a port already taken.
ROUNDS = [
    ("ctrl-c, busy kernel", signal.SIGINT, dict(busy=True)),
    ("terminal closed", signal.SIGHUP, dict(port_taken=True)),
    ("kill, busy kernel", signal.SIGTERM, dict(busy=True)),
    ("ctrl-c, SIGINT ignored at start, busy kernel", signal.SIGINT, dict(busy=True, ignored=True)),
    ("ctrl-c", signal.SIGINT, {}),
]


def test_lab_stops_everything_five_times_in_a_row(tmp_path):
    results = []
    for i, (name, sig, how) in enumerate(ROUNDS):
        blocker = None
        port = emu_mod.free_port()
        if how.get("port_taken"):
            blocker = socket.socket()
            blocker.bind(("127.0.0.1", 0))
            blocker.listen()
            port = blocker.getsockname()[1]
        lab = start_lab(tmp_path / f"round{i}", port, sigint_ignored=bool(how.get("ignored")))
        try:
            wait_ready(lab)
            if how.get("ignored"):  # the scenario is real: the lab was born with SIGINT ignored
                assert _sigint_was_ignored_at_birth(lab)
            if how.get("busy"):
                _busy_kernel(lab)
            elapsed, left, output = _stop_and_time(lab, sig)
        finally:
            leftovers = kill_leftovers(lab)
            if blocker is not None:
                blocker.close()
        results.append((name, round(elapsed, 1)))
        assert left == [] and leftovers == [], (name, left, [_cmdline(p) for p in left], output)
        if how.get("busy"):
            # the stuck kernel ignores the shutdown request, SIGINT and SIGTERM: only the
            # server's SIGKILL at KernelManager.shutdown_wait_time (2 s) ends it, so a stop
            # faster than that would mean the kernel was not stuck and the round proved less
            assert elapsed >= KERNEL_SHUTDOWN_WAIT, (name, elapsed)
        assert "JupyterLab stopped; emulator stopped." in output, (name, output)
        if how.get("port_taken"):
            assert f"Port {port} is in use" in output, output
    print("stop times (s):", results)


def _sigint_was_ignored_at_birth(lab: LabProcess) -> bool:
    """The lab was started as a background job is (a sibling started the same way sees SIGINT
    ignored), and replaced that SIG_IGN with a handler of its own (SigCgt has SIGINT, SigIgn not)."""
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import signal; print(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)",
        ],
        capture_output=True,
        text=True,
        preexec_fn=_ignore_sigint,
    ).stdout.strip()
    status = dict(
        line.split(":\t", 1)
        for line in Path(f"/proc/{lab.proc.pid}/status").read_text().splitlines()
        if ":\t" in line
    )
    bit = 1 << (signal.SIGINT - 1)
    return (
        probe == "True"
        and not int(status["SigIgn"], 16) & bit
        and bool(int(status["SigCgt"], 16) & bit)
    )


def test_make_lab_stops_on_ctrl_c_and_when_make_alone_gets_sigterm(tmp_path):
    """The README's command: Ctrl-C in its terminal, and ``kill <make's pid>`` (GNU make passes
    SIGTERM on to the recipe it runs), each stop the lab, its kernel and its emulator."""
    for i, (sig, whom) in enumerate([(signal.SIGINT, "group"), (signal.SIGTERM, "make")]):
        lab = start_lab(tmp_path / f"make{i}", 0, via_make=True)
        try:
            wait_ready(lab)
            assert lab.url.startswith("http://127.0.0.1:") and "00_start_here.ipynb" in lab.url
            _start_kernel(lab)[1].stop_channels()
            if whom == "group":
                elapsed, left, output = _stop_and_time(lab, sig)
            else:
                tree = lab.tree()
                t0 = time.monotonic()
                os.kill(lab.proc.pid, sig)
                while time.monotonic() < t0 + STOP_TIMEOUT and any(
                    _watchdog.alive(p) for p in tree
                ):
                    time.sleep(0.05)
                elapsed = time.monotonic() - t0
                left = [p for p in tree if _watchdog.alive(p)]
                output = lab.output()
        finally:
            leftovers = kill_leftovers(lab)
        assert left == [] and leftovers == [], (whom, elapsed, [_cmdline(p) for p in left], output)
        assert "JupyterLab stopped; emulator stopped." in output, output


def test_lab_killed_with_sigkill_takes_jupyterlab_kernels_and_emulator_with_it(tmp_path):
    """``kill -9`` of workbench lab alone: its watchdog stops the rest."""
    with running_lab(tmp_path) as lab:
        _busy_kernel(lab)
        tree = lab.tree()
        watchdogs = [p for p in tree if "_watchdog.py" in _cmdline(p)]
        assert len(watchdogs) == 1, [_cmdline(p) for p in tree]
        t0 = time.monotonic()
        os.kill(lab.proc.pid, signal.SIGKILL)
        lab.proc.wait(timeout=5)
        deadline = t0 + STOP_TIMEOUT
        while time.monotonic() < deadline and (
            any(_watchdog.alive(p) for p in tree) or emu_mod.port_is_open(lab.emulator_host, 0.1)
        ):
            time.sleep(0.1)
        left = [(p, _cmdline(p)) for p in tree if _watchdog.alive(p)]
        elapsed = time.monotonic() - t0
    assert left == [], (elapsed, left)
    assert not emu_mod.port_is_open(lab.emulator_host)
    assert not emu_mod.port_is_open(f"127.0.0.1:{lab.port}")


def test_lab_command_line_holds_no_token():
    from workbench.lab import lab_command, lab_env

    cmd = lab_command(8888, REPO, open_browser=False)
    assert not any("token" in part.lower() for part in cmd), cmd
    env = lab_env(
        {"JUPYTER_TOKEN": "x", "WORKBENCH_LAB_TOKEN": "y", "JUPYTER_CONFIG_PATH": "/a"},
        Path("/t/token"),
        {},
    )
    assert "JUPYTER_TOKEN" not in env and "WORKBENCH_LAB_TOKEN" not in env
    assert env["JUPYTER_TOKEN_FILE"] == "/t/token"
    first, rest = env["JUPYTER_CONFIG_PATH"].split(os.pathsep)
    assert first.endswith("workbench/jupyter_config") and rest == "/a"


def test_a_token_on_the_command_line_is_refused_with_the_way_to_pass_it(capsys):
    from workbench.cli import main

    assert main(["lab", "--token", "abc"]) == 2
    err = capsys.readouterr().err
    assert "WORKBENCH_LAB_TOKEN=... workbench lab" in err and "abc" not in err
