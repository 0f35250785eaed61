"""Whose table it is, against the real emulator with ``cbt count`` as the independent counter:
two kernels sharing one emulator keep their own tables through the other's ``wb.cleanup()``,
and a load into a table holding another design or dataset is refused before any mutation --
raced or not, whether the table's design record is there, deleted or damaged."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys

import pytest
from waits import HANG_S

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
        timeout=HANG_S,
    )
    return out.stdout.strip() if out.returncode == 0 else f"error: {out.stderr.strip()}"


def design_records(host: str, table: str) -> list[str]:
    """The table's design-record families (``_wb.<design>.<dataset>.<digest>``), as ``cbt ls``
    lists them: not the lease family ``_wb.lease`` every emulator table a load made has."""
    return [
        line.split()[0]
        for line in cbt_families(host, table).splitlines()
        if line.startswith("_wb.") and line.split()[0] != "_wb.lease"
    ]


def cbt_families(host: str, table: str) -> str:
    out = subprocess.run(
        [*CBT_ARGS, "ls", table],
        env={**os.environ, "BIGTABLE_EMULATOR_HOST": host},
        capture_output=True,
        text=True,
        timeout=HANG_S,
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
        timeout=HANG_S,
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

    # the same name and families, another key: the table's design record is another design's
    edited = dataclasses.replace(
        first, key=wb.RowKey((wb.Field("garden"), wb.ReversedTimestamp("s")))
    )
    with pytest.raises(wb.WriteError) as err:
        emu.load(ds, edited, table_id="occupied", progress=False)
    msg = str(err.value)
    assert "'occupied'" in msg and "design 'tall'" in msg and "other settings" in msg
    assert "Nothing was written" in msg
    assert f"BIGTABLE_EMULATOR_HOST={emu.host} cbt" in msg and "deletetable occupied" in msg
    assert "table_id='occupied-2'" in msg
    assert cbt_count(emu.host, "occupied") == "994"

    # other families: another design (its record names it)
    with pytest.raises(wb.WriteError, match=r"holds design 'tall'.*design 'month_rows'"):
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

    # append=True (adding one's own new data) still refuses another design
    with pytest.raises(wb.WriteError, match=r"holds design 'tall'.*another design"):
        emu.load(
            ds, wb.preset("garden_temperature", "month_rows"), table_id="occupied", append=True
        )
    assert cbt_count(emu.host, "occupied") == "994"

    # the same design and data again: a rerun writes in place
    again = emu.load(ds, first, table_id="occupied", progress=False)
    assert again.verification.equal and again.created == ()
    assert cbt_count(emu.host, "occupied") == "994"


RACER = """
import sys, time
import workbench as wb
ds = wb.load_dataset("weather_balloons", size="tiny")
design = wb.preset("weather_balloons", sys.argv[1])
emu = wb.Emulator()  # the one BIGTABLE_EMULATOR_HOST names
conn = emu.connection()
conn.list_tables()  # connected and imported before the start line
while time.time() < float(sys.argv[2]):
    time.sleep(0.001)
try:
    table = emu.load(ds, design, table_id=sys.argv[3], progress=False)
except wb.WriteError as exc:
    print("REFUSED", exc)
    sys.exit(3)
print("LOADED", table.verification.equal)
"""

# 1,131 events of weather_balloons "tiny", one row each in both designs (key location#balloon#s)
TINY_ROWS = "1131"


def cbt_lookup(host: str, table: str, row: str) -> str:
    out = subprocess.run(
        [*CBT_ARGS, "lookup", table, row],
        env={**os.environ, "BIGTABLE_EMULATOR_HOST": host},
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    return out.stdout


def cbt_run(host: str, *args: str) -> None:
    out = subprocess.run(
        [*CBT_ARGS, *args],
        env={**os.environ, "BIGTABLE_EMULATOR_HOST": host},
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert out.returncode == 0, out.stderr


def test_two_value_encodings_racing_into_one_table_id_exactly_one_writes(private_emulator):
    """serialized_json and serialized_protobuf have the same key and families and differ only in
    the value encoding. Two loaders started together on one table ID, three times over: each
    time exactly one writes and verifies, the other is refused before any write, and the
    table holds the winner's encoding only (its first row read with cbt)."""
    import time

    host = private_emulator.host
    env = {**os.environ, emu_mod.ENV_HOST: host}
    ds = wb.load_dataset("weather_balloons", size="tiny")
    first_key = wb.preset("weather_balloons", "serialized_json").to_cells(ds).frame["row_key"].min()
    for attempt in range(3):
        table_id = f"contested-{attempt}"
        start = f"{time.time() + 8:.3f}"  # both processes wait for the same instant
        procs = {
            name: subprocess.Popen(
                [sys.executable, "-c", RACER, name, start, table_id],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for name in ("serialized_json", "serialized_protobuf")
        }
        out = {name: p.communicate(timeout=HANG_S) for name, p in procs.items()}
        codes = {name: p.returncode for name, p in procs.items()}
        assert sorted(codes.values()) == [0, 3], out
        winner = next(n for n, c in codes.items() if c == 0)
        loser = next(n for n, c in codes.items() if c == 3)
        assert "LOADED True" in out[winner][0], out[winner]
        assert "Nothing was written" in out[loser][0], out[loser]
        assert f"table_id='{table_id}-2'" in out[loser][0]
        assert cbt_count(host, table_id) == TINY_ROWS
        # a JSON value names its fields; a protobuf one holds field numbers only
        value = cbt_lookup(host, table_id, first_key)
        assert ("pressure" in value) == (winner == "serialized_json"), value
        # only the winner's design record: the loser changed nothing
        families = cbt_families(host, table_id)
        assert f"_wb.{winner}." in families and f"_wb.{loser}." not in families


def test_another_value_encoding_into_a_table_is_refused_before_any_write(private_emulator):
    emu = private_emulator
    ds = wb.load_dataset("weather_balloons", size="tiny")
    emu.load(ds, wb.preset("weather_balloons", "serialized_json"), table_id="enc", progress=False)
    families_before = cbt_families(emu.host, "enc")
    for append in (False, True):
        with pytest.raises(wb.WriteError) as err:
            emu.load(
                ds,
                wb.preset("weather_balloons", "serialized_protobuf"),
                table_id="enc",
                progress=False,
                append=append,
            )
        msg = str(err.value)
        assert re.search(r"'serialized_json'.*'weather_balloons'.*'serialized_protobuf'", msg)
        assert "another design" in msg and "Nothing was written" in msg
        assert f"BIGTABLE_EMULATOR_HOST={emu.host} cbt" in msg and "deletetable enc" in msg
        assert cbt_count(emu.host, "enc") == TINY_ROWS
        assert cbt_families(emu.host, "enc") == families_before
    # a design differing only in a GC rule is another design too
    json = wb.preset("weather_balloons", "serialized_json")
    kept = dataclasses.replace(
        json,
        layout=dataclasses.replace(json.layout, family=wb.Family("m", gc=wb.max_versions(1))),
    )
    with pytest.raises(wb.WriteError, match="other settings"):
        emu.load(ds, kept, table_id="enc", progress=False)
    assert cbt_families(emu.host, "enc") == families_before


def test_a_deleted_design_record_never_lets_a_second_design_write(private_emulator):
    """The record deleted by hand (the way the registry table could be): another design --
    another key order with append=True, another value encoding -- is still refused before any
    write; the same design and data (a rerun) loads and records the table again."""
    emu = private_emulator
    ds = wb.load_dataset("weather_balloons", size="tiny")
    single = wb.preset("weather_balloons", "single_timestamp")
    emu.load(ds, single, table_id="bare", progress=False)
    [record] = design_records(emu.host, "bare")
    cbt_run(emu.host, "deletefamily", "bare", record)
    assert design_records(emu.host, "bare") == []
    for name, append in (("timestamp_first", True), ("serialized_json", False)):
        with pytest.raises(wb.WriteError) as err:
            emu.load(ds, wb.preset("weather_balloons", name), table_id="bare", append=append)
        msg = str(err.value)
        assert "no design record" in msg and "Nothing was written, created or changed" in msg
        assert "deletetable bare" in msg and "table_id='bare-2'" in msg
        assert cbt_count(emu.host, "bare") == TINY_ROWS
        assert design_records(emu.host, "bare") == []
    # appending, even of this design, cannot be allowed: who wrote the rows cannot be told
    with pytest.raises(wb.WriteError, match="appending to it"):
        emu.load(ds, single, table_id="bare", append=True, progress=False)
    again = emu.load(ds, single, table_id="bare", progress=False)
    assert again.verification.equal and cbt_count(emu.host, "bare") == TINY_ROWS
    assert record in cbt_families(emu.host, "bare")


def test_a_damaged_design_record_gets_a_true_message_and_a_way_out(private_emulator):
    emu = private_emulator
    ds = wb.load_dataset("weather_balloons", size="tiny")
    single = wb.preset("weather_balloons", "single_timestamp")
    emu.load(ds, single, table_id="damaged", progress=False)
    cbt_run(emu.host, "createfamily", "damaged", "_wb.garbled")
    families_before = cbt_families(emu.host, "damaged")
    with pytest.raises(wb.WriteError) as err:
        emu.load(ds, single, table_id="damaged", progress=False)
    msg = str(err.value)
    assert "damaged design record" in msg and "_wb.garbled" in msg
    assert "kept changing" not in msg
    assert "Nothing was written" in msg and "deletetable damaged" in msg
    assert cbt_count(emu.host, "damaged") == TINY_ROWS
    assert cbt_families(emu.host, "damaged") == families_before
    # the way out, as printed: another table ID loads
    other = emu.load(ds, single, table_id="damaged-2", progress=False)
    assert other.verification.equal and cbt_count(emu.host, "damaged-2") == TINY_ROWS


def test_a_created_but_unwritten_table_of_another_design_is_refused(private_emulator):
    """The gap rows cannot show: another loader created the table (with its record) but has not
    written yet, so the table is empty. The load is refused, 0 rows; the table's own design
    loads; dropping the table frees the ID for any design."""
    from workbench.bigtable import admin

    emu = private_emulator
    conn = emu.connection()
    ds = wb.load_dataset("garden_temperature", size="tiny")
    first = wb.preset("garden_temperature", "tall")
    other = dataclasses.replace(
        first, key=wb.RowKey((wb.Field("garden"), wb.ReversedTimestamp("s")))
    )
    bound = other.bind(ds)
    record = ownership.record_family(bound, ds.name)
    fams = {t: (*f, wb.Family(record)) for t, f in admin.table_families(bound).items()}
    admin.ensure_tables(conn, bound, "pending", families=fams)
    assert cbt_count(emu.host, "pending") == "0"
    with pytest.raises(wb.WriteError, match=r"'pending' .* holds design 'tall'") as err:
        emu.load(ds, first, table_id="pending", progress=False)
    assert "Nothing was written" in str(err.value)
    assert cbt_count(emu.host, "pending") == "0"
    table = emu.load(ds, other, table_id="pending", progress=False)
    assert table.verification.equal and cbt_count(emu.host, "pending") == "994"
    table.drop()  # the record goes with the table
    again = emu.load(ds, first, table_id="pending", progress=False)
    assert again.verification.equal and cbt_count(emu.host, "pending") == "994"


def test_a_load_into_a_real_instance_adds_no_design_record(private_emulator):
    """The record guards the emulator a lab shares; on a real instance the workbench adds no
    family the design does not name (the connection below is flagged as production)."""
    from workbench.bigtable.io import load

    conn = private_emulator.connection()
    # the same channels, flagged as a real instance, with clients of its own
    prod = dataclasses.replace(conn, is_production=True, _data=None, _admin=None)
    ds = wb.load_dataset("garden_temperature", size="tiny")
    load(prod, ds, wb.preset("garden_temperature", "tall"), table_id="prod-t", progress=False)
    assert cbt_count(private_emulator.host, "prod-t") == "994"
    assert "_wb." not in cbt_families(private_emulator.host, "prod-t")
    # without a record, the sampled rows' values tell two encodings apart: refused, unchanged
    balloons = wb.load_dataset("weather_balloons", size="tiny")
    load(prod, balloons, wb.preset("weather_balloons", "serialized_json"), table_id="prod-j")
    with pytest.raises(wb.WriteError, match=r"other values.*'serialized_protobuf'"):
        load(
            prod, balloons, wb.preset("weather_balloons", "serialized_protobuf"), table_id="prod-j"
        )
    assert cbt_count(private_emulator.host, "prod-j") == TINY_ROWS
    # the same load on the emulator records its design in the table
    private_emulator.load(ds, wb.preset("garden_temperature", "tall"), table_id="emu-t")
    assert "_wb.tall.garden_temperature." in cbt_families(private_emulator.host, "emu-t")


def test_a_loader_that_loses_the_create_race_changes_nothing(private_emulator, monkeypatch):
    """The interleaving a real race may or may not hit: this load checked the table ID absent,
    then another design's loader created it (with its record) before this load's CreateTable.
    The load is refused and leaves the table exactly as the other loader made it: no family
    added (not its record either), no row written."""
    from workbench.bigtable import admin

    emu = private_emulator
    conn = emu.connection()
    ds = wb.load_dataset("weather_balloons", size="tiny")
    theirs = wb.preset("weather_balloons", "serialized_json").bind(ds)
    record = ownership.record_family(theirs, ds.name)
    fams = {t: (*f, wb.Family(record)) for t, f in admin.table_families(theirs).items()}
    admin.ensure_tables(conn, theirs, "late", families=fams)
    families_before = cbt_families(emu.host, "late")
    monkeypatch.setattr(ownership, "check_existing", lambda *a, **k: set())  # checked: absent
    with pytest.raises(wb.WriteError) as err:
        emu.load(ds, wb.preset("weather_balloons", "serialized_protobuf"), table_id="late")
    msg = str(err.value)
    assert "another loader" in msg
    assert "Nothing was written" in msg and "table_id='late-2'" in msg
    assert cbt_families(emu.host, "late") == families_before
    assert cbt_count(emu.host, "late") == "0"
