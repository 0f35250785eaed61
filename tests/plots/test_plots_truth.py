"""The figures' words are true to what they draw (a screenshot review of the designer): node load
on server_metrics (heroic) is 100 % on node 1 for its first minutes, the row-size lines' labels
sat on a bar, the heat map's "Key space not to scale" said nothing plain. Each test reads the
drawn geometry (lines, patches, SVG, raster) and checks the text against it."""

from __future__ import annotations

import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.dates as mdates  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import workbench as wb  # noqa: E402
from workbench.plots.heatmap import key_heatmap_html, plot_key_heatmap  # noqa: E402
from workbench.plots.keyspace import hotspot_html, node_load_html, plot_hotspot, plot_node_load  # noqa: E402
from workbench.plots.sizes import plot_row_sizes, row_sizes_html  # noqa: E402
from workbench.ui.model import Workspace  # noqa: E402


@pytest.fixture(scope="module")
def heroic():
    """server_metrics (tiny) in the Heroic key (host + metric + 2^32 ms bucket), 3 nodes."""
    d = wb.designer(Workspace().dataset("server_metrics", "tiny"))
    d.controls.pattern.value = "heroic"
    yield d.analysis
    plt.close("all")


def _title(ax) -> str:
    return ax.get_title(loc="left") or ax.get_title()


def _grey_span(ax) -> tuple[float, float]:
    """The x extent of the figure's one shaded band (the warm-up), in matplotlib date numbers."""
    spans = [p for p in ax.patches if p.get_label().startswith("warm-up")]
    assert len(spans) == 1, [p.get_label() for p in ax.patches]
    p = spans[0]  # a Rectangle or a Polygon (matplotlib versions differ): its corners in data x
    xs = p.get_patch_transform().transform(p.get_path().vertices)[:, 0]
    return float(np.min(xs)), float(np.max(xs))


def test_node_load_says_when_the_load_is_even_and_shades_the_warm_up_as_hotspot_does(heroic):
    kd = heroic.keyspace
    ax = plot_node_load(kd)
    # read the drawn lines: one per node, one value per window (steps-mid through window middles)
    nodes = [ln for ln in ax.get_lines() if ln.get_label().startswith("node ")]
    assert len(nodes) == 3
    y = np.array([np.nan_to_num(np.asarray(ln.get_ydata(), dtype=float)) for ln in nodes])
    # "uneven" is a window whose busiest node takes 2× its fair share 1/3 (67 %) or more: the
    # drawn start-up windows, where the screenshot showed node 1 at 100 % for ~6 minutes; the
    # rest stay within 1.5× (50 %): "evenly" after them
    uneven = np.flatnonzero(y.max(axis=0) >= 2 / 3)
    assert uneven.tolist() == list(range(6)) and y[0, :6].min() == 1.0
    assert y.max(axis=0)[6:].max() <= 1.5 / 3
    window_s = (kd.window_edges_us[1] - kd.window_edges_us[0]) / 1e6
    assert window_s == 60  # whole-minute windows: 6 windows are 6 minutes
    title = " ".join(_title(ax).split())  # a long title is drawn on two lines
    assert title.startswith("Every node shares the load evenly after the first 6 min;"), title
    assert "100% of a window's" in title and "(3.0× fair)" in title, title
    # the grey warm-up band: the same x extent on node load as on the hotspot figure
    band = _grey_span(ax)
    assert band == _grey_span(plot_hotspot(kd))
    start = mdates.date2num(np.datetime64(int(kd.window_edges_us[0]), "us"))
    end = mdates.date2num(np.datetime64(int(kd.window_edges_us[kd.warmup_windows]), "us"))
    assert kd.warmup_windows == 5 and band == pytest.approx((start, end))
    # the designer's SVG forms: the same grey rect on both, 5 of the 21 windows wide
    rects = [re.findall(r"<rect [^>]*>", f(kd)) for f in (node_load_html, hotspot_html)]
    assert rects[0] == rects[1] and len(rects[0]) == 1
    assert len(kd.window_edges_us) - 1 == 21
    assert f"width='{720 * 5 / 21:.1f}'" in rects[0][0]
    assert "first 6 min" in node_load_html(kd)


def test_row_sizes_title_grammar_and_line_labels_off_the_bars(heroic):
    rs = heroic.rowsizes
    # 2^32 ms = 4,294,967.296 s = 49.71 days: the rows' own bucket, "their"
    assert rs.verdict().startswith("Rows close when their 49.7-day time bucket fills:"), (
        rs.verdict()
    )
    ax = plot_row_sizes(rs)
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    # no text on a bar (the guideline's label sat on the yellow bar at 70.6 MB), none names a line
    bars = [p for p in ax.patches if p.get_height() > 0]
    texts = [t for t in ax.texts if t.get_text().strip()]
    assert all("guideline" not in t.get_text() for t in texts)
    assert all(
        not t.get_window_extent(renderer).overlaps(p.get_window_extent(renderer))
        for t in texts
        for p in bars
    )
    legend = ax.get_legend()
    labels = [t.get_text() for t in legend.get_texts()]
    assert "100 MB guideline" in labels and "256 MB hard limit" in labels
    # the legend lies right of the plotting area: it overlaps no bar
    box = legend.get_window_extent(renderer)
    assert bars and all(not box.overlaps(p.get_window_extent(renderer)) for p in bars)
    assert box.x0 >= ax.get_window_extent(renderer).x1
    # the HTML form: the plot box holds only bars and lines, the names are in the key above it
    page = row_sizes_html(rs)
    plot = page[page.index("class='wb-b-plot'") : page.index("class='wb-b-x'")]
    assert "guideline" not in plot and "hard limit" not in plot
    key = page[page.index("class='wb-b-key'") : page.index("class='wb-b-plot'")]
    assert "100 MB guideline" in key and "256 MB hard limit" in key


def test_heat_map_says_in_plain_words_how_the_key_axis_is_drawn(heroic):
    kd, rs = heroic.keyspace, heroic.rowsizes
    # 8 series (host, metric) each in one 49.7-day bucket: 8 rows, fewer than the 1,000 key
    # ranges, so the map has one band per row (the row-size figure counts the same 8 rows)
    assert kd.n_rows == rs.n_rows == 8
    page = key_heatmap_html(kd)
    text = re.sub(r"<[^>]+>", " ", page).replace("&#x27;", "'")
    assert "not to scale" not in text and "Diagnostics:" not in text
    assert "Key space: 8 rows in key order, one band each" in text
    assert "1,000 key ranges" in text and "one row, not its bytes" in text
    assert "row key (8 buckets, key order)" in text  # the axis caption counts the same bands
    ax = plot_key_heatmap(kd, what="ops")
    assert "Key space: 8 rows in key order, one band each" in _title(ax)
    assert ax.images[0].get_array().shape[0] == 8  # the raster: one band per row
