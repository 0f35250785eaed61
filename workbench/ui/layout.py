"""The designer's widget tree: every control, panel and tab, made once and laid out.

Nothing here reacts to anything: :mod:`.handlers` wires the controls to the designer, and each
tab's own module makes and fills its panel (the registry: :mod:`.tabs`; your own data:
:mod:`.owndata`).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import ipywidgets as W

from .tabs import registry

if TYPE_CHECKING:  # pragma: no cover
    from .app import Designer

CSV = "your CSV…"
SIZES = ("tiny", "small", "workshop")
LEFT_WIDTH = "290px"  # one control group: the grid fits 3 across at 1280 px with the file browser
# JupyterLab shrinks nine tab titles to a few letters at 1280 px: let them keep their width and wrap
# (their padding and type trimmed so the eleven fit one row at 1280 px: "Compare" wrapped alone
# onto a second with ten, and so did "Compare" and "Emulator" when "Production sheet" came);
# a control at width 100% plus its 2 px margins ran 4 px past its column, and every column grew
# a horizontal scrollbar: the column's controls are kept inside it
STYLE = (
    "<style>.wb-designer .lm-TabBar-content{flex-wrap:wrap}"
    ".wb-designer .lm-TabBar-tab{flex:0 0 auto!important;min-width:auto!important;max-width:none!important;"
    "padding:0 5px!important;font-size:12px}"
    ".wb-designer .wb-group>*{max-width:calc(100% - 4px);box-sizing:border-box}"
    # and inside the group's own boxes (your CSV, your queries: 418 px in a 414-px box at 1280)
    ".wb-designer .wb-group .widget-box>*{max-width:calc(100% - 4px);box-sizing:border-box}"
    # a labelled toggle row ("size") reads like a dropdown: its label right-aligned beside it
    ".wb-designer .widget-toggle-buttons{display:flex;align-items:center;margin:2px}"
    ".wb-designer .widget-toggle-buttons>.widget-label{display:inline-block;text-align:right;"
    "margin:0 8px 0 0;flex:0 0 auto}"
    ".wb-designer .widget-html-content{line-height:1.35}"
    # the busy state (Designer.busy): from a change until the headline and the open tab show the
    # new design, they are dimmed under an "updating…" sign; a tab not redrawn since is dimmed
    # with its own sign until it is opened (no old dataset's numbers under new controls unsigned)
    ".wb-designer.wb-busy .wb-headline,.wb-designer.wb-busy .widget-tab-contents{opacity:.4}"
    ".wb-designer .wb-busy-sign{min-height:1.4em}"
    ".wb-designer .wb-stale{opacity:.45}"
    ".wb-designer .wb-stale::before{content:'Not redrawn for the current design yet: drawn when "
    "this tab is open…';display:block;font-style:italic;margin:4px 0}</style>"
)


# ipywidgets' TagsInput adds a typed tag on the input's "change" event, which Chromium fires
# when focus leaves the field but not on Enter: "type a segment, press Enter" did nothing until
# the attendee clicked elsewhere. Enter in the designer's key editor commits the typed segment.
TAGS_ENTER_JS = """(() => { if (window.__wbTagsEnter) return; window.__wbTagsEnter = true;
document.addEventListener('keydown', e => { const t = e.target;
  if (e.key === 'Enter' && t instanceof HTMLInputElement && t.value.trim()
      && t.classList.contains('jupyter-widget-taginput') && t.closest('.wb-designer')) {
    t.dispatchEvent(new Event('change')); } }, true); })();"""


def lay(**kw: Any) -> W.Layout:
    return W.Layout(**kw)


def button(**kw: Any) -> W.Button:
    """A button as wide as its label: ipywidgets' fixed default width cut labels to "Apply su…"."""
    return W.Button(layout=lay(width="auto", min_width="max-content", flex="0 0 auto"), **kw)


def build(d: Designer, size: str, nodes: int) -> None:
    """Make every widget of ``d`` and lay them out: controls, then the numbers, then the tabs."""
    d.controls = c = SimpleNamespace()
    data_controls(c, size)
    own_data_boxes(d)
    design_controls(c, nodes)
    d.families_box = W.VBox()
    tab_panels(d)
    d.segment_hint = W.HTML()
    d.title = W.HTML()
    d.busy_sign = W.HTML()  # "updating…" from a change until the open tab shows it (Designer.busy)
    d.busy_sign.add_class("wb-busy-sign")
    d.add_class("wb-designer")
    # controls, then the numbers, then the pictures at full width (readable at 1280 px)
    d.children = [
        d.title,
        d.status,
        control_grid(d),
        # the sign sits over the numbers it qualifies
        W.VBox([d.busy_sign, d.headline], layout=lay(width="100%", min_width="0")),
        d.tabs,
        d.log_out,
        d.keys_js,
    ]


def data_controls(c: Any, size: str) -> None:
    """The dataset picker, its size, and the controls that read your own CSV."""
    from ..datasets import dataset_names

    c.dataset = W.Dropdown(
        options=[*dataset_names(), CSV],
        description="dataset",
        style={"description_width": "100px"},
        layout=lay(width="100%"),
    )
    c.size = W.ToggleButtons(
        options=SIZES,
        value=size if size in SIZES else "workshop",
        description="size",  # labelled as "dataset" is, so the two line up
        style={"button_width": "auto", "description_width": "100px"},
        tooltips=["1k events", "5k events", "30k events"],
    )
    # bring your own CSV
    c.csv_upload = W.FileUpload(accept=".csv", multiple=False, description="Upload CSV")
    c.csv_path = W.Text(
        placeholder="…or a path, e.g. ../datasets/energy_meters.csv",
        description="path",
        layout=lay(width="100%"),
    )
    c.csv_read = button(description="Read columns", icon="table")
    c.csv_entity = W.SelectMultiple(description="entity", rows=3, layout=lay(width="100%"))
    c.csv_time = W.Dropdown(description="time", layout=lay(width="100%"))
    c.csv_measures = W.SelectMultiple(description="measures", rows=3, layout=lay(width="100%"))
    c.csv_tz = W.Text(value="UTC", description="naive tz", layout=lay(width="100%"))
    c.csv_load = button(description="Load CSV", button_style="primary", icon="upload")


def own_data_boxes(d: Designer) -> None:
    """Your own data's panels: the CSV reader and your queries (hidden for the sample datasets)."""
    c = d.controls
    d.csv_status = W.HTML()
    # your own data's queries, a line each (wb.from_csv's queries=): shown for your data
    c.queries = W.Textarea(
        placeholder="one query per line, e.g.\nlatest 1 per sensor\nsensor=S1 over 1 day",
        rows=4,
        layout=lay(width="100%"),
    )
    c.queries_apply = button(description="Cost these queries", icon="check")
    d.queries_status = W.HTML()
    d.queries_box = W.VBox(
        [
            W.HTML(
                "<b>Your queries</b> <small>(a line each; the design is costed on them)</small>"
            ),
            c.queries,
            c.queries_apply,
            d.queries_status,
        ],
        layout=lay(display="none", width="100%"),
    )
    d.csv_box = W.VBox(
        [
            c.csv_upload,
            c.csv_path,
            c.csv_read,
            c.csv_entity,
            c.csv_time,
            c.csv_measures,
            c.csv_tz,
            c.csv_load,
            d.csv_status,
        ],
        layout=lay(display="none", border="1px solid #ddd", padding="4px"),
    )


def production_field(kind: Any, description: str, tooltip: str) -> Any:
    """A production figure (0: not stated), as wide as its column: width auto, since 100 %
    with the widget's margins ran 4 px past the column and focusing it scrolled the column."""
    return kind(
        value=0,
        min=0,
        max=10**9,
        description=description,
        tooltip=tooltip,
        style={"description_width": "100px"},
        layout=lay(width="auto"),
    )


def design_controls(c: Any, nodes: int) -> None:
    """The design: pattern, key segments, key details, layout, the node count and the buttons."""
    c.pattern = W.Dropdown(
        description="design", style={"description_width": "100px"}, layout=lay(width="100%")
    )
    c.segments = W.TagsInput(allow_duplicates=False, layout=lay(width="100%"))
    c.precision = W.Dropdown(
        description="time precision",
        style={"description_width": "100px"},
        layout=lay(width="100%"),
    )
    c.reversed = W.Checkbox(description="reversed timestamp (G09)", indent=False)
    c.salt_buckets = W.IntSlider(
        value=1,
        min=1,
        max=16,
        description="salt buckets",
        style={"description_width": "100px"},
        layout=lay(width="100%"),
        continuous_update=False,
    )
    c.bucket = W.Dropdown(
        description="bucket width",
        style={"description_width": "100px"},
        layout=lay(width="100%"),
    )
    c.layout = W.Dropdown(
        description="layout", style={"description_width": "100px"}, layout=lay(width="100%")
    )
    c.nodes = W.IntSlider(
        value=nodes,
        min=1,
        max=12,
        description="nodes (model)",
        style={"description_width": "100px"},
        layout=lay(width="100%"),
        continuous_update=False,
    )
    # production, stated once (wb.Workload): 0 means "not stated", the sample's own / defaults
    c.rate = production_field(
        W.BoundedFloatText, "events/s", "Production events per second (0: the sample's own rate)"
    )
    c.series = production_field(
        W.BoundedIntText, "series", "How many series production has (0: the sample's own)"
    )
    c.qps = production_field(
        W.BoundedFloatText,
        "queries/s",
        "All queries per second (0: none stated, no query sizes the nodes)",
    )
    c.families = []  # (name, max age days, versions) per family slot
    c.pin = button(
        description="Pin this design",
        icon="thumb-tack",
        tooltip="Keep this design and compare the next ones with it",
    )
    c.unpin = button(description="Unpin", icon="times", disabled=True)
    c.write = button(description="Write to emulator", button_style="success", icon="database")
    c.heatmap_what = W.ToggleButtons(
        options=["writes", "reads", "ops", "pressure", "data"],
        value="writes",
        style={"button_width": "auto"},
    )
    c.apply = []  # one button per suggested fix


def tab_panels(d: Designer) -> None:
    """The status and log lines, the headline, and one panel per tab."""
    d.status = W.HTML()
    d.log_out = W.Output(layout=lay(max_height="160px", overflow="auto"))
    d.keys_js = W.Output(layout=lay(display="none"))
    d.keys_js.outputs = (
        {
            "output_type": "display_data",
            "metadata": {},
            "data": {"application/javascript": TAGS_ENTER_JS, "text/plain": ""},
        },
    )
    d.headline = W.HTML()
    d.headline.add_class("wb-headline")
    d.figures = {}  # the figure tabs' outputs, by name
    tabs = registry()  # every tab module's entries (ui/tabs.py)
    d.tab_names = tuple(t.name for t in tabs)
    d.tabs = W.Tab(children=[t.panel(d) for t in tabs], titles=[t.title for t in tabs])


def control_grid(d: Designer) -> W.GridBox:
    """The controls as a grid of small groups."""
    c = d.controls
    hint = d.segment_hint

    def group(children: list[Any]) -> W.VBox:
        box = W.VBox(children, layout=lay(width="100%", min_width="0"))
        box.add_class("wb-group")  # STYLE keeps its controls inside it
        return box

    # the controls as a grid of small groups across the width (not one tall column), so the
    # numbers and the first figure are on screen at 1280×800 with the file browser open
    return W.GridBox(
        [
            group([W.HTML("<b>Data</b>"), c.dataset, c.size, d.csv_box, d.queries_box]),
            group([W.HTML("<b>Design</b>"), c.pattern, c.segments, hint, c.layout]),
            group(
                [
                    W.HTML("<b>Key details</b>"),
                    c.precision,
                    c.reversed,
                    c.salt_buckets,
                    c.bucket,
                ]
            ),
            group(
                [
                    W.HTML("<b>Families</b> <small>(0 = no rule)</small>"),
                    family_header(),
                    d.families_box,
                    W.HTML("<b>Model</b>"),
                    c.nodes,
                    # 0 is "not stated" (queries/s then none: no query sizes the nodes);
                    # the workload line under the numbers says what each input was
                    W.HTML("<b>Production</b> <small>(0 = not stated)</small>"),
                    c.rate,
                    c.series,
                    c.qps,
                ]
            ),
        ],
        layout=lay(
            width="100%",
            grid_template_columns=f"repeat(auto-fill, minmax({LEFT_WIDTH}, 1fr))",
            grid_gap="0 12px",
        ),
    )


# a family row's three boxes: its name (labelled with its role), max age in days, max versions
# (3:2:2, not 2:1:1: at 1440 px a column is ~320 px and "max age (days)" wrapped over an
# 80-px box; the name box keeps its 60-px role label and ~75 px for the name)
FAMILY_FLEX = ("3 1 0", "2 1 0", "2 1 0")


def family_header() -> W.HBox:
    """The labels over the family rows' three boxes (alone, the boxes read as three blanks)."""
    labels = ("column family", "max age (days)", "max versions")
    return W.HBox(
        [
            W.HTML(f"<small>{t}</small>", layout=lay(flex=f, min_width="0", width="auto"))
            for t, f in zip(labels, FAMILY_FLEX, strict=True)
        ],
        layout=lay(width="100%"),
    )
