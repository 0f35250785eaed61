"""An answer of the wrong type or form is told so at once: every exercise judges the form (a
number, a name, a list of segments) before it runs an analysis, a compare or a designer change.

The checks here get *poisoned* context (any use raises) and the analysis entry points are patched
to raise: a wrong-typed answer that still reaches them fails the test instead of waiting seconds
for an analysis whose figure it could never match."""

from __future__ import annotations

import inspect

import pytest

import workbench.analysis
import workbench.analysis.comparison
import workbench.schema
import workbench.schema.key_conformance
from workbench.exercises import PROBLEMS


class Touched(AssertionError):
    """Raised when a check reaches its context or an analysis for a wrong-typed answer."""


class Poison:
    """Context a check must not touch before it has judged the answer's form."""

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def __getattr__(self, attr: str):
        raise Touched(f"{self._name}.{attr} used before the answer's form was judged")

    def __setattr__(self, attr: str, value) -> None:
        raise Touched(f"{self._name}.{attr} set before the answer's form was judged")

    def __len__(self) -> int:
        raise Touched(f"len({self._name}) used before the answer's form was judged")

    def __iter__(self):
        raise Touched(f"{self._name} iterated before the answer's form was judged")


def _refuse(*args, **kwargs):
    raise Touched("an analysis ran before the answer's form was judged")


# the analysis entry points the judges call (each imports them inside the function, so patching
# the module attribute reaches them)
ENTRY_POINTS = [
    (workbench.analysis, "analyze"),
    (workbench.analysis, "compare"),
    (workbench.analysis.comparison, "compare"),
    (workbench.schema, "preset"),
    (workbench.schema.key_conformance, "key_conformance"),
]


def _kind(problem) -> str:
    """What the answer is: a count (the solution is a number), a name, or a list of segments."""
    value = problem.solution_value
    if callable(value):
        return "segments"
    return "number" if isinstance(value, int | float) else "name"


# answers of the wrong type for each kind: a number in quotes, a word, None, a list, a bool…
WRONG_TYPED = {
    "number": ['"29760"', '"many"', "None", "[4]", "True", '{"rows": 4}', 'float("nan")'],
    "name": ["8.0", "3", "None", "['month_rows']", "True"],
    "segments": ['"site"', "None", "5.0", "[1, 2]", "[]"],
}


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_a_wrong_typed_answer_is_not_yet_without_an_analysis(name, monkeypatch):
    monkeypatch.delenv("WORKBENCH_SOLUTIONS", raising=False)
    for module, attr in ENTRY_POINTS:
        monkeypatch.setattr(module, attr, _refuse)
    problem = PROBLEMS[name]
    params = list(inspect.signature(problem.judge).parameters)[1:]  # what follows the answer
    context = [Poison(p) for p in params]
    for source in WRONG_TYPED[_kind(problem)]:
        result = problem.check(eval(source), *context)
        assert result.answered and not result.passed, (source, result)
        line = repr(result)
        assert line.startswith("NOT YET — ") and "\n" not in line, (source, line)


@pytest.mark.parametrize("name", sorted(n for n, p in PROBLEMS.items() if _kind(p) == "number"))
def test_a_number_in_quotes_is_asked_for_without_them(name, monkeypatch):
    # "29760" as text: the line names the number the attendee meant, without the quotes
    monkeypatch.delenv("WORKBENCH_SOLUTIONS", raising=False)
    for module, attr in ENTRY_POINTS:
        monkeypatch.setattr(module, attr, _refuse)
    problem = PROBLEMS[name]
    params = list(inspect.signature(problem.judge).parameters)[1:]
    result = problem.check('"12"'[1:-1], *[Poison(p) for p in params])
    assert "did you mean 12" in result.message and "quotes" in result.message, result.message
