"""Reading a row key back into its fields: a key with a field too few or too many for the
template ``{site}#{sensor}#{time}`` is refused, naming the key (never silently misread)."""

from __future__ import annotations

import pandas as pd
import pytest

from workbench.errors import SchemaError
from workbench.schema import Field, Metric, RowKey, Tags, Timestamp

KEY = RowKey((Field("site"), Field("sensor"), Timestamp("second")))


def test_a_key_parses_into_its_fields():
    got = KEY.parse(pd.Series(["a#s1#20240101000000"]))
    assert (got["site"].iloc[0], got["sensor"].iloc[0]) == ("a", "s1")


def test_a_key_with_a_field_missing_or_extra_is_refused_by_name():
    # one good key and one without its sensor: the short one is named
    with pytest.raises(SchemaError, match="'b#20240101000000'"):
        KEY.parse(pd.Series(["a#s1#20240101000000", "b#20240101000000"]))
    # every key with one field too many: four parts where the template has three
    with pytest.raises(SchemaError, match="'a#s1#x#20240101000000'"):
        KEY.parse(pd.Series(["a#s1#x#20240101000000"]))


def test_a_key_with_a_part_too_many_is_named_after_a_good_one():
    # a good key read first: the one with the extra part (4 for 3) is named, not the first
    with pytest.raises(SchemaError, match="'a#s1#x#20240101000000'"):
        KEY.parse(pd.Series(["a#s1#20240101000000", "a#s1#x#20240101000000"]))


def test_a_misfit_key_is_named_not_the_first_key_when_tags_vary_the_width():
    # Heroic's tags write their own delimiters, so the parts around them are split from the
    # left (host) and from the right (time); "h2" has no time part: it is the key named (G16)
    good = ["h1#dc=x#20240101000000", "h3#20240101000000"]  # "h3": no tags, still fits
    mid = RowKey((Field("host"), Tags(("dc",)), Timestamp("second")))
    assert mid.parse(pd.Series(good))["host"].tolist() == ["h1", "h3"]
    with pytest.raises(SchemaError, match="'h2'"):
        mid.parse(pd.Series([*good, "h2"]))
    # the tags first: both fixed parts are split from the right
    first = RowKey((Tags(("dc",)), Field("host"), Timestamp("second")))
    assert first.parse(pd.Series(["dc=x#h1#20240101000000"]))["dc"].tolist() == ["x"]
    with pytest.raises(SchemaError, match="'h2'"):
        first.parse(pd.Series(["dc=x#h1#20240101000000", "h2"]))
    # only the fixed part before the tags, and no key has it: the first key is the one named
    with pytest.raises(SchemaError, match="'h9'"):
        mid.parse(pd.Series(["h9", "h8"]))


def test_a_key_of_the_measure_alone_leaves_an_empty_event_row():
    # "memusage": the measure's name is the whole key (one row per measure, its events as
    # versions, G03), so nothing but the measure identifies an event's row
    got = RowKey((Metric(),)).parse(pd.Series(["memusage", "cpu"]))
    assert got["_metric"].tolist() == ["memusage", "cpu"]
    assert got["_event_row"].tolist() == ["", ""]
