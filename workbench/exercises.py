"""Self-checks for workshop exercises: a friendly pass/fail line instead of a bare assert."""

from __future__ import annotations

import html
from dataclasses import dataclass


@dataclass
class CheckResult:
    """The outcome of one exercise self-check; renders as a coloured line."""

    passed: bool
    message: str

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return ("PASS: " if self.passed else "NOT YET: ") + self.message

    def _repr_html_(self) -> str:
        colour, mark = ("#009E73", "✔ Well done") if self.passed else ("#D55E00", "✘ Not yet")
        return f"<p style='color:{colour}'><b>{mark}:</b> {html.escape(self.message)}</p>"


class ExerciseNotSolved(AssertionError):
    """Raised by ``check(..., strict=True)`` so a headless run flags an unsolved exercise."""


def check(condition: bool, message: str, *, hint: str = "", strict: bool = True) -> CheckResult:
    """Check an exercise's measured outcome.

    ``message`` says what was measured (e.g. "busiest node takes 18% of writes (goal ≤ 20%)");
    ``hint`` is shown when it fails. With ``strict`` (default) a failed check raises, so the
    notebook's headless run in the test suite fails when a pre-filled answer stops working.
    """
    result = CheckResult(
        bool(condition), message if condition or not hint else f"{message} Hint: {hint}"
    )
    if strict and not result.passed:
        raise ExerciseNotSolved(repr(result))
    return result
