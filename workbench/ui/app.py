"""``wb.designer(ds)``: the interactive schema designer, a thin ipywidgets layer.

Every callback does three things: read the controls into a :class:`DesignState`,
turn it into a Schema (:func:`designer_state_to_schema`), and show the cached
analysis of that schema (:class:`Workspace`, :mod:`._render`). Callbacks run
inside the designer's log ``Output`` so their prints and tracebacks are visible;
workbench errors (a bad CSV, a design that collides) are shown as a red message.

Only the visible tab is drawn after a change; the others are drawn when opened.
Drive it from Python as tests and the benchmark do::

    d = wb.designer("fx_prices")
    d.controls.pattern.value = "timestamp_first"
    d.analysis.keyspace.mean_share            # ≈ 1.0: one node takes the writes (G06)

Why one module: the designer is one widget tree whose callbacks share its controls; the logic
they call lives in ``state.py``, ``model.py``, ``_render.py`` and ``heatmap.py``, so what is left
here is layout and wiring.
"""

from __future__ import annotations

import functools
import html
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import ipywidgets as W

from ..advisor.findings import Finding
from ..errors import WorkbenchError
from ..schema.gallery import patterns_for, schema_for
from . import _render as R
from .model import Workspace
from .state import (
    SALT,
    DesignState,
    FamilyEdit,
    applicable,
    bucket_choices,
    designer_state_to_schema,
    place_added,
    segment_labels,
    state_from_schema,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..bigtable.emulator import Emulator
    from ..bigtable.io import TableHandle, VerifyReport
    from ..datasets.model import Dataset
    from ..schema.schema import Schema

CSV = "your CSV…"
SIZES = ("tiny", "small", "workshop")
TABS = (
    "heatmap",
    "nodes",
    "hotspot",
    "rowsizes",
    "queries",
    "advisor",
    "schema",
    "emulator",
    "compare",
)
TAB_TITLES = {
    **{k: v[0] for k, v in R.FIGURES.items()},
    "advisor": "Advisor",
    "schema": "Schema & cbt",
    "emulator": "Emulator",
    "compare": "Compare",
}
LEFT_WIDTH = "290px"  # one control group: the grid fits 3 across at 1280 px with the file browser
# JupyterLab shrinks nine tab titles to a few letters at 1280 px: let them keep their width and wrap
_STYLE = (
    "<style>.wb-designer .lm-TabBar-content{flex-wrap:wrap}"
    ".wb-designer .lm-TabBar-tab{flex:0 0 auto!important;min-width:auto!important;max-width:none!important}"
    ".wb-designer .widget-html-content{line-height:1.35}</style>"
)


# ipywidgets' TagsInput adds a typed tag on the input's "change" event, which Chromium fires
# when focus leaves the field but not on Enter: "type a segment, press Enter" did nothing until
# the attendee clicked elsewhere. Enter in the designer's key editor commits the typed segment.
_TAGS_ENTER_JS = """(() => { if (window.__wbTagsEnter) return; window.__wbTagsEnter = true;
document.addEventListener('keydown', e => { const t = e.target;
  if (e.key === 'Enter' && t instanceof HTMLInputElement && t.value.trim()
      && t.classList.contains('jupyter-widget-taginput') && t.closest('.wb-designer')) {
    t.dispatchEvent(new Event('change')); } }, true); })();"""


def _lay(**kw: Any) -> W.Layout:
    return W.Layout(**kw)


def _button(**kw: Any) -> W.Button:
    """A button as wide as its label: ipywidgets' fixed default width cut labels to "Apply su…"."""
    return W.Button(layout=_lay(width="auto", min_width="max-content", flex="0 0 auto"), **kw)


def _finding_fields(f: Finding) -> dict[str, Any]:
    """The parts of an advisor finding the panel shows."""
    return {
        "guideline": f.ids or f.guideline,
        "severity": f.severity,
        "message": f.message or f.title or str(f),
        "evidence": str(f.evidence or ""),
        "suggestion": f.suggestion,
    }


def cbt_commands(schema: Schema, ds: Dataset | None = None) -> str:
    """The ``cbt`` commands that create this design's table(s), families and GC rules (``wb.export``)."""
    from ..advisor.export import export

    out = export(schema, ds, table_id=table_id_for(ds, schema) if ds is not None else None)
    return out.cbt_script()


def table_id_for(ds: Dataset, schema: Schema) -> str:
    """A readable, valid table ID per design: ``<dataset>-<design>-<hash>`` (edited designs differ by hash)."""
    import hashlib

    from ..bigtable.admin import default_table_id

    digest = hashlib.sha1(repr(schema).encode()).hexdigest()[:8]
    return f"{default_table_id(ds.name, schema.name or 'design')[:31]}-{digest}"


def write_to_emulator(
    ds: Dataset, schema: Schema, *, emulator: Emulator | None = None, progress: bool = True
) -> tuple[TableHandle, VerifyReport]:
    """Create the design's table(s) in the emulator, write ``ds`` with a progress bar, read back and
    verify: (TableHandle, VerifyReport). The tables are dropped by ``wb.cleanup()``."""
    from ..session import register_table

    if emulator is None:
        from ..session import emulator as _emulator

        emulator = _emulator()
    table = emulator.load(ds, schema, table_id=table_id_for(ds, schema), progress=progress)
    for physical in table.tables.values():
        register_table(physical)
    verification = table.verification or table.verify()
    return table, verification


def _gallery_name(ds: Dataset, schema: Schema) -> str | None:
    """The gallery design ``schema`` is, whatever its name says (None if it is none of them)."""
    from dataclasses import replace

    def bare(s: Any) -> Any:  # the design itself: its name and prose do not change what it does
        return replace(s, name="", description="", guidelines=())

    mine = bare(schema)
    for name in patterns_for(ds):
        try:
            if bare(schema_for(ds, name)) == mine:
                return name
        except Exception:  # a gallery entry that cannot be built for this dataset is not a match
            continue
    return None


class Designer(W.VBox):
    """The schema designer app. ``controls`` holds every widget; ``schema`` / ``analysis`` the current design."""

    def __init__(
        self,
        ds: Dataset | str | None = None,
        schema: Schema | None = None,
        *,
        size: str = "workshop",
        nodes: int = 3,
        emulator: Emulator | None = None,
        workspace: Workspace | None = None,
    ) -> None:
        super().__init__(layout=_lay(width="100%"))
        self.ws = workspace or Workspace()
        self.emulator = emulator
        self.ds: Any = None  # set by _start before any view reads it
        self.base: Any = None
        self.schema: Any = None  # likewise
        self.analysis: Any = None
        self.error: BaseException | None = None
        self.pinned: Any = None
        self.findings: list[Any] = []
        self.table: Any = None
        self.verification: Any = None
        self.comparison: Any = None
        self.timings_ms: dict[str, float] = {}
        self._custom: dict[str, Any] = {}
        self._extra_bases: dict[str, Any] = {}
        self._syncing = False
        self._stale: set[str] = set(TABS)
        self._build(size, nodes)
        if isinstance(ds, str):
            ds = self.ws.dataset(ds, size)
        self._with_log(self._start)(ds, schema)

    # ------------------------------------------------------------------ widgets
    def _build(self, size: str, nodes: int) -> None:
        from ..datasets import dataset_names

        c = SimpleNamespace()
        c.dataset = W.Dropdown(
            options=[*dataset_names(), CSV],
            description="dataset",
            style={"description_width": "100px"},
            layout=_lay(width="100%"),
        )
        c.size = W.ToggleButtons(
            options=SIZES,
            value=size if size in SIZES else "workshop",
            style={"button_width": "auto"},
            tooltips=["1k events", "5k events", "30k events"],
        )
        # bring your own CSV
        c.csv_upload = W.FileUpload(accept=".csv", multiple=False, description="Upload CSV")
        c.csv_path = W.Text(
            placeholder="…or a path, e.g. ../datasets/energy_meters.csv",
            description="path",
            layout=_lay(width="100%"),
        )
        c.csv_read = _button(description="Read columns", icon="table")
        c.csv_entity = W.SelectMultiple(description="entity", rows=3, layout=_lay(width="100%"))
        c.csv_time = W.Dropdown(description="time", layout=_lay(width="100%"))
        c.csv_measures = W.SelectMultiple(description="measures", rows=3, layout=_lay(width="100%"))
        c.csv_tz = W.Text(value="UTC", description="naive tz", layout=_lay(width="100%"))
        c.csv_load = _button(description="Load CSV", button_style="primary", icon="upload")
        self.csv_status = W.HTML()
        # your own data's queries, a line each (wb.from_csv's queries=): shown for your data
        c.queries = W.Textarea(
            placeholder="one query per line, e.g.\nlatest 1 per sensor\nsensor=S1 over 1 day",
            rows=4,
            layout=_lay(width="100%"),
        )
        c.queries_apply = _button(description="Cost these queries", icon="check")
        self.queries_status = W.HTML()
        self.queries_box = W.VBox(
            [
                W.HTML(
                    "<b>Your queries</b> <small>(a line each; the design is costed on them)</small>"
                ),
                c.queries,
                c.queries_apply,
                self.queries_status,
            ],
            layout=_lay(display="none", width="100%"),
        )
        self.csv_box = W.VBox(
            [
                c.csv_upload,
                c.csv_path,
                c.csv_read,
                c.csv_entity,
                c.csv_time,
                c.csv_measures,
                c.csv_tz,
                c.csv_load,
                self.csv_status,
            ],
            layout=_lay(display="none", border="1px solid #ddd", padding="4px"),
        )
        # the design
        c.pattern = W.Dropdown(
            description="design", style={"description_width": "100px"}, layout=_lay(width="100%")
        )
        c.segments = W.TagsInput(allow_duplicates=False, layout=_lay(width="100%"))
        c.precision = W.Dropdown(
            description="time precision",
            style={"description_width": "100px"},
            layout=_lay(width="100%"),
        )
        c.reversed = W.Checkbox(description="reversed timestamp (G09)", indent=False)
        c.salt_buckets = W.IntSlider(
            value=1,
            min=1,
            max=16,
            description="salt buckets",
            style={"description_width": "100px"},
            layout=_lay(width="100%"),
            continuous_update=False,
        )
        c.bucket = W.Dropdown(
            description="bucket width",
            style={"description_width": "100px"},
            layout=_lay(width="100%"),
        )
        c.layout = W.Dropdown(
            description="layout", style={"description_width": "100px"}, layout=_lay(width="100%")
        )
        c.nodes = W.IntSlider(
            value=nodes,
            min=1,
            max=12,
            description="nodes (model)",
            style={"description_width": "100px"},
            layout=_lay(width="100%"),
            continuous_update=False,
        )
        c.families = []  # (name, max age days, versions) per family slot
        self.families_box = W.VBox()
        c.pin = _button(
            description="Pin this design",
            icon="thumb-tack",
            tooltip="Keep this design and compare the next ones with it",
        )
        c.unpin = _button(description="Unpin", icon="times", disabled=True)
        c.write = _button(description="Write to emulator", button_style="success", icon="database")
        c.heatmap_what = W.ToggleButtons(
            options=["writes", "reads", "ops", "pressure", "data"],
            value="writes",
            style={"button_width": "auto"},
        )
        c.apply = []  # one button per suggested fix
        self.controls = c

        self.status = W.HTML()
        self.log_out = W.Output(layout=_lay(max_height="160px", overflow="auto"))
        self.keys_js = W.Output(layout=_lay(display="none"))
        self.keys_js.outputs = (
            {
                "output_type": "display_data",
                "metadata": {},
                "data": {"application/javascript": _TAGS_ENTER_JS, "text/plain": ""},
            },
        )
        self.headline = W.HTML()
        self.design_panel = W.HTML()
        self.cbt_panel = W.HTML()
        self.figures = {k: W.Output(layout=_lay(min_height="120px")) for k in R.FIGURES}
        self.advisor_panel = W.VBox()
        self.emulator_out = W.Output()
        self.emulator_panel = W.HTML()
        self.pinned_panel = W.HTML()
        self.compare_out = W.Output()
        panels = {k: self.figures[k] for k in R.FIGURES}
        panels["heatmap"] = W.VBox([c.heatmap_what, self.figures["heatmap"]])
        panels["advisor"] = self.advisor_panel
        panels["schema"] = W.VBox([self.design_panel, self.cbt_panel])
        panels["emulator"] = W.VBox(
            [
                W.HTML(
                    "Creates the design's table(s), families and GC rules in the emulator, "
                    "writes every cell, reads the table back and compares."
                ),
                c.write,
                self.emulator_out,
                self.emulator_panel,
            ]
        )
        panels["compare"] = W.VBox([W.HBox([c.pin, c.unpin]), self.pinned_panel, self.compare_out])
        self.tabs = W.Tab(children=[panels[k] for k in TABS], titles=[TAB_TITLES[k] for k in TABS])

        self.segment_hint = hint = W.HTML()
        group = _lay(width="100%", min_width="0")
        # the controls as a grid of small groups across the width (not one tall column), so the
        # numbers and the first figure are on screen at 1280×800 with the file browser open
        left = W.GridBox(
            [
                W.VBox(
                    [
                        W.HTML("<b>Data</b>"),
                        c.dataset,
                        W.HBox([W.Label("size", layout=_lay(width="94px")), c.size]),
                        self.csv_box,
                        self.queries_box,
                    ],
                    layout=group,
                ),
                W.VBox(
                    [W.HTML("<b>Design</b>"), c.pattern, c.segments, hint, c.layout], layout=group
                ),
                W.VBox(
                    [
                        W.HTML("<b>Key details</b>"),
                        c.precision,
                        c.reversed,
                        c.salt_buckets,
                        c.bucket,
                    ],
                    layout=group,
                ),
                W.VBox(
                    [
                        W.HTML(
                            "<b>Families</b> <small>(max age in days, max versions; 0 = no rule)</small>"
                        ),
                        self.families_box,
                        W.HTML("<b>Model</b>"),
                        c.nodes,
                    ],
                    layout=group,
                ),
            ],
            layout=_lay(
                width="100%",
                grid_template_columns=f"repeat(auto-fill, minmax({LEFT_WIDTH}, 1fr))",
                grid_gap="0 12px",
            ),
        )
        right = W.VBox([self.headline], layout=_lay(width="100%", min_width="0"))
        self.title = W.HTML()
        self.add_class("wb-designer")
        # controls, then the numbers, then the pictures at full width (readable at 1280 px)
        self.children = [
            self.title,
            self.status,
            left,
            right,
            self.tabs,
            self.log_out,
            self.keys_js,
        ]

        # wiring: every callback runs inside the log Output
        c.dataset.observe(self._with_log(self._on_dataset), names="value")
        c.size.observe(self._with_log(self._on_size), names="value")
        c.pattern.observe(self._with_log(self._on_pattern), names="value")
        for w in (c.segments, c.precision, c.reversed, c.salt_buckets, c.bucket, c.layout):
            w.observe(self._with_log(self._on_control), names="value")
        c.nodes.observe(self._with_log(self._on_nodes), names="value")
        c.heatmap_what.observe(self._with_log(self._on_heatmap_what), names="value")
        self.tabs.observe(self._with_log(self._on_tab), names="selected_index")
        c.csv_read.on_click(self._with_log(lambda _: self._read_csv_columns()))
        c.csv_upload.observe(self._with_log(lambda _: self._read_csv_columns()), names="value")
        c.csv_load.on_click(self._with_log(lambda _: self._load_csv_from_controls()))
        c.queries_apply.on_click(self._with_log(lambda _: self.set_queries(c.queries.value)))
        c.pin.on_click(self._with_log(lambda _: self.pin()))
        c.unpin.on_click(self._with_log(lambda _: self.unpin()))
        c.write.on_click(self._with_log(lambda _: self.write()))

    def _with_log(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Run a callback inside the log Output; a workbench error becomes the red status line."""

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            with self.log_out:
                try:
                    return fn(*args, **kwargs)
                except WorkbenchError as exc:
                    self._fail(exc)
                    return None

        return run

    def _fail(self, exc: BaseException) -> None:
        self.error = exc
        self.status.value = R.error_html(exc)

    # ------------------------------------------------------------------ datasets
    def _start(self, ds: Dataset, schema: Schema) -> None:
        from ..datasets import dataset_names

        if ds is None:
            ds = self.ws.dataset(dataset_names()[0], self.controls.size.value)
        self.set_dataset(ds, schema=schema)

    def set_dataset(self, ds: Dataset, *, schema: Schema | None = None) -> None:
        """Show ``ds`` (a named sample or your own); its design gallery fills the design picker."""
        from ..datasets import dataset_names

        c = self.controls
        self.ds = ds
        self._syncing = True
        try:
            named = ds.name in dataset_names() and ds.size in SIZES
            if named:
                c.dataset.value = ds.name
                c.size.value = ds.size
            else:
                label = f"{ds.name} (yours)"
                self._custom[label] = ds
                opts = [o for o in c.dataset.options if o != CSV and o != label] + [label, CSV]
                c.dataset.options = opts
                c.dataset.value = label
            c.size.disabled = not named
            self.csv_box.layout.display = "none"
            self.queries_box.layout.display = "none" if named else "flex"
            c.queries.value = "\n".join(q.text or q.name for q in ds.queries)
            self.queries_status.value = ""
            self._extra_bases = {}
            c.pattern.options = patterns_for(ds)
            c.pattern.value = c.pattern.options[0]
        finally:
            self._syncing = False
        self.set_schema(schema if schema is not None else schema_for(ds, c.pattern.options[0]))

    def _on_dataset(self, change: dict) -> None:
        if self._syncing:
            return
        v = change["new"]
        if v == CSV:
            self.csv_box.layout.display = "flex"
            self.queries_box.layout.display = "flex"  # state them before loading, or after
            self.controls.queries.value = ""
            self.status.value = R.note_html(
                "Upload a CSV (or give its path), read its columns, pick the entity, "
                "time and measure columns, then Load CSV."
            )
            return
        ds = self._custom.get(v) or self.ws.dataset(v, self.controls.size.value)
        self.set_dataset(ds)

    def _on_size(self, change: dict) -> None:
        if self._syncing or self.ds is None or self.ds.name not in self.controls.dataset.options:
            return
        self.set_dataset(self.ws.dataset(self.ds.name, change["new"]))

    # ------------------------------------------------------------------ bring your own CSV
    def _csv_source(self) -> Path:
        c = self.controls
        up = c.csv_upload.value
        if up:
            item = up[0] if isinstance(up, (tuple, list)) else next(iter(up.values()))
            name = Path(str(item.get("name") or "upload.csv")).name
            folder = Path(tempfile.mkdtemp(prefix="wb-csv-"))
            path = folder / name
            path.write_bytes(bytes(item["content"]))
            c.csv_path.value = str(path)
            c.csv_upload.value = ()
            return path
        if not c.csv_path.value.strip():
            from ..errors import DatasetError

            raise DatasetError("Choose a CSV file: upload one or type its path.")
        return Path(c.csv_path.value.strip()).expanduser()

    def _read_csv_columns(self) -> None:
        from ..datasets.byo import csv_columns
        from ..errors import DatasetError

        c = self.controls
        path = self._csv_source()
        if not path.is_file():
            raise DatasetError(f"No CSV file at {str(path)!r}.")
        cols = csv_columns(path)  # the header as from_csv reads it (';', BOM)
        c.csv_entity.options = cols
        c.csv_time.options = cols
        c.csv_measures.options = cols
        guess_t = next(
            (x for x in cols if x.lower() in ("time", "timestamp", "date", "ts", "datetime")),
            cols[0],
        )
        c.csv_time.value = guess_t
        self.csv_status.value = R.note_html(
            f"{len(cols)} columns: {', '.join(cols)}. Pick entity, time, measures."
        )

    def set_queries(self, lines: Any) -> Any:
        """Cost the current design on these queries (text, a line each, or a list); a
        DatasetError (a misspelled column, an unknown value) is shown under the box."""
        from ..datasets.queries import with_queries
        from ..errors import DatasetError

        items = [ln.strip() for ln in lines.splitlines()] if isinstance(lines, str) else list(lines)
        items = [ln for ln in items if ln and not (isinstance(ln, str) and ln.startswith("#"))]
        if not items:
            self.queries_status.value = R.error_html(
                DatasetError("State at least one query, e.g. 'latest 1 per sensor'.")
            )
            return None
        try:
            ds = with_queries(self.ds, items)
        except DatasetError as exc:
            self.queries_status.value = R.error_html(exc)
            return None
        schema = self.schema
        self.set_dataset(ds, schema=schema)
        self.queries_status.value = R.note_html(
            f"Costed on {len(ds.queries)} quer{'y' if len(ds.queries) == 1 else 'ies'}.", "good"
        )
        return ds

    def _load_csv_from_controls(self) -> None:
        c = self.controls
        typed = [ln.strip() for ln in c.queries.value.splitlines() if ln.strip()]
        self.load_csv(
            self._csv_source(),
            entity=list(c.csv_entity.value) or None,  # none picked: one series
            time=c.csv_time.value,
            measures=list(c.csv_measures.value),
            naive_tz=c.csv_tz.value.strip() or None,
            **({"queries": typed} if typed and self.queries_box.layout.display != "none" else {}),
        )

    def load_csv(self, path: Any, *, entity: Any, time: str, measures: Any, **kwargs: Any) -> Any:
        """``wb.from_csv`` on a file and show it; a DatasetError is shown in the CSV panel, not raised."""
        from ..datasets import from_csv
        from ..errors import DatasetError

        try:
            ds = from_csv(path, entity=entity, time=time, measures=measures, **kwargs)
        except DatasetError as exc:
            self.csv_box.layout.display = "flex"
            self.csv_status.value = R.error_html(exc)
            self._fail(exc)
            return None
        self.csv_status.value = R.note_html(
            f"Loaded {len(ds):,} events from {Path(path).name}; costed on "
            + "; ".join(q.text or q.name for q in ds.queries)
            + " (edit them under Your queries).",
            "good",
        )
        self.set_dataset(ds)
        return ds

    # ------------------------------------------------------------------ designs
    def set_schema(self, schema: Schema, *, label: str | None = None) -> None:
        """Make ``schema`` the design's base (a preset, yours, or an advisor suggestion) and show it."""
        c = self.controls
        # a suggestion that is a gallery design is named and selected as that design
        same = _gallery_name(self.ds, schema)
        if same is not None:
            schema = schema_for(self.ds, same)
        preset = schema.name in patterns_for(self.ds) and schema == schema_for(self.ds, schema.name)
        if preset:
            self._syncing = True
            try:
                c.pattern.value = schema.name
            finally:
                self._syncing = False
        else:
            lab = label or f"★ {schema.name}"
            self._extra_bases[lab] = schema
            self._syncing = True
            try:
                c.pattern.options = [*[o for o in c.pattern.options if o != lab], lab]
                c.pattern.value = lab
            finally:
                self._syncing = False
        self._set_base(schema)

    def _on_pattern(self, change: dict) -> None:
        if self._syncing:
            return
        v = change["new"]
        base = self._extra_bases.get(v) or schema_for(self.ds, v)
        self._set_base(base)

    def _set_base(self, base: Any) -> None:
        self.base = base
        self._sync_controls(base)
        self._show(base)

    def _sync_controls(self, schema: Schema) -> None:
        """Set every control from a schema; disable the ones that do not apply (no callbacks fire)."""
        c = self.controls
        st = state_from_schema(schema)
        ap = applicable(schema)
        self._syncing = True
        try:
            # no allowed_tags: with them the editor gets a <datalist>, whose suggestion popup
            # swallows Enter in Chromium (the typed segment was added only when focus moved); an
            # unknown segment is refused by the kernel with the design's segments named
            c.segments.allowed_tags = []
            self._segment_hint(st.segments, schema)
            c.segments.value = list(st.segments)
            c.precision.options = ap.precisions if ap.precision else ["—"]
            c.precision.value = st.precision if ap.precision else "—"
            c.precision.disabled = not ap.precision
            c.reversed.value = st.reversed
            c.reversed.disabled = not ap.reversed
            c.salt_buckets.value = st.salt_buckets
            c.salt_buckets.disabled = not ap.salt
            c.bucket.options = bucket_choices(schema) if ap.bucket else ["—"]
            c.bucket.value = st.bucket if ap.bucket else "—"
            c.bucket.disabled = not ap.bucket
            c.layout.options = ap.layouts
            c.layout.value = st.layout
            c.layout.disabled = not ap.layout
            self._build_families(st.families)
        finally:
            self._syncing = False

    def _segment_hint(self, shown: tuple[str, ...], schema: Any) -> None:
        """How to edit the key, naming the segments that can be typed back in."""
        base = segment_labels(self.base.key) if self.base is not None else ()
        back = [s for s in base if s not in shown]  # salt: the salt-buckets slider
        more = f"; type + Enter to add back: {', '.join(back)}" if back else ""
        self.segment_hint.value = (
            f"<small>key segments: drag to reorder, × to drop{html.escape(more)}</small>"
        )

    def _build_families(self, edits: tuple[FamilyEdit, ...]) -> None:
        c = self.controls
        rows, c.families = [], []
        for e in edits:
            role = (
                "aggregates"
                if e.role == "aggregates"
                else (e.role.split(":", 1)[1] if ":" in e.role else "data")
            )
            name = W.Text(
                value=e.name,
                description=role,
                style={"description_width": "60px"},
                layout=_lay(width="130px"),
            )
            age = W.BoundedIntText(
                value=e.max_age_days,
                min=0,
                max=36500,
                layout=_lay(width="78px"),
                tooltip="max age in days (0: none)",
            )
            vers = W.BoundedIntText(
                value=e.max_versions,
                min=0,
                max=10_000_000,
                layout=_lay(width="92px"),
                tooltip="max versions (0: none)",
            )
            for w in (name, age, vers):
                w.observe(self._with_log(self._on_control), names="value")
            c.families.append((name, age, vers))
            rows.append(W.HBox([name, age, vers]))
        self.families_box.children = rows
        self._family_roles = [e.role for e in edits]

    def state(self) -> DesignState:
        """The controls as a DesignState."""
        c = self.controls
        fams = tuple(
            FamilyEdit(role, n.value, int(a.value or 0), int(v.value or 0))
            for role, (n, a, v) in zip(self._family_roles, c.families, strict=True)
        )
        segs = tuple(c.segments.value)
        salt = int(c.salt_buckets.value)
        if salt > 1 and SALT not in segs:
            segs = (SALT, *segs)
        if salt <= 1:
            segs = tuple(s for s in segs if s != SALT)
        return DesignState(
            segments=segs,
            precision=None if c.precision.disabled else c.precision.value,
            reversed=bool(c.reversed.value),
            salt_buckets=salt,
            bucket=None if c.bucket.disabled else c.bucket.value,
            layout=c.layout.value,
            families=fams,
        )

    def _on_control(self, change: dict) -> None:
        if self._syncing:
            return
        editor: Any = self.controls.segments
        if id(change.get("owner")) == id(editor):  # a segment typed back returns to its place
            placed = place_added(
                tuple(change["old"]), tuple(change["new"]), segment_labels(self.base.key)
            )
            if placed != tuple(change["new"]):
                self._syncing = True
                try:
                    editor.value = list(placed)
                finally:
                    self._syncing = False
        schema = designer_state_to_schema(self.base, self.state())
        # keep dependent controls truthful (e.g. salt added to the segment list, reversible precisions)
        self._sync_controls_light(schema)
        self._show(schema)

    def _sync_controls_light(self, schema: Schema) -> None:
        c = self.controls
        st, ap = state_from_schema(schema), applicable(schema)
        self._syncing = True
        try:
            if tuple(c.segments.value) != st.segments:
                c.segments.value = list(st.segments)
            self._segment_hint(st.segments, schema)
            if ap.precision and tuple(c.precision.options) != tuple(ap.precisions):
                c.precision.options = ap.precisions
                c.precision.value = st.precision
        finally:
            self._syncing = False

    def _on_nodes(self, change: dict) -> None:
        if not self._syncing and self.schema is not None:
            self._show(self.schema)

    def _on_heatmap_what(self, change: dict) -> None:
        self._stale.add("heatmap")
        self._render_tab("heatmap")

    # ------------------------------------------------------------------ showing a design
    def _show(self, schema: Schema) -> None:
        t0 = time.perf_counter()
        try:
            a = self.ws.analysis(self.ds, schema, nodes=int(self.controls.nodes.value))
        except WorkbenchError as exc:
            self._fail(exc)
            self.headline.value = R.note_html(
                "The figures below still show the last design that worked.", "bad"
            ) + (R.headline_html(self.analysis) if self.analysis is not None else "")
            return
        t1 = time.perf_counter()
        self.schema, self.analysis, self.error = schema, a, None
        self.findings = []
        self.title.value = _STYLE + (
            f"<h3 style='margin:4px 0'>Schema designer · {html.escape(self.ds.name)} "
            f"({len(self.ds):,} events) · <code>{html.escape(schema.name)}</code></h3>"
        )
        self.status.value = ""
        self.headline.value = R.headline_html(a)
        self._stale = set(TABS)
        self._prefetch()
        visible = TABS[self.tabs.selected_index or 0]
        self._render_tab(visible)
        for k in TABS:
            if k != visible and k in R.FIGURES:
                self.figures[k].outputs = (
                    R.html_bundle("<i>Open this tab to draw it for the current design.</i>"),
                )
        self.timings_ms = {"analysis": (t1 - t0) * 1e3, "render": (time.perf_counter() - t1) * 1e3}

    def _prefetch(self) -> None:
        """Analyse the dataset's other gallery designs while the kernel is idle, one per turn of
        its event loop, so picking one later shows it at once (a new design's analysis is most
        of a design change). Only inside a running kernel: plain Python and tests stay lazy."""
        import asyncio

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        ds, nodes = self.ds, int(self.controls.nodes.value)
        todo = list(patterns_for(ds))
        self._prefetch_round = round_ = getattr(self, "_prefetch_round", 0) + 1

        def step() -> None:
            if self._prefetch_round != round_:
                return  # a newer change started its own round
            while todo:
                try:
                    schema = schema_for(ds, todo.pop(0))
                except Exception:  # noqa: BLE001 - a gallery entry this data cannot build
                    continue
                if self.ws.cached(ds, schema):
                    continue
                try:
                    self.ws.analysis(ds, schema, nodes=nodes)
                except Exception:  # noqa: BLE001 - shown when picked, not while prefetching
                    pass
                break
            if todo:
                loop.call_later(0.05, step)

        loop.call_later(0.3, step)

    def _on_tab(self, change: dict) -> None:
        if change["new"] is not None:
            self._render_tab(TABS[change["new"]])

    def _render_tab(self, which: str) -> None:
        if which not in self._stale or self.analysis is None:
            return
        a = self.analysis
        if which == "heatmap":  # HTML around a raster: milliseconds instead of a matplotlib draw
            what = self.controls.heatmap_what.value
            self.figures[which].outputs = (
                R.html_bundle(self.ws.heatmap(a, what), f"<key heat map of {a.schema}>"),
            )
        elif which in ("rowsizes", "queries", "nodes", "hotspot"):  # HTML: as fast as the heat map
            self.figures[which].outputs = (
                R.html_bundle(self.ws.html(a, which), f"<{which} of {a.schema}>"),
            )
        elif which in R.FIGURES:
            png = self.ws.figure(a, which)
            self.figures[which].outputs = (R.png_bundle(png, f"{which} of {a.schema}"),)
        elif which == "advisor":
            self._render_advisor()
        elif which == "schema":
            self.design_panel.value = R.design_html(self.ds, self.schema)
            self.cbt_panel.value = R._box(
                "<h4>cbt commands</h4><pre data-cbt>"
                + html.escape(cbt_commands(self.schema, self.ds))
                + "</pre>"
            )
        elif which == "compare":
            self._render_compare()
        self._stale.discard(which)

    def render_all(self) -> None:
        """Draw every tab for the current design (what a saved notebook or report will show)."""
        for k in TABS:
            if k != "emulator":
                self._render_tab(k)

    # ------------------------------------------------------------------ advisor
    def _render_advisor(self) -> None:
        c = self.controls
        self.findings = self.ws.advice(self.ds, self.schema, int(self.controls.nodes.value))
        rows: list[W.Widget] = []
        c.apply = []
        if not self.findings:
            rows.append(
                W.HTML(
                    R.note_html(
                        "No findings: the advisor has nothing to improve in this design.", "good"
                    )
                )
            )
        for f in self.findings:
            ff = _finding_fields(f)
            text = (
                f._repr_html_()
                if hasattr(f, "_repr_html_")
                else R._box(
                    f"<b>{html.escape(ff['guideline'])}</b> {html.escape(ff['severity'])} {html.escape(ff['message'])}"
                )
            )
            item: list[W.Widget] = [W.HTML(text, layout=_lay(flex="1 1 auto"))]
            if ff["suggestion"] is not None:
                b = _button(
                    description="Apply suggestion",
                    icon="magic",
                    button_style="info",
                    tooltip="Switch to "
                    + str(
                        _gallery_name(self.ds, ff["suggestion"])
                        or getattr(ff["suggestion"], "name", "the suggested design")
                    ),
                )
                b.on_click(self._with_log(functools.partial(self._apply, ff["suggestion"])))
                c.apply.append(b)
                item.append(b)
            rows.append(
                W.HBox(item, layout=_lay(border_bottom="1px solid #eee", align_items="center"))
            )
        self.advisor_panel.children = rows

    def _apply(self, suggestion: Any, _button: Any = None) -> None:
        self.set_schema(suggestion)
        self._render_tab("advisor")

    def show_tab(self, name: str) -> None:
        """Open tab ``name`` (one of ``TABS``: "heatmap", "advisor", "compare"…) and draw it."""
        if name not in TABS:
            raise WorkbenchError(f"No tab {name!r}; the designer's tabs are {', '.join(TABS)}.")
        self.tabs.selected_index = TABS.index(name)

    def apply_suggestion(self, i: int = 0) -> None:
        """Click finding ``i``'s "Apply suggestion" button (from Python)."""
        if "advisor" in self._stale:
            self._render_tab("advisor")
        self.controls.apply[i].click()

    # ------------------------------------------------------------------ compare
    def pin(self) -> None:
        """Pin the current design; the Compare tab shows it beside whatever you design next."""
        if self.schema is None:
            return
        self.pinned = self.schema
        self.controls.unpin.disabled = False
        self.pinned_panel.value = R.note_html(
            f"Pinned: {self.schema.name}. Change the design; the comparison below follows."
        )
        self._stale.add("compare")
        if TABS[self.tabs.selected_index or 0] == "compare":
            self._render_tab("compare")

    def unpin(self) -> None:
        self.pinned = None
        self.comparison = None
        self.controls.unpin.disabled = True
        self.pinned_panel.value = ""
        self.compare_out.outputs = ()

    def _render_compare(self) -> None:
        from ..analysis.comparison import compare_analyses

        if self.pinned is None:
            self.compare_out.outputs = (
                R.html_bundle(
                    R.note_html("Pin a design, change it, and compare the two here side by side.")
                ),
            )
            return
        # the same analyses (same node count) feed the heat maps, the table and the ranking
        nodes = int(self.controls.nodes.value)
        analyses = {
            "pinned: " + self.pinned.name: self.ws.analysis(self.ds, self.pinned, nodes=nodes),
            "current: " + self.schema.name: self.ws.analysis(self.ds, self.schema, nodes=nodes),
        }
        from .bars import comparison_html

        cmp = compare_analyses(self.ds, analyses)
        self.comparison = cmp
        maps = []  # one above the other at full size: side by side they shrink to unreadable thumbnails
        for lab, a in analyses.items():
            maps.append(f"<h4>{html.escape(lab)}</h4>" + self.ws.heatmap(a, "writes"))
        self.compare_out.outputs = (
            R.html_bundle(R._box("".join(maps)), "pinned vs current heat maps"),
            R.html_bundle(comparison_html(cmp), repr(cmp.table)),
        )

    # ------------------------------------------------------------------ emulator
    def write(self) -> Any:
        """Write the current design to the emulator (progress bar), read it back and show the verification."""
        if self.schema is None:
            return None
        self.emulator_panel.value = ""
        self.emulator_out.outputs = ()
        with self.emulator_out:
            table, verification = write_to_emulator(
                self.ds, self.schema, emulator=self.emulator, progress=True
            )
        self.table, self.verification = table, verification
        ok = bool(getattr(verification, "ok", verification))
        body = (
            verification._repr_html_()
            if hasattr(verification, "_repr_html_")
            else f"<pre>{html.escape(repr(verification))}</pre>"
        )
        head = (
            f"<p class='{'good' if ok else 'bad'}' data-verified='{str(ok).lower()}'><b>"
            f"{'Verified' if ok else 'Verification FAILED'}</b>: table "
            f"<code>{html.escape(str(getattr(table, 'table_id', getattr(table, 'name', table))))}</code></p>"
        )
        self.emulator_panel.value = R._box(head + body)
        return verification


__all__ = ["Designer", "cbt_commands", "write_to_emulator"]
