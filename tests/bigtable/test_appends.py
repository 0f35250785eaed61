"""Loads into a table that holds data already, on the real emulator with ``cbt`` as the
independent reader: ``append=True`` keeps every summary row true, says which stored events it
overwrote, verifies what *this* load wrote, and never advises dropping the earlier data."""

from __future__ import annotations

import os
import re
import subprocess
import uuid

import pandas as pd
import pytest
from waits import HANG_S

import workbench as wb
from workbench.bigtable import admin

pytestmark = pytest.mark.slow  # workshop-size loads on the emulator


def _cbt(emulator, *args: str) -> str:
    out = subprocess.run(
        ["cbt", "-project", emulator.project, "-instance", emulator.instance, *args],
        env={**os.environ, "BIGTABLE_EMULATOR_HOST": emulator.host},
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def _lookup(emulator, table: str, row: str) -> dict[str, str]:
    """``cbt lookup``: qualifier → the value text cbt prints (one version per column)."""
    lines = _cbt(emulator, "lookup", table, row).splitlines()
    out = {}
    for i, line in enumerate(lines):  # "  s:kwh_count   @ <time>" then '    "4"'
        if line.startswith("  ") and not line.startswith("    ") and ":" in line:
            out[line.split()[0].split(":", 1)[1]] = lines[i + 1].strip().strip('"')
    return out


@pytest.fixture
def table_id(emulator):
    tid = f"append-{uuid.uuid4().hex[:8]}"
    yield tid
    admin.drop_table(emulator.connection(), tid)


def _part(ds: wb.Dataset, rows: pd.Series) -> wb.Dataset:
    return wb.from_dataframe(
        ds.frame[rows], entity=ds.entity, time=ds.time, measures=ds.measures, name=ds.name
    )


def test_an_append_into_stored_hours_keeps_every_summary_row_true(emulator, table_id):
    """energy_meters with hourly summary rows, loaded up to 2015-03-06 00:30 and then appended
    the rest: the hour 00:00-01:00 of that day is split between the two loads. Every summary
    row ends as a load of all the data at once writes it (a rerun of the append too)."""
    ds = wb.load_dataset("energy_meters")
    design = wb.preset("energy_meters", "hourly_aggregates")
    cut = pd.Timestamp("2015-03-06 00:30", tz="UTC")
    emulator.load(_part(ds, ds.frame["time"] < cut), design, table_id=table_id, progress=False)
    rest = _part(ds, ds.frame["time"] >= cut)
    table = emulator.load(rest, design, table_id=table_id, progress=False, append=True)
    assert table.verification.equal, table.verification.summary()

    # hand-derived truth for meter 100001, hour 00 of 2015-03-06: its 15-minute readings there
    f = ds.frame
    hour = f[
        (f["meter_id"] == 100001)
        & (f["time"] >= pd.Timestamp("2015-03-06 00:00", tz="UTC"))
        & (f["time"] < pd.Timestamp("2015-03-06 01:00", tz="UTC"))
    ]
    assert len(hour) == 4 and (hour["time"] < cut).sum() == 2  # split 2 + 2 between the loads
    got = _lookup(emulator, table_id, "agg#hourly#00100001#2015030600")
    assert got["kwh_count"] == "4"
    assert float(got["kwh_sum"]) == pytest.approx(hour["kwh"].sum(), abs=1e-12)
    assert float(got["kwh_sum"]) == pytest.approx(0.448, abs=1e-9)
    assert float(got["voltage_min"]) == hour["voltage"].min()
    assert float(got["voltage_max"]) == hour["voltage"].max()

    # every summary row as the whole data loaded at once writes it
    whole = design.bind(ds).to_cells(ds).frame
    want = whole[whole["row_key"].str.startswith("agg#")]
    stored = table.read_all().frame
    stored = stored[stored["row_key"].str.startswith("agg#")]
    assert wb.CellFrame(stored.reset_index(drop=True)).equals(
        wb.CellFrame(want.reset_index(drop=True))
    )
    split_hours = want["row_key"].str.endswith("2015030600").sum() // 10  # 10 stats per row
    assert any(
        re.search(rf"\b{split_hours:,} summary row\(s\) .*recomputed", n) for n in table.notes
    )

    # appending the same events again changes no summary row and overwrites them with themselves
    again = emulator.load(rest, design, table_id=table_id, progress=False, append=True)
    assert again.verification.equal
    # only the split hours hold events of the other load: the rest keep this load's summary
    assert any(
        re.search(rf"\b{split_hours:,} summary row\(s\) .*recomputed", n) for n in again.notes
    )
    assert again.overwritten.events == len(rest.frame) and again.overwritten.changed == 0
    stored = again.read_all().frame
    stored = stored[stored["row_key"].str.startswith("agg#")]
    assert wb.CellFrame(stored.reset_index(drop=True)).equals(
        wb.CellFrame(want.reset_index(drop=True))
    )


def test_appending_another_seed_reports_the_events_it_overwrites_and_verifies(emulator, table_id):
    """weather_balloons seed 0, then seed 7 appended: the two share some (location, balloon,
    time) events; the load counts them, says how many get other values, and its verification
    reads what it wrote (the first load's other rows are not its to compare)."""
    first = wb.load_dataset("weather_balloons")
    second = wb.load_dataset("weather_balloons", seed=7)
    design = wb.preset("weather_balloons", "single_timestamp")
    keys = [*first.entity, first.time]
    # derived independently: the events both seeds hold, and those whose measures differ
    shared = first.frame.merge(second.frame, on=keys, suffixes=("_0", "_7"))
    differ = sum(
        (shared[f"{m}_0"] != shared[f"{m}_7"])
        & ~(shared[f"{m}_0"].isna() & shared[f"{m}_7"].isna())
        for m in first.measures
    ).astype(bool)
    assert len(shared) == 641  # the figure the issue reports, from the data alone

    emulator.load(first, design, table_id=table_id, progress=False)
    # without append=True the load is refused: the table holds earlier data of this design
    with pytest.raises(wb.WriteError, match=r"earlier data.*append=True"):
        emulator.load(second, design, table_id=table_id, progress=False)
    union = len(pd.concat([first.frame[keys], second.frame[keys]]).drop_duplicates())
    assert _cbt(emulator, "count", table_id).strip() == str(len(first.frame))

    table = emulator.load(second, design, table_id=table_id, progress=False, append=True)
    assert table.overwritten.events == len(shared)
    assert table.overwritten.changed == int(differ.sum())
    assert any(re.search(rf"wrote {len(shared):,} events over", n) for n in table.notes)
    rep = table.verification
    assert rep.equal and rep.cells_written == rep.cells_read == len(table.cells)
    assert _cbt(emulator, "count", table_id).strip() == str(union)  # one row per event

    # a query reads the table (both loads' events); it is checked on this load's events, and a
    # latest read, whose truth depends on the earlier events too, is not compared
    hour = second.query("balloon_hour")
    both = pd.concat([second.frame, first.frame]).drop_duplicates(keys)  # seed 7 overwrote
    window = both[hour.matches(both, first.time)]
    run = table.run(hour)
    assert run.correct is True and len(run.answer) == len(window)
    assert len(window) > (hour.matches(second.frame, first.time)).sum()  # earlier events too
    latest = table.run("latest_reading")
    assert latest.correct is None and any("not compared" in n for n in latest.result.notes)


def test_a_failed_verification_after_an_append_never_advises_dropping_the_table(emulator, table_id):
    """A cell this load wrote, changed behind its back (``cbt set``) before the check: the
    verification fails, names what differs, and tells the user not to drop the table, which
    holds the earlier load's data too."""
    ds = wb.load_dataset("weather_balloons", size="tiny")
    design = wb.preset("weather_balloons", "single_timestamp")
    early = ds.frame["time"] < ds.frame["time"].quantile(0.5)
    emulator.load(_part(ds, early), design, table_id=table_id, progress=False)
    later = _part(ds, ~early)
    table = emulator.load(
        later, design, table_id=table_id, progress=False, append=True, verify=False
    )
    cell = table.cells.frame.sort_values("row_key").iloc[0]
    _cbt(
        emulator,
        "set",
        table_id,
        cell["row_key"],
        f"{cell['family']}:{cell['qualifier']}=-1@{int(cell['timestamp_us'])}",
    )
    with pytest.raises(wb.WriteError) as err:
        table.check_verified()
    msg = str(err.value)
    assert "1 changed" in msg and "do not drop" in msg
    assert "Drop it" not in msg and "table.drop()" not in msg
    assert _cbt(emulator, "count", table_id).strip() == str(len(ds.frame))
