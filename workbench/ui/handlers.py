"""The designer's change handlers: a control changes → the design changes → the visible tab redraws.

Each handler reads the controls into a :class:`DesignState`, turns it into a Schema
(:func:`designer_state_to_schema`) and asks the designer to show it. Setting controls from a
schema (``sync_controls``) raises ``d.syncing`` so the handlers it triggers do nothing.
"""

from __future__ import annotations

import functools
import html
from typing import TYPE_CHECKING, Any

import ipywidgets as W

from ..datasets.workload import Workload
from ..schema.gallery import patterns_for, schema_for
from .layout import CSV, FAMILY_FLEX, lay
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
    from ..datasets.model import Dataset
    from ..schema.schema import Schema
    from .app import Designer


def wire(d: Designer) -> None:
    """Connect every control to its handler; each runs inside the designer's log Output."""
    from . import compare_tab, emulator_tab, owndata, views_tab

    c = d.controls
    log = d.with_log

    def on(handler: Any) -> Any:
        return log(functools.partial(handler, d))

    c.dataset.observe(on(on_dataset), names="value")
    c.size.observe(on(on_size), names="value")
    c.pattern.observe(on(on_pattern), names="value")
    for w in (c.segments, c.precision, c.reversed, c.salt_buckets, c.bucket, c.layout):
        w.observe(on(on_control), names="value")
    c.nodes.observe(on(on_nodes), names="value")
    for w in (c.rate, c.series, c.qps):
        w.observe(on(on_workload), names="value")
    c.heatmap_what.observe(on(on_heatmap_what), names="value")
    d.tabs.observe(on(on_tab), names="selected_index")
    c.csv_read.on_click(log(lambda _: owndata.read_csv_columns(d)))
    c.csv_upload.observe(log(lambda _: owndata.take_upload(d)), names="value")
    c.csv_load.on_click(log(lambda _: owndata.load_csv_from_controls(d)))
    c.queries_apply.on_click(log(lambda _: d.set_queries(c.queries.value)))
    c.pin.on_click(log(lambda _: compare_tab.pin(d)))
    c.unpin.on_click(log(lambda _: compare_tab.unpin(d)))
    c.write.on_click(log(lambda _: emulator_tab.write(d)))
    views_tab.wire(d)


def on_dataset(d: Designer, change: dict) -> None:
    from . import _render as R

    if d.syncing:
        return
    v = change["new"]
    if v == CSV:
        d.csv_box.layout.display = "flex"
        d.queries_box.layout.display = "flex"  # state them before loading, or after
        d.controls.queries.value = ""
        d.status.value = R.note_html(
            "Upload a CSV (or give its path), read its columns, pick the entity, "
            "time and measure columns, then Load CSV."
        )
        return
    ds = d.custom.get(v) or d.ws.dataset(v, d.controls.size.value)
    d.set_dataset(ds)


def on_size(d: Designer, change: dict) -> None:
    if d.syncing or d.ds is None or d.ds.name not in d.controls.dataset.options:
        return
    d.set_dataset(d.ws.dataset(d.ds.name, change["new"]))


def on_pattern(d: Designer, change: dict) -> None:
    if d.syncing:
        return
    v = change["new"]
    base = d.extra_bases.get(v) or schema_for(d.ds, v)
    d.set_base(base)


def on_control(d: Designer, change: dict) -> None:
    if d.syncing:
        return
    editor: Any = d.controls.segments
    if id(change.get("owner")) == id(editor):  # a segment typed back returns to its place
        placed = place_added(tuple(change["old"]), tuple(change["new"]), segment_labels(d.base.key))
        if placed != tuple(change["new"]):
            d.syncing = True
            try:
                editor.value = list(placed)
            finally:
                d.syncing = False
    schema = designer_state_to_schema(d.base, read_state(d))
    # keep dependent controls truthful (e.g. salt added to the segment list, reversible precisions)
    sync_controls_light(d, schema)
    name_edited(d, schema)
    d.show_design(schema)


EDITED = "✎ "


def name_edited(d: Designer, schema: Any) -> None:
    """The design picker names what is shown: "✎ <base> (edited)" once a control changes the
    design it picked (it kept saying "pair_microseconds" over a time-first key), and the base's
    own name again when the edits are undone. Picking the edited entry later brings it back."""
    c = d.controls.pattern
    others = [o for o in c.options if not str(o).startswith(EDITED)]
    if schema == d.base:
        base = next((o for o in others if d.extra_bases.get(o) is d.base), d.base.name)
        want, options = base, others
    else:
        want = f"{EDITED}{d.base.name} (edited)"
        d.extra_bases[want] = schema
        options = [*others, want]
    if want not in options or (want == c.value and list(c.options) == options):
        return
    d.syncing = True
    try:
        c.options = options
        c.value = want
    finally:
        d.syncing = False


def on_nodes(d: Designer, change: dict) -> None:
    if not d.syncing and d.schema is not None:
        d.show_design(d.schema)


def workload_of(d: Designer) -> Workload:
    """The production the controls state (0: not stated)."""
    c = d.controls
    entities = None
    if c.series.value and d.ds is not None:
        cols = list(d.ds.entity)
        finest = max(cols, key=lambda col: d.ds.frame[col].nunique()) if cols else "series"
        entities = {finest: int(c.series.value)}
    return Workload(
        events_per_s=float(c.rate.value) or None,
        entities=entities,
        queries_per_s=float(c.qps.value) or None,
    )


def on_workload(d: Designer, change: dict) -> None:
    """A production figure changed: every analysis, figure and finding is made again at it."""
    if d.ws.set_workload(workload_of(d)) and d.schema is not None:
        d.show_design(d.schema)


def on_heatmap_what(d: Designer, change: dict) -> None:
    d.stale.add("heatmap")
    d.render_tab("heatmap")


def on_tab(d: Designer, change: dict) -> None:
    if change["new"] is not None:
        d.render_tab(d.tab_names[change["new"]])


def read_state(d: Designer) -> DesignState:
    """The controls as a DesignState."""
    c = d.controls
    fams = tuple(
        FamilyEdit(role, n.value, int(a.value or 0), int(v.value or 0))
        for role, (n, a, v) in zip(d.family_roles, c.families, strict=True)
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


def sync_controls(d: Designer, schema: Schema) -> None:
    """Set every control from a schema; disable the ones that do not apply (no callbacks fire)."""
    c = d.controls
    st = state_from_schema(schema)
    ap = applicable(schema)
    d.syncing = True
    try:
        # no allowed_tags: with them the editor gets a <datalist>, whose suggestion popup
        # swallows Enter in Chromium (the typed segment was added only when focus moved); an
        # unknown segment is refused by the kernel with the design's segments named
        c.segments.allowed_tags = []
        segment_hint(d, st.segments)
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
        build_families(d, st.families)
    finally:
        d.syncing = False


def sync_controls_light(d: Designer, schema: Schema) -> None:
    """After an edit: only the controls the edit can change (segments, hint, precisions)."""
    c = d.controls
    st, ap = state_from_schema(schema), applicable(schema)
    d.syncing = True
    try:
        if tuple(c.segments.value) != st.segments:
            c.segments.value = list(st.segments)
        segment_hint(d, st.segments)
        if ap.precision and tuple(c.precision.options) != tuple(ap.precisions):
            c.precision.options = ap.precisions
            c.precision.value = st.precision
    finally:
        d.syncing = False


def segment_hint(d: Designer, shown: tuple[str, ...]) -> None:
    """How to edit the key, naming the segments that can be typed back in."""
    base = segment_labels(d.base.key) if d.base is not None else ()
    back = [s for s in base if s not in shown]  # salt: the salt-buckets slider
    more = f"; type + Enter to add back: {', '.join(back)}" if back else ""
    d.segment_hint.value = (
        f"<small>key segments: drag to reorder, × to drop{html.escape(more)}</small>"
    )


def build_families(d: Designer, edits: tuple[FamilyEdit, ...]) -> None:
    """One row of (name, max age in days, max versions) per column family of the design."""
    c = d.controls
    rows, c.families = [], []
    for e in edits:
        role = (
            "aggregates"
            if e.role == "aggregates"
            else (e.role.split(":", 1)[1] if ":" in e.role else "data")
        )
        # the three share the row as the header over them does (layout.family_header)
        name_flex, age_flex, vers_flex = FAMILY_FLEX
        name = W.Text(
            value=e.name,
            description=role,
            # "aggregates" whole (at 60 px it read "aggreg…")
            style={"description_width": "74px"},
            layout=lay(flex=name_flex, width="auto", min_width="0"),
            tooltip=f"the {role} column family's name",
        )
        age = W.BoundedIntText(
            value=e.max_age_days,
            min=0,
            max=36500,
            layout=lay(flex=age_flex, width="auto", min_width="0"),
            tooltip="max age in days (0: none)",
        )
        vers = W.BoundedIntText(
            value=e.max_versions,
            min=0,
            max=10_000_000,
            layout=lay(flex=vers_flex, width="auto", min_width="0"),
            tooltip="max versions (0: none)",
        )
        for w in (name, age, vers):
            w.observe(d.with_log(functools.partial(on_control, d)), names="value")
        c.families.append((name, age, vers))
        rows.append(W.HBox([name, age, vers], layout=lay(width="100%")))
    d.families_box.children = rows
    d.family_roles = [e.role for e in edits]


def gallery_name(ds: Dataset, schema: Schema) -> str | None:
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
