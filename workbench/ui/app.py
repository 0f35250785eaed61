"""``wb.designer(ds)``: the interactive schema designer, a thin ipywidgets layer.

Every callback does three things: read the controls into a :class:`DesignState`, turn it into
a Schema (:func:`designer_state_to_schema`), and show the cached analysis of that schema
(:class:`Workspace`, :mod:`._render`). Callbacks run inside the designer's log ``Output`` so
their prints and tracebacks are visible; workbench errors (a bad CSV, a design that collides)
are shown as a red message.

Only the visible tab is drawn after a change; the others are drawn when opened.
Drive it from Python as tests and the benchmark do::

    d = wb.designer("fx_prices")
    d.controls.pattern.value = "timestamp_first"
    d.analysis.keyspace.mean_share            # ≈ 1.0: one node takes the writes (G06)

This module holds the designer's state and what it does with a design; the rest is one module
per job: :mod:`.layout` the widget tree, :mod:`.handlers` the change handlers, one module per
tab (:mod:`.figure_tabs`, :mod:`.advisor_tab`, :mod:`.schema_tab`, :mod:`.emulator_tab`,
:mod:`.compare_tab`) and :mod:`.owndata` your own CSV and queries.
"""

from __future__ import annotations

import contextlib
import functools
import html
import time
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import ipywidgets as W

from ..errors import WorkbenchError
from ..schema.gallery import patterns_for, schema_for
from . import (
    _render as R,
)
from . import (
    compare_tab,
    emulator_tab,
    figure_tabs,
    handlers,
    layout,
    owndata,
)
from .emulator_tab import table_id_for, write_to_emulator
from .layout import CSV, SIZES, STYLE
from .model import Workspace
from .schema_tab import cbt_commands
from .state import DesignState
from .tabs import registry

if TYPE_CHECKING:  # pragma: no cover
    from ..bigtable.emulator import Emulator
    from ..datasets.model import Dataset
    from ..schema.schema import Schema

# the tabs in tab-bar order, by name, and their titles (the registry: ui/tabs.py)
TABS = tuple(t.name for t in registry())
TAB_TITLES = {t.name: t.title for t in registry()}

# the names tests, the benchmark and notebooks import from here
__all__ = [
    "CSV",
    "SIZES",
    "TABS",
    "TAB_TITLES",
    "Designer",
    "cbt_commands",
    "table_id_for",
    "write_to_emulator",
]


class Designer(W.VBox):
    """The schema designer app. ``controls`` holds every widget; ``schema`` / ``analysis`` the current design."""

    # the widget tree (made by layout.build)
    controls: SimpleNamespace
    status: W.HTML
    title: W.HTML
    busy_sign: W.HTML
    headline: W.HTML
    segment_hint: W.HTML
    csv_status: W.HTML
    csv_box: W.VBox
    queries_status: W.HTML
    queries_box: W.VBox
    families_box: W.VBox
    log_out: W.Output
    keys_js: W.Output
    tabs: W.Tab
    tab_names: tuple[str, ...]  # the tabs in tab-bar order (ui/tabs.py's registry)
    figures: dict[str, W.Output]
    design_panel: W.HTML
    cbt_panel: W.HTML
    advisor_panel: W.VBox
    sheet_panel: W.HTML
    sheet: Any  # the current design's production sheet (analysis/sheet.py), once drawn
    emulator_out: W.Output
    emulator_panel: W.HTML
    pinned_panel: W.HTML
    compare_out: W.Output
    views_panel: W.HTML
    view_rollup_box: W.HBox
    view_index_box: W.VBox

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
        super().__init__(layout=layout.lay(width="100%"))
        self.ws = workspace or Workspace()
        self.emulator = emulator
        self.ds: Any = None  # set by start before any view reads it
        self.base: Any = None
        self.schema: Any = None  # likewise
        self.analysis: Any = None
        self.error: BaseException | None = None
        self.pinned: Any = None
        self.pinned_for: str | None = None  # the dataset the pinned design was pinned on
        self.written: Any = None  # (dataset name, design) the Emulator tab's last write wrote
        self.findings: list[Any] = []
        self.table: Any = None
        self.verification: Any = None
        self.comparison: Any = None
        self.timings_ms: dict[str, float] = {}
        self.custom: dict[str, Any] = {}  # your datasets, by their label in the picker
        self.extra_bases: dict[str, Any] = {}  # designs that are no gallery entry, by label
        self.family_roles: list[str] = []
        self.syncing = False  # controls being set from a schema: handlers do nothing
        self.stale: set[str] = set()  # tabs not drawn for the current design
        self.busy_depth = 0  # handlers running (the busy sign shows while > 0)
        self.prefetch_round = 0
        self.view_order_key: Any = None  # the key the Views tab's index order was made for
        self.view_bucket_for: str | None = None  # the dataset the rollup's bucket was chosen for
        layout.build(self, size, nodes)
        self.stale = set(self.tab_names)
        handlers.wire(self)
        if isinstance(ds, str):
            ds = self.ws.dataset(ds, size)
        self.with_log(self.start)(ds, schema)

    def with_log(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Run a callback inside the log Output and the busy state; a workbench error becomes the
        red status line, any other error too (its traceback still goes to the log)."""

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            with self.log_out, self.busy():
                try:
                    return fn(*args, **kwargs)
                except WorkbenchError as exc:
                    self.fail(exc)
                    return None
                except Exception as exc:
                    self.fail(exc)
                    self.busy_sign.value = (
                        "<small class='wb-failed' style='color:#b00'>⚠ A redraw failed: the "
                        "figures may still show the previous design (the error is below)."
                        "</small>"
                    )
                    raise

        return run

    @contextlib.contextmanager
    def busy(self) -> Iterator[None]:
        """The busy state around a change: an "updating…" sign and the headline and tabs dimmed,
        set before any work so the page shows it at once (widget state reaches the page as it is
        set); cleared when the outermost handler has drawn the headline and the open tab. A
        failed redraw's sign stays until the next change."""
        if self.busy_depth == 0:
            self.busy_sign.value = (
                "<small data-busy style='color:#555'>↻ updating… the headline and the open "
                "tab are redrawn for this change</small>"
            )
            self.add_class("wb-busy")
        self.busy_depth += 1
        try:
            yield
        finally:
            self.busy_depth -= 1
            if self.busy_depth == 0:
                self.remove_class("wb-busy")
                if "wb-failed" not in self.busy_sign.value:
                    self.busy_sign.value = ""

    def fail(self, exc: BaseException) -> None:
        self.error = exc
        self.status.value = R.error_html(exc)

    # ------------------------------------------------------------------ datasets
    def start(self, ds: Dataset | None, schema: Schema | None) -> None:
        from ..datasets import dataset_names

        if ds is None:
            ds = self.ws.dataset(dataset_names()[0], self.controls.size.value)
        self.set_dataset(ds, schema=schema)

    def set_dataset(self, ds: Dataset, *, schema: Schema | None = None) -> None:
        """Show ``ds`` (a named sample or your own); its design gallery fills the design picker."""
        from ..datasets import dataset_names

        c = self.controls
        self.ds = ds
        self.syncing = True
        try:
            named = ds.name in dataset_names() and ds.size in SIZES
            if named:
                c.dataset.value = ds.name
                c.size.value = ds.size
            else:
                label = f"{ds.name} (yours)"
                self.custom[label] = ds
                opts = [o for o in c.dataset.options if o != CSV and o != label] + [label, CSV]
                c.dataset.options = opts
                c.dataset.value = label
            c.size.disabled = not named
            self.csv_box.layout.display = "none"
            self.queries_box.layout.display = "none" if named else "flex"
            c.queries.value = "\n".join(q.text or q.name for q in ds.queries)
            self.queries_status.value = ""
            self.extra_bases = {}
            c.pattern.options = patterns_for(ds)
            c.pattern.value = c.pattern.options[0]
        finally:
            self.syncing = False
        compare_tab.dataset_changed(self)
        self.set_schema(schema if schema is not None else schema_for(ds, c.pattern.options[0]))

    def set_queries(self, lines: Any) -> Any:
        """Cost the current design on these queries (text, a line each, or a list); a
        DatasetError (a misspelled column, an unknown value) is shown under the box."""
        return owndata.set_queries(self, lines)

    def load_csv(self, path: Any, *, entity: Any, time: str, measures: Any, **kwargs: Any) -> Any:
        """``wb.from_csv`` on a file and show it; a DatasetError is shown in the CSV panel, not raised."""
        return owndata.load_csv(self, path, entity=entity, time=time, measures=measures, **kwargs)

    # ------------------------------------------------------------------ designs
    def set_schema(self, schema: Schema, *, label: str | None = None) -> None:
        """Make ``schema`` the design's base (a preset, yours, or an advisor suggestion) and show it."""
        c = self.controls
        # a suggestion that is a gallery design is named and selected as that design
        same = handlers.gallery_name(self.ds, schema)
        if same is not None:
            schema = schema_for(self.ds, same)
        preset = schema.name in patterns_for(self.ds) and schema == schema_for(self.ds, schema.name)
        if preset:
            self.syncing = True
            try:
                c.pattern.value = schema.name
            finally:
                self.syncing = False
        else:
            lab = label or f"★ {schema.name}"
            self.extra_bases[lab] = schema
            self.syncing = True
            try:
                c.pattern.options = [*[o for o in c.pattern.options if o != lab], lab]
                c.pattern.value = lab
            finally:
                self.syncing = False
        self.set_base(schema)

    def set_base(self, base: Any) -> None:
        """Make ``base`` the design the controls edit, set the controls from it and show it."""
        self.base = base
        handlers.sync_controls(self, base)
        self.show_design(base)

    def state(self) -> DesignState:
        """The controls as a DesignState."""
        return handlers.read_state(self)

    # ------------------------------------------------------------------ showing a design
    def show_design(self, schema: Schema) -> None:
        """Analyse ``schema`` (cached) and draw the visible tab; the others when they are opened."""
        t0 = time.perf_counter()
        try:
            a = self.ws.analysis(self.ds, schema, nodes=int(self.controls.nodes.value))
        except WorkbenchError as exc:
            self.fail(exc)
            self.headline.value = R.note_html(
                "The figures below still show the last design that worked.", "bad"
            ) + (R.headline_html(self.analysis) if self.analysis is not None else "")
            return
        t1 = time.perf_counter()
        self.schema, self.analysis, self.error = schema, a, None
        self.findings = []
        self.title.value = STYLE + (
            f"<h3 style='margin:4px 0'>Schema designer · {html.escape(self.ds.name)} "
            f"({len(self.ds):,} events) · <code>{html.escape(schema.name)}</code></h3>"
        )
        self.status.value = ""
        self.headline.value = R.headline_html(a)
        self.stale = set(self.tab_names)
        self.prefetch()
        visible = self.tab_names[self.tabs.selected_index or 0]
        for k in self.tab_names:  # placeholders first: never over a tab already drawn
            if k != visible and k in R.FIGURES:
                figure_tabs.placeholder(self, k)
            elif k != visible:  # another design's numbers: dimmed and signed until opened
                self.panel_of(k).add_class("wb-stale")
        self.render_tab(visible)
        self.timings_ms = {"analysis": (t1 - t0) * 1e3, "render": (time.perf_counter() - t1) * 1e3}

    def prefetch(self) -> None:
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
        self.prefetch_round = round_ = self.prefetch_round + 1

        def step() -> None:
            if self.prefetch_round != round_:
                return  # a newer change started its own round
            # the table IDs the Schema, Views and Emulator tabs name need the client library:
            # a second or more to import, paid here while idle rather than on the first click
            from ..bigtable import admin  # noqa: F401

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

    def render_tab(self, which: str) -> None:
        """Draw tab ``which`` if the current design has not been drawn there yet."""
        if which not in self.stale or self.analysis is None:
            return
        tab = next(t for t in registry() if t.name == which)  # the tab's own drawing
        if tab.render is not None:
            try:
                tab.render(self)
            except Exception as exc:
                # an open figure tab never keeps its "drawing…" placeholder: it shows what
                # stopped it (the traceback still goes to the log Output)
                if which in self.figures:
                    self.figures[which].outputs = (R.html_bundle(R.error_html(exc)),)
                raise
        self.stale.discard(which)
        self.panel_of(which).remove_class("wb-stale")

    def panel_of(self, which: str) -> Any:
        """Tab ``which``'s panel (the widget the tab bar shows)."""
        return self.tabs.children[self.tab_names.index(which)]

    def visible_tab(self) -> str:
        """The name of the tab the attendee has open."""
        return self.tab_names[self.tabs.selected_index or 0]

    def later(self, fn: Callable[[], Any]) -> None:
        """Run ``fn`` on the kernel's next turn (what was drawn so far reaches the page first);
        at once outside a running event loop (plain Python, tests)."""
        import asyncio

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            fn()
            return
        loop.call_soon(fn)

    def show_tab(self, name: str) -> None:
        """Open tab ``name`` (one of ``tab_names``: "heatmap", "advisor", "compare"…) and draw it."""
        if name not in self.tab_names:
            raise WorkbenchError(
                f"No tab {name!r}; the designer's tabs are {', '.join(self.tab_names)}."
            )
        self.tabs.selected_index = self.tab_names.index(name)

    def apply_suggestion(self, i: int = 0) -> None:
        """Click finding ``i``'s "Apply suggestion" button (from Python)."""
        if "advisor" in self.stale:
            self.render_tab("advisor")
        self.controls.apply[i].click()

    # ------------------------------------------------------------------ compare, emulator
    def pin(self) -> None:
        """Pin the current design; the Compare tab shows it beside whatever you design next."""
        compare_tab.pin(self)

    def unpin(self) -> None:
        compare_tab.unpin(self)

    def write(self) -> Any:
        """Write the current design to the emulator (progress bar), read it back and show the verification."""
        return emulator_tab.write(self)
