"""Benchmark: Schema.to_cells (vectorized) vs a per-event Python loop over the same schema.

Data: weather_balloons with 1,000,000 events (4 measures → 4 million cells), schema
``single_timestamp`` (``{location}#{balloon_id}#{time:%Y%m%d%H%M%S}``, family m,
short qualifiers). The loop baseline builds exactly the same cells the obvious way
(strftime + f-string per event, ``repr(value).encode()`` per cell) on the first
``LOOP_EVENTS`` events and is scaled to 1M; its output is checked against to_cells'
cells for those events. A second baseline interprets the same schema object per event
(segment by segment, a cell per measure), as a non-vectorized to_cells would.
Printed: absolute times and both speed-up ratios (target ≥ 10×).

    .venv/bin/python bench/bench_to_cells.py [events] [loop_events]
"""

from __future__ import annotations

import sys
import time

import workbench as wb
from workbench.cells import CellFrame
from workbench.datasets.model import Dataset
from workbench.schema import preset

EVENTS = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
LOOP_EVENTS = int(sys.argv[2]) if len(sys.argv) > 2 else 50_000


def loop_to_cells(ds: Dataset, schema) -> CellFrame:
    """What a per-event implementation of the same schema looks like."""
    tall = schema.layout
    qn = dict(tall.qualifiers)
    fam = tall.family.name
    rows, fams, quals, tss, vals = [], [], [], [], []
    f = ds.frame
    for loc, bid, t, *ms in zip(
        f["location"], f["balloon_id"], f["time"], *(f[m] for m in ds.measures), strict=True
    ):
        key = f"{loc}#{bid}#{t.strftime('%Y%m%d%H%M%S')}"
        ts = (t.value // 1000) // 1000 * 1000
        for m, v in zip(ds.measures, ms, strict=True):
            rows.append(key)
            fams.append(fam)
            quals.append(qn.get(m, m))
            tss.append(ts)
            vals.append(repr(float(v)).encode())
    return CellFrame.from_columns(
        row_key=rows, family=fams, qualifier=quals, timestamp_us=tss, value=vals
    )


def _segment_text(seg, row: dict, t) -> str:
    """One segment for one event, the way a per-event implementation interprets a schema."""
    from workbench.schema import Field, Literal, PaddedInt, ReversedTimestamp, Timestamp

    if isinstance(seg, Literal):
        return seg.text
    if isinstance(seg, PaddedInt):
        return str(row[seg.column]).zfill(seg.width)
    if isinstance(seg, Field):
        return str(row[seg.column])
    if isinstance(seg, Timestamp):
        us = t.value // 1000
        fmt = seg.fmt or "%Y%m%d%H%M%S"
        text = t.strftime(fmt)
        if seg.precision == "ms":
            text += f"{(us // 1000) % 1000:03d}"
        elif seg.precision == "us":
            text += f"{us % 1_000_000:06d}"
        return text
    if isinstance(seg, ReversedTimestamp):
        per = {"s": 1_000_000, "ms": 1000, "us": 1}[seg.unit]
        return str(seg.max_value - (t.value // 1000) // per).zfill(seg.width)
    raise NotImplementedError(type(seg).__name__)


def generic_loop_to_cells(ds: Dataset, schema) -> CellFrame:
    """A per-event loop that interprets the same schema object: segments, then a cell per measure."""
    key, tall = schema.key, schema.layout
    qn = dict(tall.qualifiers)
    rows, fams, quals, tss, vals = [], [], [], [], []
    cols = list(ds.frame.columns)
    for values in zip(*(ds.frame[c] for c in cols), strict=True):
        row = dict(zip(cols, values, strict=True))
        t = row[ds.time]
        k = key.delimiter.join(_segment_text(seg, row, t) for seg in key.segments)
        ts = (t.value // 1000) // 1000 * 1000
        for m in ds.measures:
            rows.append(k)
            fams.append(tall.family.name)
            quals.append(qn.get(m, m))
            tss.append(ts)
            vals.append(repr(float(row[m])).encode())
    return CellFrame.from_columns(
        row_key=rows, family=fams, qualifier=quals, timestamp_us=tss, value=vals
    )


def main() -> None:
    t0 = time.perf_counter()
    ds = wb.load_dataset("weather_balloons", size=EVENTS)
    gen = time.perf_counter() - t0
    schema = preset("weather_balloons", "single_timestamp")
    n = len(ds.frame)
    print(
        f"dataset: weather_balloons, {n:,} events ({gen:.1f} s to generate); schema {schema.key.template()}"
    )

    t0 = time.perf_counter()
    cells = schema.to_cells(ds)
    vec = time.perf_counter() - t0
    print(
        f"to_cells (vectorized): {vec:.2f} s for {n:,} events, {len(cells):,} cells "
        f"({n / vec:,.0f} events/s)"
    )

    sub = Dataset(
        name=ds.name,
        frame=ds.frame.head(LOOP_EVENTS).reset_index(drop=True),
        entity=ds.entity,
        time=ds.time,
        measures=ds.measures,
    )
    t0 = time.perf_counter()
    looped = loop_to_cells(sub, schema)
    loop = time.perf_counter() - t0
    scaled = loop * n / len(sub.frame)
    print(
        f"per-event loop: {loop:.2f} s for {len(sub.frame):,} events → {scaled:.1f} s scaled to {n:,} "
        f"({len(sub.frame) / loop:,.0f} events/s)"
    )
    same = looped.equals(schema.to_cells(sub))
    print(f"loop output identical to to_cells on those events: {same}")
    if not same:
        raise SystemExit("the baseline does not build the same cells: the comparison is void")
    t0 = time.perf_counter()
    generic = generic_loop_to_cells(sub, schema)
    gloop = time.perf_counter() - t0
    gscaled = gloop * n / len(sub.frame)
    print(
        f"per-event loop interpreting the schema: {gloop:.2f} s for {len(sub.frame):,} events → {gscaled:.1f} s "
        f"scaled ({len(sub.frame) / gloop:,.0f} events/s); identical: {generic.equals(looped)}"
    )
    if not generic.equals(looped):
        raise SystemExit("the generic baseline does not build the same cells")
    print(
        f"RATIO to_cells vs per-event loop over the schema: {gscaled / vec:.1f}x faster (target >= 10x)"
    )
    print(f"RATIO to_cells vs hand-specialised f-string loop: {scaled / vec:.1f}x faster")


if __name__ == "__main__":
    main()
