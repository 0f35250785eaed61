"""The Schema & cbt tab: the design as text, the ``cbt`` commands that create its tables, and
each table's row-key schema (the ``gcloud`` file, GoogleSQL by field, the conformance check)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

import ipywidgets as W
import pandas as pd

from ..errors import WorkbenchError
from . import _render as R
from .tabs import Tab

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis import CellIndex
    from ..bigtable.emulator import Emulator
    from ..datasets.model import Dataset
    from ..schema.rowkey_schema import RowKeySchema
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
    script = out.cbt_script(where.project, where.instance)
    host = emulator_host(emulator)
    # the emulator this kernel knows: its address, not "<port>", in the line to copy
    return script.replace("127.0.0.1:<port>", host) if host else script


def emulator_host(emulator: Emulator | None = None) -> str | None:
    """The address of the emulator this kernel uses, when one is known: the designer's own, the
    one ``wb.setup()`` started or found, or ``BIGTABLE_EMULATOR_HOST`` (None: none known)."""
    import os

    from ..session import SESSION

    for emu in (emulator, SESSION.emulator):
        if emu is not None and emu.host:
            return emu.host
    return os.environ.get("BIGTABLE_EMULATOR_HOST") or None


# a long file scrolls in its own box, so the SQL and the verdict stay near the top
BOX = "style='max-height:150px;overflow:auto;background:#f7f7f7;padding:4px;white-space:pre-wrap'"


# a command keeps its own lines (a wrap inside "--row-key-…" reads as two flags): it scrolls
NOWRAP = "style='overflow:auto;background:#f7f7f7;padding:4px;white-space:pre'"


def shell_lines(command: str) -> str:
    """A long shell command one flag a line, with ``\\`` continuations (it still pastes)."""
    return command.replace(" --", " \\\n  --")


def index_keys(index: CellIndex) -> dict[str, pd.Series]:
    """The distinct row keys of each table in an analysis's cell index (no cells rebuilt)."""
    keys = pd.Series(index.row_keys).str.decode("utf-8")
    return {
        t: keys[index.row_table == i].reset_index(drop=True) for i, t in enumerate(index.tables)
    }


def example_sql(rks: RowKeySchema, ds: Dataset) -> str:
    """GoogleSQL over the key's fields for the dataset's first query the fields can express
    (its entity values and time window), else every row."""
    for q in ds.queries:
        try:
            return rks.sql(dict(q.entity), q.start, q.end)
        except WorkbenchError:  # a query filtering a column this key does not hold
            continue
    return rks.sql()


def rowkey_html(schema: Schema, ds: Dataset, index: CellIndex, table_id: str) -> str:
    """Each table's row-key schema: the file ``gcloud`` takes, GoogleSQL by field name and
    whether every key the design writes for ``ds`` conforms (from the analysis's keys)."""
    from ..schema.key_conformance import key_conformance
    from ..schema.rowkey_schema import EMULATOR_NOTE, row_key_schemas

    try:
        # the SQL and gcloud name the tables the designer creates
        schemas = row_key_schemas(schema, table_id)
        verdicts = key_conformance(schema, ds, index_keys(index))
    except WorkbenchError as exc:
        return R.error_html(exc)
    parts = ["<h4>Row-key schema (structured row keys, Preview)</h4>"]
    for name, rks in schemas.items():
        v = verdicts.get(name)
        verdict = (
            f"<p class='{'good' if v.ok else 'bad'}' data-conformance='{name}'>"
            f"{'✔' if v.ok else '✖'} {html.escape(str(v))}</p>"
            if v is not None
            else ""
        )
        notes = "".join(f"<li>{html.escape(n)}</li>" for n in rks.notes)
        parts.append(
            f"<p>table <code>{html.escape(name)}</code>: fields "
            f"<code>{html.escape(', '.join(rks.names))}</code>, delimiter "
            f"<code>{html.escape(rks.delimiter)}</code></p>{verdict}"
            + (f"<ul>{notes}</ul>" if notes else "")
            + f"<p><small>row_key_schema.yaml</small></p><pre data-rowkey-yaml {BOX}>"
            f"{html.escape(rks.to_yaml())}</pre>"
            + f"<p><small>set it on the table</small></p><pre data-rowkey-gcloud {NOWRAP}>"
            f"{html.escape(shell_lines(rks.gcloud_command()))}</pre>"
            + f"<p><small>GoogleSQL by field</small></p><pre data-rowkey-sql {BOX}>"
            f"{html.escape(example_sql(rks, ds))}</pre>"
        )
    parts.append(f"<p><small>{html.escape(EMULATOR_NOTE)}</small></p>")
    return R.panel_box("".join(parts))


def render(d: Designer) -> None:
    from .emulator_tab import table_id_for

    d.design_panel.value = R.design_html(d.ds, d.schema)
    d.cbt_panel.value = R.panel_box(
        "<h4>cbt commands</h4><pre data-cbt>"
        + html.escape(cbt_commands(d.schema, d.ds, d.emulator))
        + "</pre>"
    ) + rowkey_html(d.schema, d.ds, d.analysis.index, table_id_for(d.ds, d.schema))


def panel(d: Designer) -> W.VBox:
    d.design_panel = W.HTML()
    d.cbt_panel = W.HTML()
    return W.VBox([d.design_panel, d.cbt_panel])


DESIGNER_TABS = (Tab("schema", "Schema & cbt", order=70, panel=panel, render=render),)
