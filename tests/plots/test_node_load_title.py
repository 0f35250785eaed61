"""The node-load title says what its figure draws: a window whose busiest node takes 2× its fair
share (to a tenth, as the title states it) is uneven, and the title names the busiest share and
the worst window. Each test reads the drawn lines, never a pinned sentence."""

from __future__ import annotations

import html
import re

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


def _title_agrees_with_drawn(kd, title: str, busiest: np.ndarray) -> None:
    """The title's claim read against the drawn lines: a hotspot title only where one node draws
    the whole of every loaded window; "evenly" only where no drawn window passes 1.5× fair (after
    the start-up run the title names); "Uneven" only where a window reaches 2.0× fair."""
    fair = 1 / kd.nodes
    loaded = busiest[~np.isnan(busiest)]
    factors = np.round(loaded / fair, 1)
    if title.startswith("One node takes the load"):
        assert (loaded > 0.99).all(), (title, loaded.min())
    elif title.startswith("Uneven"):
        assert factors.max() >= 2.0, (title, factors.max())
        # the mean the verdict quotes, in the verdict's own rounding (04 printed "1.25×" over
        # a title without it)
        assert f"averages {kd.factor_text} fair" in title and kd.factor_text in str(kd.verdict())
    elif " after the first " in title:
        # a start-up run of windows at 2.0× fair or more, then none (within 1.5× if "evenly")
        every = np.round(np.nan_to_num(busiest) / fair, 1)
        run = int(np.argmin(every >= 2.0))
        assert run > 0 and (every[run:] < 2.0).all(), (title, every)
        assert every[run:].max() <= 1.5 if "evenly" in title else every[run:].max() > 1.5
    elif "evenly" in title:
        assert factors.max() <= 1.5, (title, factors.max())
    else:
        assert title.startswith("Every node shares the load:"), title
        assert 1.5 < factors.max() < 2.0, (title, factors.max())
    # one count, one noun: "(3 nodes, 1 tablet)", never "1 tablets"
    assert re.search(r"\(\d+ nodes?, [\d,]+ tablets?\)$", title), title
    assert f", {kd.n_tablets:,} tablet{'s' if kd.n_tablets != 1 else ''})" in title, title


def _rollout(ds):
    """Notebook 06's roll-out: each meter starts at a later time (cell [3])."""
    f = ds.frame
    order = f["meter_id"].rank(method="dense") - 1
    installed = f["time"].min() + (f["time"].max() - f["time"].min()) * 0.8 * order / order.max()
    return wb.from_dataframe(
        f[f["time"] >= installed],
        entity=["meter_id"],
        time="time",
        measures=["kwh", "voltage"],
        name="energy_rollout",
    )


@pytest.mark.parametrize(
    "case",
    [
        "04 timestamp_first",
        "04 pair_microseconds",
        "04 salted n=3",
        "06 roll-out sequential_id on 6 nodes",
    ],
)
def test_the_notebooks_and_the_designers_node_load_titles_say_what_is_drawn(fx, case):
    # 04 shows the time-first key's hotspot, the promoted pair and three salt buckets; 06 the
    # sequential meters' roll-out on 6 nodes; the designer's Node load tab draws node_load_html
    if case.startswith("04"):
        pattern, *n = case[3:].split(" n=")
        kd = wb.analyze(
            fx, wb.preset("fx_prices", pattern, **({"n": int(n[0])} if n else {}))
        ).keyspace
    else:
        ds = wb.load_dataset("energy_meters", size="workshop")
        kd = wb.analyze(_rollout(ds), wb.preset("energy_meters", "sequential_id"), nodes=6).keyspace
    ax = plot_node_load(kd)
    nodes = [ln for ln in ax.get_lines() if ln.get_label().startswith("node ")]
    assert len(nodes) == kd.nodes  # every node drawn (at most 8)
    y = np.array([np.asarray(ln.get_ydata(), dtype=float) for ln in nodes])
    title = " ".join((ax.get_title(loc="left") or ax.get_title()).split())
    busiest = np.where(np.isnan(y).all(axis=0), np.nan, np.nan_to_num(y).max(axis=0))
    _title_agrees_with_drawn(kd, title, busiest)
    assert html.escape(title) in node_load_html(kd)  # the designer's tab, the same words


def test_the_time_first_hotspot_title_counts_one_tablet(fx):
    # every write lands at the end of one tablet: the drawn lines give one node 100 % of every
    # loaded window and the others nothing; the title said "(3 nodes, 1 tablets)"
    kd = wb.analyze(fx, wb.preset("fx_prices", "timestamp_first")).keyspace
    title, busiest = _drawn(kd)
    assert kd.n_tablets == 1
    assert title == "One node takes the load; the others idle (3 nodes, 1 tablet)", title
    assert (busiest[~np.isnan(busiest)] == 1.0).all()
