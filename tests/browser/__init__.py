"""Shared helpers for browser tests: Debian chromium via Python playwright, and a headless JupyterLab.

Never ``playwright install``: the tests drive the system ``chromium`` (Debian
package) through ``executable_path``. A machine without it FAILS the browser
tests with the command that fixes it; they are never skipped.

    with chromium_context(tmp_path) as ctx:            # a fresh profile, no background traffic
        page = ctx.new_page()
    with jupyter_lab(tmp_path, root_dir=REPO) as lab:  # 127.0.0.1, fixed token, private config
        page.goto(lab.url("lab/tree/notebooks/00_start_here.ipynb"))
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
# how long a page may take to show what a test waits for: generous, as it only fails when the
# state never arrives (a loaded 2-core machine takes seconds where a quiet one takes a blink)
BROWSER_WAIT_MS = 120_000

CHROMIUM_FLAGS = [
    "--no-sandbox",  # as root chromium refuses to start without it
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-default-apps",
    "--disable-domain-reliability",
    "--no-default-browser-check",
    "--metrics-recording-only",
]


def chromium_path() -> str:
    """The system chromium, or a test failure saying how to install it (never a skip)."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.fail(
            "No `chromium` on PATH: the browser tests drive the system Chromium. "
            "Install it with:  apt-get update && apt-get install -y chromium",
            pytrace=False,
        )
    return path


def code_notebook(path: Path, cells: list[str]) -> Path:
    """A notebook of ``cells`` (code) on the python3 kernel, written to ``path``: what a browser
    test opens in the lab and runs."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python",
                                 "name": "python3"}  # fmt: skip
    nbformat.write(nb, path)
    return path


def artifact(name: str) -> Path:
    """A path under test-artifacts/ (gitignored) for screenshots the tests keep."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name


@contextlib.contextmanager
def chromium_context(
    user_data_dir: Path | None = None, **context_options
) -> Iterator[BrowserContext]:  # noqa: F821
    """A headless Chromium browser context on a fresh profile (a persistent context on ``user_data_dir``)."""
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    with contextlib.ExitStack() as stack:
        if user_data_dir is None:
            user_data_dir = Path(
                stack.enter_context(tempfile.TemporaryDirectory(prefix="wb-chromium-"))
            )
        profile = Path(user_data_dir) / "chromium-profile"
        profile.mkdir(parents=True, exist_ok=True)
        pw = stack.enter_context(sync_playwright())
        options = {"viewport": {"width": 1280, "height": 900}, **context_options}
        context = pw.chromium.launch_persistent_context(
            str(profile), executable_path=executable, headless=True, args=CHROMIUM_FLAGS, **options
        )
        try:
            yield context
        finally:
            context.close()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Lab:
    """A running JupyterLab: its base URL, token and process."""

    base: str
    token: str
    root_dir: Path
    process: subprocess.Popen
    log: Path

    def url(self, path: str = "lab") -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base}/{path.lstrip('/')}{sep}token={self.token}"

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""


def _quiet_settings(config_dir: Path) -> None:
    """No news pop-up over the notebook, and no autosave writing test runs into the repository's notebooks."""
    user = config_dir / "lab" / "user-settings" / "@jupyterlab"
    for folder, name, settings in [
        ("apputils-extension", "notification", {"fetchNews": "false", "checkForUpdates": False}),
        ("docmanager-extension", "plugin", {"autosave": False}),
    ]:
        (user / folder).mkdir(parents=True, exist_ok=True)
        (user / folder / f"{name}.jupyterlab-settings").write_text(json.dumps(settings))


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return resp.status == 200
    except (urllib.error.URLError, OSError):
        return False


@contextlib.contextmanager
def jupyter_lab(
    workdir: Path,
    *,
    root_dir: Path = REPO,
    env: dict[str, str] | None = None,
    startup_timeout: float = 60.0,
) -> Iterator[Lab]:
    """JupyterLab headless on 127.0.0.1 with a fixed token and private config/data/runtime dirs.

    ``env`` is added to the server's environment, so kernels inherit it (e.g.
    ``emulator.env()`` gives them ``BIGTABLE_EMULATOR_HOST``). The server and its
    kernels are stopped on exit.
    """
    workdir = Path(workdir)
    dirs = {name: workdir / f"jupyter-{name}" for name in ("config", "data", "runtime")}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
    _quiet_settings(dirs["config"])
    token = "wb-test-" + secrets.token_hex(8)
    port = free_port()
    server_env = {
        **os.environ,
        **(env or {}),
        "JUPYTER_CONFIG_DIR": str(dirs["config"]),
        "JUPYTER_DATA_DIR": str(dirs["data"]),
        "JUPYTER_RUNTIME_DIR": str(dirs["runtime"]),
        "JUPYTER_PLATFORM_DIRS": "1",
        "JUPYTER_TOKEN": token,  # jupyter_server reads it; a command line is public in ps
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    }
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root_dir}",
        "--LabApp.news_url=",
        "--ServerApp.open_browser=False",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    log = workdir / "jupyterlab.log"
    with open(log, "wb") as log_file:
        proc = subprocess.Popen(
            cmd,
            cwd=root_dir,
            env=server_env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    lab = Lab(
        base=f"http://127.0.0.1:{port}", token=token, root_dir=Path(root_dir), process=proc, log=log
    )
    try:
        deadline = time.monotonic() + startup_timeout
        while not _answers(f"{lab.base}/api/status?token={token}"):
            if proc.poll() is not None:
                pytest.fail(
                    f"JupyterLab exited with code {proc.returncode} while starting:\n{lab.log_tail()}"
                )
            if time.monotonic() > deadline:
                pytest.fail(
                    f"JupyterLab did not answer within {startup_timeout:.0f} s:\n{lab.log_tail()}"
                )
            time.sleep(0.25)
        yield lab
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM lets the server shut its kernels down; SIGKILL the group if it does not."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    except ProcessLookupError:
        pass


def block_network(context, allowed_prefixes: tuple[str, ...] = ()) -> list[str]:
    """Abort every request except those starting with ``allowed_prefixes``; returns the list of attempts.

    Every request the page attempts is recorded (allowed ones too), so a test can
    assert that nothing beyond the file itself was asked for.
    """
    attempts: list[str] = []

    def _route(route) -> None:
        url = route.request.url
        attempts.append(url)
        if any(url.startswith(p) for p in allowed_prefixes):
            route.continue_()
        else:
            route.abort("internetdisconnected")

    context.route("**/*", _route)
    return attempts


def open_offline(path: Path, screenshot: str):
    """Open ``path`` in headless Chromium with the network blocked; return facts the tests check."""
    with chromium_context() as ctx:
        attempts = block_network(ctx, allowed_prefixes=(path.resolve().as_uri(),))
        page = ctx.new_page()
        page.goto(path.resolve().as_uri())
        page.wait_for_load_state("load")
        images = page.evaluate("""Array.from(document.images).map(i => ({
            ok: i.complete && i.naturalWidth > 0, w: i.naturalWidth,
            output: !!i.closest('.wb-w-output'), h: i.getBoundingClientRect().height}))""")
        texts = page.evaluate("""() => ({
            slider: Array.from(document.querySelectorAll('.wb-w-int-slider')).map(e => e.innerText),
            dropdown: Array.from(document.querySelectorAll('.wb-w-dropdown')).map(e => e.innerText),
            text: Array.from(document.querySelectorAll('.wb-w-text')).map(e => e.innerText),
            progress: Array.from(document.querySelectorAll('.wb-w-h-box')).map(e => e.innerText),
            tab: Array.from(document.querySelectorAll('.wb-tab-panel')).filter(
                 e => getComputedStyle(e).display !== 'none').map(e => e.innerText),
            body: document.body.innerText})""")
        page.screenshot(path=str(artifact(screenshot)), full_page=True)
    return attempts, images, texts
