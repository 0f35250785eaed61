"""Notebook 07's exercises (the design lab): problem objects the notebook's answer cells check.

* ``time_first_share`` — predict the busiest node's share of the writes once the time leads the key.
* ``fix_share`` — predict that share after the advisor's first suggestion is applied.
* ``lab_pattern`` — a design for your own CSV in which the busiest node takes under half the writes.
"""

from __future__ import annotations

from typing import Any

from .core import Problem, ____, not_a_name, short_repr
from .predict import as_number, judge_count

__all__ = ["____", "fix_share", "lab_pattern", "time_first_share"]

# ±10 percentage points: the attendee reasons "one node of three takes (nearly) everything"
_POINTS = 10.0


def _share_form(predicted: Any) -> str | None:
    """Why ``predicted`` is not a share in percent, or None: judged before the designer changes."""
    number, why = as_number(predicted)
    if number is not None and 0 < number < 1:
        return f"give the share in percent (50 for half), not {number:g}."
    return why


def _judge_share(predicted: Any, share: float, what: str) -> tuple[bool, str, dict[str, Any]]:
    if (why := _share_form(predicted)) is not None:
        return False, why, {}
    return judge_count(predicted, round(share * 100, 1), what, relative=0.0, at_least=_POINTS)


def _time_first_share(predicted: Any, d) -> tuple[bool, str, dict[str, Any]]:
    # the same change the notebook's next cell makes: the time moves in front of the pair
    d.controls.segments.value = ["time", "pair"]
    share = d.analysis.keyspace.mean_write_share
    return _judge_share(predicted, share, "percent of the writes on the busiest node")


time_first_share = Problem(
    "time_first_share",
    "a percentage of the writes (±10 points)",
    _time_first_share,
    "with the time first, where in the key space does each new quote land, whatever its pair? "
    "How many tablets hold that place?",
    100,
    "about 100 %: every new quote lands at the end of the key space, in one tablet on one node "
    "(G06).",
    form=_share_form,
)


def _fix_share(predicted: Any, fixed) -> tuple[bool, str, dict[str, Any]]:
    # ``fixed``: a designer on the timestamp-first design, as the notebook opens it; the check
    # clicks the first suggestion on it, as the notebook's next cell does on its own designer
    if fixed.schema.name.startswith("timestamp_first"):  # once: a second check reads it again
        fixed.apply_suggestion(0)
    share = fixed.analysis.keyspace.mean_write_share
    return _judge_share(
        predicted, share, "percent of the writes on the fixed design's busiest node"
    )


fix_share = Problem(
    "fix_share",
    "a percentage of the writes (±10 points)",
    _fix_share,
    "the fixed design puts the pair first again; the sample has a handful of pairs on 3 nodes. "
    "A perfectly fair spread would be a third; a node holding two pairs' ranges takes more.",
    42,  # the fixed design's mean_write_share (41.7 %) to the percent, as 07 prints it
    "about 42 %: the pairs' key ranges spread over the 3 nodes, one node holding more than its "
    "third (G07).",
    form=_share_form,
)


def _pattern_form(pattern: Any) -> str | None:
    """Why ``pattern`` is not a pattern's name (text), or None; the names themselves are the
    designer's, checked by the judge."""
    if isinstance(pattern, str):
        return None
    return (
        "the answer is a pattern's name in quotes, one of lab.controls.pattern.options; "
        f"got {short_repr(pattern)}."
    )


def _lab_pattern(pattern: str, lab) -> tuple[bool, str, dict[str, Any]]:
    options = [str(o) for o in lab.controls.pattern.options]
    if (why := not_a_name(pattern, options, "one of the designer's patterns")) is not None:
        return False, why, {}
    lab.controls.pattern.value = pattern
    share = lab.analysis.keyspace.mean_write_share
    fair = 1 / lab.analysis.keyspace.nodes
    if round(share, 3) == 0.5:
        # two_tables: half of every write goes to its second, time-keyed table's one frontier
        why = (
            f"{pattern}: the busiest node takes exactly half of the writes (goal under half): "
            "look at where each of its tables' newest rows land."
        )
        return False, why, {}
    return (
        share < 0.5,
        f"{pattern}: the busiest node takes {share:.1%} of the writes (goal under 50%; a fair "
        f"share is {fair:.0%}).",
        {},
    )


lab_pattern = Problem(
    "lab_pattern",
    "one of lab.controls.pattern.options",
    _lab_pattern,
    "five meters write at the same moment: a key whose first part differs between them sends "
    "those writes to different key ranges, a key that starts with the time sends them to one.",
    "entity_first",
    '"entity_first": each meter\'s writes stay in its own key range (G07); wide_rows, the '
    "day buckets and the serialized designs pass too (on 5 meters and 3 nodes the split points "
    "decide how the write points pair up: reversed_timestamp lands 3 of them on one node).",
    form=_pattern_form,
)
