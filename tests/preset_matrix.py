"""Every named dataset × preset whose reads are analysed (shared by the planner tests)."""

from __future__ import annotations

import workbench as wb


def analysed_presets() -> list[tuple[str, str]]:
    """(dataset, pattern) for every named dataset's presets but ``second_precision``, which
    loses events by design and is never analysed for reads."""
    return [
        (name, pattern)
        for name in wb.dataset_names()
        for pattern in wb.pattern_names(name)
        if pattern != "second_precision"
    ]
