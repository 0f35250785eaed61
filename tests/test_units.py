"""One byte formatter: decimal units up to TB and beyond, binary units under their own names."""

from __future__ import annotations

import pytest

from workbench.formatting import ABSENT, nbytes
from workbench.units import human_bytes


@pytest.mark.parametrize(
    ("n", "text"),
    [
        # hand-computed: n ÷ 1000^k for the largest k with n ≥ 1000^k, one decimal
        (999, "999 B"),
        (1_000, "1.0 kB"),
        (1_234_567, "1.2 MB"),
        (2e12, "2.0 TB"),  # was "2,000.0 GB" before TB existed
        (3.5e15, "3.5 PB"),
        (-2_500_000, "-2.5 MB"),
    ],
)
def test_decimal_units(n, text):
    assert human_bytes(n) == text


@pytest.mark.parametrize(
    ("n", "text"),
    [
        # hand-computed: n ÷ 1024^k
        (1_023, "1,023 B"),
        (1_024, "1.0 KiB"),
        (512_000, "500.0 KiB"),  # WORKBENCH_MEMORY_LIMIT=500K
        (2**31, "2.0 GiB"),
        (3 * 2**40, "3.0 TiB"),
    ],
)
def test_binary_units_have_binary_names(n, text):
    assert human_bytes(n, binary=True) == text


def test_a_binary_figure_is_never_labelled_gb():
    # 2 GiB is 2.147 GB: labelled "GB" it would be 7 % off
    assert human_bytes(2**31, binary=True).endswith("GiB")
    assert human_bytes(2**31) == "2.1 GB"


def test_tables_use_the_same_formatter():
    assert nbytes(2e12) == human_bytes(2e12) == "2.0 TB"
    assert nbytes(None) == ABSENT
