"""A Parquet file analysed from a shape sample plus DuckDB's counts of every event
(``from_parquet(shape_events=N)``), one design and every design, against the full in-memory
load of the same file as the baseline in the same run (where it fits).

Each step runs in a fresh process so its peak RSS (VmHWM, bench/_memory.py) is its own, and its
time includes reading the file (the shape sample's read and DuckDB's scan, or the full load):
what a user waits for. The file is bench_file_aggregates.py's (``--series`` sensors, one reading
a minute each, ``--events`` in all). Above ``--full-max`` events the full load is left out (it
would not fit). Targets (issue): 100 M events, one design < 180 s within 1.5 GB; 5 M events,
one design < 60 s, every design < 180 s, within 2 GB.

    PYTHONPATH=. python bench/bench_shape_sample.py --events 5000000 --series 5000 \
        [--shape-events 500000] [--full-max 5000000]
    PYTHONPATH=. python bench/bench_shape_sample.py --events 100000000 --series 100000 \
        --no-compare --shape-events 1000000
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from _memory import peak_rss_mb, run_step
from bench_file_aggregates import write

DESIGN = "entity_first"


def _load(path: str, shape: int | None):
    import workbench as wb

    return wb.from_parquet(
        path,
        entity="sensor_id",
        time="time",
        measures=["value"],
        progress=False,
        shape_events=shape,
    )


def one(path: str, shape: int | None) -> dict:
    import workbench as wb

    t0 = time.perf_counter()
    ds = _load(path, shape)
    load_s = time.perf_counter() - t0
    a = wb.analyze(ds, wb.preset(ds, DESIGN))
    c = a.capacity
    return {
        "events_in_memory": len(ds),
        "load_s": round(load_s, 1),
        "total_s": round(time.perf_counter() - t0, 1),
        "nodes": c.nodes_needed,
        "ceiling_events_per_s": c.ceiling_events_per_s,
        "stored_gib": round(float(c.stored_gib), 3),
        "peak_rss_mb": round(peak_rss_mb()),
    }


def compare(path: str, shape: int | None) -> dict:
    import workbench as wb

    t0 = time.perf_counter()
    ds = _load(path, shape)
    designs = wb.presets(ds)
    c = wb.compare(ds, designs)
    return {
        "designs": len(designs),
        "not_built": list(c.not_built),
        "total_s": round(time.perf_counter() - t0, 1),
        "peak_rss_mb": round(peak_rss_mb()),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=5_000_000)
    ap.add_argument("--series", type=int, default=5_000)
    ap.add_argument("--shape-events", type=int, default=500_000)
    ap.add_argument("--full-max", type=int, default=5_000_000)
    ap.add_argument("--no-compare", action="store_true")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--path", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        step, _, mode = args.child.partition(":")
        shape = args.shape_events if mode == "shape" else None
        if step == "write":
            out = write(args.path, args.events, args.series)
        else:
            out = (one if step == "one" else compare)(args.path, shape)
        print(json.dumps(out))
        return
    steps = ["write", "one:shape"]
    steps += [] if args.no_compare else ["compare:shape"]
    steps += ["one:full"] if args.events <= args.full_max else []
    outs = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "events.parquet")
        for step in steps:
            extra = ["--events", str(args.events), "--series", str(args.series)]
            extra += ["--shape-events", str(args.shape_events)]
            outs[step] = out = run_step(__file__, step, path, extra)
            print(step, json.dumps(out), flush=True)
    s = outs["one:shape"]
    print(
        f"{args.events:,} events, one design ({DESIGN}) from a shape sample of "
        f"{s['events_in_memory']:,}: {s['total_s']:.0f} s, peak {s['peak_rss_mb']:,} MB"
    )
    if "compare:shape" in outs:
        c = outs["compare:shape"]
        print(
            f"every design ({c['designs']}): {c['total_s']:.0f} s, peak {c['peak_rss_mb']:,} MB; "
            f"compare / one design, time: {c['total_s'] / s['total_s']:.1f}×"
        )
    if "one:full" in outs:
        f = outs["one:full"]
        print(f"full load, one design: {f['total_s']:.0f} s, peak {f['peak_rss_mb']:,} MB")
        print(
            f"shape / full, time: {s['total_s'] / f['total_s']:.2f}×, peak: "
            f"{s['peak_rss_mb'] / f['peak_rss_mb']:.2f}×; nodes {s['nodes']} vs {f['nodes']}, "
            f"ceiling {s['ceiling_events_per_s']:,.0f} vs {f['ceiling_events_per_s']:,.0f}, "
            f"storage {s['stored_gib']} vs {f['stored_gib']} GiB"
        )


if __name__ == "__main__":
    main()
