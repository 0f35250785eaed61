"""The designer's key heat map as HTML around a raster image: no matplotlib draw per widget change.

The notebook and report figure is :func:`workbench.plots.keyspace.plot_key_heatmap`.
Drawing it (text layout, ticks, a colour bar) costs a few hundred milliseconds, more
than a whole analysis, so the designer shows the same picture built differently:
the time × key-bucket matrix is coloured in NumPy with the same colormap and norm
(log for writes), encoded as a PNG by Pillow, and the title, key-prefix labels, dates
and colour scale are HTML around it. The result reads like the figure and renders in
milliseconds (``bench/bench_widgets.py``).
"""

from __future__ import annotations

import base64
import html
import io
from typing import Any

import numpy as np
import pandas as pd

from ..notes import EMULATOR_NOTES
from ..plots.keyspace import METRICS, scale_ticks
from ..plots.style import BAD, heatmap_cmap

WIDTH_PX, HEIGHT_PX = 720, 300  # the raster; labels sit around it (fits the designer at 1280 px)


def _colours(kd: Any, what: str) -> tuple[np.ndarray, Any]:
    """RGBA bytes for the key-bucket × window matrix (white where nothing happened), and its norm:
    the same data and norm as the matplotlib figure (:func:`~workbench.plots.keyspace.heatmap_data`)."""
    from ..plots.keyspace import heatmap_data

    data, norm = heatmap_data(kd, what)
    rgba = heatmap_cmap()(norm(data), bytes=True)
    rgba[np.ma.getmaskarray(data)] = (255, 255, 255, 255)
    return rgba, norm


def _png(rgba: np.ndarray) -> bytes:
    from PIL import Image

    img = Image.fromarray(np.ascontiguousarray(rgba), "RGBA").resize(
        (WIDTH_PX, HEIGHT_PX), Image.Resampling.NEAREST
    )
    buf = io.BytesIO()
    img.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def _gradient() -> str:
    import matplotlib

    cmap = heatmap_cmap()
    stops = ", ".join(matplotlib.colors.to_hex(cmap(x)) for x in np.linspace(1, 0, 9))
    return f"linear-gradient({stops})"


def _date_ticks(edges_us: np.ndarray, n: int = 7) -> list[tuple[float, str]]:
    """(fraction across, label) for about ``n`` dates between the first and last window edge."""
    t0, t1 = int(edges_us[0]), int(edges_us[-1])
    if t1 <= t0:
        return [(0.0, f"{pd.Timestamp(t0, unit='us', tz='UTC'):%Y-%m-%d %H:%M}")]
    span = pd.Timestamp(t1, unit="us") - pd.Timestamp(t0, unit="us")
    fmt = (
        "%b %d"
        if span >= pd.Timedelta(days=2)
        else ("%b %d %H:%M" if span >= pd.Timedelta(hours=6) else "%H:%M:%S")
    )
    ticks = np.linspace(t0, t1, n)
    return [
        ((t - t0) / (t1 - t0), f"{pd.Timestamp(int(t), unit='us', tz='UTC'):{fmt}}") for t in ticks
    ]


def _num(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 10 else f"{v:.3g}"


def heatmap_html(kd: Any, what: str = "writes") -> str:
    """The key heat map of a :class:`~workbench.analysis.KeyDistribution` as self-contained HTML."""
    rgba, norm = _colours(kd, what)
    src = "data:image/png;base64," + base64.b64encode(_png(rgba)).decode("ascii")
    n_buckets = rgba.shape[0]
    if what == "writes":
        title = f"<div class='wb-hm-title' style='color:{BAD if kd.spread == 'hotspot' else 'black'}'>{html.escape(kd.verdict())}</div>"
    elif what == "reads":
        title = (
            "<div class='wb-hm-title'>Reads by the query workload ("
            + html.escape(kd.read_note.split(":", 1)[-1].strip())
            + ")</div>"
        )
    else:
        title = f"<div class='wb-hm-title'>Key Visualizer: {html.escape(METRICS[what][0])}</div>"
    diag = " · ".join(
        f"<span title='{html.escape(d['detail'])}' style='color:"
        f"{BAD if d['severity'] == 'danger' else '#8a5a00' if d['severity'] == 'warning' else '#555'}'>"
        f"{html.escape(d['message'])}</span>"
        for d in kd.diagnostics()
    )
    if diag:
        title += f"<div class='wb-hm-note' style='margin-bottom:8px'>Diagnostics: {diag}</div>"
    ylabels = "".join(
        f"<span style='top:{100 * (p + 0.5) / max(n_buckets, 1):.2f}%'>{html.escape(t)}</span>"
        for p, t in kd.labels
    )
    xlabels = "".join(
        f"<span style='left:{100 * f:.2f}%'>{html.escape(t)}</span>"
        for f, t in _date_ticks(np.asarray(kd.window_edges_us))
    )
    scale = METRICS[what][0]
    busiest = kd.busiest_range.get("name") if what == "writes" else None
    caption = f"busiest key range: <code>{html.escape(str(busiest))}</code> · " if busiest else ""
    css = (
        "<style>.wb-hm{font:12px sans-serif;line-height:1.3}.wb-hm-title{font-weight:bold;font-size:14px;"
        "margin:2px 0 6px 0}.wb-hm-grid{display:grid;grid-template-columns:max-content "
        + f"minmax(240px,{WIDTH_PX}px)"
        " 14px max-content;column-gap:6px}.wb-hm-y{position:relative;height:" + f"{HEIGHT_PX}px"
        ";font:11px monospace;text-align:right}.wb-hm-y span{position:absolute;right:0;transform:translateY(-50%);"
        "white-space:nowrap}.wb-hm-x{position:relative;height:18px;font-size:11px}.wb-hm-x span{position:absolute;"
        "transform:translateX(-50%);white-space:nowrap}.wb-hm-bar{height:" + f"{HEIGHT_PX}px"
        ";border:1px solid #999}.wb-hm-scale{position:relative;min-width:3em;height:"
        + f"{HEIGHT_PX}px"
        + ";font-size:11px}.wb-hm-scale span{position:absolute;left:0;transform:translateY(50%);"
        "white-space:nowrap}.wb-hm-img{border:1px solid #999;display:block;width:100%;"
        "height:" + f"{HEIGHT_PX}px" + ";box-sizing:border-box;image-rendering:pixelated}"
        ".wb-hm-note{color:#555;font-size:11px;margin-top:4px;max-width:900px}</style>"
    )
    longest = max((len(t) for _, t in kd.labels), default=4)
    return (
        css
        + "<div class='wb-hm'>"
        + title
        + "<div class='wb-hm-grid'>"
        + f"<div class='wb-hm-y' style='width:{min(longest, 30) * 0.62 + 0.5:.1f}em'>{ylabels}</div>"
        + f"<img class='wb-hm-img' width='{WIDTH_PX}' height='{HEIGHT_PX}' alt='key heat map of {html.escape(what)}'"
        f" src='{src}'>"
        + f"<div class='wb-hm-bar' style='background:{_gradient()}' title='{html.escape(scale)}'></div>"
        + "<div class='wb-hm-scale'>"
        + "".join(
            f"<span style='bottom:{100 * f:.1f}%'>{html.escape(lab)}</span>"
            for f, _, lab in scale_ticks(norm, what)
        )
        + "</div>"
        + f"<div></div><div class='wb-hm-x'>{xlabels}</div><div></div><div></div>"
        + "</div>"
        + f"<div class='wb-hm-note'>row key ({n_buckets:,} buckets, key order) down, event time across"
        f"; colour: {html.escape(scale)}{' (log scale)' if METRICS[what][1] else ''}, white: none. "
        f"{caption}"
        f"{html.escape(EMULATOR_NOTES['keyspace'])}</div></div>"
    )


__all__ = ["heatmap_html"]
