"""Reading a row key back into its fields: a key with a field too few or too many for the
template ``{site}#{sensor}#{time}`` is refused, naming the key (never silently misread)."""

from __future__ import annotations

import pandas as pd
import pytest

from workbench.errors import SchemaError
from workbench.schema import Field, RowKey, Timestamp

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
