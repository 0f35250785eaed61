"""Notebook 07's exercises (the design lab): problem objects the notebook's answer cells check."""

from __future__ import annotations

from typing import Any

from .core import Problem, ____, not_a_name

__all__ = ["____", "lab_pattern"]


def _lab_pattern(pattern: str, lab) -> tuple[bool, str, dict[str, Any]]:
    options = [str(o) for o in lab.controls.pattern.options]
    if (why := not_a_name(pattern, options, "one of the designer's patterns")) is not None:
        return False, why, {}
    lab.controls.pattern.value = pattern
    share = lab.analysis.keyspace.mean_write_share
    fair = 1 / lab.analysis.keyspace.nodes
    return (
        share <= 0.5,
        f"{pattern}: the busiest node takes {share:.1%} of the writes (goal ≤ 50%; a fair share "
        f"is {fair:.0%}).",
        {},
    )


lab_pattern = Problem(
    "lab_pattern",
    "one of lab.controls.pattern.options",
    _lab_pattern,
    "put the meter ID before the time in the key (field promotion, G07).",
    "entity_first",
    '"entity_first": each meter\'s writes stay in its own key range (G07).',
)
