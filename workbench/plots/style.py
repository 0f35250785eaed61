"""Shared look of every figure: colour-blind-safe colours, readable at 1280 px and in print.

Categorical colours are the Okabe–Ito palette (distinguishable with every common
colour-vision deficiency and in greyscale by lightness); heat maps use
``cividis`` reversed (perceptually uniform, colour-blind safe; hot is dark) on a white background so
empty key ranges print as paper.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import matplotlib
from cycler import cycler

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#000000"]
GOOD, BAD, NEUTRAL, MUTED = "#009E73", "#D55E00", "#0072B2", "#999999"
HEATMAP = (
    "cividis_r"  # reversed: the hottest cells are the darkest, the most visible on white paper
)
HEATMAP_FLOOR = 0.25  # the palest colour a non-empty cell gets: clearly apart from white (nothing)


def heatmap_cmap() -> Any:
    """:data:`HEATMAP` without its palest quarter: on white paper the palest cividis shades read
    as "nothing", so a cell with one write would vanish; white stays reserved for empty cells."""
    import numpy as np
    from matplotlib.colors import ListedColormap

    base = matplotlib.colormaps[HEATMAP]
    return ListedColormap(base(np.linspace(HEATMAP_FLOOR, 1.0, 256)), name=f"{HEATMAP}_floor")


WIDTH_IN = 11.0  # ~1100 px at 100 dpi: fits a 1280-px notebook without scaling text down
HEIGHT_IN = 4.2
DPI = 100

RC: dict[RcKeyType, Any] = {
    "figure.dpi": DPI,
    "savefig.dpi": 110,
    "font.size": 11,
    "axes.titlesize": 12.5,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
    "axes.labelsize": 11,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "legend.fontsize": 10,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": False,
    "axes.prop_cycle": cycler(color=OKABE_ITO),
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "savefig.bbox": "tight",
}


@contextmanager
def style() -> Iterator[None]:
    """Apply the workbench look for the figures drawn inside the block."""
    # In a notebook the inline backend loads with the first figure and switches interactive mode on;
    # rc_context would switch it off again on exit, and from then on the user's own plots (df.plot(),
    # plt.plot()) would silently never be shown. So the interactive flag set inside is kept.
    interactive = matplotlib.is_interactive()
    try:
        with matplotlib.rc_context(RC):
            try:
                yield
            finally:
                interactive = matplotlib.is_interactive()
    finally:
        matplotlib.interactive(interactive)


def apply() -> None:
    """Make the workbench look the default for every figure in this process.

    ``wb.setup()`` calls it so an attendee's own ``df.plot()`` matches the workbench's figures."""
    matplotlib.rcParams.update(RC)


def new_axes(ax=None, *, width: float = WIDTH_IN, height: float = HEIGHT_IN):
    """The given axes, or a new figure's axes in the workbench size."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    with style():
        fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
    return ax


def legend_outside(ax, **kwargs):
    """The legend right of the plotting area, never over a bar or a line (inside, a corner that is
    empty for one design holds data for the next: the 30-node bar, node 1's line)."""
    import textwrap

    kwargs.setdefault("fontsize", 8)
    handles, labels = ax.get_legend_handles_labels()
    labels = [textwrap.fill(lab, 24, break_on_hyphens=False) for lab in labels]
    return ax.legend(
        handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kwargs
    )


def note(ax, text: str) -> None:
    """A small caption under the axes (emulator-vs-production notes, model assumptions)."""
    import textwrap

    t = ax.annotate(
        textwrap.fill(text, 120),
        xy=(0, 0),
        xycoords="axes fraction",
        xytext=(0, -40),
        textcoords="offset points",
        fontsize=8.5,
        color="#555555",
        va="top",
        ha="left",
        annotation_clip=False,
    )
    t.set_in_layout(True)


def styled(fn):
    """Decorator: draw the whole figure under the workbench look."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with style():
            return fn(*args, **kwargs)

    return wrapper
