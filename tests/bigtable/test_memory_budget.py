"""The memory budget of a load, checked before its first request: the emulator's ≈ 460 bytes
per cell (measured) and the kernel's, against what the machine can give."""

from __future__ import annotations

import re

import pytest

import workbench as wb
from workbench.bigtable.checks import memory_need
from workbench.memory import ENV_MEMORY_LIMIT, available_memory, parse_bytes


def test_the_need_is_the_measured_bytes_per_cell():
    # 1,000,000 cells: 460 bytes each in the emulator; 200 (CellFrame) + 250 (requests) here
    assert memory_need(1_000_000, emulator_here=True, cells_built=False) == (
        460_000_000,
        450_000_000,
    )
    # cells already built: only the writer's requests are still to come; a remote emulator's
    # memory is not this machine's
    assert memory_need(1_000_000, emulator_here=False, cells_built=True) == (0, 250_000_000)


def test_the_cap_an_instructor_sets_is_read_in_binary_units(monkeypatch):
    assert parse_bytes("8G") == 8 * 2**30 and parse_bytes("1.5GiB") == 3 * 2**29
    assert parse_bytes("123456") == 123_456
    monkeypatch.setenv(ENV_MEMORY_LIMIT, "2M")
    assert available_memory() == (2 * 2**20, f"{ENV_MEMORY_LIMIT}=2M")
    monkeypatch.setenv(ENV_MEMORY_LIMIT, "lots")
    with pytest.raises(ValueError, match=r"WORKBENCH_MEMORY_LIMIT='lots'.*size"):
        available_memory()


def test_a_load_over_the_available_memory_is_refused_before_the_first_request(
    emulator, monkeypatch
):
    ds = wb.load_dataset("garden_temperature", size="tiny")  # 994 events
    # 994 events are at least 994 cells: 994 × (460 + 450) = 904,540 bytes = 883.3 KiB, over
    # 500 KiB (memory in binary units: 904,540 / 1,024 and 500 × 1,024 / 1,024)
    monkeypatch.setenv(ENV_MEMORY_LIMIT, "500K")
    with pytest.raises(wb.WriteError) as ei:
        emulator.load(ds, wb.preset("garden_temperature", "tall"), table_id="too-big")
    msg = str(ei.value)
    assert re.search(r"\b994 cells .*883\.3 KiB.*500\.0 KiB .*\(WORKBENCH_MEMORY_LIMIT=500K\)", msg)
    assert re.search(r"\b460 bytes per cell", msg) and "Nothing was written" in msg
    assert "sample=0.1" in msg and "check_memory=False" in msg
    assert "too-big" not in emulator.connection().list_tables()  # not even created


def test_a_load_taking_over_half_the_memory_warns_with_the_numbers(emulator, monkeypatch):
    ds = wb.load_dataset("garden_temperature", size="tiny")  # tall: 994 cells
    # built: 994 × (460 + 250) = 705,740 bytes = 689.2 KiB (the emulator's 994 × 460 = 457,240
    # = 446.5 KiB); 1 MiB is enough, but under twice the need
    monkeypatch.setenv(ENV_MEMORY_LIMIT, "1M")
    with pytest.warns(
        ResourceWarning,
        match=r"Memory: loading 994 cells need about 689\.2 KiB: 446\.5 KiB in the emulator",
    ):
        table = emulator.load(
            ds, wb.preset("garden_temperature", "tall"), table_id="half", progress=False
        )
    try:
        assert any("Over half" in n for n in table.notes)
        assert table.verification.equal
    finally:
        table.drop()
