"""Figures: one home per picture, each in two forms side by side in one module.

``plot_<name>(result, ax=None)`` draws with matplotlib for notebooks and reports and returns the
axes it drew; ``<name>_html(result)`` draws the same numbers as HTML/SVG for the designer, in
milliseconds instead of the 200-500 ms of a matplotlib draw and PNG encode. Both take the
analysis result and compute nothing of their own beyond layout; their titles come from one
function or one result method, so they say the same thing.

Modules: :mod:`.heatmap` (the key heat map, the simulated Key Visualizer), :mod:`.keyspace`
(node load, hotspot; the node sweep and read profile), :mod:`.sizes` (row sizes against the
limits), :mod:`.queries` (query costs), :mod:`.compare` (small multiples ranking designs),
:mod:`.capacity` (bytes per event, nodes needed). :mod:`.style` holds the shared colour-blind-safe
look, :mod:`.html_parts` the HTML forms' shared style sheet and axes.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from typing import Any

from ..errors import require_lab

# figures are the lab's (a runtime-only install has no matplotlib): one clear error, not a
# ModuleNotFoundError from whichever figure module was imported first
require_lab("Figures (notebook, report and designer pictures)", "matplotlib")


def png_bytes(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def figure_html(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """Draw ``fn(*args)`` on a fresh figure and return it as an inline base64 <img> (works offline)."""
    import matplotlib.pyplot as plt

    from .style import style

    with style():
        ax = fn(*args, **kwargs)
        fig = ax.figure if hasattr(ax, "figure") else ax[0].figure
        data = png_bytes(fig)
    plt.close(fig)
    return (
        '<img style="max-width:100%" src="data:image/png;base64,'
        + base64.b64encode(data).decode("ascii")
        + '"/>'
    )


# pictures only notebooks and reports show (the designer has no tab for them): no HTML form
NOTEBOOK_ONLY = ("node_sweep", "read_profile", "bytes_breakdown", "node_need")

__all__ = ["NOTEBOOK_ONLY", "figure_html", "png_bytes"]
