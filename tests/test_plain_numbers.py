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


def test_the_setup_output_makes_printed_lines_wrap_between_words():
    # JupyterLab's output pre breaks anywhere: 02 showed 'seria|lized_protobuf' and '93|1'
    from workbench.session import SetupInfo

    page = SetupInfo(versions={"workbench": "0"}, emulator=None, problem="none")._repr_html_()
    rule = page[page.index("<style>") : page.index("</style>")]
    assert ".jp-OutputArea-output pre" in rule and "word-break:normal" in rule
    assert "overflow-wrap:anywhere" in rule  # a word longer than the line still breaks
