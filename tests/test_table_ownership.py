"""Whose table it is, against the real emulator with ``cbt count`` as the independent counter:
two kernels sharing one emulator keep their own tables through the other's ``wb.cleanup()``,
and a load into a table holding another design or dataset is refused before any mutation."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import pytest

import workbench as wb
from workbench.bigtable import emulator as emu_mod
from workbench.bigtable import ownership

pytestmark = pytest.mark.slow  # two kernels, loads refused and cleaned up

CBT_ARGS = ["cbt", "-project", "workbench", "-instance", "workbench"]


def cbt_count(host: str, table: str) -> str:
    out = subprocess.run(
        [*CBT_ARGS, "count", table],
        env={**os.environ, "BIGTABLE_EMULATOR_HOST": host},
        capture_output=True,
        text=True,
        timeout=60,
    )
    return out.stdout.strip() if out.returncode == 0 else f"error: {out.stderr.strip()}"


def cbt_families(host: str, table: str) -> str:
    out = subprocess.run(
        [*CBT_ARGS, "ls", table],
        env={**os.environ, "BIGTABLE_EMULATOR_HOST": host},
        capture_output=True,
        text=True,
        timeout=60,
    )
    return out.stdout


@pytest.fixture
def private_emulator(monkeypatch):
    """A private emulator both "kernels" of a test share, as `make lab` shares one."""
    emu = wb.Emulator(reuse=False).start()
    from workbench import session

    monkeypatch.setattr(session, "SESSION", session.Session())
    monkeypatch.setenv(emu_mod.ENV_HOST, emu.host)
    try:
        yield emu
    finally:
        session.SESSION.cleanup()
        emu.stop()


OTHER_KERNEL = """
import workbench as wb
wb.setup()
ds = wb.load_dataset("garden_temperature", size="tiny")
table = wb.emulator().load(ds, wb.preset("garden_temperature", "tall"), progress=False)
print(table.table_id)
"""


def test_two_kernels_with_one_design_keep_both_tables_through_one_cleanup(private_emulator):
    host = private_emulator.host
    # kernel B: another process on the same emulator, loading the same dataset and design
    other = subprocess.run(
        [sys.executable, "-c", OTHER_KERNEL],
        env={**os.environ, emu_mod.ENV_HOST: host},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert other.returncode == 0, other.stderr
    theirs = other.stdout.strip().splitlines()[-1]
    # kernel A: this process
    wb.setup()
    ds = wb.load_dataset("garden_temperature", size="tiny")
    mine = wb.emulator().load(ds, wb.preset("garden_temperature", "tall"), progress=False)
    assert mine.table_id != theirs
    assert mine.table_id.endswith(ownership.SESSION_TAG) and theirs.startswith(
        "garden_temperature-tall-"
    )
    # A also writes into B's table by its explicit ID (same design and data: a rerun is allowed)
    wb.emulator().load(ds, wb.preset("garden_temperature", "tall"), table_id=theirs, progress=False)
    # 994 events, one row each (the tall design: a row per garden and reading)
    assert cbt_count(host, mine.table_id) == "994"
    assert cbt_count(host, theirs) == "994"
    dropped = wb.cleanup()
    assert list(dropped) == [mine.table_id]  # not B's table, though A wrote into it
    assert cbt_count(host, theirs) == "994"
    assert "not found" in cbt_count(host, mine.table_id).lower()


def test_a_second_design_into_an_occupied_table_id_is_refused_before_any_mutation(
    private_emulator,
):
    emu = private_emulator
    ds = wb.load_dataset("garden_temperature", size="tiny")
    first = wb.preset("garden_temperature", "tall")
    emu.load(ds, first, table_id="occupied", progress=False)
    assert cbt_count(emu.host, "occupied") == "994"
    families_before = cbt_families(emu.host, "occupied")

    # the same families, another key: a sampled row is not one this load writes
    edited = dataclasses.replace(
        first, key=wb.RowKey((wb.Field("garden"), wb.ReversedTimestamp("s")))
    )
    with pytest.raises(wb.WriteError) as err:
        emu.load(ds, edited, table_id="occupied", progress=False)
    msg = str(err.value)
    assert "'occupied' already exists" in msg and "holds row" in msg
    assert "another design or dataset" in msg and "Nothing was written" in msg
    assert f"BIGTABLE_EMULATOR_HOST={emu.host} cbt" in msg and "deletetable occupied" in msg
    assert "table_id='occupied-2'" in msg
    assert cbt_count(emu.host, "occupied") == "994"

    # other families: refused on the families alone
    with pytest.raises(wb.WriteError, match=r"with column families \['t'\].*holds another design"):
        emu.load(ds, wb.preset("garden_temperature", "month_rows"), table_id="occupied")
    assert cbt_count(emu.host, "occupied") == "994"
    assert cbt_families(emu.host, "occupied") == families_before

    # the same design, another dataset (a part of it): rows after its last key are not its own
    part = wb.from_dataframe(
        ds.frame.iloc[: len(ds.frame) // 2],
        entity=ds.entity,
        time=ds.time,
        measures=ds.measures,
        name=ds.name,
    )
    with pytest.raises(wb.WriteError, match=r"holds row .* does not write"):
        emu.load(part, first, table_id="occupied", progress=False)
    assert cbt_count(emu.host, "occupied") == "994"

    # append=True (adding one's own new data) still refuses another design's families
    with pytest.raises(wb.WriteError, match=r"with column families \['t'\].*holds another design"):
        emu.load(
            ds, wb.preset("garden_temperature", "month_rows"), table_id="occupied", append=True
        )
    assert cbt_count(emu.host, "occupied") == "994"

    # the same design and data again: a rerun writes in place
    again = emu.load(ds, first, table_id="occupied", progress=False)
    assert again.verification.equal and again.created == ()
    assert cbt_count(emu.host, "occupied") == "994"


RACER = """
import dataclasses, sys, time
import workbench as wb
ds = wb.load_dataset("garden_temperature", size="tiny")
design = wb.preset("garden_temperature", "tall")
if sys.argv[1] == "reversed":  # the same families, another row key
    design = dataclasses.replace(
        design, key=wb.RowKey((wb.Field("garden"), wb.ReversedTimestamp("s")))
    )
emu = wb.Emulator()  # the one BIGTABLE_EMULATOR_HOST names
conn = emu.connection()
conn.list_tables()  # connected and imported before the start line
while time.time() < float(sys.argv[2]):
    time.sleep(0.001)
try:
    table = emu.load(ds, design, table_id="contested", progress=False)
except wb.WriteError as exc:
    print("REFUSED", exc)
    sys.exit(3)
print("LOADED", table.verification.equal)
"""


def test_two_designs_racing_into_one_table_id_exactly_one_writes(private_emulator):
    """Two loaders of designs with the same families, started together on one explicit table
    ID: the atomic claim lets exactly one write; the other is refused and writes nothing."""
    import time

    host = private_emulator.host
    start = f"{time.time() + 8:.3f}"  # both processes wait for the same instant
    env = {**os.environ, emu_mod.ENV_HOST: host}
    procs = {
        name: subprocess.Popen(
            [sys.executable, "-c", RACER, name, start],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("tall", "reversed")
    }
    out = {name: p.communicate(timeout=240) for name, p in procs.items()}
    codes = {name: p.returncode for name, p in procs.items()}
    assert sorted(codes.values()) == [0, 3], out
    winner = next(n for n, c in codes.items() if c == 0)
    loser = next(n for n, c in codes.items() if c == 3)
    assert "LOADED True" in out[winner][0], out[winner]
    refusal = out[loser][0]
    assert "Nothing was written" in refusal, refusal
    # the winner's verification read every row back and found exactly its own cells;
    # the independent count agrees: one design's 994 rows, not two designs' mixed
    assert cbt_count(host, "contested") == "994"
    # the registry table is the workbench's own: not among the user's tables
    assert "workbench-owners" not in private_emulator.connection().list_tables()


def test_a_created_but_unwritten_table_claimed_by_another_design_is_refused(private_emulator):
    """The gap the families-and-rows check cannot see: another loader created the table and
    claimed it but has not written yet (the table is empty). The load is refused, 0 rows."""
    from workbench.bigtable import admin, claims

    emu = private_emulator
    conn = emu.connection()
    ds = wb.load_dataset("garden_temperature", size="tiny")
    first = wb.preset("garden_temperature", "tall")
    other = dataclasses.replace(
        first, key=wb.RowKey((wb.Field("garden"), wb.ReversedTimestamp("s")))
    )
    bound = other.bind(ds)
    admin.ensure_tables(conn, bound, "pending")
    claims.claim(
        conn,
        "pending",
        dataset=ds.name,
        design=claims.fingerprint(bound, admin.table_families(bound)),
        session="elsewhere",
        design_name="reversed",
    )
    assert cbt_count(emu.host, "pending") == "0"
    with pytest.raises(wb.WriteError, match=r"'pending' .* is claimed by another load") as err:
        emu.load(ds, first, table_id="pending", progress=False)
    msg = str(err.value)
    assert "kernel elsewhere" in msg and "Nothing was written" in msg
    assert "deleterow workbench-owners pending" in msg
    assert cbt_count(emu.host, "pending") == "0"
    # the design that holds the claim loads (from this kernel too: a rerun elsewhere is allowed)
    table = emu.load(ds, other, table_id="pending", progress=False)
    assert table.verification.equal and cbt_count(emu.host, "pending") == "994"
    # dropping the table releases its claim: the ID is free for another design
    table.drop()
    assert claims.read_claim(conn, "pending") is None
    wb.setup()  # this kernel's session, on the same emulator
    again = wb.emulator().load(ds, first, table_id="pending", progress=False)
    assert again.verification.equal and cbt_count(emu.host, "pending") == "994"
    assert claims.read_claim(conn, "pending")["session"] == ownership.SESSION_TAG
    # cleanup drops this kernel's tables and releases its claims with them
    assert list(wb.cleanup()) == ["pending"]
    assert claims.read_claim(conn, "pending") is None
    assert conn.list_tables() == [] and "workbench-owners" in conn.list_tables(hidden=True)


def test_a_load_into_a_real_instance_creates_no_registry_table(private_emulator):
    """Claims guard the emulator a lab shares; on a real instance the workbench creates no
    table the user did not ask for (the connection below is flagged as production)."""
    from workbench.bigtable.connection import OWNERS_TABLE
    from workbench.bigtable.io import load

    conn = private_emulator.connection()
    # the same channels, flagged as a real instance, with clients of its own
    prod = dataclasses.replace(conn, is_production=True, _data=None, _admin=None)
    ds = wb.load_dataset("garden_temperature", size="tiny")
    load(prod, ds, wb.preset("garden_temperature", "tall"), table_id="prod-t", progress=False)
    assert cbt_count(private_emulator.host, "prod-t") == "994"
    assert OWNERS_TABLE not in conn.list_tables(hidden=True)
    # the same load on the emulator claims its table in the registry
    private_emulator.load(ds, wb.preset("garden_temperature", "tall"), table_id="emu-t")
    assert OWNERS_TABLE in conn.list_tables(hidden=True)
