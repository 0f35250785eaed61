"""Workshop exercises as problem objects, in the style of Kaggle's learntools.

Each exercise is a :class:`Problem` living here, not in the notebook: the notebook cell holds only
the attendee's answer, blank (``____``) by default, and the next cell calls ``check(answer, ...)``.
``hint()`` and ``solution()`` show help on demand.

**The solutions switch.** Reports and the test suite run every notebook top to bottom without a
person to fill the blanks. With the environment variable ``WORKBENCH_SOLUTIONS=1`` (set by
``workbench.report.execute_notebook`` unless the caller sets it) a blank answer is replaced by the
problem's solution, the check says so, and a solution that no longer passes raises
:class:`ExerciseNotSolved` so the run fails. Without the switch a blank answer gives a friendly
"not answered yet" line and a wrong one a one-line "✘ Not yet — <why>"; neither raises. A wrong
answer the workbench itself refuses (an unknown design name, a key whose events collide, a
misspelled column) is a wrong answer too: its error's first line becomes the reason, with the
closest name where there is one. ``hint()`` says what the "not yet" line does not.
"""

from __future__ import annotations

import difflib
import html
import os
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from ..errors import WorkbenchError, error_line

SOLUTIONS_ENV = "WORKBENCH_SOLUTIONS"


class _Blank:
    """The placeholder an attendee replaces with an answer."""

    def __repr__(self) -> str:
        return "____"


____ = _Blank()


#: True while a check judges the solution the switch filled in for a blank: a judge's message then
#: names it as the solution ("solution: 6,255"), not as what the attendee said
_FILLED: ContextVar[bool] = ContextVar("filled", default=False)


def filled_in() -> bool:
    """True while the answer being judged is the solution the switch put in a blank."""
    return _FILLED.get()


def solutions_on() -> bool:
    """True when ``WORKBENCH_SOLUTIONS`` asks for blank answers to be filled with the solutions."""
    return os.environ.get(SOLUTIONS_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


@dataclass
class CheckResult:
    """The outcome of one exercise check; renders as one coloured line."""

    passed: bool
    message: str
    answered: bool = True
    found: dict[str, Any] = field(default_factory=dict, repr=False)

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        if not self.answered:
            return "NOT ANSWERED: " + self.message
        return ("PASS: " if self.passed else "NOT YET — ") + self.message

    def _repr_html_(self) -> str:
        if not self.answered:
            colour, mark = "#0072B2", "✎ Your turn"
        elif self.passed:
            colour, mark = "#009E73", "✔ Well done"
        else:
            return (
                "<p style='color:#D55E00' data-not-yet><b>✘ Not yet</b> — "
                f"{html.escape(self.message)}</p>"
            )
        return f"<p style='color:{colour}'><b>{mark}:</b> {html.escape(self.message)}</p>"


class ExerciseNotSolved(AssertionError):
    """A check failed where it must pass (a strict check, or a solution under the switch)."""


class _Help(str):
    """A hint or solution: plain text that renders as a paragraph in a notebook."""

    def _repr_html_(self) -> str:
        return f"<p style='color:#555'>{html.escape(self)}</p>"


#: judge(answer, *context) -> (passed, message, found)
Judge = Callable[..., tuple[bool, str, dict[str, Any]]]
#: form(answer) -> why the answer is not of the form asked for (a number, a name…), or None
Form = Callable[[Any], str | None]


@dataclass
class Problem:
    """One exercise: what to do, how an answer is judged, a hint and the solution."""

    name: str
    task: str
    judge: Judge
    hint_text: str
    solution_value: Any
    solution_text: str
    #: the answer's type and form, judged before the judge runs: a string where a number is
    #: wanted is told so at once, without an analysis, a compare or a designer change
    form: Form | None = None

    def answer(self, value: Any) -> Any:
        """``value``, or the solution when it is blank and the solutions switch is on."""
        if isinstance(value, _Blank) and solutions_on():
            # a callable builds the solution on demand (its types live further down the flow)
            return self.solution_value() if callable(self.solution_value) else self.solution_value
        return value

    def check(self, value: Any, *context: Any) -> CheckResult:
        """Judge ``value`` (the attendee's answer) against the exercise's goal."""
        filled = isinstance(value, _Blank) and solutions_on()
        value = self.answer(value)
        if isinstance(value, _Blank):
            return CheckResult(
                False,
                f"replace ____ with your answer, then run this cell again ({self.task}). "
                f"Stuck? {self.name}.hint() or {self.name}.solution().",
                answered=False,
            )
        found: dict[str, Any]
        try:
            why = self.form(value) if self.form is not None else None
            if why is not None:
                passed, message, found = False, why, {}
            else:
                token = _FILLED.set(filled)
                try:
                    passed, message, found = self.judge(value, *context)
                finally:
                    _FILLED.reset(token)
        except WorkbenchError as exc:
            if filled:
                raise
            # the workbench's refusal is the reason: its first line, advice and closest name
            passed, message, found = False, error_line(exc), {}
        if filled:
            message = f"{message} (solution filled in: {SOLUTIONS_ENV}=1)"
        if not passed and solutions_on():
            raise ExerciseNotSolved(f"{self.name}: the solution {value!r} fails: {message}")
        if not passed:
            message = " ".join(message.split())  # one line, whatever the reason's source
            message = f"{message} Stuck? {self.name}.hint()"
        return CheckResult(passed, message, found=found)

    def reference(self, *context: Any) -> dict[str, Any]:
        """What the solution builds (the judge's ``found``), for the cells after an exercise to
        go on with while the attendee's answer is blank or not there yet."""
        value = self.solution_value() if callable(self.solution_value) else self.solution_value
        return self.judge(value, *context)[2]

    def hint(self) -> _Help:
        return _Help(f"Hint: {self.hint_text}")

    def solution(self) -> _Help:
        return _Help(f"Solution: {self.solution_text}")


def check(condition: bool, message: str, *, hint: str = "", strict: bool = True) -> CheckResult:
    """A one-off self-check for an ad-hoc goal (the exercises themselves are :class:`Problem`\\ s).

    With ``strict`` (default) a failed check raises, so a headless run flags it.
    """
    result = CheckResult(
        bool(condition), message if condition or not hint else f"{message} Hint: {hint}"
    )
    if strict and not result.passed:
        raise ExerciseNotSolved(repr(result))
    return result


def short_repr(value: Any, limit: int = 60) -> str:
    """``value`` as a reason can quote it: a Schema's ~1,000-character repr becomes its class and
    name (``Schema 'month_rows'``), anything else its repr cut to ``limit`` characters."""
    name = getattr(value, "name", None)
    if isinstance(name, str) and not isinstance(value, str):
        return f"{type(value).__name__} {name!r}"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def not_a_name(value: Any, known: list[str], what: str) -> str | None:
    """Why ``value`` is not one of ``known`` (closest name first), or None when it is."""
    if isinstance(value, str) and value in known:
        return None
    if not isinstance(value, str):
        if isinstance(getattr(value, "name", None), str) and value.name in known:
            return f"the answer is the design's name in quotes: {value.name!r}, not the object."
        return f"the answer is {what} in quotes, e.g. {known[0]!r}; got {short_repr(value)}."
    close = difflib.get_close_matches(value, known, n=1, cutoff=0.5)
    near = f"did you mean {close[0]!r}? " if close else ""
    return f"{value!r} is not {what}: {near}The choices are {', '.join(known)}."


def design_name(choice: Any, dataset: str) -> str | None:
    from workbench.schema import pattern_names

    return not_a_name(choice, pattern_names(dataset), f"a {dataset} design")


def design_form(dataset: str) -> Form:
    """A :class:`Problem`'s ``form`` for a gallery design name of ``dataset``: a name it has (in
    quotes), or why not, before any analysis of it."""
    return lambda choice: design_name(choice, dataset)
