"""A load that would change an existing table's GC rule on a real instance needs confirm=, like a
delete, and says old rule → new rule. Production cannot be reached from the test machine, so the
production path runs on a Connection flagged as production whose channel is the emulator's: every
decision is the production one, every request lands on the emulator."""

from __future__ import annotations

import subprocess
import time

import pytest

from workbench.bigtable import admin
from workbench.bigtable.connection import Connection
from workbench.errors import ConfirmationRequired
from workbench.schema.families import Family, max_age


def _as_production(conn: Connection) -> Connection:
    return Connection(
        project=conn.project,
        instance=conn.instance,
        host=conn.host,
        is_production=True,
        timeout=conn.timeout,
        channel=conn.channel,
        admin_channel=conn.admin_channel,
    )


def _rule(conn, table_id, family="m"):
    return admin.describe_gc_pb(admin.get_families(conn, table_id)[family].gc_rule)


def _cbt_count(host, table):
    out = subprocess.run(
        ["cbt", "-project", "workbench", "-instance", "workbench", "count", table],
        env={"BIGTABLE_EMULATOR_HOST": host, "PATH": "/usr/bin:/bin:/usr/local/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    return out.stdout.strip()


def test_production_gc_change_needs_confirmation_and_names_old_and_new(conn, table_factory):
    tid = table_factory([Family("m")])  # no GC rule
    prod = _as_production(conn)
    t = time.monotonic()
    with pytest.raises(ConfirmationRequired) as ei:
        admin.ensure_table(prod, tid, [Family("m", gc=max_age("1D"))])
    assert time.monotonic() - t < 2  # one GetTable, no retries
    msg = str(ei.value)
    assert f"confirm={tid!r}" in msg and "Nothing was changed" in msg
    assert "family 'm': no GC rule (keep every cell) → max age 1 day" in msg
    assert _rule(conn, tid) == "no GC rule (keep every cell)"  # unchanged on the server
    assert _cbt_count(conn.host, tid) == "0"
    # With the table's ID repeated, the change is made.
    spec = admin.ensure_table(prod, tid, [Family("m", gc=max_age("1D"))], confirm=tid)
    assert spec.updated == ("m",) and _rule(conn, tid) == "max age 1 day"


def test_emulator_gc_change_needs_no_confirmation(conn, table_factory):
    tid = table_factory([Family("m")])
    spec = admin.ensure_table(conn, tid, [Family("m", gc=max_age("1D"))])
    assert spec.updated == ("m",) and _rule(conn, tid) == "max age 1 day"


def test_same_rule_needs_no_confirmation_on_production(conn, table_factory):
    tid = table_factory([Family("m", gc=max_age("1D"))])
    spec = admin.ensure_table(_as_production(conn), tid, [Family("m", gc=max_age("1D"))])
    assert spec.updated == () and spec.added == ()
