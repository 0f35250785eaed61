"""The Emulator tab: write the design to the emulator, read it back, and show the verification."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

import ipywidgets as W

from . import _render as R
from .tabs import Tab

if TYPE_CHECKING:  # pragma: no cover
    from ..bigtable.emulator import Emulator
    from ..bigtable.io import TableHandle, VerifyReport
    from ..datasets.model import Dataset
    from ..schema.schema import Schema
    from .app import Designer


def table_id_for(ds: Dataset, schema: Schema) -> str:
    """A readable, valid table ID per design: ``<dataset>-<design>-<hash>`` (edited designs differ by hash)."""
    import hashlib

    from ..bigtable.admin import default_table_id, readable_tag
    from ..bigtable.ownership import SESSION_TAG

    # the kernel's tag in the digest: two notebooks showing one design write two tables
    digest = readable_tag(8, hashlib.sha1(f"{SESSION_TAG}:{schema!r}".encode()).digest())
    return f"{default_table_id(ds.name, schema.name or 'design')[:31]}-{digest}"


def write_to_emulator(
    ds: Dataset, schema: Schema, *, emulator: Emulator | None = None, progress: bool = True
) -> tuple[TableHandle, VerifyReport]:
    """Create the design's table(s) in the emulator, write ``ds`` with a progress bar, read back and
    verify: (TableHandle, VerifyReport). The tables are dropped by ``wb.cleanup()``."""
    from ..session import register_table

    if emulator is None:
        from ..session import emulator as session_emulator

        emulator = session_emulator()
    table = emulator.load(ds, schema, table_id=table_id_for(ds, schema), progress=progress)
    for physical in table.created:  # only what this kernel created is its to drop
        register_table(physical)
    verification = table.verification or table.verify()
    return table, verification


def write(d: Designer) -> Any:
    """Write the designer's current design to the emulator and show the verification."""
    if d.schema is None:
        return None
    d.emulator_panel.value = ""
    d.emulator_out.outputs = ()
    with d.emulator_out:
        table, verification = write_to_emulator(d.ds, d.schema, emulator=d.emulator, progress=True)
    d.table, d.verification = table, verification
    ok = verification.equal
    # what the notebooks show for a load (counts, time, rate, the cbt command), under the verdict
    # with its own counts; what differs, when something does
    head = (
        f"<p class='{'good' if ok else 'bad'}' data-verified='{str(ok).lower()}'><b>"
        f"{'Verified' if ok else 'Verification FAILED'}</b>: "
        f"{html.escape(verification.summary())}</p>"
    )
    body = table._repr_html_() + ("" if ok else verification._repr_html_())
    d.emulator_panel.value = R.panel_box(head + body)
    return verification


def panel(d: Designer) -> W.VBox:
    """The Write button and what the last write showed (drawn by the button, not on opening)."""
    d.emulator_out = W.Output()
    d.emulator_panel = W.HTML()
    return W.VBox(
        [
            W.HTML(
                "Creates the design's table(s), families and GC rules in the emulator, "
                "writes every cell, reads the table back and compares."
            ),
            d.controls.write,
            d.emulator_out,
            d.emulator_panel,
        ]
    )


DESIGNER_TABS = (Tab("emulator", "Emulator", order=90, panel=panel),)
