"""``workbench lab`` (what ``make lab`` runs): the emulator and a quiet JupyterLab, stopped together.

* JupyterLab listens on 127.0.0.1 only and needs a token. The token reaches the server
  through a file named by ``JUPYTER_TOKEN_FILE`` (mode 0600, in a private directory,
  deleted as soon as the server has read it), never the command line: any local user can
  read a process's command line in ``ps``.
* JupyterLab's own settings keep the room quiet: ``jupyter_config/`` in this package is put
  on ``JUPYTER_CONFIG_PATH``. Its ``labconfig/default_setting_overrides.json`` sets the
  defaults of the notification plugin (no news pop-up, no update check), and its
  ``jupyter_server_config.json`` turns the server's news feed and update checker off.
  A user's own settings still win over these defaults.
* Ctrl-C, SIGTERM and SIGHUP (a closed terminal) stop JupyterLab, its kernels and the
  emulator this command started, within seconds, also when SIGINT was inherited as
  ignored (a background job of a non-interactive shell): the handlers are installed
  explicitly. A busy kernel that ignores the server's shutdown request is terminated after
  ``KERNEL_SHUTDOWN_WAIT`` s, and whatever is left after ``SERVER_STOP_WAIT`` s is killed.
* If this process is killed outright (SIGKILL), a watchdog (``_watchdog.py``, its own
  session) sees its pipe close and stops what it started.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from . import _watchdog
from .bigtable import emulator as _emu
from .errors import require_lab

REPO_ROOT = Path(__file__).resolve().parent.parent
START_NOTEBOOK = "notebooks/00_start_here.ipynb"
JUPYTER_CONFIG = Path(__file__).resolve().parent / "jupyter_config"
KERNEL_SHUTDOWN_WAIT = 2.0  # s: shutdown request, then SIGTERM at half of it, SIGKILL at the end
SERVER_STOP_WAIT = 6.0  # s: then the server's process group and its kernels are killed
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def lab_command(port: int, root: Path = REPO_ROOT, open_browser: bool = True) -> list[str]:
    """The JupyterLab command line ``workbench lab`` runs (loopback only; no secret in it)."""
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}",
        # LabApp's default_url is the one JupyterLab honours (ServerApp's is overridden by it)
        f"--LabApp.default_url=/lab/tree/{START_NOTEBOOK}",
        f"--KernelManager.shutdown_wait_time={KERNEL_SHUTDOWN_WAIT}",
    ]
    if not open_browser:
        cmd.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    return cmd


def lab_env(base: dict[str, str], token_file: Path, emulator_env: dict[str, str]) -> dict[str, str]:
    """The server's environment: the emulator for its kernels, the token file, the quiet settings."""
    # the token itself stays out: kernels inherit this environment, and %env prints it
    env = {k: v for k, v in base.items() if k not in ("JUPYTER_TOKEN", "WORKBENCH_LAB_TOKEN")}
    env.update(emulator_env)
    env["JUPYTER_TOKEN_FILE"] = str(token_file)
    paths = [
        str(JUPYTER_CONFIG),
        *filter(None, base.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep)),
    ]
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(paths)
    return env


# Run between fork and exec by a fresh interpreter, never by ``preexec_fn``: Python code in a
# forked child of a process with threads (gRPC's pollers) can deadlock or abort (seen: JupyterLab
# "exited by itself with code -6" after an epoll error). The launcher sets SIGINT back to its
# default (an ignored SIGINT is inherited through exec), asks Linux for SIGTERM when
# ``workbench lab`` dies, and execs the real command.
_LAUNCHER = (
    "import os, signal, sys\n"
    "signal.signal(signal.SIGINT, signal.SIG_DFL)\n"
    "if sys.platform.startswith('linux'):\n"
    "    import ctypes\n"
    "    ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)\n"
    "    if os.getppid() != int(sys.argv[1]):\n"
    "        sys.exit(0)  # the lab died before the death signal was armed\n"
    "os.execvp(sys.argv[2], sys.argv[2:])\n"
)


def with_parent_death(cmd: list[str]) -> list[str]:
    """``cmd`` behind the launcher above: it ends when this process dies (Linux)."""
    return [sys.executable, "-c", _LAUNCHER, str(os.getpid()), *cmd]


def browser_available() -> bool:
    if sys.platform == "darwin" or os.name == "nt":
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class _Watchdog:
    """The ``_watchdog.py`` process: told what to stop, and told ``done`` on a clean exit."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, _watchdog.__file__],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )

    def watch(self, pid: int | None) -> None:
        if pid is not None and self.proc.stdin is not None:
            self.proc.stdin.write(f"watch {pid}\n")
            self.proc.stdin.flush()

    def done(self) -> None:
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.write("done\n")
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def stop_server(proc: subprocess.Popen, wait: float = SERVER_STOP_WAIT) -> None:
    """SIGTERM the server (it shuts its kernels down); after ``wait`` s kill it and its kernels."""
    if proc.poll() is not None:
        return
    kernels = _watchdog.descendants(proc.pid)  # kernels run in sessions of their own
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=5)
    left = [pid for pid in kernels if _watchdog.alive(pid)]
    if left:
        _watchdog.stop_tree(left, grace=1.0)


def run(
    port: int | None = None,
    open_browser: bool = True,
    out: Callable[[str], None] = lambda s: print(s, flush=True),
) -> int:
    """Start the emulator (or reuse the one the environment names) and JupyterLab; stop both on a signal."""
    require_lab("workbench lab", "jupyterlab", "ipykernel", "ipywidgets", "matplotlib")
    stop = threading.Event()
    received: list[str] = []

    def _on_signal(signum: int, _frame: FrameType | None) -> None:
        received.append(signal.Signals(signum).name)
        stop.set()

    # first thing, and explicitly: an inherited SIG_IGN for SIGINT would make Ctrl-C do nothing
    previous = {sig: signal.signal(sig, _on_signal) for sig in STOP_SIGNALS}
    watchdog = _Watchdog()
    private = Path(tempfile.mkdtemp(prefix="workbench-lab-"))  # mode 0700
    token_file = private / "token"
    emulator: _emu.Emulator | None = None
    proc: subprocess.Popen | None = None
    try:
        emulator = _emu.Emulator().start()
        watchdog.watch(emulator.pid)
        owned = emulator.owned
        token = os.environ.get("WORKBENCH_LAB_TOKEN") or secrets.token_hex(24)
        fd = os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(token)
        port = port or 8888
        if _emu.port_is_open(f"127.0.0.1:{port}"):
            busy, port = port, _emu.free_port()
            out(f"Port {busy} is in use (another JupyterLab?); using port {port}.")
        url = f"http://127.0.0.1:{port}/lab/tree/{START_NOTEBOOK}?token={token}"
        out(f"Bigtable emulator: {emulator.host} ({emulator.source})")
        out(f"JupyterLab: {url}")
        out("Press Ctrl-C to stop JupyterLab" + (" and the emulator it started." if owned else "."))
        if stop.is_set():
            return 0
        # its own session: Ctrl-C reaches only this process, which stops JupyterLab with
        # SIGTERM (no "Shut down this Jupyter server (y/[n])?" prompt), then the emulator
        proc = subprocess.Popen(
            with_parent_death(lab_command(port, open_browser=open_browser and browser_available())),
            env=lab_env(dict(os.environ), token_file, emulator.env()),
            cwd=REPO_ROOT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        watchdog.watch(proc.pid)
        ready = False
        while not stop.is_set() and proc.poll() is None:
            if not ready and _emu.port_is_open(f"127.0.0.1:{port}", timeout=0.2):
                ready = True
                # the server read it at start-up; kernels inherit only the file's name
                token_file.unlink(missing_ok=True)
                out(f"\nJupyterLab is ready: {url}\n")
            stop.wait(0.25)
        if proc.poll() is not None and not stop.is_set():
            out(f"JupyterLab exited by itself with code {proc.returncode}.")
            return proc.returncode or 0
        return 0
    finally:
        if received:
            out(f"{received[0]}: stopping JupyterLab and its kernels…")
        if proc is not None:
            stop_server(proc)
        if emulator is not None:
            owned = emulator.owned
            emulator.stop()
            out("JupyterLab stopped" + ("; emulator stopped." if owned else "."))
        watchdog.done()
        shutil.rmtree(private, ignore_errors=True)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
