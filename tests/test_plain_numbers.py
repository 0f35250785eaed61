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
