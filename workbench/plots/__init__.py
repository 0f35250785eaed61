"""Figures: one matplotlib function per picture, ``ax=None`` in, the axes out.

Modules: :mod:`.keyspace` (the simulated Key Visualizer, per-node load, the
hotspot figure), :mod:`.sizes` (row sizes vs limits, bucket-width growth),
:mod:`.queries` (query costs), :mod:`.capacity` (bytes per event),
:mod:`.compare` (small multiples ranking designs). :mod:`.style` holds the
shared colour-blind-safe look.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from typing import Any


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


__all__ = ["figure_html", "png_bytes"]
