"""The lease a load holds on each emulator table it writes: two writers never interleave.

The design record (``ownership.record_family``) says *which* design a table holds; it cannot
say *who is writing it now*. Two appends into one table that both read a shared hour's stored
events before either writes lose part of it, and two designs racing into an existing empty
table both pass the check before either records itself (issue 45, items 2 and 3). So every
load into an emulator table (a rerun, an append, a table made outside a load) holds the
table's **lease** from before its checks and reads until after its verification:

* **The record row.** Row :data:`LEASE_KEY` of the table, in family :data:`LEASE_FAMILY`
  (an empty family made with the table, atomically, as the design record is; added to a table
  made outside a load before its first lease). Cell ``token``: the holder's random token; cell
  ``holder``: who holds it (JSON: host, pid, started at, design, dataset). Both carry the time
  of the last renewal as their timestamp (ms, the client's clock).
* **Taken with one conditional mutation** (CheckAndMutateRow: "Changes to be atomically
  applied to the specified row if predicate_filter does not yield any cells", API reference
  ``google.bigtable.v2.CheckAndMutateRowRequest``; "Conditional writes" in
  cloud.google.com/bigtable/docs/writes): the predicate is "a ``token`` cell renewed within the
  last :data:`LEASE_TTL_S` seconds"; when it yields nothing, the row's lease cells are replaced
  by this writer's. The server applies the check and the write as one step, so of two writers
  exactly one gets it. The emulator implements it (``tests/bigtable/test_lease.py`` races two writers).
* **Renewed** every ``LEASE_TTL_S / 3`` seconds while the load runs (a daemon thread; the
  predicate: the newest ``token`` cell is this writer's), **released** at the end (DeleteFromRow
  under the same predicate): nothing of it stays in the table.
* **A second writer** finds the predicate true: it waits (polling every :data:`POLL_S`) up to
  ``lease_wait_s`` (:data:`LEASE_WAIT_S` by default), saying whom it waits for, then is refused
  before any write, naming the holder (host, pid, started at, design and dataset).
* **A killed writer** stops renewing: :data:`LEASE_TTL_S` after its last renewal its lease is
  stale, the next writer takes it over in the same conditional mutation and says so (naming
  the killed writer and how long ago it last renewed). A writer whose lease was taken over
  (stopped longer than the expiry, e.g. SIGSTOP) finds out at its next renewal and stops
  before its next request.

Every read of the workbench leaves the lease row out (``reader.read_plan``), so no count,
verification or analysis sees it; ``cbt count`` does while a load runs (one row), and after a
killed load until the next load of that table takes the lease over and releases it.

Expiry is judged on the writers' clocks: fine on one machine (an emulator is reached only on
loopback without the production opt-in). A real instance's tables get no lease (nor a record):
the workbench adds nothing to them that the design does not name, and CheckAndMutateRow needs an
app profile with single-cluster routing that allows transactional writes ("It is unsafe to send
these requests to the same table/row/column in multiple clusters", ``AppProfile.
SingleClusterRouting.allow_transactional_writes``).
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from google.api_core import exceptions as api_exceptions
from google.cloud.bigtable_admin_v2 import types as admin_types
from google.cloud.bigtable_v2.types import bigtable as bt
from google.cloud.bigtable_v2.types import data as dt

from ..errors import WorkbenchError, WriteError
from .chunks import decode, new_columns
from .connection import Connection

LEASE_FAMILY = "_wb.lease"  # under the design record's prefix: no check takes it for the design's
LEASE_KEY = "_wb.lease"  # the record row
LEASE_KEY_BYTES = LEASE_KEY.encode()
LEASE_TTL_S = 30.0  # a lease not renewed for this long is stale (its writer was killed)
LEASE_WAIT_S = 60.0  # how long a second writer waits by default before it is refused
POLL_S = 0.2  # how often a waiting writer asks again


def _now_us() -> int:
    """Now, in µs rounded down to the ms (the emulator's and Bigtable's timestamp granularity)."""
    return int(time.time() * 1000) * 1000


def _when(us: int) -> str:
    return (
        time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(us / 1e6)) + f".{us // 1000 % 1000:03d} UTC"
    )


@dataclass(frozen=True)
class Holder:
    """Who holds (or held) a table's lease, as its record row says."""

    token: str
    host: str = "?"
    pid: int = 0
    started: str = "?"
    design: str = "?"
    dataset: str = "?"
    renewed_us: int = 0  # the timestamp of its last renewal

    def describe(self) -> str:
        return (
            f"a load of design {self.design!r} of dataset {self.dataset!r} by process "
            f"{self.pid} on host {self.host!r}, started at {self.started}"
        )

    def age_s(self, now_us: int | None = None) -> float:
        return ((now_us or _now_us()) - self.renewed_us) / 1e6


def _family_is_lease() -> dt.RowFilter:
    return dt.RowFilter(family_name_regex_filter=r"^_wb\.lease$")


def _token_cell() -> list[dt.RowFilter]:
    return [_family_is_lease(), dt.RowFilter(column_qualifier_regex_filter=b"^token$")]


def _live(now_us: int) -> dt.RowFilter:
    """A ``token`` cell renewed within the expiry: someone holds the lease."""
    since = max(0, now_us - int(LEASE_TTL_S * 1e6))
    since -= since % 1000
    return dt.RowFilter(
        chain=dt.RowFilter.Chain(
            filters=[
                *_token_cell(),
                dt.RowFilter(
                    timestamp_range_filter=dt.TimestampRange(start_timestamp_micros=since)
                ),
            ]
        )
    )


def _mine(token: str) -> dt.RowFilter:
    """The newest ``token`` cell is ``token`` (hex: no regex character)."""
    return dt.RowFilter(
        chain=dt.RowFilter.Chain(
            filters=[
                *_token_cell(),
                dt.RowFilter(cells_per_column_limit_filter=1),
                dt.RowFilter(value_regex_filter=f"^{token}$".encode()),
            ]
        )
    )


def _set(token: str, holder: dict[str, Any], now_us: int) -> list[dt.Mutation]:
    """Replace the row's lease cells by this writer's, stamped ``now_us``."""
    cell = dt.Mutation.SetCell
    return [
        dt.Mutation(delete_from_family=dt.Mutation.DeleteFromFamily(family_name=LEASE_FAMILY)),
        dt.Mutation(
            set_cell=cell(
                family_name=LEASE_FAMILY,
                column_qualifier=b"token",
                timestamp_micros=now_us,
                value=token.encode(),
            )
        ),
        dt.Mutation(
            set_cell=cell(
                family_name=LEASE_FAMILY,
                column_qualifier=b"holder",
                timestamp_micros=now_us,
                value=json.dumps(holder, sort_keys=True).encode(),
            )
        ),
    ]


def check_and_mutate(
    conn: Connection,
    table_id: str,
    predicate: dt.RowFilter,
    *,
    true_mutations: Sequence[dt.Mutation] = (),
    false_mutations: Sequence[dt.Mutation] = (),
) -> bool:
    """One CheckAndMutateRow on the record row through the official client; True when the
    predicate yielded a cell (``true_mutations`` applied), False otherwise."""
    req = bt.CheckAndMutateRowRequest(
        table_name=conn.table_path(table_id),
        row_key=LEASE_KEY_BYTES,
        predicate_filter=predicate,
        true_mutations=list(true_mutations),
        false_mutations=list(false_mutations),
    )
    try:
        got = conn.call(
            f"The lease of table {table_id!r}", conn.data.check_and_mutate_row, request=req
        )
    except api_exceptions.NotFound as exc:
        raise WriteError(
            f"Table {table_id!r} is gone from the {conn.target} (dropped while this load was "
            f"taking or renewing its lease): {exc}. Nothing more was written."
        ) from None
    return bool(got.predicate_matched)


def read_holder(conn: Connection, table_id: str) -> Holder | None:
    """The lease the record row holds (live or stale), None when the row holds none."""
    req = bt.ReadRowsRequest(
        table_name=conn.table_path(table_id),
        rows=dt.RowSet(row_keys=[LEASE_KEY_BYTES]),
        filter=dt.RowFilter(
            chain=dt.RowFilter.Chain(
                filters=[_family_is_lease(), dt.RowFilter(cells_per_column_limit_filter=1)]
            )
        ),
    )
    stream = conn.call(f"Reading the lease of table {table_id!r}", conn.data.read_rows, request=req)
    cols = new_columns()
    decode((bt.ReadRowsResponse.pb(r) for r in stream), cols)
    cells = {
        q.decode(): (v, ts)
        for q, v, ts in zip(cols["qualifier"], cols["value"], cols["timestamp_us"], strict=True)
    }
    if "token" not in cells:
        return None
    token, renewed = cells["token"]
    try:
        about = json.loads(cells["holder"][0]) if "holder" in cells else {}
    except ValueError:
        about = {}
    keep = {k: about[k] for k in ("host", "pid", "started", "design", "dataset") if k in about}
    return Holder(token=token.decode(errors="replace"), renewed_us=int(renewed), **keep)


def ensure_family(conn: Connection, table_id: str) -> bool:
    """Give a table made outside a load (``cbt createtable``) the lease family; True when this
    call added it. Two writers adding it at once: the second finds it there (AlreadyExists)."""
    from .admin import get_families

    have = get_families(conn, table_id)
    if have is None:
        raise WriteError(
            f"Table {table_id!r} is gone from the {conn.target} (dropped while this load was "
            "checking it). Nothing was written: load again."
        )
    if LEASE_FAMILY in have:
        return False
    mod = admin_types.ModifyColumnFamiliesRequest.Modification(
        id=LEASE_FAMILY, create=admin_types.ColumnFamily()
    )
    try:
        conn.call(
            f"Adding the lease family to table {table_id!r}",
            conn.admin.modify_column_families,
            request=admin_types.ModifyColumnFamiliesRequest(
                name=conn.table_path(table_id), modifications=[mod]
            ),
        )
    except api_exceptions.AlreadyExists:
        return False
    return True


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@dataclass
class Lease:
    """The leases one load holds (one per physical table), their renewal and their release."""

    conn: Connection
    tables: tuple[str, ...]
    design: str
    dataset: str
    say: Callable[[str], None] = _say
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    started_us: int = field(default_factory=_now_us)
    held: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    lost: WriteError | None = None
    added: list[str] = field(default_factory=list)  # tables this load gave the lease family
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    @property
    def about(self) -> dict[str, Any]:
        return {
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "started": _when(self.started_us),
            "design": self.design,
            "dataset": self.dataset,
        }

    def _refused(self, table_id: str, holder: Holder, waited: float, wait_s: float) -> WriteError:
        now = _now_us()
        return WriteError(
            f"Table {table_id!r} on the {self.conn.target} is being written by {holder.describe()} "
            f"(its lease, renewed {holder.age_s(now):.1f} s ago, expires "
            f"{LEASE_TTL_S:.0f} s after its last renewal). This load waited {waited:.1f} s "
            f"(lease_wait_s={wait_s:g}) and was refused before writing: two loads into one "
            "table at once would mix or lose data. Nothing was written, created or changed by "
            "this load"
            + (
                f" apart from the empty lease family {LEASE_FAMILY!r} it added to the table"
                if table_id in self.added
                else ""
            )
            + ". Load again once that load has finished (or pass lease_wait_s= to wait "
            "longer); a writer whose process was killed lets go "
            f"{LEASE_TTL_S:.0f} s after its last renewal, and the next load takes its lease over."
        )

    def _take(self, table_id: str, deadline: float, wait_s: float, t0: float) -> None:
        announced = False
        while True:
            before = read_holder(self.conn, table_id)
            now = _now_us()
            if not check_and_mutate(
                self.conn, table_id, _live(now), false_mutations=_set(self.token, self.about, now)
            ):
                self.held.append(table_id)
                stale = before is not None and before.renewed_us < now - LEASE_TTL_S * 1e6
                if stale and before is not None and before.token != self.token:
                    note = (
                        f"Took over the lease of table {table_id!r} from {before.describe()}: it "
                        f"was last renewed {before.age_s(now):.1f} s ago, past its "
                        f"{LEASE_TTL_S:.0f} s expiry (that load's process was killed or stopped). "
                        "Whatever it wrote before it stopped is in the table, and this load's "
                        "checks saw it."
                    )
                    self.notes.append(note)
                    self.say(note)
                if announced:
                    self.notes.append(
                        f"Waited {time.monotonic() - t0:.1f} s for the lease of table "
                        f"{table_id!r} (another load was writing it)."
                    )
                return
            holder = read_holder(self.conn, table_id)
            if holder is None:  # released between the two calls: ask again at once
                continue
            if holder.token == self.token:  # our own, applied by a call that was retried
                self.held.append(table_id)
                return
            if time.monotonic() >= deadline:
                raise self._refused(table_id, holder, time.monotonic() - t0, wait_s)
            if not announced:
                self.say(
                    f"Table {table_id!r} is being written by {holder.describe()}: this load "
                    f"waits for its lease (up to {wait_s:g} s, lease_wait_s=) before it reads "
                    "or writes anything."
                )
                announced = True
            time.sleep(max(0.0, min(POLL_S, deadline - time.monotonic())))

    def acquire(self, wait_s: float) -> None:
        """Take every table's lease (in ID order, so two loads of several tables never wait on
        each other), waiting up to ``wait_s`` in all; refused (:class:`WriteError`) after that."""
        t0 = time.monotonic()
        deadline = t0 + wait_s
        try:
            for table_id in sorted(self.tables):
                if ensure_family(self.conn, table_id):
                    self.added.append(table_id)
                self._take(table_id, deadline, wait_s, t0)
        except BaseException:
            self.release()
            raise
        self._thread = threading.Thread(target=self._renew_loop, name="wb-lease", daemon=True)
        self._thread.start()

    def renew(self) -> None:
        """Stamp every held lease with now; a lease no longer this writer's is lost."""
        for table_id in list(self.held):
            now = _now_us()
            if not check_and_mutate(
                self.conn,
                table_id,
                _mine(self.token),
                true_mutations=_set(self.token, self.about, now),
            ):
                holder = read_holder(self.conn, table_id)
                self.held.remove(table_id)
                raise WriteError(
                    f"This load lost the lease of table {table_id!r}: "
                    + (
                        f"{holder.describe()} took it over"
                        if holder is not None
                        else "its record row was deleted"
                    )
                    + f" (this load had not renewed it for over {LEASE_TTL_S:.0f} s: was its "
                    "process stopped?). It stopped before its next request so that the two "
                    "loads do not mix; load again once the other has finished."
                )

    def _renew_loop(self) -> None:
        while not self._stop.wait(LEASE_TTL_S / 3):
            try:
                self.renew()
            except WriteError as exc:  # taken over, or the table dropped: stop the write
                self.lost = exc
                return
            except (WorkbenchError, api_exceptions.GoogleAPIError):
                continue  # no answer: the write's own requests say why; renewed next time

    def check(self) -> None:
        """Raise the :class:`WriteError` of a lost lease (the writer calls it before each request)."""
        if self.lost is not None:
            raise self.lost

    def release(self) -> None:
        """Stop renewing and delete the record row of every lease still this writer's."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        for table_id in list(self.held):
            try:
                check_and_mutate(
                    self.conn,
                    table_id,
                    _mine(self.token),
                    true_mutations=[dt.Mutation(delete_from_row=dt.Mutation.DeleteFromRow())],
                )
            except (WorkbenchError, api_exceptions.GoogleAPIError):
                pass  # the emulator is gone or the table dropped: nothing left to release
            self.held.remove(table_id)


def only_change(message: str, added: Sequence[str]) -> str:
    """A refusal's message, true when this load added the lease family to ``added`` tables
    before it was refused (the one change it made: an empty family every load uses)."""
    if not added:
        return message
    return message.replace(
        "Nothing was written, created or changed.",
        f"Nothing was written or created; the one change is the empty lease family "
        f"{LEASE_FAMILY!r} this load added to table(s) {list(added)} (every load of a table "
        "takes turns through it).",
    )


@contextmanager
def hold(
    conn: Connection,
    tables: Sequence[str],
    *,
    design: str,
    dataset: str,
    wait_s: float = LEASE_WAIT_S,
    say: Callable[[str], None] = _say,
) -> Iterator[Lease]:
    """Hold the lease of every table in ``tables`` for the ``with`` block (see the module)."""
    if isinstance(wait_s, bool) or not isinstance(wait_s, (int, float)) or not wait_s >= 0:
        raise WorkbenchError(
            f"lease_wait_s must be a number of seconds ≥ 0 (0: refuse at once when another load "
            f"writes the table), got {wait_s!r}. Nothing was written."
        )
    lease = Lease(conn, tuple(dict.fromkeys(tables)), design=design, dataset=dataset, say=say)
    lease.acquire(float(wait_s))
    try:
        yield lease
    finally:
        lease.release()
