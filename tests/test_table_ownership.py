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
