"""A NumPy scalar in a list formatted into text reads as a number after ``wb.setup()``: 08 showed
``[np.int64(4)]`` where ``[4]`` was meant (NumPy 2 prints the type in a scalar's repr)."""

from __future__ import annotations

import numpy as np

import workbench as wb


def test_setup_makes_numpy_scalars_print_as_numbers():
    before = np.get_printoptions()
    try:
        wb.setup(emulator=False)
        counts = sorted({np.int64(4)})
        assert f"{counts}" == "[4]" and str([np.float64(0.5)]) == "[0.5]"
        # arrays print as before: the option changes scalars only
        assert str(np.array([1.5, 2.0])) == "[1.5 2. ]"
    finally:
        np.set_printoptions(**before)


def test_the_advisors_even_spread_note_states_rates_without_an_exponent():
    """07's own-CSV designer (the energy sample as ``my_meters``, 300 readings over 14 h 45 min,
    entity_first): its "Sequential numeric IDs" note said "under the design's ceiling of
    4.9e+04 events/s" and "0.00565 writes/s". Rates read as every view states them: 300
    readings in 14.75 h = 20.3 writes/h; the ceiling is 49,000 events/s (5 meters, the busiest
    taking 20 % of the writes: 14,000 writes/s × 70 % ÷ 20 % = 49,000)."""
    from pathlib import Path

    mine = wb.from_csv(
        Path(__file__).resolve().parent.parent / "datasets" / "energy_meters.csv",
        entity=["meter_id"], time="time", measures=["kwh", "voltage"], name="my_meters",
    )  # fmt: skip
    findings = wb.advise(mine, wb.preset(mine, "entity_first"))
    note = next(f for f in findings if "G23" in f.guidelines)
    text = " ".join(note.evidence)
    assert "e+0" not in text and "e-0" not in text, text
    assert "at 20.3 writes/h on 3 nodes" in text, text
    assert "under the design's ceiling of 49,000 events/s" in text, text
