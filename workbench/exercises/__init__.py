"""Workshop exercises as problem objects, in the style of Kaggle's learntools.

One module per notebook (``ex01`` … ``ex08``) holds that notebook's problems; the notebook's setup
cell imports them (``from workbench.exercises.ex04 import ____, fx_salt``) and its answer cells
hold only the attendee's answer. :mod:`.core` has the machinery (:class:`Problem`, the blank
``____``, the solutions switch). A new exercise is a ``Problem`` in its notebook's module:
``PROBLEMS`` finds it there.
"""

from __future__ import annotations

from . import ex01, ex02, ex03, ex04, ex05, ex06, ex07, ex08
from .core import SOLUTIONS_ENV, CheckResult, ExerciseNotSolved, Problem, ____, check, solutions_on

MODULES = (ex01, ex02, ex03, ex04, ex05, ex06, ex07, ex08)

#: every exercise by name, with the notebook module that holds it
PROBLEMS: dict[str, Problem] = {
    value.name: value
    for module in MODULES
    for value in vars(module).values()
    if isinstance(value, Problem)
}

__all__ = [
    "MODULES",
    "PROBLEMS",
    "SOLUTIONS_ENV",
    "CheckResult",
    "ExerciseNotSolved",
    "Problem",
    "____",
    "check",
    "solutions_on",
]
