"""Default table IDs: one per dataset × design, whatever the dataset's name length.

Bigtable's table IDs hold at most 50 characters of ``[_a-zA-Z0-9][-_.a-zA-Z0-9]*``
(CreateTableRequest.table_id in google-cloud-bigtable's admin types). A default ID cut to fit
used to drop what told two designs of a long-named dataset apart: the second load was refused."""

from __future__ import annotations

import pandas as pd
import pytest

import workbench as wb
from workbench.bigtable import admin, ownership
from workbench.bigtable.io import load
from workbench.ui.emulator_tab import table_id_for

STEM = "weather_station_readings_of_the_north_sea_coast_2024_hourly_export"
LENGTHS = (20, 21, 27, 33, 34, 40, 41, 47, 60)


def _dataset(name: str):
    frame = pd.DataFrame(
        {
            "station": ["a", "b"] * 3,
            "time": pd.date_range("2024-01-01", periods=6, freq="h", tz="UTC"),
            "temp": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        }
    )
    return wb.from_dataframe(frame, name=name, entity=["station"], time="time", measures=["temp"])


def test_default_ids_are_unique_valid_and_leave_room_for_a_second_table():
    designs = wb.pattern_names(_dataset("x"))
    assert len(designs) >= 10  # several designs per name, two of them sharing 12 characters
    assert {"bucket_new_cells", "bucket_new_columns"} <= set(designs)
    pairs = [(STEM[:n], d) for n in LENGTHS for d in designs]
    for make in (
        admin.default_table_id,
        ownership.session_table_id,
        lambda ds, d: table_id_for(_dataset(ds), wb.preset(_dataset(ds), d)),
    ):
        ids = [make(ds, d) for ds, d in pairs]
        assert len(set(ids)) == len(pairs)  # one ID per dataset × design
        for table_id in ids:
            admin.check_table_id(table_id)
            # the longest second table of a preset, "<id>--by_time", must fit in 50 characters
            admin.check_table_id(f"{table_id}--by_time")
            assert len(table_id) <= 40
    # a name that fits is kept as it is; a long one keeps its readable head before the hash
    assert admin.default_table_id("fx_prices", "salted") == "fx_prices-salted"
    long_id = admin.default_table_id(STEM[:47], "entity_first")
    assert long_id.startswith(STEM[:33]) and len(long_id) == 40
    # the same names give the same ID (a rerun finds its table), a rewritten character does not
    # merge two names into one
    assert admin.default_table_id(STEM[:47], "salted") == admin.default_table_id(
        STEM[:47], "salted"
    )
    assert admin.default_table_id("my data", "salted") != admin.default_table_id(
        "my_data", "salted"
    )


@pytest.mark.parametrize("length", [24, 45])
def test_two_designs_of_a_long_named_csv_load_side_by_side(conn, tmp_path, length):
    """The issue's case: the second design of a long-named CSV was refused ("leave table_id
    unset", which it was). Both now load, each into a table of its own."""
    name = STEM[:length]
    path = tmp_path / f"{name}.csv"
    _dataset(name).frame.to_csv(path, index=False)
    ds = wb.from_csv(path, entity=["station"], time="time", measures=["temp"])
    assert ds.name == name
    handles = []
    try:
        for design in ("bucket_new_cells", "bucket_new_columns"):
            handles.append(load(conn, ds, wb.preset(ds, design), progress=False))
        first, second = handles
        assert first.table_id != second.table_id
        assert first.check_verified().equal and second.check_verified().equal
    finally:
        for h in handles:
            h.drop()
