"""`workbench lab` (what `make lab` runs): emulator + JupyterLab on loopback with a token (issue 2)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from jupyter_client import BlockingKernelClient

from workbench.bigtable import emulator as emu_mod

REPO = Path(__file__).resolve().parent.parent


def _get(url: str, token: str | None = None, data: bytes | None = None) -> tuple[int, bytes]:
    req = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
    if token:
        req.add_header("Authorization", f"token {token}")
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _start_lab(tmp_path: Path, port: int, token: str) -> tuple[subprocess.Popen, list[str], str]:
    """``workbench lab`` in its own process group, as from a terminal; returns (process, output lines, emulator host)."""
    runtime = tmp_path / "runtime"
    env = {k: v for k, v in os.environ.items() if k != emu_mod.ENV_HOST}
    env.update(
        XDG_STATE_HOME=str(tmp_path / "state"),
        JUPYTER_RUNTIME_DIR=str(runtime),
        JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
        JUPYTER_DATA_DIR=str(tmp_path / "data"),
        PYTHONUNBUFFERED="1",
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "workbench",
            "lab",
            "--no-browser",
            "--port",
            str(port),
            "--token",
            token,
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    emulator_host = None
    assert proc.stdout is not None
    while emulator_host is None:
        line = proc.stdout.readline()
        assert line, "workbench lab exited early:\n" + "".join(lines)
        lines.append(line)
        m = re.search(r"Bigtable emulator: (127\.0\.0\.1:\d+)", line)
        emulator_host = m.group(1) if m else None
    return proc, lines, emulator_host


def _finish(proc: subprocess.Popen, lines: list[str], sig: int) -> str:
    """Send ``sig`` to the process group (what the terminal sends) and return everything it printed."""
    os.killpg(proc.pid, sig)
    try:
        rest, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    return "".join(lines) + (rest or "")


def test_lab_serves_start_here_with_live_emulator_and_ctrl_c_stops_both(tmp_path):
    port = emu_mod.free_port()
    token = "test-token-" + os.urandom(4).hex()
    runtime = tmp_path / "runtime"
    proc, lines, emulator_host = _start_lab(tmp_path, port, token)
    output = ""
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        status = 0
        while time.monotonic() < deadline:
            try:
                status, _ = _get(f"{base}/api/status", token)
                if status == 200:
                    break
            except OSError:
                pass
            time.sleep(0.3)
        assert status == 200, "JupyterLab did not answer:\n" + "".join(lines)

        # loopback + token: without the token the API refuses
        assert _get(f"{base}/api/status")[0] in (401, 403)
        code, body = _get(f"{base}/api/contents/notebooks/00_start_here.ipynb", token)
        assert code == 200 and "wb.setup()" in body.decode()
        code, body = _get(f"{base}/lab/tree/notebooks/00_start_here.ipynb?token={token}")
        assert code == 200

        # a kernel started by the server finds the emulator with no manual step
        code, body = _get(
            f"{base}/api/kernels", token, data=json.dumps({"name": "python3"}).encode()
        )
        assert code in (200, 201), body
        kernel_id = json.loads(body)["id"]
        conn_file = runtime / f"kernel-{kernel_id}.json"
        deadline = time.monotonic() + 30
        while not conn_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        client = BlockingKernelClient(connection_file=str(conn_file))
        client.load_connection_file()
        client.start_channels()
        client.wait_for_ready(timeout=60)
        out: list[str] = []
        client.execute_interactive(
            "import workbench as wb; print(repr(wb.setup()))",
            output_hook=lambda msg: out.append(msg["content"].get("text", "")),
            timeout=60,
        )
        client.stop_channels()
        text = "".join(out)
        assert f"live Bigtable emulator at {emulator_host} (reused)" in text, text
    finally:
        output = _finish(proc, lines, signal.SIGINT)  # what Ctrl-C in the terminal sends
    assert emulator_host and not emu_mod.port_is_open(emulator_host), (
        "the emulator lab started must stop"
    )
    assert not emu_mod.port_is_open(f"127.0.0.1:{port}"), "JupyterLab must stop"
    assert "JupyterLab stopped; emulator stopped." in output, output
    assert "Shut down this Jupyter server" not in output, (
        "Ctrl-C must not leave Jupyter asking a question"
    )
    assert (
        f"JupyterLab is ready: http://127.0.0.1:{port}/lab/tree/notebooks/00_start_here.ipynb"
        in output
    )


@pytest.mark.parametrize(
    "sig", [signal.SIGHUP, signal.SIGTERM], ids=["terminal-closed", "terminated"]
)
def test_closing_the_terminal_or_kill_stops_both_too(tmp_path, sig):
    blocker = socket.socket()  # port taken: lab must say so and use another
    blocker.bind(("127.0.0.1", 0))
    blocker.listen()
    busy = blocker.getsockname()[1]
    try:
        proc, lines, emulator_host = _start_lab(tmp_path, busy, "t-" + os.urandom(4).hex())
        while not any("JupyterLab is ready" in line for line in lines):
            line = proc.stdout.readline()  # type: ignore[union-attr]
            assert line, "workbench lab exited early:\n" + "".join(lines)
            lines.append(line)
        output = _finish(proc, lines, sig)
    finally:
        blocker.close()
    assert f"Port {busy} is in use" in output, output
    assert not emu_mod.port_is_open(emulator_host), f"the emulator must stop on {sig.name}"
    assert "JupyterLab stopped; emulator stopped." in output, output
