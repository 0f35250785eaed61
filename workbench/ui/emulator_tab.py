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
    return f"{default_table_id(ds.name, schema.name or 'design', width=31)}-{digest}"


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
    d.emulator_out.outputs = ()
    # a write takes seconds (tables created, every cell written, read back): say so at once,
    # and keep the button from queueing a second write meanwhile (the widgets' state reaches
    # the page as it is set, before the write blocks the kernel)
    d.emulator_panel.value = R.panel_box(
        "<p data-writing><i>"
        + html.escape(
            f"Writing {d.schema.name} ({d.analysis.index.n_cells:,} cells of {d.ds.name}) to "
            "the emulator: creating the table(s), writing every cell, reading them back to "
            "compare…"
        )
        + "</i></p>"
    )
    d.controls.write.disabled = True
    try:
        with d.emulator_out:
            table, verification = write_to_emulator(
                d.ds, d.schema, emulator=d.emulator, progress=True
            )
    except BaseException:
        d.emulator_panel.value = ""
        raise
    finally:
        d.controls.write.disabled = False
    d.table, d.verification = table, verification
    d.written = (d.ds.name, d.schema)
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


def render(d: Designer) -> None:
    """Opened after a change: the last write's verification stays only while it is the design
    shown (another dataset's or design's table under this design's name read as this one's)."""
    if d.table is None or d.written == (d.ds.name, d.schema):
        return
    ds_name, schema = d.written
    d.emulator_out.outputs = ()
    d.emulator_panel.value = R.note_html(
        f"Nothing written for {d.ds.name} · {d.schema.name} yet (the last write was "
        f"{ds_name} · {schema.name}): press Write to emulator."
    )


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


DESIGNER_TABS = (Tab("emulator", "Emulator", order=90, panel=panel, render=render),)
