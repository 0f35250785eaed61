"""Your own data never crashes a comparison: an unnamed text column is left out of the layouts
that cannot carry it (with a note), and a design that cannot be built is a row with its reason."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from vega_datasets import local_data

import workbench as wb
from workbench.errors import WorkbenchError

pytestmark = pytest.mark.slow  # every design of real files compared

F = Path(__file__).parents[1] / "fixtures" / "owndata"


def seattle_weather():
    # vega_datasets' seattle-weather.csv: date, four numbers, and a text column 'weather'
    # ("rain", "sun", ...) that the user does not name
    return wb.from_csv(
        local_data.seattle_weather.filepath,
        time="date",
        measures=["precipitation", "temp_max", "temp_min", "wind"],
        naive_tz="UTC",
    )


def test_seattle_weather_compares_every_design_with_the_unnamed_text_column():
    ds = seattle_weather()
    assert ds.attributes == ["weather"]  # the column the user did not name
    c = wb.compare(ds, wb.presets(ds))
    assert not c.not_built
    assert list(c.table.index) == wb.pattern_names(ds)
    # value-in-the-qualifier layouts hold one measure per cell and nothing beside the key:
    # new columns (G12), short-and-wide rows (G10) and Heroic's offsets (G16)
    noted = {d for d, n in c.table["note"].items() if n}
    assert noted == {"bucket_new_columns", "wide_rows", "heroic"}
    assert all("'weather' left out" in c.table.loc[d, "note"] for d in noted)
    # the others keep it: entity_first's cells hold the weather text of the first day
    cells = wb.preset(ds, "entity_first").to_cells(ds).frame
    first = cells[cells["row_key"] == cells["row_key"].min()]
    assert b"drizzle" in set(first["value"])  # 2012/01/01,0.0,12.8,5.0,4.7,drizzle
    # every design ranked on every criterion
    assert (c.rankings["ranking"] != "—").all()


def test_a_design_that_cannot_be_built_is_a_row_with_its_reason():
    ds = wb.load_dataset("fx_prices", size="workshop")
    c = wb.compare(ds, wb.presets(ds))
    # second precision: several quotes of a pair in one second map to one cell (G31)
    assert set(c.not_built) == {"second_precision"}
    assert "collide" in c.not_built["second_precision"]
    row = c.table.loc["second_precision"]
    assert row["verdict"].startswith("not built: ") and "collide" in row["verdict"]
    assert pd.isna(row["hotspot_factor"])
    built = [d for d in c.table.index if d != "second_precision"]
    assert len(built) == len(wb.pattern_names(ds)) - 1
    assert not c.rankings["ranking"].str.contains("second_precision").any()
    c._repr_html_()  # the not-built row shows, as n/a in the figure


def test_no_design_built_is_one_clear_error():
    ds = wb.load_dataset("fx_prices", size="workshop")
    with pytest.raises(WorkbenchError, match="No design could be built.*second_precision.*collide"):
        wb.compare(ds, [wb.preset("fx_prices", "second_precision")])


def _readme_csvs():
    return {
        # the README's own-data example, with its queries
        "stocks (README)": wb.from_csv(
            local_data.stocks.filepath,
            entity="symbol",
            time="date",
            measures="price",
            naive_tz="UTC",
            queries=["latest 1 per symbol", "symbol=IBM over 365 days", "all at 2005-01-01"],
        ),
        "seattle_temps": wb.from_csv(
            F / "seattle_temps.csv", time="date", measures="temp", naive_tz="UTC"
        ),
        "co2": wb.from_csv(F / "co2.csv", time="date", measures="co2"),
        "grunfeld": wb.from_csv(F / "grunfeld.csv", entity="firm", time="year", measures="invest"),
        "seattle_weather": seattle_weather(),
    }


@pytest.mark.parametrize("name", list(_readme_csvs()))
def test_every_csv_the_readme_shows_compares_its_whole_gallery(name):
    ds = _readme_csvs()[name]
    c = wb.compare(ds, wb.presets(ds))
    assert list(c.table.index) == wb.pattern_names(ds)
    # whatever could not be built says why, in its row; the rest are ranked
    for d, why in c.not_built.items():
        assert why and c.table.loc[d, "verdict"].startswith("not built")
    assert len(c.analyses) + len(c.not_built) == len(c.table)
    assert len(c.analyses) >= 1
