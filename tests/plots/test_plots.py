"""Figures: every picture renders on Agg, returns its axes with a title that states the takeaway."""

from __future__ import annotations

import base64
import html
import inspect
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from analysis.test_keyspace import battery  # noqa: E402
from hand_production import hand_production  # noqa: E402
from waits import HANG_S

import workbench.plots  # noqa: E402
from workbench.analysis import CellIndex, capacity, key_distribution, query_costs, row_sizes  # noqa: E402
from workbench.plots import figure_html, png_bytes  # noqa: E402
from workbench.plots.capacity import plot_bytes_breakdown  # noqa: E402
from workbench.plots.heatmap import plot_key_heatmap  # noqa: E402
from workbench.plots.keyspace import (  # noqa: E402
    plot_hotspot,
    plot_node_load,
    plot_read_profile,
)
from workbench.plots.queries import plot_query_costs  # noqa: E402
from workbench.plots.sizes import plot_row_sizes  # noqa: E402
from workbench.plots.style import OKABE_ITO  # noqa: E402
from workbench.schema.plan import CellFilter, KeyRange, ReadPlan  # noqa: E402


def title(ax) -> str:
    return ax.get_title(loc="left") or ax.get_title()


@pytest.fixture(scope="module")
def parts():
    out = {}
    for design in ("timestamp_first", "field_promotion"):
        idx = CellIndex.build(battery(design, n=3000))
        plans = {
            "corrie": ReadPlan("corrie", ranges=(KeyRange.for_prefix("BATTERY#Corrie#"),)),
            "march_1st": ReadPlan("march_1st", filter=CellFilter(row_key_regex=".*#20150301.*")),
        }
        qc = query_costs(idx, plans)
        kd = key_distribution(idx, seen_rows=qc.seen_rows)
        out[design] = dict(
            kd=kd, qc=qc, rs=row_sizes(idx), cap=capacity(idx, 3000, hand_production(1))
        )
    yield out
    plt.close("all")


@pytest.mark.parametrize(
    "fn,part",
    [
        (plot_key_heatmap, "kd"),
        (plot_node_load, "kd"),
        (plot_hotspot, "kd"),
        # every query's read profile drawn (~4 s of CPU)
        pytest.param(plot_read_profile, "kd", marks=pytest.mark.slow),
        (plot_row_sizes, "rs"),
        (plot_query_costs, "qc"),
        (plot_bytes_breakdown, "cap"),
    ],
)
def test_each_figure_returns_titled_axes_and_draws(parts, fn, part, tmp_path):
    ax = fn(parts["field_promotion"][part])
    assert title(ax), fn.__name__
    data = png_bytes(ax.figure)
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5_000
    w, h = ax.figure.get_size_inches() * ax.figure.dpi
    assert 300 <= w <= 1280, "readable in a 1280-px notebook without scaling"
    # drawing on a caller's axes returns those axes
    fig, mine = plt.subplots()
    assert fn(parts["field_promotion"][part], ax=mine) is mine
    plt.close("all")


def test_titles_state_the_takeaway(parts):
    hot, even = parts["timestamp_first"], parts["field_promotion"]
    # the workshop sample's own rate is far under the frontier's ceiling: the shape is named; at
    # 100,000 writes/s, past the ceiling, the same design's title says Hotspot
    assert title(plot_key_heatmap(hot["kd"])).startswith("Write frontier:")
    fast = hot["kd"].rerun(write_rate_per_s=100_000)
    assert title(plot_key_heatmap(fast)).startswith("Hotspot:")
    # "on average": the busiest node's share of the whole load, while the node-load figure
    # under it calls a window of 2× fair uneven (04 said "Load spread evenly" over "Uneven: ...")
    assert title(plot_key_heatmap(even["kd"])).startswith("Load spread evenly on average:")
    assert "rows for every row it needs" in title(plot_query_costs(hot["qc"]))
    assert "Names are" in title(plot_bytes_breakdown(hot["cap"]))
    plt.close("all")


def test_heatmap_uses_a_colour_blind_safe_map_and_names_the_hot_range(parts):
    ax = plot_key_heatmap(parts["timestamp_first"]["kd"])
    assert (
        ax.images[0].get_cmap().name.startswith("cividis_r")
    )  # colour-blind safe, hot = dark on white
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "busiest key range: BATTERY#201503" in texts
    caption = " ".join(t.get_text() for t in ax.texts).replace("\n", " ")
    assert "SampleRowKeys" in caption  # the emulator note sits next to the figure it affects
    lines = plot_node_load(parts["timestamp_first"]["kd"]).get_lines()
    assert lines[0].get_color().lower() == OKABE_ITO[0].lower()
    plt.close("all")


def test_figure_html_embeds_a_png_that_works_offline(parts):
    html = figure_html(plot_hotspot, parts["timestamp_first"]["kd"])
    data = base64.b64decode(re.search(r"base64,([^\"]+)\"", html).group(1))
    assert data[:4] == b"\x89PNG" and "http" not in html
    assert plt.get_fignums() == [], "figure_html closes its figure"
    page = parts["timestamp_first"]["kd"]._repr_html_()
    assert page.count("data:image/png;base64,") == 4 and "Write frontier" in page  # + node sweep
    assert "stops scaling at 9,800 writes/s" in page  # the ceiling line


@pytest.mark.slow
def test_analysis_pngs_for_review(parts, tmp_path):
    # the figures are written so a person can look at them (tmp_path/…png)
    for design, p in parts.items():
        for fn, part in ((plot_key_heatmap, "kd"), (plot_hotspot, "kd"), (plot_row_sizes, "rs")):
            ax = fn(p[part])
            ax.figure.savefig(tmp_path / f"{design}_{fn.__name__}.png")
    assert len(list(tmp_path.glob("*.png"))) == 6
    plt.close("all")
    assert np.isfinite(parts["field_promotion"]["kd"].hotspot_factor)


@pytest.mark.slow
def test_users_own_plots_still_show_after_a_workbench_figure():
    """In a kernel, a workbench figure first must not stop df.plot() from displaying (inline backend)."""
    import nbformat

    from workbench.report.kernel_wait import notebook_client

    cells = [
        "import workbench as wb\nds = wb.load_dataset('fx_prices', size='tiny')",
        "wb.analyze(ds, wb.preset('fx_prices', 'timestamp_first')).keyspace",
        "import pandas as pd\npd.Series([1, 3, 2]).plot()",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    notebook_client(nb, timeout=HANG_S, kernel_name="python3").execute()
    workbench_html = "".join(o.get("data", {}).get("text/html", "") for o in nb.cells[1].outputs)
    assert "data:image/png;base64," in workbench_html
    assert any("image/png" in o.get("data", {}) for o in nb.cells[2].outputs), (
        "the user's plot was not shown"
    )


def test_heat_map_colours_keep_0_1_and_many_apart_on_tiny_data():
    """fx_prices tiny, timestamp first: every written cell holds exactly 1 write (964 rows, one
    write each, over 964 key buckets). The scale used to collapse to "1 … 1"; now it runs from
    half a write to at least 2, on a log scale: norm(1) = log(1/0.5) / log(2/0.5) = 1/2, and the
    colour map starts at its 25 % shade, so 1 write is cividis_r at 0.25 + 0.75 × 0.5 = 0.625."""
    import matplotlib

    import workbench as wb
    from workbench.analysis import analyze
    from workbench.plots.heatmap import heatmap_data, scale_ticks
    from workbench.plots.style import heatmap_cmap

    ds = wb.load_dataset("fx_prices", size="tiny")
    kd = analyze(ds, wb.preset("fx_prices", "timestamp_first")).keyspace
    data, norm = heatmap_data(kd, "writes")
    assert float(data.max()) == 1.0 and (norm.vmin, norm.vmax) == (0.5, 2.0)
    assert float(norm(1.0)) == pytest.approx(0.5)
    one = np.asarray(heatmap_cmap()(float(norm(1.0))))
    assert np.allclose(one, matplotlib.colormaps["cividis_r"](0.625), atol=1 / 255)
    white, most = np.ones(4), np.asarray(heatmap_cmap()(1.0))
    assert np.abs(one[:3] - white[:3]).max() > 0.2 and np.abs(one[:3] - most[:3]).max() > 0.2
    # the colour bar is labelled 1 and 2 (never "1 … 1")
    assert [lab for _, _, lab in scale_ticks(norm, "writes")] == ["1", "2"]


# ------------------------------------------------------------------ one home per picture

PLOTS_DIR = Path(workbench.plots.__file__).parent


def _forms(module) -> tuple[set[str], set[str]]:
    """The picture names a plots module draws with matplotlib (plot_<name>) and as HTML (<name>_html)."""
    own = {
        n: f
        for n, f in vars(module).items()
        if inspect.isfunction(f) and f.__module__ == module.__name__
    }
    mpl = {n.removeprefix("plot_") for n in own if n.startswith("plot_")}
    web = {n.removesuffix("_html") for n in own if n.endswith("_html")}
    return mpl, web


def test_each_figure_has_its_matplotlib_and_html_form_in_one_module():
    import importlib

    both: set[str] = set()
    for path in sorted(PLOTS_DIR.glob("*.py")):
        if path.stem in ("__init__", "style", "html_parts"):  # the shared look and helpers
            continue
        module = importlib.import_module(f"workbench.plots.{path.stem}")
        mpl, web = _forms(module)
        assert web <= mpl, (
            f"{path.name}: HTML forms without their plot_ function beside them: {web - mpl}"
        )
        missing = mpl - web - set(workbench.plots.NOTEBOOK_ONLY)
        assert not missing, (
            f"{path.name}: figures with no HTML form (or list them in NOTEBOOK_ONLY): {missing}"
        )
        both |= mpl & web
    # the designer's six pictures, each with both forms
    assert both == {"key_heatmap", "node_load", "hotspot", "row_sizes", "query_costs", "comparison"}


def test_no_figure_is_drawn_outside_plots():
    """A picture drawn in two places drifts apart: outside plots/ nothing draws a figure, as
    matplotlib calls or as an HTML picture function."""
    import ast

    figure_names = {f"{n}_html" for n in ("key_heatmap", "heatmap", "node_load", "hotspot")} | {
        "row_sizes_html",
        "rowsizes_html",
        "query_costs_html",
        "querycosts_html",
        "comparison_html",
    }
    drawn = []
    for path in sorted((PLOTS_DIR.parent).rglob("*.py")):
        if PLOTS_DIR in path.parents:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and (
                node.name in figure_names or node.name.startswith("plot_")
            ):
                drawn.append(f"{path.name}:{node.lineno} {node.name}")
            if isinstance(node, ast.Attribute) and node.attr in ("barh", "imshow", "fill_between"):
                drawn.append(f"{path.name}:{node.lineno} .{node.attr}")
    assert not drawn, drawn


def test_both_forms_say_the_same_thing(parts):
    """The HTML form's title is the matplotlib form's title: one takeaway per picture."""
    from workbench.plots.heatmap import key_heatmap_html
    from workbench.plots.keyspace import hotspot_html, node_load_html
    from workbench.plots.queries import query_costs_html
    from workbench.plots.sizes import row_sizes_html

    for design in ("timestamp_first", "field_promotion"):
        p = parts[design]
        pairs = [
            (plot_key_heatmap(p["kd"]), key_heatmap_html(p["kd"])),
            (plot_node_load(p["kd"]), node_load_html(p["kd"])),
            (plot_hotspot(p["kd"]), hotspot_html(p["kd"])),
            (plot_row_sizes(p["rs"]), row_sizes_html(p["rs"])),
            (plot_query_costs(p["qc"]), query_costs_html(p["qc"])),
        ]
        for ax, page in pairs:
            # the same words; a long matplotlib title is drawn on two lines
            said = " ".join(title(ax).split())
            assert said in " ".join(html.unescape(page).split()), (design, title(ax))
    plt.close("all")


def test_every_result_shows_itself_with_its_figures_through_the_display_layer(parts):
    """A notebook shows each analysis result with its figure(s): ``_repr_html_`` goes through the
    registry (workbench/reprs.py) to the display layer, which names real classes."""
    import importlib

    from workbench.reprs import registered

    for name in registered():
        module, _, cls = name.rpartition(".")
        assert isinstance(getattr(importlib.import_module(module), cls), type), name
    p = parts["timestamp_first"]
    figures = {"kd": 4, "rs": 1, "qc": 1, "cap": 2}  # heat map, node load, hotspot, node sweep; …
    for part, n in figures.items():
        page = p[part]._repr_html_()
        assert page.count("data:image/png;base64,") == n, part
        if part != "qc":  # query costs have a table and a figure, no one-line verdict
            assert p[part].verdict() in html.unescape(page), part
    plt.close("all")


@pytest.mark.slow  # every figure drawn and its legend measured (~3 s of CPU)
def test_no_legend_covers_a_bar_or_a_line(parts):
    """Every legend sits outside its plotting area (measured on the drawn figure), so it can cover
    no bar, line or histogram whatever the data: the 1/3/10/30-node bars, node 1's line."""
    from workbench.plots.keyspace import plot_node_sweep

    drawn = []
    for design in ("timestamp_first", "field_promotion"):
        p = parts[design]
        for fn, part in (
            (plot_node_load, "kd"),
            (plot_hotspot, "kd"),
            (plot_node_sweep, "kd"),
            (plot_row_sizes, "rs"),
            (plot_query_costs, "qc"),
            (plot_bytes_breakdown, "cap"),
        ):
            ax = fn(p[part])
            ax.figure.canvas.draw()
            legend = ax.get_legend()
            assert legend is not None, fn.__name__
            leg, area = legend.get_window_extent(), ax.get_window_extent()
            overlap_w = min(leg.x1, area.x1) - max(leg.x0, area.x0)
            overlap_h = min(leg.y1, area.y1) - max(leg.y0, area.y0)
            if overlap_w > 1 and overlap_h > 1:
                drawn.append(f"{design} {fn.__name__}: legend {leg} over the plot {area}")
            # and the legend is on the figure, not cut off at its edge
            fig = ax.figure.bbox
            assert leg.x1 <= fig.x1 + 1 and leg.y0 >= fig.y0 - 1, (fn.__name__, leg, fig)
            plt.close(ax.figure)
    assert not drawn, "\n".join(drawn)
