"""The node-load title says what its figure draws: a window whose busiest node takes 2× its fair
share (to a tenth, as the title states it) is uneven, and the title names the busiest share and
the worst window. Each test reads the drawn lines, never a pinned sentence."""

from __future__ import annotations

import html

import matplotlib
import numpy as np
import pandas as pd
import pytest

import workbench as wb
from workbench.plots.keyspace import node_load_html, plot_node_load

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def fx():
    return wb.load_dataset("fx_prices", size="workshop")


def _drawn(kd):
    """The figure's title (one line) and each window's busiest node share, read from its lines."""
    ax = plot_node_load(kd)
    nodes = [ln for ln in ax.get_lines() if ln.get_label().startswith("node ")]
    assert len(nodes) == kd.nodes == 3  # every node drawn: the busiest 8 of 3
    y = np.array([np.asarray(ln.get_ydata(), dtype=float) for ln in nodes])
    title = ax.get_title(loc="left") or ax.get_title()  # the style puts titles left
    return " ".join(title.split()), np.nanmax(y, axis=0)


def test_a_window_at_twice_the_fair_share_makes_the_title_uneven(fx):
    # pair_microseconds over the 40 days: the node lines swing between about 10 % and 66 %; the
    # title used to say "Every node shares the load evenly after the first 34.3 days" over them
    kd = wb.analyze(fx, wb.preset("fx_prices", "pair_microseconds")).keyspace
    title, busiest = _drawn(kd)
    fair = 1 / 3  # 3 nodes
    worst = int(np.nanargmax(busiest))
    assert round(busiest[worst] / fair, 1) >= 2.0  # the drawn worst window reaches 2× fair
    start = pd.Timestamp(int(kd.window_edges_us[worst]), unit="us", tz="UTC")
    assert title.startswith("Uneven") and "evenly" not in title, title
    assert f"{busiest[worst]:.0%}" in title and f"{busiest[worst] / fair:.1f}× fair" in title
    assert f"{start:%b %d %H:%M}" in title, title
    # the designer's Node load tab draws the same windows under the same title
    assert html.escape(title) in node_load_html(kd) or title in node_load_html(kd)


def test_a_spread_under_twice_the_fair_share_names_its_busiest_window_share(fx):
    # eight salt buckets on 3 nodes: every drawn window's busiest node stays under 2× fair, but
    # over 1.5× in some (3 of 8 buckets on a node), so the title neither says "uneven" nor "evenly"
    kd = wb.analyze(fx, wb.preset("fx_prices", "salted", n=8)).keyspace
    title, busiest = _drawn(kd)
    factors = np.round(busiest / (1 / 3), 1)
    assert factors.max() < 2.0 and factors.max() > 1.5
    assert not title.startswith("Uneven") and "evenly" not in title, title
    assert f"at most {np.nanmax(busiest):.0%}" in title and f"{factors.max():.1f}× fair" in title
