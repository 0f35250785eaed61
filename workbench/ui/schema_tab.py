"""The Schema & cbt tab: the design as text and the ``cbt`` commands that create its tables."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from . import _render as R

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset
    from ..schema.schema import Schema
    from .app import Designer


def cbt_commands(schema: Schema, ds: Dataset | None = None) -> str:
    """The ``cbt`` commands that create this design's table(s), families and GC rules (``wb.export``)."""
    from ..advisor.export import export
    from .emulator_tab import table_id_for

    out = export(schema, ds, table_id=table_id_for(ds, schema) if ds is not None else None)
    return out.cbt_script()


def render(d: Designer) -> None:
    d.design_panel.value = R.design_html(d.ds, d.schema)
    d.cbt_panel.value = R._box(
        "<h4>cbt commands</h4><pre data-cbt>" + html.escape(cbt_commands(d.schema, d.ds)) + "</pre>"
    )
