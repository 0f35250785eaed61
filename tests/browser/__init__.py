"""Shared helpers for browser tests: Debian chromium via Python playwright, and a headless JupyterLab.

Never ``playwright install``: the tests drive the system ``chromium`` (Debian
package) through ``executable_path``. A machine without it FAILS the browser
tests with the command that fixes it; they are never skipped.

One Chromium and one JupyterLab per pytest worker, each test isolated in them (fixtures in
``tests/conftest.py`` and ``tests/browser/conftest.py``)::

    def test_x(lab, browser):                          # the worker's lab and Chromium
        path = lab.notebook("x.ipynb", ["1 + 1"])      # the test's own folder in the lab
        with chromium_context(browser, viewport={"width": 1440, "height": 900}) as ctx:
            page = ctx.new_page()                      # a new context: no cookie, storage or tab
            page.goto(lab.tree(path))                  # a workspace of the test's own
    # at the end: the test's kernels stopped, its folder removed, its context closed

Tests of the lab itself (``tests/browser/test_lab.py``'s ``make lab``, ``tests/test_lab.py``)
start their own lab through ``tests/labproc.py``: they are about that.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
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


class SharedBrowser:
    """The worker's headless Chromium, launched when a test first asks for it (``browser``).

    A live sync playwright marks its asyncio loop as the thread's running loop between calls
    (``playwright/_impl/_greenlets.py``: ``wait_for_future``), so code that asks for a running
    loop (``workbench/ui/app.py``, ``asyncio.run``) would find playwright's under a test that
    never touched the browser. ``tests/conftest.py`` therefore closes it after each test whose
    successor on this worker does not ask for ``browser``: one launch serves a run of
    browser tests (a file's tests, ``--dist loadfile``), never a non-browser test.
    """

    def __init__(self) -> None:
        self._playwright = None
        self._browser = None
        self.launches = 0

    def get(self):
        if self._browser is not None and self._browser.is_connected():
            return self._browser
        self.close()
        from playwright.sync_api import sync_playwright

        executable = chromium_path()
        self._playwright = sync_playwright().start()
        self._browser = self._playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_FLAGS
        )
        self.launches += 1
        return self._browser

    def close(self) -> None:
        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = None
        try:
            if browser is not None:
                browser.close()
        finally:
            if playwright is not None:
                playwright.stop()


SHARED_BROWSER = SharedBrowser()


@contextlib.contextmanager
def chromium_context(browser, **context_options) -> Iterator[BrowserContext]:  # noqa: F821
    """A new context of the shared ``browser`` (its own cookies, storage, cache and pages, as a
    fresh profile had), closed at the end; 1280×900 unless ``viewport=`` says otherwise."""
    context = browser.new_context(**{"viewport": {"width": 1280, "height": 900}, **context_options})
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


def lab_env(emulator) -> dict[str, str]:
    """What the worker's lab (and so every kernel it starts) carries for every browser test: the
    session's emulator, this checkout's package first on the path (a worktree's code, not the
    editable install's), blank exercise answers left blank (``WORKBENCH_SOLUTIONS`` off, as an
    attendee has it; unset means the same, "0" keeps a caller's "1" out), and the workshop's
    server config (``workbench lab``'s: the lessons' ``.py`` pairs hidden, no news)."""
    from workbench.exercises.core import SOLUTIONS_ENV
    from workbench.lab import JUPYTER_CONFIG

    return {
        **emulator.env(),
        "PYTHONPATH": os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]),
        SOLUTIONS_ENV: "0",
        "JUPYTER_CONFIG_PATH": str(JUPYTER_CONFIG),
    }


# a hang guard for the kernels to go: it fails only when they never do
KERNELS_STOP_S = 120.0


@dataclass
class LabVisit:
    """One test's share of the worker's lab: a workspace (``lab/workspaces/<name>``: no tab or
    layout of an earlier test) and a folder under the lab's root for its own notebooks, both
    named after the test; ``end()`` stops every kernel and removes the folder."""

    lab: Lab
    workspace: str
    folder: Path

    @classmethod
    def start(cls, lab: Lab, test_name: str) -> LabVisit:
        name = re.sub(r"[^A-Za-z0-9]+", "-", test_name).strip("-")[:60]
        workspace = f"{name}-{secrets.token_hex(3)}"
        folder = ARTIFACTS / "lab" / workspace
        folder.mkdir(parents=True)
        visit = cls(lab=lab, workspace=workspace, folder=folder)
        visit.stop_kernels()  # nothing of an earlier test runs on (its end() stopped them)
        return visit

    def url(self, path: str = "lab") -> str:
        return self.lab.url(path)

    def tree(self, path: Path | str, workspace: str | None = None) -> str:
        """``path`` (relative to the lab's root) opened in the test's workspace, or in
        ``workspace`` (prefixed with the test's) for a layout of its own."""
        ws = self.workspace if workspace is None else f"{self.workspace}-{workspace}"
        return self.lab.url(f"lab/workspaces/{ws}/tree/{Path(path).as_posix()}")

    def notebook(self, name: str, cells: list[str]) -> Path:
        """A code notebook (``code_notebook``) in the test's folder; its path from the lab's root."""
        return code_notebook(self.folder / name, cells).relative_to(self.lab.root_dir)

    def api(self, path: str, method: str = "GET", body: dict | None = None):
        """The lab's REST API (``api/kernels``, ``api/sessions``, ...): its JSON answer."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url(path), data=data, method=method)
        with urllib.request.urlopen(request, timeout=60) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def stop_kernels(self) -> None:
        """Shut every session and kernel of the lab down and wait until none is listed."""
        for session in self.api("api/sessions"):
            self.api(f"api/sessions/{session['id']}", method="DELETE")
        deadline = time.monotonic() + KERNELS_STOP_S
        while kernels := self.api("api/kernels"):
            for kernel in kernels:
                with contextlib.suppress(urllib.error.HTTPError):  # gone meanwhile
                    self.api(f"api/kernels/{kernel['id']}", method="DELETE")
            if time.monotonic() > deadline:
                pytest.fail(f"kernels still running {KERNELS_STOP_S:.0f} s after DELETE: {kernels}")
            time.sleep(0.25)

    def end(self) -> None:
        try:
            self.stop_kernels()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


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


def open_offline(browser, path: Path, screenshot: str):
    """Open ``path`` in a new context of ``browser`` with the network blocked; return facts the tests check."""
    with chromium_context(browser) as ctx:
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
