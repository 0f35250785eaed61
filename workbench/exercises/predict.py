"""Numeric predictions: the attendee guesses a count before the cell that shows it.

:func:`judge_count` turns a guess and the truth the workbench computed into a judge's
``(passed, message, found)``: accepted within a stated tolerance, a number in quotes is told to
drop them ("did you mean 31, without the quotes?"), and a wrong number gets a direction (more or
fewer) but never the figure itself, so "Not yet" does not give the answer away.
"""

from __future__ import annotations

import math
from typing import Any

from .core import filled_in, short_repr


def as_number(value: Any) -> tuple[float | None, str | None]:
    """``(number, None)`` for an int or float answer, ``(None, why)`` for anything else."""
    if isinstance(value, bool):
        return None, f"the answer is a number, got {short_repr(value)}."
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value), None
    if isinstance(value, str):
        text = value.strip().replace(",", "").replace("_", "")
        try:
            number = float(text)
        except ValueError:
            return None, f"the answer is a number (no quotes), got {short_repr(value)}."
        shown = int(number) if number.is_integer() else number
        return None, f"{value!r} is text: did you mean {shown}, without the quotes?"
    return None, f"the answer is a number, got {short_repr(value)}."


def number_form(value: Any) -> str | None:
    """A :class:`~.core.Problem`'s ``form`` for a predicted count: why ``value`` is not a number
    (a number in quotes is asked for without them), or None. A whole-number float is a number."""
    return as_number(value)[1]


def tolerance_for(truth: float, relative: float, at_least: float) -> float:
    """How far from ``truth`` a prediction may be: ``relative`` of it, never under ``at_least``."""
    return max(abs(truth) * relative, at_least)


def tolerance_text(truth: float, relative: float, at_least: float) -> str:
    """The tolerance as an attendee is told it, without giving the answer's size away: a share of
    the truth as a percentage ("10 %": "±40" would say the answer is about 400), an absolute
    floor as itself ("±5": it says nothing of the answer)."""
    if relative > 0 and abs(truth) * relative >= at_least:
        return f"{relative * 100:g} %"
    return f"±{at_least:,g}"


def judge_count(
    value: Any,
    truth: float,
    what: str,
    *,
    relative: float = 0.10,
    at_least: float = 0.0,
    found: dict[str, Any] | None = None,
) -> tuple[bool, str, dict[str, Any]]:
    """Judge a predicted count of ``what`` against ``truth`` within ±``relative`` (and at least
    ±``at_least``). A pass names the figure; a miss says only "more" or "fewer" and why the
    tolerance (as a percentage: :func:`tolerance_text`), so the attendee looks again instead of
    being told."""
    truth = round(float(truth), 2)  # 51.00000000000001 bytes is 51: ±5 must accept 46
    number, why = as_number(value)
    if number is None:
        return False, why or "", {}
    slack = tolerance_for(truth, relative, at_least)
    shown = f"{truth:,.0f}" if float(truth).is_integer() else f"{truth:,.1f}"
    if abs(number - truth) <= slack:
        within = tolerance_text(truth, relative, at_least)
        how = "exactly" if number == truth else f"within {within}"
        if filled_in():  # a report shows the blank, then the solution it was filled with
            how = "" if number == truth else f", {how}"
            return True, f"{what}: {shown} (solution: {number:,g}{how}).", found or {}
        return True, f"{what}: {shown} (you said {number:,g}: {how}).", found or {}
    direction = "more" if truth > number else "fewer"
    accepted = (
        "only the exact count is accepted"
        if slack == 0
        else f"answers within {tolerance_text(truth, relative, at_least)} are accepted"
    )
    return (
        False,
        f"not {number:,g}: there are {direction} {what} than that ({accepted}).",
        {},
    )


def judge_query_figure(
    predicted: Any, ds, design, query: str, column: str, what: str, *, relative: float
) -> tuple[bool, str, dict[str, Any]]:
    """Judge a predicted figure of one query's cost (``rows_seen``, ``cells_seen``, ``scans``…)
    against the workbench's own analysis of ``design`` on ``ds``."""
    from workbench.analysis import analyze

    if (why := number_form(predicted)) is not None:  # no analysis for an answer that cannot match
        return False, why, {}
    truth = analyze(ds, design).queries[query][column]
    return judge_count(predicted, float(truth), what, relative=relative)
