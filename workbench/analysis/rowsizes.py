"""Row sizes: bytes and cells per row against Cloud Bigtable's limits, and their growth (G02, G10, G12, G24).

Limits (settings): a cell should stay under 10 MB (hard 100 MiB), a row under
100 MB (hard 256 MB), a key under 4 KiB and a qualifier under 16 KiB. The
emulator enforces none of them, so this is where a design learns it would fail.

Growth: a time-bucket row (a month of readings per row, G02/G12) stops growing
when its bucket ends, so its size is proportional to the bucket width; a row
whose key has no time at all (one row per device, G24) grows for as long as the
data is kept. A row still filling at the end of the data is projected until its
key's time bound closes it (the bucket width, or Heroic's 2^32 ms base, G16) or
the retention period ends, whichever is first: :func:`row_time_bound_s` reads
the bound from the key and :func:`row_sizes` projects; :func:`bucket_width_sweep` measures
row size against bucket width by building the design at several widths.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..datasets.workload import RETENTION_MONTHS
from ..reprs import html_of
from ._index import CellIndex
from .settings import DEFAULT, Settings

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset
    from ..schema.keys import RowKey
    from ..schema.schema import Schema

_OPEN_FRACTION = 0.9  # a row spanning ≥ 90% of the data's time span is treated as never closing


@dataclass
class RowSizes:
    """Per-row bytes and cells, limit checks, and the largest row over the retention period."""

    bytes: np.ndarray
    cells: np.ndarray
    span_s: np.ndarray  # time between a row's first and last cell
    data_span_s: float
    max_cell_bytes: int
    max_key_bytes: int
    max_qualifier_bytes: int
    largest_row: str
    projected_bytes: np.ndarray  # row size after ``retention_months``
    settings: Settings = field(default=DEFAULT, repr=False)
    schema_name: str = ""
    row_bound_s: float | None = None  # the key's time bound: a row closes after this long
    sweep: pd.DataFrame | None = None
    rate_factor: float = (
        1.0  # one series' events/s, production ÷ sample (rows grow this much faster)
    )
    open_row_bytes_per_s: float = 0.0  # the fastest-growing open row at production, bytes/s
    retention_months: float = RETENTION_MONTHS  # the workload's: how long rows are kept
    # a shape sample's file: its largest row, counted by DuckDB over every event (the busiest
    # series' busiest bucket, which the sample may lack) at the sample's bytes per event, now
    # and projected as the sample's largest row is (``file_largest_row``); 0: none counted
    file_max_bytes: int = 0
    file_projected_bytes: int = 0
    file_row: str = ""  # which: "the file's busiest (sensor_id, day): 1,440 events"

    def seconds_to(self, limit_bytes: float) -> float:
        """How long the fastest-growing open row takes to reach ``limit_bytes`` at production
        (``inf``: no open row grows; 0: one is past it already)."""
        if self.open_row_bytes_per_s <= 0:
            return float("inf")
        return max(limit_bytes - self.max_bytes, 0.0) / self.open_row_bytes_per_s

    @property
    def n_rows(self) -> int:
        return len(self.bytes)

    @property
    def max_bytes(self) -> int:
        """The largest row: the sample's, or its file's when that is larger (``file_row``)."""
        return max(int(self.bytes.max()) if len(self.bytes) else 0, self.file_max_bytes)

    @property
    def projected_max_bytes(self) -> int:
        own = int(self.projected_bytes.max()) if len(self.projected_bytes) else 0
        return max(own, self.file_projected_bytes)

    @property
    def retention_s(self) -> float:
        return self.retention_months * self.settings.hours_per_month * 3600

    @property
    def horizon_s(self) -> float:
        """How long a row can grow: its key's time bound, capped by the retention period."""
        if self.row_bound_s is None:
            return self.retention_s
        return min(self.row_bound_s, self.retention_s)

    @property
    def horizon_text(self) -> str:
        """The projection's horizon in words: "12 months", or "their 49.7-day time bucket fills"
        (the rows' own bucket: "Rows close when their … bucket fills")."""
        if self.row_bound_s is None or self.row_bound_s >= self.retention_s:
            return f"{self.retention_months:g} months"
        return f"their {_duration(self.row_bound_s)} time bucket fills"

    @property
    def growing_rows(self) -> int:
        """Rows still filling at the end of the data (projected larger than they are now)."""
        return int((self.projected_bytes > self.bytes).sum())

    @property
    def open_rows(self) -> int:
        """Rows that keep growing for as long as data is kept (no time bound in the key, G24)."""
        if self.row_bound_s is not None and self.row_bound_s < self.retention_s:
            return 0
        return self.growing_rows

    def limits(self) -> pd.DataFrame:
        """Each Cloud Bigtable limit: the design's worst case, the limit and how many rows/cells pass it."""
        s = self.settings
        rows = [
            ("cell", self.max_cell_bytes, s.cell_advisory_bytes, s.cell_hard_bytes),
            ("row (now)", self.max_bytes, s.row_advisory_bytes, s.row_hard_bytes),
            (
                "row (when full)"
                if self.horizon_s < self.retention_s
                else f"row (after {self.retention_months:g} months)",
                self.projected_max_bytes,
                s.row_advisory_bytes,
                s.row_hard_bytes,
            ),
            ("row key", self.max_key_bytes, s.key_hard_bytes, s.key_hard_bytes),
            ("qualifier", self.max_qualifier_bytes, s.qualifier_hard_bytes, s.qualifier_hard_bytes),
        ]
        df = pd.DataFrame(
            rows, columns=["what", "largest_bytes", "advisory_bytes", "hard_bytes"]
        ).set_index("what")
        df["ok"] = df["largest_bytes"] <= df["advisory_bytes"]
        df["rows_over_advisory"] = [
            0,
            int((self.bytes > s.row_advisory_bytes).sum()),
            int((self.projected_bytes > s.row_advisory_bytes).sum()),
            0,
            0,
        ]
        return df

    def stats(self) -> dict[str, float | str]:
        b, c = self.bytes, self.cells
        if not len(b):
            return {"rows": 0}
        return {
            "rows": len(b),
            "median_row_bytes": float(np.median(b)),
            "p99_row_bytes": float(np.quantile(b, 0.99)),
            "max_row_bytes": int(b.max()),
            "median_row_cells": float(np.median(c)),
            "max_row_cells": int(c.max()),
            "max_cell_bytes": self.max_cell_bytes,
            "largest_row": self.largest_row,
            "projected_max_row_bytes": self.projected_max_bytes,
            "open_rows": self.open_rows,
        }

    def verdict(self) -> str:
        s = self.settings
        worst = self.projected_max_bytes
        bounded = self.horizon_s < self.retention_s
        when = f"by the time {self.horizon_text}" if bounded else f"within {self.horizon_text}"
        if worst > s.row_hard_bytes:
            return f"Rows outgrow the 256 MB hard limit {when} (largest {_fmt(worst)})"
        if worst > s.row_advisory_bytes:
            return f"Rows pass the 100 MB guideline {when} (largest {_fmt(worst)})"
        if self.open_rows:
            return f"{self.open_rows:,} rows never close and keep growing (largest {_fmt(worst)} after {self.horizon_text})"
        if self.growing_rows and bounded:
            return (
                f"Rows close when {self.horizon_text}: largest {_fmt(worst)} when full, "
                "under the 100 MB guideline"
            )
        return f"Rows stay small: largest {_fmt(self.max_bytes)}, far under the 100 MB guideline"

    def _repr_html_(self) -> str:
        return html_of(self)


def _fmt(n: float) -> str:
    for unit, f in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(n) >= f:
            return f"{n / f:,.1f} {unit}"
    return f"{n:,.0f} B"


def row_time_bound_s(key: RowKey) -> float | None:
    """How long one row can receive events, from the key's time segments; None without time.

    A row's key holds every time segment, so the finest one bounds it: a week bucket closes
    after a week, Heroic's base timestamp after 2^bits ms (2^32 ms ≈ 49.7 days, G16).
    """
    widths = [s.bucket_us(longest=True) / 1e6 or 1.0 for s in key.time_segments]
    return min(widths) if widths else None


def _duration(seconds: float) -> str:
    days = seconds / 86_400
    if days >= 1:
        return f"{days:,.1f}-day".replace(".0-day", "-day")
    hours = seconds / 3600
    if hours >= 1:
        return f"{hours:,.0f}-hour"
    return f"{seconds:,.0f}-second"


def row_sizes(
    index: CellIndex,
    *,
    settings: Settings = DEFAULT,
    schema_name: str = "",
    row_bound_s: float | None = None,
    rate_factor: float = 1.0,
    retention_months: float = RETENTION_MONTHS,
) -> RowSizes:
    """Per-row sizes; rows still filling at the end are projected until ``row_bound_s`` closes
    them or the retention period ends (``retention_months``: the workload's).

    ``rate_factor``: one series' events per second in production over the sample's
    (``Production.rate_factor``): a row that gathers events (a time bucket, a row per device)
    holds that many times the events in production, so its projection, and how soon it
    reaches the limits, follow the production rate, not the sample's."""
    R = index.n_rows
    rb = index.row_bytes()
    rc = index.row_cells().astype(np.int32)
    if index.n_cells:
        off = index.row_offsets()[:-1]  # every row has at least one cell; cells are grouped by row
        tmin = np.minimum.reduceat(index.ts, off)
        tmax = np.maximum.reduceat(index.ts, off)
        span = ((tmax - tmin) / 1e6).astype(np.float32)
        del tmin, tmax
        t0, t1 = int(index.ts.min()), int(index.ts.max())
        data_span = max((t1 - t0) / 1e6, 1e-6)
        retention_s = retention_months * settings.hours_per_month * 3600
        horizon_s = retention_s if row_bound_s is None else min(row_bound_s, retention_s)
        # still filling: written from (near) the start to (near) the end of the data; such a row
        # grows at its observed rate until its time bound closes it or retention ends
        is_open = (span >= _OPEN_FRACTION * data_span) & (data_span > 0) & (rc > 1)
        projected = np.where(is_open, rb * np.maximum(horizon_s / data_span, 1.0), rb)
        if rate_factor != 1.0:  # rows gathering events hold rate_factor × the events
            projected = np.where(rc > 1, projected * rate_factor, projected)
        grow = np.where(is_open, rb * rate_factor / data_span, 0.0)  # bytes/s at production
        byte_rate = float(grow.max()) if len(grow) else 0.0
        max_cell = int(index.nbytes.max())
    else:
        span = np.zeros(0, dtype=np.float32)
        data_span = 0.0
        projected = rb.astype(np.float64)
        max_cell = 0
        byte_rate = 0.0
    largest = index.key(int(rb.argmax())) if R else ""
    return RowSizes(
        bytes=rb,
        cells=rc,
        span_s=span,
        data_span_s=data_span,
        max_cell_bytes=max_cell,
        max_key_bytes=int(index.key_bytes.max()) if R else 0,
        max_qualifier_bytes=int(index.qualifier_bytes.max()) if len(index.qualifier_bytes) else 0,
        largest_row=largest,
        projected_bytes=projected.astype(np.int64),
        settings=settings,
        schema_name=schema_name,
        row_bound_s=row_bound_s,
        rate_factor=float(rate_factor),
        open_row_bytes_per_s=byte_rate,
        retention_months=float(retention_months),
    )


def file_largest_row(ds: Dataset, key: RowKey, rs: RowSizes) -> RowSizes:
    """``rs`` with its file's largest row when ``ds`` is a shape sample whose file was counted
    per row (``FileAggregates.rows`` and ``busiest``): the events of the file's largest
    (key's entity columns, key's time bucket) — or, with no time in the key, of its busiest
    series — times the sample's largest row's bytes per such event (its bytes over the events of
    the sample's largest group), projected by the sample's largest row's own growth. A key
    with a time finer than an hour or Heroic's base (rows closed by other bounds) keeps the
    sample's figure, as does a dataset with no file counted (G10, G12)."""
    from ..datasets.file_aggregates import ROW_BUCKETS
    from ..schema.time_text import floor_us, time_us

    agg = ds.aggregates
    if agg is None or not agg.busiest or not rs.n_rows or not len(ds):
        return rs
    cols = [c for c in ds.entity if any(c in seg.sources() for seg in key.segments)]
    times = key.time_segments
    f = ds.frame
    if times:
        bounds = [row_time_bound_s(type(key)((seg,))) or 0.0 for seg in times]
        finest = times[bounds.index(min(bounds))]
        precision = getattr(finest, "precision", "")
        filed = agg.rows.get((tuple(cols), precision)) if precision in ROW_BUCKETS else None
        if filed is None or getattr(finest, "bits", None) is not None:
            return rs
        bucket = pd.Series(floor_us(time_us(f[ds.time]), precision), index=f.index)
        held = int(
            pd.concat([f[cols], bucket.rename("__b")], axis=1)
            .groupby([*cols, "__b"], sort=False, observed=True)
            .size()
            .max()
        )
        what = f"({', '.join([*cols, precision])})"
    else:
        got = agg.busiest.get(tuple(cols)) if cols else (1, agg.events, float(agg.events))
        if got is None:
            return rs
        filed = got[1]
        held = int(f.groupby(cols, sort=False, observed=True).size().max()) if cols else len(f)
        what = f"({', '.join(cols)})" if cols else "row"
    top = int(rs.bytes.argmax())
    per_event = float(rs.bytes[top]) / max(held, 1)
    now = round(filed * per_event)
    growth = float(rs.projected_bytes[top]) / max(float(rs.bytes[top]), 1.0)
    rs.file_max_bytes, rs.file_projected_bytes = now, round(now * growth)
    rs.file_row = f"the file's busiest {what}: {filed:,} events, counted by {agg.counted_by}"
    return rs


_PRECISION_SECONDS = {
    "minute": 60.0,
    "hour": 3600.0,
    "day": 86_400.0,
    "week": 7 * 86_400.0,
    "month": 30.436875 * 86_400.0,
}


def _width_seconds(w: Any) -> float:
    """A bucket width in seconds: a precision name ("hour", "week"…), a Timedelta/offset string, or seconds."""
    if isinstance(w, (int, float)):
        return float(w)
    if isinstance(w, str) and w in _PRECISION_SECONDS:
        return _PRECISION_SECONDS[w]
    return pd.Timedelta(w).total_seconds()


def bucket_width_sweep(
    ds: Dataset, make_schema: Callable[[Any], Schema], widths: Iterable[Any]
) -> pd.DataFrame:
    """Build the design at each bucket width and measure its rows: size grows linearly with width (G02, G12).

    ``make_schema(width)`` returns a schema for one bucket width (a precision
    name such as ``"hour"``, a ``pd.Timedelta`` or seconds), e.g.
    ``lambda w: wb.preset("weather_balloons", "bucket_new_columns", bucket=w)``;
    the table has one row per width with the median and
    largest row's bytes and cells.
    """
    recs = []
    for w in widths:
        idx = CellIndex.build(make_schema(w).to_cells(ds))
        rb, rc = idx.row_bytes(), idx.row_cells()
        width_s = _width_seconds(w)
        recs.append(
            {
                "width": w,
                "width_s": width_s,
                "rows": idx.n_rows,
                "median_row_bytes": float(np.median(rb)),
                "max_row_bytes": int(rb.max()),
                "median_row_cells": float(np.median(rc)),
                "max_row_cells": int(rc.max()),
                "mean_row_bytes": float(rb.mean()),
            }
        )
    return pd.DataFrame.from_records(recs)
