"""Find, start, reuse and stop the real Bigtable emulator (``cbtemulator``).

The workbench never fakes Bigtable: every write and read in a notebook or a test
goes to the emulator shipped with the Google Cloud SDK. This module owns the
process: it finds the binary, starts it on a free loopback port, waits until it
answers an RPC, and stops exactly the process it started (never one it reused).

Why one module: finding the binary, checking it is the emulator, starting, reusing and stopping
it all read and write one record of the process (its pid, port and start time): split, each
part would need the others' private state to tell a process it started from one it found.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from ..errors import EmulatorError, EmulatorNotFound
from .net import not_grpc_message, port_is_open, speaks_grpc

__all__ = [
    "Emulator",
    "port_is_open",
    "speaks_grpc",
    "not_grpc_message",
    "free_port",
    "probe",
    "Probe",
]

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset
    from ..schema.plan import ReadCosts
    from ..schema.schema import Schema
    from .connection import Connection
    from .io import TableHandle

ENV_HOST = "BIGTABLE_EMULATOR_HOST"
ENV_BINARY = "WORKBENCH_CBTEMULATOR"
# the last resort: gcloud without a known SDK root, so whether its component is there is unknown
GCLOUD_UNVERIFIED = "gcloud beta emulators bigtable start (emulator component not verified)"
_SDK_GUESSES = (
    "/usr/lib/google-cloud-sdk",
    "/usr/share/google-cloud-sdk",
    "/opt/google-cloud-sdk",
    "~/google-cloud-sdk",
    "/snap/google-cloud-cli/current",
)
_INSTALL_HELP = (
    "No Bigtable emulator was found.\n"
    "Install one of:\n"
    "  * gcloud components install bigtable            (Google Cloud SDK)\n"
    "  * apt-get install google-cloud-cli-bigtable-emulator  (Google's apt repository)\n"
    "  * go install cloud.google.com/go/bigtable/cmd/emulator@latest  (Go; put it on PATH as cbtemulator)\n"
    "or point the workbench at a running one with BIGTABLE_EMULATOR_HOST=host:port,\n"
    "or at a binary with WORKBENCH_CBTEMULATOR=/path/to/cbtemulator.\n"
    "Without an emulator everything that needs no table still works: datasets, schemas,\n"
    "to_cells/from_cells, key-distribution, row-size, query-cost and capacity analysis,\n"
    "comparisons, the advisor and the designer's figures."
)


def state_file() -> Path:
    """Where ``workbench emulator start`` records the emulator it left running."""
    base = Path(os.environ.get("XDG_STATE_HOME", Path.home() / ".local" / "state"))
    return base / "bigtable-workbench" / "emulator.json"


def _sdk_root_from_gcloud(gcloud: str) -> Path | None:
    # /usr/bin/gcloud is usually a link into <sdk>/bin/gcloud: no subprocess needed.
    resolved = Path(gcloud).resolve()
    if resolved.parent.name == "bin":
        return resolved.parent.parent
    return None


def _sdk_root_slow(gcloud: str) -> Path | None:
    try:
        out = subprocess.run(
            [gcloud, "info", "--format=value(installation.sdk_root)"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(out) if out else None


@dataclass(frozen=True)
class EmulatorCommand:
    """How to start an emulator: the argv template and where it was found."""

    argv: tuple[str, ...]
    source: str

    def for_port(self, port: int) -> list[str]:
        return [a.format(host="127.0.0.1", port=port) for a in self.argv]


VERIFY_TIMEOUT_S = 10.0
"""How long ``cbtemulator -help`` may take to print its flags (it prints them at once)."""


def check_is_emulator(cmd: EmulatorCommand) -> None:
    """Refuse a binary that is not the Bigtable emulator (``WORKBENCH_CBTEMULATOR=/bin/false``):
    ``cbtemulator -help`` lists its flags, among them the ``-host`` and ``-port`` the workbench
    starts it with; anything else is named with what it did instead. gcloud's own command is
    not run here (``gcloud components install bigtable`` is checked where it is found)."""
    if cmd.source == GCLOUD_UNVERIFIED or Path(cmd.argv[0]).name == "gcloud":
        return
    binary = cmd.argv[0]
    try:
        run = subprocess.run(
            [binary, "-help"], capture_output=True, text=True, timeout=VERIFY_TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        did = f"did not answer `{binary} -help` within {VERIFY_TIMEOUT_S:g} s"
    except OSError as exc:
        did = f"cannot be run ({exc.strerror or exc})"
    else:
        said = (run.stdout + run.stderr).strip()
        if "-host" in said and "-port" in said:
            return
        shown = f"printed {said.splitlines()[0][:80]!r}" if said else "printed nothing"
        did = f"`{binary} -help` exited {run.returncode} and {shown}"
    raise EmulatorNotFound(
        f"{binary} ({cmd.source}) is not the Bigtable emulator: {did}, where cbtemulator lists "
        f"its -host and -port flags. Point {ENV_BINARY} at cbtemulator, or unset it to use the "
        f"one on PATH or in the Google Cloud SDK.\n\n{_INSTALL_HELP}"
    )


def find_emulator_command(search_gcloud: bool = True) -> EmulatorCommand:
    """Locate a way to start ``cbtemulator``, in the documented order of preference."""
    explicit = os.environ.get(ENV_BINARY)
    if explicit:
        if not (os.path.isfile(explicit) and os.access(explicit, os.X_OK)):
            raise EmulatorNotFound(
                f"{ENV_BINARY}={explicit!r} is not an executable file.\n\n{_INSTALL_HELP}"
            )
        return EmulatorCommand((explicit, "-host", "{host}", "-port", "{port}"), f"{ENV_BINARY}")
    on_path = shutil.which("cbtemulator")
    if on_path:
        return EmulatorCommand(
            (on_path, "-host", "{host}", "-port", "{port}"), "cbtemulator on PATH"
        )
    gcloud = shutil.which("gcloud")
    roots: list[Path] = []
    if os.environ.get("CLOUDSDK_ROOT_DIR"):
        roots.append(Path(os.environ["CLOUDSDK_ROOT_DIR"]))
    if gcloud:
        root = _sdk_root_from_gcloud(gcloud)
        if root:
            roots.append(root)
    roots += [Path(p).expanduser() for p in _SDK_GUESSES]
    for root in roots:
        binary = root / "platform" / "bigtable-emulator" / "cbtemulator"
        if binary.is_file() and os.access(binary, os.X_OK):
            return EmulatorCommand(
                (str(binary), "-host", "{host}", "-port", "{port}"), f"Google Cloud SDK at {root}"
            )
    if gcloud and search_gcloud:
        root = _sdk_root_slow(gcloud)
        if root:
            binary = root / "platform" / "bigtable-emulator" / "cbtemulator"
            if binary.is_file():
                return EmulatorCommand(
                    (str(binary), "-host", "{host}", "-port", "{port}"),
                    f"Google Cloud SDK at {root}",
                )
            # gcloud would only fail later with "component not installed"
            raise EmulatorNotFound(
                f"gcloud ({gcloud}, SDK at {root}) has no Bigtable emulator component: "
                f"{binary} is missing. Install it with `gcloud components install bigtable`.\n\n"
                + _INSTALL_HELP
            )
        return EmulatorCommand(
            (gcloud, "beta", "emulators", "bigtable", "start", "--host-port={host}:{port}"),
            GCLOUD_UNVERIFIED,
        )
    raise EmulatorNotFound(_INSTALL_HELP)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _parse_host(host: str) -> str:
    hostname, sep, port = host.strip().rpartition(":")
    if not sep or not port.isdigit() or not hostname:
        raise EmulatorError(
            f"{ENV_HOST}={host!r} is not of the form host:port (e.g. 127.0.0.1:8086)."
        )
    return f"{hostname}:{int(port)}"


class Emulator:
    """The real Bigtable emulator, started on a free port or reused.

    ``read_costs``, ``plan_retention_s``: what tables loaded here plan reads at (see ``wb.setup``).

    ``Emulator()`` reuses the one named by ``BIGTABLE_EMULATOR_HOST`` (or left
    running by ``workbench emulator start``) and otherwise starts its own;
    ``Emulator(reuse=False)`` always starts a fresh, private one. Only a process
    this object started is ever stopped by it.
    """

    read_costs: ReadCosts | None = None
    plan_retention_s: float | None = None

    def __init__(
        self,
        host: str | None = None,
        *,
        port: int | None = None,
        reuse: bool = True,
        project: str = "workbench",
        instance: str = "workbench",
        start_timeout: float = 30.0,
    ):
        self.project = project
        self.instance = instance
        self.start_timeout = start_timeout
        self._requested_host = _parse_host(host) if host else None
        self._requested_port = port
        self._reuse = reuse
        self._proc: subprocess.Popen[bytes] | None = None
        self._log_path: Path | None = None
        self.host: str | None = None
        self.source: str = ""
        self._connection: Connection | None = None
        self.created_tables: list[str] = []  # tables load() created in this emulator
        self.note: str | None = None  # what the start did differently (its log elsewhere)
        self._log_tmpdir: Path | None = None

    # -- life cycle -------------------------------------------------------------------
    @property
    def owned(self) -> bool:
        """True when this object started the process (and so will stop it)."""
        return self._proc is not None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def start(self) -> Emulator:
        if self.host and self.alive():
            return self
        if self._requested_host:
            self._adopt(self._requested_host, "host given by the caller")
            return self
        if self._reuse:
            running = _running_host()
            if running:
                self._adopt(*running)
                return self
        self._spawn()
        return self

    def _adopt(self, host: str, source: str) -> None:
        from .connection import check_emulator_host

        check_emulator_host(host)  # before the first socket
        if not port_is_open(host, timeout=2.0):
            raise EmulatorError(
                f"No Bigtable emulator answers at {host} ({source}).\n"
                f"Start one with `workbench emulator start`, or unset {ENV_HOST} so the "
                "workbench starts its own (wb.setup() does this by itself)."
            )
        grpc_ok = speaks_grpc(host, timeout=5.0)
        if grpc_ok is False:
            raise EmulatorError(not_grpc_message(host, source))
        if grpc_ok is None:  # accepts connections, answers nothing: do not wait 30 s to say so
            raise EmulatorError(
                f"Something listens at {host} ({source}) but answered nothing within 5 s: a "
                "stopped (Ctrl-Z, SIGSTOP) or hung process, or not an emulator. Resume it "
                f"(kill -CONT <pid>), or unset {ENV_HOST} so the workbench starts its own."
            )
        self.host, self.source = host, f"reused: {source}"
        self._wait_ready(deadline=time.monotonic() + self.start_timeout)

    def _spawn(self) -> None:
        command = find_emulator_command()
        port = self._requested_port or free_port()
        if self._requested_port and port_is_open(f"127.0.0.1:{port}"):
            raise EmulatorError(
                f"Port {port} on 127.0.0.1 is already taken by another process; "
                "choose another port or leave port=None to pick a free one."
            )
        with self._open_log(port) as log:
            self._proc = subprocess.Popen(
                command.for_port(port),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self.host, self.source = f"127.0.0.1:{port}", f"started: {command.source}"
        try:
            self._wait_ready(deadline=time.monotonic() + self.start_timeout)
        except Exception:
            self.stop()
            raise

    def _open_log(self, port: int) -> BinaryIO:
        """The emulator's log file, under the state directory; when that cannot be written
        (a read-only ``XDG_STATE_HOME``), in a private temporary directory, and :attr:`note`
        says so and how to keep it with the workbench's state."""
        log_dir = state_file().parent
        try:
            log_dir.mkdir(parents=True, exist_ok=True)
            self._log_path = log_dir / f"emulator-{port}.log"
            return open(self._log_path, "wb")
        except OSError as exc:
            self._log_tmpdir = Path(tempfile.mkdtemp(prefix="bigtable-workbench-"))
            self._log_path = self._log_tmpdir / f"emulator-{port}.log"
            self.note = (
                f"{log_dir} cannot be written ({exc.strerror or exc}): the emulator's log is in "
                f"{self._log_tmpdir} instead. Set XDG_STATE_HOME to a writable directory (or "
                f"make {log_dir} writable) to keep it with the workbench's state."
            )
            return open(self._log_path, "wb")

    def _wait_ready(self, deadline: float) -> None:
        from .connection import Connection

        last_error: Exception | None = None
        while time.monotonic() < deadline:
            if self._proc is not None and self._proc.poll() is not None:
                raise EmulatorError(
                    f"The emulator exited with code {self._proc.returncode} while starting "
                    f"on {self.host}.\n{self.log_tail()}"
                )
            if port_is_open(self.host or "", timeout=0.3):
                # A short-deadline probe, closed afterwards: the connection users get
                # (connection()) keeps the documented DEFAULT_TIMEOUT.
                probe = Connection.emulator(
                    self.host or "", project=self.project, instance=self.instance, timeout=2.0
                )
                try:
                    probe.list_tables()
                    return
                except Exception as exc:  # still starting
                    last_error = exc
                finally:
                    probe.close()
            time.sleep(0.05)
        why = f" (last error: {last_error})" if last_error else " (its port never opened)"
        raise EmulatorError(
            f"The emulator at {self.host} did not answer within {self.start_timeout:.0f} s"
            f"{why}.\n{self.log_tail()}"
        )

    def log_tail(self, lines: int = 20) -> str:
        if not self._log_path or not self._log_path.exists():
            return ""
        text = self._log_path.read_text(errors="replace").splitlines()[-lines:]
        return "Emulator log:\n" + "\n".join(text) if text else ""

    def alive(self) -> bool:
        if self._proc is not None and self._proc.poll() is not None:
            return False
        return bool(self.host) and port_is_open(self.host or "")

    def stop(self) -> None:
        """Stop the emulator if, and only if, this object started it."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        if (
            self._log_path is not None
        ):  # its log served start-up errors; a stopped emulator needs none
            self._log_path.unlink(missing_ok=True)
        if self._log_tmpdir is not None:
            shutil.rmtree(self._log_tmpdir, ignore_errors=True)
            self._log_tmpdir = None

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def __del__(self) -> None:  # a forgotten emulator must not outlive the kernel
        try:
            self.stop()
        except Exception:
            pass

    # -- use --------------------------------------------------------------------------
    def connection(self) -> Connection:
        """A connection to this emulator (created once, reused)."""
        if not self.host:
            self.start()
        if self._connection is None:
            from .connection import Connection

            self._connection = Connection.emulator(
                self.host or "", project=self.project, instance=self.instance
            )
        return self._connection

    def env(self) -> dict[str, str]:
        """Environment for child processes (kernels, ``cbt``) that should use this emulator."""
        return {ENV_HOST: self.host or ""}

    def load(self, dataset: Dataset, schema: Schema, **kwargs: Any) -> TableHandle:
        """Create the schema's table(s), write the dataset and verify it.

        Parameters
        ----------
        dataset, schema : Dataset, Schema
            The events, and the design whose tables, families and GC rules are created first.
        **kwargs
            As ``bigtable.io.load``: ``table_id``, ``verify``, ``progress``, ``check_memory``, ...

        Returns
        -------
        TableHandle
            The loaded table(s); those created are in :attr:`created_tables` (``wb.cleanup()``).
        """
        from .io import load

        kwargs = {"costs": self.read_costs, "retention_s": self.plan_retention_s, **kwargs}
        try:
            handle = load(self.connection(), dataset, schema, **kwargs)
        except BaseException as exc:  # a failed write leaves the tables it created behind
            self._record(getattr(exc, "created_tables", ()))
            table = getattr(exc, "table", None)  # a failed verification carries its handle
            self._record(getattr(table, "created", ()))
            raise
        self._record(handle.created)
        return handle

    def _record(self, table_ids: tuple[str, ...]) -> None:
        for table_id in table_ids:
            if table_id not in self.created_tables:
                self.created_tables.append(table_id)

    def __repr__(self) -> str:
        state = "running" if self.host and self.alive() else "stopped"
        owner = "owned" if self.owned else "not owned"
        return f"<Emulator {self.host or '-'} {state}, {owner}; {self.source or 'not started'}>"


PROBE_TIMEOUT = 5.0  # `workbench emulator status`: the longest a silent listener may keep it


@dataclass(frozen=True)
class Probe:
    """What answers at a host: ``state`` is ``answering`` (a Bigtable ListTables call came
    back), ``closed`` (nothing listens), ``not_grpc`` (a listener that does not speak HTTP/2)
    or ``silent`` (it accepts connections but answered no HTTP/2 preface, or no Bigtable call,
    within the deadline: stopped with SIGSTOP or Ctrl-Z, hung, or not an emulator)."""

    host: str
    state: str
    detail: str

    @property
    def ok(self) -> bool:
        return self.state == "answering"


def probe(host: str, timeout: float = PROBE_TIMEOUT, *, project: str = "workbench") -> Probe:
    """Whether ``host`` is a Bigtable emulator that answers, each step within ``timeout``:
    the port, the HTTP/2 preface every gRPC server answers, then one ListTables call."""
    from .connection import Connection

    if not port_is_open(host, timeout=min(timeout, 1.0)):
        return Probe(host, "closed", "nothing listens there")
    grpc_ok = speaks_grpc(host, timeout=timeout)
    if grpc_ok is False:
        return Probe(host, "not_grpc", not_grpc_message(host, host))
    if grpc_ok is None:
        return Probe(host, "silent", _silent(host, timeout))
    conn = Connection.emulator(host, project=project, instance=project, timeout=timeout)
    try:
        n = len(conn.list_tables())
    except Exception as exc:  # a deadline, or an HTTP/2 server that is not Bigtable
        return Probe(host, "silent", f"{_silent(host, timeout)} ({type(exc).__name__})")
    finally:
        conn.close()
    return Probe(host, "answering", f"ListTables answered: {n} table(s) in {project}/{project}")


def _silent(host: str, timeout: float) -> str:
    return (
        f"something accepts connections at {host} but gave no Bigtable answer within "
        f"{timeout:g} s: a stopped (Ctrl-Z, SIGSTOP) or hung process, or not an emulator. "
        f"Resume it (kill -CONT <pid>) or stop it, or unset {ENV_HOST} so the workbench starts "
        "its own"
    )


def _running_host() -> tuple[str, str] | None:
    """An emulator already running for this user: env var first, then the CLI's state file."""
    env = os.environ.get(ENV_HOST)
    if env:
        return _parse_host(env), f"{ENV_HOST}={env}"
    state = read_state()
    if state and port_is_open(state["host"]):
        return state["host"], f"`workbench emulator start` (pid {state['pid']})"
    return None


def read_state() -> dict[str, Any] | None:
    try:
        data = json.loads(state_file().read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and "host" in data else None


def start_background(port: int | None = None) -> dict[str, Any]:
    """Start an emulator that outlives this process (for ``workbench emulator start``)."""
    state = read_state()
    if state and port_is_open(state["host"]):
        return {**state, "reused": True}
    emu = Emulator(port=port, reuse=False)
    emu.start()
    proc = emu._proc
    emu._proc = None  # hand ownership to the state file: do not stop on exit
    info = {
        "host": emu.host,
        "pid": proc.pid if proc else None,
        "source": emu.source,
        "log": str(emu._log_path),
        "started": time.time(),
    }
    try:
        state_file().parent.mkdir(parents=True, exist_ok=True)
        state_file().write_text(json.dumps(info))
    except OSError as exc:  # nobody could find or stop it later: do not leave it running
        emu._proc = proc
        emu.stop()
        raise EmulatorError(
            f"Cannot record the background emulator in {state_file()} ({exc.strerror or exc}), "
            "so nothing could find or stop it later; it was stopped. Set XDG_STATE_HOME to a "
            f"writable directory (or make {state_file().parent} writable) and run it again."
        ) from exc
    return {**info, "reused": False}


def stop_background() -> dict[str, Any] | None:
    state = read_state()
    if not state:
        return None
    pid = state.get("pid")
    if pid:
        try:
            os.killpg(int(pid), signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass
        for _ in range(100):
            if not port_is_open(state["host"], timeout=0.1):
                break
            time.sleep(0.05)
    state_file().unlink(missing_ok=True)
    if state.get("log"):
        Path(state["log"]).unlink(missing_ok=True)
    return state
