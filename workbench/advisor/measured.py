"""What the load model measured, as the key-shape rules read it: whether the writes spread
evenly at the judged rate (then a key's shape alone is no reason for an error), and where
writes really land (the first segment that varies over the dataset)."""

from __future__ import annotations

import math
from typing import Any

from ..formatting import EVEN_FACTOR, counted, rate
from ..schema import RowKey
from .context import Context


def measured_even(c: Context) -> str | None:
    """Why the usual key-shape rule does not apply here, when the load model measures the
    design's writes spread evenly at the judged rate (None: no analysis, or it does not).

    The shape of a key says where writes *may* pile up; the replay of this dataset's writes at
    the production rate says where they do. When they disagree the measurement wins (G06)."""
    a = c.analysis
    if a is None or not a.keyspace.n_writes:
        return None
    kd, cap = a.keyspace, a.capacity
    # a key-shape rule stands down only where the load model itself calls the spread even
    if kd.spread != "even":
        return None
    if cap.hotspot_limited:  # even now, but the judged rate is over the busiest unit's ceiling
        return None
    ceiling = (
        ""
        if math.isinf(cap.ceiling_events_per_s)
        else f", under the design's ceiling of {rate(cap.ceiling_events_per_s, 'events')}"
    )
    # rates as every view states them ("20.3 writes/h", "49,000 events/s"): ",.3g" printed
    # the designer's my_meters ceiling as "4.9e+04 events/s" and its rate as "0.00565 writes/s"
    return (
        f"the load model replays these writes at {rate(kd.write_rate_per_s, 'writes')} on "
        f"{counted(kd.nodes, 'node')}: the busiest node carries "
        f"{kd.factor_text} its fair share (under {EVEN_FACTOR}×, spread evenly)" + ceiling
    )


def consequence_severity(c: Context) -> str:
    """A key shape's severity from what it costs at the workload's rate (the capacity view's
    own verdict, so the advisor never contradicts it): "error" when the design is
    hotspot-limited at that rate (no node count serves it), else "warning" — the shape still
    stops scaling somewhere, which the evidence states. Without an analysis: "error"."""
    a = c.analysis
    if a is None:
        return "error"
    return "error" if a.capacity.hotspot_limited else "warning"


def one_valued(c: Context, seg: Any) -> bool:
    """Does this segment render one value over the whole dataset (a single series' name)?"""
    srcs = [x for x in seg.sources() if x != "time"]
    if seg.constant or not srcs or len(srcs) != len(seg.sources()):
        return bool(seg.constant)
    f = c.ds.frame
    return all(col in f and f[col].nunique(dropna=False) <= 1 for col in srcs)


def effective_lead(c: Context, key: RowKey) -> int | None:
    """Index of the first segment that varies over the dataset: what decides where writes land.
    One series' name in front of the time is a constant prefix: the key is time-first in effect."""
    return next(
        (i for i, s in enumerate(key.segments) if not one_valued(c, s)),
        None,
    )
