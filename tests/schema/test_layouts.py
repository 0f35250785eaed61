"""The single-row layouts' building blocks on hand-made data: the cell parts a layout collects,
a text measure with a missing value (no cell, or the stated ``missing=`` text) and what each
layout says it stores. Expected values by hand (a sampled mutation run found them unchecked,
docs/architecture.md "Mutation testing")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.datasets.model import Dataset
from workbench.errors import SchemaError
from workbench.schema import Family, Field, Metric, RowKey, Schema, Tall, TimeBucket, Timestamp
from workbench.schema.layouts import CellParts, NewColumns, Taken

T0 = pd.Timestamp("2024-01-01", tz="UTC")
TALL_KEY = RowKey((Field("s"), Timestamp("second")))


def _labels(labels: list) -> Dataset:
    """One series ``a``, an event a second from 2024-01-01 00:00:00, a text measure."""
    f = pd.DataFrame(
        {
            "s": ["a"] * len(labels),
            "time": [T0 + pd.Timedelta(seconds=i) for i in range(len(labels))],
            "label": labels,
        }
    )
    f["time"] = f["time"].astype("datetime64[us, UTC]")
    return Dataset(name="hand", frame=f, entity=["s"], time="time", measures=["label"])


def test_a_text_measure_missing_a_value_stores_no_cell_or_the_missing_text():
    ds = _labels(["up", None, "down"])
    # the default: Bigtable is sparse, the missing event at 00:00:01 writes no cell
    plain = Schema("h", TALL_KEY, Tall(Family("m"))).bind(ds).to_cells(ds).frame
    assert list(zip(plain["row_key"], plain["value"], strict=True)) == [
        ("a#20240101000000", b"up"),
        ("a#20240101000002", b"down"),
    ]
    # missing="NA": the event keeps its cell, holding the two bytes "NA"
    marked = Schema("h", TALL_KEY, Tall(Family("m")), missing="NA").bind(ds).to_cells(ds).frame
    assert list(marked["value"]) == [b"up", b"NA", b"down"]


def test_a_present_value_equal_to_the_missing_text_is_refused_naming_the_column():
    # "NA" as a value would read back as missing: refused, with the column named
    ds = _labels(["NA", None])
    with pytest.raises(SchemaError, match="Column 'label' holds the value 'NA'"):
        Schema("h", TALL_KEY, Tall(Family("m")), missing="NA").bind(ds).to_cells(ds)


def test_new_columns_write_the_missing_text_as_the_qualifier():
    # G12: the value is the qualifier (an empty cell value); the missing event's qualifier is "NA"
    ds = _labels(["up", None, "down"])
    key = RowKey((Field("s"), Metric(), TimeBucket("hour")))
    design = Schema("h", key, NewColumns(Family("m")), missing="NA").bind(ds)
    f = design.to_cells(ds).frame
    assert list(f["qualifier"]) == ["up", "NA", "down"]
    assert set(f["row_key"]) == {"a#label#2024010100"} and set(f["value"]) == {b""}
    with pytest.raises(SchemaError, match="'label'"):
        design.to_cells(_labels(["NA", None]))


def test_a_layout_given_a_family_name_holds_the_family():
    assert Tall("m").family == Family("m") == Tall(Family("m")).family


def test_no_cell_parts_make_an_empty_frame_with_or_without_the_event_column():
    parts = CellParts()
    events = parts.events()
    assert events.shape == (0,) and events.dtype == np.int64
    cols = ["table", "row_key", "family", "qualifier", "timestamp_us", "value"]
    assert list(parts.frame("t").columns) == [*cols, "_event"]
    assert list(parts.frame("t", events=False).columns) == cols


def test_taken_texts_are_the_texts_at_the_codes():
    # codes 1, 0, 1 into (x, y): y, x, y, whatever dtype numpy asks for
    taken = Taken(np.array([b"x", b"y"], dtype=object), np.array([1, 0, 1]))
    assert np.asarray(taken).tolist() == [b"y", b"x", b"y"]
    as_object = np.asarray(taken, dtype=object)
    assert as_object.dtype == object and as_object.tolist() == [b"y", b"x", b"y"]
    assert np.asarray(taken, dtype="S1").tolist() == [b"y", b"x", b"y"]


def test_a_tall_layout_lists_each_measures_qualifier():
    # G01: short qualifiers, each named next to its column
    text = Tall(qualifiers={"temp": "t", "hum": "h"}).describe()
    assert "family m" in text and "temp→t, hum→h" in text
