"""The Schema & cbt tab: the design as text and the ``cbt`` commands that create its tables."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from . import _render as R

if TYPE_CHECKING:  # pragma: no cover
    from ..bigtable.emulator import Emulator
    from ..datasets.model import Dataset
    from ..schema.schema import Schema
    from .app import Designer


def cbt_commands(
    schema: Schema, ds: Dataset | None = None, emulator: Emulator | None = None
) -> str:
    """The ``cbt`` commands that create this design's table(s), families and GC rules
    (``wb.export``), pointed at the emulator's project and instance as the notebooks print them."""
    from ..advisor.export import export
    from ..bigtable.emulator import Emulator
    from .emulator_tab import table_id_for

    where = emulator if emulator is not None else Emulator(reuse=False)  # its defaults; not started
    out = export(schema, ds, table_id=table_id_for(ds, schema) if ds is not None else None)
    return out.cbt_script(where.project, where.instance)


def render(d: Designer) -> None:
    d.design_panel.value = R.design_html(d.ds, d.schema)
    d.cbt_panel.value = R.panel_box(
        "<h4>cbt commands</h4><pre data-cbt>"
        + html.escape(cbt_commands(d.schema, d.ds, d.emulator))
        + "</pre>"
    )
