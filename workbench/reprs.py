"""How a result shows itself in a notebook, without knowing how it is drawn.

An analysis result's ``_repr_html_`` is one line, ``return html_of(self)``: the body lives in
:mod:`workbench.display`, which sits above both the analyses and the figures and registers one
function per result class here. So statistics never import plotting (seaborn's rule: the
figure functions take the result), and the import graph keeps pointing down.

Classes are registered by their qualified name (``"workbench.analysis.rowsizes.RowSizes"``), so
registering imports none of them; ``import workbench`` registers :mod:`workbench.display`.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[[Any], str])

_SHOWN_BY: dict[str, Callable[[Any], str]] = {}


def qualified_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def shows(qualname: str) -> Callable[[F], F]:
    """Decorator: the function draws instances of the class named ``qualname`` as HTML."""

    def register(fn: F) -> F:
        _SHOWN_BY[qualname] = fn
        return fn

    return register


def registered() -> dict[str, Callable[[Any], str]]:
    """Every class name with its HTML function (a copy)."""
    return dict(_SHOWN_BY)


def html_of(obj: Any) -> str:
    """``obj`` as HTML through the function registered for its class (or a base class); its text
    form when none is (a notebook still shows something rather than nothing)."""
    for cls in type(obj).__mro__:
        fn = _SHOWN_BY.get(qualified_name(cls))
        if fn is not None:
            return fn(obj)
    return f"<pre>{html.escape(repr(obj))}</pre>"
