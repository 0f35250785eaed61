"""A load that would change an existing table's GC rule on a real instance needs confirm=, like a
delete, and says old rule → new rule. Production cannot be reached from the test machine, so the
production path runs on a Connection flagged as production whose channel is the emulator's: every
decision is the production one, every request lands on the emulator."""

from __future__ import annotations

import subprocess

import grpc
import pytest
from waits import HANG_S

from workbench.bigtable import admin
from workbench.bigtable.connection import Connection
from workbench.errors import ConfirmationRequired, WriteError
from workbench.schema.families import Family, max_age


class _Calls(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    """The RPCs sent through a channel, by method name, every attempt (retries included)."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def _note(self, continuation, details, request):
        self.sent.append(details.method.rsplit("/", 1)[-1])
        return continuation(details, request)

    intercept_unary_unary = _note
    intercept_unary_stream = _note


def _as_production(conn: Connection, calls: _Calls | None = None) -> Connection:
    """``conn`` flagged as production; with ``calls``, every RPC it sends is recorded there."""
    data, admin_ch = conn.channel, conn.admin_channel
    if calls is not None:
        data, admin_ch = (
            grpc.intercept_channel(data, calls),
            grpc.intercept_channel(admin_ch, calls),
        )
    return Connection(
        project=conn.project,
        instance=conn.instance,
        host=conn.host,
        is_production=True,
        timeout=conn.timeout,
        channel=data,
        admin_channel=admin_ch,
    )


def _rule(conn, table_id, family="m"):
    return admin.describe_gc_pb(admin.get_families(conn, table_id)[family].gc_rule)


def _cbt_count(host, table):
    out = subprocess.run(
        ["cbt", "-project", "workbench", "-instance", "workbench", "count", table],
        env={"BIGTABLE_EMULATOR_HOST": host, "PATH": "/usr/bin:/bin:/usr/local/bin"},
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    return out.stdout.strip()


def test_production_gc_change_needs_confirmation_and_names_old_and_new(conn, table_factory):
    tid = table_factory([Family("m")])  # no GC rule
    calls = _Calls()
    prod = _as_production(conn, calls)
    with pytest.raises(ConfirmationRequired) as ei:
        admin.ensure_table(prod, tid, [Family("m", gc=max_age("1D"))])
    assert calls.sent == ["GetTable"]  # one read of the table, no retries, no change sent
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


def test_production_load_that_would_change_retention_asks_first_and_writes_nothing(emulator):
    # The reproduction through `load`: a design with max_age("1D") loaded into an
    # existing production table whose family "r" has no GC rule.
    import dataclasses

    import pandas as pd

    import workbench as wb
    from workbench.bigtable.io import load
    from workbench.schema.families import max_age

    df = pd.DataFrame(
        {
            "meter_id": [1, 2] * 10,
            "time": pd.date_range("2024-01-01", periods=20, freq="1min", tz="UTC"),
            "kwh": 1.0,
            "voltage": 230.0,
        }
    )
    ds = wb.from_dataframe(df, entity=["meter_id"], time="time", measures=["kwh", "voltage"])
    keep_all = wb.preset("energy_meters", "sequential_id")  # family "r", no GC rule
    emulator.load(ds, keep_all, table_id="gc-prod", progress=False)
    assert _cbt_count(emulator.host, "gc-prod") == "20"  # 20 events → 20 rows
    one_day = dataclasses.replace(
        keep_all, layout=dataclasses.replace(keep_all.layout, family=Family("r", gc=max_age("1D")))
    )
    calls = _Calls()
    prod = _as_production(emulator.connection(), calls)
    later = ds.frame.assign(time=ds.frame["time"] + pd.Timedelta("1D"))  # 20 more rows
    ds2 = wb.from_dataframe(later, entity=["meter_id"], time="time", measures=["kwh", "voltage"])
    # the next day's readings into one's own table: without append=True the load is refused
    # (the table holds rows it does not write), and the refusal says how to add to it
    with pytest.raises(WriteError, match=r"pass append=True") as refused:
        load(prod, ds2, keep_all, table_id="gc-prod", progress=False, verify=False)
    assert "Nothing was written" in str(refused.value)
    assert _cbt_count(emulator.host, "gc-prod") == "20"
    calls.sent.clear()
    with pytest.raises(ConfirmationRequired) as ei:
        load(prod, ds2, one_day, table_id="gc-prod", progress=False, verify=False, append=True)
    # refused before any change or write: no ModifyColumnFamilies, no MutateRows
    assert "GetTable" in calls.sent, calls.sent
    assert not {"ModifyColumnFamilies", "MutateRows", "MutateRow"} & set(calls.sent), calls.sent
    msg = str(ei.value)
    assert (
        "confirm='gc-prod'" in msg
        and "family 'r': no GC rule (keep every cell) → max age 1 day" in msg
    )
    assert _rule(emulator.connection(), "gc-prod", "r") == "no GC rule (keep every cell)"
    assert _cbt_count(emulator.host, "gc-prod") == "20"  # none of the 20 new rows was written
    emulator.connection().admin.delete_table(name=emulator.connection().table_path("gc-prod"))
