"""Texts of one row-key segment for the planner: for fixed values, for a column's values, and
for every time bucket of a range."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .keys import RowKey
from .segments import TIME, RenderContext

if TYPE_CHECKING:  # pragma: no cover
    from .shape import Shape


def render_one(key: RowKey, i: int, known: Mapping[str, Any], t: int | None) -> str:
    seg = key.segments[i]
    if not (seg.renders_last and TIME in seg.sources()):
        return seg.text_of(known, t, key.delimiter)
    cols = {c: pd.Series([v]) for c, v in known.items()}
    ctx = RenderContext(cols, np.array([t or 0], dtype=np.int64), key.delimiter)
    ctx.time_coded = key.time_segments[0].coded(ctx)  # the salt hashes the key's time text
    return str(seg.render(ctx)[0])


def render_values(
    key: RowKey, i: int, known: Mapping[str, Any], col: str, values: Sequence[object]
) -> list[str]:
    """Segment ``i``'s text for each value of ``col`` (other columns fixed to ``known``)."""
    n = len(values)
    cols = {c: pd.Series([v] * n) for c, v in known.items()}
    cols[col] = pd.Series(list(values))
    ctx = RenderContext(cols, np.zeros(n, dtype=np.int64), key.delimiter)
    return [str(x) for x in key.segments[i].render(ctx)]


def time_texts(
    key: RowKey, i: int, known: Mapping[str, Any], lo: int, hi: int, limit: int
) -> list[str] | None:
    """The distinct texts time segment ``i`` takes over [lo, hi] µs, or None when there are
    more than ``limit`` or the segment's bucket length is unknown."""
    seg = key.segments[i]
    step = seg.bucket_us()
    if step <= 0 or hi < lo or (hi - lo) // step + 2 > limit:
        return None
    t = np.unique(np.r_[np.arange(lo, hi + 1, step, dtype=np.int64), np.int64(hi)])
    cols = {c: pd.Series([v] * len(t)) for c, v in known.items()}
    ctx = RenderContext(cols, t, key.delimiter)
    return sorted({str(x) for x in seg.render(ctx)})


def later_fixed(key: RowKey, i: int, known: Mapping[str, Any]) -> bool:
    """Does a segment after ``i`` take only values the query fixes (so the key keeps helping)?"""
    return any(
        set(s.sources()) and TIME not in s.sources() and set(s.sources()) <= set(known)
        for s in key.segments[i + 1 :]
    )


def narrowed(
    key: RowKey, i: int, known: Mapping[str, Any], shape: Shape | None
) -> list[str] | None:
    """Segment ``i``'s texts over the values its one open column takes with the query's fixed
    fields, when that set is known and smaller than the column's own (else None)."""
    srcs = set(key.segments[i].sources())
    if shape is None or len(srcs) != 1 or TIME in srcs:
        return None
    col = next(iter(srcs))
    if col in known or col not in shape.entity:
        return None
    vals = shape.known_values(col, known)
    every = shape.known_values(col)
    if vals is None or (every is not None and len(vals) >= len(every)):
        return None
    return sorted(set(render_values(key, i, known, col, vals)))
