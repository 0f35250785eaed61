"""Small multiples ranking designs: one panel per criterion, best in green, worst in vermillion:
:func:`plot_comparison` (matplotlib) and :func:`comparison_html` (the designer's HTML bars)."""

from __future__ import annotations

import html
import math
import textwrap
from typing import TYPE_CHECKING

import numpy as np

from ..formatting import amount, fair_factor
from ..notes import EMULATOR_NOTES
from ..units import human_bytes
from .html_parts import breakable, figure_box
from .style import BAD, GOOD, MUTED, WIDTH_IN, styled

if TYPE_CHECKING:
    from ..analysis import Comparison


def _fmt(col: str, v: float) -> str:
    """A criterion's value as its panel labels it (n/a where it was not measured)."""
    if not np.isfinite(v):
        return "n/a"
    if col.endswith("_bytes"):  # a size whose label names no unit: "70.3 MB"
        return human_bytes(v)
    if col == "hotspot_factor":
        return fair_factor(v)
    return amount(v)  # 382,200 events/s, never 3.82e+05; 14 node-ms, never 14.0


#: which way is better, said once for every panel (the ceiling is the one that goes up)
DIRECTION = "lower is better in every panel but the ceiling, where higher is better"


def _panel_note(col: str, ranking, values: np.ndarray) -> str:
    """What a panel's title adds: the ceiling's direction, and "no cost at this rate" where the
    values differ but the ranking colours no design (a 2.9× hotspot that costs nothing at the
    sample's rate is grey, and the title says why)."""
    note = " — higher is better" if col.startswith("ceiling") else ""
    finite = values[np.isfinite(values)]
    differ = len(finite) > 1 and finite.max() > finite.min() * 1.05
    if ranking is not None and not ranking["best"] and differ:
        note += " — no cost at this rate"
    return note


def _title_chars(ncols: int, label_chars: int) -> int:
    """Characters of a 10.5-pt bold title that fit over one of ``ncols`` panels, whose design-name
    labels (``label_chars`` long, 9.5 pt) take the left part of the panel's width."""
    points = WIDTH_IN * 72 / ncols - label_chars * 9.5 * 0.6
    return max(18, int(points / (10.5 * 0.66)))


@styled
def plot_comparison(cmp: Comparison, axes: np.ndarray | None = None) -> np.ndarray:
    """One horizontal bar chart per criterion (lower is better, the ceiling's higher; no cost at the
    rate judged stays grey and says so in its title); returns the array of axes."""
    import matplotlib.pyplot as plt

    crit = cmp.criteria
    n = len(crit)
    ncols = min(3, n)
    nrows = math.ceil(n / ncols)
    if axes is None:
        designs = len(cmp.table)
        fig, axes = plt.subplots(
            nrows,
            ncols,
            figsize=(WIDTH_IN, nrows * (0.45 * designs + 1.6)),
            layout="constrained",
            squeeze=False,
        )
    axes = np.atleast_1d(axes).ravel()
    names = cmp.table.index.tolist()
    for ax, (col, label) in zip(axes, crit, strict=False):
        v = cmp.table[col].astype(float).to_numpy()
        r = cmp.rankings.loc[label] if label in cmp.rankings.index else None
        colours = [
            GOOD
            if r is not None and nm == r["best"]
            else BAD
            if r is not None and nm == r["worst"]
            else MUTED
            for nm in names
        ]
        y = np.arange(len(names))
        ax.barh(y, np.nan_to_num(v), color=colours)
        ax.set_yticks(y)
        ax.set_yticklabels(names, fontsize=9.5)
        ax.invert_yaxis()
        top = np.nanmax(v) if len(v) and np.isfinite(v).any() else 1.0
        for yi, vi in zip(y, v, strict=True):
            ax.text(
                vi if np.isfinite(vi) else 0,
                yi,
                " " + _fmt(col, vi),
                va="center",
                fontsize=9,
            )
        ax.set_xlim(0, max(top, 1e-12) * 1.35)
        ax.set_xticks([])
        ax.spines["bottom"].set_visible(False)
        if col == "hotspot_factor":
            ax.axvline(1.0, color="black", ls="--", lw=1)
        # wrapped to the panel's width: long query names otherwise run into the next panel's title
        ax.set_title(
            textwrap.fill(
                label + _panel_note(col, r, v),
                _title_chars(ncols, max(map(len, names))),
                break_on_hyphens=False,
            ),
            fontsize=10.5,
        )
    for ax in axes[len(crit) :]:
        ax.set_visible(False)
    wins = cmp.rankings["best"].replace("", np.nan).dropna().value_counts()
    head = (
        f"{wins.index[0]} is best on {wins.iloc[0]} of {len(cmp.rankings)} criteria"
        if len(wins)
        else "The designs tie on every criterion"
    )
    axes[0].figure.suptitle(
        f"{len(names)} designs for {cmp.dataset}: {head}\n"
        f"({DIRECTION}; green best, vermillion worst, grey a tie or no cost at this rate)",
        fontweight="bold",
        x=0.01,
        ha="left",
    )
    return axes


def comparison_html(cmp: Comparison) -> str:
    """:func:`plot_comparison` as HTML: every criterion of a :class:`~workbench.analysis.Comparison` as a small bar chart (lower is
    better; best green, worst vermillion) with its ranking and reason: the rows of ``cmp.table``
    and ``cmp.rankings``, nothing recomputed."""
    names = cmp.table.index.tolist()
    panels = []
    for col, label in cmp.criteria:
        v = cmp.table[col].astype(float).to_numpy()
        r = cmp.rankings.loc[label] if label in cmp.rankings.index else None
        top = float(np.nanmax(v)) if np.isfinite(v).any() else 1.0
        bars = []
        for nm, x in zip(names, v, strict=True):
            colour = (
                GOOD
                if r is not None and nm == r["best"]
                else BAD
                if r is not None and nm == r["worst"]
                else MUTED
            )
            width = 100 * x / top if np.isfinite(x) and top > 0 else 0.0
            bars.append(
                f"<tr><td class='wb-b-name'>{breakable(nm)}</td><td style='width:45%'><div style='height:14px;"
                f"width:{max(width, 0.5):.1f}%;background:{colour}'></div></td>"
                f"<td class='wb-b-num'>{_fmt(col, x)}</td></tr>"
            )
        reason = f"<br><small>{breakable(r['reason'])}</small>" if r is not None else ""
        panels.append(
            f"<div style='min-width:0'><b>{html.escape(label + _panel_note(col, r, v))}</b>{reason}"
            f"<table style='width:100%'>{''.join(bars)}</table></div>"
        )
    wins = cmp.rankings["best"].replace("", np.nan).dropna().value_counts()
    head = (
        f"{wins.index[0]} is best on {wins.iloc[0]} of {len(cmp.rankings)} criteria"
        if len(wins)
        else "The designs tie on every criterion"
    )
    return figure_box(
        f"<div class='wb-b-title'>{len(names)} designs for {html.escape(cmp.dataset)}: "
        f"{html.escape(head)}</div><small>{DIRECTION}; green best, "
        "vermillion worst, grey a tie or no cost at this rate</small><div style='display:grid;grid-template-columns:repeat(auto-fill,"
        "minmax(260px,1fr));gap:10px 18px;margin-top:6px'>"
        + "".join(panels)
        + f"</div><div class='wb-b-note'>{html.escape(EMULATOR_NOTES['keyspace'])} "
        f"{html.escape(EMULATOR_NOTES['querycost'])}</div>"
    )
