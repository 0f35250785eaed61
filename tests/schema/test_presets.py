"""A preset asked for by a misspelt name: the error names the dataset's patterns and the
closest one, so the user can correct it (difflib's closest match)."""

from __future__ import annotations

import pytest

import workbench as wb
from workbench.errors import SchemaError


def test_an_unknown_pattern_suggests_the_closest_name():
    with pytest.raises(SchemaError, match=r"mean 'salted'\?"):
        wb.preset("fx_prices", "salt")
    with pytest.raises(SchemaError, match="pair_microseconds") as err:
        wb.preset("fx_prices", "zzz")
    assert "Did you mean" not in str(err.value)  # nothing close: no guess
