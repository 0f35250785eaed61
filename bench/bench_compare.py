"""Every design compared on a Parquet file of one's own: 5,000 sensors × 1,000 readings (5 M
events), `wb.compare(ds, wb.presets(ds))`, against one design analysed in the same run.

Each step runs in a fresh process so its peak RSS (VmHWM, bench/_memory.py) is its own.
Ratios: compare's time over one design's (the number of designs is what it would be if nothing
were shared or wasted) and compare's peak over one design's (1.0 would be: the designs already
analysed cost no memory; before `analysis/spill.py` compare kept every design's cells, 10.1 GB
at 5 M events). The file is loaded as the README does (no ``shape_events``): above
``parquet.SHAPE_ABOVE`` that is a shape sample with DuckDB's counts of the file. Targets
(issue): one design < 60 s, all designs with the load <= 180 s, peak <= 2 GB.

    PYTHONPATH=. python bench/bench_compare.py [--sensors 5000] [--readings 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from _memory import TreePeak, peak_rss_mb, run_step


def write(path: str, sensors: int, readings: int) -> dict:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(7)
    n = sensors * readings
    t0 = pd.Timestamp("2026-01-01", tz="UTC")
    frame = pd.DataFrame(
        {
            "sensor_id": np.repeat(np.arange(1, sensors + 1), readings).astype(np.int64),
            "time": t0 + pd.to_timedelta(np.tile(np.arange(readings) * 60, sensors), unit="s"),
            "temperature": np.round(rng.normal(20, 5, n), 2),
            "humidity": np.round(rng.uniform(20, 90, n), 1),
        }
    )
    frame.to_parquet(path, row_group_size=1_000_000, index=False)
    return {"events": n, "bytes": Path(path).stat().st_size}


def _load(path: str):
    import workbench as wb

    return wb.from_parquet(
        path, entity="sensor_id", time="time", measures=["temperature", "humidity"]
    )


def _loaded(path: str):
    """The dataset as the README loads it (no ``shape_events``: the defaults decide), the
    seconds it took, and what was loaded (its first note says when it is a shape sample)."""
    t0 = time.perf_counter()
    ds = _load(path)
    return (
        ds,
        time.perf_counter() - t0,
        {"events_in_memory": len(ds), "note": (ds.notes or [""])[0][:60]},
    )


def one(path: str) -> dict:
    import workbench as wb

    ds, load_s, held = _loaded(path)
    schema = wb.preset(ds, wb.pattern_names(ds)[0])
    t0 = time.perf_counter()
    a = wb.analyze(ds, schema)
    return {
        **held,
        "design": schema.name,
        "load_s": load_s,
        "analyze_s": time.perf_counter() - t0,
        "timings_ms": {k: round(v) for k, v in a.timings_ms.items()},
        "peak_rss_mb": peak_rss_mb(),
    }


def compare(path: str) -> dict:
    import workbench as wb

    ds, load_s, held = _loaded(path)
    designs = wb.presets(ds)
    t0 = time.perf_counter()
    with TreePeak() as tree:  # compare's worker processes (analysis/workers.py) count too
        c = wb.compare(ds, designs)
    took = time.perf_counter() - t0
    return {
        **held,
        "load_s": load_s,
        "designs": len(designs),
        "compare_s": took,
        "per_design_s": {
            k: round(sum(a.timings_ms.values()) / 1e3, 1) for k, a in c.analyses.items()
        },
        "not_built": list(c.not_built),
        "peak_rss_mb": peak_rss_mb(),
        "with_workers_peak_pss_mb": tree.mb,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sensors", type=int, default=5_000)
    ap.add_argument("--readings", type=int, default=1_000)
    ap.add_argument("--child", choices=["write", "one", "compare"], help=argparse.SUPPRESS)
    ap.add_argument("--path", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        fn = {"write": lambda p: write(p, args.sensors, args.readings), "one": one}
        out = fn.get(args.child, compare)(args.path)
        print(json.dumps(out))
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "events.parquet")
        outs = {}
        for step in ("write", "one", "compare"):
            extra = ["--sensors", str(args.sensors), "--readings", str(args.readings)]
            outs[step] = out = run_step(__file__, step, path, extra)
            print(step, json.dumps(out, indent=1), flush=True)
    one_, cmp_ = outs["one"], outs["compare"]
    print(f"loaded: {cmp_['events_in_memory']:,} events ({cmp_['note']}…)")
    print(f"one design: {one_['analyze_s']:.0f} s, peak {one_['peak_rss_mb']:,.0f} MB")
    print(
        f"all {cmp_['designs']} designs: {cmp_['compare_s']:.0f} s after a {cmp_['load_s']:.0f} s "
        f"load, peak {cmp_['peak_rss_mb']:,.0f} MB, {cmp_['with_workers_peak_pss_mb']:,.0f} MB with "
        "its workers (target load + compare <= 180 s, < 2,048 MB)"
    )
    print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()}")
    print(f"compare / one design, time: {cmp_['compare_s'] / one_['analyze_s']:.1f}×")
    print(f"compare / one design, peak: {cmp_['peak_rss_mb'] / one_['peak_rss_mb']:.2f}×")


if __name__ == "__main__":
    main()
