"""The interactive schema designer: ``wb.designer(ds)`` (a thin ipywidgets layer).

The logic lives in plain functions: :mod:`.state` (designer knobs ↔ Schema),
:mod:`._render` (figures and panels for a design), :mod:`.model` (cached datasets,
analyses and figures); :mod:`.app` (the ``Designer`` class) only wires widgets to them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import require_lab

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset
    from ..schema.schema import Schema
    from .app import Designer


def _require_widgets() -> None:
    require_lab("The designer (wb.designer)", "ipywidgets", "matplotlib", "cachetools")


def designer(
    ds: Dataset | str | None = None, schema: Schema | None = None, **kwargs: Any
) -> Designer:
    """The schema designer for ``ds`` (a Dataset or a dataset name; default: the first sample dataset)."""
    _require_widgets()
    from .app import Designer

    return Designer(ds, schema, **kwargs)


def __getattr__(name: str) -> Any:
    if name == "Designer":
        _require_widgets()
        from .app import Designer

        return Designer
    raise AttributeError(name)


__all__ = ["designer", "Designer"]
