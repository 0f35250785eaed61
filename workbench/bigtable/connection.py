"""One connection to Bigtable: the emulator by default, Cloud Bigtable only on explicit opt-in.

Built on the official client's generated (GAPIC) data and table-admin clients,
each on a gRPC channel the workbench configures itself, so that:

* two emulators can be used at once in one process (no global environment variable);
* rows larger than the default 4 MiB receive limit can be read;
* a dead emulator gives a clear error in seconds, not after the client's
  default 600 s of retries;
* one retry policy serves every call, unary (admin), streamed reads and writes:
  :meth:`Connection.retry`, a ``google.api_core.retry.Retry`` whose budget runs from the
  last progress (a row read, an entry written), not from the start of a long scan;
* production is reached only when the user names project and instance *and*
  opts in (argument or ``WORKBENCH_ALLOW_PRODUCTION=1``); before that check
  passes no channel is opened and no RPC is sent. Deleting a table on a real
  instance needs a second confirmation: the table's ID typed again.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.api_core import exceptions as api_exceptions
from google.api_core import retry as api_retry

from ..errors import ConfirmationRequired, EmulatorUnavailable, ProductionNotAllowed
from .net import port_is_open

ENV_ALLOW_PRODUCTION = "WORKBENCH_ALLOW_PRODUCTION"
DATA_ENDPOINT = "bigtable.googleapis.com"
ADMIN_ENDPOINT = "bigtableadmin.googleapis.com"

# No receive limit (rows over 4 MiB must be readable); sending is bounded by the
# server's own 256 MiB request limit, which the writer checks before sending.
CHANNEL_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("grpc.max_receive_message_length", -1),
    ("grpc.max_send_message_length", -1),
    ("grpc.keepalive_time_ms", 30_000),
    # Streaming calls (ReadRows, MutateRows) are polled on the calling thread instead of
    # being handed over from grpc's thread per message: ~2x faster full scans (bench_read).
    (grpc.experimental.ChannelOptions.SingleThreadedUnaryStream, 1),
)
DEFAULT_TIMEOUT = 10.0

# -- the one retry policy -----------------------------------------------------------------
# Transient: the server may answer the same request later (UNAVAILABLE, a deadline, ABORTED, as
# the official client retries ReadRows and MutateRows). Backoff 0.05 s doubling to 1 s (with
# api_core's jitter), for as long as the caller's budget since its last progress allows.
TRANSIENT_CODES = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.ABORTED}
)
RETRY_INITIAL_S = 0.05
RETRY_MAXIMUM_S = 1.0
RETRY_MULTIPLIER = 2.0
_TRANSIENT_API = (
    api_exceptions.ServiceUnavailable,
    api_exceptions.DeadlineExceeded,
    api_exceptions.Aborted,
)


class Transient(Exception):
    """A transient failure read from an answer rather than raised by gRPC (MutateRows' per-entry
    statuses): retried exactly as a transient gRPC error."""


def status_code(exc: BaseException) -> grpc.StatusCode | None:
    """The gRPC status of a raw-channel error (None for anything else)."""
    code = getattr(exc, "code", None)
    if isinstance(exc, grpc.RpcError) and callable(code):
        got = code()
        return got if isinstance(got, grpc.StatusCode) else None
    return None


def is_transient(exc: BaseException) -> bool:
    """Worth retrying: a transient gRPC status (raw channel or the generated clients' wrapped
    errors) or a :class:`Transient` answer."""
    return isinstance(exc, (Transient, *_TRANSIENT_API)) or status_code(exc) in TRANSIENT_CODES


def _production_opt_in(allow_production: bool | None) -> bool:
    """True only for ``allow_production=True`` or, when it is None, an explicit yes in the environment.

    Anything else given as the argument (``"no"``, ``"false"``, ``0``) is refused outright rather
    than read by truthiness: a string like ``"no"`` must never open production.
    """
    if allow_production is not None:
        if not isinstance(allow_production, bool):
            raise ProductionNotAllowed(
                f"allow_production must be True or False, got {allow_production!r}. No request was sent."
            )
        return allow_production
    return os.environ.get(ENV_ALLOW_PRODUCTION, "").strip().lower() in {"1", "true", "yes"}


def check_emulator_host(host: str, allow_production: bool | None = None) -> None:
    """An emulator speaks plaintext gRPC: one on another machine is reached only with the same
    explicit opt-in as production. Checked before any socket is opened."""
    from .net import is_loopback

    if is_loopback(host) or _production_opt_in(allow_production):
        return
    raise ProductionNotAllowed(
        f"Refusing to dial the emulator at {host}: it is not on this machine (not a loopback "
        "address), and an emulator is reached over plaintext gRPC, unauthenticated. If you mean "
        f"it, opt in as for production: set {ENV_ALLOW_PRODUCTION}=1 (or pass "
        "allow_production=True); otherwise point BIGTABLE_EMULATOR_HOST at 127.0.0.1:PORT or "
        "unset it. No connection was made."
    )


@dataclass
class Connection:
    """A data client, a table-admin client and the channel under them, for one instance."""

    project: str
    instance: str
    host: str  # host:port of the emulator, or the data endpoint
    is_production: bool
    timeout: float = DEFAULT_TIMEOUT
    channel: grpc.Channel = field(repr=False, default=None)
    admin_channel: grpc.Channel = field(repr=False, default=None)
    _data: Any = field(repr=False, default=None)
    _admin: Any = field(repr=False, default=None)
    # False once the server answered a reverse scan with UNIMPLEMENTED (the emulator): later
    # reversed reads go forward at once and are reversed by the client
    reverse_scans: bool = field(repr=False, default=True)
    # the raw streaming calls made on ``channel``, one per method (see ``stream_call``)
    _calls: dict[str, Any] = field(repr=False, default_factory=dict)

    # -- construction -----------------------------------------------------------------
    @classmethod
    def emulator(
        cls,
        host: str,
        *,
        project: str = "workbench",
        instance: str = "workbench",
        timeout: float = DEFAULT_TIMEOUT,
        allow_production: bool | None = None,
    ) -> Connection:
        check_emulator_host(host, allow_production)
        channel = grpc.insecure_channel(host, options=list(CHANNEL_OPTIONS))
        return cls(
            project=project,
            instance=instance,
            host=host,
            is_production=False,
            timeout=timeout,
            channel=channel,
            admin_channel=channel,
        )

    @classmethod
    def cloud(
        cls,
        project: str,
        instance: str,
        *,
        allow_production: bool | None = None,
        credentials: Any = None,
        timeout: float = 30.0,
        data_endpoint: str = DATA_ENDPOINT,
        admin_endpoint: str = ADMIN_ENDPOINT,
    ) -> Connection:
        """A real Cloud Bigtable instance. Refused, before any network I/O, without the opt-in."""
        if not project or not instance:
            raise ProductionNotAllowed(
                "Name both the project and the instance of the Cloud Bigtable target."
            )
        if not _production_opt_in(allow_production):
            raise ProductionNotAllowed(
                f"Refusing to connect to Cloud Bigtable instance {project}/{instance}: production is "
                f"opt-in. Pass allow_production=True or set {ENV_ALLOW_PRODUCTION}=1. No request was sent."
            )
        from google.cloud.bigtable_admin_v2.services.bigtable_table_admin.transports import (
            BigtableTableAdminGrpcTransport,
        )
        from google.cloud.bigtable_v2.services.bigtable.transports import BigtableGrpcTransport

        channel = BigtableGrpcTransport.create_channel(
            host=data_endpoint, credentials=credentials, options=list(CHANNEL_OPTIONS)
        )
        admin_channel = BigtableTableAdminGrpcTransport.create_channel(
            host=admin_endpoint, credentials=credentials, options=list(CHANNEL_OPTIONS)
        )
        return cls(
            project=project,
            instance=instance,
            host=data_endpoint,
            is_production=True,
            timeout=timeout,
            channel=channel,
            admin_channel=admin_channel,
        )

    # -- clients ----------------------------------------------------------------------
    @property
    def data(self) -> Any:
        """The official generated data client (``google.cloud.bigtable_v2``)."""
        if self._data is None:
            from google.cloud.bigtable_v2 import BigtableClient
            from google.cloud.bigtable_v2.services.bigtable.transports import BigtableGrpcTransport

            self._data = BigtableClient(
                transport=BigtableGrpcTransport(channel=self.channel, host=self.host)
            )
        return self._data

    @property
    def admin(self) -> Any:
        """The official generated table-admin client (``google.cloud.bigtable_admin_v2``)."""
        if self._admin is None:
            from google.cloud.bigtable_admin_v2 import BaseBigtableTableAdminClient
            from google.cloud.bigtable_admin_v2.services.bigtable_table_admin.transports import (
                BigtableTableAdminGrpcTransport,
            )

            host = ADMIN_ENDPOINT if self.is_production else self.host
            self._admin = BaseBigtableTableAdminClient(
                transport=BigtableTableAdminGrpcTransport(channel=self.admin_channel, host=host)
            )
        return self._admin

    # -- names ------------------------------------------------------------------------
    @property
    def instance_path(self) -> str:
        return f"projects/{self.project}/instances/{self.instance}"

    def table_path(self, table_id: str) -> str:
        return f"{self.instance_path}/tables/{table_id}"

    @property
    def target(self) -> str:
        kind = "Cloud Bigtable" if self.is_production else "emulator"
        return f"{kind} {self.host} ({self.project}/{self.instance})"

    def stream_call(self, method: str, request: Any, response: Any) -> Any:
        """The server-streaming RPC ``method`` (ReadRows, MutateRows) on this connection's own
        channel with the package's raw protobuf classes, made once per connection."""
        call = self._calls.get(method)
        if call is None:
            call = self._calls[method] = self.channel.unary_stream(
                method,
                request_serializer=request.SerializeToString,
                response_deserializer=response.FromString,
            )
        return call

    def refused(self, exc: BaseException) -> bool:
        """UNAVAILABLE from an emulator whose port no longer accepts: its process is gone, so
        retrying for the whole budget would only delay saying so."""
        unavailable = isinstance(exc, api_exceptions.ServiceUnavailable) or (
            status_code(exc) == grpc.StatusCode.UNAVAILABLE
        )
        return unavailable and not self.is_production and not port_is_open(self.host, timeout=0.3)

    def retry(
        self,
        budget_s: float | None = None,
        *,
        last_progress: Callable[[], float] | None = None,
        stop: threading.Event | None = None,
        on_error: Callable[[Exception], Any] | None = None,
    ) -> api_retry.Retry:
        """The one retry policy (admin calls, reads, writes): transient errors
        (:func:`is_transient`) are retried with exponential backoff while less than
        ``budget_s`` (default: the connection's timeout) has passed since the last progress:
        ``last_progress()`` (a ``time.monotonic()`` value; default: when the policy was made,
        so a unary call gets ``budget_s`` in all). Never retried: a refused emulator
        (:meth:`refused`) and anything once ``stop`` is set. When the policy gives up, the last
        error itself is raised (no ``RetryError``), for the caller to name."""
        budget = self.timeout if budget_s is None else budget_s
        made = time.monotonic()

        def retryable(exc: Exception) -> bool:
            if (stop is not None and stop.is_set()) or not is_transient(exc):
                return False
            since = last_progress() if last_progress is not None else made
            return time.monotonic() - since < budget and not self.refused(exc)

        return api_retry.Retry(
            predicate=retryable,
            initial=RETRY_INITIAL_S,
            maximum=RETRY_MAXIMUM_S,
            multiplier=RETRY_MULTIPLIER,
            timeout=None,  # the budget is the predicate's: time since the last progress
            on_error=on_error,
        )

    def diagnose(self) -> str:
        """Why the emulator did not answer, told apart by whether its port still accepts:
        a frozen or overloaded process keeps its listening socket, a dead one does not."""
        if self.is_production:
            return ""
        from .net import not_grpc_message, speaks_grpc

        if port_is_open(self.host, timeout=0.5):
            if speaks_grpc(self.host, timeout=0.5) is False:
                return not_grpc_message(self.host, "the connection's host")
            return (
                f"The emulator's port {self.host} still accepts connections, so the process is "
                "alive but not answering: stopped (Ctrl-Z, SIGSTOP) or overloaded. Resume it "
                "(kill -CONT <pid>) or wait; wb.setup() replaces it only once it has exited."
            )
        return (
            f"Nothing listens at {self.host} any more: the emulator has stopped. wb.setup() "
            "starts a new one (a restarted emulator is empty: load the data again)."
        )

    def call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Run one unary RPC with the connection's deadline; name the target on failure."""
        kwargs.setdefault("timeout", self.timeout)
        kwargs.setdefault("retry", self.retry())
        t0 = time.monotonic()
        try:
            return fn(*args, **kwargs)
        except (
            api_exceptions.ServiceUnavailable,
            api_exceptions.DeadlineExceeded,
            api_exceptions.RetryError,
        ) as exc:
            raise EmulatorUnavailable(
                f"{what} failed: no answer from the {self.target} after "
                f"{time.monotonic() - t0:.1f} s (deadline {self.timeout:.0f} s). "
                + self.diagnose()
                + f"\n({type(exc).__name__}: {exc})"
            ) from exc

    # -- small admin helpers ------------------------------------------------------------
    def list_tables(self) -> list[str]:
        """The instance's table IDs, sorted."""
        from google.cloud.bigtable_admin_v2.types import ListTablesRequest

        pager = self.call(
            "Listing tables",
            self.admin.list_tables,
            request=ListTablesRequest(parent=self.instance_path),
        )
        names = (t.name.rsplit("/", 1)[-1] for t in pager)
        return sorted(names)

    def why_missing(self, table_id: str) -> str:
        """A sentence on why ``table_id`` is not there: an emulator holding no tables at all was
        restarted (it starts empty); otherwise the table was dropped or never created."""
        from ..errors import WorkbenchError

        try:
            tables = self.list_tables()
        except WorkbenchError:
            return ""
        if tables or self.is_production:
            return (
                f" The instance holds {len(tables)} other table(s): {table_id!r} was dropped "
                "(table.drop(), wb.cleanup(), cbt deletetable) or never created here."
            )
        return (
            " The emulator holds no tables at all: it was most likely restarted (a restarted "
            "emulator starts empty, so every table loaded before is gone), unless its last table "
            "was dropped. Load the data again: emu.load(ds, schema)."
        )

    def check_delete_allowed(self, table_id: str, confirm: str | None) -> None:
        """Deleting on a real instance needs ``confirm=<table_id>``: a second, explicit yes."""
        if self.is_production and confirm != table_id:
            raise ConfirmationRequired(
                f"Table {table_id!r} is on the real {self.target}. To delete it, pass "
                f"confirm={table_id!r}. Nothing was deleted."
            )

    def close(self) -> None:
        for ch in {
            id(self.channel): self.channel,
            id(self.admin_channel): self.admin_channel,
        }.values():
            if ch is not None:
                ch.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
