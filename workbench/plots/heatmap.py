"""The key heat map, the simulated Key Visualizer (G06, G07, G08): time across, row keys down.

Two forms of one picture: :func:`plot_key_heatmap` (matplotlib, for notebooks and reports) and
:func:`key_heatmap_html` (the designer: HTML around a NumPy/Pillow raster, milliseconds instead
of a few hundred for the text layout, ticks and colour bar). Both read :func:`heatmap_data`
(the matrix and its norm) and :func:`scale_ticks` (the colour scale's labels), so they show the
same numbers in the same colours.
"""

from __future__ import annotations

import base64
import html
import io
from typing import TYPE_CHECKING, Any

import matplotlib.dates as mdates
import matplotlib.ticker as mticker
import numpy as np
import pandas as pd

from ..notes import EMULATOR_NOTES
from .html_parts import date_ticks
from .style import BAD, heatmap_cmap, new_axes, note, styled

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..analysis import KeyDistribution


def window_times(kd: KeyDistribution) -> pd.DatetimeIndex:
    """The windows' edges as UTC times (the x axis of every picture over event time)."""
    return pd.to_datetime(kd.window_edges_us, unit="us", utc=True)


# what the heat map can draw: (colour-bar label, log scale?)
COUNTS = ("writes",)  # metrics that count whole events in the sample (1 is the least there is)
METRICS = {
    "writes": ("writes per window and key bucket (the sample)", True),
    "reads": ("rows read per window (production rate)", False),
    "ops": ("ops per minute: reads + writes (production rate)", True),
    "write_bytes": ("bytes written per minute (production rate)", True),
    "read_bytes": ("bytes read per minute (production rate)", True),
    "pressure": ("pressure: CPU of the serving node, % of the 70 % target", False),
    "rows": ("rows per key bucket", False),
    "data": ("bytes stored per key bucket (the sample)", True),
    "large_rows": ("rows over 256 MB", False),
}


def heatmap_data(kd: KeyDistribution, what: str = "writes"):
    """The key-bucket × window matrix to draw (masked where nothing happened) and its norm: log for
    counts that span decades (writes, ops, bytes), linear for the rest. Shared by this figure and
    the designer's HTML heat map. ``what``: ``"writes"``, ``"reads"`` or a Key Visualizer metric
    of :meth:`KeyDistribution.metric`."""
    from matplotlib.colors import LogNorm, Normalize

    if what not in METRICS:
        raise ValueError(
            f"what must be 'writes' or 'reads' or a Key Visualizer metric ({', '.join(METRICS)}), "
            f"got {what!r}."
        )
    m = {"writes": lambda: kd.writes, "reads": lambda: kd.reads}.get(
        what, lambda: kd.metric(what)
    )()
    data = np.ma.masked_less_equal(np.asarray(m, dtype=float).T, 0)
    if what in COUNTS:
        # whole counts: white is 0 (masked), the scale starts half a step below 1 so a cell with
        # one write gets a colour of its own (not the palest), and the top is at least 2 so 1 is
        # never also "the most": 0, 1 and many stay three different colours however small the data
        vmax = max(float(data.max()) if data.count() else 1.0, 2.0)
        return data, LogNorm(vmin=0.5, vmax=vmax)
    if METRICS[what][1]:
        vmax = float(data.max()) if data.count() else 1.0
        vmin = float(data.min()) if data.count() else 1.0
        vmin = max(vmin, vmax / 1e6)
        return data, LogNorm(vmin=vmin, vmax=max(vmax, vmin * 1.0001))
    lo, hi = (float(data.min()), float(data.max())) if data.count() else (0.0, 1.0)
    return data, Normalize(vmin=lo, vmax=hi)  # what matplotlib's autoscale picks


def scale_ticks(norm: Any, what: str) -> list[tuple[float, float, str]]:
    """(fraction up the colour bar, value, label) for the heat map's scale: the top, the middle and,
    for counts, 1 (the bottom of the bar is half a write, which no cell has)."""
    lo, hi = float(norm.vmin), float(norm.vmax)
    if what in COUNTS:
        values = sorted({1.0, round(float(np.sqrt(hi))), hi})
    else:
        mid = float(np.sqrt(lo * hi)) if METRICS[what][1] and lo > 0 else (lo + hi) / 2
        values = [lo, mid, hi]
    out = []
    for v in values:
        label = f"{v:,.0f}" if abs(v) >= 10 or (what in COUNTS) else f"{v:.3g}"
        out.append((float(np.clip(norm(v), 0.0, 1.0)), v, label))
    return out


def key_axis(ax: Axes, kd: KeyDistribution, n_buckets: int) -> None:
    """Key buckets down the y axis in key order (as in Key Visualizer), labelled with key prefixes."""
    pos = [p for p, _ in kd.labels]
    ax.set_yticks([p + 0.5 for p in pos])
    ax.set_yticklabels([t for _, t in kd.labels], fontsize=9, family="monospace")
    ax.set_ylim(n_buckets, 0)  # key order top to bottom, as in Key Visualizer
    ax.set_ylabel(f"row key ({n_buckets:,} buckets, key order)")


@styled
def plot_key_heatmap(
    kd: KeyDistribution, ax: Axes | None = None, *, what: str = "writes", emulator_note: bool = True
) -> Axes:
    """Time × key space heat map of write operations (or the workload's row reads).

    A timestamp-first key draws one diagonal line (the write frontier moving
    through the key space); field promotion draws even horizontal bands; salting
    with N buckets draws N parallel frontiers. ``emulator_note=False`` leaves out the
    caption on how the emulator differs (for pages that print it as text).
    """
    ax = new_axes(ax, height=5.2)
    data, norm = heatmap_data(kd, what)
    t = window_times(kd)
    x0, x1 = mdates.date2num(t[0].to_pydatetime()), mdates.date2num(t[-1].to_pydatetime())
    im = ax.imshow(
        data,
        aspect="auto",
        interpolation="nearest",
        cmap=heatmap_cmap(),
        norm=norm,
        extent=(x0, x1, data.shape[0], 0),
    )
    ax.set_facecolor("white")
    ax.xaxis_date()
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(ax.xaxis.get_major_locator()))
    key_axis(ax, kd, data.shape[0])
    cb = ax.figure.colorbar(im, ax=ax, pad=0.01, aspect=30)
    cb.set_label(METRICS[what][0])
    cb.ax.yaxis.set_major_formatter(
        mticker.FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}")
    )
    ticks = scale_ticks(norm, what)
    cb.set_ticks([v for _, v, _ in ticks], labels=[lab for _, _, lab in ticks])
    cb.ax.yaxis.set_minor_locator(
        mticker.NullLocator()
    )  # unlabelled log minor ticks cost a redraw's worth of time
    if what == "writes":
        ax.set_title(kd.verdict(), color=BAD if kd.spread == "hotspot" else "black")
        br = kd.busiest_range.get("name")
        if br:
            ax.text(
                0.99,
                0.02,
                f"busiest key range: {br}",
                transform=ax.transAxes,
                ha="right",
                va="bottom",
                fontsize=9,
                family="monospace",
                bbox=dict(facecolor="white", alpha=0.85, edgecolor="none"),
            )
        if emulator_note:
            note(ax, EMULATOR_NOTES["keyspace"])
    elif what == "reads":
        ax.set_title("Reads by the query workload (" + kd.read_note.split(":", 1)[-1].strip() + ")")
    else:
        diag = "; ".join(diagnostic_words(kd, d) for d in kd.diagnostics())
        ax.set_title(f"Key Visualizer: {METRICS[what][0]}" + (f" — {diag}" if diag else ""))
    ax.set_xlabel("event time")
    return ax


def diagnostic_words(kd: KeyDistribution, d: dict) -> str:
    """A Key Visualizer diagnostic in plain words for a caption. "Key space not to scale" means the
    rows are fewer than its key buckets: the rows are cut into buckets of equal row counts in key
    order (``row * B // R``, load_windows.py) with B = min(buckets, rows), so each band is one row
    and its height says nothing of the row's bytes or its share of the key range."""
    if d["message"] == "Key space not to scale":
        return (
            f"Key space: {kd.n_rows:,} rows in key order, one band each (fewer rows than the "
            f"{kd.settings.key_buckets:,} key ranges of a Key Visualizer); a band's height is one "
            "row, not its bytes"
        )
    return str(d["message"])


# ----------------------------------------------------------------------------- HTML form

WIDTH_PX, HEIGHT_PX = 720, 300  # the raster; labels sit around it (fits the designer at 1280 px)
# The key labels' column: one width for every design (30 monospace characters, the longest label
# shown), so heat maps of several designs on one page are pictures of one size, their time axes
# comparable; a column sized to each design's own labels squeezed the pictures to 606-720 px.
Y_LABELS_EM = 19.1


def _colours(kd: KeyDistribution, what: str) -> tuple[np.ndarray, Any]:
    """RGBA bytes for the key-bucket × window matrix (white where nothing happened), and its norm:
    the same data and norm as the matplotlib figure (:func:`heatmap_data`)."""
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


def key_heatmap_html(
    kd: KeyDistribution, what: str = "writes", *, emulator_note: bool = True
) -> str:
    """:func:`plot_key_heatmap` as self-contained HTML: the matrix coloured in NumPy with the same
    colormap and norm, a PNG by Pillow, and the title, key-prefix labels, dates and colour scale as
    HTML around it (milliseconds, where the matplotlib draw costs a few hundred)."""
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
        f"{html.escape(diagnostic_words(kd, d))}</span>"
        for d in kd.diagnostics()
    )
    if diag:
        title += f"<div class='wb-hm-note' style='margin-bottom:8px'>{diag}</div>"
    ylabels = "".join(
        f"<span style='top:{100 * (p + 0.5) / max(n_buckets, 1):.2f}%'>{html.escape(t)}</span>"
        for p, t in kd.labels
    )
    xlabels = "".join(
        f"<span style='left:{100 * f:.2f}%'>{html.escape(t)}</span>"
        for f, t in date_ticks(np.asarray(kd.window_edges_us))
    )
    scale = METRICS[what][0]
    busiest = kd.busiest_range.get("name") if what == "writes" else None
    # " · " only between two parts: with the emulator note left out (04's keyspace view, which
    # prints it once under the hot tablets) the caption ended on a dangling "·"
    tail = [f"busiest key range: <code>{html.escape(str(busiest))}</code>"] if busiest else []
    if emulator_note:
        tail.append(html.escape(EMULATOR_NOTES["keyspace"]))
    # The picture stretches to the column (narrower at 1280 px) but keeps its height, with a
    # selector strong enough to beat the notebook's own "img {height: auto}"; the key labels, the
    # colour bar and its scale have no height of their own: they stretch to the picture's grid
    # row, so their % positions follow the picture whatever size it ends up.
    css = (
        "<style>.wb-hm{font:12px sans-serif;line-height:1.3}.wb-hm-title{font-weight:bold;"
        "font-size:14px;margin:2px 0 6px 0}.wb-hm-grid{display:grid;grid-template-columns:"
        f"max-content minmax(240px,{WIDTH_PX}px) 14px max-content;column-gap:6px;"
        "align-items:stretch}.wb-hm-y{position:relative;font:11px monospace;text-align:right}"
        ".wb-hm-y span{position:absolute;right:0;transform:translateY(-50%);white-space:nowrap}"
        ".wb-hm-x{position:relative;height:18px;font-size:11px}.wb-hm-x span{position:absolute;"
        "transform:translateX(-50%);white-space:nowrap}.wb-hm-bar{border:1px solid #999;"
        "box-sizing:border-box}.wb-hm-scale{position:relative;min-width:3em;font-size:11px}"
        ".wb-hm-scale span{position:absolute;left:0;transform:translateY(50%);white-space:nowrap}"
        f".wb-hm .wb-hm-grid img.wb-hm-img{{border:1px solid #999;display:block;width:100%;"
        f"max-width:100%;height:{HEIGHT_PX}px;box-sizing:border-box;image-rendering:pixelated}}"
        ".wb-hm-note{color:#555;font-size:11px;margin-top:4px;max-width:900px}</style>"
    )
    return (
        css
        + "<div class='wb-hm'>"
        + title
        + "<div class='wb-hm-grid'>"
        + f"<div class='wb-hm-y' style='width:{Y_LABELS_EM}em'>{ylabels}</div>"
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
        f"{' · '.join(tail)}</div></div>"
    )
